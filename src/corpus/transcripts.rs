//! Transcript corpora: chunks `{"page_content", "metadata": {"FILE"}}` grouped
//! by FILE into whole transcripts.

use super::{parse_json, read_text, CorpusError};
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;

/// One transcript: the chunks of one FILE joined in order with "\n".
#[derive(Debug, Clone)]
pub struct Transcript {
    /// The FILE metadata value.
    pub file: String,
    /// The joined text.
    pub text: String,
    /// Number of chunks joined.
    pub chunks: usize,
}

/// All transcripts of a corpus, by FILE, in first-seen order.
#[derive(Debug, Clone, Default)]
pub struct TranscriptSet {
    /// The transcripts in the order their FILE first appears.
    pub transcripts: Vec<Transcript>,
    index: HashMap<String, usize>,
}

impl TranscriptSet {
    /// The transcript of a FILE.
    pub fn get(&self, file: &str) -> Option<&Transcript> {
        self.index.get(file).map(|&i| &self.transcripts[i])
    }

    /// Index of a FILE's transcript in [`TranscriptSet::transcripts`].
    pub fn position(&self, file: &str) -> Option<usize> {
        self.index.get(file).copied()
    }

    /// Builds a set from (FILE, text) chunks in order.
    pub fn from_chunks<I: IntoIterator<Item = (String, String)>>(chunks: I) -> TranscriptSet {
        let mut set = TranscriptSet::default();
        for (file, text) in chunks {
            match set.index.get(&file) {
                Some(&i) => {
                    let t = &mut set.transcripts[i];
                    t.text.push('\n');
                    t.text.push_str(&text);
                    t.chunks += 1;
                }
                None => {
                    set.index.insert(file.clone(), set.transcripts.len());
                    set.transcripts.push(Transcript {
                        file,
                        text,
                        chunks: 1,
                    });
                }
            }
        }
        set
    }

    /// Total bytes of transcript text.
    pub fn total_bytes(&self) -> usize {
        self.transcripts.iter().map(|t| t.text.len()).sum()
    }
}

/// Reads a transcript corpus file.
pub fn load_transcripts(path: &Path) -> Result<TranscriptSet, CorpusError> {
    let text = read_text(path)?;
    parse_transcripts(path, &text)
}

/// Parses a transcript corpus: an array of chunks or `{"documents": [...]}`.
pub fn parse_transcripts(path: &Path, text: &str) -> Result<TranscriptSet, CorpusError> {
    let value = parse_json(path, text)?;
    let record_err = |record: String, field: &str, message: &str| CorpusError::Record {
        path: path.to_path_buf(),
        record,
        field: field.to_string(),
        message: message.to_string(),
    };
    let chunks = match value {
        Value::Array(a) => a,
        Value::Object(mut o) => match o.remove("documents") {
            Some(Value::Array(a)) => a,
            _ => {
                return Err(record_err(
                    "top level".into(),
                    "documents",
                    "expected an array of chunks or an object with a \"documents\" array",
                ))
            }
        },
        _ => {
            return Err(record_err(
                "top level".into(),
                "(root)",
                "expected an array of chunks or an object with a \"documents\" array",
            ))
        }
    };
    let mut pairs = Vec::with_capacity(chunks.len());
    for (i, chunk) in chunks.into_iter().enumerate() {
        let Value::Object(mut obj) = chunk else {
            return Err(record_err(
                format!("chunk {i}"),
                "(chunk)",
                "expected an object",
            ));
        };
        let content = match obj.remove("page_content") {
            Some(Value::String(s)) => s,
            Some(_) => {
                return Err(record_err(
                    format!("chunk {i}"),
                    "page_content",
                    "expected a string",
                ))
            }
            None => return Err(record_err(format!("chunk {i}"), "page_content", "missing")),
        };
        let file = match obj.get("metadata").and_then(|m| m.get("FILE")) {
            Some(Value::String(s)) if !s.trim().is_empty() => s.clone(),
            Some(Value::String(_)) => {
                return Err(record_err(
                    format!("chunk {i}"),
                    "metadata.FILE",
                    "is empty",
                ))
            }
            Some(Value::Number(n)) => n.to_string(),
            Some(_) => {
                return Err(record_err(
                    format!("chunk {i}"),
                    "metadata.FILE",
                    "expected a string",
                ))
            }
            None => return Err(record_err(format!("chunk {i}"), "metadata.FILE", "missing")),
        };
        pairs.push((file, content));
    }
    Ok(TranscriptSet::from_chunks(pairs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joins_chunks_by_file() {
        let json = r#"[{"page_content":"a","metadata":{"FILE":"x"}},
            {"page_content":"b","metadata":{"FILE":"y"}},
            {"page_content":"c","metadata":{"FILE":"x"}}]"#;
        let set = parse_transcripts(Path::new("t.json"), json).unwrap();
        assert_eq!(set.get("x").unwrap().text, "a\nc");
        assert_eq!(set.get("y").unwrap().text, "b");
        assert_eq!(set.transcripts[0].file, "x");
        let wrapped = format!(r#"{{"documents": {json}}}"#);
        assert_eq!(
            parse_transcripts(Path::new("t.json"), &wrapped)
                .unwrap()
                .transcripts
                .len(),
            2
        );
    }

    #[test]
    fn errors_name_the_chunk() {
        let err = parse_transcripts(
            Path::new("t.json"),
            r#"[{"page_content":"a","metadata":{}}]"#,
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("chunk 0") && err.contains("metadata.FILE"),
            "{err}"
        );
        let err = parse_transcripts(Path::new("t.json"), "[\n{\"page_content\": }]").unwrap_err();
        assert!(err.to_string().starts_with("t.json:2:"), "{err}");
    }
}
