//! The start-tracking table of [`super::table`], eight quote rows at a
//! time along anti-diagonals.
//!
//! Cell `(r, c)` holds the least edit distance of the quote's first `r`
//! characters to a text substring ending at column `c`, and the longest
//! such substring (the earliest start), as one key `d * K - length` that a
//! single `min` orders (`K` a power of two above any length). Keys stay
//! below 2^24, so they are exact in an `f32`, whose `min` every x86-64 CPU
//! computes four at a time. Eight consecutive rows advance together, lane
//! `k` one column behind lane `k - 1`: every cell a lane needs (above, to
//! the left, diagonally) was computed by itself or its neighbour in the two
//! steps before, so the eight cells of a step are independent. Used when
//! the quote has at most [`MAX_QUOTE`] characters; the numbers equal the
//! 64-bit table's.

/// A quote longer than this (in chars) does not fit the keys: lengths stay
/// below 2m + 2 <= 4,096 and distances at most m, so keys stay below 2^24.
pub const MAX_QUOTE: usize = 2047;
/// Padding of the quote's lanes beyond its end (never equal to a text
/// character or to the text's padding).
const NO_QUOTE: u32 = u32::MAX;
/// Padding of the text before its start and after its end.
const NO_TEXT: u32 = u32::MAX - 1;
/// The widest strip: rows advanced together (more rows, more independent
/// work per step to hide each step's latency).
const WIDE: usize = 32;

#[inline(always)]
fn min(a: f32, b: f32) -> f32 {
    if a < b {
        a
    } else {
        b
    }
}

/// The table's state and inputs shared by the strips.
struct Table<'a> {
    quote: &'a [char],
    /// The text reversed and padded with [`WIDE`] characters that match
    /// nothing on each side (see [`Table::met`]).
    reversed: Vec<u32>,
    n: usize,
    /// K: a power of two above every length.
    k_len: f32,
    /// The row above the strip, and the strip's last row.
    row: Vec<f32>,
    next: Vec<f32>,
}

impl Table<'_> {
    fn key(&self, d: usize, len: usize) -> f32 {
        d as f32 * self.k_len - len as f32
    }

    /// The characters lanes 0..L meet at step s (lane k: text[s - 1 - k]),
    /// contiguous in the reversed text.
    #[inline(always)]
    fn met<const L: usize>(&self, s: usize) -> &[u32; L] {
        let at = self.reversed.len() - s - WIDE;
        match self.reversed[at..at + L].try_into() {
            Ok(m) => m,
            Err(_) => unreachable!("a slice of L elements"),
        }
    }

    /// Rows strip+1 ..= strip+rows (1-based) in a strip of L lanes
    /// (rows <= L; lanes past the quote's end are padding).
    fn strip<const L: usize>(&mut self, strip: usize, rows: usize) {
        let (m, n) = (self.quote.len(), self.n);
        let mut q = [NO_QUOTE; L];
        let mut col0 = [0.0f32; L];
        for k in 0..L {
            if k < rows {
                q[k] = self.quote[strip + k] as u32;
            }
            // Column 0: that many deletions, length 0.
            col0[k] = self.key((strip + k + 1).min(m + 1), 0);
        }
        let far = self.key(m + 2, 0);
        let (k_len, last) = (self.k_len, rows - 1);
        self.next[0] = self.key(strip + rows, 0);
        // v1: the lanes' cells one step ago, v2: two steps ago. Lane k at
        // step s is at column s - k: above it is lane k - 1 one step ago,
        // diagonally lane k - 1 two steps ago, to the left itself one step
        // ago; lane 0 reads the row above the strip. A match extends the
        // length by one (key - 1); a mismatch adds an edit too (key + K - 1).
        let step = |v1: &[f32; L], v2: &[f32; L], up0: f32, diag0: f32, met: &[u32; L]| {
            let mut v = [0.0f32; L];
            for k in 0..L {
                let (up, diag) = if k == 0 {
                    (up0, diag0)
                } else {
                    (v1[k - 1], v2[k - 1])
                };
                let cost = if met[k] == q[k] { -1.0 } else { k_len - 1.0 };
                let sub = diag + cost;
                let above = up + k_len;
                let left = v1[k] + (k_len - 1.0);
                v[k] = min(sub, min(above, left));
            }
            v
        };
        let (mut v1, mut v2) = (col0, col0);
        let warm = (L - 1).min(n + last);
        for s in 1..=warm {
            let up0 = self.row.get(s).copied().unwrap_or(far);
            let diag0 = self.row.get(s - 1).copied().unwrap_or(far);
            let mut v = step(&v1, &v2, up0, diag0, self.met::<L>(s));
            // Lanes that have not reached column 1 stay at column 0.
            for (k, cell) in v.iter_mut().enumerate().skip(s) {
                *cell = col0[k];
            }
            if s > last {
                self.next[s - last] = v[last];
            }
            v2 = v1;
            v1 = v;
        }
        for s in warm + 1..=n {
            let v = step(&v1, &v2, self.row[s], self.row[s - 1], self.met::<L>(s));
            self.next[s - last] = v[last];
            v2 = v1;
            v1 = v;
        }
        for s in (warm + 1).max(n + 1)..=n + last {
            let v = step(&v1, &v2, far, far, self.met::<L>(s));
            self.next[s - last] = v[last];
            v2 = v1;
            v1 = v;
        }
        std::mem::swap(&mut self.row, &mut self.next);
    }
}

