//! [`crate::Store::gc`]: removing what the retention lets go and freeing
//! exactly the objects only that reached.
//!
//! 1. Choose: undo-snapshot refs beyond the retention ([`GcOptions`], else
//!    the git config, else the defaults), the shadow branches no session
//!    needs (what [`crate::Store::shadow_clean`] deletes), and with
//!    [`GcOptions::include_checkpoints`] the persistent checkpoint refs
//!    older than the age limit. Nothing outside `refs/entire/` and the
//!    shadow branches is ever chosen.
//! 2. Delete those refs, each only while it holds the tip it was chosen
//!    with.
//! 3. The objects to free: reachable from the deleted tips (and the tips
//!    retention removed on the fly, `entire-gc-pending`) and from nothing
//!    git keeps: `git rev-list --objects <tips> --not --all --reflog
//!    --indexed-objects`. The user's own unreachable objects are never in
//!    that set, whatever their age: `gc.pruneExpire` still decides theirs.
//! 4. When some of them are packed, `git repack -A -d -l` first (reachable
//!    objects into one pack; unreachable packed ones, the user's included,
//!    loosened with their pack's time, as `git gc` does); then exactly
//!    that set's loose files are deleted (those written again since the
//!    gc began are kept).
//! 5. Snapshot files no remaining snapshot ref names: those of the deleted
//!    refs at once, others (and temp files of killed writes) once an hour
//!    old, since a write keeps its file before it moves its ref.

use std::collections::HashSet;
use std::path::Path;
use std::time::{Duration, SystemTime};

use gix::ObjectId;
use serde::Serialize;

use super::objects::{any_packed, delete_loose, disk_sizes, reachable_only_from, repack_loosening};
use super::retention::{self, now_seconds, read_pending, remove_snapshot_file, take_pending};
use super::snapshot_refs::{self, SnapshotRef};
use super::Retention;
use crate::ref_store::{self, Edit, Expected, Outcome, Value};
use crate::shadow::cas;
use crate::shadow::CleanedBranch;
use crate::snapshots::{snapshot_ref, SNAPSHOT_DIR};
use crate::{Backend, Store};
use agent_checkpoint::Result;
use agent_checkpoint_naming::id::validate_checkpoint_id;
use agent_checkpoint_naming::refs::CHECKPOINT_REF_PREFIX;

/// How old a snapshot file no ref names must be before gc removes it.
const ORPHAN_FILE_AGE: Duration = Duration::from_secs(3600);

/// What [`crate::Store::gc`] removes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct GcOptions {
    /// Undo snapshots kept per session (`Some(0)`: every one); `None`: the
    /// git config's `entire.snapshotRetention`, else 100.
    pub keep: Option<usize>,
    /// Undo snapshots older than this go (`Some(Duration::ZERO)`: none for
    /// their age); `None`: the git config's `entire.snapshotMaxAge`, else
    /// 30 days. With [`GcOptions::include_checkpoints`] the same limit
    /// applies to persistent checkpoints.
    pub older_than: Option<Duration>,
    /// Also remove persistent checkpoint refs (git-refs backend) created
    /// before the age limit, with their undo snapshots. Off by default:
    /// persistent checkpoints are kept forever.
    pub include_checkpoints: bool,
    /// Report what would go, change nothing.
    pub dry_run: bool,
}

impl GcOptions {
    /// The defaults: retention from the git config, no checkpoints, for real.
    pub fn new() -> GcOptions {
        GcOptions::default()
    }

    /// Sets [`GcOptions::keep`].
    #[must_use]
    pub fn keep(mut self, keep: usize) -> GcOptions {
        self.keep = Some(keep);
        self
    }

    /// Sets [`GcOptions::older_than`].
    #[must_use]
    pub fn older_than(mut self, age: Duration) -> GcOptions {
        self.older_than = Some(age);
        self
    }

    /// Sets [`GcOptions::include_checkpoints`].
    #[must_use]
    pub fn include_checkpoints(mut self, include: bool) -> GcOptions {
        self.include_checkpoints = include;
        self
    }

    /// Sets [`GcOptions::dry_run`].
    #[must_use]
    pub fn dry_run(mut self, dry_run: bool) -> GcOptions {
        self.dry_run = dry_run;
        self
    }
}

/// An undo-snapshot ref gc removed (or, dry, would remove).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct RemovedSnapshot {
    /// The full ref name.
    pub ref_name: String,
    /// Its checkpoint.
    pub checkpoint_id: String,
    /// The session of its tip.
    pub session_id: String,
    /// Its tip.
    pub tip: String,
    /// `beyond_retention`, `older_than` or `checkpoint_removed`.
    pub reason: String,
}

