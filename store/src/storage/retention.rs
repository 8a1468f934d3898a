//! Undo-snapshot retention: how many snapshot refs a session keeps and
//! how old one may get, from the repository's git config or the
//! defaults, applied by every write that stores a snapshot and by
//! [`crate::Store::gc`].
//!
//! A ref removed on the fly leaves its git objects for the next
//! [`crate::Store::gc`], which finds them through the tips recorded in
//! `<git-common-dir>/entire-gc-pending` (one hex id per line): a write
//! pays for a ref delete, never for a walk of the object database.

use std::collections::{BTreeMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use gix::ObjectId;

use super::snapshot_refs::{self, SnapshotRef};
use crate::nofollow::{Create, Dir};
use crate::ref_store::{self, Edit, Expected, Outcome};
use crate::snapshots::SNAPSHOT_DIR;
use agent_checkpoint::{Error, Result};

/// The git config key of the number of undo snapshots kept per session
/// (`0`: every one).
pub const RETENTION_CONFIG: &str = "entire.snapshotRetention";

/// The git config key of the age beyond which undo snapshots go (`30d`,
/// `12h`, `2w`; `never` or `0`: no age limit).
pub const MAX_AGE_CONFIG: &str = "entire.snapshotMaxAge";

/// Undo snapshots kept per session when [`RETENTION_CONFIG`] is not set.
pub const DEFAULT_SNAPSHOT_RETENTION: usize = 100;

/// The age beyond which undo snapshots go when [`MAX_AGE_CONFIG`] is not
/// set: 30 days.
pub const DEFAULT_SNAPSHOT_MAX_AGE: Duration = Duration::from_secs(30 * 24 * 3600);

/// The file (in the git common dir) of tips whose refs retention removed
/// and whose objects the next gc frees.
pub(crate) const PENDING_FILE: &str = "entire-gc-pending";

/// Which undo snapshots stay.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Retention {
    /// The newest this many per session stay (`None`: all).
    pub keep: Option<usize>,
    /// Snapshots older than this go (`None`: none for their age).
    pub max_age: Option<Duration>,
}

impl Default for Retention {
    /// [`DEFAULT_SNAPSHOT_RETENTION`] per session, [`DEFAULT_SNAPSHOT_MAX_AGE`].
    fn default() -> Retention {
        Retention {
            keep: Some(DEFAULT_SNAPSHOT_RETENTION),
            max_age: Some(DEFAULT_SNAPSHOT_MAX_AGE),
        }
    }
}

impl Retention {
    /// The retention `repo`'s git config sets, the defaults where it is
    /// silent.
    ///
    /// # Errors
    /// `invalid_argument` naming the key for a value that is not a
    /// count / an age.
    pub(crate) fn from_config(repo: &gix::Repository) -> Result<Retention> {
        let config = repo.config_snapshot();
        let mut retention = Retention::default();
        if let Some(text) = config.string(RETENTION_CONFIG) {
            let text = text.to_string();
            let n: usize = text.trim().parse().map_err(|_| {
                Error::invalid_argument(
                    RETENTION_CONFIG,
                    format!("{text:?} is not a count of snapshots (0: keep every one)"),
                )
            })?;
            retention.keep = (n > 0).then_some(n);
        }
        if let Some(text) = config.string(MAX_AGE_CONFIG) {
            retention.max_age = parse_age(&text.to_string())
                .map_err(|reason| Error::invalid_argument(MAX_AGE_CONFIG, reason))?;
        }
        Ok(retention)
    }

