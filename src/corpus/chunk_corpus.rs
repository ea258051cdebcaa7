//! A JSON chunk corpus read as written, for splitting it by transcript
//! (the Ray partitioning task of the Python binding): each chunk's FILE,
//! the bytes of its `page_content` and its JSON text, through the tape
//! parser. Nothing is prepared and no value is built per chunk.

use super::tape::{Kind, Tape};
use super::{json_error, CorpusError};
use std::ops::Range;
use std::path::Path;

/// One chunk of a chunk corpus, as the file writes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawChunk {
    /// Its `metadata.FILE`: the transcript it belongs to.
    pub file: String,
    /// The bytes of its `page_content` (escapes resolved).
    pub content_bytes: usize,
    /// Where its JSON object stands in the corpus's text.
    pub raw: Range<usize>,
}

/// A JSON chunk corpus (an array of chunks, or `{"documents": [...]}`):
/// its text (a byte-order mark dropped) and its chunks in order. Errors
/// name the file, and the chunk and field where one is wrong.
///
/// ```
/// let dir = std::env::temp_dir().join(format!("raw-chunks-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let path = dir.join("c.json");
/// std::fs::write(&path, r#"[{"page_content": "Ana: Hi.", "metadata": {"FILE": "a.txt"}}]"#).unwrap();
/// let (text, chunks) = corpus_eval::corpus::raw_chunks(&path).unwrap();
/// assert_eq!((chunks[0].file.as_str(), chunks[0].content_bytes), ("a.txt", 8));
/// assert!(text[chunks[0].raw.clone()].starts_with("{\"page_content\""));
/// std::fs::write(&path, r#"[{"page_content": "x", "metadata": {}}]"#).unwrap();
/// let e = corpus_eval::corpus::raw_chunks(&path).unwrap_err().to_string();
/// assert!(e.ends_with("chunk 0: field `metadata.FILE`: expected a string"), "{e}");
/// ```
pub fn raw_chunks(path: &Path) -> Result<(String, Vec<RawChunk>), CorpusError> {
    let mut text = super::read_text(path)?;
    if text.starts_with('\u{feff}') {
        text.drain(..3);
    }
    let Some(tape) = Tape::parse(&text) else {
        return Err(match super::strict_json::parse_str(&text) {
            Err(e) => json_error(path, &e),
            Ok(_) => CorpusError::Json {
                path: path.to_path_buf(),
                line: 1,
                column: 1,
                message: "the document could not be indexed".into(),
            },
        });
    };
    let chunks = chunks(path, &text, &tape)?;
    Ok((text, chunks))
}

/// Each chunk of a parsed corpus.
fn chunks(path: &Path, text: &str, tape: &Tape) -> Result<Vec<RawChunk>, CorpusError> {
    let bad = |record: String, field: &str, message: &str| CorpusError::Record {
        path: path.to_path_buf(),
        record,
        field: field.into(),
        message: message.into(),
    };
    let root = tape.root();
    let array = match tape.kind(root) {
        Kind::Array => Some(root),
        Kind::Object => tape
            .field(text, root, "documents")
            .filter(|&a| tape.kind(a) == Kind::Array),
        _ => None,
    }
    .ok_or_else(|| {
        bad(
            "the document".into(),
            "(root)",
            "expected an array of chunks or {\"documents\": [...]}",
        )
    })?;
    let string = |k: Option<usize>| {
        k.filter(|&k| matches!(tape.kind(k), Kind::Str | Kind::StrEscaped))
            .and_then(|k| tape.str_value(text, k))
    };
    tape.children(array)
        .enumerate()
        .map(|(i, chunk)| {
            let field = |name: &str| tape.field(text, chunk, name);
            let file = field("metadata")
                .and_then(|m| string(tape.field(text, m, "FILE")))
                .ok_or_else(|| bad(format!("chunk {i}"), "metadata.FILE", "expected a string"))?;
            let content = string(field("page_content"))
                .ok_or_else(|| bad(format!("chunk {i}"), "page_content", "expected a string"))?;
            let node = tape.node(chunk);
            Ok(RawChunk {
                file: file.into_owned(),
                content_bytes: content.len(),
                raw: node.start as usize..node.end as usize,
            })
        })
        .collect()
}
