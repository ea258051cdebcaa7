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
