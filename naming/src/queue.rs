//! The push queue: a JSONL list of checkpoint refs awaiting push, shared by
//! every process and worktree of a repository and file-compatible with the
//! Go tool's `PushQueue`.
//!
//! Layout, in one directory (the git common dir), which must already exist:
//!
//! - [`PUSH_QUEUE_FILE`]: one `{"ref":"..."}` object per line, encoded as Go's
//!   `encoding/json` encodes it (so `&`, `<`, `>`, U+2028 and U+2029 are
//!   `\u` escapes), each line ending in `\n`;
//! - [`PUSH_QUEUE_LOCK_FILE`]: a file that every operation locks
//!   exclusively (`flock` on Unix, as the Go tool does) for its whole
//!   duration; its first 8 bytes count the times it was taken
//!   ([`crate::lock_wait`]). It is created on first use and never removed.
//!
//! Reading is forgiving, like the Go tool: blank lines, lines that are not a
//! JSON object with a non-empty string `ref` (extra fields are ignored), and a
//! torn last line left by a killed writer are skipped, never fatal; a
//! complete record that only lacks its final `\n` is kept. Only checkpoint
//! refs come out ([`crate::refs::parse_ref`] accepts them and git would take
//! them as ref names): any other line (`--upload-pack=...`, a ref with a
//! newline someone wrote by hand) is dropped and reported in
//! [`Drained::dropped`], never handed to `git`. [`PushQueue::drain`]
//! rewrites the file to its canonical form (one line per distinct ref, in
//! first-seen order) whenever it differs, and an append never glues a record
//! onto a torn line: it starts a new line first.
//!
//! Appends are not fsynced (as in the Go tool); rewrites are: temp file in
//! the same directory, fsync, rename over the queue, fsync the directory.
//! Every operation, under the lock, removes the temp files of rewrites a
//! killed process left. The queue and lock files are opened without
//! following symlinks, and must be regular files.
//!
//! The lock is waited for at most [`PushQueue::with_lock_wait`] (default
//! [`DEFAULT_LOCK_WAIT`], 10 s); a holder that keeps it longer ends the
//! operation in `ref_busy` ([`Error::LockBusy`], naming the lock file).
//! The files are created owner-only (`0600`) unless the repository is
//! shared ([`PushQueue::with_sharing`], `core.sharedRepository`), then with
//! git's shared mode ([`crate::sharing`]).

use std::collections::HashSet;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::lock_wait::lock_within;
pub use crate::lock_wait::DEFAULT_LOCK_WAIT;
use crate::sharing::Sharing;
use agent_checkpoint::{Error, Result};

/// File name of the queue inside its directory.
pub const PUSH_QUEUE_FILE: &str = "entire-checkpoint-push-queue.jsonl";

/// File name of the lock file inside the queue's directory.
pub const PUSH_QUEUE_LOCK_FILE: &str = "entire-checkpoint-push-queue.lock";

/// What [`PushQueue::drain`] and [`PushQueue::peek`] found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Drained {
    /// The queued checkpoint refs, de-duplicated, in first-seen order.
    pub refs: Vec<String>,
    /// Lines that held something else than a checkpoint ref (shown as
    /// given, cut to 200 bytes), dropped.
    pub dropped: Vec<String>,
}

/// The push queue of one repository, rooted at its git common dir.
///
/// Enqueueing is cheap and may repeat a ref; [`PushQueue::drain`] collapses
/// duplicates without removing anything, and [`PushQueue::remove`] drops
/// refs after a confirmed push, keeping anything enqueued meanwhile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PushQueue {
    directory: PathBuf,
    file: PathBuf,
    lock: PathBuf,
    sharing: Sharing,
    lock_wait: Duration,
}

impl PushQueue {
    /// The queue kept in `directory`. Nothing is touched until an operation
    /// runs.
    pub fn new(directory: impl Into<PathBuf>) -> PushQueue {
        let directory = directory.into();
        PushQueue {
            file: directory.join(PUSH_QUEUE_FILE),
            lock: directory.join(PUSH_QUEUE_LOCK_FILE),
            directory,
            sharing: Sharing::Private,
            lock_wait: DEFAULT_LOCK_WAIT,
        }
    }

