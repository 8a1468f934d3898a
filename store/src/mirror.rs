//! The mirror topology (the seed's branch-to-refs rollout): git-refs as the
//! primary, the v1 branch as a mirror. Every write lands on the primary
//! first; then the checkpoint's whole new tree is copied to the mirror (its
//! summary's session paths relocated), so a mirror that missed a write (a
//! failure, an older client) is brought level by the next write of that
//! checkpoint. A mirror failure never undoes the primary write: it is
//! reported in the result and logged. Reads prefer the primary (a legacy
//! ID is read from refs, then the branch).

use gix::ObjectId;

use crate::backend::{Backend, Place};
use crate::relocate;
use crate::store::Store;
use agent_checkpoint::{ErrorCode, Result};

/// What a write did to the store's mirror.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum MirrorOutcome {
    /// The mirror now holds the primary's checkpoint at this commit (hex).
    Written {
        /// The mirror ref.
        ref_name: String,
        /// Its new commit.
        commit: String,
    },
    /// The mirror cannot hold this checkpoint (a ULID: the branch holds
    /// legacy 12-hex IDs only); nothing was tried.
    Skipped {
        /// Why.
        reason: String,
    },
    /// The mirror write failed; the primary write stands, and the next
    /// write of the checkpoint copies it again.
    Failed {
        /// The error's stable code.
        code: ErrorCode,
        /// The error's message.
        reason: String,
    },
}

/// The mirror's part of one write. Serialised as `{"backend", "status":
/// "written" | "skipped" | "failed", ...}` with the outcome's fields beside
/// (`ref_name` and `commit`; `reason`; `code` and `reason`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct MirrorWrite {
    /// The mirror's backend.
    pub backend: Backend,
    /// What happened there.
    pub outcome: MirrorOutcome,
}

impl Store {
    /// The mirror's backend when writes to `place` are mirrored.
    pub(crate) fn mirror_of(&self, place: &Place) -> Option<Backend> {
        self.options
            .mirror
            .filter(|_| place.backend == self.options.backend)
    }

    /// Copies the checkpoint of `place` as the primary commit `commit`
    /// holds it to the mirror, with `message` (its task trailer relocated);
    /// `None` when the store has no mirror. A failure is logged.
    pub(crate) fn mirror_write(
        &self,
        repo: &gix::Repository,
        place: &Place,
        commit: ObjectId,
        message: &str,
        who: &gix::actor::Signature,
    ) -> Option<MirrorWrite> {
        let backend = self.mirror_of(place)?;
        let outcome = match Place::new(&place.id, backend) {
            Err(e) => MirrorOutcome::Skipped {
                reason: e.to_string(),
            },
            Ok(mirror) => match self.copy_to(repo, place, commit, &mirror, message, who) {
                Ok(commit) => MirrorOutcome::Written {
                    ref_name: mirror.ref_name().to_owned(),
                    commit: commit.to_string(),
                },
                Err(e) => {
                    (self.options.log)(&format!(
                        "checkpoint {} was written to {} but not to its mirror {backend}: {e}",
                        place.id, place.backend
                    ));
                    MirrorOutcome::Failed {
                        code: e.code(),
                        reason: e.to_string(),
                    }
                }
            },
        };
        Some(MirrorWrite { backend, outcome })
    }

    fn copy_to(
        &self,
        repo: &gix::Repository,
        place: &Place,
        commit: ObjectId,
        mirror: &Place,
        message: &str,
        who: &gix::actor::Signature,
    ) -> Result<ObjectId> {
        let tree = place
            .checkpoint_tree(repo, Some(commit))?
            .ok_or_else(|| crate::objects::corrupt(place.ref_name(), "lost its checkpoint"))?;
        let moved = relocate::tree(repo, tree, place, mirror)?;
        let message = relocate::message(message, place, mirror);
        let (commit, ()) = self.commit_to(
            repo,
            mirror,
            who,
            &message,
            |_, _| Ok((moved, ())),
            |_, _, v| Ok(v),
        )?;
        Ok(commit)
    }
}

impl serde::Serialize for MirrorWrite {
    fn serialize<S: serde::Serializer>(
        &self,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("backend", self.backend.as_str())?;
        match &self.outcome {
            MirrorOutcome::Written { ref_name, commit } => {
                map.serialize_entry("status", "written")?;
                map.serialize_entry("ref_name", ref_name)?;
                map.serialize_entry("commit", commit)?;
            }
            MirrorOutcome::Skipped { reason } => {
                map.serialize_entry("status", "skipped")?;
                map.serialize_entry("reason", reason)?;
            }
            MirrorOutcome::Failed { code, reason } => {
                map.serialize_entry("status", "failed")?;
                map.serialize_entry("code", code.as_str())?;
                map.serialize_entry("reason", reason)?;
            }
        }
        map.end()
    }
}
