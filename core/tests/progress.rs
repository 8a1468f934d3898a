//! The progress callback: capture reports each file read, plan each path
//! looked at, rollback each path looked at and then each path changed, with
//! totals that match the work.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};

use agent_checkpoint::root::MemNode;

use agent_checkpoint::{
    capture, plan_rollback, rollback, CaptureOptions, MemRoot, OnProgress, ParseOptions,
    PlanOptions, Progress, ProgressStage, RelPath, RollbackOptions, Snapshot,
};

/// What a callback was called with, as `(stage, done, total)`.
type Seen = Arc<Mutex<Vec<(ProgressStage, u64, u64)>>>;

/// A callback and what it was called with.
fn recorder() -> (OnProgress, Seen) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    let on = OnProgress::new(move |p: Progress| {
        sink.lock().unwrap().push((p.stage, p.done, p.total));
    });
    (on, seen)
}

/// `0..=n` of `total` in `stage`.
fn counting(stage: ProgressStage, n: u64, total: u64) -> Vec<(ProgressStage, u64, u64)> {
    (0..=n).map(|done| (stage, done, total)).collect()
}

fn file(root: &MemRoot, path: &str, text: &str) {
    let node = MemNode::File {
        bytes: text.as_bytes().to_vec(),
        mode: 0o644,
    };
    root.insert(&RelPath::try_from(path).unwrap(), node);
}

#[test]
fn each_stage_counts_its_paths() {
    let root = MemRoot::new();
    for name in ["a", "b", "c", "d"] {
        file(&root, name, name);
    }
    let (on, seen) = recorder();
    let options = CaptureOptions::default().with_progress(Some(on.clone()));
    let text = capture(&root, ["a", "b", "c", "d", "new"], &options).unwrap();
    assert_eq!(
        *seen.lock().unwrap(),
        counting(ProgressStage::Capture, 5, 5)
    );

    // The batch: two files changed, one created; two untouched.
    file(&root, "a", "A");
    file(&root, "b", "B");
    file(&root, "new", "N");
    let snapshot = Snapshot::parse(text.as_str(), &ParseOptions::default()).unwrap();

    seen.lock().unwrap().clear();
    let plan_options = PlanOptions::default().with_progress(Some(on.clone()));
    plan_rollback(&root, &snapshot, &plan_options).unwrap();
    assert_eq!(*seen.lock().unwrap(), counting(ProgressStage::Check, 5, 5));

    seen.lock().unwrap().clear();
    let options = RollbackOptions::default().with_progress(Some(on));
    let report = rollback(&root, &snapshot, &options).unwrap();
    assert!(report.ok());
    let mut want = counting(ProgressStage::Check, 5, 5);
    want.extend(counting(ProgressStage::Restore, 3, 3));
    assert_eq!(*seen.lock().unwrap(), want);
}

#[test]
fn options_with_the_same_callback_are_equal() {
    let (on, _) = recorder();
    let (other, _) = recorder();
    let a = RollbackOptions::default().with_progress(Some(on.clone()));
    assert_eq!(a, RollbackOptions::default().with_progress(Some(on)));
    assert_ne!(a, RollbackOptions::default().with_progress(Some(other)));
    assert_ne!(a, RollbackOptions::default());
    assert_eq!(format!("{:?}", a.progress), "Some(OnProgress(..))");
}

#[test]
fn a_throttled_callback_keeps_the_first_and_last_of_each_stage() {
    let (on, seen) = recorder();
    let throttled = OnProgress::throttled(std::time::Duration::from_secs(3600), move |p| {
        on.report(p.stage, p.done, p.total)
    });
    for stage in [ProgressStage::Check, ProgressStage::Restore] {
        for done in 0..=1000 {
            throttled.report(stage, done, 1000);
        }
    }
    assert_eq!(
        *seen.lock().unwrap(),
        [
            (ProgressStage::Check, 0, 1000),
            (ProgressStage::Check, 1000, 1000),
            (ProgressStage::Restore, 0, 1000),
            (ProgressStage::Restore, 1000, 1000),
        ]
    );
    let (on, seen) = recorder();
    let every = OnProgress::throttled(std::time::Duration::ZERO, move |p| {
        on.report(p.stage, p.done, p.total)
    });
    for done in 0..=10 {
        every.report(ProgressStage::Capture, done, 10);
    }
    assert_eq!(seen.lock().unwrap().len(), 11);
}

/// A callback that panics in the middle of a rollback's changes does not
/// leave the tree half restored: every change is made, and then the panic
/// goes on to the caller. Re-entrancy: the callback may read the tree.
#[test]
fn a_callback_that_panics_mid_restore_leaves_the_tree_restored() {
    let root = Arc::new(MemRoot::new());
    let names = ["a", "b", "c", "d"];
    for name in names {
        file(&root, name, name);
    }
    let text = capture(&*root, names, &CaptureOptions::default()).unwrap();
    for name in names {
        file(&root, name, "changed by the batch");
    }
    let snapshot = Snapshot::parse(text.as_str(), &ParseOptions::default()).unwrap();
    let calls = Arc::new(Mutex::new(0u64));
    let counted = Arc::clone(&calls);
    let reader = Arc::clone(&root);
    let on = OnProgress::new(move |p: Progress| {
        *counted.lock().unwrap() += 1;
        // Re-entrant: reading the tree from the callback is fine.
        let _ = reader.get("a");
        if p.stage == ProgressStage::Restore && p.done == 1 {
            panic!("the callback's own bug");
        }
    });
    let options = RollbackOptions::default().with_progress(Some(on));
    let unwound = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        rollback(&*root, &snapshot, &options)
    }));
    assert!(unwound.is_err(), "the callback's panic reaches the caller");
    for name in names {
        let now = root.get(name);
        assert_eq!(
            now,
            Some(MemNode::File {
                bytes: name.as_bytes().to_vec(),
                mode: 0o644
            }),
            "{name} restored"
        );
    }
    // Not called again once it panicked: the check stage (0..=4) and restore 0, 1.
    assert_eq!(*calls.lock().unwrap(), 7);
}
