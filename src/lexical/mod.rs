//! Literature-comparable lexical metrics, each equal to its reference
//! library: ROUGE as google-research `rouge-score` 0.1.2 computes it, BLEU
//! and chrF as `sacrebleu` 2.x, SQuAD EM/F1 as the official v1.1 and v2.0
//! evaluation scripts.
//!
//! The text evaluator's own ROUGE and BLEU (`crate::texteval::lexical`)
//! follow that command's reference profile; these follow the libraries.

pub mod bleu;
pub mod chrf;
pub mod fastread;
pub mod porter;
pub mod pytext;
pub mod rouge;
pub mod squad;

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A small, fast, non-cryptographic hasher for token strings (the
/// multiply-rotate scheme of rustc's FxHash).
#[derive(Debug, Default, Clone, Copy)]
pub struct FxHasher(u64);

const FX_SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FxHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(FX_SEED);
    }
}

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.add(u64::from_le_bytes(w));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut w = [0u8; 8];
            w[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(w) ^ ((rest.len() as u64) << 56));
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// Maps token strings to small integer ids, so that n-grams compare as
/// integer slices. One interner serves many items (ids only need to be
/// consistent within an item); a worker thread keeps one.
#[derive(Debug, Default)]
pub struct Interner {
    ids: HashMap<Box<str>, u32, BuildHasherDefault<FxHasher>>,
}

impl Interner {
    /// The id of `token`, assigning the next one to a new token.
    pub fn id(&mut self, token: &str) -> u32 {
        if let Some(&id) = self.ids.get(token) {
            return id;
        }
        let id = self.ids.len() as u32;
        self.ids.insert(token.into(), id);
        id
    }

    /// Distinct tokens seen.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// True before the first token.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }
}

/// Size of the multiset intersection of two sorted sequences (the sum over
/// distinct elements of the smaller count: clipped n-gram matches).
pub fn sorted_intersection<T: Ord>(a: &[T], b: &[T]) -> usize {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                n += 1;
                i += 1;
                j += 1;
            }
        }
    }
    n
}

/// An n-gram packed into one integer, `shift` bits per token id.
pub trait PackedKey: Copy + Ord {
    /// Packs `w`, whose ids are below `2^shift`.
    fn pack(w: &[u32], shift: u32) -> Self;
}

impl PackedKey for u64 {
    fn pack(w: &[u32], shift: u32) -> u64 {
        w.iter().fold(0u64, |k, &t| (k << shift) | u64::from(t))
    }
}

impl PackedKey for u128 {
    fn pack(w: &[u32], shift: u32) -> u128 {
        w.iter().fold(0u128, |k, &t| (k << shift) | u128::from(t))
    }
}

/// The sorted packed n-grams of `tokens` into `out` (`n * shift` must fit
/// the key and every id be below `2^shift`: then packing is exact).
pub fn packed_keys<K: PackedKey>(tokens: &[u32], n: usize, shift: u32, out: &mut Vec<K>) {
    out.clear();
    if n == 0 || tokens.len() < n {
        return;
    }
    out.extend(tokens.windows(n).map(|w| K::pack(w, shift)));
    out.sort_unstable();
}

/// The sorted n-grams of `tokens` packed 32 bits per token into `out`
/// (n from 1 to 4; exact, as ids are 32-bit).
pub fn packed_ngrams(tokens: &[u32], n: usize, out: &mut Vec<u128>) {
    out.clear();
    if n == 0 || n > 4 || tokens.len() < n {
        return;
    }
    out.extend(
        tokens
            .windows(n)
            .map(|w| w.iter().fold(0u128, |k, &t| (k << 32) | u128::from(t))),
    );
    out.sort_unstable();
}

/// The sorted n-grams of `tokens` (as slices).
pub fn sorted_ngrams(tokens: &[u32], n: usize) -> Vec<&[u32]> {
    if n == 0 || tokens.len() < n {
        return Vec::new();
    }
    let mut v: Vec<&[u32]> = tokens.windows(n).collect();
    v.sort_unstable();
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intersection_counts_clipped_matches() {
        assert_eq!(sorted_intersection(&[1, 1, 2, 3, 3, 3], &[1, 3, 3, 4]), 3);
        assert_eq!(sorted_intersection::<u32>(&[], &[1]), 0);
        let a = [5, 6, 5, 6, 5];
        let b = [6, 5, 6];
        assert_eq!(
            sorted_intersection(&sorted_ngrams(&a, 2), &sorted_ngrams(&b, 2)),
            2
        );
    }

    #[test]
    fn interner_is_stable() {
        let mut i = Interner::default();
        assert_eq!(i.id("a"), 0);
        assert_eq!(i.id("bb"), 1);
        assert_eq!(i.id("a"), 0);
        assert_eq!(i.len(), 2);
    }
}