    /// The same queue with files created in `sharing`'s mode (the
    /// repository's `core.sharedRepository`; default private, `0600`).
    #[must_use]
    pub fn with_sharing(mut self, sharing: Sharing) -> PushQueue {
        self.sharing = sharing;
        self
    }

    /// The same queue waiting at most `wait` for a lock another process
    /// holds (default [`DEFAULT_LOCK_WAIT`]).
    #[must_use]
    pub fn with_lock_wait(mut self, wait: Duration) -> PushQueue {
        self.lock_wait = wait;
        self
    }

    /// The directory the queue lives in.
    pub fn directory(&self) -> &Path {
        &self.directory
    }

    /// The queue file ([`PUSH_QUEUE_FILE`] inside the directory).
    pub fn path(&self) -> &Path {
        &self.file
    }

    /// The lock file ([`PUSH_QUEUE_LOCK_FILE`] inside the directory).
    pub fn lock_path(&self) -> &Path {
        &self.lock
    }

    /// Appends `r` as one whole line. Repeating a ref is fine.
    ///
    /// # Errors
    /// [`Error::InvalidRefName`] if `r` is not a checkpoint ref
    /// (`refs/entire/checkpoints/<shard>/<id>`, a valid git ref name), so an
    /// empty ref or one with a newline never reaches the file; an I/O error
    /// if the directory is missing or unwritable.
    pub fn enqueue(&self, r: &str) -> Result<()> {
        self.enqueue_all([r])
    }

