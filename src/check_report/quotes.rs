//! The quotes of a written report: text between double quotation marks
//! (`"…"`, `“…”`, `„…“`, `«…»`, `»…«`) and Markdown block quotes (`>`
//! lines), each with its place in the report and the cue that attributes
//! it (a parenthesis right after it, a dash line under a block quote, or a
//! name within three words before it in the same sentence). Code spans
//! and fenced code blocks are not prose: nothing in them is a quote.
//!
//! ```
//! use corpus_eval::check_report::quotes::{find, Cue};
//! let report = "Gwen said that “we never went back to the old house” (UK-210).\n\
//!               She felt “almost funny” about it.";
//! let quotes = find(report, 4, &|name: &str| name == "Gwen");
//! assert_eq!(quotes.len(), 1);
//! assert_eq!(quotes[0].text, "we never went back to the old house");
//! assert_eq!((quotes[0].line, quotes[0].column), (1, 17));
//! assert_eq!(quotes[0].cue, Some(Cue::Parenthesis("UK-210".into())));
//! ```

use std::ops::Range;

/// What attributes a quote, as written in the report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cue {
    /// `(P3)`, `(Gwen, UK-210, 00:12:31)` right after the quote: the text
    /// inside the parentheses.
    Parenthesis(String),
    /// `— Gwen` / `-- Gwen` under (or ending) a block quote: the text
    /// after the dash.
    Dash(String),
    /// A name at most three words before the quote in its sentence
    /// (`Gwen said that “…”`).
    Named(String),
}

impl Cue {
    /// The label as written.
    pub fn label(&self) -> &str {
        match self {
            Cue::Parenthesis(s) | Cue::Dash(s) | Cue::Named(s) => s,
        }
    }

    /// The cue's kind: `parenthesis`, `dash` or `name`.
    pub fn kind(&self) -> &'static str {
        match self {
            Cue::Parenthesis(_) => "parenthesis",
            Cue::Dash(_) => "dash",
            Cue::Named(_) => "name",
        }
    }
}

/// A quote found in a report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundQuote {
    /// The quoted text: inside the marks, trimmed, line breaks as spaces
    /// (a block quote's lines joined).
    pub text: String,
    /// 1-based line of its first character in the report.
    pub line: usize,
    /// 1-based column (in characters) of its first character.
    pub column: usize,
    /// Bytes of the report it occupies, marks (or `>` lines) included.
    pub bytes: Range<usize>,
    /// True for a Markdown block quote.
    pub block: bool,
    /// What attributes it, when something does.
    pub cue: Option<Cue>,
}

/// The quotes of `report` with at least `min_words` words, in report
/// order. `is_name` says whether one or two words name a speaker (a
/// label the caller can resolve); only such a name before a quote is a
/// [`Cue::Named`].
pub fn find(report: &str, min_words: usize, is_name: &dyn Fn(&str) -> bool) -> Vec<FoundQuote> {
    let lines = line_starts(report);
    let code = code_ranges(report);
    let blocks = block_quotes(report, &code);
    let mut out: Vec<FoundQuote> = Vec::new();
    for b in &blocks {
        if words(&b.text) >= min_words {
            let (line, column) = position(report, &lines, b.text_start);
            let cue = b.cue.clone().map(Cue::Dash).or_else(|| {
                // The line before the block: `Gwen described it:`.
                let before = &report[..b.bytes.start];
                let before = before.trim_end();
                let from = before.rfind('\n').map_or(0, |k| k + 1);
                let line = &before[from..];
                if line.ends_with(':') {
                    named(line, is_name).map(Cue::Named)
                } else {
                    None
                }
            });
            out.push(FoundQuote {
                text: b.text.clone(),
                line,
                column,
                bytes: b.bytes.clone(),
                block: true,
                cue,
            });
        }
    }
    // Inline quotes: in prose outside code and block quotes, a paragraph
    // at a time (a quote never spans a blank line).
    let mut skip: Vec<Range<usize>> = code.clone();
    skip.extend(blocks.iter().map(|b| b.bytes.clone()));
    skip.sort_by_key(|r| r.start);
    for para in paragraphs(report) {
        let mut sentence_from = para.start;
        for q in inline_in(report, para.clone(), &skip) {
            let inner = &report[q.inner.clone()];
            let text = collapse(inner);
            let lead = inner.len() - inner.trim_start().len();
            let starts = q.inner.start + lead;
            if words(&text) >= min_words && !text.is_empty() {
                let (line, column) = position(report, &lines, starts);
                let cue = parenthesis(&report[q.outer.end..para.end])
                    .map(Cue::Parenthesis)
                    .or_else(|| {
                        let before = sentence_before(&report[sentence_from..q.outer.start]);
                        named(before, is_name).map(Cue::Named)
                    });
                out.push(FoundQuote {
                    text,
                    line,
                    column,
                    bytes: q.outer.clone(),
                    block: false,
                    cue,
                });
            }
            sentence_from = q.outer.end;
        }
    }
    out.sort_by_key(|q| q.bytes.start);
    out
}

