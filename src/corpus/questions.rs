//! Socioscope question files: `{"qa_pairs": [...]}` or a bare array of
//! `{"id"?, "question": {"text", "type", "metric"}, "answers": [...]}`.

use super::{parse_json, read_text, CorpusError};
use serde_json::Value;
use std::path::Path;

/// A quoted citation attached to an answer.
#[derive(Debug, Clone)]
pub struct Quote {
    /// The quoted text.
    pub quote: String,
    /// The FILE it claims to come from (None when absent).
    pub source: Option<String>,
    /// Who the answer says said it (`"speaker"`), when given.
    pub speaker: Option<String>,
}

/// One answer to a question.
#[derive(Debug, Clone)]
pub struct Answer {
    /// The answer text (null or absent reads as "").
    pub answer: String,
    /// The transcript the answer is about, when given.
    pub source: Option<String>,
    /// Its verbatim quotes.
    pub quotes: Vec<Quote>,
}

/// One question with its answers.
#[derive(Debug, Clone)]
pub struct QaPair {
    /// Position in the file.
    pub index: usize,
    /// The id, or the index as a string when the file has none.
    pub id: String,
    /// The question text.
    pub text: String,
    /// The question type as written.
    pub qtype: String,
    /// The metric as written (a JSON value, possibly a string holding JSON).
    pub metric: Value,
    /// The answers.
    pub answers: Vec<Answer>,
}

/// A loaded question file: the typed pairs and the original JSON, which the
/// results file reproduces with scores added.
#[derive(Debug, Clone)]
pub struct QuestionSet {
    /// The original document.
    pub document: Value,
    /// The validated pairs, in file order.
    pub pairs: Vec<QaPair>,
}

impl QuestionSet {
    /// The pairs array of the original document.
    pub fn pairs_json_mut(&mut self) -> Option<&mut Vec<Value>> {
        match &mut self.document {
            Value::Array(a) => Some(a),
            Value::Object(o) => o.get_mut("qa_pairs").and_then(Value::as_array_mut),
            _ => None,
        }
    }
}

/// Reads a question file.
pub fn load_questions(path: &Path) -> Result<QuestionSet, CorpusError> {
    let text = read_text(path)?;
    parse_questions(path, &text)
}

