//! What was ignored or applied to find a quote: `differences`, from
//! `case, whitespace, punctuation, typography, diacritics, fillers,
//! elision, insertion, sic`, in that order.
//!
//! The quote and the source text it was matched to are normalized alike
//! and walked side by side, normalized char by normalized char (through an
//! alignment of the two normalized texts when they are not equal, as for
//! a fuzzy match): two source chars that stand for the same normalized
//! char and differ tell a difference of case, diacritics or typography;
//! what the normalizer dropped between two such chars on either side
//! (whitespace, punctuation, combining marks, filler words) tells the
//! rest.
//!
//! ```
//! use corpus_eval::citations::{differences, Difference};
//! use corpus_eval::text::aligned::NormalizeOptions;
//! let o = NormalizeOptions::default();
//! let d = differences("she hated it honestly", "She hated it, honestly,", &o);
//! assert_eq!(d, [Difference::Case, Difference::Punctuation]);
//! assert!(differences("as said", "as said", &o).is_empty());
//! ```

use crate::text::aligned::{fold_typographic, is_punctuation, NormalizeOptions, Normalized};
use serde::{Deserialize, Serialize};
use unicode_normalization::char::{decompose_canonical, is_combining_mark};

/// One kind of difference between a quote and the text it was found in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Difference {
    /// Upper and lower case.
    Case,
    /// Runs of whitespace, line breaks.
    Whitespace,
    /// Punctuation marks added, dropped or changed.
    Punctuation,
    /// Typographic forms: curly and straight quotes, dashes, ligatures,
    /// compatibility forms.
    Typography,
    /// Accents and other combining marks.
    Diacritics,
    /// Filler words (`um`, `uh`, ...).
    Fillers,
    /// Words omitted at an ellipsis.
    Elision,
    /// A bracketed insertion standing for source words.
    Insertion,
    /// A `[sic]` dropped.
    Sic,
}

impl Difference {
    /// The name in outputs.
    pub fn as_str(self) -> &'static str {
        match self {
            Difference::Case => "case",
            Difference::Whitespace => "whitespace",
            Difference::Punctuation => "punctuation",
            Difference::Typography => "typography",
            Difference::Diacritics => "diacritics",
            Difference::Fillers => "fillers",
            Difference::Elision => "elision",
            Difference::Insertion => "insertion",
            Difference::Sic => "sic",
        }
    }
}

/// Aligned normalized texts longer than this (chars, product of both)
/// are not aligned char by char (a fuzzy match that long is rare): only
/// their equal prefix and suffix are compared.
const MAX_ALIGN_CELLS: usize = 4_000_000;

/// The differences between `quote` and `source` (the text it was matched
/// to), sorted, each once.
pub fn differences(quote: &str, source: &str, options: &NormalizeOptions) -> Vec<Difference> {
    let mut found = std::collections::BTreeSet::new();
    collect(quote, source, options, &mut found);
    found.into_iter().collect()
}