/// A persistent checkpoint ref gc removed (only with
/// [`GcOptions::include_checkpoints`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct RemovedCheckpoint {
    /// The checkpoint ID.
    pub checkpoint_id: String,
    /// The full ref name.
    pub ref_name: String,
    /// Its tip.
    pub tip: String,
}

/// What [`crate::Store::gc`] did (or, dry, would do).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct GcReport {
    /// Whether nothing was changed.
    pub dry_run: bool,
    /// The snapshots kept per session (`None`: every one).
    pub keep: Option<usize>,
    /// The age limit in seconds (`None`: none).
    pub older_than_seconds: Option<u64>,
    /// The undo-snapshot refs removed.
    pub removed_snapshots: Vec<RemovedSnapshot>,
    /// The shadow branches removed.
    pub removed_branches: Vec<CleanedBranch>,
    /// The persistent checkpoints removed.
    pub removed_checkpoints: Vec<RemovedCheckpoint>,
    /// Git objects deleted (dry: only the removed refs reach, reflogs
    /// aside).
    pub objects_removed: usize,
    /// Their bytes on disk.
    pub object_bytes_freed: u64,
    /// Snapshot files removed.
    pub snapshot_files_removed: usize,
    /// Their bytes.
    pub snapshot_file_bytes_freed: u64,
    /// Whether git repacked (some of the objects were packed).
    pub repacked: bool,
}

/// The refs chosen for removal.
struct Chosen<'a> {
    snapshots: Vec<(&'a SnapshotRef, &'static str)>,
    branches: Vec<CleanedBranch>,
    checkpoints: Vec<(String, String, ObjectId)>,
}

