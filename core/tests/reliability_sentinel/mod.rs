//! What the reliability suites share: exact fingerprints of real directory
//! trees (content, mode, inode and mtime, so a rewrite of identical bytes or
//! a temp file created and removed still shows), a seeded random source, and
//! the figure lines each suite prints.
#![allow(dead_code, reason = "each test binary uses a different subset")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is a failing test"
)]

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use agent_checkpoint::internals::{sha256, to_hex};
use cap_fs_ext::DirExt;
use cap_std::ambient_authority;
use cap_std::fs::{Dir, MetadataExt as _};

/// Everything observable about one entry, without following symlinks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fingerprint {
    /// `file`, `dir`, `link` or `special`.
    pub kind: &'static str,
    /// `st_mode & 0o7777`.
    pub mode: u32,
    /// `st_ino`: a replaced file has a new one.
    pub ino: u64,
    /// `st_mtime` in nanoseconds: any write, and any entry added to or
    /// removed from a directory, moves it.
    pub mtime_ns: i128,
    /// Size in bytes.
    pub len: u64,
    /// SHA-256 of a link's target bytes (a file's content change always
    /// moves its mtime, so files are not hashed).
    pub content: Option<String>,
}

/// The fingerprint of every entry below `dir` (keyed by raw relative path
/// bytes, so non-UTF-8 names are kept), plus `dir` itself under the key `.`.
/// Paths in `skip` (relative to `dir`) are left out with everything below.
/// Walks with directory handles, so trees deeper than `PATH_MAX` are fine.
pub fn fingerprint_tree(dir: &Path, skip: &[&str]) -> BTreeMap<Vec<u8>, Fingerprint> {
    let mut out = BTreeMap::new();
    out.insert(b".".to_vec(), fingerprint(dir));
    let handle = Dir::open_ambient_dir(dir, ambient_authority()).unwrap();
    walk(&handle, skip, &mut out);
    out
}

fn walk(top: &Dir, skip: &[&str], out: &mut BTreeMap<Vec<u8>, Fingerprint>) {
    // Iterative: trees thousands of levels deep must not overflow the stack.
    let mut pending: Vec<(Dir, Vec<u8>)> = vec![(top.try_clone().unwrap(), Vec::new())];
    while let Some((dir, prefix)) = pending.pop() {
        let mut names: Vec<_> = dir
            .entries()
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        names.sort();
        for name in names {
            let mut rel = prefix.clone();
            if !rel.is_empty() {
                rel.push(b'/');
            }
            rel.extend_from_slice(name.as_bytes());
            if skip.iter().any(|s| s.as_bytes() == rel.as_slice()) {
                continue;
            }
            let meta = dir.symlink_metadata(&name).unwrap();
            let t = meta.file_type();
            let (kind, content) = if t.is_symlink() {
                let target = dir.read_link_contents(&name).unwrap();
                ("link", Some(to_hex(&sha256(target.as_os_str().as_bytes()))))
            } else if t.is_dir() {
                ("dir", None)
            } else if t.is_file() {
                ("file", None)
            } else {
                ("special", None)
            };
            let fp = Fingerprint {
                kind,
                mode: meta.mode() & 0o7777,
                len: meta.len(),
                ino: meta.ino(),
                mtime_ns: i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec()),
                content,
            };
            out.insert(rel.clone(), fp);
            if kind == "dir" {
                pending.push((dir.open_dir_nofollow(&name).unwrap(), rel));
            }
        }
    }
}

/// The fingerprint of one path (never following a final symlink).
pub fn fingerprint(path: &Path) -> Fingerprint {
    let meta = std::fs::symlink_metadata(path).unwrap();
    let t = meta.file_type();
    let (kind, content) = if t.is_symlink() {
        let target = std::fs::read_link(path).unwrap();
        ("link", Some(to_hex(&sha256(target.as_os_str().as_bytes()))))
    } else if t.is_dir() {
        ("dir", None)
    } else if t.is_file() {
        ("file", None)
    } else {
        ("special", None)
    };
    Fingerprint {
        kind,
        mode: std::os::unix::fs::MetadataExt::mode(&meta) & 0o7777,
        len: meta.len(),
        ino: std::os::unix::fs::MetadataExt::ino(&meta),
        mtime_ns: i128::from(std::os::unix::fs::MetadataExt::mtime(&meta)) * 1_000_000_000
            + i128::from(std::os::unix::fs::MetadataExt::mtime_nsec(&meta)),
        content,
    }
}

/// The keys whose fingerprints differ between `a` and `b` (added, removed
/// or changed), shown lossily.
pub fn changed_keys(
    a: &BTreeMap<Vec<u8>, Fingerprint>,
    b: &BTreeMap<Vec<u8>, Fingerprint>,
) -> Vec<String> {
    let mut keys: Vec<&Vec<u8>> = a.keys().chain(b.keys()).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .filter(|k| a.get(*k) != b.get(*k))
        .map(|k| String::from_utf8_lossy(k).into_owned())
        .collect()
}

/// Every leftover rollback temp file (`.ckpt-*.tmp`) below `dir`,
/// relative to it.
pub fn stray_temps(dir: &Path) -> Vec<String> {
    fingerprint_tree(dir, &[])
        .into_keys()
        .filter(|k| {
            let name = k.rsplit(|b| *b == b'/').next().unwrap_or(k);
            is_temp_name(OsStr::from_bytes(name))
        })
        .map(|k| String::from_utf8_lossy(&k).into_owned())
        .collect()
}

/// Whether `name` looks like a rollback temp file name
/// (`.ckpt-<8 hex of the target name>-<16 random hex>-<8 hex check>.tmp`).
pub fn is_temp_name(name: &OsStr) -> bool {
    let b = name.as_bytes();
    b.starts_with(b".ckpt-") && b.ends_with(b".tmp")
}

/// Whether the long runs were asked for (`RELIABILITY_LONG=1`).
pub fn long_run() -> bool {
    std::env::var("RELIABILITY_LONG").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// A number from the environment, or `default`.
pub fn env_count(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Prints one figure line (`reliability <suite>: ...`), the form the
/// scripts and docs/RELIABILITY.md collect.
pub fn figure(suite: &str, text: &str) {
    eprintln!("reliability {suite}: {text}");
}

/// A small seeded random source (xorshift64*): the seed is printed so a
/// failing run can be replayed with `RELIABILITY_SEED`.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// Seeded from `RELIABILITY_SEED`, else from the OS; prints the seed.
    pub fn from_env(suite: &str) -> Rng {
        let seed = std::env::var("RELIABILITY_SEED")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| {
                let mut b = [0u8; 8];
                getrandom::fill(&mut b).unwrap();
                u64::from_le_bytes(b)
            });
        eprintln!("reliability {suite}: seed {seed} (replay with RELIABILITY_SEED={seed})");
        Rng::new(seed)
    }

    /// A generator with a fixed seed.
    pub fn new(seed: u64) -> Rng {
        Rng(seed | 1)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// `n` random bytes.
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(n + 8);
        while out.len() < n {
            out.extend_from_slice(&self.next_u64().to_le_bytes());
        }
        out.truncate(n);
        out
    }
}
