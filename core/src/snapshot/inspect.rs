//! A read-only summary of a snapshot, one item per captured path.

use super::{ParseOptions, Snapshot};
use crate::digest::to_hex;
use crate::error::Result;

/// What a snapshot holds for one path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum CapturedKind {
    /// A file that existed, with its bytes.
    File,
    /// A path that did not exist (the batch creates it).
    New,
    /// A symlink, with its target text.
    Link,
}

impl CapturedKind {
    /// `file`, `new` or `link`.
    pub fn as_str(self) -> &'static str {
        match self {
            CapturedKind::File => "file",
            CapturedKind::New => "new",
            CapturedKind::Link => "link",
        }
    }
}

/// One captured path, as [`inspect_snapshot`] describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct CapturedPath {
    /// The canonical path.
    pub path: String,
    /// What was there.
    pub kind: CapturedKind,
    /// Size in bytes of the captured content (files only).
    pub size: Option<u64>,
    /// Permission bits (files whose mode was recorded).
    pub mode: Option<u32>,
    /// Target text (links only).
    pub link_target: Option<String>,
    /// SHA-256 of the content, lowercase hex (files whose digest was recorded).
    pub digest: Option<String>,
}

impl Snapshot {
    /// One [`CapturedPath`] per entry and link, sorted by path.
    pub fn inspect(&self) -> Vec<CapturedPath> {
        let mut out: Vec<CapturedPath> = self
            .entries
            .iter()
            .map(|(path, content)| CapturedPath {
                path: path.to_string(),
                kind: if content.is_some() {
                    CapturedKind::File
                } else {
                    CapturedKind::New
                },
                size: content.as_ref().map(|b| b.len() as u64),
                mode: self.modes.get(path).copied(),
                link_target: None,
                digest: self.digests.get(path).map(to_hex),
            })
            .chain(self.links.iter().map(|(path, target)| CapturedPath {
                path: path.to_string(),
                kind: CapturedKind::Link,
                size: None,
                mode: None,
                link_target: Some(target.clone()),
                digest: None,
            }))
            .collect();
        out.sort_by(|a, b| a.path.cmp(&b.path));
        out
    }
}

/// Parses `json` (strictly, `.git` keys allowed since nothing is touched)
/// and describes every captured path.
pub fn inspect_snapshot(json: &str) -> Result<Vec<CapturedPath>> {
    Ok(Snapshot::parse(json, &ParseOptions::allowing_git_dir(true))?.inspect())
}
