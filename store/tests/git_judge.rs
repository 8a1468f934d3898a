//! The real `git` judges what the store writes: refs, trees, documents,
//! messages, history shape and repository integrity.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::Arc;

use agent_checkpoint::ErrorCode;
use agent_checkpoint_store::{
    Attribution, Author, Backend, NoRedaction, SessionWrite, Store, StoreOptions, Summary,
    Timestamp,
};
use common::TestRepo;

const ULID: &str = "01KVBJCWYA4YW6J5M9GP655HZN";
const ULID_REF: &str = "refs/entire/checkpoints/ZN/01KVBJCWYA4YW6J5M9GP655HZN";
const LEGACY: &str = "a1b2c3d4e5f6";
const ULID2: &str = "01KVBJCWYA4YW6J5M9GP655HZP";
const LEGACY_REF: &str = "refs/entire/checkpoints/f6/a1b2c3d4e5f6";
const V1: &str = "refs/heads/entire/checkpoints/v1";

fn store(repo: &TestRepo, backend: Backend) -> Store {
    Store::open_with(
        repo.path(),
        StoreOptions::new(Arc::new(NoRedaction)).backend(backend),
    )
    .unwrap()
}

fn session(id: &str, sid: &str) -> SessionWrite {
    SessionWrite::new(id, sid)
        .agent("Claude Code")
        .prompt("do it")
        .transcript(format!("{{\"session\":\"{sid}\"}}\n").into_bytes())
        .files_touched([format!("{sid}.txt")])
}

fn parents(repo: &TestRepo, rev: &str) -> Vec<Vec<String>> {
    repo.git(&["rev-list", "--parents", rev])
        .lines()
        .map(|l| l.split(' ').skip(1).map(str::to_owned).collect())
        .collect()
}

#[test]
fn git_refs_backend_writes_what_git_reads() {
    common::each_format(git_refs_backend_writes_what_git_reads_in);
}

fn git_refs_backend_writes_what_git_reads_in() {
    let repo = TestRepo::new();
    let store = store(&repo, Backend::GitRefs);
    let first = store.write_session(&session(ULID, "s1")).unwrap();
    let second = store.write_session(&session(ULID, "s2")).unwrap();
    store.write_session(&session(LEGACY, "s1")).unwrap();
    repo.assert_fsck();
    assert_eq!(repo.refs(), [ULID_REF, LEGACY_REF]);
    assert_eq!(repo.git(&["rev-parse", ULID_REF]).trim(), second.commit);
    assert_eq!((first.session_index, second.session_index), (0, 1));

    // The ref's tree root is the checkpoint; the history is linear from an orphan.
    assert_eq!(
        parents(&repo, ULID_REF),
        [vec![first.commit.clone()], vec![]]
    );
    let root = repo.cat(&format!("{ULID_REF}:metadata.json"));
    assert_eq!(root, store.read_raw(ULID).unwrap());
    assert!(root.ends_with("}\n"));
    let summary = store.read(ULID).unwrap();
    assert_eq!(summary.checkpoints_count, 2);
    assert_eq!(
        summary.files_touched,
        Some(vec!["s1.txt".to_owned(), "s2.txt".to_owned()])
    );
    assert_eq!(
        summary.sessions.as_ref().unwrap()[1].metadata,
        "/1/metadata.json"
    );
    let meta = repo.cat(&format!("{ULID_REF}:1/metadata.json"));
    assert!(meta.contains("\"session_id\": \"s2\""), "{meta}");
    assert_eq!(repo.cat(&format!("{ULID_REF}:1/prompt.txt")), "do it");
    assert_eq!(
        repo.cat(&format!("{ULID_REF}:1/full.jsonl")),
        "{\"session\":\"s2\"}\n"
    );
    let hash = repo.cat(&format!("{ULID_REF}:1/content_hash.txt"));
    assert!(hash.starts_with("sha256:") && hash.len() == 71 && !hash.ends_with('\n'));

    let log = repo.git(&["log", "--format=%B%x00", ULID_REF]);
    assert_eq!(
        log,
        "Checkpoint: 01KVBJCWYA4YW6J5M9GP655HZN\n\nEntire-Session: s2\nEntire-Strategy: manual-commit\nEntire-Agent: Claude Code\n\0\n\
         Checkpoint: 01KVBJCWYA4YW6J5M9GP655HZN\n\nEntire-Session: s1\nEntire-Strategy: manual-commit\nEntire-Agent: Claude Code\n\0\n"
    );
    // git itself parses the trailers.
    let trailers = repo.git(&[
        "log",
        "-1",
        "--format=%(trailers:key=Entire-Session,valueonly)",
        ULID_REF,
    ]);
    assert_eq!(trailers.trim(), "s2");
    // Author and committer come from the repository's config.
    assert_eq!(
        repo.git(&["log", "-1", "--format=%an <%ae>|%cn <%ce>", ULID_REF])
            .trim(),
        "Test User <test@example.com>|Test User <test@example.com>"
    );

    // Every ref that moved was queued for push, in the git common dir.
    let queue =
        std::fs::read_to_string(repo.path().join(".git/entire-checkpoint-push-queue.jsonl"))
            .unwrap();
    assert_eq!(queue.lines().filter(|l| l.contains(ULID_REF)).count(), 2);
    assert_eq!(queue.lines().filter(|l| l.contains(LEGACY_REF)).count(), 1);
    // The lock files live in the common dir, in an owner-only directory
    // (the repository is not shared; see sharing.rs for shared modes).
    let lock_dir = repo.path().join(".git/entire-persistent-ref-locks");
    assert!(lock_dir
        .join("refs_entire_checkpoints_ZN_01KVBJCWYA4YW6J5M9GP655HZN.lock")
        .exists());
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            std::fs::metadata(&lock_dir).unwrap().permissions().mode() & 0o777,
            0o700
        );
    }
}

