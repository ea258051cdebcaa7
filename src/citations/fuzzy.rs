//! Fuzzy quote search: the best approximate substring of a transcript.
//!
//! A [`BigramIndex`] lists, for every pair of consecutive words of the
//! normalized transcript, where it occurs (a sorted array of hashed bigrams,
//! built once per transcript). A quote's bigrams vote for alignments
//! (transcript word position minus quote word position); the best few
//! alignments are then verified with a semi-global edit distance (Sellers'
//! algorithm) over a window around them, which yields the best substring and
//! its edit distance. Similarity = 1 - distance / max(quote length, match
//! length), in characters.

use std::collections::HashMap;
use std::ops::Range;

/// How similarity is computed, for signatures.
pub const SIMILARITY_SIGNATURE: &str = "1-levenshtein/maxlen(chars,semi-global)";

/// Alignments verified per quote.
const CANDIDATES: usize = 6;
/// Bigrams more frequent than this are skipped when voting (stop-word pairs).
const MAX_POSTINGS: usize = 20_000;
/// Transcripts up to this many chars are scanned whole when no bigram or
/// word of the quote occurs in them.
const FULL_SCAN_CHARS: usize = 200_000;

/// The word-bigram index of a normalized transcript.
#[derive(Debug, Default)]
pub struct BigramIndex {
    /// Byte range of each word in the normalized text.
    words: Vec<Range<u32>>,
    /// (bigram hash, first word index), sorted.
    bigrams: Vec<(u64, u32)>,
    /// (word hash, word index), sorted.
    unigrams: Vec<(u64, u32)>,
}

fn word_hash(w: &str) -> u64 {
    crate::report::fnv1a(w.as_bytes())
}

fn pair_hash(a: u64, b: u64) -> u64 {
    (a.rotate_left(17) ^ b).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// Byte ranges of the words (runs of alphanumeric chars) of `text`.
fn word_ranges(text: &str) -> Vec<Range<u32>> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    for (i, c) in text.char_indices() {
        if c.is_alphanumeric() {
            if start.is_none() {
                start = Some(i);
            }
        } else if let Some(s) = start.take() {
            out.push(s as u32..i as u32);
        }
    }
    if let Some(s) = start {
        out.push(s as u32..text.len() as u32);
    }
    out
}

impl BigramIndex {
    /// Indexes a normalized transcript.
    pub fn new(text: &str) -> BigramIndex {
        let words = word_ranges(text);
        let hashes: Vec<u64> = words
            .iter()
            .map(|r| word_hash(&text[r.start as usize..r.end as usize]))
            .collect();
        let mut unigrams: Vec<(u64, u32)> = hashes
            .iter()
            .enumerate()
            .map(|(i, &h)| (h, i as u32))
            .collect();
        let mut bigrams: Vec<(u64, u32)> = hashes
            .windows(2)
            .enumerate()
            .map(|(i, w)| (pair_hash(w[0], w[1]), i as u32))
            .collect();
        unigrams.sort_unstable();
        bigrams.sort_unstable();
        BigramIndex {
            words,
            bigrams,
            unigrams,
        }
    }

    fn postings(list: &[(u64, u32)], h: u64) -> &[(u64, u32)] {
        let lo = list.partition_point(|(k, _)| *k < h);
        let hi = list[lo..].partition_point(|(k, _)| *k == h) + lo;
        &list[lo..hi]
    }
}

/// A run of consecutive quote words found verbatim (normalized) in the
/// transcript.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Piece {
    /// Quote word indices.
    pub quote_words: Range<usize>,
    /// Transcript word indices.
    pub text_words: Range<usize>,
    /// Byte range in the normalized transcript.
    pub range: Range<usize>,
}

