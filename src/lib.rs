//! corpus-eval: score LLM and RAG answers over transcript corpora and verify
//! that every quoted citation really stands in its source.
//!
//! The main job ([`evaluate::evaluate`]) flows through these modules:
//!
//! - [`corpus`]: load question files and transcript corpora;
//! - [`text`]: normalization, number words <-> digits;
//! - [`lexicon`]: WordNet synonyms and the morphy lemmatizer;
//! - [`scoring`]: the six question-type scorers;
//! - [`citations`]: exact, normalized and fuzzy quote verification;
//! - [`stats`]: means and bootstrap intervals;
//! - [`report`]: run folders, manifests and how files are written;
//! - [`views`]: terminal tables, the HTML audit reports and charts;
//! - [`metrics`]: HotpotQA answer, citation and supporting-fact metrics;
//! - [`semantic`]: sentence embeddings (all-MiniLM-L6-v2 with candle), anchors,
//!   the answer-judging methods and threshold search;
//! - `judge`: LLM-as-judge over an OpenAI-compatible API, with a verdict cache;
//! - [`cli`]: the command line that wires them.
//!
//! The library's guide (the typed jobs, the loaders, features and an
//! example) is the repository's `docs/library.md` chapter; every command's
//! chapter is listed in `docs/README.md`.
//!
//! Cargo features (all on by default): `cli` (the command line), `semantic`
//! (sentence embeddings: candle, tokenizers), `net` (the LLM judge and the
//! RAG API: reqwest, SQLite) and `charts` (PNG charts: plotters). With
//! `--no-default-features` the library still scores answers, verifies
//! quotes, computes HotpotQA, text-eval (TF-IDF fallback), grounding and
//! statistics, and writes JSON outputs and run folders.
//!
//! ```
//! use corpus_eval::{lexicon::Lexicon, scoring::score_answer};
//! let lex = Lexicon::embedded().unwrap();
//! let metric = serde_json::json!({"potato": 1.0, "leek": 0.5});
//! assert_eq!(score_answer("ListMany", &metric, "Mostly potatoes.", &lex).unwrap(), 1.0);
//! ```

#![deny(missing_docs)]
#![warn(unreachable_pub)]

/// `eprintln!` that never panics: a message that cannot be written to
/// standard error (closed, or a full disk) is dropped, and the command goes
/// on to its exit code. Control characters of the message (an escape
/// sequence in a file or system name) are shown escaped
/// ([`text::printable`]), never sent to the terminal raw.
macro_rules! errln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let line = format!($($arg)*);
        let _ = writeln!(std::io::stderr().lock(), "{}", $crate::text::printable(&line));
    }};
}

// The modules by layer, top to bottom; each imports only from the layers
// below it (tests/layers.rs checks it). ARCHITECTURE.md has a table per
// layer.

// 1. The command line.
#[cfg(feature = "cli")]
pub mod cli;

// 2. Jobs: one typed job per command (configuration, run, run folder).
pub mod jobs;

// 3. Views: what a person sees (terminal tables, report.html, charts).
pub mod views;

// 4. Per-command computations.
pub mod agreement;
pub mod check_report;
pub mod compare;
pub mod evaluate;
pub mod gates;
pub mod grounding;
pub(crate) mod hotpot;
#[cfg(all(feature = "net", feature = "semantic"))]
pub(crate) mod judge_answers;
pub mod lexical;
pub mod texteval;

// 5. Stages.
pub mod citations;
#[cfg(all(feature = "net", feature = "semantic"))]
pub(crate) mod judge;
pub mod metrics;
#[cfg(feature = "net")]
pub mod rag;
pub mod scoring;
#[cfg(feature = "semantic")]
pub mod semantic;

// 6. Inputs, lexicon and outputs.
pub mod corpus;
pub mod lexicon;
pub mod report;

// 7. Base.
#[cfg(feature = "net")]
pub(crate) mod http;
pub(crate) mod pool;
pub mod progress;
pub mod secrets;
pub mod shard;
pub mod signature;
pub mod stats;
pub mod sys;
#[cfg(test)]
mod test_rng;
pub mod text;

// What a library user needs most, at the crate root.
pub use citations::{SourceText, Verdict};
pub use corpus::{Loaded, Loader, QuestionSet, TranscriptSet};
pub use evaluate::{evaluate, EvalConfig};
pub use jobs::{JobConfig, JobError};
pub use lexicon::Lexicon;
pub use signature::Signature;
