//! [`Hooked`]: a real root that runs hooks once at chosen moments (before
//! the first write of a path, before or after the first `create_dir` of
//! one): the races between the plan and the writes.

use std::collections::BTreeMap;
use std::sync::Mutex;

use agent_checkpoint::root::{Expect, Metadata, Root, WriteOptions};
use agent_checkpoint::{RelPath, Result};

type Hook<'a> = Box<dyn FnOnce() + Send + 'a>;

/// A root over another (a `CapRoot` in the core's tests) that runs each hook once, at its moment, and
/// records every path written. It says it is `Sync` (`as_sync`), so a
/// rollback's reads and writes go on two threads through it, when built
/// with `sync`.
pub struct Hooked<'a> {
    inner: &'a (dyn Root + Sync),
    before_write: Mutex<BTreeMap<String, Hook<'a>>>,
    before_mkdir: Mutex<BTreeMap<String, Hook<'a>>>,
    after_mkdir: Mutex<BTreeMap<String, Hook<'a>>>,
    sync: bool,
    /// Every path written (files and links), in order.
    pub writes: Mutex<Vec<String>>,
}

impl<'a> Hooked<'a> {
    /// A root over `inner` with no hooks yet; `sync`: whether it offers
    /// itself to more than one thread.
    pub fn over(inner: &'a (dyn Root + Sync), sync: bool) -> Self {
        Hooked {
            inner,
            before_write: Mutex::new(BTreeMap::new()),
            before_mkdir: Mutex::new(BTreeMap::new()),
            after_mkdir: Mutex::new(BTreeMap::new()),
            sync,
            writes: Mutex::new(Vec::new()),
        }
    }

    /// A root over `inner`, on one thread, that runs `hook` before the
    /// first write (file or link) of `at`.
    pub fn new(inner: &'a (dyn Root + Sync), at: &str, hook: impl FnOnce() + Send + 'a) -> Self {
        Hooked::over(inner, false).on_write(at, hook)
    }

    /// Runs `hook` before the first write (file or link) of `at`.
    pub fn on_write(self, at: &str, hook: impl FnOnce() + Send + 'a) -> Self {
        Self::add(&self.before_write, at, hook);
        self
    }

    /// Runs `hook` after the first successful `create_dir` of `at`.
    pub fn on_mkdir(self, at: &str, hook: impl FnOnce() + Send + 'a) -> Self {
        Self::add(&self.after_mkdir, at, hook);
        self
    }

    /// Runs `hook` before the first `create_dir` of `at`.
    pub fn before_mkdir(self, at: &str, hook: impl FnOnce() + Send + 'a) -> Self {
        Self::add(&self.before_mkdir, at, hook);
        self
    }

    fn add(map: &Mutex<BTreeMap<String, Hook<'a>>>, at: &str, hook: impl FnOnce() + Send + 'a) {
        map.lock().unwrap().insert(at.to_owned(), Box::new(hook));
    }

    fn fire(map: &Mutex<BTreeMap<String, Hook<'a>>>, path: &RelPath) {
        let hook = map.lock().unwrap().remove(path.as_str());
        if let Some(hook) = hook {
            hook();
        }
    }

    fn writing(&self, path: &RelPath) {
        self.writes.lock().unwrap().push(path.to_string());
        Self::fire(&self.before_write, path);
    }
}

impl Root for Hooked<'_> {
    fn as_sync(&self) -> Option<&(dyn Root + Sync)> {
        if self.sync {
            Some(self)
        } else {
            None
        }
    }
    fn metadata(&self, path: &RelPath) -> Result<Option<Metadata>> {
        self.inner.metadata(path)
    }
    fn read_dir(&self, dir: Option<&RelPath>) -> Result<Vec<String>> {
        self.inner.read_dir(dir)
    }
    fn read_file(&self, path: &RelPath, max_bytes: Option<u64>) -> Result<Vec<u8>> {
        self.inner.read_file(path, max_bytes)
    }
    fn visit_file(&self, path: &RelPath, visit: &mut dyn FnMut(&[u8])) -> Result<()> {
        self.inner.visit_file(path, visit)
    }
    fn read_link(&self, path: &RelPath) -> Result<String> {
        self.inner.read_link(path)
    }
    fn write_file(&self, path: &RelPath, bytes: &[u8], options: &WriteOptions) -> Result<()> {
        self.writing(path);
        self.inner.write_file(path, bytes, options)
    }
    fn write_link(&self, path: &RelPath, target: &str, options: &WriteOptions) -> Result<()> {
        self.writing(path);
        self.inner.write_link(path, target, options)
    }
    fn remove_file(&self, path: &RelPath, expect: Expect) -> Result<()> {
        self.inner.remove_file(path, expect)
    }
    fn create_dir(&self, path: &RelPath) -> Result<()> {
        Self::fire(&self.before_mkdir, path);
        let made = self.inner.create_dir(path);
        if made.is_ok() {
            Self::fire(&self.after_mkdir, path);
        }
        made
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
}
