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
//!
//! Two generated classes follow: snapshots that contradict their own
//! digests (forged from real captures, refused whole by plan and rollback),
//! and pathological path sets for the validator (each gets the right
//! verdict; the time per entry is printed, and benchmarked in BENCHMARKS.md).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is a failing test"
)]

mod common;
mod reliability_sentinel;

use agent_checkpoint::root::{ambient_authority, MemNode};
use agent_checkpoint::{
    inspect_snapshot, snapshot_paths, CapRoot, ErrorCode, MemRoot, RelPath, RollbackOptions,
};
use agent_checkpoint::{Limits, ParseOptions, Snapshot};
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
        // Unknown members are extensions of a later writer (ignored, see
        // `format_evolution` below) unless `critical` names them.
        (
            "critical names an unknown extension",
            with(r#","zz_future":1,"critical":["zz_future"]"#),
            Version,
        ),
        (
            "critical is not a list of names",
            with(r#","critical":"modes""#),
            Malformed,
        ),
        (
            "critical names one twice",
            with(r#","critical":["modes","modes"]"#),
            Malformed,
        ),
        (
            "duplicate unknown member",
            with(r#","x":1,"x":2"#),
            Malformed,
        ),
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
    let seal = |text: String, key: &str| {
        Snapshot::parse(&text, &ParseOptions::default())
            .unwrap()
            .sealed(&agent_checkpoint::SealKey::try_from(key).unwrap())
            .unwrap()
            .into_string()
    };
    let sealed = seal(with(""), "right key");
    c.push(("MAC for another key", sealed, Unauthenticated));
    c.push(("not sealed but a key is given", with(""), Unauthenticated));
    let forged = seal(with(""), "key").replace(A, "Yg==");
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
            options = options.with_key(Some(agent_checkpoint::SealKey::try_from("key").unwrap()));
        }
        let mut got = Vec::new();
        let real = common::rollback_text(&r.cap, json, &options);
        got.push(("rollback (real root)", real.error_code()));
        let mem = common::rollback_text(&r.mem, json, &options);
        got.push(("rollback (memory root)", mem.error_code()));
        got.push((
            "plan_rollback",
            common::plan_text(&r.mem, json, &options.plan_options())
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

/// Snapshots from a "future" writer: members this build does not know are
/// ignored (and kept, so a MAC over them verifies and a re-encoding keeps
/// them) unless `critical` names them; a known member named critical is
/// fine.
#[test]
fn format_evolution_future_writers() {
    let root = MemRoot::new();
    root.insert(
        &RelPath::try_from("a").unwrap(),
        MemNode::File {
            bytes: b"now".to_vec(),
            mode: 0o644,
        },
    );
    let base = format!(r#"{{"version":1,"entries":{{"a":"{A}"}}"#);
    for extra in [
        r#","extra":1"#,
        r#","Entries":{}"#,
        r#","__proto__":{}"#,
        r#","":1"#,
        r#","zz_future":{"b":[1,{"y":2,"x":1}]},"critical":["modes"]"#,
    ] {
        let text = format!("{base}{extra}}}");
        let snapshot = Snapshot::parse(&text, &ParseOptions::default())
            .unwrap_or_else(|e| panic!("{extra}: {e}"));
        let report = common::rollback_text(&root, &text, &RollbackOptions::default());
        assert!(report.ok(), "{extra}: {report:?}");
        // Kept through a re-encoding, in canonical form.
        let again = Snapshot::parse(snapshot.to_json().as_str(), &ParseOptions::default()).unwrap();
        assert_eq!(again, snapshot, "{extra}");
        // Covered by a MAC: altering the unknown member breaks the seal.
        let key = agent_checkpoint::SealKey::try_from("k").unwrap();
        let sealed = snapshot.sealed(&key).unwrap().into_string();
        let keyed = ParseOptions::default().with_key(Some(key));
        Snapshot::parse(&sealed, &keyed).unwrap();
        if extra.contains("zz_future") {
            let altered = sealed.replace(r#""x":1"#, r#""x":3"#);
            assert_eq!(
                Snapshot::parse(&altered, &keyed).unwrap_err().code(),
                Unauthenticated
            );
        }
    }
    let critical = format!(r#"{base},"zz_future":1,"critical":["zz_future"]}}"#);
    let err = Snapshot::parse(&critical, &ParseOptions::default()).unwrap_err();
    assert_eq!(err.code(), Version);
    figure(
        "malformed",
        "format evolution: 5 future snapshots read (unknown members kept and sealed), an unknown critical extension refused",
    );
}

#[test]
fn size_limits_are_checked_before_decoding() {
    let limits = Limits::default()
        .with_max_snapshot_bytes(1000)
        .with_max_entries(10);
    let options = ParseOptions::default().with_limits(limits);
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
    let report = common::rollback_text(&root, &json, &RollbackOptions::default());
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

/// Snapshots that contradict their own digests, generated from real
/// captures (`RELIABILITY_SEED` replays): files of random sizes, new paths
/// and a link captured, the batch run, then one file's bytes changed with
/// its digest kept, or its digest changed with its bytes kept, at a random
/// place among the entries; a third of them then sealed with the key the
/// rollback is given (a key holder's mistake is refused all the same).
/// `plan_rollback` and `rollback` on a real and an in-memory root refuse
/// each whole with `malformed_snapshot`, and not one byte changes.
#[test]
fn snapshots_that_contradict_their_digests_are_refused_whole() {
    use base64::Engine as _;
    let mut rng = reliability_sentinel::Rng::from_env("malformed");
    let cases = reliability_sentinel::env_count(
        "RELIABILITY_DIGEST_CASES",
        if reliability_sentinel::long_run() {
            3_000
        } else {
            200
        },
    );
    let key = agent_checkpoint::SealKey::try_from("digest key").unwrap();
    let mut failures = Vec::new();
    let (mut bytes_forged, mut digests_forged, mut sealed, mut positions) = (0, 0, 0, [0usize; 3]);
    for case in 0..cases {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("root");
        let mem = MemRoot::new();
        let files = 2 + rng.below(10) as usize;
        let mut paths = Vec::new();
        for i in 0..files {
            let path = format!("d{}/f{i}.bin", rng.below(3));
            let len = rng.below(3000) as usize;
            let bytes = rng.bytes(len);
            let full = dir.join(&path);
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(&full, &bytes).unwrap();
            mem.insert(
                &RelPath::try_from(path.as_str()).unwrap(),
                MemNode::File { bytes, mode: 0o644 },
            );
            paths.push(path);
        }
        std::os::unix::fs::symlink(&paths[0], dir.join("cur")).unwrap();
        mem.insert(
            &RelPath::try_from("cur").unwrap(),
            MemNode::Symlink(paths[0].clone()),
        );
        let mut captured = paths.clone();
        captured.extend(["new/a.txt".into(), "cur".into()]);
        let real = CapRoot::open(&dir, ambient_authority()).unwrap();
        let snap = agent_checkpoint::capture(&real, &captured, &Default::default()).unwrap();
        // The batch: rewrite some files, create a new one.
        for path in &paths {
            if rng.below(2) == 0 {
                continue;
            }
            let len = 1 + rng.below(100) as usize;
            let bytes = rng.bytes(len);
            std::fs::write(dir.join(path), &bytes).unwrap();
            mem.insert(
                &RelPath::try_from(path.as_str()).unwrap(),
                MemNode::File { bytes, mode: 0o644 },
            );
        }
        std::fs::create_dir(dir.join("new")).unwrap();
        std::fs::write(dir.join("new/a.txt"), "new").unwrap();
        mem.insert(
            &RelPath::try_from("new/a.txt").unwrap(),
            MemNode::File {
                bytes: b"new".to_vec(),
                mode: 0o644,
            },
        );
        // The forgery, at a random file.
        let mut doc: serde_json::Value = serde_json::from_str(snap.as_str()).unwrap();
        let mut sorted = paths.clone();
        sorted.sort();
        let at = rng.below(sorted.len() as u64) as usize;
        positions[if at == 0 {
            0
        } else if at + 1 == sorted.len() {
            2
        } else {
            1
        }] += 1;
        let victim = &sorted[at];
        if rng.below(2) == 0 {
            let old = base64::engine::general_purpose::STANDARD
                .decode(doc["entries"][victim].as_str().unwrap())
                .unwrap();
            let mut forged = old.clone();
            if forged.is_empty() || rng.below(3) == 0 {
                forged.push(b'!');
            } else {
                let i = rng.below(forged.len() as u64) as usize;
                forged[i] ^= 1 << rng.below(8);
            }
            doc["entries"][victim] = base64::engine::general_purpose::STANDARD
                .encode(forged)
                .into();
            bytes_forged += 1;
        } else {
            let mut digest = doc["digests"][victim]
                .as_str()
                .unwrap()
                .to_owned()
                .into_bytes();
            let i = rng.below(64) as usize;
            digest[i] = if digest[i] == b'0' { b'1' } else { b'0' };
            doc["digests"][victim] = String::from_utf8(digest).unwrap().into();
            digests_forged += 1;
        }
        let mut text = doc.to_string();
        let mut options = RollbackOptions::default().with_durable(false);
        if rng.below(3) == 0 {
            text = Snapshot::parse(&text, &ParseOptions::default())
                .unwrap()
                .sealed(&key)
                .unwrap()
                .into_string();
            options = options.with_key(Some(key.clone()));
            sealed += 1;
        }
        let real_before = fingerprint_tree(&dir, &[]);
        let mem_before = mem.entries();
        let shown = format!("case {case} ({victim})");
        for (what, code) in [
            (
                "plan (real)",
                common::plan_text(&real, &text, &options.plan_options())
                    .err()
                    .map(|e| e.code()),
            ),
            (
                "plan (memory)",
                common::plan_text(&mem, &text, &options.plan_options())
                    .err()
                    .map(|e| e.code()),
            ),
            (
                "rollback (real)",
                common::rollback_text(&real, &text, &options).error_code(),
            ),
            (
                "rollback (memory)",
                common::rollback_text(&mem, &text, &options).error_code(),
            ),
        ] {
            if code != Some(Malformed) {
                failures.push(format!("{shown}: {what} gave {code:?}"));
            }
        }
        let changed = changed_keys(&real_before, &fingerprint_tree(&dir, &[]));
        if !changed.is_empty() {
            failures.push(format!("{shown}: real root changed at {changed:?}"));
        }
        if mem.entries() != mem_before {
            failures.push(format!("{shown}: memory root changed"));
        }
        // The same snapshot without the forgery rolls back.
        if case % 16 == 0 {
            let report = common::rollback_text(
                &real,
                &snap,
                &RollbackOptions::default().with_durable(false),
            );
            if !report.ok() {
                failures.push(format!("{shown}: the honest snapshot failed: {report:?}"));
            }
        }
    }
    figure(
        "malformed",
        &format!(
            "digests that disagree: {cases} forged captures ({bytes_forged} with altered bytes, {digests_forged} with altered digests, \
             {sealed} sealed with the rollback's key; the forged file first/middle/last {positions:?}): \
             plan and rollback refuse each whole on both roots, {} failures (wrong code or a byte written)",
            failures.len()
        ),
    );
    assert!(failures.is_empty(), "{failures:#?}");
}

/// One pathological path set for the validator: its name, its text, and
/// the code it must be refused with (`None`: valid, with this many paths).
type Shape = (&'static str, String, Result<usize, ErrorCode>);

/// Path sets built to make a careless validator quadratic (or worse), each
/// `n` entries wide; a few end in a contradiction the validator must find.
fn pathological_shapes(n: usize) -> Vec<Shape> {
    let obj = |pairs: Vec<String>| format!("{{{}}}", pairs.join(","));
    let list = |items: Vec<String>| format!("[{}]", items.join(","));
    let mut shapes: Vec<Shape> = Vec::new();
    // The issue's: n files cN, n new paths dN/f, their n parents created.
    let issue = |extra: &str| {
        let mut pairs = Vec::new();
        let mut dirs = Vec::new();
        for i in 0..n {
            pairs.push(format!(r#""c{i}":"eA==""#));
            pairs.push(format!(r#""d{i}/f":null"#));
            dirs.push(format!(r#""d{i}""#));
        }
        if !extra.is_empty() {
            pairs.push(extra.to_owned());
        }
        entries(&obj(pairs), &format!(r#","created_dirs":{}"#, list(dirs)))
    };
    shapes.push(("issue 21: cN + dN/f, N created dirs", issue(""), Ok(2 * n)));
    shapes.push((
        "issue 21 + content below the last file",
        issue(&format!(r#""c{}/x":"eA==""#, n - 1)),
        Err(Malformed),
    ));
    // Long keys sharing a long prefix: every comparison walks it.
    let prefix = "p/".repeat(60);
    let long: Vec<String> = (0..n)
        .map(|i| format!(r#""{prefix}f{i}":"eA==""#))
        .collect();
    shapes.push(("long shared prefixes", entries(&obj(long), ""), Ok(n)));
    // Type flips: every file also has a new path below it.
    let mut flips = Vec::new();
    for i in 0..n {
        flips.push(format!(r#""f{i}":"eA==""#));
        flips.push(format!(r#""f{i}/new":null"#));
    }
    shapes.push(("n type flips", entries(&obj(flips), ""), Ok(2 * n)));
    // Three levels of created dirs per new path.
    let mut nested = Vec::new();
    let mut dirs = Vec::new();
    for i in 0..n {
        nested.push(format!(r#""g{i}/h/k/new":null"#));
        for d in [format!("g{i}"), format!("g{i}/h"), format!("g{i}/h/k")] {
            dirs.push(format!(r#""{d}""#));
        }
    }
    shapes.push((
        "3n created dirs, 3 levels each",
        entries(&obj(nested), &format!(r#","created_dirs":{}"#, list(dirs))),
        Ok(n),
    ));
    // Every extension on every file: modes, digests, applied.
    let mut files = Vec::new();
    let mut modes = Vec::new();
    let mut digests = Vec::new();
    let mut applied = Vec::new();
    for i in 0..n {
        files.push(format!(r#""e{i}":"YQ==""#));
        modes.push(format!(r#""e{i}":420"#));
        digests.push(format!(r#""e{i}":"{SHA_A}""#));
        applied.push(format!(r#""e{i}":null"#));
    }
    shapes.push((
        "modes, digests and applied on every file",
        entries(
            &obj(files),
            &format!(
                r#","modes":{},"digests":{},"applied":{}"#,
                obj(modes),
                obj(digests),
                obj(applied)
            ),
        ),
        Ok(n),
    ));
    // Links: n/30 chains of 30 links (each resolved through up to 29 hops),
    // then a chain one hop over the limit.
    let chain = |len: usize, name: &str| -> Vec<String> {
        (0..len)
            .map(|j| {
                let target = if j + 1 == len {
                    "x".to_owned()
                } else {
                    format!("{name}{}", j + 1)
                };
                format!(r#""{name}{j}":"{target}""#)
            })
            .collect()
    };
    let mut chains = Vec::new();
    for c in 0..n / 30 {
        chains.extend(chain(30, &format!("l{c}_")));
    }
    let chained = chains.len();
    shapes.push((
        "chains of 30 links",
        entries("{}", &format!(r#","links":{}"#, obj(chains.clone()))),
        Ok(chained),
    ));
    chains.extend(chain(42, "over_"));
    shapes.push((
        "chains of 30 links + one of 42 (over the hop limit)",
        entries("{}", &format!(r#","links":{}"#, obj(chains))),
        Err(InvalidPath),
    ));
    // Links to their own directory, each climbed through once (inside),
    // then one climbed through twice (outside).
    let mut climbs = Vec::new();
    for i in 0..n / 2 {
        climbs.push(format!(r#""a{i}/s":".""#));
        climbs.push(format!(r#""t{i}":"a{i}/s/s/../x""#));
    }
    shapes.push((
        "links to their own dir, climbed through",
        entries("{}", &format!(r#","links":{}"#, obj(climbs.clone()))),
        Ok(climbs.len()),
    ));
    climbs.push(r#""zz":"a0/s/s/s/../../../x""#.to_owned());
    shapes.push((
        "... + one climbing out through them",
        entries("{}", &format!(r#","links":{}"#, obj(climbs))),
        Err(Escapes),
    ));
    // One path 1,000 levels deep, every level a created dir.
    let deep: Vec<String> = (1..=1000).map(|d| ["q"; 1000][..d].join("/")).collect();
    let bottom = format!("{}/new", deep[deep.len() - 1]);
    shapes.push((
        "1000 levels of created dirs",
        entries(
            &format!(r#"{{"{bottom}":null}}"#),
            &format!(
                r#","created_dirs":{}"#,
                list(deep.iter().map(|d| format!(r#""{d}""#)).collect())
            ),
        ),
        Ok(1),
    ));
    shapes
}

/// The validator on pathological path sets (10,000 wide by default, 200,000
/// in the long run): each gets the right verdict, and the figure line shows
/// its time at n/10 and n (the time per entry should stay flat; the
/// benchmark in BENCHMARKS.md is where that is measured and kept).
#[test]
fn pathological_path_sets_get_the_right_verdict() {
    let n = if reliability_sentinel::long_run() {
        200_000
    } else {
        10_000
    };
    let small = pathological_shapes(n / 10);
    let mut failures = Vec::new();
    let mut ratios = Vec::new();
    let mut total = 0.0;
    for ((name, text, want), (_, small_text, _)) in pathological_shapes(n).into_iter().zip(small) {
        let timed = |text: &str| {
            let start = std::time::Instant::now();
            let parsed = Snapshot::parse(text, &ParseOptions::default());
            (parsed, start.elapsed().as_secs_f64())
        };
        let (_, t_small) = timed(&small_text);
        let (parsed, t) = timed(&text);
        let got = parsed.map(|s| s.len()).map_err(|e| e.code());
        if got != want {
            failures.push(format!("{name}: got {got:?}, want {want:?}"));
        }
        let per_kib = |t: f64, text: &str| t / (text.len() as f64 / 1024.0);
        ratios.push(per_kib(t, &text) / per_kib(t_small, &small_text));
        total += t;
    }
    let (lo, hi) = ratios
        .iter()
        .fold((f64::MAX, 0.0_f64), |(lo, hi), r| (lo.min(*r), hi.max(*r)));
    figure(
        "malformed",
        &format!(
            "pathological path sets, n = {n}: {} shapes (issue 21's, long shared prefixes, type flips, nested created dirs, \
             every extension, link chains at and over the hop limit, links climbed through, 1000 levels), {} wrong verdicts; \
             {total:.1} s to parse them all; time per KiB at n over n/10: x{lo:.2} to x{hi:.2}",
            ratios.len(),
            failures.len(),
        ),
    );
    assert!(failures.is_empty(), "{failures:#?}");
}
