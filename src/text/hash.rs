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

/// [`sha256_hex`] (the same digest), hashed a MiB at a time, telling
/// `progress` the offset hashed so far after each MiB (the last block ends
/// at the length; nothing is told for empty bytes): the bytes before it
/// are not read again.
///
/// ```
/// use corpus_eval::text::hash::{sha256_hex, sha256_hex_reporting};
/// let bytes = vec![b'x'; (3 << 20) + 5];
/// let seen = std::cell::RefCell::new(Vec::new());
/// let digest = sha256_hex_reporting(&bytes, &|at| seen.borrow_mut().push(at));
/// assert_eq!(digest, sha256_hex(&bytes));
/// assert_eq!(seen.into_inner(), [1 << 20, 2 << 20, 3 << 20, (3 << 20) + 5]);
/// ```
pub fn sha256_hex_reporting(bytes: &[u8], progress: &dyn Fn(usize)) -> String {
    let mut hasher = Sha256::new();
    let mut done = 0;
    for block in bytes.chunks(1 << 20) {
        hasher.update(block);
        done += block.len();
        progress(done);
    }
    hex(&hasher.finalize())
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
