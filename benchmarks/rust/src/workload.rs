//! The benchmark workloads, generated deterministically into `<dir>/root`.
//!
//! - `a`: 1,000 files of 4 KiB touched in a 20,000-file tree
//! - `b`: 16 files of 16 MiB
//! - `c-big`: 100 files touched in a 100,000-file tree
//! - `c-small`: the same 100 files in a 100-file tree
//! - `d`: one file of 4 KiB

use std::path::Path;

/// (files in the tree, files touched, bytes per touched file, bytes per other file)
fn shape(workload: &str) -> Option<(usize, usize, usize, usize)> {
    match workload {
        "a" => Some((20_000, 1_000, 4096, 512)),
        "b" => Some((16, 16, 16 << 20, 0)),
        "c-big" => Some((100_000, 100, 4096, 64)),
        "c-small" => Some((100, 100, 4096, 64)),
        "d" => Some((1, 1, 4096, 0)),
        _ => None,
    }
}

/// Deterministic pseudo-random bytes (xorshift), so files do not compress.
fn fill(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut out = Vec::with_capacity(len + 8);
    while out.len() < len {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        out.extend_from_slice(&x.to_le_bytes());
    }
    out.truncate(len);
    out
}

/// The relative path of file `i`: 100 files per directory, two levels deep.
fn path_of(i: usize) -> String {
    format!("d{:03}/s{:02}/f{i:06}.txt", i / 10_000, (i / 100) % 100)
}

/// Writes the workload's tree and the list of touched paths.
pub fn generate(workload: &str, dir: &Path) -> Result<(), String> {
    let (total, touched, touched_len, other_len) =
        shape(workload).ok_or(format!("unknown workload {workload}"))?;
    let root = dir.join("root");
    std::fs::create_dir_all(&root).map_err(|e| e.to_string())?;
    // Touched files are spread evenly through the tree.
    let stride = total / touched;
    let mut paths = Vec::with_capacity(touched);
    for i in 0..total {
        let is_touched = i % stride == 0 && paths.len() < touched;
        let rel = path_of(i);
        let full = root.join(&rel);
        if let Some(parent) = full.parent() {
            std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
        }
        let len = if is_touched { touched_len } else { other_len };
        std::fs::write(&full, fill(i as u64, len)).map_err(|e| e.to_string())?;
        if is_touched {
            paths.push(rel);
        }
    }
    std::fs::write(dir.join("paths.txt"), paths.join("\n") + "\n").map_err(|e| e.to_string())
}

/// The touched paths of a generated workload.
pub fn read_paths(dir: &Path) -> Result<Vec<String>, String> {
    let text = std::fs::read_to_string(dir.join("paths.txt")).map_err(|e| e.to_string())?;
    Ok(text
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect())
}
