//! The native half of the `corpus_eval` Python package: the corpus-eval
//! jobs over JSON text ([`corpus_eval::jobs::inline`]) and over Arrow
//! batches ([`arrow`]), each releasing the GIL while it works. The Python
//! half (`corpus_eval/__init__.py`, `corpus_eval/arrow.py`) turns plain
//! Python data into that text and back, so every function returns what the
//! CLI writes.

mod arrow;
mod partition;

/// The CLI's allocator (mimalloc): the kernels make many small strings,
/// and the system allocator spent a third of a scoring batch in malloc and
/// free. Arrow buffers handed to Python are freed through their release
/// callbacks, so by this allocator too.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use corpus_eval::jobs::{self, inline, JobConfig};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// A configuration from JSON keyword arguments: an unknown key is a
/// `TypeError` (as for a Python function; the core tells it apart by the
/// configuration's keys, `ConfigError::UnknownKey`), a bad value a
/// `ValueError` with the message the command line gives for it.
fn config<C: JobConfig>(json: &str) -> PyResult<C> {
    inline::config::<C>(json).map_err(|e| match e {
        jobs::ConfigError::UnknownKey { .. } => PyTypeError::new_err(e.to_string()),
        _ => PyValueError::new_err(e.to_string()),
    })
}

fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// A lexicon the job names: the embedded one (loaded once per process), or
/// a WordNet dict folder's.
enum Lexicon {
    Embedded(&'static corpus_eval::lexicon::Lexicon),
    Folder(Box<corpus_eval::lexicon::Lexicon>),
}

impl std::ops::Deref for Lexicon {
    type Target = corpus_eval::lexicon::Lexicon;
    fn deref(&self) -> &Self::Target {
        match self {
            Lexicon::Embedded(l) => l,
            Lexicon::Folder(l) => l,
        }
    }
}

/// The lexicon of `wordnet` (a dict folder) or the embedded one.
fn lexicon(wordnet: Option<&Path>) -> PyResult<Lexicon> {
    static EMBEDDED: OnceLock<corpus_eval::lexicon::Lexicon> = OnceLock::new();
    if let Some(dir) = wordnet {
        return jobs::load_lexicon(Some(dir))
            .map(|l| Lexicon::Folder(Box::new(l)))
            .map_err(value_error);
    }
    if let Some(l) = EMBEDDED.get() {
        return Ok(Lexicon::Embedded(l));
    }
    let l = corpus_eval::lexicon::Lexicon::embedded().map_err(value_error)?;
    Ok(Lexicon::Embedded(EMBEDDED.get_or_init(|| l)))
}

fn to_json(v: &impl serde::Serialize) -> PyResult<String> {
    serde_json::to_string(v).map_err(value_error)
}

/// `evaluate`: questions and transcripts as JSON text, the config's fields
/// as a JSON object; returns `{"results", "summary"}` as JSON text.
/// `export_qdpx`: a run folder's located quotes as a REFI-QDA project;
/// what it wrote as JSON.
#[pyfunction]
#[pyo3(signature = (run_folder, out, inputs=None))]
fn export_qdpx_json(
    py: Python<'_>,
    run_folder: &str,
    out: &str,
    inputs: Option<&str>,
) -> PyResult<String> {
    py.detach(|| {
        let done = jobs::export_qdpx::export(
            std::path::Path::new(run_folder),
            std::path::Path::new(out),
            inputs.map(std::path::Path::new),
        )
        .map_err(value_error)?;
        to_json(&serde_json::json!({
            "out": done.out,
            "sources": done.sources,
            "selections": done.selections,
            "unlocated": done.unlocated,
        }))
    })
}

#[pyfunction]
fn evaluate_json(
    py: Python<'_>,
    questions: &str,
    transcripts: &str,
    config_json: &str,
) -> PyResult<String> {
    let config: jobs::evaluate::Config = config(config_json)?;
    py.detach(|| {
        let lexicon = lexicon(config.wordnet.as_deref())?;
        let (results, summary) =
            inline::evaluate(&config, questions, transcripts, &lexicon).map_err(value_error)?;
        to_json(&serde_json::json!({"results": results, "summary": summary}))
    })
}

/// The transcripts argument: JSON text, or (`is_path`) the path of a
/// folder, transcript file or `.qdpx` project.
fn transcripts_input<'a>(transcripts: &'a str, is_path: bool) -> inline::TranscriptsInput<'a> {
    if is_path {
        inline::TranscriptsInput::Path(Path::new(transcripts))
    } else {
        inline::TranscriptsInput::Json(transcripts)
    }
}

