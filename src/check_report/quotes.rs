//! The quotes of a written report: text between double quotation marks
//! (`"…"`, `“…”`, `„…“`, `«…»`, `»…«`) and Markdown block quotes (`>`
//! lines), each with its place in the report and the cue that attributes
//! it (a parenthesis right after it, a dash line under a block quote, or a
//! name within three words before it in the same sentence). Code spans
//! and fenced code blocks are not prose: nothing in them is a quote.
//!
//! ```
//! use corpus_eval::check_report::{find, Cue};
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
#[derive(Debug, Clone, PartialEq)]
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
    /// Where the citation says it stands: a time or lines in the
    /// parenthesis (`(P3, 00:12:31)`, `(P3 12:31)`, `(P3, ll. 45-47)`) or
    /// a time in brackets right after the quote (`[12:31]`).
    pub place: Option<crate::corpus::CitedPlace>,
}

/// How a report is read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// Quotes with fewer words are skipped (scare quotes).
    pub min_words: usize,
    /// Markdown: indented code blocks, inline HTML tags and link
    /// destinations are not prose either (plain text keeps them).
    pub markdown: bool,
    /// Every line is a paragraph of its own (a Word document's
    /// paragraphs, one per line), rather than text between blank lines.
    pub line_paragraphs: bool,
    /// Lines (0-based, ascending) that are block quotes as a whole, as `>`
    /// lines are: a Word document's paragraphs set in a quotation style
    /// (`Quote`, `Intense Quote`).
    pub quote_lines: Vec<usize>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            min_words: 4,
            markdown: true,
            line_paragraphs: false,
            quote_lines: Vec::new(),
        }
    }
}

/// The quotes of a Markdown `report` with at least `min_words` words, in
/// report order ([`find_with`] with the other options at their defaults).
pub fn find(report: &str, min_words: usize, is_name: &dyn Fn(&str) -> bool) -> Vec<FoundQuote> {
    find_with(
        report,
        &Options {
            min_words,
            ..Options::default()
        },
        is_name,
    )
}

