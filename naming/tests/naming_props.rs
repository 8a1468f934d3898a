//! Property tests of the naming layer: round trips and "never panics".

use agent_checkpoint_naming::id::{self, IdKind, MAX_ULID_TIMESTAMP_MS};
use agent_checkpoint_naming::{prompts, refs};
use proptest::prelude::*;

const LEGACY_GRAMMAR: &str = "[0-9a-f]{12}";
const ULID_GRAMMAR: &str = "[0-7][0-9A-HJKMNP-TV-Z]{25}";

/// Any string: ASCII-heavy, non-ASCII, control characters, and long ones.
fn any_text() -> impl Strategy<Value = String> {
    prop_oneof![
        ".{0,40}",
        "[a-f0-9A-Z/\\-]{0,30}",
        "\\PC{0,64}",
        proptest::collection::vec(any::<char>(), 0..4096)
            .prop_map(|chars| chars.into_iter().collect()),
        "(refs/entire/checkpoints/|entire/)?.{0,30}",
    ]
}

/// Whether `path` is `s` with one `/` inserted after its first 2 to 5 bytes.
fn is_split_once(path: &str, s: &str) -> bool {
    path.len() == s.len() + 1
        && (2..=5).any(|i| {
            path.get(..i) == s.get(..i)
                && path.get(i..=i) == Some("/")
                && path.get(i + 1..) == s.get(i..)
        })
}

fn exercise_everything(s: &str) {
    let kind = id::checkpoint_id_kind(s);
    assert_eq!(
        id::validate_checkpoint_id(s).is_ok(),
        kind != IdKind::Unknown
    );
    assert_eq!(id::ulid_timestamp_ms(s).is_some(), kind == IdKind::Ulid);
    let short = id::display_short(s);
    assert!(s.starts_with(&short));
    let shard = id::shard_for(s);
    assert!(s.ends_with(&shard));
    let path = id::checkpoint_path(s);
    assert!(path == s || is_split_once(&path, s), "{path:?} from {s:?}");
    assert_eq!(refs::ref_name(s).is_ok(), kind != IdKind::Unknown);
    if let Some(parsed) = refs::parse_ref(s) {
        assert!(s.ends_with(&parsed));
    }
    // Any input: a valid ref name, or a typed error; never a panic.
    match refs::shadow_branch_name(s, s) {
        Ok(branch) => {
            assert!(branch.starts_with(refs::SHADOW_BRANCH_PREFIX));
            assert!(refs::check_ref_name(&format!("refs/heads/{branch}")).is_ok());
        }
        Err(e) => assert_eq!(e.code(), agent_checkpoint::ErrorCode::InvalidArgument),
    }
    let _ = refs::parse_shadow_branch_name(s);
    let _ = refs::is_shadow_branch(s);
    assert_eq!(refs::hash_worktree_id(s).len(), refs::WORKTREE_HASH_LEN);
    let split = prompts::split_prompts(s);
    assert!(prompts::join_prompts(&split).len() <= s.len());
}

