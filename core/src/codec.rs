//! Base64 of the snapshot format: standard alphabet, padded, strict
//! (canonical padding, no stray trailing bits), SIMD where the CPU has it.
//!
//! The `base64` crate's runtime-detected SIMD engine (AVX2 / NEON) and its
//! scalar engine accept exactly the same inputs; `core/benches/codec.rs`
//! measures both side by side (the SIMD one is kept because it wins).

use std::sync::OnceLock;

use base64::engine::general_purpose::{GeneralPurpose, PAD, STANDARD};
use base64::Engine as _;
use sha2::{Digest as _, Sha256};

use crate::digest::{sha256, Sha256Digest};

/// The scalar engine (the reference; also the fallback off x86_64/aarch64).
pub const SCALAR: GeneralPurpose = STANDARD;

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
fn engine() -> &'static base64::engine::Simd {
    static ENGINE: OnceLock<base64::engine::Simd> = OnceLock::new();
    ENGINE.get_or_init(|| base64::engine::Simd::standard(PAD))
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
fn engine() -> &'static GeneralPurpose {
    static ENGINE: OnceLock<GeneralPurpose> = OnceLock::new();
    let _ = PAD;
    ENGINE.get_or_init(|| SCALAR)
}

/// Appends the base64 of `bytes` to `out`.
pub fn encode_into(bytes: &[u8], out: &mut String) {
    engine().encode_string(bytes, out);
}

/// Decodes strict standard base64.
pub fn decode(text: &str) -> Result<Vec<u8>, base64::DecodeError> {
    engine().decode(text)
}

/// Text decoded per step by [`decode_hashing`]: a multiple of 4 characters,
/// small enough that the decoded bytes are still in cache when hashed.
const HASH_STEP: usize = 1 << 16;

/// Decodes strict standard base64 and computes the SHA-256 of the bytes in
/// the same pass (each step's bytes are hashed while still in cache).
/// Accepts and refuses exactly what [`decode`] does, with the same error.
pub(crate) fn decode_hashing(text: &str) -> Result<(Vec<u8>, Sha256Digest), base64::DecodeError> {
    let whole = || {
        decode(text).map(|bytes| {
            let digest = sha256(&bytes);
            (bytes, digest)
        })
    };
    let input = text.as_bytes();
    if input.len() <= HASH_STEP {
        return whole();
    }
    // On any trouble the bytes decoded so far are freed before the whole
    // text is decoded again for its error: a malformed entry never holds
    // two decoded copies at once.
    stepwise(input).map_or_else(whole, Ok)
}

/// The step-by-step decode and hash behind [`decode_hashing`]; `None` when
/// a step fails, or ends with padding in mid-text (judged on the whole text).
fn stepwise(input: &[u8]) -> Option<(Vec<u8>, Sha256Digest)> {
    let mut out = Vec::with_capacity(input.len() / 4 * 3);
    let mut hasher = Sha256::new();
    let mut rest = input;
    while !rest.is_empty() {
        let (step, tail) = rest.split_at(rest.len().min(HASH_STEP));
        // Padding ends a step only if it ends the text.
        if !tail.is_empty() && step.last() == Some(&b'=') {
            return None;
        }
        let start = out.len();
        engine().decode_vec(step, &mut out).ok()?;
        hasher.update(&out[start..]);
        rest = tail;
    }
    Some((out, hasher.finalize().into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decode_hashing_agrees_with_decode_then_hash() {
        let data: Vec<u8> = (0..300_000u32).map(|i| (i * 7 + 3) as u8).collect();
        for len in [0, 1, 2, 3, 49_151, 49_152, 49_153, 98_304, 200_001, 300_000] {
            let mut text = String::new();
            encode_into(&data[..len], &mut text);
            let (bytes, digest) = decode_hashing(&text).expect("valid base64");
            assert_eq!(bytes, &data[..len]);
            assert_eq!(digest, sha256(&data[..len]));
        }
        // Padding at a step's end in mid-text, bad characters late in the
        // text: refused exactly as a whole decode refuses them.
        let mut text = String::new();
        encode_into(&data[..49_151], &mut text);
        let mut padded_mid = text.clone();
        padded_mid.push_str(&text);
        let mut bad_late = text.clone();
        bad_late.push_str(&"A".repeat(HASH_STEP));
        bad_late.push_str("!!!!");
        for bad in [padded_mid, bad_late] {
            assert_eq!(
                decode_hashing(&bad).err().map(|e| e.to_string()),
                decode(&bad).err().map(|e| e.to_string())
            );
            assert!(decode(&bad).is_err());
        }
    }

    #[test]
    fn simd_and_scalar_agree_on_every_length_and_on_bad_input() {
        let data: Vec<u8> = (0..600u32).map(|i| (i * 7 + 3) as u8).collect();
        for len in 0..data.len() {
            let mut fast = String::new();
            encode_into(&data[..len], &mut fast);
            assert_eq!(fast, SCALAR.encode(&data[..len]));
            assert_eq!(decode(&fast).ok().as_deref(), Some(&data[..len]));
        }
        for bad in ["YQ", "YR==", "Y===", "not base64!", "YQ==YQ==", "YQ=\n="] {
            assert_eq!(decode(bad).is_ok(), SCALAR.decode(bad).is_ok(), "{bad:?}");
            assert!(decode(bad).is_err(), "{bad:?}");
        }
    }
}
