//! The default speaker-label pattern, matched without a regex.
//!
//! [`DEFAULT_SPEAKER_PATTERN`] is
//! `^\s*([\p{Lu}][\p{L}\p{N}_ .'’-]{0,40}?)\s*:\s` in multi-line mode. The
//! counted repetition of a large Unicode class makes its compiled regex
//! weigh ~14 MB (and each thread's search cache more), so the default is
//! matched here by hand, with the same character classes (taken from
//! `regex-syntax`, the regex crate's own Unicode tables) and the same
//! leftmost-first, non-overlapping matches as the regex's `find_iter`
//! (tests compare the two on generated texts).
//!
//! At a line start (the text's start or after `\n`), a match is: all the
//! whitespace there (newlines included: `\s*` must reach the capital
//! letter), one uppercase letter, then up to the first `:` at most 40
//! label characters followed only by whitespace, the `:` and one
//! whitespace character.
//!
//! ```
//! use corpus_eval::citations::find_labels;
//! let text = "Intro.\n  Núria Puig : Here.\nnot: a label\nQ:\tWhy?";
//! let found: Vec<&str> = find_labels(text).into_iter().map(|r| &text[r]).collect();
//! assert_eq!(found, vec!["  Núria Puig : ", "Q:\t"]);
//! ```

use regex_syntax::hir::{Class, HirKind};
use std::ops::Range;
use std::sync::OnceLock;

/// The default speaker-label pattern; its first group is the label.
pub const DEFAULT_SPEAKER_PATTERN: &str = r"^\s*([\p{Lu}][\p{L}\p{N}_ .'’-]{0,40}?)\s*:\s";

/// Most label characters after the capital letter (`{0,40}`).
const MAX_LABEL_CHARS: usize = 40;

/// Sorted, disjoint inclusive char ranges of a character class.
struct CharClass(Vec<(char, char)>);

impl CharClass {
    /// The ranges of a one-class pattern such as `\p{Lu}`.
    fn of(pattern: &str) -> CharClass {
        let hir = regex_syntax::Parser::new()
            .parse(pattern)
            .expect("a fixed character class parses");
        match hir.kind() {
            HirKind::Class(Class::Unicode(c)) => {
                CharClass(c.ranges().iter().map(|r| (r.start(), r.end())).collect())
            }
            _ => panic!("{pattern} is not a Unicode class"),
        }
    }

    fn contains(&self, c: char) -> bool {
        self.0
            .binary_search_by(|&(lo, hi)| {
                if hi < c {
                    std::cmp::Ordering::Less
                } else if lo > c {
                    std::cmp::Ordering::Greater
                } else {
                    std::cmp::Ordering::Equal
                }
            })
            .is_ok()
    }
}

struct Classes {
    upper: CharClass,
    label: CharClass,
    space: CharClass,
}

fn classes() -> &'static Classes {
    static CLASSES: OnceLock<Classes> = OnceLock::new();
    CLASSES.get_or_init(|| Classes {
        upper: CharClass::of(r"[\p{Lu}]"),
        label: CharClass::of(r"[\p{L}\p{N}_ .'’-]"),
        space: CharClass::of(r"[\s]"),
    })
}

fn is_space(c: char) -> bool {
    if c.is_ascii() {
        matches!(c, '\t'..='\r' | ' ')
    } else {
        classes().space.contains(c)
    }
}

fn is_upper(c: char) -> bool {
    if c.is_ascii() {
        c.is_ascii_uppercase()
    } else {
        classes().upper.contains(c)
    }
}

fn is_label(c: char) -> bool {
    if c.is_ascii() {
        c.is_ascii_alphanumeric() || matches!(c, ' ' | '.' | '\'' | '-' | '_')
    } else {
        classes().label.contains(c)
    }
}

/// Every match of the default speaker pattern in `text`, in order, as
/// byte ranges (what the regex's `find_iter` returns).
pub fn find_labels(text: &str) -> Vec<Range<usize>> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        // The next line start at or after `at`.
        let start = if at == 0 || bytes[at - 1] == b'\n' {
            at
        } else {
            match memchr::memchr(b'\n', &bytes[at..]) {
                Some(i) => at + i + 1,
                None => break,
            }
        };
        match match_at(text, start) {
            Ok(end) => {
                out.push(start..end);
                at = end;
            }
            Err(next) => at = next,
        }
    }
    out
}

