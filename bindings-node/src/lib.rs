//! Node bindings of agent-checkpoint (npm package `agent-checkpoint`).
//!
//! Every function converts its arguments, calls the core and maps the error
//! (see [`error`]); there are no semantics here. Names are the core's in
//! camelCase. This file holds the naming layer (IDs, refs, shadow branches,
//! prompts); [`checkpoint`] capture and rollback, [`plan`] the rollback
//! preview and [`diff`] its diffs, [`applied`] `recordApplied`, [`options`]
//! the option objects ([`async_options`] those taking [`progress`] callbacks),
//! [`snapshot`] the snapshot helpers and the report, [`queue`] the push queue,
//! [`store`] the git checkpoint store, [`store_shadow`] its shadow branches,
//! [`store_remote`] its push and fetch, [`store_storage`] its du and gc,
//! [`redact`] secret redaction.

pub mod applied;
pub mod async_options;
pub mod checkpoint;
pub mod diff;
pub mod error;
pub mod options;
pub mod plan;
pub mod progress;
pub mod queue;
pub mod redact;
pub mod snapshot;
pub mod store;
pub mod store_options;
pub mod store_remote;
pub mod store_shadow;
pub mod store_storage;
pub mod task;

use agent_checkpoint_naming::{id, prompts, refs};
use napi::Env;
use napi_derive::napi;

use error::{invalid_value, OrThrow};

/// The separator between prompts in `prompt.txt`: a blank line, `---`, a blank line.
#[napi]
pub const PROMPT_SEPARATOR: &str = prompts::PROMPT_SEPARATOR;

/// The prefix of every per-checkpoint ref (`refs/entire/checkpoints/`).
#[napi]
pub const CHECKPOINT_REF_PREFIX: &str = refs::CHECKPOINT_REF_PREFIX;

/// The prefix of every shadow branch (`entire/`).
#[napi]
pub const SHADOW_BRANCH_PREFIX: &str = refs::SHADOW_BRANCH_PREFIX;

/// The metadata branch (`entire/checkpoints/v1`), never a shadow branch.
#[napi]
pub const METADATA_BRANCH: &str = refs::METADATA_BRANCH;

/// The format of a checkpoint ID string.
#[napi(string_enum = "lowercase")]
pub enum IdKind {
    /// Exactly 12 lowercase hex characters.
    Legacy,
    /// A canonical 26-character Crockford base32 ULID.
    Ulid,
    /// Anything else.
    Unknown,
}

/// The two parts of a shadow branch name.
#[napi(object)]
pub struct ShadowBranch {
    /// The base commit's prefix (up to 7 characters).
    pub commit_prefix: String,
    /// The worktree hash (6 hex characters; `""` in the legacy form).
    pub worktree_hash: String,
}

/// `legacy`, `ulid` or `unknown`.
#[napi]
pub fn checkpoint_id_kind(id: String) -> IdKind {
    match id::checkpoint_id_kind(&id) {
        id::IdKind::Legacy => IdKind::Legacy,
        id::IdKind::Ulid => IdKind::Ulid,
        // A kind this binding does not know yet reads as unknown.
        _ => IdKind::Unknown,
    }
}

/// Returns `id` if it is a legacy or ULID checkpoint ID; throws
/// `invalid_checkpoint_id` otherwise.
#[napi]
pub fn validate_checkpoint_id(env: &Env, id: String) -> napi::Result<String> {
    id::validate_checkpoint_id(&id)
        .map(id::CheckpointId::into_string)
        .or_throw(env)
}

/// A new legacy ID: 12 lowercase hex characters from 6 random bytes.
#[napi]
pub fn new_checkpoint_id(env: &Env) -> napi::Result<String> {
    id::new_checkpoint_id()
        .map(id::CheckpointId::into_string)
        .or_throw(env)
}

