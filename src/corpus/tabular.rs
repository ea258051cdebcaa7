//! Row files for the row-oriented commands (text-eval, grounding): a JSON
//! array, JSON Lines, CSV or TSV (chosen by the file extension; CSV and TSV
//! need a header line). Every row becomes a JSON object with a label that
//! error messages use ("row 3 at line 4").

use super::records::parse_records;
use super::{json_kind as kind, read_text, CorpusError};
use serde_json::{Map, Value};
use std::path::Path;

/// One row and where it came from.
#[derive(Debug, Clone)]
pub(crate) struct Row {
    /// "row 3 at line 4" (0-based row index; 1-based line).
    pub label: String,
    /// The fields; CSV/TSV values are strings.
    pub fields: Map<String, Value>,
}

/// Reads a row file (see the module doc).
pub(crate) fn load_rows(path: &Path) -> Result<Vec<Row>, CorpusError> {
    let text = read_text(path)?;
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some("csv") => parse_delimited(path, &text, b','),
        Some("tsv") | Some("tab") => parse_delimited(path, &text, b'\t'),
        _ => parse_json_rows(path, &text),
    }
}

/// Rows from JSON text (an array of objects, an object with an `items`
/// array, or JSON Lines); `path` names the input in errors.
pub(crate) fn parse_json_rows(path: &Path, text: &str) -> Result<Vec<Row>, CorpusError> {
    parse_records(path, text)?
        .into_iter()
        .map(|r| {
            let label = match r.line {
                Some(line) => format!("row {} at line {line}", r.index),
                None => format!("row {}", r.index),
            };
            match r.value {
                Value::Object(fields) => Ok(Row { label, fields }),
                other => Err(CorpusError::Record {
                    path: path.to_path_buf(),
                    record: label,
                    field: "(row)".into(),
                    message: format!("expected an object, found {}", kind(&other)),
                }),
            }
        })
        .collect()
}

/// Parses CSV or TSV text with a header line.
pub(crate) fn parse_delimited(
    path: &Path,
    text: &str,
    delimiter: u8,
) -> Result<Vec<Row>, CorpusError> {
    let mut rows = Vec::new();
    each_delimited(path, text, delimiter, |headers, i, line, rec| {
        let fields: Map<String, Value> = headers
            .iter()
            .zip(rec.iter())
            .map(|(h, v)| (h.clone(), Value::String(v.to_string())))
            .collect();
        rows.push(Row {
            label: format!("row {i} at line {line}"),
            fields,
        });
    })?;
    Ok(rows)
}

/// Streams CSV or TSV text with a header line (a leading byte-order mark
/// skipped, every record as wide as the header): `record` gets the trimmed
/// column names and each record with its 0-based index and 1-based line;
/// returns the column names. A malformed header or record is an error at
/// its line.
pub(crate) fn each_delimited(
    path: &Path,
    text: &str,
    delimiter: u8,
    mut record: impl FnMut(&[String], usize, u64, &csv::StringRecord),
) -> Result<Vec<String>, CorpusError> {
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .has_headers(true)
        .flexible(false)
        .from_reader(text.trim_start_matches('\u{feff}').as_bytes());
    let bad = |line: u64, message: String| CorpusError::Json {
        path: path.to_path_buf(),
        line: line as usize,
        column: 1,
        message,
    };
    let headers: Vec<String> = reader
        .headers()
        .map_err(|e| bad(1, format!("bad header line: {e}")))?
        .iter()
        .map(|h| h.trim().to_string())
        .collect();
    check_header(&headers).map_err(|m| bad(1, m))?;
    let mut rec = csv::StringRecord::new();
    let mut index = 0;
    loop {
        match reader.read_record(&mut rec) {
            Ok(false) => return Ok(headers),
            Ok(true) => {}
            Err(e) => {
                let line = e.position().map_or(0, |p| p.line());
                return Err(bad(line, e.to_string()));
            }
        }
        let line = rec.position().map_or(0, |p| p.line());
        record(&headers, index, line, &rec);
        index += 1;
    }
}

/// A header names each column once, on one line: a name holding a line
/// break is a quote left open (which swallows the rows after it), an empty
/// or repeated name cannot be told apart.
fn check_header(headers: &[String]) -> Result<(), String> {
    for (i, h) in headers.iter().enumerate() {
        let n = i + 1;
        if h.contains(['\n', '\r']) {
            return Err(format!(
                "header column {n} ({}) holds a line break: a quote left open?",
                super::preview(h)
            ));
        }
        if h.is_empty() {
            return Err(format!("header column {n} has no name"));
        }
        if headers[..i].contains(h) {
            return Err(format!(
                "header column {n}: {} names an earlier column too",
                super::Preview(h.as_str())
            ));
        }
    }
    Ok(())
}

impl Row {
    fn error(&self, path: &Path, field: &str, message: String) -> CorpusError {
        CorpusError::Record {
            path: path.to_path_buf(),
            record: self.label.clone(),
            field: field.into(),
            message,
        }
    }

