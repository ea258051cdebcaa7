//! BLEU as sacrebleu 2.x computes it: corpus BLEU from summed n-gram
//! statistics (orders 1-4), the closest reference length (the shorter on a
//! tie) for the brevity penalty, smoothing `exp` (default), `floor`,
//! `add-k` or `none`, scores 0-100; sentence BLEU with effective order.
//! Tokenizers `13a` (default), `intl`, `char` and `none`; each segment is
//! right-stripped first (Python's `str.rstrip()`).
//!
//! ```
//! use corpus_eval::lexical::bleu::{Bleu, Smooth, Tokenize};
//! let bleu = Bleu { tokenize: Tokenize::Tok13a, smooth: Smooth::Exp, smooth_value: None };
//! let stats = bleu.stats("the cat is on the mat", &["the cat sits on the mat"]);
//! let s = bleu.score(&stats, true);
//! assert!((s - 37.99178428257963).abs() < 1e-9);
//! ```

use super::{packed_keys, pytext, sorted_intersection, Interner, PackedKey};
use regex::Regex;
use std::cell::RefCell;
use std::sync::OnceLock;

/// Highest n-gram order.
pub const MAX_ORDER: usize = 4;

/// sacrebleu's tokenizers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tokenize {
    /// mteval-v13a (sacrebleu's default).
    Tok13a,
    /// mteval-v14 international (Unicode punctuation and symbols).
    Intl,
    /// Every character a token.
    Char,
    /// Whitespace only.
    None,
}

impl Tokenize {
    /// Parses `13a`, `intl`, `char`, `none`.
    pub fn parse(s: &str) -> Option<Tokenize> {
        match s {
            "13a" => Some(Tokenize::Tok13a),
            "intl" => Some(Tokenize::Intl),
            "char" => Some(Tokenize::Char),
            "none" => Some(Tokenize::None),
            _ => None,
        }
    }

    /// The name sacrebleu's signature uses.
    pub fn name(&self) -> &'static str {
        match self {
            Tokenize::Tok13a => "13a",
            Tokenize::Intl => "intl",
            Tokenize::Char => "char",
            Tokenize::None => "none",
        }
    }

    /// The tokenized segment (tokens joined by single spaces, as sacrebleu
    /// returns it; `none` returns the segment as it is).
    pub fn apply(&self, line: &str) -> String {
        match self {
            Tokenize::Tok13a => tokenize_13a(line),
            Tokenize::Intl => tokenize_intl(line),
            Tokenize::Char => {
                let mut out = String::with_capacity(line.len() * 2);
                for (i, c) in line.chars().enumerate() {
                    if i > 0 {
                        out.push(' ');
                    }
                    out.push(c);
                }
                out
            }
            Tokenize::None => line.to_string(),
        }
    }
}

/// The 13a punctuation split off on both sides (ASCII punctuation except
/// `'`, `,`, `-`, `.`; and the space).
const fn is_13a_punct(b: u8) -> bool {
    matches!(b, b'{'..=b'~' | b'['..=b'`' | b' '..=b'&' | b'('..=b'+' | b':'..=b'@' | b'/')
}

/// [`is_13a_punct`] as a table.
const PUNCT_13A: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = is_13a_punct(b as u8);
        b += 1;
    }
    t
};

/// sacrebleu's `Tokenizer13a`.
///
/// ```
/// use corpus_eval::lexical::bleu::tokenize_13a;
/// assert_eq!(tokenize_13a("Hello, world! It costs $3.50, ok? 1-2 a-b"),
///            "Hello , world ! It costs $ 3.50 , ok ? 1 - 2 a-b");
/// ```
pub fn tokenize_13a(line: &str) -> String {
    let (mut out, mut tmp) = (Vec::new(), Vec::new());
    tokenize_13a_bytes(line, &mut out, &mut tmp);
    // Only ASCII bytes were inserted next to whole characters' bytes.
    let text = String::from_utf8(out)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    pytext::split(&text).collect::<Vec<_>>().join(" ")
}

