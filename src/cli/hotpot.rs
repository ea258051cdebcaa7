//! `corpus-eval hotpot`: HotpotQA answer and citation metrics, simple or
//! official format, with a run folder and an HTML report.

use super::{complete_run, map_input, InputError, EXIT_OK};
use crate::hotpot::{HotpotEvaluation, HotpotFormat};
use crate::jobs::{self, hotpot::Config, hotpot::InputFormat, JobConfig};
use crate::report::html::HtmlPage;
use crate::report::manifest::{InputFile, Manifest};
use crate::report::panels::{render_metric_panels, MetricPanels};
use crate::report::table::grid_table;
use crate::report::{write_atomic, write_json, RunFolder};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// `--format` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FormatArg {
    /// Official when PREDICTIONS is an object with "answer" and "sp", else simple.
    Auto,
    /// Arrays of {"answer", "citations"} paired by position.
    Simple,
    /// HotpotQA gold JSON and {"answer": {id: str}, "sp": {id: [[title, sent_id]]}}.
    Official,
}

/// Arguments of `hotpot`. Each setting is a field of
/// [`crate::jobs::hotpot::Config`]: `--config FILE` gives a whole
/// configuration, flags given on the command line override it.
#[derive(Debug, clap::Args)]
pub struct HotpotArgs {
    /// Predictions: a simple-format array or an official {"answer", "sp"} object.
    #[arg(required_unless_present = "print_config")]
    pub predictions: Option<PathBuf>,
    /// Gold: a simple-format array or the HotpotQA JSON.
    #[arg(required_unless_present = "print_config")]
    pub gold: Option<PathBuf>,
    /// Input format [default: auto].
    #[arg(long, value_enum)]
    pub format: Option<FormatArg>,
    /// Print the averaged metrics as one JSON object (the last thing on stdout).
    #[arg(long)]
    pub json: bool,
    /// Parent folder of the run folder [default: reports].
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// The system's name in tables and comparisons (default: the predictions file's stem).
    #[arg(long = "name", value_name = "SYSTEM")]
    pub name: Option<String>,
    /// Do not draw hotpot_metrics.png (the HTML report then has no chart).
    #[arg(long)]
    pub no_plots: bool,
    /// `--config FILE`, `--print-config`.
    #[command(flatten)]
    pub settings: super::ConfigArgs,
}

impl HotpotArgs {
    /// The configuration: the file's (or the defaults), then the flags.
    pub fn resolve(&self) -> anyhow::Result<Config> {
        let mut c: Config = self.settings.base()?;
        if let Some(out) = &self.out {
            c.out = out.clone();
        }
        if let Some(f) = self.format {
            c.format = match f {
                FormatArg::Auto => InputFormat::Auto,
                FormatArg::Simple => InputFormat::Simple,
                FormatArg::Official => InputFormat::Official,
            };
        }
        if let Some(n) = &self.name {
            c.name = Some(n.clone());
        }
        if self.no_plots {
            c.no_plots = true;
        }
        c.validate()?;
        Ok(c)
    }
}

/// Metric definitions shown in the report.
fn definitions(format: HotpotFormat) -> Vec<(&'static str, &'static str)> {
    match format {
        HotpotFormat::Simple => vec![
            ("answer_f1 (Answer F1)", "token-level overlap of the normalized answers, giving partial credit; 1 when both are empty or both say \"insufficient context\""),
            ("answer_em (Answer EM)", "1 when the normalized answers are identical, else 0"),
            ("citation_precision", "share of the predicted citations (as a set) that are gold citations; 1 when both lists are empty, 0 when only the prediction is empty"),
            ("citation_recall", "share of the gold citations (as a set) that are predicted; 1 when both lists are empty, 0 when only the gold list is empty"),
            ("citation_f1", "harmonic mean of citation precision and recall"),
            ("insufficient_context_detection", "1 when the model answers \"insufficient context\" where the gold answer is \"insufficient context\"; averaged over those items only (0.0 when there are none)"),
        ],
        HotpotFormat::Official => vec![
            ("em, f1, prec, recall", "answer exact match and token F1/precision/recall after normalization; F1, precision and recall are 0 when either side is yes, no or noanswer and they differ"),
            ("sp_em, sp_f1, sp_prec, sp_recall", "supporting facts compared as sets of (title, sentence id); sp_em is 1 only with no false positive and no false negative; precision (recall) is 0 for an empty prediction (gold)"),
            ("joint_em, joint_f1, joint_prec, joint_recall", "joint precision and recall are the products of the answer and supporting-fact ones, joint F1 their harmonic mean, joint EM the product of the two EMs"),
            ("missing predictions", "a gold id without a predicted answer or supporting facts adds 0 to those metrics and still counts in the denominator (the number of gold items)"),
        ],
    }
}

