//! Many patterns found in one pass over a text: every occurrence of each
//! pattern, non-overlapping from the left (as a substring search per
//! pattern reports them), whatever the number of patterns.
//!
//! Each pattern of at least [`ANCHOR`] bytes is keyed by its first
//! [`ANCHOR`] bytes. One pass reads 8 bytes at every position of the text;
//! a bit filter over their hash (64 bits or more per pattern, in cache)
//! rejects almost every position with one test, and the rest look the
//! anchor up and compare the whole pattern. Shorter patterns, usually few, are
//! searched one by one. Positions need no work from their neighbours, so
//! the pass runs at memory speed (an automaton over thousands of long
//! patterns is both slower to build and slower to run).

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

/// Bytes of the anchor that keys a pattern.
pub const ANCHOR: usize = 16;

type FxMap<K, V> = HashMap<K, V, BuildHasherDefault<super::fxhash::FxHasher>>;

/// A set of patterns prepared for [`MultiFind::find`].
#[derive(Debug)]
pub struct MultiFind<'p> {
    patterns: Vec<&'p [u8]>,
    /// Pattern ids by anchor.
    anchors: FxMap<u128, Vec<u32>>,
    /// Bit filter over the anchors' hashes (64 bits or more per pattern).
    filter: Vec<u64>,
    /// Its size, log2 of bits.
    bits: u32,
    /// Patterns shorter than the anchor (not empty).
    short: Vec<u32>,
}

#[inline(always)]
fn anchor_at(text: &[u8], at: usize) -> u128 {
    let mut a = [0u8; ANCHOR];
    a.copy_from_slice(&text[at..at + ANCHOR]);
    u128::from_le_bytes(a)
}

/// The filter slot of an anchor: a hash of its first 8 bytes (one load
/// and one multiply per text position).
#[inline(always)]
fn filter_slot(first8: u64, bits: u32) -> usize {
    (first8.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - bits)) as usize
}

impl<'p> MultiFind<'p> {
    /// Prepares `patterns` (ids are their indices; empty ones never match).
    pub fn new(patterns: &[&'p str]) -> MultiFind<'p> {
        let mut anchors: FxMap<u128, Vec<u32>> = FxMap::default();
        let bits = (patterns.len() * 64)
            .next_power_of_two()
            .trailing_zeros()
            .clamp(12, 22);
        let mut filter = vec![0u64; (1 << bits) / 64];
        let mut short = Vec::new();
        for (id, p) in patterns.iter().enumerate() {
            let b = p.as_bytes();
            if b.len() >= ANCHOR {
                let a = anchor_at(b, 0);
                let slot = filter_slot(a as u64, bits);
                filter[slot / 64] |= 1 << (slot % 64);
                anchors.entry(a).or_default().push(id as u32);
            } else if !b.is_empty() {
                short.push(id as u32);
            }
        }
        MultiFind {
            patterns: patterns.iter().map(|p| p.as_bytes()).collect(),
            anchors,
            filter,
            bits,
            short,
        }
    }

    /// Every occurrence of every pattern in `text`, per pattern
    /// non-overlapping from the left: `found[id]` holds pattern `id`'s
    /// byte ranges in order. With `first_only`, at most the first one.
    pub fn find(&self, text: &str, first_only: bool) -> Vec<Vec<std::ops::Range<usize>>> {
        let text = text.as_bytes();
        let mut found: Vec<Vec<std::ops::Range<usize>>> = vec![Vec::new(); self.patterns.len()];
        for &id in &self.short {
            let p = self.patterns[id as usize];
            let f = &mut found[id as usize];
            for at in memchr::memmem::find_iter(text, p) {
                f.push(at..at + p.len());
                if first_only {
                    break;
                }
            }
        }
        if self.anchors.is_empty() || text.len() < ANCHOR {
            return found;
        }
        let filter = &self.filter;
        let bits = self.bits;
        for (at, w) in text[..text.len() - ANCHOR + 8].windows(8).enumerate() {
            let mut first8 = [0u8; 8];
            first8.copy_from_slice(w);
            let slot = filter_slot(u64::from_le_bytes(first8), bits);
            if filter[slot / 64] & (1 << (slot % 64)) == 0 {
                continue;
            }
            let Some(ids) = self.anchors.get(&anchor_at(text, at)) else {
                continue;
            };
            for &id in ids {
                let p = self.patterns[id as usize];
                let f = &mut found[id as usize];
                if (first_only && !f.is_empty()) || f.last().is_some_and(|l| l.end > at) {
                    continue;
                }
                if text[at..].starts_with(p) {
                    f.push(at..at + p.len());
                }
            }
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn by_search(text: &str, p: &str) -> Vec<std::ops::Range<usize>> {
        if p.is_empty() {
            return Vec::new();
        }
        memchr::memmem::find_iter(text.as_bytes(), p.as_bytes())
            .map(|at| at..at + p.len())
            .collect()
    }

    #[test]
    fn equals_a_search_per_pattern() {
        let text =
            "abababababababababab the farm we sold the farm we sold the farm, é é é é é é é é é";
        let patterns = [
            "abababababababababab",
            "ababababababababab",
            "the farm we sold the farm",
            "the farm we sold the",
            "farm",
            "",
            "é é é é é é é é",
            "not in the text at all, no",
            "ab",
        ];
        let mf = MultiFind::new(&patterns);
        let got = mf.find(text, false);
        for (k, p) in patterns.iter().enumerate() {
            assert_eq!(got[k], by_search(text, p), "{p:?}");
        }
        let first = mf.find(text, true);
        for (k, p) in patterns.iter().enumerate() {
            assert_eq!(
                first[k],
                by_search(text, p).into_iter().take(1).collect::<Vec<_>>()
            );
        }
        assert!(mf.find("short", false).iter().all(Vec::is_empty));
    }
}
