//! Path confinement, exhaustively: every hostile path form we know is tried
//! as a capture path, as a snapshot key (with content, as `null`, as a link),
//! as a `created_dirs` item and as a link target, against a real root full of
//! traps (symlinks out of the root, absolute, relative, chained and looping,
//! a symlinked parent directory, a hard link to a file outside, a FIFO, a
//! socket, a device, `.git`, a non-UTF-8 name).
//!
//! A third test generates snapshots whose link targets climb through other
//! links (made by the snapshot itself, or already in the tree) and lets the
//! kernel judge where each link resolves.
//!
//! It proves: nothing outside the root changes (a sentinel tree next to the
//! root is fingerprinted with inodes and mtimes before and after every
//! attempt); inside the root nothing changes but the paths the snapshot
//! captured (and their parent directories); every refusal is a typed path
//! or snapshot error, never an I/O error or a panic.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is a failing test"
)]

mod common;
mod reliability_sentinel;

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::Command;

use agent_checkpoint::root::ambient_authority;
use agent_checkpoint::{
    capture, snapshot_paths, CapRoot, CaptureOptions, ErrorCode, ParseOptions, RollbackOptions,
};
use common::rollback_text;
use reliability_sentinel::{
    changed_keys, figure, fingerprint_tree, is_temp_name, long_run, stray_temps, Fingerprint, Rng,
};

/// A temp dir holding `root/` (the project, full of traps) and, around it,
/// the sentinel: `outside/`, `rootx/` (a sibling whose name extends the
/// root's) and the temp dir's own entries.
struct World {
    _tmp: tempfile::TempDir,
    top: PathBuf,
    root: PathBuf,
    sentinel: BTreeMap<Vec<u8>, Fingerprint>,
    /// The root as last built (rebuilding gives new inodes and mtimes).
    pristine_root: RefCell<BTreeMap<Vec<u8>, Fingerprint>>,
}

impl World {
    fn new() -> World {
        let tmp = tempfile::tempdir().unwrap();
        let top = tmp.path().canonicalize().unwrap();
        let outside = top.join("outside");
        for (path, text) in [
            ("outside/secret.txt", "outside secret"),
            ("outside/new.txt", "outside new"),
            ("outside/dir/inner.txt", "inner"),
            ("outside/dir/new/x.txt", "outside deep"),
            ("rootx/secret.txt", "sibling secret"),
        ] {
            let full = top.join(path);
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(full, text).unwrap();
        }
        std::fs::create_dir(outside.join("empty")).unwrap();
        let root = top.join("root");
        let mut w = World {
            _tmp: tmp,
            top,
            root,
            sentinel: BTreeMap::new(),
            pristine_root: RefCell::new(BTreeMap::new()),
        };
        w.build_root();
        *w.pristine_root.borrow_mut() = w.root_tree();
        w.sentinel = w.sentinel_tree();
        w
    }

    /// (Re)creates the root and its traps.
    fn build_root(&self) {
        let root = &self.root;
        // Emptied, not removed: removing it would touch the sentinel's top dir.
        if root.exists() {
            for entry in std::fs::read_dir(root).unwrap() {
                let path = entry.unwrap().path();
                if std::fs::symlink_metadata(&path).unwrap().is_dir() {
                    std::fs::remove_dir_all(&path).unwrap();
                } else {
                    std::fs::remove_file(&path).unwrap();
                }
            }
        } else {
            std::fs::create_dir(root).unwrap();
        }
        let top = &self.top;
        for (path, text) in [
            ("plain.txt", "plain"),
            ("dir/file.txt", "file"),
            ("dir/sub/deep.txt", "deep"),
            (".git/config", "[core]"),
            ("dir/.GiT/x", "git in another case"),
            ("C:/Windows/x", "a directory named C:"),
        ] {
            let full = root.join(path);
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(full, text).unwrap();
        }
        std::fs::create_dir(root.join("emptydir")).unwrap();
        let outside = top.join("outside");
        for (link, target) in [
            ("linkabs", outside.clone()),
            ("linkrel", PathBuf::from("../outside")),
            ("chain1", PathBuf::from("chain2")),
            ("chain2", PathBuf::from("linkrel")),
            ("loop1", PathBuf::from("loop2")),
            ("loop2", PathBuf::from("loop1")),
            ("selfloop", PathBuf::from("selfloop")),
            ("filelinkabs", outside.join("secret.txt")),
            ("filelinkrel", PathBuf::from("../outside/secret.txt")),
            ("uplink", PathBuf::from("..")),
            ("deepup", PathBuf::from("dir/../../outside")),
            ("rootabs", root.clone()),
            ("dotlink", PathBuf::from(".")),
            ("sublink", PathBuf::from("../outside/dir")),
            ("dir/parentlink", PathBuf::from("../../outside")),
            ("devlink", PathBuf::from("/dev/null")),
            ("gitlink", PathBuf::from(".git")),
            ("insidelink", PathBuf::from("dir/file.txt")),
            ("danglinglink", PathBuf::from("dir/nothing/here.txt")),
            ("siblinglink", top.join("rootx")),
        ] {
            symlink(target, root.join(link)).unwrap();
        }
        symlink(OsStr::from_bytes(b"bad\xff\xfe"), root.join("badlink")).unwrap();
        std::fs::write(root.join(OsStr::from_bytes(b"bad\xff")), "non-UTF-8 name").unwrap();
        std::fs::hard_link(outside.join("secret.txt"), root.join("hard")).unwrap();
        let status = Command::new("mkfifo").arg(root.join("fifo")).status();
        assert!(status.is_ok_and(|s| s.success()), "mkfifo failed");
        std::os::unix::net::UnixListener::bind(root.join("sock")).unwrap();
        // A character device needs privileges; without them the FIFO and the
        // socket stand for special files.
        let _ = Command::new("mknod")
            .arg(root.join("devnull"))
            .args(["c", "1", "3"])
            .status();
    }

