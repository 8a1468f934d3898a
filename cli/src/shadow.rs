//! `agent-checkpoint shadow ...`: shadow branches, one commit per agent
//! step (the `agent-checkpoint-store` crate, STORE.md §4). Errors print
//! `error[<code>]: <message>` and exit 2, like every other command;
//! `rewind` exits 1 when the rewind was not `ok`.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use agent_checkpoint::{Error, PlanOptions, RollbackOptions};
use agent_checkpoint_store::{SessionWrite, ShadowLogQuery, ShadowStep, Store, TaskInfo};

use crate::{files, output, plan_diff};

/// Options shared by every `shadow` subcommand.
#[derive(Debug, clap::Args)]
pub struct ShadowArgs {
    /// The repository: any directory of its working tree (default: the current directory's).
    #[arg(long, global = true, value_name = "DIR")]
    repo: Option<PathBuf>,
    #[command(subcommand)]
    command: ShadowCommand,
}

#[derive(Debug, clap::Subcommand)]
enum ShadowCommand {
    /// Record one agent step; prints what was recorded (`--json`: {"commit", "branch", "skipped", ...}).
    Step {
        /// The session ID.
        #[arg(long)]
        session: String,
        /// A file the step touched (repeat; a directory stands for its files).
        #[arg(long = "file", value_name = "PATH")]
        files: Vec<String>,
        /// A file the step deleted (repeat).
        #[arg(long = "deleted", value_name = "PATH")]
        deleted: Vec<String>,
        /// The commit message (default "Checkpoint").
        #[arg(long)]
        message: Option<String>,
        /// The session's metadata directory (stored redacted under .entire/metadata/<session>/).
        #[arg(long, value_name = "DIR")]
        metadata_dir: Option<PathBuf>,
        /// Make it a subagent task step of this tool-use ID.
        #[arg(long, value_name = "ID")]
        task: Option<String>,
        /// The subagent's ID (task steps).
        #[arg(long, value_name = "ID", requires = "task")]
        agent_id: Option<String>,
        /// Take every change git status shows (default: when the session has no step yet).
        #[arg(long)]
        first: bool,
        /// Leave out (unread, listed as too large) files HEAD does not track over this many bytes (default 100 MiB).
        #[arg(long, value_name = "N")]
        max_file_bytes: Option<u64>,
    },
    /// List the shadow branches, newest tip first.
    List,
    /// One branch's steps, newest first: `<commit> <time> <session> <message>` per line.
    Log {
        /// Only this session's steps.
        #[arg(long)]
        session: Option<String>,
        /// At most this many steps (0: all).
        #[arg(long, default_value_t = 0)]
        limit: usize,
        /// The branch (default: the one of HEAD in this worktree).
        #[arg(long)]
        branch: Option<String>,
    },
    /// Print the transcript stored with a step.
    Transcript {
        /// The step's commit (full or abbreviated).
        commit: String,
    },
    /// Rewind the working tree to a step: the paths its session touched come back.
    Rewind {
        /// The step's commit (full or abbreviated).
        commit: String,
        /// Only show what would change, touching nothing.
        #[arg(long)]
        plan: bool,
        /// With --plan: what each change would be (see `plan --diff`).
        #[command(flatten)]
        diff: plan_diff::DiffArgs,
        /// The working tree (default: the repository's).
        #[arg(long, value_name = "DIR")]
        root: Option<PathBuf>,
        /// Skip fsync of files and directories (faster, not crash-safe).
        #[arg(long)]
        no_durable: bool,
        /// Write the redo snapshot here; `agent-checkpoint rollback FILE` undoes the rewind.
        #[arg(long, value_name = "FILE")]
        redo_out: Option<PathBuf>,
    },
    /// Turn a session's steps into one persistent checkpoint; prints what was done (`--json`: as JSON).
    Condense {
        /// The session ID.
        #[arg(long)]
        session: String,
        /// The checkpoint ID to write (legacy 12-hex or ULID).
        #[arg(long)]
        id: String,
        /// The agent.
        #[arg(long)]
        agent: Option<String>,
    },
    /// Delete the shadow branches no session needs (base commit gone, or every session condensed).
    Clean,
}

