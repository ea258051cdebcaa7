//! Arrow batches in, Arrow batches out: the kernels the data engines call
//! (`corpus_eval.arrow`). Tables cross the boundary through the Arrow C
//! stream interface (PyCapsules named `arrow_array_stream`): no Python
//! object per row, and the columns are read in place.

use arrow_array::cast::AsArray;
use arrow_array::ffi_stream::{FFI_ArrowArrayStream, RecordBatchStreamReader};
use arrow_array::{
    Array, ArrayRef, BooleanArray, Float64Array, Int64Array, RecordBatch, RecordBatchIterator,
    StringArray, UInt64Array,
};
use arrow_schema::{DataType, Field, Schema};
use corpus_eval::jobs::{self, inline};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;
use std::sync::Arc;

const STREAM: &std::ffi::CStr = c"arrow_array_stream";

fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// The batches of an Arrow stream capsule (the stream is moved out of it).
fn import(capsule: &Bound<'_, PyCapsule>) -> PyResult<Vec<RecordBatch>> {
    let ptr = capsule.pointer_checked(Some(STREAM))?;
    // SAFETY: a capsule named "arrow_array_stream" holds an initialized
    // ArrowArrayStream (the C stream interface's contract); the reader
    // moves it out and leaves a released one behind, which the capsule's
    // owner may drop.
    let reader =
        unsafe { RecordBatchStreamReader::from_raw(ptr.as_ptr().cast()) }.map_err(value_error)?;
    reader.collect::<Result<Vec<_>, _>>().map_err(value_error)
}

/// A capsule holding a stream of `batch`.
fn export(py: Python<'_>, batch: RecordBatch) -> PyResult<Bound<'_, PyCapsule>> {
    let schema = batch.schema();
    let reader = RecordBatchIterator::new(vec![Ok(batch)], schema);
    let stream = FFI_ArrowArrayStream::new(Box::new(reader));
    PyCapsule::new_with_value(py, stream, STREAM)
}

/// The text cells of column `name` across `batches` (None where null);
/// None when the table has no such column.
fn strings<'b>(batches: &'b [RecordBatch], name: &str) -> PyResult<Option<Vec<Option<&'b str>>>> {
    let Some(first) = batches.first() else {
        return Ok(Some(Vec::new()));
    };
    if first.schema().column_with_name(name).is_none() {
        return Ok(None);
    }
    let mut out = Vec::new();
    for b in batches {
        let Some(col) = b.column_by_name(name) else {
            return Err(value_error(format!(
                "column {name:?} is missing from a batch"
            )));
        };
        match col.data_type() {
            DataType::Utf8 => {
                let a = col.as_string::<i32>();
                out.extend((0..a.len()).map(|i| (!a.is_null(i)).then(|| a.value(i))));
            }
            DataType::LargeUtf8 => {
                let a = col.as_string::<i64>();
                out.extend((0..a.len()).map(|i| (!a.is_null(i)).then(|| a.value(i))));
            }
            DataType::Utf8View => {
                let a = col.as_string_view();
                out.extend((0..a.len()).map(|i| (!a.is_null(i)).then(|| a.value(i))));
            }
            DataType::Null => out.extend(std::iter::repeat_n(None, col.len())),
            other => {
                return Err(value_error(format!(
                    "column {name:?} must hold strings (utf8, large_utf8 or string_view), found {other}"
                )))
            }
        }
    }
    Ok(Some(out))
}

/// A required text column.
fn required<'b>(batches: &'b [RecordBatch], name: &str) -> PyResult<Vec<Option<&'b str>>> {
    strings(batches, name)?.ok_or_else(|| value_error(format!("the table has no column {name:?}")))
}

/// [`integers`] of a column the table may lack (empty then).
fn optional_integers(batches: &[RecordBatch], name: &str) -> PyResult<Vec<Option<i64>>> {
    if batches.iter().any(|b| b.column_by_name(name).is_none()) {
        return Ok(Vec::new());
    }
    integers(batches, name)
}

