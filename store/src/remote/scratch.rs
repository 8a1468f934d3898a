//! The scratch repository pushes run from. `git push` matches every
//! `<ref>:<ref>` refspec against every local ref (formatting each name
//! through git's six rev-parse rules), so with 10,000 local checkpoint refs a
//! batch of 200 refspecs costs seconds before anything is sent. A push
//! therefore runs from a scratch git dir (inside the common dir, removed
//! when done) that borrows the repository's objects (`objects/info/
//! alternates`) and configuration (`include.path`: remotes, URLs,
//! credentials as the user set them) and holds only the batch's refs, in
//! its `packed-refs`. What is pushed, and how, is exactly what
//! `git push <remote> <ref>:<ref> ...` in the repository would do.
//!
//! The scratch dir is the pushing user's alone (`0700` whatever the umask,
//! its files `0600`, each created new and never through a symlink): the
//! config `git push` reads there decides which programs run.
//!
//! A push killed before it removed its scratch dir leaves it behind; each
//! push sweeps those away first. A scratch dir `entire-push-<token>` is in
//! use exactly while its lock file `entire-push-<token>.lock` is held (see
//! `held`), so only abandoned ones are removed.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use gix::ObjectId;

use crate::nofollow::{Create, Dir};
use crate::remote::git_program::GitProgram;
use crate::remote::held::{self, Held, Owner};
use crate::sharing::Sharing;
use agent_checkpoint::{Error, Result};

/// Whether the repository of `common_dir` names its objects by SHA-256.
fn sha256_objects(common_dir: &Path) -> bool {
    gix::config::File::from_path_no_includes(common_dir.join("config"), gix::config::Source::Local)
        .ok()
        .and_then(|c| {
            c.string("extensions.objectFormat")
                .map(|v| v.eq_ignore_ascii_case(b"sha256"))
        })
        .unwrap_or(false)
}

/// Prefix of a scratch git dir's name in the common dir.
const SCRATCH_PREFIX: &str = "entire-push-";

/// A scratch git dir, deleted on drop (then its lock file).
pub(crate) struct Scratch {
    dir: PathBuf,
    pub git: GitProgram,
    // Dropped after `Drop::drop` removed the dir: the lock goes last.
    _held: Held,
}

impl Scratch {
    /// A new scratch git dir in `common_dir` borrowing its objects and config.
    ///
    /// # Errors
    /// An I/O error when it cannot be created.
    pub(crate) fn new(common_dir: &Path, git_dir: &Path, real: &GitProgram) -> Result<Scratch> {
        let common_dir = std::path::absolute(common_dir).map_err(|e| io(common_dir, e))?;
        let git_dir = std::path::absolute(git_dir).map_err(|e| io(git_dir, e))?;
        for _ in 0..16 {
            let name = format!("{SCRATCH_PREFIX}{}", held::token()?);
            let Some(lock) = Held::create(&common_dir.join(format!("{name}.lock")))? else {
                continue;
            };
            let dir = common_dir.join(&name);
            let scratch = Scratch {
                git: real.with_git_dir(&dir),
                dir,
                _held: lock,
            };
            scratch.lay_out(&common_dir, &git_dir)?;
            return Ok(scratch);
        }
        Err(Error::Io {
            path: Some(common_dir.display().to_string()),
            error: std::io::Error::other("no free name for a scratch git dir"),
        })
    }

    /// Removes the scratch git dirs (and lone lock files) that pushes
    /// killed before they were done left in `common_dir`; keeps every one a
    /// live push holds. Best effort: what cannot be removed stays.
    pub(crate) fn sweep(common_dir: &Path) {
        let Ok(entries) = fs::read_dir(common_dir) else {
            return;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            let Some(rest) = name.strip_prefix(SCRATCH_PREFIX) else {
                continue;
            };
            let (token, is_lock) = match rest.strip_suffix(".lock") {
                Some(t) => (t, true),
                None => (rest, false),
            };
            if !held::is_token(token) {
                continue;
            }
            let dir = common_dir.join(format!("{SCRATCH_PREFIX}{token}"));
            if is_lock && dir.exists() {
                continue; // Judged with its dir.
            }
            match held::owner(&common_dir.join(format!("{SCRATCH_PREFIX}{token}.lock"))) {
                Owner::Alive => {}
                Owner::None => {
                    let _ = fs::remove_dir_all(&dir);
                }
                Owner::Gone(lock) => {
                    let _ = fs::remove_dir_all(&dir);
                    drop(lock);
                }
            }
        }
    }

