//! Transcript corpora: chunks `{"page_content", "metadata": {"FILE"}}` grouped
//! by FILE into whole transcripts.

use super::tape::{Kind, Tape};
use super::{read_text, CorpusError};
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
    parse_transcripts_owned(path, text.to_string())
}

/// [`parse_transcripts`] taking the text: the chunks are read from the
/// document's tape (no value tree) and each FILE's text is built once at
/// its final size.
pub fn parse_transcripts_owned(path: &Path, text: String) -> Result<TranscriptSet, CorpusError> {
    parse_transcripts_with(path, text, |_| ()).map(|(set, ())| set)
}

/// [`parse_transcripts_owned`], running `alongside` over the file's text
/// on another thread while it is scanned (e.g. its SHA-256).
pub fn parse_transcripts_with<R: Send>(
    path: &Path,
    text: String,
    alongside: impl FnOnce(&[u8]) -> R + Send,
) -> Result<(TranscriptSet, R), CorpusError> {
    let (text, tape, extra) = super::parse_tape_with(path, text, alongside)?;
    build_transcripts(path, &text, &tape).map(|set| (set, extra))
}

/// [`parse_transcripts_with`] over borrowed text (e.g. a mapped file):
/// while the transcripts are built, `release(n)` is called now and then
/// with the number of leading bytes of `text` that will not be read again,
/// so that the caller can give their memory back (the file's pages need
/// not stay resident beside the joined texts).
pub fn parse_transcripts_released<R: Send>(
    path: &Path,
    text: &str,
    mut release: impl FnMut(usize),
    alongside: impl FnOnce(&[u8]) -> R + Send,
) -> Result<(TranscriptSet, R), CorpusError> {
    let (doc, tape, extra) = super::parse_tape_borrowed(path, text, alongside)?;
    crate::timings::phase("transcripts: tape");
    let set = match &doc {
        // Offsets into `text`: past its byte-order mark.
        std::borrow::Cow::Borrowed(d) => {
            let bom = text.len() - d.len();
            build_released(path, d, &tape, &mut |n| release(bom + n))?
        }
        std::borrow::Cow::Owned(d) => build_released(path, d, &tape, &mut |_| ())?,
    };
    Ok((set, extra))
}

/// The transcripts of a corpus document's tape.
fn build_transcripts(path: &Path, text: &str, tape: &Tape) -> Result<TranscriptSet, CorpusError> {
    build_released(path, text, tape, &mut |_| ())
}

/// Bytes read between two calls of a build's `release`.
const RELEASE_STEP: usize = 1 << 20;

