//! Git names for checkpoints: the per-checkpoint ref
//! (`refs/entire/checkpoints/<shard>/<id>`) and the per-worktree shadow
//! branch (`entire/<commit[:7]>-<sha256(worktree)[:6]>`).
//!
//! Builders and parsers take any `&str` and never panic; see [`crate::id`]
//! for how byte cuts treat non-ASCII input.

use sha2::{Digest, Sha256};

use crate::id::{self, CheckpointId};
use agent_checkpoint::{Error, Result};

/// Namespace of the per-checkpoint refs: `refs/entire/checkpoints/<shard>/<id>`.
pub const CHECKPOINT_REF_PREFIX: &str = "refs/entire/checkpoints/";

/// Prefix of every shadow branch name.
pub const SHADOW_BRANCH_PREFIX: &str = "entire/";

/// The metadata branch; it shares the shadow prefix but is never a shadow branch.
pub const METADATA_BRANCH: &str = "entire/checkpoints/v1";

/// How many bytes of the base commit a shadow branch name keeps.
pub const SHADOW_COMMIT_PREFIX_LEN: usize = 7;

/// How many hex characters of the worktree hash a shadow branch name keeps.
pub const WORKTREE_HASH_LEN: usize = 6;

/// The per-checkpoint ref of `id`: `refs/entire/checkpoints/<shard>/<id>`,
/// where `<shard>` is [`id::shard_for`] (`a1b2c3d4e5f6` ->
/// `refs/entire/checkpoints/f6/a1b2c3d4e5f6`).
///
/// # Errors
/// [`Error::InvalidCheckpointId`] for an empty or unknown-kind `id`;
/// [`Error::InvalidRefName`] if the result were not a valid git ref name.
pub fn ref_name(id: &str) -> Result<String> {
    let id = id::validate_checkpoint_id(id)?;
    checkpoint_ref(&id)
}

fn checkpoint_ref(id: &CheckpointId) -> Result<String> {
    let name = format!(
        "{CHECKPOINT_REF_PREFIX}{}/{}",
        id::shard_of(id.as_str()),
        id.as_str()
    );
    check_ref_name(&name)?;
    Ok(name)
}

/// Checks `name` against git's rules for a full reference name
/// (`git check-ref-format`), as implemented by `gix-validate`.
///
/// # Errors
/// [`Error::InvalidRefName`] naming the input and the broken rule.
pub fn check_ref_name(name: &str) -> Result<()> {
    match gix_validate::reference::name(name.as_bytes().into()) {
        Ok(_) => Ok(()),
        Err(e) => Err(Error::InvalidRefName {
            name: name.to_owned(),
            reason: e.to_string(),
        }),
    }
}

/// The checkpoint ID a per-checkpoint ref names, or `None` if `name` is not
/// exactly [`CHECKPOINT_REF_PREFIX`] + `<shard>/<id>` with both parts
/// non-empty, no further `/`, and `<shard>` equal byte for byte to
/// [`id::shard_for`] of `<id>`. The ID's kind is not checked, so a future
/// format still parses as long as it shards consistently.
pub fn parse_ref(name: &str) -> Option<String> {
    let tail = name.strip_prefix(CHECKPOINT_REF_PREFIX)?;
    let (shard, id) = tail.split_once('/')?;
    if shard.is_empty() || id.is_empty() || id.contains('/') {
        return None;
    }
    (id::shard_of(id) == shard).then(|| id.to_owned())
}

/// The longest commit id accepted (a SHA-256 object name, in hex).
pub const MAX_COMMIT_ID_LEN: usize = 64;

