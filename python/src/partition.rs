//! Splitting a JSON chunk corpus by transcript, for `corpus_eval.ray`'s
//! partitioning task: the chunks are read as written (their JSON text,
//! through the core's tape parser) and copied to the partition files
//! unchanged, so that a partition loads as exactly those transcripts of the
//! whole corpus. Nothing is prepared and no Python object is made per
//! chunk: the task holds the file's text and its tape, not a prepared
//! corpus (about 7 times the text) or a Python document.

use corpus_eval::corpus::tape::{Kind, Tape};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use std::collections::HashMap;
use std::io::Write;

fn error(path: &str, message: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(format!("{path}: {message}"))
}

/// A chunk corpus's text (a byte-order mark dropped) and tape.
fn read(path: &str) -> PyResult<(String, Tape)> {
    let mut text = std::fs::read_to_string(path).map_err(|e| error(path, e))?;
    if text.starts_with('\u{feff}') {
        text.drain(..3);
    }
    let Some(tape) = Tape::parse(&text) else {
        let message = match corpus_eval::corpus::strict_json::parse_str(&text) {
            Err(e) => e.to_string(),
            Ok(_) => "not a JSON document".to_string(),
        };
        return Err(error(path, message));
    };
    Ok((text, tape))
}

/// Each chunk's node and FILE, in order, and the bytes of its
/// `page_content`.
fn chunks(path: &str, text: &str, tape: &Tape) -> PyResult<Vec<(usize, String, usize)>> {
    let root = tape.root();
    let array = match tape.kind(root) {
        Kind::Array => root,
        Kind::Object => match tape.field(text, root, "documents") {
            Some(a) if tape.kind(a) == Kind::Array => a,
            _ => {
                return Err(error(
                    path,
                    "expected an array of chunks or {\"documents\": [...]}",
                ))
            }
        },
        _ => {
            return Err(error(
                path,
                "expected an array of chunks or {\"documents\": [...]}",
            ))
        }
    };
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
                .ok_or_else(|| {
                    error(path, format!("chunk {i}: metadata.FILE: expected a string"))
                })?;
            let content = string(field("page_content")).ok_or_else(|| {
                error(path, format!("chunk {i}: page_content: expected a string"))
            })?;
            Ok((chunk, file.into_owned(), content.len()))
        })
        .collect()
}

/// The transcripts of a JSON chunk corpus: their FILE names in the order
/// they first appear (the corpus's order) and each one's `page_content`
/// bytes.
#[pyfunction]
pub fn chunk_files(py: Python<'_>, path: &str) -> PyResult<(Vec<String>, Vec<u64>)> {
    py.detach(|| {
        let (text, tape) = read(path)?;
        let mut names: Vec<String> = Vec::new();
        let mut sizes: Vec<u64> = Vec::new();
        let mut at: HashMap<String, usize> = HashMap::new();
        for (_, file, bytes) in chunks(path, &text, &tape)? {
            let k = *at.entry(file.clone()).or_insert_with(|| {
                names.push(file);
                sizes.push(0);
                names.len() - 1
            });
            sizes[k] += bytes as u64;
        }
        Ok((names, sizes))
    })
}

/// Writes the chunks of a JSON chunk corpus into `dests.len()` chunk
/// files, each chunk as written and in order, chunk of FILE `f` into
/// `dests[partition_of[f]]` (every FILE must have a partition).
#[pyfunction]
pub fn write_chunk_partitions(
    py: Python<'_>,
    path: &str,
    partition_of: HashMap<String, usize>,
    dests: Vec<String>,
) -> PyResult<()> {
    py.detach(|| {
        let (text, tape) = read(path)?;
        let mut outs = dests
            .iter()
            .map(|d| {
                let file = std::fs::File::create(d).map_err(|e| error(d, e))?;
                let mut w = std::io::BufWriter::with_capacity(1 << 20, file);
                w.write_all(b"[").map_err(|e| error(d, e))?;
                Ok((w, true))
            })
            .collect::<PyResult<Vec<_>>>()?;
        for (chunk, file, _) in chunks(path, &text, &tape)? {
            let k = partition_of
                .get(&file)
                .copied()
                .filter(|&k| k < outs.len())
                .ok_or_else(|| error(path, format!("{file:?} has no partition")))?;
            let (w, first) = &mut outs[k];
            let written = (if *first { Ok(()) } else { w.write_all(b",") })
                .and_then(|()| w.write_all(tape.raw(&text, chunk).as_bytes()));
            written.map_err(|e| error(&dests[k], e))?;
            *first = false;
        }
        for ((mut w, _), d) in outs.into_iter().zip(&dests) {
            w.write_all(b"]")
                .and_then(|()| w.flush())
                .map_err(|e| error(d, e))?;
        }
        Ok(())
    })
}

/// The transcript ids without their extension that find a transcript
/// (`corpus_eval::corpus::id_aliases`: where the stem is unique and not an
/// id itself), each to its id: the routing of a quote that cites a stem.
#[pyfunction]
pub fn transcript_aliases(ids: Vec<String>) -> HashMap<String, String> {
    corpus_eval::corpus::id_aliases(ids.iter().map(String::as_str))
        .into_iter()
        .map(|(stem, i)| (stem, ids[i].clone()))
        .collect()
}

/// The FILE names of any corpus the loader reads (a folder, a transcript
/// file, a `.qdpx` project, a chunk corpus), in the corpus's order, from a
/// packed load (no corpus prepared).
#[pyfunction]
pub fn transcript_files(py: Python<'_>, path: &str) -> PyResult<Vec<String>> {
    py.detach(|| {
        let loaded = corpus_eval::corpus::Loader::new()
            .packed(true)
            .transcripts(std::path::Path::new(path))
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(loaded
            .data
            .transcripts
            .into_iter()
            .map(|t| t.file)
            .collect())
    })
}
