//! The lossless candidate filter of the fuzzy search: every alignment of a
//! quote at or above a similarity floor lies in a window this filter
//! returns, whatever the vocabulary, the edits or the transcript's size.
//!
//! **Why it cannot miss.** The similarity of an alignment of a quote of
//! `m` chars with `d` edits and length `len` is `1 - d / max(m, len)`;
//! since `len <= m + d`, a similarity of at least `s` needs
//! `d <= k = floor((1 - s) m / s)`. The q-gram lemma (Jokinen and
//! Ukkonen): a text within `k` edits of the quote holds at least
//! `t = m - q + 1 - k q` of the quote's `m - q + 1` q-grams, each at the
//! place the alignment gives it, so on a diagonal (text position minus
//! quote position) within `k` of the alignment's start. The quote's
//! q-grams are looked up in an index of the transcript's q-grams (q = 3)
//! and counted per run of `k + 1` consecutive diagonals, each quote
//! position once per run; an alignment within `k` edits drifts over at
//! most `k + 1` diagonals (one per insertion or deletion), so it makes some
//! run hold `t` or more positions, and the windows are where such runs are. The most frequent of the quote's
//! q-grams may be left uncounted to save work, each lowering the count
//! needed by one (a q-gram not counted could have been one of the `t`);
//! at least three quarters of `t` stays needed. Where it still asks for
//! three or more, only the quote's q-samples are counted (its q-grams at
//! positions `stride` apart, `stride` at least q so that they are
//! disjoint: an edit destroys at most one of them, so an alignment keeps
//! at least `samples - k`), as few as leave about four to find: a quote
//! that may differ by few edits counts a handful of q-grams. Where `t` is below 1 (a quote under about 12 chars, or
//! a floor far below 0.8) no count can tell, and the whole transcript is
//! searched (a streamed bit-parallel scan that stops at the first end
//! within `k` edits).
//!
//! Bucket collisions of the index only add counts: they can make a
//! window that holds nothing, never lose one.

use std::ops::Range;

/// The q of the q-grams.
pub const Q: usize = 3;

/// Chars between char-to-byte checkpoints.
const STRIDE: usize = 64;

/// Where each q-gram of a normalized transcript stands, by hashed bucket,
/// in chars; and a char-to-byte map for the windows.
#[derive(Debug, Default)]
pub struct QgramIndex {
    /// Bucket `b`'s positions are `pos[off[b]..off[b + 1]]`.
    off: Vec<u32>,
    pos: Vec<u32>,
    mask: u64,
    /// The byte offset of every [`STRIDE`]-th char.
    checkpoints: Vec<u32>,
    /// Chars of the text.
    chars: usize,
}

#[inline(always)]
fn gram_hash(a: char, b: char, c: char) -> u64 {
    let k = (u64::from(a) << 42) ^ (u64::from(b) << 21) ^ u64::from(c);
    let h = k.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    h ^ (h >> 29)
}

impl QgramIndex {
    /// Indexes a normalized transcript.
    pub fn new(text: &str) -> QgramIndex {
        let chars: Vec<char> = text.chars().collect();
        let n = chars.len();
        let checkpoints = super::char_checkpoints(text, STRIDE);
        let grams = n.saturating_sub(Q - 1);
        let buckets = (grams / 2).max(1 << 10).next_power_of_two();
        let mask = buckets as u64 - 1;
        let key = |p: usize| (gram_hash(chars[p], chars[p + 1], chars[p + 2]) & mask) as usize;
        let mut off = vec![0u32; buckets + 1];
        for p in 0..grams {
            off[key(p) + 1] += 1;
        }
        for b in 0..buckets {
            off[b + 1] += off[b];
        }
        let mut fill = off.clone();
        let mut pos = vec![0u32; grams];
        for p in 0..grams {
            let b = key(p);
            pos[fill[b] as usize] = p as u32;
            fill[b] += 1;
        }
        QgramIndex {
            off,
            pos,
            mask,
            checkpoints,
            chars: n,
        }
    }

    fn bucket(&self, a: char, b: char, c: char) -> &[u32] {
        let k = (gram_hash(a, b, c) & self.mask) as usize;
        &self.pos[self.off[k] as usize..self.off[k + 1] as usize]
    }

    /// Chars of the indexed text.
    pub fn chars(&self) -> usize {
        self.chars
    }

