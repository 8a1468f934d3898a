//! Shared pieces of the Rust vector runners: loading cases, trees, comparisons.
#![allow(dead_code, reason = "each test binary uses a different subset")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is a failing test"
)]

pub mod blocking;
pub mod hooked;
pub mod platform;
pub mod windows;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Debug;
use std::path::{Path, PathBuf};

use base64::Engine as _;
use serde_json::Value;

/// Every entry under `dir` (walked without following links), sorted: its
/// path, its bytes (a link's target, nothing for a directory) and its mode.
/// Two listings compare equal only when nothing there changed.
pub fn entries_under(dir: &Path) -> Vec<(PathBuf, Vec<u8>, u32)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let m = std::fs::symlink_metadata(&p).unwrap();
            let bytes = if m.is_dir() {
                stack.push(p.clone());
                Vec::new()
            } else if m.file_type().is_symlink() {
                std::fs::read_link(&p)
                    .unwrap()
                    .into_os_string()
                    .into_encoded_bytes()
            } else {
                std::fs::read(&p).unwrap()
            };
            out.push((p, bytes, platform::mode_of(&m)));
        }
    }
    out.sort();
    out
}

/// The folder holding the shared vectors.
pub fn vectors_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors")
}

/// Every case of every `<prefix>*.json` file, in file then case order.
pub fn load_cases(prefix: &str) -> Vec<Value> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(vectors_dir())
        .expect("tests/vectors exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension().is_some_and(|e| e == "json")
                && p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with(prefix))
        })
        .collect();
    files.sort();
    let mut cases = Vec::new();
    let mut names = BTreeSet::new();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("readable vector file");
        let doc: Value =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        for case in doc["cases"].as_array().expect("a cases list") {
            let name = case["name"]
                .as_str()
                .expect("every case has a name")
                .to_owned();
            assert!(names.insert(name.clone()), "duplicate case name {name}");
            cases.push(case.clone());
        }
    }
    cases
}

/// Case names listed for `target` in expected_failures.txt.
pub fn expected_failures(target: &str) -> BTreeSet<String> {
    let text =
        std::fs::read_to_string(vectors_dir().join("expected_failures.txt")).unwrap_or_default();
    text.lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter_map(|l| {
            let mut parts = l.split_whitespace();
            match (parts.next(), parts.next()) {
                (Some(t), Some(name)) if t == target => Some(name.to_owned()),
                _ => None,
            }
        })
        .collect()
}

/// One node of a vector tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TreeNode {
    /// A file: bytes and mode.
    File { bytes: Vec<u8>, mode: u32 },
    /// A directory.
    Dir,
    /// A symlink and its target text.
    Link(String),
    /// A FIFO/socket/device.
    Special,
}

impl TreeNode {
    /// Reads `{"text"|"b64", "mode"?}`, `{"dir": true}`, `{"link": t}` or `{"special": true}`.
    pub fn from_json(v: &Value) -> Result<TreeNode, String> {
        if let Some(t) = v.get("link") {
            return Ok(TreeNode::Link(
                t.as_str().ok_or("link must be a string")?.to_owned(),
            ));
        }
        if v.get("dir").is_some() {
            return Ok(TreeNode::Dir);
        }
        if v.get("special").is_some() {
            return Ok(TreeNode::Special);
        }
        let bytes = match (v.get("text"), v.get("b64")) {
            (Some(t), _) => t
                .as_str()
                .ok_or("text must be a string")?
                .as_bytes()
                .to_vec(),
            (None, Some(b)) => base64::engine::general_purpose::STANDARD
                .decode(b.as_str().ok_or("b64 must be a string")?)
                .map_err(|e| e.to_string())?,
            (None, None) => return Err(format!("node without content: {v}")),
        };
        let mode = v.get("mode").and_then(Value::as_u64).unwrap_or(0o644) as u32;
        Ok(TreeNode::File { bytes, mode })
    }
}

/// A whole tree, by path.
#[derive(Debug, Default)]
pub struct Tree {
    pub nodes: BTreeMap<String, TreeNode>,
}

