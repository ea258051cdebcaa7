//! The HTML audit report of an `evaluate` run (`report.html`): every quote
//! with its verdict, attribution and speakers, and the matched text shown in
//! its transcript, so a person can check each verdict in a browser.
//!
//! One self-contained file: styles and script inline, charts as `data:`
//! URIs. The quotes travel as one JSON block that the page's script renders
//! a page of cards at a time (filtered by attribution, verdict and a search
//! text), so the page stays light and quick at tens of thousands of quotes.
//! The filter can also be set from the address: `report.html#attribution=
//! stitched&verdict=not_found&q=fishermen`.
//!
//! ```
//! use corpus_eval::views::{context, Context};
//! let text = "line one\nAnna: we grow leeks here\nline three";
//! let at = text.find("leeks").unwrap();
//! let c = context(text, at..at + 5, None);
//! assert_eq!(c.before, "line one\nAnna: we grow ");
//! assert_eq!(c.matched, vec![("leeks".to_string(), false)]);
//! assert_eq!(c.after, " here\nline three");
//! ```

use super::html::{escape, HtmlPage};
use super::results::{Fill, PairWindow, Rows, Whole};
use crate::citations::attribution::OtherSource;
use crate::citations::fuzzy::{ceil_boundary as ceil, floor_boundary as floor};
use crate::corpus::{QuestionSet, TranscriptSet};
use crate::evaluate::{Evaluation, Summary};
use crate::text::json_str;
use rayon::prelude::*;
use serde::Serialize;
use serde_json::Value;
use std::ops::Range;

/// Lines of context shown on each side of a match.
pub const CONTEXT_LINES: usize = 2;
/// Most characters of context on each side.
pub const CONTEXT_CHARS: usize = 300;
/// Cards per page.
pub const PAGE_SIZE: usize = 50;

/// A match in its transcript: the text before, the matched text (as
/// segments, `true` where the source differs from the quote), the text
/// after.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Context {
    /// Up to [`CONTEXT_LINES`] lines before (at most [`CONTEXT_CHARS`]).
    pub before: String,
    /// The matched text, in segments: (text, differs from the quote).
    pub matched: Vec<(String, bool)>,
    /// Up to [`CONTEXT_LINES`] lines after.
    pub after: String,
}

/// The context of a byte span of `text`; with `quote`, the words of the
/// match that differ from it are marked.
pub fn context(text: &str, span: Range<usize>, quote: Option<&str>) -> Context {
    let (s, e) = (
        floor(text, span.start.min(text.len())),
        ceil(text, span.end.min(text.len())),
    );
    let mut b = s;
    for _ in 0..=CONTEXT_LINES {
        match text[..b].rfind('\n') {
            Some(nl) if b > 0 => b = nl,
            _ => {
                b = 0;
                break;
            }
        }
    }
    if b > 0 {
        b += 1;
    }
    let cut_before = floor(text, s.saturating_sub(CONTEXT_CHARS));
    let clipped_before = cut_before > b;
    b = b.max(cut_before);
    let mut a = e;
    for _ in 0..=CONTEXT_LINES {
        match text[a..].find('\n') {
            Some(nl) if a < text.len() => a += nl + 1,
            _ => {
                a = text.len();
                break;
            }
        }
    }
    if a < text.len() && a > e {
        a -= 1;
    }
    let cut_after = ceil(text, e + CONTEXT_CHARS);
    let clipped_after = cut_after < a;
    a = a.min(cut_after);
    let mark = |clipped: bool| if clipped { "…" } else { "" };
    let mut before = text[b..s].to_string();
    let mut matched = match quote {
        Some(q) => diff_words(&text[s..e], q),
        None => vec![(text[s..e].to_string(), false)],
    };
    let mut after = text[e..a].to_string();
    // A registered secret in a transcript is blanked out, also where the
    // context's strings split it; the text just outside the clipped
    // context joins the search, so a secret the clip cuts is found whole
    // (its shown part blanked out).
    let redactor = crate::secrets::process_redactor();
    if !redactor.is_empty() {
        let mut margin_before = text[floor(text, b.saturating_sub(SECRET_MARGIN))..b].to_string();
        let mut margin_after = text[a..ceil(text, (a + SECRET_MARGIN).min(text.len()))].to_string();
        let mut pieces: Vec<&mut String> = std::iter::once(&mut margin_before)
            .chain(std::iter::once(&mut before))
            .chain(matched.iter_mut().map(|(t, _)| t))
            .chain(std::iter::once(&mut after))
            .chain(std::iter::once(&mut margin_after))
            .collect();
        redactor.redact_pieces(&mut pieces);
    }
    Context {
        before: format!("{}{before}", mark(clipped_before)),
        matched,
        after: format!("{after}{}", mark(clipped_after)),
    }
}

/// How far past a context's clipped edges a secret is looked for (bytes;
/// longer than any API key).
const SECRET_MARGIN: usize = 512;

/// A word as compared for underlining: lower-cased, the punctuation
/// around it dropped, inside it kept (`watch-maker` is not `watchmaker`).
fn key(w: &str) -> String {
    w.trim_matches(|c: char| !c.is_alphanumeric())
        .chars()
        .flat_map(char::to_lowercase)
        .collect()
}