    /// Appends every ref of `refs` under one lock, in order, each as a whole
    /// line. All refs are validated first: if one is invalid nothing is
    /// written. An empty `refs` is a no-op.
    ///
    /// # Errors
    /// As [`PushQueue::enqueue`].
    pub fn enqueue_all<I, S>(&self, refs: I) -> Result<()>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut lines = String::new();
        for r in refs {
            let r = r.as_ref();
            check_checkpoint_ref(r)?;
            push_line(&mut lines, r);
        }
        if lines.is_empty() {
            return Ok(());
        }
        let _lock = self.lock()?;
        self.append(lines.as_bytes())
            .map_err(|e| Error::io(self.file.display().to_string(), e))
    }

    /// The queued refs, de-duplicated in first-seen order. Nothing is removed;
    /// the file is compacted to exactly these refs when it held anything
    /// else (duplicates, blank, malformed or torn lines), and deleted when
    /// that leaves it empty. A missing directory or file gives no refs.
    ///
    /// # Errors
    /// An I/O error if the queue cannot be locked, read or rewritten.
    pub fn drain(&self) -> Result<Drained> {
        let Some(_lock) = self.lock_if_directory_exists()? else {
            return Ok(Drained::default());
        };
        let on_disk = self.read()?;
        let drained = parse_queue(on_disk.as_deref().unwrap_or_default());
        self.store_if_changed(on_disk.as_deref(), &drained.refs)?;
        Ok(drained)
    }

    /// Like [`PushQueue::drain`] but never writes the queue file (it still
    /// takes the lock, creating the lock file if needed).
    ///
    /// # Errors
    /// An I/O error if the queue cannot be locked or read.
    pub fn peek(&self) -> Result<Drained> {
        let Some(_lock) = self.lock_if_directory_exists()? else {
            return Ok(Drained::default());
        };
        let on_disk = self.read()?;
        Ok(parse_queue(on_disk.as_deref().unwrap_or_default()))
    }

    /// Removes every entry of the given refs, re-reading the queue under the
    /// lock so refs enqueued since a drain survive. The result is written
    /// atomically, and the file is deleted when nothing is left. An empty
    /// `refs` is a no-op.
    ///
    /// # Errors
    /// An I/O error if the queue cannot be locked, read or rewritten.
    pub fn remove<S: AsRef<str>>(&self, refs: &[S]) -> Result<()> {
        if refs.is_empty() {
            return Ok(());
        }
        let Some(_lock) = self.lock_if_directory_exists()? else {
            return Ok(());
        };
        let on_disk = self.read()?;
        let dropped: HashSet<&str> = refs.iter().map(AsRef::as_ref).collect();
        let mut kept = parse_queue(on_disk.as_deref().unwrap_or_default()).refs;
        kept.retain(|r| !dropped.contains(r.as_str()));
        self.store_if_changed(on_disk.as_deref(), &kept)
    }

    fn lock(&self) -> Result<File> {
        let file = self
            .lock_file()
            .map_err(|e| Error::io(self.lock.display().to_string(), e))?;
        let file = self.held(file)?;
        self.remove_abandoned_temps();
        Ok(file)
    }

    // The locked file, or ref_busy when another process kept it.
    fn held(&self, file: Locked) -> Result<File> {
        match file {
            Locked::Held(file) => Ok(file),
            Locked::Busy => Err(Error::LockBusy {
                path: self.lock.display().to_string(),
                waited_ms: u64::try_from(self.lock_wait.as_millis()).unwrap_or(u64::MAX),
            }),
        }
    }

    // Only a missing directory makes opening the lock file (with create)
    // report NotFound.
    fn lock_if_directory_exists(&self) -> Result<Option<File>> {
        match self.lock_file() {
            Ok(file) => {
                let file = self.held(file)?;
                self.remove_abandoned_temps();
                Ok(Some(file))
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(Error::io(self.lock.display().to_string(), e)),
        }
    }

    /// Under the lock no rewrite is running, so a temp file of one is a
    /// killed process's leftover: remove it (best effort).
    fn remove_abandoned_temps(&self) {
        let Ok(entries) = fs::read_dir(&self.directory) else {
            return;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            if name.to_str().is_some_and(is_temp_name)
                && entry.file_type().is_ok_and(|t| t.is_file())
            {
                let _ = fs::remove_file(entry.path());
            }
        }
    }

    fn read(&self) -> Result<Option<Vec<u8>>> {
        let shown = || self.file.display().to_string();
        let mut file = match open_regular(OpenOptions::new().read(true), &self.file) {
            Ok(file) => file,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::io(shown(), e)),
        };
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)
            .map_err(|e| Error::io(shown(), e))?;
        Ok(Some(bytes))
    }

    fn append(&self, lines: &[u8]) -> io::Result<()> {
        let mut file = create_regular(
            OpenOptions::new().read(true).append(true),
            &self.file,
            self.sharing,
        )?;
        let mut record = Vec::with_capacity(lines.len() + 1);
        if !ends_with_newline(&mut file)? {
            record.push(b'\n');
        }
        record.extend_from_slice(lines);
        file.write_all(&record)
    }

    // Canonical state: no file for no refs, otherwise exactly their lines.
    fn store_if_changed(&self, on_disk: Option<&[u8]>, refs: &[String]) -> Result<()> {
        let wanted = encode_queue(refs);
        let changed = match on_disk {
            None => !refs.is_empty(),
            Some(bytes) => refs.is_empty() || bytes != wanted.as_bytes(),
        };
        if !changed {
            return Ok(());
        }
        let result = if refs.is_empty() {
            self.delete()
        } else {
            self.replace(wanted.as_bytes())
        };
        result.map_err(|e| Error::io(self.file.display().to_string(), e))
    }

    fn delete(&self) -> io::Result<()> {
        match fs::remove_file(&self.file) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
            _ => sync_directory(&self.directory),
        }
    }

    fn replace(&self, data: &[u8]) -> io::Result<()> {
        let temp = self.directory.join(temp_name()?);
        let written =
            write_new_file(&temp, data, self.sharing).and_then(|()| fs::rename(&temp, &self.file));
        if let Err(e) = written {
            let _ = fs::remove_file(&temp);
            return Err(e);
        }
        sync_directory(&self.directory)
    }
}

/// A lock file, locked or kept by another process past the wait.
enum Locked {
    Held(File),
    Busy,
}

impl PushQueue {
    fn lock_file(&self) -> io::Result<Locked> {
        let file = create_regular(
            OpenOptions::new().read(true).write(true),
            &self.lock,
            self.sharing,
        )?;
        match lock_within(&file, self.lock_wait) {
            Ok(true) => Ok(Locked::Held(file)),
            Ok(false) => Ok(Locked::Busy),
            // WASI has no advisory locks; there the host must serialise access.
            Err(e) if cfg!(target_os = "wasi") && e.kind() == io::ErrorKind::Unsupported => {
                Ok(Locked::Held(file))
            }
            Err(e) => Err(e),
        }
    }
}

