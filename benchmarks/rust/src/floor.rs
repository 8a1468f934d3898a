//! The floors: the least work any implementation must do, with the same
//! (fastest) base64 engine the core uses.
//!
//! Capture: read every file and base64-encode it into one buffer. Rollback,
//! two ways, neither validating anything:
//! - `floor`: decode every file, write it to a temp file next to it and
//!   rename that over the target (the least an old-or-new-after-a-crash
//!   writer must do: the same strategy the core uses);
//! - `inplace`: decode every file and overwrite the target in place without
//!   truncating it (a crash can leave a file half old, half new).
//!
//! Nothing here is safe to use; it only bounds what is possible.

use std::fs::OpenOptions;
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::Path;

use agent_checkpoint::codec;

/// Reads and encodes every path into one buffer; returns it with the end
/// offset of each file's text.
pub fn capture(root: &Path, paths: &[String]) -> std::io::Result<(String, Vec<usize>)> {
    let mut out = String::new();
    let mut ends = Vec::with_capacity(paths.len());
    for p in paths {
        let bytes = std::fs::read(root.join(p))?;
        codec::encode_into(&bytes, &mut out);
        ends.push(out.len());
    }
    Ok((out, ends))
}

/// How the rollback floor writes a file.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    /// A temp file in the same directory, renamed over the target.
    TempRename,
    /// Overwrite the target's bytes in place, truncating only when it was longer.
    InPlace,
}

/// Decodes and writes every path (fsync each, and each parent after a
/// rename, when `durable`).
pub fn rollback(
    root: &Path,
    paths: &[String],
    encoded: &(String, Vec<usize>),
    durable: bool,
    strategy: Strategy,
) -> std::io::Result<()> {
    let (text, ends) = encoded;
    let mut start = 0;
    for (p, end) in paths.iter().zip(ends) {
        let bytes = codec::decode(&text[start..*end]).map_err(std::io::Error::other)?;
        start = *end;
        let target = root.join(p);
        match strategy {
            Strategy::TempRename => {
                let temp = target.with_extension("floor-tmp");
                let mut file = std::fs::File::create(&temp)?;
                file.write_all(&bytes)?;
                if durable {
                    file.sync_all()?;
                }
                std::fs::rename(&temp, &target)?;
                if durable {
                    if let Some(parent) = target.parent() {
                        std::fs::File::open(parent)?.sync_all()?;
                    }
                }
            }
            Strategy::InPlace => {
                let file = OpenOptions::new()
                    .write(true)
                    .create(true)
                    .truncate(false)
                    .open(&target)?;
                file.write_all_at(&bytes, 0)?;
                if file.metadata()?.len() != bytes.len() as u64 {
                    file.set_len(bytes.len() as u64)?;
                }
                if durable {
                    file.sync_all()?;
                }
            }
        }
    }
    Ok(())
}

/// Changes every file in place (its first byte inverted), untimed, so
/// that the next rollback has every file to restore, as after a batch
/// of edits. Costs one small read and write per file.
pub fn edit(root: &Path, paths: &[String]) -> std::io::Result<()> {
    for p in paths {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(root.join(p))?;
        let mut byte = [0u8; 1];
        if file.read_at(&mut byte, 0)? == 1 {
            file.write_all_at(&[!byte[0]], 0)?;
        }
    }
    Ok(())
}