/// Rule 2, `([^0-9])([.,])` -> `"\\1 \\2 "`, with regex `sub` semantics
/// (non-overlapping, left to right), copying the stretches between
/// candidates whole.
fn rule_2(src: &[u8], dst: &mut Vec<u8>) {
    dst.clear();
    let mut i = 0;
    while i + 1 < src.len() {
        let Some(off) = memchr::memchr2(b'.', b',', &src[i + 1..]) else {
            break;
        };
        let j = i + 1 + off;
        let k = j - 1;
        if src[k].is_ascii_digit() {
            dst.extend_from_slice(&src[i..j]);
            i = j;
        } else {
            dst.extend_from_slice(&src[i..k]);
            dst.extend_from_slice(&[src[k], b' ', src[j], b' ']);
            i = j + 1;
        }
    }
    dst.extend_from_slice(&src[i.min(src.len())..]);
}

/// Rule 3, `([.,])([^0-9])` -> `" \\1 \\2"`.
fn rule_3(src: &[u8], dst: &mut Vec<u8>) {
    dst.clear();
    let mut i = 0;
    while i < src.len() {
        let Some(off) = memchr::memchr2(b'.', b',', &src[i..]) else {
            break;
        };
        let j = i + off;
        if j + 1 >= src.len() {
            break;
        }
        if src[j + 1].is_ascii_digit() {
            dst.extend_from_slice(&src[i..=j]);
            i = j + 1;
        } else {
            dst.extend_from_slice(&src[i..j]);
            dst.extend_from_slice(&[b' ', src[j], b' ', src[j + 1]]);
            i = j + 2;
        }
    }
    dst.extend_from_slice(&src[i.min(src.len())..]);
}

/// Rule 4, `([0-9])(-)` -> `"\\1 \\2 "`.
fn rule_4(src: &[u8], dst: &mut Vec<u8>) {
    dst.clear();
    let mut i = 0;
    while i + 1 < src.len() {
        let Some(off) = memchr::memchr(b'-', &src[i + 1..]) else {
            break;
        };
        let j = i + 1 + off;
        let k = j - 1;
        if src[k].is_ascii_digit() {
            dst.extend_from_slice(&src[i..k]);
            dst.extend_from_slice(&[src[k], b' ', b'-', b' ']);
            i = j + 1;
        } else {
            dst.extend_from_slice(&src[i..j]);
            i = j;
        }
    }
    dst.extend_from_slice(&src[i.min(src.len())..]);
}

/// The 13a rules into `out` (UTF-8 bytes; tokens separated by spaces,
/// not yet collapsed); `tmp` is scratch.
fn tokenize_13a_bytes(line: &str, out: &mut Vec<u8>, tmp: &mut Vec<u8>) {
    let mut owned;
    let mut s: &str = line;
    if s.contains("<skipped>") {
        owned = s.replace("<skipped>", "");
        s = &owned;
    }
    if s.contains('\n') {
        owned = s.replace("-\n", "").replace('\n', " ");
        s = &owned;
    }
    if s.contains('&') {
        owned = s
            .replace("&quot;", "\"")
            .replace("&amp;", "&")
            .replace("&lt;", "<")
            .replace("&gt;", ">");
        s = &owned;
    }
    // Rule 1: punctuation padded with spaces.
    out.clear();
    out.reserve(s.len() * 2 + 4);
    out.push(b' ');
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if PUNCT_13A[b as usize] {
            out.extend_from_slice(&bytes[start..i]);
            out.extend_from_slice(&[b' ', b, b' ']);
            start = i + 1;
        }
    }
    out.extend_from_slice(&bytes[start..]);
    out.extend_from_slice(b"   ");
    if memchr::memchr2(b'.', b',', out).is_some() {
        rule_2(out, tmp);
        rule_3(tmp, out);
    }
    if memchr::memchr(b'-', out).is_some() {
        rule_4(out, tmp);
        std::mem::swap(out, tmp);
    }
}

