//! The option objects JavaScript passes, and their conversion to the core's
//! options. Only the shape changes here: every default not spelled out is
//! the core's own (`Default`), and every name is parsed by the core. An
//! unusable value is a `RangeError` with `code: 'invalid_argument'`.

use agent_checkpoint::{OnConflict, ParseOptions, SealKey};
use napi::bindgen_prelude::{Either, Uint8Array, Utf16String};
use napi::Env;
use napi_derive::napi;

use crate::diff::diff_options;
use crate::error::invalid_value;

/// A sealing key: bytes (`Buffer`, `Uint8Array`), or a string standing for
/// its UTF-8 bytes (`'k1'` and `Buffer.from('k1')` are the same key). Never
/// empty; a string must be valid Unicode (no lone surrogate).
pub type KeyArg = Either<Utf16String, Uint8Array>;

/// Options of `createCheckpoint`.
#[napi(object)]
#[derive(Default)]
pub struct CaptureOptions {
    /// Accept paths with a `.git` component (refused by default).
    pub allow_git_dir: Option<bool>,
    /// Skip, unread, any file larger than this many bytes (default 100 MiB):
    /// the snapshot lists it in `skipped` (path -> size), and a rollback in
    /// `notCovered`.
    pub max_file_bytes: Option<f64>,
    /// Seal the snapshot with this key (HMAC-SHA256): a rollback given the
    /// key then refuses it if it was altered (`unauthenticated`).
    #[napi(ts_type = "string | Uint8Array")]
    pub key: Option<KeyArg>,
    /// Record the root's path in the snapshot (default `true`), so a
    /// rollback under another directory can tell.
    pub record_root: Option<bool>,
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
    /// list it in `conflicts`.
    #[napi(ts_type = "'overwrite' | 'skip'")]
    pub on_conflict: Option<String>,
    /// Refuse the snapshot (`valid: false`, `errorCode: 'unauthenticated'`)
    /// unless it is sealed with this key.
    #[napi(ts_type = "string | Uint8Array")]
    pub key: Option<KeyArg>,
    /// Return the `redo` snapshot (default `true`); `false` saves reading
    /// every captured path before rewriting it.
    pub redo: Option<bool>,
    /// Restore set-user-id / set-group-id bits (default `false`: never).
    pub restore_setid: Option<bool>,
    /// Refuse (`root_mismatch`) a snapshot taken under another root
    /// (default `false`: `otherRoot` says so and the rollback goes on).
    pub strict_root: Option<bool>,
    /// The largest current file read into memory for the redo (default 1 GiB).
    pub max_file_bytes: Option<f64>,
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
    #[napi(ts_type = "string | Uint8Array")]
    pub key: Option<KeyArg>,
    /// As in `rollback`.
    pub restore_setid: Option<bool>,
    /// As in `rollback`.
    pub strict_root: Option<bool>,
    /// Describe each change (`PlanItem.diff`, `diffSummary`, `hunks`): a
    /// unified diff where one can be shown, one line otherwise (default
    /// `false`: it reads every file the rollback would rewrite).
    pub diff: Option<bool>,
    /// Unchanged lines shown around each change (default 3).
    pub diff_context: Option<f64>,
    /// Files larger than this on either side get one line instead of a
    /// line diff (default 1 MiB).
    pub diff_max_bytes: Option<f64>,
}

/// Options of `recordApplied`.
#[napi(object)]
#[derive(Default)]
pub struct RecordAppliedOptions {
    /// Accept snapshot keys with a `.git` component (refused by default).
    pub allow_git_dir: Option<bool>,
    /// The key of a sealed snapshot (required for one): it is verified, and
    /// the result sealed again with it.
    #[napi(ts_type = "string | Uint8Array")]
    pub key: Option<KeyArg>,
}

/// A sealing key as the core takes it.
pub(crate) fn seal_key(env: &Env, key: Option<KeyArg>) -> napi::Result<Option<SealKey>> {
    let bytes = match key {
        None => return Ok(None),
        Some(Either::A(text)) => String::from_utf16(&text)
            .map_err(|_| {
                invalid_value(
                    env,
                    "key",
                    "the string is not valid Unicode (a lone surrogate); pass bytes",
                )
            })?
            .into_bytes(),
        Some(Either::B(bytes)) => bytes.to_vec(),
    };
    SealKey::new(bytes)
        .map(Some)
        .map_err(|e| invalid_value(env, "key", e.to_string()))
}