    fn cap(&self) -> CapRoot {
        CapRoot::open(&self.root, ambient_authority()).unwrap()
    }

    fn root_tree(&self) -> BTreeMap<Vec<u8>, Fingerprint> {
        fingerprint_tree(&self.root, &[])
    }

    fn sentinel_tree(&self) -> BTreeMap<Vec<u8>, Fingerprint> {
        fingerprint_tree(&self.top, &["root"])
    }

    fn abs(&self, rel: &str) -> String {
        format!("{}/{rel}", self.top.display())
    }

    fn root_abs(&self) -> String {
        self.root.display().to_string()
    }

    /// Puts the root back as built when an attempt changed it (`now` is
    /// its current fingerprint).
    fn reset_from(&self, now: &BTreeMap<Vec<u8>, Fingerprint>) {
        if *now != *self.pristine_root.borrow() {
            self.build_root();
            *self.pristine_root.borrow_mut() = self.root_tree();
        }
    }

    fn reset(&self) {
        self.reset_from(&self.root_tree());
    }
}

/// Every path form we try, in every role.
fn path_forms(w: &World) -> Vec<String> {
    let mut forms: Vec<String> = [
        // `..` in every position.
        "..",
        "../",
        "../..",
        "../outside",
        "a/../..",
        "dir/../..",
        "dir/sub/../../..",
        "./..",
        "././../outside/secret.txt",
        "dir/./../../outside/secret.txt",
        "dir/..",
        "dir/sub/..",
        "...",
        ".../x",
        "..a",
        "a..",
        // Absolute and `//` forms outside the root.
        "/",
        "//",
        "///",
        "/etc/passwd",
        "//etc/passwd",
        "/dev/null",
        "/proc/self/root/etc/passwd",
        // Windows forms: backslashes, drives, UNC, device names.
        "..\\outside\\secret.txt",
        "dir\\..\\..\\outside",
        "\\",
        "\\\\server\\share\\x",
        "\\\\?\\C:\\x",
        "\\\\.\\pipe\\x",
        "C:\\Windows\\x",
        "C:..\\x",
        "C:/Windows/x",
        "C:/Windows/new",
        "c:x",
        "//server/share/x",
        "CON",
        "NUL",
        "dir/aux.txt",
        // NUL and control characters.
        "\0",
        "a\0b",
        "plain.txt\0.png",
        "a\nb",
        "a\rb",
        "a\tb",
        "\u{1b}[31m",
        "a\u{7f}",
        "a\u{85}b",
        "a\u{9f}",
        // Unicode look-alikes: legitimate names inside the root.
        "a\u{2215}b",
        "\u{ff0e}\u{ff0e}/x",
        "a\u{202e}txt.exe",
        // Empty and `.` components, trailing slashes.
        "",
        ".",
        "./",
        "./.",
        "a//b",
        "a/./b",
        "./plain.txt",
        "dir//file.txt",
        "dir/./file.txt",
        "plain.txt/",
        "plain.txt/.",
        "plain.txt/..",
        "dir/",
        "dir//",
        "dir/.",
        "emptydir",
        "emptydir/",
        // `.git` in any case and position.
        ".git",
        ".git/config",
        ".GIT/config",
        ".Git/new",
        "dir/.GiT/x",
        "dir/.git/x",
        "dir/../.git/config",
        "gitlink",
        "gitlink/config",
        ".git.",
        ".gitignore",
        // Non-UTF-8: the lossy spelling of a real non-UTF-8 name, and a
        // link whose target is not UTF-8.
        "bad\u{fffd}",
        "badlink",
        "badlink/x",
        // Symlinks out of the root, and inside.
        "linkabs",
        "linkrel",
        "chain1",
        "chain2",
        "loop1",
        "loop1/x",
        "selfloop",
        "selfloop/x",
        "filelinkabs",
        "filelinkrel",
        "uplink",
        "uplink/outside/secret.txt",
        "deepup",
        "deepup/secret.txt",
        "rootabs",
        "rootabs/plain.txt",
        "rootabs/../outside/secret.txt",
        "dotlink",
        "dotlink/plain.txt",
        "dotlink/../outside/secret.txt",
        "dir/parentlink",
        "devlink",
        "insidelink",
        "danglinglink",
        "siblinglink/secret.txt",
        // A hard link to a file outside, special files at the target.
        "hard",
        "fifo",
        "fifo/x",
        "sock",
        "devnull",
        // Plain paths, as controls.
        "plain.txt",
        "dir/file.txt",
        "dir/new/x.txt",
        "fresh.txt",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    // Through every link into the outside world, at every depth.
    for via in [
        "linkabs",
        "linkrel",
        "chain1",
        "deepup",
        "sublink",
        "dir/parentlink",
        "uplink/outside",
        "dotlink/../outside",
        "rootabs/../outside",
        "../outside",
        "dir/../../outside",
        "dir/sub/../../../outside",
    ] {
        for rest in [
            "secret.txt",
            "new.txt",
            "dir/inner.txt",
            "dir/new/x.txt",
            "empty",
            "empty/x",
            "fresh/deeper/x.txt",
        ] {
            forms.push(format!("{via}/{rest}"));
        }
    }
    for rest in ["inner.txt", "new/x.txt", "fresh.txt"] {
        forms.push(format!("sublink/{rest}"));
    }
    // Absolute spellings: through the root (allowed), out of it (refused).
    let root = w.root_abs();
    for suffix in [
        "plain.txt",
        "dir/file.txt",
        "../outside/secret.txt",
        "dir/../../outside/secret.txt",
        "./../outside/new.txt",
        "linkabs/secret.txt",
        "",
        "/",
        ".",
        "..",
    ] {
        forms.push(format!("{root}/{suffix}"));
    }
    forms.push(root.clone());
    forms.push(format!("/{root}/plain.txt"));
    forms.push(format!("{root}//plain.txt"));
    forms.push(format!("{root}x/secret.txt"));
    forms.push(format!("{root}/../rootx/secret.txt"));
    forms.push(w.abs("outside/secret.txt"));
    forms.push(w.abs("outside/new.txt"));
    forms.push(w.abs("rootx/secret.txt"));
    forms.push(w.abs("root/../outside/secret.txt"));
    // Over-long names and paths.
    forms.push("x".repeat(255));
    forms.push("x".repeat(256));
    forms.push(format!("dir/{}", "y".repeat(300)));
    // Just under and just over PATH_MAX, in long components.
    forms.push(vec!["n".repeat(254); 16].join("/"));
    forms.push(vec!["n".repeat(255); 17].join("/"));
    forms.push(["d"; 2049].join("/"));
    if long_run() {
        // Just under PATH_MAX in 2048 levels: slow (every level is walked
        // from the root), so only in the long run.
        forms.push(["d"; 2047].join("/") + "/f");
    }
    forms.push(format!("{}../outside/secret.txt", "a/".repeat(3000)));
    forms.push(format!("{}outside/secret.txt", "../".repeat(3000)));
    forms.push("é".repeat(200));
    forms.push("z".repeat(1 << 20));
    forms
}

/// What an attempt did.
enum Outcome {
    Refused(ErrorCode),
    /// Accepted; these keys (and their parents) may have changed.
    Applied(Vec<String>),
}

struct Tally {
    attempts: usize,
    refused: BTreeMap<&'static str, usize>,
    applied: usize,
    changed_outside: Vec<String>,
    changed_inside: Vec<String>,
    untyped: Vec<String>,
}

impl Tally {
    fn check(
        &mut self,
        w: &World,
        role: &str,
        form: &str,
        outcome: Outcome,
        allowed: &[ErrorCode],
    ) {
        self.attempts += 1;
        let shown = format!("{role} {:?}", truncate(form));
        let after_sentinel = w.sentinel_tree();
        if after_sentinel != w.sentinel {
            self.changed_outside.push(format!(
                "{shown}: {:?}",
                changed_keys(&w.sentinel, &after_sentinel)
            ));
        }
        let after_root = w.root_tree();
        let may_change: Vec<String> = match &outcome {
            Outcome::Refused(code) => {
                *self.refused.entry(code.as_str()).or_default() += 1;
                if !allowed.contains(code) {
                    self.untyped.push(format!("{shown}: {}", code.as_str()));
                }
                Vec::new()
            }
            Outcome::Applied(keys) => {
                self.applied += 1;
                keys.clone()
            }
        };
        let inside: Vec<String> = changed_keys(&w.pristine_root.borrow(), &after_root)
            .into_iter()
            .filter(|k| {
                k != "."
                    && !may_change
                        .iter()
                        .any(|m| m == k || m.starts_with(&format!("{k}/")))
            })
            .collect();
        if !inside.is_empty() {
            self.changed_inside.push(format!("{shown}: {inside:?}"));
        }
        let temps: Vec<String> = after_root
            .keys()
            .filter(|k| {
                let name = k.rsplit(|b| *b == b'/').next().unwrap_or(k);
                is_temp_name(OsStr::from_bytes(name))
            })
            .map(|k| String::from_utf8_lossy(k).into_owned())
            .collect();
        if !temps.is_empty() {
            self.changed_inside
                .push(format!("{shown}: temp files left {temps:?}"));
        }
        w.reset_from(&after_root);
    }
}

fn truncate(s: &str) -> String {
    if s.len() > 80 {
        let mut end = 80;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}...({} bytes)", &s[..end], s.len())
    } else {
        s.to_owned()
    }
}

