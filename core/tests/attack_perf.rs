//! Attacks on the issue 16 performance change (a75dec3): digests checked
//! while decoding, the redo built from the bytes read, parents looked at
//! only when a write fails, one fstat per read, one lstat per write.
//! Each test is one attack; run it a second time with
//! `AGENT_CHECKPOINT_PORTABLE_WALK=1` for the O_NOFOLLOW walk.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is a failing test"
)]

mod common;

use common::hooked::Hooked;

use agent_checkpoint::internals::{sha256, to_hex};
use agent_checkpoint::root::ambient_authority;
use agent_checkpoint::{
    capture, record_applied, CapRoot, CaptureOptions, ErrorCode, OnConflict, RecordOptions,
    RollbackOptions,
};
use base64::Engine as _;
use std::os::unix::fs::{symlink, MetadataExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};

fn cap(dir: &Path) -> CapRoot {
    CapRoot::open(dir, ambient_authority()).unwrap()
}

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// A root with `root/` and a sentinel `outside/` next to it.
struct Setup {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    outside: PathBuf,
}

fn setup() -> Setup {
    let tmp = tempfile::tempdir().unwrap();
    let top = tmp.path().canonicalize().unwrap();
    let root = top.join("root");
    let outside = top.join("outside");
    std::fs::create_dir_all(root.join("d")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("f"), "OUTSIDE f").unwrap();
    std::fs::write(outside.join("g"), "OUTSIDE g").unwrap();
    Setup {
        _tmp: tmp,
        root,
        outside,
    }
}

/// A snapshot of `paths` as they are, made by capture.
fn snap(dir: &Path, paths: &[&str]) -> String {
    capture(&cap(dir), paths, &CaptureOptions::default())
        .unwrap()
        .into_string()
}

// ---------------------------------------------------------------------------
// Forged snapshots: a digest that disagrees refuses the WHOLE snapshot.

/// A large entry (many decode steps) whose last byte was changed, with its
/// digest left: refused before anything is written, whatever the entry's
/// size relative to the decode step (the digest is checked as it decodes).
#[test]
fn forged_bytes_in_a_multi_step_entry_refuse_everything() {
    for len in [1usize, 49_152, 49_153, 200_000, 1 << 20] {
        let s = setup();
        let dir = &s.root;
        let big: Vec<u8> = (0..len).map(|i| (i * 31 + 7) as u8).collect();
        std::fs::write(dir.join("big"), &big).unwrap();
        std::fs::write(dir.join("a"), "A").unwrap();
        let text = snap(dir, &["a", "big", "new"]);
        std::fs::write(dir.join("a"), "A2").unwrap();
        std::fs::write(dir.join("big"), "edited").unwrap();
        std::fs::write(dir.join("new"), "N").unwrap();
        let mut forged_bytes = big.clone();
        *forged_bytes.last_mut().unwrap() ^= 1;
        let forged = text.replacen(&b64(&big), &b64(&forged_bytes), 1);
        assert_ne!(forged, text);
        let before = common::entries_under(dir);
        let report = common::rollback_text(&cap(dir), &forged, &RollbackOptions::default());
        assert_eq!(
            report.error_code(),
            Some(ErrorCode::MalformedSnapshot),
            "len {len}"
        );
        let plan = common::plan_text(&cap(dir), &forged, &Default::default());
        assert_eq!(plan.unwrap_err().code(), ErrorCode::MalformedSnapshot);
        assert_eq!(
            common::entries_under(dir),
            before,
            "len {len}: something was touched"
        );
        // The untouched text still rolls back.
        let report = common::rollback_text(&cap(dir), &text, &RollbackOptions::default());
        assert!(report.ok(), "{report:?}");
        assert_eq!(std::fs::read(dir.join("big")).unwrap(), big);
    }
}