impl Store {
    /// Removes undo snapshots beyond the retention, the shadow branches no
    /// session needs and (only when asked) old persistent checkpoints, then
    /// frees the objects only they reached (module docs of
    /// [`crate::storage`]'s gc: the user's objects, reachable or not, are
    /// never touched).
    ///
    /// # Errors
    /// `invalid_argument` for a retention in the git config that does not
    /// parse; `corrupt_object` for an unreadable ref; an I/O error when git
    /// fails or a git lock file is in the way (refs deleted so far stay
    /// deleted; their objects are freed by the next gc).
    pub fn gc(&self, options: &GcOptions) -> Result<GcReport> {
        let repo = self.local();
        let mut retention = Retention::from_config(&repo)?;
        if let Some(keep) = options.keep {
            retention.keep = (keep > 0).then_some(keep);
        }
        if let Some(age) = options.older_than {
            retention.max_age = (!age.is_zero()).then_some(age);
        }
        let started = SystemTime::now();
        let now = now_seconds();
        let snapshots = snapshot_refs::list(&repo)?;
        let chosen = self.choose(&repo, &retention, &snapshots, options, now)?;
        let mut report = GcReport {
            dry_run: options.dry_run,
            keep: retention.keep,
            older_than_seconds: retention.max_age.map(|a| a.as_secs()),
            ..GcReport::default()
        };
        if options.dry_run {
            self.dry_run(&repo, &chosen, &snapshots, &mut report)?;
            return Ok(report);
        }
        take_pending(&self.common_dir)?;
        let (pending_files, pending) = read_pending(&repo, &self.common_dir)?;
        let who = crate::store::signature(&repo, None);
        let mut tips = pending;
        // Checkpoints first: a reader never meets a checkpoint whose
        // snapshot is gone for no reason.
        for (id, ref_name, tip) in chosen.checkpoints {
            let edit = Edit::delete(&ref_name, Expected::Is(tip), "entire: gc")?;
            match ref_store::apply(&repo, &[edit], &who)? {
                Outcome::Done => {
                    tips.push(tip);
                    report.removed_checkpoints.push(RemovedCheckpoint {
                        checkpoint_id: id,
                        ref_name,
                        tip: tip.to_string(),
                    });
                }
                Outcome::Moved => {}
                Outcome::Locked(held) => {
                    let path = held
                        .first()
                        .cloned()
                        .unwrap_or_else(|| self.common_dir.clone());
                    return Err(ref_store::lock_held(&path));
                }
            }
        }
        let refs: Vec<&SnapshotRef> = chosen.snapshots.iter().map(|(r, _)| *r).collect();
        let deleted: HashSet<&str> = retention::delete_refs(&repo, &refs, &who)?
            .into_iter()
            .map(|r| r.ref_name.as_str())
            .collect();
        for (r, reason) in &chosen.snapshots {
            if deleted.contains(r.ref_name.as_str()) {
                tips.push(r.tip);
                report.removed_snapshots.push(removed(r, reason));
            }
        }
        for branch in chosen.branches {
            let Ok(tip) = ObjectId::from_hex(branch.tip.as_bytes()) else {
                continue;
            };
            if cas::delete(&repo, &self.common_dir, &branch.branch, tip)? {
                tips.push(tip);
                report.removed_branches.push(branch);
            }
        }
        let keep = ["--all", "--reflog", "--indexed-objects"].map(String::from);
        let free = reachable_only_from(&repo, &tips, &keep)?;
        let sizes = disk_sizes(&repo, &free)?;
        if any_packed(&self.common_dir, &free) {
            repack_loosening(&repo)?;
            report.repacked = true;
        }
        // Checked again just before the delete. Kept: objects younger than
        // git's own prune limit (`gc.pruneExpire`, default 2 weeks: an
        // object a `git add` or a concurrent capture just reused may be
        // named only by a lock file or a ref not yet written), and every
        // object while an index is being written (`index.lock`).
        let free = match prune_cutoff(&repo, started) {
            Some(cutoff) if !index_being_written(&self.common_dir) => {
                reachable_only_from(&repo, &tips, &keep)?
                    .into_iter()
                    .filter(|id| !written_since(&self.common_dir, id, cutoff))
                    .collect()
            }
            _ => Vec::new(),
        };
        report.objects_removed = delete_loose(&self.common_dir, &free)?;
        report.object_bytes_freed = free.iter().filter_map(|id| sizes.get(id)).sum();
        let gone_files: HashSet<String> = snapshots
            .iter()
            .filter(|s| deleted.contains(s.ref_name.as_str()))
            .filter_map(|s| s.file_sha.clone())
            .collect();
        let remaining = snapshot_refs::list(&repo)?;
        let named: HashSet<String> = remaining.into_iter().filter_map(|s| s.file_sha).collect();
        for (name, sha) in removable_files(&self.common_dir, &named, &gone_files) {
            let freed = match sha {
                Some(sha) => remove_snapshot_file(&self.common_dir, &sha)?,
                None => remove_temp(&self.common_dir, &name),
            };
            if let Some(bytes) = freed {
                report.snapshot_files_removed += 1;
                report.snapshot_file_bytes_freed += bytes;
            }
        }
        for file in pending_files {
            if file.file_name().and_then(|n| n.to_str()) != Some(retention::PENDING_FILE) {
                let _ = std::fs::remove_file(file);
            }
        }
        Ok(report)
    }