fn snapshot_json(entries: &serde_json::Value, extra: &[(&str, serde_json::Value)]) -> String {
    let mut doc = serde_json::json!({"version": 1, "entries": entries});
    for (k, v) in extra {
        doc[*k] = v.clone();
    }
    doc.to_string()
}

/// Runs the rollback of `json` (parsed with `parse`) and classifies it.
fn roll(w: &World, json: &str, (parse, options): (&ParseOptions, &RollbackOptions)) -> Outcome {
    let report = common::rollback_text_with(&w.cap(), json, parse, options);
    match report.error_code() {
        Some(code) => Outcome::Refused(code),
        None => Outcome::Applied(snapshot_paths(json)),
    }
}

const PATH_CODES: [ErrorCode; 4] = [
    ErrorCode::InvalidPath,
    ErrorCode::PathEscapesRoot,
    ErrorCode::NotAFile,
    ErrorCode::NotADirectory,
];
const SNAPSHOT_CODES: [ErrorCode; 3] = [
    ErrorCode::MalformedSnapshot,
    ErrorCode::InvalidPath,
    ErrorCode::PathEscapesRoot,
];

#[test]
fn no_path_form_reaches_outside_the_root_or_beyond_its_captured_paths() {
    let w = World::new();
    let forms = path_forms(&w);
    let mut tally = Tally {
        attempts: 0,
        refused: BTreeMap::new(),
        applied: 0,
        changed_outside: Vec::new(),
        changed_inside: Vec::new(),
        untyped: Vec::new(),
    };
    // fsync does nothing for confinement and costs most of the time here;
    // the planted-traps test below runs durable.
    let options = RollbackOptions::default().with_durable(false);
    let strict_parse = ParseOptions::default();
    let loose_parse = ParseOptions::allowing_git_dir(true);
    let strict = (&strict_parse, &options);
    let loose = (&loose_parse, &options);
    for form in &forms {
        // 1. As a capture path; a snapshot that comes back is rolled back
        // after the "batch" removed every captured path.
        let outcome = match capture(&w.cap(), [form], &CaptureOptions::default()) {
            Err(e) => Outcome::Refused(e.code()),
            Ok(snap) => {
                let keys = snapshot_paths(snap.as_str());
                for key in &keys {
                    let _ = std::fs::remove_file(w.root.join(key));
                }
                let report = rollback_text(&w.cap(), &snap, &options);
                assert!(report.ok(), "{form:?}: {report:?}");
                Outcome::Applied(keys)
            }
        };
        tally.check(&w, "capture", form, outcome, &PATH_CODES);
        // 2. As a snapshot key, with content and as a path that did not exist.
        for value in [serde_json::json!("Zm9yZ2Vk"), serde_json::Value::Null] {
            let mut entries = serde_json::Map::new();
            entries.insert(form.clone(), value);
            let json = snapshot_json(&entries.into(), &[]);
            for opts in [strict, loose] {
                let outcome = roll(&w, &json, opts);
                tally.check(&w, "entry key", form, outcome, &SNAPSHOT_CODES);
            }
        }
        // 3. As a link key, and as a link target.
        let json = snapshot_json(
            &serde_json::json!({}),
            &[("links", serde_json::json!({ form.as_str(): "plain.txt" }))],
        );
        let outcome = roll(&w, &json, strict);
        tally.check(&w, "link key", form, outcome, &SNAPSHOT_CODES);
        let json = snapshot_json(
            &serde_json::json!({}),
            &[("links", serde_json::json!({ "newlink": form }))],
        );
        for opts in [strict, loose] {
            let outcome = roll(&w, &json, opts);
            tally.check(&w, "link target", form, outcome, &SNAPSHOT_CODES);
        }
        // 4. As a created_dirs item: alone, and above a new path below it.
        for below in ["x", "fresh/x.txt"] {
            let json = snapshot_json(
                &serde_json::json!({ format!("{form}/{below}"): null }),
                &[("created_dirs", serde_json::json!([form]))],
            );
            let outcome = roll(&w, &json, strict);
            tally.check(&w, "created_dirs item", form, outcome, &SNAPSHOT_CODES);
        }
        let json = snapshot_json(
            &serde_json::json!({ "fresh/x.txt": null }),
            &[("created_dirs", serde_json::json!(["fresh", form]))],
        );
        let outcome = roll(&w, &json, strict);
        tally.check(&w, "created_dirs item", form, outcome, &SNAPSHOT_CODES);
    }
    figure(
        "confinement",
        &format!(
            "{} forms, refused by code {:?}, {} applied",
            forms.len(),
            tally.refused,
            tally.applied
        ),
    );
    figure(
        "confinement",
        &format!(
            "{} attempts, {} changed outside, {} changed uncaptured paths inside, {} untyped refusals",
            tally.attempts,
            tally.changed_outside.len(),
            tally.changed_inside.len(),
            tally.untyped.len()
        ),
    );
    assert!(
        tally.changed_outside.is_empty(),
        "changed outside: {:#?}",
        tally.changed_outside
    );
    assert!(
        tally.changed_inside.is_empty(),
        "changed inside: {:#?}",
        tally.changed_inside
    );
    assert!(
        tally.untyped.is_empty(),
        "refused with an unexpected code: {:#?}",
        tally.untyped
    );
}

