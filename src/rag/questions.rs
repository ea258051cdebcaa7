//! The questions of a `rag run`: the main job's question file (each pair's
//! question text, with its type and metric for scoring) or rows
//! `{"id", "question", "k"?, "filter"?, "model"?}` (JSON array or JSON Lines).
//! Per-question `k`, `filter` and `model` override the command's flags.

use super::FILTER_KEYS;

/// Most documents a question may ask to retrieve (`k`, in a question file
/// or from `--k`).
pub const MAX_K: u64 = 10_000;
use crate::corpus::records::parse_records;
use crate::corpus::{json_kind, parse_questions, read_text, CorpusError, Preview};
use serde_json::{Map, Value};
use std::collections::HashSet;
use std::path::Path;

/// One question to ask.
#[derive(Debug, Clone, PartialEq)]
pub struct RagQuestion {
    /// Unique id (resume keys on it).
    pub id: String,
    /// The question text.
    pub question: String,
    /// Per-question k.
    pub k: Option<u64>,
    /// Per-question filter.
    pub filter: Option<Map<String, Value>>,
    /// Per-question model.
    pub model: Option<String>,
    /// The question type, from the main job's file.
    pub qtype: Option<String>,
    /// The metric, from the main job's file.
    pub metric: Option<Value>,
}

fn record_error(path: &Path, record: &str, field: &str, message: String) -> CorpusError {
    CorpusError::Record {
        path: path.to_path_buf(),
        record: record.to_string(),
        field: field.to_string(),
        message,
    }
}

/// A question's optional (k, filter, model).
type Overrides = (Option<u64>, Option<Map<String, Value>>, Option<String>);

/// Reads the optional overrides of one question object.
fn overrides(
    path: &Path,
    record: &str,
    obj: &Map<String, Value>,
) -> Result<Overrides, CorpusError> {
    let k = match obj.get("k") {
        None | Some(Value::Null) => None,
        Some(v) => match v.as_u64() {
            Some(k) if (1..=MAX_K).contains(&k) => Some(k),
            _ => {
                return Err(record_error(
                    path,
                    record,
                    "k",
                    format!(
                        "expected an integer from 1 to {MAX_K}, found {}",
                        Preview(v)
                    ),
                ))
            }
        },
    };
    let filter = match obj.get("filter") {
        None | Some(Value::Null) => None,
        Some(Value::Object(m)) => {
            if let Some(bad) = m.keys().find(|key| !FILTER_KEYS.contains(&key.as_str())) {
                return Err(record_error(
                    path,
                    record,
                    &format!("filter.{}", Preview(bad)),
                    format!("unknown metadata key (one of {})", FILTER_KEYS.join(", ")),
                ));
            }
            Some(m.clone())
        }
        Some(v) => {
            return Err(record_error(
                path,
                record,
                "filter",
                format!("expected an object, found {}", json_kind(v)),
            ))
        }
    };
    let model = match obj.get("model") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if !s.trim().is_empty() => Some(s.clone()),
        Some(v) => {
            return Err(record_error(
                path,
                record,
                "model",
                format!("expected a model name, found {}", Preview(v)),
            ))
        }
    };
    Ok((k, filter, model))
}

fn is_main_job_file(doc: &Value) -> bool {
    match doc {
        Value::Object(o) => o.contains_key("qa_pairs"),
        Value::Array(a) => a
            .first()
            .is_some_and(|p| p.get("question").is_some_and(Value::is_object)),
        _ => false,
    }
}

/// Loads the questions; ids must be unique.
pub fn load_rag_questions(path: &Path) -> Result<Vec<RagQuestion>, CorpusError> {
    parse_rag_questions(path, &read_text(path)?)
}