#[test]
fn git_branch_backend_seeds_the_branch_and_shares_structure() {
    common::each_format(git_branch_backend_seeds_the_branch_and_shares_structure_in);
}

fn git_branch_backend_seeds_the_branch_and_shares_structure_in() {
    let repo = TestRepo::new();
    let store = store(&repo, Backend::GitBranch);
    store.write_session(&session("a1b2c3d4e5f6", "s1")).unwrap();
    store.write_session(&session("a1ffffffffff", "s1")).unwrap();
    store.write_session(&session("b2c3d4e5f6a1", "s1")).unwrap();
    repo.assert_fsck();
    assert_eq!(repo.refs(), [V1]);
    // Seed: a parentless commit of the empty tree.
    let log: Vec<String> = repo
        .git(&["log", "--format=%s", V1])
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(log.last().unwrap(), "Initialize sessions branch");
    assert_eq!(log.len(), 4);
    let seed = repo
        .git(&["rev-list", "--max-parents=0", V1])
        .trim()
        .to_owned();
    assert_eq!(
        repo.git(&["rev-parse", &format!("{seed}^{{tree}}")]).trim(),
        repo.empty_tree()
    );
    assert_eq!(parents(&repo, V1).iter().filter(|p| p.len() > 1).count(), 0);

    // Structural sharing: the last write touched only shard b2; everything
    // else keeps its hash.
    let same = |path: &str| {
        assert_eq!(
            repo.git(&["rev-parse", &format!("{V1}~1:{path}")]),
            repo.git(&["rev-parse", &format!("{V1}:{path}")]),
            "{path}"
        );
    };
    same("a1");
    same("a1/b2c3d4e5f6");
    same("a1/ffffffffff/0");
    // The previous write touched shard a1 only, and there only its own dir.
    assert_eq!(
        repo.git(&["rev-parse", &format!("{V1}~2:a1/b2c3d4e5f6")]),
        repo.git(&["rev-parse", &format!("{V1}~1:a1/b2c3d4e5f6")])
    );
    let names = repo.git(&["ls-tree", "--name-only", V1]);
    assert_eq!(names, "a1\nb2\n");
    let root = repo.cat(&format!("{V1}:a1/b2c3d4e5f6/metadata.json"));
    assert!(
        root.contains("\"metadata\": \"/a1/b2c3d4e5f6/0/metadata.json\""),
        "{root}"
    );
    assert_eq!(
        store.read("a1ffffffffff").unwrap().checkpoint_id,
        "a1ffffffffff"
    );
    let listed: Vec<String> = store
        .list()
        .unwrap()
        .into_iter()
        .map(|c| c.checkpoint_id)
        .collect();
    assert_eq!(listed.len(), 3);
    // Entries that are not checkpoint directories are skipped by the walk.
    let junk = repo.blob(b"{}");
    let tree = repo
        .git(&["rev-parse", &format!("{V1}^{{tree}}")])
        .trim()
        .to_owned();
    let mut entries: Vec<(String, String, String, String)> = repo
        .git(&["ls-tree", &tree])
        .lines()
        .map(|l| {
            let (meta, name) = l.split_once('\t').unwrap();
            let mut m = meta.split(' ');
            (
                m.next().unwrap().to_owned(),
                m.next().unwrap().to_owned(),
                m.next().unwrap().to_owned(),
                name.to_owned(),
            )
        })
        .collect();
    entries.push((
        "100644".into(),
        "blob".into(),
        junk,
        "generation.json".into(),
    ));
    let borrowed: Vec<(&str, &str, &str, &str)> = entries
        .iter()
        .map(|(a, b, c, d)| (a.as_str(), b.as_str(), c.as_str(), d.as_str()))
        .collect();
    let new_tree = repo.mktree(&borrowed);
    let tip = repo.git(&["rev-parse", V1]).trim().to_owned();
    let commit = repo.commit_tree(&new_tree, Some(&tip), "add junk");
    repo.git(&["update-ref", V1, &commit, &tip]);
    assert_eq!(store.list().unwrap().len(), 3);
}