/// Plants a trap at a full path, given its key.
type Planter = Box<dyn Fn(&Path, &str)>;

/// The batch swaps what is at a captured path for a trap; rollback replaces
/// the trap and never writes or removes through it.
#[test]
fn traps_planted_by_the_batch_are_replaced_not_followed() {
    let w = World::new();
    let captured = ["plain.txt", "dir/file.txt", "dir/new/x.txt", "fresh.txt"];
    let snap = capture(&w.cap(), captured, &CaptureOptions::default()).unwrap();
    let outside = w.top.join("outside");
    let traps: Vec<(&str, Planter)> = vec![
        ("absolute symlink to an outside file", {
            let t = outside.join("secret.txt");
            Box::new(move |p: &Path, _: &str| symlink(&t, p).unwrap())
        }),
        (
            "relative symlink to an outside file",
            Box::new(|p: &Path, key: &str| {
                let up = "../".repeat(key.split('/').count());
                symlink(format!("{up}outside/secret.txt"), p).unwrap();
            }),
        ),
        ("hard link to an outside file", {
            let t = outside.join("new.txt");
            Box::new(move |p: &Path, _: &str| std::fs::hard_link(&t, p).unwrap())
        }),
        ("symlink to the outside dir", {
            let t = outside.join("dir");
            Box::new(move |p: &Path, _: &str| symlink(&t, p).unwrap())
        }),
        (
            "FIFO",
            Box::new(|p: &Path, _: &str| {
                let s = Command::new("mkfifo").arg(p).status().unwrap();
                assert!(s.success());
            }),
        ),
        (
            "socket",
            Box::new(|p: &Path, _: &str| {
                std::os::unix::net::UnixListener::bind(p).unwrap();
            }),
        ),
        (
            "looping symlink",
            Box::new(|p: &Path, _: &str| symlink(p.file_name().unwrap(), p).unwrap()),
        ),
    ];
    let mut attempts = 0;
    for (what, plant) in &traps {
        for key in captured {
            w.reset();
            let full = w.root.join(key);
            let _ = std::fs::remove_file(&full);
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            plant(&full, key);
            let report = rollback_text(&w.cap(), &snap, &RollbackOptions::default());
            attempts += 1;
            assert!(report.ok(), "{what} at {key}: {report:?}");
            let after = w.sentinel_tree();
            assert_eq!(
                changed_keys(&w.sentinel, &after),
                Vec::<String>::new(),
                "{what} at {key}"
            );
            let now = w.root_tree();
            for (k, fp) in w.pristine_root.borrow().iter() {
                let shown = String::from_utf8_lossy(k);
                let is_captured = captured
                    .iter()
                    .any(|c| *c == shown || c.starts_with(&format!("{shown}/")));
                if is_captured || shown == "." {
                    continue;
                }
                assert_eq!(now.get(k), Some(fp), "{what} at {key}: {shown} changed");
            }
            assert!(stray_temps(&w.root).is_empty());
        }
    }
    // A symlinked parent directory of a captured path: refused, nothing written through.
    w.reset();
    std::fs::remove_dir_all(w.root.join("dir")).unwrap();
    symlink(outside.join("dir"), w.root.join("dir")).unwrap();
    let report = rollback_text(&w.cap(), &snap, &RollbackOptions::default());
    attempts += 1;
    assert!(report.valid());
    let unrestored: Vec<&str> = report.unrestored.iter().map(|u| u.path.as_str()).collect();
    assert_eq!(unrestored, ["dir/file.txt", "dir/new/x.txt"], "{report:?}");
    assert_eq!(
        changed_keys(&w.sentinel, &w.sentinel_tree()),
        Vec::<String>::new()
    );
    figure(
        "confinement",
        &format!("{attempts} planted traps, 0 changed outside"),
    );
}

