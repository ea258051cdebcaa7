//! Python's string semantics where the reference libraries rely on them:
//! `str.split()` (Python's whitespace set), `str.rstrip()`, `str.lower()`.

use std::borrow::Cow;

/// Python's `str.isspace()` for one character: Unicode White_Space plus the
/// four information separators U+001C..U+001F, which Python also splits on.
///
/// ```
/// use corpus_eval::lexical::is_space;
/// assert!(is_space('\u{1f}') && is_space('\u{a0}') && !is_space('\u{200b}'));
/// ```
pub fn is_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python's `s.split()`: the non-empty runs between whitespace.
pub fn split(s: &str) -> impl Iterator<Item = &str> {
    s.split(is_space).filter(|t| !t.is_empty())
}

/// Python's `s.rstrip()`.
pub fn rstrip(s: &str) -> &str {
    s.trim_end_matches(is_space)
}

/// Python's `s.lower()` (full Unicode lowercase mapping, final sigma
/// included), borrowing when nothing changes.
pub fn lower(s: &str) -> Cow<'_, str> {
    if s.is_ascii() {
        if s.bytes().any(|b| b.is_ascii_uppercase()) {
            Cow::Owned(s.to_ascii_lowercase())
        } else {
            Cow::Borrowed(s)
        }
    } else {
        Cow::Owned(s.to_lowercase())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_split_and_strip() {
        let v: Vec<&str> = split(" a\u{1c}b\u{3000}c \n").collect();
        assert_eq!(v, ["a", "b", "c"]);
        assert_eq!(rstrip("x \u{1f}\n"), "x");
        assert_eq!(lower("ΟΔΟΣ"), "οδο\u{3c2}");
        assert_eq!(lower("İ"), "i\u{307}");
        assert!(matches!(lower("abc"), Cow::Borrowed(_)));
    }
}
