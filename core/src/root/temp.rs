//! Temp-file names of atomic writes, the same for every root.
//!
//! A restored file is first written to `.ckpt-<h>-<r>-<t>.tmp` in its own
//! directory: `<h>` is 8 hex of SHA-256 of the target's name (so a later
//! run can find the temps of the names it writes), `<r>` 16 random hex and
//! `<t>` 8 hex of a check over both. A stray-temp sweep removes only names
//! whose check verifies: a user's file that merely looks like ours
//! (`.ckpt-1234abcd-notes.tmp`) is never taken for one. Roots that can lock
//! files also hold an exclusive lock on each temp while writing it, and
//! the sweep skips temps it cannot lock (a live writer's).

use crate::digest::sha256;
use crate::error::{Error, Result};

/// The prefix of every temp file name.
pub const TEMP_PREFIX: &str = ".ckpt-";

/// The suffix of every temp file name.
pub const TEMP_SUFFIX: &str = ".tmp";

/// The domain of the check over a temp name's parts.
const CHECK_DOMAIN: &[u8] = b"agent-checkpoint temp file v1\0";

/// 8 hex of SHA-256 of the target's name.
fn name_hash(target_name: &str) -> String {
    hex::encode(&sha256(target_name.as_bytes())[..4])
}

/// 8 hex of the check over `hash` and `random`.
fn check(hash: &str, random: &str) -> String {
    let mut input = CHECK_DOMAIN.to_vec();
    input.extend_from_slice(hash.as_bytes());
    input.push(b'-');
    input.extend_from_slice(random.as_bytes());
    hex::encode(&sha256(&input)[..4])
}

/// A fresh temp file name for the target `target_name`.
pub fn temp_name(target_name: &str) -> Result<String> {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).map_err(|e| {
        Error::io(
            "(temp name)",
            std::io::Error::other(format!("system random source failed: {e}")),
        )
    })?;
    let hash = name_hash(target_name);
    let random = hex::encode(bytes);
    let tag = check(&hash, &random);
    Ok(format!("{TEMP_PREFIX}{hash}-{random}-{tag}{TEMP_SUFFIX}"))
}

/// Whether `name` is a temp name this crate made for one of `targets`
/// (its check verifies).
pub fn is_temp_for(name: &str, targets: &[&str]) -> bool {
    let Some(body) = name
        .strip_prefix(TEMP_PREFIX)
        .and_then(|n| n.strip_suffix(TEMP_SUFFIX))
    else {
        return false;
    };
    let mut parts = body.split('-');
    let (Some(hash), Some(random), Some(tag), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return false;
    };
    let is_hex = |s: &str, n: usize| {
        s.len() == n
            && s.bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    };
    is_hex(hash, 8)
        && is_hex(random, 16)
        && is_hex(tag, 8)
        && check(hash, random) == tag
        && targets.iter().any(|t| name_hash(t) == hash)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn our_names_verify_and_look_alikes_do_not() {
        let name = temp_name("a.py").unwrap();
        assert!(is_temp_for(&name, &["a.py"]));
        assert!(!is_temp_for(&name, &["b.py"]));
        let hash = name_hash("a.py");
        for fake in [
            format!(".ckpt-{hash}-notes.tmp"),
            format!(".ckpt-{hash}-0123456789abcdef-00000000.tmp"),
            format!(".ckpt-{hash}-0123456789abcdef.tmp"),
            name.replace(".tmp", ".txt"),
            name.to_uppercase(),
        ] {
            assert!(!is_temp_for(&fake, &["a.py"]), "{fake}");
        }
        assert_ne!(temp_name("a.py").unwrap(), name);
    }
}
