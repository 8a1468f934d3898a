//! The `git` program, for the network work gitoxide cannot do (push): run
//! without a shell, with `GIT_TERMINAL_PROMPT=0` and the C locale (so its
//! messages can be read), in the repository's git dir; and its failures
//! sorted into the stable codes `remote_unreachable`, `auth_failed` and
//! `rejected`, each with the remote's one-line reason.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use agent_checkpoint::{Error, Result};

/// The `git` program found on `PATH`, run in one repository.
#[derive(Debug, Clone)]
pub(crate) struct GitProgram {
    git_dir: PathBuf,
    cwd: PathBuf,
}

impl GitProgram {
    /// `git` run against the repository whose git dir is `git_dir`, from
    /// `work_dir` when it has one (so a remote given as a relative path
    /// means what it means to the user's own `git`), else from the git dir.
    /// Both are made absolute.
    pub(crate) fn new(git_dir: &Path, work_dir: Option<&Path>) -> GitProgram {
        let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
        let git_dir = absolute(git_dir);
        GitProgram {
            cwd: work_dir.map_or_else(|| git_dir.clone(), absolute),
            git_dir,
        }
    }

    /// The same program run against another git dir, from the same place.
    pub(crate) fn with_git_dir(&self, git_dir: &Path) -> GitProgram {
        GitProgram {
            git_dir: git_dir.to_path_buf(),
            cwd: self.cwd.clone(),
        }
    }

    /// Where git runs from (the work tree, else the git dir).
    pub(crate) fn cwd(&self) -> &Path {
        &self.cwd
    }

    fn command(&self) -> Command {
        let mut cmd = Command::new("git");
        cmd.current_dir(&self.cwd)
            .env("GIT_DIR", &self.git_dir)
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("LC_ALL", "C")
            .env("LANGUAGE", "C")
            .env_remove("GIT_WORK_TREE")
            .env_remove("GIT_INDEX_FILE")
            .env_remove("GIT_NAMESPACE")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        cmd
    }

    /// Runs `git <args>`, with `stdin` written to its standard input when
    /// given; the output whatever the exit status.
    ///
    /// # Errors
    /// [`Error::GitTooOld`]; an I/O error when `git` cannot be started
    /// (not on `PATH`).
    pub(crate) fn run(&self, args: &[&str], stdin: Option<&[u8]>) -> Result<Output> {
        self.run_env(args, stdin, &[])
    }

    /// As [`GitProgram::run`], with `env` set for git (the committer a
    /// reflog names); checks first (once per process) that `git` is at
    /// least [`crate::git_version::MIN_GIT`].
    ///
    /// # Errors
    /// [`Error::GitTooOld`]; an I/O error when `git` cannot be started.
    pub(crate) fn run_env(
        &self,
        args: &[&str],
        stdin: Option<&[u8]>,
        env: &[(&str, &str)],
    ) -> Result<Output> {
        crate::git_version::require(crate::git_version::MIN_GIT, "the git store")?;
        let mut cmd = self.command();
        cmd.envs(env.iter().copied());
        cmd.args(args).stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        });
        let mut child = cmd.spawn().map_err(|e| Error::Io {
            path: None,
            error: std::io::Error::new(e.kind(), format!("running `git {}`: {e}", args[0])),
        })?;
        if let (Some(input), Some(mut pipe)) = (stdin, child.stdin.take()) {
            // A git that exits early closes the pipe; its stderr says why.
            let _ = pipe.write_all(input);
        }
        child.wait_with_output().map_err(|e| Error::Io {
            path: None,
            error: std::io::Error::new(e.kind(), format!("waiting for `git {}`: {e}", args[0])),
        })
    }
}

/// Checks a remote given by the caller (a remote name or URL): not empty,
/// not an option (`-...`), no control characters.
///
/// # Errors
/// [`Error::InvalidArgument`] naming `remote`.
pub fn check_remote(remote: &str) -> Result<()> {
    if remote.is_empty() {
        return Err(Error::invalid_argument("remote", "is empty"));
    }
    if remote.starts_with('-') {
        return Err(Error::invalid_argument(
            "remote",
            format!("{remote:?} starts with `-` (it would be read as an option)"),
        ));
    }
    if remote.chars().any(char::is_control) {
        return Err(Error::invalid_argument(
            "remote",
            "has control characters".to_owned(),
        ));
    }
    Ok(())
}

/// What a failed `git` run tells about the remote, from its stderr.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Failure {
    /// The remote could not be reached (or hung up).
    Unreachable,
    /// The remote refused the credentials.
    Auth,
    /// The remote did not have the ref asked for.
    NoSuchRef,
}

const AUTH_SIGNS: &[&str] = &[
    "authentication failed",
    "permission denied",
    "could not read username",
    "could not read password",
    "terminal prompts disabled",
    "access denied",
    "401",
    "403 forbidden",
    "invalid username or password",
    "host key verification failed",
];

const NO_SUCH_REF_SIGNS: &[&str] = &["couldn't find remote ref", "no such ref was fetched"];