/// Python's whitespace among ASCII bytes.
fn is_ascii_py_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r' | 0x1c..=0x1f)
}

/// Interns the whitespace-separated tokens of `bytes` (UTF-8) into `ids`.
fn intern_tokens(interner: &mut Interner, bytes: &[u8], ids: &mut Vec<u32>) {
    ids.clear();
    if bytes.is_ascii() {
        for t in bytes
            .split(|b| is_ascii_py_space(*b))
            .filter(|t| !t.is_empty())
        {
            ids.push(interner.id_of_bytes(t));
        }
    } else {
        let text = String::from_utf8_lossy(bytes);
        ids.extend(pytext::split(&text).map(|t| interner.id(t)));
    }
}

/// sacrebleu's `TokenizerV14International`.
pub fn tokenize_intl(line: &str) -> String {
    static RULES: OnceLock<[(Regex, &'static str); 3]> = OnceLock::new();
    let rules = RULES.get_or_init(|| {
        let re = |p: &str| Regex::new(p).unwrap_or_else(|e| panic!("intl rule {p}: {e}"));
        [
            (re(r"(\P{N})(\p{P})"), "$1 $2 "),
            (re(r"(\p{P})(\P{N})"), " $1 $2"),
            (re(r"(\p{S})"), " $1 "),
        ]
    });
    let mut s = line.to_string();
    for (re, rep) in rules {
        s = re.replace_all(&s, *rep).into_owned();
    }
    pytext::split(&s).collect::<Vec<_>>().join(" ")
}

/// Smoothing of zero n-gram matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Smooth {
    /// mteval's exponential decay (sacrebleu's default).
    Exp,
    /// A zero count becomes `smooth_value` (default 0.1).
    Floor,
    /// `smooth_value` (default 1) added to counts and totals of orders 2-4.
    AddK,
    /// None.
    None,
}

impl Smooth {
    /// Parses `exp`, `floor`, `add-k`, `none`.
    pub fn parse(s: &str) -> Option<Smooth> {
        match s {
            "exp" => Some(Smooth::Exp),
            "floor" => Some(Smooth::Floor),
            "add-k" => Some(Smooth::AddK),
            "none" => Some(Smooth::None),
            _ => None,
        }
    }

    /// The name sacrebleu uses.
    pub fn name(&self) -> &'static str {
        match self {
            Smooth::Exp => "exp",
            Smooth::Floor => "floor",
            Smooth::AddK => "add-k",
            Smooth::None => "none",
        }
    }

    /// The default value (`floor` 0.1, `add-k` 1), none for the others.
    pub fn default_value(&self) -> Option<f64> {
        match self {
            Smooth::Floor => Some(0.1),
            Smooth::AddK => Some(1.0),
            _ => None,
        }
    }
}

/// One segment's sufficient statistics: hypothesis length, closest
/// reference length, clipped matches and totals per order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Stats {
    /// Hypothesis tokens.
    pub hyp_len: u64,
    /// The closest reference length.
    pub ref_len: u64,
    /// Clipped n-gram matches per order.
    pub correct: [u64; MAX_ORDER],
    /// Hypothesis n-grams per order.
    pub total: [u64; MAX_ORDER],
}

impl std::ops::AddAssign for Stats {
    fn add_assign(&mut self, o: Stats) {
        self.hyp_len += o.hyp_len;
        self.ref_len += o.ref_len;
        for n in 0..MAX_ORDER {
            self.correct[n] += o.correct[n];
            self.total[n] += o.total[n];
        }
    }
}

/// A BLEU configuration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bleu {
    /// The tokenizer.
    pub tokenize: Tokenize,
    /// The smoothing method.
    pub smooth: Smooth,
    /// The smoothing value (`None`: the method's default).
    pub smooth_value: Option<f64>,
}

impl Default for Bleu {
    fn default() -> Self {
        Bleu {
            tokenize: Tokenize::Tok13a,
            smooth: Smooth::Exp,
            smooth_value: None,
        }
    }
}

