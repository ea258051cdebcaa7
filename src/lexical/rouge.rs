//! ROUGE as google-research `rouge-score` 0.1.2 computes it.
//!
//! - Tokens: the text lowercased (Python's `str.lower()`), every run of
//!   characters other than `a-z0-9` a separator, optionally Porter-stemmed
//!   (NLTK's variant) when longer than 3 characters, then only tokens of
//!   `[a-z0-9]+` kept.
//! - ROUGE-N: clipped n-gram counts, precision over the prediction's
//!   n-grams, recall over the reference's (each denominator at least 1), F
//!   the harmonic mean (0 when both are 0).
//! - ROUGE-L: the longest common subsequence of the token lists (0 when
//!   either is empty).
//! - ROUGE-Lsum: the summary-level union LCS over newline-separated
//!   sentences (empty lines dropped), with rouge-score's backtracking order
//!   and hit counting.
//! - Several references: each type takes the reference with the highest F
//!   (the first on a tie), as `score_multi`.
//!
//! ```
//! use corpus_eval::lexical::rouge::{RougeType, Scorer};
//! let scorer = Scorer::new(vec![RougeType::N(1), RougeType::L], false);
//! let s = scorer.score_multi(&["The quick brown fox jumps over the lazy dog"],
//!                            "The quick brown dog jumps on the log.");
//! assert!((s[0].fmeasure - 0.7058823529411765).abs() < 1e-15);
//! assert!((s[1].fmeasure - 0.5882352941176471).abs() < 1e-15);
//! ```

use super::{packed_keys, porter, pytext, sorted_intersection, sorted_ngrams, Interner};
use rustc_hash::FxHashMap;
use serde::Serialize;
use std::cell::RefCell;

/// One ROUGE score.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Default)]
pub struct Score {
    /// Matches over the prediction's units.
    pub precision: f64,
    /// Matches over the reference's units.
    pub recall: f64,
    /// Harmonic mean of precision and recall.
    pub fmeasure: f64,
}

impl Score {
    fn new(precision: f64, recall: f64) -> Score {
        let fmeasure = if precision + recall > 0.0 {
            2.0 * precision * recall / (precision + recall)
        } else {
            0.0
        };
        Score {
            precision,
            recall,
            fmeasure,
        }
    }
}

/// A ROUGE variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RougeType {
    /// ROUGE-N over n-grams (1..=9, as rouge-score's `rouge[0-9]`).
    N(usize),
    /// ROUGE-L (longest common subsequence).
    L,
    /// ROUGE-Lsum (summary-level union LCS over sentences).
    Lsum,
}

impl RougeType {
    /// Parses `rouge1`..`rouge9`, `rougeL`, `rougeLsum`.
    pub fn parse(name: &str) -> Option<RougeType> {
        match name {
            "rougeL" => Some(RougeType::L),
            "rougeLsum" => Some(RougeType::Lsum),
            _ => {
                let n: usize = name.strip_prefix("rouge")?.parse().ok()?;
                (name.len() == 6 && (1..=9).contains(&n)).then_some(RougeType::N(n))
            }
        }
    }

    /// The name rouge-score uses.
    pub fn name(&self) -> String {
        match self {
            RougeType::N(n) => format!("rouge{n}"),
            RougeType::L => "rougeL".into(),
            RougeType::Lsum => "rougeLsum".into(),
        }
    }
}

type Cache = FxHashMap<Box<str>, Box<str>>;

/// Byte classes of the tokenizer: 0 separator, 1 `a-z0-9`, 2 `A-Z`.
const CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = if c.is_ascii_lowercase() || c.is_ascii_digit() {
            1
        } else if c.is_ascii_uppercase() {
            2
        } else {
            0
        };
        b += 1;
    }
    t
};

/// Per-thread state: the token interner and, with the stemmer, a cache of
/// each raw token's stemmed id.
#[derive(Default)]
struct State {
    interner: Interner,
    stemmed: Cache,
    /// Reused n-gram buffers.
    grams: (Vec<u128>, Vec<u128>),
    grams64: (Vec<u64>, Vec<u64>),
    /// Reused token buffers (reference, prediction).
    toks: (Vec<u32>, Vec<u32>),
    /// Per-token counts (zero between uses).
    counts: Vec<u32>,
    /// Per-token LCS match masks (zero between uses).
    masks: Vec<u64>,
    /// The current word, lowercased.
    word: Vec<u8>,
}

thread_local! {
    static STATE: RefCell<State> = RefCell::new(State::default());
}

/// A ROUGE scorer (types and the stemmer setting).
#[derive(Debug, Clone)]
pub struct Scorer {
    types: Vec<RougeType>,
    stemmer: bool,
}

