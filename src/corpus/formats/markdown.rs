//! Markdown's markup taken out of a transcript's lines (`.md`, and a
//! `.txt` that holds it), so that what a reader sees on the rendered page
//! is what quotes are matched against: character references (`&#39;`,
//! `&amp;`, `&nbsp;`) and backslash escapes (`\[12:07\]` is the timestamp
//! `[12:07]`) first, then, in what was said, emphasis (`**`, `__`, and `*`
//! or `_` at a word's edge), links (`[text](url)` is `text`, an image its
//! alt text) and HTML tags.

use std::borrow::Cow;

/// Private-use stand-ins for markup characters a backslash escaped
/// (`\*`, `\_`, `\<`): kept through [`inline`], which would take the
/// characters themselves for markup, and put back by [`restore`].
const ESCAPED: [(char, char); 3] = [('*', '\u{e02a}'), ('_', '\u{e05f}'), ('<', '\u{e03c}')];

/// What was said with the characters a backslash escaped put back.
pub(crate) fn restore(text: Cow<'_, str>) -> Cow<'_, str> {
    if !text.contains(|c: char| ESCAPED.iter().any(|(_, p)| *p == c)) {
        return text;
    }
    let mut out = text.into_owned();
    for (c, p) in ESCAPED {
        out = out.replace(p, &c.to_string());
    }
    Cow::Owned(out)
}

/// A line with its character references decoded and backslash escapes
/// undone (before labels and timestamps are read; an escaped `*`, `_` or
/// `<` held as a stand-in until [`restore`]).
pub(crate) fn unescape(line: &str) -> String {
    let decoded = if line.contains('&') {
        super::cues::decode_entities(line)
    } else {
        line.to_string()
    };
    if !decoded.contains('\\') {
        return decoded;
    }
    let mut out = String::with_capacity(decoded.len());
    let mut chars = decoded.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('\\', Some(&n)) if n.is_ascii_punctuation() => {
                let kept = ESCAPED.iter().find(|(m, _)| *m == n).map_or(n, |(_, p)| *p);
                out.push(kept);
                chars.next();
            }
            _ => out.push(c),
        }
    }
    out
}

/// What was said with its inline markup taken out: emphasis markers,
/// links (their text kept), images (their alt text kept) and HTML tags.
pub(crate) fn inline(text: &str) -> Cow<'_, str> {
    // A list item's marker (`* `, `+ `, `- `) is no speech either.
    let text = ["* ", "+ ", "- "]
        .iter()
        .find_map(|m| text.strip_prefix(m))
        .unwrap_or(text);
    if !text.contains(['*', '_', '[', '<']) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let b = text.as_bytes();
    let mut k = 0;
    while k < b.len() {
        let rest = &text[k..];
        // `![alt](url)` and `[text](url)`: the text.
        let image = rest.starts_with("![");
        if rest.starts_with('[') || image {
            let open = k + usize::from(image);
            if let Some(close) = text[open..].find("](").map(|e| open + e) {
                if let Some(end) = text[close + 2..].find(')').map(|e| close + 2 + e) {
                    if !text[open + 1..close].contains(['[', ']']) {
                        out.push_str(&text[open + 1..close]);
                        k = end + 1;
                        continue;
                    }
                }
            }
        }
        // `<tag ...>`, `</tag>`: out.
        if let Some(inner) = rest.strip_prefix('<') {
            let tag = inner.starts_with(|c: char| c.is_ascii_alphabetic() || c == '/' || c == '!');
            if let Some(end) = rest.find('>').filter(|_| tag) {
                k += end + 1;
                continue;
            }
        }
        // Emphasis: `**` and `__` anywhere; `*` and `_` at a word's edge.
        if rest.starts_with("**") || rest.starts_with("__") {
            k += 2;
            continue;
        }
        if rest.starts_with(['*', '_']) {
            let before = text[..k].chars().next_back();
            let after = rest[1..].chars().next();
            let word = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
            if !(word(before) && word(after)) {
                k += 1;
                continue;
            }
        }
        let c = rest.chars().next().unwrap_or(' ');
        out.push(c);
        k += c.len_utf8();
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_and_escapes_are_undone() {
        let said = unescape("it&#39;s \\[12:07\\] &amp; \\*so\\*");
        assert_eq!(restore(inline(&said)), "it's [12:07] & *so*");
        assert_eq!(unescape("a \\ b"), "a \\ b");
    }

    #[test]
    fn emphasis_links_and_tags_are_not_speech() {
        assert_eq!(inline("we **really** _did_ go"), "we really did go");
        assert_eq!(
            inline("see [the harbour](http://x.org/a) now"),
            "see the harbour now"
        );
        assert_eq!(inline("a ![boat](b.png) and <br/>more"), "a boat and more");
        assert_eq!(inline("snake_case and 2*3 stay"), "snake_case and 2*3 stay");
        assert_eq!(inline("[12:07] stays"), "[12:07] stays");
    }
}
