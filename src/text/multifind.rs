//! Many patterns found in one pass over a text: every occurrence of each
//! pattern, non-overlapping from the left (as a substring search per
//! pattern reports them), whatever the number of patterns.
//!
//! Each pattern of at least [`ANCHOR`] bytes is keyed by its 16-byte
//! pieces at offsets 0 to 7. Any occurrence of such a pattern has exactly
//! one of those pieces starting at a text position divisible by 8, so the
//! pass reads only every eighth position: a bit filter over the 16 bytes
//! there (64 bits or more per key, in cache) rejects almost every position
//! with one test, and the rest look the key up and compare whole patterns
//! at the starts it implies. Shorter patterns, usually few, are searched one
//! by one. Positions need no work from their neighbours, so the pass runs
//! at memory speed (an automaton over thousands of long patterns is both
//! slower to build and slower to run).

/// The pass reads the text every `STRIDE` bytes.
const STRIDE: usize = 8;
/// Bytes of a key.
const KEY: usize = 16;
/// Patterns of at least this many bytes are found in the one pass (a key
/// at each offset below the stride).
pub const ANCHOR: usize = KEY + STRIDE - 1;

/// A set of patterns prepared for [`MultiFind::find`].
#[derive(Debug)]
pub struct MultiFind<'p> {
    patterns: Vec<&'p [u8]>,
    /// The distinct keys, by directory bucket (looked up only where the
    /// filter lets a position through).
    keys: Vec<u128>,
    /// Where each directory bucket's keys start in `keys` (and, last,
    /// their number): a bucket is the top `dir_bits` bits of a key's hash,
    /// about one key each.
    dir: Vec<u32>,
    /// Bits of a directory bucket.
    dir_bits: u32,
    /// Where each key's run of `sites` starts (and, last, their number).
    runs: Vec<u32>,
    /// Where each key stands: (pattern id, offset of the key in it), the
    /// sites of one key together, in the order of `keys`.
    sites: Vec<(u32, u8)>,
    /// Bit filter over the keys' hashes (64 bits or more per key).
    filter: Vec<u64>,
    /// Its size, log2 of bits.
    bits: u32,
    /// Patterns shorter than [`ANCHOR`] (not empty).
    short: Vec<u32>,
}

#[inline(always)]
fn key_at(text: &[u8], at: usize) -> u128 {
    let mut a = [0u8; KEY];
    a.copy_from_slice(&text[at..at + KEY]);
    u128::from_le_bytes(a)
}

