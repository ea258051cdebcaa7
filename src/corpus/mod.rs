//! Input data model and loaders: Socioscope question files, transcript
//! corpora and HotpotQA prediction/gold files.
//!
//! Loaders parse JSON with serde_json (syntax errors carry line:column),
//! then validate records one by one so an error names the record's index,
//! its id and the field at fault.

mod anchors;
pub(crate) mod chunk_corpus;
pub use chunk_corpus::{raw_chunks, RawChunk};
pub(crate) mod formats;
pub use formats::*;
pub(crate) mod hotpot;
pub(crate) mod input;
pub(crate) mod judged;
pub use judged::*;
mod load;
pub(crate) mod packed;
pub(crate) mod pieces;
mod questions;
pub(crate) mod records;
pub(crate) mod skim;
pub(crate) mod strict_json;
pub(crate) mod tabular;
pub(crate) mod tape;
mod transcripts;

pub(crate) use load::input_bytes;
pub use load::{InputBytes, Loaded, Loader};
pub(crate) use questions::parse_questions;
pub use questions::{Answer, QaPair, QuestionSet, Quote};
pub(crate) use transcripts::parse_transcripts;
pub use transcripts::{id_aliases, Transcript, TranscriptSet};

use std::path::PathBuf;

/// Errors from reading input files. Every variant names the file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CorpusError {
    /// The file could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The file is not valid JSON, or a field has the wrong JSON type.
    #[error("{path}:{line}:{column}: {message}")]
    Json {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What serde_json said.
        message: String,
    },
    /// A transcript held compressed in memory failed to decode (its
    /// memory was damaged): the run stops rather than check quotes
    /// against an empty text.
    #[error("transcript {file}: its text, held compressed in memory, failed to decode")]
    Damaged {
        /// The transcript (its FILE).
        file: String,
    },
    /// A record is missing a required field or has an unusable value.
    #[error("{path}: {record}: field `{field}`: {message}")]
    Record {
        /// The file.
        path: PathBuf,
        /// The record, e.g. "qa pair 3 (id \"q4\")".
        record: String,
        /// The field, e.g. "question.type".
        field: String,
        /// What is wrong.
        message: String,
    },
}

pub use crate::text::preview::{
    bound_message, number_preview, preview, preview_value, Preview, PREVIEW_CHARS,
};

/// Reads a whole file as UTF-8 (a regular file within the bounds of
/// `input`).
pub fn read_text(path: &std::path::Path) -> Result<String, CorpusError> {
    let bytes = input::read_bytes(path)?;
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        CorpusError::Record {
            path: path.to_path_buf(),
            record: format!("byte {at}"),
            field: "(file)".into(),
            message: "the file is not valid UTF-8".into(),
        }
    })
}

/// Longest line read from a table file (a run folder's items.csv, a
/// ratings CSV), in bytes: a longer line is not a table's row (a 1 GB file
/// of NULs is refused after 16 MiB, not read whole).
pub const MAX_LINE_BYTES: usize = 16 << 20;

/// A reader that fails (`InvalidData`) once a line runs over
/// [`MAX_LINE_BYTES`]: tables are streamed through it, row by row.
pub struct LineBounded<R> {
    inner: R,
    /// Bytes since the last line break.
    line: usize,
}

impl<R: std::io::Read> LineBounded<R> {
    /// Wraps a reader.
    pub fn new(inner: R) -> LineBounded<R> {
        LineBounded { inner, line: 0 }
    }
}

impl<R: std::io::Read> std::io::Read for LineBounded<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        match memchr::memrchr(b'\n', &buf[..n]) {
            Some(at) => self.line = n - at - 1,
            None => self.line += n,
        }
        if self.line > MAX_LINE_BYTES {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("a line over {} MiB: not a table", MAX_LINE_BYTES >> 20),
            ));
        }
        Ok(n)
    }
}

/// Parses JSON text into a value, mapping syntax errors to line:column.
pub(crate) fn parse_json(
    path: &std::path::Path,
    text: &str,
) -> Result<serde_json::Value, CorpusError> {
    strict_json::parse_str(text).map_err(|e| json_error(path, &e))
}

/// The tape of a JSON document (a leading byte-order mark skipped), with
/// the text it indexes, running `alongside` over the whole text (the mark
/// included) on another thread while the tape is made. Invalid JSON or a
/// repeated key is the error [`parse_json`] gives for it (naming the line
/// and column).
pub(crate) fn parse_tape_with<R: Send>(
    path: &std::path::Path,
    mut text: String,
    alongside: impl FnOnce(&[u8]) -> R + Send,
) -> Result<(String, tape::Tape, R), CorpusError> {
    let bom = text.len() - strict_json::strip_bom(&text).len();
    let (extra, tape) = rayon::join(
        || alongside(text.as_bytes()),
        || tape::Tape::parse(&text[bom..]),
    );
    text.drain(..bom);
    if let Some(t) = tape {
        return Ok((text, t, extra));
    }
    let (text, t) = parse_tape_slow(path, text)?;
    Ok((text, t, extra))
}

/// [`parse_tape_with`] over borrowed text (e.g. a mapped file): the
/// document (the text past its byte-order mark, or serde_json's compact
/// copy should the tape scanner refuse a document serde_json accepts), its
/// tape, and what `alongside` returned (run over the whole text, mark
/// included, on another thread while the tape is scanned).
pub(crate) fn parse_tape_borrowed<'a, R: Send>(
    path: &std::path::Path,
    text: &'a str,
    alongside: impl FnOnce(&[u8]) -> R + Send,
) -> Result<(std::borrow::Cow<'a, str>, tape::Tape, R), CorpusError> {
    let doc = strict_json::strip_bom(text);
    let (extra, scanned) = rayon::join(|| alongside(text.as_bytes()), || tape::Tape::parse(doc));
    if let Some(t) = scanned {
        return Ok((std::borrow::Cow::Borrowed(doc), t, extra));
    }
    let (compact, t) = parse_tape_slow(path, doc.to_string())?;
    Ok((std::borrow::Cow::Owned(compact), t, extra))
}

/// The tape of a document the tape scanner refused: serde_json's error, or
/// (should serde_json accept it) the tape of serde_json's compact text.
fn parse_tape_slow(
    path: &std::path::Path,
    text: String,
) -> Result<(String, tape::Tape), CorpusError> {
    // Invalid: serde_json says where and why. (Should it accept what the
    // tape refused, its own compact text is read instead.)
    let value = parse_json(path, &text)?;
    let compact = value.to_string();
    match tape::Tape::parse(&compact) {
        Some(t) => Ok((compact, t)),
        None => Err(CorpusError::Json {
            path: path.to_path_buf(),
            line: 1,
            column: 1,
            message: "the document could not be indexed".into(),
        }),
    }
}

/// A serde_json error as a [`CorpusError::Json`] naming the file and the
/// line:column.
pub fn json_error(path: &std::path::Path, e: &serde_json::Error) -> CorpusError {
    CorpusError::Json {
        path: path.to_path_buf(),
        line: e.line(),
        column: e.column(),
        message: without_position(&e.to_string()),
    }
}

/// "null", "a boolean", "a number", "a string", "an array" or "an object":
/// the kind of a JSON value, for error messages.
pub(crate) fn json_kind(v: &serde_json::Value) -> &'static str {
    use serde_json::Value;
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// serde_json's message without its trailing " at line L column C" (the
/// error already starts with path:line:column).
pub(crate) fn without_position(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) if msg[i..].contains(" column ") => msg[..i].to_string(),
        _ => msg.to_string(),
    }
}
