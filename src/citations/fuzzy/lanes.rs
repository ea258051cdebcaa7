//! The start-tracking table of `super::table`, eight quote rows at a
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
//!
//! On CPUs with AVX2 the strips run in 256-bit registers (eight lanes per
//! instruction), the step's move of the cells one lane along done by two
//! in-register shuffles; the portable strips, whose move goes through
//! memory, are about two to three times slower.

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

    /// The characters `lanes` lanes meet at step s (lane k:
    /// text[s - 1 - k]), contiguous in the reversed text.
    #[inline(always)]
    fn met_slice(&self, s: usize, lanes: usize) -> &[u32] {
        let at = self.reversed.len() - s - WIDE;
        &self.reversed[at..at + lanes]
    }

    /// [`Table::met_slice`] for L lanes, as an array.
    #[inline(always)]
    fn met<const L: usize>(&self, s: usize) -> &[u32; L] {
        match self.met_slice(s, L).try_into() {
            Ok(m) => m,
            Err(_) => unreachable!("a slice of L elements"),
        }
    }

    /// Lane `k`'s inputs in the strip of `rows` rows from row `strip`: its
    /// quote char ([`NO_QUOTE`] past the strip's rows) and its cell in
    /// column 0 (that many deletions, length 0).
    #[inline(always)]
    fn lane(&self, strip: usize, rows: usize, k: usize) -> (u32, f32) {
        let c = if k < rows {
            self.quote[strip + k] as u32
        } else {
            NO_QUOTE
        };
        (c, self.key((strip + k + 1).min(self.quote.len() + 1), 0))
    }

    /// Rows strip+1 ..= strip+rows (1-based) in a strip of L lanes
    /// (rows <= L; lanes past the quote's end are padding).
    fn strip<const L: usize>(&mut self, strip: usize, rows: usize) {
        let (m, n) = (self.quote.len(), self.n);
        let mut q = [NO_QUOTE; L];
        let mut col0 = [0.0f32; L];
        for k in 0..L {
            (q[k], col0[k]) = self.lane(strip, rows, k);
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

/// The strips in AVX2 registers.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::Table;
    use std::arch::x86_64::*;

    /// `[prev[7], cur[0], ..., cur[6]]`: `cur` moved one lane up, lane 0
    /// taking `prev`'s last. (Inlined into [`strip`], which has the same
    /// target feature.)
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn shift_in(prev: __m256, cur: __m256) -> __m256 {
        // [prev 4..8, cur 0..4], then per 128-bit half the last of it
        // followed by three of `cur`.
        let mid = _mm256_permute2f128_ps::<0x21>(prev, cur);
        _mm256_castsi256_ps(_mm256_alignr_epi8::<12>(
            _mm256_castps_si256(cur),
            _mm256_castps_si256(mid),
        ))
    }

    /// [`Table::strip`] with `8 * V` lanes in `V` registers: the same
    /// cells, the same operations in the same order.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn strip<const V: usize>(t: &mut Table<'_>, strip: usize, rows: usize) {
        let (m, n) = (t.quote.len(), t.n);
        let lanes = 8 * V;
        let mut q = [_mm256_set1_epi32(super::NO_QUOTE as i32); V];
        let mut col0 = [_mm256_setzero_ps(); V];
        let mut lane = [_mm256_setzero_si256(); V];
        for i in 0..V {
            let mut qs = [super::NO_QUOTE; 8];
            let mut c0 = [0.0f32; 8];
            let mut ks = [0i32; 8];
            for j in 0..8 {
                let k = 8 * i + j;
                (qs[j], c0[j]) = t.lane(strip, rows, k);
                ks[j] = k as i32;
            }
            q[i] = _mm256_loadu_si256(qs.as_ptr().cast());
            col0[i] = _mm256_loadu_ps(c0.as_ptr());
            lane[i] = _mm256_loadu_si256(ks.as_ptr().cast());
        }
        let far = t.key(m + 2, 0);
        let last = rows - 1;
        // The last row's lane, picked by a permutation of its register.
        let (last_reg, last_lane) = (last / 8, _mm256_set1_epi32((last % 8) as i32));
        let k_len = t.k_len;
        let (hit, miss) = (_mm256_set1_ps(-1.0), _mm256_set1_ps(k_len - 1.0));
        let (above_cost, left_cost) = (_mm256_set1_ps(k_len), _mm256_set1_ps(k_len - 1.0));
        t.next[0] = t.key(strip + rows, 0);
        let (mut v1, mut v2) = (col0, col0);
        let warm = (lanes - 1).min(n + last);
        for s in 1..=n + last {
            let (up0, diag0) = if s <= n {
                (t.row[s], t.row[s - 1])
            } else if s == n + 1 && s <= warm {
                (far, t.row[s - 1])
            } else {
                (far, far)
            };
            let met = t.met_slice(s, lanes);
            let (mut up_prev, mut diag_prev) = (_mm256_set1_ps(up0), _mm256_set1_ps(diag0));
            let mut v = [_mm256_setzero_ps(); V];
            for i in 0..V {
                let up = shift_in(up_prev, v1[i]);
                let diag = shift_in(diag_prev, v2[i]);
                up_prev = v1[i];
                diag_prev = v2[i];
                let chars = _mm256_loadu_si256(met.as_ptr().add(8 * i).cast());
                let cost = _mm256_blendv_ps(
                    miss,
                    hit,
                    _mm256_castsi256_ps(_mm256_cmpeq_epi32(chars, q[i])),
                );
                let sub = _mm256_add_ps(diag, cost);
                let above = _mm256_add_ps(up, above_cost);
                let left = _mm256_add_ps(v1[i], left_cost);
                let mut cell = _mm256_min_ps(sub, _mm256_min_ps(above, left));
                if s <= warm {
                    // Lanes that have not reached column 1 stay at column 0.
                    let waiting = _mm256_cmpgt_epi32(lane[i], _mm256_set1_epi32(s as i32 - 1));
                    cell = _mm256_blendv_ps(cell, col0[i], _mm256_castsi256_ps(waiting));
                }
                v[i] = cell;
            }
            if s > last {
                t.next[s - last] =
                    _mm256_cvtss_f32(_mm256_permutevar8x32_ps(v[last_reg], last_lane));
            }
            v2 = v1;
            v1 = v;
        }
        std::mem::swap(&mut t.row, &mut t.next);
    }
}