/// `evaluate` with the run folder's tables: questions as JSON text, the
/// transcripts as JSON text or (`is_path`) a path; returns `{"results",
/// "summary", "quotes_csv", "items_csv"}` as JSON text.
#[pyfunction]
#[pyo3(signature = (questions, transcripts, config_json, is_path=false))]
fn evaluate_tables_json(
    py: Python<'_>,
    questions: &str,
    transcripts: &str,
    config_json: &str,
    is_path: bool,
) -> PyResult<String> {
    let config: jobs::evaluate::Config = config(config_json)?;
    py.detach(|| {
        let lexicon = lexicon(config.wordnet.as_deref())?;
        let out = inline::evaluate_tables(
            &config,
            questions,
            transcripts_input(transcripts, is_path),
            &lexicon,
        )
        .map_err(value_error)?;
        to_json(&serde_json::json!({
            "results": out.results,
            "summary": out.summary,
            "quotes_csv": out.quotes_csv,
            "items_csv": out.items_csv,
        }))
    })
}

/// A transcript corpus parsed once, its transcripts prepared for lookups
/// on first use and kept: what a data engine's worker holds for its whole
/// life (`corpus_eval.Corpus`).
#[pyclass(frozen, module = "corpus_eval._native")]
pub struct Corpus {
    pub(crate) prepared: std::sync::Arc<corpus_eval::evaluate::PreparedTranscripts>,
}

#[pymethods]
impl Corpus {
    /// Parses the corpus (JSON text, or with `is_path` the path of a
    /// folder, transcript file or `.qdpx` project) with evaluate's settings
    /// as a JSON object (the speaker settings split transcripts into turns;
    /// `speaker_map` names diarized speakers).
    #[new]
    #[pyo3(signature = (transcripts, config_json, is_path=false))]
    fn new(
        py: Python<'_>,
        transcripts: &str,
        config_json: &str,
        is_path: bool,
    ) -> PyResult<Corpus> {
        let config: jobs::evaluate::Config = config(config_json)?;
        let prepared = py
            .detach(|| {
                inline::prepare_transcripts_input(&config, transcripts_input(transcripts, is_path))
            })
            .map_err(value_error)?;
        Ok(Corpus {
            prepared: std::sync::Arc::new(prepared),
        })
    }

    /// The number of transcripts.
    fn __len__(&self) -> usize {
        self.prepared.transcripts().transcripts.len()
    }

    /// The transcripts' names (FILE), in corpus order.
    fn files(&self) -> Vec<String> {
        self.prepared
            .transcripts()
            .transcripts
            .iter()
            .map(|t| t.file.clone())
            .collect()
    }
}

/// The quotes of a JSON array checked against a prepared corpus or a
/// corpus's JSON text.
pub(crate) fn check(
    config: &jobs::evaluate::Config,
    inputs: &[inline::QuoteInput],
    corpus: &Transcripts,
) -> Result<Vec<serde_json::Map<String, serde_json::Value>>, String> {
    match corpus {
        Transcripts::Prepared(p) => {
            inline::verify_quotes_prepared(config, inputs, p).map_err(|e| e.to_string())
        }
        Transcripts::Text(text) => {
            let t = corpus_eval::corpus::Loader::new()
                .transcripts_text(Path::new("transcripts"), text)
                .map_err(|e| e.to_string())?;
            inline::verify_quotes(config, inputs, &t).map_err(|e| e.to_string())
        }
    }
}

/// A corpus as the quote checks take it.
pub(crate) enum Transcripts {
    /// Prepared once (a `Corpus`).
    Prepared(std::sync::Arc<corpus_eval::evaluate::PreparedTranscripts>),
    /// JSON text, parsed for this call.
    Text(String),
}

