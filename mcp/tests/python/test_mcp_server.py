"""`agent-checkpoint mcp` driven by the official MCP Python SDK, started as
an agent starts it: a subprocess speaking MCP over stdio.

The binary is $AGENT_CHECKPOINT_BIN (scripts/mcp sets it), else the debug
build under $CARGO_TARGET_DIR (or ./target).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

REPO = Path(__file__).resolve().parents[3]
TOOLS = {
    "capture_checkpoint",
    "plan_rollback",
    "rollback_checkpoint",
    "record_applied",
    "inspect_checkpoint",
    "list_checkpoints",
    "save_session",
    "redact_text",
    "shadow_step",
    "shadow_log",
    "shadow_rewind_plan",
    "shadow_rewind",
}


def binary() -> str:
    explicit = os.environ.get("AGENT_CHECKPOINT_BIN")
    if explicit:
        return explicit
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    return str(target / "debug" / "agent-checkpoint")


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture
def project(tmp_path: Path) -> dict[str, Path]:
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text('print("v1")\n')
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("not yours\n")
    (root / "out").symlink_to(outside)
    return {"root": root, "outside": outside}


@asynccontextmanager
async def session(root: Path, *extra: str):
    params = StdioServerParameters(command=binary(), args=["mcp", "--root", str(root), *extra])
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as streams:
            async with ClientSession(streams[0], streams[1]) as client:
                await client.initialize()
                yield client


def error_code(result) -> str:
    assert result.is_error, result
    return result.structured_content["error"]["code"]


@pytest.mark.anyio
async def test_lists_the_tools_and_the_checkpoint_resources(project):
    async with session(project["root"]) as client:
        tools = (await client.list_tools()).tools
        assert {t.name for t in tools} == TOOLS
        for tool in tools:
            assert tool.description and tool.input_schema["type"] == "object"
            assert tool.output_schema["type"] == "object"
        assert (await client.list_resources()).resources == []
        captured = await client.call_tool("capture_checkpoint", {"paths": ["src/app.py"]})
        checkpoint = captured.structured_content["checkpoint_id"]
        resources = (await client.list_resources()).resources
        assert [str(r.uri) for r in resources] == [f"checkpoint://{checkpoint}"]
        read = await client.read_resource(f"checkpoint://{checkpoint}")
        doc = json.loads(read.contents[0].text)
        assert doc["checkpoint_id"] == checkpoint
        assert [p["path"] for p in doc["paths"]] == ["src/app.py"]


@pytest.mark.anyio
async def test_capture_batch_plan_rollback(project):
    root = project["root"]
    async with session(root) as client:
        captured = await client.call_tool(
            "capture_checkpoint", {"paths": ["src/app.py", "./src/../gen/new.py"]}
        )
        assert not captured.is_error, captured
        result = captured.structured_content
        checkpoint = result["checkpoint_id"]
        assert result["storage"] == "memory"
        assert [(p["path"], p["kind"]) for p in result["paths"]] == [
            ("gen/new.py", "new"),
            ("src/app.py", "file"),
        ]
        assert checkpoint in captured.content[0].text

        # The batch, as an agent's own edit tools would apply it.
        (root / "src" / "app.py").write_text('print("v2")\n')
        (root / "gen").mkdir()
        (root / "gen" / "new.py").write_text("x = 1\n")

        plan = await client.call_tool("plan_rollback", {"checkpoint_id": checkpoint})
        steps = {s["path"]: s["action"] for s in plan.structured_content["steps"]}
        assert steps == {"gen": "rmdir", "gen/new.py": "remove", "src/app.py": "write"}
        assert (root / "gen" / "new.py").exists(), "a plan changes nothing"

        rolled = await client.call_tool("rollback_checkpoint", {"checkpoint_id": checkpoint})
        report = rolled.structured_content
        assert report["ok"] is True, report
        assert report["restored"] == ["gen/new.py", "src/app.py"]
        assert (root / "src" / "app.py").read_text() == 'print("v1")\n'
        assert not (root / "gen").exists()
        assert sorted(p.name for p in root.iterdir()) == ["out", "src"]

        # The redo checkpoint brings the batch back.
        redo = await client.call_tool(
            "rollback_checkpoint", {"checkpoint_id": report["redo_checkpoint_id"], "redo": False}
        )
        assert redo.structured_content["ok"] is True
        assert (root / "src" / "app.py").read_text() == 'print("v2")\n'
        assert (root / "gen" / "new.py").read_text() == "x = 1\n"

        listed = await client.call_tool("list_checkpoints", {})
        assert listed.structured_content["total"] == 2


@pytest.mark.anyio
async def test_bad_calls_are_tool_errors_and_the_server_keeps_serving(project):
    root, outside = project["root"], project["outside"]
    async with session(root) as client:
        bad_calls = [
            ("capture_checkpoint", {"paths": ["../outside/secret.txt"]}, "path_escapes_root"),
            ("capture_checkpoint", {"paths": [str(outside / "secret.txt")]}, "path_escapes_root"),
            ("capture_checkpoint", {"paths": ["out/secret.txt"]}, "path_escapes_root"),
            ("capture_checkpoint", {"paths": ["src"]}, "not_a_file"),
            ("frobnicate", {}, "not_found"),
            ("capture_checkpoint", {"paths": "src/app.py"}, "invalid_argument"),
            ("capture_checkpoint", {"paths": [1, 2]}, "invalid_argument"),
            ("capture_checkpoint", {}, "invalid_argument"),
            ("capture_checkpoint", {"paths": ["src/app.py"], "pathz": []}, "invalid_argument"),
            ("list_checkpoints", {"limit": "ten"}, "invalid_argument"),
            ("rollback_checkpoint", {"checkpoint_id": 42}, "invalid_argument"),
            ("rollback_checkpoint", {"checkpoint_id": "01KVBJCWYA4YW6J5M9GP655HZN"}, "not_found"),
            ("plan_rollback", {"checkpoint_id": "../../etc"}, "invalid_checkpoint_id"),
            ("save_session", {"prompts": ["p"]}, "not_a_repository"),
        ]
        for name, arguments, code in bad_calls:
            result = await client.call_tool(name, arguments)
            assert error_code(result) == code, (name, arguments, result)
            assert result.content[0].text.startswith(f"error[{code}]")
            # Still serving, and nothing outside the root was touched.
            pong = await client.call_tool("redact_text", {"text": "hello"})
            assert pong.structured_content["text"] == "hello"
        assert (outside / "secret.txt").read_text() == "not yours\n"
        assert (await client.call_tool("list_checkpoints", {})).structured_content["total"] == 0


def test_protocol_errors_on_the_raw_pipe(project):
    """Bytes no SDK sends, on the real binary's stdin: answered per
    JSON-RPC, never fatal, and stdout holds nothing but JSON-RPC."""
    process = subprocess.Popen(
        [binary(), "mcp", "--root", str(project["root"]), "--max-message-bytes", "4096"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    lines = [
        b"{oops\n",
        b'{"id": 1, "method": "ping"}\n',
        b'{"jsonrpc":"2.0","id":2,"method":"ping","params":{"pad":"' + b"x" * 5000 + b'"}}\n',
        b'{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
        b'"capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}\n',
        b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n',
        b'{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"redact_text","arguments":{"text":"ok"}}}\n',
    ]
    out, err = process.communicate(b"".join(lines), timeout=120)
    assert process.returncode == 0, err
    messages = [json.loads(line) for line in out.decode().splitlines()]
    assert all(m["jsonrpc"] == "2.0" for m in messages)
    by_id = {m["id"]: m for m in messages if m.get("id") is not None}
    # Answers to lines whose id cannot be read carry `"id": null` (JSON-RPC 2.0).
    anonymous = [m for m in messages if m.get("id") is None]
    assert all("id" in m for m in anonymous)
    assert sorted(m["error"]["code"] for m in anonymous) == [-32700, -32600]
    oversized = [m for m in anonymous if m["error"]["code"] == -32600][0]
    assert oversized["error"]["data"] == {"max_message_bytes": 4096}
    assert by_id[1]["error"]["code"] == -32600
    assert 2 not in by_id, "the oversized request was not run"
    assert by_id[3]["result"]["serverInfo"]["name"] == "agent-checkpoint"
    assert by_id[4]["result"]["structuredContent"]["text"] == "ok"
    assert b"refused a message" in err


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
