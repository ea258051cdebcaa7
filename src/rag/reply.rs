//! The reply contract: `{"question", "context": [{"page_content",
//! "metadata"}], "answer": {"answer", "citations": [{"source_index",
//! "quote"}]}}`. A reply that breaks it is treated like a server error.

use serde_json::Value;

/// One citation as the API gave it.
#[derive(Debug, Clone, PartialEq)]
pub struct Citation {
    /// Index into the reply's context (may be out of range or negative).
    pub source_index: i64,
    /// The quoted text.
    pub quote: String,
}

/// A reply that keeps the contract.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    /// The retrieved documents' texts, in order.
    pub context: Vec<String>,
    /// The generated answer.
    pub answer: String,
    /// Its citations.
    pub citations: Vec<Citation>,
}

fn field<'v>(v: &'v Value, path: &str) -> Result<&'v Value, String> {
    v.pointer(path)
        .ok_or_else(|| format!("missing {}", path.trim_start_matches('/').replace('/', ".")))
}

/// Checks a reply body against the contract.
pub(crate) fn parse_reply(body: &Value) -> Result<Reply, super::RagError> {
    check_reply(body).map_err(|message| super::RagError::Contract { message })
}

fn check_reply(body: &Value) -> Result<Reply, String> {
    if !body.is_object() {
        return Err("the reply is not a JSON object".into());
    }
    field(body, "/question")?
        .as_str()
        .ok_or("question is not a string")?;
    let context = field(body, "/context")?
        .as_array()
        .ok_or("context is not an array")?
        .iter()
        .enumerate()
        .map(|(i, d)| {
            d.get("page_content")
                .and_then(Value::as_str)
                .map(str::to_string)
                .ok_or_else(|| format!("context[{i}].page_content is missing or not a string"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let answer = field(body, "/answer/answer")?
        .as_str()
        .ok_or("answer.answer is not a string")?
        .to_string();
    let citations = field(body, "/answer/citations")?
        .as_array()
        .ok_or("answer.citations is not an array")?
        .iter()
        .enumerate()
        .map(|(i, c)| {
            // Any number is accepted; one that is no usable index (beyond
            // i64, or not whole) becomes -1, the verdict invalid_source.
            let source_index = match c.get("source_index") {
                Some(Value::Number(n)) => n.as_i64().unwrap_or_else(|| {
                    if n.as_u64().is_some() {
                        i64::MAX
                    } else {
                        n.as_f64()
                            .filter(|f| f.fract() == 0.0 && f.abs() < 9e15)
                            .map_or(-1, |f| f as i64)
                    }
                }),
                _ => {
                    return Err(format!(
                        "answer.citations[{i}].source_index is missing or not a number"
                    ))
                }
            };
            let quote = c
                .get("quote")
                .and_then(Value::as_str)
                .ok_or_else(|| format!("answer.citations[{i}].quote is missing or not a string"))?;
            Ok(Citation {
                source_index,
                quote: quote.to_string(),
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok(Reply {
        context,
        answer,
        citations,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn contract_checks() {
        let good = json!({"question": "q", "context": [{"page_content": "a b", "metadata": {}}],
            "answer": {"answer": "x", "citations": [{"source_index": -1, "quote": "a"}]}});
        let r = parse_reply(&good).unwrap();
        assert_eq!(r.citations[0].source_index, -1);
        assert_eq!(r.context, ["a b"]);
        let mut bad = good.clone();
        bad["answer"].as_object_mut().unwrap().remove("citations");
        assert_eq!(
            parse_reply(&bad).unwrap_err().to_string(),
            "missing answer.citations"
        );
        let mut bad = good.clone();
        bad["context"][0]["page_content"] = json!(3);
        assert!(parse_reply(&bad)
            .unwrap_err()
            .to_string()
            .contains("context[0].page_content"));
        for (given, read) in [
            (json!(2.0), 2),
            (json!(2.5), -1),
            (json!(u64::MAX), i64::MAX),
        ] {
            let mut odd = good.clone();
            odd["answer"]["citations"][0]["source_index"] = given;
            assert_eq!(parse_reply(&odd).unwrap().citations[0].source_index, read);
        }
        let mut bad = good;
        bad["answer"]["citations"][0]["source_index"] = json!("0");
        assert!(parse_reply(&bad)
            .unwrap_err()
            .to_string()
            .contains("source_index"));
        assert!(parse_reply(&json!([1])).is_err());
    }
}
