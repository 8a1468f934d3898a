// `agent-checkpoint mcp` driven by the official MCP TypeScript SDK, started
// as an agent starts it: a subprocess speaking MCP over stdio.
//
// The binary is $AGENT_CHECKPOINT_BIN (scripts/mcp sets it), else the debug
// build under $CARGO_TARGET_DIR (or ./target).

import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const binary =
  process.env.AGENT_CHECKPOINT_BIN ??
  path.join(process.env.CARGO_TARGET_DIR ?? path.join(repo, "target"), "debug", "agent-checkpoint");

const TOOLS = [
  "capture_checkpoint",
  "inspect_checkpoint",
  "list_checkpoints",
  "plan_rollback",
  "record_applied",
  "redact_text",
  "rollback_checkpoint",
  "save_session",
  "shadow_log",
  "shadow_rewind",
  "shadow_rewind_plan",
  "shadow_step",
];

function project() {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), "mcp-node-"));
  const root = path.join(base, "project");
  const outside = path.join(base, "outside");
  fs.mkdirSync(path.join(root, "src"), { recursive: true });
  fs.writeFileSync(path.join(root, "src", "app.py"), 'print("v1")\n');
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(outside, "secret.txt"), "not yours\n");
  fs.symlinkSync(outside, path.join(root, "out"));
  return { base, root, outside };
}

async function connect(root) {
  const transport = new StdioClientTransport({
    command: binary,
    args: ["mcp", "--root", root],
    stderr: "ignore",
  });
  const client = new Client({ name: "node-test", version: "0.0.0" });
  await client.connect(transport);
  return client;
}

function errorCode(result) {
  assert.equal(result.isError, true, JSON.stringify(result));
  return result.structuredContent.error.code;
}

test("lists the tools and the checkpoint resources", async () => {
  const { base, root } = project();
  const client = await connect(root);
  try {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), TOOLS);
    for (const tool of tools) {
      assert.equal(tool.inputSchema.type, "object");
      assert.equal(tool.outputSchema.type, "object");
      assert.ok(tool.description.length > 40);
    }
    assert.deepEqual((await client.listResources()).resources, []);
    const captured = await client.callTool({ name: "capture_checkpoint", arguments: { paths: ["src/app.py"] } });
    const id = captured.structuredContent.checkpoint_id;
    const { resources } = await client.listResources();
    assert.deepEqual(resources.map((r) => r.uri), [`checkpoint://${id}`]);
    const read = await client.readResource({ uri: `checkpoint://${id}` });
    const doc = JSON.parse(read.contents[0].text);
    assert.equal(doc.checkpoint_id, id);
    assert.deepEqual(doc.paths.map((p) => p.path), ["src/app.py"]);
  } finally {
    await client.close();
    fs.rmSync(base, { recursive: true, force: true });
  }
});

test("capture, batch, plan, rollback", async () => {
  const { base, root } = project();
  const client = await connect(root);
  try {
    const captured = await client.callTool({
      name: "capture_checkpoint",
      arguments: { paths: ["src/app.py", path.join(root, "gen", "new.py")] },
    });
    assert.equal(captured.isError, false, JSON.stringify(captured));
    const id = captured.structuredContent.checkpoint_id;
    assert.deepEqual(
      captured.structuredContent.paths.map((p) => [p.path, p.kind]),
      [["gen/new.py", "new"], ["src/app.py", "file"]],
    );
    assert.match(captured.content[0].text, new RegExp(id));

    // The batch, as an agent's own edit tools would apply it.
    fs.writeFileSync(path.join(root, "src", "app.py"), 'print("v2")\n');
    fs.mkdirSync(path.join(root, "gen"));
    fs.writeFileSync(path.join(root, "gen", "new.py"), "x = 1\n");

    const plan = await client.callTool({ name: "plan_rollback", arguments: { checkpoint_id: id } });
    const steps = Object.fromEntries(plan.structuredContent.steps.map((s) => [s.path, s.action]));
    assert.deepEqual(steps, { gen: "rmdir", "gen/new.py": "remove", "src/app.py": "write" });
    assert.ok(fs.existsSync(path.join(root, "gen", "new.py")), "a plan changes nothing");

    const rolled = await client.callTool({ name: "rollback_checkpoint", arguments: { checkpoint_id: id } });
    assert.equal(rolled.structuredContent.ok, true, JSON.stringify(rolled));
    assert.deepEqual(rolled.structuredContent.restored, ["gen/new.py", "src/app.py"]);
    assert.equal(fs.readFileSync(path.join(root, "src", "app.py"), "utf8"), 'print("v1")\n');
    assert.equal(fs.existsSync(path.join(root, "gen")), false);
    assert.deepEqual(fs.readdirSync(root).sort(), ["out", "src"]);

    const inspected = await client.callTool({ name: "inspect_checkpoint", arguments: { checkpoint_id: id } });
    assert.equal(inspected.structuredContent.has_snapshot, true);
    assert.equal(inspected.structuredContent.paths.length, 2);
  } finally {
    await client.close();
    fs.rmSync(base, { recursive: true, force: true });
  }
});

test("bad calls are tool errors and the server keeps serving", async () => {
  const { base, root, outside } = project();
  const client = await connect(root);
  try {
    const badCalls = [
      ["capture_checkpoint", { paths: ["src/../../outside/secret.txt"] }, "path_escapes_root"],
      ["capture_checkpoint", { paths: [path.join(outside, "secret.txt")] }, "path_escapes_root"],
      ["capture_checkpoint", { paths: ["out/secret.txt"] }, "path_escapes_root"],
      ["no_such_tool", {}, "not_found"],
      ["capture_checkpoint", { paths: "src/app.py" }, "invalid_argument"],
      ["capture_checkpoint", { paths: [true] }, "invalid_argument"],
      ["plan_rollback", { checkpoint_id: ["x"] }, "invalid_argument"],
      ["rollback_checkpoint", { checkpoint_id: "01KVBJCWYA4YW6J5M9GP655HZN", redo: "yes" }, "invalid_argument"],
      ["rollback_checkpoint", { checkpoint_id: "01KVBJCWYA4YW6J5M9GP655HZN", on_conflict: "maybe" }, "invalid_argument"],
      ["inspect_checkpoint", { checkpoint_id: "01KVBJCWYA4YW6J5M9GP655HZN" }, "not_found"],
      ["redact_text", { text: 5 }, "invalid_argument"],
    ];
    for (const [name, args, code] of badCalls) {
      const result = await client.callTool({ name, arguments: args });
      assert.equal(errorCode(result), code, `${name} ${JSON.stringify(args)}: ${JSON.stringify(result)}`);
      assert.ok(result.content[0].text.startsWith(`error[${code}]`));
      const pong = await client.callTool({ name: "redact_text", arguments: { text: "hello" } });
      assert.equal(pong.structuredContent.text, "hello");
    }
    assert.equal(fs.readFileSync(path.join(outside, "secret.txt"), "utf8"), "not yours\n");
    const listed = await client.callTool({ name: "list_checkpoints", arguments: {} });
    assert.equal(listed.structuredContent.total, 0);
  } finally {
    await client.close();
    fs.rmSync(base, { recursive: true, force: true });
  }
});
