//! `agent-checkpoint rewind` alone on a terminal: the turns, then the
//! chosen turn's preview, then a confirmation.

use std::io::{BufRead as _, IsTerminal as _, Write as _};
use std::path::Path;
use std::process::ExitCode;

use agent_checkpoint::Error;
use agent_checkpoint_store::Store;

use super::{apply, list, show_list, RewindArgs};
use crate::hook::state::{RepoDir, SessionDir};
use crate::output;

/// Where a picked rewind happens.
pub(super) struct Target<'a> {
    pub store: &'a Store,
    pub repo: &'a RepoDir,
    pub session: &'a SessionDir,
    pub root: &'a Path,
}

/// Whether stdin and stdout are both terminals (someone to ask).
pub(super) fn on_a_terminal() -> bool {
    std::io::stdin().is_terminal() && std::io::stdout().is_terminal()
}

/// Lists the turns, asks which one, previews it, asks to confirm, rewinds.
pub(super) fn pick(
    target: &Target<'_>,
    session: &str,
    turns: &[list::Turn],
    args: &RewindArgs,
) -> Result<ExitCode, Error> {
    show_list(session, turns, false)?;
    let answer = ask("Rewind to the state before which turn? (its number; Enter: none) ")?;
    if answer.is_empty() {
        output::print_text("nothing rewound\n")?;
        return Ok(ExitCode::SUCCESS);
    }
    let turn = answer
        .parse::<u32>()
        .ok()
        .and_then(|n| turns.iter().find(|t| t.turn == n && n > 0))
        .ok_or_else(|| Error::invalid_argument("turn", format!("no turn {answer:?}")))?;
    let rewind = |preview| {
        apply::rewind(
            target.store,
            target.repo,
            target.session,
            target.root,
            &turn.commit,
            args,
            preview,
            false,
        )
    };
    rewind(true)?;
    if !ask("Rewind these files? [y/N] ")?.eq_ignore_ascii_case("y") {
        output::print_text("nothing rewound\n")?;
        return Ok(ExitCode::SUCCESS);
    }
    rewind(false)
}

fn ask(question: &str) -> Result<String, Error> {
    let mut out = std::io::stdout().lock();
    out.write_all(question.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| Error::io("<stdout>", e))?;
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .map_err(|e| Error::io("<stdin>", e))?;
    Ok(line.trim().to_owned())
}