    fn choose<'a>(
        &self,
        repo: &gix::Repository,
        retention: &Retention,
        snapshots: &'a [SnapshotRef],
        options: &GcOptions,
        now: i64,
    ) -> Result<Chosen<'a>> {
        let mut chosen = Chosen {
            snapshots: retention.select(snapshots, now),
            branches: self.unneeded_branches(repo)?,
            checkpoints: Vec::new(),
        };
        let limit = retention
            .max_age
            .map(|a| now.saturating_sub(i64::try_from(a.as_secs()).unwrap_or(i64::MAX)));
        if let (true, Some(limit)) = (options.include_checkpoints, limit) {
            let tips: std::collections::HashMap<String, ObjectId> =
                ref_store::list(repo, CHECKPOINT_REF_PREFIX)?
                    .into_iter()
                    .filter_map(|(n, v)| match v {
                        Value::Object(id) => Some((n, id)),
                        Value::Symbolic(_) => None,
                    })
                    .collect();
            for info in self.list()? {
                if info.backend != Backend::GitRefs
                    || info.damaged.is_some()
                    || info.created_at.unix_seconds() >= limit
                {
                    continue;
                }
                let Ok(id) = validate_checkpoint_id(&info.checkpoint_id) else {
                    continue;
                };
                let Ok(ref_name) = agent_checkpoint_naming::refs::ref_name(id.as_str()) else {
                    continue;
                };
                let Some(tip) = tips.get(&ref_name) else {
                    continue;
                };
                let snap = snapshot_ref(&id);
                let listed = chosen.snapshots.iter().any(|(s, _)| s.ref_name == snap);
                if let (false, Some(s)) = (listed, snapshots.iter().find(|s| s.ref_name == snap)) {
                    chosen.snapshots.push((s, "checkpoint_removed"));
                }
                chosen
                    .checkpoints
                    .push((info.checkpoint_id.clone(), ref_name, *tip));
            }
        }
        Ok(chosen)
    }

    fn dry_run(
        &self,
        repo: &gix::Repository,
        chosen: &Chosen<'_>,
        snapshots: &[SnapshotRef],
        report: &mut GcReport,
    ) -> Result<()> {
        let (_, mut tips) = read_pending(repo, &self.common_dir)?;
        let mut excluded = Vec::new();
        for (id, ref_name, tip) in &chosen.checkpoints {
            tips.push(*tip);
            excluded.push(format!("--exclude={ref_name}"));
            report.removed_checkpoints.push(RemovedCheckpoint {
                checkpoint_id: id.clone(),
                ref_name: ref_name.clone(),
                tip: tip.to_string(),
            });
        }
        for (r, reason) in &chosen.snapshots {
            tips.push(r.tip);
            excluded.push(format!("--exclude={}", r.ref_name));
            report.removed_snapshots.push(removed(r, reason));
        }
        for b in &chosen.branches {
            if let Ok(tip) = ObjectId::from_hex(b.tip.as_bytes()) {
                tips.push(tip);
            }
            excluded.push(format!("--exclude=refs/heads/{}", b.branch));
            report.removed_branches.push(b.clone());
        }
        excluded.push("--all".to_owned());
        excluded.push("--indexed-objects".to_owned());
        let free = reachable_only_from(repo, &tips, &excluded)?;
        let sizes = disk_sizes(repo, &free)?;
        report.objects_removed = free.len();
        report.object_bytes_freed = sizes.values().sum();
        let gone: HashSet<&str> = chosen
            .snapshots
            .iter()
            .map(|(r, _)| r.ref_name.as_str())
            .collect();
        let gone_files: HashSet<String> = snapshots
            .iter()
            .filter(|s| gone.contains(s.ref_name.as_str()))
            .filter_map(|s| s.file_sha.clone())
            .collect();
        let named: HashSet<String> = snapshots
            .iter()
            .filter(|s| !gone.contains(s.ref_name.as_str()))
            .filter_map(|s| s.file_sha.clone())
            .collect();
        for (name, _) in removable_files(&self.common_dir, &named, &gone_files) {
            if let Ok(meta) =
                std::fs::symlink_metadata(self.common_dir.join(SNAPSHOT_DIR).join(name))
            {
                report.snapshot_files_removed += 1;
                report.snapshot_file_bytes_freed += meta.len();
            }
        }
        Ok(())
    }
}

fn removed(r: &SnapshotRef, reason: &str) -> RemovedSnapshot {
    RemovedSnapshot {
        ref_name: r.ref_name.clone(),
        checkpoint_id: r.checkpoint_id.clone(),
        session_id: r.session_id.clone(),
        tip: r.tip.to_string(),
        reason: reason.to_owned(),
    }
}

/// Whether the loose file of `id` was written (or freshened) at or after
/// `since`.
/// The time before which an unreachable object of ours may be deleted:
/// `started` less git's prune limit (`gc.pruneExpire`: `now`, `never`,
/// `<n>.<unit>.ago` with unit second/minute/hour/day/week; unset or
/// anything else: git's default, 2 weeks). `None`: never.
fn prune_cutoff(repo: &gix::Repository, started: SystemTime) -> Option<SystemTime> {
    const TWO_WEEKS: Duration = Duration::from_secs(14 * 86_400);
    let config = repo.config_snapshot();
    let grace = match config.string("gc.pruneExpire") {
        None => TWO_WEEKS,
        Some(text) => match parse_prune_expire(&text.to_string()) {
            PruneExpire::Never => return None,
            PruneExpire::After(grace) => grace,
        },
    };
    started.checked_sub(grace)
}

/// What `gc.pruneExpire` says.
#[derive(Debug, PartialEq, Eq)]
enum PruneExpire {
    /// Never prune.
    Never,
    /// Prune objects older than this.
    After(Duration),
}

