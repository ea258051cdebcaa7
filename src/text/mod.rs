//! Text normalization shared by the scorers and the quote checker.
//!
//! Two normalizers live here, each with one job:
//! - [`normalize`]: the answer normalizer used for scoring (NFKD with combining
//!   marks removed, lower case, punctuation to spaces, whitespace collapsed),
//!   with the digit-group rules of `numbers` so "1,000" stays one number.
//! - [`aligned::Normalized`]: the quote normalizer, which keeps a byte map
//!   back to the original text so a match in normalized text yields a span in
//!   the original.
//!
//! ```
//! use corpus_eval::text::normalize;
//! assert_eq!(normalize("  Île-de-France, 1,000 Cafés! "), "ile de france 1000 cafes");
//! ```

pub mod aligned;
pub(crate) mod anchors;
pub(crate) mod clock;
pub mod hash;
pub(crate) mod json_str;
pub use json_str::*;
// Public to the benchmarks alone (feature `bench-internals`).
#[allow(unreachable_pub)]
pub(crate) mod multifind;
#[cfg(feature = "bench-internals")]
pub use multifind::MultiFind;
pub(crate) mod numbers;
pub use numbers::*;
pub(crate) mod preview;
pub(crate) mod realign;
pub(crate) mod sklearn_stopwords;
pub(crate) mod stopwords;
pub(crate) mod swar;
pub(crate) mod tfidf;
pub use tfidf::*;

use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;

/// Short description of [`normalize`], used in metric signatures.
pub const NORMALIZER_SIGNATURE: &str = "nfkd+strip-marks+lower+punct-to-space+ws-collapse";

/// Normalizes an answer or a metric value for scoring.
///
/// NFKD decomposition with combining marks removed, lower case, every
/// character that is neither alphanumeric nor whitespace turned into a space
/// (except a comma inside a digit group, "1,000", which is dropped, and a
/// period between two digits, "3.5", which is kept), whitespace collapsed
/// and trimmed.
pub fn normalize(text: &str) -> String {
    let mut folded: Vec<char> = Vec::with_capacity(text.len());
    if text.is_ascii() {
        folded.extend(text.chars().map(|c| c.to_ascii_lowercase()));
    } else {
        for c in text.nfkd() {
            if is_combining_mark(c) {
                continue;
            }
            folded.extend(c.to_lowercase());
        }
    }
    let mut out = String::with_capacity(folded.len());
    let mut pending_space = false;
    for (i, &c) in folded.iter().enumerate() {
        let keep = if c.is_alphanumeric() {
            true
        } else if c == '.' || c == ',' {
            let prev_digit = i > 0 && folded[i - 1].is_ascii_digit();
            let next_digit = folded.get(i + 1).is_some_and(|n| n.is_ascii_digit());
            if c == ',' && prev_digit && is_digit_group(&folded[i + 1..]) {
                continue;
            }
            c == '.' && prev_digit && next_digit
        } else {
            false
        };
        if keep {
            if pending_space && !out.is_empty() {
                out.push(' ');
            }
            pending_space = false;
            out.push(c);
        } else {
            pending_space = true;
        }
    }
    out
}

/// True when `rest` starts with exactly three ASCII digits not followed by
/// another digit: the tail of a thousands group such as ",000".
fn is_digit_group(rest: &[char]) -> bool {
    rest.len() >= 3
        && rest[..3].iter().all(|c| c.is_ascii_digit())
        && !rest.get(3).is_some_and(|c| c.is_ascii_digit())
}

/// Splits normalized text into its words.
pub fn words(normalized: &str) -> impl Iterator<Item = &str> {
    normalized.split(' ').filter(|w| !w.is_empty())
}

/// Normalizes `text` and returns its tokens with runs of number words turned
/// into digits ("twenty-one" -> "21", "one hundred and five" -> "105").
pub fn canonical_tokens(text: &str) -> Vec<String> {
    let norm = normalize(text);
    let toks: Vec<&str> = words(&norm).collect();
    numbers::canonicalize(&toks)
}