/// The digest itself forged (bytes kept), in the first, a middle, and the
/// last entry; and a digest for a file the snapshot does not hold bytes
/// for; and bad hex: each refuses the whole snapshot.
#[test]
fn forged_digest_anywhere_refuses_everything() {
    let s = setup();
    let dir = &s.root;
    for name in ["a", "m", "z"] {
        std::fs::write(dir.join(name), name).unwrap();
    }
    let text = snap(dir, &["a", "m", "new", "z"]);
    for name in ["a", "m", "z"] {
        std::fs::write(dir.join(name), "edited").unwrap();
    }
    std::fs::write(dir.join("new"), "N").unwrap();
    let before = common::entries_under(dir);
    let mut forgeries = Vec::new();
    for name in ["a", "m", "z"] {
        let real = to_hex(&sha256(name.as_bytes()));
        let fake = to_hex(&sha256(b"other"));
        forgeries.push(text.replacen(&real, &fake, 1));
        forgeries.push(text.replacen(&real, &real.to_uppercase(), 1));
        forgeries.push(text.replacen(&real, &real[..63], 1));
    }
    // A digest for the new path (no bytes): not a captured file.
    forgeries.push(text.replacen(
        r#""digests":{"#,
        &format!(r#""digests":{{"new":"{}","#, to_hex(&sha256(b"N"))),
        1,
    ));
    // The same key twice in digests, the first right, the second forged.
    let real_a = to_hex(&sha256(b"a"));
    forgeries.push(text.replacen(
        r#""digests":{"#,
        &format!(r#""digests":{{"a":"{real_a}","#),
        1,
    ));
    // Digests escaped differently from entries (same key after unescaping).
    forgeries.push(text.replacen(
        &format!(r#""a":"{real_a}""#),
        &format!(r#""\u0061":"{}""#, to_hex(&sha256(b"x"))),
        1,
    ));
    for forged in &forgeries {
        assert_ne!(forged, &text);
        let report = common::rollback_text(&cap(dir), forged, &RollbackOptions::default());
        assert!(!report.valid(), "accepted: {forged}");
        assert_eq!(common::entries_under(dir), before, "touched by {forged}");
    }
}

/// Base64 that a step-by-step decode could read differently from a whole
/// decode: padding right at a step's end in mid-text, a bad character
/// just past a step, trailing bits: refused, nothing touched.
#[test]
fn base64_split_at_a_decode_step_is_refused() {
    let s = setup();
    let dir = &s.root;
    std::fs::write(dir.join("a"), "A").unwrap();
    let text = snap(dir, &["a", "new"]);
    std::fs::write(dir.join("new"), "N").unwrap();
    let step = 1usize << 16;
    let a_b64 = b64(b"A");
    let mut bad = Vec::new();
    // "QQ==" ends the first step; more follows.
    bad.push(format!("{}QQ==QUFB", "A".repeat(step - 4)));
    // A bad character right after the first step.
    bad.push(format!("{}!AAA", "A".repeat(step)));
    // Non-canonical trailing bits at the very end of a long text.
    bad.push(format!("{}QR==", "A".repeat(2 * step)));
    // An unpadded tail.
    bad.push(format!("{}QQ", "A".repeat(step)));
    let before = common::entries_under(dir);
    for b in bad {
        let forged = text.replacen(&format!(r#""a":"{a_b64}""#), &format!(r#""a":"{b}""#), 1);
        assert_ne!(forged, text);
        let report = common::rollback_text(&cap(dir), &forged, &RollbackOptions::default());
        assert_eq!(report.error_code(), Some(ErrorCode::MalformedSnapshot));
        assert_eq!(common::entries_under(dir), before);
    }
}

/// A snapshot with no digests at all is still rolled back (nothing to check),
/// and one whose digests are all right is not refused.
#[test]
fn snapshots_without_digests_or_with_right_ones_roll_back() {
    let s = setup();
    let dir = &s.root;
    let big: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
    std::fs::write(dir.join("big"), &big).unwrap();
    let text = snap(dir, &["big"]);
    let bare = format!(r#"{{"version":1,"entries":{{"big":"{}"}}}}"#, b64(&big));
    for t in [&text, &bare] {
        std::fs::write(dir.join("big"), "edited").unwrap();
        let report = common::rollback_text(&cap(dir), t, &RollbackOptions::default());
        assert!(report.ok(), "{report:?}");
        assert_eq!(std::fs::read(dir.join("big")).unwrap(), big);
    }
}

// ---------------------------------------------------------------------------
// Parents swapped after the plan: no path outside the root is touched.

/// Right before the write of `d/f`, `d` becomes a symlink to the outside
/// (absolute, then relative): the write is refused, the outside untouched,
/// and the other paths are still restored.
#[test]
fn parent_swapped_for_a_symlink_before_the_write() {
    for relative in [false, true] {
        let s = setup();
        let dir = &s.root;
        std::fs::write(dir.join("d/f"), "inside f").unwrap();
        std::fs::write(dir.join("d/g"), "inside g").unwrap();
        std::fs::write(dir.join("top"), "top").unwrap();
        let text = snap(dir, &["d/f", "d/g", "d/new", "top"]);
        std::fs::write(dir.join("d/f"), "edited").unwrap();
        std::fs::write(dir.join("d/g"), "edited").unwrap();
        std::fs::write(dir.join("top"), "edited").unwrap();
        let outside_before = common::entries_under(&s.outside);
        let root = cap(dir);
        let (d, outside) = (dir.join("d"), s.outside.clone());
        let hooked = Hooked::new(&root, "d/f", move || {
            std::fs::rename(&d, d.with_file_name("d.moved")).unwrap();
            if relative {
                symlink("../outside", &d).unwrap();
            } else {
                symlink(&outside, &d).unwrap();
            }
        });
        let report = common::rollback_text(&hooked, &text, &RollbackOptions::default());
        assert!(report.valid(), "{report:?}");
        assert_eq!(
            common::entries_under(&s.outside),
            outside_before,
            "the outside was touched"
        );
        let failed: Vec<_> = report.unrestored.iter().map(|u| u.path.as_str()).collect();
        assert!(
            failed.contains(&"d/f") && failed.contains(&"d/g"),
            "{report:?}"
        );
        for u in &report.unrestored {
            assert_eq!(u.code, ErrorCode::NotADirectory, "{u:?}");
        }
        assert_eq!(std::fs::read_to_string(dir.join("top")).unwrap(), "top");
        assert!(std::fs::symlink_metadata(dir.join("d"))
            .unwrap()
            .file_type()
            .is_symlink());
    }
}

/// Right before the write of `d/f`, `d` becomes a file: the write is
/// refused (not a directory), the file `d` is left as it is.
#[test]
fn parent_replaced_by_a_file_before_the_write() {
    let s = setup();
    let dir = &s.root;
    std::fs::write(dir.join("d/f"), "inside f").unwrap();
    let text = snap(dir, &["d/f"]);
    std::fs::write(dir.join("d/f"), "edited").unwrap();
    let root = cap(dir);
    let d = dir.join("d");
    let hooked = Hooked::new(&root, "d/f", move || {
        std::fs::remove_dir_all(&d).unwrap();
        std::fs::write(&d, "a file now").unwrap();
    });
    let report = common::rollback_text(&hooked, &text, &RollbackOptions::default());
    assert!(report.valid());
    assert_eq!(report.unrestored.len(), 1, "{report:?}");
    assert_eq!(report.unrestored[0].code, ErrorCode::NotADirectory);
    assert_eq!(
        std::fs::read_to_string(dir.join("d")).unwrap(),
        "a file now"
    );
}

/// Right before the write of `d/e/f`, `d` is removed: the parents are
/// made again and the file restored (the write finds out, then parents).
#[test]
fn parent_removed_before_the_write_is_made_again() {
    let s = setup();
    let dir = &s.root;
    std::fs::create_dir(dir.join("d/e")).unwrap();
    std::fs::write(dir.join("d/e/f"), "inside f").unwrap();
    let text = snap(dir, &["d/e/f"]);
    std::fs::write(dir.join("d/e/f"), "edited").unwrap();
    let root = cap(dir);
    let d = dir.join("d");
    let hooked = Hooked::new(&root, "d/e/f", move || std::fs::remove_dir_all(&d).unwrap());
    let report = common::rollback_text(&hooked, &text, &RollbackOptions::default());
    assert!(report.ok(), "{report:?}");
    assert_eq!(
        std::fs::read_to_string(dir.join("d/e/f")).unwrap(),
        "inside f"
    );
    // Two attempts at the one path: the first found the parent missing.
    assert_eq!(hooked.writes.lock().unwrap().len(), 2);
}

/// A parent that is a symlink from the start (not captured): refused by
/// the plan, never written through, outside untouched; a forged snapshot
/// naming a path through it cannot reach the outside either.
#[test]
fn a_symlinked_parent_is_never_written_through() {
    let s = setup();
    let dir = &s.root;
    symlink(&s.outside, dir.join("out")).unwrap();
    symlink("../outside", dir.join("rel")).unwrap();
    let outside_before = common::entries_under(&s.outside);
    for p in ["out", "rel"] {
        let forged = format!(
            r#"{{"version":1,"entries":{{"{p}/f":"{}","{p}/g":null,"{p}/new/x":"eA=="}},"created_dirs":["{p}/new"]}}"#,
            b64(b"pwned")
        );
        let report = common::rollback_text(&cap(dir), &forged, &RollbackOptions::default());
        if report.valid() {
            assert_eq!(report.restored, Vec::<String>::new(), "{report:?}");
        }
        assert_eq!(
            common::entries_under(&s.outside),
            outside_before,
            "outside touched via {p}"
        );
    }
}

// ---------------------------------------------------------------------------
// Races and guarded rollback.

/// A guarded rollback: right before the write of `f`, someone edits it (a
/// new inode via rename, then in place): a conflict, the edit kept, and
/// `f` left out of the redo (whose bytes for it, read before the edit,
/// would overwrite the edit if the redo were rolled back).
#[test]
fn a_file_replaced_between_plan_and_write_is_a_conflict() {
    for in_place in [false, true] {
        let s = setup();
        let dir = &s.root;
        std::fs::write(dir.join("d/f"), "orig").unwrap();
        std::fs::write(dir.join("g"), "g orig").unwrap();
        let text = snap(dir, &["d/f", "g", "d/new/n"]);
        std::fs::write(dir.join("d/f"), "batch").unwrap();
        std::fs::write(dir.join("g"), "g batch").unwrap();
        let applied =
            record_applied(&cap(dir), &text.parse_snapshot(), &RecordOptions::default()).unwrap();
        let root = cap(dir);
        let f = dir.join("d/f");
        let hooked = Hooked::new(&root, "d/f", move || {
            if in_place {
                std::fs::write(&f, "user edit, longer").unwrap();
            } else {
                let tmp = f.with_file_name("f.tmp");
                std::fs::write(&tmp, "user").unwrap();
                std::fs::rename(&tmp, &f).unwrap();
            }
        });
        let options = RollbackOptions::default().with_on_conflict(OnConflict::Skip);
        let report = common::rollback_text(&hooked, applied.as_str(), &options);
        assert!(report.valid(), "{report:?}");
        assert_eq!(report.conflicts, vec!["d/f".to_owned()], "{report:?}");
        let user = std::fs::read_to_string(dir.join("d/f")).unwrap();
        assert_ne!(user, "batch", "the concurrent edit was overwritten");
        assert_eq!(std::fs::read_to_string(dir.join("g")).unwrap(), "g orig");
        // The redo leaves `d/f` out, with code `conflict`; it holds `g`.
        let left: Vec<_> = report
            .not_in_redo
            .iter()
            .map(|n| (n.path.as_str(), n.code))
            .collect();
        assert_eq!(left, [("d/f", ErrorCode::Conflict)], "{report:?}");
        assert_eq!(report.redo.as_ref().unwrap().paths(), ["d/new/n", "g"]);
        let redo = report.redo_text().unwrap();
        assert!(!redo.contains(&b64(b"batch")), "{redo}");
        // Rolling the redo back brings the batch's `g` back and leaves the
        // user's edit of `d/f` alone.
        let again = common::rollback_text(&root, &redo, &RollbackOptions::default());
        assert!(again.ok(), "{again:?}");
        assert_eq!(std::fs::read_to_string(dir.join("g")).unwrap(), "g batch");
        assert_eq!(std::fs::read_to_string(dir.join("d/f")).unwrap(), user);
    }
}

trait ParseSnapshot {
    fn parse_snapshot(&self) -> agent_checkpoint::Snapshot;
}

impl ParseSnapshot for String {
    fn parse_snapshot(&self) -> agent_checkpoint::Snapshot {
        agent_checkpoint::Snapshot::parse(self, &Default::default()).unwrap()
    }
}

/// A guarded rollback where the parent of an edited file is removed
/// before its write: the path is a conflict (it changed), not rewritten.
#[test]
fn guarded_write_whose_parent_vanished_is_a_conflict() {
    let s = setup();
    let dir = &s.root;
    std::fs::write(dir.join("d/f"), "orig").unwrap();
    let text = snap(dir, &["d/f"]);
    std::fs::write(dir.join("d/f"), "batch").unwrap();
    let applied =
        record_applied(&cap(dir), &text.parse_snapshot(), &RecordOptions::default()).unwrap();
    let root = cap(dir);
    let d = dir.join("d");
    let hooked = Hooked::new(&root, "d/f", move || std::fs::remove_dir_all(&d).unwrap());
    let options = RollbackOptions::default().with_on_conflict(OnConflict::Skip);
    let report = common::rollback_text(&hooked, applied.as_str(), &options);
    assert_eq!(report.conflicts, vec!["d/f".to_owned()], "{report:?}");
    assert!(!dir.join("d/f").exists());
}

// ---------------------------------------------------------------------------
// Set-id bits.

/// A forged snapshot with set-id modes over an existing file owned by
/// another user (root keeps the owner with a chown, then sets the mode
/// again): no set-id bit comes back unless `restore_setid`.
#[test]
fn setid_never_comes_back_through_the_owner_path() {
    let s = setup();
    let dir = &s.root;
    std::fs::write(dir.join("tool"), "old").unwrap();
    // Owned by nobody when this runs as root: the chown path is taken.
    let _ = std::os::unix::fs::chown(dir.join("tool"), Some(65_534), Some(65_534));
    let body = b64(b"#!/bin/sh\n");
    let digest = to_hex(&sha256(b"#!/bin/sh\n"));
    let forged = format!(
        r#"{{"version":1,"entries":{{"tool":"{body}","d/new":"{body}"}},"modes":{{"tool":3565,"d/new":2541}},"digests":{{"tool":"{digest}","d/new":"{digest}"}}}}"#
    );
    for restore in [false, true] {
        let options = RollbackOptions::default().with_restore_setid(restore);
        let report = common::rollback_text(&cap(dir), &forged, &options);
        assert!(report.ok(), "{report:?}");
        for (p, full) in [("tool", 0o6755), ("d/new", 0o4755)] {
            let m = std::fs::symlink_metadata(dir.join(p)).unwrap();
            let want = if restore { full } else { full & 0o777 };
            assert_eq!(m.mode() & 0o7777, want, "{p} restore_setid {restore}");
        }
        // Back to a plain file for the next round.
        std::fs::set_permissions(dir.join("tool"), std::fs::Permissions::from_mode(0o644)).unwrap();
        std::fs::write(dir.join("tool"), "edited").unwrap();
        std::fs::write(dir.join("d/new"), "edited").unwrap();
    }
}

// ---------------------------------------------------------------------------
// The redo lists exactly what the rollback replaced.

/// The redo of a rollback (files moved into it, not copied) rolls the tree
/// back to the batch's result exactly, and lists every captured path.
#[test]
fn redo_brings_the_batch_result_back_exactly() {
    let s = setup();
    let dir = &s.root;
    let big: Vec<u8> = (0..200_000u32).map(|i| (i % 253) as u8).collect();
    std::fs::write(dir.join("a"), "A").unwrap();
    std::fs::write(dir.join("d/big"), &big).unwrap();
    std::fs::write(dir.join("same"), "same").unwrap();
    let text = snap(dir, &["a", "d/big", "gone", "n/new", "same"]);
    // The batch.
    std::fs::write(dir.join("a"), "A after").unwrap();
    std::fs::remove_file(dir.join("d/big")).unwrap();
    std::fs::create_dir(dir.join("n")).unwrap();
    std::fs::write(dir.join("n/new"), "new").unwrap();
    std::fs::write(dir.join("gone"), "appeared").unwrap();
    let after = common::entries_under(dir);
    let report = common::rollback_text(&cap(dir), &text, &RollbackOptions::default());
    assert!(report.ok(), "{report:?}");
    assert!(report.not_in_redo.is_empty(), "{report:?}");
    let redo = report.redo_text().unwrap();
    let parsed = redo.parse_snapshot();
    assert_eq!(
        parsed.paths(),
        vec!["a", "d/big", "gone", "n/new", "same"],
        "{redo}"
    );
    assert_eq!(std::fs::read(dir.join("d/big")).unwrap(), big);
    // Every digest the redo records matches its bytes.
    for (p, bytes) in parsed.entries() {
        if let Some(b) = bytes {
            assert_eq!(parsed.digest(p), Some(&sha256(b)), "{p}");
        }
    }
    let back = common::rollback_text(&cap(dir), &redo, &RollbackOptions::default());
    assert!(back.ok(), "{back:?}");
    assert_eq!(common::entries_under(dir), after);
}

/// The batch replaced the directory `l` by a symlink to the outside; the
/// snapshot restores `l/f`. When the symlink itself is left (the user
/// retargeted it after the batch: a conflict under `skip`), the write of
/// `l/f` must fail, never go through the link.
#[test]
fn a_captured_symlink_left_as_a_conflict_is_never_written_through() {
    let s = setup();
    let dir = &s.root;
    // `l` was a directory holding `l/f` (a null entry kept as a directory
    // because it holds a captured file, as a redo writes it). The batch
    // left `l` a symlink to the outside (`applied`, by hand: record_applied
    // will not look through the link).
    let applied = format!(
        r#"{{"version":1,"entries":{{"l":null,"l/f":"{}"}},"digests":{{"l/f":"{}"}},"applied":{{"l":"symlink:{}","l/f":null}}}}"#,
        b64(b"inside"),
        to_hex(&sha256(b"inside")),
        s.outside.display()
    );
    // The user retargeted the link after the batch: `l` is a conflict.
    symlink("../outside", dir.join("l")).unwrap();
    let outside_before = common::entries_under(&s.outside);
    let options = RollbackOptions::default().with_on_conflict(OnConflict::Skip);
    let report = common::rollback_text(&cap(dir), applied.as_str(), &options);
    assert!(report.valid(), "{report:?}");
    assert_eq!(
        common::entries_under(&s.outside),
        outside_before,
        "written through the link"
    );
    assert!(report.conflicts.contains(&"l".to_owned()), "{report:?}");
    assert!(!report.restored.contains(&"l/f".to_owned()), "{report:?}");
    // Unguarded: the link goes, the directory and file come back.
    let report = common::rollback_text(&cap(dir), applied.as_str(), &RollbackOptions::default());
    assert!(report.ok(), "{report:?}");
    assert_eq!(common::entries_under(&s.outside), outside_before);
    assert_eq!(std::fs::read_to_string(dir.join("l/f")).unwrap(), "inside");
}

/// Pathological input: many entries with a bad key or bad base64 at the
/// very end, escaped keys, a huge single entry of padding: refused as
/// malformed (never a panic), nothing touched.
#[test]
fn pathological_snapshots_are_refused_whole() {
    let s = setup();
    let dir = &s.root;
    std::fs::write(dir.join("keep"), "keep").unwrap();
    let before = common::entries_under(dir);
    let many = |last: &str| {
        let mut t = String::from(r#"{"version":1,"entries":{"#);
        for i in 0..20_000 {
            t.push_str(&format!(r#""f{i}":"eA==","#));
        }
        t.push_str(last);
        t.push_str("}}");
        t
    };
    let texts = [
        many(r#""../x":"eA==""#),
        many(r#""y":"eA=""#),
        many(r#""keep":null,"keep":null"#),
        format!(
            r#"{{"version":1,"entries":{{"keep":"{}"}}}}"#,
            "=".repeat(1 << 20)
        ),
        format!(
            r#"{{"version":1,"entries":{{"keep":"{}"}}}}"#,
            "A".repeat((1 << 20) + 1)
        ),
        format!(
            r#"{{"version":1,"entries":{{"\u006beep":"{}"}},"digests":{{"keep":"{}"}}}}"#,
            b64(b"forged"),
            to_hex(&sha256(b"keep"))
        ),
    ];
    for t in &texts {
        let report = common::rollback_text(&cap(dir), t, &RollbackOptions::default());
        assert_eq!(
            report.error_code(),
            Some(ErrorCode::MalformedSnapshot),
            "{report:?}"
        );
        assert_eq!(common::entries_under(dir), before);
    }
}
