//! Every field of the store's `CheckpointInfo` (`CheckpointInfo::FIELDS`,
//! checked against the struct by the compiler) appears in the Node typings
//! (camelCase) and in the Python stub's description of `list()`'s dicts
//! (snake_case); the MCP server's `list_checkpoints` entry carries the
//! fields an agent picks from, the rest listed with the reason. (The CLI's
//! `store list --json` is the type's own serialisation, checked in the CLI.)
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[allow(
    dead_code,
    reason = "shared with core/tests/surface_fields.rs, which uses all of it"
)]
#[path = "../../core/tests/surfaces/mod.rs"]
mod surfaces;

use agent_checkpoint_store::CheckpointInfo;
use surfaces::{Block, Host, Mcp, Surface};

/// Why `list_checkpoints` leaves a field out.
const MCP_LEAVES_OUT: &str =
    "an agent picks a checkpoint by the entry's fields; the rest is `inspect_checkpoint`'s";

/// The fields `list_checkpoints` leaves out, each with the reason.
const MCP_ABSENT: &[(&str, &str)] = &[
    ("backend", MCP_LEAVES_OUT),
    ("is_task", MCP_LEAVES_OUT),
    ("tool_use_id", MCP_LEAVES_OUT),
    ("checkpoints_count", MCP_LEAVES_OUT),
    ("imported", MCP_LEAVES_OUT),
];

fn missing(node: &Surface, mcp: &Surface, python_doc: &str) -> Vec<String> {
    let mut out = Vec::new();
    for field in CheckpointInfo::FIELDS {
        let camel = Host::Node.spell(field);
        if !node.names(&camel) {
            out.push(format!("node: {camel}"));
        }
        if !MCP_ABSENT.iter().any(|(f, _)| *f == *field) && !mcp.names(field) {
            out.push(format!("mcp: {field}"));
        }
        if !python_doc.contains(&format!("`{field}`")) {
            out.push(format!("python: {field}"));
        }
    }
    out
}

/// The docstring of the stub's `CheckpointStore.list`.
fn python_list_doc() -> String {
    let stub = surfaces::read("bindings-py/python/agent_checkpoint/_native.pyi");
    let start = stub
        .find("    def list(self)")
        .expect("CheckpointStore.list");
    let rest = &stub[start..];
    let open = rest.find("\"\"\"").expect("a docstring") + 3;
    let close = rest[open..].find("\"\"\"").expect("its end");
    rest[open..open + close].to_owned()
}

#[test]
fn every_checkpoint_info_field_is_on_every_surface() {
    let node = Surface::new(
        "bindings-node/index.d.ts",
        Block::Interface("CheckpointInfo"),
    );
    let mcp = Surface::mcp(Mcp::Def("list_checkpoints", "CheckpointEntry"));
    assert_eq!(
        missing(&node, &mcp, &python_list_doc()),
        Vec::<String>::new()
    );
}

#[test]
fn a_field_left_out_is_found() {
    let node = Surface::new(
        "bindings-node/index.d.ts",
        Block::Interface("CheckpointInfo"),
    );
    let mcp = Surface::mcp(Mcp::Def("list_checkpoints", "CheckpointEntry"));
    let doc = python_list_doc();
    assert_eq!(
        missing(&node.without("imported"), &mcp, &doc),
        ["node: imported"]
    );
    assert_eq!(missing(&node, &mcp.without("agent"), &doc), ["mcp: agent"]);
    assert_eq!(
        missing(&node, &mcp, &doc.replace("`imported`", "")),
        ["python: imported"]
    );
    for &(absent, reason) in MCP_ABSENT {
        assert!(CheckpointInfo::FIELDS.contains(&absent), "{absent}");
        assert!(!reason.is_empty());
    }
}