/// Opens `path` (never through a symlink), creating it in `sharing`'s mode
/// when missing.
fn create_regular(options: &OpenOptions, path: &Path, sharing: Sharing) -> io::Result<File> {
    let mut create = options.clone();
    match open_regular(sharing.creating(create.create_new(true)), path) {
        Ok(file) => {
            sharing.set_file_mode(&file)?;
            Ok(file)
        }
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            open_regular(&mut options.clone(), path)
        }
        Err(e) => Err(e),
    }
}

fn ends_with_newline(file: &mut File) -> io::Result<bool> {
    let len = file.metadata()?.len();
    if len == 0 {
        return Ok(true);
    }
    file.seek(SeekFrom::Start(len - 1))?;
    let mut last = [0u8; 1];
    file.read_exact(&mut last)?;
    Ok(last[0] == b'\n')
}

fn write_new_file(path: &Path, data: &[u8], sharing: Sharing) -> io::Result<()> {
    let mut file = sharing
        .creating(OpenOptions::new().write(true).create_new(true))
        .open(path)?;
    sharing.set_file_mode(&file)?;
    file.write_all(data)?;
    file.sync_all()
}

fn temp_name() -> io::Result<String> {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).map_err(|e| io::Error::other(e.to_string()))?;
    Ok(format!(".{PUSH_QUEUE_FILE}.{}.tmp", hex::encode(bytes)))
}

/// Whether `name` is the name of a rewrite's temp file.
fn is_temp_name(name: &str) -> bool {
    name.strip_prefix('.')
        .and_then(|n| n.strip_prefix(PUSH_QUEUE_FILE))
        .and_then(|n| n.strip_prefix('.'))
        .and_then(|n| n.strip_suffix(".tmp"))
        .is_some_and(|hex| hex.len() == 16 && hex.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// Opens `path` without following a symlink (on Unix) and without blocking
/// on a FIFO; anything but a regular file is refused.
fn open_regular(options: &mut OpenOptions, path: &Path) -> io::Result<File> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let file = options.open(path).map_err(|e| {
        if e.raw_os_error() == Some(symlink_errno()) {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{} is a symlink (never followed)", path.display()),
            )
        } else {
            e
        }
    })?;
    if !file.metadata()?.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} is not a regular file", path.display()),
        ));
    }
    Ok(file)
}

/// The errno of opening a symlink with `O_NOFOLLOW` (`ELOOP`).
fn symlink_errno() -> i32 {
    #[cfg(unix)]
    {
        libc::ELOOP
    }
    #[cfg(not(unix))]
    {
        -1
    }
}

/// A ref the queue may hold: a checkpoint ref that git takes as a name.
fn check_checkpoint_ref(r: &str) -> Result<()> {
    crate::refs::check_ref_name(r)?;
    if crate::refs::parse_ref(r).is_none() {
        return Err(Error::InvalidRefName {
            name: shown(r),
            reason: "not a checkpoint ref (refs/entire/checkpoints/<shard>/<id>)".into(),
        });
    }
    Ok(())
}

/// `r` cut to 200 bytes (at a char boundary), for messages.
fn shown(r: &str) -> String {
    let mut end = r.len().min(200);
    while !r.is_char_boundary(end) {
        end -= 1;
    }
    r[..end].to_owned()
}

#[cfg(unix)]
fn sync_directory(directory: &Path) -> io::Result<()> {
    File::open(directory)?.sync_all()
}

#[cfg(not(unix))]
fn sync_directory(_directory: &Path) -> io::Result<()> {
    Ok(())
}

#[derive(serde::Deserialize)]
struct Entry {
    #[serde(rename = "ref")]
    reference: String,
}