impl Tree {
    /// The tree under `key` of a case (empty when absent).
    pub fn from_case(case: &Value, key: &str) -> Result<Tree, String> {
        let mut tree = Tree::default();
        if let Some(map) = case.get(key).and_then(Value::as_object) {
            for (path, node) in map {
                tree.nodes.insert(path.clone(), TreeNode::from_json(node)?);
            }
        }
        Ok(tree)
    }

    /// The tree plus every parent directory its paths imply.
    pub fn with_parents(self) -> BTreeMap<String, TreeNode> {
        let mut all = self.nodes.clone();
        for path in self.nodes.keys() {
            let mut end = 0;
            while let Some(i) = path[end..].find('/') {
                end += i;
                all.entry(path[..end].to_owned()).or_insert(TreeNode::Dir);
                end += 1;
            }
        }
        all
    }
}

/// Creates `node` at `path` under `dir` on the real filesystem.
pub fn write_native(dir: &Path, path: &str, node: &TreeNode) -> Result<(), String> {
    let full = dir.join(path);
    if let Some(parent) = full.parent() {
        std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
    }
    match node {
        TreeNode::File { bytes, mode } => {
            std::fs::write(&full, bytes).map_err(|e| e.to_string())?;
            platform::set_mode(&full, *mode).map_err(|e| e.to_string())
        }
        TreeNode::Dir => std::fs::create_dir_all(&full).map_err(|e| e.to_string()),
        TreeNode::Link(t) => platform::make_link(t, &full).map_err(|e| format!("setup: {e}")),
        TreeNode::Special => platform::make_special(&full).map_err(|e| e.to_string()),
    }
}

/// Reads the whole tree under `dir`, never following symlinks.
pub fn read_native(dir: &Path) -> Result<BTreeMap<String, TreeNode>, String> {
    let mut out = BTreeMap::new();
    walk(dir, "", &mut out)?;
    Ok(out)
}

fn walk(dir: &Path, prefix: &str, out: &mut BTreeMap<String, TreeNode>) -> Result<(), String> {
    for entry in std::fs::read_dir(dir).map_err(|e| e.to_string())? {
        let entry = entry.map_err(|e| e.to_string())?;
        let name = entry
            .file_name()
            .into_string()
            .map_err(|_| "non-UTF-8 name".to_string())?;
        let rel = if prefix.is_empty() {
            name.clone()
        } else {
            format!("{prefix}/{name}")
        };
        let meta = std::fs::symlink_metadata(entry.path()).map_err(|e| e.to_string())?;
        let node = if meta.file_type().is_symlink() {
            let t = std::fs::read_link(entry.path()).map_err(|e| e.to_string())?;
            TreeNode::Link(t.to_str().ok_or("non-UTF-8 link")?.to_owned())
        } else if meta.is_dir() {
            walk(&entry.path(), &rel, out)?;
            TreeNode::Dir
        } else if meta.is_file() {
            TreeNode::File {
                bytes: std::fs::read(entry.path()).map_err(|e| e.to_string())?,
                mode: platform::mode_of(&meta),
            }
        } else {
            TreeNode::Special
        };
        out.insert(rel, node);
    }
    Ok(())
}

/// Equality with a readable message.
pub fn check_eq<T: PartialEq + Debug + ?Sized>(
    what: &str,
    want: &T,
    got: &T,
) -> Result<(), String> {
    if want == got {
        Ok(())
    } else {
        Err(format!("{what}: expected {want:?}, got {got:?}"))
    }
}

/// Compares two trees and names the differing paths.
pub fn check_tree(
    want: &BTreeMap<String, TreeNode>,
    got: &BTreeMap<String, TreeNode>,
) -> Result<(), String> {
    let mut diffs = Vec::new();
    for (path, node) in want {
        match got.get(path) {
            Some(g) if held(g) == held(node) => {}
            Some(g) => diffs.push(format!("{path}: expected {}, got {}", show(node), show(g))),
            None => diffs.push(format!("{path}: missing")),
        }
    }
    for path in got.keys().filter(|p| !want.contains_key(*p)) {
        diffs.push(format!("{path}: unexpected {}", show(&got[path])));
    }
    if diffs.is_empty() {
        Ok(())
    } else {
        Err(format!("tree differs: {}", diffs.join("; ")))
    }
}