#[test]
fn a_linked_worktree_shares_the_common_dir() {
    common::each_format(a_linked_worktree_shares_the_common_dir_in);
}

fn a_linked_worktree_shares_the_common_dir_in() {
    let repo = TestRepo::new();
    repo.git(&["commit", "-q", "--allow-empty", "-m", "base"]);
    let linked = repo.path().join("linked");
    repo.git(&["worktree", "add", "-q", linked.to_str().unwrap()]);
    let sub = linked.join("deep/dir");
    std::fs::create_dir_all(&sub).unwrap();
    let from_linked = Store::open(&sub).unwrap();
    assert_eq!(
        std::fs::canonicalize(from_linked.common_dir()).unwrap(),
        std::fs::canonicalize(repo.path().join(".git")).unwrap()
    );
    from_linked.write_session(&session(ULID, "s1")).unwrap();
    let from_main = Store::open(repo.path()).unwrap();
    assert_eq!(from_main.read(ULID).unwrap().checkpoint_id, ULID);
    assert!(repo
        .path()
        .join(".git/entire-persistent-ref-locks")
        .is_dir());
    assert!(repo
        .path()
        .join(".git/entire-checkpoint-push-queue.jsonl")
        .is_file());
    repo.assert_fsck();
    let elsewhere = tempfile::tempdir().unwrap();
    assert_eq!(
        Store::open(elsewhere.path()).unwrap_err().code(),
        ErrorCode::NotARepository
    );
}

fn loose_objects(repo: &TestRepo) -> String {
    repo.git(&["count-objects", "-v"])
}

#[test]
fn bad_input_is_a_typed_error_and_writes_nothing() {
    common::each_format(bad_input_is_a_typed_error_and_writes_nothing_in);
}

