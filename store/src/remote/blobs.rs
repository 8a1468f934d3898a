//! The blobs of a checkpoint tree, and which of them are its *documents*:
//! every `metadata.json` (the root summary, each session's metadata) and
//! `tasks/<id>/checkpoint.json`. A treeless fetch brings the documents
//! along (listing, `show` and replaying by meaning read only them); the
//! rest — transcripts, prompts, content hashes — wait on the remote until a
//! read needs them.

use gix::ObjectId;

use crate::layout::{METADATA_FILE, TASK_FILE};
use crate::objects::read_tree;
use agent_checkpoint::Result;

/// Which blobs of a tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Which {
    /// Only the documents.
    Documents,
    /// Every blob.
    All,
}

/// Whether a blob named `name` is a document.
pub(crate) fn is_document(name: &[u8]) -> bool {
    name == METADATA_FILE.as_bytes() || name == TASK_FILE.as_bytes()
}

/// Every blob under the tree `tree` (its trees must be here) that `which`
/// selects, with its path from `tree`, in tree order.
///
/// # Errors
/// `corrupt_object` when a tree is missing or malformed.
pub(crate) fn blobs(
    repo: &gix::Repository,
    tree: ObjectId,
    which: Which,
    what: &str,
) -> Result<Vec<(String, ObjectId)>> {
    let mut out = Vec::new();
    let mut stack = vec![(String::new(), tree)];
    while let Some((prefix, tree)) = stack.pop() {
        for entry in read_tree(repo, &tree, what)? {
            let name = String::from_utf8_lossy(&entry.filename).into_owned();
            let path = if prefix.is_empty() {
                name
            } else {
                format!("{prefix}/{name}")
            };
            if entry.mode.is_tree() {
                stack.push((path, entry.oid));
            } else if entry.mode.is_blob_or_symlink()
                && (which == Which::All || is_document(&entry.filename))
            {
                out.push((path, entry.oid));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_are_the_metadata_files() {
        assert!(is_document(b"metadata.json"));
        assert!(is_document(b"checkpoint.json"));
        for other in [
            "full.jsonl",
            "full.jsonl.001",
            "prompt.txt",
            "content_hash.txt",
        ] {
            assert!(!is_document(other.as_bytes()), "{other}");
        }
    }
}
