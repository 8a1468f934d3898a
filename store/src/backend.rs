//! The two persistent backends and where a checkpoint sits in each.

use std::fmt;
use std::str::FromStr;

use gix::ObjectId;

use crate::{branch_backend, refs_backend};
use agent_checkpoint::{Error, Result};
use agent_checkpoint_naming::id::{CheckpointId, IdKind};

/// Where new checkpoints are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Backend {
    /// One ref per checkpoint, `refs/entire/checkpoints/<shard>/<id>`, whose
    /// commit's tree is the checkpoint (the default).
    #[default]
    GitRefs,
    /// The branch `entire/checkpoints/v1`, each checkpoint at `<id[:2]>/<id[2:]>/`.
    /// It holds legacy (12-hex) IDs only: ULIDs are read from refs.
    GitBranch,
}

impl Backend {
    /// `git-refs` or `git-branch`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Backend::GitRefs => "git-refs",
            Backend::GitBranch => "git-branch",
        }
    }
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Backend {
    type Err = Error;

    fn from_str(s: &str) -> Result<Backend> {
        match s {
            "git-refs" => Ok(Backend::GitRefs),
            "git-branch" => Ok(Backend::GitBranch),
            other => Err(Error::invalid_argument(
                "backend",
                format!("{other:?} is neither \"git-refs\" nor \"git-branch\""),
            )),
        }
    }
}

/// One checkpoint's place: the ref that holds it and its directory there.
#[derive(Debug, Clone)]
pub(crate) struct Place {
    pub id: CheckpointId,
    pub backend: Backend,
    ref_name: String,
    prefix: String,
}

impl Place {
    /// The checkpoint `id` in `backend`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a ULID on the branch (reads route
    /// ULIDs to refs only, so it would never be found).
    pub(crate) fn new(id: &CheckpointId, backend: Backend) -> Result<Place> {
        match backend {
            Backend::GitRefs => Ok(Place {
                ref_name: refs_backend::ref_for(id)?,
                prefix: String::new(),
                id: id.clone(),
                backend,
            }),
            Backend::GitBranch => {
                if id.kind() == IdKind::Ulid {
                    return Err(Error::invalid_argument(
                        "backend",
                        format!(
                            "checkpoint {id} is a ULID: ULID checkpoints live in git-refs, the v1 branch holds legacy 12-hex IDs"
                        ),
                    ));
                }
                Ok(Place {
                    ref_name: branch_backend::BRANCH_REF.to_owned(),
                    prefix: format!("{}/", branch_backend::checkpoint_dir(id)),
                    id: id.clone(),
                    backend,
                })
            }
        }
    }

    /// The ref whose commit holds the checkpoint.
    pub(crate) fn ref_name(&self) -> &str {
        &self.ref_name
    }

    /// The checkpoint's directory in that commit's tree, with a trailing
    /// `/` (empty for git-refs).
    pub(crate) fn prefix(&self) -> &str {
        &self.prefix
    }

    /// The checkpoint's tree in the commit `tip`, if it is there.
    pub(crate) fn checkpoint_tree(
        &self,
        repo: &gix::Repository,
        tip: Option<ObjectId>,
    ) -> Result<Option<ObjectId>> {
        let Some(tip) = tip else { return Ok(None) };
        match self.backend {
            Backend::GitRefs => refs_backend::checkpoint_tree(repo, tip, &self.ref_name).map(Some),
            Backend::GitBranch => branch_backend::checkpoint_tree(repo, tip, &self.id),
        }
    }

    /// The root tree and parent of the next commit of the ref, given the
    /// checkpoint's new tree.
    pub(crate) fn next_commit(
        &self,
        repo: &gix::Repository,
        tip: Option<ObjectId>,
        checkpoint_tree: ObjectId,
        who: &gix::actor::Signature,
    ) -> Result<(ObjectId, Option<ObjectId>)> {
        match self.backend {
            Backend::GitRefs => Ok((checkpoint_tree, tip)),
            Backend::GitBranch => branch_backend::splice(repo, tip, &self.id, checkpoint_tree, who),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_places() {
        assert_eq!("git-branch".parse::<Backend>().unwrap(), Backend::GitBranch);
        assert!("git".parse::<Backend>().is_err());
        let legacy = agent_checkpoint_naming::id::validate_checkpoint_id("a1b2c3d4e5f6").unwrap();
        let place = Place::new(&legacy, Backend::GitBranch).unwrap();
        assert_eq!(place.ref_name(), "refs/heads/entire/checkpoints/v1");
        assert_eq!(place.prefix(), "a1/b2c3d4e5f6/");
        let place = Place::new(&legacy, Backend::GitRefs).unwrap();
        assert_eq!(place.ref_name(), "refs/entire/checkpoints/f6/a1b2c3d4e5f6");
        assert_eq!(place.prefix(), "");
        let ulid =
            agent_checkpoint_naming::id::validate_checkpoint_id("01KVBJCWYA4YW6J5M9GP655HZN")
                .unwrap();
        assert_eq!(
            Place::new(&ulid, Backend::GitBranch).unwrap_err().code(),
            agent_checkpoint::ErrorCode::InvalidArgument
        );
    }
}
