//! `agent-checkpoint rewind`: a hooked agent session's turns and steps
//! (`--list`), and bringing the working tree back to one of them
//! (`--turn N`, `--step COMMIT`) through the store's shadow rewind (the
//! core's atomic rollback of exactly the paths the session touched),
//! guarded: a file the user changed since the agent last wrote it is kept
//! and reported as a conflict unless `--force`. Every rewind keeps its
//! redo; `--redo` rolls the last one back.

mod apply;
mod list;
mod picker;

use std::path::PathBuf;
use std::process::ExitCode;

use agent_checkpoint::Error;
use agent_checkpoint_store::Store;

use crate::hook::state::{self, RepoDir, SessionDir};
use crate::{output, plan_diff};

/// The arguments of `rewind`.
#[derive(Debug, clap::Args)]
pub struct RewindArgs {
    /// List the session's turns and steps, newest first.
    #[arg(long, conflicts_with_all = ["turn", "step", "redo"])]
    list: bool,
    /// Bring the files back to the state before turn N.
    #[arg(long, value_name = "N", conflicts_with_all = ["step", "redo"])]
    turn: Option<u32>,
    /// Bring the files back to the state of step COMMIT (full or abbreviated).
    #[arg(long, value_name = "COMMIT", conflicts_with = "redo")]
    step: Option<String>,
    /// Undo the last rewind.
    #[arg(long)]
    redo: bool,
    /// Only show what would change, touching nothing.
    #[arg(long)]
    plan: bool,
    #[command(flatten)]
    diff: plan_diff::DiffArgs,
    /// Also restore files the user changed since the agent last wrote them.
    #[arg(long)]
    force: bool,
    /// The session (default: the one whose hook ran last).
    #[arg(long, value_name = "ID")]
    session: Option<String>,
    /// Any directory of the working tree (default: the current directory).
    #[arg(long, value_name = "DIR")]
    repo: Option<PathBuf>,
    /// Skip fsync of files and directories (faster, not crash-safe).
    #[arg(long)]
    no_durable: bool,
}

/// Runs `rewind`.
///
/// # Errors
/// `invalid_argument` for a missing choice or an unknown turn; `not_found`
/// when there is no session; the store's and the core's errors.
pub fn run(args: &RewindArgs, json: bool) -> Result<ExitCode, Error> {
    let dir = match &args.repo {
        Some(dir) => dir.clone(),
        None => std::env::current_dir().map_err(|e| Error::io("<cwd>", e))?,
    };
    let store = crate::hook::open_store(&dir).ok_or_else(|| {
        Error::invalid_argument(
            "repo",
            "rewind needs a git repository with a commit (outside one, roll back a \
             hook's undo snapshot with `agent-checkpoint rollback`)",
        )
    })?;
    let repo = RepoDir::in_git(store.common_dir());
    let root = store
        .work_dir()
        .ok_or_else(|| Error::invalid_argument("repo", "the repository has no working tree"))?;
    if args.redo {
        return apply::redo(&repo, &root, args, json);
    }
    let (session, store_session) = pick_session(&store, &repo, args.session.as_deref())?;
    let turns = list::turns(&store, &store_session)?;
    if args.list {
        return show_list(&store_session, &turns, json);
    }
    if args.turn.is_none() && args.step.is_none() {
        if !json && picker::on_a_terminal() {
            return picker::pick(
                &picker::Target {
                    store: &store,
                    repo: &repo,
                    session: &session,
                    root: &root,
                },
                &store_session,
                &turns,
                args,
            );
        }
        return Err(Error::invalid_argument(
            "rewind",
            "choose --list, --turn N, --step COMMIT or --redo (on a terminal, \
             `rewind` alone asks)",
        ));
    }
    let commit = match (&args.step, args.turn) {
        (Some(step), _) => step.clone(),
        (None, Some(n)) => turns
            .iter()
            .find(|t| t.turn == n && n > 0)
            .map(|t| t.commit.clone())
            .ok_or_else(|| {
                Error::invalid_argument(
                    "turn",
                    format!(
                        "session {store_session} has no turn {n} (see `agent-checkpoint rewind --list`)"
                    ),
                )
            })?,
        (None, None) => {
            return Err(Error::invalid_argument(
                "rewind",
                "choose --turn N or --step COMMIT",
            ))
        }
    };
    let preview = args.plan || args.diff.options().is_some();
    apply::rewind(&store, &repo, &session, &root, &commit, args, preview, json)
}

/// The session to rewind: `--session`, else the one whose hook ran last,
/// else the session of the newest shadow step. Returns its hook directory
/// and its id in the store.
fn pick_session(
    store: &Store,
    repo: &RepoDir,
    wanted: Option<&str>,
) -> Result<(SessionDir, String), Error> {
    if let Some(id) = wanted {
        return Ok((repo.session(id), state::file_name(id)));
    }
    if let Some(dir) = repo.sessions().into_iter().next() {
        if let Some(found) = dir.load() {
            return Ok((dir, state::file_name(&found.session_id)));
        }
    }
    let newest = store
        .shadow_branches()?
        .into_iter()
        .next()
        .ok_or_else(|| Error::NotFound {
            what: "a session to rewind (no hook has run in this repository)".to_owned(),
        })?;
    Ok((repo.session(&newest.session_id), newest.session_id))
}

pub(super) fn show_list(
    session: &str,
    turns: &[list::Turn],
    json: bool,
) -> Result<ExitCode, Error> {
    if json {
        let doc = serde_json::json!({ "session": session, "turns": turns });
        output::print_json(&doc)?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut text = format!("session {session}\n");
    for turn in turns {
        let title = if turn.turn == 0 {
            "session start".to_owned()
        } else {
            format!("turn {}", turn.turn)
        };
        text.push_str(&format!(
            "{title}  {}  {}  {}\n",
            turn.time,
            if turn.prompt.is_empty() {
                "-".to_owned()
            } else {
                format!("{:?}", turn.prompt)
            },
            match turn.files.len() {
                0 => "no files".to_owned(),
                _ => turn.files.join(" "),
            }
        ));
        for step in &turn.steps {
            text.push_str(&format!(
                "  {} {} {}\n",
                &step.commit[..step.commit.len().min(12)],
                step.time,
                step.message
            ));
        }
    }
    output::print_text(&text)?;
    Ok(ExitCode::SUCCESS)
}
