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

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use gix::ObjectId;

use crate::remote::git_program::GitProgram;
use agent_checkpoint::{Error, Result};

/// A scratch git dir, deleted on drop.
pub(crate) struct Scratch {
    dir: PathBuf,
    pub git: GitProgram,
}

impl Scratch {
    /// A new scratch git dir in `common_dir` borrowing its objects and config.
    ///
    /// # Errors
    /// An I/O error when it cannot be created.
    pub(crate) fn new(common_dir: &Path, git_dir: &Path, real: &GitProgram) -> Result<Scratch> {
        let mut bytes = [0u8; 8];
        getrandom::fill(&mut bytes).map_err(|e| Error::Io {
            path: None,
            error: std::io::Error::other(format!("system random source failed: {e}")),
        })?;
        let common_dir = std::path::absolute(common_dir).map_err(|e| io(common_dir, e))?;
        let git_dir = std::path::absolute(git_dir).map_err(|e| io(git_dir, e))?;
        let dir = common_dir.join(format!("entire-push-{}", hex::encode(bytes)));
        let scratch = Scratch {
            git: real.with_git_dir(&dir),
            dir,
        };
        scratch.lay_out(&common_dir, &git_dir)?;
        Ok(scratch)
    }

    fn lay_out(&self, common_dir: &Path, git_dir: &Path) -> Result<()> {
        let d = &self.dir;
        fs::create_dir(d).map_err(|e| io(d, e))?;
        for sub in ["refs", "objects/info"] {
            fs::create_dir_all(d.join(sub)).map_err(|e| io(d, e))?;
        }
        write(&d.join("HEAD"), b"ref: refs/heads/main\n")?;
        let mut alternates = common_dir.join("objects").into_os_string();
        alternates.push("\n");
        write(
            &d.join("objects/info/alternates"),
            alternates.as_encoded_bytes(),
        )?;
        let mut config = String::from("[core]\n\trepositoryformatversion = 0\n\tbare = true\n");
        for file in [common_dir.join("config"), git_dir.join("config.worktree")] {
            if file.is_file() {
                config.push_str(&format!("[include]\n\tpath = {}\n", quoted(&file)));
            }
        }
        // Ours win over what the include brought: a bare repository, no gc.
        config.push_str("[core]\n\tbare = true\n[gc]\n\tauto = 0\n[maintenance]\n\tauto = false\n");
        write(&d.join("config"), config.as_bytes())
    }

    /// Makes `refs` (name, tip) the scratch repository's only refs.
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
        write(&self.dir.join("packed-refs"), text.as_bytes())
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

fn write(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut file = fs::File::create(path).map_err(|e| io(path, e))?;
    file.write_all(bytes).map_err(|e| io(path, e))
}

fn io(path: &Path, e: std::io::Error) -> Error {
    Error::io(path.display().to_string(), e)
}