/// The names a generated link target is made of: the tree's dirs and
/// files, the links the tree or the snapshot may hold, `.` and `..`.
const TARGET_PARTS: [&str; 14] = [
    ".", "..", "..", "a", "b", "x", "y", "s", "p", "q", "t", "u", "up", "pp",
];

/// Where a generated snapshot may put a link.
const LINK_KEYS: [&str; 10] = [
    "t", "u", "s", "p", "a/t", "a/s", "a/p", "b/t", "b/q", "a/b/t",
];

/// Links a tree may already hold (rollback leaves those it does not capture).
const TREE_LINKS: [(&str, &str); 6] = [
    ("up", ".."),
    ("a/s", "."),
    ("a/p", ".."),
    ("b/q", "../a"),
    ("a/b/pp", "../.."),
    ("s", "a/b"),
];

/// What the kernel makes of a link once it is on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Kernel {
    /// Resolves to something inside the root.
    Inside,
    /// Names nothing (yet): a missing or non-directory component.
    Dangling,
    /// Too many levels of links.
    Loop,
    /// Resolution leaves the root.
    Escapes,
}

/// Resolves `key` (following every link) beneath `dir` the way the kernel
/// does (`openat2` with `RESOLVE_BENEATH` under cap-std on Linux).
fn kernel_resolves(dir: &cap_std::fs::Dir, key: &str) -> Kernel {
    match dir.metadata(key) {
        Ok(_) => Kernel::Inside,
        Err(e) if e.raw_os_error() == Some(40) => Kernel::Loop,
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            ) =>
        {
            Kernel::Dangling
        }
        Err(e) => {
            assert!(
                e.kind() == std::io::ErrorKind::PermissionDenied || e.raw_os_error() == Some(18),
                "{key}: unexpected {e:?}"
            );
            Kernel::Escapes
        }
    }
}

