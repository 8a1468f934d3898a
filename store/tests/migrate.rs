//! `Store::migrate` (v1 branch -> git-refs) and the mirror topology
//! (git-refs primary, git-branch mirror): every document read back the
//! same, history kept, idempotent, a dry run changes nothing, a differing
//! ref is a conflict left alone, a mirror failure leaves the primary write.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use agent_checkpoint::ErrorCode;
use agent_checkpoint_store::{
    Backend, MigrateOptions, MirrorOutcome, NoRedaction, SessionWrite, Store, StoreOptions,
    TaskInfo, BRANCH_REF,
};
use common::TestRepo;

fn options(backend: Backend) -> StoreOptions {
    StoreOptions::new(Arc::new(NoRedaction)).backend(backend)
}

fn store(repo: &TestRepo, backend: Backend) -> Store {
    Store::open_with(repo.path(), options(backend)).unwrap()
}

fn mirrored(repo: &TestRepo) -> Store {
    Store::open_with(
        repo.path(),
        options(Backend::GitRefs).mirror(Backend::GitBranch),
    )
    .unwrap()
}

/// The `n`th legacy ID.
fn legacy(n: usize) -> String {
    format!("{:012x}", 0x00a1_b2c3_0000_u64 + n as u64 * 7919)
}

fn session(id: &str, sid: &str, n: usize) -> SessionWrite {
    SessionWrite::new(id, sid)
        .agent("Claude Code")
        .prompt(format!("prompt {n} of {sid}"))
        .transcript(format!("{{\"type\":\"user\",\"n\":{n}}}\n").into_bytes())
        .files_touched([format!("src/f{n}.rs")])
}

/// Every document of every listed checkpoint, as a reader sees it: the
/// listing (less the backend), the root summary with its session paths
/// made relative to the checkpoint, each session's metadata.json, prompts
/// and transcript.
type Documents = BTreeMap<String, Vec<String>>;

fn documents(store: &Store) -> Documents {
    let mut out = BTreeMap::new();
    for info in store.list().unwrap() {
        assert!(info.damaged.is_none(), "{info:?}");
        let id = info.checkpoint_id.clone();
        let (shard, rest) = id.split_at(2);
        let raw = store
            .read_raw(&id)
            .unwrap()
            .replace(&format!("\"/{shard}/{rest}/"), "\"/");
        let mut docs = vec![
            format!(
                "{:?} {:?} {} {:?}",
                info.session_ids, info.created_at, info.agent, info.files_touched
            ),
            raw,
        ];
        for slot in 0..info.session_ids.len() {
            let s = store.read_session(&id, slot).unwrap();
            docs.push(s.metadata_json);
            docs.push(format!("{:?}", s.prompts));
            docs.push(format!("{:?}", s.transcript));
        }
        out.insert(id, docs);
    }
    out
}

fn backends(store: &Store) -> Vec<Backend> {
    let mut b: Vec<Backend> = store.list().unwrap().iter().map(|i| i.backend).collect();
    b.dedup();
    b
}

#[test]
fn migrate_1000_branch_checkpoints_keeps_every_document_and_history() {
    let repo = TestRepo::new();
    let branch = store(&repo, Backend::GitBranch);
    for n in 0..1000 {
        let id = legacy(n);
        branch.write_session(&session(&id, "s-a", n)).unwrap();
        if n % 10 == 0 {
            let mut second = session(&id, "s-b", n + 1);
            if n % 20 == 0 {
                second = second.task(TaskInfo::new(format!("toolu_{n}")));
            }
            branch.write_session(&second).unwrap();
        }
    }
    let before = documents(&branch);
    assert_eq!(before.len(), 1000);
    let branch_tip = repo.git(&["rev-parse", BRANCH_REF]);

    let refs = store(&repo, Backend::GitRefs);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let progress = {
        let seen = Arc::clone(&seen);
        Arc::new(move |done: usize, all: usize| seen.lock().unwrap().push((done, all)))
    };
    let report = refs
        .migrate(Backend::GitRefs, &MigrateOptions::new().progress(progress))
        .unwrap();
    assert_eq!(report.on_branch, 1000);
    assert_eq!(report.migrated.len(), 1000, "{:?}", report.skipped);
    assert!(report.skipped.is_empty() && report.already_present.is_empty());
    assert_eq!(seen.lock().unwrap().last(), Some(&(1000, 1000)));

    // Every checkpoint now reads from refs, with the same documents.
    assert_eq!(backends(&refs), [Backend::GitRefs]);
    assert_eq!(documents(&refs), before);
    let refs_now = repo.refs();
    assert_eq!(
        refs_now
            .iter()
            .filter(|r| r.starts_with("refs/entire/checkpoints/"))
            .count(),
        1000
    );

    // History: one commit per version on the branch, messages kept, the
    // task trailer's path relocated.
    let two = legacy(0);
    let ref_name = format!("refs/entire/checkpoints/{}/{two}", &two[10..]);
    assert_eq!(report.migrated[0].checkpoint_id, two);
    assert_eq!(report.migrated[0].ref_name, ref_name);
    assert_eq!(report.migrated[0].commits, 2);
    assert_eq!(repo.git(&["rev-list", "--count", &ref_name]).trim(), "2");
    let message = repo.git(&["log", "-1", "--format=%B", &ref_name]);
    assert!(
        message.starts_with(&format!("Checkpoint: {two}\n")),
        "{message}"
    );
    assert!(
        message.contains("Entire-Metadata-Task: tasks/toolu_0"),
        "{message}"
    );
    let one = legacy(1);
    let one_ref = format!("refs/entire/checkpoints/{}/{one}", &one[10..]);
    assert_eq!(repo.git(&["rev-list", "--count", &one_ref]).trim(), "1");
    // The summary's paths are the refs layout's.
    assert!(refs
        .read_raw(&two)
        .unwrap()
        .contains("\"/1/metadata.json\""));

    // The branch is untouched; a second run moves nothing.
    assert_eq!(repo.git(&["rev-parse", BRANCH_REF]), branch_tip);
    let again = refs
        .migrate(Backend::GitRefs, &MigrateOptions::new())
        .unwrap();
    assert!(again.migrated.is_empty());
    assert_eq!(again.already_present.len(), 1000);
    assert_eq!(repo.refs(), refs_now);
    repo.assert_fsck();
}