/// Byte offsets where each line starts.
fn line_starts(text: &str) -> Vec<usize> {
    std::iter::once(0)
        .chain(text.match_indices('\n').map(|(k, _)| k + 1))
        .collect()
}

/// The 1-based line and column (in characters) of a byte offset.
fn position(text: &str, lines: &[usize], at: usize) -> (usize, usize) {
    let line = lines.partition_point(|&s| s <= at).max(1);
    let start = lines[line - 1];
    (line, text[start..at].chars().count() + 1)
}

/// Words in a quote: runs of letters or digits.
fn words(text: &str) -> usize {
    text.split(|c: char| !c.is_alphanumeric() && c != '\'' && c != '’')
        .filter(|w| w.chars().any(char::is_alphanumeric))
        .count()
}

/// Whitespace runs (line breaks included) as one space, trimmed.
fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Fenced code blocks (``` or ~~~ lines to the closing fence, or the end)
/// and code spans (a run of backticks to the next run of the same
/// length in its paragraph).
fn code_ranges(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut fence: Option<(char, usize, usize)> = None;
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let t = line.trim_start_matches(' ');
        let indent = line.len() - t.len();
        let mark = t.chars().next().filter(|c| *c == '`' || *c == '~');
        let run = mark.map_or(0, |m| t.chars().take_while(|c| *c == m).count());
        match fence {
            None if indent <= 3 && run >= 3 => {
                fence = mark.map(|m| (m, run, at));
            }
            Some((m, n, start))
                if indent <= 3 && mark == Some(m) && run >= n && { t[run..].trim().is_empty() } =>
            {
                out.push(start..at + line.len());
                fence = None;
            }
            _ => {}
        }
        at += line.len();
    }
    if let Some((_, _, start)) = fence {
        out.push(start..text.len());
    }
    // Code spans, outside the blocks.
    for para in paragraphs(text) {
        let bytes = text.as_bytes();
        let mut k = para.start;
        while k < para.end {
            if bytes[k] != b'`' || out.iter().any(|r| r.contains(&k)) {
                k += 1;
                continue;
            }
            let n = bytes[k..para.end]
                .iter()
                .take_while(|b| **b == b'`')
                .count();
            let mut j = k + n;
            let mut closed = None;
            while j < para.end {
                if bytes[j] == b'`' {
                    let m = bytes[j..para.end]
                        .iter()
                        .take_while(|b| **b == b'`')
                        .count();
                    if m == n {
                        closed = Some(j + m);
                        break;
                    }
                    j += m;
                } else {
                    j += 1;
                }
            }
            match closed {
                Some(end) => {
                    out.push(k..end);
                    k = end;
                }
                None => k += n,
            }
        }
    }
    out.sort_by_key(|r| r.start);
    out
}

/// Paragraphs: byte ranges between blank lines.
fn paragraphs(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        if line.trim().is_empty() {
            if let Some(s) = start.take() {
                out.push(s..at);
            }
        } else if start.is_none() {
            start = Some(at);
        }
        at += line.len();
    }
    if let Some(s) = start {
        out.push(s..text.len());
    }
    out
}

/// A Markdown block quote: its lines, its text and a dash attribution.
struct Block {
    bytes: Range<usize>,
    text: String,
    text_start: usize,
    cue: Option<String>,
}

/// The content of a `>` line (up to three spaces, one or more `>`, an
/// optional space), with its byte offset in the line.
fn quoted_line(line: &str) -> Option<(usize, &str)> {
    let t = line.trim_start_matches(' ');
    if line.len() - t.len() > 3 || !t.starts_with('>') {
        return None;
    }
    let mut rest = t;
    while let Some(r) = rest.strip_prefix('>') {
        rest = r.strip_prefix(' ').unwrap_or(r);
    }
    Some((line.len() - rest.len(), rest))
}

/// `— Label`, `– Label`, `―Label` or `-- Label`: the label.
fn dash_label(line: &str) -> Option<String> {
    let t = line.trim();
    let rest = ["—", "–", "―", "--"]
        .iter()
        .find_map(|d| t.strip_prefix(d))?;
    let label = rest.trim_start_matches('-').trim();
    (!label.is_empty() && label.chars().count() <= 120).then(|| label.to_string())
}

