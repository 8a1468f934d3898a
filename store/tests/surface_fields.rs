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

/// One store type and where each host declares its fields (`None`: the
/// host has no such type; every field is then in [`STORE_EXCEPTIONS`]).
struct StoreMirror {
    name: &'static str,
    fields: &'static [&'static str],
    node: Option<Block>,
    python: Option<Block>,
    mcp: Option<Mcp>,
}

const NODE: &str = "bindings-node/index.d.ts";
const PYI: &str = "bindings-py/python/agent_checkpoint/_native.pyi";

fn store_mirrors() -> Vec<StoreMirror> {
    use agent_checkpoint_store::{PushPlan, PushReport, SessionWrite, StoreOptions};
    vec![
        StoreMirror {
            name: "PushReport",
            fields: PushReport::FIELDS,
            node: Some(Block::Interface("PushResult")),
            python: Some(Block::Class("PushResult")),
            mcp: None,
        },
        StoreMirror {
            name: "PushPlan",
            fields: PushPlan::FIELDS,
            node: Some(Block::Interface("PushPlan")),
            python: Some(Block::Class("PushPlan")),
            mcp: None,
        },
        StoreMirror {
            name: "SessionWrite",
            fields: SessionWrite::FIELDS,
            node: Some(Block::Interface("SessionFields")),
            python: None,
            mcp: Some(Mcp::Input("save_session")),
        },
        StoreMirror {
            name: "StoreOptions",
            fields: StoreOptions::FIELDS,
            node: None,
            python: None,
            mcp: None,
        },
    ]
}

/// A host of the store's surfaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StoreHost {
    Node,
    Python,
    Mcp,
}

/// Why Python's `write_session` names no field: its keyword arguments are
/// read by `SessionWrite::from_json` (unknown keys refused), so they are
/// the type's own names by construction, with no stub to drift.
const PY_KWARGS: &str = "`write_session(**fields)` is read by `SessionWrite::from_json`, \
     which refuses unknown keys: the names are the type's own";
/// Why Node's `SessionFields` lacks the two IDs.
const NODE_POSITIONAL: &str = "`writeSession(checkpointId, sessionId, fields)` takes them as \
     positional arguments";
/// Why the MCP tool lists few session fields.
const MCP_METADATA: &str = "`save_session` takes the rest by the store's names in its free \
     `metadata` object";
/// Why a host opens a store with only a path and a backend.
const MIRROR_CLI_ONLY: &str = "the mirror topology is a rollout tool of the CLI \
     (`--mirror`) and Rust callers; the bindings open one backend";
const OPEN_WITH_DEFAULTS: &str = "the bindings open a store with its defaults but the backend; \
     the rest is for Rust callers and the CLI";

/// Every knowing difference, `(type, field, host, reason)`; a field not
/// listed is spelled by the host's convention.
const STORE_EXCEPTIONS: &[(&str, &str, StoreHost, &str)] = &[
    (
        "SessionWrite",
        "checkpoint_id",
        StoreHost::Node,
        NODE_POSITIONAL,
    ),
    (
        "SessionWrite",
        "session_id",
        StoreHost::Node,
        NODE_POSITIONAL,
    ),
    (
        "StoreOptions",
        "redactor",
        StoreHost::Node,
        OPEN_WITH_DEFAULTS,
    ),
    (
        "StoreOptions",
        "transcript_chunk_bytes",
        StoreHost::Node,
        OPEN_WITH_DEFAULTS,
    ),
    (
        "StoreOptions",
        "fetch_missing_from",
        StoreHost::Node,
        OPEN_WITH_DEFAULTS,
    ),
    (
        "StoreOptions",
        "lock_wait",
        StoreHost::Node,
        OPEN_WITH_DEFAULTS,
    ),
    ("StoreOptions", "mirror", StoreHost::Node, MIRROR_CLI_ONLY),
    ("StoreOptions", "log", StoreHost::Node, OPEN_WITH_DEFAULTS),
    (
        "StoreOptions",
        "redactor",
        StoreHost::Python,
        OPEN_WITH_DEFAULTS,
    ),
    (
        "StoreOptions",
        "transcript_chunk_bytes",
        StoreHost::Python,
        OPEN_WITH_DEFAULTS,
    ),
    (
        "StoreOptions",
        "fetch_missing_from",
        StoreHost::Python,
        OPEN_WITH_DEFAULTS,
    ),
    (
        "StoreOptions",
        "lock_wait",
        StoreHost::Python,
        OPEN_WITH_DEFAULTS,
    ),
    ("StoreOptions", "mirror", StoreHost::Python, MIRROR_CLI_ONLY),
    ("StoreOptions", "log", StoreHost::Python, OPEN_WITH_DEFAULTS),
];