/// rouge-score's tokenizer, as strings.
///
/// ```
/// use corpus_eval::lexical::rouge::tokenize;
/// assert_eq!(tokenize("It's 3.5 km — Ünïcode running!", true),
///            ["it", "s", "3", "5", "km", "n", "code", "run"]);
/// ```
pub fn tokenize(text: &str, stemmer: bool) -> Vec<String> {
    let lowered = pytext::lower(text);
    lowered
        .split(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit()))
        .filter(|t| !t.is_empty())
        .map(|t| {
            if stemmer && t.len() > 3 {
                porter::stem(t)
            } else {
                t.to_string()
            }
        })
        .filter(|t| !t.is_empty())
        .collect()
}

impl State {
    fn tokens(&mut self, text: &str, stemmer: bool, out: &mut Vec<u32>) {
        out.clear();
        // Python's lower() can turn non-ASCII letters into ASCII ones
        // (KELVIN SIGN -> k); ASCII text is lowered byte by byte below.
        let lowered;
        let bytes = if text.is_ascii() {
            text.as_bytes()
        } else {
            lowered = pytext::lower(text).into_owned();
            lowered.as_bytes()
        };
        let mut i = 0;
        while i < bytes.len() {
            if CLASS[bytes[i] as usize] == 0 {
                i += 1;
                continue;
            }
            let start = i;
            let mut seen = 0u8;
            while i < bytes.len() {
                let c = CLASS[bytes[i] as usize];
                if c == 0 {
                    break;
                }
                seen |= c;
                i += 1;
            }
            let upper = seen & 2 != 0;
            let raw = &bytes[start..i];
            let lowered: &[u8] = if upper {
                self.word.clear();
                self.word.extend(raw.iter().map(u8::to_ascii_lowercase));
                &self.word
            } else {
                raw
            };
            let id = if stemmer && lowered.len() > 3 {
                let key = std::str::from_utf8(lowered).unwrap_or_default();
                if !self.stemmed.contains_key(key) {
                    self.stemmed.insert(key.into(), porter::stem(key).into());
                }
                let stem = self.stemmed.get(key).map_or(key, |s| &**s);
                self.interner.id(stem)
            } else {
                self.interner.id_of_bytes(lowered)
            };
            out.push(id);
        }
    }

    /// [`lcs_length`] with the match masks looked up per token id in a
    /// reused table (reference up to 64 tokens; longer ones go to
    /// [`lcs_length`]).
    fn lcs(&mut self, a: &[u32], b: &[u32]) -> usize {
        if a.is_empty() || b.is_empty() {
            return 0;
        }
        if a.len() > 64 {
            return lcs_length(a, b);
        }
        let top = a.iter().copied().max().unwrap_or(0) as usize;
        if self.masks.len() <= top {
            self.masks.resize(top + 1, 0);
        }
        for (i, &t) in a.iter().enumerate() {
            self.masks[t as usize] |= 1u64 << i;
        }
        let mut v = u64::MAX;
        for &y in b {
            let m = self.masks.get(y as usize).copied().unwrap_or(0);
            let u = v & m;
            v = v.wrapping_add(u) | (v - u);
        }
        for &t in a {
            self.masks[t as usize] = 0;
        }
        let mask = if a.len() == 64 {
            u64::MAX
        } else {
            (1u64 << a.len()) - 1
        };
        ((!v) & mask).count_ones() as usize
    }

    /// Clipped unigram matches by counting (no sort).
    fn unigram_hits(&mut self, r: &[u32], p: &[u32]) -> usize {
        let counts = &mut self.counts;
        if counts.len() < self.interner.len() {
            counts.resize(self.interner.len(), 0);
        }
        for &t in r {
            counts[t as usize] += 1;
        }
        let mut hits = 0;
        for &t in p {
            let c = &mut counts[t as usize];
            if *c > 0 {
                *c -= 1;
                hits += 1;
            }
        }
        for &t in r {
            counts[t as usize] = 0;
        }
        hits
    }
}