/// Parses `gc.pruneExpire` (the forms git documents most; anything else
/// is git's default, two weeks: the safe side).
fn parse_prune_expire(text: &str) -> PruneExpire {
    const TWO_WEEKS: Duration = Duration::from_secs(14 * 86_400);
    let t = text.trim().to_ascii_lowercase();
    match t.as_str() {
        "now" => return PruneExpire::After(Duration::ZERO),
        "never" | "false" => return PruneExpire::Never,
        _ => {}
    }
    let parts: Vec<&str> = t.split(['.', ' ']).filter(|p| !p.is_empty()).collect();
    let [n, unit, "ago"] = parts.as_slice() else {
        return PruneExpire::After(TWO_WEEKS);
    };
    let Ok(n) = n.parse::<u64>() else {
        return PruneExpire::After(TWO_WEEKS);
    };
    let unit_secs = match unit.trim_end_matches('s') {
        "second" => 1,
        "minute" => 60,
        "hour" => 3_600,
        "day" => 86_400,
        "week" => 604_800,
        _ => return PruneExpire::After(TWO_WEEKS),
    };
    n.checked_mul(unit_secs)
        .map_or(PruneExpire::After(TWO_WEEKS), |s| {
            PruneExpire::After(Duration::from_secs(s))
        })
}

/// Whether an index of the repository (the main worktree's or a linked
/// one's) is being written: its `index.lock` exists.
fn index_being_written(common_dir: &Path) -> bool {
    if common_dir.join("index.lock").exists() {
        return true;
    }
    std::fs::read_dir(common_dir.join("worktrees"))
        .is_ok_and(|dirs| dirs.flatten().any(|d| d.path().join("index.lock").exists()))
}

fn written_since(common_dir: &Path, id: &ObjectId, since: SystemTime) -> bool {
    let hex = id.to_string();
    let path = common_dir.join("objects").join(&hex[..2]).join(&hex[2..]);
    std::fs::symlink_metadata(path)
        .and_then(|m| m.modified())
        .is_ok_and(|t| t >= since)
}

/// The files of `entire-snapshots/` that go: `<sha>.json` no remaining ref
/// names that a deleted ref named or that is an hour old, and temp files
/// an hour old. Each as (file name, its SHA-256 for a snapshot file).
fn removable_files(
    common_dir: &Path,
    named: &HashSet<String>,
    gone: &HashSet<String>,
) -> Vec<(String, Option<String>)> {
    let Ok(entries) = std::fs::read_dir(common_dir.join(SNAPSHOT_DIR)) else {
        return Vec::new();
    };
    let old = |meta: &std::fs::Metadata| {
        meta.modified()
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age >= ORPHAN_FILE_AGE)
    };
    let mut out = Vec::new();
    for entry in entries.flatten() {
        let Ok(meta) = entry.metadata() else { continue };
        if !meta.is_file() {
            continue;
        }
        let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
            continue;
        };
        if let Some(sha) = name.strip_suffix(".json").filter(|s| !s.starts_with('.')) {
            if !named.contains(sha) && (gone.contains(sha) || old(&meta)) {
                out.push((name.clone(), Some(sha.to_owned())));
            }
        } else if name.starts_with('.') && name.ends_with(".tmp") && old(&meta) {
            out.push((name, None));
        }
    }
    out.sort();
    out
}

/// Removes a temp file of `entire-snapshots/`; its size when it went.
fn remove_temp(common_dir: &Path, name: &str) -> Option<u64> {
    let dir = common_dir.join(SNAPSHOT_DIR);
    let size = std::fs::symlink_metadata(dir.join(name)).ok()?.len();
    let fd = crate::nofollow::Dir::open(&dir).ok()?;
    fd.remove(name).ok().map(|()| size)
}

#[cfg(test)]
mod prune_expire_tests {
    use super::{parse_prune_expire, PruneExpire};
    use std::time::Duration;

    #[test]
    fn git_forms_are_read_and_anything_else_is_two_weeks() {
        let two_weeks = PruneExpire::After(Duration::from_secs(14 * 86_400));
        assert_eq!(
            parse_prune_expire("now"),
            PruneExpire::After(Duration::ZERO)
        );
        assert_eq!(parse_prune_expire("never"), PruneExpire::Never);
        assert_eq!(
            parse_prune_expire("3.days.ago"),
            PruneExpire::After(Duration::from_secs(3 * 86_400))
        );
        assert_eq!(
            parse_prune_expire("1 hour ago"),
            PruneExpire::After(Duration::from_secs(3_600))
        );
        assert_eq!(parse_prune_expire("2.weeks.ago"), two_weeks);
        assert_eq!(parse_prune_expire("yesterday-ish"), two_weeks);
        assert_eq!(parse_prune_expire("99999999999999999.weeks.ago"), two_weeks);
    }
}
