//! results.json of an evaluate run: the question file as written, with
//! each answer's score and each quote's verdict, span, attribution and
//! differences added where they belong, written straight from the pairs'
//! texts and the results (no value tree of either), byte for byte as
//! `serde_json::to_writer_pretty` writes the annotated document; and a
//! quote's fields as the Python functions and check-report give them. The
//! computation ([`crate::evaluate`]) returns the results; this view writes
//! them.

use crate::citations;
use crate::citations::attribution::Attribution;
use crate::corpus::tape::{newline, write_json_string, Kind, Tape};
use crate::corpus::QuestionSet;
use crate::evaluate::{AnswerResult, Evaluation, PairResult, QuoteResult};
use rayon::prelude::*;
use serde_json::{json, Value};

/// The input document with results added: `score` on every answer,
/// `verdict`, `found`, `similarity` and `span` on every quote, and `id` and
/// `existence_score` on every pair (what [`Annotated`] writes, as a value).
pub(crate) fn annotate(questions: &QuestionSet, eval: &Evaluation) -> Value {
    let mut out = Vec::new();
    Annotated::new(questions, eval)
        .write_pairs_to(&mut out, |_| Ok(()))
        .ok()
        .and_then(|_| serde_json::from_slice(&out).ok())
        .unwrap_or(Value::Null)
}

/// The input document with results added, written straight from the
/// pairs' texts as written and the results (no value tree of either), exactly as
/// `serde_json::to_writer_pretty` writes the annotated document. Fields the
/// results add replace fields of the same name where they stand and
/// otherwise follow the document's own.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Annotated<'a> {
    questions: &'a QuestionSet,
    rows: PairWindow<'a>,
}

/// Consecutive pairs of the question file with their results:
/// `questions[i]` and `pairs[i]` are pair `first + i`. A whole evaluation
/// is one window; `merge` writes its run folder window by window (the
/// window's questions parsed again from the question set's packed texts),
/// so that it never holds every row.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PairWindow<'a> {
    /// The position of its first pair in the question file.
    pub first: usize,
    /// The pairs as the question file gives them.
    pub questions: &'a [crate::corpus::QaPair],
    /// Their results.
    pub pairs: &'a [PairResult],
}

impl<'a> PairWindow<'a> {
    /// Every pair of `questions` with `eval`'s results.
    pub(crate) fn all(questions: &'a QuestionSet, eval: &'a Evaluation) -> PairWindow<'a> {
        let n = questions.pairs.len().min(eval.pairs.len());
        PairWindow {
            first: 0,
            questions: &questions.pairs[..n],
            pairs: &eval.pairs[..n],
        }
    }

    /// Every pair result of `eval`, without the question file (for tables
    /// that need only the results).
    pub(crate) fn all_results(eval: &'a Evaluation) -> PairWindow<'a> {
        PairWindow {
            first: 0,
            questions: &[],
            pairs: &eval.pairs,
        }
    }

    /// The positions of its pairs in the question file.
    pub(crate) fn range(&self) -> std::ops::Range<usize> {
        self.first..self.first + self.pairs.len()
    }

    /// The result of pair `pi` (a position in [`PairWindow::range`]).
    pub(crate) fn result(&self, pi: usize) -> &'a PairResult {
        &self.pairs[pi - self.first]
    }

    /// Pair `pi` and its result, for a window that carries its questions.
    pub(crate) fn get(&self, pi: usize) -> (&'a crate::corpus::QaPair, &'a PairResult) {
        (&self.questions[pi - self.first], self.result(pi))
    }
}

/// Pairs written per batch (each batch in parallel, in order): enough to
/// keep the threads busy, few enough that a batch's text (~1.5 KB a pair)
/// stays under a megabyte.
const WRITE_BATCH: usize = 512;

/// One pair's object: its text and nodes (read again when it is written).
#[derive(Clone, Copy)]
struct Doc<'d> {
    tape: &'d Tape,
    text: &'d str,
}

/// A piece of the question document that no longer reads as JSON (it did
/// when the file was loaded).
fn unreadable() -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        "a piece of the question document could not be read again",
    )
}