fn count_objects(repo: &TestRepo) -> String {
    repo.git(&["count-objects", "-v"])
}

#[test]
fn dry_run_changes_nothing() {
    let repo = TestRepo::new();
    let branch = store(&repo, Backend::GitBranch);
    for n in 0..5 {
        branch.write_session(&session(&legacy(n), "s", n)).unwrap();
    }
    let refs_before = repo.git(&["for-each-ref"]);
    let objects_before = count_objects(&repo);
    let refs = store(&repo, Backend::GitRefs);
    let report = refs
        .migrate(Backend::GitRefs, &MigrateOptions::new().dry_run(true))
        .unwrap();
    assert!(report.dry_run);
    assert_eq!(report.migrated.len(), 5);
    assert_eq!(repo.git(&["for-each-ref"]), refs_before);
    assert_eq!(count_objects(&repo), objects_before);
    let queue = repo.path().join(".git/entire-checkpoint-push-queue.jsonl");
    assert!(!queue.exists(), "a dry run queues nothing");
    // Then the real run does what the dry run said, and queues the new refs.
    let real = refs
        .migrate(Backend::GitRefs, &MigrateOptions::new())
        .unwrap();
    assert_eq!(real.migrated, report.migrated);
    let queued = std::fs::read_to_string(&queue).unwrap();
    for m in &real.migrated {
        assert!(queued.contains(&m.ref_name), "{} not queued", m.ref_name);
    }
}

#[test]
fn a_differing_ref_is_a_conflict_left_alone() {
    let repo = TestRepo::new();
    let id = legacy(3);
    store(&repo, Backend::GitBranch)
        .write_session(&session(&id, "s", 1))
        .unwrap();
    let refs = store(&repo, Backend::GitRefs);
    refs.write_session(&session(&id, "other", 2)).unwrap();
    let ref_name = format!("refs/entire/checkpoints/{}/{id}", &id[10..]);
    let tip = repo.git(&["rev-parse", &ref_name]);
    let report = refs
        .migrate(Backend::GitRefs, &MigrateOptions::new())
        .unwrap();
    assert!(report.migrated.is_empty());
    assert_eq!(report.skipped.len(), 1);
    assert_eq!(report.skipped[0].checkpoint_id, id);
    assert_eq!(report.skipped[0].code, ErrorCode::Conflict);
    assert_eq!(repo.git(&["rev-parse", &ref_name]), tip);
}

#[test]
fn migrate_only_goes_to_refs() {
    let repo = TestRepo::new();
    let err = store(&repo, Backend::GitRefs)
        .migrate(Backend::GitBranch, &MigrateOptions::new())
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidArgument);
    // No branch: nothing to do.
    let report = store(&repo, Backend::GitRefs)
        .migrate(Backend::GitRefs, &MigrateOptions::new())
        .unwrap();
    assert_eq!(report.on_branch, 0);
}

#[test]
fn the_mirror_topology_writes_both_and_reads_the_primary() {
    let repo = TestRepo::new();
    let err = Store::open_with(
        repo.path(),
        options(Backend::GitBranch).mirror(Backend::GitBranch),
    )
    .unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidArgument);

    // A legacy checkpoint that so far lives on the branch only.
    let id = legacy(7);
    let branch = store(&repo, Backend::GitBranch);
    branch.write_session(&session(&id, "old", 1)).unwrap();

    let store = mirrored(&repo);
    assert_eq!(store.mirror(), Some(Backend::GitBranch));
    let written = store.write_session(&session(&id, "new", 2)).unwrap();
    // The branch's session was adopted first: the primary has both.
    assert_eq!(written.session_index, 1);
    assert!(written.ref_name.starts_with("refs/entire/checkpoints/"));
    let mirror = written.mirror.unwrap();
    assert_eq!(mirror.backend, Backend::GitBranch);
    assert!(
        matches!(mirror.outcome, MirrorOutcome::Written { .. }),
        "{mirror:?}"
    );
    assert_eq!(store.list().unwrap()[0].backend, Backend::GitRefs);
    assert_eq!(store.list().unwrap()[0].session_ids, ["old", "new"]);
    // The mirror holds the same documents.
    assert_eq!(documents(&branch), documents(&store));
    assert!(branch.read_raw(&id).unwrap().contains(&format!(
        "\"/{}/{}/1/metadata.json\"",
        &id[..2],
        &id[2..]
    )));
    // So a migrate finds it already there.
    let report = store
        .migrate(Backend::GitRefs, &MigrateOptions::new())
        .unwrap();
    assert_eq!(report.already_present, std::slice::from_ref(&id));

    // A ULID is not mirrored: the branch holds legacy IDs only.
    let ulid = "01KVBJCWYA4YW6J5M9GP655HZN";
    let written = store.write_session(&session(ulid, "u", 3)).unwrap();
    assert!(matches!(
        written.mirror.unwrap().outcome,
        MirrorOutcome::Skipped { .. }
    ));
}

