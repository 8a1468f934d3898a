//! What JavaScript sees of a snapshot and of a rollback: the report, the
//! captured paths, and the read-only helpers that need no filesystem.

use std::collections::HashMap;

use napi::Env;
use napi_derive::napi;

use crate::error::{ErrorCode, OrThrow};

/// What a rollback did.
#[napi(object, use_nullable = true)]
pub struct RollbackReport {
    /// Paths now as captured, sorted.
    pub restored: Vec<String>,
    /// Paths that could not be restored, sorted (reasons in `failures`).
    pub unrestored: Vec<String>,
    /// Paths left as they were because they changed after the batch
    /// (`onConflict: 'skip'`), sorted: neither restored nor unrestored.
    pub conflicts: Vec<String>,
    /// Whether the snapshot was well-formed (and so was applied).
    pub valid: bool,
    /// Valid, and every path restored.
    pub ok: bool,
    /// Each unrestored path and why.
    pub failures: HashMap<String, String>,
    /// Why the snapshot was refused (`malformed_snapshot`, ...); `null` when valid.
    pub error_code: Option<ErrorCode>,
    /// The refusal's message; `null` when valid.
    pub error: Option<String>,
    /// The captured paths as they were just before this rollback: rolling
    /// it back brings the batch's result back. `null` when refused, or with
    /// `redo: false`.
    pub redo: Option<String>,
}

impl From<agent_checkpoint::RollbackReport> for RollbackReport {
    fn from(report: agent_checkpoint::RollbackReport) -> RollbackReport {
        RollbackReport {
            valid: report.valid(),
            ok: report.ok(),
            failures: report.failures().into_iter().collect(),
            error_code: report.error_code().map(ErrorCode::from),
            error: report.error.as_ref().map(ToString::to_string),
            unrestored: report.unrestored.into_iter().map(|u| u.path).collect(),
            restored: report.restored,
            conflicts: report.conflicts,
            redo: report.redo,
        }
    }
}

/// What a snapshot holds for one path.
#[napi(string_enum = "lowercase")]
pub enum CapturedKind {
    /// A file that existed, with its bytes.
    File,
    /// A path that did not exist (the batch creates it).
    New,
    /// A symlink, with its target text.
    Link,
}

/// One captured path, as `inspectSnapshot` describes it.
#[napi(object, use_nullable = true)]
pub struct CapturedPath {
    /// The canonical path.
    pub path: String,
    /// What was there.
    pub kind: CapturedKind,
    /// Size in bytes of the captured content (files only).
    pub size: Option<f64>,
    /// Permission bits (files whose mode was recorded).
    pub mode: Option<u32>,
    /// Target text (links only).
    pub link_target: Option<String>,
    /// SHA-256 of the content, lowercase hex (files whose digest was recorded).
    pub digest: Option<String>,
}

impl From<agent_checkpoint::CapturedPath> for CapturedPath {
    fn from(item: agent_checkpoint::CapturedPath) -> CapturedPath {
        CapturedPath {
            path: item.path,
            kind: match item.kind {
                agent_checkpoint::CapturedKind::File => CapturedKind::File,
                agent_checkpoint::CapturedKind::New => CapturedKind::New,
                agent_checkpoint::CapturedKind::Link => CapturedKind::Link,
            },
            // Exact: no captured file comes near 2^53 bytes.
            size: item.size.map(|n| n as f64),
            mode: item.mode,
            link_target: item.link_target,
            digest: item.digest,
        }
    }
}

/// The paths `checkpoint` captured, sorted; `[]` for a malformed snapshot
/// (best effort, never throws).
#[napi]
pub fn snapshot_paths(checkpoint: String) -> Vec<String> {
    agent_checkpoint::snapshot_paths(&checkpoint)
}

/// One item per captured path, sorted by path. Throws `malformed_snapshot`
/// or `unsupported_version` for a snapshot that is not valid.
#[napi]
pub fn inspect_snapshot(env: &Env, checkpoint: String) -> napi::Result<Vec<CapturedPath>> {
    agent_checkpoint::inspect_snapshot(&checkpoint)
        .map(|items| items.into_iter().map(CapturedPath::from).collect())
        .or_throw(env)
}
