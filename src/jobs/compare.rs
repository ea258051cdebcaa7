//! Paired comparisons of systems (run folders of any scoring command, or
//! HotpotQA results) as a typed job.
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
use crate::compare::{compare, load_system, signature, Cluster, Comparison, Options};
use crate::report::csv::{csv_text, number};
use crate::report::manifest::{InputFile, Manifest};
use crate::report::run::RunWriter;
use crate::stats::paired::DEFAULT_PAIRED_RESAMPLES;
use crate::views::compare::{changed_rows, difference_rows, metric_charts, side_by_side};
use crate::views::html::HtmlPage;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Fewest resamples.
pub const MIN_RESAMPLES: usize = 100;
/// Most resamples (each costs a pass over the items per metric and pair).
pub const MAX_RESAMPLES: usize = 1_000_000;

/// The settings of `corpus-eval compare` (the defaults are the command
/// line's). Each field but `systems` (the arguments) is a key of a
/// `--config` file and a flag.
#[super::settings::shared_settings]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, super::settings::Settings)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    #[shared]
    pub version: u32,
    #[shared]
    pub out: PathBuf,
    /// The systems as `NAME=PATH` (a run folder of evaluate, judge-answers,
    /// text-eval, grounding, rag run, lexical or hotpot; or a hotpot metrics
    /// JSON or per_example.json), two at least.
    #[setting(skip)]
    pub systems: Vec<String>,
    /// Compare only these metrics (comma-separated; repeatable; default:
    /// every metric the runs share).
    #[setting(value_name = "M,M,...")]
    pub metric: Vec<String>,
    /// Resample whole transcripts (`source`) instead of items (evaluate
    /// and rag runs: answers from one interview are not independent).
    #[setting(default = Cluster::None, choices)]
    pub cluster: Cluster,
    /// Bootstrap resamples of the paired tests (100 to 1,000,000).
    #[setting(default = DEFAULT_PAIRED_RESAMPLES)]
    pub resamples: usize,
    /// Seed of the paired bootstrap.
    #[setting(default = 42)]
    pub seed: u64,
}

impl JobConfig for Config {
    const COMMAND: &'static str = "compare";
    // `metric` and `cluster` came later with defaults: version 1 files read as before.
    const VERSION: u32 = 1;

    fn validate_printable(&self) -> Result<(), ConfigError> {
        let (r, lo, hi) = (self.resamples, MIN_RESAMPLES, MAX_RESAMPLES);
        super::check_in("--resamples", r as f64, lo as f64, hi as f64)
    }

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
        for (k, s) in self.systems.iter().enumerate() {
            parse_system(s).map_err(|e| globbed(&self.systems, k).unwrap_or(e))?;
        }
        Ok(())
    }
}

/// `base=runs/a/X runs/a/Y`: a shell pattern (`base=$(echo runs/a/*)`)
/// expanded into several paths, the first one given to `NAME=`, the others
/// standing alone after it in the same folder. The error says so, and how
/// to name one run.
fn globbed(systems: &[String], k: usize) -> Option<ConfigError> {
    if systems[k].contains('=') {
        return None;
    }
    let owner = systems[..k].iter().rposition(|s| s.contains('='))?;
    let (name, first) = parse_system(&systems[owner]).ok()?;
    let parent = first.parent().filter(|p| !p.as_os_str().is_empty())?;
    let rest: Vec<&str> = systems[owner + 1..]
        .iter()
        .map(String::as_str)
        .take_while(|s| !s.contains('='))
        .collect();
    if !rest.iter().all(|s| Path::new(s).parent() == Some(parent)) {
        return None;
    }
    let parent = parent.display();
    let matched: Vec<String> = std::iter::once(first.display().to_string())
        .chain(rest.iter().map(|s| s.to_string()))
        .collect();
    Some(ConfigError::Invalid {
        field: "systems".into(),
        message: format!(
            "{name}={parent}/* matched {} run folders ({}): a system is one run folder; name one, e.g. {name}={parent}/{} (the run finished last there)",
            matched.len(),
            crate::corpus::Preview(&matched.join(", ")),
            crate::report::run::LATEST,
        ),
    })
}

