//! `agent-checkpoint store ...`: checkpoints kept in git (the
//! `agent-checkpoint-store` crate). Errors print `error[<code>]: <message>`
//! and exit 2, like every other command; `rollback` exits 1 when not ok.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use agent_checkpoint::Error;
use agent_checkpoint::ParseOptions;
use agent_checkpoint_store::{Backend, SessionWrite, Store, StoreOptions};
use serde_json::{json, value::RawValue};

use crate::snapshot_commands::PlanArgs;
use crate::{files, output};

/// Options shared by every `store` subcommand.
#[derive(Debug, clap::Args)]
pub struct StoreArgs {
    /// The repository: any directory of its working tree (default: the current directory's).
    #[arg(long, global = true, value_name = "DIR")]
    repo: Option<PathBuf>,
    /// The store: where `write` puts new checkpoints, and where a legacy
    /// 12-hex ID is looked up (git-refs: the refs, then the branch;
    /// git-branch: the branch only).
    #[arg(long, global = true, value_enum, default_value = "git-refs")]
    backend: BackendArg,
    /// Also copy every write to this backend after the store's own (the
    /// rollout topology: `--backend git-refs --mirror git-branch`); reads
    /// prefer the store's own backend.
    #[arg(long, global = true, value_enum, value_name = "BACKEND")]
    mirror: Option<BackendArg>,
    #[command(subcommand)]
    command: StoreCommand,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum BackendArg {
    /// One ref per checkpoint under refs/entire/checkpoints/.
    GitRefs,
    /// The entire/checkpoints/v1 branch (legacy 12-hex IDs).
    GitBranch,
}

impl From<BackendArg> for Backend {
    fn from(arg: BackendArg) -> Backend {
        match arg {
            BackendArg::GitRefs => Backend::GitRefs,
            BackendArg::GitBranch => Backend::GitBranch,
        }
    }
}

#[derive(Debug, clap::Subcommand)]
enum StoreCommand {
    /// Write one session into checkpoint ID; prints the new commit id.
    Write {
        /// The checkpoint ID (legacy 12-hex or ULID).
        #[arg(long)]
        id: String,
        /// The session ID.
        #[arg(long)]
        session: String,
        /// The strategy (default manual-commit).
        #[arg(long)]
        strategy: Option<String>,
        /// The agent.
        #[arg(long)]
        agent: Option<String>,
        /// The model.
        #[arg(long)]
        model: Option<String>,
        /// A prompt (repeat for several, in order).
        #[arg(long = "prompt", value_name = "TEXT")]
        prompts: Vec<String>,
        /// The transcript file (JSONL; `-` for stdin).
        #[arg(long, value_name = "FILE")]
        transcript: Option<PathBuf>,
        /// A file the session touched (repeat for several).
        #[arg(long = "file", value_name = "PATH")]
        files: Vec<String>,
        /// The capture snapshot of the batch (`-` for stdin), kept locally for rollback.
        #[arg(long, value_name = "FILE")]
        snapshot: Option<PathBuf>,
    },
    /// Print the root metadata.json of checkpoint ID as stored.
    Show {
        /// The checkpoint ID.
        id: String,
    },
    /// Print session N of checkpoint ID as JSON {"metadata", "prompts", "transcript"}
    /// (`transcript` is null for a session written without one).
    Session {
        /// The checkpoint ID.
        id: String,
        /// The session's slot (0-based).
        #[arg(long, default_value_t = 0)]
        index: usize,
    },
    /// List the checkpoints, newest first (a JSON array with `--json`); unreadable ones as damaged.
    List,
    /// Roll the working tree back to checkpoint ID's undo snapshot; exits 1 when not ok.
    Rollback {
        /// The checkpoint ID.
        id: String,
        /// The root the snapshot was captured under (default: the repository's working tree,
        /// refusing with root_mismatch a snapshot captured under another directory).
        #[arg(long, value_name = "DIR")]
        root: Option<PathBuf>,
        /// Skip fsync of files and directories (faster, not crash-safe).
        #[arg(long)]
        no_durable: bool,
        /// Allow snapshot keys with a `.git` component.
        #[arg(long)]
        allow_git_dir: bool,
        #[command(flatten)]
        plan: PlanArgs,
        /// Write the redo snapshot here; rolling it back brings the batch back.
        #[arg(long, value_name = "FILE")]
        redo_out: Option<PathBuf>,
    },
    /// Show what `rollback` would do to each path, touching nothing.
    Plan {
        /// The checkpoint ID.
        id: String,
        /// The root the snapshot was captured under (default: the repository's working tree,
        /// refusing with root_mismatch a snapshot captured under another directory).
        #[arg(long, value_name = "DIR")]
        root: Option<PathBuf>,
        /// Allow snapshot keys with a `.git` component.
        #[arg(long)]
        allow_git_dir: bool,
        #[command(flatten)]
        plan: PlanArgs,
    },
    /// Copy every checkpoint of the entire/checkpoints/v1 branch to git-refs
    /// (IDs, sessions, summaries and history kept), verifying each document;
    /// re-runnable, never changes the branch; exits 1 when any was skipped.
    Migrate {
        /// The backend to migrate to (only git-refs).
        #[arg(long, value_enum)]
        to: BackendArg,
        /// Report what would be migrated; write nothing.
        #[arg(long)]
        dry_run: bool,
    },
    #[command(flatten)]
    Remote(crate::store_remote::RemoteCommand),
    #[command(flatten)]
    Storage(crate::store_storage::StorageCommand),
}

/// Runs one `store` subcommand; `quiet` silences the progress of `push`
/// and `fetch`.
///
/// # Errors
/// Every store error; printed by `main` as `error[<code>]: <message>`.
pub fn run(args: StoreArgs, json: bool, quiet: bool) -> Result<ExitCode, Error> {
    let mut out = Vec::new();
    let code = run_to(args, json, quiet, &mut out);
    std::io::stdout()
        .lock()
        .write_all(&out)
        .map_err(|e| Error::io("<stdout>", e))?;
    code
}

fn run_to(args: StoreArgs, json: bool, quiet: bool, out: &mut Vec<u8>) -> Result<ExitCode, Error> {
    use std::io::IsTerminal;
    let tty = std::io::stderr().is_terminal();
    let progress = crate::store_remote::Progress {
        err: &mut std::io::stderr(),
        tty,
        quiet,
    };
    run_with(args, json, out, progress)
}

/// Runs one `store` subcommand, progress (of `push` and `fetch`) to `progress`.
pub(crate) fn run_with(
    args: StoreArgs,
    json: bool,
    out: &mut Vec<u8>,
    progress: crate::store_remote::Progress<'_>,
) -> Result<ExitCode, Error> {
    let mut options = StoreOptions::default().backend(args.backend.into());
    if let Some(mirror) = args.mirror {
        options = options.mirror(mirror.into());
    }
    let repo = args.repo.unwrap_or_else(|| PathBuf::from("."));
    let store = Store::open_with(&repo, options)?;
    match args.command {
        StoreCommand::Write {
            id,
            session,
            strategy,
            agent,
            model,
            prompts,
            transcript,
            files,
            snapshot,
        } => {
            let mut write = SessionWrite::new(id, session).prompts(prompts);
            write.strategy = strategy;
            write.agent = agent.unwrap_or_default();
            write.model = model.unwrap_or_default();
            if !files.is_empty() {
                write.files_touched = Some(files);
            }
            if let Some(path) = transcript {
                write.transcript = Some(files::read_bytes(&path)?);
            }
            if let Some(path) = snapshot {
                write.snapshot = Some(files::read_snapshot(&path)?);
            }
            let written = store.write_session(&write)?;
            if json {
                // `SessionWritten`'s own serialisation: the keys the
                // bindings' write results have.
                let text = serde_json::to_string(&written)
                    .map_err(|e| Error::io("<stdout>", std::io::Error::other(e)))?;
                writeln!(out, "{text}").map_err(stdout_error)?;
            } else {
                writeln!(out, "{}", written.commit).map_err(stdout_error)?;
            }
            Ok(ExitCode::SUCCESS)
        }
        StoreCommand::Show { id } => {
            out.extend_from_slice(store.read_raw(&id)?.as_bytes());
            Ok(ExitCode::SUCCESS)
        }
        StoreCommand::Session { id, index } => {
            let content = store.read_session(&id, index)?;
            let metadata = RawValue::from_string(content.metadata_json.trim_end().to_owned())
                .map_err(|e| Error::CorruptObject {
                    what: format!("session {index} of checkpoint {id}"),
                    reason: e.to_string(),
                })?;
            let doc = json!({
                "metadata": metadata,
                "prompts": content.prompts,
                // null for a session written without one.
                "transcript": content.transcript.as_deref().map(String::from_utf8_lossy),
            });
            writeln!(out, "{doc}").map_err(stdout_error)?;
            Ok(ExitCode::SUCCESS)
        }
        StoreCommand::List => {
            let list = store.list()?;
            if json {
                // `CheckpointInfo`'s own serialisation: every field, as the
                // library documents it.
                let text = serde_json::to_string(&list)
                    .map_err(|e| Error::io("<stdout>", std::io::Error::other(e)))?;
                writeln!(out, "{text}").map_err(stdout_error)?;
            } else {
                for c in &list {
                    if let Some(d) = &c.damaged {
                        // Listed, not hidden, and not the end of the listing.
                        writeln!(
                            out,
                            "{}  damaged  {}: {}",
                            c.checkpoint_id,
                            d.code.as_str(),
                            d.reason
                        )
                        .map_err(stdout_error)?;
                        continue;
                    }
                    writeln!(
                        out,
                        "{}  {}  {}  {} session(s)",
                        c.checkpoint_id,
                        c.created_at,
                        if c.agent.is_empty() { "-" } else { &c.agent },
                        c.session_ids.len()
                    )
                    .map_err(stdout_error)?;
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        StoreCommand::Rollback {
            id,
            root,
            no_durable,
            allow_git_dir,
            plan,
            redo_out,
        } => {
            let options = plan.rollback_options(!no_durable, redo_out.is_some())?;
            let parse = ParseOptions::allowing_git_dir(allow_git_dir);
            // Without `--root`, the store refuses a snapshot taken under
            // another directory than the working tree (`root_mismatch`).
            let report = match root {
                Some(root) => store.rollback(&id, &root, &parse, &options)?,
                None => store.rollback_work_tree(&id, &parse, &options)?,
            };
            if let (Some(path), Some(redo)) = (redo_out.as_deref(), &report.redo) {
                files::write_output(Some(path), redo.as_str())?;
            }
            if json {
                out.extend_from_slice(output::to_json(&report)?.as_bytes());
            } else {
                out.extend_from_slice(output::format_report(&report).as_bytes());
            }
            Ok(if report.ok() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }
        StoreCommand::Plan {
            id,
            root,
            allow_git_dir,
            plan,
        } => {
            let parse = ParseOptions::allowing_git_dir(allow_git_dir);
            let options = plan.options()?;
            let plan = match root {
                Some(root) => store.plan_rollback(&id, &root, &parse, &options)?,
                None => store.plan_rollback_work_tree(&id, &parse, &options)?,
            };
            if json {
                out.extend_from_slice(output::to_json(&plan)?.as_bytes());
            } else {
                out.extend_from_slice(output::format_plan(&plan).as_bytes());
            }
            Ok(ExitCode::SUCCESS)
        }
        StoreCommand::Remote(command) => {
            crate::store_remote::run(&store, command, json, out, progress)
        }
        StoreCommand::Storage(command) => crate::store_storage::run(&store, command, json, out),
        StoreCommand::Migrate { to, dry_run } => crate::store_migrate::run(
            &store,
            to.into(),
            dry_run,
            json,
            out,
            progress.tty,
            progress.quiet,
        ),
    }
}

/// The mirror's part of a write, as `store write --json` prints it.
fn stdout_error(e: std::io::Error) -> Error {
    Error::io("<stdout>", e)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use clap::Parser;
    use std::path::Path;

    fn git(dir: &Path, args: &[&str]) -> String {
        crate::test_git::git_with_home(dir, &dir.join(".home"), args)
    }

    fn repo() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        git(dir.path(), &["init", "-q"]);
        git(dir.path(), &["config", "user.name", "T"]);
        git(dir.path(), &["config", "user.email", "t@example.com"]);
        dir
    }

    /// Runs `agent-checkpoint store --repo <dir> <args>`: (exit code, stdout) or the error.
    fn store(dir: &Path, args: &[&str]) -> Result<(ExitCode, String), Error> {
        let mut argv = vec!["agent-checkpoint", "store", "--repo", dir.to_str().unwrap()];
        argv.extend(args);
        let cli = crate::Cli::try_parse_from(argv).unwrap();
        let crate::Command::Store(args) = cli.command else {
            panic!("not a store command");
        };
        let mut out = Vec::new();
        let code = run_to(args, cli.json, cli.quiet, &mut out)?;
        Ok((code, String::from_utf8(out).unwrap()))
    }

    const ULID: &str = "01KVBJCWYA4YW6J5M9GP655HZN";

    #[test]
    fn du_and_gc() {
        let dir = repo();
        let snap = dir.path().join("snap.json");
        let work = tempfile::tempdir().unwrap();
        std::fs::write(work.path().join("f.txt"), "before\n").unwrap();
        let root = agent_checkpoint::CapRoot::open(
            work.path(),
            agent_checkpoint::root::ambient_authority(),
        )
        .unwrap();
        let text = agent_checkpoint::capture(&root, ["f.txt"], &Default::default())
            .unwrap()
            .into_string();
        std::fs::write(&snap, text).unwrap();
        for id in ["a00000000001", "a00000000002"] {
            let args = ["write", "--id", id, "--session", "s", "--snapshot"];
            let mut argv: Vec<&str> = args.to_vec();
            argv.push(snap.to_str().unwrap());
            store(dir.path(), &argv).unwrap();
        }
        let (code, out) = store(dir.path(), &["du", "--json"]).unwrap();
        assert_eq!(code, ExitCode::SUCCESS);
        let du: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(du["snapshots"]["refs"], 2);
        assert!(du["total_bytes"].as_u64().unwrap() > 0);

        let (_, out) = store(dir.path(), &["gc", "--keep", "1", "--dry-run"]).unwrap();
        assert!(
            out.contains("would remove refs/entire/snapshots/01/a00000000001"),
            "{out}"
        );
        let (_, out) = store(dir.path(), &["du", "--json"]).unwrap();
        let du: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(du["snapshots"]["refs"], 2, "a dry run removes nothing");
        // Objects are deleted at once only under `gc.pruneExpire=now` (git's
        // default, 2 weeks, keeps young ones).
        let config = std::process::Command::new("git")
            .args(["config", "gc.pruneExpire", "now"])
            .current_dir(dir.path())
            .status()
            .unwrap();
        assert!(config.success());
        let (_, out) = store(dir.path(), &["--json", "gc", "--keep", "1"]).unwrap();
        let gc: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(gc["removed_snapshots"][0]["reason"], "beyond_retention");
        assert!(gc["objects_removed"].as_u64().unwrap() > 0);
        let err = store(dir.path(), &["gc", "--older-than", "soon"]).unwrap_err();
        assert_eq!(err.code().as_str(), "invalid_argument");
    }

    #[test]
    fn write_show_session_list() {
        let dir = repo();
        let transcript = dir.path().join("t.jsonl");
        std::fs::write(&transcript, "{\"type\":\"user\"}\n").unwrap();
        let (_, commit) = store(
            dir.path(),
            &[
                "write",
                "--id",
                ULID,
                "--session",
                "s1",
                "--agent",
                "Claude Code",
                "--model",
                "m",
                "--prompt",
                "one",
                "--prompt",
                "two",
                "--transcript",
                transcript.to_str().unwrap(),
                "--file",
                "src/a.rs",
                "--file",
                "src/b.rs",
            ],
        )
        .unwrap();
        let head = git(
            dir.path(),
            &[
                "rev-parse",
                "refs/entire/checkpoints/ZN/01KVBJCWYA4YW6J5M9GP655HZN",
            ],
        );
        assert_eq!(commit, head);

        let (_, shown) = store(dir.path(), &["show", ULID]).unwrap();
        assert_eq!(
            shown,
            git(
                dir.path(),
                &["cat-file", "-p", &format!("{}:metadata.json", head.trim())]
            )
        );

        let (_, session) = store(dir.path(), &["session", ULID, "--index", "0"]).unwrap();
        let v: serde_json::Value = serde_json::from_str(&session).unwrap();
        assert_eq!(v["metadata"]["session_id"], "s1");
        assert_eq!(v["metadata"]["model"], "m");
        assert_eq!(v["prompts"], json!(["one", "two"]));
        assert_eq!(v["transcript"], "{\"type\":\"user\"}\n");

        store(
            dir.path(),
            &[
                "--backend",
                "git-branch",
                "write",
                "--id",
                "a1b2c3d4e5f6",
                "--session",
                "s9",
            ],
        )
        .unwrap();
        let (_, listed) = store(dir.path(), &["list", "--json"]).unwrap();
        let v: serde_json::Value = serde_json::from_str(&listed).unwrap();
        let items = v.as_array().unwrap();
        assert_eq!(items.len(), 2);
        assert_eq!(items[0]["checkpoint_id"], "a1b2c3d4e5f6", "newest first");
        assert_eq!(items[1]["session_ids"], json!(["s1"]));
        assert_eq!(items[1]["agent"], "Claude Code");
        assert!(items[1]["created_at"].as_str().unwrap().ends_with('Z'));
        // Every field of `CheckpointInfo`, none more (`imported` was left out).
        for item in items {
            let keys: Vec<&str> = item
                .as_object()
                .unwrap()
                .keys()
                .map(String::as_str)
                .collect();
            let mut want = agent_checkpoint_store::CheckpointInfo::FIELDS.to_vec();
            want.sort_unstable();
            let mut keys = keys;
            keys.sort_unstable();
            assert_eq!(keys, want);
        }
        assert_eq!(items[1]["imported"], false);
        let (_, plain) = store(dir.path(), &["list"]).unwrap();
        assert_eq!(plain.lines().count(), 2);

        // `write --json` is `SessionWritten`'s own serialisation: every
        // field by its name (`ref_name`, as the bindings say; it was `ref`).
        let (_, written) = store(
            dir.path(),
            &["--json", "write", "--id", ULID, "--session", "s2"],
        )
        .unwrap();
        let v: serde_json::Value = serde_json::from_str(&written).unwrap();
        let mut keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        keys.sort_unstable();
        let mut want = agent_checkpoint_store::SessionWritten::FIELDS.to_vec();
        want.sort_unstable();
        assert_eq!(keys, want);
        assert_eq!(v["session_index"], 1);
        assert_eq!(
            v["ref_name"],
            "refs/entire/checkpoints/ZN/01KVBJCWYA4YW6J5M9GP655HZN"
        );
        assert_eq!(v["snapshot_commit"], serde_json::Value::Null);
    }

    #[test]
    fn a_session_without_a_transcript_reads_back() {
        let dir = repo();
        store(
            dir.path(),
            &["write", "--id", ULID, "--session", "s", "--prompt", "p1"],
        )
        .unwrap();
        let (_, session) = store(dir.path(), &["session", ULID]).unwrap();
        let v: serde_json::Value = serde_json::from_str(&session).unwrap();
        assert_eq!(v["transcript"], serde_json::Value::Null, "{v}");
        assert_eq!(v["prompts"], json!(["p1"]));
        assert_eq!(v["metadata"]["session_id"], "s");
    }

    #[test]
    fn errors_carry_their_codes() {
        let dir = repo();
        let code = |args: &[&str]| store(dir.path(), args).unwrap_err().code().as_str();
        assert_eq!(code(&["show", ULID]), "not_found");
        assert_eq!(code(&["show", "nope"]), "invalid_checkpoint_id");
        assert_eq!(
            code(&["write", "--id", ULID, "--session", "a/b"]),
            "invalid_argument"
        );
        assert_eq!(
            code(&[
                "--backend",
                "git-branch",
                "write",
                "--id",
                ULID,
                "--session",
                "s"
            ]),
            "invalid_argument"
        );
        store(dir.path(), &["write", "--id", ULID, "--session", "s"]).unwrap();
        assert_eq!(code(&["session", ULID, "--index", "1"]), "not_found");
        assert_eq!(code(&["rollback", ULID]), "not_found");
        let elsewhere = tempfile::tempdir().unwrap();
        assert_eq!(
            store(elsewhere.path(), &["list"])
                .unwrap_err()
                .code()
                .as_str(),
            "not_a_repository"
        );
    }

    #[test]
    fn rollback_from_a_stored_snapshot() {
        let dir = repo();
        let root = dir.path();
        std::fs::write(root.join("a.txt"), "before").unwrap();
        let cap =
            agent_checkpoint::CapRoot::open(root, agent_checkpoint::root::ambient_authority())
                .unwrap();
        let snapshot =
            agent_checkpoint::capture(&cap, ["a.txt", "b.txt"], &Default::default()).unwrap();
        let snap_file = root.join(".git/snap.json");
        std::fs::write(&snap_file, snapshot.as_str()).unwrap();
        store(
            root,
            &[
                "write",
                "--id",
                ULID,
                "--session",
                "s",
                "--snapshot",
                snap_file.to_str().unwrap(),
            ],
        )
        .unwrap();
        std::fs::write(root.join("a.txt"), "after").unwrap();
        std::fs::write(root.join("b.txt"), "new").unwrap();
        let redo = root.join(".git/redo.json");
        let (code, report) = store(
            root,
            &[
                "rollback",
                ULID,
                "--no-durable",
                "--redo-out",
                redo.to_str().unwrap(),
            ],
        )
        .unwrap();
        assert_eq!(code, ExitCode::SUCCESS, "{report}");
        assert!(report.contains("2 restored, 0 unrestored"), "{report}");
        assert_eq!(
            std::fs::read_to_string(root.join("a.txt")).unwrap(),
            "before"
        );
        assert!(!root.join("b.txt").exists());
        assert!(redo.exists());
        // The plan of a second rollback: everything already as captured.
        let (_, plan) = store(root, &["plan", ULID]).unwrap();
        assert_eq!(plan, "keep      a.txt\nkeep      b.txt\n");
        let (_, plan) = store(root, &["--json", "plan", ULID]).unwrap();
        let v: serde_json::Value = serde_json::from_str(&plan).unwrap();
        assert_eq!(v["items"][0]["action"], "keep", "{v}");
        // Sealed with another key: refused with its code, nothing touched.
        std::fs::write(root.join("a.txt"), "changed").unwrap();
        let key = root.join(".git/key");
        std::fs::write(&key, "k").unwrap();
        let refused = store(
            root,
            &[
                "rollback",
                ULID,
                "--root",
                root.to_str().unwrap(),
                "--key-file",
                key.to_str().unwrap(),
            ],
        )
        .unwrap_err();
        assert_eq!(refused.code().as_str(), "unauthenticated");
        assert_eq!(
            std::fs::read_to_string(root.join("a.txt")).unwrap(),
            "changed"
        );
        // --json: the report as the snapshot commands print it.
        let (code, report) = store(root, &["--json", "rollback", ULID, "--no-durable"]).unwrap();
        assert_eq!(code, ExitCode::SUCCESS);
        let v: serde_json::Value = serde_json::from_str(&report).unwrap();
        assert_eq!(v["ok"], true, "{v}");
        assert_eq!(v["restored"], json!(["a.txt", "b.txt"]), "{v}");
        assert_eq!(v["plan"]["items"][0]["action"], "write", "{v}");
        assert_eq!(v["plan"]["items"][1]["action"], "keep", "{v}");
    }

    #[test]
    fn stored_prompts_and_transcripts_are_redacted() {
        let dir = repo();
        let transcript = dir.path().join("t.jsonl");
        let secret = "ghp_k7Qm2ZxR9vT4nB8wL1cY6pD3sF0hJ5aE2gU7";
        std::fs::write(
            &transcript,
            format!("{{\"type\":\"user\",\"text\":\"token {secret}\"}}\n"),
        )
        .unwrap();
        let prompt = format!("use {secret} please");
        store(
            dir.path(),
            &[
                "write",
                "--id",
                ULID,
                "--session",
                "s",
                "--prompt",
                &prompt,
                "--transcript",
                transcript.to_str().unwrap(),
            ],
        )
        .unwrap();
        let (_, session) = store(dir.path(), &["session", ULID]).unwrap();
        assert!(!session.contains(secret), "{session}");
        let v: serde_json::Value = serde_json::from_str(&session).unwrap();
        assert_eq!(v["prompts"], json!(["use REDACTED please"]));
        assert_eq!(
            v["transcript"],
            "{\"type\":\"user\",\"text\":\"token REDACTED\"}\n"
        );
    }
}
