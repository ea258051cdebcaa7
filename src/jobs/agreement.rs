//! Agreement between raters (human coders, or a tool's verdicts and a
//! coder's) as a typed job: read and join the files, compute the
//! coefficients, and optionally write a run folder.
//!
//! ```
//! use corpus_eval::jobs::agreement::{run, Config};
//! let dir = tempfile::tempdir().unwrap();
//! let a = dir.path().join("coder_a.csv");
//! let b = dir.path().join("coder_b.csv");
//! std::fs::write(&a, "id,alice\nq1,yes\nq2,no\nq3,yes\n").unwrap();
//! std::fs::write(&b, "id,bob\nq1,yes\nq2,yes\nq3,yes\nq4,no\n").unwrap();
//! let config = Config { id: "id".into(), resamples: 0, ..Config::default() };
//! let out = run(&config, &[a, b]).unwrap();
//! assert_eq!(out.n_items, 4);
//! assert_eq!(out.disagreements, vec!["q2".to_string()]);
//! assert_eq!(out.percent_agreement.value, Some(2.0 / 3.0));
//! ```

use super::{ConfigError, JobConfig, JobError};
use crate::agreement::coefficients::{
    agreement, Agreement, Settings, DEFAULT_RESAMPLES, DEFAULT_SEED,
};
use crate::agreement::table::{load, run_folder_table, Spec};
use crate::agreement::{Level, Ratings};
use crate::report::manifest::{InputFile, Manifest};
use crate::report::run::RunWriter;
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::SystemTime;

/// Most resamples.
pub const MAX_RESAMPLES: usize = 1_000_000;
/// Fewest resamples, unless 0 (no intervals).
pub const MIN_RESAMPLES: usize = 100;

/// The settings of `corpus-eval agreement` (the defaults are the command
/// line's). Each field is a key of a `--config` file and a flag.
#[super::settings::shared_settings]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, super::settings::Settings)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    #[shared]
    pub version: u32,
    /// The id column.
    #[setting(value_name = "COL")]
    pub id: String,
    /// The rater columns, in order (default: every column but the id).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub raters: Option<Vec<String>>,
    /// Level of measurement: nominal (categories), ordinal, interval or
    /// ratio (numbers).
    #[setting(default = Level::Nominal, choices)]
    pub level: Level,
    /// Bootstrap resamples over items for the 95% intervals; 0: none.
    #[setting(default = DEFAULT_RESAMPLES)]
    pub resamples: usize,
    /// Bootstrap seed.
    #[setting(default = DEFAULT_SEED)]
    pub seed: u64,
    /// Write a run folder under DIR (manifest.json, agreement.json,
    /// disagreements.csv, confusion_matrix.png); none: no run folder.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[setting(value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Skip the confusion-matrix PNG.
    pub no_plots: bool,
    /// Compare coded spans instead of ratings. FILE is one REFI-QDA
    /// project (two of its coders), two projects (a coder of each, the
    /// same sources by name), or an evaluate or check-report run folder
    /// and a project (a coder's codings against the tool's quote spans).
    pub spans: bool,
    /// With --spans: the coders, by user name or GUID (two; one with a
    /// run folder). Default: the only coding users.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[setting(value_name = "X,Y")]
    pub coders: Option<Vec<String>>,
    /// With --spans: the codes compared, by name (default: every code
    /// either coder used; with a run folder, the coder's one code).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[setting(value_name = "CODE,...")]
    pub codes: Option<Vec<String>>,
    /// With --spans: the least overlap (shared characters over the
    /// characters either covers) at which two units match, in (0, 1].
    #[setting(default = 0.5)]
    pub min_overlap: f64,
    #[shared]
    pub allow_external_sources: bool,
    #[shared]
    pub fail_under: std::collections::BTreeMap<String, f64>,
}

impl JobConfig for Config {
    const COMMAND: &'static str = "agreement";
    const GATES: &'static [crate::gates::Metric] = crate::gates::AGREEMENT;
    const VERSION: u32 = 1;