/// For each end `j` in 0..=n of `text`: the least distance of `quote` to a
/// substring ending there and the earliest start reaching it, as
/// `distance << 32 | start` (the layout of [`super::table`]). `quote` has
/// at most [`MAX_QUOTE`] characters.
pub fn table(quote: &[char], text: &[char]) -> Vec<u64> {
    let (m, n) = (quote.len(), text.len());
    debug_assert!(m <= MAX_QUOTE);
    let len = n + 2 * WIDE;
    let mut reversed: Vec<u32> = vec![NO_TEXT; len];
    for (i, &c) in text.iter().enumerate() {
        reversed[len - 1 - (WIDE + i)] = c as u32;
    }
    let k_len = (2 * m + 2).next_power_of_two() as f32;
    // Row 0: a free start (distance 0, length 0).
    let mut t = Table {
        quote,
        reversed,
        n,
        k_len,
        row: vec![0.0; n + 1],
        next: vec![0.0; n + 1],
    };
    let mut strip = 0;
    while strip < m {
        let left = m - strip;
        let rows = if left >= 32 {
            t.strip::<32>(strip, 32);
            32
        } else if left >= 16 {
            t.strip::<16>(strip, 16);
            16
        } else {
            let rows = left.min(8);
            t.strip::<8>(strip, rows);
            rows
        };
        strip += rows;
    }
    // Back to (distance, start): key = d K - len, 0 <= len < K.
    let k = k_len as i64;
    t.row
        .iter()
        .enumerate()
        .map(|(j, &x)| {
            let x = x as i64;
            let d = (x + k - 1).div_euclid(k);
            let len = d * k - x;
            (d as u64) << 32 | (j as i64 - len).max(0) as u64
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equals_the_64_bit_table() {
        let mut seed = 11u64;
        let mut next = |n: usize| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize % n
        };
        let alphabet: Vec<char> = "ab cé".chars().collect();
        for _ in 0..800 {
            // Quote lengths across strip sizes and borders (1..100), texts
            // from empty.
            let m = 1 + next(100);
            let n = next(120);
            let q: Vec<char> = (0..m).map(|_| alphabet[next(alphabet.len())]).collect();
            let t: Vec<char> = (0..n).map(|_| alphabet[next(alphabet.len())]).collect();
            assert_eq!(table(&q, &t), super::super::table(&q, &t), "{q:?} {t:?}");
        }
    }
}
