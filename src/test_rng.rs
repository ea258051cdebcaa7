//! Seeded generators for the unit tests' generated inputs: rand's
//! `StdRng`, the same values for a seed on every run and platform.

use rand::{RngCore, SeedableRng};

/// A generator of 64-bit values from `seed`: each call gives the next.
pub(crate) fn seeded(seed: u64) -> impl FnMut() -> u64 {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    move || rng.next_u64()
}

/// A text of fewer than `max_pieces` pieces drawn from `pieces` by `next`
/// (its count first, then each piece).
pub(crate) fn text_of(next: &mut impl FnMut() -> u64, pieces: &[&str], max_pieces: u64) -> String {
    let count = next() % max_pieces;
    (0..count)
        .map(|_| pieces[(next() % pieces.len() as u64) as usize])
        .collect()
}