    /// The refs of `refs` that go, each with why (`beyond_retention`,
    /// `older_than`), `now` in Unix seconds. Newest means written last by
    /// the store ([`SnapshotRef::written_ns`]), then the greater checkpoint
    /// ID.
    pub(crate) fn select<'a>(
        &self,
        refs: &'a [SnapshotRef],
        now: i64,
    ) -> Vec<(&'a SnapshotRef, &'static str)> {
        let mut by_session: BTreeMap<&str, Vec<&SnapshotRef>> = BTreeMap::new();
        for r in refs {
            by_session.entry(r.session_id.as_str()).or_default().push(r);
        }
        let limit = self
            .max_age
            .map(|age| now.saturating_sub(i64::try_from(age.as_secs()).unwrap_or(i64::MAX)));
        let mut out = Vec::new();
        for (_, mut group) in by_session {
            group.sort_by(|a, b| {
                (b.written_ns, &b.checkpoint_id).cmp(&(a.written_ns, &a.checkpoint_id))
            });
            for (rank, r) in group.into_iter().enumerate() {
                if self.keep.is_some_and(|keep| rank >= keep) {
                    out.push((r, "beyond_retention"));
                } else if limit.is_some_and(|limit| r.seconds < limit) {
                    out.push((r, "older_than"));
                }
            }
        }
        out.sort_by(|a, b| a.0.ref_name.cmp(&b.0.ref_name));
        out
    }
}

/// Parses an age: `<n>s`, `<n>m`, `<n>h`, `<n>d`, `<n>w` (`Ok(None)` for
/// `never` or `0`: no age limit).
///
/// # Errors
/// Why the text is not an age.
pub fn parse_age(text: &str) -> std::result::Result<Option<Duration>, String> {
    let t = text.trim();
    if t.eq_ignore_ascii_case("never") || t == "0" {
        return Ok(None);
    }
    let bad = || format!("{text:?} is not an age like 30d, 12h, 2w, 90m, 45s or never");
    let split = t.find(|c: char| !c.is_ascii_digit()).ok_or_else(bad)?;
    let (digits, unit) = t.split_at(split);
    let n: u64 = digits.parse().map_err(|_| bad())?;
    let unit_secs = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        "w" => 604_800,
        _ => return Err(bad()),
    };
    let secs = n.checked_mul(unit_secs).ok_or_else(bad)?;
    Ok((secs > 0).then_some(Duration::from_secs(secs)))
}

/// Now, in Unix seconds.
pub(crate) fn now_seconds() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

/// Deletes `refs` (each only while it still holds its tip), as `who`.
/// Returns the ones deleted; a ref that moved meanwhile stays.
///
/// # Errors
/// An I/O error from the ref store (a git lock file in the way, by name).
pub(crate) fn delete_refs<'a>(
    repo: &gix::Repository,
    refs: &[&'a SnapshotRef],
    who: &gix::actor::Signature,
) -> Result<Vec<&'a SnapshotRef>> {
    let edit = |r: &SnapshotRef| Edit::delete(&r.ref_name, Expected::Is(r.tip), "entire: gc");
    let edits = refs.iter().map(|r| edit(r)).collect::<Result<Vec<_>>>()?;
    match ref_store::apply(repo, &edits, who)? {
        Outcome::Done => return Ok(refs.to_vec()),
        Outcome::Locked(held) => return Err(locked(repo, &held)),
        Outcome::Moved => {}
    }
    // One moved: the others one at a time.
    let mut deleted = Vec::new();
    for r in refs {
        match ref_store::apply(repo, &[edit(r)?], who)? {
            Outcome::Done => deleted.push(*r),
            Outcome::Moved => {}
            Outcome::Locked(held) => return Err(locked(repo, &held)),
        }
    }
    Ok(deleted)
}

fn locked(repo: &gix::Repository, held: &[PathBuf]) -> Error {
    let path = held
        .first()
        .cloned()
        .unwrap_or_else(|| repo.common_dir().to_path_buf());
    ref_store::lock_held(&path)
}

