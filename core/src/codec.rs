//! Base64 of the snapshot format: standard alphabet, padded, strict
//! (canonical padding, no stray trailing bits), SIMD where the CPU has it.
//!
//! The `base64` crate's runtime-detected SIMD engine (AVX2 / NEON) and its
//! scalar engine accept exactly the same inputs; `core/benches/codec.rs`
//! measures both side by side (the SIMD one is kept because it wins).

use std::sync::OnceLock;

use base64::engine::general_purpose::{GeneralPurpose, PAD, STANDARD};
use base64::Engine as _;

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

#[cfg(test)]
mod tests {
    use super::*;

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
