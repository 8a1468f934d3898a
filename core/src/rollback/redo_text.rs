//! [`Redo`]: the redo snapshot a rollback returns, held as the bytes it
//! read and turned into snapshot text (digests, base64, the MAC) only when
//! someone asks for it.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::sync::OnceLock;

use crate::digest::sha256;
use crate::parallel;
use crate::relpath::RelPath;
use crate::seal::Sealer;
use crate::snapshot::{Index, Snapshot, SnapshotEncoder, SnapshotJson};

/// The `redo` snapshot of a rollback: the captured paths as they were just
/// before it. Rolling it back brings the batch's result back.
///
/// It holds the bytes the rollback read (moved, not copied) and makes its
/// text the first time [`Redo::as_str`] (or `to_json`, `into_json`,
/// `Display`, serde) asks for it, then keeps that text: a caller that never
/// reads the redo never pays for hashing and encoding it. The text is
/// exactly what an eager encoding would have been.
pub struct Redo {
    /// Each captured path's bytes (`None`: nothing there).
    entries: BTreeMap<RelPath, Option<Vec<u8>>>,
    /// Everything else (its `entries` and `digests` are empty until
    /// encoding).
    rest: Snapshot,
    /// Set when the redo is to be sealed like the snapshot it undoes.
    sealer: Option<Sealer>,
    text: OnceLock<String>,
}

impl Redo {
    /// A redo of `snapshot` (validated, its digests not computed yet),
    /// sealed with `sealer` when given.
    pub(crate) fn new(mut snapshot: Snapshot, sealer: Option<Sealer>) -> Redo {
        let entries = std::mem::take(&mut snapshot.entries);
        snapshot.digests.clear();
        Redo {
            entries,
            rest: snapshot,
            sealer,
            text: OnceLock::new(),
        }
    }

    /// The snapshot text, made now if it was not yet.
    pub fn as_str(&self) -> &str {
        self.text.get_or_init(|| self.encode())
    }

    /// The snapshot text, as an owned [`SnapshotJson`]: a copy of the kept
    /// text when it was made already, otherwise made for this call and not
    /// kept (for a caller that moves it elsewhere, such as a binding).
    pub fn to_json(&self) -> SnapshotJson {
        SnapshotJson(match self.text.get() {
            Some(text) => text.clone(),
            None => self.encode(),
        })
    }

    /// The snapshot text, without a copy when it was not made yet.
    pub fn into_json(self) -> SnapshotJson {
        match self.text.into_inner() {
            Some(text) => SnapshotJson(text),
            None => SnapshotJson(
                Redo {
                    text: OnceLock::new(),
                    ..self
                }
                .encode(),
            ),
        }
    }

    /// The captured paths the redo holds (files, absent paths, symlinks),
    /// sorted, without making its text.
    pub fn paths(&self) -> Vec<String> {
        let mut paths: Vec<String> = self
            .entries
            .keys()
            .chain(self.rest.links.keys())
            .map(|p| p.as_str().to_owned())
            .collect();
        paths.sort();
        paths
    }

    /// Whether its text has been made.
    pub fn is_encoded(&self) -> bool {
        self.text.get().is_some()
    }

    /// Takes `paths` out of the redo (a path found changed at the last
    /// moment and left as it is: the redo's bytes for it are no longer what
    /// is there, and rolling the redo back would overwrite that change),
    /// with the created directories only they needed. Before encoding only.
    pub(super) fn leave_out(&mut self, paths: &BTreeSet<&str>) {
        if paths.is_empty() {
            return;
        }
        let gone = |path: &RelPath| paths.contains(path.as_str());
        self.entries.retain(|path, _| !gone(path));
        self.rest.links.retain(|path, _| !gone(path));
        self.rest.modes.retain(|path, _| !gone(path));
        self.rest.entries = std::mem::take(&mut self.entries);
        let index = Index::new(&self.rest);
        let orphaned: Vec<RelPath> = self
            .rest
            .created_dirs
            .iter()
            .filter(|dir| !index.has_new_below(dir.as_str()))
            .cloned()
            .collect();
        for dir in orphaned {
            self.rest.created_dirs.remove(&dir);
        }
        self.entries = std::mem::take(&mut self.rest.entries);
    }

    fn encode(&self) -> String {
        // The digests of what was read, on every core for large files.
        let files: Vec<(&RelPath, &Vec<u8>)> = self
            .entries
            .iter()
            .filter_map(|(path, bytes)| bytes.as_ref().map(|b| (path, b)))
            .collect();
        let digests = parallel::map(&files, |(_, b)| b.len(), |(_, b)| sha256(b));
        let mut rest = self.rest.clone();
        rest.digests = files
            .iter()
            .map(|(path, _)| (*path).clone())
            .zip(digests)
            .collect();
        let size = self
            .entries
            .iter()
            .map(|(p, b)| {
                b.as_ref().map_or(0, |b| b.len().div_ceil(3) * 4) + 2 * p.as_str().len() + 96
            })
            .sum::<usize>()
            + 256;
        let mut encoder = SnapshotEncoder::with_capacity(size);
        for (path, content) in &self.entries {
            encoder.entry(path, content.as_deref());
        }
        let text = encoder.finish(&rest, false);
        match &self.sealer {
            Some(sealer) => sealer.seal_object(text),
            None => text,
        }
    }
}

impl AsRef<str> for Redo {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl fmt::Display for Redo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for Redo {
    /// How many paths it holds, not its text (which holds whole files).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Redo({} paths, {})",
            self.entries.len() + self.rest.links.len(),
            if self.is_encoded() {
                "encoded"
            } else {
                "not encoded yet"
            }
        )
    }
}

impl From<Redo> for SnapshotJson {
    fn from(redo: Redo) -> SnapshotJson {
        redo.into_json()
    }
}

impl From<Redo> for String {
    fn from(redo: Redo) -> String {
        redo.into_json().into_string()
    }
}

impl PartialEq<str> for Redo {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Redo {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for Redo {
    /// As the snapshot text (a JSON string holding the document).
    fn serialize<S: serde::Serializer>(
        &self,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}
