//! The redo snapshot is made when first read: a rollback whose caller never
//! reads it does not encode it, and the text, once made, is the snapshot of
//! the paths as they were just before the rollback (sealed when the
//! rollback had a key).

use std::fs;

use agent_checkpoint::root::ambient_authority;
use agent_checkpoint::{
    capture, rollback, CapRoot, CaptureOptions, ErrorCode, ParseOptions, RollbackOptions, SealKey,
    Snapshot,
};

/// A root with `a.txt` and `d/b.txt`, captured, then edited by a "batch"
/// (both rewritten, `new.txt` created). Returns the dir and the snapshot.
fn batch(key: Option<&SealKey>) -> (tempfile::TempDir, CapRoot, Snapshot) {
    let dir = tempfile::tempdir().expect("tempdir");
    fs::create_dir(dir.path().join("d")).expect("mkdir");
    fs::write(dir.path().join("a.txt"), "A").expect("write");
    fs::write(dir.path().join("d/b.txt"), "B").expect("write");
    let root = CapRoot::open(dir.path(), ambient_authority()).expect("open");
    let options = CaptureOptions::default().with_key(key.cloned());
    let text = capture(&root, ["a.txt", "d/b.txt", "new.txt"], &options).expect("capture");
    fs::write(dir.path().join("a.txt"), "A2").expect("write");
    fs::write(dir.path().join("d/b.txt"), "B2").expect("write");
    fs::write(dir.path().join("new.txt"), "N").expect("write");
    let parse = ParseOptions::default().with_key(key.cloned());
    let snapshot = Snapshot::parse(text.as_str(), &parse).expect("parse");
    (dir, root, snapshot)
}

#[test]
fn the_redo_is_not_encoded_until_read_and_then_kept() {
    let (dir, root, snapshot) = batch(None);
    let report = rollback(&root, &snapshot, &RollbackOptions::default()).expect("rollback");
    assert!(report.ok(), "{report:?}");
    let redo = report.redo.as_ref().expect("a redo");
    assert!(!redo.is_encoded(), "nothing read it yet: {redo:?}");
    assert_eq!(redo.paths(), ["a.txt", "d/b.txt", "new.txt"]);
    assert!(format!("{redo:?}").contains("not encoded yet"));
    // An owned copy does not keep the text; `as_str` does.
    let owned = redo.to_json();
    assert!(!redo.is_encoded());
    let text = redo.as_str();
    assert!(redo.is_encoded());
    assert_eq!(owned.as_str(), text);
    assert_eq!(redo.to_string(), text);
    // The text is canonical: parsing it and writing it back gives the same bytes.
    let parsed = Snapshot::parse(text, &ParseOptions::default()).expect("the redo parses");
    assert_eq!(parsed.to_json().as_str(), text);
    // It holds the batch's result, and rolling it back brings that back.
    assert_eq!(
        fs::read_to_string(dir.path().join("a.txt")).expect("read"),
        "A"
    );
    let again = rollback(&root, &parsed, &RollbackOptions::default()).expect("redo");
    assert!(again.ok(), "{again:?}");
    assert_eq!(
        fs::read_to_string(dir.path().join("a.txt")).expect("read"),
        "A2"
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("d/b.txt")).expect("read"),
        "B2"
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("new.txt")).expect("read"),
        "N"
    );
}

#[test]
fn into_json_makes_the_same_text_as_as_str() {
    let (_dir, root, snapshot) = batch(None);
    let report = rollback(&root, &snapshot, &RollbackOptions::default()).expect("rollback");
    let redo = report.redo.expect("a redo");
    let made = redo.to_json();
    assert_eq!(String::from(redo), made.into_string());
}

#[test]
fn a_sealed_rollback_gives_a_sealed_redo() {
    let key = SealKey::new(*b"the key of this test").expect("key");
    let (_dir, root, snapshot) = batch(Some(&key));
    let options = RollbackOptions::default().with_key(Some(key.clone()));
    let report = rollback(&root, &snapshot, &options).expect("rollback");
    let redo = report.redo.expect("a redo");
    let with_key = ParseOptions::default().with_key(Some(key));
    Snapshot::parse(redo.as_str(), &with_key).expect("sealed with the rollback's key");
    let other = ParseOptions::default().with_key(Some(SealKey::new(*b"another key").expect("key")));
    let refused = Snapshot::parse(redo.as_str(), &other).expect_err("another key is refused");
    assert_eq!(refused.code(), ErrorCode::Unauthenticated);
}
