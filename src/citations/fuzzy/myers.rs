//! Bit-parallel edit distance (Myers 1999, in Hyyrö's multi-word form as
//! edlib computes it): one column of the dynamic-programming table per text
//! character, 64 rows per machine word.
//!
//! Two scans over a window of text, both exact:
//! - [`Pattern::end_distances`]: for every end position, the least edit
//!   distance of the quote to any substring ending there (semi-global: the
//!   start is free);
//! - [`Pattern::longest_at`]: for one end position and that distance, the
//!   longest substring ending there at that distance (the quote reversed
//!   against the text read backwards, the start fixed).

/// A quote's match masks: for each character of the quote, one bit per
/// position where it occurs, in `blocks` words.
#[derive(Debug)]
pub(crate) struct Pattern {
    /// Quote length in characters.
    len: usize,
    /// Words per mask.
    blocks: usize,
    /// Mask slot of each ASCII character (0: not in the quote).
    ascii: [u32; 128],
    /// Mask slot of each other character of the quote, sorted.
    other: Vec<(char, u32)>,
    /// Slot-major masks; slot 0 is all zeros.
    masks: Vec<u64>,
}

/// One column step of one 64-row block. Returns the horizontal deltas of
/// the block's rows (`ph`: +1, `mh`: -1), before the shift.
#[inline(always)]
fn step(pv: &mut u64, mv: &mut u64, eq: u64, hin: i32) -> (u64, u64) {
    let hneg = u64::from(hin < 0);
    let hpos = u64::from(hin > 0);
    let xv = eq | *mv;
    let eq = eq | hneg;
    let xh = ((eq & *pv).wrapping_add(*pv) ^ *pv) | eq;
    let ph = *mv | !(xh | *pv);
    let mh = *pv & xh;
    let phs = (ph << 1) | hpos;
    let mhs = (mh << 1) | hneg;
    *pv = mhs | !(xv | phs);
    *mv = phs & xv;
    (ph, mh)
}

impl Pattern {
    /// Masks of `quote` (read backwards when `reversed`).
    pub(crate) fn new(quote: &[char], reversed: bool) -> Pattern {
        let len = quote.len();
        let blocks = len.div_ceil(64).max(1);
        let mut ascii = [0u32; 128];
        let mut other: Vec<(char, u32)> = Vec::new();
        let mut masks = vec![0u64; blocks];
        for i in 0..len {
            let c = if reversed {
                quote[len - 1 - i]
            } else {
                quote[i]
            };
            let slot = if c.is_ascii() {
                let s = &mut ascii[c as usize];
                if *s == 0 {
                    *s = (masks.len() / blocks) as u32;
                    masks.resize(masks.len() + blocks, 0);
                }
                *s
            } else {
                match other.binary_search_by_key(&c, |&(k, _)| k) {
                    Ok(k) => other[k].1,
                    Err(k) => {
                        let s = (masks.len() / blocks) as u32;
                        masks.resize(masks.len() + blocks, 0);
                        other.insert(k, (c, s));
                        s
                    }
                }
            };
            masks[slot as usize * blocks + i / 64] |= 1u64 << (i % 64);
        }
        Pattern {
            len,
            blocks,
            ascii,
            other,
            masks,
        }
    }

    #[inline(always)]
    fn eq(&self, c: char) -> &[u64] {
        let slot = if c.is_ascii() {
            self.ascii[c as usize] as usize
        } else {
            match self.other.binary_search_by_key(&c, |&(k, _)| k) {
                Ok(k) => self.other[k].1 as usize,
                Err(_) => 0,
            }
        };
        &self.masks[slot * self.blocks..(slot + 1) * self.blocks]
    }

    /// Scans `text` column by column; `top` is the horizontal delta of row
    /// 0 (0: the start is free, 1: the start is fixed), `f` gets each
    /// column's distance at the last row (column 1 first).
    #[inline(always)]
    fn scan(&self, text: impl Iterator<Item = char>, top: i32, f: impl FnMut(u32) -> bool) {
        // Quotes of up to four blocks keep their columns in registers.
        match self.blocks {
            1 => self.scan_blocks::<1>(text, top, f),
            2 => self.scan_blocks::<2>(text, top, f),
            3 => self.scan_blocks::<3>(text, top, f),
            4 => self.scan_blocks::<4>(text, top, f),
            _ => self.scan_any(text, top, f),
        }
    }

    /// [`Pattern::scan`] for a pattern of exactly `B` blocks.
    #[inline(always)]
    fn scan_blocks<const B: usize>(
        &self,
        text: impl Iterator<Item = char>,
        top: i32,
        mut f: impl FnMut(u32) -> bool,
    ) {
        let row = (self.len - 1) % 64;
        let mut pv = [!0u64; B];
        let mut mv = [0u64; B];
        let mut score = self.len as i64;
        for c in text {
            let eqs = self.eq(c);
            let mut hin = top;
            for b in 0..B - 1 {
                let (ph, mh) = step(&mut pv[b], &mut mv[b], eqs[b], hin);
                hin = (ph >> 63) as i32 - (mh >> 63) as i32;
            }
            let (ph, mh) = step(&mut pv[B - 1], &mut mv[B - 1], eqs[B - 1], hin);
            score += ((ph >> row) & 1) as i64 - ((mh >> row) & 1) as i64;
            if !f(score as u32) {
                break;
            }
        }
    }

