"""LangChain / LangGraph: checkpoint an agent's file-editing tools, then undo the run.

Runs as is, with no network and no LLM: LangChain's fake chat model plays the
model (it asks for `write_file` twice, then `format_file`, which fails half
way) inside LangGraph's prebuilt agent loop. With a real model, pass it
(`ChatOpenAI(...)`, ...) instead. The tools stay as they are: the callback
handler does the checkpointing (`checkpoint_tool(tool, run)` wraps one tool
instead, for the same effect).
"""

from __future__ import annotations

import tempfile
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.prebuilt import ToolNode, create_react_agent

from agent_checkpoint.langchain import CheckpointCallbackHandler
from agent_checkpoint.run_checkpoint import RunCheckpoint

warnings.filterwarnings("ignore", category=DeprecationWarning)  # create_react_agent's new home is `langchain`

root = Path(tempfile.mkdtemp())
(root / "app.py").write_text("print('v1')\n")


@tool
def write_file(path: str, content: str) -> str:
    """Replace the file at `path` with `content`."""
    (root / path).parent.mkdir(parents=True, exist_ok=True)
    (root / path).write_text(content)
    return f"wrote {path}"


@tool
def format_file(path: str) -> str:
    """Reformat the file at `path`: here it truncates it, then crashes."""
    (root / path).write_text("")
    raise RuntimeError(f"the formatter crashed on {path}")


class ScriptedModel(GenericFakeChatModel):
    """The fake chat model, taking tools (it answers from its script)."""

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedModel:
        return self


def call(name: str, **args: str) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": name, "args": args, "id": f"call-{name}-{len(args)}"}])


model = ScriptedModel(
    messages=iter(
        [
            call("write_file", path="app.py", content="print('v2')\n"),
            call("write_file", path="gen/new.py", content="x = 1\n"),
            call("format_file", path="app.py"),
            AIMessage("done"),
        ]
    )
)
agent = create_react_agent(model, ToolNode([write_file, format_file], handle_tool_errors=True))
run = RunCheckpoint(root)  # one per run: every path its tools touch, captured before the first touch
handler = CheckpointCallbackHandler(run, edits=["write_file", "format_file"])
result = agent.invoke({"messages": [("user", "update the app")]}, {"callbacks": [handler]})
print(result["messages"][-1].content, (root / "app.py").read_text().strip(), (root / "gen").exists())
#> done print('v2') True
undo = run.undo()  # the whole run, after the fact
print(undo.ok, undo.restored, (root / "app.py").read_text().strip(), (root / "gen").exists())
#> True ['app.py', 'gen/new.py'] print('v1') False
