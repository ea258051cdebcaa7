//! A tiny deterministic generator for the unit tests' generated inputs.

/// Xorshift64 from `seed` (which must not be 0): each call gives the next
/// 64-bit value.
pub(crate) fn xorshift(seed: u64) -> impl FnMut() -> u64 {
    let mut state = seed;
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }
}

/// A text of fewer than `max_pieces` pieces drawn from `pieces` by `next`
/// (its count first, then each piece).
pub(crate) fn text_of(next: &mut impl FnMut() -> u64, pieces: &[&str], max_pieces: u64) -> String {
    let count = next() % max_pieces;
    (0..count)
        .map(|_| pieces[(next() % pieces.len() as u64) as usize])
        .collect()
}
