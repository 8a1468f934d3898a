//! Snapshot parser, validator and rollback: any text either parses to a
//! snapshot that round-trips through its canonical JSON, or is refused
//! whole; rolling it back on an in-memory root touches nothing when refused
//! (whole-snapshot refusals: digests, links, ...), carries out exactly its
//! plan, touches nothing but its captured paths (and their parent dirs),
//! never leaves a symlink that resolves outside the root (through links the
//! snapshot creates or the tree holds), and never creates a set-id file.
#![no_main]

use std::collections::BTreeMap;

use agent_checkpoint::root::MemNode;
use agent_checkpoint::{
    inspect_snapshot, plan_rollback, rollback, snapshot_paths, Limits, MemRoot, ParseOptions,
    RelPath, RollbackOptions, Snapshot,
};
use libfuzzer_sys::fuzz_target;

/// Where the link at `path` leads, resolved as the kernel does through the
/// links of `tree`; `None` when it leaves the root (or loops).
fn resolves_inside(tree: &BTreeMap<String, MemNode>, path: &str) -> bool {
    let mut stack: Vec<String> = path.split('/').map(str::to_owned).collect();
    stack.pop();
    let Some(MemNode::Symlink(target)) = tree.get(path) else {
        return true;
    };
    let mut pending: std::collections::VecDeque<String> =
        target.split('/').map(str::to_owned).collect();
    if target.starts_with('/') {
        return false;
    }
    let mut hops = 0;
    while let Some(part) = pending.pop_front() {
        match part.as_str() {
            "" | "." => continue,
            ".." => {
                if stack.pop().is_none() {
                    return false;
                }
                continue;
            }
            _ => stack.push(part),
        }
        if let Some(MemNode::Symlink(next)) = tree.get(&stack.join("/")) {
            hops += 1;
            if hops > 40 || next.starts_with('/') {
                return hops > 40;
            }
            stack.pop();
            for piece in next.split('/').rev() {
                pending.push_front(piece.to_owned());
            }
        }
    }
    true
}

fn tree() -> MemRoot {
    let root = MemRoot::with_absolute_path("/virtual/root");
    for (path, node) in [
        (
            "keep.txt",
            MemNode::File {
                bytes: b"keep".to_vec(),
                mode: 0o644,
            },
        ),
        (
            "a",
            MemNode::File {
                bytes: b"a".to_vec(),
                mode: 0o600,
            },
        ),
        (
            "d/f",
            MemNode::File {
                bytes: b"f".to_vec(),
                mode: 0o644,
            },
        ),
        ("d/e", MemNode::Dir),
        ("l", MemNode::Symlink("d/f".into())),
        ("up", MemNode::Symlink("..".into())),
        (
            ".git/config",
            MemNode::File {
                bytes: b"[core]".to_vec(),
                mode: 0o644,
            },
        ),
    ] {
        if let Ok(p) = RelPath::try_from(path) {
            root.insert(&p, node);
        }
    }
    root
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let parsed = Snapshot::parse(text, &ParseOptions::default());
    if let Ok(snap) = &parsed {
        let canonical = snap.to_json();
        let again = Snapshot::parse(canonical.as_str(), &ParseOptions::default())
            .expect("canonical JSON of a valid snapshot parses");
        assert_eq!(&again, snap, "round trip");
        assert_eq!(again.to_json(), canonical, "canonical form is stable");
        assert_eq!(snapshot_paths(text), snap.paths());
        assert!(inspect_snapshot(text).is_ok());
    }
    // Tight limits never let more through than the defaults.
    let tight = ParseOptions::default().with_limits(
        Limits::default()
            .with_max_snapshot_bytes(256)
            .with_max_entries(4),
    );
    if Snapshot::parse(text, &tight).is_ok() {
        assert!(parsed.is_ok());
    }

    let root = tree();
    let before = root.entries();
    let options = RollbackOptions::default().with_durable(false);
    let Ok(snap) = parsed else {
        return;
    };
    let plan = plan_rollback(&root, &snap, &options.plan_options());
    let report = rollback(&root, &snap, &options);
    let after = root.entries();
    let report = match (report, plan) {
        (Err(e), Err(p)) => {
            assert_eq!(e.code(), p.code(), "plan and rollback refuse alike");
            assert_eq!(before, after, "a refused snapshot changed the tree");
            return;
        }
        (Ok(report), Ok(plan)) => {
            assert_eq!(report.plan, plan, "rollback carried out its plan");
            report
        }
        (r, p) => panic!("plan and rollback disagree: {r:?} / {p:?}"),
    };
    let _ = report;
    let mut allowed: Vec<String> = snap.paths();
    allowed.extend(snap.created_dirs().map(|d| d.to_string()));
    // A captured path, a created dir, or a parent of one.
    let touched = |k: &String| {
        allowed
            .iter()
            .any(|a| a == k || a.starts_with(&format!("{k}/")) || k.starts_with(&format!("{a}/")))
    };
    for (k, v) in &before {
        if !touched(k) {
            assert_eq!(after.get(k), Some(v), "uncaptured {k} changed");
        }
    }
    for (k, node) in &after {
        assert!(before.contains_key(k) || touched(k), "{k} appeared");
        // Links the rollback made or changed (the tree's own `up -> ..`
        // is left as it was, and is followed by those that go through it).
        if before.get(k) != Some(node) {
            assert!(resolves_inside(&after, k), "{k} resolves outside the root");
        }
        if let MemNode::File { mode, .. } = node {
            assert_eq!(mode & 0o6000, 0, "{k} became set-id");
        }
    }
});
