//! Answers to judge (`judge-answers`, `threshold`): records
//! `{"id"?, "question"?, "answer", "ground_truth", "label"? (0/1),
//! "system"?}` in a JSON array or JSON Lines.

use super::records::{load_records, Record};
use super::CorpusError;
use serde_json::Value;
use std::path::Path;

/// One answer with its ground truth.
#[derive(Debug, Clone, PartialEq)]
pub struct JudgedItem {
    /// The id, or the record's index when absent.
    pub id: String,
    /// The question, when given ("" otherwise).
    pub question: String,
    /// The answer (null reads as "").
    pub answer: String,
    /// The expected answer.
    pub ground_truth: String,
    /// The human judgment (1 = correct), when given.
    pub label: Option<bool>,
    /// The configuration that produced the answer ("default" when absent).
    pub system: String,
}

/// The system name of items without one.
pub const DEFAULT_SYSTEM: &str = "default";

/// Reads the items of a file; every error names the file, the item and the
/// field.
pub fn load_judged_items(path: &Path) -> Result<Vec<JudgedItem>, CorpusError> {
    load_records(path)?
        .iter()
        .map(|r| item_of(path, r))
        .collect()
}

fn item_of(path: &Path, record: &Record) -> Result<JudgedItem, CorpusError> {
    let id = match record.value.get("id") {
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    };
    let fail = |field: &str, message: &str| CorpusError::Record {
        path: path.to_path_buf(),
        record: record.label(id.as_deref()),
        field: field.to_string(),
        message: message.to_string(),
    };
    let Value::Object(obj) = &record.value else {
        return Err(fail("(record)", "expected a JSON object"));
    };
    if let Some(v) = obj.get("id") {
        if !matches!(v, Value::String(_) | Value::Number(_) | Value::Null) {
            return Err(fail("id", "expected a string or a number"));
        }
    }
    let text = |field: &str, required: bool| -> Result<Option<String>, CorpusError> {
        match obj.get(field) {
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(Value::Number(n)) => Ok(Some(n.to_string())),
            Some(Value::Null) | None if !required => Ok(None),
            None => Err(fail(field, "missing")),
            Some(Value::Null) => Err(fail(field, "is null")),
            Some(_) => Err(fail(field, "expected a string")),
        }
    };
    let label = match obj.get("label") {
        None | Some(Value::Null) => None,
        Some(Value::Bool(b)) => Some(*b),
        Some(Value::Number(n)) if n.as_f64() == Some(0.0) => Some(false),
        Some(Value::Number(n)) if n.as_f64() == Some(1.0) => Some(true),
        Some(_) => return Err(fail("label", "expected 0 or 1 (or true/false)")),
    };
    Ok(JudgedItem {
        id: id.clone().unwrap_or_else(|| record.index.to_string()),
        question: text("question", false)?.unwrap_or_default(),
        answer: text("answer", false)?.unwrap_or_default(),
        ground_truth: text("ground_truth", true)?.unwrap_or_default(),
        label,
        system: text("system", false)?.unwrap_or_else(|| DEFAULT_SYSTEM.to_string()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Vec<JudgedItem>, CorpusError> {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("items.json");
        std::fs::write(&p, text).unwrap();
        load_judged_items(&p)
    }

    #[test]
    fn reads_items_with_defaults() {
        let items = parse(
            r#"[{"answer": "Paris", "ground_truth": "Paris", "label": 1, "system": "a"},
                {"id": 7, "question": "Q", "answer": null, "ground_truth": "x", "label": false}]"#,
        )
        .unwrap();
        assert_eq!(items[0].id, "0");
        assert_eq!(items[0].label, Some(true));
        assert_eq!(items[1].id, "7");
        assert_eq!(items[1].answer, "");
        assert_eq!(items[1].system, DEFAULT_SYSTEM);
        assert_eq!(items[1].label, Some(false));
    }

    #[test]
    fn errors_name_item_and_field() {
        let e = parse(r#"[{"answer": "a", "ground_truth": "b"}, {"id": "q2", "answer": "a"}]"#)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("item 1 (id \"q2\")") && e.contains("ground_truth"),
            "{e}"
        );
        let e = parse(r#"[{"answer": "a", "ground_truth": "b", "label": 2}]"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("label") && e.contains("0 or 1"), "{e}");
        let e = parse(r#"[{"answer": ["a"], "ground_truth": "b"}]"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("`answer`"), "{e}");
        let e = parse(r#"[3]"#).unwrap_err().to_string();
        assert!(e.contains("JSON object"), "{e}");
    }
}