    /// The byte offset in `text` (the text indexed) of char `c`.
    pub fn byte_of(&self, text: &str, c: usize) -> usize {
        super::byte_at(&self.checkpoints, STRIDE, self.chars, text, c)
    }
}

/// Most edits an alignment of a quote of `m` chars can have and still
/// reach similarity `floor`.
pub fn max_edits(m: usize, floor: f64) -> usize {
    if floor <= 0.0 {
        return m;
    }
    (((1.0 - floor) * m as f64 / floor) + 1e-9).floor() as usize
}

/// What the filter decided for one quote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Candidates {
    /// Every alignment at or above the floor lies in these windows (byte
    /// ranges of the text, sorted, disjoint; none when there is none).
    Windows(Vec<Range<usize>>),
    /// No count can tell: the whole text is to be searched.
    Everywhere,
}

/// Run starts counted at once (a block's difference array stays in cache).
const BLOCK: usize = 1 << 15;

thread_local! {
    /// The difference array of a block of run starts.
    static DIAGONALS: std::cell::RefCell<Vec<i32>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The windows where every alignment of `quote` (normalized, as chars)
/// with similarity at least `floor` lies (see the module documentation).
pub fn candidates(quote: &[char], text: &str, index: &QgramIndex, floor: f64) -> Candidates {
    filter(quote, text, index, floor, true)
}

/// [`candidates`] without its two shortcuts to [`Candidates::Everywhere`]
/// (when counting would cost more than a search of the whole text, or the
/// windows would cover most of it): the filter's windows themselves, for
/// tests of its guarantee.
#[doc(hidden)]
pub fn candidates_unshortened(
    quote: &[char],
    text: &str,
    index: &QgramIndex,
    floor: f64,
) -> Candidates {
    filter(quote, text, index, floor, false)
}

fn filter(
    quote: &[char],
    text: &str,
    index: &QgramIndex,
    floor: f64,
    shortcuts: bool,
) -> Candidates {
    let m = quote.len();
    let n = index.chars;
    let k = max_edits(m, floor);
    let grams = (m + 1).saturating_sub(Q);
    let t = grams as i64 - (k * Q) as i64;
    if t < 1 || n < Q {
        return Candidates::Everywhere;
    }
    let t = t as usize;
    // Counted: every q-gram of the quote (at least `t` kept by an
    // alignment), or only its q-samples, the q-grams at every q-th
    // position (disjoint: an edit destroys at most one, so at least
    // `samples - k` are kept), a third of the work, where that still asks
    // for three or more.
    // Samples `stride` apart (at least q: disjoint), as few as leave four
    // to find after k edits: a quote that may differ by a few edits only
    // counts a handful of its q-grams.
    let stride = (m / (k + 4)).max(Q);
    let samples = (m - Q) / stride + 1;
    let (positions, t): (Vec<usize>, usize) = if samples >= k + 3 {
        ((0..samples).map(|s| s * stride).collect(), samples - k)
    } else {
        ((0..grams).collect(), t)
    };
    // The counted q-grams by how often they stand in the text; the most
    // frequent left uncounted while they are most of the work and at
    // least three quarters of what is needed stays needed.
    let mut sizes: Vec<(usize, usize)> = positions
        .iter()
        .map(|&i| (index.bucket(quote[i], quote[i + 1], quote[i + 2]).len(), i))
        .collect();
    sizes.sort_unstable_by(|a, b| b.cmp(a));
    let total: usize = sizes.iter().map(|&(s, _)| s).sum();
    let max_skip = t - (3 * t).div_ceil(4);
    let mut skip = 0;
    let mut left = total;
    while skip < max_skip && sizes[skip].0 * 4 > left {
        left -= sizes[skip].0;
        skip += 1;
    }
    let counted = &sizes[skip..];
    let need = t - skip;
    // Counting costs about one step per hit; searching everything, about
    // one per text char and quote block: past a few of those, the whole
    // text is cheaper.
    if shortcuts && left > 4 * n {
        return Candidates::Everywhere;
    }
    // For each run of 2k + 1 diagonals (text char minus quote char,
    // shifted by m) [x, x + 2k], the number of the quote's q-gram
    // positions found on it (each position counted once: the alignment
    // keeps each at one place); runs with `need` or more are kept. An
    // alignment starting at char a (within k edits) has its q-grams on
    // diagonals a - k ..= a + k (shifted). Counted block by block of run
    // starts, each position's hits turned into the run starts they count
    // for (merged, so that a position counts once per run), added as +1 /
    // -1 to a block-local difference array: the work stays in cache.
    // The q-grams an alignment keeps lie on diagonals a + δ, δ the drift
    // of its text against the quote so far, in [-k, k]; and δ moves by one
    // per insertion or deletion, at most k of them in all, so its values
    // span at most k + 1 diagonals: the runs are k + 1 wide.
    let span = k + 1;
    let diagonals = n + m;
    let slices: Vec<(&[u32], usize)> = counted
        .iter()
        .map(|&(_, i)| (index.bucket(quote[i], quote[i + 1], quote[i + 2]), i))
        .collect();
    let mut cursors = vec![0usize; slices.len()];
    let spans: Vec<(usize, usize)> = DIAGONALS.with(|cell| {
        let mut diff = cell.borrow_mut();
        let mut out: Vec<(usize, usize)> = Vec::new();
        let mut block = 0;
        while block < diagonals {
            let end = (block + BLOCK).min(diagonals);
            diff.clear();
            diff.resize(end - block + 1, 0);
            for ((hits, i), cursor) in slices.iter().zip(cursors.iter_mut()) {
                let d_of = |p: u32| p as usize + m - i;
                // Hits before the block count for no run start in it.
                while *cursor < hits.len() && d_of(hits[*cursor]) < block {
                    *cursor += 1;
                }
                // The run starts each hit counts for, [d - 2k, d], merged.
                let mut open: Option<(usize, usize)> = None;
                for &p in &hits[*cursor..] {
                    let d = d_of(p);
                    if d >= end + span - 1 {
                        break;
                    }
                    let lo = (d + 1).saturating_sub(span).max(block);
                    let hi = d.min(end - 1);
                    if lo > hi {
                        continue;
                    }
                    match &mut open {
                        Some((_, h)) if lo <= *h + 1 => *h = (*h).max(hi),
                        _ => {
                            if let Some((l, h)) = open.replace((lo, hi)) {
                                diff[l - block] += 1;
                                diff[h + 1 - block] -= 1;
                            }
                        }
                    }
                }
                if let Some((l, h)) = open {
                    diff[l - block] += 1;
                    diff[h + 1 - block] -= 1;
                }
            }
            let mut count = 0i32;
            for x in block..end {
                count += diff[x - block];
                if count as usize >= need {
                    match out.last_mut() {
                        Some(last) if x <= last.1 => last.1 = last.1.max(x + span),
                        _ => out.push((x, x + span)),
                    }
                }
            }
            block = end;
        }
        out
    });
    // A run [x, x + k] (shifted by m) holding all of an alignment's
    // q-grams (the run starting at the first touched diagonal at or after
    // its least one) has x within k of the alignment's start's diagonal:
    // the start a lies in [x - m - k, x - m + k], the end at most m + k
    // chars after it. Over a union [start, end) of runs: starts in
    // [start - m - k, end - 1 - m], ends before end + k. One char of slack
    // each side.
    let mut windows: Vec<Range<usize>> = Vec::new();
    for (start, end) in spans {
        let lo = start.saturating_sub(k + m + 1);
        let hi = end + k + 1;
        let (lo, hi) = (lo.min(n), hi.min(n));
        if lo >= hi {
            continue;
        }
        match windows.last_mut() {
            Some(last) if lo <= last.end => last.end = last.end.max(hi),
            _ => windows.push(lo..hi),
        }
    }
    let covered: usize = windows.iter().map(|w| w.len()).sum();
    if shortcuts && covered * 2 > n {
        return Candidates::Everywhere;
    }
    Candidates::Windows(
        windows
            .into_iter()
            .map(|w| index.byte_of(text, w.start)..index.byte_of(text, w.end))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_of_chars() {
        let text = "é".repeat(200) + "abc";
        let index = QgramIndex::new(&text);
        for c in [0, 1, 63, 64, 65, 128, 199, 200, 201, 203] {
            let want = text.char_indices().nth(c).map_or(text.len(), |(i, _)| i);
            assert_eq!(index.byte_of(&text, c), want, "{c}");
        }
    }

    #[test]
    fn edits_allowed() {
        assert_eq!(max_edits(20, 0.8), 5);
        assert_eq!(max_edits(100, 0.8), 25);
        assert_eq!(max_edits(10, 0.9), 1);
        assert_eq!(max_edits(7, 0.5), 7);
    }
}
