//! Forged and malformed snapshots: text that is not JSON, wrong shapes and
//! types, duplicate keys at every level (also spelled differently), unknown
//! fields, wrong versions, invalid base64, too many entries, deep nesting,
//! contradictions between entries, links and `created_dirs`, bad MACs.
//!
//! It proves that each is refused whole with its typed error code by
//! `rollback` (and the same code from `inspect_snapshot` and
//! `plan_rollback`), with not one byte written: the real root's tree is
//! fingerprinted with inodes and mtimes before and after, and the in-memory
//! root compared entry by entry. Size limits are checked before any
//! decoding, so a huge snapshot is refused without being read.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is a failing test"
)]

mod reliability_sentinel;

use agent_checkpoint::root::{ambient_authority, MemNode};
use agent_checkpoint::snapshot::{Limits, ParseOptions, Snapshot};
use agent_checkpoint::{
    inspect_snapshot, plan_rollback, rollback, snapshot_paths, CapRoot, ErrorCode, MemRoot,
    RelPath, RollbackOptions,
};
use reliability_sentinel::{changed_keys, figure, fingerprint_tree};

use ErrorCode::{
    InvalidPath, MalformedSnapshot as Malformed, PathEscapesRoot as Escapes, TooLarge,
    Unauthenticated, UnsupportedVersion as Version,
};

const A: &str = "YQ=="; // "a"
const SHA_A: &str = "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb";

