//! Every field of du's and gc's reports (`FIELDS`, checked against each
//! struct by the compiler) is on the Node typings (camelCase, the
//! interface of the same role) and the Python stub (snake_case properties
//! of its class). The CLI's `--json` is the types' own serialisation.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[allow(
    dead_code,
    reason = "shared with core/tests/surface_fields.rs, which uses all of it"
)]
#[path = "../../core/tests/surfaces/mod.rs"]
mod surfaces;

use agent_checkpoint_store::storage::{
    DuEntry, DuReport, GcReport, RemovedCheckpoint, RemovedSnapshot, SessionUsage, Usage,
};
use agent_checkpoint_store::CleanedBranch;
use surfaces::{Block, Host, Surface};

/// Each report type's fields and its name in the hosts (Node interface,
/// Python class: the same name in both).
const TYPES: &[(&[&str], &str)] = &[
    (DuReport::FIELDS, "DuReport"),
    (DuEntry::FIELDS, "DuEntry"),
    (Usage::FIELDS, "StorageUsage"),
    (SessionUsage::FIELDS, "SessionUsage"),
    (GcReport::FIELDS, "GcReport"),
    (RemovedSnapshot::FIELDS, "RemovedSnapshot"),
    (RemovedCheckpoint::FIELDS, "RemovedCheckpoint"),
    (CleanedBranch::FIELDS, "RemovedBranch"),
];

fn missing(fields: &[&str], node: &Surface, python: &Surface) -> Vec<String> {
    let mut out = Vec::new();
    for field in fields {
        let camel = Host::Node.spell(field);
        if !node.names(&camel) {
            out.push(format!("node: {camel}"));
        }
        if !python.names(&Host::Python.spell(field)) {
            out.push(format!("python: {field}"));
        }
    }
    out
}

fn surfaces_of(name: &'static str) -> (Surface, Surface) {
    (
        Surface::new("bindings-node/index.d.ts", Block::Interface(name)),
        Surface::new(
            "bindings-py/python/agent_checkpoint/_native.pyi",
            Block::Class(name),
        ),
    )
}

#[test]
fn every_report_field_is_on_every_binding() {
    for (fields, name) in TYPES {
        let (node, python) = surfaces_of(name);
        assert_eq!(
            missing(fields, &node, &python),
            Vec::<String>::new(),
            "{name}"
        );
    }
}

#[test]
fn a_field_left_out_is_found() {
    let (node, python) = surfaces_of("GcReport");
    assert_eq!(
        missing(GcReport::FIELDS, &node.without("objectBytesFreed"), &python),
        ["node: objectBytesFreed"]
    );
    assert_eq!(
        missing(GcReport::FIELDS, &node, &python.without("repacked")),
        ["python: repacked"]
    );
}
