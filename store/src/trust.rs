//! Whose repository this is: git's ownership rule and its
//! `safe.directory` setting, applied before the store reads, writes or runs
//! anything in a repository (STORE.md §3, issue 29).
//!
//! The store starts `git` with `GIT_DIR` set (push, fetch, ls-remote), and
//! git skips its own ownership check then; so the store makes the check
//! itself, exactly as git's `setup.c` does during discovery:
//!
//! - a repository is the caller's when every one of its gitfile (a `.git`
//!   file), the work tree where its `.git` was found and its git dir is
//!   owned (`lstat`) by the effective uid; a root caller also owns what
//!   root owns, and what `SUDO_UID` owns when that is set (git's `sudo`
//!   rule); a path that cannot be `lstat`ed is not owned;
//! - otherwise it is trusted only when git's protected configuration (the
//!   system and global files and the command line: `GIT_CONFIG_COUNT`,
//!   `GIT_CONFIG_PARAMETERS`; never the repository's own config) lists it
//!   in `safe.directory`: values are read in order, `*` trusts every
//!   repository, an empty value resets the list, `.` is not accepted (it
//!   only means "the current directory is the top level", which a library
//!   cannot know), `~/` and `%(prefix)/` are expanded, relative values are
//!   ignored, and a value ending in `/*` trusts everything below it; paths
//!   are compared after resolving symlinks (the work tree, else the git
//!   dir).
//!
//! gix's own `open::Options::bail_if_untrusted` is close but not the same
//! (it ignores the command line, accepts `SUDO_UID` for non-root callers
//! and lets `/a/*` trust `/a` itself), so the rule is written out here.

use std::io;
use std::path::{Path, PathBuf};

use agent_checkpoint::{Error, Result};

/// The paths git checks for one discovered repository.
#[derive(Debug)]
pub(crate) struct Candidate {
    /// The `.git` file that pointed at the git dir, if any.
    pub gitfile: Option<PathBuf>,
    /// The directory where `.git` was found (`None` for a bare repository).
    pub work_tree: Option<PathBuf>,
    /// The git dir.
    pub git_dir: PathBuf,
}

impl Candidate {
    /// The paths of a discovered repository.
    pub(crate) fn from_discovered(found: &gix::discover::repository::Path) -> Candidate {
        use gix::discover::repository::Path as Found;
        let gitfile_in = |work_dir: &Path| {
            let dot_git = work_dir.join(".git");
            std::fs::symlink_metadata(&dot_git)
                .is_ok_and(|m| m.is_file())
                .then_some(dot_git)
        };
        match found {
            Found::WorkTree(work_dir) => Candidate {
                gitfile: gitfile_in(work_dir),
                work_tree: Some(work_dir.clone()),
                git_dir: work_dir.join(".git"),
            },
            Found::LinkedWorkTree { work_dir, git_dir } => Candidate {
                gitfile: gitfile_in(work_dir),
                work_tree: Some(work_dir.clone()),
                git_dir: git_dir.clone(),
            },
            Found::Repository(git_dir) => Candidate {
                gitfile: None,
                work_tree: None,
                git_dir: git_dir.clone(),
            },
        }
    }

    /// The path that names the repository in `safe.directory` and in
    /// messages: the work tree, else the git dir.
    fn identity(&self) -> &Path {
        self.work_tree.as_deref().unwrap_or(&self.git_dir)
    }
}

/// Discovery as git does it: `GIT_CEILING_DIRECTORIES` (a ceiling that
/// does not contain the start is no error, as in git), and one filesystem
/// unless `GIT_DISCOVERY_ACROSS_FILESYSTEM` is true.
pub(crate) fn discovery_options() -> gix::discover::upwards::Options<'static> {
    let mut options = gix::discover::upwards::Options {
        match_ceiling_dir_or_error: false,
        ..Default::default()
    }
    .apply_environment();
    if let Some(value) = std::env::var_os("GIT_DISCOVERY_ACROSS_FILESYSTEM") {
        let value = gix::bstr::BString::from(value.to_string_lossy().as_bytes());
        if let Ok(b) = gix::config::Boolean::try_from(value) {
            options.cross_fs = b.0;
        }
    }
    options
}

/// Refuses an opened repository whose git dir is not the checked one (the
/// tree changed between the check and the open).
///
/// # Errors
/// A `permission_denied` [`Error::Io`] naming both.
pub(crate) fn check_same(candidate: &Candidate, git_dir: &Path) -> Result<()> {
    let real = |p: &Path| std::fs::canonicalize(p).ok();
    if real(&candidate.git_dir).is_some() && real(&candidate.git_dir) == real(git_dir) {
        return Ok(());
    }
    Err(Error::Io {
        path: Some(git_dir.display().to_string()),
        error: io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "the repository changed while it was opened (checked {}, found {})",
                candidate.git_dir.display(),
                git_dir.display()
            ),
        ),
    })
}

