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
    // The lock files live in the common dir, in a 0750 directory.
    let lock_dir = repo.path().join(".git/entire-persistent-ref-locks");
    assert!(lock_dir
        .join("refs_entire_checkpoints_ZN_01KVBJCWYA4YW6J5M9GP655HZN.lock")
        .exists());
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            std::fs::metadata(&lock_dir).unwrap().permissions().mode() & 0o777,
            0o750
        );
    }
}

#[test]
fn git_branch_backend_seeds_the_branch_and_shares_structure() {
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
        "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
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
    assert_eq!(
        refs.read_session(ULID, 1).unwrap_err().code(),
        ErrorCode::NoTranscript
    );
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
    let repo = TestRepo::new();
    let store = store(&repo, Backend::GitRefs);
    store.write_session(&session(ULID, "s1")).unwrap();
    let blob = repo
        .git(&["rev-parse", &format!("{ULID_REF}:metadata.json")])
        .trim()
        .to_owned();
    std::fs::remove_file(
        repo.path()
            .join(".git/objects")
            .join(&blob[..2])
            .join(&blob[2..]),
    )
    .unwrap();
    for err in [
        store.read(ULID).unwrap_err(),
        store.read_raw(ULID).unwrap_err(),
        store.list().unwrap_err(),
    ] {
        assert_eq!(err.code(), ErrorCode::CorruptObject, "{err}");
    }
    // A ref naming a commit that does not exist.
    let ref_file = repo.path().join(".git").join(LEGACY_REF);
    std::fs::create_dir_all(ref_file.parent().unwrap()).unwrap();
    std::fs::write(&ref_file, "1111111111111111111111111111111111111111\n").unwrap();
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
    assert_eq!(content.transcript, transcript.as_bytes());
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
    assert_eq!(s2.transcript, b"{\"final\":true}\n");
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
    let repo = TestRepo::new();
    let store = store(&repo, Backend::GitRefs);
    store.write_session(&session(ULID, "s1")).unwrap();
    let tip = repo.git(&["rev-parse", ULID_REF]);
    // Another git program holds the snapshot ref's lock: the checkpoint ref,
    // moved in the same transaction, must not move either.
    let lock = repo
        .path()
        .join(".git/refs/entire/snapshots/ZN/01KVBJCWYA4YW6J5M9GP655HZN.lock");
    std::fs::create_dir_all(lock.parent().unwrap()).unwrap();
    std::fs::write(&lock, b"").unwrap();
    // A live holder: its lock is never older than the abandonment age.
    let held = std::fs::File::options().write(true).open(&lock).unwrap();
    held.set_modified(std::time::SystemTime::now() + std::time::Duration::from_secs(3600))
        .unwrap();
    let snapshot = agent_checkpoint::capture(
        &agent_checkpoint::MemRoot::new(),
        ["a.txt"],
        &Default::default(),
    )
    .unwrap();
    let err = store
        .write_session(&session(ULID, "s2").snapshot(snapshot))
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::RefBusy, "{err}");
    assert!(err.to_string().contains("16 attempts"), "{err}");
    assert_eq!(repo.git(&["rev-parse", ULID_REF]), tip);
    assert_eq!(repo.refs(), [ULID_REF]);
    // Once the lock is old enough to be abandoned, the writer clears it.
    held.set_modified(std::time::SystemTime::now() - std::time::Duration::from_secs(60))
        .unwrap();
    let snapshot = agent_checkpoint::capture(
        &agent_checkpoint::MemRoot::new(),
        ["a.txt"],
        &Default::default(),
    )
    .unwrap();
    store
        .write_session(&session(ULID, "s2").snapshot(snapshot))
        .unwrap();
    assert!(!lock.exists());
    assert_eq!(repo.refs().len(), 2);
    repo.assert_fsck();
}

#[test]
fn authors_default_to_the_config_and_fall_back_to_unknown() {
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
