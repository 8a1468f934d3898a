//! A rewind restores the full permission mode a step recorded (issue 40):
//! git trees keep only 644/755, so each step keeps the modes of the files
//! it took in `.entire/metadata/<session>/modes.json`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::sync::Arc;

use agent_checkpoint::RollbackOptions;
use agent_checkpoint_store::{NoRedaction, ShadowStep, Store, StoreOptions};
use common::TestRepo;

fn chmod(root: &Path, path: &str, mode: u32) {
    std::fs::set_permissions(root.join(path), std::fs::Permissions::from_mode(mode)).unwrap();
}

fn mode(root: &Path, path: &str) -> u32 {
    std::fs::metadata(root.join(path))
        .unwrap()
        .permissions()
        .mode()
        & 0o7777
}

fn setup() -> (TestRepo, Store) {
    let repo = TestRepo::new();
    std::fs::write(repo.path().join("a.py"), "v0\n").unwrap();
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "base"]);
    let store = Store::open_with(repo.path(), StoreOptions::new(Arc::new(NoRedaction))).unwrap();
    (repo, store)
}

fn rewind(store: &Store, step: &str, root: &Path) {
    let report = store
        .shadow_rewind(step, root, &RollbackOptions::default())
        .unwrap();
    assert!(report.ok(), "{:?}", report.unrestored);
}

/// `chmod <start>` and an edit, step; `chmod 700` and an edit, step;
/// rewind to the first step: the file is back at `<start>`.
#[test]
fn rewind_restores_the_start_mode() {
    for start in [0o644, 0o755, 0o600] {
        let (repo, store) = setup();
        let root = repo.path();
        std::fs::write(root.join("a.py"), "v1\n").unwrap();
        chmod(root, "a.py", start);
        let first = store
            .shadow_step(&ShadowStep::new("s1").message("start"))
            .unwrap()
            .commit;
        std::fs::write(root.join("a.py"), "v2\n").unwrap();
        chmod(root, "a.py", 0o700);
        store
            .shadow_step(&ShadowStep::new("s1").file("a.py"))
            .unwrap();
        rewind(&store, &first, root);
        assert_eq!(std::fs::read_to_string(root.join("a.py")).unwrap(), "v1\n");
        assert_eq!(mode(root, "a.py"), start, "start mode {start:o}");
    }
}

/// A mode change alone (same bytes, same executable bit: nothing git's
/// tree can see) is rewound too.
#[test]
fn a_mode_only_change_is_rewound() {
    let (repo, store) = setup();
    let root = repo.path();
    chmod(root, "a.py", 0o600);
    let first = store
        .shadow_step(&ShadowStep::new("s1").file("a.py"))
        .unwrap()
        .commit;
    chmod(root, "a.py", 0o640);
    let second = store
        .shadow_step(&ShadowStep::new("s1").file("a.py"))
        .unwrap();
    assert!(!second.skipped, "a mode change is a step");
    rewind(&store, &first, root);
    assert_eq!(mode(root, "a.py"), 0o600);
}

/// A file the session created at 0600 comes back at 0600 after a later
/// step made it 0755; one it deleted comes back with its recorded mode.
#[test]
fn created_and_deleted_files_keep_their_recorded_modes() {
    let (repo, store) = setup();
    let root = repo.path();
    store
        .shadow_step(&ShadowStep::new("s1").message("start"))
        .unwrap();
    std::fs::write(root.join("secret.txt"), "s1\n").unwrap();
    chmod(root, "secret.txt", 0o600);
    let created = store
        .shadow_step(&ShadowStep::new("s1").file("secret.txt"))
        .unwrap()
        .commit;
    std::fs::write(root.join("secret.txt"), "s2\n").unwrap();
    chmod(root, "secret.txt", 0o755);
    store
        .shadow_step(&ShadowStep::new("s1").file("secret.txt"))
        .unwrap();
    rewind(&store, &created, root);
    assert_eq!(mode(root, "secret.txt"), 0o600);

    std::fs::remove_file(root.join("secret.txt")).unwrap();
    store
        .shadow_step(&ShadowStep::new("s1").deleted(["secret.txt"]))
        .unwrap();
    rewind(&store, &created, root);
    assert_eq!(
        std::fs::read_to_string(root.join("secret.txt")).unwrap(),
        "s1\n"
    );
    assert_eq!(mode(root, "secret.txt"), 0o600);
}