fn block_quotes(text: &str, code: &[Range<usize>]) -> Vec<Block> {
    let mut out = Vec::new();
    let mut lines: Vec<(usize, &str)> = Vec::new();
    let mut at = 0;
    let mut current: Vec<(usize, usize, &str)> = Vec::new(); // (line start, content start, content)
    for line in text.split_inclusive('\n') {
        lines.push((at, line));
        at += line.len();
    }
    let in_code = |k: usize| code.iter().any(|r| r.contains(&k));
    let mut k = 0;
    while k <= lines.len() {
        let quoted = lines
            .get(k)
            .filter(|(s, _)| !in_code(*s))
            .and_then(|(s, l)| quoted_line(l.trim_end_matches(['\n', '\r'])).map(|q| (*s, q)));
        match quoted {
            Some((s, (off, content))) => current.push((s, s + off, content)),
            None if !current.is_empty() => {
                // The line after it, or after one blank line.
                let next = match lines.get(k) {
                    Some((_, l)) if l.trim().is_empty() => lines.get(k + 1),
                    other => other,
                }
                .copied();
                out.extend(block_of(std::mem::take(&mut current), next, text));
            }
            None => {}
        }
        k += 1;
    }
    out
}

/// A block quote from its lines; `next` is the line after it (a dash
/// attribution may stand there).
fn block_of(
    lines: Vec<(usize, usize, &str)>,
    next: Option<(usize, &str)>,
    text: &str,
) -> Option<Block> {
    let (first, last) = (lines.first()?, lines.last()?);
    let mut end = last.1 + last.2.len();
    let mut content: Vec<(usize, &str)> = lines.iter().map(|(_, c, t)| (*c, *t)).collect();
    // Trailing blank lines, then a final dash line, are not the quote.
    while content.last().is_some_and(|(_, t)| t.trim().is_empty()) {
        content.pop();
    }
    let mut cue = content.last().and_then(|(_, t)| dash_label(t));
    if cue.is_some() {
        content.pop();
    } else if let Some((at, line)) = next {
        if let Some(label) = dash_label(line) {
            cue = Some(label);
            end = at + line.trim_end_matches(['\n', '\r']).len();
        }
    }
    let (start_at, _) = *content.iter().find(|(_, t)| !t.trim().is_empty())?;
    let joined: Vec<&str> = content.iter().map(|(_, t)| *t).collect();
    let mut body = collapse(&joined.join(" "));
    let lead = text[start_at..].len() - text[start_at..].trim_start().len();
    let mut text_start = start_at + lead;
    // A parenthesis closing the block attributes it: `… (Gwen)`.
    if cue.is_none() {
        if let Some(open) = body.rfind(" (").filter(|_| body.ends_with(')')) {
            let label = body[open + 2..body.len() - 1].trim().to_string();
            if !label.is_empty() && !label.contains(['(', ')']) {
                body.truncate(open);
                cue = Some(label);
            }
        }
    }
    // The whole block in quotation marks: the marks are not the quote.
    if let Some(inner) = strip_marks(&body) {
        if text[text_start..].starts_with(|c: char| opening(c).is_some()) {
            text_start += text[text_start..].chars().next().map_or(0, char::len_utf8);
        }
        body = inner;
    }
    Some(Block {
        bytes: first.0..end,
        text: body,
        text_start,
        cue,
    })
}

/// A text wholly inside one pair of quotation marks (sentence punctuation
/// after the closing mark allowed): the inside.
fn strip_marks(text: &str) -> Option<String> {
    let mut chars = text.chars();
    let open = chars.next()?;
    let kind = opening(open)?;
    let body = &text[open.len_utf8()..];
    let trimmed = body.trim_end_matches(['.', ',', ';', ':', '!', '?']);
    let close = trimmed.chars().last()?;
    if !kind.closes(close) {
        return None;
    }
    let inner = &trimmed[..trimmed.len() - close.len_utf8()];
    // Not two quotes side by side: no other mark of the kind inside.
    if inner
        .chars()
        .any(|c| kind.closes(c) || opening(c) == Some(kind))
    {
        return None;
    }
    Some(inner.trim().to_string())
}

/// The kinds of double quotation marks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mark {
    /// `"…"`.
    Straight,
    /// `“…”` (and `”…”`, as Swedish writes it).
    Curly,
    /// `„…“` or `„…”`.
    Low,
    /// `«…»`.
    Guillemet,
    /// `»…«`.
    Reversed,
}