/// Per-thread state: the interner and reused buffers.
#[derive(Default)]
struct State {
    interner: Interner,
    bytes: (Vec<u8>, Vec<u8>),
}

thread_local! {
    static STATE: RefCell<State> = RefCell::new(State::default());
}

impl State {
    /// The token ids of a segment as BLEU sees it.
    fn ids(&mut self, bleu: &Bleu, segment: &str, ids: &mut Vec<u32>) {
        let segment = pytext::rstrip(segment);
        if bleu.tokenize == Tokenize::Tok13a {
            let (out, tmp) = &mut self.bytes;
            tokenize_13a_bytes(segment, out, tmp);
            intern_tokens(&mut self.interner, out, ids);
        } else {
            let text = bleu.tokenize.apply(segment);
            intern_tokens(&mut self.interner, text.as_bytes(), ids);
        }
    }
}

/// Count of each distinct sorted n-gram (runs of equal elements).
fn runs<K: PackedKey>(sorted: &[K], out: &mut Vec<(K, u64)>) {
    out.clear();
    for &g in sorted {
        match out.last_mut() {
            Some((last, k)) if *last == g => *k += 1,
            _ => out.push((g, 1)),
        }
    }
}

/// Totals and clipped matches per order (counts clipped by the maximum
/// over the references).
fn clip_counts<K: PackedKey>(hyp: &[u32], refs: &[Vec<u32>], shift: u32, s: &mut Stats) {
    let mut grams: Vec<K> = Vec::new();
    let mut other: Vec<K> = Vec::new();
    let mut hyp_runs = Vec::new();
    let mut ref_runs: Vec<Vec<(K, u64)>> = vec![Vec::new(); refs.len()];
    for n in 1..=MAX_ORDER {
        packed_keys(hyp, n, shift, &mut grams);
        s.total[n - 1] = grams.len() as u64;
        if grams.is_empty() {
            continue;
        }
        if let [only] = refs {
            // One reference: the multiset intersection.
            packed_keys(only, n, shift, &mut other);
            s.correct[n - 1] = sorted_intersection(&grams, &other) as u64;
            continue;
        }
        runs(&grams, &mut hyp_runs);
        for (r, rr) in refs.iter().zip(ref_runs.iter_mut()) {
            packed_keys(r, n, shift, &mut other);
            runs(&other, rr);
        }
        for &(g, count) in &hyp_runs {
            let max_ref = ref_runs
                .iter()
                .filter_map(|rr| {
                    rr.binary_search_by(|(x, _)| x.cmp(&g))
                        .ok()
                        .map(|i| rr[i].1)
                })
                .max()
                .unwrap_or(0);
            s.correct[n - 1] += count.min(max_ref);
        }
    }
}

impl Bleu {
    /// The tokenized segment as BLEU sees it (right-stripped, tokenized).
    pub fn preprocess(&self, segment: &str) -> String {
        self.tokenize.apply(pytext::rstrip(segment))
    }

    /// The statistics of one hypothesis against its references (at least
    /// one; an empty list gives a reference length of 0 and no matches).
    pub fn stats<S: AsRef<str>>(&self, hypothesis: &str, references: &[S]) -> Stats {
        STATE.with(|cell| {
            let mut st = cell.borrow_mut();
            // Ids are per item: the interner starts empty for each one.
            st.interner.clear();
            let mut hyp = Vec::new();
            st.ids(self, hypothesis, &mut hyp);
            let refs: Vec<Vec<u32>> = references
                .iter()
                .map(|r| {
                    let mut v = Vec::new();
                    st.ids(self, r.as_ref(), &mut v);
                    v
                })
                .collect();
            let hyp_len = hyp.len() as u64;
            // Closest reference length, the shorter on a tie.
            let mut closest: Option<(u64, u64)> = None;
            for r in &refs {
                let len = r.len() as u64;
                let diff = hyp_len.abs_diff(len);
                closest = match closest {
                    None => Some((diff, len)),
                    Some((d, l)) if diff < d || (diff == d && len < l) => Some((diff, len)),
                    keep => keep,
                };
            }
            let mut s = Stats {
                hyp_len,
                ref_len: closest.map_or(0, |(_, l)| l),
                ..Stats::default()
            };
            // Ids below 2^16: four to a u64 (cheaper to sort), else u128.
            if st.interner.len() <= 1 << 16 {
                clip_counts::<u64>(&hyp, &refs, 16, &mut s);
            } else {
                clip_counts::<u128>(&hyp, &refs, 32, &mut s);
            }
            s
        })
    }