/// Adds the differences between `quote` and `source` to `found`.
pub(crate) fn collect(
    quote: &str,
    source: &str,
    options: &NormalizeOptions,
    found: &mut std::collections::BTreeSet<Difference>,
) {
    if quote == source {
        return;
    }
    let (nq, ns) = (
        Normalized::with_options(quote, options),
        Normalized::with_options(source, options),
    );
    let pairs = aligned_chars(&nq, &ns);
    // Each aligned pair as the source chars it came from (one source char
    // may stand for several normalized ones: visited once).
    let mut last: Option<(usize, usize)> = None;
    let mut prev_end: Option<(usize, usize)> = None;
    let mut head: Option<(usize, usize)> = None;
    for (qk, sk) in pairs {
        // A space between words stands for whatever broke them apart
        // (whitespace, a dash, a comma): compared with the gap it is in.
        if nq.text().as_bytes().get(qk) == Some(&b' ') {
            continue;
        }
        let (Some(qa), Some(sa)) = (nq.origin(qk), ns.origin(sk)) else {
            continue;
        };
        if last == Some((qa, sa)) {
            continue;
        }
        last = Some((qa, sa));
        head.get_or_insert((qa, sa));
        let (Some(cq), Some(cs)) = (quote[qa..].chars().next(), source[sa..].chars().next()) else {
            continue;
        };
        if let Some((qe, se)) = prev_end {
            if qe <= qa && se <= sa {
                gap(&quote[qe..qa], &source[se..sa], options, found);
            }
        }
        prev_end = Some((qa + cq.len_utf8(), sa + cs.len_utf8()));
        if cq != cs {
            pair(cq, cs, found);
        }
    }
    // What lies before the first and after the last aligned char counts
    // too: a quote's own end marks, quotation marks or fillers that the
    // matched span does not cover (`she left.` for `she left,`).
    if let (Some((qa, sa)), Some((qe, se))) = (head, prev_end) {
        gap(
            quote[..qa].trim_start(),
            source[..sa].trim_start(),
            options,
            found,
        );
        gap(
            quote[qe..].trim_end(),
            source[se..].trim_end(),
            options,
            found,
        );
    } else if found.is_empty() {
        // Nothing aligned (all of it dropped by the normalizer): the whole
        // texts are the gap.
        gap(quote.trim(), source.trim(), options, found);
    }
}

/// Pairs of normalized byte offsets (quote, source) of chars that stand
/// for each other: all of them when the texts are equal, else those of a
/// longest common subsequence.
fn aligned_chars(nq: &Normalized, ns: &Normalized) -> Vec<(usize, usize)> {
    let (q, s) = (nq.text(), ns.text());
    if q == s {
        return q.char_indices().map(|(k, _)| (k, k)).collect();
    }
    let qc: Vec<(usize, char)> = q.char_indices().collect();
    let sc: Vec<(usize, char)> = s.char_indices().collect();
    let (m, n) = (qc.len(), sc.len());
    if m == 0 || n == 0 || m.saturating_mul(n) > MAX_ALIGN_CELLS {
        // The common prefix only.
        return qc
            .iter()
            .zip(&sc)
            .take_while(|(a, b)| a.1 == b.1)
            .map(|(a, b)| (a.0, b.0))
            .collect();
    }
    // LCS table (lengths of the suffixes' LCS), then a walk from the start.
    let mut t = vec![0u32; (m + 1) * (n + 1)];
    let at = |i: usize, j: usize| i * (n + 1) + j;
    for i in (0..m).rev() {
        for j in (0..n).rev() {
            t[at(i, j)] = if qc[i].1 == sc[j].1 {
                t[at(i + 1, j + 1)] + 1
            } else {
                t[at(i + 1, j)].max(t[at(i, j + 1)])
            };
        }
    }
    let mut out = Vec::with_capacity(t[0] as usize);
    let (mut i, mut j) = (0, 0);
    while i < m && j < n {
        if qc[i].1 == sc[j].1 {
            out.push((qc[i].0, sc[j].0));
            i += 1;
            j += 1;
        } else if t[at(i + 1, j)] >= t[at(i, j + 1)] {
            i += 1;
        } else {
            j += 1;
        }
    }
    out
}

/// Two source chars standing for the same normalized text.
fn pair(cq: char, cs: char, found: &mut std::collections::BTreeSet<Difference>) {
    let lower = |c: char| c.to_lowercase().collect::<String>();
    let base = |c: char| {
        let mut out = String::new();
        decompose_canonical(c, |d| {
            if !is_combining_mark(d) {
                out.push(d);
            }
        });
        out
    };
    if lower(cq) == lower(cs) {
        found.insert(Difference::Case);
        return;
    }
    let (bq, bs) = (base(cq), base(cs));
    if bq.to_lowercase() == bs.to_lowercase() {
        found.insert(Difference::Diacritics);
        if bq != bs {
            found.insert(Difference::Case);
        }
        return;
    }
    // Equal once compatibility forms are decomposed (ligatures, full-width
    // and other typographic forms).
    found.insert(Difference::Typography);
}

