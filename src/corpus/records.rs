//! Record files: a JSON array (or an object holding an `items` array) or
//! JSON Lines, one object per line. Each record comes with a label that
//! error messages use ("item 3 (line 4)").

use super::{json_error, read_text, CorpusError};
use serde_json::Value;
use std::path::Path;

/// One record and where it came from.
#[derive(Debug, Clone)]
pub(crate) struct Record {
    /// 0-based position among the records.
    pub index: usize,
    /// 1-based line in the file, for JSON Lines.
    pub line: Option<usize>,
    /// The record.
    pub value: Value,
}

impl Record {
    /// "item 3" or "item 3 (line 4)", with the id when there is one.
    pub(crate) fn label(&self, id: Option<&str>) -> String {
        let mut s = format!("item {}", self.index);
        if let Some(id) = id {
            s.push_str(&format!(" (id {:?})", super::Preview(id)));
        }
        if let Some(line) = self.line {
            s.push_str(&format!(" at line {line}"));
        }
        s
    }
}

/// Reads a record file: JSON Lines when the name ends in .jsonl/.ndjson or
/// when the text holds several top-level JSON values, else one JSON
/// document (an array of records, an object with an `items` array, or one
/// record).
pub(crate) fn load_records(path: &Path) -> Result<Vec<Record>, CorpusError> {
    let text = read_text(path)?;
    parse_records(path, &text)
}

/// Parses record-file text (see [`load_records`]).
pub(crate) fn parse_records(path: &Path, text: &str) -> Result<Vec<Record>, CorpusError> {
    let jsonl_name = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("jsonl") || e.eq_ignore_ascii_case("ndjson"));
    if !jsonl_name {
        match super::strict_json::parse_str(text) {
            Ok(doc) => return Ok(from_document(doc)),
            Err(e) if !e.to_string().starts_with("trailing characters") => {
                return Err(json_error(path, &e))
            }
            Err(_) => {}
        }
    }
    // Lines parse in parallel; the first bad line (in file order) is the
    // error reported.
    use rayon::prelude::*;
    let lines: Vec<(usize, &str)> = super::strict_json::strip_bom(text)
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .collect();
    let parsed: Vec<Result<Value, CorpusError>> = lines
        .par_iter()
        .map(|(i, line)| {
            super::strict_json::parse_str(line).map_err(|e| CorpusError::Json {
                path: path.to_path_buf(),
                line: i + 1,
                column: e.column(),
                message: super::without_position(&e.to_string()),
            })
        })
        .collect();
    let values: Vec<Value> = parsed.into_iter().collect::<Result<_, _>>()?;
    Ok(values
        .into_iter()
        .zip(&lines)
        .enumerate()
        .map(|(index, (value, (i, _)))| Record {
            index,
            line: Some(i + 1),
            value,
        })
        .collect())
}

fn from_document(doc: Value) -> Vec<Record> {
    let items = match doc {
        Value::Array(a) => a,
        Value::Object(mut o) => match o.remove("items") {
            Some(Value::Array(a)) => a,
            Some(other) => {
                o.insert("items".into(), other);
                vec![Value::Object(o)]
            }
            None => vec![Value::Object(o)],
        },
        other => vec![other],
    };
    items
        .into_iter()
        .enumerate()
        .map(|(index, value)| Record {
            index,
            line: None,
            value,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrays_objects_and_lines() {
        let p = Path::new("x.json");
        assert_eq!(parse_records(p, r#"[{"a":1},{"a":2}]"#).unwrap().len(), 2);
        assert_eq!(parse_records(p, r#"{"items":[{"a":1}]}"#).unwrap().len(), 1);
        assert_eq!(parse_records(p, r#"{"a":1}"#).unwrap().len(), 1);
        let lines = parse_records(p, "{\"a\":1}\n\n{\"a\":2}\n").unwrap();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[1].line, Some(3));
        assert_eq!(lines[1].index, 1);
    }

    #[test]
    fn errors_name_line_and_column() {
        let e = parse_records(Path::new("x.jsonl"), "{\"a\":1}\n{\"a\": }\n").unwrap_err();
        let s = e.to_string();
        assert!(s.starts_with("x.jsonl:2:7:"), "{s}");
        let e = parse_records(Path::new("x.json"), "[\n{\"a\":1},\n{\"a\" 2}]").unwrap_err();
        assert!(e.to_string().starts_with("x.json:3:6:"), "{e}");
    }
}
