//! `score` and `synonyms` as typed jobs: one answer's score, one word's
//! enrichment, with the lexicon the configuration names.
//!
//! ```
//! use corpus_eval::jobs::score::{score, Config};
//! let out = score(&Config::default(), "Yes/No", "yes", "Yes, it did.").unwrap();
//! assert_eq!(out.score, Some(1.0));
//! assert!(out.note.is_none());
//! ```

use super::{ConfigError, JobConfig, JobError};
use crate::scoring::{phrases::Analyzer, CompiledQuestion};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::PathBuf;

/// The settings of `score` and `synonyms`.
#[super::settings::shared_settings]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, super::settings::Settings)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    #[shared]
    pub wordnet: Option<PathBuf>,
}

impl JobConfig for Config {
    const COMMAND: &'static str = "score";
    const VERSION: u32 = 1;

    fn validate(&self) -> Result<(), ConfigError> {
        Ok(())
    }
}

/// One answer's score, as `score --json` prints it.
#[derive(Debug, Clone, Serialize)]
pub struct Scored {
    /// The score, or None when the answer cannot be scored.
    pub score: Option<f64>,
    /// The question type.
    #[serde(rename = "type")]
    pub qtype: String,
    /// The metric as given.
    pub metric: Value,
    /// Why there is no score.
    pub note: Option<String>,
    /// The scorers' signature.
    pub signature: String,
}

/// Scores `answer` against `metric` (JSON, or a plain "yes"/"no") for a
/// question of type `qtype`; a metric the type cannot compile gives no
/// score and a note, not an error.
pub fn score(config: &Config, qtype: &str, metric: &str, answer: &str) -> Result<Scored, JobError> {
    let lexicon = super::load_lexicon(config.wordnet.as_deref())?;
    let metric = Value::String(metric.to_string());
    let (score, note) = match CompiledQuestion::compile(qtype, &metric, &lexicon) {
        Ok(q) => (Some(q.score(answer, &mut Analyzer::new(&lexicon))), None),
        Err(e) => (None, Some(e.to_string())),
    };
    Ok(Scored {
        score,
        qtype: qtype.to_string(),
        metric,
        note,
        signature: crate::scoring::signature(&lexicon),
    })
}

/// A word's enrichment, as `synonyms --json` prints it.
#[derive(Debug, Clone, Serialize)]
pub struct Enrichment {
    /// The word or phrase.
    pub word: String,
    /// Its WordNet synonyms and number forms.
    pub forms: Vec<String>,
    /// The lexicon: its source and SHA-256.
    pub wordnet: LexiconId,
}

/// Which lexicon gave an enrichment.
#[derive(Debug, Clone, Serialize)]
pub struct LexiconId {
    /// Where it was loaded from.
    pub source: String,
    /// The SHA-256 of its compact form.
    pub sha256: String,
}

/// The enrichment of `word`: WordNet synonyms and number forms.
pub fn synonyms(config: &Config, word: &str) -> Result<Enrichment, JobError> {
    let lexicon = super::load_lexicon(config.wordnet.as_deref())?;
    Ok(Enrichment {
        word: word.to_string(),
        forms: lexicon.enrich(word),
        wordnet: LexiconId {
            source: lexicon.source().to_string(),
            sha256: lexicon.digest().to_string(),
        },
    })
}
