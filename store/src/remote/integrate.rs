//! Bringing the remote's tip of one ref into the local ref, whose objects
//! a fetch put in its temp refs (`refs/entire-fetch-tmp/<token>/...`):
//! create it, fast-forward it, leave it (ours is ahead) or replay ours on
//! the remote's tip — always by
//! compare-and-swap under the ref's lock, so a local write meanwhile is
//! never lost (the attempt is rebuilt on the fresh tip).

use gix::ObjectId;

use crate::objects::git_error;
use crate::ref_store::{self, Edit, Expected, Outcome};
use crate::ref_update::{self, cas_edit, read_tip, Proposal};
use crate::remote::history::merge_base;
use crate::remote::replay::replay;
use crate::store::{signature, Store};
use agent_checkpoint::Result;

/// Namespace the remote's tips are fetched into before they are merged
/// (each fetching call under its own `<token>/`).
pub const FETCH_TMP_PREFIX: &str = "refs/entire-fetch-tmp/";

/// What bringing in the remote's tip did to the local ref.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FetchOutcome {
    /// The ref did not exist locally; it now holds the remote's tip.
    Created,
    /// The ref moved forward to the remote's tip.
    FastForwarded,
    /// The ref already held the remote's tip.
    UpToDate,
    /// The ref already holds the remote's tip and more (ours is ahead).
    LocalAhead,
    /// Both sides had new commits: ours were replayed on the remote's tip
    /// (the ref is now ahead of the remote).
    Replayed,
}

impl FetchOutcome {
    /// `created`, `fast_forwarded`, `up_to_date`, `local_ahead` or `replayed`.
    pub const fn as_str(self) -> &'static str {
        match self {
            FetchOutcome::Created => "created",
            FetchOutcome::FastForwarded => "fast_forwarded",
            FetchOutcome::UpToDate => "up_to_date",
            FetchOutcome::LocalAhead => "local_ahead",
            FetchOutcome::Replayed => "replayed",
        }
    }

    /// Whether the local ref now holds commits the remote lacks.
    pub const fn ahead(self) -> bool {
        matches!(self, FetchOutcome::LocalAhead | FetchOutcome::Replayed)
    }
}

/// Brings `remote_tip` into the local `ref_name`; returns what happened and
/// the local tip after.
///
/// # Errors
/// `conflict` (the local ref untouched) when one session was written
/// differently on both sides; `ref_busy`; `corrupt_object`.
pub(crate) fn integrate(
    store: &Store,
    repo: &gix::Repository,
    ref_name: &str,
    remote_tip: ObjectId,
) -> Result<(FetchOutcome, ObjectId)> {
    // Cases that change nothing stay that way whatever a local writer does
    // meanwhile (writers only move a ref forward).
    if let Some(local) = read_tip(repo, ref_name)? {
        if local == remote_tip {
            return Ok((FetchOutcome::UpToDate, local));
        }
        if merge_base(repo, local, remote_tip)? == Some(remote_tip) {
            return Ok((FetchOutcome::LocalAhead, local));
        }
    }
    let who = signature(repo, None);
    ref_update::update(repo, &store.common_dir, ref_name, &who, |local| {
        let (outcome, new) = match local {
            None => (FetchOutcome::Created, remote_tip),
            Some(local) => {
                let base = merge_base(repo, local, remote_tip)?;
                if base == Some(local) {
                    (FetchOutcome::FastForwarded, remote_tip)
                } else {
                    let new = replay(repo, &store.cache, ref_name, local, remote_tip, base)?;
                    (FetchOutcome::Replayed, new)
                }
            }
        };
        Ok(Proposal {
            edits: vec![cas_edit(ref_name, local, new, "entire: merge remote")?],
            value: (outcome, new),
        })
    })
}

/// Deletes the refs `names` (missing ones are fine), in one transaction.
pub(crate) fn delete_refs(repo: &gix::Repository, names: &[String]) -> Result<()> {
    if names.is_empty() {
        return Ok(());
    }
    let edits = names
        .iter()
        .map(|name| Edit::delete(name, Expected::Any, "entire: fetch done"))
        .collect::<Result<Vec<_>>>()?;
    let who = signature(repo, None);
    match ref_store::apply(repo, &edits, &who)? {
        Outcome::Done => Ok(()),
        Outcome::Moved => Err(git_error(
            "deleting the fetch temp refs",
            "a ref changed meanwhile",
        )),
        Outcome::Locked(held) => Err(match held.first() {
            Some(path) => ref_store::lock_held(path),
            None => git_error("deleting the fetch temp refs", "a git lock file was held"),
        }),
    }
}