    fn lay_out(&self, common_dir: &Path, git_dir: &Path) -> Result<()> {
        let d = &self.dir;
        let top = create_private(d)?;
        top.create_private_dir("refs").map_err(|e| io(d, e))?;
        let objects = top.create_private_dir("objects").map_err(|e| io(d, e))?;
        let info = objects
            .create_private_dir("info")
            .map_err(|e| io(&d.join("objects"), e))?;
        write_new(&top, d, "HEAD", b"ref: refs/heads/main\n")?;
        let mut alternates = common_dir.join("objects").into_os_string();
        alternates.push("\n");
        write_new(
            &info,
            &d.join("objects/info"),
            "alternates",
            alternates.as_encoded_bytes(),
        )?;
        // The repository format is read from a repository's own config
        // file, never through an include: a SHA-256 repository's must be
        // said here again.
        let mut config = if sha256_objects(common_dir) {
            String::from(
                "[core]\n\trepositoryformatversion = 1\n\tbare = true\n\
                 [extensions]\n\tobjectformat = sha256\n",
            )
        } else {
            String::from("[core]\n\trepositoryformatversion = 0\n\tbare = true\n")
        };
        for file in [common_dir.join("config"), git_dir.join("config.worktree")] {
            if file.is_file() {
                config.push_str(&format!("[include]\n\tpath = {}\n", quoted(&file)));
            }
        }
        // Ours win over what the include brought: a bare repository, no gc.
        config.push_str("[core]\n\tbare = true\n[gc]\n\tauto = 0\n[maintenance]\n\tauto = false\n");
        write_new(&top, d, "config", config.as_bytes())
    }

    /// Makes `refs` (name, tip) the scratch repository's only refs: a new
    /// `packed-refs` renamed over the last one (never written through
    /// whatever is at that name).
    ///
    /// # Errors
    /// An I/O error when `packed-refs` cannot be written.
    pub(crate) fn set_refs(&self, refs: &[(&str, ObjectId)]) -> Result<()> {
        let mut sorted: Vec<&(&str, ObjectId)> = refs.iter().collect();
        sorted.sort_by(|a, b| a.0.cmp(b.0));
        let mut text = String::from("# pack-refs with: peeled fully-peeled sorted \n");
        for (name, tip) in sorted {
            text.push_str(&format!("{tip} {name}\n"));
        }
        let d = &self.dir;
        let top = Dir::open(d).map_err(|e| io(d, e))?;
        const NEW: &str = "packed-refs.new";
        // Left by a batch that failed halfway: ours (the directory is).
        let _ = top.remove(NEW);
        write_new(&top, d, NEW, text.as_bytes())?;
        top.rename(NEW, "packed-refs").map_err(|e| io(d, e))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.dir);
    }
}

fn quoted(path: &Path) -> String {
    let text = path.to_string_lossy();
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
}

/// Creates the directory `dir` (its parent must exist; one already there,
/// a symlink included, is an error) owner-only, `0700` whatever the umask:
/// a scratch repository's files (its config above all) are the pushing
/// user's alone.
fn create_private(dir: &Path) -> Result<Dir> {
    #[cfg_attr(not(unix), allow(unused_mut))]
    let mut builder = fs::DirBuilder::new();
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir).map_err(|e| io(dir, e))?;
    let opened = Dir::open(dir).map_err(|e| io(dir, e))?;
    opened.set_private_mode().map_err(|e| io(dir, e))?;
    Ok(opened)
}

/// Writes the new file `name` (`O_EXCL`, never through a symlink, `0600`)
/// in `dir` (at `shown`) with `bytes`.
fn write_new(dir: &Dir, shown: &Path, name: &str, bytes: &[u8]) -> Result<()> {
    let path = shown.join(name);
    let mut file = dir
        .open_file(name, true, Create::New, Sharing::Private)
        .map_err(|e| io(&path, e))?;
    file.write_all(bytes).map_err(|e| io(&path, e))
}

