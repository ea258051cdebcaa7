//! HotpotQA answer, citation and supporting-fact metrics as a typed job.
//!
//! ```
//! use corpus_eval::jobs::hotpot::{run, Config};
//! use std::path::Path;
//!
//! let pred = br#"[{"answer": "Paris", "citations": [1]}]"#;
//! let gold = br#"[{"answer": "Paris", "citations": [1, 2]}]"#;
//! let eval = run(&Config::default(), Path::new("p.json"), pred, Path::new("g.json"), gold).unwrap();
//! assert_eq!(eval.n(), 1);
//! assert_eq!(eval.averages_json()["answer_em"], 1.0);
//! assert_eq!(eval.averages_json()["citation_recall"], 0.5);
//! ```

use super::{ConfigError, JobConfig, JobError};
use crate::corpus::hotpot::{
    is_official_predictions, official_gold, official_predictions, simple_records,
};
use crate::corpus::json_error;
use crate::hotpot::{evaluate_official, evaluate_simple, HotpotEvaluation};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Which HotpotQA input format the files are in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InputFormat {
    /// Official when the predictions are an object with "answer" and "sp",
    /// else simple.
    #[default]
    Auto,
    /// Arrays of {"answer", "citations"} paired by position.
    Simple,
    /// HotpotQA gold JSON and {"answer": {id: str}, "sp": {id: [[title, sent_id]]}}.
    Official,
}

/// The settings of `corpus-eval hotpot` (the defaults are the command
/// line's).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// Format version of this configuration.
    pub version: u32,
    /// Parent folder of the run folder.
    pub out: PathBuf,
    /// The input format.
    pub format: InputFormat,
    /// The system's name in tables and comparisons (default: the
    /// predictions file's stem).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Do not draw hotpot_metrics.png.
    pub no_plots: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            version: Self::VERSION,
            out: PathBuf::from("reports"),
            format: InputFormat::Auto,
            name: None,
            no_plots: false,
        }
    }
}

impl JobConfig for Config {
    const COMMAND: &'static str = "hotpot";
    const VERSION: u32 = 1;

    fn validate(&self) -> Result<(), ConfigError> {
        match &self.name {
            Some(n) if n.trim().is_empty() => Err(ConfigError::Invalid {
                field: "--name".into(),
                message: "must not be empty".into(),
            }),
            _ => Ok(()),
        }
    }
}

impl Config {
    /// The system's name: `name`, or the predictions file's stem.
    pub fn system(&self, predictions: &Path) -> String {
        match &self.name {
            Some(n) => n.clone(),
            None => predictions
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "system".into()),
        }
    }
}

/// Parses both files (their paths name them in errors) in the configured
/// format and scores them.
pub fn run(
    config: &Config,
    predictions_path: &Path,
    predictions: &[u8],
    gold_path: &Path,
    gold: &[u8],
) -> Result<HotpotEvaluation, JobError> {
    config.validate()?;
    let p_doc = crate::corpus::strict_json::parse_slice(predictions)
        .map_err(|e| json_error(predictions_path, &e))?;
    let official = match config.format {
        InputFormat::Auto => is_official_predictions(&p_doc),
        InputFormat::Simple => false,
        InputFormat::Official => {
            if !is_official_predictions(&p_doc) {
                return Err(JobError::Input(format!(
                    "{}: --format official needs an object with \"answer\" and \"sp\"",
                    predictions_path.display()
                )));
            }
            true
        }
    };
    if official {
        let preds = official_predictions(predictions_path, &p_doc)?;
        drop(p_doc);
        let gold = official_gold(gold_path, gold)?;
        return Ok(evaluate_official(&preds, &gold));
    }
    let preds = simple_records(predictions_path, &p_doc)?;
    drop(p_doc);
    let g_doc =
        crate::corpus::strict_json::parse_slice(gold).map_err(|e| json_error(gold_path, &e))?;
    let gold = simple_records(gold_path, &g_doc)?;
    evaluate_simple(&preds, &gold).map_err(|e| {
        JobError::Input(format!(
            "{} vs {}: {e}",
            predictions_path.display(),
            gold_path.display()
        ))
    })
}