    /// BLEU (0-100) from statistics (summed over a corpus, or one
    /// segment's), as sacrebleu's `compute_bleu`.
    pub fn score(&self, stats: &Stats, effective_order: bool) -> f64 {
        self.detail(stats, effective_order).score
    }

    /// The score with its precisions and brevity penalty.
    pub fn detail(&self, stats: &Stats, effective_order: bool) -> Detail {
        let (sys, reference) = (stats.hyp_len, stats.ref_len);
        let mut bp = 1.0;
        if sys < reference {
            bp = if sys > 0 {
                (1.0 - reference as f64 / sys as f64).exp()
            } else {
                0.0
            };
        }
        let mut precisions = [0.0f64; MAX_ORDER];
        if stats.correct.iter().all(|&c| c == 0) {
            return Detail {
                score: 0.0,
                precisions,
                bp,
            };
        }
        let value = self
            .smooth_value
            .or(self.smooth.default_value())
            .unwrap_or(0.0);
        let mut correct: [f64; MAX_ORDER] = stats.correct.map(|c| c as f64);
        let mut total: [f64; MAX_ORDER] = stats.total.map(|c| c as f64);
        let mut smooth_mteval = 1.0f64;
        let mut eff_order = MAX_ORDER;
        for n in 1..=MAX_ORDER {
            if self.smooth == Smooth::AddK && n > 1 {
                correct[n - 1] += value;
                total[n - 1] += value;
            }
            if total[n - 1] == 0.0 {
                break;
            }
            if effective_order {
                eff_order = n;
            }
            if correct[n - 1] == 0.0 {
                match self.smooth {
                    Smooth::Exp => {
                        smooth_mteval *= 2.0;
                        precisions[n - 1] = 100.0 / (smooth_mteval * total[n - 1]);
                    }
                    Smooth::Floor => precisions[n - 1] = 100.0 * value / total[n - 1],
                    _ => {}
                }
            } else {
                precisions[n - 1] = 100.0 * correct[n - 1] / total[n - 1];
            }
        }
        let mut log_sum = 0.0f64;
        for p in &precisions[..eff_order] {
            log_sum += if *p == 0.0 { -9_999_999_999.0 } else { p.ln() };
        }
        Detail {
            score: bp * (log_sum / eff_order as f64).exp() + 0.0,
            precisions,
            bp,
        }
    }

    /// sacrebleu's signature fields for this configuration.
    pub fn signature_fields(&self, effective_order: bool) -> String {
        let smooth = match self.smooth.default_value() {
            Some(d) => format!(
                "{}[{:.2}]",
                self.smooth.name(),
                self.smooth_value.unwrap_or(d)
            ),
            None => self.smooth.name().to_string(),
        };
        format!(
            "case:mixed|eff:{}|tok:{}|smooth:{smooth}",
            if effective_order { "yes" } else { "no" },
            self.tokenize.name()
        )
    }
}

