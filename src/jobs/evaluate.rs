//! The main job as a typed job: score every answer by its question type and
//! verify every quote against its transcript.
//!
//! ```
//! use corpus_eval::corpus::{parse_questions, parse_transcripts};
//! use corpus_eval::jobs::evaluate::{run, Config};
//! use corpus_eval::lexicon::Lexicon;
//! use std::path::Path;
//!
//! let questions = parse_questions(Path::new("q.json"), r#"{"qa_pairs": [
//!   {"id": "q1", "question": {"text": "Main crop?", "type": "ListOne", "metric": {"potato": 1}},
//!    "answers": [{"answer": "Potatoes, mostly.", "source": "a.csv",
//!                 "verbatims": [{"quote": "we grow potatoes", "source": "a.csv"}]}]}]}"#).unwrap();
//! let transcripts = parse_transcripts(Path::new("t.json"),
//!   r#"[{"page_content": "Farmer: we grow potatoes here.", "metadata": {"FILE": "a.csv"}}]"#).unwrap();
//! let out = run(&Config::default(), &questions, &transcripts, &Lexicon::embedded().unwrap()).unwrap();
//! assert_eq!(out.summary.overall.mean, 1.0);
//! assert_eq!(out.summary.existence.mean, 1.0);
//! assert_eq!(out.results["qa_pairs"][0]["answers"][0]["verbatims"][0]["verdict"], "exact");
//! ```

use super::{check_unit, ConfigError, JobConfig};
use crate::citations::MatchLevel;
use crate::corpus::{QuestionSet, TranscriptSet};
use crate::evaluate::{annotate, evaluate, summarize_evaluation, EvalConfig, Summary};
use crate::lexicon::Lexicon;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// The settings of `corpus-eval evaluate` (the defaults are the command
/// line's).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// Format version of this configuration.
    pub version: u32,
    /// Parent folder of the run folder.
    pub out: PathBuf,
    /// The weakest quote verdict that counts as found (`--match`).
    #[serde(rename = "match")]
    pub match_level: MatchLevel,
    /// Similarity (0..1) a fuzzy match needs.
    pub fuzzy_threshold: f64,
    /// Do not draw the PNG charts.
    pub no_plots: bool,
    /// A WordNet dict folder instead of the embedded lexicon.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wordnet: Option<PathBuf>,
    /// Seed of the bootstrap confidence intervals.
    pub seed: u64,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            version: Self::VERSION,
            out: PathBuf::from("reports"),
            match_level: MatchLevel::Normalized,
            fuzzy_threshold: crate::citations::DEFAULT_FUZZY_THRESHOLD,
            no_plots: false,
            wordnet: None,
            seed: 42,
        }
    }
}

impl JobConfig for Config {
    const COMMAND: &'static str = "evaluate";
    const VERSION: u32 = 1;

    fn validate(&self) -> Result<(), ConfigError> {
        check_unit("--fuzzy-threshold", self.fuzzy_threshold)
    }
}

impl Config {
    /// The library's evaluation settings for this configuration.
    pub fn eval_config(&self) -> EvalConfig {
        EvalConfig {
            match_level: self.match_level,
            fuzzy_threshold: self.fuzzy_threshold,
            seed: self.seed,
            ..EvalConfig::default()
        }
    }
}

/// What the job produces: `results.json` and `summary.json`'s contents.
#[derive(Debug, Clone)]
pub struct Output {
    /// The input document with scores and quote verdicts added.
    pub results: serde_json::Value,
    /// Aggregates, intervals, counts, warnings and the signature.
    pub summary: Summary,
}

/// Runs the main job over parsed inputs.
pub fn run(
    config: &Config,
    questions: &QuestionSet,
    transcripts: &TranscriptSet,
    lexicon: &Lexicon,
) -> Result<Output, ConfigError> {
    config.validate()?;
    let eval = evaluate(questions, transcripts, lexicon, &config.eval_config());
    let summary = summarize_evaluation(&eval);
    let results = annotate(questions, &eval);
    Ok(Output { results, summary })
}