/// Length of the longest common subsequence (bit-parallel over `a`).
pub fn lcs_length(a: &[u32], b: &[u32]) -> usize {
    if a.is_empty() || b.is_empty() {
        return 0;
    }
    if a.len() <= 64 {
        // One machine word: the match mask of each token of `b` by a scan
        // of `a` (short texts: cheaper than building a table).
        let mut v = u64::MAX;
        for &y in b {
            let mut m = 0u64;
            for (i, &x) in a.iter().enumerate() {
                m |= u64::from(x == y) << i;
            }
            let u = v & m;
            v = v.wrapping_add(u) | (v - u);
        }
        let mask = if a.len() == 64 {
            u64::MAX
        } else {
            (1u64 << a.len()) - 1
        };
        return ((!v) & mask).count_ones() as usize;
    }
    let words = a.len().div_ceil(64);
    // Match masks per distinct token of `a`.
    let mut distinct: Vec<u32> = a.to_vec();
    distinct.sort_unstable();
    distinct.dedup();
    let mut masks = vec![0u64; distinct.len() * words];
    for (i, t) in a.iter().enumerate() {
        if let Ok(k) = distinct.binary_search(t) {
            masks[k * words + i / 64] |= 1u64 << (i % 64);
        }
    }
    let mut v = vec![u64::MAX; words];
    for t in b {
        let Ok(k) = distinct.binary_search(t) else {
            continue;
        };
        let m = &masks[k * words..(k + 1) * words];
        let mut carry = 0u64;
        for w in 0..words {
            let u = v[w] & m[w];
            let (s1, c1) = v[w].overflowing_add(u);
            let (s2, c2) = s1.overflowing_add(carry);
            carry = u64::from(c1 || c2);
            v[w] = s2 | (v[w] - u);
        }
    }
    let mut zeros = 0usize;
    for (w, x) in v.iter().enumerate() {
        let bits = if w + 1 == words && !a.len().is_multiple_of(64) {
            a.len() % 64
        } else {
            64
        };
        let mask = if bits == 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        zeros += ((!x) & mask).count_ones() as usize;
    }
    zeros
}

/// rouge-score's LCS table and backtracking: the indices into `r` of one
/// LCS, chosen as `_backtrack_norec` does.
fn lcs_indices(r: &[u32], c: &[u32]) -> Vec<usize> {
    let cols = c.len() + 1;
    let mut t = vec![0u32; (r.len() + 1) * cols];
    for i in 1..=r.len() {
        for j in 1..=c.len() {
            t[i * cols + j] = if r[i - 1] == c[j - 1] {
                t[(i - 1) * cols + j - 1] + 1
            } else {
                t[(i - 1) * cols + j].max(t[i * cols + j - 1])
            };
        }
    }
    let (mut i, mut j) = (r.len(), c.len());
    let mut out = Vec::new();
    while i > 0 && j > 0 {
        if r[i - 1] == c[j - 1] {
            out.push(i - 1);
            i -= 1;
            j -= 1;
        } else if t[i * cols + j - 1] > t[(i - 1) * cols + j] {
            j -= 1;
        } else {
            i -= 1;
        }
    }
    out.reverse();
    out
}

fn summary_level_lcs(refs: &[Vec<u32>], cands: &[Vec<u32>]) -> Score {
    if refs.is_empty() || cands.is_empty() {
        return Score::default();
    }
    let m: usize = refs.iter().map(Vec::len).sum();
    let n: usize = cands.iter().map(Vec::len).sum();
    if m == 0 || n == 0 {
        return Score::default();
    }
    let mut count_r: FxHashMap<u32, i64> = FxHashMap::default();
    let mut count_c: FxHashMap<u32, i64> = FxHashMap::default();
    for s in refs {
        for &t in s {
            *count_r.entry(t).or_default() += 1;
        }
    }
    for s in cands {
        for &t in s {
            *count_c.entry(t).or_default() += 1;
        }
    }
    let mut hits = 0usize;
    for r in refs {
        let mut union: Vec<usize> = cands.iter().flat_map(|c| lcs_indices(r, c)).collect();
        union.sort_unstable();
        union.dedup();
        for i in union {
            let t = r[i];
            let (Some(cc), Some(cr)) = (count_c.get(&t).copied(), count_r.get(&t).copied()) else {
                continue;
            };
            if cc > 0 && cr > 0 {
                hits += 1;
                count_c.insert(t, cc - 1);
                count_r.insert(t, cr - 1);
            }
        }
    }
    Score::new(hits as f64 / n as f64, hits as f64 / m as f64)
}

/// rouge-score's `split_summaries=False` sentence split: newline-separated
/// lines, empty ones dropped.
fn sentences(text: &str) -> impl Iterator<Item = &str> {
    text.split('\n').filter(|s| !s.is_empty())
}

impl Scorer {
    /// A scorer for `types`, with or without the Porter stemmer.
    pub fn new(types: Vec<RougeType>, stemmer: bool) -> Scorer {
        Scorer { types, stemmer }
    }

    /// The types, in order.
    pub fn types(&self) -> &[RougeType] {
        &self.types
    }

    /// Scores of one prediction against one reference, one per type.
    pub fn score(&self, reference: &str, prediction: &str) -> Vec<Score> {
        STATE.with(|s| self.score_with(&mut s.borrow_mut(), reference, prediction))
    }