const INTERPRETATION: [(&str, &str); 6] = [
    ("High answer F1 / EM", "accurate answer generation"),
    (
        "High answer F1, low EM",
        "partial matches: right content, different wording",
    ),
    ("Low citation precision", "hallucinated (wrong) citations"),
    ("Low citation recall", "missing evidence"),
    ("High citation F1", "balanced citation quality"),
    (
        "High insufficient-context detection",
        "reliable handling of unanswerable questions",
    ),
];

/// Rows of the per-example table shown in the HTML report.
const HTML_EXAMPLE_ROWS: usize = 100;

fn fmt_opt(v: Option<f64>, digits: usize) -> String {
    match v {
        Some(x) => format!("{x:.digits$}"),
        None => "n/a".into(),
    }
}

/// Runs `hotpot`.
pub fn run(args: HotpotArgs) -> anyhow::Result<u8> {
    let config = args.resolve()?;
    if args.settings.printed(&config)? {
        return Ok(EXIT_OK);
    }
    let (Some(predictions), Some(gold)) = (&args.predictions, &args.gold) else {
        return Err(InputError("hotpot needs PREDICTIONS and GOLD".into()).into());
    };
    let (path, eval, system) = execute(&config, predictions, gold)?;
    if args.json {
        errln!("run folder: {}", path.display());
        outln!("{}", Value::Object(eval.averages_json()));
    } else {
        let rows: Vec<Vec<String>> = eval
            .format
            .metric_names()
            .iter()
            .zip(&eval.averages)
            .map(|(name, v)| {
                let shown = if eval.n() == 0 {
                    "n/a".to_string()
                } else {
                    format!("{:.4}", v + 0.0)
                };
                vec![(*name).to_string(), shown]
            })
            .chain(std::iter::once(vec!["n".to_string(), eval.n().to_string()]))
            .collect();
        outln!("{}", grid_table(&["metric", "value"], &rows));
        outln!("{} ({} format)", system, eval.format.as_str());
        outln!("signature: {}", eval.signature);
        outln!("run folder: {}", path.display());
    }
    Ok(EXIT_OK)
}

/// Runs the job on two files and writes its run folder; returns the folder,
/// the evaluation and the system's name (`rerun` calls this too).
pub(crate) fn execute(
    config: &Config,
    predictions: &Path,
    gold: &Path,
) -> anyhow::Result<(PathBuf, HotpotEvaluation, String)> {
    let started = SystemTime::now();
    config.validate()?;
    let p_bytes = map_input(predictions)?;
    let g_bytes = map_input(gold)?;
    // Hash the inputs on one core while the other parses and scores.
    let ((p_info, g_info), eval) = rayon::join(
        || {
            (
                InputFile::new(predictions, &p_bytes),
                InputFile::new(gold, &g_bytes),
            )
        },
        || jobs::hotpot::run(config, predictions, &p_bytes, gold, &g_bytes),
    );
    let eval = eval?;
    drop((p_bytes, g_bytes));
    let system = config.system(predictions);
    warn_missing(&eval);

    let inputs = BTreeMap::from([
        ("predictions".to_string(), p_info),
        ("gold".to_string(), g_info),
    ]);
    let settings = json!({
        "format": eval.format,
        "format_arg": config.format,
        "system": system,
        "plots": !config.no_plots,
        "out": config.out.display().to_string(),
        "html_example_rows": HTML_EXAMPLE_ROWS,
    });
    let folder = RunFolder::create(&config.out, started)?;
    let (path, ()) = complete_run(folder, |folder| {
        write_run(folder, &eval, &system, inputs, settings, config, started)
    })?;
    Ok((path, eval, system))
}

fn warn_missing(eval: &HotpotEvaluation) {
    for w in &eval.warnings {
        errln!("warning: {w}");
    }
    for (what, ids) in [("answer", &eval.missing_answer), ("sp", &eval.missing_sp)] {
        if ids.is_empty() {
            continue;
        }
        let shown: Vec<&str> = ids.iter().take(5).map(String::as_str).collect();
        let more = if ids.len() > 5 { ", …" } else { "" };
        errln!(
            "warning: {} gold id(s) have no predicted {what} (scored 0, listed in metrics.json): {}{more}",
            ids.len(),
            shown.join(", ")
        );
    }
    if eval.extra_predictions > 0 {
        errln!(
            "warning: {} predicted id(s) are not in the gold file (ignored)",
            eval.extra_predictions
        );
    }
}