    /// The row's id: a string or a number (written as text); required.
    pub(crate) fn id(&self, path: &Path) -> Result<String, CorpusError> {
        match self.fields.get("id") {
            Some(Value::String(s)) if !s.trim().is_empty() => Ok(s.clone()),
            Some(Value::String(_)) => Err(self.error(path, "id", "empty".into())),
            Some(Value::Number(n)) => Ok(n.to_string()),
            Some(v) => Err(self.error(
                path,
                "id",
                format!("expected a string or number, found {}", kind(v)),
            )),
            None => Err(self.error(path, "id", "missing".into())),
        }
    }

    /// A required text field; null reads as "" (an empty text is scored,
    /// not rejected).
    pub(crate) fn text(&self, path: &Path, field: &str) -> Result<String, CorpusError> {
        match self.fields.get(field) {
            Some(Value::String(s)) => Ok(s.clone()),
            Some(Value::Null) => Ok(String::new()),
            Some(v) => {
                Err(self.error(path, field, format!("expected a string, found {}", kind(v))))
            }
            None => Err(self.error(path, field, "missing".into())),
        }
    }

    /// A required field holding a text or a list of texts.
    pub(crate) fn texts(&self, path: &Path, field: &str) -> Result<Vec<String>, CorpusError> {
        match self.fields.get(field) {
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(i, v)| match v {
                    Value::String(s) => Ok(s.clone()),
                    other => Err(self.error(
                        path,
                        &format!("{field}[{i}]"),
                        format!("expected a string, found {}", kind(other)),
                    )),
                })
                .collect(),
            _ => self.text(path, field).map(|s| vec![s]),
        }
    }

    /// [`Row::text`], moving the text out of the row instead of copying it.
    pub(crate) fn take_text(&mut self, path: &Path, field: &str) -> Result<String, CorpusError> {
        match self.fields.get_mut(field) {
            Some(Value::String(s)) => Ok(std::mem::take(s)),
            _ => self.text(path, field),
        }
    }

    /// [`Row::texts`], moving the texts out of the row instead of copying
    /// them.
    pub(crate) fn take_texts(
        &mut self,
        path: &Path,
        field: &str,
    ) -> Result<Vec<String>, CorpusError> {
        if let Some(Value::Array(items)) = self.fields.get_mut(field) {
            if items.iter().all(Value::is_string) {
                return Ok(items
                    .iter_mut()
                    .map(|v| match std::mem::take(v) {
                        Value::String(s) => s,
                        _ => String::new(),
                    })
                    .collect());
            }
            return self.texts(path, field);
        }
        self.take_text(path, field).map(|s| vec![s])
    }

    /// An error about this row's `field`.
    pub(crate) fn invalid(&self, path: &Path, field: &str, message: String) -> CorpusError {
        self.error(path, field, message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_and_tsv_rows_are_labelled() {
        let p = Path::new("x.csv");
        let rows =
            parse_delimited(p, "id,question\n1,\"a, b\"\n2,\"multi\nline\"\n", b',').unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].text(p, "question").unwrap(), "a, b");
        assert_eq!(rows[1].label, "row 1 at line 3");
        let e = rows[0].text(p, "response").unwrap_err().to_string();
        assert_eq!(e, "x.csv: row 0 at line 2: field `response`: missing");
        let rows = parse_delimited(Path::new("x.tsv"), "id\tq\nA\tb c\n", b'\t').unwrap();
        assert_eq!(rows[0].id(p).unwrap(), "A");
        let e = parse_delimited(p, "id,q\n1,2,3\n", b',')
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("x.csv:2:"), "{e}");
    }

    #[test]
    fn json_rows_and_field_types() {
        let p = Path::new("x.json");
        let rows = parse_json_rows(p, r#"[{"id": 7, "t": null, "c": ["a", "b"], "n": 3}, 5]"#);
        let e = rows.unwrap_err().to_string();
        assert_eq!(
            e,
            "x.json: row 1: field `(row)`: expected an object, found a number"
        );
        let rows =
            parse_json_rows(p, r#"[{"id": 7, "t": null, "c": ["a", "b"], "n": 3}]"#).unwrap();
        assert_eq!(rows[0].id(p).unwrap(), "7");
        assert_eq!(rows[0].text(p, "t").unwrap(), "");
        assert_eq!(rows[0].texts(p, "c").unwrap(), vec!["a", "b"]);
        let e = rows[0].text(p, "n").unwrap_err().to_string();
        assert!(
            e.contains("field `n`: expected a string, found a number"),
            "{e}"
        );
        let rows =
            parse_json_rows(Path::new("x.jsonl"), "{\"id\": \"a\"}\n\n{\"id\": \"b\"}\n").unwrap();
        assert_eq!(rows[1].label, "row 1 at line 3");
    }
}
