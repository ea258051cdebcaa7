//! Sentences and word tokens with their byte ranges, shared by the anchor
//! extractors and the evidence search.

use std::borrow::Cow;
use std::ops::Range;

/// A word token: lower-cased text (borrowed when the source already is)
/// and its byte range in the source.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Word<'a> {
    /// Lower-cased text.
    pub text: Cow<'a, str>,
    /// Byte range in the text it came from.
    pub range: Range<usize>,
}

impl Word<'_> {
    /// The lower-cased text.
    pub(crate) fn as_str(&self) -> &str {
        &self.text
    }
}

/// The words of `text`: runs of letters and digits, with an inner
/// apostrophe kept when letters follow it ("don't", "company's").
pub(crate) fn words(text: &str) -> Vec<Word<'_>> {
    if text.is_ascii() {
        return ascii_words(text);
    }
    let mut out = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some((start, c)) = chars.next() {
        if !c.is_alphanumeric() {
            continue;
        }
        let mut end = start + c.len_utf8();
        let mut apostrophe = false;
        while let Some(&(i, c)) = chars.peek() {
            if c.is_alphanumeric() {
                end = i + c.len_utf8();
                chars.next();
            } else if (c == '\'' || c == '’') && !apostrophe {
                // Kept only when a letter follows.
                let after = text[i + c.len_utf8()..].chars().next();
                if after.is_some_and(char::is_alphabetic) {
                    apostrophe = true;
                    end = i + c.len_utf8();
                    chars.next();
                } else {
                    break;
                }
            } else {
                break;
            }
        }
        let raw = &text[start..end];
        let lower = if raw.is_ascii() {
            raw.to_ascii_lowercase()
        } else {
            raw.to_lowercase().replace('’', "'")
        };
        out.push(Word {
            text: Cow::Owned(lower),
            range: start..end,
        });
    }
    out
}

/// [`words`] for ASCII text, byte by byte.
fn ascii_words(text: &str) -> Vec<Word<'_>> {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len() / 5);
    let mut i = 0;
    while i < b.len() {
        if !b[i].is_ascii_alphanumeric() {
            i += 1;
            continue;
        }
        let start = i;
        let mut apostrophe = false;
        i += 1;
        loop {
            if i < b.len() && b[i].is_ascii_alphanumeric() {
                i += 1;
            } else if i + 1 < b.len()
                && b[i] == b'\''
                && !apostrophe
                && b[i + 1].is_ascii_alphabetic()
            {
                apostrophe = true;
                i += 1;
            } else {
                break;
            }
        }
        let raw = &text[start..i];
        let text = if raw.bytes().any(|c| c.is_ascii_uppercase()) {
            Cow::Owned(raw.to_ascii_lowercase())
        } else {
            Cow::Borrowed(raw)
        };
        out.push(Word {
            text,
            range: start..i,
        });
    }
    out
}

/// Byte ranges of the sentences of `text`: split after runs of `.`, `!`,
/// `?` followed by white space or the end (so "3.5" stays whole) and at
/// line breaks; trimmed, empty ones dropped.
pub(crate) fn sentences(text: &str) -> Vec<Range<usize>> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut push = |a: usize, b: usize| {
        let s = &text[a..b];
        let lead = s.len() - s.trim_start().len();
        let trail = s.len() - s.trim_end().len();
        if a + lead < b - trail {
            out.push(a + lead..b - trail);
        }
    };
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'.' | b'!' | b'?' => {
                let mut j = i;
                while j < bytes.len() && matches!(bytes[j], b'.' | b'!' | b'?') {
                    j += 1;
                }
                if j == bytes.len() || bytes[j].is_ascii_whitespace() {
                    push(start, j);
                    start = j;
                }
                i = j;
            }
            b'\n' => {
                push(start, i);
                start = i + 1;
                i += 1;
            }
            _ => i += 1,
        }
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
            .map(|w| w.text.into_owned())
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
