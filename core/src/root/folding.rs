//! [`FoldingRoot`]: a case-insensitive, normalising view of another root.

use unicode_normalization::UnicodeNormalization as _;

use super::{Expect, Metadata, Root, WriteOptions};
use crate::error::Result;
use crate::relpath::RelPath;

/// Another root seen as APFS presents a directory: a name finds the entry
/// whose name equals it after Unicode NFC and ASCII lowercasing (so
/// `README.md` finds `readme.md` and a decomposed `é` a composed one); an
/// entry keeps the spelling it was created with; a write or rename onto a
/// name that finds another spelling replaces that entry and gives it the
/// new spelling. For tests and hosts (the shared vectors' `folding` cases
/// play on one over a [`super::MemRoot`]): every call lists the
/// directories of its path, and it is not meant to be shared between
/// threads ([`Root::as_sync`] is `None`).
#[derive(Debug, Default)]
pub struct FoldingRoot<R> {
    inner: R,
}

/// What two spellings of one name share on a [`FoldingRoot`].
fn key(name: &str) -> String {
    name.nfc().map(|c| c.to_ascii_lowercase()).collect()
}

impl<R: Root> FoldingRoot<R> {
    /// The folding view of `inner`.
    pub fn new(inner: R) -> FoldingRoot<R> {
        FoldingRoot { inner }
    }

    /// The root underneath, whose names are the stored spellings.
    pub fn inner(&self) -> &R {
        &self.inner
    }

    /// `path` with each existing component spelled as stored (the first
    /// missing one and those after it as given).
    fn spelled(&self, path: &RelPath) -> RelPath {
        let mut spelled: Option<RelPath> = None;
        let mut exists = true;
        for part in path.components() {
            let mut name = part.to_owned();
            if exists {
                let names = self.inner.read_dir(spelled.as_ref()).unwrap_or_default();
                if !names.iter().any(|n| n == part) {
                    let wanted = key(part);
                    match names.into_iter().find(|n| key(n) == wanted) {
                        Some(found) => name = found,
                        None => exists = false,
                    }
                }
            }
            let next = match &spelled {
                Some(dir) => dir.join(&name),
                None => RelPath::try_from(name),
            };
            match next {
                Ok(next) => spelled = Some(next),
                Err(_) => return path.clone(),
            }
        }
        spelled.unwrap_or_else(|| path.clone())
    }

    /// Where a write or rename onto `path` lands: its parents as stored and
    /// its own name as given, with the entry another spelling of it names
    /// (to be replaced), if any.
    fn target(&self, path: &RelPath) -> (RelPath, Option<RelPath>) {
        let spelled = self.spelled(path);
        let named = match spelled.parent() {
            Some(dir) => dir
                .join(path.file_name())
                .unwrap_or_else(|_| spelled.clone()),
            None => path.clone(),
        };
        let other = (spelled != named).then_some(spelled);
        (named, other)
    }

    /// Checks `expect` against what `path` finds, then removes the entry
    /// under its other spelling, so that a write under `named` replaces it.
    fn replace(&self, path: &RelPath, other: &RelPath, expect: Expect) -> Result<()> {
        let found = self.inner.metadata(other)?;
        super::check_expect(path, found.as_ref(), expect)?;
        self.inner.remove_file(other, Expect::Any)
    }
}

impl<R: Root> Root for FoldingRoot<R> {
    fn metadata(&self, path: &RelPath) -> Result<Option<Metadata>> {
        self.inner.metadata(&self.spelled(path))
    }
    fn read_dir(&self, dir: Option<&RelPath>) -> Result<Vec<String>> {
        self.inner.read_dir(dir.map(|d| self.spelled(d)).as_ref())
    }
    fn read_file(&self, path: &RelPath, max_bytes: Option<u64>) -> Result<Vec<u8>> {
        self.inner.read_file(&self.spelled(path), max_bytes)
    }
    fn read_link(&self, path: &RelPath) -> Result<String> {
        self.inner.read_link(&self.spelled(path))
    }
    fn write_file(&self, path: &RelPath, bytes: &[u8], options: &WriteOptions) -> Result<()> {
        let (named, other) = self.target(path);
        let options = match other {
            Some(other) => {
                self.replace(path, &other, options.expect)?;
                options.with_expect(Expect::Absent)
            }
            None => *options,
        };
        self.inner.write_file(&named, bytes, &options)
    }
    fn write_link(&self, path: &RelPath, target: &str, options: &WriteOptions) -> Result<()> {
        let (named, other) = self.target(path);
        let options = match other {
            Some(other) => {
                self.replace(path, &other, options.expect)?;
                options.with_expect(Expect::Absent)
            }
            None => *options,
        };
        self.inner.write_link(&named, target, &options)
    }
    fn remove_file(&self, path: &RelPath, expect: Expect) -> Result<()> {
        self.inner.remove_file(&self.spelled(path), expect)
    }
    fn rename_file(&self, from: &RelPath, to: &RelPath, expect: Expect) -> Result<()> {
        let from = self.spelled(from);
        match self.target(to) {
            // Another spelling of `from` itself: only the spelling changes.
            (named, Some(other)) if other == from => self.inner.rename_file(&from, &named, expect),
            // `to` finds another entry: the inner root refuses (not free).
            (_, Some(other)) => self.inner.rename_file(&from, &other, expect),
            (named, None) => self.inner.rename_file(&from, &named, expect),
        }
    }
    fn create_dir(&self, path: &RelPath) -> Result<()> {
        self.inner.create_dir(&self.spelled(path))
    }
    fn remove_dir(&self, path: &RelPath) -> Result<()> {
        self.inner.remove_dir(&self.spelled(path))
    }
    fn sync_dir(&self, path: Option<&RelPath>) -> Result<()> {
        self.inner.sync_dir(path.map(|p| self.spelled(p)).as_ref())
    }
    fn absolute_prefixes(&self) -> Vec<String> {
        self.inner.absolute_prefixes()
    }
    fn canonical_path(&self) -> Option<String> {
        self.inner.canonical_path()
    }
}
