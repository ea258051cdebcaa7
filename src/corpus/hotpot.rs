//! HotpotQA inputs: the simple format (arrays of `{"answer", "citations"}`)
//! and the official one (HotpotQA gold JSON and leaderboard predictions).
//!
//! Gold files of the official format carry every paragraph of context
//! (~45 MB for the dev set); they are deserialized into records holding
//! only `_id`, `answer`, `question` and `supporting_facts`, and serde skips
//! the rest without building it.

use super::{json_error, CorpusError};
use crate::metrics::hotpot::{OfficialGold, SimpleItem, SupportingFact};
use serde::Deserialize;
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;

/// One record of a simple-format file.
#[derive(Debug, Clone)]
pub struct SimpleRecord {
    /// `id`, when given (a number is kept as its decimal text).
    pub id: Option<String>,
    /// `question`, when given.
    pub question: Option<String>,
    /// Answer and citations.
    pub item: SimpleItem,
}

/// One gold record of the official format.
#[derive(Debug, Clone)]
pub struct OfficialGoldRecord {
    /// Id, answer and supporting facts.
    pub gold: OfficialGold,
    /// The question text, when the file has it.
    pub question: Option<String>,
}

/// An official-format prediction file.
#[derive(Debug, Clone, Default)]
pub struct OfficialPredictions {
    /// Predicted answer per id.
    pub answer: HashMap<String, String>,
    /// Predicted supporting facts per id.
    pub sp: HashMap<String, Vec<SupportingFact>>,
}

fn record_err(path: &Path, record: String, field: &str, message: String) -> CorpusError {
    CorpusError::Record {
        path: path.to_path_buf(),
        record,
        field: field.to_string(),
        message,
    }
}

fn describe(v: &Value) -> String {
    let text = v.to_string();
    let kind = super::json_kind(v);
    if text.chars().count() > 40 {
        let head: String = text.chars().take(40).collect();
        format!("{kind} ({head}…)")
    } else {
        format!("{kind} ({text})")
    }
}

/// A string field: `None` when absent or null, an error naming the record
/// and field when it holds anything but a string.
fn string_field(
    path: &Path,
    record: &str,
    field: &str,
    v: Option<&Value>,
) -> Result<Option<String>, CorpusError> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(record_err(
            path,
            record.to_string(),
            field,
            format!("expected a string, found {}", describe(other)),
        )),
    }
}

/// An integer from a JSON number; integral floats such as `2.0` count (the
/// reference scripts compare them equal to `2`).
fn as_integer(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => n.as_i64().or_else(|| {
            n.as_f64()
                .filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15)
                .map(|f| f as i64)
        }),
        _ => None,
    }
}

/// `true` when a parsed prediction file is in the official format (an
/// object with `answer` and `sp`).
pub fn is_official_predictions(v: &Value) -> bool {
    v.as_object()
        .is_some_and(|o| o.contains_key("answer") && o.contains_key("sp"))
}

/// Parses a simple-format file (already parsed as JSON).
pub fn simple_records(path: &Path, doc: &Value) -> Result<Vec<SimpleRecord>, CorpusError> {
    let items = doc.as_array().ok_or_else(|| {
        record_err(
            path,
            "(file)".into(),
            "(top level)",
            format!(
                "expected an array of {{\"answer\", \"citations\"}} records, found {}",
                describe(doc)
            ),
        )
    })?;
    items
        .iter()
        .enumerate()
        .map(|(index, v)| simple_record(path, index, v))
        .collect()
}

fn simple_record(path: &Path, index: usize, v: &Value) -> Result<SimpleRecord, CorpusError> {
    let Some(obj) = v.as_object() else {
        return Err(record_err(
            path,
            format!("item {index}"),
            "(item)",
            format!("expected an object, found {}", describe(v)),
        ));
    };
    let id = match obj.get("id") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Number(n)) => Some(n.to_string()),
        Some(other) => {
            return Err(record_err(
                path,
                format!("item {index}"),
                "id",
                format!("expected a string or a number, found {}", describe(other)),
            ))
        }
    };
    let record = match &id {
        Some(id) => format!("item {index} (id {:?})", super::Preview(id)),
        None => format!("item {index}"),
    };
    let answer = string_field(path, &record, "answer", obj.get("answer"))?
        .ok_or_else(|| record_err(path, record.clone(), "answer", "missing".into()))?;
    let citations = match obj.get("citations") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(a)) => {
            let mut out = Vec::with_capacity(a.len());
            for (k, c) in a.iter().enumerate() {
                let n = as_integer(c).ok_or_else(|| {
                    record_err(
                        path,
                        record.clone(),
                        &format!("citations[{k}]"),
                        format!("expected an integer, found {}", describe(c)),
                    )
                })?;
                out.push(n);
            }
            out
        }
        Some(other) => {
            return Err(record_err(
                path,
                record,
                "citations",
                format!("expected an array of integers, found {}", describe(other)),
            ))
        }
    };
    let question = string_field(path, &record, "question", obj.get("question"))?;
    Ok(SimpleRecord {
        id,
        question,
        item: SimpleItem { answer, citations },
    })
}