/// Escapes text for HTML or XML element content and attribute values
/// (`&`, `<`, `>`, `"`, `'`); a character XML 1.0 forbids (the C0
/// controls but tab, line feed and carriage return; U+FFFE, U+FFFF) is
/// replaced by U+FFFD, so that the document stays well-formed.
pub fn escape_markup(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{fffe}' || c == '\u{ffff}' => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// Text as it may be printed on a terminal: control characters (C0 but
/// tab and line feed, DEL, C1: an escape sequence would move the cursor,
/// recolour or retitle the terminal) shown as `\u{1b}`; the rest as is.
pub fn printable(s: &str) -> std::borrow::Cow<'_, str> {
    let bad = |c: char| c.is_control() && c != '\n' && c != '\t';
    if !s.chars().any(bad) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if bad(c) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// `text` with every lone carriage return (an old Mac line end) made a
/// line feed, so that every reader splits lines at `\n` (a `\r\n` pair is
/// left as it is; byte offsets do not move).
pub fn lone_cr_to_lf(text: String) -> String {
    if memchr::memchr(b'\r', text.as_bytes()).is_none() {
        return text;
    }
    let mut bytes = text.into_bytes();
    for i in 0..bytes.len() {
        if bytes[i] == b'\r' && bytes.get(i + 1) != Some(&b'\n') {
            bytes[i] = b'\n';
        }
    }
    // One ASCII byte replaced by another: still UTF-8.
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_diacritics_case_and_punctuation() {
        assert_eq!(normalize("Crème BRÛLÉE"), "creme brulee");
        assert_eq!(normalize("São Paulo—Brazil"), "sao paulo brazil");
        assert_eq!(normalize("Ærø"), "ærø");
        assert_eq!(normalize("naïve café"), "naive cafe");
        assert_eq!(normalize("Zoë's  \t\n  idea"), "zoe s idea");
        assert_eq!(normalize("ﬁne"), "fine");
    }

    #[test]
    fn keeps_numbers_whole() {
        assert_eq!(normalize("1,000 people"), "1000 people");
        assert_eq!(normalize("1,000,000"), "1000000");
        assert_eq!(normalize("3.5 kg"), "3.5 kg");
        assert_eq!(normalize("a, b, 3, 4"), "a b 3 4");
        assert_eq!(normalize("3,50"), "3 50");
        assert_eq!(normalize("end."), "end");
    }

    #[test]
    fn empty_and_punctuation_only() {
        assert_eq!(normalize(""), "");
        assert_eq!(normalize(" ?!... "), "");
    }

    #[test]
    fn issue_53_markup_escapes_drop_what_xml_forbids_and_terminals_see_no_escapes() {
        assert_eq!(
            escape_markup("a\u{1}b\u{8}c\u{1b}[31m\td\u{ffff}<"),
            "a\u{fffd}b\u{fffd}c\u{fffd}[31m\td\u{fffd}&lt;"
        );
        assert_eq!(printable("sys\u{1b}[2Jtem\n"), "sys\\u{1b}[2Jtem\n");
        assert_eq!(printable("plain é\t"), "plain é\t");
        assert_eq!(printable("c1\u{9b}x"), "c1\\u{9b}x");
    }

    #[test]
    fn issue_53_lone_carriage_returns_are_line_ends() {
        assert_eq!(lone_cr_to_lf("a\rb\r\nc\r".into()), "a\nb\r\nc\n");
        assert_eq!(lone_cr_to_lf("no breaks".into()), "no breaks");
    }

    #[test]
    fn canonical_tokens_convert_number_words() {
        assert_eq!(canonical_tokens("Twenty-one farms"), vec!["21", "farms"]);
        assert_eq!(canonical_tokens("one hundred and five"), vec!["105"]);
        assert_eq!(canonical_tokens("1,000 cows"), vec!["1000", "cows"]);
    }
}
