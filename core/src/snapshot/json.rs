//! [`SnapshotJson`]: the text of a snapshot, as capture returns it.

use std::fmt;

use super::{ParseOptions, Snapshot};
use crate::error::Result;

/// The JSON text of a snapshot, as [`crate::capture`], `to_json` and
/// rollback's `redo` produce it: a snapshot cannot be confused with any
/// other string. Store it as text ([`SnapshotJson::as_str`]) and read it
/// back with [`Snapshot::parse`] (or [`SnapshotJson::parse`]).
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct SnapshotJson(pub(crate) String);

impl SnapshotJson {
    /// The text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The text, owned.
    pub fn into_string(self) -> String {
        self.0
    }

    /// Its length in bytes.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether the text is empty (never, for a snapshot this crate made).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Parses the text (see [`Snapshot::parse`]).
    pub fn parse(&self, options: &ParseOptions) -> Result<Snapshot> {
        Snapshot::parse(&self.0, options)
    }
}

impl AsRef<str> for SnapshotJson {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for SnapshotJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for SnapshotJson {
    /// The length, not the text (which holds whole files).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SnapshotJson({} bytes)", self.0.len())
    }
}

impl From<SnapshotJson> for String {
    fn from(json: SnapshotJson) -> String {
        json.0
    }
}

impl PartialEq<str> for SnapshotJson {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for SnapshotJson {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for SnapshotJson {
    /// As the snapshot text (a JSON string holding the document).
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}
