//! The hardware floor: the least work any implementation must do, with the
//! same (fastest) base64 engine the core uses.
//!
//! Capture: read every file and base64-encode it into one buffer. Rollback:
//! decode every file and write it in place (no temp file, no rename, no
//! validation). Nothing here is safe to use; it only bounds what is possible.

use std::io::Write;
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

/// Decodes and writes every path in place (fsync each when `durable`).
pub fn rollback(
    root: &Path,
    paths: &[String],
    encoded: &(String, Vec<usize>),
    durable: bool,
) -> std::io::Result<()> {
    let (text, ends) = encoded;
    let mut start = 0;
    for (p, end) in paths.iter().zip(ends) {
        let bytes = codec::decode(&text[start..*end]).map_err(std::io::Error::other)?;
        start = *end;
        let mut file = std::fs::File::create(root.join(p))?;
        file.write_all(&bytes)?;
        if durable {
            file.sync_all()?;
        }
    }
    Ok(())
}