/// A node as the platform can hold it (its mode through [`platform::held_mode`]).
fn held(node: &TreeNode) -> TreeNode {
    match node {
        TreeNode::File { bytes, mode } => TreeNode::File {
            bytes: bytes.clone(),
            mode: platform::held_mode(*mode),
        },
        other => other.clone(),
    }
}

fn show(node: &TreeNode) -> String {
    match node {
        TreeNode::File { bytes, mode } => {
            format!("file {:?} mode {mode:o}", String::from_utf8_lossy(bytes))
        }
        TreeNode::Dir => "dir".into(),
        TreeNode::Link(t) => format!("link -> {t}"),
        TreeNode::Special => "special file".into(),
    }
}

/// A rollback of snapshot text, the way the bindings report it: a snapshot
/// refused as a whole is `valid() == false` with its error, not a panic.
#[derive(Debug)]
pub struct TextReport {
    /// The report (empty when refused).
    pub report: agent_checkpoint::RollbackReport,
    /// Why the snapshot was refused.
    pub error: Option<agent_checkpoint::Error>,
}

impl std::ops::Deref for TextReport {
    type Target = agent_checkpoint::RollbackReport;
    fn deref(&self) -> &agent_checkpoint::RollbackReport {
        &self.report
    }
}

impl TextReport {
    /// Whether the snapshot was accepted.
    pub fn valid(&self) -> bool {
        self.error.is_none()
    }

    /// Accepted, and every path restored.
    pub fn ok(&self) -> bool {
        self.valid() && self.report.ok()
    }

    /// The refusal's code.
    pub fn error_code(&self) -> Option<agent_checkpoint::ErrorCode> {
        self.error.as_ref().map(agent_checkpoint::Error::code)
    }

    /// The redo snapshot's text.
    pub fn redo_text(&self) -> Option<String> {
        self.report.redo.as_ref().map(|r| r.as_str().to_owned())
    }
}

/// Parses `json` with `parse` and rolls it back with `options`.
pub fn rollback_text_with<R: agent_checkpoint::Root + ?Sized>(
    root: &R,
    json: impl AsRef<str>,
    parse: &agent_checkpoint::ParseOptions,
    options: &agent_checkpoint::RollbackOptions,
) -> TextReport {
    let result = agent_checkpoint::Snapshot::parse(json.as_ref(), parse)
        .and_then(|snapshot| agent_checkpoint::rollback(root, &snapshot, options));
    match result {
        Ok(report) => TextReport {
            report,
            error: None,
        },
        Err(e) => TextReport {
            report: agent_checkpoint::RollbackReport::default(),
            error: Some(e),
        },
    }
}

/// Parses `json` (default parse options, the key of `options`) and rolls it back.
pub fn rollback_text<R: agent_checkpoint::Root + ?Sized>(
    root: &R,
    json: impl AsRef<str>,
    options: &agent_checkpoint::RollbackOptions,
) -> TextReport {
    let parse = agent_checkpoint::ParseOptions::default().with_key(options.key.clone());
    rollback_text_with(root, json, &parse, options)
}

/// The plan for snapshot text (default parse options, the key of `options`).
pub fn plan_text<R: agent_checkpoint::Root + ?Sized>(
    root: &R,
    json: impl AsRef<str>,
    options: &agent_checkpoint::PlanOptions,
) -> Result<agent_checkpoint::Plan, agent_checkpoint::Error> {
    let parse = agent_checkpoint::ParseOptions::default().with_key(options.key.clone());
    let snapshot = agent_checkpoint::Snapshot::parse(json.as_ref(), &parse)?;
    agent_checkpoint::plan_rollback(root, &snapshot, options)
}

/// A file write the way a batch makes one (not durable, no expectation).
pub fn write_options(mode: u32) -> agent_checkpoint::root::WriteOptions {
    agent_checkpoint::root::WriteOptions::new(mode).with_durable(false)
}
