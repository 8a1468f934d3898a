//! Reading after a treeless fetch (the seed's `FetchingTree`): the blobs a
//! checkpoint lacks ([`Store::missing_blobs`]), all of them fetched in one
//! `git fetch` ([`Store::prefetch`]), and the fetch a read makes of the
//! blobs it is about to read (`Store::fetch_blobs`, used by `read`,
//! `read_session` and `list`). The blobs come from the repository's
//! promisor remotes (see `promisor`); offline, that read is
//! `remote_unreachable`, never `corrupt_object`.

use gix::ObjectId;
use serde::Serialize;

use crate::remote::blobs::{blobs, Which};
use crate::remote::git_program::GitProgram;
use crate::remote::promisor::{fetch_objects, missing};
use crate::store::Store;
use agent_checkpoint::Result;
use agent_checkpoint_naming::id::validate_checkpoint_id;

/// A blob of a checkpoint that is not in the local repository (a treeless
/// fetch left it on the remote).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct MissingBlob {
    /// Its path in the checkpoint (`0/full.jsonl`).
    pub path: String,
    /// Its object ID (hex).
    pub oid: String,
}

impl Store {
    /// The blobs of checkpoint `id` that are not here, in tree order: after
    /// a treeless fetch ([`Store::fetch_all`]), its transcripts, prompts
    /// and content hashes until something reads them. Empty for a
    /// checkpoint written or fully fetched here.
    ///
    /// # Errors
    /// `invalid_checkpoint_id`; `not_found`; `corrupt_object` when a tree
    /// is missing or malformed.
    pub fn missing_blobs(&self, id: &str) -> Result<Vec<MissingBlob>> {
        let id = validate_checkpoint_id(id)?;
        let repo = self.local();
        let found = self.require(&repo, &id)?;
        let all = blobs(&repo, found.tree, Which::All, &format!("checkpoint {id}"))?;
        let oids: Vec<ObjectId> = all.iter().map(|(_, oid)| *oid).collect();
        let absent: std::collections::HashSet<ObjectId> =
            missing(&repo, &oids).into_iter().collect();
        Ok(all
            .into_iter()
            .filter(|(_, oid)| absent.contains(oid))
            .map(|(path, oid)| MissingBlob {
                path,
                oid: oid.to_string(),
            })
            .collect())
    }

    /// Fetches every blob checkpoint `id` lacks ([`Store::missing_blobs`])
    /// from the repository's promisor remotes, in one `git fetch`, so the
    /// whole checkpoint reads offline afterwards; returns how many arrived
    /// (`0` when none was missing).
    ///
    /// # Errors
    /// As [`Store::missing_blobs`]; `remote_unreachable` / `auth_failed`
    /// when the remote cannot give them.
    pub fn prefetch(&self, id: &str) -> Result<usize> {
        let id = validate_checkpoint_id(id)?;
        let repo = self.local();
        let found = self.require(&repo, &id)?;
        let all = blobs(&repo, found.tree, Which::All, &format!("checkpoint {id}"))?;
        let oids: Vec<ObjectId> = all.into_iter().map(|(_, oid)| oid).collect();
        self.fetch_blobs(&repo, &oids)
    }

    /// Makes the blobs `oids` (about to be read) present: the missing ones
    /// are fetched together from the promisor remotes; how many arrived.
    /// Nothing runs when all are here.
    ///
    /// # Errors
    /// `remote_unreachable` / `auth_failed` when some are missing and
    /// cannot be fetched.
    pub(crate) fn fetch_blobs(&self, repo: &gix::Repository, oids: &[ObjectId]) -> Result<usize> {
        if missing(repo, oids).is_empty() {
            return Ok(0);
        }
        let git = GitProgram::new(repo.git_dir(), repo.workdir());
        fetch_objects(&git, repo, oids)
    }
}
