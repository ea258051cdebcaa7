//! SQuAD exact match and F1 as the official evaluation scripts compute
//! them. Answers are normalized by lowercasing, removing ASCII punctuation,
//! removing the words `a`, `an`, `the`, and collapsing whitespace.
//!
//! - v1.1: EM and F1 are the maxima over the reference answers; F1 is 0
//!   when no token is shared (also when both sides normalize to nothing).
//! - v2.0: references that normalize to nothing are dropped (none left:
//!   the empty answer), and F1 is 1 when both sides have no tokens, 0 when
//!   only one has none.
//!
//! ```
//! use corpus_eval::lexical::squad::{normalize, score, Version};
//! assert_eq!(normalize("The  Eiffel-Tower!"), "eiffeltower");
//! let (em, f1) = score("the Eiffel tower", &["Eiffel Tower", "Paris"], Version::V2);
//! assert_eq!((em, f1), (1.0, 1.0));
//! ```

use super::pytext;

/// Which script's conventions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    /// The v1.1 script.
    V1,
    /// The v2.0 script.
    V2,
}

impl Version {
    /// Parses `1.1` or `2.0`.
    pub fn parse(s: &str) -> Option<Version> {
        match s {
            "1.1" | "v1.1" => Some(Version::V1),
            "2.0" | "v2.0" | "2" => Some(Version::V2),
            _ => None,
        }
    }

    /// `1.1` or `2.0`.
    pub fn name(&self) -> &'static str {
        match self {
            Version::V1 => "1.1",
            Version::V2 => "2.0",
        }
    }
}

/// Python's `\w` for one character (alphanumeric or underscore).
fn is_word(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

/// The official `normalize_answer`.
pub fn normalize(s: &str) -> String {
    let lowered = pytext::lower(s);
    let no_punct: String = lowered
        .chars()
        .filter(|c| !c.is_ascii_punctuation())
        .collect();
    // `\b(a|an|the)\b` -> " ": whole word runs equal to an article.
    let mut no_articles = String::with_capacity(no_punct.len());
    let mut rest = no_punct.as_str();
    while !rest.is_empty() {
        let word_end = rest.find(|c: char| !is_word(c)).unwrap_or(rest.len());
        if word_end > 0 {
            let word = &rest[..word_end];
            if matches!(word, "a" | "an" | "the") {
                no_articles.push(' ');
            } else {
                no_articles.push_str(word);
            }
            rest = &rest[word_end..];
        } else {
            let c_len = rest.chars().next().map_or(1, char::len_utf8);
            no_articles.push_str(&rest[..c_len]);
            rest = &rest[c_len..];
        }
    }
    pytext::split(&no_articles).collect::<Vec<_>>().join(" ")
}

fn f1_tokens(pred: &[&str], gold: &[&str]) -> f64 {
    let mut p: Vec<&str> = pred.to_vec();
    let mut g: Vec<&str> = gold.to_vec();
    p.sort_unstable();
    g.sort_unstable();
    let same = super::sorted_intersection(&p, &g);
    if same == 0 {
        return 0.0;
    }
    let precision = same as f64 / pred.len() as f64;
    let recall = same as f64 / gold.len() as f64;
    (2.0 * precision * recall) / (precision + recall)
}

/// (EM, F1) of one prediction, each 0-1, maxima over the references.
pub fn score<S: AsRef<str>>(prediction: &str, references: &[S], version: Version) -> (f64, f64) {
    let pred = normalize(prediction);
    let pred_tokens: Vec<&str> = pytext::split(&pred).collect();
    let normalized: Vec<String> = references.iter().map(|r| normalize(r.as_ref())).collect();
    let golds: Vec<&str> = match version {
        Version::V1 => normalized.iter().map(String::as_str).collect(),
        Version::V2 => {
            let kept: Vec<&str> = normalized
                .iter()
                .filter(|g| !g.is_empty())
                .map(String::as_str)
                .collect();
            if kept.is_empty() {
                vec![""]
            } else {
                kept
            }
        }
    };
    let (mut em, mut f1) = (0.0f64, 0.0f64);
    for g in golds {
        if g == pred {
            em = 1.0;
        }
        let gold_tokens: Vec<&str> = pytext::split(g).collect();
        let f = match version {
            Version::V2 if gold_tokens.is_empty() || pred_tokens.is_empty() => {
                if gold_tokens == pred_tokens {
                    1.0
                } else {
                    0.0
                }
            }
            _ => f1_tokens(&pred_tokens, &gold_tokens),
        };
        f1 = f1.max(f);
    }
    (em, f1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_differ_only_on_empty_answers() {
        assert_eq!(score("a", &["the"], Version::V1), (1.0, 0.0));
        assert_eq!(score("a", &["the"], Version::V2), (1.0, 1.0));
        assert_eq!(score("", &[] as &[&str], Version::V2), (1.0, 1.0));
        assert_eq!(score("Paris", &["paris!", "x"], Version::V1), (1.0, 1.0));
        let (_, f1) = score("big red dog", &["red dog barks"], Version::V1);
        assert!((f1 - 2.0 / 3.0).abs() < 1e-15);
        assert_eq!(normalize("anthem an apple"), "anthem apple");
    }
}
