//! What a remote was last seen holding, per checkpoint ref: the tip it
//! confirmed on a push, or the tip a fetch brought from it. A push sends
//! every local checkpoint ref whose tip differs from this record, queued
//! or not — so a write whose enqueue failed (or that was killed between
//! moving its ref and enqueuing it) still reaches the remote; the push
//! queue is a hint, not the only record.
//!
//! One file per remote (as the caller names it) in the git common dir,
//! `entire-remote-<sha256(remote)[..16]>.tips`, lines `<tip> <ref>`,
//! replaced whole by rename. Two processes saving at once may lose each
//! other's lines; that only makes a later push send those refs again (the
//! remote answers "up to date"), never leaves one out.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use gix::ObjectId;
use sha2::{Digest, Sha256};

use crate::remote::held;
use agent_checkpoint::{Error, Result};

/// The record of one remote, with what this call changed.
pub(crate) struct Record {
    path: PathBuf,
    tips: BTreeMap<String, ObjectId>,
    changed: BTreeMap<String, ObjectId>,
}

impl Record {
    /// The record of `remote` in `common_dir` (empty when there is none or
    /// it cannot be read: then every local checkpoint is sent once more).
    pub(crate) fn load(common_dir: &Path, remote: &str) -> Record {
        let key = hex::encode(&Sha256::digest(remote.as_bytes())[..8]);
        let path = common_dir.join(format!("entire-remote-{key}.tips"));
        Record {
            tips: read(&path),
            path,
            changed: BTreeMap::new(),
        }
    }

    /// The tip the remote was last seen holding for `ref_name`.
    pub(crate) fn get(&self, ref_name: &str) -> Option<ObjectId> {
        self.tips.get(ref_name).copied()
    }

    /// The remote holds `ref_name` at `tip`.
    pub(crate) fn set(&mut self, ref_name: &str, tip: ObjectId) {
        self.tips.insert(ref_name.to_owned(), tip);
        self.changed.insert(ref_name.to_owned(), tip);
    }

    /// Writes this call's changes over the file as it is now.
    ///
    /// # Errors
    /// An I/O error when the file cannot be written.
    pub(crate) fn save(&mut self) -> Result<()> {
        if self.changed.is_empty() {
            return Ok(());
        }
        let mut tips = read(&self.path);
        tips.extend(self.changed.iter().map(|(r, t)| (r.clone(), *t)));
        let mut text = String::new();
        for (r, t) in &tips {
            text.push_str(&format!("{t} {r}\n"));
        }
        let tmp = self
            .path
            .with_extension(format!("tips.{}.tmp", held::token()?));
        let written = std::fs::File::create(&tmp)
            .and_then(|mut f| f.write_all(text.as_bytes()))
            .and_then(|()| std::fs::rename(&tmp, &self.path));
        if let Err(e) = written {
            let _ = std::fs::remove_file(&tmp);
            return Err(Error::io(self.path.display().to_string(), e));
        }
        self.tips = tips;
        self.changed.clear();
        Ok(())
    }
}

fn read(path: &Path) -> BTreeMap<String, ObjectId> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return BTreeMap::new();
    };
    text.lines()
        .filter_map(|line| {
            let (tip, name) = line.split_once(' ')?;
            let tip = ObjectId::from_hex(tip.as_bytes()).ok()?;
            Some((name.to_owned(), tip))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saved_tips_read_back_and_two_savers_never_lose_a_ref() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let t1 = ObjectId::from_hex(b"1111111111111111111111111111111111111111")
            .unwrap_or_else(|e| panic!("{e}"));
        let t2 = ObjectId::from_hex(b"2222222222222222222222222222222222222222")
            .unwrap_or_else(|e| panic!("{e}"));
        let mut a = Record::load(dir.path(), "origin");
        let mut b = Record::load(dir.path(), "origin");
        a.set("refs/entire/checkpoints/aa/x", t1);
        b.set("refs/entire/checkpoints/bb/y", t2);
        a.save().unwrap_or_else(|e| panic!("{e}"));
        b.save().unwrap_or_else(|e| panic!("{e}"));
        let c = Record::load(dir.path(), "origin");
        assert_eq!(c.get("refs/entire/checkpoints/aa/x"), Some(t1));
        assert_eq!(c.get("refs/entire/checkpoints/bb/y"), Some(t2));
        assert_eq!(Record::load(dir.path(), "upstream").get("x"), None);
    }
}
