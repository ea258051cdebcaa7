//! The SQuAD / HotpotQA answer normalization and token overlap, with
//! Python's string semantics reproduced so scores equal the reference
//! scripts' on any Unicode input.
//!
//! `normalize_answer(s)` is `white_space_fix(remove_articles(remove_punc(lower(s))))`:
//!
//! - `lower`: full Unicode lower case (Python `str.lower`);
//! - `remove_punc`: delete the 32 ASCII punctuation characters of Python's
//!   `string.punctuation` (non-ASCII punctuation such as `’` or `—` stays);
//! - `remove_articles`: `re.sub(r'\b(a|an|the)\b', ' ', s)`: a maximal run
//!   of word characters (Python's Unicode `\w`) equal to `a`, `an` or `the`
//!   becomes a space;
//! - `white_space_fix`: `' '.join(s.split())`, splitting on Python's
//!   whitespace (Unicode White_Space plus U+001C..U+001F).
//!
//! ```
//! use corpus_eval::metrics::normalize_answer;
//! assert_eq!(normalize_answer("The  Arthur's Magazine!"), "arthurs magazine");
//! assert_eq!(normalize_answer("thé a-team"), "thé ateam");
//! ```

use unicode_normalization::char::is_combining_mark;

/// One-line description of the normalization, for metric signatures.
pub(crate) const SQUAD_NORMALIZATION: &str =
    "lower+strip-ascii-punct+drop-articles(a|an|the)+collapse-ws (python str semantics)";

/// Python's `str.isspace` (used by `str.split()`).
fn is_py_space(c: char) -> bool {
    c.is_whitespace() || matches!(c, '\u{1c}'..='\u{1f}')
}

/// Python's Unicode `\w` (`str.isalnum()` or `_`): letters and numbers,
/// but not combining marks or the symbol-category letters that Rust's
/// `Alphabetic` property adds (circled and squared Latin letters).
fn is_py_word(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric() || c == '_';
    }
    c.is_alphanumeric()
        && !is_combining_mark(c)
        && !matches!(c, '\u{24B6}'..='\u{24E9}' | '\u{1F130}'..='\u{1F189}')
}

fn is_article(word: &str) -> bool {
    matches!(word, "a" | "an" | "the")
}

/// Normalizes an answer the way the SQuAD and HotpotQA evaluation scripts
/// do (see the module documentation).
pub fn normalize_answer(s: &str) -> String {
    let lowered = s.to_lowercase();
    let mut out = String::with_capacity(lowered.len());
    // Walk maximal runs of word characters; everything else separates.
    // Punctuation is dropped before the runs are formed, exactly as
    // remove_punc runs before remove_articles.
    let mut word = String::new();
    let mut pending_space = false;
    let flush_word = |word: &mut String, out: &mut String, pending_space: &mut bool| {
        if word.is_empty() {
            return;
        }
        if is_article(word) {
            // The article becomes a space, i.e. a separator.
            *pending_space = true;
        } else {
            if *pending_space && !out.is_empty() {
                out.push(' ');
            }
            *pending_space = false;
            out.push_str(word);
        }
        word.clear();
    };
    for c in lowered.chars() {
        if c.is_ascii_punctuation() {
            continue;
        }
        if is_py_word(c) {
            word.push(c);
        } else if is_py_space(c) {
            flush_word(&mut word, &mut out, &mut pending_space);
            pending_space = true;
        } else {
            // A non-word, non-space character (e.g. "’" or "—") ends a word
            // but is kept, glued to its neighbours unless spaces separate.
            flush_word(&mut word, &mut out, &mut pending_space);
            if pending_space && !out.is_empty() {
                out.push(' ');
            }
            pending_space = false;
            out.push(c);
        }
    }
    flush_word(&mut word, &mut out, &mut pending_space);
    out
}

/// Token overlap of two normalized strings: counts behind precision,
/// recall and F1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Overlap {
    /// Tokens in common (multiset intersection, as `Counter & Counter`).
    pub common: usize,
    /// Tokens in the prediction.
    pub predicted: usize,
    /// Tokens in the reference.
    pub reference: usize,
}

impl Overlap {
    /// `common / predicted` (0 when nothing is common).
    pub fn precision(&self) -> f64 {
        if self.common == 0 {
            0.0
        } else {
            self.common as f64 / self.predicted as f64
        }
    }

    /// `common / reference` (0 when nothing is common).
    pub fn recall(&self) -> f64 {
        if self.common == 0 {
            0.0
        } else {
            self.common as f64 / self.reference as f64
        }
    }

    /// `2PR / (P + R)` (0 when nothing is common).
    pub fn f1(&self) -> f64 {
        if self.common == 0 {
            return 0.0;
        }
        let (p, r) = (self.precision(), self.recall());
        2.0 * p * r / (p + r)
    }
}

/// Splits on Python whitespace (`str.split()`).
pub(crate) fn py_split(s: &str) -> impl Iterator<Item = &str> {
    s.split(is_py_space).filter(|t| !t.is_empty())
}

/// Multiset overlap of the whitespace tokens of two (normalized) strings.
pub fn token_overlap(prediction: &str, reference: &str) -> Overlap {
    let mut p: Vec<&str> = py_split(prediction).collect();
    let mut r: Vec<&str> = py_split(reference).collect();
    let (predicted, reference) = (p.len(), r.len());
    p.sort_unstable();
    r.sort_unstable();
    let (mut i, mut j, mut common) = (0, 0, 0);
    while i < p.len() && j < r.len() {
        match p[i].cmp(r[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                common += 1;
                i += 1;
                j += 1;
            }
        }
    }
    Overlap {
        common,
        predicted,
        reference,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalization_matches_python() {
        // Values computed with the reference Python normalize_answer.
        let cases = [
            ("Arthur's Magazine", "arthurs magazine"),
            ("  The Beatles, a band.  ", "beatles band"),
            ("an apple and AN orange", "apple and orange"),
            ("theatre another", "theatre another"),
            ("the-a-an", "theaan"),
            ("x_the_y", "xthey"),
            ("Île-de-France", "îledefrance"),
            ("l’the", "l’"),
            ("the’s", "’s"),
            ("a—the—b", "— —b"),
            ("THE\u{1c}end", "end"),
            ("the\u{301}", "\u{301}"),
            ("1,000 a", "1000"),
            ("", ""),
            ("\u{24b6} the", "\u{24d0}"),
            ("ΣΑΣ the", "σας"),
            ("İstanbul a", "i\u{307}stanbul"),
            ("the\u{a0}a\u{2003}b", "b"),
            ("ａ the", "ａ"),
        ];
        for (input, want) in cases {
            assert_eq!(normalize_answer(input), want, "input {input:?}");
        }
    }

    #[test]
    fn overlap_is_a_multiset_intersection() {
        let o = token_overlap("a a b c", "a b b");
        assert_eq!(
            o,
            Overlap {
                common: 2,
                predicted: 4,
                reference: 3
            }
        );
        assert!((o.f1() - 2.0 * 0.5 * (2.0 / 3.0) / (0.5 + 2.0 / 3.0)).abs() < 1e-15);
        assert_eq!(token_overlap("", "x").f1(), 0.0);
    }
}