/// Refuses a repository the caller does not own unless `safe.directory`
/// trusts it, as git does.
///
/// # Errors
/// A `permission_denied` [`Error::Io`] naming the repository, its owner
/// and the command that trusts it.
pub(crate) fn check(candidate: &Candidate) -> Result<()> {
    let paths = [
        candidate.gitfile.as_deref(),
        candidate.work_tree.as_deref(),
        Some(candidate.git_dir.as_path()),
    ];
    let foreign = paths.into_iter().flatten().find(|p| !owned(p));
    let Some(foreign) = foreign else {
        return Ok(());
    };
    let identity = std::path::absolute(candidate.identity())
        .unwrap_or_else(|_| candidate.identity().to_path_buf());
    if let Ok(real) = std::fs::canonicalize(&identity) {
        if is_safe(&real, &safe_directories()) {
            return Ok(());
        }
    }
    let shown = identity.display().to_string();
    Err(Error::Io {
        path: Some(shown.clone()),
        error: io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "detected dubious ownership in repository at {shown:?}: {} is owned by {}, not by the current user ({}); \
                 its configuration could run commands as you, so it is not used. To trust it, run: \
                 git config --global --add safe.directory {shown}",
                foreign.display(),
                owner_of(foreign),
                current_user(),
            ),
        ),
    })
}

/// Refuses a bare repository that discovery found by itself (not the
/// directory the caller named) when git's protected configuration sets
/// `safe.bareRepository=explicit`, as git does; a git dir inside a `.git`
/// directory (`.git` itself, a linked worktree's, a submodule's) is not
/// such a bare repository.
///
/// # Errors
/// A `permission_denied` [`Error::Io`] naming the repository.
pub(crate) fn check_bare(candidate: &Candidate, start: &Path) -> Result<()> {
    if candidate.work_tree.is_some() || candidate.gitfile.is_some() || !bare_explicit_only() {
        return Ok(());
    }
    let real = |p: &Path| std::fs::canonicalize(p).ok();
    let Some(git_dir) = real(&candidate.git_dir) else {
        return Ok(());
    };
    let text = git_dir.to_string_lossy();
    if real(start).as_ref() == Some(&git_dir) || text.ends_with("/.git") || text.contains("/.git/")
    {
        return Ok(());
    }
    let shown = git_dir.display().to_string();
    Err(Error::Io {
        path: Some(shown.clone()),
        error: io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "cannot use bare repository {shown:?} (safe.bareRepository is 'explicit'): \
                 it was found above the directory given; open it by its own path"
            ),
        ),
    })
}

// The last `safe.bareRepository` of the protected configuration is `explicit`.
fn bare_explicit_only() -> bool {
    protected_values("safe.bareRepository")
        .last()
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("explicit"))
}

#[cfg(unix)]
fn owned(path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return false;
    };
    let euid = rustix::process::geteuid().as_raw();
    let uid = meta.uid();
    if euid == 0 {
        // git: root owns what root owns, else what SUDO_UID owns.
        if uid == 0 {
            return true;
        }
        return sudo_uid().is_some_and(|sudo| sudo == uid);
    }
    uid == euid
}

#[cfg(unix)]
fn sudo_uid() -> Option<u32> {
    std::env::var("SUDO_UID").ok()?.trim().parse().ok()
}

#[cfg(unix)]
fn owner_of(path: &Path) -> String {
    use std::os::unix::fs::MetadataExt;
    match std::fs::symlink_metadata(path) {
        Ok(meta) => format!("uid {}", meta.uid()),
        Err(e) => format!("nobody it can tell ({e})"),
    }
}

#[cfg(unix)]
fn current_user() -> String {
    format!("uid {}", rustix::process::geteuid().as_raw())
}

#[cfg(not(unix))]
fn owned(path: &Path) -> bool {
    gix::sec::identity::is_path_owned_by_current_user(path).unwrap_or(false)
}

#[cfg(not(unix))]
fn owner_of(_path: &Path) -> String {
    "another account".to_owned()
}

#[cfg(not(unix))]
fn current_user() -> String {
    "this account".to_owned()
}

/// Whether the `safe.directory` values (in order) trust the repository
/// whose resolved path is `repo`.
pub(crate) fn is_safe(repo: &Path, values: &[String]) -> bool {
    let mut safe = false;
    for value in values {
        if value.is_empty() {
            safe = false;
        } else if value == "*" {
            safe = true;
        } else if let Some(allowed) = interpolate(value) {
            if matches(repo, &allowed) {
                safe = true;
            }
        }
    }
    safe
}

// `allowed` is absolute; git resolves it (the last component may be
// missing, which is how `/*` survives) and compares paths as strings.
fn matches(repo: &Path, allowed: &Path) -> bool {
    let normalized = resolve_allowing_missing_last(allowed);
    let text = normalized.to_string_lossy();
    let repo = repo.to_string_lossy();
    if let Some(prefix) = text.strip_suffix('*').filter(|p| p.ends_with('/')) {
        return repo.starts_with(prefix);
    }
    repo == text
}