/// The integer cells of column `name` (any integer type; None where null).
fn integers(batches: &[RecordBatch], name: &str) -> PyResult<Vec<Option<i64>>> {
    use arrow_array::types::*;
    let mut out = Vec::new();
    for b in batches {
        let Some(col) = b.column_by_name(name) else {
            return Err(value_error(format!("the table has no column {name:?}")));
        };
        macro_rules! take {
            ($t:ty) => {{
                let a = col.as_primitive::<$t>();
                out.extend((0..a.len()).map(|i| (!a.is_null(i)).then(|| a.value(i) as i64)));
            }};
        }
        match col.data_type() {
            DataType::Int8 => take!(Int8Type),
            DataType::Int16 => take!(Int16Type),
            DataType::Int32 => take!(Int32Type),
            DataType::Int64 => take!(Int64Type),
            DataType::UInt8 => take!(UInt8Type),
            DataType::UInt16 => take!(UInt16Type),
            DataType::UInt32 => take!(UInt32Type),
            DataType::UInt64 => take!(UInt64Type),
            other => {
                return Err(value_error(format!(
                    "column {name:?} must hold integers, found {other}"
                )))
            }
        }
    }
    Ok(out)
}

/// The number cells of column `name` (floats or integers; None where null).
fn numbers(batches: &[RecordBatch], name: &str) -> PyResult<Vec<Option<f64>>> {
    use arrow_array::types::*;
    let mut out = Vec::new();
    for b in batches {
        let Some(col) = b.column_by_name(name) else {
            return Err(value_error(format!("the table has no column {name:?}")));
        };
        match col.data_type() {
            DataType::Float64 => {
                let a = col.as_primitive::<Float64Type>();
                out.extend((0..a.len()).map(|i| (!a.is_null(i)).then(|| a.value(i))));
            }
            DataType::Float32 => {
                let a = col.as_primitive::<Float32Type>();
                out.extend((0..a.len()).map(|i| (!a.is_null(i)).then(|| f64::from(a.value(i)))));
            }
            DataType::Null => out.extend(std::iter::repeat_n(None, col.len())),
            _ => out.extend(
                integers(std::slice::from_ref(b), name)?
                    .into_iter()
                    .map(|x| x.map(|v| v as f64)),
            ),
        }
    }
    Ok(out)
}

/// The boolean cells of column `name` (None where null).
fn booleans(batches: &[RecordBatch], name: &str) -> PyResult<Vec<Option<bool>>> {
    let mut out = Vec::new();
    for b in batches {
        let Some(col) = b.column_by_name(name) else {
            return Err(value_error(format!("the table has no column {name:?}")));
        };
        match col.data_type() {
            DataType::Boolean => {
                let a = col.as_boolean();
                out.extend((0..a.len()).map(|i| (!a.is_null(i)).then(|| a.value(i))));
            }
            other => {
                return Err(value_error(format!(
                    "column {name:?} must hold booleans, found {other}"
                )))
            }
        }
    }
    Ok(out)
}

/// Quote `k`'s cited place: its `time` (seconds or `hh:mm:ss`) or its
/// `line` (`45` or `45-47`), not both.
fn cited_place(
    k: usize,
    time: Option<&str>,
    line: Option<&str>,
) -> PyResult<Option<corpus_eval::corpus::CitedPlace>> {
    corpus_eval::corpus::CitedPlace::from_fields(time, line)
        .map_err(|(field, why)| value_error(format!("quote {k}: field `{field}`: {why}")))
}

/// One quote of a JSON array (`verify_quotes`): its input and its id.
pub(crate) fn quote_of_json(
    k: usize,
    item: &serde_json::Value,
) -> PyResult<(inline::QuoteInput, Option<serde_json::Value>)> {
    let text = |field: &str| -> PyResult<Option<String>> {
        match item.get(field) {
            None | Some(serde_json::Value::Null) => Ok(None),
            Some(serde_json::Value::String(s)) => Ok(Some(s.clone())),
            Some(serde_json::Value::Number(n)) if field != "quote" => Ok(Some(n.to_string())),
            Some(_) => Err(value_error(format!(
                "quote {k}: field `{field}`: expected a string"
            ))),
        }
    };
    if !item.is_object() {
        return Err(value_error(format!(
            "quote {k}: expected an object {{\"quote\", \"source\"}}"
        )));
    }
    let quote =
        text("quote")?.ok_or_else(|| value_error(format!("quote {k}: field `quote`: missing")))?;
    let place = cited_place(k, text("time")?.as_deref(), text("line")?.as_deref())?;
    Ok((
        inline::QuoteInput {
            quote,
            source: text("source")?,
            speaker: text("speaker")?,
            answer: text("answer")?,
            place,
        },
        item.get("id").cloned(),
    ))
}