/// `--fail-on-regression`'s significance level: `alpha` (default 0.05),
/// strictly between 0 and 1.
pub fn alpha(alpha: Option<f64>) -> Result<f64, JobError> {
    match alpha.unwrap_or(0.05) {
        a if a.is_finite() && a > 0.0 && a < 1.0 => Ok(a),
        a => Err(JobError::Input(format!(
            "--alpha must lie strictly between 0 and 1, got {}",
            crate::corpus::number_preview(a)
        ))),
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
        // `runs/a/latest` is the run folder it points to now (what the
        // comparison records).
        let bare: PathBuf = path.components().collect();
        let path = match bare.symlink_metadata() {
            Ok(m) if m.file_type().is_symlink() => std::fs::canonicalize(&bare).unwrap_or(path),
            _ => path,
        };
        systems.push(load_system(&name, &path)?);
    }
    let options = Options {
        seed: config.seed,
        resamples: config.resamples,
        metrics: config.metric.clone(),
        cluster: config.cluster,
    };
    compare(systems, &options).map_err(|e| JobError::Input(e.to_string()))
}

// ---- The run folder: tables, JSON and the HTML report ----

/// The comparison as one JSON object (comparison.json and `--json`).
pub fn comparison_json(c: &Comparison, signature: &str) -> Value {
    json!({
        "command": c.command,
        "format": c.format,
        "metrics": c.metrics,
        "cluster": c.cluster.as_str(),
        "systems": c.systems.iter().zip(&c.means).map(|(s, means)| {
            let mut m = serde_json::Map::new();
            m.insert("name".into(), json!(s.name));
            m.insert("source".into(), json!(s.source.display().to_string()));
            for (k, v) in c.metrics.iter().zip(means) {
                m.insert(k.clone(), json!(v.mean));
            }
            m.insert("n".into(), json!(s.n));
            m.insert("per_example".into(), json!(s.per_example.is_some()));
            m.insert("means".into(), Value::Object(
                c.metrics.iter().zip(means).map(|(k, v)| (k.clone(), json!(v))).collect(),
            ));
            Value::Object(m)
        }).collect::<Vec<_>>(),
        "differences": c.differences,
        "family": c.family,
        "changed": c.changed,
        "warnings": c.warnings,
        "signature": signature,
    })
}

