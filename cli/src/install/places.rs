//! Where the configuration files live: the project's root (for
//! `--scope project`) and the user's home and agent directories (for
//! `--scope user`), read from the environment once.

use std::path::{Path, PathBuf};

use agent_checkpoint::Error;

/// Which configuration an install edits: the project's (shared, in the
/// repository) or the user's (every project of this user).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Scope {
    /// The project's configuration, under the repository's top directory.
    Project,
    /// The user's configuration, under the home directory.
    User,
}

impl Scope {
    /// Both scopes, project first (the order `doctor` reports them in).
    pub(crate) const ALL: [Scope; 2] = [Scope::Project, Scope::User];

    /// `project` or `user`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Scope::Project => "project",
            Scope::User => "user",
        }
    }
}

/// The directories the agents' configuration paths are built from.
#[derive(Debug, Clone)]
pub(crate) struct Places {
    /// The project's top directory: the nearest directory at or above the
    /// working directory that holds `.git` (a directory, or the file of a
    /// linked worktree), else the working directory itself.
    pub project: PathBuf,
    /// The home directory (`HOME`, else `USERPROFILE`), when it is set.
    home: Option<PathBuf>,
}

impl Places {
    /// The places seen from the current working directory and environment.
    pub(crate) fn from_environment() -> Result<Places, Error> {
        let cwd = std::env::current_dir().map_err(|e| Error::io(".", e))?;
        let home = ["HOME", "USERPROFILE"]
            .into_iter()
            .find_map(|name| non_empty_var(name).map(PathBuf::from));
        Ok(Places {
            project: project_root(&cwd),
            home,
        })
    }

    /// The home directory, or `invalid_argument` when neither `HOME` nor
    /// `USERPROFILE` is set.
    pub(crate) fn home(&self) -> Result<&Path, Error> {
        self.home.as_deref().ok_or_else(|| {
            Error::invalid_argument(
                "HOME",
                "is not set: the user's configuration cannot be found (use --scope project)",
            )
        })
    }

    /// The directory named by the environment variable `variable` when it
    /// is set (`CODEX_HOME`, `COPILOT_HOME`, `CLAUDE_CONFIG_DIR`), else
    /// `default` under the home directory.
    pub(crate) fn agent_home(&self, variable: &str, default: &str) -> Result<PathBuf, Error> {
        match non_empty_var(variable) {
            Some(dir) => Ok(PathBuf::from(dir)),
            None => Ok(self.home()?.join(default)),
        }
    }
}

fn non_empty_var(name: &str) -> Option<std::ffi::OsString> {
    std::env::var_os(name).filter(|v| !v.is_empty())
}

fn project_root(cwd: &Path) -> PathBuf {
    cwd.ancestors()
        .find(|dir| dir.join(".git").exists())
        .unwrap_or(cwd)
        .to_path_buf()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_project_root_is_the_nearest_directory_with_git() {
        let dir = tempfile::tempdir().expect("temp dir");
        let nested = dir.path().join("a/b");
        std::fs::create_dir_all(&nested).expect("mkdir");
        assert_eq!(project_root(&nested), nested);
        std::fs::write(dir.path().join(".git"), "gitdir: elsewhere\n").expect("write");
        assert_eq!(project_root(&nested), dir.path());
    }
}
