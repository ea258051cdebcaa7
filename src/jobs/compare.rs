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
use crate::compare::{compare, load_system, signature, Comparison};
use crate::report::csv::csv_text;
use crate::report::html::HtmlPage;
use crate::report::manifest::{InputFile, Manifest};
use crate::report::run::RunWriter;
use crate::stats::paired::DEFAULT_PAIRED_RESAMPLES;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::SystemTime;

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

// ---- The run folder: tables, JSON and the HTML report ----

/// Column titles of the side-by-side table, as the framework names them.
fn column_title(metric: &str) -> &str {
    match metric {
        "answer_f1" => "Answer F1",
        "answer_em" => "Answer EM",
        "citation_precision" => "Cit Precision",
        "citation_recall" => "Cit Recall",
        "citation_f1" => "Cit F1",
        "insufficient_context_detection" => "Insuf Context Det",
        other => other,
    }
}

/// The side-by-side table (`digits` 0: shortest exact numbers).
pub fn side_by_side(c: &Comparison, digits: usize) -> (Vec<String>, Vec<Vec<String>>) {
    let names = c.format.metric_names();
    let mut header = vec!["System".to_string()];
    header.extend(names.iter().map(|m| column_title(m).to_string()));
    header.push("n".into());
    let rows = c
        .systems
        .iter()
        .map(|s| {
            let mut r = vec![s.name.clone()];
            r.extend(s.averages.iter().map(|v| {
                if digits == 0 {
                    (v + 0.0).to_string()
                } else {
                    crate::report::fixed(*v, digits)
                }
            }));
            r.push(s.n.map(|n| n.to_string()).unwrap_or_default());
            r
        })
        .collect();
    (header, rows)
}

