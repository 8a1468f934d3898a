"""Pydantic AI: checkpoint an agent's file-editing tools, then undo the run.

Runs as is, with no network and no LLM: Pydantic AI's FunctionModel plays the
model (it asks for `write_file` twice, then `format_file`, which fails half
way). With a real model, give `Agent` its name instead (`Agent("openai:gpt-5")`).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from pydantic_ai import Agent, FunctionToolset, ModelRetry
from pydantic_ai.messages import ModelMessage, ModelResponse, ModelResponsePart, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from agent_checkpoint.pydantic_ai import CheckpointToolset
from agent_checkpoint.run_checkpoint import RunCheckpoint

root = Path(tempfile.mkdtemp())
(root / "app.py").write_text("print('v1')\n")

tools: FunctionToolset[None] = FunctionToolset()


@tools.tool_plain
def write_file(path: str, content: str) -> str:
    """Replace the file at `path` with `content`."""
    (root / path).parent.mkdir(parents=True, exist_ok=True)
    (root / path).write_text(content)
    return f"wrote {path}"


@tools.tool_plain
def format_file(path: str) -> str:
    """Reformat the file at `path`: here it truncates it, then crashes."""
    (root / path).write_text("")
    raise ModelRetry(f"the formatter crashed on {path}")


def play_the_model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    script: list[ModelResponsePart] = [
        ToolCallPart("write_file", {"path": "app.py", "content": "print('v2')\n"}),
        ToolCallPart("write_file", {"path": "gen/new.py", "content": "x = 1\n"}),
        ToolCallPart("format_file", {"path": "app.py"}),
        TextPart("done"),
    ]
    return ModelResponse(parts=[script[sum(isinstance(m, ModelResponse) for m in messages)]])


agent: Agent[None, str] = Agent(FunctionModel(play_the_model))
run = RunCheckpoint(root)  # one per run: every path its tools touch, captured before the first touch
checkpointed = CheckpointToolset(tools, run, edits=["write_file", "format_file"])
result = agent.run_sync("update the app", toolsets=[checkpointed])
print(result.output, (root / "app.py").read_text().strip(), (root / "gen").exists())
#> done print('v2') True
undo = run.undo()  # the whole run, after the fact
print(undo.ok, undo.restored, (root / "app.py").read_text().strip(), (root / "gen").exists())
#> True ['app.py', 'gen/new.py'] print('v1') False