/// Writes the JSON text of a piece of the document at `depth`.
fn write_text(json: &str, depth: usize, out: &mut Vec<u8>) -> std::io::Result<()> {
    if Tape::write_pretty_text(json, depth, out) {
        Ok(())
    } else {
        Err(unreadable())
    }
}

/// The pairs' results a run folder is written from, window by window, in
/// pair order: a whole evaluation (one window), or the rows `merge` reads
/// from its shards a window at a time (so that it never holds them all).
pub(crate) trait Rows: Sync {
    /// How many pairs there are.
    fn count(&self) -> usize;

    /// Calls `each` on consecutive windows that together hold every pair
    /// in order, filled in as `fill` asks.
    fn windows(
        &self,
        fill: Fill,
        each: &mut dyn FnMut(PairWindow<'_>) -> std::io::Result<()>,
    ) -> std::io::Result<()>;
}

/// What a pass over [`Rows`] needs beyond the results: the pairs as the
/// question file gives them (the report), the quotes' byte spans (the
/// report's quotes).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Fill {
    /// [`PairWindow::questions`] filled in.
    pub questions: bool,
    /// Every quote's byte spans filled in.
    pub byte_spans: bool,
}

impl Fill {
    /// The results alone.
    pub(crate) const RESULTS: Fill = Fill {
        questions: false,
        byte_spans: false,
    };
    /// The results and their questions.
    pub(crate) const QUESTIONS: Fill = Fill {
        questions: true,
        byte_spans: false,
    };
}

/// A whole evaluation with its questions: one window.
pub(crate) struct Whole<'a> {
    questions: &'a QuestionSet,
    eval: &'a Evaluation,
}

impl<'a> Whole<'a> {
    /// `eval`'s results over `questions`.
    pub(crate) fn new(questions: &'a QuestionSet, eval: &'a Evaluation) -> Whole<'a> {
        Whole { questions, eval }
    }
}

impl Rows for Whole<'_> {
    fn count(&self) -> usize {
        self.questions.pairs.len().min(self.eval.pairs.len())
    }

    fn windows(
        &self,
        _fill: Fill,
        each: &mut dyn FnMut(PairWindow<'_>) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        each(PairWindow::all(self.questions, self.eval))
    }
}

impl<'a> Annotated<'a> {
    /// The annotated view of `questions` with `eval`'s results.
    pub(crate) fn new(questions: &'a QuestionSet, eval: &'a Evaluation) -> Self {
        Annotated {
            questions,
            rows: PairWindow::all(questions, eval),
        }
    }

    /// The annotated view of `questions` with the results of a window of
    /// its pairs (see [`Annotated::write_pair_items`]).
    pub(crate) fn window(questions: &'a QuestionSet, rows: PairWindow<'a>) -> Self {
        Annotated { questions, rows }
    }

    /// Writes the annotated document (pretty JSON, no final newline) to
    /// `out`, calling `flush(out)` after each batch of pairs so that a
    /// caller can pass the bytes on and clear the buffer.
    pub(crate) fn write_pairs_to(
        &self,
        out: &mut Vec<u8>,
        mut flush: impl FnMut(&mut Vec<u8>) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        let n = self.rows.range().end;
        write_document(self.questions, out, &mut flush, |out, depth, flush| {
            pairs_array(out, depth, n, |out| {
                self.write_pair_items(out, depth, flush)
            })
        })
    }
}

/// Writes `questions`' document (pretty JSON, no final newline) with its
/// pairs array written by `pairs(out, depth, flush)`, then flushes.
pub(crate) fn write_document<F>(
    questions: &QuestionSet,
    out: &mut Vec<u8>,
    flush: &mut F,
    mut pairs: impl FnMut(&mut Vec<u8>, usize, &mut F) -> std::io::Result<()>,
) -> std::io::Result<()>
where
    F: FnMut(&mut Vec<u8>) -> std::io::Result<()>,
{
    let Some(wrapper) = questions.wrapper() else {
        pairs(out, 0, flush)?;
        return flush(out);
    };
    // Every entry of the wrapper as written, qa_pairs patched.
    out.push(b'{');
    for (i, &(key, value)) in wrapper.entries.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        newline(out, 1);
        write_text(key, 1, out)?;
        out.extend_from_slice(b": ");
        if i == wrapper.pairs_entry {
            pairs(out, 1, flush)?;
        } else {
            write_text(value, 1, out)?;
        }
    }
    newline(out, 0);
    out.push(b'}');
    flush(out)
}

