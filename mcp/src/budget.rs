//! A capture's total limit, kept while it reads: [`Budgeted`] is the
//! server's root with a byte budget for one `capture_checkpoint` call.
//!
//! The tool checks the files' sizes before capturing (the early, cheap
//! refusal); a file can still grow between that look and its read. So the
//! capture reads through this root, which gives every read what is left
//! of the budget as its limit and counts what it read: a file grown past
//! what is left is refused (`too_large`, naming the call's limit) before
//! more than one byte past it is read, and the call never holds more than
//! the limit of file bytes. Reads run one at a time (the root offers no
//! shared use to other threads), so that what is left is exact.

use std::collections::HashMap;
use std::sync::Mutex;

use agent_checkpoint::root::{Expect, Looked, Metadata, OpenedFile, Root, WriteOptions};
use agent_checkpoint::{Error, RelPath, Result};

/// What the limit is about, in errors.
pub(crate) const WHAT: &str =
    "the files of one capture_checkpoint call (the server's max_capture_bytes)";

/// `inner` with a byte budget for the file bytes read through it.
pub(crate) struct Budgeted<'a, R: Root + ?Sized> {
    inner: &'a R,
    limit: u64,
    spent: Mutex<Spent>,
}

#[derive(Default)]
struct Spent {
    /// The bytes counted so far.
    total: u64,
    /// The bytes counted per path (a path read twice counts once).
    by_path: HashMap<String, u64>,
}

impl<'a, R: Root + ?Sized> Budgeted<'a, R> {
    /// `inner`, reading at most `limit` file bytes in all.
    pub(crate) fn new(inner: &'a R, limit: u64) -> Budgeted<'a, R> {
        Budgeted {
            inner,
            limit,
            spent: Mutex::new(Spent::default()),
        }
    }

    fn spent(&self) -> std::sync::MutexGuard<'_, Spent> {
        // A panic while counting leaves counts that are still a bound.
        self.spent
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// What `path` may still take: what is left, plus what it counted
    /// already; and what the others counted.
    fn room(&self, path: &RelPath) -> (u64, u64) {
        let spent = self.spent();
        let own = spent.by_path.get(path.as_str()).copied().unwrap_or(0);
        let others = spent.total.saturating_sub(own);
        (self.limit.saturating_sub(others), others)
    }

    /// Counts `read` bytes of `path`.
    fn count(&self, path: &RelPath, read: u64) {
        let mut spent = self.spent();
        let own = spent.by_path.entry(path.as_str().to_owned()).or_insert(0);
        if read > *own {
            let more = read - *own;
            *own = read;
            spent.total = spent.total.saturating_add(more);
        }
    }

    /// The call's `too_large`, for a file of `size` bytes read after
    /// `others` bytes of the other files.
    fn over(&self, others: u64, size: u64) -> Error {
        Error::too_large(WHAT, others.saturating_add(size), self.limit)
    }

    /// `result` of a read of `path` limited to `cap` (where the caller
    /// asked for `asked`): counted, and a refusal that is the budget's
    /// (not the caller's own limit) said as the call's.
    fn settle(
        &self,
        path: &RelPath,
        result: Result<Vec<u8>>,
        cap: u64,
        asked: u64,
        others: u64,
    ) -> Result<Vec<u8>> {
        match result {
            Ok(bytes) => {
                self.count(path, bytes.len() as u64);
                Ok(bytes)
            }
            Err(Error::TooLarge { size, .. }) if cap < asked => Err(self.over(others, size)),
            Err(e) => Err(e),
        }
    }
}

impl<R: Root + ?Sized> Root for Budgeted<'_, R> {
    fn metadata(&self, path: &RelPath) -> Result<Option<Metadata>> {
        self.inner.metadata(path)
    }

    fn read_dir(&self, dir: Option<&RelPath>) -> Result<Vec<String>> {
        self.inner.read_dir(dir)
    }

    fn read_file(&self, path: &RelPath, max_bytes: Option<u64>) -> Result<Vec<u8>> {
        let (room, others) = self.room(path);
        let asked = max_bytes.unwrap_or(u64::MAX);
        let cap = asked.min(room);
        let read = self.inner.read_file(path, Some(cap));
        self.settle(path, read, cap, asked, others)
    }

    fn look_and_read(
        &self,
        path: &RelPath,
        limit: &dyn Fn(&Metadata) -> Option<u64>,
    ) -> Result<Looked> {
        let (room, others) = self.room(path);
        let asked = std::cell::Cell::new(None);
        let capped = |m: &Metadata| {
            let wanted = limit(m)?;
            asked.set(Some(wanted));
            // Larger than what is left already: not read now (the
            // capture's own read of it refuses it).
            (m.len <= room).then(|| wanted.min(room))
        };
        let mut looked = self.inner.look_and_read(path, &capped)?;
        if let (Some(read), Some(wanted)) = (looked.bytes.take(), asked.get()) {
            let cap = wanted.min(room);
            looked.bytes = Some(self.settle(path, read, cap, wanted, others));
        }
        Ok(looked)
    }

    // `as_sync` stays `None`: reads one at a time, so what is left is exact.

    fn read_link(&self, path: &RelPath) -> Result<String> {
        self.inner.read_link(path)
    }

    fn write_file(&self, path: &RelPath, bytes: &[u8], options: &WriteOptions) -> Result<()> {
        self.inner.write_file(path, bytes, options)
    }

    fn write_link(&self, path: &RelPath, target: &str, options: &WriteOptions) -> Result<()> {
        self.inner.write_link(path, target, options)
    }

    fn remove_file(&self, path: &RelPath, expect: Expect) -> Result<()> {
        self.inner.remove_file(path, expect)
    }

    fn rename_file(&self, from: &RelPath, to: &RelPath, expect: Expect) -> Result<()> {
        self.inner.rename_file(from, to, expect)
    }

    fn create_dir(&self, path: &RelPath) -> Result<()> {
        self.inner.create_dir(path)
    }

    fn remove_dir(&self, path: &RelPath) -> Result<()> {
        self.inner.remove_dir(path)
    }

    fn sync_dir(&self, path: Option<&RelPath>) -> Result<()> {
        self.inner.sync_dir(path)
    }

    fn remove_stray_temps(&self, dir: Option<&RelPath>, names: &[&str]) -> Result<usize> {
        self.inner.remove_stray_temps(dir, names)
    }

    fn absolute_prefixes(&self) -> Vec<String> {
        self.inner.absolute_prefixes()
    }

    fn canonical_path(&self) -> Option<String> {
        self.inner.canonical_path()
    }

    fn visit_file(&self, path: &RelPath, visit: &mut dyn FnMut(&[u8])) -> Result<()> {
        // Nothing is kept: pieces pass through.
        self.inner.visit_file(path, visit)
    }

    fn open_file(&self, path: &RelPath, max_bytes: Option<u64>) -> Result<OpenedFile<'_>> {
        // Not counted (the root keeps none of it), but never a file larger
        // than what is left.
        let (room, _) = self.room(path);
        self.inner
            .open_file(path, Some(max_bytes.unwrap_or(u64::MAX).min(room)))
    }
}
