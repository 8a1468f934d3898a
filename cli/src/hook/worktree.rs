//! The working tree as the hook sees it: the paths a tool names, relative
//! to the root; the state of a file (what `record_applied` calls it); and
//! what `git status` shows, with a fingerprint per path, to tell what a
//! shell command changed.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};
use std::process::{Command, Stdio};

use agent_checkpoint::Error;

use super::state::hex_digest;

/// `path` (absolute, or relative to `cwd`) relative to `root`, `/`-joined;
/// `None` when it is not inside the root (or climbs out with `..`).
pub(crate) fn relative(root: &Path, cwd: &Path, path: &str) -> Option<String> {
    let raw = Path::new(path);
    let full = if raw.is_absolute() {
        raw.to_path_buf()
    } else {
        cwd.join(raw)
    };
    let full = normalize(&full)?;
    let inside = full
        .strip_prefix(root)
        .ok()
        .map(Path::to_path_buf)
        .or_else(|| {
            // The root may be spelled through a symlink (`/tmp` on macOS):
            // compare the canonical parent directories.
            let canonical_root = root.canonicalize().ok()?;
            let parent = full.parent()?.canonicalize().ok()?;
            let name = full.file_name()?;
            parent
                .join(name)
                .strip_prefix(&canonical_root)
                .ok()
                .map(Path::to_path_buf)
        })?;
    let parts: Vec<String> = inside
        .components()
        .map(|c| match c {
            Component::Normal(s) => s.to_str().map(str::to_owned),
            _ => None,
        })
        .collect::<Option<_>>()?;
    (!parts.is_empty()).then(|| parts.join("/"))
}

/// `path` with `.` and `..` resolved lexically; `None` when `..` climbs
/// above the start.
fn normalize(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    Some(out)
}

/// The state of `rel` under `root` in the core's `applied` spelling:
/// `None` (absent), `sha256:<hex>`, `symlink:<target>`, `dir` or `other`.
pub(crate) fn path_state(root: &Path, rel: &str) -> Option<String> {
    let full = root.join(rel);
    let meta = std::fs::symlink_metadata(&full).ok()?;
    if meta.file_type().is_symlink() {
        let target = std::fs::read_link(&full).ok()?;
        return Some(format!("symlink:{}", target.to_string_lossy()));
    }
    if meta.is_dir() {
        return Some("dir".to_owned());
    }
    if !meta.is_file() {
        return Some("other".to_owned());
    }
    let bytes = std::fs::read(&full).ok()?;
    Some(format!("sha256:{}", hex_digest(&bytes)))
}

/// The states of `paths` under `root`.
pub(crate) fn states(root: &Path, paths: &[String]) -> BTreeMap<String, Option<String>> {
    paths
        .iter()
        .map(|p| (p.clone(), path_state(root, p)))
        .collect()
}

/// Every path `git status` shows in the working tree `root` (untracked
/// files one by one, never an ignored one), each with a fingerprint of
/// what is there now: size, modification time, mode, inode (`absent` for a
/// deleted file). A command changed a path when the path's fingerprint
/// before and after it differ, or the path is in only one of the two.
///
/// # Errors
/// An I/O error when git cannot be run or fails.
pub(crate) fn status(root: &Path) -> Result<BTreeMap<String, String>, Error> {
    StatusRun::start(root).finish(root)
}

/// A `git status` started in the background (the hook does its other work
/// meanwhile): see [`status`].
pub(crate) struct StatusRun(std::io::Result<std::process::Child>);

impl StatusRun {
    /// Starts `git status` in `dir` (any directory of the working tree: the
    /// porcelain format's paths are relative to the root either way).
    pub(crate) fn start(dir: &Path) -> StatusRun {
        StatusRun(
            Command::new("git")
                .args([
                    "--no-optional-locks",
                    "status",
                    "--porcelain=v1",
                    "-z",
                    "--untracked-files=all",
                    "--no-renames",
                    "--ignore-submodules=all",
                ])
                .current_dir(dir)
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn(),
        )
    }

    /// Waits for it: each path it shows (relative to `root`, the working
    /// tree's root) with its fingerprint.
    ///
    /// # Errors
    /// An I/O error when git could not be run or failed.
    pub(crate) fn finish(self, root: &Path) -> Result<BTreeMap<String, String>, Error> {
        let child = self.0.map_err(|e| Error::io("git status", e))?;
        let out = child
            .wait_with_output()
            .map_err(|e| Error::io("git status", e))?;
        parse_status(root, &out)
    }
}

fn parse_status(
    root: &Path,
    out: &std::process::Output,
) -> Result<BTreeMap<String, String>, Error> {
    if !out.status.success() {
        let reason = String::from_utf8_lossy(&out.stderr);
        return Err(Error::io(
            "git status",
            std::io::Error::other(reason.lines().next().unwrap_or("failed").to_owned()),
        ));
    }
    let mut paths = BTreeMap::new();
    for record in out.stdout.split(|b| *b == 0).filter(|r| r.len() > 3) {
        let Ok(path) = std::str::from_utf8(&record[3..]) else {
            continue;
        };
        if path.ends_with('/') || path == ".entire" || path.starts_with(".entire/") {
            continue;
        }
        paths.insert(path.to_owned(), fingerprint(&root.join(path)));
    }
    Ok(paths)
}

fn fingerprint(path: &Path) -> String {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return "absent".to_owned();
    };
    let mtime = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    #[cfg(unix)]
    let extra = {
        use std::os::unix::fs::MetadataExt as _;
        format!("{:o}:{}:{}", meta.mode(), meta.ino(), meta.ctime_nsec())
    };
    #[cfg(not(unix))]
    let extra = format!("{}", meta.permissions().readonly());
    format!("{}:{mtime}:{extra}", meta.len())
}

/// The paths whose fingerprints differ between `before` and `after` (or
/// that are in one only), sorted.
pub(crate) fn changed(
    before: &BTreeMap<String, String>,
    after: &BTreeMap<String, String>,
) -> Vec<String> {
    let mut out: Vec<String> = after
        .iter()
        .filter(|(p, fp)| before.get(*p) != Some(*fp))
        .map(|(p, _)| p.clone())
        .collect();
    out.extend(before.keys().filter(|p| !after.contains_key(*p)).cloned());
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_stay_inside_the_root() {
        let root = Path::new("/r");
        assert_eq!(
            relative(root, root, "/r/a/b.txt").as_deref(),
            Some("a/b.txt")
        );
        assert_eq!(
            relative(root, Path::new("/r/a"), "b.txt").as_deref(),
            Some("a/b.txt")
        );
        assert_eq!(
            relative(root, Path::new("/r/a"), "../c").as_deref(),
            Some("c")
        );
        assert_eq!(relative(root, root, "../etc/passwd"), None);
        assert_eq!(relative(root, root, "/etc/passwd"), None);
        assert_eq!(relative(root, root, "/r"), None);
    }

    #[test]
    fn changes_are_paths_whose_fingerprint_moved() {
        let before: BTreeMap<String, String> =
            [("a".into(), "1".into()), ("b".into(), "2".into())].into();
        let after: BTreeMap<String, String> =
            [("b".into(), "3".into()), ("c".into(), "4".into())].into();
        assert_eq!(changed(&before, &after), ["a", "b", "c"]);
        assert!(changed(&before, &before).is_empty());
    }
}
