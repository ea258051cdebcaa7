//! Sentences and word tokens with their byte ranges, shared by the anchor
//! extractors and the evidence search.

use regex::Regex;
use std::ops::Range;
use std::sync::OnceLock;

/// A word token: lower-cased text and its byte range in the source.
#[derive(Debug, Clone, PartialEq)]
pub struct Word {
    /// Lower-cased text.
    pub text: String,
    /// Byte range in the text it came from.
    pub range: Range<usize>,
}

fn regex(cell: &'static OnceLock<Regex>, pattern: &str) -> &'static Regex {
    cell.get_or_init(|| Regex::new(pattern).unwrap_or_else(|e| panic!("{pattern}: {e}")))
}

/// The words of `text`: runs of letters and digits, with an inner
/// apostrophe kept ("don't", "company's").
pub fn words(text: &str) -> Vec<Word> {
    static RE: OnceLock<Regex> = OnceLock::new();
    regex(&RE, r"[\p{L}\p{N}]+(?:['’][\p{L}]+)?")
        .find_iter(text)
        .map(|m| Word {
            text: m.as_str().to_lowercase().replace('’', "'"),
            range: m.range(),
        })
        .collect()
}

/// Byte ranges of the sentences of `text`: split after runs of `.`, `!`,
/// `?` followed by white space (so "3.5" stays whole) and at line breaks;
/// trimmed, empty ones dropped.
pub fn sentences(text: &str) -> Vec<Range<usize>> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = regex(&RE, r"[.!?]+(?:\s+|$)|\n\s*");
    let mut out = Vec::new();
    let mut start = 0;
    let mut push = |a: usize, b: usize| {
        let s = &text[a..b];
        let lead = s.len() - s.trim_start().len();
        let trail = s.len() - s.trim_end().len();
        if a + lead < b - trail {
            out.push(a + lead..b - trail);
        }
    };
    for m in re.find_iter(text) {
        let end = m.start() + m.as_str().trim_end().len();
        push(start, end);
        start = m.end();
    }
    push(start, text.len());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_and_sentences() {
        let w: Vec<String> = words("The company's CEO didn't sell 3.5 shares")
            .into_iter()
            .map(|w| w.text)
            .collect();
        assert_eq!(
            w,
            [
                "the",
                "company's",
                "ceo",
                "didn't",
                "sell",
                "3",
                "5",
                "shares"
            ]
        );
        let t = "It costs 3.5 dollars. Really?! Yes\nNew line";
        let s: Vec<&str> = sentences(t).into_iter().map(|r| &t[r]).collect();
        assert_eq!(s, ["It costs 3.5 dollars.", "Really?!", "Yes", "New line"]);
        assert!(sentences("  ").is_empty());
    }
}
