//! Plan and rollback reasons quote what they found on disk; a name there
//! may hold terminal escape sequences (a file the batch made, named
//! `ESC ] 0 ; ... BEL`). The reasons spell control characters out, so a
//! plan printed on a terminal cannot retitle it or move its cursor.
#![cfg(all(feature = "cap-std", unix))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is a failing test"
)]

use agent_checkpoint::root::ambient_authority;
use agent_checkpoint::{
    capture, plan_rollback, rollback, CapRoot, CaptureOptions, ParseOptions, PlanAction,
    PlanOptions, RollbackOptions, Snapshot,
};

const HOSTILE: &str = "\u{1b}]0;owned\u{7}\u{1b}[2J";

fn printable(text: &str) -> bool {
    !text.chars().any(char::is_control)
}

#[test]
fn a_hostile_name_in_a_directory_left_in_place_is_spelled_out() {
    let dir = tempfile::tempdir().unwrap();
    let root = CapRoot::open(dir.path(), ambient_authority()).unwrap();
    std::fs::write(dir.path().join("d"), "a file").unwrap();
    let text = capture(&root, ["d", "new/x"], &CaptureOptions::default()).unwrap();
    // The batch: `new/` created with a file no snapshot can name, `d` made
    // a directory holding one.
    std::fs::create_dir(dir.path().join("new")).unwrap();
    std::fs::write(dir.path().join("new").join(HOSTILE), "").unwrap();
    std::fs::remove_file(dir.path().join("d")).unwrap();
    std::fs::create_dir(dir.path().join("d")).unwrap();
    std::fs::write(dir.path().join("d").join(HOSTILE), "").unwrap();
    let snapshot = Snapshot::parse(text.as_str(), &ParseOptions::default()).unwrap();

    let plan = plan_rollback(&root, &snapshot, &PlanOptions::default()).unwrap();
    let kept = plan.items.iter().find(|i| i.path == "new").unwrap();
    let refused = plan.items.iter().find(|i| i.path == "d").unwrap();
    assert_eq!(refused.action, PlanAction::Refuse);
    for item in [kept, refused] {
        let reason = item.reason.as_deref().unwrap();
        assert!(reason.contains("owned"), "{reason}");
        assert!(printable(reason), "{}: {reason:?}", item.path);
    }

    let report = rollback(&root, &snapshot, &RollbackOptions::default()).unwrap();
    assert!(!report.unrestored.is_empty());
    for u in &report.unrestored {
        assert!(printable(&u.reason), "{}: {:?}", u.path, u.reason);
    }
    // Both hostile files are still there: nothing the snapshot does not
    // cover was removed.
    assert!(dir.path().join("new").join(HOSTILE).exists());
    assert!(dir.path().join("d").join(HOSTILE).exists());
}