fn bad_input_is_a_typed_error_and_writes_nothing_in() {
    let repo = TestRepo::new();
    let store = store(&repo, Backend::GitRefs);
    let before = loose_objects(&repo);
    let cases: Vec<(SessionWrite, ErrorCode)> = vec![
        (session("a1b2c3d4e5f", "s"), ErrorCode::InvalidCheckpointId),
        (
            session("../../etc/passwd", "s"),
            ErrorCode::InvalidCheckpointId,
        ),
        (session(ULID, "a/b"), ErrorCode::InvalidArgument),
        (session(ULID, ".."), ErrorCode::InvalidArgument),
        (session(ULID, "x..y"), ErrorCode::InvalidArgument),
        (session(ULID, "line\nbreak"), ErrorCode::InvalidArgument),
        (session(ULID, ""), ErrorCode::InvalidArgument),
        (
            session(ULID, "s").task(agent_checkpoint_store::TaskInfo::new("t/../x")),
            ErrorCode::InvalidArgument,
        ),
        (
            session(ULID, "s").task(agent_checkpoint_store::TaskInfo::new("\u{1b}[31m")),
            ErrorCode::InvalidArgument,
        ),
        (
            session(ULID, "s").agent("evil\nEntire-Session: forged"),
            ErrorCode::InvalidArgument,
        ),
        (
            session(ULID, "s").snapshot("{not a snapshot"),
            ErrorCode::MalformedSnapshot,
        ),
        (
            session(ULID, "s").prompt_attributions("{"),
            ErrorCode::InvalidArgument,
        ),
        (
            session(ULID, "s").skill_events("{}"),
            ErrorCode::InvalidArgument,
        ),
        (
            SessionWrite::new(ULID, "s").transcript(vec![0xff, 0xfe]),
            ErrorCode::InvalidArgument,
        ),
    ];
    for (write, code) in cases {
        let err = store.write_session(&write).unwrap_err();
        assert_eq!(err.code(), code, "{write:?}: {err}");
    }
    assert!(repo.refs().is_empty());
    // Refused before any object was written.
    assert_eq!(loose_objects(&repo), before);
    assert!(!repo
        .path()
        .join(".git/entire-checkpoint-push-queue.jsonl")
        .exists());
}

#[test]
fn reads_route_by_id_kind_and_report_typed_errors() {
    common::each_format(reads_route_by_id_kind_and_report_typed_errors_in);
}

fn reads_route_by_id_kind_and_report_typed_errors_in() {
    let repo = TestRepo::new();
    let refs = store(&repo, Backend::GitRefs);
    let branch = store(&repo, Backend::GitBranch);
    branch.write_session(&session(LEGACY, "on-branch")).unwrap();
    // A legacy ID: refs first, then the branch.
    assert_eq!(
        refs.read_session(LEGACY, 0).unwrap().metadata.session_id,
        "on-branch"
    );
    // Once it also has a ref, the ref wins for the refs store.
    refs.write_session(&session(LEGACY, "on-ref")).unwrap();
    assert_eq!(
        refs.read_session(LEGACY, 0).unwrap().metadata.session_id,
        "on-ref"
    );
    assert_eq!(
        branch.read_session(LEGACY, 0).unwrap().metadata.session_id,
        "on-branch"
    );
    // A ULID is read from refs only, whatever the store's backend.
    refs.write_session(&session(ULID, "u")).unwrap();
    assert_eq!(branch.read(ULID).unwrap().checkpoint_id, ULID);
    // The list shows each ID once, the ref winning.
    let list = refs.list().unwrap();
    assert_eq!(list.len(), 2);
    let legacy = list.iter().find(|c| c.checkpoint_id == LEGACY).unwrap();
    assert_eq!(
        (legacy.backend, legacy.session_ids.as_slice()),
        (Backend::GitRefs, &["on-ref".to_owned()][..])
    );

    let missing = "01KVBJCWYA4YW6J5M9GP655HZM";
    assert_eq!(refs.read(missing).unwrap_err().code(), ErrorCode::NotFound);
    assert_eq!(
        refs.read_raw("ffffffffffff").unwrap_err().code(),
        ErrorCode::NotFound
    );
    assert_eq!(
        refs.read_session(ULID, 1).unwrap_err().code(),
        ErrorCode::NotFound
    );
    assert_eq!(
        refs.read("nope").unwrap_err().code(),
        ErrorCode::InvalidCheckpointId
    );
    refs.write_session(&SessionWrite::new(ULID, "quiet"))
        .unwrap();
    // Written without a transcript: an absent field, not an error.
    let quiet = refs.read_session(ULID, 1).unwrap();
    assert_eq!(quiet.transcript, None);
    assert_eq!(quiet.metadata.session_id, "quiet");
    assert_eq!(
        refs.read_session_metadata(ULID, 1).unwrap().session_id,
        "quiet"
    );
    assert_eq!(refs.snapshot(ULID).unwrap(), None);
    assert_eq!(
        refs.rollback(
            ULID,
            repo.path(),
            &agent_checkpoint::ParseOptions::default(),
            &agent_checkpoint::RollbackOptions::default()
        )
        .unwrap_err()
        .code(),
        ErrorCode::NotFound
    );
}