/// The source text in segments, marking its words that the quote does not
/// have in the same order (a word-level longest common subsequence).
fn diff_words(source: &str, quote: &str) -> Vec<(String, bool)> {
    let src: Vec<(usize, &str)> = source
        .split_inclusive(char::is_whitespace)
        .scan(0, |at, w| {
            let start = *at;
            *at += w.len();
            Some((start, w))
        })
        .collect();
    let q: Vec<String> = quote.split_whitespace().map(key).collect();
    let s: Vec<String> = src.iter().map(|(_, w)| key(w)).collect();
    // LCS table (quotes are short).
    let (n, m) = (s.len(), q.len());
    if n * m > 4_000_000 {
        return vec![(source.to_string(), false)];
    }
    let mut l = vec![vec![0u16; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            l[i][j] = if s[i] == q[j] {
                l[i + 1][j + 1] + 1
            } else {
                l[i + 1][j].max(l[i][j + 1])
            };
        }
    }
    let mut same = vec![false; n];
    let (mut i, mut j) = (0, 0);
    while i < n && j < m {
        if s[i] == q[j] {
            same[i] = true;
            i += 1;
            j += 1;
        } else if l[i + 1][j] >= l[i][j + 1] {
            i += 1;
        } else {
            j += 1;
        }
    }
    let mut out: Vec<(String, bool)> = Vec::new();
    for ((_, w), same) in src.iter().zip(same) {
        let differs = !same && !key(w).is_empty();
        match out.last_mut() {
            Some((t, d)) if *d == differs => t.push_str(w),
            _ => out.push((w.to_string(), differs)),
        }
    }
    out
}

/// Writes `value` as compact JSON (what `serde_json::Value`'s text would
/// be). Writing into memory fails only for values JSON cannot hold (maps
/// with non-string keys), which the report never writes.
fn put<T: Serialize + ?Sized>(out: &mut Vec<u8>, value: &T) {
    let _ = serde_json::to_writer(&mut *out, value);
}

/// Writes a JSON object's members one by one, in order.
struct Obj<'w> {
    out: &'w mut Vec<u8>,
    first: bool,
}

impl<'w> Obj<'w> {
    fn new(out: &'w mut Vec<u8>) -> Obj<'w> {
        out.push(b'{');
        Obj { out, first: true }
    }

    /// The member's key and its colon; the caller writes the value.
    fn key(&mut self, key: &str) -> &mut Vec<u8> {
        if !self.first {
            self.out.push(b',');
        }
        self.first = false;
        json_str::write(self.out, key);
        self.out.push(b':');
        self.out
    }

    fn field<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) {
        put(self.key(key), value);
    }

    /// A string member.
    fn str_field(&mut self, key: &str, value: &str) {
        json_str::write(self.key(key), value);
    }

    /// A string-or-null member.
    fn opt_str_field(&mut self, key: &str, value: Option<&str>) {
        json_str::write_opt(self.key(key), value);
    }

    fn end(self) {
        self.out.push(b'}');
    }
}

/// Writes a JSON array, each item written by `each`.
fn put_list<I: IntoIterator>(
    out: &mut Vec<u8>,
    items: I,
    mut each: impl FnMut(&mut Vec<u8>, I::Item),
) {
    out.push(b'[');
    for (k, item) in items.into_iter().enumerate() {
        if k > 0 {
            out.push(b',');
        }
        each(out, item);
    }
    out.push(b']');
}

/// `[before, [[text, differs], ...], after]`.
fn put_ctx(out: &mut Vec<u8>, c: &Context) {
    out.push(b'[');
    json_str::write(out, &c.before);
    out.push(b',');
    put_list(out, &c.matched, |out, (t, d)| {
        out.push(b'[');
        json_str::write(out, t);
        out.extend_from_slice(if *d { b",1]" } else { b",0]" });
    });
    out.push(b',');
    json_str::write(out, &c.after);
    out.push(b']');
}

/// The report's data as JSON text: `{"pairs": [...], "quotes": [...]}`,
/// the pairs (question, answers with their scores) and one record per
/// quote, made pair by pair in parallel (what [`write_data_streamed`]
/// writes). `</` is written `<\/` so that the text can stand in a
/// `<script>` block.
pub fn data_json(
    questions: &QuestionSet,
    eval: &Evaluation,
    transcripts: &TranscriptSet,
) -> String {
    let mut out = Vec::new();
    // Writing into memory cannot fail.
    let _ = write_data_streamed(questions, eval, transcripts, &mut out);
    String::from_utf8(out).unwrap_or_default()
}

/// Pair `pi`'s record followed by a comma.
fn pair_part(rows: PairWindow<'_>, pi: usize) -> String {
    let (p, r) = rows.get(pi);
    let mut out = Vec::new();
    let mut o = Obj::new(&mut out);
    o.str_field("id", &r.id);
    o.str_field("question", &p.text);
    o.str_field("type", &p.qtype);
    put_list(
        o.key("answers"),
        p.answers.iter().zip(&r.answers),
        |out, (a, ar)| {
            out.push(b'[');
            json_str::write(out, &a.answer);
            out.push(b',');
            put(out, &ar.score);
            out.push(b']');
        },
    );
    o.end();
    out.push(b',');
    escape_script(out)
}

