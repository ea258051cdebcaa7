//! The files of a check-report run a program reads: results.json (each
//! quote's place in the report, its citation and its check), quotes.csv
//! (the same, flat) and items.csv (what `compare` pairs). The job
//! (`jobs::check_report`) writes them into its run folder; the Python
//! function returns the records.

use crate::check_report::CheckedQuote;
use crate::citations::attribution::Attribution;
use serde_json::{json, Value};

/// One quote's record in results.json.
pub(crate) fn quote_record(q: &CheckedQuote) -> Value {
    let mut m = serde_json::Map::new();
    m.insert("quote_id".into(), json!(q.quote_id));
    m.insert("text".into(), json!(q.text));
    m.insert("line".into(), json!(q.line));
    m.insert("column".into(), json!(q.column));
    m.insert("block".into(), json!(q.block));
    m.insert("cue".into(), json!(q.cue));
    m.insert("cited".into(), json!(q.cited));
    m.insert("source".into(), json!(q.result.source));
    m.extend(super::results::quote_fields(&q.result));
    Value::Object(m)
}

/// results.json: `{"quotes": [...], "signature": ...}`.
pub(crate) fn results_json(quotes: &[CheckedQuote], signature: &str) -> Value {
    json!({
        "quotes": quotes.iter().map(quote_record).collect::<Vec<_>>(),
        "signature": signature,
    })
}

/// The columns of `quotes.csv`.
pub(crate) const QUOTE_COLUMNS: [&str; 21] = [
    "quote_id",
    "line",
    "column",
    "text",
    "cue",
    "cited_label",
    "cited_source",
    "cited_speaker",
    "source",
    "verdict",
    "attribution",
    "found",
    "similarity",
    "span_start",
    "span_end",
    "span_speaker",
    "time_start",
    "time_end",
    "differences",
    "meaning",
    "other_source",
];

/// `quotes.csv`: one row per quote, flat.
pub(crate) fn quotes_csv(quotes: &[CheckedQuote]) -> Vec<u8> {
    let mut out = crate::report::csv::CsvBuffer::new();
    out.record(QUOTE_COLUMNS);
    for q in quotes {
        let r = &q.result;
        let cited = q.cited.as_ref();
        let opt = |s: Option<&str>| s.unwrap_or("").to_string();
        let number = |x: Option<f64>| x.map(|x| (x + 0.0).to_string()).unwrap_or_default();
        let span = r.check.span.as_ref();
        let differences = super::differences_cell(r.check.differences.as_deref());
        let meaning = super::meaning_cell(r.check.meaning.as_deref());
        out.record([
            q.quote_id.clone(),
            q.line.to_string(),
            q.column.to_string(),
            q.text.clone(),
            opt(q.cue),
            opt(cited.map(|c| c.label.as_str())),
            opt(cited.and_then(|c| c.source.as_deref())),
            opt(cited.and_then(|c| c.speaker.as_deref())),
            opt(r.source.as_deref()),
            r.check.verdict.as_str().to_string(),
            opt(r.attributed.attribution.map(Attribution::as_str)),
            r.found.to_string(),
            number(Some((r.check.similarity * 1e6).round() / 1e6)),
            span.map(|s| s.start.to_string()).unwrap_or_default(),
            span.map(|s| s.end.to_string()).unwrap_or_default(),
            opt(r.attributed.span_speaker.as_deref()),
            number(r.time.as_ref().and_then(|t| t.start)),
            number(r.time.as_ref().and_then(|t| t.end)),
            differences,
            meaning,
            opt(r
                .attributed
                .other_source
                .as_ref()
                .map(|o| o.source.as_str())),
        ]);
    }
    out.into_bytes()
}

/// `items.csv`, what `compare` pairs: `quote_id,source,ok,found` (1 or 0).
pub(crate) fn items_csv(quotes: &[CheckedQuote]) -> Vec<u8> {
    let mut out = crate::report::csv::CsvBuffer::new();
    out.record(["quote_id", "source", "ok", "found"]);
    let bit = |b: bool| if b { "1" } else { "0" };
    for q in quotes {
        out.record([
            q.quote_id.as_str(),
            q.result.source.as_deref().unwrap_or(""),
            bit(q.ok()),
            bit(q.result.found),
        ]);
    }
    out.into_bytes()
}
