//! How a repository's lock files are made and waited for: its sharing mode
//! and the lock wait of the [`crate::Store`] that opened it, recorded per
//! git common dir when a store is opened, so every lock the store takes
//! (per-ref, shadow) finds them from its path (`<common-dir>/<dir>/<file>`).
//! Within one process the store opened last on a repository sets them.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use agent_checkpoint_naming::lock_wait::DEFAULT_LOCK_WAIT;

use crate::sharing::Sharing;

/// What a lock under one common dir is made with and waited for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LockPolicy {
    /// The longest wait for a lock another process holds.
    pub wait: Duration,
    /// The mode of lock directories and files.
    pub sharing: Sharing,
}

impl Default for LockPolicy {
    fn default() -> LockPolicy {
        LockPolicy {
            wait: DEFAULT_LOCK_WAIT,
            sharing: Sharing::Private,
        }
    }
}

static POLICIES: Mutex<Vec<(PathBuf, LockPolicy)>> = Mutex::new(Vec::new());

/// Records the policy of the repository whose git common dir is `common_dir`.
pub(crate) fn register(common_dir: &Path, policy: LockPolicy) {
    let mut policies = POLICIES.lock().unwrap_or_else(|p| p.into_inner());
    match policies.iter_mut().find(|(dir, _)| dir == common_dir) {
        Some((_, kept)) => *kept = policy,
        None => policies.push((common_dir.to_path_buf(), policy)),
    }
}

/// The policy of the lock file `path` (`<common-dir>/<dir>/<file>`); the
/// default when no store registered its common dir.
pub(crate) fn policy_of_lock(path: &Path) -> LockPolicy {
    let Some(common_dir) = path.parent().and_then(Path::parent) else {
        return LockPolicy::default();
    };
    let policies = POLICIES.lock().unwrap_or_else(|p| p.into_inner());
    policies
        .iter()
        .find(|(dir, _)| dir == common_dir)
        .map(|(_, policy)| *policy)
        .unwrap_or_default()
}

/// The push queue of the repository whose git common dir is `common_dir`,
/// with its lock wait and sharing mode.
pub(crate) fn push_queue(common_dir: &Path) -> agent_checkpoint_naming::PushQueue {
    let policy = {
        let policies = POLICIES.lock().unwrap_or_else(|p| p.into_inner());
        policies
            .iter()
            .find(|(dir, _)| dir == common_dir)
            .map(|(_, policy)| *policy)
            .unwrap_or_default()
    };
    agent_checkpoint_naming::PushQueue::new(common_dir)
        .with_lock_wait(policy.wait)
        .with_sharing(policy.sharing)
}