#[test]
fn unreadable_objects_are_corruption_not_absence() {
    common::each_format(unreadable_objects_are_corruption_not_absence_in);
}

fn unreadable_objects_are_corruption_not_absence_in() {
    let repo = TestRepo::new();
    let store = store(&repo, Backend::GitRefs);
    store.write_session(&session(ULID, "s1")).unwrap();
    let blob = repo
        .git(&["rev-parse", &format!("{ULID_REF}:metadata.json")])
        .trim()
        .to_owned();
    repo.remove_loose(&blob);
    for err in [
        store.read(ULID).unwrap_err(),
        store.read_raw(ULID).unwrap_err(),
    ] {
        assert_eq!(err.code(), ErrorCode::CorruptObject, "{err}");
    }
    // The listing goes on, the checkpoint in it as damaged, with the code.
    let listed = store.list().unwrap();
    let damaged = listed[0].damaged.as_ref().unwrap();
    assert_eq!(damaged.code, ErrorCode::CorruptObject, "{}", damaged.reason);
    // A ref naming a commit that does not exist.
    repo.ref_to_missing_commit(LEGACY_REF);
    let err = store.read(LEGACY).unwrap_err();
    assert_eq!(err.code(), ErrorCode::CorruptObject, "{err}");
    // A session listed by the summary whose directory is gone.
    let other = TestRepo::new();
    let store = Store::open(other.path()).unwrap();
    store.write_session(&session(ULID, "s1")).unwrap();
    let root = other
        .git(&["rev-parse", &format!("{ULID_REF}:metadata.json")])
        .trim()
        .to_owned();
    let tree = other.mktree(&[("100644", "blob", &root, "metadata.json")]);
    let tip = other.git(&["rev-parse", ULID_REF]).trim().to_owned();
    let commit = other.commit_tree(&tree, Some(&tip), "break");
    other.git(&["update-ref", ULID_REF, &commit]);
    assert_eq!(
        store.read_session(ULID, 0).unwrap_err().code(),
        ErrorCode::CorruptObject
    );
    assert_eq!(
        store
            .write_session(&session(ULID, "s2"))
            .unwrap_err()
            .code(),
        ErrorCode::CorruptObject
    );
}

#[test]
fn slot_zero_of_another_session_is_never_overwritten() {
    common::each_format(slot_zero_of_another_session_is_never_overwritten_in);
}

fn slot_zero_of_another_session_is_never_overwritten_in() {
    let repo = TestRepo::new();
    let store = store(&repo, Backend::GitRefs);
    let meta = repo.blob(
        b"{\"session_id\":\"someone-else\",\"checkpoint_id\":\"01KVBJCWYA4YW6J5M9GP655HZN\"}\n",
    );
    let slot = repo.mktree(&[("100644", "blob", &meta, "metadata.json")]);
    let tree = repo.mktree(&[("040000", "tree", &slot, "0")]);
    let commit = repo.commit_tree(&tree, None, "odd shape");
    repo.git(&["update-ref", ULID_REF, &commit]);
    let err = store.write_session(&session(ULID, "s1")).unwrap_err();
    assert_eq!(err.code(), ErrorCode::Conflict, "{err}");
    assert_eq!(repo.git(&["rev-parse", ULID_REF]).trim(), commit);
}

#[test]
fn transcripts_are_chunked_at_line_boundaries_and_joined_back() {
    common::each_format(transcripts_are_chunked_at_line_boundaries_and_joined_back_in);
}