/// Splits a normalized quote, left to right, into the longest runs of at
/// least `min_words` consecutive words that stand (normalized, word for
/// word) in the transcript, through the bigram index (no scan). Words not
/// in any run are skipped.
pub fn pieces(quote: &str, text: &str, index: &BigramIndex, min_words: usize) -> Vec<Piece> {
    let q = word_ranges(quote);
    let qw = |k: usize| &quote[q[k].start as usize..q[k].end as usize];
    let tw = |k: usize| {
        let r = &index.words[k];
        &text[r.start as usize..r.end as usize]
    };
    let hashes: Vec<u64> = (0..q.len()).map(|k| word_hash(qw(k))).collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i + min_words.max(2) <= q.len() {
        let key = pair_hash(hashes[i], hashes[i + 1]);
        let mut best: Option<(usize, usize)> = None;
        for &(_, p) in BigramIndex::postings(&index.bigrams, key) {
            let p = p as usize;
            let mut m = 0;
            while i + m < q.len() && p + m < index.words.len() && qw(i + m) == tw(p + m) {
                m += 1;
            }
            if best.is_none_or(|(bm, _)| m > bm) {
                best = Some((m, p));
            }
        }
        match best {
            Some((m, p)) if m >= min_words => {
                let range = index.words[p].start as usize..index.words[p + m - 1].end as usize;
                out.push(Piece {
                    quote_words: i..i + m,
                    text_words: p..p + m,
                    range,
                });
                i += m;
            }
            _ => i += 1,
        }
    }
    out
}

/// Number of words (runs of alphanumeric chars) of a text.
pub fn word_count(text: &str) -> usize {
    word_ranges(text).len()
}

/// The best approximate match of a quote.
#[derive(Debug, Clone, PartialEq)]
pub struct FuzzyMatch {
    /// Byte range in the normalized transcript.
    pub range: Range<usize>,
    /// 1 - distance / max(len), in chars.
    pub similarity: f64,
}

/// Finds the best approximate substring of `text` (normalized) for `quote`
/// (normalized), using `index` (built from the same `text`).
pub fn best_match(quote: &str, text: &str, index: &BigramIndex) -> Option<FuzzyMatch> {
    let qwords = word_ranges(quote);
    let qchars = quote.chars().count();
    if qchars == 0 || text.is_empty() {
        return None;
    }
    let hashes: Vec<u64> = qwords
        .iter()
        .map(|r| word_hash(&quote[r.start as usize..r.end as usize]))
        .collect();
    let mut votes: HashMap<i64, u32> = HashMap::new();
    let bigram_keys: Vec<(usize, u64)> = hashes
        .windows(2)
        .enumerate()
        .map(|(i, w)| (i, pair_hash(w[0], w[1])))
        .collect();
    cast_votes(&mut votes, &index.bigrams, &bigram_keys);
    if votes.is_empty() {
        let unigram_keys: Vec<(usize, u64)> = hashes.iter().copied().enumerate().collect();
        cast_votes(&mut votes, &index.unigrams, &unigram_keys);
    }
    let windows: Vec<Range<usize>> = if votes.is_empty() {
        if text.chars().count() > FULL_SCAN_CHARS {
            return None;
        }
        std::iter::once(0..text.len()).collect()
    } else {
        let mut diags: Vec<(i64, u32)> = votes.into_iter().collect();
        diags.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let nw = index.words.len() as i64;
        let span_words = qwords.len().max(1) as i64;
        let slack_words = (span_words / 4).max(3);
        let slack_bytes = qchars / 4 + 8;
        diags
            .iter()
            .take(CANDIDATES)
            .filter_map(|&(d, _)| {
                let lo = (d - slack_words).clamp(0, nw - 1) as usize;
                let hi = (d + span_words + slack_words).clamp(0, nw - 1) as usize;
                let start = floor_boundary(
                    text,
                    (index.words[lo].start as usize).saturating_sub(slack_bytes),
                );
                let end = ceil_boundary(
                    text,
                    (index.words[hi].end as usize + slack_bytes).min(text.len()),
                );
                (start < end).then_some(start..end)
            })
            .collect()
    };
    let qv: Vec<char> = quote.chars().collect();
    let mut best: Option<FuzzyMatch> = None;
    for w in windows {
        if let Some(m) = align(&qv, text, w) {
            if best.as_ref().is_none_or(|b| m.similarity > b.similarity) {
                best = Some(m);
            }
        }
    }
    best
}