/// The distinct checkpoint refs of a queue file in first-seen order;
/// anything that is not a line holding a JSON object with a non-empty
/// string `ref` is skipped, and a `ref` that is not a checkpoint ref is
/// dropped and reported.
fn parse_queue(bytes: &[u8]) -> Drained {
    let mut seen = HashSet::new();
    let mut drained = Drained::default();
    for r in bytes.split(|&b| b == b'\n').filter_map(parse_line) {
        if check_checkpoint_ref(&r).is_err() {
            drained.dropped.push(shown(&r));
        } else if seen.insert(r.clone()) {
            drained.refs.push(r);
        }
    }
    drained
}

fn parse_line(line: &[u8]) -> Option<String> {
    if line.trim_ascii().is_empty() {
        return None;
    }
    let entry: Entry = serde_json::from_slice(line).ok()?;
    (!entry.reference.is_empty()).then_some(entry.reference)
}

fn encode_queue(refs: &[String]) -> String {
    let mut out = String::new();
    for r in refs {
        push_line(&mut out, r);
    }
    out
}

fn push_line(out: &mut String, r: &str) {
    out.push_str("{\"ref\":");
    push_go_json_string(out, r);
    out.push_str("}\n");
}

// Byte-for-byte what Go's encoding/json writes (HTML-safe escaping), so a
// queue written by either tool compacts to the same bytes.
fn push_go_json_string(out: &mut String, s: &str) {
    out.push('"');
    if !s.bytes().any(needs_escape_check) {
        out.push_str(s);
        out.push('"');
        return;
    }
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => push_unicode_escape(out, c),
            c if u32::from(c) < 0x20 => push_unicode_escape(out, c),
            c => out.push(c),
        }
    }
    out.push('"');
}

// 0xE2 leads the UTF-8 of U+2028 and U+2029; the slow path sorts it out.
fn needs_escape_check(b: u8) -> bool {
    b < 0x20 || matches!(b, b'"' | b'\\' | b'<' | b'>' | b'&' | 0xE2)
}