fn transcripts_are_chunked_at_line_boundaries_and_joined_back_in() {
    let repo = TestRepo::new();
    let store = Store::open_with(
        repo.path(),
        StoreOptions::new(Arc::new(NoRedaction)).transcript_chunk_bytes(64),
    )
    .unwrap();
    let transcript: String = (0..40)
        .map(|i| format!("{{\"line\":{i},\"pad\":\"xxxxxxxxxx\"}}\n"))
        .collect();
    store
        .write_session(&SessionWrite::new(ULID, "s1").transcript(transcript.clone().into_bytes()))
        .unwrap();
    let names = repo.git(&["ls-tree", "--name-only", &format!("{ULID_REF}:0")]);
    let chunks: Vec<&str> = names
        .lines()
        .filter(|n| n.starts_with("full.jsonl"))
        .collect();
    assert!(chunks.len() > 10, "{names}");
    assert_eq!(chunks[0], "full.jsonl");
    assert_eq!(chunks[1], "full.jsonl.001");
    for name in &chunks {
        let chunk = repo.cat(&format!("{ULID_REF}:0/{name}"));
        assert!(
            chunk.len() <= 64 && chunk.ends_with('\n'),
            "{name}: {chunk:?}"
        );
    }
    let content = store.read_session(ULID, 0).unwrap();
    assert_eq!(content.transcript.as_deref(), Some(transcript.as_bytes()));
    use sha2::Digest;
    let want = format!(
        "sha256:{}",
        hex::encode(sha2::Sha256::digest(transcript.as_bytes()))
    );
    assert_eq!(repo.cat(&format!("{ULID_REF}:0/content_hash.txt")), want);
    repo.assert_fsck();
}

#[test]
fn backfills_update_in_place_with_their_messages() {
    common::each_format(backfills_update_in_place_with_their_messages_in);
}

fn backfills_update_in_place_with_their_messages_in() {
    let repo = TestRepo::new();
    let store = store(&repo, Backend::GitBranch);
    store.write_session(&session(LEGACY, "s1")).unwrap();
    store
        .write_session(&SessionWrite::new(LEGACY, "s2"))
        .unwrap();
    store
        .backfill_transcript(
            LEGACY,
            "s2",
            b"{\"final\":true}\n",
            Some(&["later prompt".to_owned()]),
        )
        .unwrap();
    let mut summary = Summary::new("intent", "outcome");
    summary.friction = Some(vec!["slow tests".into()]);
    store.backfill_summary(LEGACY, "s1", &summary).unwrap();
    let mut attribution = Attribution::default();
    attribution.calculated_at = Timestamp::parse("2026-01-02T03:04:05Z").unwrap();
    attribution.agent_lines = 5;
    attribution.agent_percentage = 50.0;
    store.backfill_attribution(LEGACY, &attribution).unwrap();
    repo.assert_fsck();
    let subjects: Vec<String> = repo
        .git(&["log", "--format=%s", V1])
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(
        subjects[..3],
        [
            "Update checkpoint summary for a1b2c3d4e5f6",
            "Update summary for checkpoint a1b2c3d4e5f6 (session: s1)",
            "Finalize transcript for Checkpoint: a1b2c3d4e5f6",
        ]
    );
    let s2 = store.read_session(LEGACY, 1).unwrap();
    assert_eq!(s2.transcript.as_deref(), Some(&b"{\"final\":true}\n"[..]));
    assert_eq!(s2.prompts, ["later prompt"]);
    let root = store.read(LEGACY).unwrap();
    let paths = &root.sessions.as_ref().unwrap()[1];
    assert_eq!(paths.transcript, "/a1/b2c3d4e5f6/1/full.jsonl");
    assert_eq!(paths.prompt, "/a1/b2c3d4e5f6/1/prompt.txt");
    assert_eq!(root.combined_attribution.as_ref().unwrap().agent_lines, 5);
    assert!(repo
        .cat(&format!("{V1}:a1/b2c3d4e5f6/metadata.json"))
        .contains("\"agent_percentage\": 50\n"));
    assert_eq!(
        store
            .read_session_metadata(LEGACY, 0)
            .unwrap()
            .summary
            .unwrap()
            .friction,
        Some(vec!["slow tests".into()])
    );
    assert_eq!(
        store
            .backfill_summary(LEGACY, "nobody", &summary)
            .unwrap_err()
            .code(),
        ErrorCode::NotFound
    );
    assert_eq!(
        store
            .backfill_attribution("ffffffffffff", &attribution)
            .unwrap_err()
            .code(),
        ErrorCode::NotFound
    );
}

#[test]
fn a_held_ref_lock_exhausts_the_attempts_and_moves_nothing() {
    common::each_format(a_held_ref_lock_exhausts_the_attempts_and_moves_nothing_in);
}

