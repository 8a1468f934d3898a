//! Rolling a checkpoint back when the caller names no root: under the
//! repository's working tree, and only a snapshot that was taken there.
//!
//! A snapshot's paths are relative to the root it was captured under. One
//! captured at a subdirectory of the working tree (or at another directory
//! altogether) and rolled back under the working tree would write and
//! remove other files, so that default refuses it (`root_mismatch`); a
//! caller who means another root passes it.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use agent_checkpoint::root::ambient_authority;
use agent_checkpoint::{
    CapRoot, Error, ParseOptions, Plan, PlanOptions, Result, RollbackOptions, RollbackReport, Root,
};

use crate::Store;

impl Store {
    /// Where checkpoint `id`'s undo snapshot rolls back, and its text:
    /// `root` when given (the core's `strict_root` option then decides
    /// about a snapshot taken elsewhere), else the working tree, for a
    /// snapshot that records no root or records the working tree.
    ///
    /// # Errors
    /// `invalid_argument` when no root is given and the repository has no
    /// working tree; `root_mismatch` when no root is given and the
    /// snapshot was taken under another directory (a subdirectory of the
    /// working tree, say); as [`Store::undo_snapshot`].
    pub fn undo_target(&self, id: &str, root: Option<&Path>) -> Result<(PathBuf, String)> {
        let text = self.undo_snapshot(id)?;
        let root = match root {
            Some(root) => root.to_path_buf(),
            None => {
                let work_dir = self.require_work_dir()?;
                check_taken_under(&work_dir, &text)?;
                work_dir
            }
        };
        Ok((root, text))
    }

    /// [`Store::rollback`] under the working tree, refusing a snapshot
    /// taken under another root as [`Store::undo_target`] does.
    ///
    /// # Errors
    /// As [`Store::undo_target`] and [`Store::rollback`]; nothing is
    /// touched when it fails.
    pub fn rollback_work_tree(
        &self,
        id: &str,
        parse: &ParseOptions,
        options: &RollbackOptions,
    ) -> Result<RollbackReport> {
        let (root, text) = self.undo_target(id, None)?;
        crate::undo::rollback(&root, &text, parse, options)
    }

    /// [`Store::plan_rollback`] under the working tree, refusing a
    /// snapshot taken under another root as [`Store::undo_target`] does.
    ///
    /// # Errors
    /// As [`Store::undo_target`] and [`Store::plan_rollback`].
    pub fn plan_rollback_work_tree(
        &self,
        id: &str,
        parse: &ParseOptions,
        options: &PlanOptions,
    ) -> Result<Plan> {
        let (root, text) = self.undo_target(id, None)?;
        crate::undo::plan(&root, &text, parse, options)
    }

    fn require_work_dir(&self) -> Result<PathBuf> {
        self.work_dir().ok_or_else(|| {
            Error::invalid_argument("root", "the repository has no working tree: pass a root")
        })
    }
}

/// The one member of a snapshot this check reads; every other member is
/// skipped unread.
#[derive(Deserialize)]
struct RecordedRoot {
    #[serde(default)]
    root: Option<String>,
}

/// `root_mismatch` when `snapshot` records a root other than `work_dir`,
/// compared as the core compares them (the canonical path of the opened
/// directory). A snapshot the light read cannot make out is left to the
/// core's full parse, which refuses it before anything is touched.
fn check_taken_under(work_dir: &Path, snapshot: &str) -> Result<()> {
    let Ok(RecordedRoot {
        root: Some(captured),
    }) = serde_json::from_str::<RecordedRoot>(snapshot)
    else {
        return Ok(());
    };
    let given = CapRoot::open(work_dir, ambient_authority())?.canonical_path();
    match given {
        Some(given) if given != captured => Err(Error::RootMismatch { captured, given }),
        _ => Ok(()),
    }
}