/// The shadow branch of a base commit in a worktree:
/// `entire/` + the first [`SHADOW_COMMIT_PREFIX_LEN`] characters of
/// `base_commit` (all of it if shorter) + `-` + [`hash_worktree_id`] of
/// `worktree_id` (`""` for the main worktree).
///
/// `base_commit` must be a commit id: 1 to [`MAX_COMMIT_ID_LEN`] hex digits
/// (either case); anything else (`../x`, an escape character, an empty
/// string) is `invalid_argument`, so the result is always a valid git ref
/// name. (The Go tool takes any string; we do not hand out names git
/// would refuse.)
pub fn shadow_branch_name(base_commit: &str, worktree_id: &str) -> Result<String> {
    if base_commit.is_empty() || base_commit.len() > MAX_COMMIT_ID_LEN || !is_hex(base_commit) {
        return Err(Error::invalid_argument(
            "base_commit",
            format!(
                "{:?} is not a commit id (1 to {MAX_COMMIT_ID_LEN} hex digits)",
                id::prefix_keeping_chars(base_commit, MAX_COMMIT_ID_LEN + 1)
            ),
        ));
    }
    let prefix = &base_commit[..base_commit.len().min(SHADOW_COMMIT_PREFIX_LEN)];
    Ok(format!(
        "{SHADOW_BRANCH_PREFIX}{prefix}-{}",
        hash_worktree_id(worktree_id)
    ))
}

/// A shadow branch name, split: what [`parse_shadow_branch_name`] returns.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct ShadowBranch {
    /// The base commit's prefix (the whole rest, in the legacy form).
    pub commit_prefix: String,
    /// The worktree hash; empty in the legacy form.
    pub worktree_hash: String,
}

/// Splits a shadow branch name into its commit prefix and worktree hash,
/// exactly like the Go tool's `ParseShadowBranchName`:
///
/// - `None` unless `name` starts with [`SHADOW_BRANCH_PREFIX`];
/// - the rest is split at its LAST `-`;
/// - with no `-`, or a `-` as the first or last character of the rest, it is
///   the legacy form and the whole rest is the commit prefix with an empty
///   worktree hash (`entire/abc1234` -> `abc1234` and `""`,
///   `entire/` -> `""` and `""`).
///
/// Nothing else is checked: `entire/checkpoints/v1` parses as
/// `("checkpoints/v1", "")`. Use [`is_shadow_branch`] to recognise one.
pub fn parse_shadow_branch_name(name: &str) -> Option<ShadowBranch> {
    let rest = name.strip_prefix(SHADOW_BRANCH_PREFIX)?;
    let (commit_prefix, worktree_hash) = match rest.rfind('-') {
        Some(dash) if dash > 0 && dash + 1 < rest.len() => {
            let (commit, hash) = rest.split_at(dash);
            (commit.to_owned(), hash[1..].to_owned())
        }
        _ => (rest.to_owned(), String::new()),
    };
    Some(ShadowBranch {
        commit_prefix,
        worktree_hash,
    })
}

/// The first [`WORKTREE_HASH_LEN`] lowercase hex characters of the SHA-256
/// of `worktree_id` (`""` -> `e3b0c4`).
pub fn hash_worktree_id(worktree_id: &str) -> String {
    let digest = Sha256::digest(worktree_id.as_bytes());
    let mut hex = hex::encode(digest);
    hex.truncate(WORKTREE_HASH_LEN);
    hex
}

/// Whether `name` is a shadow branch: `entire/` + at least 7 hex characters
/// (either case) + optionally `-` and exactly 6 hex characters, and never
/// [`METADATA_BRANCH`].
pub fn is_shadow_branch(name: &str) -> bool {
    if name == METADATA_BRANCH {
        return false;
    }
    let Some(rest) = name.strip_prefix(SHADOW_BRANCH_PREFIX) else {
        return false;
    };
    let (commit, worktree_hash) = match rest.split_once('-') {
        Some((commit, hash)) => (commit, Some(hash)),
        None => (rest, None),
    };
    let commit_ok = commit.len() >= SHADOW_COMMIT_PREFIX_LEN && is_hex(commit);
    let hash_ok = worktree_hash.is_none_or(|h| h.len() == WORKTREE_HASH_LEN && is_hex(h));
    commit_ok && hash_ok
}