    fn score_with(&self, st: &mut State, reference: &str, prediction: &str) -> Vec<Score> {
        let needs_tokens = self.types.iter().any(|t| *t != RougeType::Lsum);
        // Ids are per item: the interner starts empty for each pair.
        st.interner.clear();
        let (mut r, mut p) = std::mem::take(&mut st.toks);
        r.clear();
        p.clear();
        if needs_tokens {
            st.tokens(reference, self.stemmer, &mut r);
            st.tokens(prediction, self.stemmer, &mut p);
        }
        let scores = self
            .types
            .iter()
            .map(|t| match *t {
                RougeType::N(1) => {
                    let hits = st.unigram_hits(&r, &p) as f64;
                    Score::new(hits / p.len().max(1) as f64, hits / r.len().max(1) as f64)
                }
                RougeType::N(2) => {
                    let (rg, pg) = &mut st.grams64;
                    packed_keys(&r, 2, 32, rg);
                    packed_keys(&p, 2, 32, pg);
                    let hits = sorted_intersection(rg, pg) as f64;
                    Score::new(hits / pg.len().max(1) as f64, hits / rg.len().max(1) as f64)
                }
                RougeType::N(n) if n <= 4 => {
                    let (rg, pg) = &mut st.grams;
                    packed_keys(&r, n, 32, rg);
                    packed_keys(&p, n, 32, pg);
                    let hits = sorted_intersection(rg, pg) as f64;
                    Score::new(hits / pg.len().max(1) as f64, hits / rg.len().max(1) as f64)
                }
                RougeType::N(n) => {
                    let rg = sorted_ngrams(&r, n);
                    let pg = sorted_ngrams(&p, n);
                    let hits = sorted_intersection(&rg, &pg) as f64;
                    Score::new(hits / pg.len().max(1) as f64, hits / rg.len().max(1) as f64)
                }
                RougeType::L => {
                    if r.is_empty() || p.is_empty() {
                        return Score::default();
                    }
                    let l = st.lcs(&r, &p) as f64;
                    Score::new(l / p.len() as f64, l / r.len() as f64)
                }
                RougeType::Lsum => {
                    let mut split = |text: &str| -> Vec<Vec<u32>> {
                        sentences(text)
                            .map(|s| {
                                let mut v = Vec::new();
                                st.tokens(s, self.stemmer, &mut v);
                                v
                            })
                            .collect()
                    };
                    let rs = split(reference);
                    let ps = split(prediction);
                    summary_level_lcs(&rs, &ps)
                }
            })
            .collect();
        st.toks = (r, p);
        scores
    }

    /// Scores against several references: per type, the reference with the
    /// highest F (the first on a tie). No reference: zeros.
    pub fn score_multi<S: AsRef<str>>(&self, references: &[S], prediction: &str) -> Vec<Score> {
        let all: Vec<Vec<Score>> = references
            .iter()
            .map(|r| self.score(r.as_ref(), prediction))
            .collect();
        (0..self.types.len())
            .map(|k| {
                let mut best: Option<Score> = None;
                for s in &all {
                    if best.is_none_or(|b| s[k].fmeasure > b.fmeasure) {
                        best = Some(s[k]);
                    }
                }
                best.unwrap_or_default()
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dp_lcs(a: &[u32], b: &[u32]) -> usize {
        let mut row = vec![0usize; b.len() + 1];
        for x in a {
            let mut diag = 0;
            for j in 1..=b.len() {
                let up = row[j];
                row[j] = if *x == b[j - 1] {
                    diag + 1
                } else {
                    row[j].max(row[j - 1])
                };
                diag = up;
            }
        }
        row[b.len()]
    }

    #[test]
    fn bit_parallel_lcs_equals_the_table() {
        let mut rng = crate::stats::SplitMix64::new(7);
        let mut state = State::default();
        for round in 0..400 {
            let la = rng.below(if round % 4 == 0 { 200 } else { 40 });
            let lb = rng.below(60);
            let k = 1 + rng.below(6) as u32;
            let a: Vec<u32> = (0..la).map(|_| rng.below(k as usize) as u32).collect();
            let b: Vec<u32> = (0..lb).map(|_| rng.below(k as usize) as u32).collect();
            assert_eq!(lcs_length(&a, &b), dp_lcs(&a, &b), "{a:?} {b:?}");
            assert_eq!(state.lcs(&a, &b), dp_lcs(&a, &b), "{a:?} {b:?}");
            assert_eq!(lcs_indices(&a, &b).len(), dp_lcs(&a, &b));
        }
    }

    #[test]
    fn types_parse() {
        assert_eq!(RougeType::parse("rouge2"), Some(RougeType::N(2)));
        assert_eq!(RougeType::parse("rougeLsum"), Some(RougeType::Lsum));
        assert_eq!(RougeType::parse("rouge0"), None);
        assert_eq!(RougeType::parse("rouge10"), None);
    }
}