fn a_held_ref_lock_exhausts_the_attempts_and_moves_nothing_in() {
    let repo = TestRepo::new();
    let store = store(&repo, Backend::GitRefs);
    store.write_session(&session(ULID, "s1")).unwrap();
    let tip = repo.git(&["rev-parse", ULID_REF]);
    // Another git program holds the snapshot ref's lock (reftable: the
    // lock of the whole ref stack): the checkpoint ref, moved in the same
    // transaction, must not move either.
    let lock = if repo.format.reftable() {
        repo.path().join(".git/reftable/tables.list.lock")
    } else {
        repo.path()
            .join(".git/refs/entire/snapshots/ZN/01KVBJCWYA4YW6J5M9GP655HZN.lock")
    };
    std::fs::create_dir_all(lock.parent().unwrap()).unwrap();
    std::fs::write(&lock, b"").unwrap();
    // A live holder: its lock is never older than the abandonment age.
    let held = std::fs::File::options().write(true).open(&lock).unwrap();
    held.set_modified(std::time::SystemTime::now() + std::time::Duration::from_secs(3600))
        .unwrap();
    let snapshot = || {
        agent_checkpoint::capture(
            &agent_checkpoint::MemRoot::new(),
            ["a.txt"],
            &Default::default(),
        )
        .unwrap()
    };
    let err = store
        .write_session(&session(ULID, "s2").snapshot(snapshot()))
        .unwrap_err();
    if repo.format.reftable() {
        // The lock of every ref: reported by path.
        assert_eq!(err.code(), ErrorCode::Io, "{err}");
        assert_eq!(err.path(), Some(lock.to_str().unwrap()), "{err}");
    } else {
        assert_eq!(err.code(), ErrorCode::RefBusy, "{err}");
        assert!(err.to_string().contains("16 attempts"), "{err}");
    }
    assert_eq!(repo.git(&["rev-parse", ULID_REF]), tip);
    assert_eq!(repo.refs(), [ULID_REF]);
    held.set_modified(std::time::SystemTime::now() - std::time::Duration::from_secs(60))
        .unwrap();
    if repo.format.reftable() {
        // git's own to judge (a compaction may hold it long): never removed.
        let err = store
            .write_session(&session(ULID, "s2").snapshot(snapshot()))
            .unwrap_err();
        assert_eq!(err.path(), Some(lock.to_str().unwrap()), "{err}");
        assert!(lock.exists());
        std::fs::remove_file(&lock).unwrap();
    }
    // Once a ref's lock is old enough to be abandoned, the writer clears it.
    store
        .write_session(&session(ULID, "s2").snapshot(snapshot()))
        .unwrap();
    assert!(!lock.exists());
    assert_eq!(repo.refs().len(), 2);
    repo.assert_fsck();
}

#[test]
fn authors_default_to_the_config_and_fall_back_to_unknown() {
    common::each_format(authors_default_to_the_config_and_fall_back_to_unknown_in);
}

fn authors_default_to_the_config_and_fall_back_to_unknown_in() {
    let repo = TestRepo::new();
    let store = store(&repo, Backend::GitRefs);
    store
        .write_session(&session(ULID, "s1").author(Author::new("Agent Smith", "smith@example.com")))
        .unwrap();
    assert_eq!(
        repo.git(&["log", "-1", "--format=%an <%ae>", ULID_REF])
            .trim(),
        "Agent Smith <smith@example.com>"
    );
    let bare = TestRepo::new();
    bare.git(&["config", "--unset", "user.name"]);
    bare.git(&["config", "--unset", "user.email"]);
    // The store (in this process) sees the global config of this process's
    // HOME: expect that identity if there is one, else the fallback.
    let global = |key: &str| {
        let out = std::process::Command::new("git")
            .args(["config", "--global", "--get", key])
            .output()
            .unwrap();
        Some(String::from_utf8(out.stdout).unwrap().trim().to_owned()).filter(|s| !s.is_empty())
    };
    let want = format!(
        "{} <{}>",
        global("user.name").unwrap_or_else(|| "Unknown".into()),
        global("user.email").unwrap_or_else(|| "unknown@local".into())
    );
    let store = Store::open(bare.path()).unwrap();
    store.write_session(&session(ULID, "s1")).unwrap();
    let who = bare.git(&["log", "-1", "--format=%an <%ae>", ULID_REF]);
    assert_eq!(who.trim(), want);
    bare.assert_fsck();
}

