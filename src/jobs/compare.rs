//! Paired comparisons of systems' HotpotQA results as a typed job.
//!
//! ```
//! use corpus_eval::jobs::compare::{parse_system, Config};
//! assert_eq!(
//!     parse_system("base=runs/a").unwrap(),
//!     ("base".to_string(), std::path::PathBuf::from("runs/a"))
//! );
//! assert!(parse_system("no-equals-sign").is_err());
//! let c = Config { systems: vec!["a=x.json".into()], ..Config::default() };
//! use corpus_eval::jobs::JobConfig;
//! assert!(c.validate().is_err(), "two systems at least");
//! ```

use super::{ConfigError, JobConfig, JobError};
use crate::compare::{compare, load_system, Comparison};
use crate::stats::paired::DEFAULT_PAIRED_RESAMPLES;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Fewest resamples.
pub const MIN_RESAMPLES: usize = 100;
/// Most resamples (each costs a pass over the items per metric and pair).
pub const MAX_RESAMPLES: usize = 1_000_000;

/// The settings of `corpus-eval compare` (the defaults are the command
/// line's).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// Format version of this configuration.
    pub version: u32,
    /// Parent folder of the run folder.
    pub out: PathBuf,
    /// The systems as `NAME=PATH` (a hotpot run folder, a metrics JSON or a
    /// per_example.json), two at least.
    pub systems: Vec<String>,
    /// Bootstrap resamples of the paired tests.
    pub resamples: usize,
    /// Seed of the paired bootstrap.
    pub seed: u64,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            version: Self::VERSION,
            out: PathBuf::from("reports"),
            systems: Vec::new(),
            resamples: DEFAULT_PAIRED_RESAMPLES,
            seed: 42,
        }
    }
}

impl JobConfig for Config {
    const COMMAND: &'static str = "compare";
    const VERSION: u32 = 1;

    fn validate(&self) -> Result<(), ConfigError> {
        if !(MIN_RESAMPLES..=MAX_RESAMPLES).contains(&self.resamples) {
            return Err(ConfigError::Invalid {
                field: "--resamples".into(),
                message: format!(
                    "must lie in [{MIN_RESAMPLES}, {MAX_RESAMPLES}], got {}",
                    self.resamples
                ),
            });
        }
        if self.systems.len() < 2 {
            return Err(ConfigError::Invalid {
                field: "systems".into(),
                message: format!("needs two NAME=PATH at least, got {}", self.systems.len()),
            });
        }
        for s in &self.systems {
            parse_system(s)?;
        }
        Ok(())
    }
}

/// Splits `NAME=PATH`.
pub fn parse_system(spec: &str) -> Result<(String, PathBuf), ConfigError> {
    match spec
        .split_once('=')
        .filter(|(n, p)| !n.is_empty() && !p.is_empty())
    {
        Some((name, path)) => Ok((name.to_string(), PathBuf::from(path))),
        None => Err(ConfigError::Invalid {
            field: "systems".into(),
            message: format!(
                "{:?}: expected NAME=PATH (e.g. baseline=reports/20261122T074054Z-835b54)",
                crate::corpus::Preview(spec)
            ),
        }),
    }
}

/// Loads every system and compares them metric by metric, every pair.
pub fn run(config: &Config) -> Result<Comparison, JobError> {
    config.validate()?;
    let mut systems = Vec::with_capacity(config.systems.len());
    for spec in &config.systems {
        let (name, path) = parse_system(spec)?;
        systems.push(load_system(&name, &path)?);
    }
    compare(systems, config.seed, config.resamples).map_err(|e| JobError::Input(e.to_string()))
}