fn push_unicode_escape(out: &mut String, c: char) {
    out.push_str(&format!("\\u{:04x}", u32::from(c)));
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "refs/entire/checkpoints/f6/a1b2c3d4e5f6";
    const B: &str = "refs/entire/checkpoints/a1/b2c3d4e5f6a1";
    const C: &str = "refs/entire/checkpoints/b2/c3d4e5f6a1b2";

    fn queue() -> (tempfile::TempDir, PushQueue) {
        let dir = tempfile::tempdir().unwrap();
        let q = PushQueue::new(dir.path());
        (dir, q)
    }

    fn contents(q: &PushQueue) -> String {
        fs::read_to_string(q.path()).unwrap()
    }

    fn append_raw(q: &PushQueue, text: &str) {
        let mut f = OpenOptions::new()
            .append(true)
            .create(true)
            .open(q.path())
            .unwrap();
        f.write_all(text.as_bytes()).unwrap();
    }

    #[test]
    fn writes_go_format_lines() {
        let (_dir, q) = queue();
        q.enqueue(A).unwrap();
        assert_eq!(contents(&q), format!("{{\"ref\":\"{A}\"}}\n"));
        assert_eq!(q.path().file_name().unwrap(), PUSH_QUEUE_FILE);
        assert!(q.lock_path().exists());
    }

    #[test]
    fn escapes_like_go() {
        let mut s = String::new();
        push_line(&mut s, "refs/heads/a&b<c>d\"e\\f\u{2028}\u{1}");
        assert_eq!(
            s,
            "{\"ref\":\"refs/heads/a\\u0026b\\u003cc\\u003ed\\\"e\\\\f\\u2028\\u0001\"}\n"
        );
        // Read back, it is not a checkpoint ref (nor a git ref name): dropped.
        let drained = parse_queue(s.as_bytes());
        assert!(drained.refs.is_empty());
        assert_eq!(drained.dropped, ["refs/heads/a&b<c>d\"e\\f\u{2028}\u{1}"]);
        let mut s = String::new();
        push_line(&mut s, "refs/entire/checkpoints/<&/a&b<&");
        assert_eq!(
            s,
            "{\"ref\":\"refs/entire/checkpoints/\\u003c\\u0026/a\\u0026b\\u003c\\u0026\"}\n"
        );
        assert_eq!(
            parse_queue(s.as_bytes()).refs,
            ["refs/entire/checkpoints/<&/a&b<&"]
        );
    }

    #[test]
    fn lines_that_are_not_checkpoint_refs_are_dropped_and_reported() {
        let (_dir, q) = queue();
        q.enqueue(A).unwrap();
        for bad in [
            "--upload-pack=touch /tmp/pwned",
            "refs/heads/main",
            "refs/entire/checkpoints/f6/a1b2c3d4e5f6\nrefs/heads/x",
            "refs/entire/checkpoints/zz/a1b2c3d4e5f6",
        ] {
            let mut line = String::new();
            push_line(&mut line, bad);
            append_raw(&q, &line);
        }
        let peeked = q.peek().unwrap();
        assert_eq!(peeked.refs, [A]);
        assert_eq!(peeked.dropped.len(), 4);
        assert!(peeked.dropped[0].starts_with("--upload-pack"));
        let drained = q.drain().unwrap();
        assert_eq!(drained.refs, [A]);
        assert_eq!(contents(&q), encode_queue(&[A.into()]), "compacted away");
        for bad in ["refs/heads/main", "--upload-pack=x"] {
            assert_eq!(
                q.enqueue(bad).unwrap_err().code(),
                agent_checkpoint::ErrorCode::InvalidRefName
            );
        }
    }

    #[cfg(unix)]
    #[test]
    fn queue_and_lock_files_are_never_followed_through_symlinks() {
        let (dir, q) = queue();
        let outside = tempfile::tempdir().unwrap();
        let victim = outside.path().join("victim");
        fs::write(&victim, "precious").unwrap();
        std::os::unix::fs::symlink(&victim, q.path()).unwrap();
        assert!(q.enqueue(A).is_err());
        assert!(q.drain().is_err());
        assert_eq!(fs::read_to_string(&victim).unwrap(), "precious");
        fs::remove_file(q.path()).unwrap();
        // A dangling lock symlink: nothing is created where it points.
        let target = outside.path().join("created-by-lock");
        fs::remove_file(q.lock_path()).unwrap();
        std::os::unix::fs::symlink(&target, q.lock_path()).unwrap();
        assert!(q.peek().is_err());
        assert!(q.enqueue(A).is_err());
        assert!(!target.exists());
        drop(dir);
    }

    #[test]
    fn abandoned_rewrite_temp_files_go_with_the_next_operation() {
        let (dir, q) = queue();
        q.enqueue(A).unwrap();
        let stray = dir
            .path()
            .join(format!(".{PUSH_QUEUE_FILE}.0123456789abcdef.tmp"));
        fs::write(&stray, "half a rewrite").unwrap();
        let look_alike = dir.path().join(format!(".{PUSH_QUEUE_FILE}.notes.tmp"));
        fs::write(&look_alike, "mine").unwrap();
        assert_eq!(q.peek().unwrap().refs, [A]);
        assert!(!stray.exists());
        assert!(look_alike.exists(), "only names a rewrite makes");
    }

    #[test]
    fn drain_dedups_in_first_seen_order_and_keeps_entries() {
        let (_dir, q) = queue();
        for r in [A, A, B, A] {
            q.enqueue(r).unwrap();
        }
        assert_eq!(q.peek().unwrap().refs, [A, B]);
        assert_eq!(contents(&q).lines().count(), 4, "peek never compacts");
        assert_eq!(q.drain().unwrap().refs, [A, B]);
        assert_eq!(contents(&q), encode_queue(&[A.into(), B.into()]));
        assert_eq!(q.drain().unwrap().refs, [A, B], "drain does not remove");
    }

    #[test]
    fn enqueue_all_uses_one_batch_and_validates_first() {
        let (_dir, q) = queue();
        q.enqueue(B).unwrap();
        q.enqueue_all([A, B, C]).unwrap();
        q.enqueue_all(Vec::<String>::new()).unwrap();
        assert_eq!(q.drain().unwrap().refs, [B, A, C]);
        let err = q.enqueue_all([A, "refs/heads/bad\nname"]).unwrap_err();
        assert_eq!(err.code(), agent_checkpoint::ErrorCode::InvalidRefName);
        assert_eq!(
            q.peek().unwrap().refs,
            [B, A, C],
            "nothing written on a bad batch"
        );
    }

    #[test]
    fn rejects_refs_that_could_corrupt_the_file() {
        let (_dir, q) = queue();
        for bad in ["", "refs/heads/a\nb", "refs/heads/a\rb", "lower"] {
            assert!(q.enqueue(bad).is_err(), "{bad:?}");
        }
        assert!(!q.path().exists());
    }

    #[test]
    fn malformed_and_blank_lines_are_dropped_on_compaction() {
        let (_dir, q) = queue();
        q.enqueue(A).unwrap();
        append_raw(&q, "not json\n\n{\"ref\":\"\"}\n{\"ref\":5}\n  \n");
        append_raw(&q, &format!("{{\"ref\":\"{B}\",\"hash\":\"abc\"}}\n"));
        assert_eq!(q.peek().unwrap().refs, [A, B]);
        assert_eq!(q.drain().unwrap().refs, [A, B]);
        assert_eq!(contents(&q), encode_queue(&[A.into(), B.into()]));
    }

    #[test]
    fn torn_tail_is_never_glued_to_the_next_record() {
        let (_dir, q) = queue();
        q.enqueue(A).unwrap();
        append_raw(&q, "{\"ref\":\"refs/entire/chec");
        q.enqueue(B).unwrap();
        assert_eq!(q.peek().unwrap().refs, [A, B]);
        assert_eq!(q.drain().unwrap().refs, [A, B]);
        assert_eq!(contents(&q), encode_queue(&[A.into(), B.into()]));
    }

    #[test]
    fn complete_record_without_newline_is_kept() {
        let (_dir, q) = queue();
        append_raw(&q, &format!("{{\"ref\":\"{A}\"}}"));
        q.enqueue(B).unwrap();
        assert_eq!(q.drain().unwrap().refs, [A, B]);
        assert!(contents(&q).ends_with('\n'));
    }

    #[test]
    fn remove_keeps_later_entries_and_deletes_when_empty() {
        let (_dir, q) = queue();
        q.enqueue(A).unwrap();
        let drained = q.drain().unwrap().refs;
        q.enqueue(B).unwrap();
        q.enqueue(A).unwrap();
        q.remove(&drained).unwrap();
        assert_eq!(q.peek().unwrap().refs, [B]);
        q.remove::<&str>(&[]).unwrap();
        assert_eq!(q.peek().unwrap().refs, [B]);
        q.remove(&[B]).unwrap();
        assert!(!q.path().exists(), "empty queue file is deleted");
        assert!(q.drain().unwrap().refs.is_empty());
    }

    #[test]
    fn empty_or_garbage_file_is_deleted_by_drain() {
        let (_dir, q) = queue();
        append_raw(&q, "");
        assert!(q.drain().unwrap().refs.is_empty());
        assert!(!q.path().exists());
        append_raw(&q, "garbage");
        assert!(q.drain().unwrap().refs.is_empty());
        assert!(!q.path().exists());
    }

    #[test]
    fn missing_directory() {
        let dir = tempfile::tempdir().unwrap();
        let q = PushQueue::new(dir.path().join("absent"));
        assert!(q.drain().unwrap().refs.is_empty());
        assert!(q.peek().unwrap().refs.is_empty());
        q.remove(&[A]).unwrap();
        let err = q.enqueue(A).unwrap_err();
        assert_eq!(err.code(), agent_checkpoint::ErrorCode::NotFound);
        assert!(!dir.path().join("absent").exists());
    }

    #[test]
    fn leaves_no_temp_files() {
        let (dir, q) = queue();
        for r in [A, A, B] {
            q.enqueue(r).unwrap();
        }
        q.drain().unwrap();
        q.remove(&[A]).unwrap();
        let mut names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names, [PUSH_QUEUE_FILE, PUSH_QUEUE_LOCK_FILE]);
    }

    #[cfg(unix)]
    #[test]
    fn files_are_owner_only() {
        use std::os::unix::fs::PermissionsExt;
        let (_dir, q) = queue();
        q.enqueue_all([A, A]).unwrap();
        q.drain().unwrap();
        let mode = fs::metadata(q.path()).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}