fn resolve_allowing_missing_last(path: &Path) -> PathBuf {
    if let Ok(real) = std::fs::canonicalize(path) {
        return real;
    }
    match (path.parent(), path.file_name()) {
        (Some(parent), Some(name)) => std::fs::canonicalize(parent)
            .map(|p| p.join(name))
            .unwrap_or_else(|_| path.to_path_buf()),
        _ => path.to_path_buf(),
    }
}

// git_config_pathname: `~/`, `~user/` and `%(prefix)/`; not absolute after
// that: ignored (git warns).
fn interpolate(value: &str) -> Option<PathBuf> {
    let path = if let Some(rest) = value.strip_prefix("%(prefix)/") {
        git_prefix()?.join(rest)
    } else if value == "~" || value.starts_with("~/") {
        let home = std::env::var_os("HOME")?;
        PathBuf::from(home).join(value.trim_start_matches('~').trim_start_matches('/'))
    } else {
        PathBuf::from(value)
    };
    path.is_absolute().then_some(path)
}

// git's prefix: its exec-path (`<prefix>/libexec/git-core` or
// `<prefix>/lib/git-core`) without the last two components.
fn git_prefix() -> Option<PathBuf> {
    let core = gix::path::env::core_dir()?;
    core.parent()?.parent().map(Path::to_path_buf)
}

/// The `safe.directory` values of git's protected configuration, in the
/// order git reads them: system, global, `GIT_CONFIG_COUNT`,
/// `GIT_CONFIG_PARAMETERS`.
pub(crate) fn safe_directories() -> Vec<String> {
    protected_values("safe.directory")
}

// The values of `key` in git's protected configuration, in order.
fn protected_values(key: &str) -> Vec<String> {
    let mut values = Vec::new();
    if let Ok(globals) = gix::config::File::from_globals() {
        values.extend(strings(&globals, key));
    }
    if let Ok(env) = gix::config::File::from_environment_overrides() {
        values.extend(strings(&env, key));
    }
    if let Some(params) = std::env::var_os("GIT_CONFIG_PARAMETERS") {
        for (name, value) in parse_parameters(&params.to_string_lossy()) {
            if name.eq_ignore_ascii_case(key) {
                values.push(value.unwrap_or_default());
            }
        }
    }
    values
}

fn strings(file: &gix::config::File, key: &str) -> Vec<String> {
    file.strings(key)
        .unwrap_or_default()
        .into_iter()
        .map(|v| v.to_string())
        .collect()
}

/// Parses `GIT_CONFIG_PARAMETERS` as git writes it for `git -c`: shell
/// single-quoted entries separated by spaces, each `'key'='value'`, `'key'`
/// (no value) or the older `'key=value'`.
pub(crate) fn parse_parameters(text: &str) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    loop {
        while chars.peek().is_some_and(|c| c.is_ascii_whitespace()) {
            chars.next();
        }
        let Some(key) = dequote(&mut chars) else {
            return out;
        };
        if chars.peek() == Some(&'=') {
            chars.next();
            let Some(value) = dequote(&mut chars) else {
                return out;
            };
            out.push((key, Some(value)));
        } else if let Some((k, v)) = key.split_once('=') {
            out.push((k.to_owned(), Some(v.to_owned())));
        } else {
            out.push((key, None));
        }
    }
}

// One single-quoted word, where `'\''` stands for a quote.
fn dequote(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> Option<String> {
    if chars.next()? != '\'' {
        return None;
    }
    let mut word = String::new();
    loop {
        match chars.next()? {
            '\'' => {
                if chars.peek() == Some(&'\\') {
                    chars.next();
                    let quoted = chars.next()?;
                    if chars.next()? != '\'' {
                        return None;
                    }
                    word.push(quoted);
                } else {
                    return Some(word);
                }
            }
            c => word.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(values: &[&str]) -> Vec<String> {
        values.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn safe_directory_values_follow_git() {
        let repo = Path::new("/nonexistent-a/repo");
        assert!(!is_safe(repo, &v(&[])));
        assert!(is_safe(repo, &v(&["*"])));
        assert!(!is_safe(repo, &v(&["*", ""])));
        assert!(is_safe(repo, &v(&["", "/nonexistent-a/repo"])));
        assert!(is_safe(repo, &v(&["/nonexistent-a/*"])));
        assert!(!is_safe(
            Path::new("/nonexistent-a"),
            &v(&["/nonexistent-a/*"])
        ));
        assert!(!is_safe(repo, &v(&["/nonexistent-a"])));
        assert!(!is_safe(repo, &v(&["nonexistent-a/repo", "."])));
        assert!(!is_safe(repo, &v(&["/nonexistent-a/re"])));
    }

    #[test]
    fn command_line_parameters_are_dequoted() {
        let parsed = parse_parameters("'safe.directory'='/a b' 'x.y=z' 'it'\\''s'");
        assert_eq!(
            parsed,
            vec![
                ("safe.directory".to_owned(), Some("/a b".to_owned())),
                ("x.y".to_owned(), Some("z".to_owned())),
                ("it's".to_owned(), None),
            ]
        );
    }
}
