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

use super::{pytext, sorted_ngrams, Interner};
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
fn is_13a_punct(b: u8) -> bool {
    matches!(b, b'{'..=b'~' | b'['..=b'`' | b' '..=b'&' | b'('..=b'+' | b':'..=b'@' | b'/')
}

/// sacrebleu's `Tokenizer13a`.
///
/// ```
/// use corpus_eval::lexical::bleu::tokenize_13a;
/// assert_eq!(tokenize_13a("Hello, world! It costs $3.50, ok? 1-2 a-b"),
///            "Hello , world ! It costs $ 3.50 , ok ? 1 - 2 a-b");
/// ```
pub fn tokenize_13a(line: &str) -> String {
    let mut s = line
        .replace("<skipped>", "")
        .replace("-\n", "")
        .replace('\n', " ");
    if s.contains('&') {
        s = s
            .replace("&quot;", "\"")
            .replace("&amp;", "&")
            .replace("&lt;", "<")
            .replace("&gt;", ">");
    }
    // Rule 1: punctuation padded with spaces.
    let mut a: Vec<u8> = Vec::with_capacity(s.len() * 2 + 2);
    a.push(b' ');
    for &b in s.as_bytes() {
        if is_13a_punct(b) {
            a.extend_from_slice(&[b' ', b, b' ']);
        } else {
            a.push(b);
        }
    }
    a.push(b' ');
    a.push(b' ');
    a.push(b' ');
    // Rule 2: ([^0-9])([.,]) -> "\1 \2 ".
    let mut b2: Vec<u8> = Vec::with_capacity(a.len() + 16);
    let mut i = 0;
    while i < a.len() {
        if i + 1 < a.len() && !a[i].is_ascii_digit() && matches!(a[i + 1], b'.' | b',') {
            b2.extend_from_slice(&[a[i], b' ', a[i + 1], b' ']);
            i += 2;
        } else {
            b2.push(a[i]);
            i += 1;
        }
    }
    // Rule 3: ([.,])([^0-9]) -> " \1 \2".
    let mut b3: Vec<u8> = Vec::with_capacity(b2.len() + 16);
    let mut i = 0;
    while i < b2.len() {
        if i + 1 < b2.len() && matches!(b2[i], b'.' | b',') && !b2[i + 1].is_ascii_digit() {
            b3.extend_from_slice(&[b' ', b2[i], b' ', b2[i + 1]]);
            i += 2;
        } else {
            b3.push(b2[i]);
            i += 1;
        }
    }
    // Rule 4: ([0-9])(-) -> "\1 \2 ".
    let mut b4: Vec<u8> = Vec::with_capacity(b3.len() + 16);
    let mut i = 0;
    while i < b3.len() {
        if i + 1 < b3.len() && b3[i].is_ascii_digit() && b3[i + 1] == b'-' {
            b4.extend_from_slice(&[b3[i], b' ', b'-', b' ']);
            i += 2;
        } else {
            b4.push(b3[i]);
            i += 1;
        }
    }
    // Only ASCII bytes were inserted next to whole characters' bytes.
    let text = String::from_utf8(b4)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    pytext::split(&text).collect::<Vec<_>>().join(" ")
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

thread_local! {
    static INTERNER: RefCell<Interner> = RefCell::new(Interner::default());
}

fn ids(interner: &mut Interner, tokenized: &str) -> Vec<u32> {
    pytext::split(tokenized).map(|t| interner.id(t)).collect()
}

/// Count of each distinct sorted n-gram (runs of equal elements).
fn runs<'a>(sorted: &[&'a [u32]]) -> Vec<(&'a [u32], u64)> {
    let mut out: Vec<(&[u32], u64)> = Vec::new();
    for g in sorted {
        match out.last_mut() {
            Some((last, k)) if last == g => *k += 1,
            _ => out.push((g, 1)),
        }
    }
    out
}

impl Bleu {
    /// The tokenized segment as BLEU sees it (right-stripped, tokenized).
    pub fn preprocess(&self, segment: &str) -> String {
        self.tokenize.apply(pytext::rstrip(segment))
    }

    /// The statistics of one hypothesis against its references (at least
    /// one; an empty list gives a reference length of 0 and no matches).
    pub fn stats<S: AsRef<str>>(&self, hypothesis: &str, references: &[S]) -> Stats {
        INTERNER.with(|cell| {
            let mut interner = cell.borrow_mut();
            let hyp = ids(&mut interner, &self.preprocess(hypothesis));
            let refs: Vec<Vec<u32>> = references
                .iter()
                .map(|r| ids(&mut interner, &self.preprocess(r.as_ref())))
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
            for n in 1..=MAX_ORDER {
                let h = sorted_ngrams(&hyp, n);
                s.total[n - 1] = h.len() as u64;
                if h.is_empty() {
                    continue;
                }
                let ref_runs: Vec<Vec<(&[u32], u64)>> =
                    refs.iter().map(|r| runs(&sorted_ngrams(r, n))).collect();
                for (g, count) in runs(&h) {
                    let max_ref = ref_runs
                        .iter()
                        .filter_map(|rr| {
                            rr.binary_search_by(|(x, _)| (*x).cmp(g))
                                .ok()
                                .map(|i| rr[i].1)
                        })
                        .max()
                        .unwrap_or(0);
                    s.correct[n - 1] += count.min(max_ref);
                }
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
    fn nothing_matching_is_zero_not_nan() {
        let b = Bleu::default();
        let s = b.stats("", &["a b c"]);
        assert_eq!(b.score(&s, true), 0.0);
        let s = b.stats("x y", &["a b c"]);
        assert_eq!(b.score(&s, false), 0.0);
    }
}
