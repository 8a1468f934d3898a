//! Every field of the core's option and result types appears on every host
//! surface, under that host's naming convention: the Python stubs
//! (`_native.pyi`, snake_case), the Node typings (`index.d.ts`, camelCase),
//! the wasm package's TypeScript (camelCase), the WIT (kebab-case) and the
//! MCP server's golden tool schemas (snake_case). The field lists are the
//! types' own (`T::FIELDS`, which the compiler checks against the struct),
//! so a field added to a core type and to no surface turns this test red.
//! A surface that knowingly names a field otherwise, or lacks it, says so
//! in [`EXCEPTIONS`] with the reason.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod surfaces;

use agent_checkpoint::{
    CaptureOptions, DiffOptions, NotInRedo, PlanItem, PlanOptions, RollbackOptions, RollbackReport,
    Unrestored,
};
use surfaces::{Block, Host, Mcp, Surface};

/// How each host spells one core type: where its fields are declared.
struct Mirror {
    /// The core type's name (the key of [`EXCEPTIONS`]).
    name: &'static str,
    fields: &'static [&'static str],
    py: Block,
    node: Block,
    wasm: Block,
    wit: Block,
    mcp: Option<Mcp>,
}

const PYI: &str = "bindings-py/python/agent_checkpoint/_native.pyi";
const NODE: &str = "bindings-node/index.d.ts";
const WASM: &str = "bindings-wasm/src/lib.rs";
const WIT: &str = "bindings-wasm/component/wit/checkpoint.wit";

fn mirrors() -> Vec<Mirror> {
    use Block::{Class, Interface, Keywords, Record};
    vec![
        Mirror {
            name: "CaptureOptions",
            fields: CaptureOptions::FIELDS,
            py: Keywords("def create_checkpoint("),
            node: Interface("CaptureOptions"),
            wasm: Interface("CaptureOptions"),
            wit: Record("capture-options"),
            mcp: Some(Mcp::Input("capture_checkpoint")),
        },
        Mirror {
            name: "RollbackOptions",
            fields: RollbackOptions::FIELDS,
            py: Keywords("def rollback("),
            node: Interface("RollbackOptions"),
            wasm: Interface("RollbackOptions"),
            wit: Record("rollback-options"),
            mcp: Some(Mcp::Input("rollback_checkpoint")),
        },
        Mirror {
            name: "PlanOptions",
            fields: PlanOptions::FIELDS,
            py: Keywords("def plan_rollback("),
            node: Interface("PlanOptions"),
            wasm: Interface("PlanOptions"),
            wit: Record("plan-options"),
            mcp: Some(Mcp::Input("plan_rollback")),
        },
        Mirror {
            name: "DiffOptions",
            fields: DiffOptions::FIELDS,
            py: Keywords("def plan_rollback("),
            node: Interface("PlanOptions"),
            wasm: Interface("PlanOptions"),
            wit: Record("diff-options"),
            mcp: None,
        },
        Mirror {
            name: "RollbackReport",
            fields: RollbackReport::FIELDS,
            py: Class("RollbackResult"),
            node: Interface("RollbackReport"),
            wasm: Interface("RollbackReport"),
            wit: Record("rollback-report"),
            mcp: Some(Mcp::Output("rollback_checkpoint")),
        },
        Mirror {
            name: "PlanItem",
            fields: PlanItem::FIELDS,
            py: Class("PlanItem"),
            node: Interface("PlanItem"),
            wasm: Interface("PlanItem"),
            wit: Record("plan-item"),
            mcp: Some(Mcp::Def("plan_rollback", "PlanStep")),
        },
        Mirror {
            name: "Unrestored",
            fields: Unrestored::FIELDS,
            py: Class("RollbackResult"),
            node: Interface("PathProblem"),
            wasm: Interface("PathProblem"),
            wit: Record("path-problem"),
            mcp: Some(Mcp::Def("rollback_checkpoint", "PathProblem")),
        },
        Mirror {
            name: "NotInRedo",
            fields: NotInRedo::FIELDS,
            py: Class("PathProblem"),
            node: Interface("PathProblem"),
            wasm: Interface("PathProblem"),
            wit: Record("path-problem"),
            mcp: Some(Mcp::Def("rollback_checkpoint", "PathProblem")),
        },
    ]
}