fn write_run(
    folder: &RunFolder,
    eval: &HotpotEvaluation,
    system: &str,
    inputs: BTreeMap<String, InputFile>,
    settings: Value,
    config: &Config,
    started: SystemTime,
) -> anyhow::Result<()> {
    let no_plots = config.no_plots;
    let mut outputs = vec![
        "metrics.json".to_string(),
        "per_example.json".to_string(),
        "per_example.csv".to_string(),
    ];
    write_json(&folder.file("metrics.json"), &eval.metrics_json(system))?;
    let png = folder.file("hotpot_metrics.png");
    // The chart renders on one core while the other formats the tables.
    let (chart, (json, csv)) = rayon::join(
        || -> anyhow::Result<Option<Vec<u8>>> {
            if no_plots {
                return Ok(None);
            }
            let bytes = draw_panels(eval, system)?;
            write_atomic(&png, &bytes)?;
            Ok(Some(bytes))
        },
        || (eval.per_example_json(), eval.per_example_csv()),
    );
    write_atomic(&folder.file("per_example.json"), &json)?;
    write_atomic(&folder.file("per_example.csv"), csv.as_bytes())?;
    let chart = chart?;
    if chart.is_some() {
        outputs.push("hotpot_metrics.png".into());
    }
    outputs.push("report.html".into());
    outputs.push("manifest.json".into());
    let manifest = Manifest::new(
        "hotpot",
        inputs,
        settings,
        eval.signature.clone(),
        started,
        outputs,
    )
    .with_config(jobs::to_value(config));
    let html = render_report(eval, system, chart.as_deref(), &manifest)?;
    write_atomic(&folder.file("report.html"), html.as_bytes())?;
    write_json(&folder.file("manifest.json"), &manifest)?;
    Ok(())
}

fn draw_panels(eval: &HotpotEvaluation, system: &str) -> anyhow::Result<Vec<u8>> {
    let (f1, em, p, r, sf1, label) = match eval.format {
        HotpotFormat::Simple => (
            "answer_f1",
            "answer_em",
            "citation_precision",
            "citation_recall",
            "citation_f1",
            "Citation",
        ),
        HotpotFormat::Official => (
            "f1",
            "em",
            "sp_prec",
            "sp_recall",
            "sp_f1",
            "Supporting fact",
        ),
    };
    let title = format!("HotpotQA answer generation quality: {system}");
    Ok(render_metric_panels(&MetricPanels {
        title: &title,
        set_label: label,
        answer_f1: &eval.column(f1),
        answer_em: &eval.column(em),
        precision: &eval.column(p),
        recall: &eval.column(r),
        set_f1: &eval.column(sf1),
        footnote: &eval.signature,
    })?)
}

fn render_report(
    eval: &HotpotEvaluation,
    system: &str,
    chart: Option<&[u8]>,
    manifest: &Manifest,
) -> anyhow::Result<String> {
    let mut page = HtmlPage::new("HotpotQA Answer Generation Quality Report");
    page.note(&format!(
        "System {system}, {} format, {} item(s). Signature: {}",
        eval.format.as_str(),
        eval.n(),
        eval.signature
    ));
    page.heading(2, "Metric definitions");
    page.definitions(&definitions(eval.format));
    page.heading(2, "Results");
    let names = eval.format.metric_names();
    let mut header = vec!["System".to_string()];
    header.extend(names.iter().map(|s| s.to_string()));
    header.push("n".into());
    let mut row = vec![system.to_string()];
    row.extend(eval.averages.iter().map(|v| format!("{v:.3}")));
    row.push(eval.n().to_string());
    page.table("results", &header, &[row]);
    if !eval.missing_answer.is_empty() || !eval.missing_sp.is_empty() {
        page.note(&format!(
            "{} gold item(s) have no predicted answer and {} no predicted supporting facts; they score 0 (ids in metrics.json).",
            eval.missing_answer.len(),
            eval.missing_sp.len()
        ));
    }
    if let Some(png) = chart {
        page.heading(2, "Charts");
        page.png("HotpotQA metrics: six panels", png);
        if eval.n() > crate::report::panels::MAX_BAR_GROUPS {
            page.note("With many examples the per-example panels average consecutive examples in bins; the axis titles give the bin width.");
        }
    }
    page.heading(2, "Per-example results");
    let shown = eval.n().min(HTML_EXAMPLE_ROWS);
    if shown < eval.n() {
        page.note(&format!(
            "The first {shown} of {} items; all of them are in per_example.csv and per_example.json.",
            eval.n()
        ));
    }
    let mut header = vec!["id".to_string(), "prediction".into(), "gold".into()];
    header.extend(names.iter().map(|s| s.to_string()));
    let rows: Vec<Vec<String>> = eval
        .examples
        .iter()
        .take(shown)
        .map(|e| {
            let mut r = vec![
                e.id.clone(),
                e.prediction.clone().unwrap_or_else(|| "(missing)".into()),
                e.gold.clone(),
            ];
            r.extend(e.scores.iter().map(|v| fmt_opt(*v, 3)));
            r
        })
        .collect();
    page.table("examples", &header, &rows);
    page.heading(2, "Interpretation guide");
    page.definitions(&INTERPRETATION);
    page.heading(2, "Run manifest");
    page.note(
        "What reproduces these numbers (times, paths and the command line are in manifest.json).",
    );
    page.preformatted(&serde_json::to_string_pretty(
        &manifest.reproducible_view(),
    )?);
    Ok(page.render())
}