impl Mark {
    fn closes(self, c: char) -> bool {
        match self {
            Mark::Straight => c == '"',
            Mark::Curly => c == '”',
            Mark::Low => c == '“' || c == '”',
            Mark::Guillemet => c == '»',
            Mark::Reversed => c == '«',
        }
    }
}

/// The kind a character opens, when it opens one.
fn opening(c: char) -> Option<Mark> {
    match c {
        '"' => Some(Mark::Straight),
        '“' => Some(Mark::Curly),
        '„' => Some(Mark::Low),
        '«' => Some(Mark::Guillemet),
        '»' => Some(Mark::Reversed),
        _ => None,
    }
}

/// An inline quote: its marks and its inside.
struct Inline {
    outer: Range<usize>,
    inner: Range<usize>,
}

/// The quotes of one paragraph, outside the `skip` ranges (sorted).
fn inline_in(text: &str, para: Range<usize>, skip: &[Range<usize>]) -> Vec<Inline> {
    let mut out = Vec::new();
    let mut open: Option<(Mark, usize, usize)> = None;
    let mut k = para.start;
    let mut s = skip.partition_point(|r| r.end <= para.start);
    while k < para.end {
        if let Some(r) = skip.get(s).filter(|r| r.start <= k) {
            if k < r.end {
                // A quote does not run across code or a block quote.
                open = None;
                k = r.end;
            }
            s += 1;
            continue;
        }
        let Some(c) = text[k..].chars().next() else {
            break;
        };
        let next = k + c.len_utf8();
        match open {
            Some((mark, o, i)) if mark.closes(c) => {
                out.push(Inline {
                    outer: o..next,
                    inner: i..k,
                });
                open = None;
            }
            Some(_) => {}
            None => {
                if let Some(mark) = opening(c) {
                    // A straight mark opens before a word, not after one
                    // (`5" pipe` is not a quote).
                    let after = text[next..].chars().next();
                    let opens = match mark {
                        Mark::Straight => after.is_some_and(|a| !a.is_whitespace()),
                        _ => true,
                    };
                    if opens {
                        open = Some((mark, k, next));
                    }
                }
            }
        }
        k = next;
    }
    out
}

/// `(label)` right after a quote (spaces, or a line break, before it):
/// the label.
fn parenthesis(after: &str) -> Option<String> {
    let t = after.trim_start_matches([' ', '\t', '\u{a0}']);
    let t = t
        .strip_prefix('\n')
        .map(|r| r.trim_start_matches([' ', '\t']))
        .unwrap_or(t);
    let inside = t.strip_prefix('(')?;
    let close = inside.find(')')?;
    let label = collapse(&inside[..close]);
    (!label.is_empty() && label.chars().count() <= 120 && !label.contains('(')).then_some(label)
}

/// The part of `text` (what precedes a quote) in the quote's sentence.
fn sentence_before(text: &str) -> &str {
    let mut from = 0;
    for (k, c) in text.char_indices() {
        if matches!(c, '.' | '!' | '?') {
            let rest = &text[k + 1..];
            if rest.is_empty() || rest.starts_with(char::is_whitespace) {
                from = k + 1;
            }
        }
    }
    &text[from..]
}

