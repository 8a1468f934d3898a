"""OpenAI Agents SDK: checkpoint an agent's file-editing tools, then undo the run.

Runs as is, with no network and no LLM: a `Model` written here plays the model
(it asks for `write_file` twice, then `format_file`, which fails half way).
With a real model, leave `model=` out (or name one). `checkpoint_function_tool`
makes the tools (as `function_tool` does) and rolls a failed call back before
the SDK reports its error to the model;
`CheckpointRunHooks(run, edits)` (`Runner.run(..., hooks=...)`) captures the
paths of unwrapped tools for the run's undo.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from agents import Agent, Model, ModelResponse, RunConfig, Runner, Tool, Usage
from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText

from agent_checkpoint.openai_agents import checkpoint_function_tool
from agent_checkpoint.run_checkpoint import RunCheckpoint

root = Path(tempfile.mkdtemp())
(root / "app.py").write_text("print('v1')\n")


def write_file(path: str, content: str) -> str:
    """Replace the file at `path` with `content`."""
    (root / path).parent.mkdir(parents=True, exist_ok=True)
    (root / path).write_text(content)
    return f"wrote {path}"


def format_file(path: str) -> str:
    """Reformat the file at `path`: here it truncates it, then crashes."""
    (root / path).write_text("")
    raise RuntimeError(f"the formatter crashed on {path}")


class ScriptedModel(Model):
    """Plays the model: three tool calls, then an answer."""

    def __init__(self) -> None:
        self.calls = [
            ("write_file", {"path": "app.py", "content": "print('v2')\n"}),
            ("write_file", {"path": "gen/new.py", "content": "x = 1\n"}),
            ("format_file", {"path": "app.py"}),
        ]

    async def get_response(self, *args: Any, **kwargs: Any) -> ModelResponse:
        output: Any
        if self.calls:
            name, arguments = self.calls.pop(0)
            call_id = f"call-{len(self.calls)}"
            output = ResponseFunctionToolCall(type="function_call", call_id=call_id, name=name, arguments=json.dumps(arguments))
        else:
            text = ResponseOutputText(type="output_text", text="done", annotations=[])
            output = ResponseOutputMessage(id="msg", type="message", role="assistant", status="completed", content=[text])
        return ModelResponse(output=[output], usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        raise NotImplementedError


run = RunCheckpoint(root)  # one per run: every path its tools touch, captured before the first touch
tools: list[Tool] = [checkpoint_function_tool(write_file, run), checkpoint_function_tool(format_file, run)]
agent = Agent(name="editor", model=ScriptedModel(), tools=tools)
result = asyncio.run(Runner.run(agent, "update the app", run_config=RunConfig(tracing_disabled=True)))
print(result.final_output, (root / "app.py").read_text().strip(), (root / "gen").exists())
#> done print('v2') True
undo = run.undo()  # the whole run, after the fact
print(undo.ok, undo.restored, (root / "app.py").read_text().strip(), (root / "gen").exists())
#> True ['app.py', 'gen/new.py'] print('v1') False
