//! Splitting a JSON chunk corpus by transcript, for `corpus_eval.ray`'s
//! partitioning task: the chunks are read as written (their JSON text,
//! through the core's `raw_chunks`) and copied to the partition files
//! unchanged, so that a partition loads as exactly those transcripts of the
//! whole corpus. Nothing is prepared and no Python object is made per
//! chunk: the task holds the file's text and the chunks' places, not a prepared
//! corpus (about 7 times the text) or a Python document.

use corpus_eval::corpus::{raw_chunks, RawChunk};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use std::collections::HashMap;
use std::io::Write;

fn error(path: &str, message: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(format!("{path}: {message}"))
}

/// A chunk corpus's text and its chunks in order (the core's reader: its
/// errors name the file, the chunk and the field).
fn read(path: &str) -> PyResult<(String, Vec<RawChunk>)> {
    raw_chunks(std::path::Path::new(path)).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// The transcripts of a JSON chunk corpus: their FILE names in the order
/// they first appear (the corpus's order) and each one's `page_content`
/// bytes.
#[pyfunction]
pub fn chunk_files(py: Python<'_>, path: &str) -> PyResult<(Vec<String>, Vec<u64>)> {
    py.detach(|| {
        let (_, chunks) = read(path)?;
        let mut names: Vec<String> = Vec::new();
        let mut sizes: Vec<u64> = Vec::new();
        let mut at: HashMap<String, usize> = HashMap::new();
        for RawChunk {
            file,
            content_bytes: bytes,
            ..
        } in chunks
        {
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
        let (text, chunks) = read(path)?;
        let mut outs = dests
            .iter()
            .map(|d| {
                let file = std::fs::File::create(d).map_err(|e| error(d, e))?;
                let mut w = std::io::BufWriter::with_capacity(1 << 20, file);
                w.write_all(b"[").map_err(|e| error(d, e))?;
                Ok((w, true))
            })
            .collect::<PyResult<Vec<_>>>()?;
        for RawChunk { file, raw, .. } in chunks {
            let k = partition_of
                .get(&file)
                .copied()
                .filter(|&k| k < outs.len())
                .ok_or_else(|| error(path, format!("{file:?} has no partition")))?;
            let (w, first) = &mut outs[k];
            let written = (if *first { Ok(()) } else { w.write_all(b",") })
                .and_then(|()| w.write_all(text[raw].as_bytes()));
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
