//! Verbatim quote verification.
//!
//! Each quote is looked up in the transcript its source names, in three
//! steps: exact (substring after trimming), normalized (case, whitespace,
//! typographic quotes/apostrophes/dashes and diacritics ignored, see
//! [`crate::text::aligned`]), and fuzzy (the best approximate substring,
//! found through a word-bigram index, see [`fuzzy`]). The verdict is the
//! strongest step that matched; `--match` decides which verdicts count as
//! found. Spans are character offsets into the joined transcript.
//!
//! ```
//! use corpus_eval::citations::{Verdict, SourceText};
//! let t = SourceText::new("We grew “heirloom” potatoes and  leeks.".to_string());
//! let c = t.check("grew \"heirloom\" potatoes and leeks", 0.9);
//! assert_eq!(c.verdict, Verdict::Normalized);
//! assert_eq!(c.span, Some(3..38));
//! ```

pub mod fuzzy;

use crate::text::aligned::{Normalized, QUOTE_NORMALIZER_SIGNATURE};
use serde::{Deserialize, Serialize};
use std::ops::Range;
use std::sync::OnceLock;

/// Default similarity a fuzzy match needs.
pub const DEFAULT_FUZZY_THRESHOLD: f64 = 0.9;

/// The outcome of looking a quote up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Hash)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Found as written (after trimming).
    Exact,
    /// Found after quote normalization.
    Normalized,
    /// An approximate substring reaches the similarity threshold.
    Fuzzy,
    /// Not in the transcript.
    NotFound,
    /// The source names no known transcript.
    UnknownSource,
}

impl Verdict {
    /// The verdict's name in output files.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Exact => "exact",
            Verdict::Normalized => "normalized",
            Verdict::Fuzzy => "fuzzy",
            Verdict::NotFound => "not_found",
            Verdict::UnknownSource => "unknown_source",
        }
    }
}

/// The weakest verdict that counts as found (`--match`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum MatchLevel {
    /// Only exact matches count.
    Exact,
    /// Exact and normalized matches count.
    #[default]
    Normalized,
    /// Exact, normalized and fuzzy matches count.
    Fuzzy,
}

impl MatchLevel {
    /// Whether a verdict counts as found at this level.
    pub fn accepts(self, v: Verdict) -> bool {
        match self {
            MatchLevel::Exact => v == Verdict::Exact,
            MatchLevel::Normalized => matches!(v, Verdict::Exact | Verdict::Normalized),
            MatchLevel::Fuzzy => matches!(v, Verdict::Exact | Verdict::Normalized | Verdict::Fuzzy),
        }
    }

    /// The level's name.
    pub fn as_str(self) -> &'static str {
        match self {
            MatchLevel::Exact => "exact",
            MatchLevel::Normalized => "normalized",
            MatchLevel::Fuzzy => "fuzzy",
        }
    }
}

/// The result of checking one quote.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QuoteCheck {
    /// The strongest step that matched.
    pub verdict: Verdict,
    /// Similarity of the best match found, 0..1 (1 for exact and normalized).
    pub similarity: f64,
    /// Character offsets of the matched text in the transcript, when matched.
    pub span: Option<Range<usize>>,
}

impl QuoteCheck {
    /// A quote whose source is unknown.
    pub fn unknown_source() -> QuoteCheck {
        QuoteCheck {
            verdict: Verdict::UnknownSource,
            similarity: 0.0,
            span: None,
        }
    }
}

/// Bytes between char-count checkpoints.
const CHECKPOINT: usize = 4096;

/// One transcript prepared for quote lookups; the normalized text, the char
/// offset table and the fuzzy index are built on first use, once.
#[derive(Debug)]
pub struct SourceText {
    text: String,
    normalized: OnceLock<Normalized>,
    char_checkpoints: OnceLock<Vec<usize>>,
    index: OnceLock<fuzzy::BigramIndex>,
}

impl SourceText {
    /// Wraps a transcript.
    pub fn new(text: String) -> SourceText {
        SourceText {
            text,
            normalized: OnceLock::new(),
            char_checkpoints: OnceLock::new(),
            index: OnceLock::new(),
        }
    }

    /// The transcript text.
    pub fn text(&self) -> &str {
        &self.text
    }

    fn normalized(&self) -> &Normalized {
        self.normalized.get_or_init(|| Normalized::new(&self.text))
    }

    fn index(&self) -> &fuzzy::BigramIndex {
        self.index
            .get_or_init(|| fuzzy::BigramIndex::new(self.normalized().text()))
    }

    /// Char offset of a byte offset (on a char boundary).
    fn char_offset(&self, byte: usize) -> usize {
        let cps = self.char_checkpoints.get_or_init(|| {
            let mut v = Vec::with_capacity(self.text.len() / CHECKPOINT + 1);
            let mut chars = 0;
            let bytes = self.text.as_bytes();
            for chunk in bytes.chunks(CHECKPOINT) {
                v.push(chars);
                chars += chunk.iter().filter(|&&b| (b as i8) >= -0x40).count();
            }
            v.push(chars);
            v
        });
        let k = byte / CHECKPOINT;
        let base = cps.get(k).copied().unwrap_or(0);
        let start = k * CHECKPOINT;
        base + self.text.as_bytes()[start..byte]
            .iter()
            .filter(|&&b| (b as i8) >= -0x40)
            .count()
    }

