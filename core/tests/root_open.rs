//! Opening a root: its canonical path (recorded in snapshots, and the
//! spelling absolute input paths may start with) is the same whether the
//! root was named through a symlink or not, and matches `canonicalize`.

use std::fs;
use std::os::unix::fs::symlink;

use agent_checkpoint::root::ambient_authority;
use agent_checkpoint::{capture, CapRoot, CaptureOptions, ParseOptions, Root, Snapshot};

#[test]
fn the_canonical_path_is_the_same_through_a_symlink() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let real = tmp.path().join("real/project");
    fs::create_dir_all(&real).expect("mkdir");
    fs::write(real.join("a.txt"), "A").expect("write");
    let link = tmp.path().join("link");
    symlink(tmp.path().join("real"), &link).expect("symlink");
    let canonical = fs::canonicalize(&real).expect("canonicalize");
    let canonical = canonical.to_str().expect("utf-8");
    for spelling in [
        real.clone(),
        link.join("project"),
        link.join("project/../project"),
    ] {
        let root = CapRoot::open(&spelling, ambient_authority()).expect("open");
        assert_eq!(
            root.canonical_path().as_deref(),
            Some(canonical),
            "{spelling:?}"
        );
        // Absolute paths in either spelling name the same captured key.
        for absolute in [
            format!("{canonical}/a.txt"),
            format!("{}/a.txt", spelling.display()),
        ] {
            let text = capture(&root, [absolute.as_str()], &CaptureOptions::default())
                .unwrap_or_else(|e| panic!("{absolute}: {e}"));
            let snapshot = Snapshot::parse(text.as_str(), &ParseOptions::default()).expect("parse");
            assert_eq!(snapshot.paths(), ["a.txt"]);
            assert_eq!(snapshot.root(), Some(canonical));
        }
    }
}