/// The table of paired differences (`digits` 0: shortest exact numbers).
pub fn difference_rows(c: &Comparison, digits: usize) -> (Vec<String>, Vec<Vec<String>>) {
    let header: Vec<String> = [
        "metric",
        "system_a",
        "system_b",
        "n_paired",
        "mean_a",
        "mean_b",
        "diff_b_minus_a",
        "ci_low",
        "ci_high",
        "p_value",
        "note",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let f = |x: f64| {
        if digits == 0 {
            (x + 0.0).to_string()
        } else {
            crate::report::fixed(x, digits)
        }
    };
    let rows = c
        .differences
        .iter()
        .map(|d| {
            let mut r = vec![d.metric.clone(), d.system_a.clone(), d.system_b.clone()];
            match &d.paired {
                Some(p) => r.extend([
                    p.n.to_string(),
                    f(p.mean_a),
                    f(p.mean_b),
                    f(p.diff),
                    f(p.ci_low),
                    f(p.ci_high),
                    f(p.p_value),
                ]),
                None => r.extend(std::iter::repeat_n(String::new(), 7)),
            }
            r.push(d.note.clone().unwrap_or_default());
            r
        })
        .collect();
    (header, rows)
}

/// Runs the job and writes its run folder (`rerun` calls this too).
pub fn execute(config: &Config) -> Result<(PathBuf, Comparison), JobError> {
    let started = SystemTime::now();
    let comparison = run(config)?;
    for w in &comparison.warnings {
        errln!("warning: {w}");
    }
    let sig = signature(config.resamples, config.seed);

    let mut inputs = BTreeMap::new();
    for s in &comparison.systems {
        for (k, f) in s.files.iter().enumerate() {
            let bytes = std::fs::read(f).map_err(|source| crate::corpus::CorpusError::Io {
                path: f.clone(),
                source,
            })?;
            let role = match f.file_name().and_then(|n| n.to_str()) {
                Some(n) => format!("{}:{n}", s.name),
                None => format!("{}:{k}", s.name),
            };
            inputs.insert(role, InputFile::new(f, &bytes));
        }
    }
    let settings = json!({
        "systems": comparison.systems.iter().map(|s| json!({"name": s.name, "source": s.source.display().to_string()})).collect::<Vec<_>>(),
        "format": comparison.format,
        "resamples": config.resamples,
        "seed": config.seed,
        "confidence": 0.95,
        "out": config.out.display().to_string(),
    });
    let manifest = Manifest::new("compare", inputs, settings, sig.clone(), started)
        .with_config(super::to_value(config));
    let mut writer = RunWriter::create(&config.out, started, manifest)?;
    write_run(&mut writer, &comparison, &sig)?;
    Ok((writer.finish()?, comparison))
}

fn write_run(run: &mut RunWriter, c: &Comparison, sig: &str) -> Result<(), JobError> {
    let (header, rows) = side_by_side(c, 0);
    run.write("comparison.csv", csv_text(&header, &rows).as_bytes())?;
    let (dheader, drows) = difference_rows(c, 0);
    run.write("differences.csv", csv_text(&dheader, &drows).as_bytes())?;
    let names = c.format.metric_names();
    let json = json!({
        "format": c.format,
        "systems": c.systems.iter().map(|s| {
            let mut m = serde_json::Map::new();
            m.insert("name".into(), json!(s.name));
            m.insert("source".into(), json!(s.source.display().to_string()));
            for (k, v) in names.iter().zip(&s.averages) {
                m.insert((*k).to_string(), json!(v));
            }
            m.insert("n".into(), json!(s.n));
            m.insert("per_example".into(), json!(s.per_example.is_some()));
            Value::Object(m)
        }).collect::<Vec<_>>(),
        "differences": c.differences,
        "warnings": c.warnings,
        "signature": sig,
    });
    run.write_json("comparison.json", &json)?;

    let mut page = HtmlPage::new("HotpotQA Answer Generation Quality Report");
    page.note(&format!(
        "{} systems, {} format. Signature: {sig}",
        c.systems.len(),
        c.format.as_str()
    ));
    page.heading(2, "Metrics");
    page.definitions(&[
        ("Answer F1", "token-level overlap providing partial credit for answers"),
        ("Answer EM", "exact match for strict answer correctness"),
        ("Citation Precision", "percentage of predicted citations that are correct"),
        ("Citation Recall", "percentage of ground-truth citations identified"),
        ("Citation F1", "harmonic mean of citation precision and recall"),
        ("Insufficient Context Detection", "accuracy in identifying unanswerable questions"),
        ("Official format", "em/f1/prec/recall for answers, sp_* for supporting facts, joint_* for both (HotpotQA leaderboard)"),
    ]);
    page.heading(2, "System comparison results");
    let (header, rows) = side_by_side(c, 3);
    page.table("comparison", &header, &rows);
    page.heading(2, "Differences (paired bootstrap)");
    page.note(&format!(
        "diff = B - A over the items both systems scored (matched by id); 95% paired-bootstrap percentile interval ({} resamples, seed {}) and two-sided sign-flip p-value (exact up to 16 items). A small p-value with an interval that excludes 0 marks a difference unlikely to be noise; with many metrics and pairs some p < 0.05 arise by chance, so correct for multiple comparisons (e.g. Holm) before claiming several at once.",
        c.resamples, c.seed
    ));
    let (header, rows) = difference_rows(c, 4);
    page.table("differences", &header, &rows);
    page.heading(2, "Interpretation guide");
    page.definitions(&[
        ("High Answer F1/EM", "accurate answer generation"),
        ("High Citation Precision", "no hallucinated citations"),
        ("High Citation Recall", "complete evidence identification"),
        ("High Citation F1", "balanced citation quality"),
        (
            "High Insufficient Context Detection",
            "reliable edge-case handling",
        ),
    ]);
    for w in &c.warnings {
        page.note(&format!("Warning: {w}"));
    }
    page.heading(2, "Run manifest");
    page.note(
        "What reproduces these numbers (times, paths and the command line are in manifest.json).",
    );
    let view = run.manifest_mut().reproducible_view();
    page.preformatted(&serde_json::to_string_pretty(&view).unwrap_or_default());
    run.write("comparison.html", page.render().as_bytes())?;
    Ok(())
}
