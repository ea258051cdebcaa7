//! Tests on eight bytes at once in one `u64` (SIMD within a register),
//! exact for every byte: no carry or borrow crosses from one byte to the
//! next.

/// 0x01 in every byte.
pub(crate) const ONES: u64 = 0x0101_0101_0101_0101;
/// 0x80 in every byte.
pub(crate) const HIGHS: u64 = 0x8080_8080_8080_8080;

/// The eight bytes at `at` of `bytes` as one little-endian word (byte
/// `at` lowest), when there are eight.
#[inline(always)]
pub(crate) fn word_at(bytes: &[u8], at: usize) -> Option<u64> {
    let chunk = bytes.get(at..at.checked_add(8)?)?;
    let mut a = [0u8; 8];
    a.copy_from_slice(chunk);
    Some(u64::from_le_bytes(a))
}

/// The high bit of each zero byte of `x` set, all else clear.
#[inline(always)]
pub(crate) fn zero_bytes(x: u64) -> u64 {
    !(((x & !HIGHS) + !HIGHS) | x) & HIGHS
}

/// The high bit of each byte of `w` equal to `b` set, all else clear.
#[inline(always)]
pub(crate) fn bytes_equal(w: u64, b: u8) -> u64 {
    zero_bytes(w ^ (u64::from(b) * ONES))
}

/// The high bit of each byte of `w` below 0x20 (a control byte) set, all
/// else clear.
#[inline(always)]
pub(crate) fn control_bytes(w: u64) -> u64 {
    // (b | 0x80) - 0x20 keeps its high bit iff b & 0x7F >= 0x20, and never
    // borrows; bytes >= 0x80 are masked out by `!w`.
    !(w | HIGHS).wrapping_sub(0x20 * ONES) & HIGHS & !w
}

/// The high bit of each byte of `w` that is an ASCII letter or digit set,
/// all else clear (bytes >= 0x80 clear).
#[inline(always)]
pub(crate) fn alnum_bytes(w: u64) -> u64 {
    // For a byte x < 0x80: x + (0x80 - lo) has its high bit iff x >= lo,
    // x + (0x7F - hi) iff x > hi; neither sum reaches 0x100 (no carry).
    #[inline(always)]
    fn in_range(x: u64, lo: u8, hi: u8) -> u64 {
        let x = x & !HIGHS;
        (x + u64::from(0x80 - lo) * ONES) & !(x + u64::from(0x7F - hi) * ONES) & HIGHS
    }
    let ascii = !w & HIGHS;
    (in_range(w | (0x20 * ONES), b'a', b'z') | in_range(w, b'0', b'9')) & ascii
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_byte_is_tested_on_its_own() {
        // Every byte value at every position, among neighbours that could
        // carry or borrow into it.
        for b in 0..=255u8 {
            for at in 0..8 {
                for fill in [0x00u8, 0x1F, 0x20, 0x7F, 0x80, 0xFF] {
                    let mut a = [fill; 8];
                    a[at] = b;
                    let w = u64::from_le_bytes(a);
                    let flag = |set: bool| if set { 0x80u64 << (8 * at) } else { 0 };
                    let mask = 0xFFu64 << (8 * at);
                    assert_eq!(zero_bytes(w) & mask, flag(b == 0), "{b} {at} {fill}");
                    assert_eq!(bytes_equal(w, b' ') & mask, flag(b == b' '));
                    assert_eq!(control_bytes(w) & mask, flag(b < 0x20));
                    assert_eq!(alnum_bytes(w) & mask, flag(b.is_ascii_alphanumeric()));
                }
            }
        }
        assert_eq!(
            word_at(b"0123456789", 2),
            Some(u64::from_le_bytes(*b"23456789"))
        );
        assert_eq!(word_at(b"0123456789", 3), None);
        assert_eq!(word_at(b"", usize::MAX), None);
    }
}
