//! Texts to embed, read from a file, and the embeddings as JSON lines
//! (`corpus-eval embed`).

use crate::corpus::records::load_records;
use crate::corpus::CorpusError;
use serde_json::{json, Value};
use std::path::Path;

/// One text to embed.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TextItem {
    /// Its id, when the file gives one.
    pub id: Option<Value>,
    /// The text.
    pub text: String,
}

/// The texts of a file: a .json array (of strings or {"id", "text"}),
/// .jsonl lines of the same, or any other file as plain text, one text per
/// line.
pub(crate) fn load_texts(path: &Path) -> Result<Vec<TextItem>, CorpusError> {
    let is_json = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| ["json", "jsonl", "ndjson"].contains(&e.to_ascii_lowercase().as_str()));
    if !is_json {
        let text = crate::corpus::read_text(path)?;
        return Ok(text
            .lines()
            .map(|l| TextItem {
                id: None,
                text: l.to_string(),
            })
            .collect());
    }
    load_records(path)?
        .into_iter()
        .map(|r| match r.value {
            Value::String(s) => Ok(TextItem { id: None, text: s }),
            Value::Object(ref o) => match o.get("text") {
                Some(Value::String(s)) => Ok(TextItem {
                    id: o.get("id").cloned(),
                    text: s.clone(),
                }),
                _ => Err(CorpusError::Record {
                    path: path.to_path_buf(),
                    record: r.label(None),
                    field: "text".into(),
                    message: "expected a string".into(),
                }),
            },
            _ => Err(CorpusError::Record {
                path: path.to_path_buf(),
                record: r.label(None),
                field: "text".into(),
                message: "expected a string or an object with \"text\"".into(),
            }),
        })
        .collect()
}

/// One JSON line per text, `{"index", "id"?, "text", "embedding"}`, in
/// input order.
pub(crate) fn embedding_lines(items: &[TextItem], vectors: &[Vec<f32>]) -> Vec<u8> {
    let dim = vectors.first().map_or(0, Vec::len);
    let mut out = Vec::with_capacity(items.len() * (dim * 12 + 64));
    for (i, (item, v)) in items.iter().zip(vectors).enumerate() {
        let mut line = json!({"index": i});
        if let Some(id) = &item.id {
            line["id"] = id.clone();
        }
        line["text"] = Value::String(item.text.clone());
        line["embedding"] = json!(v);
        // A Value always serializes.
        let _ = serde_json::to_writer(&mut out, &line);
        out.push(b'\n');
    }
    out
}