#[test]
fn a_stale_packed_refs_lock_blocks_only_the_writes_that_need_packed_refs() {
    common::each_format(a_stale_packed_refs_lock_blocks_only_the_writes_that_need_packed_refs_in);
}

fn a_stale_packed_refs_lock_blocks_only_the_writes_that_need_packed_refs_in() {
    let repo = TestRepo::new();
    std::fs::write(repo.path().join("a.txt"), "a\n").unwrap();
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "base"]);
    let refs = store(&repo, Backend::GitRefs);
    refs.write_session(&session(ULID, "s1")).unwrap();
    repo.git(&["pack-refs", "--all"]);
    // Left by a `git pack-refs` killed an hour ago.
    let lock = repo.path().join(".git/packed-refs.lock");
    std::fs::File::create(&lock)
        .unwrap()
        .set_modified(std::time::SystemTime::now() - std::time::Duration::from_secs(3600))
        .unwrap();
    // Creating and moving loose refs does not need packed-refs (git's
    // `update-ref` works too): a packed ref moves, new refs are made.
    let snapshot = agent_checkpoint::capture(
        &agent_checkpoint::MemRoot::new(),
        ["a.txt"],
        &Default::default(),
    )
    .unwrap();
    let second = refs
        .write_session(&session(ULID, "s2").snapshot(snapshot))
        .unwrap();
    assert_eq!(repo.git(&["rev-parse", ULID_REF]).trim(), second.commit);
    store(&repo, Backend::GitBranch)
        .write_session(&session(LEGACY, "s1"))
        .unwrap();
    std::fs::write(repo.path().join("a.txt"), "b\n").unwrap();
    let step = refs
        .shadow_step(&agent_checkpoint_store::ShadowStep::new("s1"))
        .unwrap();
    assert_eq!(repo.refs().len(), 5, "{:?}", repo.refs());
    // Deleting a ref does need it (files): the error names the lock.
    refs.write_session(&SessionWrite::new(ULID2, "s1")).unwrap();
    let branch = format!("refs/heads/{}", step.branch);
    match refs.shadow_clean() {
        Ok(cleaned) => {
            assert!(repo.format.reftable(), "{cleaned:?}");
            assert_eq!(cleaned.len(), 1);
        }
        Err(err) => {
            assert!(!repo.format.reftable(), "{err}");
            assert_eq!(err.code(), ErrorCode::Io, "{err}");
            assert_eq!(err.path(), lock.to_str(), "{err}");
            assert!(repo.refs().contains(&branch));
            // Never removed by the store: git's to judge.
            assert!(lock.exists());
            std::fs::remove_file(&lock).unwrap();
            assert_eq!(refs.shadow_clean().unwrap().len(), 1);
        }
    }
    assert!(!repo.refs().contains(&branch));
    std::fs::remove_file(&lock).ok();
    repo.assert_fsck();
}

#[test]
fn a_symbolic_checkpoint_ref_is_listed_as_damaged_not_the_end_of_the_listing() {
    common::each_format(a_symbolic_checkpoint_ref_is_listed_as_damaged_in);
}

fn a_symbolic_checkpoint_ref_is_listed_as_damaged_in() {
    let repo = TestRepo::new();
    let store = store(&repo, Backend::GitRefs);
    store.write_session(&session(ULID, "s1")).unwrap();
    // A teammate's (or a tool's) symbolic ref at a valid checkpoint ref name.
    repo.git(&["symbolic-ref", LEGACY_REF, ULID_REF]);
    let listed = store.list().unwrap();
    assert_eq!(listed.len(), 2, "{listed:?}");
    let sound = listed.iter().find(|c| c.checkpoint_id == ULID).unwrap();
    assert!(sound.damaged.is_none(), "{sound:?}");
    let bad = listed.iter().find(|c| c.checkpoint_id == LEGACY).unwrap();
    let damage = bad.damaged.as_ref().unwrap();
    assert_eq!(damage.code, ErrorCode::CorruptObject, "{}", damage.reason);
}