/// A BLEU score with its parts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Detail {
    /// BLEU, 0-100.
    pub score: f64,
    /// Modified n-gram precisions (0-100, smoothed).
    pub precisions: [f64; MAX_ORDER],
    /// Brevity penalty.
    pub bp: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rules as plain pair-by-pair scans (the regex semantics).
    fn scan(
        src: &[u8],
        hit: impl Fn(u8, u8) -> bool,
        emit: impl Fn(u8, u8, &mut Vec<u8>),
    ) -> Vec<u8> {
        let mut dst = Vec::new();
        let mut i = 0;
        while i < src.len() {
            if i + 1 < src.len() && hit(src[i], src[i + 1]) {
                emit(src[i], src[i + 1], &mut dst);
                i += 2;
            } else {
                dst.push(src[i]);
                i += 1;
            }
        }
        dst
    }

    #[test]
    fn chunked_rules_equal_pair_scans() {
        let alphabet = b"a1.,-9 x";
        let mut rng = crate::stats::SplitMix64::new(11);
        for _ in 0..3000 {
            let len = rng.below(14);
            let src: Vec<u8> = (0..len)
                .map(|_| alphabet[rng.below(alphabet.len())])
                .collect();
            let mut got = Vec::new();
            rule_2(&src, &mut got);
            let want = scan(
                &src,
                |a, b| !a.is_ascii_digit() && matches!(b, b'.' | b','),
                |a, b, d| d.extend_from_slice(&[a, b' ', b, b' ']),
            );
            assert_eq!(got, want, "rule 2 on {:?}", String::from_utf8_lossy(&src));
            rule_3(&src, &mut got);
            let want = scan(
                &src,
                |a, b| matches!(a, b'.' | b',') && !b.is_ascii_digit(),
                |a, b, d| d.extend_from_slice(&[b' ', a, b' ', b]),
            );
            assert_eq!(got, want, "rule 3 on {:?}", String::from_utf8_lossy(&src));
            rule_4(&src, &mut got);
            let want = scan(
                &src,
                |a, b| a.is_ascii_digit() && b == b'-',
                |a, b, d| d.extend_from_slice(&[a, b' ', b, b' ']),
            );
            assert_eq!(got, want, "rule 4 on {:?}", String::from_utf8_lossy(&src));
        }
    }

    #[test]
    fn rules_of_13a() {
        assert_eq!(tokenize_13a("a &amp; b"), "a & b");
        assert_eq!(tokenize_13a("x.,y"), "x . , y");
        assert_eq!(tokenize_13a("é.x 3,5 3, 5-6"), "é . x 3,5 3 , 5 - 6");
        assert_eq!(
            tokenize_13a("<skipped>line-\nbreak\nnext"),
            "linebreak next"
        );
    }

    #[test]
    fn both_key_widths_count_alike() {
        let mut rng = crate::stats::SplitMix64::new(3);
        for _ in 0..300 {
            let mut seq =
                |len: usize| -> Vec<u32> { (0..len).map(|_| rng.below(5) as u32).collect() };
            let hyp = seq(12);
            let refs: Vec<Vec<u32>> = (0..1 + (hyp[0] as usize % 3))
                .map(|k| seq(8 + k * 3))
                .collect();
            let (mut a, mut b) = (Stats::default(), Stats::default());
            clip_counts::<u64>(&hyp, &refs, 16, &mut a);
            clip_counts::<u128>(&hyp, &refs, 32, &mut b);
            assert_eq!(a, b);
            // Against a direct count of clipped matches.
            for n in 1..=MAX_ORDER {
                let mut want = 0u64;
                let grams: Vec<&[u32]> = hyp.windows(n).collect();
                let mut distinct = grams.clone();
                distinct.sort_unstable();
                distinct.dedup();
                for g in distinct {
                    let h = grams.iter().filter(|x| **x == g).count() as u64;
                    let r = refs
                        .iter()
                        .map(|r| r.windows(n).filter(|x| *x == g).count() as u64)
                        .max()
                        .unwrap_or(0);
                    want += h.min(r);
                }
                assert_eq!(a.correct[n - 1], want, "order {n}");
            }
        }
    }

    #[test]
    fn nothing_matching_is_zero_not_nan() {
        let b = Bleu::default();
        let s = b.stats("", &["a b c"]);
        assert_eq!(b.score(&s, true), 0.0);
        let s = b.stats("x y", &["a b c"]);
        assert_eq!(b.score(&s, false), 0.0);
    }
}
