//! A disk that fills up during rollback: on a size-limited tmpfs (mounted
//! by the test, which needs root), files the batch never changed are left
//! alone and reported restored; only the files that needed writing and
//! could not be written are reported unrestored (with `io`, "no space"),
//! nothing is torn, no temp file is left, and once space is freed the next
//! rollback converges.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is a failing test"
)]

mod common;
mod reliability_sentinel;

use std::path::Path;
use std::process::Command;

use agent_checkpoint::root::ambient_authority;
use agent_checkpoint::{capture, CapRoot, CaptureOptions, ErrorCode, RollbackOptions};
use reliability_sentinel::{figure, stray_temps, Rng};

/// A tmpfs of `size` mounted at `dir`, unmounted when dropped.
struct Mount<'a>(&'a Path);

impl<'a> Mount<'a> {
    fn tmpfs(dir: &'a Path, size: &str) -> Mount<'a> {
        let status = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir)
            .status()
            .expect("the mount program runs");
        assert!(
            status.success(),
            "mounting a {size} tmpfs at {} failed ({status}): this test needs root \
             (CAP_SYS_ADMIN) to make a disk it can fill",
            dir.display()
        );
        Mount(dir)
    }
}

impl Drop for Mount<'_> {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.0).status();
    }
}

/// Fills the filesystem of `dir` with one file until it is full.
fn fill(dir: &Path) -> u64 {
    use std::io::Write;
    let mut file = std::fs::File::create(dir.join("filler")).unwrap();
    let chunk = vec![0x5a; 4096];
    let mut written = 0;
    while file.write_all(&chunk).is_ok() {
        written += chunk.len() as u64;
    }
    let _ = file.sync_all();
    written
}

#[test]
fn a_full_disk_never_makes_unchanged_files_unrestored() {
    let tmp = tempfile::tempdir().unwrap();
    let mountpoint = tmp.path().join("disk");
    std::fs::create_dir(&mountpoint).unwrap();
    let _mount = Mount::tmpfs(&mountpoint, "4m");
    let root_dir = mountpoint.join("root");
    std::fs::create_dir(&root_dir).unwrap();
    let mut rng = Rng::new(7);
    let unchanged: Vec<String> = (0..20).map(|i| format!("same/{i:02}.txt")).collect();
    for path in &unchanged {
        let full = root_dir.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(&full, rng.bytes(8 << 10)).unwrap();
    }
    let before_big = rng.bytes(1 << 20);
    std::fs::write(root_dir.join("big.bin"), &before_big).unwrap();
    let mut paths = unchanged.clone();
    paths.push("big.bin".into());
    let root = CapRoot::open(&root_dir, ambient_authority()).unwrap();
    let snap = capture(&root, &paths, &CaptureOptions::default()).unwrap();

    // The batch changes one file only; then the disk fills up.
    let after_big = rng.bytes(1 << 20);
    std::fs::write(root_dir.join("big.bin"), &after_big).unwrap();
    let filled = fill(&mountpoint);

    let options = RollbackOptions::default().with_redo(false);
    let report = common::rollback_text(&root, &snap, &options);
    assert!(report.valid(), "{report:?}");
    let unrestored: Vec<(&str, ErrorCode)> = report
        .unrestored
        .iter()
        .map(|u| (u.path.as_str(), u.code))
        .collect();
    assert_eq!(unrestored, [("big.bin", ErrorCode::Io)], "{report:?}");
    assert!(report.unrestored[0].reason.contains("space"), "{report:?}");
    for path in &unchanged {
        assert!(
            report.restored.contains(path),
            "{path} not reported restored"
        );
    }
    // Not torn: the batch's bytes are still there, whole.
    assert_eq!(std::fs::read(root_dir.join("big.bin")).unwrap(), after_big);
    assert_eq!(stray_temps(&root_dir), Vec::<String>::new());

    std::fs::remove_file(mountpoint.join("filler")).unwrap();
    let again = common::rollback_text(&root, &snap, &options);
    assert!(again.ok(), "{again:?}");
    assert_eq!(std::fs::read(root_dir.join("big.bin")).unwrap(), before_big);
    figure(
        "disk-full",
        &format!(
            "4 MiB tmpfs filled ({} KiB): {} unchanged files reported restored and untouched, \
             the 1 changed file unrestored with io (no space) and whole, 0 temp files; \
             converged once space was freed",
            filled >> 10,
            unchanged.len()
        ),
    );
}