/// `arrow.verify_quotes`: a stream of rows `quote`, `source` (optional
/// `id`, `speaker`, `answer`) and the corpus's JSON text; returns a stream
/// of one row per input row, in order: `id` (when given), `verdict`,
/// `found`, `similarity`, `span_start`, `span_end`, `span_speaker`,
/// `attribution`, `other_source` and `pieces` (JSON text, null when
/// absent), `differences` and `meaning` (`;`-joined, as in quotes.csv;
/// null when not found).
#[pyfunction]
pub fn verify_quotes_arrow<'py>(
    py: Python<'py>,
    stream: &Bound<'py, PyCapsule>,
    transcripts: &Bound<'py, PyAny>,
    config_json: &str,
) -> PyResult<Bound<'py, PyCapsule>> {
    let config: jobs::evaluate::Config = super::config(config_json)?;
    let corpus = super::Transcripts::of(transcripts)?;
    let batches = import(stream)?;
    let batch = py.detach(|| -> PyResult<RecordBatch> {
        let quotes = required(&batches, "quote")?;
        let sources = required(&batches, "source")?;
        let speakers = strings(&batches, "speaker")?;
        let answers = strings(&batches, "answer")?;
        let ids = strings(&batches, "id")?;
        let times = strings(&batches, "time")?;
        let lines = strings(&batches, "line")?;
        let placed = times.is_some() || lines.is_some();
        let inputs: Vec<inline::QuoteInput> = (0..quotes.len())
            .map(|k| {
                let time = times.as_ref().and_then(|t| t[k]);
                let line = lines.as_ref().and_then(|l| l[k]);
                Ok(inline::QuoteInput {
                    quote: quotes[k].unwrap_or_default().to_string(),
                    source: sources[k].map(str::to_string),
                    speaker: speakers.as_ref().and_then(|s| s[k]).map(str::to_string),
                    answer: answers.as_ref().and_then(|s| s[k]).map(str::to_string),
                    place: cited_place(k, time, line)?,
                })
            })
            .collect::<PyResult<_>>()?;
        let results = super::check(&config, &inputs, &corpus).map_err(value_error)?;
        let field = |name: &str| -> Vec<Option<String>> {
            results
                .iter()
                .map(|r| match r.get(name) {
                    Some(serde_json::Value::String(s)) => Some(s.clone()),
                    Some(serde_json::Value::Null) | None => None,
                    Some(v) => Some(v.to_string()),
                })
                .collect()
        };
        let span = |end: &str| -> Vec<Option<u64>> {
            results
                .iter()
                .map(|r| {
                    r.get("span")
                        .and_then(|s| s.get(end))
                        .and_then(serde_json::Value::as_u64)
                })
                .collect()
        };
        let mut columns: Vec<(&str, ArrayRef)> = Vec::new();
        if let Some(ids) = ids {
            columns.push(("id", Arc::new(StringArray::from(ids)) as ArrayRef));
        }
        columns.push(("verdict", Arc::new(StringArray::from(field("verdict")))));
        columns.push((
            "found",
            Arc::new(BooleanArray::from(
                results
                    .iter()
                    .map(|r| r.get("found").and_then(serde_json::Value::as_bool))
                    .collect::<Vec<_>>(),
            )),
        ));
        columns.push((
            "similarity",
            Arc::new(Float64Array::from(
                results
                    .iter()
                    .map(|r| r.get("similarity").and_then(serde_json::Value::as_f64))
                    .collect::<Vec<_>>(),
            )),
        ));
        columns.push(("span_start", Arc::new(UInt64Array::from(span("start")))));
        columns.push(("span_end", Arc::new(UInt64Array::from(span("end")))));
        for name in ["span_speaker", "attribution", "other_source", "pieces"] {
            columns.push((name, Arc::new(StringArray::from(field(name)))));
        }
        // What was ignored to find each quote, `;`-joined as in
        // quotes.csv (null when not found).
        let differences: Vec<Option<String>> = results
            .iter()
            .map(|r| {
                r.get("differences")
                    .and_then(serde_json::Value::as_array)
                    .map(|d| {
                        d.iter()
                            .filter_map(serde_json::Value::as_str)
                            .collect::<Vec<_>>()
                            .join(";")
                    })
            })
            .collect();
        columns.push(("differences", Arc::new(StringArray::from(differences))));
        // What the match changes in what was said: the classes, `;`-joined
        // as in quotes.csv (null when nothing was matched).
        let meaning: Vec<Option<String>> = results
            .iter()
            .map(|r| {
                r.get("meaning")
                    .cloned()
                    .and_then(|v| {
                        serde_json::from_value::<Vec<corpus_eval::citations::MeaningChange>>(v).ok()
                    })
                    .map(|changes| corpus_eval::citations::meaning_classes(&changes))
            })
            .collect();
        columns.push(("meaning", Arc::new(StringArray::from(meaning))));
        // Where each quote stands against its cited place (JSON text, null
        // without one): only when the input gives places.
        if placed {
            columns.push(("location", Arc::new(StringArray::from(field("location")))));
        }
        record_batch(columns)
    })?;
    export(py, batch)
}