impl Transcripts {
    /// A `Corpus` object or JSON text.
    pub(crate) fn of(value: &Bound<'_, PyAny>) -> PyResult<Transcripts> {
        if let Ok(c) = value.cast::<Corpus>() {
            return Ok(Transcripts::Prepared(c.get().prepared.clone()));
        }
        let text: String = value.extract()?;
        Ok(Transcripts::Text(text))
    }
}

/// `verify_quotes`: quotes as a JSON array of {"quote", "source",
/// "speaker"?, "answer"?, "id"?}, transcripts as the corpus's JSON text;
/// returns the quotes' result fields (JSON text of an array).
#[pyfunction]
fn verify_quotes_json(
    py: Python<'_>,
    quotes: &str,
    transcripts: &Bound<'_, PyAny>,
    config_json: &str,
) -> PyResult<String> {
    let config: jobs::evaluate::Config = config(config_json)?;
    let corpus = Transcripts::of(transcripts)?;
    py.detach(|| {
        let items: Vec<serde_json::Value> = serde_json::from_str(quotes).map_err(value_error)?;
        let mut inputs = Vec::with_capacity(items.len());
        let mut ids = Vec::with_capacity(items.len());
        for (k, item) in items.iter().enumerate() {
            let (input, id) = arrow::quote_of_json(k, item)?;
            inputs.push(input);
            ids.push(id);
        }
        let results = check(&config, &inputs, &corpus).map_err(value_error)?;
        let out: Vec<serde_json::Value> = results
            .into_iter()
            .zip(ids)
            .map(|(fields, id)| {
                // The id (when given) first, then the result's fields.
                let mut out = serde_json::Map::new();
                if let Some(id) = id {
                    out.insert("id".into(), id);
                }
                out.extend(fields);
                serde_json::Value::Object(out)
            })
            .collect();
        to_json(&out)
    })
}

/// `check_report`: the report as its text or (`report_is_path`) a path,
/// the transcripts as JSON text or (`is_path`) a path, a source map path;
/// returns results.json's `quotes` (JSON text of an array).
#[pyfunction]
#[pyo3(signature = (report, report_is_path, transcripts, is_path, sources, config_json))]
fn check_report_json(
    py: Python<'_>,
    report: &str,
    report_is_path: bool,
    transcripts: &str,
    is_path: bool,
    sources: Option<&str>,
    config_json: &str,
) -> PyResult<String> {
    let config: jobs::check_report::Config = config(config_json)?;
    py.detach(|| {
        let report = if report_is_path {
            inline::ReportInput::Path(Path::new(report))
        } else {
            inline::ReportInput::Text(report)
        };
        let records = inline::check_report(
            &config,
            report,
            transcripts_input(transcripts, is_path),
            sources.map(Path::new),
        )
        .map_err(value_error)?;
        to_json(&records)
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
    py.detach(|| {
        let lexicon = lexicon(None)?;
        let compiled = corpus_eval::scoring::CompiledQuestion::compile(qtype, &metric, &lexicon);
        Ok(compiled
            .ok()
            .map(|q| q.score(answer, &mut corpus_eval::scoring::Analyzer::new(&lexicon))))
    })
}

/// `hotpot`: predictions and gold as JSON text; returns
/// `{"metrics", "per_example"}` as JSON text (metrics.json and
/// per_example.json of the CLI's run folder). The system is named `name`,
/// else "predictions" (the CLI names it after the predictions file).
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
        to_json(&serde_json::json!({
            "metrics": eval.metrics_json(&system),
            "per_example": per_example,
            "items_csv": eval.per_example_csv(),
        }))
    })
}

/// `text_eval`: rows as JSON text; returns `{"results", "summary"}`
/// (results.json and summary.json) as JSON text.
#[pyfunction]
fn text_eval_json(py: Python<'_>, rows: &str, config_json: &str) -> PyResult<String> {
    let config: jobs::text_eval::Config = config(config_json)?;
    py.detach(|| {
        let lexicon = lexicon(config.wordnet.as_deref())?;
        let out = inline::text_eval(&config, rows, &lexicon).map_err(value_error)?;
        to_json(&serde_json::json!({
            "results": out.results,
            "summary": out.summary,
            "items_csv": corpus_eval::texteval::items_csv(&out.results),
        }))
    })
}

