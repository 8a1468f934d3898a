//! The option objects JavaScript passes, and their conversion to the core's
//! options. Only the shape changes here: every default not spelled out is
//! the core's own (`Default`), and every name is parsed by the core.

use agent_checkpoint::OnConflict;
use napi::bindgen_prelude::{Either, Uint8Array};
use napi_derive::napi;

use crate::error::invalid_arg;

/// Options of `createCheckpoint`.
#[napi(object)]
#[derive(Default)]
pub struct CaptureOptions {
    /// Accept paths with a `.git` component (refused by default).
    pub allow_git_dir: Option<bool>,
    /// Refuse (`too_large`) any file larger than this many bytes.
    pub max_file_bytes: Option<f64>,
    /// Seal the snapshot with this key (HMAC-SHA256): a rollback given the
    /// key then refuses it if it was altered (`unauthenticated`). A key is
    /// bytes (`Buffer`, `Uint8Array`) or a string, which stands for its UTF-8
    /// bytes (`'k1'` and `Buffer.from('k1')` are the same key).
    pub key: Option<Either<String, Uint8Array>>,
}

/// Options of `rollback`.
#[napi(object)]
#[derive(Default)]
pub struct RollbackOptions {
    /// fsync each restored file and each touched directory (default `true`).
    pub durable: Option<bool>,
    /// Accept snapshot keys with a `.git` component (refused by default).
    pub allow_git_dir: Option<bool>,
    /// What to do with a path changed after the batch (known only after
    /// `recordApplied`): `'overwrite'` it (the default) or `'skip'` it and
    /// list it in `conflicts`. Any other value is an argument error.
    #[napi(ts_type = "'overwrite' | 'skip'")]
    pub on_conflict: Option<String>,
    /// Refuse the snapshot (`valid: false`, `errorCode: 'unauthenticated'`)
    /// unless it is sealed with this key.
    pub key: Option<Either<String, Uint8Array>>,
    /// Return the `redo` snapshot (default `true`); `false` saves reading
    /// every captured path before rewriting it.
    pub redo: Option<bool>,
}

/// Options of `planRollback`: those of `rollback` that change what it would do.
#[napi(object)]
#[derive(Default)]
pub struct PlanOptions {
    /// Accept snapshot keys with a `.git` component (refused by default).
    pub allow_git_dir: Option<bool>,
    /// As in `rollback`: with `'skip'`, a changed path is planned as `conflict`.
    #[napi(ts_type = "'overwrite' | 'skip'")]
    pub on_conflict: Option<String>,
    /// Throw `unauthenticated` unless the snapshot is sealed with this key.
    pub key: Option<Either<String, Uint8Array>>,
}

/// Options of `recordApplied`.
#[napi(object)]
#[derive(Default)]
pub struct RecordAppliedOptions {
    /// Accept snapshot keys with a `.git` component (refused by default).
    pub allow_git_dir: Option<bool>,
    /// The key of a sealed snapshot (required for one): it is verified, and
    /// the result sealed again with it.
    pub key: Option<Either<String, Uint8Array>>,
}

// A sealing key is its bytes (`Buffer` or `Uint8Array`), or a string whose
// UTF-8 bytes are the key (`'k1'` and `Buffer.from('k1')` are the same key).
fn key_bytes(key: Option<Either<String, Uint8Array>>) -> Option<Vec<u8>> {
    key.map(|key| match key {
        Either::A(text) => text.into_bytes(),
        Either::B(bytes) => bytes.to_vec(),
    })
}

fn on_conflict(name: Option<String>) -> napi::Result<OnConflict> {
    let Some(name) = name else {
        return Ok(OnConflict::default());
    };
    OnConflict::from_name(&name).ok_or_else(|| {
        invalid_arg(format!(
            "onConflict must be '{}' or '{}', got {name:?}",
            OnConflict::Overwrite.as_str(),
            OnConflict::Skip.as_str()
        ))
    })
}

/// The core's capture options; an argument error for a `maxFileBytes` that
/// is not a non-negative integer.
pub(crate) fn capture_options(
    options: Option<CaptureOptions>,
) -> napi::Result<agent_checkpoint::CaptureOptions> {
    let options = options.unwrap_or_default();
    let mut core = agent_checkpoint::CaptureOptions::default();
    core.allow_git_dir = options.allow_git_dir.unwrap_or(core.allow_git_dir);
    core.max_file_bytes = match options.max_file_bytes {
        None => None,
        Some(n) if n.is_finite() && n >= 0.0 && n.fract() == 0.0 => Some(n as u64),
        Some(n) => {
            return Err(invalid_arg(format!(
                "maxFileBytes must be a non-negative integer, got {n}"
            )))
        }
    };
    core.key = key_bytes(options.key);
    Ok(core)
}

/// The core's rollback options; an argument error for an unknown `onConflict`.
pub(crate) fn rollback_options(
    options: Option<RollbackOptions>,
) -> napi::Result<agent_checkpoint::RollbackOptions> {
    let options = options.unwrap_or_default();
    let mut core = agent_checkpoint::RollbackOptions::default();
    core.durable = options.durable.unwrap_or(core.durable);
    core.allow_git_dir = options.allow_git_dir.unwrap_or(core.allow_git_dir);
    core.on_conflict = on_conflict(options.on_conflict)?;
    core.key = key_bytes(options.key);
    core.redo = options.redo.unwrap_or(core.redo);
    Ok(core)
}

/// The core's rollback options for a plan; an argument error for an
/// unknown `onConflict`.
pub(crate) fn plan_options(
    options: Option<PlanOptions>,
) -> napi::Result<agent_checkpoint::RollbackOptions> {
    let options = options.unwrap_or_default();
    let mut core = agent_checkpoint::RollbackOptions::default();
    core.allow_git_dir = options.allow_git_dir.unwrap_or(core.allow_git_dir);
    core.on_conflict = on_conflict(options.on_conflict)?;
    core.key = key_bytes(options.key);
    Ok(core)
}

/// `recordApplied`'s options as the core takes them: `(allowGitDir, key)`.
pub(crate) fn record_applied_options(
    options: Option<RecordAppliedOptions>,
) -> (bool, Option<Vec<u8>>) {
    let options = options.unwrap_or_default();
    (
        options.allow_git_dir.unwrap_or(false),
        key_bytes(options.key),
    )
}