/// A batch of named columns (all nullable).
fn record_batch(columns: Vec<(&str, ArrayRef)>) -> PyResult<RecordBatch> {
    let schema = Schema::new(
        columns
            .iter()
            .map(|(name, a)| Field::new(*name, a.data_type().clone(), true))
            .collect::<Vec<_>>(),
    );
    RecordBatch::try_new(
        Arc::new(schema),
        columns.into_iter().map(|(_, a)| a).collect(),
    )
    .map_err(value_error)
}

/// A metric cell: its JSON value, or the text itself when it is not JSON
/// (`yes`).
fn metric_value(cell: Option<&str>) -> serde_json::Value {
    match cell {
        None => serde_json::Value::Null,
        Some(s) => serde_json::from_str(s).unwrap_or_else(|_| serde_json::Value::String(s.into())),
    }
}

/// `arrow.score_answers`: a stream of rows `answer`, `type`, `metric`
/// (JSON text, or a plain string such as `yes`; optional `id`); returns a
/// stream of one row per input row, in order: `id` (when given),
/// `score` (null when the metric cannot be used), `question_type` (the
/// type's canonical name) and `warning` (why unscored).
#[pyfunction]
pub fn score_answers_arrow<'py>(
    py: Python<'py>,
    stream: &Bound<'py, PyCapsule>,
    config_json: &str,
) -> PyResult<Bound<'py, PyCapsule>> {
    let config: jobs::evaluate::Config = super::config(config_json)?;
    let batches = import(stream)?;
    let batch = py.detach(|| -> PyResult<RecordBatch> {
        let answers = required(&batches, "answer")?;
        let types = required(&batches, "type")?;
        let metrics = required(&batches, "metric")?;
        let ids = strings(&batches, "id")?;
        let metric_values: Vec<serde_json::Value> =
            metrics.iter().map(|m| metric_value(*m)).collect();
        let lexicon = super::lexicon(config.wordnet.as_deref())?;
        let items: Vec<corpus_eval::scoring::ScoreItem<'_>> = (0..answers.len())
            .map(|k| corpus_eval::scoring::ScoreItem {
                answer: answers[k].unwrap_or_default(),
                qtype: types[k].unwrap_or_default(),
                metric: &metric_values[k],
            })
            .collect();
        let scored = corpus_eval::scoring::score_many(&items, &lexicon);
        let mut columns: Vec<(&str, ArrayRef)> = Vec::new();
        if let Some(ids) = ids {
            columns.push(("id", Arc::new(StringArray::from(ids)) as ArrayRef));
        }
        columns.push((
            "score",
            Arc::new(Float64Array::from(
                scored
                    .iter()
                    .map(|r| r.as_ref().ok().copied().filter(|s| s.is_finite()))
                    .collect::<Vec<_>>(),
            )),
        ));
        columns.push((
            "question_type",
            Arc::new(StringArray::from(
                items
                    .iter()
                    .map(|i| {
                        corpus_eval::scoring::QuestionType::parse(i.qtype)
                            .ok()
                            .map(|t| t.name())
                    })
                    .collect::<Vec<_>>(),
            )),
        ));
        columns.push((
            "warning",
            Arc::new(StringArray::from(
                scored
                    .iter()
                    .map(|r| r.as_ref().err().map(ToString::to_string))
                    .collect::<Vec<_>>(),
            )),
        ));
        record_batch(columns)
    })?;
    export(py, batch)
}