/// The transcripts' texts, read back once (packed ones decompressed), by
/// FILE: quote records visit them in no particular order.
struct Texts<'t> {
    set: &'t TranscriptSet,
    texts: Vec<std::borrow::Cow<'t, str>>,
}

/// A transcript that fails to decode, as an I/O error of the report
/// (its message names the transcript).
fn damaged(e: crate::corpus::CorpusError) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, e.to_string())
}

impl<'t> Texts<'t> {
    fn new(set: &'t TranscriptSet) -> std::io::Result<Texts<'t>> {
        Ok(Texts {
            set,
            texts: set.texts().map_err(damaged)?,
        })
    }

    /// The text of a FILE.
    fn get(&self, file: &str) -> Option<&str> {
        let i = self.set.position(file)?;
        self.texts.get(i).map(|t| t.as_ref())
    }
}

/// Pair `pi`'s quotes' records, each followed by a comma (empty without
/// quotes).
fn quotes_part(rows: PairWindow<'_>, texts: &Texts<'_>, pi: usize) -> String {
    let (p, r) = rows.get(pi);
    let mut quotes = Vec::new();
    let other = |out: &mut Vec<u8>, os: &OtherSource| {
        put_other_ctx(out, texts.get(&os.source), os);
    };
    for (ai, (a, ar)) in p.answers.iter().zip(&r.answers).enumerate() {
        for (k, (q, qr)) in a.quotes.iter().zip(&ar.quotes).enumerate() {
            let own = q.source.as_deref().and_then(|f| texts.get(f));
            quote_record(&mut quotes, pi, (ai, k), (q, qr), &r.id, own, &other);
            quotes.push(b',');
        }
    }
    escape_script(quotes)
}

/// An other-source quote's context in that transcript's `text` (none
/// when it is not in the corpus).
fn put_other_ctx(out: &mut Vec<u8>, text: Option<&str>, os: &OtherSource) {
    put_ctx(
        out,
        &context(text.unwrap_or(""), os.byte_span.clone(), None),
    );
}

/// One quote of the report's data with its result: its pair, answer and
/// quote indices and its pair's id.
#[derive(Clone, Copy)]
struct QuoteAt<'a> {
    at: (usize, usize, usize),
    pair_id: &'a str,
    quote: &'a crate::corpus::Quote,
    result: &'a crate::evaluate::QuoteResult,
}