/// `grounding`: rows as JSON text; returns `{"results", "summary"}`
/// (grounding.json and summary.json) as JSON text.
#[pyfunction]
fn grounding_json(py: Python<'_>, rows: &str, config_json: &str) -> PyResult<String> {
    let config: jobs::grounding::Config = config(config_json)?;
    py.detach(|| {
        let lexicon = lexicon(config.wordnet.as_deref())?;
        let out = inline::grounding(&config, rows, &lexicon).map_err(value_error)?;
        to_json(&serde_json::json!({
            "results": out.results,
            "summary": out.summary,
            "items_csv": jobs::grounding::items_csv(&out.results),
        }))
    })
}

/// `lexical`: items as JSON text; returns `{"summary", "items"}` (what
/// `--json` prints and `--per-item` writes) as JSON text.
#[pyfunction]
fn lexical_json(py: Python<'_>, items: &str, config_json: &str) -> PyResult<String> {
    let config: jobs::lexical::Config = config(config_json)?;
    py.detach(|| {
        let out = inline::lexical(&config, items).map_err(value_error)?;
        to_json(&serde_json::json!({
            "summary": out.summary,
            "items": out.items(),
            "items_csv": out.items_csv(),
        }))
    })
}

/// `agreement`: one ratings table as JSON text (an array of row objects);
/// returns every coefficient (agreement.json) as JSON text.
#[pyfunction]
fn agreement_json(py: Python<'_>, table: &str, config_json: &str) -> PyResult<String> {
    let config: jobs::agreement::Config = config(config_json)?;
    py.detach(|| {
        let (out, items_csv) = inline::agreement_tables(&config, table).map_err(value_error)?;
        let mut value = serde_json::to_value(&out).map_err(value_error)?;
        if let Some(m) = value.as_object_mut() {
            m.insert("items_csv".into(), items_csv.into());
        }
        to_json(&value)
    })
}

/// `span_agreement`: two coders' codings compared as spans (the CLI's
/// `agreement --spans FILE...`); agreement.json with `codes_csv` as JSON
/// text.
#[pyfunction]
fn span_agreement_json(py: Python<'_>, files: Vec<String>, config_json: &str) -> PyResult<String> {
    let config: jobs::agreement::Config = config(config_json)?;
    py.detach(|| {
        let files: Vec<PathBuf> = files.iter().map(PathBuf::from).collect();
        // With `out`, a run folder is written as the CLI writes it.
        let (_, out) = jobs::span_agreement::execute(&config, &files).map_err(value_error)?;
        let mut value = serde_json::to_value(&out).map_err(value_error)?;
        if let Some(m) = value.as_object_mut() {
            m.insert(
                "codes_csv".into(),
                jobs::span_agreement::codes_csv(&out).into(),
            );
        }
        to_json(&value)
    })
}

/// The embedding model, loaded once per process (found as the CLI finds
/// it: `CORPUS_EVAL_MODEL_DIR`, `models/all-MiniLM-L6-v2`, the Hugging
/// Face cache).
fn embedder() -> PyResult<&'static corpus_eval::semantic::Embedder> {
    static EMBEDDER: OnceLock<corpus_eval::semantic::Embedder> = OnceLock::new();
    if let Some(e) = EMBEDDER.get() {
        return Ok(e);
    }
    let search = corpus_eval::semantic::ModelSearch::from_env(None::<PathBuf>);
    let (e, _) =
        corpus_eval::semantic::load_model(&search, corpus_eval::semantic::EngineKind::Fused)
            .map_err(value_error)?;
    Ok(EMBEDDER.get_or_init(|| e))
}

/// `similarity`: the cosine of two texts' sentence embeddings.
#[pyfunction]
fn similarity(py: Python<'_>, a: &str, b: &str) -> PyResult<f64> {
    py.detach(|| {
        let e = embedder()?;
        let v = e.embed(&[a, b]).map_err(value_error)?;
        Ok(corpus_eval::semantic::cosine(&v[0], &v[1]))
    })
}