#[test]
fn a_mirror_failure_leaves_the_primary_and_the_next_write_repairs_it() {
    let repo = TestRepo::new();
    let logged = Arc::new(Mutex::new(Vec::<String>::new()));
    let log = {
        let logged = Arc::clone(&logged);
        Arc::new(move |line: &str| logged.lock().unwrap().push(line.to_owned()))
    };
    let store = Store::open_with(
        repo.path(),
        options(Backend::GitRefs)
            .mirror(Backend::GitBranch)
            .log(log),
    )
    .unwrap();
    let id = legacy(9);
    // The branch names a commit that is not there: every branch write fails.
    repo.ref_to_missing_commit(BRANCH_REF);
    let written = store.write_session(&session(&id, "a", 1)).unwrap();
    let MirrorOutcome::Failed { code, .. } = written.mirror.unwrap().outcome else {
        panic!("the mirror write should fail");
    };
    assert_eq!(code, ErrorCode::CorruptObject);
    // Logged: the mirror copy not adopted, then not written.
    assert_eq!(
        logged.lock().unwrap().len(),
        2,
        "{:?}",
        logged.lock().unwrap()
    );
    assert_eq!(
        store.read_session(&id, 0).unwrap().prompts,
        ["prompt 1 of a"]
    );

    // The branch is fixed; the next write copies the whole checkpoint.
    repo.git(&["update-ref", "-d", BRANCH_REF]);
    let written = store.write_session(&session(&id, "b", 2)).unwrap();
    assert!(matches!(
        written.mirror.unwrap().outcome,
        MirrorOutcome::Written { .. }
    ));
    let branch = self::store(&repo, Backend::GitBranch);
    assert_eq!(branch.list().unwrap()[0].session_ids, ["a", "b"]);
    assert_eq!(documents(&branch), documents(&store));
    repo.assert_fsck();
}

#[test]
fn a_summary_that_would_change_beyond_its_paths_is_skipped_and_the_run_goes_on() {
    let repo = TestRepo::new();
    let branch = store(&repo, Backend::GitBranch);
    let (odd, fine) = (legacy(11), legacy(12));
    branch.write_session(&session(&odd, "s", 1)).unwrap();
    // The checkpoint `odd` gets a summary field this version does not know
    // (a later tool's), on a new branch commit.
    let (shard, rest) = odd.split_at(2);
    let dir = format!("{BRANCH_REF}:{shard}/{rest}");
    let summary = repo.cat(&format!("{dir}/metadata.json"));
    let summary = summary.replacen("{\n", "{\n  \"future_field\": true,\n", 1);
    let blob = repo.blob(summary.as_bytes());
    let slot = repo.git(&["rev-parse", &format!("{dir}/0")]);
    let cp = repo.mktree(&[
        ("040000", "tree", slot.trim(), "0"),
        ("100644", "blob", &blob, "metadata.json"),
    ]);
    let shard_tree = repo.mktree(&[("040000", "tree", &cp, rest)]);
    let root = repo.mktree(&[("040000", "tree", &shard_tree, shard)]);
    let tip = repo.git(&["rev-parse", BRANCH_REF]);
    let commit = repo.commit_tree(&root, Some(tip.trim()), &format!("Checkpoint: {odd}"));
    repo.git(&["update-ref", BRANCH_REF, &commit]);
    branch.write_session(&session(&fine, "s", 2)).unwrap();

    let report = store(&repo, Backend::GitRefs)
        .migrate(Backend::GitRefs, &MigrateOptions::new())
        .unwrap();
    assert_eq!(report.on_branch, 2);
    assert_eq!(report.skipped.len(), 1, "{report:?}");
    assert_eq!(report.skipped[0].checkpoint_id, odd);
    assert_eq!(report.skipped[0].code, ErrorCode::Conflict);
    assert_eq!(report.migrated.len(), 1);
    assert_eq!(report.migrated[0].checkpoint_id, fine);
    let refs = repo.refs();
    assert!(!refs.iter().any(|r| r.ends_with(&odd)), "{refs:?}");
    assert!(refs.iter().any(|r| r.ends_with(&fine)), "{refs:?}");
}
