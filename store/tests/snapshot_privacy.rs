//! Undo snapshots keep captured bytes owner-only (issue 29 point 7): a
//! captured `0600` `.env` is never in git's objects (world-readable loose
//! objects and packs, before and after `git gc`), only in a `0600` file in
//! a `0700` directory, which the store reads back byte for byte.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use agent_checkpoint::root::ambient_authority;
use agent_checkpoint::{CapRoot, CaptureOptions};
use agent_checkpoint_store::{SessionWrite, Store};
use base64::Engine;
use common::TestRepo;

const ID: &str = "01KVBJCWYA4YW6J5M9GP655HZN";

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

/// Every object git holds, loose or packed, uncompressed.
fn all_objects(repo: &TestRepo) -> Vec<u8> {
    repo.git_output(
        &["cat-file", "--batch-all-objects", "--batch", "--unordered"],
        None,
    )
    .stdout
}

#[test]
fn captured_bytes_are_owner_only_before_and_after_gc() {
    let repo = TestRepo::new();
    let work = tempfile::tempdir().unwrap();
    let marker = "API_KEY=sk-live-0f9e8d7c6b5a49382716a5b4c3d2e1f0\n";
    let env = work.path().join(".env");
    std::fs::write(&env, marker).unwrap();
    std::fs::set_permissions(&env, std::fs::Permissions::from_mode(0o600)).unwrap();
    let root = CapRoot::open(work.path(), ambient_authority()).unwrap();
    let snapshot = agent_checkpoint::capture(&root, [".env"], &CaptureOptions::default())
        .unwrap()
        .into_string();
    let needle = base64::engine::general_purpose::STANDARD.encode(marker.as_bytes());
    assert!(snapshot.contains(&needle), "the snapshot holds the bytes");

    let store = Store::open(repo.path()).unwrap();
    store
        .write_session(&SessionWrite::new(ID, "s1").snapshot(snapshot.clone()))
        .unwrap();
    let git_dir = repo.path().join(".git");
    let check = |when: &str| {
        let objects = all_objects(&repo);
        assert!(
            contains(&objects, ID.as_bytes()),
            "{when}: the scan sees the checkpoint"
        );
        assert!(
            !contains(&objects, needle.as_bytes()),
            "{when}: captured bytes in git's objects"
        );
        // Where they are: owner-only.
        let dir = git_dir.join(agent_checkpoint_store::snapshots::SNAPSHOT_DIR);
        assert_eq!(mode(&dir), 0o700, "{when}");
        let mut holders = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            assert_eq!(mode(&path), 0o600, "{when}: {}", path.display());
            if contains(&std::fs::read(&path).unwrap(), needle.as_bytes()) {
                holders += 1;
            }
        }
        assert_eq!(holders, 1, "{when}");
        assert_eq!(
            store.snapshot(ID).unwrap().as_deref(),
            Some(snapshot.as_str())
        );
    };
    check("after the write");
    repo.git(&["gc", "-q", "--prune=now"]);
    check("after git gc");
    repo.assert_fsck();
}

/// A second write of the same bytes and a write of other bytes both read
/// back exactly; a damaged snapshot file is `corrupt_object`, never other
/// bytes.
#[test]
fn snapshot_files_read_back_exactly_and_are_checked() {
    let repo = TestRepo::new();
    let store = Store::open(repo.path()).unwrap();
    let mem = agent_checkpoint::MemRoot::new();
    let one = agent_checkpoint::capture(&mem, ["a"], &CaptureOptions::default())
        .unwrap()
        .into_string();
    let two = agent_checkpoint::capture(&mem, ["a", "b"], &CaptureOptions::default())
        .unwrap()
        .into_string();
    for text in [&one, &one, &two] {
        store
            .write_session(&SessionWrite::new(ID, "s1").snapshot(text.clone()))
            .unwrap();
        assert_eq!(store.snapshot(ID).unwrap().as_ref(), Some(text));
    }
    use sha2::Digest;
    let sha = hex::encode(sha2::Sha256::digest(two.as_bytes()));
    let path = agent_checkpoint_store::snapshots::snapshot_path(&repo.path().join(".git"), &sha);
    std::fs::write(&path, one.as_bytes()).unwrap();
    let e = store.snapshot(ID).unwrap_err();
    assert_eq!(e.code(), agent_checkpoint::ErrorCode::CorruptObject, "{e}");
}