fn on_conflict(env: &Env, name: Option<String>) -> napi::Result<OnConflict> {
    let Some(name) = name else {
        return Ok(OnConflict::default());
    };
    OnConflict::from_name(&name).ok_or_else(|| {
        invalid_value(
            env,
            "onConflict",
            format!(
                "must be '{}' or '{}', got {name:?}",
                OnConflict::Overwrite.as_str(),
                OnConflict::Skip.as_str()
            ),
        )
    })
}

/// A byte count: a non-negative integer.
pub(crate) fn byte_count(env: &Env, name: &str, n: Option<f64>) -> napi::Result<Option<u64>> {
    match n {
        None => Ok(None),
        Some(n) if n.is_finite() && n >= 0.0 && n.fract() == 0.0 => Ok(Some(n as u64)),
        Some(n) => Err(invalid_value(
            env,
            name,
            format!("must be a non-negative integer, got {n}"),
        )),
    }
}

/// The core's capture options.
pub(crate) fn capture_options(
    env: &Env,
    options: Option<CaptureOptions>,
) -> napi::Result<agent_checkpoint::CaptureOptions> {
    let options = options.unwrap_or_default();
    let mut core = agent_checkpoint::CaptureOptions::default()
        .with_allow_git_dir(options.allow_git_dir.unwrap_or(false))
        .with_key(seal_key(env, options.key)?)
        .with_record_root(options.record_root.unwrap_or(true));
    if let Some(max) = byte_count(env, "maxFileBytes", options.max_file_bytes)? {
        core = core.with_max_file_bytes(max);
    }
    Ok(core)
}

/// The core's parse and rollback options.
pub(crate) fn rollback_options(
    env: &Env,
    options: Option<RollbackOptions>,
) -> napi::Result<(ParseOptions, agent_checkpoint::RollbackOptions)> {
    let options = options.unwrap_or_default();
    let key = seal_key(env, options.key)?;
    let parse = ParseOptions::allowing_git_dir(options.allow_git_dir.unwrap_or(false))
        .with_key(key.clone());
    let mut core = agent_checkpoint::RollbackOptions::default()
        .with_durable(options.durable.unwrap_or(true))
        .with_on_conflict(on_conflict(env, options.on_conflict)?)
        .with_key(key)
        .with_redo(options.redo.unwrap_or(true))
        .with_restore_setid(options.restore_setid.unwrap_or(false))
        .with_strict_root(options.strict_root.unwrap_or(false));
    if let Some(max) = byte_count(env, "maxFileBytes", options.max_file_bytes)? {
        core = core.with_max_file_bytes(max);
    }
    Ok((parse, core))
}

/// The core's parse and plan options.
pub(crate) fn plan_options(
    env: &Env,
    options: Option<PlanOptions>,
) -> napi::Result<(ParseOptions, agent_checkpoint::PlanOptions)> {
    let options = options.unwrap_or_default();
    let key = seal_key(env, options.key)?;
    let parse = ParseOptions::allowing_git_dir(options.allow_git_dir.unwrap_or(false))
        .with_key(key.clone());
    let core = agent_checkpoint::PlanOptions::default()
        .with_on_conflict(on_conflict(env, options.on_conflict)?)
        .with_key(key)
        .with_restore_setid(options.restore_setid.unwrap_or(false))
        .with_strict_root(options.strict_root.unwrap_or(false))
        .with_diff(diff_options(
            env,
            options.diff,
            options.diff_context,
            options.diff_max_bytes,
        )?);
    Ok((parse, core))
}

/// The core's parse and record options.
pub(crate) fn record_options(
    env: &Env,
    options: Option<RecordAppliedOptions>,
) -> napi::Result<(ParseOptions, agent_checkpoint::RecordOptions)> {
    let options = options.unwrap_or_default();
    let key = seal_key(env, options.key)?;
    let parse = ParseOptions::allowing_git_dir(options.allow_git_dir.unwrap_or(false))
        .with_key(key.clone());
    Ok((
        parse,
        agent_checkpoint::RecordOptions::default().with_key(key),
    ))
}