/// `arrow.summarize`: summary.json of `evaluate` from the per-item tables
/// of its pairs (`pair_index`, `id`, `type`, `metric`), answers
/// (`pair_index`, `answer_index`, `source`, `score`) and quotes
/// (`pair_index`, `answer_index`, `quote_index`, `source`, `verdict`,
/// `found`, `attribution`), in any row order; returns it as JSON text.
/// The summary parts of the evaluation three item tables describe (what
/// `summarize` finishes and `summary_parts` returns).
fn tables_parts(
    pairs: &[RecordBatch],
    answers: &[RecordBatch],
    quotes: &[RecordBatch],
    config: &jobs::evaluate::Config,
) -> PyResult<corpus_eval::evaluate::SummaryParts> {
    let lexicon = super::lexicon(config.wordnet.as_deref())?;
    let p = corpus_eval::evaluate::Pairs {
        index: integers(pairs, "pair_index")?,
        id: required(pairs, "id")?,
        qtype: required(pairs, "type")?,
        metric: required(pairs, "metric")?
            .into_iter()
            .map(metric_value)
            .collect(),
        // The counts of the question file (item_tables writes them):
        // rows lost or doubled are an error naming the pairs.
        answers: optional_integers(pairs, "answers")?,
        quotes: optional_integers(pairs, "quotes")?,
    };
    let a = corpus_eval::evaluate::Answers {
        pair: integers(answers, "pair_index")?,
        index: integers(answers, "answer_index")?,
        source: required(answers, "source")?,
        score: numbers(answers, "score")?,
    };
    let q = corpus_eval::evaluate::Quotes {
        pair: integers(quotes, "pair_index")?,
        answer: integers(quotes, "answer_index")?,
        index: integers(quotes, "quote_index")?,
        source: required(quotes, "source")?,
        verdict: required(quotes, "verdict")?,
        found: booleans(quotes, "found")?,
        attribution: required(quotes, "attribution")?,
        meaning: strings(quotes, "meaning")?,
    };
    let eval_config = config.eval_config().map_err(value_error)?;
    let eval = corpus_eval::evaluate::evaluation(&p, &a, &q, &lexicon, &eval_config)
        .map_err(value_error)?;
    // evaluation() orders the pairs by position (each checked there).
    let mut positions: Vec<usize> = p
        .index
        .iter()
        .filter_map(|i| i.and_then(|i| usize::try_from(i).ok()))
        .collect();
    positions.sort_unstable();
    Ok(corpus_eval::evaluate::SummaryParts::of_pairs(
        &eval, &positions,
    ))
}

/// `arrow.summarize`: summary.json from the three item tables.
#[pyfunction]
pub fn summarize_arrow(
    py: Python<'_>,
    pairs: &Bound<'_, PyCapsule>,
    answers: &Bound<'_, PyCapsule>,
    quotes: &Bound<'_, PyCapsule>,
    config_json: &str,
) -> PyResult<String> {
    let config: jobs::evaluate::Config = super::config(config_json)?;
    let (pairs, answers, quotes) = (import(pairs)?, import(answers)?, import(quotes)?);
    py.detach(|| {
        let eval_config = config.eval_config().map_err(value_error)?;
        let summary = tables_parts(&pairs, &answers, &quotes, &config)?.finish(&eval_config);
        serde_json::to_string(&summary).map_err(value_error)
    })
}

