//! Literature-comparable lexical metrics, each equal to its reference
//! library: ROUGE as google-research `rouge-score` 0.1.2 computes it, BLEU
//! and chrF as `sacrebleu` 2.x, SQuAD EM/F1 as the official v1.1 and v2.0
//! evaluation scripts.
//!
//! The text evaluator's own ROUGE and BLEU (`crate::texteval::lexical`)
//! follow that command's reference profile; these follow the libraries.

pub mod bleu;
pub mod chrf;
pub(crate) mod fastread;
pub(crate) mod porter;
pub use porter::*;
pub(crate) mod pytext;
pub use pytext::*;
pub mod rouge;
pub mod squad;

/// Maps token strings to small integer ids, so that n-grams compare as
/// integer slices. Ids only need to be consistent within an item: a worker
/// thread keeps one interner and clears it per item, so its table stays
/// small and in cache. An open-addressing table over an arena of the
/// tokens' bytes.
#[derive(Debug, Default)]
pub struct Interner {
    /// Every token's bytes, back to back.
    arena: Vec<u8>,
    /// Per id: (start in the arena, length, slot).
    entries: Vec<(u32, u32, u32)>,
    /// Per id: the token's hash (for growing the table).
    hashes: Vec<u64>,
    /// Slots: the hash's high 32 bits and id + 1, or 0 when empty; a power
    /// of two, at most half full.
    slots: Vec<u64>,
}

/// A fast hash of a short byte string (64-bit multiply-mix over 8-byte
/// words, the length folded in). The tail is read with two overlapping
/// loads, not through a buffer on the stack (which stalls the load).
fn token_hash(bytes: &[u8]) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut h = (bytes.len() as u64).wrapping_mul(K);
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        let w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        h = (h ^ w).wrapping_mul(K).rotate_left(29);
    }
    let rest = chunks.remainder();
    let n = rest.len();
    if n > 0 {
        let w = if n >= 4 {
            let lo = u32::from_le_bytes([rest[0], rest[1], rest[2], rest[3]]);
            let hi = u32::from_le_bytes([rest[n - 4], rest[n - 3], rest[n - 2], rest[n - 1]]);
            (u64::from(hi) << 32) | u64::from(lo)
        } else {
            (u64::from(rest[0]) << 16) | (u64::from(rest[n / 2]) << 8) | u64::from(rest[n - 1])
        };
        h = (h ^ w).wrapping_mul(K).rotate_left(29);
    }
    h ^ (h >> 32)
}

impl Interner {
    /// The id of `token`, assigning the next one to a new token.
    pub fn id(&mut self, token: &str) -> u32 {
        self.id_of_bytes(token.as_bytes())
    }

    /// [`Interner::id`] for the bytes of a token.
    pub fn id_of_bytes(&mut self, token: &[u8]) -> u32 {
        if self.slots.is_empty() {
            self.slots = vec![0; 1024];
        }
        let hash = token_hash(token);
        // A slot holds the hash's high half beside id + 1, so most probes
        // decide without touching the entry.
        let tag = hash & 0xFFFF_FFFF_0000_0000;
        let mask = self.slots.len() - 1;
        let mut i = hash as usize & mask;
        loop {
            let slot = self.slots[i];
            if slot == 0 {
                break;
            }
            if slot & 0xFFFF_FFFF_0000_0000 == tag {
                let id = (slot as u32) - 1;
                let (start, len, _) = self.entries[id as usize];
                if &self.arena[start as usize..(start + len) as usize] == token {
                    return id;
                }
            }
            i = (i + 1) & mask;
        }
        let id = self.entries.len() as u32;
        self.entries
            .push((self.arena.len() as u32, token.len() as u32, i as u32));
        self.arena.extend_from_slice(token);
        self.hashes.push(hash);
        self.slots[i] = tag | u64::from(id + 1);
        if self.entries.len() * 2 > self.slots.len() {
            self.grow();
        }
        id
    }

    fn grow(&mut self) {
        let size = self.slots.len() * 2;
        let mut slots = vec![0u64; size];
        let mask = size - 1;
        for (id, h) in self.hashes.iter().enumerate() {
            let mut i = *h as usize & mask;
            while slots[i] != 0 {
                i = (i + 1) & mask;
            }
            slots[i] = (h & 0xFFFF_FFFF_0000_0000) | (id as u64 + 1);
            self.entries[id].2 = i as u32;
        }
        self.slots = slots;
    }

    /// Forgets every token (ids start again at 0), touching only the used
    /// slots: an interner per item stays small and in cache.
    pub fn clear(&mut self) {
        for &(_, _, slot) in &self.entries {
            self.slots[slot as usize] = 0;
        }
        self.entries.clear();
        self.hashes.clear();
        self.arena.clear();
    }

    /// Distinct tokens seen.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True before the first token.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
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
        // Through several growths, every token keeps its id.
        let words: Vec<String> = (0..5000)
            .map(|k| format!("w{k}x{}", k * 7919 % 13))
            .collect();
        let ids: Vec<u32> = words.iter().map(|w| i.id(w)).collect();
        for (w, id) in words.iter().zip(&ids) {
            assert_eq!(i.id(w), *id);
        }
        assert_eq!(i.len(), 5002);
        assert_eq!(i.id(""), 5002);
        assert_eq!(i.id("a"), 0);
        i.clear();
        assert!(i.is_empty());
        assert_eq!(i.id("w7x"), 0);
        assert_eq!(i.id("a"), 1);
        assert_eq!(i.id("w7x"), 0);
    }
}