/// The end of the match starting at the line start `start`; else where
/// the search goes on: past the first non-whitespace character, as every
/// line start inside the same whitespace run fails the same way (so a long
/// run of blank lines is read once, not once per line).
fn match_at(text: &str, start: usize) -> Result<usize, usize> {
    let mut chars = text[start..].char_indices().map(|(i, c)| (start + i, c));
    // `\s*` then `[\p{Lu}]`: the whitespace run must end on a capital.
    let Some((capital, first)) = chars.by_ref().find(|&(_, c)| !is_space(c)) else {
        return Err(text.len());
    };
    let fail = Err(capital + 1);
    if !is_upper(first) {
        return fail;
    }
    // Up to the first `:`: label characters, then only whitespace (the
    // lazy run ends at the last non-whitespace character).
    let mut seen = 0; // characters since the capital
    let mut all_label = true; // every character so far is a label character
    for (i, c) in chars {
        if c == ':' {
            return match text[i + 1..].chars().next() {
                Some(after) if is_space(after) => Ok(i + 1 + after.len_utf8()),
                _ => fail,
            };
        }
        seen += 1;
        all_label &= is_label(c);
        if !is_space(c) {
            // The run reaches this character: all before it, and it, must
            // be label characters (a tab or newline inside breaks it), at
            // most 40 of them.
            if !all_label || seen > MAX_LABEL_CHARS {
                return fail;
            }
        }
    }
    fail
}

#[cfg(test)]
mod tests {
    use super::*;
    use regex::Regex;

    fn regex_matches(re: &Regex, text: &str) -> Vec<Range<usize>> {
        re.find_iter(text)
            .filter(|m| !m.is_empty())
            .map(|m| m.range())
            .collect()
    }

    fn default_regex() -> Regex {
        Regex::new(&format!("(?m){DEFAULT_SPEAKER_PATTERN}")).unwrap()
    }

    #[test]
    fn equal_to_the_regex_on_written_cases() {
        let re = default_regex();
        for text in [
            "",
            "Q: x",
            "q: x",
            "Q:x",
            "Q:",
            "Q :\n",
            "\n\n  \tBob  \t :  hi",
            "Bob\n: hi",
            "Bob\t x: hi",
            "Bob x\t: hi",
            "Mr O'Neil-Smith: ok\nÉmile:\ttab\nB:c\n",
            "Anna Maria Josefina de la Cruz y Sánchez Ruiz: too long?\n",
            "A234567890123456789012345678901234567890: forty\n",
            "A2345678901234567890123456789012345678901: forty-one\n",
            "A234567890123456789012345678901234567890 \t : spaces after\n",
            "Bob, x: y\nAl: z\r\nCy:\r\nDee: \u{a0}\nÉ:\u{2028}x\nⒶ: circled\nǅ: titlecase\n",
            "Núria Puig :  Here, in Gràcia: yes.\nlow: no\n 1A: no\nZoë’s mum: yes\n",
            "Bob:: x\nBob: : x\nB\u{300}ob: combining\nBob\u{85}: nel\n",
            "\r\nBob: after cr lf\rAl: after cr\n",
        ] {
            assert_eq!(find_labels(text), regex_matches(&re, text), "{text:?}");
        }
    }

    #[test]
    fn equal_to_the_regex_on_generated_texts() {
        // Texts drawn from an alphabet rich in the pattern's edge cases.
        let alphabet: Vec<char> = "AaBzZ É ñ ÑǅⒶ0 9.'’-:\n\n\t\r \u{a0}\u{2028}\u{85},;?x\u{300}"
            .chars()
            .collect();
        let re = default_regex();
        let mut next = crate::test_rng::seeded(0x9E37_79B9_7F4A_7C15);
        for round in 0..20_000 {
            let len = (next() % 80) as usize + round % 3 * 30;
            let mut text = String::new();
            for _ in 0..len {
                // Long runs of label letters now and then, to cross 40.
                if next().is_multiple_of(23) {
                    for _ in 0..(next() % 50) {
                        text.push('a');
                    }
                }
                text.push(alphabet[(next() % alphabet.len() as u64) as usize]);
            }
            assert_eq!(find_labels(&text), regex_matches(&re, &text), "{text:?}");
        }
    }
}