/// A gold record as read: only the fields the metrics use; serde skips the
/// others (`context`, `type`, `level`) without building them.
#[derive(Deserialize)]
struct RawGold {
    #[serde(rename = "_id")]
    id: Option<Value>,
    answer: Option<Value>,
    question: Option<Value>,
    supporting_facts: Option<Value>,
}

/// Reads supporting facts `[[title, sent_id], ...]`. On error: the index
/// of the bad fact (None: the list itself) and what is wrong, so callers
/// build the record and field names only when they are needed.
fn supporting_facts(v: &Value) -> Result<Vec<SupportingFact>, (Option<usize>, String)> {
    let Some(list) = v.as_array() else {
        return Err((
            None,
            format!(
                "expected an array of [title, sent_id] pairs, found {}",
                describe(v)
            ),
        ));
    };
    let mut out = Vec::with_capacity(list.len());
    for (k, fact) in list.iter().enumerate() {
        let pair = fact.as_array().filter(|a| a.len() == 2);
        match pair.and_then(|a| Some((a[0].as_str()?.to_string(), as_integer(&a[1])?))) {
            Some(p) => out.push(p),
            None => {
                return Err((
                    Some(k),
                    format!("expected [string, integer], found {}", describe(fact)),
                ))
            }
        }
    }
    Ok(out)
}

/// A [`supporting_facts`] error as a [`CorpusError`] naming the record and
/// the field (`field[k]` for a bad fact).
fn facts_error(
    path: &Path,
    record: String,
    field: &str,
    (k, message): (Option<usize>, String),
) -> CorpusError {
    let field = match k {
        Some(k) => format!("{field}[{k}]"),
        None => field.to_string(),
    };
    record_err(path, record, &field, message)
}

/// Gold files past twice this size are parsed in parallel pieces.
const GOLD_PIECE_BYTES: usize = 1 << 20;

/// Parses an official gold file (the HotpotQA JSON) from its bytes.
pub fn official_gold(path: &Path, bytes: &[u8]) -> Result<Vec<OfficialGoldRecord>, CorpusError> {
    let bytes = super::strict_json::strip_bom_bytes(bytes);
    // Large files in parallel pieces; the whole-file parse when that
    // declines (small input, or anything off: it then names the error).
    let raw: Vec<RawGold> = match super::pieces::parse_array(bytes, GOLD_PIECE_BYTES) {
        Some(raw) => raw,
        None => serde_json::from_slice(bytes).map_err(|e| json_error(path, &e))?,
    };
    let mut out = Vec::with_capacity(raw.len());
    for (index, r) in raw.into_iter().enumerate() {
        let id = match r.id {
            Some(Value::String(s)) => s,
            Some(Value::Number(n)) => n.to_string(),
            Some(other) => {
                return Err(record_err(
                    path,
                    format!("item {index}"),
                    "_id",
                    format!("expected a string, found {}", describe(&other)),
                ))
            }
            None => {
                return Err(record_err(
                    path,
                    format!("item {index}"),
                    "_id",
                    "missing".into(),
                ))
            }
        };
        let record = format!("item {index} (_id {:?})", super::Preview(&id));
        let answer = string_field(path, &record, "answer", r.answer.as_ref())?
            .ok_or_else(|| record_err(path, record.clone(), "answer", "missing".into()))?;
        let facts = match &r.supporting_facts {
            Some(v) => supporting_facts(v)
                .map_err(|e| facts_error(path, record.clone(), "supporting_facts", e))?,
            None => {
                return Err(record_err(
                    path,
                    record,
                    "supporting_facts",
                    "missing".into(),
                ))
            }
        };
        let question = string_field(path, &record, "question", r.question.as_ref())?;
        out.push(OfficialGoldRecord {
            gold: OfficialGold {
                id,
                answer,
                supporting_facts: facts,
            },
            question,
        });
    }
    Ok(out)
}

