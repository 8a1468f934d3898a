//! Checkpoint IDs, refs, shadow branches and prompts: pure functions.

use agent_checkpoint_naming::{id, prompts, refs};
use wasm_bindgen::prelude::*;

use crate::error::{js_result, type_error};

/// `"legacy"`, `"ulid"` or `"unknown"`.
#[wasm_bindgen(js_name = checkpointIdKind, unchecked_return_type = "\"legacy\" | \"ulid\" | \"unknown\"")]
pub fn checkpoint_id_kind(id: &str) -> String {
    id::checkpoint_id_kind(id).as_str().to_owned()
}

/// The ID itself if it is a legacy or ULID checkpoint ID; throws `invalid_checkpoint_id` otherwise.
#[wasm_bindgen(js_name = validateCheckpointId)]
pub fn validate_checkpoint_id(id: &str) -> Result<String, JsValue> {
    js_result(id::validate_checkpoint_id(id)).map(id::CheckpointId::into_string)
}

/// A new legacy ID: 12 lowercase hex characters from `crypto.getRandomValues`.
#[wasm_bindgen(js_name = newCheckpointId)]
pub fn new_checkpoint_id() -> Result<String, JsValue> {
    js_result(id::new_checkpoint_id()).map(id::CheckpointId::into_string)
}

/// A new ULID for `timestampMs` (default `Date.now()`, since the core has no
/// clock on wasm32-unknown-unknown). Throws `too_large` above 2^48-1 and a
/// `TypeError` for a negative or fractional timestamp.
#[wasm_bindgen(js_name = newUlid)]
pub fn new_ulid(
    #[wasm_bindgen(js_name = timestampMs)] timestamp_ms: Option<f64>,
) -> Result<String, JsValue> {
    let ms = timestamp_ms.unwrap_or_else(js_sys::Date::now);
    if !(ms >= 0.0 && ms.fract() == 0.0) {
        return Err(type_error("timestampMs must be a non-negative integer"));
    }
    // Saturates above u64::MAX, which the core refuses as too large anyway.
    js_result(id::new_ulid(Some(ms as u64))).map(id::CheckpointId::into_string)
}

/// The millisecond timestamp of a canonical ULID, else `null`.
#[wasm_bindgen(js_name = ulidTimestampMs, unchecked_return_type = "number | null")]
pub fn ulid_timestamp_ms(id: &str) -> JsValue {
    // Below 2^48, so exact as a JS number.
    id::ulid_timestamp_ms(id).map_or(JsValue::NULL, |ms| JsValue::from_f64(ms as f64))
}

/// A ULID in full; anything else cut to 12 bytes.
#[wasm_bindgen(js_name = displayShort)]
pub fn display_short(id: &str) -> String {
    id::display_short(id)
}

/// The tree layout on the metadata branch: first two chars `/` the rest.
#[wasm_bindgen(js_name = checkpointPath)]
pub fn checkpoint_path(id: &str) -> String {
    id::checkpoint_path(id)
}

/// The ref-namespace shard: the last two chars.
#[wasm_bindgen(js_name = shardFor)]
pub fn shard_for(id: &str) -> String {
    id::shard_for(id)
}

/// `refs/entire/checkpoints/<shard>/<id>`; throws `invalid_checkpoint_id` for an unknown-kind ID.
#[wasm_bindgen(js_name = refName)]
pub fn ref_name(id: &str) -> Result<String, JsValue> {
    js_result(refs::ref_name(id))
}

/// The checkpoint ID of a per-checkpoint ref name, else `null`.
#[wasm_bindgen(js_name = parseRef, unchecked_return_type = "string | null")]
pub fn parse_ref(name: &str) -> JsValue {
    refs::parse_ref(name).map_or(JsValue::NULL, JsValue::from)
}

/// `entire/<first 7 of baseCommit>-<hashWorktreeId(worktreeId)>`;
/// `worktreeId` defaults to `""` (the main worktree). `baseCommit` must be a
/// commit id (1 to 64 hex digits): anything else throws `invalid_argument`.
#[wasm_bindgen(js_name = shadowBranchName)]
pub fn shadow_branch_name(
    #[wasm_bindgen(js_name = baseCommit)] base_commit: &str,
    #[wasm_bindgen(js_name = worktreeId)] worktree_id: Option<String>,
) -> Result<String, JsValue> {
    crate::error::js_result(refs::shadow_branch_name(
        base_commit,
        worktree_id.as_deref().unwrap_or(""),
    ))
}

/// `{ commitPrefix, worktreeHash }` of a shadow branch name (the hash is `""`
/// for the legacy form), else `null`.
#[wasm_bindgen(
    js_name = parseShadowBranchName,
    unchecked_return_type = "{ commitPrefix: string; worktreeHash: string } | null"
)]
pub fn parse_shadow_branch_name(name: &str) -> Result<JsValue, JsValue> {
    let Some(branch) = refs::parse_shadow_branch_name(name) else {
        return Ok(JsValue::NULL);
    };
    let out = js_sys::Object::new();
    js_sys::Reflect::set(&out, &"commitPrefix".into(), &branch.commit_prefix.into())?;
    js_sys::Reflect::set(&out, &"worktreeHash".into(), &branch.worktree_hash.into())?;
    Ok(out.into())
}

/// The first 6 hex chars of SHA-256 of a worktree ID.
#[wasm_bindgen(js_name = hashWorktreeId)]
pub fn hash_worktree_id(#[wasm_bindgen(js_name = worktreeId)] worktree_id: &str) -> String {
    refs::hash_worktree_id(worktree_id)
}

/// Whether `name` is a shadow branch (never the metadata branch).
#[wasm_bindgen(js_name = isShadowBranch)]
pub fn is_shadow_branch(name: &str) -> bool {
    refs::is_shadow_branch(name)
}

/// Splits a prompts file on the separator (trailing empty pieces dropped).
#[wasm_bindgen(js_name = splitPrompts)]
pub fn split_prompts(content: &str) -> Vec<String> {
    prompts::split_prompts(content)
}

/// Joins prompts with the separator.
#[wasm_bindgen(js_name = joinPrompts)]
pub fn join_prompts(prompts: Vec<String>) -> String {
    prompts::join_prompts(&prompts)
}

/// The prompt separator, `"\n\n---\n\n"` (the `PROMPT_SEPARATOR` constant).
#[wasm_bindgen(js_name = promptSeparator)]
pub fn prompt_separator() -> String {
    prompts::PROMPT_SEPARATOR.to_owned()
}

/// `"refs/entire/checkpoints/"` (the `CHECKPOINT_REF_PREFIX` constant).
#[wasm_bindgen(js_name = checkpointRefPrefix)]
pub fn checkpoint_ref_prefix() -> String {
    refs::CHECKPOINT_REF_PREFIX.to_owned()
}

/// `"entire/"` (the `SHADOW_BRANCH_PREFIX` constant).
#[wasm_bindgen(js_name = shadowBranchPrefix)]
pub fn shadow_branch_prefix() -> String {
    refs::SHADOW_BRANCH_PREFIX.to_owned()
}

/// `"entire/checkpoints/v1"` (the `METADATA_BRANCH` constant).
#[wasm_bindgen(js_name = metadataBranch)]
pub fn metadata_branch() -> String {
    refs::METADATA_BRANCH.to_owned()
}