/// `arrow.summary_parts`: a partition's summary parts (JSON) from the item
/// tables of some of the pairs (each pair with all its answers and quotes).
#[pyfunction]
pub fn summary_parts_arrow(
    py: Python<'_>,
    pairs: &Bound<'_, PyCapsule>,
    answers: &Bound<'_, PyCapsule>,
    quotes: &Bound<'_, PyCapsule>,
    config_json: &str,
) -> PyResult<String> {
    let config: jobs::evaluate::Config = super::config(config_json)?;
    let (pairs, answers, quotes) = (import(pairs)?, import(answers)?, import(quotes)?);
    py.detach(|| {
        let parts = tables_parts(&pairs, &answers, &quotes, &config)?;
        serde_json::to_string(&parts).map_err(value_error)
    })
}

/// `arrow.combine`: summary.json from partitions' summary parts (JSON
/// texts), merged in any order.
#[pyfunction]
pub fn combine_parts(py: Python<'_>, parts: Vec<String>, config_json: &str) -> PyResult<String> {
    let config: jobs::evaluate::Config = super::config(config_json)?;
    py.detach(|| {
        if parts.is_empty() {
            return Err(value_error("combine needs at least one summary part"));
        }
        let mut all = corpus_eval::evaluate::SummaryParts::default();
        for (k, text) in parts.iter().enumerate() {
            let part: corpus_eval::evaluate::SummaryParts = serde_json::from_str(text)
                .map_err(|e| value_error(format!("summary part {k}: {e}")))?;
            all.merge(&part)
                .map_err(|e| value_error(format!("summary part {k}: {e}")))?;
        }
        // The parts' settings must be these (the seed and resamples of
        // the intervals come from here).
        let lexicon = super::lexicon(config.wordnet.as_deref())?;
        let eval_config = config.eval_config().map_err(value_error)?;
        let want = corpus_eval::evaluate::signature(&lexicon, &eval_config);
        if all.signature != want {
            return Err(value_error(format!(
                "the summary parts were made with other settings ({}) than these ({want})",
                all.signature
            )));
        }
        let summary = all.finish(&eval_config);
        serde_json::to_string(&summary).map_err(value_error)
    })
}

/// `arrow.other_sources`: for each quote of a batch (columns `quote`,
/// `source`), the first transcript of a prepared corpus in corpus order,
/// other than the one it cites, that holds it: `other_source` (JSON text,
/// as `verify_quotes` writes it; null when none).
#[pyfunction]
pub fn other_sources_arrow<'py>(
    py: Python<'py>,
    stream: &Bound<'py, PyCapsule>,
    transcripts: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyCapsule>> {
    let Ok(corpus) = transcripts.cast::<super::Corpus>() else {
        return Err(value_error("other_sources takes a corpus_eval.Corpus"));
    };
    let prepared = corpus.get().prepared.clone();
    let batches = import(stream)?;
    let batch = py.detach(|| -> PyResult<RecordBatch> {
        let quotes = required(&batches, "quote")?;
        let sources = required(&batches, "source")?;
        let lookups: Vec<(Option<&str>, &str)> = quotes
            .iter()
            .zip(&sources)
            .map(|(q, s)| (*s, q.unwrap_or_default()))
            .collect();
        let found = corpus_eval::evaluate::other_sources_prepared(&lookups, &prepared)
            .map_err(value_error)?;
        let texts: Vec<Option<String>> = found
            .iter()
            .map(|o| o.as_ref().and_then(|o| serde_json::to_string(o).ok()))
            .collect();
        record_batch(vec![(
            "other_source",
            Arc::new(StringArray::from(texts)) as ArrayRef,
        )])
    })?;
    export(py, batch)
}

/// `arrow.item_tables`: a question document (its JSON text; `name` stands
/// for its file in error messages), read by the core's question loader and
/// flattened into the three item tables the kernels and `summarize` take:
/// pairs (`pair_index`, `id`, `type`, `metric` as JSON text, and the
/// pair's `answers` and `quotes` counts), answers (`pair_index`,
/// `answer_index`, `answer`, `source`, `type`, `metric`) and quotes
/// (`pair_index`, `answer_index`, `quote_index`, `quote`, `source`,
/// `speaker`, `answer` as `"PAIR/ANSWER"`).
#[pyfunction]
pub fn item_tables_arrow<'py>(
    py: Python<'py>,
    text: &str,
    name: &str,
) -> PyResult<(
    Bound<'py, PyCapsule>,
    Bound<'py, PyCapsule>,
    Bound<'py, PyCapsule>,
)> {
    let (pairs, answers, quotes) = py.detach(|| -> PyResult<_> {
        let set = corpus_eval::corpus::Loader::new()
            .questions_text(std::path::Path::new(name), text)
            .map_err(value_error)?;
        item_batches(&set.pairs)
    })?;
    Ok((
        export(py, pairs)?,
        export(py, answers)?,
        export(py, quotes)?,
    ))
}

