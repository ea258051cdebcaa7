//! The native half of the `corpus_eval` Python package: the corpus-eval
//! jobs over JSON text, each releasing the GIL while it works. The Python
//! half (`corpus_eval/__init__.py`) turns plain Python data into that text
//! and back, so every function returns what the CLI writes.

use corpus_eval::jobs::{self, JobConfig};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::path::Path;
use std::sync::OnceLock;

/// A configuration from JSON keyword arguments: an unknown key is a
/// `TypeError` (as for a Python function), a bad value a `ValueError`.
fn config<C: JobConfig>(json: &str) -> PyResult<C> {
    let c: C = serde_json::from_str(json).map_err(|e| {
        let text = e.to_string();
        if text.contains("unknown field") {
            PyTypeError::new_err(text)
        } else {
            PyValueError::new_err(text)
        }
    })?;
    c.validate()
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(c)
}

fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// The lexicon, loaded once per process.
fn lexicon() -> PyResult<&'static corpus_eval::lexicon::Lexicon> {
    static LEXICON: OnceLock<corpus_eval::lexicon::Lexicon> = OnceLock::new();
    if let Some(l) = LEXICON.get() {
        return Ok(l);
    }
    let l = corpus_eval::lexicon::Lexicon::embedded().map_err(value_error)?;
    Ok(LEXICON.get_or_init(|| l))
}

/// `evaluate`: questions and transcripts as JSON text, the config's fields
/// as a JSON object; returns `{"results", "summary"}` as JSON text.
#[pyfunction]
fn evaluate_json(
    py: Python<'_>,
    questions: &str,
    transcripts: &str,
    config_json: &str,
) -> PyResult<String> {
    let config: jobs::evaluate::Config = config(config_json)?;
    let lexicon = lexicon()?;
    py.detach(|| {
        let q = corpus_eval::corpus::parse_questions(Path::new("questions"), questions)
            .map_err(value_error)?;
        let t = corpus_eval::corpus::parse_transcripts(Path::new("transcripts"), transcripts)
            .map_err(value_error)?;
        let out = jobs::evaluate::run(&config, &q, &t, lexicon).map_err(value_error)?;
        let v = serde_json::json!({"results": out.results, "summary": out.summary});
        Ok(v.to_string())
    })
}

/// `score_answer`: one answer's score under a question type and metric
/// (JSON text); None when it cannot be scored.
#[pyfunction]
fn score_answer(
    py: Python<'_>,
    answer: &str,
    qtype: &str,
    metric_json: &str,
) -> PyResult<Option<f64>> {
    let metric: serde_json::Value = serde_json::from_str(metric_json).map_err(value_error)?;
    let lexicon = lexicon()?;
    py.detach(|| {
        let compiled = corpus_eval::scoring::CompiledQuestion::compile(qtype, &metric, lexicon);
        Ok(compiled.ok().map(|q| {
            q.score(
                answer,
                &mut corpus_eval::scoring::phrases::Analyzer::new(lexicon),
            )
        }))
    })
}

/// `hotpot`: predictions and gold as JSON text; returns
/// `{"metrics", "per_example"}` as JSON text (metrics.json and
/// per_example.json of the CLI's run folder).
#[pyfunction]
fn hotpot_json(
    py: Python<'_>,
    predictions: &str,
    gold: &str,
    config_json: &str,
) -> PyResult<String> {
    let config: jobs::hotpot::Config = config(config_json)?;
    py.detach(|| {
        let eval = jobs::hotpot::run(
            &config,
            Path::new("predictions"),
            predictions.as_bytes(),
            Path::new("gold"),
            gold.as_bytes(),
        )
        .map_err(value_error)?;
        let system = config.name.clone().unwrap_or_else(|| "predictions".into());
        let per_example: serde_json::Value =
            serde_json::from_slice(&eval.per_example_json()).map_err(value_error)?;
        let v =
            serde_json::json!({"metrics": eval.metrics_json(&system), "per_example": per_example});
        Ok(v.to_string())
    })
}

/// The embedding model, loaded once per process (found as the CLI finds it).
fn embedder() -> PyResult<&'static corpus_eval::semantic::Embedder> {
    static EMBEDDER: OnceLock<corpus_eval::semantic::Embedder> = OnceLock::new();
    if let Some(e) = EMBEDDER.get() {
        return Ok(e);
    }
    let search = corpus_eval::semantic::ModelSearch::from_env(None);
    let (e, _) =
        corpus_eval::semantic::load_model(&search, corpus_eval::semantic::EngineKind::Fused)
            .map_err(value_error)?;
    Ok(EMBEDDER.get_or_init(|| e))
}

/// `similarity`: the cosine of two texts' sentence embeddings.
#[pyfunction]
fn similarity(py: Python<'_>, a: &str, b: &str) -> PyResult<f64> {
    let e = embedder()?;
    py.detach(|| {
        let v = e.embed(&[a, b]).map_err(value_error)?;
        Ok(corpus_eval::semantic::cosine(&v[0], &v[1]))
    })
}

/// `embed`: the texts' embeddings as (rows, dims, little-endian f32
/// bytes), which the Python side views as a numpy array without a copy
/// per number.
#[pyfunction]
fn embed_bytes(py: Python<'_>, texts: Vec<String>) -> PyResult<(usize, usize, Py<PyBytes>)> {
    let e = embedder()?;
    let (rows, dims, bytes) = py.detach(|| -> PyResult<(usize, usize, Vec<u8>)> {
        let vectors = e.embed(&texts).map_err(value_error)?;
        let dims = e.dim();
        let mut bytes = Vec::with_capacity(vectors.len() * dims * 4);
        for v in &vectors {
            for x in v {
                bytes.extend_from_slice(&x.to_le_bytes());
            }
        }
        Ok((vectors.len(), dims, bytes))
    })?;
    Ok((rows, dims, PyBytes::new(py, &bytes).unbind()))
}

/// The native module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(evaluate_json, m)?)?;
    m.add_function(wrap_pyfunction!(score_answer, m)?)?;
    m.add_function(wrap_pyfunction!(hotpot_json, m)?)?;
    m.add_function(wrap_pyfunction!(similarity, m)?)?;
    m.add_function(wrap_pyfunction!(embed_bytes, m)?)?;
    Ok(())
}