/// Runs one `shadow` subcommand.
///
/// # Errors
/// Every store error; printed by `main` as `error[<code>]: <message>`.
pub fn run(args: ShadowArgs, json: bool) -> Result<ExitCode, Error> {
    let mut out = Vec::new();
    let code = run_to(args, json, &mut out);
    std::io::stdout()
        .lock()
        .write_all(&out)
        .map_err(|e| Error::io("<stdout>", e))?;
    code
}

fn run_to(args: ShadowArgs, json: bool, out: &mut Vec<u8>) -> Result<ExitCode, Error> {
    let repo = args.repo.unwrap_or_else(|| PathBuf::from("."));
    let store = Store::open(&repo)?;
    match args.command {
        ShadowCommand::Step {
            session,
            files,
            deleted,
            message,
            metadata_dir,
            task,
            agent_id,
            first,
            max_file_bytes,
        } => {
            let mut step = ShadowStep::new(session).files(files).deleted(deleted);
            if let Some(max) = max_file_bytes {
                step = step.max_untracked_bytes(max);
            }
            step.message = message;
            step.metadata_dir = metadata_dir;
            if first {
                step = step.first(true);
            }
            let result = match task {
                Some(tool_use_id) => {
                    let mut info = TaskInfo::new(tool_use_id);
                    info.agent_id = agent_id.unwrap_or_default();
                    store.shadow_task_step(&step, &info)?
                }
                None => store.shadow_step(&step)?,
            };
            if json {
                line(out, compact(&result)?);
            } else {
                step_text(out, &result);
            }
        }
        ShadowCommand::List => {
            let branches = store.shadow_branches()?;
            if json {
                out.extend_from_slice(output::to_json(&branches)?.as_bytes());
            } else {
                for b in branches {
                    line(
                        out,
                        format!("{} {} {} {}", b.branch, b.tip, b.timestamp, b.session_id),
                    );
                }
            }
        }
        ShadowCommand::Log {
            session,
            limit,
            branch,
        } => {
            let mut query = ShadowLogQuery::new().limit(limit);
            query.session_id = session;
            query.branch = branch;
            let steps = store.shadow_log(&query)?;
            if json {
                out.extend_from_slice(output::to_json(&steps)?.as_bytes());
            } else {
                for s in steps {
                    line(
                        out,
                        format!(
                            "{} {} {} {}",
                            s.commit, s.timestamp, s.session_id, s.message
                        ),
                    );
                }
            }
        }
        ShadowCommand::Transcript { commit } => {
            out.extend_from_slice(&store.shadow_transcript(&commit)?);
        }
        ShadowCommand::Rewind {
            commit,
            plan,
            diff,
            root,
            no_durable,
            redo_out,
        } => {
            let root = match root.or_else(|| store.work_dir()) {
                Some(root) => root,
                None => {
                    return Err(Error::invalid_argument(
                        "root",
                        "the repository has no working tree: pass --root",
                    ))
                }
            };
            if diff.options().is_some() && !plan {
                return Err(Error::invalid_argument(
                    "diff",
                    "--diff shows a preview: use it with --plan",
                ));
            }
            if plan {
                let options = PlanOptions::default().with_diff(diff.options());
                let plan = store.shadow_rewind_plan(&commit, &root, &options)?;
                let text = if json {
                    output::to_json(&plan)?
                } else if options.diff.is_some() {
                    plan_diff::format(&plan, diff.colored())
                } else {
                    output::format_plan(&plan)
                };
                out.extend_from_slice(text.as_bytes());
                return Ok(ExitCode::SUCCESS);
            }
            let options = RollbackOptions::default().with_durable(!no_durable);
            let report = store.shadow_rewind(&commit, &root, &options)?;
            if let (Some(path), Some(redo)) = (redo_out.as_deref(), &report.redo) {
                files::write_output(Some(path), redo.as_str())?;
            }
            let text = if json {
                output::to_json(&report)?
            } else {
                output::format_report(&report)
            };
            out.extend_from_slice(text.as_bytes());
            return Ok(if report.ok() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            });
        }
        ShadowCommand::Condense { session, id, agent } => {
            let mut write = SessionWrite::new(id, session);
            if let Some(agent) = agent {
                write = write.agent(agent);
            }
            let condensed = store.shadow_condense(&write)?;
            if json {
                line(out, compact(&condensed)?);
            } else {
                condensed_text(out, &condensed);
            }
        }
        ShadowCommand::Clean => {
            let cleaned = store.shadow_clean()?;
            if json {
                out.extend_from_slice(output::to_json(&cleaned)?.as_bytes());
            } else {
                for c in cleaned {
                    line(out, format!("deleted {} ({})", c.branch, c.reason));
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Appends `text` and a newline.
fn line(out: &mut Vec<u8>, text: String) {
    out.extend_from_slice(text.as_bytes());
    out.push(b'\n');
}

/// `shadow step`'s text: `recorded <commit> on <branch>` (or `skipped:
/// ...` when nothing changed), then a `left out <path>` line per path not
/// taken.
fn step_text(out: &mut Vec<u8>, result: &agent_checkpoint_store::StepResult) {
    if result.skipped {
        line(
            out,
            format!(
                "skipped: nothing changed since {} on {}",
                result.commit, result.branch
            ),
        );
    } else {
        let first = if result.first {
            " (first step: every change git status shows)"
        } else {
            ""
        };
        line(
            out,
            format!("recorded {} on {}{first}", result.commit, result.branch),
        );
    }
    for path in &result.left_out {
        line(out, format!("left out {path}"));
    }
    for file in &result.too_large {
        line(
            out,
            format!(
                "too large {} ({} bytes, over --max-file-bytes): not taken, not covered by a rewind",
                file.path, file.size
            ),
        );
    }
}

/// `shadow condense`'s text: the checkpoint, the files touched, the branch.
fn condensed_text(out: &mut Vec<u8>, c: &agent_checkpoint_store::Condensed) {
    line(
        out,
        format!(
            "checkpoint {} session {}: {} from {}",
            c.checkpoint_id,
            c.session_index,
            output::count(c.steps, "step"),
            c.branch
        ),
    );
    line(out, format!("files touched: {}", c.files_touched.join(" ")));
    line(
        out,
        format!(
            "branch {} {}",
            c.branch,
            if c.branch_deleted {
                "deleted"
            } else {
                "kept (another session on it needs it, or it moved)"
            }
        ),
    );
}

/// One line of JSON.
fn compact<T: serde::Serialize>(value: &T) -> Result<String, Error> {
    serde_json::to_string(value).map_err(|e| Error::invalid_argument("output", e.to_string()))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use clap::Parser;
    use std::path::Path;

    fn git(dir: &Path, args: &[&str]) -> String {
        crate::test_git::git_with_home(dir, &dir.join(".git").join("test-home"), args)
    }

    fn repo() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        git(dir.path(), &["init", "-q"]);
        git(dir.path(), &["config", "user.name", "T"]);
        git(dir.path(), &["config", "user.email", "t@example.com"]);
        std::fs::write(dir.path().join("a.txt"), "a\n").unwrap();
        git(dir.path(), &["add", "-A"]);
        git(dir.path(), &["commit", "-q", "-m", "base"]);
        dir
    }

    /// Runs `agent-checkpoint shadow --repo <dir> <args>`: (exit code, stdout) or the error.
    fn shadow(dir: &Path, args: &[&str]) -> Result<(ExitCode, String), Error> {
        let mut argv = vec![
            "agent-checkpoint",
            "shadow",
            "--repo",
            dir.to_str().unwrap(),
        ];
        argv.extend(args);
        let cli = crate::Cli::try_parse_from(argv).unwrap();
        let crate::Command::Shadow(args) = cli.command else {
            panic!("not a shadow command");
        };
        let mut out = Vec::new();
        let code = run_to(args, cli.json, &mut out)?;
        Ok((code, String::from_utf8(out).unwrap()))
    }

    fn json(text: &str) -> serde_json::Value {
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn step_list_log_rewind_condense_clean() {
        let dir = repo();
        let d = dir.path();
        let (_, first) = shadow(
            d,
            &["--json", "step", "--session", "s1", "--message", "start"],
        )
        .unwrap();
        let first = json(&first);
        assert_eq!(first["skipped"], false);
        assert!(first["branch"].as_str().unwrap().starts_with("entire/"));
        std::fs::write(d.join("a.txt"), "edited\n").unwrap();
        std::fs::write(d.join("b.txt"), "new\n").unwrap();
        let (_, second) = shadow(
            d,
            &[
                "--json",
                "step",
                "--session",
                "s1",
                "--file",
                "a.txt",
                "--file",
                "b.txt",
            ],
        )
        .unwrap();
        let second = json(&second);
        let (_, again) = shadow(d, &["step", "--session", "s1", "--file", "a.txt"]).unwrap();
        assert_eq!(
            again,
            format!(
                "skipped: nothing changed since {} on {}\n",
                second["commit"].as_str().unwrap(),
                second["branch"].as_str().unwrap()
            )
        );

        let (_, list) = shadow(d, &["list", "--json"]).unwrap();
        assert_eq!(json(&list)[0]["tip"], second["commit"]);
        let (_, log) = shadow(d, &["log", "--session", "s1", "--limit", "5", "--json"]).unwrap();
        let log = json(&log);
        assert_eq!(log.as_array().unwrap().len(), 2);
        assert_eq!(log[0]["commit"], second["commit"]);
        assert_eq!(log[1]["message"], "start");
        assert_eq!(log[0]["session_id"], "s1");
        assert!(log[0]["timestamp"].as_str().unwrap().ends_with('Z'));
        let (_, text) = shadow(d, &["log"]).unwrap();
        assert!(text.lines().last().unwrap().ends_with(" s1 start"));

        let start = first["commit"].as_str().unwrap();
        let (_, plan) = shadow(d, &["--json", "rewind", start, "--plan"]).unwrap();
        assert_eq!(
            std::fs::read_to_string(d.join("a.txt")).unwrap(),
            "edited\n"
        );
        assert!(plan.contains("\"write\"") && plan.contains("\"remove\""));
        let redo = d.join(".git").join("redo.json");
        let (code, _) =
            shadow(d, &["rewind", start, "--redo-out", redo.to_str().unwrap()]).unwrap();
        assert_eq!(code, ExitCode::SUCCESS);
        assert_eq!(std::fs::read_to_string(d.join("a.txt")).unwrap(), "a\n");
        assert!(!d.join("b.txt").exists());
        assert!(redo.exists());

        let id = "01KVBJCWYA4YW6J5M9GP655HZN";
        let (_, condensed) = shadow(d, &["condense", "--session", "s1", "--id", id]).unwrap();
        let branch = second["branch"].as_str().unwrap();
        assert_eq!(
            condensed,
            format!(
                "checkpoint {id} session 0: 2 steps from {branch}\n\
                 files touched: a.txt b.txt\n\
                 branch {branch} deleted\n"
            )
        );
        let (_, cleaned) = shadow(d, &["clean", "--json"]).unwrap();
        assert_eq!(json(&cleaned), serde_json::json!([]));
    }

    #[test]
    fn step_and_condense_print_text_by_default_json_with_the_flag() {
        let dir = repo();
        let d = dir.path();
        let (_, text) = shadow(d, &["step", "--session", "s1", "--file", ".git/config"]).unwrap();
        let mut lines = text.lines();
        let head = lines.next().unwrap();
        assert!(head.starts_with("recorded "), "{text}");
        assert!(head.contains(" on entire/"), "{text}");
        assert!(head.ends_with("(first step: every change git status shows)"));
        assert_eq!(lines.next(), Some("left out .git/config"));
        std::fs::write(d.join("a.txt"), "b\n").unwrap();
        let (_, doc) =
            shadow(d, &["--json", "step", "--session", "s1", "--file", "a.txt"]).unwrap();
        assert_eq!(json(&doc)["first"], false);
        let id = "01KVBJCWYA4YW6J5M9GP655HZN";
        let (_, doc) = shadow(d, &["--json", "condense", "--session", "s1", "--id", id]).unwrap();
        assert_eq!(json(&doc)["files_touched"], serde_json::json!(["a.txt"]));
    }

    #[test]
    fn errors_carry_their_codes() {
        let dir = repo();
        let e = shadow(dir.path(), &["rewind", "abcdef12"]).unwrap_err();
        assert_eq!(e.code(), agent_checkpoint::ErrorCode::NotFound);
        let e = shadow(dir.path(), &["step", "--session", "a/b"]).unwrap_err();
        assert_eq!(e.code(), agent_checkpoint::ErrorCode::InvalidArgument);
    }
}