/// The pairs, answers and quotes batches of [`item_tables_arrow`].
fn item_batches(
    pairs: &[corpus_eval::corpus::QaPair],
) -> PyResult<(RecordBatch, RecordBatch, RecordBatch)> {
    let count = |n: usize| i64::try_from(n).map_err(value_error);
    let ints = |v: Vec<i64>| Arc::new(Int64Array::from(v)) as ArrayRef;
    let texts = |v: Vec<Option<String>>| Arc::new(StringArray::from(v)) as ArrayRef;
    // pairs: pair_index, id, type, metric, answers, quotes.
    let (mut p_index, mut p_id, mut p_type, mut p_metric, mut p_answers, mut p_quotes) =
        (vec![], vec![], vec![], vec![], vec![], vec![]);
    // answers: pair_index, answer_index, answer, source, type, metric.
    let (mut a_pair, mut a_index, mut a_answer, mut a_source, mut a_type, mut a_metric) =
        (vec![], vec![], vec![], vec![], vec![], vec![]);
    // quotes: pair_index, answer_index, quote_index, quote, source,
    // speaker, answer.
    let (mut q_pair, mut q_answer_index, mut q_index) = (vec![], vec![], vec![]);
    let (mut q_quote, mut q_source, mut q_speaker, mut q_answer) = (vec![], vec![], vec![], vec![]);
    for (pi, pair) in pairs.iter().enumerate() {
        let pi = count(pi)?;
        let metric = serde_json::to_string(&pair.metric).map_err(value_error)?;
        let quotes: usize = pair.answers.iter().map(|x| x.quotes.len()).sum();
        p_index.push(pi);
        p_id.push(Some(pair.id.clone()));
        p_type.push(Some(pair.qtype.clone()));
        p_metric.push(Some(metric.clone()));
        p_answers.push(count(pair.answers.len())?);
        p_quotes.push(count(quotes)?);
        for (ai, answer) in pair.answers.iter().enumerate() {
            let ai = count(ai)?;
            a_pair.push(pi);
            a_index.push(ai);
            a_answer.push(Some(answer.answer.clone()));
            a_source.push(answer.source.clone());
            a_type.push(Some(pair.qtype.clone()));
            a_metric.push(Some(metric.clone()));
            for (k, quote) in answer.quotes.iter().enumerate() {
                q_pair.push(pi);
                q_answer_index.push(ai);
                q_index.push(count(k)?);
                q_quote.push(Some(quote.quote.clone()));
                q_source.push(quote.source.clone());
                q_speaker.push(quote.speaker.clone());
                q_answer.push(Some(format!("{pi}/{ai}")));
            }
        }
    }
    let pairs = record_batch(vec![
        ("pair_index", ints(p_index)),
        ("id", texts(p_id)),
        ("type", texts(p_type)),
        ("metric", texts(p_metric)),
        ("answers", ints(p_answers)),
        ("quotes", ints(p_quotes)),
    ])?;
    let answers = record_batch(vec![
        ("pair_index", ints(a_pair)),
        ("answer_index", ints(a_index)),
        ("answer", texts(a_answer)),
        ("source", texts(a_source)),
        ("type", texts(a_type)),
        ("metric", texts(a_metric)),
    ])?;
    let quotes = record_batch(vec![
        ("pair_index", ints(q_pair)),
        ("answer_index", ints(q_answer_index)),
        ("quote_index", ints(q_index)),
        ("quote", texts(q_quote)),
        ("source", texts(q_source)),
        ("speaker", texts(q_speaker)),
        ("answer", texts(q_answer)),
    ])?;
    Ok((pairs, answers, quotes))
}