    fn char_span(&self, bytes: Range<usize>) -> Range<usize> {
        self.char_offset(bytes.start)..self.char_offset(bytes.end)
    }

    /// Checks one quote: exact, then normalized, then fuzzy at `threshold`.
    pub fn check(&self, quote: &str, threshold: f64) -> QuoteCheck {
        let trimmed = quote.trim();
        let not_found = QuoteCheck {
            verdict: Verdict::NotFound,
            similarity: 0.0,
            span: None,
        };
        if trimmed.is_empty() {
            return not_found;
        }
        if let Some(at) = memchr::memmem::find(self.text.as_bytes(), trimmed.as_bytes()) {
            return QuoteCheck {
                verdict: Verdict::Exact,
                similarity: 1.0,
                span: Some(self.char_span(at..at + trimmed.len())),
            };
        }
        let nq = Normalized::new(trimmed);
        if nq.text().is_empty() {
            return not_found;
        }
        let nt = self.normalized();
        if let Some(at) = memchr::memmem::find(nt.text().as_bytes(), nq.text().as_bytes()) {
            if let Some(orig) = nt.to_original(&self.text, at..at + nq.text().len()) {
                return QuoteCheck {
                    verdict: Verdict::Normalized,
                    similarity: 1.0,
                    span: Some(self.char_span(orig)),
                };
            }
        }
        let Some(m) = fuzzy::best_match(nq.text(), nt.text(), self.index()) else {
            return not_found;
        };
        if m.similarity >= threshold {
            if let Some(orig) = nt.to_original(&self.text, m.range.clone()) {
                return QuoteCheck {
                    verdict: Verdict::Fuzzy,
                    similarity: m.similarity,
                    span: Some(self.char_span(orig)),
                };
            }
        }
        QuoteCheck {
            similarity: m.similarity,
            ..not_found
        }
    }
}

/// The verification configuration, for signatures.
pub fn signature(level: MatchLevel, threshold: f64) -> String {
    format!(
        "quote-norm:{}|fuzzy:{}>={}|match:{}|span:chars",
        QUOTE_NORMALIZER_SIGNATURE,
        fuzzy::SIMILARITY_SIGNATURE,
        threshold,
        level.as_str()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slice(text: &str, span: &Range<usize>) -> String {
        text.chars()
            .skip(span.start)
            .take(span.end - span.start)
            .collect()
    }

    const T: &str = "Interviewer: Tell me about the farm.\nMarie-Hélène: Well, we’ve grown potatoes here since 1987 — my grandfather started it. The soil is sandy, so irrigation matters a lot.";

    #[test]
    fn exact_with_trimming() {
        let s = SourceText::new(T.into());
        let c = s.check("  grown potatoes here since 1987 ", 0.9);
        assert_eq!(c.verdict, Verdict::Exact);
        assert_eq!(
            slice(T, c.span.as_ref().unwrap()),
            "grown potatoes here since 1987"
        );
    }

    #[test]
    fn normalized_ignores_case_quotes_dashes_diacritics() {
        let s = SourceText::new(T.into());
        let c = s.check(
            "marie-helene: well, WE'VE grown potatoes here since 1987 - my grandfather",
            0.9,
        );
        assert_eq!(c.verdict, Verdict::Normalized);
        assert_eq!(c.similarity, 1.0);
        assert_eq!(
            slice(T, c.span.as_ref().unwrap()),
            "Marie-Hélène: Well, we’ve grown potatoes here since 1987 — my grandfather"
        );
    }

    #[test]
    fn fuzzy_reports_the_matched_span() {
        let s = SourceText::new(T.into());
        let c = s.check("The soil is very sandy so irrigation matters a lot", 0.8);
        assert_eq!(c.verdict, Verdict::Fuzzy);
        assert!(c.similarity >= 0.8 && c.similarity < 1.0, "{c:?}");
        let got = slice(T, c.span.as_ref().unwrap());
        assert!(
            got.starts_with("The soil is") && got.ends_with("matters a lot"),
            "{got}"
        );
    }

    #[test]
    fn invented_and_empty_quotes_are_not_found() {
        let s = SourceText::new(T.into());
        let c = s.check("We sold the farm to a supermarket chain in 2003", 0.9);
        assert_eq!(c.verdict, Verdict::NotFound);
        assert!(c.similarity < 0.9);
        assert_eq!(c.span, None);
        assert_eq!(s.check("   ", 0.9).verdict, Verdict::NotFound);
    }

    #[test]
    fn match_levels() {
        assert!(MatchLevel::Normalized.accepts(Verdict::Exact));
        assert!(!MatchLevel::Normalized.accepts(Verdict::Fuzzy));
        assert!(MatchLevel::Fuzzy.accepts(Verdict::Fuzzy));
        assert!(!MatchLevel::Exact.accepts(Verdict::Normalized));
        assert!(!MatchLevel::Fuzzy.accepts(Verdict::UnknownSource));
    }

    #[test]
    fn char_offsets_across_checkpoints() {
        let text = format!("{}needle", "é".repeat(5000));
        let s = SourceText::new(text.clone());
        let c = s.check("needle", 0.9);
        assert_eq!(c.span, Some(5000..5006));
    }
}