proptest! {
    // Failures print their minimal input; nothing is written into the repo.
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn nothing_panics_on_arbitrary_text(s in any_text()) {
        exercise_everything(&s);
    }

    #[test]
    fn legacy_grammar_round_trips_through_refs(s in LEGACY_GRAMMAR) {
        prop_assert_eq!(id::checkpoint_id_kind(&s), IdKind::Legacy);
        let name = refs::ref_name(&s).unwrap();
        prop_assert_eq!(refs::parse_ref(&name), Some(s));
    }

    #[test]
    fn ulid_grammar_round_trips_through_refs(s in ULID_GRAMMAR) {
        prop_assert_eq!(id::checkpoint_id_kind(&s), IdKind::Ulid);
        let name = refs::ref_name(&s).unwrap();
        prop_assert_eq!(refs::parse_ref(&name), Some(s));
    }

    #[test]
    fn lowercase_or_overflowing_ulids_are_rejected(s in ULID_GRAMMAR, first in "[89A-HJKMNP-TV-Z]") {
        let lower = s.to_lowercase();
        if lower != s {
            prop_assert_eq!(id::checkpoint_id_kind(&lower), IdKind::Unknown);
        }
        let overflow = format!("{first}{}", &s[1..]);
        prop_assert_eq!(id::checkpoint_id_kind(&overflow), IdKind::Unknown);
    }

    #[test]
    fn generated_ulids_validate_and_keep_their_timestamp(ts in 0..=MAX_ULID_TIMESTAMP_MS) {
        let id = id::new_ulid(Some(ts)).unwrap();
        prop_assert_eq!(id.kind(), IdKind::Ulid);
        prop_assert_eq!(id::ulid_timestamp_ms(id.as_str()), Some(ts));
        let name = refs::ref_name(id.as_str()).unwrap();
        prop_assert_eq!(refs::parse_ref(&name), Some(id.as_str().to_owned()));
    }

    #[test]
    fn timestamps_past_48_bits_are_refused(ts in (MAX_ULID_TIMESTAMP_MS + 1)..=u64::MAX) {
        prop_assert!(id::new_ulid(Some(ts)).is_err());
    }

    #[test]
    fn shadow_branches_parse_back(commit in "[0-9a-f]{1,40}", worktree in any_text()) {
        let name = refs::shadow_branch_name(&commit, &worktree).unwrap();
        let prefix: String = commit.chars().take(refs::SHADOW_COMMIT_PREFIX_LEN).collect();
        let parsed = refs::parse_shadow_branch_name(&name).unwrap();
        prop_assert_eq!(&parsed.commit_prefix, &prefix);
        prop_assert_eq!(&parsed.worktree_hash, &refs::hash_worktree_id(&worktree));
        prop_assert_eq!(refs::is_shadow_branch(&name), prefix.len() == refs::SHADOW_COMMIT_PREFIX_LEN);
    }

    #[test]
    fn split_prompts_only_drops_trailing_separators(s in any_text(), seps in 0usize..3) {
        let content = format!("{s}{}", prompts::PROMPT_SEPARATOR.repeat(seps));
        let joined = prompts::join_prompts(&prompts::split_prompts(&content));
        let rest = content.strip_prefix(joined.as_str());
        prop_assert!(rest.is_some());
        let rest = rest.unwrap_or_default();
        prop_assert!(rest.is_empty() || rest.replace(prompts::PROMPT_SEPARATOR, "").is_empty());
    }

    // Without '-' no separator can form inside or across prompts, so the
    // only loss is trailing empty prompts.
    #[test]
    fn prompts_round_trip(list in proptest::collection::vec("[a-z \\n]{0,12}", 0..6)) {
        let mut expected = list.clone();
        while expected.last().is_some_and(String::is_empty) {
            expected.pop();
        }
        prop_assert_eq!(prompts::split_prompts(&prompts::join_prompts(&list)), expected);
    }
}

#[test]
fn new_ids_have_their_kind() {
    for _ in 0..1000 {
        let legacy = id::new_checkpoint_id().unwrap();
        assert_eq!(legacy.kind(), IdKind::Legacy);
        assert_eq!(id::validate_checkpoint_id(legacy.as_str()).unwrap(), legacy);
        let ulid = id::new_ulid(None).unwrap();
        assert_eq!(ulid.kind(), IdKind::Ulid);
        let name = refs::ref_name(ulid.as_str()).unwrap();
        assert_eq!(refs::parse_ref(&name).as_deref(), Some(ulid.as_str()));
    }
}

#[test]
fn new_ulids_use_the_current_time() {
    let before = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    let ts = id::ulid_timestamp_ms(id::new_ulid(None).unwrap().as_str()).unwrap();
    assert!(ts >= before && ts < before + 60_000);
}