/// What a surface does instead of naming a field by the convention.
#[derive(Clone, Copy)]
enum Instead {
    /// It names the field this way.
    Named(&'static str),
    /// It has no such field, for this reason.
    Absent(&'static str),
}

use Host::{Mcp as M, Node as N, Python as P, Wasm as W, Wit as T};
use Instead::{Absent, Named};

const NO_CALLBACK: &str =
    "a wasm export and a component export cannot call back into the host while they run";
const MCP_OPTIONS: &str = "the MCP tools expose what an agent chooses; the server holds the key, \
     the root and the limits, and reports no progress";

/// Every knowing difference, `(type, field, host, instead)`.
const EXCEPTIONS: &[(&str, &str, Host, Instead)] = &[
    (
        "CaptureOptions",
        "progress",
        N,
        Absent("only the async twin reports progress (CaptureAsyncOptions.onProgress)"),
    ),
    ("CaptureOptions", "progress", W, Absent(NO_CALLBACK)),
    ("CaptureOptions", "progress", T, Absent(NO_CALLBACK)),
    (
        "RollbackOptions",
        "progress",
        N,
        Absent("only the async twin reports progress (RollbackAsyncOptions.onProgress)"),
    ),
    ("RollbackOptions", "progress", W, Absent(NO_CALLBACK)),
    ("RollbackOptions", "progress", T, Absent(NO_CALLBACK)),
    (
        "PlanOptions",
        "progress",
        N,
        Absent("only the async twin reports progress (PlanAsyncOptions.onProgress)"),
    ),
    ("PlanOptions", "progress", W, Absent(NO_CALLBACK)),
    ("PlanOptions", "progress", T, Absent(NO_CALLBACK)),
    // The diff options are the host's `diff_context` / `diff_max_bytes`
    // next to a `diff` switch, except in the WIT, which keeps the record.
    ("DiffOptions", "context", P, Named("diff_context")),
    ("DiffOptions", "context", N, Named("diffContext")),
    ("DiffOptions", "context", W, Named("diffContext")),
    ("DiffOptions", "max_bytes", P, Named("diff_max_bytes")),
    ("DiffOptions", "max_bytes", N, Named("diffMaxBytes")),
    ("DiffOptions", "max_bytes", W, Named("diffMaxBytes")),
    ("CaptureOptions", "allow_git_dir", M, Absent(MCP_OPTIONS)),
    ("CaptureOptions", "max_file_bytes", M, Absent(MCP_OPTIONS)),
    ("CaptureOptions", "key", M, Absent(MCP_OPTIONS)),
    ("CaptureOptions", "record_root", M, Absent(MCP_OPTIONS)),
    ("CaptureOptions", "progress", M, Absent(MCP_OPTIONS)),
    ("RollbackOptions", "durable", M, Absent(MCP_OPTIONS)),
    ("RollbackOptions", "key", M, Absent(MCP_OPTIONS)),
    ("RollbackOptions", "restore_setid", M, Absent(MCP_OPTIONS)),
    ("RollbackOptions", "strict_root", M, Absent(MCP_OPTIONS)),
    ("RollbackOptions", "max_file_bytes", M, Absent(MCP_OPTIONS)),
    ("RollbackOptions", "progress", M, Absent(MCP_OPTIONS)),
    ("PlanOptions", "key", M, Absent(MCP_OPTIONS)),
    ("PlanOptions", "restore_setid", M, Absent(MCP_OPTIONS)),
    ("PlanOptions", "strict_root", M, Absent(MCP_OPTIONS)),
    ("PlanOptions", "progress", M, Absent(MCP_OPTIONS)),
    // The report's plan is the plan's items; its `other_root` is lifted
    // into the report (checked by `Plan`'s own line below).
    // Python's report lists the unrestored paths and maps each to its
    // reason and code.
    ("Unrestored", "path", P, Named("unrestored")),
    ("Unrestored", "code", P, Named("failure_codes")),
    ("Unrestored", "reason", P, Named("failures")),
    (
        "RollbackReport",
        "plan",
        M,
        Absent("the MCP tool reports what was done, not the plan"),
    ),
    ("RollbackReport", "redo", M, Named("redo_checkpoint_id")),
];

/// The report's `plan` is flattened into the hosts' reports: the plan's
/// `other_root` is a report field on every surface.
#[test]
fn the_plans_other_root_is_on_every_report() {
    assert!(agent_checkpoint::Plan::FIELDS.contains(&"other_root"));
    let report = Mirror {
        name: "Plan",
        fields: &["other_root"],
        py: Block::Class("RollbackResult"),
        node: Block::Interface("RollbackReport"),
        wasm: Block::Interface("RollbackReport"),
        wit: Block::Record("rollback-report"),
        mcp: Some(Mcp::Output("rollback_checkpoint")),
    };
    assert_eq!(missing(&[report], None), Vec::<String>::new());
}

fn exception(ty: &str, field: &str, host: Host) -> Option<Instead> {
    EXCEPTIONS
        .iter()
        .find(|(t, f, h, _)| *t == ty && *f == field && *h == host)
        .map(|e| e.3)
}

/// `type.field` for every field a surface should name and does not; with
/// `cut`, that host's surfaces read as if they lacked that name.
fn missing(mirrors: &[Mirror], cut: Option<(Host, &str)>) -> Vec<String> {
    let mut out = Vec::new();
    for m in mirrors {
        let mut surfaces = vec![
            (Host::Python, Surface::new(PYI, m.py)),
            (Host::Node, Surface::new(NODE, m.node)),
            (Host::Wasm, Surface::new(WASM, m.wasm)),
            (Host::Wit, Surface::new(WIT, m.wit)),
        ];
        if let Some(mcp) = m.mcp {
            surfaces.push((Host::Mcp, Surface::mcp(mcp)));
        }
        for (host, surface) in &mut surfaces {
            if let Some((h, name)) = cut {
                if h == *host {
                    *surface = surface.without(name);
                }
            }
            for field in m.fields {
                let name = match exception(m.name, field, *host) {
                    Some(Absent(_)) => continue,
                    Some(Named(name)) => name.to_owned(),
                    None => host.spell(field),
                };
                if !surface.names(&name) {
                    out.push(format!(
                        "{}.{field}: no `{name}` in {}",
                        m.name, surface.what
                    ));
                }
            }
        }
    }
    out
}

#[test]
fn every_core_field_is_on_every_surface() {
    assert_eq!(missing(&mirrors(), None), Vec::<String>::new());
}

/// Every exception names a real field of a listed type: a field renamed
/// or removed in the core leaves no stale entry behind.
#[test]
fn every_exception_names_a_field() {
    let mirrors = mirrors();
    for (ty, field, _, instead) in EXCEPTIONS {
        let m = mirrors.iter().find(|m| m.name == *ty).expect(ty);
        assert!(m.fields.contains(field), "{ty}.{field}");
        let (Absent(said) | Named(said)) = instead;
        assert!(!said.is_empty(), "{ty}.{field}: a reason or a name");
    }
}

/// The test of the test: with one field taken out of any one surface,
/// the check finds it missing there (and only there).
#[test]
fn a_field_missing_from_one_surface_is_found() {
    let mirrors = mirrors();
    let before = missing(&mirrors, None);
    for (host, name) in [
        (Host::Python, "restore_setid"),
        (Host::Node, "strictRoot"),
        (Host::Wasm, "notInRedo"),
        (Host::Wit, "record-root"),
        (Host::Mcp, "conflict"),
        (Host::Mcp, "on_conflict"),
    ] {
        let after = missing(&mirrors, Some((host, name)));
        let new: Vec<&String> = after.iter().filter(|m| !before.contains(m)).collect();
        assert!(
            !new.is_empty(),
            "{host:?} without {name}: not found missing"
        );
        assert!(
            new.iter().all(|m| m.contains(&format!("no `{name}`"))),
            "{new:?}"
        );
    }
}

/// Every number after `key` (`diff_context = 3`, `diff_max_bytes: int =
/// 1048576`, `_` separators allowed) in the file at `relative`.
fn defaults_after(relative: &str, key: &str) -> Vec<u64> {
    let text = surfaces::read(relative);
    text.match_indices(key)
        .map(|(at, _)| {
            let digits: String = text[at + key.len()..]
                .chars()
                .take_while(|c| c.is_ascii_digit() || *c == '_')
                .filter(char::is_ascii_digit)
                .collect();
            digits
                .parse()
                .unwrap_or_else(|e| panic!("{relative}: {key}: {e}"))
        })
        .collect()
}

/// Python's keyword defaults are literals (so `help()` and stubtest see
/// them), spelled in the pyo3 signatures and the stubs: each must be the
/// core's constant.
#[test]
fn python_diff_defaults_are_the_cores() {
    let context = agent_checkpoint::DEFAULT_DIFF_CONTEXT as u64;
    let max_bytes = agent_checkpoint::DEFAULT_DIFF_MAX_BYTES;
    let mut seen = 0;
    for file in [
        "bindings-py/src/checkpoint.rs",
        "bindings-py/src/store.rs",
        "bindings-py/src/store_shadow.rs",
    ] {
        for found in defaults_after(file, "diff_context = ") {
            assert_eq!(found, context, "{file}");
            seen += 1;
        }
        for found in defaults_after(file, "diff_max_bytes = ") {
            assert_eq!(found, max_bytes, "{file}");
            seen += 1;
        }
    }
    for found in defaults_after(PYI, "diff_context: int = ") {
        assert_eq!(found, context, "{PYI}");
        seen += 1;
    }
    for found in defaults_after(PYI, "diff_max_bytes: int = ") {
        assert_eq!(found, max_bytes, "{PYI}");
        seen += 1;
    }
    // Three functions take them, each in a signature and a stub.
    assert!(seen >= 12, "only {seen} defaults found");
}