/// After a write stored an undo snapshot: removes the snapshot refs the
/// retention lets go, their files no remaining tip names, and records
/// their tips for the next gc. Returns how many refs went.
///
/// # Errors
/// As [`delete_refs`]; `corrupt_object` for an unreadable snapshot ref.
pub(crate) fn apply_on_write(
    repo: &gix::Repository,
    common_dir: &Path,
    retention: &Retention,
    who: &gix::actor::Signature,
) -> Result<usize> {
    if retention.keep.is_none() && retention.max_age.is_none() {
        return Ok(0);
    }
    let refs = snapshot_refs::list(repo)?;
    let chosen: Vec<&SnapshotRef> = retention
        .select(&refs, now_seconds())
        .into_iter()
        .map(|(r, _)| r)
        .collect();
    if chosen.is_empty() {
        return Ok(0);
    }
    let deleted = delete_refs(repo, &chosen, who)?;
    record_pending(common_dir, deleted.iter().map(|r| r.tip))?;
    let gone: HashSet<&str> = deleted.iter().map(|r| r.ref_name.as_str()).collect();
    let named: HashSet<&str> = refs
        .iter()
        .filter(|r| !gone.contains(r.ref_name.as_str()))
        .filter_map(|r| r.file_sha.as_deref())
        .collect();
    for sha in deleted.iter().filter_map(|r| r.file_sha.as_deref()) {
        if !named.contains(sha) {
            remove_snapshot_file(common_dir, sha)?;
        }
    }
    Ok(deleted.len())
}

/// Removes `entire-snapshots/<sha>.json` (never through a symlink); one
/// already gone is fine. Returns its size when it was there.
pub(crate) fn remove_snapshot_file(common_dir: &Path, sha: &str) -> Result<Option<u64>> {
    let dir_path = common_dir.join(SNAPSHOT_DIR);
    let name = format!("{sha}.json");
    let size = std::fs::symlink_metadata(dir_path.join(&name))
        .ok()
        .filter(std::fs::Metadata::is_file)
        .map(|m| m.len());
    let dir = match Dir::open(&dir_path) {
        Ok(dir) => dir,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io(dir_path.display().to_string(), e)),
    };
    match dir.remove(&name) {
        Ok(()) => Ok(size),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io(dir_path.join(name).display().to_string(), e)),
    }
}

/// Appends `tips` to the pending file (one line each, one write).
pub(crate) fn record_pending(
    common_dir: &Path,
    tips: impl Iterator<Item = ObjectId>,
) -> Result<()> {
    let text: String = tips.map(|t| format!("{t}\n")).collect();
    if text.is_empty() {
        return Ok(());
    }
    let path = common_dir.join(PENDING_FILE);
    let io = |e| Error::io(path.display().to_string(), e);
    let mut options = std::fs::OpenOptions::new();
    options.append(true).create(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32);
    }
    let mut file = options.open(&path).map_err(io)?;
    file.write_all(text.as_bytes()).map_err(io)
}

/// The pending files (`entire-gc-pending` and any a gc took and did not
/// finish: `entire-gc-pending.<n>`), and the valid tips they hold.
pub(crate) fn read_pending(
    repo: &gix::Repository,
    common_dir: &Path,
) -> Result<(Vec<PathBuf>, Vec<ObjectId>)> {
    let mut files = Vec::new();
    let entries = match std::fs::read_dir(common_dir) {
        Ok(entries) => entries,
        Err(e) => return Err(Error::io(common_dir.display().to_string(), e)),
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if name == PENDING_FILE || name.starts_with(&format!("{PENDING_FILE}.")) {
            files.push(entry.path());
        }
    }
    files.sort();
    let mut tips = Vec::new();
    let dir = Dir::open(common_dir).map_err(|e| Error::io(common_dir.display().to_string(), e))?;
    for file in &files {
        let Some(text) = file
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|name| read_capped(&dir, name))
        else {
            continue;
        };
        for line in text.lines() {
            if let Ok(id) = ObjectId::from_hex(line.trim().as_bytes()) {
                if id.kind() == repo.object_hash() {
                    tips.push(id);
                }
            }
        }
    }
    Ok((files, tips))
}

/// The most of one pending file read: 40 MiB, a million tips of 40 hex
/// digits (one a line). A longer file is read this far, the rest left to
/// git's own prune.
const PENDING_MAX_BYTES: u64 = 40 << 20;