/// The pairs array of `n` pairs at `depth`: `[]` when there are none, else
/// `[`, the items `items(out)` writes, and `]` on its own line.
pub(crate) fn pairs_array(
    out: &mut Vec<u8>,
    depth: usize,
    n: usize,
    items: impl FnOnce(&mut Vec<u8>) -> std::io::Result<()>,
) -> std::io::Result<()> {
    if n == 0 {
        out.extend_from_slice(b"[]");
        return Ok(());
    }
    out.push(b'[');
    items(out)?;
    newline(out, depth);
    out.push(b']');
    Ok(())
}

impl<'a> Annotated<'a> {
    /// The window's pairs as items of the pairs array at `depth` (each
    /// but the document's first after a comma), batch by batch, flushed
    /// after each batch but the window's last.
    pub(crate) fn write_pair_items(
        &self,
        out: &mut Vec<u8>,
        depth: usize,
        flush: &mut impl FnMut(&mut Vec<u8>) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        let q = self.questions;
        let range = self.rows.range();
        let batches = range.len().div_ceil(WRITE_BATCH);
        for (b, from) in range.clone().step_by(WRITE_BATCH).enumerate() {
            let batch = from..(from + WRITE_BATCH).min(range.end);
            // Each pair's object is read again from its text (the
            // document's nodes are not kept).
            let texts = q.pair_texts(batch.clone());
            let parts: Vec<Vec<u8>> = batch
                .into_par_iter()
                .map(|k| {
                    let mut part = Vec::with_capacity(1024);
                    if k > 0 {
                        part.push(b',');
                    }
                    newline(&mut part, depth + 1);
                    let text = texts.get(k).ok_or_else(unreadable)?;
                    let tape = Tape::parse(text).ok_or_else(unreadable)?;
                    let doc = Doc { tape: &tape, text };
                    self.write_pair(doc, tape.root(), self.rows.result(k), depth + 1, &mut part);
                    Ok(part)
                })
                .collect::<std::io::Result<_>>()?;
            for p in parts {
                out.extend_from_slice(&p);
            }
            if b + 1 < batches {
                flush(out)?;
            }
        }
        Ok(())
    }