/// A new ULID for `timestampMs` (milliseconds since the epoch, default now)
/// plus 80 random bits; throws `too_large` above 2^48 - 1.
#[napi]
pub fn new_ulid(env: &Env, timestamp_ms: Option<f64>) -> napi::Result<String> {
    let timestamp_ms = match timestamp_ms {
        None => None,
        Some(ms) if ms.is_finite() && ms >= 0.0 && ms.fract() == 0.0 => Some(ms as u64),
        Some(ms) => {
            return Err(invalid_value(
                env,
                "timestampMs",
                format!("must be a non-negative integer, got {ms}"),
            ))
        }
    };
    id::new_ulid(timestamp_ms)
        .map(id::CheckpointId::into_string)
        .or_throw(env)
}

/// The millisecond timestamp of a canonical ULID, else `null`.
#[napi]
pub fn ulid_timestamp_ms(id: String) -> Option<f64> {
    // Exact: ULID timestamps stop at 2^48 - 1.
    id::ulid_timestamp_ms(&id).map(|ms| ms as f64)
}

/// A ULID in full, anything else cut to its first 12 bytes.
#[napi]
pub fn display_short(id: String) -> String {
    id::display_short(&id)
}

/// The tree path on the metadata branch: first two characters, `/`, the rest.
#[napi]
pub fn checkpoint_path(id: String) -> String {
    id::checkpoint_path(&id)
}

/// The ref-namespace shard: the LAST two characters (`a1b2c3d4e5f6` -> `f6`).
#[napi]
pub fn shard_for(id: String) -> String {
    id::shard_for(&id)
}

/// `refs/entire/checkpoints/<shard>/<id>`; throws `invalid_checkpoint_id`
/// for an unknown-kind ID.
#[napi]
pub fn ref_name(env: &Env, id: String) -> napi::Result<String> {
    refs::ref_name(&id).or_throw(env)
}

/// The checkpoint ID a per-checkpoint ref names, else `null`.
#[napi]
pub fn parse_ref(name: String) -> Option<String> {
    refs::parse_ref(&name)
}

/// `entire/<first 7 of baseCommit>-<hashWorktreeId(worktreeId)>`;
/// `worktreeId` defaults to `""` (the main worktree). `baseCommit` must be a
/// commit id (1 to 64 hex digits): anything else throws `invalid_argument`,
/// so the result is always a valid git ref name.
#[napi]
pub fn shadow_branch_name(
    env: &Env,
    base_commit: String,
    worktree_id: Option<String>,
) -> napi::Result<String> {
    refs::shadow_branch_name(&base_commit, worktree_id.as_deref().unwrap_or("")).or_throw(env)
}

/// Splits a shadow branch name at its last `-`, else `null` if it does not
/// start with `entire/`.
#[napi]
pub fn parse_shadow_branch_name(name: String) -> Option<ShadowBranch> {
    refs::parse_shadow_branch_name(&name).map(|b| ShadowBranch {
        commit_prefix: b.commit_prefix,
        worktree_hash: b.worktree_hash,
    })
}

/// The first 6 hex characters of the SHA-256 of `worktreeId` (`""` -> `e3b0c4`).
#[napi]
pub fn hash_worktree_id(worktree_id: String) -> String {
    refs::hash_worktree_id(&worktree_id)
}

/// Whether `name` is a shadow branch (never the metadata branch).
#[napi]
pub fn is_shadow_branch(name: String) -> bool {
    refs::is_shadow_branch(&name)
}

/// Splits `prompt.txt` content on `PROMPT_SEPARATOR`, dropping only trailing
/// empty pieces (`""` -> `[]`).
#[napi]
pub fn split_prompts(content: String) -> Vec<String> {
    prompts::split_prompts(&content)
}

/// Joins prompts with `PROMPT_SEPARATOR`, nothing added or trimmed.
#[napi]
pub fn join_prompts(prompts: Vec<String>) -> String {
    prompts::join_prompts(&prompts)
}