/// `{"version":1,"entries":{"keep.txt":"YQ=="},<rest>}`.
fn with(rest: &str) -> String {
    format!(r#"{{"version":1,"entries":{{"keep.txt":"{A}"}}{rest}}}"#)
}

/// `{"version":1,"entries":<entries><rest>}`.
fn entries(entries: &str, rest: &str) -> String {
    format!(r#"{{"version":1,"entries":{entries}{rest}}}"#)
}

fn nested(depth: usize, open: &str, close: &str) -> String {
    format!("{}{}", open.repeat(depth), close.repeat(depth))
}

/// Every malformed or forged snapshot, with the code it must be refused with.
fn cases() -> Vec<(String, String, ErrorCode)> {
    let mut c: Vec<(&str, String, ErrorCode)> = vec![
        // Not JSON, or not an object.
        ("empty text", String::new(), Malformed),
        ("blank", " \n\t".into(), Malformed),
        ("null", "null".into(), Malformed),
        ("true", "true".into(), Malformed),
        ("number", "1".into(), Malformed),
        ("string", r#""{}""#.into(), Malformed),
        ("array", "[]".into(), Malformed),
        ("array of snapshot", format!("[{}]", with("")), Malformed),
        ("open brace", "{".into(), Malformed),
        ("close brace", "}".into(), Malformed),
        ("truncated", with("")[..20].to_owned(), Malformed),
        ("trailing garbage", with("") + "x", Malformed),
        ("two objects", with("") + &with(""), Malformed),
        (
            "byte order mark",
            format!("\u{feff}{}", with("")),
            Malformed,
        ),
        ("comment", format!("// c\n{}", with("")), Malformed),
        ("trailing comma", with(","), Malformed),
        (
            "single quotes",
            "{'version':1,'entries':{}}".into(),
            Malformed,
        ),
        (
            "NaN version",
            entries("{}", "").replace(":1,", ":NaN,"),
            Malformed,
        ),
        (
            "lone surrogate key",
            entries(r#"{"\ud800":null}"#, ""),
            Malformed,
        ),
        (
            "NUL byte outside strings",
            format!("{}\0", with("")),
            Malformed,
        ),
        // Versions.
        ("missing version", r#"{"entries":{}}"#.into(), Malformed),
        ("version 0", r#"{"version":0,"entries":{}}"#.into(), Version),
        ("version 2", r#"{"version":2,"entries":{}}"#.into(), Version),
        (
            "version -1",
            r#"{"version":-1,"entries":{}}"#.into(),
            Version,
        ),
        (
            "version 2^64",
            r#"{"version":18446744073709551616,"entries":{}}"#.into(),
            Malformed,
        ),
        (
            "version 1.0",
            r#"{"version":1.0,"entries":{}}"#.into(),
            Malformed,
        ),
        (
            "version 1e0",
            r#"{"version":1e0,"entries":{}}"#.into(),
            Malformed,
        ),
        (
            "version \"1\"",
            r#"{"version":"1","entries":{}}"#.into(),
            Malformed,
        ),
        (
            "version null",
            r#"{"version":null,"entries":{}}"#.into(),
            Malformed,
        ),
        (
            "version true",
            r#"{"version":true,"entries":{}}"#.into(),
            Malformed,
        ),
        (
            "version [1]",
            r#"{"version":[1],"entries":{}}"#.into(),
            Malformed,
        ),
        (
            "version 01",
            r#"{"version":01,"entries":{}}"#.into(),
            Malformed,
        ),
        (
            "version 2 with garbage fields",
            r#"{"version":2,"entries":5,"zzz":[]}"#.into(),
            Version,
        ),
        // Shapes and types.
        ("missing entries", r#"{"version":1}"#.into(), Malformed),
        ("entries null", entries("null", ""), Malformed),
        ("entries array", entries(r#"["keep.txt"]"#, ""), Malformed),
        ("entries string", entries(r#""keep.txt""#, ""), Malformed),
        ("entries number", entries("7", ""), Malformed),
        (
            "entry value number",
            entries(r#"{"keep.txt":7}"#, ""),
            Malformed,
        ),
        (
            "entry value true",
            entries(r#"{"keep.txt":true}"#, ""),
            Malformed,
        ),
        (
            "entry value object",
            entries(r#"{"keep.txt":{}}"#, ""),
            Malformed,
        ),
        (
            "entry value array",
            entries(r#"{"keep.txt":["YQ=="]}"#, ""),
            Malformed,
        ),
        (
            "created_dirs object",
            with(r#","created_dirs":{}"#),
            Malformed,
        ),
        (
            "created_dirs string",
            with(r#","created_dirs":"gen""#),
            Malformed,
        ),
        (
            "created_dirs null",
            with(r#","created_dirs":null"#),
            Malformed,
        ),
        (
            "created_dirs [1]",
            with(r#","created_dirs":[1]"#),
            Malformed,
        ),
        (
            "created_dirs [null]",
            with(r#","created_dirs":[null]"#),
            Malformed,
        ),
        (
            "created_dirs [[]]",
            with(r#","created_dirs":[[]]"#),
            Malformed,
        ),
        ("modes array", with(r#","modes":[420]"#), Malformed),
        (
            "mode string",
            with(r#","modes":{"keep.txt":"420"}"#),
            Malformed,
        ),
        (
            "mode negative",
            with(r#","modes":{"keep.txt":-1}"#),
            Malformed,
        ),
        (
            "mode float",
            with(r#","modes":{"keep.txt":420.5}"#),
            Malformed,
        ),
        (
            "mode 2^32",
            with(r#","modes":{"keep.txt":4294967296}"#),
            Malformed,
        ),
        (
            "mode above 0o7777",
            with(r#","modes":{"keep.txt":4096}"#),
            Malformed,
        ),
        (
            "mode null",
            with(r#","modes":{"keep.txt":null}"#),
            Malformed,
        ),
        ("links array", with(r#","links":["x"]"#), Malformed),
        ("link target number", with(r#","links":{"l":5}"#), Malformed),
        (
            "link target null",
            with(r#","links":{"l":null}"#),
            Malformed,
        ),
        ("digests string", with(r#","digests":"x""#), Malformed),
        (
            "digest number",
            with(r#","digests":{"keep.txt":5}"#),
            Malformed,
        ),
        ("applied array", with(r#","applied":[]"#), Malformed),
        (
            "applied number",
            with(r#","applied":{"keep.txt":5}"#),
            Malformed,
        ),
        (
            "applied unknown state",
            with(r#","applied":{"keep.txt":"file"}"#),
            Malformed,
        ),
        ("mac number", with(r#","mac":5"#), Malformed),
        ("mac null", with(r#","mac":null"#), Malformed),
        ("mac short", with(r#","mac":"abcd""#), Malformed),
        (
            "mac uppercase",
            with(&format!(r#","mac":"{}""#, SHA_A.to_uppercase())),
            Malformed,
        ),
        // Duplicate keys at every level, also spelled with escapes.
        (
            "duplicate version",
            r#"{"version":1,"version":1,"entries":{}}"#.into(),
            Malformed,
        ),
        (
            "duplicate version, second bad",
            r#"{"version":1,"entries":{},"version":2}"#.into(),
            Malformed,
        ),
        (
            "duplicate entries field",
            with(r#","entries":{}"#),
            Malformed,
        ),
        (
            "duplicate entry key",
            entries(r#"{"keep.txt":null,"keep.txt":"YQ=="}"#, ""),
            Malformed,
        ),
        (
            "duplicate entry key via escape",
            entries(r#"{"keep.txt":null,"keep\u002etxt":null}"#, ""),
            Malformed,
        ),
        (
            "duplicate top key via escape",
            r#"{"version":1,"entries":{},"\u0076ersion":1}"#.into(),
            Malformed,
        ),
        (
            "duplicate created_dirs item",
            entries(r#"{"g/x":null}"#, r#","created_dirs":["g","g"]"#),
            Malformed,
        ),
        (
            "duplicate created_dirs field",
            entries(
                r#"{"g/x":null}"#,
                r#","created_dirs":["g"],"created_dirs":["g"]"#,
            ),
            Malformed,
        ),
        (
            "duplicate mode key",
            with(r#","modes":{"keep.txt":420,"keep.txt":420}"#),
            Malformed,
        ),
        (
            "duplicate modes field",
            with(r#","modes":{"keep.txt":420},"modes":{}"#),
            Malformed,
        ),
        (
            "duplicate link key",
            with(r#","links":{"l":"keep.txt","l":"keep.txt"}"#),
            Malformed,
        ),
        (
            "duplicate digest key",
            with(&format!(
                r#","digests":{{"keep.txt":"{SHA_A}","keep.txt":"{SHA_A}"}}"#
            )),
            Malformed,
        ),
        (
            "duplicate applied key",
            with(r#","applied":{"keep.txt":null,"keep.txt":null}"#),
            Malformed,
        ),
        (
            "duplicate mac",
            with(&format!(r#","mac":"{SHA_A}","mac":"{SHA_A}""#)),
            Malformed,
        ),
        // Unknown fields.
        ("unknown top-level key", with(r#","extra":1"#), Malformed),
        (
            "unknown key, other case",
            with(r#","Entries":{}"#),
            Malformed,
        ),
        ("__proto__", with(r#","__proto__":{}"#), Malformed),
        ("empty key", with(r#","":1"#), Malformed),
        // Base64.
        (
            "base64 bad length",
            entries(r#"{"a":"abc"}"#, ""),
            Malformed,
        ),
        ("base64 no padding", entries(r#"{"a":"YQ"}"#, ""), Malformed),
        (
            "base64 too much padding",
            entries(r#"{"a":"YQ==="}"#, ""),
            Malformed,
        ),
        ("base64 space", entries(r#"{"a":"Y Q=="}"#, ""), Malformed),
        (
            "base64 newline",
            entries(r#"{"a":"YQ==\n"}"#, ""),
            Malformed,
        ),
        (
            "base64 url alphabet",
            entries(r#"{"a":"-_8="}"#, ""),
            Malformed,
        ),
        (
            "base64 trailing bits",
            entries(r#"{"a":"YR=="}"#, ""),
            Malformed,
        ),
        (
            "base64 non-ASCII",
            entries(r#"{"a":"ÿÿÿÿ"}"#, ""),
            Malformed,
        ),
        (
            "base64 padding inside",
            entries(r#"{"a":"YQ==YQ=="}"#, ""),
            Malformed,
        ),
        (
            "base64 valid then invalid",
            entries(r#"{"a":"YQ==","b":"*"}"#, ""),
            Malformed,
        ),
        // Keys that are not canonical paths.
        ("key ..", entries(r#"{"../x":null}"#, ""), Malformed),
        (
            "key absolute",
            entries(r#"{"/etc/passwd":"YQ=="}"#, ""),
            Malformed,
        ),
        ("key empty", entries(r#"{"":null}"#, ""), Malformed),
        ("key dot", entries(r#"{"./a":null}"#, ""), Malformed),
        (
            "key trailing slash",
            entries(r#"{"a/":null}"#, ""),
            Malformed,
        ),
        ("key backslash", entries(r#"{"a\\b":null}"#, ""), Malformed),
        ("key NUL", entries(r#"{"a\u0000b":null}"#, ""), Malformed),
        (
            "key .git",
            entries(r#"{".git/config":"YQ=="}"#, ""),
            InvalidPath,
        ),
        (
            "key .GIT",
            entries(r#"{"x/.GIT/hooks/pre-commit":"YQ=="}"#, ""),
            InvalidPath,
        ),
        (
            "created_dirs .git",
            entries(r#"{".git/x/y":null}"#, r#","created_dirs":[".git/x"]"#),
            InvalidPath,
        ),
        (
            "mode key ..",
            with(r#","modes":{"../keep.txt":420}"#),
            Malformed,
        ),
        (
            "link key absolute",
            with(r#","links":{"/l":"keep.txt"}"#),
            Malformed,
        ),
        (
            "created_dirs ..",
            entries(r#"{"g/x":null}"#, r#","created_dirs":[".."]"#),
            Malformed,
        ),
        (
            "created_dirs .",
            entries(r#"{"g/x":null}"#, r#","created_dirs":["."]"#),
            Malformed,
        ),
        (
            "created_dirs empty",
            entries(r#"{"g/x":null}"#, r#","created_dirs":[""]"#),
            Malformed,
        ),
        (
            "created_dirs /",
            entries(r#"{"g/x":null}"#, r#","created_dirs":["/"]"#),
            Malformed,
        ),
        // Contradictions.
        (
            "content below a file",
            entries(r#"{"a":"YQ==","a/b":"YQ=="}"#, ""),
            Malformed,
        ),
        (
            "entry below a link",
            entries(r#"{"l/b":null}"#, r#","links":{"l":"x"}"#),
            Malformed,
        ),
        (
            "link below a file",
            with(r#","links":{"keep.txt/l":"x"}"#),
            Malformed,
        ),
        (
            "link below a link",
            entries("{}", r#","links":{"l":"x","l/m":"y"}"#),
            Malformed,
        ),
        (
            "entry and link",
            with(r#","links":{"keep.txt":"x"}"#),
            Malformed,
        ),
        (
            "created dir above content",
            entries(r#"{"g/a":"YQ==","g/x":null}"#, r#","created_dirs":["g"]"#),
            Malformed,
        ),
        (
            "created dir above a link",
            entries(
                r#"{"g/x":null}"#,
                r#","created_dirs":["g"],"links":{"g/l":"x"}"#,
            ),
            Malformed,
        ),
        (
            "created dir that is a link",
            entries(
                r#"{"x":null}"#,
                r#","created_dirs":["l"],"links":{"l":"x"}"#,
            ),
            Malformed,
        ),
        (
            "created dir above no new path",
            entries(r#"{"a":null}"#, r#","created_dirs":["g"]"#),
            Malformed,
        ),
        (
            "created dir equal to the new path",
            entries(r#"{"g":null}"#, r#","created_dirs":["g"]"#),
            Malformed,
        ),
        (
            "created dirs without entries",
            entries("{}", r#","created_dirs":["g"]"#),
            Malformed,
        ),
        (
            "mode for a new path",
            entries(r#"{"a":null}"#, r#","modes":{"a":420}"#),
            Malformed,
        ),
        (
            "mode for an unknown path",
            with(r#","modes":{"other":420}"#),
            Malformed,
        ),
        (
            "mode for a link",
            entries("{}", r#","links":{"l":"x"},"modes":{"l":420}"#),
            Malformed,
        ),
        (
            "digest for a new path",
            entries(r#"{"a":null}"#, &format!(r#","digests":{{"a":"{SHA_A}"}}"#)),
            Malformed,
        ),
        (
            "digest for an unknown path",
            with(&format!(r#","digests":{{"b":"{SHA_A}"}}"#)),
            Malformed,
        ),
        (
            "applied for an unknown path",
            with(r#","applied":{"b":null}"#),
            Malformed,
        ),
        // Link targets.
        (
            "link target empty",
            entries("{}", r#","links":{"l":""}"#),
            Malformed,
        ),
        (
            "link target absolute",
            entries("{}", r#","links":{"l":"/etc/passwd"}"#),
            Escapes,
        ),
        (
            "link target ..",
            entries("{}", r#","links":{"l":"../x"}"#),
            Escapes,
        ),
        (
            "link target deep ..",
            entries("{}", r#","links":{"d/l":"../../x"}"#),
            Escapes,
        ),
        (
            "link target via dir ..",
            entries("{}", r#","links":{"l":"a/../../x"}"#),
            Escapes,
        ),
        (
            "link target backslash",
            entries("{}", r#","links":{"l":"..\\x"}"#),
            Escapes,
        ),
        (
            "link target NUL",
            entries("{}", r#","links":{"l":"a\u0000"}"#),
            Malformed,
        ),
        (
            "link target newline",
            entries("{}", r#","links":{"l":"a\nb"}"#),
            Malformed,
        ),
        (
            "link target root",
            entries("{}", r#","links":{"d/l":".."}"#),
            Malformed,
        ),
        (
            "link target .",
            entries("{}", r#","links":{"l":"."}"#),
            Malformed,
        ),
        (
            "link target .git",
            entries("{}", r#","links":{"l":".git/config"}"#),
            InvalidPath,
        ),
        // Deep nesting: refused with an error, never a stack overflow.
        (
            "deep arrays in entries",
            entries(&nested(100_000, "[", "]"), ""),
            Malformed,
        ),
        (
            "deep objects in entries",
            entries(
                &format!("{}null{}", r#"{"a":"#.repeat(100_000), "}".repeat(100_000)),
                "",
            ),
            Malformed,
        ),
        (
            "deep arrays in an unknown field",
            with(&format!(r#","x":{}"#, nested(100_000, "[", "]"))),
            Malformed,
        ),
        (
            "deep arrays in created_dirs",
            with(&format!(r#","created_dirs":{}"#, nested(100_000, "[", "]"))),
            Malformed,
        ),
        (
            "deep arrays in version",
            format!(
                r#"{{"version":{},"entries":{{}}}}"#,
                nested(100_000, "[", "]")
            ),
            Malformed,
        ),
        (
            "deep arrays in mac",
            with(&format!(r#","mac":{}"#, nested(100_000, "[", "]"))),
            Malformed,
        ),
        (
            "deep arrays at the top",
            nested(100_000, "[", "]"),
            Malformed,
        ),
        ("deep unclosed", "[".repeat(1_000_000), Malformed),
    ];
    // A sealed snapshot checked with the wrong key, or none sealed.
    let sealed = agent_checkpoint::seal::seal_text(with(""), b"right key").unwrap();
    c.push(("MAC for another key", sealed, Unauthenticated));
    c.push(("not sealed but a key is given", with(""), Unauthenticated));
    let forged = agent_checkpoint::seal::seal_text(with(""), b"key")
        .unwrap()
        .replace(A, "Yg==");
    c.push(("sealed content altered", forged, Unauthenticated));
    c.into_iter()
        .map(|(n, j, e)| (n.to_owned(), j, e))
        .collect()
}

/// A real root and an in-memory one holding the same small tree.
struct Roots {
    _tmp: tempfile::TempDir,
    dir: std::path::PathBuf,
    cap: CapRoot,
    mem: MemRoot,
}

fn roots() -> Roots {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("root");
    let mem = MemRoot::new();
    for (path, text) in [
        ("keep.txt", "keep"),
        ("a", "a"),
        ("g/x", "x"),
        ("d/l", "dl"),
        (".git/config", "[core]"),
    ] {
        let full = dir.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, text).unwrap();
        let node = MemNode::File {
            bytes: text.as_bytes().to_vec(),
            mode: 0o644,
        };
        mem.insert(&RelPath::try_from(path).unwrap(), node);
    }
    std::os::unix::fs::symlink("keep.txt", dir.join("l")).unwrap();
    mem.insert(
        &RelPath::try_from("l").unwrap(),
        MemNode::Symlink("keep.txt".into()),
    );
    let cap = CapRoot::open(&dir, ambient_authority()).unwrap();
    Roots {
        _tmp: tmp,
        dir,
        cap,
        mem,
    }
}

#[test]
fn every_malformed_snapshot_is_refused_whole_with_its_code_and_nothing_written() {
    let cases = cases();
    let mut failures = Vec::new();
    let mut attempts = 0;
    for (name, json, want) in &cases {
        let r = roots();
        let real_before = fingerprint_tree(&r.dir, &[]);
        let mem_before = r.mem.entries();
        let mut options = RollbackOptions::default();
        if *want == Unauthenticated {
            options.key = Some(b"key".to_vec());
        }
        let mut got = Vec::new();
        let real = rollback(&r.cap, json, &options);
        got.push(("rollback (real root)", real.error_code()));
        let mem = rollback(&r.mem, json, &options);
        got.push(("rollback (memory root)", mem.error_code()));
        got.push((
            "plan_rollback",
            plan_rollback(&r.mem, json, &options)
                .err()
                .map(|e| e.code()),
        ));
        // The read-only views accept `.git` keys on purpose; a MAC is only
        // checked against a key.
        if !matches!(*want, Unauthenticated | InvalidPath) {
            got.push((
                "inspect_snapshot",
                inspect_snapshot(json).err().map(|e| e.code()),
            ));
            if !snapshot_paths(json).is_empty() {
                failures.push(format!("{name}: snapshot_paths is not empty"));
            }
        }
        for (what, code) in got {
            attempts += 1;
            if code != Some(*want) {
                failures.push(format!("{name}: {what} gave {code:?}, want {want:?}"));
            }
        }
        if !real.restored.is_empty() || !real.unrestored.is_empty() || real.redo.is_some() {
            failures.push(format!("{name}: a refused rollback reports paths"));
        }
        let changed = changed_keys(&real_before, &fingerprint_tree(&r.dir, &[]));
        if !changed.is_empty() {
            failures.push(format!("{name}: real root changed at {changed:?}"));
        }
        if r.mem.entries() != mem_before {
            failures.push(format!("{name}: memory root changed"));
        }
    }
    figure(
        "malformed",
        &format!(
            "{} snapshots, {attempts} code checks, {} failures (wrong code or a byte written)",
            cases.len(),
            failures.len()
        ),
    );
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn size_limits_are_checked_before_decoding() {
    let mut limits = Limits::default();
    limits.max_snapshot_bytes = 1000;
    limits.max_entries = 10;
    let mut options = ParseOptions::default();
    options.limits = limits;
    // Over the byte limit: refused as too large even though it is not JSON,
    // so nothing was parsed.
    let junk = "x".repeat(1001);
    let err = Snapshot::parse(&junk, &options).unwrap_err();
    assert_eq!(err.code(), TooLarge, "{err}");
    // Eleven entries: refused at the eleventh key, before the invalid
    // base64 of the twelfth is looked at.
    let mut body: Vec<String> = (0..11).map(|i| format!(r#""f{i}":null"#)).collect();
    body.push(r#""z":"not base64!""#.into());
    let json = entries(&format!("{{{}}}", body.join(",")), "");
    let err = Snapshot::parse(&json, &options).unwrap_err();
    assert_eq!(err.code(), TooLarge, "{err}");
    // Links count too.
    let links: Vec<String> = (0..6).map(|i| format!(r#""l{i}":"x""#)).collect();
    let nulls: Vec<String> = (0..6).map(|i| format!(r#""n{i}":null"#)).collect();
    let json = entries(
        &format!("{{{}}}", nulls.join(",")),
        &format!(r#","links":{{{}}}"#, links.join(",")),
    );
    let err = Snapshot::parse(&json, &options).unwrap_err();
    assert_eq!(err.code(), TooLarge, "{err}");
    // Ten fit.
    let ten: Vec<String> = (0..10).map(|i| format!(r#""f{i}":null"#)).collect();
    Snapshot::parse(&entries(&format!("{{{}}}", ten.join(",")), ""), &options).unwrap();

    // The built-in entry limit (1,000,000) applies to rollback itself.
    let default = Limits::default();
    let many: Vec<String> = (0..=default.max_entries)
        .map(|i| format!(r#""{i:x}":null"#))
        .collect();
    let json = entries(&format!("{{{}}}", many.join(",")), "");
    let root = MemRoot::new();
    let report = rollback(&root, &json, &RollbackOptions::default());
    assert_eq!(report.error_code(), Some(TooLarge));
    assert!(root.entries().is_empty());
    figure(
        "malformed",
        &format!(
            "size limits: bytes and entries refused before decoding; a {} MiB snapshot of {} entries refused",
            json.len() >> 20,
            many.len()
        ),
    );
}
