//! What the CLI writes to a file holds captured bytes, so it is owner-only
//! (issue 29 point 7): `capture -o` and `rollback --redo-out` files are
//! `0600`, new or replacing a `0644` file.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

fn bin(args: &[&str], dir: &Path) {
    let out = Command::new(env!("CARGO_BIN_EXE_agent-checkpoint"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("binary runs");
    assert!(
        out.status.success(),
        "{args:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn snapshot_and_redo_files_are_owner_only() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("proj");
    std::fs::create_dir(&root).unwrap();
    let env = root.join(".env");
    std::fs::write(&env, "API_KEY=sk-live-secret\n").unwrap();
    std::fs::set_permissions(&env, std::fs::Permissions::from_mode(0o600)).unwrap();
    let root_s = root.to_str().unwrap();

    let snap = tmp.path().join("snap.json");
    bin(
        &[
            "capture",
            "--root",
            root_s,
            ".env",
            "-o",
            snap.to_str().unwrap(),
        ],
        tmp.path(),
    );
    assert_eq!(mode(&snap), 0o600);

    // Replacing a world-readable file makes it owner-only too.
    let replaced = tmp.path().join("old.json");
    std::fs::write(&replaced, "old").unwrap();
    std::fs::set_permissions(&replaced, std::fs::Permissions::from_mode(0o644)).unwrap();
    bin(
        &[
            "capture",
            "--root",
            root_s,
            ".env",
            "-o",
            replaced.to_str().unwrap(),
        ],
        tmp.path(),
    );
    assert_eq!(mode(&replaced), 0o600);
    assert_ne!(std::fs::read_to_string(&replaced).unwrap(), "old");

    std::fs::write(&env, "API_KEY=\n").unwrap();
    let redo = tmp.path().join("redo.json");
    bin(
        &[
            "rollback",
            "--root",
            root_s,
            snap.to_str().unwrap(),
            "--no-durable",
            "--redo-out",
            redo.to_str().unwrap(),
        ],
        tmp.path(),
    );
    assert_eq!(mode(&redo), 0o600);
    assert!(std::fs::read_to_string(&redo)
        .unwrap()
        .contains("\"entries\""));
}
