//! `AGENT_CHECKPOINT_PORTABLE_WALK=1` makes every root resolve paths by the
//! portable walk (one `O_NOFOLLOW` open per component, the path macOS and
//! older kernels take) instead of `openat2`; `scripts/reliability` runs the
//! confinement and race suites a second time with it. This checks that the
//! variable really switches the walk on, and that the walk confines.
#![cfg(all(feature = "cap-std", unix))]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use agent_checkpoint::internals::resolves_with_openat2;
use agent_checkpoint::root::ambient_authority;
use agent_checkpoint::{capture, CapRoot, CaptureOptions, ErrorCode};

#[test]
fn the_environment_variable_selects_the_walk() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    std::fs::write(dir.path().join("sub/a"), "a").unwrap();
    std::os::unix::fs::symlink("/etc", dir.path().join("out")).unwrap();
    let root = CapRoot::open(dir.path(), ambient_authority()).unwrap();
    capture(&root, ["sub/a"], &CaptureOptions::default()).unwrap();
    let escaped = capture(&root, ["out/passwd"], &CaptureOptions::default()).unwrap_err();
    assert_eq!(escaped.code(), ErrorCode::PathEscapesRoot);
    let forced = std::env::var_os("AGENT_CHECKPOINT_PORTABLE_WALK").is_some_and(|v| v == "1");
    if forced {
        assert!(!resolves_with_openat2(), "the portable walk was asked for");
    } else if cfg!(target_os = "linux") && std::path::Path::new("/proc/self").exists() {
        // openat2 exists since Linux 5.6; a kernel without it is reported
        // as such, never silently.
        println!(
            "reliability walk: openat2 in use: {}",
            resolves_with_openat2()
        );
    }
    println!(
        "reliability walk: {}",
        if resolves_with_openat2() {
            "openat2"
        } else {
            "portable O_NOFOLLOW walk"
        }
    );
}
