//! `corpus-eval compare`: systems side by side, with paired bootstrap tests
//! of every difference.

use super::{complete_run, InputError, EXIT_OK};
use crate::compare::{compare, load_system, signature, Comparison};
use crate::report::csv::write_csv;
use crate::report::html::HtmlPage;
use crate::report::manifest::{InputFile, Manifest};
use crate::report::table::grid_table;
use crate::report::{write_atomic, write_json, RunFolder};
use crate::stats::paired::DEFAULT_PAIRED_RESAMPLES;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::SystemTime;

/// Arguments of `compare`.
#[derive(Debug, clap::Args)]
pub struct CompareArgs {
    /// Systems as NAME=PATH, PATH a hotpot run folder, a metrics JSON or a per_example.json.
    #[arg(required = true, num_args = 2.., value_name = "NAME=RUN_OR_METRICS_JSON")]
    pub systems: Vec<String>,
    /// Parent folder of the run folder.
    #[arg(long, default_value = "reports")]
    pub out: PathBuf,
    /// Bootstrap resamples of the paired tests (100 to 1,000,000).
    #[arg(long, default_value_t = DEFAULT_PAIRED_RESAMPLES)]
    pub resamples: usize,
    /// Seed of the paired bootstrap.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
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
                    v.to_string()
                } else {
                    format!("{v:.digits$}")
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
            x.to_string()
        } else {
            format!("{x:.digits$}")
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

/// Fewest `--resamples`.
pub const MIN_RESAMPLES: u64 = 100;
/// Most `--resamples` (each costs a pass over the items per metric).
pub const MAX_RESAMPLES: u64 = 1_000_000;

/// Runs `compare`.
pub fn run(args: CompareArgs) -> anyhow::Result<u8> {
    let started = SystemTime::now();
    super::check_count(
        "--resamples",
        args.resamples as u64,
        MIN_RESAMPLES,
        MAX_RESAMPLES,
    )?;
    let mut systems = Vec::new();
    for spec in &args.systems {
        let Some((name, path)) = spec
            .split_once('=')
            .filter(|(n, p)| !n.is_empty() && !p.is_empty())
        else {
            return Err(InputError(format!(
                "{spec:?}: expected NAME=PATH (e.g. baseline=reports/20261122T074054Z-835b54)"
            ))
            .into());
        };
        systems.push(load_system(name, std::path::Path::new(path))?);
    }
    let comparison =
        compare(systems, args.seed, args.resamples).map_err(|e| InputError(e.to_string()))?;
    for w in &comparison.warnings {
        errln!("warning: {w}");
    }
    let sig = signature(args.resamples, args.seed);

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
        "resamples": args.resamples,
        "seed": args.seed,
        "confidence": 0.95,
        "out": args.out.display().to_string(),
    });
    let folder = RunFolder::create(&args.out, started)?;
    let (path, ()) = complete_run(folder, |folder| {
        write_run(folder, &comparison, inputs, settings, &sig, started)
    })?;

    let (header, rows) = side_by_side(&comparison, 3);
    outln!("{}", grid_table(&header, &rows));
    let (header, rows) = difference_rows(&comparison, 4);
    let shown: Vec<usize> = [0, 1, 2, 6, 7, 8, 9, 10].to_vec();
    let pick = |r: &Vec<String>| shown.iter().map(|&k| r[k].clone()).collect::<Vec<_>>();
    outln!(
        "{}",
        grid_table(&pick(&header), &rows.iter().map(pick).collect::<Vec<_>>())
    );
    outln!("signature: {sig}");
    outln!("run folder: {}", path.display());
    Ok(EXIT_OK)
}

fn write_run(
    folder: &RunFolder,
    c: &Comparison,
    inputs: BTreeMap<String, InputFile>,
    settings: Value,
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
    );

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
    page.preformatted(&serde_json::to_string_pretty(&manifest)?);
    write_atomic(&folder.file("comparison.html"), page.render().as_bytes())?;
    write_json(&folder.file("manifest.json"), &manifest)?;
    Ok(())
}