    fn validate_printable(&self) -> Result<(), ConfigError> {
        super::check_fail_under::<Self>(&self.fail_under)
    }

    fn validate(&self) -> Result<(), ConfigError> {
        super::check_fail_under::<Self>(&self.fail_under)?;
        if self.resamples != 0 && !(MIN_RESAMPLES..=MAX_RESAMPLES).contains(&self.resamples) {
            return Err(ConfigError::Invalid {
                field: "--resamples".into(),
                message: format!(
                    "must be 0 (no intervals) or lie in [{MIN_RESAMPLES}, {MAX_RESAMPLES}], got {}",
                    self.resamples
                ),
            });
        }
        if !(self.min_overlap > 0.0 && self.min_overlap <= 1.0) {
            return Err(ConfigError::Invalid {
                field: "--min-overlap".into(),
                message: format!("must lie in (0, 1], got {}", self.min_overlap),
            });
        }
        if let Some(c) = &self.coders {
            if c.is_empty() || c.len() > 2 || c.iter().any(|n| n.trim().is_empty()) {
                return Err(ConfigError::Invalid {
                    field: "--coders".into(),
                    message: format!(
                        "names one or two coders (X,Y), none empty, got {}",
                        c.join(",")
                    ),
                });
            }
        }
        if let Some(c) = &self.codes {
            if c.is_empty() || c.iter().any(|n| n.trim().is_empty()) {
                return Err(ConfigError::Invalid {
                    field: "--codes".into(),
                    message: "names one code or more, none empty".into(),
                });
            }
        }
        let span_flag = if self.coders.is_some() {
            Some("--coders")
        } else if self.codes.is_some() {
            Some("--codes")
        } else if self.min_overlap != 0.5 {
            Some("--min-overlap")
        } else {
            None
        };
        if let (Some(flag), false) = (span_flag, self.spans) {
            return Err(ConfigError::Invalid {
                field: flag.into(),
                message: "compares coded spans: add --spans".into(),
            });
        }
        if self.spans {
            return Ok(());
        }
        if self.id.trim().is_empty() {
            return Err(ConfigError::Invalid {
                field: "--id".into(),
                message: "names the id column and is required".into(),
            });
        }
        if let Some(r) = &self.raters {
            if r.len() < 2 {
                return Err(ConfigError::Invalid {
                    field: "--raters".into(),
                    message: format!("needs two raters at least, got {}", r.len()),
                });
            }
        }
        Ok(())
    }

    fn unset(&self) -> Vec<(&'static str, &'static str)> {
        super::unset_notes!(self; raters => "every column but the id", out => "no run folder",
            coders => "the only coding users", codes => "every code either coder used")
    }
}

impl Config {
    /// The coefficients' settings (resamples, seed).
    pub fn settings(&self) -> Settings {
        Settings {
            resamples: self.resamples,
            seed: self.seed,
        }
    }
}

/// Reads and joins the files.
pub fn read(config: &Config, files: &[PathBuf]) -> Result<Ratings, JobError> {
    config.validate()?;
    Ok(load(&Spec {
        files,
        id: &config.id,
        raters: config.raters.as_deref(),
        level: config.level,
    })?)
}

/// Reads the files and computes every coefficient.
pub fn run(config: &Config, files: &[PathBuf]) -> Result<Agreement, JobError> {
    let ratings = read(config, files)?;
    Ok(agreement(&ratings, &config.settings()))
}

/// The columns of `disagreements.csv`: the id, then one per rater.
pub fn disagreements_csv(ratings: &Ratings, result: &Agreement) -> String {
    let mut out = crate::report::csv::CsvBuffer::new();
    let mut header = vec!["id".to_string()];
    header.extend(ratings.raters.iter().cloned());
    out.record(&header);
    let wanted: std::collections::HashSet<&str> =
        result.disagreements.iter().map(String::as_str).collect();
    for (i, id) in ratings.ids.iter().enumerate() {
        if !wanted.contains(id.as_str()) {
            continue;
        }
        let mut row = vec![id.as_str()];
        row.extend(
            ratings
                .row(i)
                .map(|c| c.map_or("", |v| ratings.labels[v].as_str())),
        );
        out.record(row);
    }
    out.into_string()
}

