//! Quotes edited the way style guides allow (APA 7 §8.30-8.31): an
//! ellipsis for omitted words (`...`, `…`, `. . .`, `[...]`, `[…]`), a
//! bracketed insertion that replaces a few words (`[The council] never
//! delivered it`) and `[sic]`.
//!
//! [`parse`] reads a quote's markers; the segments between ellipses are
//! then placed in a transcript by [`crate::citations::SourceText`]: each
//! stands (exact or normalized) in order, without overlap; an insertion
//! stands for 0 to [`MAX_INSERTED_WORDS`] words of the source at its
//! place; `[sic]` is dropped. A leading or trailing ellipsis only says the
//! quote is partial.
//!
//! ```
//! use corpus_eval::citations::parse;
//! let e = parse("She said [the mayor] would come ... and [sic] never did").unwrap();
//! assert_eq!(e.segments.len(), 2);
//! assert!(e.elision && e.insertion && e.sic);
//! assert_eq!(e.segments[0].literals, ["She said", "would come"]);
//! assert!(parse("no markers here").is_none());
//! ```

/// Most source words an `[insertion]` may stand for.
pub const MAX_INSERTED_WORDS: usize = 6;

/// One run of a quote between ellipses: its literal texts, an insertion
/// standing before each literal but the first where `bridged` says so.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    /// The literal texts, in order (as written).
    pub literals: Vec<String>,
    /// `bridged[i]`: an insertion stands between literal `i - 1` and
    /// literal `i` (`bridged[0]` is always false).
    pub bridged: Vec<bool>,
}

/// A quote's editorial markers and the segments they leave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edited {
    /// The segments between ellipses, in order (empty ones dropped).
    pub segments: Vec<Segment>,
    /// An ellipsis stands somewhere (words omitted, or a partial quote).
    pub elision: bool,
    /// A bracketed insertion stands somewhere.
    pub insertion: bool,
    /// `[sic]` stands somewhere.
    pub sic: bool,
}

enum Part {
    Text(String),
    Ellipsis,
    Insertion,
    Sic,
}

/// An ellipsis at the start of `rest`: its length in bytes.
fn ellipsis_at(rest: &str) -> Option<usize> {
    if rest.starts_with('…') {
        return Some('…'.len_utf8());
    }
    if rest.starts_with("...") {
        return Some(rest.len() - rest.trim_start_matches('.').len());
    }
    if rest.starts_with(". . .") {
        let mut len = 5;
        while rest[len..].starts_with(" .") {
            len += 2;
        }
        return Some(len);
    }
    for marked in ["(...)", "(…)"] {
        if rest.starts_with(marked) {
            return Some(marked.len());
        }
    }
    None
}

/// The quote's markers, or None when it has none (then it is matched as
/// written).
pub fn parse(quote: &str) -> Option<Edited> {
    let mut parts: Vec<Part> = Vec::new();
    let mut text = String::new();
    let mut at = 0;
    let flush = |text: &mut String, parts: &mut Vec<Part>| {
        if !text.is_empty() {
            parts.push(Part::Text(std::mem::take(text)));
        }
    };
    while at < quote.len() {
        let rest = &quote[at..];
        if let Some(len) = ellipsis_at(rest) {
            flush(&mut text, &mut parts);
            parts.push(Part::Ellipsis);
            at += len;
            continue;
        }
        if rest.starts_with('[') {
            if let Some(close) = rest.find(']') {
                let inner = rest[1..close].trim();
                let part = if inner.is_empty() {
                    None
                } else if ellipsis_at(inner).is_some_and(|l| l == inner.len()) {
                    Some(Part::Ellipsis)
                } else if inner.trim_end_matches('!').eq_ignore_ascii_case("sic") {
                    Some(Part::Sic)
                } else {
                    Some(Part::Insertion)
                };
                flush(&mut text, &mut parts);
                parts.extend(part);
                at += close + 1;
                continue;
            }
        }
        let c = rest.chars().next().unwrap_or(' ');
        text.push(c);
        at += c.len_utf8();
    }
    flush(&mut text, &mut parts);
    if !parts.iter().any(|p| !matches!(p, Part::Text(_))) {
        return None;
    }
    let words = |t: &str| t.chars().any(char::is_alphanumeric);
    let mut out = Edited {
        segments: Vec::new(),
        elision: false,
        insertion: false,
        sic: false,
    };
    let mut segment = Segment {
        literals: Vec::new(),
        bridged: Vec::new(),
    };
    // An insertion seen since the last literal of this segment.
    let mut bridge = false;
    for p in parts {
        match p {
            Part::Text(t) => {
                if !words(&t) {
                    continue;
                }
                let t = t.trim().to_string();
                match segment.literals.last_mut() {
                    // Text after `[sic]` (no insertion between) continues
                    // the literal before it.
                    Some(last) if !bridge => {
                        last.push(' ');
                        last.push_str(&t);
                    }
                    _ => {
                        segment.bridged.push(bridge && !segment.literals.is_empty());
                        segment.literals.push(t);
                    }
                }
                bridge = false;
            }
            Part::Ellipsis => {
                out.elision = true;
                if !segment.literals.is_empty() {
                    out.segments.push(std::mem::replace(
                        &mut segment,
                        Segment {
                            literals: Vec::new(),
                            bridged: Vec::new(),
                        },
                    ));
                }
                bridge = false;
            }
            Part::Insertion => {
                out.insertion = true;
                bridge = true;
            }
            Part::Sic => out.sic = true,
        }
    }
    if !segment.literals.is_empty() {
        out.segments.push(segment);
    }
    if out.segments.is_empty() {
        return None;
    }
    Some(out)
}

/// True when a quote may carry editorial markers (a cheap test before
/// [`parse`]).
pub fn may_be_edited(quote: &str) -> bool {
    quote.contains(['[', '…']) || quote.contains("...") || quote.contains(". . .")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_ellipsis_form_splits() {
        for q in [
            "one two ... three four",
            "one two … three four",
            "one two . . . three four",
            "one two [...] three four",
            "one two […] three four",
            "one two (...) three four",
            "one two.... three four",
        ] {
            let e = parse(q).unwrap();
            assert_eq!(e.segments.len(), 2, "{q}");
            assert_eq!(e.segments[0].literals, ["one two"], "{q}");
            assert!(e.elision && !e.insertion && !e.sic, "{q}");
        }
    }

    #[test]
    fn leading_and_trailing_ellipses_only_mark_a_partial_quote() {
        let e = parse("...she never said so…").unwrap();
        assert_eq!(e.segments.len(), 1);
        assert_eq!(e.segments[0].literals, ["she never said so"]);
        assert!(e.elision);
    }

    #[test]
    fn insertions_and_sic() {
        let e = parse("[The council] never recieved [sic] it").unwrap();
        assert_eq!(e.segments.len(), 1);
        // A leading insertion bridges nothing (no literal before it).
        assert_eq!(e.segments[0].literals, ["never recieved it"]);
        assert_eq!(e.segments[0].bridged, [false]);
        assert!(e.insertion && e.sic && !e.elision);
        let e = parse("we gave [them] the keys [SIC!]").unwrap();
        assert_eq!(e.segments[0].literals, ["we gave", "the keys"]);
        assert_eq!(e.segments[0].bridged, [false, true]);
        assert!(e.sic);
        assert!(parse("an [unclosed bracket").is_none());
        assert!(parse("[]").is_none());
    }
}
