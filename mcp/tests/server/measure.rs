//! What the server tests share: a fresh repository, bytes no layer can
//! keep small, and the process's peak resident memory.

use std::ffi::OsStr;
use std::path::Path;
use std::process::Command;

/// `git init -q dir`.
pub fn git_init(dir: &Path) {
    let status = Command::new("git")
        .args(["init", "-q"])
        .arg(dir)
        .status()
        .unwrap();
    assert!(status.success());
}

/// `len` random bytes (xorshift from `seed`, which goes on from where it
/// stops), so no layer can keep them small.
pub fn random_bytes(len: usize, seed: &mut u64) -> Vec<u8> {
    (0..len / 8)
        .flat_map(|_| {
            *seed ^= *seed << 13;
            *seed ^= *seed >> 7;
            *seed ^= *seed << 17;
            seed.to_le_bytes()
        })
        .collect()
}

/// The process's high-water mark of resident memory, in bytes.
pub fn vm_hwm() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .expect("VmHWM in /proc/self/status");
    let kib: u64 = line
        .trim_start_matches("VmHWM:")
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .unwrap();
    kib * 1024
}

/// Runs the test `test` of this binary alone in a child process with `env`
/// set, checks it passed, and returns the words of the line it printed
/// after `figures: `.
pub fn child_figures(test: &str, env: &[(&str, &OsStr)]) -> Vec<String> {
    let mut child = Command::new(std::env::current_exe().unwrap());
    child.args(["--exact", test, "--nocapture", "--test-threads=1"]);
    for (name, value) in env {
        child.env(name, value);
    }
    let out = child.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let line = stdout
        .lines()
        .find_map(|l| l.find("figures: ").map(|at| &l[at + "figures: ".len()..]))
        .unwrap_or_else(|| panic!("no figures: {stdout}"));
    line.split(' ').map(|w| w.trim().to_owned()).collect()
}