/// `items.csv`: every rated item with each rater's value (empty where a
/// rater gave none), how many ratings it has, and whether they all agree
/// (empty with fewer than two ratings).
pub fn items_csv(ratings: &Ratings) -> String {
    let mut out = crate::report::csv::CsvBuffer::new();
    let mut header = vec!["id".to_string()];
    header.extend(ratings.raters.iter().cloned());
    header.extend(["n_ratings".to_string(), "agree".to_string()]);
    out.record(&header);
    for (i, id) in ratings.ids.iter().enumerate() {
        out.field(id);
        let mut given = Vec::new();
        for cell in ratings.row(i) {
            out.field(cell.map_or("", |v| ratings.labels[v].as_str()));
            given.extend(cell);
        }
        out.field(given.len().to_string());
        out.field(match given.split_first() {
            Some((first, rest)) if !rest.is_empty() => {
                if rest.iter().all(|v| v == first) {
                    "true"
                } else {
                    "false"
                }
            }
            _ => "",
        });
        out.end_record();
    }
    out.into_string()
}

/// Runs the job on files; with `config.out`, writes a run folder
/// (manifest.json, agreement.json, items.csv, disagreements.csv and, for two raters,
/// confusion_matrix.png) and returns its path.
pub fn execute(
    config: &Config,
    files: &[PathBuf],
) -> Result<(Option<PathBuf>, Agreement), JobError> {
    let started = SystemTime::now();
    let ratings = read(config, files)?;
    let result = agreement(&ratings, &config.settings());
    let Some(out) = &config.out else {
        return Ok((None, result));
    };
    let mut inputs = BTreeMap::new();
    for (i, f) in files.iter().enumerate() {
        let path = if f.is_dir() {
            run_folder_table(f)?
        } else {
            f.clone()
        };
        let bytes = super::read_input(&path)?;
        inputs.insert(input_role(i), InputFile::new(&path, &bytes));
    }
    let settings = json!({
        "files": files.len(),
        "id": config.id,
        "raters": ratings.raters,
        "level": config.level.name(),
        "resamples": config.resamples,
        "seed": config.seed,
    });
    let manifest = Manifest::new(
        "agreement",
        inputs,
        settings,
        result.signature.clone(),
        started,
    )
    .with_config(super::to_value(config));
    let mut run = RunWriter::create(out, started, manifest)?;
    run.write_json("agreement.json", &result)?;
    run.write("items.csv", items_csv(&ratings).as_bytes())?;
    run.write(
        "disagreements.csv",
        disagreements_csv(&ratings, &result).as_bytes(),
    )?;
    #[cfg(feature = "charts")]
    if let (Some(c), false) = (&result.confusion_matrix, config.no_plots) {
        use crate::views::charts::{render_heatmap, Heatmap};
        let kappa = result
            .cohen_kappa
            .value
            .map_or_else(|| "undefined".to_string(), |k| format!("{k:.3}"));
        let title = format!(
            "Confusion matrix (Cohen's kappa {kappa}, n={})",
            result.cohen_kappa.n_items
        );
        run.render("confusion_matrix.png", |path| {
            render_heatmap(
                path,
                &Heatmap {
                    title: &title,
                    footnote: &crate::signature::shorten(&result.signature),
                    rows: &c.rows,
                    columns: &c.columns,
                    labels: &c.labels,
                    counts: &c.counts,
                },
            )
        })?;
    }
    Ok((Some(run.finish()?), result))
}

/// The manifest's role of the `i`-th file (`input`, `input2`, ...).
pub fn input_role(i: usize) -> String {
    if i == 0 {
        "input".into()
    } else {
        format!("input{}", i + 1)
    }
}

/// The files a manifest's inputs name, in order (for `rerun`).
pub fn recorded_files(roles: &BTreeMap<String, PathBuf>) -> Vec<PathBuf> {
    (0..roles.len())
        .map_while(|i| roles.get(&input_role(i)).cloned())
        .collect()
}
