//! `corpus-eval compare`: systems side by side, with paired bootstrap tests
//! of every difference.

use super::{complete_run, EXIT_OK};
use crate::compare::{signature, Comparison};
use crate::jobs::compare::{Config, MAX_RESAMPLES, MIN_RESAMPLES};
use crate::jobs::{self, JobConfig};
use crate::report::csv::write_csv;
use crate::report::html::HtmlPage;
use crate::report::manifest::{InputFile, Manifest};
use crate::report::table::grid_table;
use crate::report::{write_atomic, write_json, RunFolder};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::SystemTime;

/// Arguments of `compare`. Each setting is a field of
/// [`crate::jobs::compare::Config`]: `--config FILE` gives a whole
/// configuration, flags given on the command line override it.
#[derive(Debug, clap::Args)]
pub struct CompareArgs {
    /// Systems as NAME=PATH, PATH a hotpot run folder, a metrics JSON or a per_example.json.
    #[arg(
        required_unless_present_any = ["print_config", "config"],
        num_args = 2..,
        value_name = "NAME=RUN_OR_METRICS_JSON"
    )]
    pub systems: Vec<String>,
    /// Parent folder of the run folder [default: reports].
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Bootstrap resamples of the paired tests (100 to 1,000,000) [default: 10000].
    #[arg(long)]
    pub resamples: Option<u64>,
    /// Seed of the paired bootstrap [default: 42].
    #[arg(long)]
    pub seed: Option<u64>,
    /// `--config FILE` (which may also list `systems`), `--print-config`.
    #[command(flatten)]
    pub settings: super::ConfigArgs,
}

impl CompareArgs {
    /// The configuration: the file's (or the defaults), then the flags.
    pub fn resolve(&self) -> anyhow::Result<Config> {
        let mut c: Config = self.settings.base()?;
        if let Some(out) = &self.out {
            c.out = out.clone();
        }
        if !self.systems.is_empty() {
            c.systems = self.systems.clone();
        }
        if let Some(r) = self.resamples {
            super::check_count("--resamples", r, MIN_RESAMPLES as u64, MAX_RESAMPLES as u64)?;
            c.resamples = r as usize;
        }
        if let Some(seed) = self.seed {
            c.seed = seed;
        }
        if !self.settings.print_config {
            c.validate()?;
        }
        Ok(c)
    }
}

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

fn side_by_side(c: &Comparison, digits: usize) -> (Vec<String>, Vec<Vec<String>>) {
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

fn difference_rows(c: &Comparison, digits: usize) -> (Vec<String>, Vec<Vec<String>>) {
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

/// Runs `compare`.
pub fn run(args: CompareArgs) -> anyhow::Result<u8> {
    let config = args.resolve()?;
    if args.settings.printed(&config)? {
        return Ok(EXIT_OK);
    }
    let (path, comparison) = execute(&config)?;
    let (header, rows) = side_by_side(&comparison, 3);
    outln!("{}", grid_table(&header, &rows));
    let (header, rows) = difference_rows(&comparison, 4);
    let shown: Vec<usize> = [0, 1, 2, 6, 7, 8, 9, 10].to_vec();
    let pick = |r: &Vec<String>| shown.iter().map(|&k| r[k].clone()).collect::<Vec<_>>();
    outln!(
        "{}",
        grid_table(&pick(&header), &rows.iter().map(pick).collect::<Vec<_>>())
    );
    outln!("signature: {}", signature(config.resamples, config.seed));
    outln!("run folder: {}", path.display());
    Ok(EXIT_OK)
}

/// Runs the job and writes its run folder (`rerun` calls this too).
pub(crate) fn execute(config: &Config) -> anyhow::Result<(PathBuf, Comparison)> {
    let started = SystemTime::now();
    let comparison = jobs::compare::run(config)?;
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
    let folder = RunFolder::create(&config.out, started)?;
    let (path, ()) = complete_run(folder, |folder| {
        write_run(folder, &comparison, inputs, settings, config, &sig, started)
    })?;
    Ok((path, comparison))
}

fn write_run(
    folder: &RunFolder,
    c: &Comparison,
    inputs: BTreeMap<String, InputFile>,
    settings: Value,
    config: &Config,
    sig: &str,
    started: SystemTime,
) -> anyhow::Result<()> {
    let (header, rows) = side_by_side(c, 0);
    write_csv(&folder.file("comparison.csv"), &header, &rows)?;
    let (dheader, drows) = difference_rows(c, 0);
    write_csv(&folder.file("differences.csv"), &dheader, &drows)?;
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
    write_json(&folder.file("comparison.json"), &json)?;
    let outputs = [
        "comparison.csv",
        "differences.csv",
        "comparison.json",
        "comparison.html",
        "manifest.json",
    ]
    .map(String::from)
    .to_vec();
    let manifest = Manifest::new(
        "compare",
        inputs,
        settings,
        sig.to_string(),
        started,
        outputs,
    )
    .with_config(jobs::to_value(config));

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
    page.preformatted(&serde_json::to_string_pretty(
        &manifest.reproducible_view(),
    )?);
    write_atomic(&folder.file("comparison.html"), page.render().as_bytes())?;
    write_json(&folder.file("manifest.json"), &manifest)?;
    Ok(())
}