    /// [`Pattern::scan`] for any number of blocks.
    fn scan_any(&self, text: impl Iterator<Item = char>, top: i32, mut f: impl FnMut(u32) -> bool) {
        let blocks = self.blocks;
        let last = blocks - 1;
        let row = (self.len - 1) % 64;
        let mut pv = vec![!0u64; blocks];
        let mut mv = vec![0u64; blocks];
        let mut score = self.len as i64;
        for c in text {
            let eqs = self.eq(c);
            let mut hin = top;
            for b in 0..last {
                let (ph, mh) = step(&mut pv[b], &mut mv[b], eqs[b], hin);
                hin = (ph >> 63) as i32 - (mh >> 63) as i32;
            }
            let (ph, mh) = step(&mut pv[last], &mut mv[last], eqs[last], hin);
            score += ((ph >> row) & 1) as i64 - ((mh >> row) & 1) as i64;
            if !f(score as u32) {
                break;
            }
        }
    }

    /// Appends to `out`, for each end `j` in 1..=text.len(), the least edit
    /// distance of the quote to a substring `text[s..j]` (any `s`).
    pub(crate) fn end_distances(&self, text: &[char], out: &mut Vec<u32>) {
        out.clear();
        out.reserve(text.len());
        if self.len == 0 {
            out.extend(std::iter::repeat_n(0, text.len()));
            return;
        }
        self.scan(text.iter().copied(), 0, |d| {
            out.push(d);
            true
        });
    }

    /// True when some substring of `text` lies within `k` edits of the
    /// quote (a streamed scan, stopped at the first end that does: nothing
    /// is stored).
    pub(crate) fn reaches(&self, text: &str, k: u32) -> bool {
        if self.len == 0 {
            return true;
        }
        let mut found = false;
        self.scan(text.chars(), 0, |d| {
            found = d <= k;
            !found
        });
        found
    }

    /// For a pattern built `reversed`: the greatest length `l` (at most
    /// `max_len` and `end`) with `distance(quote, text[end - l..end]) ==
    /// dist`, or None when no non-empty substring has that distance.
    pub(crate) fn longest_at(
        &self,
        text: &[char],
        end: usize,
        dist: u32,
        max_len: usize,
    ) -> Option<usize> {
        let cap = max_len.min(end);
        let mut best = None;
        let mut l = 0;
        self.scan(text[end - cap..end].iter().rev().copied(), 1, |d| {
            l += 1;
            if d == dist {
                best = Some(l);
            }
            true
        });
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The textbook table's last row: `q` against every prefix of `t`,
    /// the start free (`free_start`: semi-global) or fixed (global).
    fn last_row(q: &[char], t: &[char], free_start: bool) -> Vec<u32> {
        let mut prev: Vec<u32> = (0..=t.len() as u32)
            .map(|j| if free_start { 0 } else { j })
            .collect();
        for (i, &qc) in q.iter().enumerate() {
            let mut cur = vec![i as u32 + 1; t.len() + 1];
            for j in 1..=t.len() {
                cur[j] = (prev[j - 1] + u32::from(t[j - 1] != qc))
                    .min(prev[j] + 1)
                    .min(cur[j - 1] + 1);
            }
            prev = cur;
        }
        prev
    }

    /// Semi-global distances at each end 1..=n.
    fn table(q: &[char], t: &[char]) -> Vec<u32> {
        last_row(q, t, true)[1..].to_vec()
    }

    /// Global edit distance.
    fn global(a: &[char], b: &[char]) -> u32 {
        last_row(a, b, false)[b.len()]
    }

    fn random_text(seed: &mut u64, n: usize, alphabet: &[char]) -> Vec<char> {
        (0..n)
            .map(|_| {
                *seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                alphabet[(*seed >> 33) as usize % alphabet.len()]
            })
            .collect()
    }

    #[test]
    fn distances_equal_the_table_across_block_sizes() {
        let alphabet: Vec<char> = "abcdé ".chars().collect();
        let mut seed = 7;
        for m in [1, 2, 5, 63, 64, 65, 127, 128, 129, 200] {
            for _ in 0..4 {
                let q = random_text(&mut seed, m, &alphabet);
                let t = random_text(&mut seed, 300, &alphabet);
                let p = Pattern::new(&q, false);
                let mut got = Vec::new();
                p.end_distances(&t, &mut got);
                assert_eq!(got, table(&q, &t), "m={m}");
            }
        }
    }

    #[test]
    fn longest_at_equals_the_table() {
        let alphabet: Vec<char> = "abcø".chars().collect();
        let mut seed = 11;
        for m in [1, 3, 64, 70, 130] {
            let q = random_text(&mut seed, m, &alphabet);
            let t = random_text(&mut seed, 400, &alphabet);
            let rev = Pattern::new(&q, true);
            for end in [1, 10, 100, 399, 400] {
                let d = (0..end).map(|s| global(&q, &t[s..end])).min().unwrap_or(0);
                let want = (1..=end)
                    .filter(|&l| global(&q, &t[end - l..end]) == d)
                    .max();
                assert_eq!(rev.longest_at(&t, end, d, end), want, "m={m} end={end}");
            }
        }
    }
}