fn io(path: &Path, e: std::io::Error) -> Error {
    Error::io(path.display().to_string(), e)
}

#[cfg(all(test, unix))]
mod tests {
    #![allow(clippy::unwrap_used)]
    use std::os::unix::fs::PermissionsExt as _;

    use super::*;

    fn mode(path: &Path) -> u32 {
        fs::symlink_metadata(path).unwrap().permissions().mode() & 0o7777
    }

    fn scratch_in(common: &Path) -> Scratch {
        fs::create_dir_all(common.join("objects")).unwrap();
        fs::write(common.join("config"), "[core]\n").unwrap();
        let git = GitProgram::new(common, None);
        Scratch::new(common, common, &git).unwrap()
    }

    /// Every directory and file of a scratch repository is owner-only
    /// under umask 000 (this test runs itself again under it).
    #[test]
    fn a_scratch_repository_is_owner_only_under_umask_000() {
        if std::env::var_os("SCRATCH_UMASK_CHILD").is_none() {
            let out = std::process::Command::new("sh")
                .arg("-c")
                .arg(r#"umask 000 && exec "$0" --exact "$1" --nocapture --test-threads=1"#)
                .arg(std::env::current_exe().unwrap())
                .arg("remote::scratch::tests::a_scratch_repository_is_owner_only_under_umask_000")
                .env("SCRATCH_UMASK_CHILD", "1")
                .output()
                .unwrap();
            let stdout = String::from_utf8_lossy(&out.stdout);
            assert!(
                out.status.success(),
                "{stdout}\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(stdout.contains("owner-only under umask 000"), "{stdout}");
            return;
        }
        let tmp = tempfile::tempdir().unwrap();
        // The umask is what the shell set: a file made now is 0666.
        fs::write(tmp.path().join("probe"), "").unwrap();
        assert_eq!(mode(&tmp.path().join("probe")), 0o666);
        let scratch = scratch_in(tmp.path());
        scratch.set_refs(&[]).unwrap();
        let d = &scratch.dir;
        for dir in ["", "refs", "objects", "objects/info"] {
            assert_eq!(mode(&d.join(dir)), 0o700, "{dir}");
        }
        for file in ["HEAD", "config", "objects/info/alternates", "packed-refs"] {
            assert_eq!(mode(&d.join(file)), 0o600, "{file}");
        }
        // Its lock file too: nobody else may open it (and hold its lock).
        let mut lock = d.clone().into_os_string();
        lock.push(".lock");
        assert_eq!(mode(Path::new(&lock)), 0o600, "the lock file");
        println!("owner-only under umask 000");
    }

    /// A symlink at `packed-refs` (or at its temp name) is replaced, never
    /// written through: the file it points at stays as it was.
    #[test]
    fn a_planted_symlink_is_never_written_through() {
        let tmp = tempfile::tempdir().unwrap();
        let outside = tmp.path().join("outside");
        fs::write(&outside, "keep\n").unwrap();
        let common = tmp.path().join("repo");
        let scratch = scratch_in(&common);
        let oid = ObjectId::null(gix::hash::Kind::Sha1);
        for name in ["packed-refs", "packed-refs.new"] {
            let _ = fs::remove_file(scratch.dir.join(name));
            std::os::unix::fs::symlink(&outside, scratch.dir.join(name)).unwrap();
            scratch
                .set_refs(&[("refs/entire/checkpoints/ab/cd", oid)])
                .unwrap();
            assert_eq!(fs::read_to_string(&outside).unwrap(), "keep\n", "{name}");
            let packed = scratch.dir.join("packed-refs");
            assert!(fs::symlink_metadata(&packed).unwrap().is_file(), "{name}");
            assert!(fs::read_to_string(&packed)
                .unwrap()
                .contains("refs/entire/checkpoints/ab/cd"));
        }
        // A new file is never opened through a link at its name.
        let top = Dir::open(&scratch.dir).unwrap();
        std::os::unix::fs::symlink(&outside, scratch.dir.join("HEAD.planted")).unwrap();
        assert!(write_new(&top, &scratch.dir, "HEAD.planted", b"x").is_err());
        assert_eq!(fs::read_to_string(&outside).unwrap(), "keep\n");
    }
}