/// Sorts a failed run by the signs in its stderr.
pub(crate) fn failure_kind(stderr: &str) -> Failure {
    let lower = stderr.to_ascii_lowercase();
    if NO_SUCH_REF_SIGNS.iter().any(|s| lower.contains(s)) {
        Failure::NoSuchRef
    } else if AUTH_SIGNS.iter().any(|s| lower.contains(s)) {
        Failure::Auth
    } else {
        Failure::Unreachable
    }
}

const NO_CONNECTION_SIGNS: &[&str] = &[
    "unable to connect",
    "could not resolve",
    "connection refused",
    "does not appear to be a git repository",
    "repository not found",
    "could not read from remote repository",
    "network is unreachable",
    "no route to host",
    "connection timed out",
    "name or service not known",
    "temporary failure in name resolution",
    "unable to access",
];

/// Whether a failed run never got to talk to the remote (it cannot be
/// reached, does not exist, or refused the credentials): trying again with
/// fewer refs would fail the same way.
pub(crate) fn never_connected(stderr: &str) -> bool {
    let lower = stderr.to_ascii_lowercase();
    failure_kind(stderr) == Failure::Auth || NO_CONNECTION_SIGNS.iter().any(|s| lower.contains(s))
}

/// The one line of stderr that says most about a failure: the first
/// `fatal:` line, else the first `error:` line, else the last non-empty
/// line (`remote:` lines included), cut to 300 characters.
pub(crate) fn one_line_reason(stderr: &str) -> String {
    let lines: Vec<&str> = stderr
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let line = lines
        .iter()
        .find(|l| l.starts_with("fatal:"))
        .or_else(|| {
            lines
                .iter()
                .find(|l| l.starts_with("error:") && !l.contains("failed to push some refs"))
        })
        .or_else(|| lines.last())
        .copied()
        .unwrap_or("git failed without a message");
    let line = line
        .strip_prefix("fatal:")
        .or_else(|| line.strip_prefix("error:"))
        .unwrap_or(line)
        .trim();
    shorten(line, 300)
}

/// The first `remote:` line of stderr (a hook's own message), if any.
pub(crate) fn remote_message(stderr: &str) -> Option<String> {
    stderr
        .lines()
        .filter_map(|l| l.trim().strip_prefix("remote:"))
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(|l| shorten(l, 300))
}

/// The typed error of a failed `git` run against `remote`.
pub(crate) fn remote_error(remote: &str, stderr: &str) -> Error {
    let reason = one_line_reason(stderr);
    match failure_kind(stderr) {
        Failure::Auth => Error::AuthFailed {
            remote: remote.to_owned(),
            reason,
        },
        Failure::Unreachable | Failure::NoSuchRef => Error::RemoteUnreachable {
            remote: remote.to_owned(),
            reason,
        },
    }
}

fn shorten(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((end, _)) => format!("{}...", &text[..end]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_sort_by_their_signs() {
        let refused = "fatal: unable to connect to 127.0.0.1:\n127.0.0.1[0: 127.0.0.1]: errno=Connection refused\n";
        assert_eq!(failure_kind(refused), Failure::Unreachable);
        assert_eq!(one_line_reason(refused), "unable to connect to 127.0.0.1:");
        let auth = "remote: HTTP Basic: Access denied\nfatal: Authentication failed for 'https://h/r.git/'\n";
        assert_eq!(failure_kind(auth), Failure::Auth);
        assert_eq!(
            remote_error("origin", auth).code(),
            agent_checkpoint::ErrorCode::AuthFailed
        );
        let prompt = "fatal: could not read Username for 'https://h': terminal prompts disabled\n";
        assert_eq!(failure_kind(prompt), Failure::Auth);
        assert!(never_connected(refused) && never_connected(auth));
        let cut = "error: RPC failed; HTTP 413\nfatal: the remote end hung up unexpectedly\n";
        assert!(!never_connected(cut));
        let missing = "fatal: couldn't find remote ref refs/entire/checkpoints/ZN/x\n";
        assert_eq!(failure_kind(missing), Failure::NoSuchRef);
        let hung =
            "error: failed to push some refs to 'x'\nfatal: the remote end hung up unexpectedly\n";
        assert_eq!(one_line_reason(hung), "the remote end hung up unexpectedly");
        assert_eq!(one_line_reason(""), "git failed without a message");
        assert_eq!(
            remote_message("remote: no secrets here\nremote: second\n").as_deref(),
            Some("no secrets here")
        );
    }

    #[test]
    fn remotes_that_would_be_options_are_refused() {
        assert!(check_remote("origin").is_ok());
        assert!(check_remote("file:///tmp/r.git").is_ok());
        for bad in ["", "--upload-pack=touch /tmp/x", "-o", "a\nb"] {
            assert_eq!(
                check_remote(bad).unwrap_err().code(),
                agent_checkpoint::ErrorCode::InvalidArgument,
                "{bad:?}"
            );
        }
    }
}