/// The names a host declares for `m`: its block, or for a host without
/// one, what the constructor or the MCP tool takes.
fn store_surface(m: &StoreMirror, host: StoreHost) -> Option<Surface> {
    match host {
        StoreHost::Node => m.node.map(|b| Surface::new(NODE, b)),
        StoreHost::Python => m.python.map(|b| Surface::new(PYI, b)),
        StoreHost::Mcp => m.mcp.map(Surface::mcp),
    }
}

/// Whether a host without a block for `m` still carries `field`: the
/// stores' constructors take `backend` and `sign_commits` (Node's in its
/// `StoreOpenOptions`).
fn constructor_takes(m: &StoreMirror, host: StoreHost, field: &str) -> bool {
    if m.name != "StoreOptions" {
        return false;
    }
    // The declarations with their whitespace folded: a signature may wrap.
    let folded = |path: &str| -> String {
        surfaces::read(path)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    match (host, field) {
        (StoreHost::Node, "backend") => {
            folded(NODE).contains("constructor(path: string, backend?:")
        }
        (StoreHost::Node, "sign_commits") => {
            let node = folded(NODE);
            node.split("export interface StoreOpenOptions {")
                .nth(1)
                .and_then(|rest| rest.split('}').next())
                .is_some_and(|block| block.contains("signCommits?:"))
        }
        (StoreHost::Python, "backend") => {
            folded(PYI).contains("def __new__( cls, path: _StrPath, backend:")
                || folded(PYI).contains("def __new__(cls, path: _StrPath, backend:")
        }
        (StoreHost::Python, "sign_commits") => {
            let pyi = folded(PYI);
            pyi.split("class CheckpointStore")
                .nth(1)
                .and_then(|rest| rest.split(") -> CheckpointStore:").next())
                .is_some_and(|new| new.contains("sign_commits: Optional[bool]"))
        }
        _ => false,
    }
}

/// `type.field` for each field a store surface should name and does not;
/// with `cut`, that host's block reads as if it lacked that name.
fn store_missing(cut: Option<(StoreHost, &str)>) -> Vec<String> {
    let mut out = Vec::new();
    for m in store_mirrors() {
        for host in [StoreHost::Node, StoreHost::Python, StoreHost::Mcp] {
            let mut surface = store_surface(&m, host);
            if let (Some((h, name)), Some(s)) = (cut, surface.as_mut()) {
                if h == host {
                    *s = s.without(name);
                }
            }
            for field in m.fields {
                let excepted = STORE_EXCEPTIONS
                    .iter()
                    .any(|(t, f, h, _)| *t == m.name && f == field && *h == host);
                let name = match host {
                    StoreHost::Node => Host::Node.spell(field),
                    StoreHost::Python | StoreHost::Mcp => (*field).to_owned(),
                };
                let found = match &surface {
                    Some(s) => s.names(&name),
                    None => match host {
                        // Python's session fields are keyword arguments by
                        // the type's own names (PY_KWARGS).
                        StoreHost::Python if m.name == "SessionWrite" => true,
                        // MCP has no push or store options tool at all.
                        StoreHost::Mcp => true,
                        _ => constructor_takes(&m, host, field),
                    },
                };
                let found = found
                    || (host == StoreHost::Mcp && m.name == "SessionWrite" && {
                        // MCP_METADATA: what is not a property goes in
                        // `metadata`, which the schema must offer.
                        surface.as_ref().is_some_and(|s| s.names("metadata"))
                    });
                if !found && !excepted {
                    out.push(format!("{}.{field}: no `{name}` on {host:?}", m.name));
                }
            }
        }
    }
    out
}

#[test]
fn every_store_option_and_result_field_is_on_every_surface() {
    assert_eq!(store_missing(None), Vec::<String>::new());
    for (ty, field, _, reason) in STORE_EXCEPTIONS {
        let m = store_mirrors()
            .into_iter()
            .find(|m| m.name == *ty)
            .expect(ty);
        assert!(m.fields.contains(field), "{ty}.{field}: a stale exception");
        assert!(!reason.is_empty());
    }
    assert!(!PY_KWARGS.is_empty() && !MCP_METADATA.is_empty());
}

#[test]
fn a_store_field_left_out_is_found() {
    for (host, name, expected) in [
        (
            StoreHost::Node,
            "uploadBytes",
            "PushPlan.upload_bytes: no `uploadBytes` on Node",
        ),
        (
            StoreHost::Node,
            "pushed",
            "PushReport.pushed: no `pushed` on Node",
        ),
        (
            StoreHost::Node,
            "ephemeralBranch",
            "SessionWrite.ephemeral_branch: no `ephemeralBranch` on Node",
        ),
        (
            StoreHost::Python,
            "dropped",
            "PushReport.dropped: no `dropped` on Python",
        ),
    ] {
        let found = store_missing(Some((host, name)));
        assert!(
            found.iter().any(|m| m == expected),
            "{host:?} without {name}: {found:?}"
        );
    }
}
