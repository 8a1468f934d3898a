//! Checkpoint IDs, refs, shadow branches and prompts: no input panics, and
//! every name built from an ID parses back to it.
#![no_main]

use agent_checkpoint_naming::id::{self, IdKind};
use agent_checkpoint_naming::{prompts, refs};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // Two strings from one input: split at the first NUL.
    let (s, t) = text.split_once('\0').unwrap_or((text, ""));

    let kind = id::checkpoint_id_kind(s);
    assert_eq!(
        id::validate_checkpoint_id(s).is_ok(),
        kind != IdKind::Unknown
    );
    assert_eq!(id::ulid_timestamp_ms(s).is_some(), kind == IdKind::Ulid);
    assert!(s.starts_with(&id::display_short(s)));
    let _ = id::checkpoint_path(s);
    let shard = id::shard_for(s);
    assert!(s.ends_with(&shard));

    match refs::ref_name(s) {
        Ok(name) => {
            assert_ne!(kind, IdKind::Unknown);
            assert_eq!(refs::parse_ref(&name).as_deref(), Some(s));
        }
        Err(e) => assert!(matches!(
            e.code(),
            agent_checkpoint::ErrorCode::InvalidCheckpointId
                | agent_checkpoint::ErrorCode::InvalidRefName
        )),
    }
    if let Some(parsed) = refs::parse_ref(s) {
        assert!(s.ends_with(&parsed));
    }

    // Any input: a valid git ref name, or a typed error.
    match refs::shadow_branch_name(s, t) {
        Ok(branch) => {
            assert!(branch.starts_with(refs::SHADOW_BRANCH_PREFIX));
            assert!(refs::check_ref_name(&format!("refs/heads/{branch}")).is_ok());
            assert!(refs::parse_shadow_branch_name(&branch).is_some());
        }
        Err(e) => assert_eq!(e.code(), agent_checkpoint::ErrorCode::InvalidArgument),
    }
    let _ = refs::parse_shadow_branch_name(s);
    let _ = refs::is_shadow_branch(s);
    assert_eq!(refs::hash_worktree_id(t).len(), 6);

    let pieces = prompts::split_prompts(text);
    let joined = prompts::join_prompts(&pieces);
    assert_eq!(prompts::split_prompts(&joined), pieces);
});