/// Runs the job and writes its run folder (`rerun` calls this too).
pub fn execute(config: &Config) -> Result<(PathBuf, Comparison), JobError> {
    let started = SystemTime::now();
    let comparison = run(config)?;
    for w in &comparison.warnings {
        errln!("warning: {w}");
    }
    let sig = signature(config.resamples, config.seed, config.cluster);

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
        "command": comparison.command,
        "format": comparison.format,
        "metrics": comparison.metrics,
        "cluster": config.cluster.as_str(),
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

/// HotpotQA's metric definitions for the report.
const HOTPOT_DEFINITIONS: [(&str, &str); 7] = [
    ("Answer F1", "token-level overlap providing partial credit for answers"),
    ("Answer EM", "exact match for strict answer correctness"),
    ("Citation Precision", "percentage of predicted citations that are correct"),
    ("Citation Recall", "percentage of ground-truth citations identified"),
    ("Citation F1", "harmonic mean of citation precision and recall"),
    ("Insufficient Context Detection", "accuracy in identifying unanswerable questions"),
    ("Official format", "em/f1/prec/recall for answers, sp_* for supporting facts, joint_* for both (HotpotQA leaderboard)"),
];

/// `items.csv`: one row per compared metric and item, with each system's
/// score (empty where a system has none); the first system's items first,
/// in its order, then items only others have. Only systems with per-item
/// scores have columns.
pub fn items_csv(c: &Comparison) -> String {
    let systems: Vec<&crate::compare::SystemResult> = c
        .systems
        .iter()
        .filter(|s| s.per_example.is_some())
        .collect();
    let mut out = crate::report::csv::CsvBuffer::new();
    let mut header = vec!["metric".to_string(), "id".to_string()];
    header.extend(systems.iter().map(|s| s.name.clone()));
    out.record(&header);
    for metric in &c.metrics {
        let columns: Vec<std::collections::HashMap<&str, Option<f64>>> = systems
            .iter()
            .map(|s| {
                let k = s.metrics.iter().position(|m| m == metric).unwrap_or(0);
                let rows = s.per_example.as_deref().unwrap_or_default();
                rows.iter().map(|(id, v)| (id.as_str(), v[k])).collect()
            })
            .collect();
        let mut seen = std::collections::HashSet::new();
        for s in &systems {
            for (id, _) in s.per_example.as_deref().unwrap_or_default() {
                if !seen.insert(id.as_str()) {
                    continue;
                }
                out.field(metric);
                out.field(id);
                for values in &columns {
                    out.field(number(values.get(id.as_str()).copied().flatten()));
                }
                out.end_record();
            }
        }
    }
    out.into_string()
}

fn write_run(run: &mut RunWriter, c: &Comparison, sig: &str) -> Result<(), JobError> {
    run.write("items.csv", items_csv(c).as_bytes())?;
    let (header, rows) = side_by_side(c, 0);
    run.write("comparison.csv", csv_text(&header, &rows).as_bytes())?;
    let (dheader, drows) = difference_rows(c, 0);
    run.write("differences.csv", csv_text(&dheader, &drows).as_bytes())?;
    run.write_json("comparison.json", &comparison_json(c, sig))?;

    let title = match c.format {
        Some(_) => "HotpotQA Answer Generation Quality Report".to_string(),
        None => format!("Comparison of {} runs", c.command),
    };
    let mut page = HtmlPage::new(&title);
    page.style(".charts{display:flex;flex-wrap:wrap;gap:12px}");
    // Once laid out, the body says how many charts drew with a size
    // (`data-charts="4/4"`), for a headless browser to check.
    page.script("window.addEventListener('load',function(){var c=document.querySelectorAll('svg.chart'),k=0;c.forEach(function(s){var b=s.getBBox();if(b.width>0&&b.height>0)k++;});document.body.setAttribute('data-charts',k+'/'+c.length);});");
    page.note(&format!(
        "{} systems from {} runs{}. Signature: {sig}",
        c.systems.len(),
        c.command,
        c.format
            .map(|f| format!(", {} format", f.as_str()))
            .unwrap_or_default()
    ));
    if c.format.is_some() {
        page.heading(2, "Metrics");
        page.definitions(&HOTPOT_DEFINITIONS);
    }
    page.heading(2, "System comparison results");
    let (header, rows) = side_by_side(c, 3);
    page.table("comparison", &header, &rows);
    page.heading(2, "Charts");
    metric_charts(&mut page, c);
    page.heading(2, "Differences (paired bootstrap)");
    page.note(&format!(
        "diff = B - A over the items both systems scored (matched by id): the effect size, with its 95% paired-bootstrap percentile interval ({} resamples, seed {}, resampling {}) and the two-sided sign-flip p-value (exact up to 16 {}). p_holm adjusts the p-values for the family of {} tests ({} metric(s) x {} pair(s) of systems, Holm's step-down method): claim a difference when p_holm < 0.05 and the interval excludes 0.",
        c.resamples,
        c.seed,
        if c.cluster == Cluster::Source { "whole transcripts" } else { "items" },
        if c.cluster == Cluster::Source { "transcripts" } else { "items" },
        c.family.tests,
        c.family.metrics,
        c.family.pairs,
    ));
    let (header, rows) = difference_rows(c, 4);
    page.table("differences", &header, &rows);
    page.heading(2, "Items that changed most");
    page.note(&format!(
        "Per metric and pair, up to {} items with the largest |B - A|.",
        crate::compare::CHANGED_PER_TEST
    ));
    let (header, rows) = changed_rows(c, 4);
    page.table("changed", &header, &rows);
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