/// Reads an official prediction file (already parsed as JSON).
pub fn official_predictions(path: &Path, doc: &Value) -> Result<OfficialPredictions, CorpusError> {
    let obj = doc.as_object().ok_or_else(|| {
        record_err(
            path,
            "(file)".into(),
            "(top level)",
            "expected an object {\"answer\": {id: str}, \"sp\": {id: [[title, sent_id]]}}".into(),
        )
    })?;
    let section = |name: &str| -> Result<&serde_json::Map<String, Value>, CorpusError> {
        match obj.get(name) {
            Some(Value::Object(m)) => Ok(m),
            Some(other) => Err(record_err(
                path,
                "(file)".into(),
                name,
                format!("expected an object keyed by _id, found {}", describe(other)),
            )),
            None => Err(record_err(path, "(file)".into(), name, "missing".into())),
        }
    };
    let mut preds = OfficialPredictions::default();
    for (id, v) in section("answer")? {
        match v {
            Value::String(s) => {
                preds.answer.insert(id.clone(), s.clone());
            }
            other => {
                return Err(record_err(
                    path,
                    format!("answer for _id {:?}", super::Preview(&id)),
                    &format!("answer.{id}"),
                    format!("expected a string, found {}", describe(other)),
                ))
            }
        }
    }
    for (id, v) in section("sp")? {
        let facts = supporting_facts(v).map_err(|e| {
            facts_error(
                path,
                format!("sp for _id {:?}", super::Preview(&id)),
                &format!("sp.{}", super::Preview(&id)),
                e,
            )
        })?;
        preds.sp.insert(id.clone(), facts);
    }
    Ok(preds)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` gold items from `first`, with a context of `paragraphs`
    /// paragraphs holding strings that look like item boundaries.
    fn gold_items(first: usize, n: usize, paragraphs: usize) -> Vec<String> {
        (first..first + n)
            .map(|i| {
                let context: Vec<String> = (0..paragraphs)
                    .map(|p| format!(r#"["Title {p}", ["A sentence }}, {{ of {i}.", "Another, {{\"x\": 1}}, one."]]"#))
                    .collect();
                format!(
                    r#"{{"_id": "id{i}", "answer": "answer \"{i}\"", "question": "q{i}?", "supporting_facts": [["Title 1", {}], ["Title 2", 0]], "context": [{}], "type": "bridge"}}"#,
                    i % 3,
                    context.join(", ")
                )
            })
            .collect()
    }

    fn summary(records: &[OfficialGoldRecord]) -> Vec<String> {
        records.iter().map(|r| format!("{r:?}")).collect()
    }

    #[test]
    fn a_large_gold_file_parsed_in_pieces_equals_its_halves_parsed_whole() {
        // Each half stays under twice GOLD_PIECE_BYTES (parsed whole); the
        // whole file is over it (parsed in pieces when threads allow).
        let items = gold_items(0, 1200, 30);
        let (a, b) = items.split_at(600);
        let doc = |items: &[String]| format!("[\n{}\n]\n", items.join(",\n"));
        let (whole, first, second) = (doc(&items), doc(a), doc(b));
        assert!(first.len() < 2 * GOLD_PIECE_BYTES && whole.len() > 2 * GOLD_PIECE_BYTES);
        let path = Path::new("gold.json");
        let mut expected = official_gold(path, first.as_bytes()).unwrap();
        expected.extend(official_gold(path, second.as_bytes()).unwrap());
        let got = official_gold(path, whole.as_bytes()).unwrap();
        assert_eq!(summary(&got), summary(&expected));
        assert_eq!(got.len(), 1200);
        // An error late in a large file names the same place as before.
        let bad = whole.replacen("\"id1100\", \"answer\"", "\"id1100\", \"answer\":", 1);
        let err = official_gold(path, bad.as_bytes()).unwrap_err().to_string();
        let whole_err = match serde_json::from_slice::<Vec<RawGold>>(bad.as_bytes()) {
            Ok(_) => panic!("the bad document parsed"),
            Err(e) => e,
        };
        assert!(
            err.contains(&format!("{}:{}", whole_err.line(), whole_err.column())),
            "{err} vs {whole_err}"
        );
    }
}