fn as_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// Parses a question file's text; `path` is used in error messages.
pub fn parse_questions(path: &Path, text: &str) -> Result<QuestionSet, CorpusError> {
    let document = parse_json(path, text)?;
    let err = |record: String, field: &str, message: &str| CorpusError::Record {
        path: path.to_path_buf(),
        record,
        field: field.to_string(),
        message: message.to_string(),
    };
    let items = match &document {
        Value::Array(a) => a,
        Value::Object(o) => match o.get("qa_pairs") {
            Some(Value::Array(a)) => a,
            _ => {
                return Err(err(
                    "top level".into(),
                    "qa_pairs",
                    "expected an array of qa pairs or an object with a \"qa_pairs\" array",
                ))
            }
        },
        _ => {
            return Err(err(
                "top level".into(),
                "(root)",
                "expected an array of qa pairs or an object with a \"qa_pairs\" array",
            ))
        }
    };
    let mut pairs = Vec::with_capacity(items.len());
    for (index, item) in items.iter().enumerate() {
        let Value::Object(obj) = item else {
            return Err(err(
                format!("qa pair {index}"),
                "(pair)",
                "expected an object",
            ));
        };
        let id = match obj.get("id") {
            None | Some(Value::Null) => index.to_string(),
            Some(v) => as_text(v).ok_or_else(|| {
                err(
                    format!("qa pair {index}"),
                    "id",
                    "expected a string or a number",
                )
            })?,
        };
        let record = format!("qa pair {index} (id {:?})", super::Preview(&id));
        let question = match obj.get("question") {
            Some(Value::Object(q)) => q,
            Some(_) => return Err(err(record, "question", "expected an object")),
            None => return Err(err(record, "question", "missing")),
        };
        let required = |field: &str| -> Result<String, CorpusError> {
            match question.get(field) {
                Some(Value::String(s)) if !s.trim().is_empty() => Ok(s.clone()),
                Some(Value::String(_)) => Err(err(
                    record.clone(),
                    &format!("question.{field}"),
                    "is empty",
                )),
                None | Some(Value::Null) => {
                    Err(err(record.clone(), &format!("question.{field}"), "missing"))
                }
                Some(_) => Err(err(
                    record.clone(),
                    &format!("question.{field}"),
                    "expected a string",
                )),
            }
        };
        let text = required("text")?;
        let qtype = required("type")?;
        let metric = match question.get("metric") {
            None | Some(Value::Null) => return Err(err(record, "question.metric", "missing")),
            Some(Value::String(s)) if s.trim().is_empty() => {
                return Err(err(record, "question.metric", "is empty"))
            }
            Some(m) => m.clone(),
        };
        let answers_json = match obj.get("answers") {
            None | Some(Value::Null) => &Vec::new(),
            Some(Value::Array(a)) => a,
            Some(_) => return Err(err(record, "answers", "expected an array")),
        };
        let mut answers = Vec::with_capacity(answers_json.len());
        for (ai, a) in answers_json.iter().enumerate() {
            let Value::Object(ao) = a else {
                return Err(err(record, &format!("answers[{ai}]"), "expected an object"));
            };
            let answer = match ao.get("answer") {
                None | Some(Value::Null) => String::new(),
                Some(v) => as_text(v).ok_or_else(|| {
                    err(
                        record.clone(),
                        &format!("answers[{ai}].answer"),
                        "expected a string",
                    )
                })?,
            };
            let source = match ao.get("source") {
                None | Some(Value::Null) => None,
                Some(v) => Some(as_text(v).ok_or_else(|| {
                    err(
                        record.clone(),
                        &format!("answers[{ai}].source"),
                        "expected a string",
                    )
                })?),
            };
            let quotes_json = match ao.get("verbatims") {
                None | Some(Value::Null) => &Vec::new(),
                Some(Value::Array(v)) => v,
                Some(_) => {
                    return Err(err(
                        record,
                        &format!("answers[{ai}].verbatims"),
                        "expected an array",
                    ))
                }
            };
            let mut quotes = Vec::with_capacity(quotes_json.len());
            for (qi, q) in quotes_json.iter().enumerate() {
                let field = format!("answers[{ai}].verbatims[{qi}]");
                let Value::Object(qo) = q else {
                    return Err(err(
                        record,
                        &field,
                        "expected an object {\"quote\", \"source\"}",
                    ));
                };
                let quote = match qo.get("quote") {
                    Some(Value::String(s)) => s.clone(),
                    Some(_) => {
                        return Err(err(record, &format!("{field}.quote"), "expected a string"))
                    }
                    None => return Err(err(record, &format!("{field}.quote"), "missing")),
                };
                let source = match qo.get("source") {
                    None | Some(Value::Null) => None,
                    Some(v) => Some(as_text(v).ok_or_else(|| {
                        err(
                            record.clone(),
                            &format!("{field}.source"),
                            "expected a string",
                        )
                    })?),
                };
                let speaker = match qo.get("speaker") {
                    None | Some(Value::Null) => None,
                    Some(Value::String(s)) => Some(s.clone()),
                    Some(_) => {
                        return Err(err(
                            record.clone(),
                            &format!("{field}.speaker"),
                            "expected a string",
                        ))
                    }
                };
                quotes.push(Quote {
                    quote,
                    source,
                    speaker,
                });
            }
            answers.push(Answer {
                answer,
                source,
                quotes,
            });
        }
        pairs.push(QaPair {
            index,
            id,
            text,
            qtype,
            metric,
            answers,
        });
    }
    Ok(QuestionSet { document, pairs })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<QuestionSet, CorpusError> {
        parse_questions(Path::new("q.json"), s)
    }

    #[test]
    fn bare_array_and_wrapped() {
        let pair = r#"{"question":{"text":"Q?","type":"Yes/No","metric":"yes"},"answers":[{"answer":"Yes","source":"a.csv","verbatims":[{"quote":"x","source":"a.csv"}]}]}"#;
        let set = parse(&format!("[{pair}]")).unwrap();
        assert_eq!(set.pairs[0].id, "0");
        assert_eq!(set.pairs[0].answers[0].quotes[0].quote, "x");
        let set = parse(&format!(r#"{{"qa_pairs":[{pair},{pair}]}}"#)).unwrap();
        assert_eq!(set.pairs[1].id, "1");
    }

    #[test]
    fn missing_fields_name_index_and_id() {
        let e = parse(r#"[{"id":"q7","question":{"text":"Q","metric":"yes"}}]"#)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("qa pair 0 (id \"q7\")") && e.contains("question.type"),
            "{e}"
        );
        let e = parse(r#"[{"question":{"type":"Yes/No","metric":"yes"}}]"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("question.text"), "{e}");
        let e = parse(r#"[{"question":{"type":"Yes/No","text":"Q"}}]"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("question.metric"), "{e}");
    }

    #[test]
    fn syntax_errors_have_line_and_column() {
        let e = parse("[\n  {\"question\": oops}\n]")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("q.json:2:"), "{e}");
    }
}