/// A name within three words before a quote (`Gwen said that`, `Ana
/// Lopez recalled`), the nearest first: a word or two capitalized words
/// that `is_name` accepts.
fn named(before: &str, is_name: &dyn Fn(&str) -> bool) -> Option<String> {
    let tokens: Vec<&str> = before
        .split(|c: char| c.is_whitespace())
        .map(|w| {
            let w = w.trim_matches(|c: char| !c.is_alphanumeric() && c != '-' && c != '\'');
            // `Gwen's words: “…”`: the possessive is not the name.
            w.strip_suffix("'s")
                .or_else(|| w.strip_suffix("’s"))
                .unwrap_or(w)
                .trim_end_matches(['\'', '’'])
        })
        .filter(|w| !w.is_empty())
        .collect();
    let n = tokens.len();
    // A capitalized word of two or more letters: the pronoun `I` (also an
    // interviewer label) and initials are not names.
    let capital =
        |w: &str| w.chars().next().is_some_and(char::is_uppercase) && w.chars().count() >= 2;
    // The name ends at most three words before the quote.
    for end in (n.saturating_sub(4)..n).rev() {
        let w = tokens[end];
        if !capital(w) {
            continue;
        }
        if end > 0 && capital(tokens[end - 1]) {
            let two = format!("{} {w}", tokens[end - 1]);
            if is_name(&two) {
                return Some(two);
            }
        }
        if is_name(w) {
            return Some(w.to_string());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(n: &str) -> bool {
        ["Gwen", "Declan", "Ana Lopez", "P3"].contains(&n)
    }

    fn texts(report: &str) -> Vec<String> {
        find(report, 4, &names)
            .into_iter()
            .map(|q| q.text)
            .collect()
    }

    #[test]
    fn every_quotation_style() {
        let r = "a \"we left in the spring\" b “we sold the boat there” c „wir gingen alle fort“ \
                 d « on est partis au printemps » e »wir sind nie zurück« f „po wojnie nic nie było”";
        assert_eq!(
            texts(r),
            [
                "we left in the spring",
                "we sold the boat there",
                "wir gingen alle fort",
                "on est partis au printemps",
                "wir sind nie zurück",
                "po wojnie nic nie było"
            ]
        );
    }

    #[test]
    fn scare_quotes_code_and_unclosed_marks_are_not_quotes() {
        let r = "She felt “almost funny”.\n\nRun `grep \"we left in the spring\" t.txt` now.\n\n\
                 ```\nprint(\"we left in the spring again\")\n```\n\nAn “unclosed quote here\n\nnext para” ends.";
        assert!(texts(r).is_empty(), "{:?}", texts(r));
    }

    #[test]
    fn a_quote_may_wrap_lines_but_not_paragraphs() {
        let r = "He said “we left\nin the spring of 1987” then.";
        assert_eq!(texts(r), ["we left in the spring of 1987"]);
    }

    #[test]
    fn lines_and_columns_are_characters() {
        let r = "Überblick: ñandú “we left in the spring”\n\n— “and the cannery closed too”";
        let q = find(r, 4, &names);
        assert_eq!((q[0].line, q[0].column), (1, 19));
        assert_eq!((q[1].line, q[1].column), (3, 4));
    }

    #[test]
    fn cues_parenthesis_name_and_nearest_first() {
        let r = "Gwen said that “we never went back to the house” (P3, UK-210, 00:12:31). \
                 Declan recalled “the boats were all sold by then”. \
                 Declan and many others said “nobody talked about the closure”. \
                 It was “a hard winter for the whole town” in the end.";
        let q = find(r, 4, &names);
        let cues: Vec<Option<Cue>> = q.into_iter().map(|q| q.cue).collect();
        assert_eq!(
            cues,
            [
                Some(Cue::Parenthesis("P3, UK-210, 00:12:31".into())),
                Some(Cue::Named("Declan".into())),
                None,
                None
            ]
        );
        let two = find("Ana Lopez said: “we left in the spring”", 4, &names);
        assert_eq!(two[0].cue, Some(Cue::Named("Ana Lopez".into())));
        let possessive = find("In Gwen's words: “we left in the spring”", 4, &names);
        assert_eq!(possessive[0].cue, Some(Cue::Named("Gwen".into())));
        let pronoun = find("I was told “we left in the spring”", 4, &|n: &str| {
            n == "I"
        });
        assert_eq!(pronoun[0].cue, None);
    }

    #[test]
    fn block_quotes_with_dash_lines() {
        let r = "Intro.\n\n> We left in the spring of 1987,\n> after the cannery closed.\n> — Ana Lopez\n\n\
                 Then:\n\n> “There was no money and no work.”\n\n-- Gwen, UK-210\n\n> short one\n";
        let q = find(r, 4, &names);
        assert_eq!(q.len(), 2);
        assert_eq!(
            q[0].text,
            "We left in the spring of 1987, after the cannery closed."
        );
        assert_eq!(q[0].cue, Some(Cue::Dash("Ana Lopez".into())));
        assert_eq!((q[0].line, q[0].column), (3, 3));
        assert!(q[0].block);
        assert_eq!(q[1].text, "There was no money and no work.");
        assert_eq!(q[1].cue, Some(Cue::Dash("Gwen, UK-210".into())));
        assert_eq!((q[1].line, q[1].column), (9, 4));
        assert!(r[q[1].bytes.clone()].ends_with("-- Gwen, UK-210"));
    }

    #[test]
    fn a_block_quote_is_not_searched_for_inline_quotes_and_a_name_before_it_counts() {
        let r = "Gwen described it:\n> She told me “we never went back to that house” and left.\n";
        let q = find(r, 4, &names);
        assert_eq!(q.len(), 1);
        assert!(q[0].block);
        assert_eq!(q[0].cue, Some(Cue::Named("Gwen".into())));
    }

    #[test]
    fn empty_and_quoteless_reports() {
        assert!(find("", 4, &names).is_empty());
        assert!(find("No quotes at all.\n", 4, &names).is_empty());
        assert!(find("a 5\" pipe and a 3\" one", 1, &names).is_empty());
    }
}