/// What the normalizer dropped between two aligned chars, on each side.
fn gap(
    q: &str,
    s: &str,
    options: &NormalizeOptions,
    found: &mut std::collections::BTreeSet<Difference>,
) {
    if q == s {
        return;
    }
    let ws = |t: &str| t.chars().filter(|c| c.is_whitespace()).collect::<String>();
    let punct = |t: &str, fold: bool| {
        t.chars()
            .filter(|&c| {
                is_punctuation(c)
                    || (!c.is_alphanumeric()
                        && !c.is_whitespace()
                        && !is_combining_mark(c)
                        && c != '\u{2044}')
            })
            .map(|c| if fold { fold_typographic(c) } else { c })
            .collect::<String>()
    };
    let marks = |t: &str| {
        t.chars()
            .filter(|&c| is_combining_mark(c))
            .collect::<String>()
    };
    let fillers = |t: &str| {
        t.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .filter(|w| options.fillers().iter().any(|f| f == w))
            .collect::<Vec<String>>()
    };
    let (pq, ps) = (punct(q, true), punct(s, true));
    if pq != ps {
        found.insert(Difference::Punctuation);
    } else if punct(q, false) != punct(s, false) {
        found.insert(Difference::Typography);
    }
    if marks(q) != marks(s) {
        found.insert(Difference::Diacritics);
    }
    if fillers(q) != fillers(s) {
        // The fillers bring their own spaces: whitespace is not judged.
        found.insert(Difference::Fillers);
        return;
    }
    // Whitespace: other whitespace where both sides have some (a line
    // break for a space, two spaces for one), or whitespace on one side
    // only where the marks are the same (a mark in place of a space is
    // punctuation).
    let (wq, ws_) = (ws(q), ws(s));
    if (wq != ws_ && !wq.is_empty() && !ws_.is_empty())
        || (wq.is_empty() != ws_.is_empty() && pq == ps)
    {
        found.insert(Difference::Whitespace);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn issue_53_20_what_lies_outside_the_aligned_text_counts_too() {
        let o = NormalizeOptions::default();
        let d = |q: &str, s: &str| differences(q, s, &o);
        assert_eq!(d("she left.", "she left"), [Difference::Punctuation]);
        assert_eq!(d("“she left”", "\"she left\""), [Difference::Typography]);
        assert_eq!(
            d("um, I left", "I left"),
            [Difference::Punctuation, Difference::Fillers]
        );
        assert_eq!(d("I left", "I left"), []);
    }
    use Difference::*;

    fn d(q: &str, s: &str) -> Vec<Difference> {
        differences(q, s, &NormalizeOptions::default())
    }

    #[test]
    fn each_kind_alone() {
        assert_eq!(d("She left", "she left"), [Case]);
        assert_eq!(d("she  left", "she left"), [Whitespace]);
        assert_eq!(d("she\nleft", "she left"), [Whitespace]);
        assert_eq!(d("she left", "she, left"), [Punctuation]);
        assert_eq!(d("she's left", "she’s left"), [Typography]);
        assert_eq!(d("the “yes” vote", "the \"yes\" vote"), [Typography]);
        assert_eq!(d("a fine day", "a ﬁne day"), [Typography]);
        assert_eq!(d("cafe au lait", "café au lait"), [Diacritics]);
        assert_eq!(d("cafe au lait", "cafe\u{301} au lait"), [Diacritics]);
        assert_eq!(
            d("I think we left", "I, um, think we left"),
            [Fillers, Punctuation]
                .into_iter()
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .collect::<Vec<_>>()
        );
        assert_eq!(
            d("well - I left", "well—I left"),
            [Typography, Whitespace]
                .into_iter()
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .collect::<Vec<_>>()
        );
        assert!(d("same text", "same text").is_empty());
    }

    #[test]
    fn several_at_once_in_order() {
        let got = d("Cafe is  OPEN", "café is, open");
        assert_eq!(got, [Case, Whitespace, Punctuation, Diacritics]);
    }
}