/// `embed`: the texts' embeddings as (rows, dims, little-endian f32
/// bytes), which the Python side views as a numpy array without a copy
/// per number.
#[pyfunction]
fn embed_bytes(py: Python<'_>, texts: Vec<String>) -> PyResult<(usize, usize, Py<PyBytes>)> {
    let (rows, dims, bytes) = py.detach(|| -> PyResult<(usize, usize, Vec<u8>)> {
        let e = embedder()?;
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

/// The transcript formats the readers take, from their one table: each
/// format's name and extensions.
#[pyfunction]
fn transcript_formats() -> Vec<(String, Vec<String>)> {
    corpus_eval::corpus::READERS
        .iter()
        .map(|r| {
            (
                r.name.to_string(),
                r.extensions.iter().map(|e| e.to_string()).collect(),
            )
        })
        .collect()
}

/// The class lists of a quote check, from their one registry
/// (`citations::ClassList`): `(kind, name, description, missing)` per
/// class, lists in output order (`missing`: an attribution of a quote not
/// found in its cited transcript).
#[pyfunction]
fn classes() -> Vec<(&'static str, &'static str, &'static str, bool)> {
    use corpus_eval::citations::{Attribution, ClassList, Difference, MeaningClass, Verdict};
    fn rows<C: ClassList>(
        missing: impl Fn(C) -> bool,
    ) -> impl Iterator<Item = (&'static str, &'static str, &'static str, bool)> {
        C::ALL
            .iter()
            .map(move |&c| (C::KIND, c.name(), c.description(), missing(c)))
    }
    rows::<Verdict>(|_| false)
        .chain(rows::<Attribution>(Attribution::is_missing))
        .chain(rows::<Difference>(|_| false))
        .chain(rows::<MeaningClass>(|_| false))
        .collect()
}

/// The native module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Corpus>()?;
    m.add_function(wrap_pyfunction!(transcript_formats, m)?)?;
    m.add_function(wrap_pyfunction!(export_qdpx_json, m)?)?;
    m.add_function(wrap_pyfunction!(span_agreement_json, m)?)?;
    m.add_function(wrap_pyfunction!(evaluate_json, m)?)?;
    m.add_function(wrap_pyfunction!(evaluate_tables_json, m)?)?;
    m.add_function(wrap_pyfunction!(verify_quotes_json, m)?)?;
    m.add_function(wrap_pyfunction!(check_report_json, m)?)?;
    m.add_function(wrap_pyfunction!(score_answer, m)?)?;
    m.add_function(wrap_pyfunction!(hotpot_json, m)?)?;
    m.add_function(wrap_pyfunction!(text_eval_json, m)?)?;
    m.add_function(wrap_pyfunction!(grounding_json, m)?)?;
    m.add_function(wrap_pyfunction!(lexical_json, m)?)?;
    m.add_function(wrap_pyfunction!(agreement_json, m)?)?;
    m.add_function(wrap_pyfunction!(similarity, m)?)?;
    m.add_function(wrap_pyfunction!(embed_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(arrow::verify_quotes_arrow, m)?)?;
    m.add_function(wrap_pyfunction!(arrow::score_answers_arrow, m)?)?;
    m.add_function(wrap_pyfunction!(arrow::summarize_arrow, m)?)?;
    m.add_function(wrap_pyfunction!(arrow::summary_parts_arrow, m)?)?;
    m.add_function(wrap_pyfunction!(arrow::combine_parts, m)?)?;
    m.add_function(wrap_pyfunction!(arrow::other_sources_arrow, m)?)?;
    m.add_function(wrap_pyfunction!(arrow::item_tables_arrow, m)?)?;
    m.add_function(wrap_pyfunction!(partition::chunk_files, m)?)?;
    m.add_function(wrap_pyfunction!(partition::write_chunk_partitions, m)?)?;
    m.add_function(wrap_pyfunction!(partition::transcript_files, m)?)?;
    m.add_function(wrap_pyfunction!(partition::transcript_aliases, m)?)?;
    m.add_function(wrap_pyfunction!(classes, m)?)?;
    Ok(())
}