/// The quotes of `report`, in report order. `is_name` says whether one or
/// two words name a speaker (a label the caller can resolve); only such a
/// name before a quote is a [`Cue::Named`].
pub fn find_with(
    report: &str,
    options: &Options,
    is_name: &dyn Fn(&str) -> bool,
) -> Vec<FoundQuote> {
    let min_words = options.min_words;
    let mut positions = Positions::new(report);
    let paras = paragraphs(report, options.line_paragraphs);
    let code = code_ranges(report, &paras, options.markdown);
    let blocks = block_quotes(report, &code, &options.quote_lines);
    let mut out: Vec<FoundQuote> = Vec::new();
    for b in &blocks {
        if words(&b.text) >= min_words {
            let (line, column) = positions.of(b.text_start);
            let cue = b.cue.clone().or_else(|| {
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
            let place = cue.as_ref().and_then(|c| match c {
                Cue::Parenthesis(label) | Cue::Dash(label) => place_in(label),
                Cue::Named(_) => None,
            });
            out.push(FoundQuote {
                text: b.text.clone(),
                line,
                column,
                bytes: b.bytes.clone(),
                block: true,
                cue,
                place,
            });
        }
    }
    // Inline quotes: in prose outside code and block quotes, a paragraph
    // at a time (a quote never spans a blank line).
    let mut skip: Vec<Range<usize>> = code.clone();
    skip.extend(blocks.iter().map(|b| b.bytes.clone()));
    skip.sort_by_key(|r| r.start);
    for para in paras {
        let mut sentence_from = para.start;
        for q in inline_in(report, para.clone(), &skip) {
            let inner = &report[q.inner.clone()];
            let text = collapse(inner);
            let lead = inner.len() - inner.trim_start().len();
            let starts = q.inner.start + lead;
            let after = &report[q.outer.end..para.end];
            // `[12:31]` right after the quote, a parenthesis after it.
            let bracket = bracket_time(after);
            let skipped = bracket.map_or(0, |(_, end)| end);
            let paren = parenthesis(&after[skipped..]).map(|(label, end)| (label, end + skipped));
            let place = bracket
                .map(|(t, _)| crate::corpus::CitedPlace::Time(t))
                .or_else(|| paren.as_ref().and_then(|(label, _)| place_in(label)));
            if words(&text) >= min_words && !text.is_empty() {
                let (line, column) = positions.of(starts);
                let cue = paren
                    .clone()
                    .map(|(label, _)| Cue::Parenthesis(label))
                    .or_else(|| {
                        // A quote inside the citation of the one before
                        // (`“…” (“…”)`) starts before that citation ends.
                        let from = sentence_from.min(q.outer.start);
                        let before = sentence_before(&report[from..q.outer.start]);
                        named(before, is_name).map(Cue::Named)
                    })
                    .or_else(|| named_after(after, is_name).map(Cue::Named));
                out.push(FoundQuote {
                    text,
                    line,
                    column,
                    bytes: q.outer.clone(),
                    block: false,
                    cue,
                    place,
                });
            }
            // A citation belongs to the quote it follows: the next quote's
            // sentence starts after it (`“…” (P1) and “…”` does not give
            // the second quote the cue `P1`).
            sentence_from = q.outer.end + paren.map_or(skipped, |(_, end)| end);
        }
    }
    out.sort_by_key(|q| q.bytes.start);
    out
}

/// True when sorted, disjoint `ranges` hold `at`.
fn inside(ranges: &[Range<usize>], at: usize) -> bool {
    let k = ranges.partition_point(|r| r.end <= at);
    ranges.get(k).is_some_and(|r| r.start <= at)
}

/// Byte offsets where each line starts.
fn line_starts(text: &str) -> Vec<usize> {
    std::iter::once(0)
        .chain(text.match_indices('\n').map(|(k, _)| k + 1))
        .collect()
}

/// 1-based lines and columns (in characters) of byte offsets, the
/// columns counted on from the last offset asked for when it lies earlier
/// on the same line (offsets asked for in order cost one pass over a
/// line, however long it is and however many quotes it holds).
struct Positions<'t> {
    text: &'t str,
    lines: Vec<usize>,
    /// The last offset asked for: (offset, line, column).
    last: (usize, usize, usize),
}

impl<'t> Positions<'t> {
    fn new(text: &'t str) -> Positions<'t> {
        Positions {
            text,
            lines: line_starts(text),
            last: (0, 1, 1),
        }
    }

    /// The 1-based line and column of a byte offset.
    fn of(&mut self, at: usize) -> (usize, usize) {
        let line = self.lines.partition_point(|&s| s <= at).max(1);
        let (from, column) = match self.last {
            (last, l, c) if l == line && last <= at => (last, c),
            _ => (self.lines[line - 1], 1),
        };
        let column = column + self.text[from..at].chars().count();
        self.last = (at, line, column);
        (line, column)
    }
}

/// A Han ideograph or a kana: written without spaces, each counts as a
/// word.
fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x20000..=0x2FFFF)
}

/// Words in a quote: runs of letters or digits; each CJK ideograph or
/// kana one.
fn words(text: &str) -> usize {
    let cjk = text.chars().filter(|c| is_cjk(*c)).count();
    cjk + text
        .split(|c: char| (!c.is_alphanumeric() && c != '\'' && c != '’') || is_cjk(c))
        .filter(|w| w.chars().any(char::is_alphanumeric))
        .count()
}

