//! Content hashes used across the crate: SHA-256 (input and output digests,
//! the lexicon's digest) and FNV-1a (seeds and short ids). Bottom-level, so
//! every module may use them without importing upward.

use sha2::{Digest, Sha256};

/// SHA-256 of bytes, lower-case hex.
///
/// ```
/// assert_eq!(
///     corpus_eval::text::hash::sha256_hex(b"abc"),
///     "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
/// );
/// ```
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// Bytes as lower-case hex, two digits each.
///
/// ```
/// assert_eq!(corpus_eval::text::hash::hex(&[0x00, 0xab, 0x7f]), "00ab7f");
/// ```
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// FNV-1a 64-bit hash (for seeds and short ids).
///
/// ```
/// assert_eq!(corpus_eval::text::hash::fnv1a(b""), 0xcbf2_9ce4_8422_2325);
/// ```
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}