fn is_hex(s: &str) -> bool {
    s.bytes().all(|b| b.is_ascii_hexdigit())
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_checkpoint::ErrorCode;

    #[test]
    fn ref_round_trip() {
        let r = ref_name("a1b2c3d4e5f6").unwrap();
        assert_eq!(r, "refs/entire/checkpoints/f6/a1b2c3d4e5f6");
        assert_eq!(parse_ref(&r).as_deref(), Some("a1b2c3d4e5f6"));
        let u = "01KVBJCWYA4YW6J5M9GP655HZN";
        assert_eq!(parse_ref(&ref_name(u).unwrap()).as_deref(), Some(u));
    }

    #[test]
    fn ref_name_rejects_unknown_ids() {
        for bad in ["", "nope", "a1b2c3d4e5f", "../../etc", "A1B2C3D4E5F6"] {
            let err = ref_name(bad).unwrap_err();
            assert_eq!(err.code(), ErrorCode::InvalidCheckpointId, "{bad:?}");
        }
    }

    #[test]
    fn check_ref_name_maps_gix_errors() {
        assert!(check_ref_name("refs/heads/main").is_ok());
        let err = check_ref_name("refs/heads/a..b").unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidRefName);
        assert!(check_ref_name("refs/heads/a\nb").is_err());
        assert!(check_ref_name("").is_err());
    }

    #[test]
    fn parse_ref_rejects_misfiled_refs() {
        assert_eq!(parse_ref("refs/entire/checkpoints/a1/a1b2c3d4e5f6"), None);
        assert_eq!(parse_ref("refs/entire/checkpoints/f6/x/a1b2c3d4e5f6"), None);
        assert_eq!(parse_ref("refs/entire/checkpoints//"), None);
        assert_eq!(parse_ref("refs/entire/checkpoints/f6"), None);
        assert_eq!(parse_ref("refs/entire/checkpoints/F6/a1b2c3d4e5f6"), None);
        assert_eq!(
            parse_ref("refs/entire/checkpoints/yz/xyz").as_deref(),
            Some("xyz")
        );
    }

    #[test]
    fn shadow_names_match_go_vectors() {
        let name = |c: &str, w: &str| shadow_branch_name(c, w).unwrap();
        assert_eq!(name("abc1234567890", ""), "entire/abc1234-e3b0c4");
        assert_eq!(name("abc1234567890", "test-123"), "entire/abc1234-37eb19");
        assert_eq!(name("abc", "wt"), "entire/abc-a721db");
        assert_eq!(hash_worktree_id("feature/auth-system"), "16b0aa");
    }

    #[test]
    fn shadow_names_are_valid_refs_or_typed_errors() {
        for bad in [
            "",
            "../../x",
            "abc\u{1b}[0m",
            "日本語",
            "g123456",
            &"a".repeat(65),
        ] {
            let e = shadow_branch_name(bad, "").unwrap_err();
            assert_eq!(e.code(), ErrorCode::InvalidArgument, "{bad:?}");
        }
        let name = shadow_branch_name("ABCDEF0123", "any/worktree name").unwrap();
        assert_eq!(name, "entire/ABCDEF0-21612f");
        assert!(check_ref_name(&format!("refs/heads/{name}")).is_ok());
    }

    #[test]
    fn shadow_parse_follows_go() {
        let p = |s: &str| parse_shadow_branch_name(s);
        let pair = |a: &str, b: &str| {
            Some(ShadowBranch {
                commit_prefix: a.to_owned(),
                worktree_hash: b.to_owned(),
            })
        };
        assert_eq!(p("entire/abc1234-e3b0c4"), pair("abc1234", "e3b0c4"));
        assert_eq!(p("entire/abc1234"), pair("abc1234", ""));
        assert_eq!(p("entire/"), pair("", ""));
        assert_eq!(p("entire/-abc"), pair("-abc", ""));
        assert_eq!(p("entire/abc-"), pair("abc-", ""));
        assert_eq!(p("entire/a-b-c"), pair("a-b", "c"));
        assert_eq!(p(METADATA_BRANCH), pair("checkpoints/v1", ""));
        assert_eq!(p("main"), None);
    }

    #[test]
    fn shadow_recognition() {
        assert!(is_shadow_branch("entire/abc1234"));
        assert!(is_shadow_branch("entire/ABC1234-e3b0c4"));
        assert!(!is_shadow_branch("entire/abc123"));
        assert!(!is_shadow_branch("entire/abc1234-e3b0c"));
        assert!(!is_shadow_branch("entire/abc1234-e3b0c4-1"));
        assert!(!is_shadow_branch(METADATA_BRANCH));
        assert!(!is_shadow_branch("refs/heads/entire/abc1234"));
    }
}