/// Links a snapshot may make that others then climb through: to `.`, to
/// a parent, to a sibling, or to another such link.
const CLIMBERS: [(&str, &str); 6] = [
    ("a/s", "."),
    ("a/p", ".."),
    ("b/q", "../a"),
    ("s", "a/b"),
    ("t", "a/s"),
    ("u", "b/q"),
];

/// A generated link target: random parts; or (five in twelve) the issue's
/// shape, a path through names that may be links to `.` or to a parent
/// (each counts as a level in the text, not for the kernel), then about as
/// many `..` as it has names, so the text lands back where it started.
fn link_target(rng: &mut Rng, root_abs: &str) -> String {
    let pick = |rng: &mut Rng, from: &[&'static str]| from[rng.below(from.len() as u64) as usize];
    match rng.below(12) {
        0 => format!("{root_abs}/{}", pick(rng, &["a/x", "../outside/x", "up/x"])),
        1..=5 => {
            let heads = [
                ("a/s", "s"),
                ("a/p", "a/p"),
                ("s", "pp"),
                ("up", "x"),
                ("b/q", "s"),
                ("t", "t"),
                ("u", "s"),
                ("a/b/pp", "a/s"),
            ];
            let (head, tail) = heads[rng.below(heads.len() as u64) as usize];
            let path = format!("{head}{}", format!("/{tail}").repeat(rng.below(4) as usize));
            let names = path.split('/').count() as u64;
            let climbs = (names + rng.below(3)).saturating_sub(1);
            let end = pick(rng, &["etc/passwd", "x", "outside/x", "a/x", "b"]);
            format!("{path}/{}{end}", "../".repeat(climbs as usize))
        }
        _ => {
            let n = 1 + rng.below(6) as usize;
            (0..n)
                .map(|_| pick(rng, &TARGET_PARTS))
                .collect::<Vec<_>>()
                .join("/")
        }
    }
}

/// Whether `target`, read as text from the link at `key` (each `..`
/// cancelling the name before it), stays inside the root: the check that
/// let finding 1 through.
fn stays_inside_as_text(key: &str, target: &str) -> bool {
    if target.starts_with('/') {
        return false;
    }
    let mut depth = key.matches('/').count();
    for part in target.split('/') {
        match part {
            "" | "." => {}
            ".." if depth == 0 => return false,
            ".." => depth -= 1,
            _ => depth += 1,
        }
    }
    true
}

/// Empties `root` and builds the base tree plus `links` (from [`TREE_LINKS`]).
fn build_link_tree(root: &Path, links: &[(&str, &str)]) {
    for entry in std::fs::read_dir(root).unwrap() {
        let path = entry.unwrap().path();
        if std::fs::symlink_metadata(&path).unwrap().is_dir() {
            std::fs::remove_dir_all(&path).unwrap();
        } else {
            std::fs::remove_file(&path).unwrap();
        }
    }
    std::fs::create_dir_all(root.join("a/b")).unwrap();
    std::fs::create_dir_all(root.join("b")).unwrap();
    std::fs::write(root.join("a/x"), "x").unwrap();
    std::fs::write(root.join("b/y"), "y").unwrap();
    for (link, target) in links {
        symlink(target, root.join(link)).unwrap();
    }
}

/// Snapshots whose link targets climb through other links — links the
/// snapshot creates (`a/s -> .`, `p -> ..`) and links already in the tree
/// (`up -> ..`, `b/q -> ../a`) — generated at random (`RELIABILITY_SEED`
/// replays). The kernel is the judge: each snapshot's links are first made
/// by hand in a scratch copy of the tree and resolved there (cap-std,
/// `openat2` beneath the root). A snapshot with a link the kernel resolves
/// outside the root is refused whole (parse, plan and rollback) and touches
/// nothing; one the core accepts is rolled back, and every link it made
/// resolves inside, per the kernel again. Refusals are typed.
#[test]
fn link_targets_through_links_never_resolve_outside_the_root() {
    let mut rng = Rng::from_env("confinement");
    let cases = reliability_sentinel::env_count(
        "RELIABILITY_LINK_CASES",
        if long_run() { 20_000 } else { 600 },
    );
    let tmp = tempfile::tempdir().unwrap();
    let top = tmp.path().canonicalize().unwrap();
    for (path, text) in [
        ("outside/x", "outside"),
        ("outside/etc/passwd", "root:x:0:0"),
    ] {
        let full = top.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, text).unwrap();
    }
    let root = top.join("root");
    std::fs::create_dir(&root).unwrap();
    let scratch_tmp = tempfile::tempdir().unwrap();
    let scratch = scratch_tmp.path().join("root");
    std::fs::create_dir(&scratch).unwrap();
    let root_abs = root.to_str().unwrap().to_owned();
    let sentinel = fingerprint_tree(&top, &["root"]);
    let options = RollbackOptions::default().with_durable(false);
    let mut verdicts: BTreeMap<Kernel, usize> = BTreeMap::new();
    let mut refused: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut refused_kernel_inside: BTreeMap<&'static str, usize> = BTreeMap::new();
    let (mut accepted, mut links_made, mut smuggled, mut refused_by_tree) = (0, 0, 0, 0);
    let mut failures = Vec::new();
    for case in 0..cases {
        let tree_links: Vec<(&str, &str)> = TREE_LINKS
            .iter()
            .copied()
            .filter(|_| rng.below(2) == 0)
            .collect();
        let mut links = BTreeMap::new();
        if rng.below(2) == 0 {
            let (key, target) = CLIMBERS[rng.below(CLIMBERS.len() as u64) as usize];
            links.insert(key.to_owned(), target.to_owned());
        }
        for _ in 0..1 + rng.below(3) {
            let key = LINK_KEYS[rng.below(LINK_KEYS.len() as u64) as usize];
            links.insert(key.to_owned(), link_target(&mut rng, &root_abs));
        }
        let json = serde_json::json!({"version": 1, "entries": {}, "links": links}).to_string();
        let shown = format!("case {case}: tree links {tree_links:?}, snapshot {json}");
        // The kernel's verdict, on a scratch copy with the links made by hand.
        build_link_tree(&scratch, &tree_links);
        for (key, target) in &links {
            let full = scratch.join(key);
            if std::fs::symlink_metadata(&full).is_ok() {
                std::fs::remove_file(&full).unwrap();
            }
            symlink(target, &full).unwrap();
        }
        let scratch_dir =
            cap_std::fs::Dir::open_ambient_dir(&scratch, ambient_authority()).unwrap();
        let verdict = links
            .keys()
            .map(|k| kernel_resolves(&scratch_dir, k))
            .max()
            .unwrap();
        *verdicts.entry(verdict).or_default() += 1;
        // The class: each target alone looks inside, as text.
        if verdict == Kernel::Escapes && links.iter().all(|(k, t)| stays_inside_as_text(k, t)) {
            smuggled += 1;
        }
        // The core, on the real root.
        build_link_tree(&root, &tree_links);
        let before = fingerprint_tree(&root, &[]);
        let cap = CapRoot::open(&root, ambient_authority()).unwrap();
        let plan = common::plan_text(&cap, &json, &options.plan_options());
        let report = rollback_text(&cap, &json, &options);
        match report.error_code() {
            Some(code) => {
                *refused.entry(code.as_str()).or_default() += 1;
                // Refused by the snapshot alone, or only against the tree.
                if agent_checkpoint::Snapshot::parse(&json, &Default::default()).is_ok() {
                    refused_by_tree += 1;
                }
                if verdict == Kernel::Inside {
                    *refused_kernel_inside.entry(code.as_str()).or_default() += 1;
                }
                if !matches!(
                    code,
                    ErrorCode::PathEscapesRoot
                        | ErrorCode::InvalidPath
                        | ErrorCode::MalformedSnapshot
                ) {
                    failures.push(format!("{shown}: refused with {code:?}"));
                }
                if plan.as_ref().err().map(agent_checkpoint::Error::code) != Some(code) {
                    failures.push(format!("{shown}: plan says {plan:?}, rollback {code:?}"));
                }
                let changed = changed_keys(&before, &fingerprint_tree(&root, &[]));
                if !changed.is_empty() {
                    failures.push(format!("{shown}: refused, yet changed {changed:?}"));
                }
            }
            None => {
                accepted += 1;
                if verdict == Kernel::Escapes {
                    failures.push(format!(
                        "{shown}: accepted, the kernel resolves a link outside"
                    ));
                }
                let dir = cap_std::fs::Dir::open_ambient_dir(&root, ambient_authority()).unwrap();
                for (key, target) in &links {
                    let made = std::fs::read_link(root.join(key))
                        .is_ok_and(|t| t.to_str() == Some(target.as_str()));
                    if !made {
                        continue;
                    }
                    links_made += 1;
                    if kernel_resolves(&dir, key) == Kernel::Escapes {
                        failures.push(format!("{shown}: {key} resolves outside after rollback"));
                    }
                }
            }
        }
        let now = fingerprint_tree(&top, &["root"]);
        if now != sentinel {
            failures.push(format!(
                "{shown}: outside changed {:?}",
                changed_keys(&sentinel, &now)
            ));
        }
    }
    figure(
        "confinement",
        &format!(
            "links through links: {cases} generated snapshots, kernel verdicts {verdicts:?} \
             ({smuggled} escaping only through links: every target looks inside as text); \
             {accepted} accepted ({links_made} links made, 0 resolving outside), refused by code {refused:?} \
             ({refused_by_tree} of them only against the links already in the tree; \
             by code, {refused_kernel_inside:?} the kernel resolves inside: links straight to the root, refused by policy), \
             {} failures",
            failures.len()
        ),
    );
    assert!(
        failures.is_empty(),
        "{:#?}",
        &failures[..failures.len().min(20)]
    );
}