/// Whitespace runs (line breaks included) as one space, trimmed.
fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// What is not prose: fenced code blocks (``` or ~~~ lines to the
/// closing fence, or the end) and code spans (a run of backticks to the
/// next run of the same length in its paragraph); in Markdown also
/// indented code blocks (a paragraph whose every line is indented by four
/// spaces or a tab, not a list item), inline HTML tags and link
/// destinations (`](url "title")`). Sorted and disjoint.
fn code_ranges(text: &str, paras: &[Range<usize>], markdown: bool) -> Vec<Range<usize>> {
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
    let fenced = out.clone();
    if markdown {
        for para in paras {
            if inside(&fenced, para.start) {
                continue;
            }
            let body = &text[para.clone()];
            let indented = body.lines().all(|l| {
                let t = l.trim_start_matches([' ', '\t']);
                (l.starts_with("    ") || l.starts_with('\t'))
                    && !t.starts_with(['-', '*', '+', '>'])
                    && !t.split_once(['.', ')']).is_some_and(|(n, _)| {
                        !n.is_empty() && n.len() <= 3 && n.bytes().all(|b| b.is_ascii_digit())
                    })
            });
            if indented {
                out.push(para.clone());
            }
        }
        out.sort_by_key(|r| r.start);
    }
    let blocks = out.clone();
    let bytes = text.as_bytes();
    for para in paras {
        // What a failed search found missing from here to the paragraph's
        // end (later searches would fail too): backtick runs by length, a
        // `>`, a `)`. Each byte is then looked at a bounded number of times.
        let mut no_run_of: std::collections::HashSet<usize> = Default::default();
        let (mut no_gt, mut no_paren) = (false, false);
        let mut k = para.start;
        while k < para.end {
            if inside(&blocks, k) {
                k += 1;
                continue;
            }
            match bytes[k] {
                b'`' => {
                    let n = bytes[k..para.end]
                        .iter()
                        .take_while(|b| **b == b'`')
                        .count();
                    let mut j = k + n;
                    let mut closed = None;
                    while !no_run_of.contains(&n) && j < para.end {
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
                        None => {
                            no_run_of.insert(n);
                            k += n;
                        }
                    }
                }
                // `<tag ...>`, `</tag>`, `<!-- ... -->`.
                b'<' if markdown
                    && !no_gt
                    && bytes
                        .get(k + 1)
                        .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'/' || *b == b'!') =>
                {
                    match memchr::memchr(b'>', &bytes[k..para.end]) {
                        Some(e) => {
                            out.push(k..k + e + 1);
                            k += e + 1;
                        }
                        None => {
                            no_gt = true;
                            k += 1;
                        }
                    }
                }
                // A link's destination and title: `](` to its `)`.
                b']' if markdown && !no_paren && bytes.get(k + 1) == Some(&b'(') => {
                    match memchr::memchr(b')', &bytes[k..para.end]) {
                        Some(e) => {
                            out.push(k..k + e + 1);
                            k += e + 1;
                        }
                        None => {
                            no_paren = true;
                            k += 1;
                        }
                    }
                }
                _ => k += 1,
            }
        }
    }
    out.sort_by_key(|r| r.start);
    // Disjoint: a range inside another is dropped.
    let mut merged: Vec<Range<usize>> = Vec::with_capacity(out.len());
    for r in out {
        match merged.last_mut() {
            Some(last) if r.start < last.end => last.end = last.end.max(r.end),
            _ => merged.push(r),
        }
    }
    merged
}