/// [`build_transcripts`], calling `release(n)` every [`RELEASE_STEP`]
/// bytes once the first `n` bytes of `text` will not be read again.
fn build_released(
    path: &Path,
    text: &str,
    tape: &Tape,
    release: &mut dyn FnMut(usize),
) -> Result<TranscriptSet, CorpusError> {
    let record_err = |record: String, field: &str, message: &str| CorpusError::Record {
        path: path.to_path_buf(),
        record,
        field: field.to_string(),
        message: message.to_string(),
    };
    let shape = "expected an array of chunks or an object with a \"documents\" array";
    let root = tape.root();
    let chunks = match tape.kind(root) {
        Kind::Array => root,
        Kind::Object => match tape.field(text, root, "documents") {
            Some(a) if tape.kind(a) == Kind::Array => a,
            _ => return Err(record_err("top level".into(), "documents", shape)),
        },
        _ => return Err(record_err("top level".into(), "(root)", shape)),
    };
    // Each chunk's FILE and content node, checked; FILEs by first sight.
    let mut set = TranscriptSet::default();
    let mut parts: Vec<(usize, usize)> = Vec::new();
    let mut sizes: Vec<usize> = Vec::new();
    for (i, chunk) in tape.children(chunks).enumerate() {
        if tape.kind(chunk) != Kind::Object {
            return Err(record_err(
                format!("chunk {i}"),
                "(chunk)",
                "expected an object",
            ));
        }
        let content = match tape.field(text, chunk, "page_content") {
            Some(c) if matches!(tape.kind(c), Kind::Str | Kind::StrEscaped) => c,
            Some(_) => {
                return Err(record_err(
                    format!("chunk {i}"),
                    "page_content",
                    "expected a string",
                ))
            }
            None => return Err(record_err(format!("chunk {i}"), "page_content", "missing")),
        };
        let file_node = tape
            .field(text, chunk, "metadata")
            .and_then(|m| tape.field(text, m, "FILE"));
        let file = match file_node.map(|f| (f, tape.kind(f))) {
            Some((f, Kind::Str | Kind::StrEscaped)) => {
                let s = tape.str_value(text, f).unwrap_or_default();
                if s.trim().is_empty() {
                    return Err(record_err(
                        format!("chunk {i}"),
                        "metadata.FILE",
                        "is empty",
                    ));
                }
                s
            }
            Some((f, Kind::Number)) => match tape.value(text, f) {
                Value::Number(n) => n.to_string().into(),
                _ => tape.raw(text, f).to_string().into(),
            },
            Some(_) => {
                return Err(record_err(
                    format!("chunk {i}"),
                    "metadata.FILE",
                    "expected a string",
                ))
            }
            None => return Err(record_err(format!("chunk {i}"), "metadata.FILE", "missing")),
        };
        let t = match set.index.get(file.as_ref()) {
            Some(&t) => t,
            None => {
                set.index.insert(file.to_string(), set.transcripts.len());
                set.transcripts.push(Transcript {
                    file: file.into_owned(),
                    text: String::new(),
                    chunks: 0,
                });
                sizes.push(0);
                set.transcripts.len() - 1
            }
        };
        // The raw length bounds the decoded one; joined with "\n".
        let n = tape.node(content);
        sizes[t] += (n.end - n.start) as usize - 2 + usize::from(set.transcripts[t].chunks > 0);
        set.transcripts[t].chunks += 1;
        parts.push((t, content));
    }
    for (t, size) in set.transcripts.iter_mut().zip(sizes) {
        t.text.reserve_exact(size);
    }
    let mut started = vec![false; set.transcripts.len()];
    let mut released = 0;
    for (t, content) in parts {
        let joined = &mut set.transcripts[t].text;
        if std::mem::replace(&mut started[t], true) {
            joined.push('\n');
        }
        push_content(tape, text, content, joined);
        // Chunks come in document order: what lies before this one's
        // end is done with.
        let end = tape.node(content).end as usize;
        if end >= released + RELEASE_STEP {
            release(end);
            released = end;
        }
    }
    Ok(set)
}

/// Appends a string node's value to `out` (escapes decoded).
fn push_content(tape: &Tape, text: &str, node: usize, out: &mut String) {
    let n = tape.node(node);
    let inner = &text[n.start as usize + 1..n.end as usize - 1];
    match tape.kind(node) {
        Kind::StrEscaped => super::tape::unescape_into(inner, out),
        _ => out.push_str(inner),
    }
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
    fn released_parse_equals_the_owned_one_and_releases_in_order() {
        // Chunks of three FILEs, ~3 MB in all, a byte-order mark, escapes.
        let mut json = String::from("\u{feff}[");
        for i in 0..3000 {
            if i > 0 {
                json.push(',');
            }
            let line = format!("Q{i}: \\\"line\\\" {}", "word ".repeat(200));
            json.push_str(&format!(
                r#"{{"page_content": "{line}", "metadata": {{"FILE": "f{}"}}}}"#,
                i / 1000
            ));
        }
        json.push(']');
        let owned = parse_transcripts(Path::new("t.json"), &json).unwrap();
        let mut calls: Vec<usize> = Vec::new();
        let (released, len) =
            parse_transcripts_released(Path::new("t.json"), &json, |n| calls.push(n), |b| b.len())
                .unwrap();
        assert_eq!(len, json.len());
        assert_eq!(released.transcripts.len(), 3);
        for (a, b) in owned.transcripts.iter().zip(&released.transcripts) {
            assert_eq!((&a.file, &a.text, a.chunks), (&b.file, &b.text, b.chunks));
        }
        // Every call releases more, by at least the step, within the text.
        assert!(calls.len() >= 2, "{calls:?}");
        assert!(calls.windows(2).all(|w| w[1] >= w[0] + RELEASE_STEP));
        assert!(calls.iter().all(|&n| n <= json.len()));
        // An invalid document is the same error either way.
        let bad = "[\n{\"page_content\": }]";
        let e1 = parse_transcripts(Path::new("t.json"), bad)
            .unwrap_err()
            .to_string();
        let e2 = parse_transcripts_released(Path::new("t.json"), bad, |_| (), |_| ())
            .unwrap_err()
            .to_string();
        assert_eq!(e1, e2);
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