/// For each end `j` in 0..=n of `text`: the least distance of `quote` to a
/// substring ending there and the earliest start reaching it, as
/// `distance << 32 | start` (the layout of `super::table`). `quote` has
/// at most [`MAX_QUOTE`] characters.
pub fn table(quote: &[char], text: &[char]) -> Vec<u64> {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        return table_with(quote, text, |t, strip, width, rows| {
            // SAFETY: the CPU has AVX2, checked just above.
            unsafe {
                match width {
                    32 => avx2::strip::<4>(t, strip, rows),
                    16 => avx2::strip::<2>(t, strip, rows),
                    _ => avx2::strip::<1>(t, strip, rows),
                }
            }
        });
    }
    portable_table(quote, text)
}

/// [`table`] with the portable strips, whatever the CPU (the numbers are
/// the same; kept public for the benchmark that compares the two).
pub fn portable_table(quote: &[char], text: &[char]) -> Vec<u64> {
    table_with(quote, text, |t, strip, width, rows| match width {
        32 => t.strip::<32>(strip, rows),
        16 => t.strip::<16>(strip, rows),
        _ => t.strip::<8>(strip, rows),
    })
}

/// [`table`], each strip of `rows` quote rows from row `strip` computed by
/// `run(table, strip, width, rows)` in a strip `width` lanes wide (32, 16
/// or 8).
fn table_with(
    quote: &[char],
    text: &[char],
    mut run: impl FnMut(&mut Table<'_>, usize, usize, usize),
) -> Vec<u64> {
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
        let (width, rows) = if left >= 32 {
            (32, 32)
        } else if left >= 16 {
            (16, 16)
        } else {
            (8, left.min(8))
        };
        run(&mut t, strip, width, rows);
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
        for round in 0..1000 {
            // Quote lengths across strip sizes and borders (1..100), texts
            // from empty; then longer quotes and texts (many strips, long
            // runs of full steps).
            let (m, n) = if round < 800 {
                (1 + next(100), next(120))
            } else {
                (1 + next(300), next(700))
            };
            let q: Vec<char> = (0..m).map(|_| alphabet[next(alphabet.len())]).collect();
            let t: Vec<char> = (0..n).map(|_| alphabet[next(alphabet.len())]).collect();
            let plain = super::super::table(&q, &t);
            // The strips this CPU runs, and the portable ones.
            assert_eq!(table(&q, &t), plain, "{q:?} {t:?}");
            assert_eq!(portable_table(&q, &t), plain, "{q:?} {t:?}");
        }
    }
}