/// Paragraphs: byte ranges between blank lines (a `#` heading line is
/// one of its own), or every line when `per_line`.
fn paragraphs(text: &str, per_line: bool) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let blank = line.trim().is_empty();
        let alone = per_line || line.trim_start().starts_with('#');
        if blank || alone {
            if let Some(s) = start.take() {
                out.push(s..at);
            }
            if !blank {
                out.push(at..at + line.len());
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
    cue: Option<Cue>,
}

/// The content of a `>` line (up to three spaces, one or more `>`, an
/// optional space), with its byte offset in the line and its depth (the
/// number of `>`).
fn quoted_line(line: &str) -> Option<(usize, &str, usize)> {
    let t = line.trim_start_matches(' ');
    if line.len() - t.len() > 3 || !t.starts_with('>') {
        return None;
    }
    let mut rest = t;
    let mut depth = 0;
    while let Some(r) = rest.strip_prefix('>') {
        rest = r.strip_prefix(' ').unwrap_or(r);
        depth += 1;
    }
    Some((line.len() - rest.len(), rest, depth))
}

/// `— Label`, `– Label`, `―Label` or `-- Label`: the label. A label is
/// short (at most ten words), starts with a capital or a digit and holds
/// no quotation mark: a sentence that opens with a dash is prose.
fn dash_label(line: &str) -> Option<String> {
    let t = line.trim();
    let rest = ["—", "–", "―", "--"]
        .iter()
        .find_map(|d| t.strip_prefix(d))?;
    let label = rest.trim_start_matches('-').trim();
    let first = label.chars().next()?;
    let ok = (first.is_uppercase() || first.is_ascii_digit())
        && label.split_whitespace().count() <= 10
        && !label.contains(['"', '“', '”', '„', '«', '»']);
    ok.then(|| label.to_string())
}

fn block_quotes(text: &str, code: &[Range<usize>], quote_lines: &[usize]) -> Vec<Block> {
    let mut out = Vec::new();
    let mut lines: Vec<(usize, &str)> = Vec::new();
    let mut at = 0;
    // (line start, content start, content, depth)
    let mut current: Vec<(usize, usize, &str, usize)> = Vec::new();
    for line in text.split_inclusive('\n') {
        lines.push((at, line));
        at += line.len();
    }
    let in_code = |k: usize| inside(code, k);
    let mut k = 0;
    while k <= lines.len() {
        let styled = quote_lines.binary_search(&k).is_ok();
        let quoted = lines
            .get(k)
            .filter(|(s, _)| !in_code(*s))
            .and_then(|(s, l)| {
                let l = l.trim_end_matches(['\n', '\r']);
                if styled {
                    // The whole paragraph is quoted, no `>` in it.
                    Some((*s, (0, l, 1)))
                } else {
                    quoted_line(l).map(|q| (*s, q))
                }
            });
        match quoted {
            Some((s, (off, content, depth))) => current.push((s, s + off, content, depth)),
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
    lines: Vec<(usize, usize, &str, usize)>,
    next: Option<(usize, &str)>,
    text: &str,
) -> Option<Block> {
    let (first, last) = (lines.first()?, lines.last()?);
    let mut end = last.1 + last.2.len();
    // A quote inside the quote (`>>`, a reply's quoted text) is not its
    // text.
    let depth = first.3;
    let mut content: Vec<(usize, &str)> = lines
        .iter()
        .filter(|l| l.3 <= depth)
        .map(|(_, c, t, _)| (*c, *t))
        .collect();
    // Trailing blank lines, then a final dash line, are not the quote.
    while content.last().is_some_and(|(_, t)| t.trim().is_empty()) {
        content.pop();
    }
    let mut cue = content
        .last()
        .and_then(|(_, t)| dash_label(t))
        .map(Cue::Dash);
    if cue.is_some() {
        content.pop();
    } else if let Some((at, line)) = next {
        if let Some(label) = dash_label(line) {
            cue = Some(Cue::Dash(label));
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
            if let Some(label) = paren_label(&body[open + 2..body.len() - 1]) {
                body.truncate(open);
                cue = Some(Cue::Parenthesis(label));
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

/// Whether the mark at `k` (of kind `mark`, `c`) may open a quote: a
/// straight or reversed mark opens before a word and not right after a
/// letter or digit (`2"x4"`, `5"pipe` and `File » Export` are no quotes).
fn may_open(text: &str, k: usize, mark: Mark, c: char) -> bool {
    let after = text[k + c.len_utf8()..].chars().next();
    let before = text[..k].chars().next_back();
    match mark {
        Mark::Straight | Mark::Reversed => {
            after.is_some_and(|a| !a.is_whitespace())
                && !before.is_some_and(|b| b.is_alphanumeric())
        }
        _ => true,
    }
}

/// Whether a straight mark at `k` may close a quote: not right before a
/// letter or digit.
fn may_close(text: &str, k: usize, mark: Mark, c: char) -> bool {
    mark != Mark::Straight
        || !text[k + c.len_utf8()..]
            .chars()
            .next()
            .is_some_and(|a| a.is_alphanumeric())
}

/// The quotes of one paragraph, outside the `skip` ranges (sorted). A mark
/// that is never closed in its paragraph opens nothing: the search goes on
/// right after it. Curly marks and guillemets nest (`“he said “go” and
/// left”` is one quote).
fn inline_in(text: &str, para: Range<usize>, skip: &[Range<usize>]) -> Vec<Inline> {
    let mut out = Vec::new();
    // The stretch between skipped ranges that `k` lies in, and its
    // closers, found once per stretch and mark kind.
    let mut closers = Closers::default();
    let mut k = para.start;
    while k < para.end {
        if inside(skip, k) {
            let s = skip.partition_point(|r| r.end <= k);
            k = skip.get(s).map_or(k + 1, |r| r.end);
            continue;
        }
        let Some(c) = text[k..].chars().next() else {
            break;
        };
        let next = k + c.len_utf8();
        if let Some(mark) = opening(c).filter(|m| may_open(text, k, *m, c)) {
            // A quote does not run across code or a block quote.
            let s = skip.partition_point(|r| r.end <= k);
            let stretch_end = skip.get(s).map_or(para.end, |r| r.start.min(para.end));
            if let Some(close) = closers.close(text, next..stretch_end, mark) {
                let after = close + text[close..].chars().next().map_or(1, char::len_utf8);
                out.push(Inline {
                    outer: k..after,
                    inner: next..close,
                });
                k = after;
                continue;
            }
            // Unclosed: it opens nothing; the search goes on after it.
        }
        k = next;
    }
    out
}

/// The closing marks of one stretch of text (between skipped ranges),
/// per mark kind: each kind's openers (+1, for the kinds that nest) and
/// closers (-1) in order, with the running sum after each, so that the
/// mark closing an opener is found by a binary search, not a scan to the
/// paragraph's end: finding every quote is O(n log n) in the report's
/// length, whatever marks are left open (a paragraph of unclosed `"` was
/// quadratic).
#[derive(Default)]
struct Closers {
    /// The stretch the tables are of.
    stretch: Range<usize>,
    /// Per kind (`Mark as usize`): its events and their index.
    kinds: [Option<Events>; 5],
}

/// One kind's events in a stretch.
struct Events {
    /// Byte offsets of the events, ascending.
    at: Vec<usize>,
    /// `sum[i]`: the running sum before event `i` (`sum[at.len()]` after
    /// the last).
    sum: Vec<i64>,
    /// For each running-sum value, the indices `i >= 1` where `sum[i]`
    /// takes it, ascending.
    by_sum: std::collections::HashMap<i64, Vec<usize>>,
}

impl Closers {
    /// Where the quote whose inside starts at `from.start` (of kind `mark`)
    /// closes before `from.end`, if it does.
    fn close(&mut self, text: &str, from: Range<usize>, mark: Mark) -> Option<usize> {
        if self.stretch.end != from.end || self.stretch.start > from.start {
            *self = Closers {
                stretch: from.clone(),
                ..Closers::default()
            };
        }
        let stretch = self.stretch.clone();
        let events =
            self.kinds[mark as usize].get_or_insert_with(|| Events::of(text, stretch, mark));
        // The first event at or after `from.start`, and the first index
        // after it where the running sum drops one below its value there.
        let first = events.at.partition_point(|&a| a < from.start);
        let target = events.sum[first] - 1;
        let list = events.by_sum.get(&target)?;
        let j = list[list.partition_point(|&i| i <= first)..].first()?;
        Some(events.at[j - 1])
    }
}

impl Events {
    fn of(text: &str, stretch: Range<usize>, mark: Mark) -> Events {
        let mut at = Vec::new();
        let mut sum = vec![0i64];
        let mut by_sum: std::collections::HashMap<i64, Vec<usize>> = Default::default();
        for (k, c) in text[stretch.clone()].char_indices() {
            let k = k + stretch.start;
            let delta = if mark.closes(c) && may_close(text, k, mark, c) {
                -1
            } else if opening(c) == Some(mark) && mark != Mark::Straight {
                1
            } else {
                continue;
            };
            at.push(k);
            let s = sum[sum.len() - 1] + delta;
            sum.push(s);
            by_sum.entry(s).or_default().push(sum.len() - 1);
        }
        Events { at, sum, by_sum }
    }
}

/// `[12:31]` right after a quote (spaces before it): the time and the
/// bytes of `after` up to the `]`.
fn bracket_time(after: &str) -> Option<(f64, usize)> {
    let t = after.trim_start_matches([' ', '\t', '\u{a0}']);
    let inside = t.strip_prefix('[')?;
    let close = inside.char_indices().take(16).find(|(_, c)| *c == ']')?.0;
    let time = crate::corpus::CitedPlace::parse_time(&inside[..close])?;
    Some((time, after.len() - inside.len() + close + 1))
}

/// The place a citation's label names: a part (between `,` or `;`) that
/// is a time or lines, or a time ending a part (`P3 12:31`).
pub(crate) fn place_in(label: &str) -> Option<crate::corpus::CitedPlace> {
    use crate::corpus::CitedPlace;
    label.split([',', ';']).find_map(|part| {
        CitedPlace::parse(part).or_else(|| {
            let last = part.split_whitespace().last()?;
            CitedPlace::parse_time(last).map(CitedPlace::Time)
        })
    })
}

/// `(label)` right after a quote (spaces, or a line break, before it):
/// the label.
fn parenthesis(after: &str) -> Option<(String, usize)> {
    let t = after.trim_start_matches([' ', '\t', '\u{a0}']);
    let t = t
        .strip_prefix("\r\n")
        .or_else(|| t.strip_prefix('\n'))
        .map(|r| r.trim_start_matches([' ', '\t']))
        .unwrap_or(t);
    let inside = t.strip_prefix('(')?;
    // A label is at most 120 characters: the `)` is looked for that far
    // only (a report of unclosed parentheses is not scanned to its end
    // once per quote).
    let close = inside
        .char_indices()
        .take(2048)
        .find(|(_, c)| *c == ')')
        .map(|(k, _)| k)?;
    let end = after.len() - inside.len() + close + 1;
    paren_label(&inside[..close]).map(|label| (label, end))
}

/// The label inside a parenthesis, when it is one: not empty, at most 120
/// characters, not opening with a lower-case letter (`(laughs)`,
/// `(emphasis added)`, `(p. 12)` are no attributions).
fn paren_label(inside: &str) -> Option<String> {
    let label = collapse(inside);
    let first = label.chars().next()?;
    (!first.is_lowercase() && label.chars().count() <= 120 && !label.contains(['(', ')']))
        .then_some(label)
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

/// A word without the punctuation around it (inner `-` and `'` kept).
fn bare(w: &str) -> &str {
    w.trim_matches(|c: char| !c.is_alphanumeric() && c != '-' && c != '\'')
}

/// A capitalized word of two or more letters, as a name is written: the
/// pronoun `I` (also an interviewer label) and initials are not names.
fn capital(w: &str) -> bool {
    w.chars().next().is_some_and(char::is_uppercase) && w.chars().count() >= 2
}

/// A name within three words before a quote (`Gwen said that`, `Ana
/// Lopez recalled`), the nearest first: a word or two capitalized words
/// that `is_name` accepts.
fn named(before: &str, is_name: &dyn Fn(&str) -> bool) -> Option<String> {
    let tokens: Vec<&str> = before
        .split(|c: char| c.is_whitespace())
        .map(|w| {
            let w = bare(w);
            // `Gwen's words: “…”`: the possessive is not the name.
            w.strip_suffix("'s")
                .or_else(|| w.strip_suffix("’s"))
                .unwrap_or(w)
                .trim_end_matches(['\'', '’'])
        })
        .filter(|w| !w.is_empty())
        .collect();
    let n = tokens.len();
    // The name ends at most three words before the quote; a capitalized
    // word followed by another is part of a longer name (`Dr Jones`), not
    // a name of its own.
    for end in (n.saturating_sub(4)..n).rev() {
        let w = tokens[end];
        if !capital(w) || tokens.get(end + 1).is_some_and(|x| capital(x)) {
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

/// A name in a short clause that ends the quote's sentence right after
/// it (`“…,” Gwen said.`, `“…” said Declan.`): at most three words up to
/// the sentence's end, one of them (or two) a name `is_name` accepts.
fn named_after(after: &str, is_name: &dyn Fn(&str) -> bool) -> Option<String> {
    let end = after
        .find(['.', '!', '?', ';', ':', '\n', '(', '"', '“', '„', '«', '»'])
        .unwrap_or(after.len());
    let clause = after[..end].trim_start_matches([',', ' ', '\t']);
    let tokens: Vec<&str> = clause
        .split_whitespace()
        .map(bare)
        .filter(|w| !w.is_empty())
        .collect();
    if tokens.is_empty() || tokens.len() > 3 {
        return None;
    }
    for k in 0..tokens.len() {
        if !capital(tokens[k]) {
            continue;
        }
        if let Some(next) = tokens.get(k + 1).filter(|n| capital(n)) {
            let two = format!("{} {next}", tokens[k]);
            if is_name(&two) {
                return Some(two);
            }
            continue;
        }
        if is_name(tokens[k]) {
            return Some(tokens[k].to_string());
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
    fn issue_57_the_cited_place() {
        use crate::corpus::CitedPlace::{Lines, Time};
        let place = |report: &str| {
            let q = find(report, 4, &names);
            (q[0].cue.clone(), q[0].place)
        };
        assert_eq!(
            place("She said “we went back there after all” (P3, 00:12:31)."),
            (
                Some(Cue::Parenthesis("P3, 00:12:31".into())),
                Some(Time(751.0))
            )
        );
        assert_eq!(
            place("She said “we went back there after all” (P3 12:31)."),
            (Some(Cue::Parenthesis("P3 12:31".into())), Some(Time(751.0)))
        );
        assert_eq!(
            place("She said “we went back there after all” (Gwen, 1:02:03)."),
            (
                Some(Cue::Parenthesis("Gwen, 1:02:03".into())),
                Some(Time(3723.0))
            )
        );
        assert_eq!(
            place("“we went back there after all” [12:31] (P3)."),
            (Some(Cue::Parenthesis("P3".into())), Some(Time(751.0)))
        );
        assert_eq!(
            place("“we went back there after all” [12:31].").1,
            Some(Time(751.0))
        );
        assert_eq!(
            place("“we went back there after all” (P3, ll. 45-47).").1,
            Some(Lines(45, 47))
        );
        assert_eq!(
            place("“we went back there after all” (P3, l. 45).").1,
            Some(Lines(45, 45))
        );
        // No place: a label alone, a page, a bracketed word.
        assert_eq!(place("“we went back there after all” (P3).").1, None);
        assert_eq!(place("“we went back there after all” [sic] (P3).").1, None);
        // A block quote's dash cue.
        let q = find(
            "> we went back there after all\n> — Gwen, 00:00:06\n",
            4,
            &names,
        );
        assert_eq!(q[0].place, Some(Time(6.0)));
    }

    #[test]
    fn issue_53_a_quote_inside_a_citation_is_no_panic() {
        for r in [
            "She said \"we left in the spring\" (\"the boat was sold to him\") then.",
            "“we left in the spring of that year” (P3 said “the boat was sold to him”)",
        ] {
            let q = find(r, 3, &names);
            assert!(!q.is_empty(), "{r}");
        }
    }

    #[test]
    fn issue_53_18_a_citation_belongs_to_the_quote_it_follows() {
        let r = "She said “we left in the spring of that year” (P3) and “the boat was sold to a cousin” was next.";
        let q = find(r, 4, &names);
        assert_eq!(q.len(), 2);
        assert_eq!(q[0].cue, Some(Cue::Parenthesis("P3".into())));
        assert_eq!(q[1].cue, None);
        // A scare quote's citation is its own too.
        let r = "A “short one” (P3) then “the boat was sold to a cousin” was next.";
        let q = find(r, 4, &names);
        assert_eq!((q.len(), q[0].cue.clone()), (1, None));
        // A name before the second quote still names it.
        let r = "“we left in the spring of that year” (P3) and Gwen said “the boat was sold to a cousin”.";
        let q = find(r, 4, &names);
        assert_eq!(q[1].cue, Some(Cue::Named("Gwen".into())));
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
    fn stray_marks_open_nothing_and_curly_marks_nest() {
        let r = "The 2\"x4\" boards, 5\"diameter pipes. Gwen said \"we never went back to the old house\" (P3).";
        let q = find(r, 4, &names);
        assert_eq!(q.len(), 1, "{q:?}");
        assert_eq!(q[0].text, "we never went back to the old house");
        assert_eq!(q[0].cue, Some(Cue::Parenthesis("P3".into())));
        let r =
            "Go to File » Export » Save as. Then Declan recalled “the boats were all sold” (P3).";
        assert_eq!(texts(r), ["the boats were all sold"]);
        let r =
            "Text with \"unbalanced mark and then Declan recalled “the boats were all sold” (P3).";
        assert_eq!(texts(r), ["the boats were all sold"]);
        let r = "“He said “go away now please” and then left the room” (P3)";
        assert_eq!(
            texts(r),
            ["He said “go away now please” and then left the room"]
        );
    }

    #[test]
    fn markdown_markup_is_not_prose_but_plain_text_keeps_it() {
        let r = "Intro.\n\n    print(\"we left in the spring of 1987\")\n\n\
                 See [our page](https://x.org \"Our project page about the coast\") and \
                 <img alt=\"the empty harbour in the winter fog\">.\n\n\
                 - item \"we left in the spring of 1987\"\n";
        assert_eq!(texts(r), ["we left in the spring of 1987"]);
        let plain = Options {
            markdown: false,
            ..Options::default()
        };
        let q = find_with(r, &plain, &names);
        assert_eq!(q.len(), 4);
    }

    #[test]
    fn word_paragraphs_end_at_each_line_and_crlf_parentheses() {
        let r = "A heading with an unclosed “mark here\nDeclan recalled “the boats were all sold” (P3).";
        let per_line = Options {
            line_paragraphs: true,
            ..Options::default()
        };
        let q = find_with(r, &per_line, &names);
        assert_eq!(q.len(), 1);
        assert_eq!(q[0].text, "the boats were all sold");
        assert_eq!(q[0].cue, Some(Cue::Parenthesis("P3".into())));
        let q = find(
            "Declan recalled “the boats were all sold”\r\n(P3).",
            4,
            &names,
        );
        assert_eq!(q[0].cue, Some(Cue::Parenthesis("P3".into())));
        // Lower-case parentheses are no attributions.
        let q = find(
            "Declan recalled “the boats were all sold” (laughs).",
            4,
            &names,
        );
        assert_eq!(q[0].cue, Some(Cue::Named("Declan".into())));
    }

    #[test]
    fn dash_lines_are_short_labels_and_nested_replies_are_not_the_quote() {
        let r = "> We never went back to the old house.\n\n— and yet Declan recalled “the boats were all sold” (P3).\n";
        let q = find(r, 4, &names);
        assert_eq!(q.len(), 2, "{q:?}");
        assert_eq!(q[0].cue, None);
        assert_eq!(q[1].text, "the boats were all sold");
        let r = "> We never went back to the old house\n>> an earlier reply quoted here\n> after the strike (P3)\n";
        let q = find(r, 4, &names);
        assert_eq!(
            q[0].text,
            "We never went back to the old house after the strike"
        );
        assert_eq!(q[0].cue, Some(Cue::Parenthesis("P3".into())));
    }

    #[test]
    fn cjk_characters_count_as_words() {
        assert_eq!(words("我们再也没有回到那座老房子"), 13);
        assert_eq!(words("we left 我们"), 4);
        assert_eq!(
            texts("她说“我们再也没有回到那座老房子”。"),
            ["我们再也没有回到那座老房子"]
        );
    }

    #[test]
    fn many_code_spans_stay_linear() {
        let line = "Run `x` then `y` here.\n";
        let r = line.repeat(20_000) + "Declan recalled “the boats were all sold”.";
        assert_eq!(texts(&r), ["the boats were all sold"]);
    }

    #[test]
    fn a_name_right_after_the_quote_attributes_it() {
        let r = "“We never went back to the old house,” Gwen said. \
                 “The boats were all sold by then” said Declan. \
                 “Nobody talked about the closure” Then Gwen went home to the village.";
        let cues: Vec<Option<Cue>> = find(r, 4, &names).into_iter().map(|q| q.cue).collect();
        assert_eq!(
            cues,
            [
                Some(Cue::Named("Gwen".into())),
                Some(Cue::Named("Declan".into())),
                None
            ]
        );
    }

    #[test]
    fn empty_and_quoteless_reports() {
        assert!(find("", 4, &names).is_empty());
        assert!(find("No quotes at all.\n", 4, &names).is_empty());
        assert!(find("a 5\" pipe and a 3\" one", 1, &names).is_empty());
    }
}
