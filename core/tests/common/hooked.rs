//! [`Hooked`]: a real root that runs a hook once, right before the first
//! write of one path (the race between the plan and the write).

use std::sync::Mutex;

use agent_checkpoint::root::{Expect, Metadata, Root, WriteOptions};
use agent_checkpoint::{CapRoot, RelPath, Result};

/// A root that runs `hook` once, right before the first write (file or
/// link) of `at`: the race between the plan and the write.
pub struct Hooked<'a> {
    inner: &'a CapRoot,
    at: RelPath,
    hook: Mutex<Option<Box<dyn FnOnce() + Send + 'a>>>,
    /// Every path written (files and links), in order.
    pub writes: Mutex<Vec<String>>,
}

impl<'a> Hooked<'a> {
    /// A root over `inner` that runs `hook` before the first write of `at`.
    pub fn new(inner: &'a CapRoot, at: &str, hook: impl FnOnce() + Send + 'a) -> Self {
        Hooked {
            inner,
            at: RelPath::try_from(at).unwrap(),
            hook: Mutex::new(Some(Box::new(hook))),
            writes: Mutex::new(Vec::new()),
        }
    }
    fn fire(&self, path: &RelPath) {
        self.writes.lock().unwrap().push(path.to_string());
        if *path == self.at {
            if let Some(hook) = self.hook.lock().unwrap().take() {
                hook();
            }
        }
    }
}

impl Root for Hooked<'_> {
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
        self.fire(path);
        self.inner.write_file(path, bytes, options)
    }
    fn write_link(&self, path: &RelPath, target: &str, options: &WriteOptions) -> Result<()> {
        self.fire(path);
        self.inner.write_link(path, target, options)
    }
    fn remove_file(&self, path: &RelPath, expect: Expect) -> Result<()> {
        self.inner.remove_file(path, expect)
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
}