/// Parses question-file text (see [`load_rag_questions`]); `path` names the
/// file in errors.
pub fn parse_rag_questions(path: &Path, text: &str) -> Result<Vec<RagQuestion>, CorpusError> {
    let doc: Option<Value> = crate::corpus::strict_json::parse_str(text).ok();
    let out = match doc {
        Some(doc) if is_main_job_file(&doc) => {
            let set = parse_questions(path, text)?;
            let raw: Vec<Value> = set
                .pair_values()
                .into_iter()
                .map(|v| v.unwrap_or(Value::Null))
                .collect();
            set.pairs
                .iter()
                .map(|p| {
                    let record = format!("qa pair {} (id {:?})", p.index, Preview(&p.id));
                    // k, filter and model at the pair's top level, or inside
                    // its question object (the top level wins).
                    let mut obj = raw
                        .get(p.index)
                        .and_then(|v| v.get("question"))
                        .and_then(Value::as_object)
                        .cloned()
                        .unwrap_or_default();
                    if let Some(top) = raw.get(p.index).and_then(Value::as_object) {
                        for key in ["k", "filter", "model"] {
                            if let Some(v) = top.get(key) {
                                obj.insert(key.to_string(), v.clone());
                            }
                        }
                    }
                    let (k, filter, model) = overrides(path, &record, &obj)?;
                    Ok(RagQuestion {
                        id: p.id.clone(),
                        question: p.text.clone(),
                        k,
                        filter,
                        model,
                        qtype: Some(p.qtype.clone()),
                        metric: Some(p.metric.clone()),
                    })
                })
                .collect::<Result<Vec<_>, CorpusError>>()?
        }
        _ => parse_records(path, text)?
            .into_iter()
            .map(|r| {
                let record = r.label(None);
                let Value::Object(obj) = &r.value else {
                    return Err(record_error(
                        path,
                        &record,
                        "(row)",
                        format!("expected an object, found {}", json_kind(&r.value)),
                    ));
                };
                let id = match obj.get("id") {
                    Some(Value::String(s)) if !s.trim().is_empty() => s.clone(),
                    Some(Value::Number(n)) => n.to_string(),
                    Some(v) => {
                        return Err(record_error(
                            path,
                            &record,
                            "id",
                            format!(
                                "expected a non-empty string or a number, found {}",
                                Preview(v)
                            ),
                        ))
                    }
                    None => return Err(record_error(path, &record, "id", "missing".into())),
                };
                let question = match obj.get("question") {
                    Some(Value::String(s)) if !s.trim().is_empty() => s.clone(),
                    Some(v) => {
                        return Err(record_error(
                            path,
                            &record,
                            "question",
                            format!("expected a non-empty string, found {}", Preview(v)),
                        ))
                    }
                    None => return Err(record_error(path, &record, "question", "missing".into())),
                };
                let (k, filter, model) = overrides(path, &record, obj)?;
                Ok(RagQuestion {
                    id,
                    question,
                    k,
                    filter,
                    model,
                    qtype: None,
                    metric: None,
                })
            })
            .collect::<Result<Vec<_>, CorpusError>>()?,
    };
    let mut seen = HashSet::new();
    for q in &out {
        if !seen.insert(q.id.as_str()) {
            return Err(record_error(
                path,
                &format!("id {:?}", q.id),
                "id",
                "duplicate id (resume needs unique ids)".into(),
            ));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(name: &str, text: &str) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        (dir, p)
    }

    #[test]
    fn jsonl_rows_with_overrides() {
        let (_d, p) = write("q.jsonl", "{\"id\": 1, \"question\": \"Who?\", \"k\": 3, \"filter\": {\"YEAR\": 2024}}\n{\"id\": \"b\", \"question\": \"Why?\", \"model\": \"groq:llama\"}\n");
        let q = load_rag_questions(&p).unwrap();
        assert_eq!(q[0].id, "1");
        assert_eq!(q[0].k, Some(3));
        assert_eq!(q[0].filter.as_ref().unwrap()["YEAR"], 2024);
        assert_eq!(q[1].model.as_deref(), Some("groq:llama"));
        let (_d, p) = write(
            "q.jsonl",
            "{\"id\": 1, \"question\": \"Who?\", \"filter\": {\"COLOUR\": 1}}\n",
        );
        let e = load_rag_questions(&p).unwrap_err().to_string();
        assert!(
            e.contains("field `filter.COLOUR`: unknown metadata key"),
            "{e}"
        );
        let (_d, p) = write(
            "q.jsonl",
            "{\"id\": 1, \"question\": \"A\"}\n{\"id\": 1, \"question\": \"B\"}\n",
        );
        assert!(load_rag_questions(&p)
            .unwrap_err()
            .to_string()
            .contains("duplicate id"));
        let (_d, p) = write("q.jsonl", "{\"id\": 1, \"question\": \"A\", \"k\": 0}\n");
        assert!(load_rag_questions(&p)
            .unwrap_err()
            .to_string()
            .contains("field `k`"));
    }

    #[test]
    fn main_job_file_keeps_types() {
        let p =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("evaluation/data_fixture.json");
        let q = load_rag_questions(&p).unwrap();
        assert_eq!(q.len(), 38);
        assert_eq!(q[0].id, "dk-01");
        assert_eq!(
            q[0].question,
            "Did the housing association agree immediately to the garden?"
        );
        assert_eq!(q[0].qtype.as_deref(), Some("Yes/No"));
        assert_eq!((q[0].k, q[0].model.as_deref()), (None, None));
        // Per-pair overrides, at the top level or inside the question.
        let (_d, p) = write(
            "pairs.json",
            r#"{"qa_pairs": [
                {"id": "a", "k": 3, "filter": {"COUNTRY": "France"}, "question": {"text": "Who?", "type": "ListOne", "metric": ["x"]}, "answers": []},
                {"id": "b", "question": {"text": "Why?", "type": "ListOne", "metric": ["y"], "model": "groq:llama", "k": 7}, "answers": []}
            ]}"#,
        );
        let q = load_rag_questions(&p).unwrap();
        assert_eq!(q[0].k, Some(3));
        assert_eq!(q[0].filter.as_ref().unwrap()["COUNTRY"], "France");
        assert_eq!(
            (q[1].k, q[1].model.as_deref()),
            (Some(7), Some("groq:llama"))
        );
    }
}
