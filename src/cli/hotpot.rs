//! `corpus-eval hotpot`: HotpotQA answer and citation metrics, simple or
//! official format, with a run folder and an HTML report.

use super::{complete_run, map_input, InputError, EXIT_OK};
use crate::corpus::hotpot::{
    is_official_predictions, official_gold, official_predictions, simple_records,
};
use crate::corpus::json_error;
use crate::hotpot::{evaluate_official, evaluate_simple, HotpotEvaluation, HotpotFormat};
use crate::report::html::HtmlPage;
use crate::report::manifest::{InputFile, Manifest};
use crate::report::panels::{render_metric_panels, MetricPanels};
use crate::report::table::grid_table;
use crate::report::{write_atomic, write_json, RunFolder};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::PathBuf;
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

/// Arguments of `hotpot`.
#[derive(Debug, clap::Args)]
pub struct HotpotArgs {
    /// Predictions: a simple-format array or an official {"answer", "sp"} object.
    pub predictions: PathBuf,
    /// Gold: a simple-format array or the HotpotQA JSON.
    pub gold: PathBuf,
    /// Input format.
    #[arg(long, value_enum, default_value = "auto")]
    pub format: FormatArg,
    /// Print the averaged metrics as one JSON object (the last thing on stdout).
    #[arg(long)]
    pub json: bool,
    /// Parent folder of the run folder.
    #[arg(long, default_value = "reports")]
    pub out: PathBuf,
    /// The system's name in tables and comparisons (default: the predictions file's stem).
    #[arg(long = "name", value_name = "SYSTEM")]
    pub name: Option<String>,
    /// Do not draw hotpot_metrics.png (the HTML report then has no chart).
    #[arg(long)]
    pub no_plots: bool,
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
    let started = SystemTime::now();
    let p_bytes = map_input(&args.predictions)?;
    let g_bytes = map_input(&args.gold)?;
    // Hash the inputs on one core while the other parses and scores.
    let ((p_info, g_info), eval) = rayon::join(
        || {
            (
                InputFile::new(&args.predictions, &p_bytes),
                InputFile::new(&args.gold, &g_bytes),
            )
        },
        || evaluate_inputs(&args, &p_bytes, &g_bytes),
    );
    let eval = eval?;
    drop((p_bytes, g_bytes));
    let system = match &args.name {
        Some(n) => n.clone(),
        None => args
            .predictions
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "system".into()),
    };
    warn_missing(&eval);

    let inputs = BTreeMap::from([
        ("predictions".to_string(), p_info),
        ("gold".to_string(), g_info),
    ]);
    let settings = json!({
        "format": eval.format,
        "format_arg": format!("{:?}", args.format).to_lowercase(),
        "system": system,
        "plots": !args.no_plots,
        "out": args.out.display().to_string(),
        "html_example_rows": HTML_EXAMPLE_ROWS,
    });
    let folder = RunFolder::create(&args.out, started)?;
    let (path, ()) = complete_run(folder, |folder| {
        write_run(
            folder,
            &eval,
            &system,
            inputs,
            settings,
            started,
            args.no_plots,
        )
    })?;

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

/// Parses both files in the chosen format and scores them.
fn evaluate_inputs(
    args: &HotpotArgs,
    p_bytes: &[u8],
    g_bytes: &[u8],
) -> anyhow::Result<HotpotEvaluation> {
    let p_doc: Value = crate::corpus::strict_json::parse_slice(p_bytes)
        .map_err(|e| json_error(&args.predictions, &e))?;
    let official = match args.format {
        FormatArg::Auto => is_official_predictions(&p_doc),
        FormatArg::Simple => false,
        FormatArg::Official => {
            if !is_official_predictions(&p_doc) {
                return Err(InputError(format!(
                    "{}: --format official needs an object with \"answer\" and \"sp\"",
                    args.predictions.display()
                ))
                .into());
            }
            true
        }
    };
    if official {
        let preds = official_predictions(&args.predictions, &p_doc)?;
        drop(p_doc);
        let gold = official_gold(&args.gold, g_bytes)?;
        return Ok(evaluate_official(&preds, &gold));
    }
    let preds = simple_records(&args.predictions, &p_doc)?;
    drop(p_doc);
    let g_doc: Value =
        crate::corpus::strict_json::parse_slice(g_bytes).map_err(|e| json_error(&args.gold, &e))?;
    let gold = simple_records(&args.gold, &g_doc)?;
    evaluate_simple(&preds, &gold).map_err(|e| {
        InputError(format!(
            "{} vs {}: {e}",
            args.predictions.display(),
            args.gold.display()
        ))
        .into()
    })
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
    started: SystemTime,
    no_plots: bool,
) -> anyhow::Result<()> {
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
    );
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
    page.preformatted(&serde_json::to_string_pretty(manifest)?);
    Ok(page.render())
}
