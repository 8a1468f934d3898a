//! Where a fetch puts the remote's tips before they are merged:
//! `refs/entire-fetch-tmp/<token>/<ref without refs/>`, one namespace per
//! fetching call (a random token), so two fetches at once in one
//! repository never share (and never delete) each other's temp refs. The
//! namespace is in use while `<common dir>/entire-fetch-<token>.lock` is
//! held (see `held`); a new namespace first deletes the temp refs of every
//! abandoned one (a fetch killed before it cleaned up).

use std::collections::BTreeMap;
use std::path::Path;

use crate::remote::held::{self, Held, Owner};
use crate::remote::integrate::{delete_refs, FETCH_TMP_PREFIX};
use agent_checkpoint::{Error, Result};

/// One fetching call's temp-ref namespace.
pub(crate) struct TmpRefs {
    token: String,
    _held: Held,
}

impl TmpRefs {
    /// A new namespace, after sweeping abandoned ones.
    ///
    /// # Errors
    /// An I/O error when its lock file cannot be created.
    pub(crate) fn new(repo: &gix::Repository, common_dir: &Path) -> Result<TmpRefs> {
        sweep(repo, common_dir);
        for _ in 0..16 {
            let token = held::token()?;
            if let Some(lock) = Held::create(&lock_path(common_dir, &token))? {
                return Ok(TmpRefs { token, _held: lock });
            }
        }
        Err(Error::Io {
            path: Some(common_dir.display().to_string()),
            error: std::io::Error::other("no free name for a fetch's temp refs"),
        })
    }

    /// The temp ref `ref_name` is fetched into.
    pub(crate) fn name(&self, ref_name: &str) -> String {
        format!(
            "{FETCH_TMP_PREFIX}{}/{}",
            self.token,
            ref_name.strip_prefix("refs/").unwrap_or(ref_name)
        )
    }
}

fn lock_path(common_dir: &Path, token: &str) -> std::path::PathBuf {
    common_dir.join(format!("entire-fetch-{token}.lock"))
}

/// Deletes the temp refs of every namespace no live fetch holds (and those
/// of the single shared namespace older versions used). Best effort.
fn sweep(repo: &gix::Repository, common_dir: &Path) {
    // Through the ref store: a reftable repository's refs are not files.
    let Ok(found) = crate::ref_store::list(repo, FETCH_TMP_PREFIX) else {
        return;
    };
    let mut by_space: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (name, _) in found {
        let Some(rest) = name.strip_prefix(FETCH_TMP_PREFIX) else {
            continue;
        };
        let space = rest.split('/').next().unwrap_or_default().to_owned();
        by_space.entry(space).or_default().push(name);
    }
    for (space, refs) in by_space {
        let owner = if held::is_token(&space) {
            held::owner(&lock_path(common_dir, &space))
        } else {
            Owner::None
        };
        match owner {
            Owner::Alive => {}
            Owner::None => {
                let _ = delete_refs(repo, &refs);
            }
            Owner::Gone(lock) => {
                let _ = delete_refs(repo, &refs);
                drop(lock);
            }
        }
    }
    // Lock files of fetches killed before they made a temp ref.
    let Ok(entries) = std::fs::read_dir(common_dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let token = name
            .to_str()
            .and_then(|n| n.strip_prefix("entire-fetch-"))
            .and_then(|n| n.strip_suffix(".lock"));
        if token.is_some_and(held::is_token) {
            if let Owner::Gone(lock) = held::owner(&entry.path()) {
                drop(lock);
            }
        }
    }
}