/// The text of the pending file `name` in `dir`, opened without following
/// a symlink (or blocking on a FIFO: only a regular file is read) and read
/// at most [`PENDING_MAX_BYTES`]; `None` when it cannot be.
fn read_capped(dir: &Dir, name: &str) -> Option<String> {
    use std::io::Read;
    let file = dir
        .open_file(name, false, Create::No, crate::sharing::Sharing::Private)
        .ok()?;
    let mut bytes = Vec::new();
    file.take(PENDING_MAX_BYTES).read_to_end(&mut bytes).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// Moves the live pending file aside (`entire-gc-pending.<random>`) so
/// writes meanwhile start a new one; returns every pending file now.
pub(crate) fn take_pending(common_dir: &Path) -> Result<()> {
    let live = common_dir.join(PENDING_FILE);
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).map_err(|e| Error::Io {
        path: None,
        error: std::io::Error::other(format!("system random source failed: {e}")),
    })?;
    let taken = common_dir.join(format!("{PENDING_FILE}.{}", hex::encode(bytes)));
    match std::fs::rename(&live, &taken) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::io(live.display().to_string(), e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages() {
        assert_eq!(parse_age("30d"), Ok(Some(Duration::from_secs(2_592_000))));
        assert_eq!(parse_age("2w"), Ok(Some(Duration::from_secs(1_209_600))));
        assert_eq!(parse_age(" 90m "), Ok(Some(Duration::from_secs(5400))));
        assert_eq!(parse_age("never"), Ok(None));
        assert_eq!(parse_age("0"), Ok(None));
        assert_eq!(parse_age("0h"), Ok(None));
        for bad in ["", "d", "30", "30x", "-1d", "1.5d", "99999999999999999999w"] {
            assert!(parse_age(bad).is_err(), "{bad:?}");
        }
    }

    fn snap(name: &str, session: &str, seconds: i64) -> SnapshotRef {
        SnapshotRef {
            ref_name: format!("refs/entire/snapshots/xx/{name}"),
            checkpoint_id: name.to_owned(),
            session_id: session.to_owned(),
            tip: ObjectId::null(gix::hash::Kind::Sha1),
            seconds,
            written_ns: i128::from(seconds) * 1_000_000_000,
            file_sha: None,
        }
    }

    #[test]
    fn keeps_the_newest_per_session_and_drops_the_old() {
        let refs = vec![
            snap("a1", "s1", 100),
            snap("a2", "s1", 200),
            snap("a3", "s1", 200),
            snap("b1", "s2", 10),
            snap("b2", "s2", 1000),
        ];
        let retention = Retention {
            keep: Some(2),
            max_age: Some(Duration::from_secs(500)),
        };
        let chosen: Vec<(&str, &str)> = retention
            .select(&refs, 1100)
            .into_iter()
            .map(|(r, why)| (r.checkpoint_id.as_str(), why))
            .collect();
        assert_eq!(
            chosen,
            [
                ("a1", "beyond_retention"),
                ("a2", "older_than"),
                ("a3", "older_than"),
                ("b1", "older_than")
            ]
        );
        let all = Retention {
            keep: None,
            max_age: None,
        };
        assert!(all.select(&refs, 1100).is_empty());
    }

    #[test]
    fn newest_is_the_store_recorded_time_not_the_checkpoint_id() {
        // Written in one second, the greater IDs first: the oldest by the
        // recorded nanoseconds goes, whatever its ID.
        let mut refs = vec![
            snap("ff", "s", 100),
            snap("ee", "s", 100),
            snap("dd", "s", 100),
        ];
        for (i, r) in refs.iter_mut().enumerate() {
            r.written_ns = 100_000_000_000 + i128::try_from(i).unwrap_or(0);
        }
        let retention = Retention {
            keep: Some(2),
            max_age: None,
        };
        let chosen: Vec<&str> = retention
            .select(&refs, 100)
            .into_iter()
            .map(|(r, _)| r.checkpoint_id.as_str())
            .collect();
        assert_eq!(chosen, ["ff"]);
    }
}
