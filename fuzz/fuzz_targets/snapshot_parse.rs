//! Snapshot parser and validator: any text either parses to a snapshot that
//! round-trips through its canonical JSON, or is refused whole; rolling it
//! back on an in-memory root touches nothing when refused and nothing but
//! its captured paths (and their parent dirs) when accepted.
#![no_main]

use agent_checkpoint::root::MemNode;
use agent_checkpoint::snapshot::{Limits, ParseOptions, Snapshot};
use agent_checkpoint::{
    inspect_snapshot, rollback, snapshot_paths, MemRoot, RelPath, RollbackOptions,
};
use libfuzzer_sys::fuzz_target;

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
        let again = Snapshot::parse(&canonical, &ParseOptions::default())
            .expect("canonical JSON of a valid snapshot parses");
        assert_eq!(&again, snap, "round trip");
        assert_eq!(again.to_json(), canonical, "canonical form is stable");
        assert_eq!(snapshot_paths(text), snap.paths());
        assert!(inspect_snapshot(text).is_ok());
    }
    // Tight limits never let more through than the defaults.
    let mut limits = Limits::default();
    limits.max_snapshot_bytes = 256;
    limits.max_entries = 4;
    let mut tight = ParseOptions::default();
    tight.limits = limits;
    if Snapshot::parse(text, &tight).is_ok() {
        assert!(parsed.is_ok());
    }

    let root = tree();
    let before = root.entries();
    let mut options = RollbackOptions::default();
    options.durable = false;
    let report = rollback(&root, text, &options);
    assert_eq!(report.valid(), parsed.is_ok(), "rollback and parse agree");
    let after = root.entries();
    match parsed {
        Err(e) => {
            assert_eq!(report.error_code(), Some(e.code()));
            assert_eq!(before, after, "a refused snapshot changed the tree");
        }
        Ok(snap) => {
            let mut allowed: Vec<String> = snap.paths();
            allowed.extend(snap.created_dirs.iter().map(|d| d.to_string()));
            // A captured path, a created dir, or a parent of one.
            let touched = |k: &String| {
                allowed
                    .iter()
                    .any(|a| a == k || a.starts_with(&format!("{k}/")))
            };
            for (k, v) in &before {
                if !touched(k) {
                    assert_eq!(after.get(k), Some(v), "uncaptured {k} changed");
                }
            }
            for k in after.keys() {
                assert!(before.contains_key(k) || touched(k), "{k} appeared");
            }
        }
    }
});