/// Every quote of the first `n` pairs with its result, in pair order.
fn quotes_in_order(rows: PairWindow<'_>) -> impl Iterator<Item = QuoteAt<'_>> {
    rows.range().flat_map(move |pi| {
        let (p, r) = rows.get(pi);
        p.answers
            .iter()
            .zip(&r.answers)
            .enumerate()
            .flat_map(move |(ai, (a, ar))| {
                a.quotes
                    .iter()
                    .zip(&ar.quotes)
                    .enumerate()
                    .map(move |(k, (quote, result))| QuoteAt {
                        at: (pi, ai, k),
                        pair_id: &r.id,
                        quote,
                        result,
                    })
            })
    })
}

/// The start of the report's data, before the pairs' records.
const DATA_HEAD: &[u8] = b"{\"pairs\":[";
/// Between the pairs' records and the quotes'.
const DATA_MIDDLE: &[u8] = b"],\"quotes\":[";
/// The end of the report's data, after the quotes' records.
const DATA_TAIL: &[u8] = b"]}";

/// Writes the records of a window's pairs (comma-separated, a comma first
/// unless `first`, which becomes false once one is written), made in
/// batches on the pool while this thread writes.
fn write_pair_records(
    rows: PairWindow<'_>,
    w: &mut dyn std::io::Write,
    first: &mut bool,
) -> std::io::Result<()> {
    let make_pairs = |range: std::ops::Range<usize>| -> Vec<String> {
        range
            .into_par_iter()
            .map(|pi| pair_part(rows, pi))
            .collect()
    };
    write_batches(rows.range(), &make_pairs, w, first)
}

/// A quote's context in another transcript: the quote (pair, answer,
/// quote) and its record's bytes.
type OtherContext = ((usize, usize, usize), Vec<u8>);

/// [`write_data_streamed`] for a run over a large corpus: the same bytes,
/// but the quotes' records are made transcript by transcript (a packed
/// transcript decompressed only then, transcripts in parallel; the few
/// contexts in another transcript first, transcript by transcript too)
/// into a scratch file at `scratch` (see `crate::report::spill`), then copied in
/// pair order. Memory holds a transcript's text per thread, not the
/// corpus's; the scratch file is removed when done, or on error, whose
/// message names it.
pub fn write_data_spilled(
    questions: &QuestionSet,
    eval: &Evaluation,
    transcripts: &TranscriptSet,
    w: &mut dyn std::io::Write,
    scratch: &std::path::Path,
) -> std::io::Result<()> {
    write_data_rows(&Whole::new(questions, eval), transcripts, w, scratch)
}

/// [`write_data_spilled`] over any [`Rows`], window by window: the pairs'
/// records, then the quotes' (`merge` writes its report so, never holding
/// every row).
pub(crate) fn write_data_rows(
    rows: &dyn Rows,
    transcripts: &TranscriptSet,
    w: &mut dyn std::io::Write,
    scratch: &std::path::Path,
) -> std::io::Result<()> {
    w.write_all(DATA_HEAD)?;
    let mut first = true;
    let fill = Fill {
        questions: true,
        byte_spans: false,
    };
    rows.windows(fill, &mut |window| {
        write_pair_records(window, w, &mut first)
    })?;
    w.write_all(DATA_MIDDLE)?;
    let mut first = true;
    let fill = Fill {
        questions: true,
        byte_spans: true,
    };
    rows.windows(fill, &mut |window| {
        write_quote_records_spilled(window, transcripts, w, &mut first, scratch)
    })?;
    w.write_all(DATA_TAIL)
}

/// The records of a window's quotes as [`write_data_spilled`] makes them
/// (comma-separated, a comma first unless `first`, which becomes false
/// once one is written).
fn write_quote_records_spilled(
    rows: PairWindow<'_>,
    transcripts: &TranscriptSet,
    w: &mut dyn std::io::Write,
    first: &mut bool,
    scratch: &std::path::Path,
) -> std::io::Result<()> {
    let count = transcripts.transcripts.len();
    // The group of a quote: the transcript it cites, else `count`.
    let group = |q: &crate::corpus::Quote| {
        q.source
            .as_deref()
            .and_then(|f| transcripts.position(f))
            .unwrap_or(count)
    };
    // Each group's quotes in pair order, and the quotes found in another
    // transcript, by that one.
    let mut by_group: Vec<Vec<QuoteAt<'_>>> = vec![Vec::new(); count + 1];
    let mut by_other: Vec<Vec<QuoteAt<'_>>> = vec![Vec::new(); count];
    for q in quotes_in_order(rows) {
        by_group[group(q.quote)].push(q);
        let other = q.result.attributed.other_source.as_ref();
        if let Some(o) = other.and_then(|os| transcripts.position(&os.source)) {
            by_other[o].push(q);
        }
    }
    // The contexts in other transcripts (few: quotes not found in their
    // own), made first, by quote.
    let made: Vec<Vec<OtherContext>> = by_other
        .par_iter()
        .enumerate()
        .filter(|(_, quotes)| !quotes.is_empty())
        .map(|(o, quotes)| -> std::io::Result<_> {
            let text = transcripts.transcripts[o].text().map_err(damaged)?;
            Ok(quotes
                .iter()
                .filter_map(|q| {
                    let os = q.result.attributed.other_source.as_ref()?;
                    let mut out = Vec::new();
                    put_other_ctx(&mut out, Some(&text), os);
                    Some((q.at, out))
                })
                .collect::<Vec<_>>())
        })
        .collect::<std::io::Result<_>>()?;
    let mut other_ctx: Vec<OtherContext> = made.into_iter().flatten().collect();
    other_ctx.sort_unstable_by_key(|&(at, _)| at);
    drop(by_other);
    // Each group's records, in pair order, into its section; the largest
    // transcripts first. Errors of the scratch file name it.
    let scratch_error =
        |e: std::io::Error| std::io::Error::new(e.kind(), format!("{}: {e}", scratch.display()));
    let spill = crate::report::spill::Spill::create(scratch).map_err(scratch_error)?;
    let mut order: Vec<usize> = (0..=count).filter(|&t| !by_group[t].is_empty()).collect();
    order
        .sort_by_key(|&t| std::cmp::Reverse(transcripts.transcripts.get(t).map_or(0, |t| t.len())));
    // Each transcript's text read back, and its section gathered, into
    // the buffers of one done with before.
    let buffers: crate::pool::Pool<(String, Vec<u8>)> = crate::pool::Pool::default();
    let made: Vec<(usize, crate::report::spill::Section)> = order
        .par_iter()
        .map(|&t| -> std::io::Result<_> {
            let (mut text_buf, section_buf) = buffers.take();
            let text = transcripts
                .transcripts
                .get(t)
                .map(|t| t.text_in(&mut text_buf))
                .transpose()
                .map_err(damaged)?;
            let mut section = spill.section_in(section_buf);
            for q in &by_group[t] {
                let other = |out: &mut Vec<u8>, os: &OtherSource| {
                    match other_ctx.binary_search_by_key(&q.at, |&(a, _)| a) {
                        Ok(i) => out.extend_from_slice(&other_ctx[i].1),
                        // Its transcript is not in the corpus.
                        Err(_) => put_other_ctx(out, None, os),
                    }
                };
                let mut record = Vec::new();
                let (pi, ai, k) = q.at;
                quote_record(
                    &mut record,
                    pi,
                    (ai, k),
                    (q.quote, q.result),
                    q.pair_id,
                    text.as_deref(),
                    &other,
                );
                section.push(escape_script(record).as_bytes())?;
            }
            let (section, section_buf) = section.finish_keeping()?;
            if let Some(std::borrow::Cow::Owned(owned)) = text {
                text_buf = owned;
            }
            buffers.put((text_buf, section_buf));
            Ok((t, section))
        })
        .collect::<std::io::Result<_>>()
        .map_err(scratch_error)?;
    drop(buffers);
    let mut sections: Vec<crate::report::spill::Section> = vec![Default::default(); count + 1];
    for (t, section) in made {
        sections[t] = section;
    }
    drop(other_ctx);
    // The quotes in pair order, each read from its group's section.
    let open = sections.iter().filter(|s| !s.is_empty()).count();
    let mut readers: Vec<crate::report::spill::SectionReader<'_>> =
        sections.iter().map(|s| spill.reader(s, open)).collect();
    for q in quotes_in_order(rows) {
        let record = readers[group(q.quote)]
            .next_record()
            .map_err(scratch_error)?
            .ok_or_else(|| {
                scratch_error(std::io::Error::new(
                    std::io::ErrorKind::UnexpectedEof,
                    "a quote's record is missing",
                ))
            })?;
        if !std::mem::take(first) {
            w.write_all(b",")?;
        }
        w.write_all(record)?;
    }
    Ok(())
}

/// Pairs per batch of [`write_data_streamed`].
const STREAM_BATCH: usize = 1024;

/// Writes the report's data (see [`data_json`]) batch by batch: a batch's
/// records are made in parallel while the one before is written, then
/// dropped, so the whole data never stands in memory at once. Every
/// transcript's text is read back first and held meanwhile (packed ones
/// decompressed): [`write_data_spilled`] holds one per thread instead.
pub fn write_data_streamed(
    questions: &QuestionSet,
    eval: &Evaluation,
    transcripts: &TranscriptSet,
    w: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let rows = PairWindow::all(questions, eval);
    let texts = Texts::new(transcripts)?;
    let make_quotes = |range: std::ops::Range<usize>| -> Vec<String> {
        range
            .into_par_iter()
            .map(|pi| quotes_part(rows, &texts, pi))
            .collect()
    };
    w.write_all(DATA_HEAD)?;
    write_pair_records(rows, w, &mut true)?;
    w.write_all(DATA_MIDDLE)?;
    write_batches(rows.range(), &make_quotes, w, &mut true)?;
    w.write_all(DATA_TAIL)
}

/// Writes the parts `make` makes for `range`, [`STREAM_BATCH`] at a time
/// (the next batch made on the thread pool while this thread writes),
/// joined into one array's items: empty parts left out, each part's
/// trailing comma dropped and a comma written before it unless it is the
/// array's `first`.
fn write_batches(
    range: std::ops::Range<usize>,
    make: &(dyn Fn(std::ops::Range<usize>) -> Vec<String> + Sync),
    w: &mut dyn std::io::Write,
    first: &mut bool,
) -> std::io::Result<()> {
    let mut write = |parts: Vec<String>| -> std::io::Result<()> {
        for s in parts.iter().filter(|s| !s.is_empty()) {
            if !std::mem::take(first) {
                w.write_all(b",")?;
            }
            w.write_all(s.strip_suffix(',').unwrap_or(s).as_bytes())?;
        }
        Ok(())
    };
    let n = range.end;
    let mut ready = make(range.start..n.min(range.start + STREAM_BATCH));
    let mut start = range.start + STREAM_BATCH;
    while start < n {
        let range = start..n.min(start + STREAM_BATCH);
        let mut next = Vec::new();
        let written = rayon::in_place_scope(|scope| {
            scope.spawn(|_| next = make(range));
            write(std::mem::take(&mut ready))
        });
        written?;
        ready = next;
        start += STREAM_BATCH;
    }
    write(ready)
}

/// JSON text written by this module (made of UTF-8 strings) as a string,
/// `</` written `<\/` (JSON escapes it the same).
fn escape_script(json: Vec<u8>) -> String {
    let s = String::from_utf8(json).unwrap_or_default();
    if s.contains("</") {
        s.replace("</", "<\\/")
    } else {
        s
    }
}

/// Writes one quote's record.
fn quote_record(
    out: &mut Vec<u8>,
    pi: usize,
    (ai, k): (usize, usize),
    (q, qr): (&crate::corpus::Quote, &crate::evaluate::QuoteResult),
    pair_id: &str,
    text: Option<&str>,
    other_ctx: &dyn Fn(&mut Vec<u8>, &OtherSource),
) {
    let differs = matches!(
        qr.check.verdict,
        crate::citations::Verdict::Normalized
            | crate::citations::Verdict::Edited
            | crate::citations::Verdict::Fuzzy
    );
    let at = &qr.attributed;
    let mut o = Obj::new(out);
    o.str_field("id", &format!("{pair_id}/{ai}/{k}"));
    o.field("p", &pi);
    o.field("a", &ai);
    o.str_field("quote", &q.quote);
    o.opt_str_field("source", q.source.as_deref());
    o.opt_str_field("speaker", q.speaker.as_deref());
    o.field("verdict", &qr.check.verdict);
    o.field("found", &qr.found);
    o.field("sim", &((qr.check.similarity * 1000.0).round() / 1000.0));
    o.field("attribution", &at.attribution);
    o.field("differences", &qr.check.differences);
    o.field("meaning", &qr.check.meaning_changes());
    o.opt_str_field("span_speaker", at.span_speaker.as_deref());
    // A range serializes as {"start": .., "end": ..}.
    o.field("span", &qr.check.span);
    if let Some(t) = &qr.time {
        o.field("time", t);
    }
    if let Some(l) = &qr.location {
        o.field("location", l);
    }
    if let Some(n) = &qr.nearest {
        o.field("nearest", n);
    }
    let ctx = o.key("ctx");
    match (&qr.check.byte_span, text) {
        (Some(b), Some(t)) => put_ctx(
            ctx,
            &context(t, b.clone(), differs.then_some(q.quote.as_str())),
        ),
        _ => ctx.extend_from_slice(b"null"),
    }
    // Not found: the closest passage, for a person to compare (plain: a
    // word diff of every fabricated quote would cost more than it tells).
    let closest = o.key("closest");
    match (&qr.check.closest_bytes, text) {
        (Some(b), Some(t)) => {
            let mut co = Obj::new(closest);
            co.field("span", &qr.check.closest);
            put_ctx(co.key("ctx"), &context(t, b.clone(), None));
            co.end();
        }
        _ => closest.extend_from_slice(b"null"),
    }
    // The pieces, each with its transcript's text (none without it).
    let pieces = text
        .into_iter()
        .flat_map(|t| at.pieces.iter().map(move |p| (t, p)));
    put_list(o.key("pieces"), pieces, |out, (t, p)| {
        let mut po = Obj::new(out);
        po.opt_str_field("speaker", p.span_speaker.as_deref());
        po.field("span", &p.span);
        if let Some(time) = &p.time {
            po.field("time", time);
        }
        put_ctx(po.key("ctx"), &context(t, p.byte_span.clone(), None));
        po.end();
    });
    let other = o.key("other");
    match &at.other_source {
        Some(os) => {
            let mut oo = Obj::new(other);
            oo.str_field("source", &os.source);
            oo.field("verdict", &os.verdict);
            oo.opt_str_field("speaker", os.span_speaker.as_deref());
            oo.field("span", &os.span);
            other_ctx(oo.key("ctx"), os);
            oo.end();
        }
        None => other.extend_from_slice(b"null"),
    }
    o.end();
}

/// The whole report page.
pub fn render(
    data_json: &str,
    summary: &Summary,
    charts: &[(&str, Vec<u8>)],
    reproducible: &Value,
) -> String {
    let (head, tail) = render_around(summary, charts, reproducible);
    format!("{head}{data_json}{tail}")
}

/// The page [`render`] makes, in the two parts that stand before and after
/// the data (so that a writer can stream the data between them instead of
/// copying it into one string).
pub fn render_around(
    summary: &Summary,
    charts: &[(&str, Vec<u8>)],
    reproducible: &Value,
) -> (String, String) {
    let mut page = HtmlPage::new("Quote audit report");
    page.style(&super::assets::AUDIT_CSS);
    let n = |k: &str| summary.counts.get(k).copied().unwrap_or(0);
    page.note(&format!(
        "{}, {}. Every quote below shows its verdict (is the text in the cited transcript), its attribution (who said it, in which turn, in which transcript) and the matched text in its transcript, highlighted; words of the source that differ from the quote are underlined.",
        super::count(n("pairs"), "pair", "pairs"),
        super::count(n("quotes"), "quote", "quotes")
    ));
    // The statistics fold away above the cards, so the first cards stand
    // on the first screen.
    let f3 = |s: &crate::stats::GroupStat| {
        if s.n == 0 {
            "n/a".to_string()
        } else {
            format!("{:.3}", s.mean)
        }
    };
    page.raw(&format!(
        "<details class=\"stats\"><summary>Summary, attribution table and charts (existence {}, strict existence {}, mean answer score {})</summary>\n",
        f3(&summary.existence),
        f3(&summary.strict_existence),
        f3(&summary.overall)
    ));
    page.heading(2, "Summary");
    let stat = |name: &str, s: &crate::stats::GroupStat| {
        let f = |x: f64| {
            if s.n == 0 {
                "n/a".to_string()
            } else {
                format!("{x:.3}")
            }
        };
        vec![
            name.to_string(),
            f(s.mean),
            s.n.to_string(),
            format!("[{}, {}]", f(s.ci_low), f(s.ci_high)),
        ]
    };
    let rows = vec![
        stat("mean answer score", &summary.overall),
        stat(
            "existence (found in the cited transcript)",
            &summary.existence,
        ),
        stat(
            "strict existence (found, attribution ok)",
            &summary.strict_existence,
        ),
    ];
    page.table(
        "summary",
        &["measure".into(), "mean".into(), "n".into(), "95% CI".into()],
        &rows,
    );
    let classes = crate::citations::attribution::Attribution::ALL;
    let mut header = vec!["transcript".to_string()];
    header.extend(classes.iter().map(|a| a.as_str().to_string()));
    let row = |name: &str, counts: &std::collections::BTreeMap<String, usize>| {
        let mut r = vec![name.to_string()];
        r.extend(
            classes
                .iter()
                .map(|a| counts.get(a.as_str()).copied().unwrap_or(0).to_string()),
        );
        r
    };
    let mut rows = vec![row("all", &summary.attribution.overall)];
    rows.extend(
        summary
            .attribution
            .by_transcript
            .iter()
            .map(|(t, c)| row(t, c)),
    );
    page.table("attribution", &header, &rows);
    for (alt, png) in charts {
        page.png(alt, png);
    }
    page.raw("</details>\n");
    page.heading(2, "Quotes");
    let opts = |values: &[&str]| {
        values
            .iter()
            .map(|v| format!("<option value=\"{0}\">{0}</option>", escape(v)))
            .collect::<String>()
    };
    let attributions: Vec<&str> = classes.iter().map(|a| a.as_str()).collect();
    page.raw(&format!(
        "<div class=\"bar\"><label>attribution <select id=\"f-attribution\"><option value=\"\">all</option>{}<option value=\"null\">none (unknown source)</option></select></label>\
<label>verdict <select id=\"f-verdict\"><option value=\"\">all</option>{}</select></label>\
<input id=\"f-search\" type=\"search\" placeholder=\"search quotes, questions, answers, ids\"></div>\
<div class=\"pager\"><button id=\"prev\">previous</button><button id=\"next\">next</button><span id=\"page-info\"></span></div>\
<div id=\"cards\"></div>\n",
        opts(&attributions),
        opts(&[
            "exact",
            "normalized",
            "edited",
            "fuzzy",
            "not_found",
            "unknown_source"
        ])
    ));
    // `</` cannot end the data block early: the data escapes it.
    page.raw("<script type=\"application/json\" id=\"audit-data\">");
    page.raw(DATA_MARK);
    page.raw("</script>\n");
    page.heading(2, "Run");
    page.note(&format!("Signature: {}", summary.signature));
    page.preformatted(&serde_json::to_string_pretty(reproducible).unwrap_or_default());
    page.script(&super::assets::AUDIT_JS.replace("P=50", &format!("P={PAGE_SIZE}")));
    let html = page.render();
    match html.split_once(DATA_MARK) {
        Some((head, tail)) => (head.to_string(), tail.to_string()),
        None => (html, String::new()),
    }
}

/// Where the data goes in the rendered page (no text of the page holds it).
const DATA_MARK: &str = "\u{0}audit-data\u{0}";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spilled_data_equals_the_streamed_data() {
        // Three transcripts; quotes found in their own, in another one
        // (whose context comes from that one), stitched, invented, with no
        // source, with a source not in the corpus; `</` in a quote; more
        // pairs than a batch; transcripts packed and plain.
        let texts = [
            (
                "a.csv",
                "Interviewer: Tell me.\nAnna: we grow potatoes here </b> and kale.\nAnna: the rain came late that year and the river flooded the lower fields.\n",
            ),
            (
                "b.csv",
                "Interviewer: And you?\nBo: we sold the farm in the spring of that year.\nBo: nobody wanted to buy the old tractor.\n",
            ),
            ("c.csv", "Cy: short one.\n"),
        ];
        let pairs: Vec<String> = (0..STREAM_BATCH + 211)
            .map(|i| {
                let quotes = match i % 6 {
                    0 => String::new(),
                    1 => r#"{"quote": "we grow potatoes here </b>", "source": "a.csv", "speaker": "Anna"}"#.to_string(),
                    2 => r#"{"quote": "we sold the farm in the spring", "source": "a.csv"}, {"quote": "nobody wanted to buy", "source": "b.csv", "speaker": "Bo"}"#.to_string(),
                    3 => format!(r#"{{"quote": "the rain came late ... the river flooded the lower fields {i}", "source": "a.csv"}}, {{"quote": "short one", "source": "nowhere.csv"}}"#),
                    4 => format!(r#"{{"quote": "invented words {i}", "source": "b.csv"}}, {{"quote": "no source at all {i}"}}, {{"quote": "Cy: short one.", "source": "c.csv"}}"#),
                    _ => r#"{"quote": "the old tractor", "source": "c.csv"}"#.to_string(),
                };
                format!(
                    r#"{{"id": "q{i}", "question": {{"text": "Crop {i}?", "type": "ListOne", "metric": {{"potato": 1}}}}, "answers": [{{"answer": "Potatoes", "source": "a.csv", "verbatims": [{quotes}]}}, {{"answer": "none", "verbatims": []}}]}}"#
                )
            })
            .collect();
        let questions = crate::corpus::parse_questions(
            std::path::Path::new("q.json"),
            &format!(r#"{{"qa_pairs": [{}]}}"#, pairs.join(",")),
        )
        .unwrap();
        let chunks: Vec<Value> = texts
            .iter()
            .map(|(f, t)| serde_json::json!({"page_content": t, "metadata": {"FILE": f}}))
            .collect();
        let mut transcripts = crate::corpus::parse_transcripts(
            std::path::Path::new("t.json"),
            &Value::Array(chunks).to_string(),
        )
        .unwrap();
        let lexicon = crate::lexicon::Lexicon::embedded().unwrap();
        let eval =
            crate::evaluate::evaluate(&questions, &transcripts, &lexicon, &Default::default())
                .unwrap();
        // Every kind of record is there.
        let attributions: std::collections::BTreeSet<String> = eval
            .pairs
            .iter()
            .flat_map(|p| &p.answers)
            .flat_map(|a| &a.quotes)
            .filter_map(|q| q.attributed.attribution.map(|a| format!("{a:?}")))
            .collect();
        for kind in ["OtherSource", "Stitched", "Fabricated", "Ok"] {
            assert!(attributions.contains(kind), "{kind}: {attributions:?}");
        }
        let expected = data_json(&questions, &eval, &transcripts);
        let dir = std::env::temp_dir().join(format!("ce-audit-spill-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let scratch = dir.join("data.scratch");
        for packed in [false, true] {
            if packed {
                transcripts.pack();
            }
            let mut out = Vec::new();
            write_data_spilled(&questions, &eval, &transcripts, &mut out, &scratch).unwrap();
            assert_eq!(
                String::from_utf8(out).unwrap(),
                expected,
                "packed: {packed}"
            );
            assert!(!scratch.exists());
        }
        // An unwritable scratch file is an error, not a panic.
        let mut out = Vec::new();
        let bad = dir.join("missing-folder").join("data.scratch");
        assert!(write_data_spilled(&questions, &eval, &transcripts, &mut out, &bad).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn streamed_data_equals_its_parts_joined() {
        // More pairs than a batch, quotes in some pairs only, `</` in a
        // quote, found and invented quotes.
        let transcript = "Interviewer: Tell me.\nAnna: we grow potatoes here </b> and kale.\n";
        let pairs: Vec<String> = (0..2 * STREAM_BATCH + 37)
            .map(|i| {
                let quotes = match i % 3 {
                    0 => String::new(),
                    1 => r#"{"quote": "we grow potatoes here </b>", "source": "a.csv", "speaker": "Anna"}"#.to_string(),
                    _ => format!(r#"{{"quote": "invented words {i}", "source": "a.csv"}}, {{"quote": "and kale", "source": "a.csv"}}"#),
                };
                format!(
                    r#"{{"id": "q{i}", "question": {{"text": "Crop {i}?", "type": "ListOne", "metric": {{"potato": 1}}}}, "answers": [{{"answer": "Potatoes", "source": "a.csv", "verbatims": [{quotes}]}}]}}"#
                )
            })
            .collect();
        let questions = crate::corpus::parse_questions(
            std::path::Path::new("q.json"),
            &format!(r#"{{"qa_pairs": [{}]}}"#, pairs.join(",")),
        )
        .unwrap();
        let transcripts = crate::corpus::parse_transcripts(
            std::path::Path::new("t.json"),
            &serde_json::json!([{"page_content": transcript, "metadata": {"FILE": "a.csv"}}])
                .to_string(),
        )
        .unwrap();
        let lexicon = crate::lexicon::Lexicon::embedded().unwrap();
        let eval =
            crate::evaluate::evaluate(&questions, &transcripts, &lexicon, &Default::default())
                .unwrap();
        // The reference: every part made at once and concatenated, the
        // last trailing comma of each array dropped.
        let n = questions.pairs.len();
        let all = |part: &dyn Fn(usize) -> String| {
            let joined: String = (0..n).map(part).collect();
            joined.strip_suffix(',').unwrap_or(&joined).to_string()
        };
        let expected = format!(
            "{{\"pairs\":[{}],\"quotes\":[{}]}}",
            all(&|pi| pair_part(PairWindow::all(&questions, &eval), pi)),
            all(&|pi| quotes_part(
                PairWindow::all(&questions, &eval),
                &Texts::new(&transcripts).unwrap(),
                pi
            ))
        );
        let whole = data_json(&questions, &eval, &transcripts);
        assert_eq!(whole, expected);
        assert!(whole.contains("<\\/b>") && !whole.contains("</b>"));
        let parsed: Value = serde_json::from_str(&whole).unwrap();
        assert_eq!(
            parsed["pairs"].as_array().unwrap().len(),
            2 * STREAM_BATCH + 37
        );
    }

    #[test]
    fn diff_marks_the_changed_words() {
        let c = context(
            "a\nb\nThe soil is sandy, so irrigation matters.\nc",
            4..44,
            Some("The soil is very sandy so irrigation matters"),
        );
        let marked: Vec<&str> = c
            .matched
            .iter()
            .filter(|(_, d)| *d)
            .map(|(t, _)| t.as_str())
            .collect();
        assert!(marked.is_empty(), "{:?}", c.matched);
        let c = context(
            "we grew leeks and onions",
            0..24,
            Some("we grew leeks and potatoes"),
        );
        assert_eq!(c.matched.last().unwrap(), &("onions".to_string(), true));
    }

    #[test]
    fn context_lines_and_limits() {
        let text = "1\n2\n3\n4 match here\n5\n6\n7";
        let at = text.find("match").unwrap();
        let c = context(text, at..at + 5, None);
        assert_eq!(c.before, "2\n3\n4 ");
        assert_eq!(c.after, " here\n5\n6");
        let long = "x".repeat(1000) + "MATCH" + &"y".repeat(1000);
        let c = context(&long, 1000..1005, None);
        assert_eq!(c.before.chars().count(), CONTEXT_CHARS + 1);
        assert!(c.before.starts_with('…') && c.after.ends_with('…'));
        assert_eq!(c.after.chars().count(), CONTEXT_CHARS + 1);
    }
}