    fn write_pair(
        &self,
        doc: Doc<'_>,
        node: usize,
        r: &PairResult,
        depth: usize,
        out: &mut Vec<u8>,
    ) {
        let Doc { tape, text } = doc;
        let has_id = tape
            .field(text, node, "id")
            .is_some_and(|v| tape.kind(v) != Kind::Null);
        let mut fields: Vec<(&str, Patch<'_>)> = Vec::with_capacity(4);
        if !has_id {
            fields.push(("id", Patch::Value(Value::String(r.id.clone()))));
        }
        fields.push(("existence_score", Patch::Number(r.existence_score)));
        if let Some(w) = &r.warning {
            fields.push(("warning", Patch::Value(Value::String(w.clone()))));
        }
        if let Some(a) = tape.field(text, node, "answers") {
            if tape.kind(a) == Kind::Array {
                fields.push(("answers", Patch::Answers(a, &r.answers)));
            }
        }
        self.write_patched(doc, node, &fields, depth, out);
    }

    fn write_answer(
        &self,
        doc: Doc<'_>,
        node: usize,
        r: &AnswerResult,
        depth: usize,
        out: &mut Vec<u8>,
    ) {
        let Doc { tape, text } = doc;
        let mut fields: Vec<(&str, Patch<'_>)> = vec![("score", Patch::Number(r.score))];
        if let Some(v) = tape.field(text, node, "verbatims") {
            if tape.kind(v) == Kind::Array {
                fields.push(("verbatims", Patch::Quotes(v, &r.quotes)));
            }
        }
        self.write_patched(doc, node, &fields, depth, out);
    }

    fn write_quote(
        &self,
        doc: Doc<'_>,
        node: usize,
        qr: &QuoteResult,
        depth: usize,
        out: &mut Vec<u8>,
    ) {
        self.write_patched(doc, node, &quote_patches(qr), depth, out);
    }

    /// An array node whose object items get their results (item k result
    /// k; other items as written).
    fn write_patched_array<R>(
        &self,
        doc: Doc<'_>,
        node: usize,
        results: &[R],
        depth: usize,
        out: &mut Vec<u8>,
        write: fn(&Self, Doc<'_>, usize, &R, usize, &mut Vec<u8>),
    ) {
        let Doc { tape, text } = doc;
        let mut items = tape.children(node).peekable();
        if items.peek().is_none() {
            out.extend_from_slice(b"[]");
            return;
        }
        out.push(b'[');
        for (k, item) in items.enumerate() {
            if k > 0 {
                out.push(b',');
            }
            newline(out, depth + 1);
            match results.get(k) {
                Some(r) if tape.kind(item) == Kind::Object => {
                    write(self, doc, item, r, depth + 1, out)
                }
                _ => tape.write_pretty(text, item, depth + 1, out),
            }
        }
        newline(out, depth);
        out.push(b']');
    }

    /// An object node with `fields` replacing the entries of the same key
    /// where they stand, the others appended in order.
    fn write_patched(
        &self,
        doc: Doc<'_>,
        node: usize,
        fields: &[(&str, Patch<'_>)],
        depth: usize,
        out: &mut Vec<u8>,
    ) {
        let Doc { tape, text } = doc;
        let mut written = vec![false; fields.len()];
        let mut first = true;
        out.push(b'{');
        let entry = |out: &mut Vec<u8>, first: &mut bool| {
            if !*first {
                out.push(b',');
            }
            *first = false;
            newline(out, depth + 1);
        };
        for (key, value) in tape.entries(node) {
            entry(out, &mut first);
            tape.write_pretty(text, key, depth + 1, out);
            out.extend_from_slice(b": ");
            let name = tape.str_value(text, key);
            match fields.iter().position(|(f, _)| Some(*f) == name.as_deref()) {
                Some(i) => {
                    written[i] = true;
                    self.write_patch(doc, &fields[i].1, depth + 1, out);
                }
                None => tape.write_pretty(text, value, depth + 1, out),
            }
        }
        for (i, (name, patch)) in fields.iter().enumerate() {
            if written[i] {
                continue;
            }
            entry(out, &mut first);
            write_json_string(name, out);
            out.extend_from_slice(b": ");
            self.write_patch(doc, patch, depth + 1, out);
        }
        if first {
            out.push(b'}');
            return;
        }
        newline(out, depth);
        out.push(b'}');
    }

    fn write_patch(&self, doc: Doc<'_>, patch: &Patch<'_>, depth: usize, out: &mut Vec<u8>) {
        match patch {
            Patch::Number(None)
            | Patch::Str(None)
            | Patch::Span(None)
            | Patch::Differences(None) => out.extend_from_slice(b"null"),
            Patch::Differences(Some([])) => out.extend_from_slice(b"[]"),
            Patch::Differences(Some(names)) => {
                out.push(b'[');
                for (k, d) in names.iter().enumerate() {
                    if k > 0 {
                        out.push(b',');
                    }
                    newline(out, depth + 1);
                    out.push(b'"');
                    out.extend_from_slice(d.as_str().as_bytes());
                    out.push(b'"');
                }
                newline(out, depth);
                out.push(b']');
            }
            Patch::Number(Some(x)) => {
                let _ = serde_json::to_writer(&mut *out, x);
            }
            Patch::Str(Some(s)) => write_json_string(s, out),
            Patch::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
            Patch::Span(Some(r)) => {
                out.push(b'{');
                newline(out, depth + 1);
                out.extend_from_slice(b"\"start\": ");
                out.extend_from_slice(r.start.to_string().as_bytes());
                out.push(b',');
                newline(out, depth + 1);
                out.extend_from_slice(b"\"end\": ");
                out.extend_from_slice(r.end.to_string().as_bytes());
                newline(out, depth);
                out.push(b'}');
            }
            Patch::Value(v) => write_value(v, depth, out),
            Patch::Answers(node, results) => {
                self.write_patched_array(doc, *node, results, depth, out, Self::write_answer)
            }
            Patch::Quotes(node, results) => {
                self.write_patched_array(doc, *node, results, depth, out, Self::write_quote)
            }
        }
    }
}

/// The fields a checked quote gets in results.json, in order: `verdict`,
/// `found`, `similarity` (6 decimals), `span`, `time`, `span_speaker`,
/// `attribution`, `differences`, `meaning`, then `location`, `nearest`,
/// `other_source` or `pieces` when it has them.
fn quote_patches(qr: &QuoteResult) -> Vec<(&'static str, Patch<'_>)> {
    let at = &qr.attributed;
    let mut fields: Vec<(&'static str, Patch<'_>)> = vec![
        ("verdict", Patch::Str(Some(qr.check.verdict.as_str()))),
        ("found", Patch::Bool(qr.found)),
        (
            "similarity",
            Patch::Number(Some(round6(qr.check.similarity))),
        ),
        ("span", Patch::Span(qr.check.span.clone())),
        ("time", Patch::Value(json!(qr.time))),
        ("span_speaker", Patch::Str(at.span_speaker.as_deref())),
        (
            "attribution",
            Patch::Str(at.attribution.map(Attribution::as_str)),
        ),
        (
            "differences",
            Patch::Differences(qr.check.differences.as_deref()),
        ),
        ("meaning", Patch::Value(json!(qr.check.meaning))),
    ];
    if let Some(location) = &qr.location {
        fields.push(("location", Patch::Value(json!(location))));
    }
    if let Some(nearest) = &qr.nearest {
        fields.push(("nearest", Patch::Value(json!(nearest))));
    }
    if let Some(src) = &at.other_source {
        fields.push(("other_source", Patch::Value(json!(src))));
    }
    if !at.pieces.is_empty() {
        fields.push(("pieces", Patch::Value(json!(at.pieces))));
    }
    fields
}

/// The fields a checked quote gets in results.json (see `quote_patches`),
/// as a JSON object.
pub(crate) fn quote_fields(qr: &QuoteResult) -> serde_json::Map<String, Value> {
    quote_patches(qr)
        .into_iter()
        .map(|(name, patch)| {
            let v = match patch {
                Patch::Number(x) => json!(x),
                Patch::Str(s) => json!(s),
                Patch::Bool(b) => json!(b),
                Patch::Span(r) => match r {
                    Some(r) => json!({"start": r.start, "end": r.end}),
                    None => Value::Null,
                },
                Patch::Differences(d) => json!(d),
                Patch::Value(v) => v,
                Patch::Answers(..) | Patch::Quotes(..) => Value::Null,
            };
            (name.to_string(), v)
        })
        .collect()
}

/// A value the results add to an object of the document.
enum Patch<'a> {
    Number(Option<f64>),
    Str(Option<&'a str>),
    Bool(bool),
    Span(Option<std::ops::Range<usize>>),
    /// A quote's `differences`: null, or their names (as a pretty array).
    Differences(Option<&'a [citations::differences::Difference]>),
    Value(Value),
    Answers(usize, &'a [AnswerResult]),
    Quotes(usize, &'a [QuoteResult]),
}

/// A value as `serde_json::to_writer_pretty` writes it, `depth` levels in.
fn write_value(v: &Value, depth: usize, out: &mut Vec<u8>) {
    match v {
        Value::Array(items) if !items.is_empty() => {
            out.push(b'[');
            for (k, item) in items.iter().enumerate() {
                if k > 0 {
                    out.push(b',');
                }
                newline(out, depth + 1);
                write_value(item, depth + 1, out);
            }
            newline(out, depth);
            out.push(b']');
        }
        Value::Object(map) if !map.is_empty() => {
            out.push(b'{');
            for (k, (key, value)) in map.iter().enumerate() {
                if k > 0 {
                    out.push(b',');
                }
                newline(out, depth + 1);
                write_json_string(key, out);
                out.extend_from_slice(b": ");
                write_value(value, depth + 1, out);
            }
            newline(out, depth);
            out.push(b'}');
        }
        other => {
            let _ = serde_json::to_writer(&mut *out, other);
        }
    }
}

fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6 + 0.0
}