/// Adds one vote per posting of each key to the alignment it implies
/// (transcript word index minus quote word index).
fn cast_votes(votes: &mut HashMap<i64, u32>, list: &[(u64, u32)], keys: &[(usize, u64)]) {
    for &(qi, h) in keys {
        let post = BigramIndex::postings(list, h);
        if post.len() > MAX_POSTINGS {
            continue;
        }
        for &(_, p) in post {
            *votes.entry(i64::from(p) - qi as i64).or_insert(0) += 1;
        }
    }
}

/// The nearest char boundary at or before byte `i`.
pub(crate) fn floor_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The nearest char boundary at or after byte `i`.
pub(crate) fn ceil_boundary(s: &str, mut i: usize) -> usize {
    while i < s.len() && !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// Semi-global alignment of `quote` against `text[window]`: the substring of
/// the window with the least edit distance to the quote.
fn align(quote: &[char], text: &str, window: Range<usize>) -> Option<FuzzyMatch> {
    let base = window.start;
    let chars: Vec<(usize, char)> = text[window].char_indices().collect();
    let n = chars.len();
    let m = quote.len();
    if n == 0 || m == 0 {
        return None;
    }
    // prev[j]/cur[j]: distance of quote[..i] against a substring ending at j;
    // start[j]: where that substring starts (char index in the window).
    let mut prev: Vec<u32> = vec![0; n + 1];
    let mut prev_start: Vec<u32> = (0..=n as u32).collect();
    let mut cur: Vec<u32> = vec![0; n + 1];
    let mut cur_start: Vec<u32> = vec![0; n + 1];
    for (i, &qc) in quote.iter().enumerate() {
        cur[0] = i as u32 + 1;
        cur_start[0] = 0;
        for j in 1..=n {
            let sub = prev[j - 1] + u32::from(chars[j - 1].1 != qc);
            let del = prev[j] + 1; // quote char unmatched
            let ins = cur[j - 1] + 1; // text char extra
                                      // Least distance; among equals, the earliest start (the fuller match).
            let (d, s) = [
                (sub, prev_start[j - 1]),
                (del, prev_start[j]),
                (ins, cur_start[j - 1]),
            ]
            .into_iter()
            .min()
            .unwrap_or((sub, prev_start[j - 1]));
            cur[j] = d;
            cur_start[j] = s;
        }
        std::mem::swap(&mut prev, &mut cur);
        std::mem::swap(&mut prev_start, &mut cur_start);
    }
    // The end with the best similarity (ties: the first).
    let mut best: Option<(f64, usize)> = None;
    for j in 1..=n {
        let s = prev_start[j] as usize;
        if s >= j {
            continue;
        }
        let sim = 1.0 - f64::from(prev[j]) / m.max(j - s) as f64;
        if best.is_none_or(|(b, _)| sim > b) {
            best = Some((sim, j));
        }
    }
    let (similarity, best_j) = best?;
    let s = prev_start[best_j] as usize;
    let start = base + chars[s].0;
    let last = chars[best_j - 1];
    let end = base + last.0 + last.1.len_utf8();
    Some(FuzzyMatch {
        range: start..end,
        similarity: similarity.max(0.0),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_a_reworded_quote() {
        let text = "the weather was awful that spring and the harvest came late so we sold less at the market";
        let idx = BigramIndex::new(text);
        let m = best_match("the harvest came very late so we sold less", text, &idx).unwrap();
        assert_eq!(
            &text[m.range.clone()],
            "the harvest came late so we sold less"
        );
        let expect = 1.0 - 5.0 / 42.0;
        assert!((m.similarity - expect).abs() < 1e-9, "{m:?}");
    }

    #[test]
    fn single_word_typo_found_by_scan() {
        let text = "we talked about irrigation for hours";
        let idx = BigramIndex::new(text);
        let m = best_match("irigation", text, &idx).unwrap();
        assert_eq!(&text[m.range.clone()], "irrigation");
        assert!((m.similarity - 0.9).abs() < 1e-9);
    }

    #[test]
    fn alignment_is_exact_for_identical_text() {
        let q: Vec<char> = "abc".chars().collect();
        let m = align(&q, "xxabcxx", 0..7).unwrap();
        assert_eq!(m.range, 2..5);
        assert_eq!(m.similarity, 1.0);
    }
}