/// The hash of a key (two multiplies): its top bits give its filter slot
/// and its directory bucket.
#[inline(always)]
fn key_hash(key: u128) -> u64 {
    (key as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ ((key >> 64) as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F)
}

/// The top `bits` bits of a hash.
#[inline(always)]
fn top(h: u64, bits: u32) -> usize {
    (h >> (64 - bits)) as usize
}

impl<'p> MultiFind<'p> {
    /// Prepares `patterns` (ids are their indices; empty ones never match).
    pub fn new(patterns: &[&'p str]) -> MultiFind<'p> {
        // One flat array of sites and an array of keys (grouped by
        // directory bucket) with their runs, not a vector per key nor a
        // hash map: ~32 bytes per key (6 MB for 24,000 patterns), in a few
        // allocations.
        let long = patterns.iter().filter(|p| p.len() >= ANCHOR).count();
        let mut keyed: Vec<(u128, u32, u8)> = Vec::with_capacity(long * STRIDE);
        let bits = (long * STRIDE * 64)
            .next_power_of_two()
            .trailing_zeros()
            .clamp(12, 24);
        let mut filter = vec![0u64; (1 << bits) / 64];
        let mut short = Vec::new();
        for (id, p) in patterns.iter().enumerate() {
            let b = p.as_bytes();
            if b.len() >= ANCHOR {
                for offset in 0..STRIDE {
                    let k = key_at(b, offset);
                    let slot = top(key_hash(k), bits);
                    filter[slot / 64] |= 1 << (slot % 64);
                    keyed.push((k, id as u32, offset as u8));
                }
            } else if !b.is_empty() {
                short.push(id as u32);
            }
        }
        let dir_bits = keyed
            .len()
            .max(1)
            .next_power_of_two()
            .trailing_zeros()
            .clamp(4, 22);
        keyed.sort_unstable_by_key(|&(k, id, offset)| (top(key_hash(k), dir_bits), k, id, offset));
        let sites = keyed.iter().map(|&(_, id, offset)| (id, offset)).collect();
        let mut keys: Vec<u128> = Vec::new();
        let mut runs: Vec<u32> = Vec::new();
        for (i, &(k, _, _)) in keyed.iter().enumerate() {
            if keys.last() != Some(&k) {
                keys.push(k);
                runs.push(i as u32);
            }
        }
        runs.push(keyed.len() as u32);
        keys.shrink_to_fit();
        runs.shrink_to_fit();
        let mut dir = vec![0u32; (1 << dir_bits) + 1];
        for &k in &keys {
            dir[top(key_hash(k), dir_bits) + 1] += 1;
        }
        for b in 0..1 << dir_bits {
            dir[b + 1] += dir[b];
        }
        MultiFind {
            patterns: patterns.iter().map(|p| p.as_bytes()).collect(),
            keys,
            dir,
            dir_bits,
            runs,
            sites,
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
        if self.keys.is_empty() || text.len() < ANCHOR {
            return found;
        }
        let (filter, bits) = (&self.filter, self.bits);
        // Occurrences whose key stands at `at` start in at-7..=at (the key
        // ends within the pattern, so it ends within the text): taken in
        // order of their start, so each pattern's list stays ordered and
        // non-overlapping.
        let mut starts: Vec<(usize, u32)> = Vec::new();
        let mut at = 0;
        while at + KEY <= text.len() {
            let k = key_at(text, at);
            let h = key_hash(k);
            let slot = top(h, bits);
            if filter[slot / 64] & (1 << (slot % 64)) != 0 {
                let b = top(h, self.dir_bits);
                let bucket = self.dir[b] as usize..self.dir[b + 1] as usize;
                if let Some(i) = bucket.into_iter().find(|&i| self.keys[i] == k) {
                    let hits = &self.sites[self.runs[i] as usize..self.runs[i + 1] as usize];
                    starts.clear();
                    for &(id, offset) in hits {
                        // A later key gives a later start: with
                        // `first_only`, a pattern found is done.
                        if first_only && !found[id as usize].is_empty() {
                            continue;
                        }
                        let Some(start) = at.checked_sub(usize::from(offset)) else {
                            continue;
                        };
                        if text[start..].starts_with(self.patterns[id as usize]) {
                            starts.push((start, id));
                        }
                    }
                    starts.sort_unstable();
                    for &(start, id) in &starts {
                        let f = &mut found[id as usize];
                        if (first_only && !f.is_empty()) || f.last().is_some_and(|l| l.end > start)
                        {
                            continue;
                        }
                        f.push(start..start + self.patterns[id as usize].len());
                    }
                }
            }
            at += STRIDE;
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
    fn equals_a_search_per_pattern_on_generated_texts() {
        // Small alphabets make overlapping and repeated occurrences common,
        // at every alignment of the 8-byte stride.
        let mut seed = 5u64;
        let mut next = move |n: usize| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize % n
        };
        for round in 0..300 {
            let alphabet: &[&str] = if round % 2 == 0 {
                &["a", "b"]
            } else {
                &["a", "b", "é", " "]
            };
            let text: String = (0..next(300))
                .map(|_| alphabet[next(alphabet.len())])
                .collect();
            let mut patterns: Vec<String> = Vec::new();
            for _ in 0..1 + next(30) {
                if !text.is_empty() && next(2) == 0 {
                    // A piece of the text (on char boundaries).
                    let chars: Vec<char> = text.chars().collect();
                    let a = next(chars.len());
                    let len = next(40).min(chars.len() - a);
                    patterns.push(chars[a..a + len].iter().collect());
                } else {
                    patterns.push(
                        (0..next(30))
                            .map(|_| alphabet[next(alphabet.len())])
                            .collect(),
                    );
                }
            }
            let refs: Vec<&str> = patterns.iter().map(String::as_str).collect();
            let mf = MultiFind::new(&refs);
            let all = mf.find(&text, false);
            let first = mf.find(&text, true);
            for (k, p) in refs.iter().enumerate() {
                let want = by_search(&text, p);
                assert_eq!(all[k], want, "{p:?} in {text:?}");
                assert_eq!(first[k], want.into_iter().take(1).collect::<Vec<_>>());
            }
        }
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
