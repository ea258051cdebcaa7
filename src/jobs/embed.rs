//! `similarity` and `embed` as typed jobs: the sentence-embedding model a
//! configuration names, two texts' cosine, a file's embeddings as JSON
//! Lines.

use super::{engine_of, ConfigError, JobConfig, JobError};
use crate::semantic::{load_model, warn_truncation, Embedder, ModelSearch};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The settings of `similarity` and `embed`: where the model comes from
/// and which forward pass runs it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, super::settings::Settings)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// Folder of the sentence-embedding model (Hugging Face layout:
    /// config.json, tokenizer.json, model.safetensors). Default:
    /// $CORPUS_EVAL_MODEL_DIR, then models/all-MiniLM-L6-v2, then the
    /// Hugging Face cache.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[setting(value_name = "DIR")]
    pub model_dir: Option<PathBuf>,
    /// The forward pass: the fused one, or candle-transformers' BertModel
    /// unchanged (same numbers to ~1e-6, about half the speed).
    #[setting(default = "fused".into(), choices_in = "super::ENGINES")]
    pub engine: String,
}

impl JobConfig for Config {
    const COMMAND: &'static str = "embed";
    const VERSION: u32 = 1;

    fn validate(&self) -> Result<(), ConfigError> {
        engine_of("--engine", &self.engine).map(|_| ())
    }
}

/// Loads the embedding model a configuration names (a missing model is an
/// input error whose message says how to get one).
pub fn load_embedder(model_dir: Option<&Path>, engine: &str) -> Result<Embedder, JobError> {
    let engine = engine_of("--engine", engine)?;
    let (embedder, _) = load_model(
        &ModelSearch::from_env(model_dir.map(Path::to_path_buf)),
        engine,
    )?;
    Ok(embedder)
}

/// Two texts' cosine, as `similarity --json` prints it.
#[derive(Debug, Clone, Serialize)]
pub struct Similarity {
    /// The cosine of their embeddings.
    pub similarity: f64,
    /// The model's signature.
    pub signature: String,
}

/// The cosine similarity of `a` and `b` (a truncated text is named on
/// stderr).
pub fn similarity(config: &Config, a: &str, b: &str) -> Result<Similarity, JobError> {
    let embedder = load_embedder(config.model_dir.as_deref(), &config.engine)?;
    let v = embedder.embed(&[a, b])?;
    warn_truncation(&embedder);
    let cos = crate::semantic::cosine(&v[0], &v[1]);
    Ok(Similarity {
        similarity: cos + 0.0,
        signature: embedder.signature(),
    })
}

/// A file's embeddings, as `embed --json` prints them.
#[derive(Debug, Clone, Serialize)]
pub struct Embedded {
    /// How many texts.
    pub count: usize,
    /// The dimensions of each embedding.
    pub dims: usize,
    /// Where the JSON Lines were written (None: they are in `lines`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    /// Seconds the embedding took.
    pub seconds: f64,
    /// The model's signature.
    pub signature: String,
    /// The JSON Lines when no output file was named.
    #[serde(skip)]
    pub lines: Vec<u8>,
}

impl Embedded {
    /// `N embeddings (D dims, SIGNATURE) -> OUTPUT in S.SSs`.
    pub fn line(&self) -> String {
        format!(
            "{} embeddings ({} dims, {}) -> {} in {:.2}s",
            self.count,
            self.dims,
            self.signature,
            self.output.as_deref().unwrap_or("stdout"),
            self.seconds
        )
    }
}

/// One JSON line per text of `file` (`{"index", "id"?, "text",
/// "embedding"}`, in input order), written atomically to `output` when
/// given (checked before any work), else returned in
/// [`Embedded::lines`].
pub fn embed(config: &Config, file: &Path, output: Option<&Path>) -> Result<Embedded, JobError> {
    // A device, FIFO or folder is refused before any work (exit 2).
    if let Some(path) = output {
        crate::report::check_destination(path)?;
    }
    let items = crate::semantic::texts::load_texts(file)?;
    let embedder = load_embedder(config.model_dir.as_deref(), &config.engine)?;
    let texts: Vec<&str> = items.iter().map(|t| t.text.as_str()).collect();
    let started = std::time::Instant::now();
    let vectors = embedder.embed(&texts)?;
    let seconds = started.elapsed().as_secs_f64();
    warn_truncation(&embedder);
    let mut lines = crate::semantic::texts::embedding_lines(&items, &vectors);
    if let Some(path) = output {
        crate::report::write_atomic(path, &lines)?;
        lines = Vec::new();
    }
    Ok(Embedded {
        count: items.len(),
        dims: embedder.dim(),
        output: output.map(|p| p.display().to_string()),
        seconds,
        signature: embedder.signature(),
        lines,
    })
}
