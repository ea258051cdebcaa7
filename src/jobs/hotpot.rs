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
    is_official_predictions, official_gold, official_predictions, official_predictions_typed,
    simple_records, OfficialPredictions,
};
use crate::corpus::json_error;
use crate::hotpot::{evaluate_official, evaluate_simple, HotpotEvaluation, HotpotFormat};
use crate::report::manifest::{InputFile, Manifest};
use crate::report::run::RunWriter;
use crate::report::ReportError;
use crate::views::html::HtmlPage;
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

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

impl super::settings::Choices for InputFormat {
    const NAMES: &'static [&'static str] = &["auto", "simple", "official"];
}

/// The settings of `corpus-eval hotpot` (the defaults are the command
/// line's). Each field is a key of a `--config` file and a flag.
#[super::settings::shared_settings]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, super::settings::Settings)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    #[shared]
    pub version: u32,
    #[shared]
    pub out: PathBuf,
    /// Input format.
    #[setting(default = InputFormat::Auto, choices)]
    pub format: InputFormat,
    /// The system's name in tables and comparisons (default: the
    /// predictions file's stem).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[setting(value_name = "SYSTEM")]
    pub name: Option<String>,
    /// Do not draw hotpot_metrics.png (the HTML report then has no chart).
    pub no_plots: bool,
    #[shared]
    pub shard: Option<crate::shard::Shard>,
    #[shared]
    pub fail_under: std::collections::BTreeMap<String, f64>,
}

impl JobConfig for Config {
    const COMMAND: &'static str = "hotpot";
    const GATES: &'static [crate::gates::Metric] = crate::gates::HOTPOT;
    const VERSION: u32 = 1;

    fn validate(&self) -> Result<(), ConfigError> {
        super::check_fail_under::<Self>(&self.fail_under)?;
        match &self.name {
            Some(n) if n.trim().is_empty() => Err(ConfigError::Invalid {
                field: "--name".into(),
                message: "must not be empty".into(),
            }),
            _ => Ok(()),
        }
    }

    fn unset(&self) -> Vec<(&'static str, &'static str)> {
        super::unset_notes!(self; name => "the predictions file's stem", shard => "every item: no shard")
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
    let eval = score(config, predictions_path, predictions, gold_path, gold)?;
    Ok(match config.shard {
        Some(shard) => eval.restrict(shard),
        None => eval,
    })
}

/// Predictions as read by [`score`].
enum Predictions {
    /// Official predictions read without a tree.
    Typed(OfficialPredictions),
    /// The strict tree (or its error) and, when official, the predictions
    /// read from it (or their error).
    Tree(
        Result<serde_json::Value, serde_json::Error>,
        Option<Result<OfficialPredictions, crate::corpus::CorpusError>>,
    ),
}

/// Every item of both files scored.
fn score(
    config: &Config,
    predictions_path: &Path,
    predictions: &[u8],
    gold_path: &Path,
    gold: &[u8],
) -> Result<HotpotEvaluation, JobError> {
    config.validate()?;
    // Official predictions are an object: then the gold file is parsed as
    // official gold at the same time as the predictions (errors are still
    // reported in the order below: predictions first).
    let speculate = match config.format {
        InputFormat::Official => true,
        InputFormat::Simple => false,
        InputFormat::Auto => {
            let p = crate::corpus::strict_json::strip_bom_bytes(predictions);
            p.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{')
        }
    };
    // Official predictions are read straight into their maps; anything off
    // (or another format) goes through the strict tree, which names the
    // error. When speculating, official predictions from the tree are also
    // read on this side of the join (errors are kept and reported in the
    // order below).
    let read_predictions = || {
        if speculate {
            if let Some(preds) = crate::sys::timings::measure("read predictions (typed)", || {
                official_predictions_typed(predictions)
            }) {
                return Predictions::Typed(preds);
            }
        }
        let doc = crate::sys::timings::measure("parse predictions", || {
            crate::corpus::strict_json::parse_slice(predictions)
        });
        let early = match &doc {
            Ok(doc) if speculate && is_official_predictions(doc) => {
                Some(crate::sys::timings::measure("read predictions", || {
                    official_predictions(predictions_path, doc)
                }))
            }
            _ => None,
        };
        Predictions::Tree(doc, early)
    };
    let (read, official_gold_parsed) = if speculate {
        let (p, g) = rayon::join(read_predictions, || {
            crate::sys::timings::measure("parse gold", || official_gold(gold_path, gold))
        });
        (p, Some(g))
    } else {
        (read_predictions(), None)
    };
    let score_official = |preds: OfficialPredictions| -> Result<HotpotEvaluation, JobError> {
        let gold = match official_gold_parsed {
            Some(parsed) => parsed?,
            None => official_gold(gold_path, gold)?,
        };
        Ok(crate::sys::timings::measure("score", || {
            evaluate_official(&preds, &gold)
        }))
    };
    let (p_doc, early_preds) = match read {
        Predictions::Typed(preds) => return score_official(preds),
        Predictions::Tree(doc, early) => {
            (doc.map_err(|e| json_error(predictions_path, &e))?, early)
        }
    };
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
        let preds = match early_preds {
            Some(read) => read?,
            None => official_predictions(predictions_path, &p_doc)?,
        };
        drop(p_doc);
        return score_official(preds);
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

// ---- The run folder: metrics, per-example tables, chart, HTML report ----

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

/// Runs the job on two files and writes its run folder; returns the folder,
/// the evaluation and the system's name (`rerun` calls this too).
pub fn execute(
    config: &Config,
    predictions: &Path,
    gold: &Path,
) -> Result<(PathBuf, HotpotEvaluation, String), JobError> {
    let started = SystemTime::now();
    crate::sys::timings::phase("start");
    config.validate()?;
    let p_bytes = super::map_input(predictions)?;
    let g_bytes = super::map_input(gold)?;
    // Hash the inputs on one core while the other parses and scores.
    let ((p_info, g_info), eval) = rayon::join(
        || {
            crate::sys::timings::measure("hash inputs", || {
                (
                    InputFile::new(predictions, &p_bytes),
                    InputFile::new(gold, &g_bytes),
                )
            })
        },
        || {
            crate::sys::timings::measure("parse and score", || {
                run(config, predictions, &p_bytes, gold, &g_bytes)
            })
        },
    );
    let eval = eval?;
    crate::sys::timings::phase("parse, score and hash");
    crate::sys::timings::measure("inputs unmapped", || drop((p_bytes, g_bytes)));
    let system = config.system(predictions);
    warn_missing(&eval);

    let inputs = BTreeMap::from([
        ("predictions".to_string(), p_info),
        ("gold".to_string(), g_info),
    ]);
    let manifest = manifest(config, inputs, &eval, &system, started);
    let mut writer = crate::sys::timings::measure("run folder created", || {
        RunWriter::create(&config.out, started, manifest)
    })?;
    crate::sys::timings::phase("run folder");
    write_run(&mut writer, &eval, &system, config)?;
    let done = writer.finish()?;
    crate::sys::timings::phase("finish");
    Ok((done, eval, system))
}

/// The manifest of a hotpot run (`execute` and `merge` write it).
pub fn manifest(
    config: &Config,
    inputs: BTreeMap<String, InputFile>,
    eval: &HotpotEvaluation,
    system: &str,
    started: SystemTime,
) -> Manifest {
    let mut settings = json!({
        "format": eval.format,
        "format_arg": config.format,
        "system": system,
        "plots": !config.no_plots,
        "out": config.out.display().to_string(),
        "html_example_rows": HTML_EXAMPLE_ROWS,
    });
    if let (Some(shard), serde_json::Value::Object(m)) = (config.shard, &mut settings) {
        m.insert("shard".into(), json!(shard));
    }
    Manifest::new("hotpot", inputs, settings, eval.signature.clone(), started)
        .with_config(super::to_value(config))
}

/// Warns (stderr) about the evaluation's warnings and missing predictions.
pub fn warn_missing(eval: &HotpotEvaluation) {
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

/// Writes the outputs of an evaluation into a run folder (`execute` and
/// `merge` call this).
pub fn write_run(
    run: &mut RunWriter,
    eval: &HotpotEvaluation,
    system: &str,
    config: &Config,
) -> Result<(), JobError> {
    // The chart renders on one core while the other formats and writes
    // the tables (the chart is the longer of the two).
    let (chart, tables) = rayon::join(
        || -> Result<Option<Vec<u8>>, ReportError> {
            if config.no_plots {
                return Ok(None);
            }
            crate::sys::timings::measure("chart", || draw_panels(eval, system)).map(Some)
        },
        || -> Result<(), JobError> {
            run.write_json("metrics.json", &eval.metrics_json(system))?;
            let json =
                crate::sys::timings::measure("per_example.json made", || eval.per_example_json());
            crate::sys::timings::measure("per_example.json written", || {
                run.write("per_example.json", &json)
            })?;
            let csv = crate::sys::timings::measure("items.csv made", || eval.per_example_csv());
            crate::sys::timings::measure("items.csv written", || {
                run.write("items.csv", csv.as_bytes())
            })?;
            Ok(())
        },
    );
    tables?;
    crate::sys::timings::phase("chart and tables");
    let chart = chart?;
    if let Some(bytes) = &chart {
        run.write("hotpot_metrics.png", bytes)?;
    }
    let html = render_report(eval, system, chart.as_deref(), run.manifest_mut());
    run.write("report.html", html.as_bytes())?;
    crate::sys::timings::phase("report.html");
    Ok(())
}

#[cfg(feature = "charts")]
fn draw_panels(eval: &HotpotEvaluation, system: &str) -> Result<Vec<u8>, ReportError> {
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
    use crate::views::panels::{render_metric_panels, MetricPanels};
    render_metric_panels(&MetricPanels {
        title: &title,
        set_label: label,
        answer_f1: &eval.column(f1),
        answer_em: &eval.column(em),
        precision: &eval.column(p),
        recall: &eval.column(r),
        set_f1: &eval.column(sf1),
        footnote: &crate::signature::shorten(&eval.signature),
    })
}

/// Without the `charts` feature there is no chart.
#[cfg(not(feature = "charts"))]
fn draw_panels(_: &HotpotEvaluation, _: &str) -> Result<Vec<u8>, ReportError> {
    Err(ReportError::Chart {
        path: "hotpot_metrics.png".into(),
        message: "built without the charts feature (use no_plots)".into(),
    })
}

fn render_report(
    eval: &HotpotEvaluation,
    system: &str,
    chart: Option<&[u8]>,
    manifest: &Manifest,
) -> String {
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
        #[cfg(feature = "charts")]
        let binned = eval.n() > crate::views::panels::MAX_BAR_GROUPS;
        #[cfg(not(feature = "charts"))]
        let binned = false;
        if binned {
            page.note("With many examples the per-example panels average consecutive examples in bins; the axis titles give the bin width.");
        }
    }
    page.heading(2, "Per-example results");
    let shown = eval.n().min(HTML_EXAMPLE_ROWS);
    if shown < eval.n() {
        page.note(&format!(
            "The first {shown} of {} items; all of them are in items.csv and per_example.json.",
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
    page.preformatted(
        &serde_json::to_string_pretty(&manifest.reproducible_view()).unwrap_or_default(),
    );
    page.render()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_input_format_is_a_serde_name() {
        super::super::settings::names_round_trip::<InputFormat>();
    }

    fn error(config: &Config, pred: &str, gold: &str) -> String {
        let (p, g) = (Path::new("p.json"), Path::new("g.json"));
        match run(config, p, pred.as_bytes(), g, gold.as_bytes()) {
            Ok(_) => panic!("{pred} / {gold} scored"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn errors_keep_their_order_when_both_files_are_parsed_at_once() {
        let official = r#"{"answer": {"a": "x"}, "sp": {"a": [["T", 0]]}}"#;
        let gold = r#"[{"_id": "a", "answer": "x", "supporting_facts": [["T", 0]]}]"#;
        for format in [InputFormat::Auto, InputFormat::Official] {
            let config = Config {
                format,
                ..Config::default()
            };
            // Both bad: the predictions are named first.
            let e = error(&config, "{\"answer\": ", "[{");
            assert!(e.starts_with("p.json:"), "{e}");
            // Predictions right, gold bad: the gold file is named.
            let e = error(&config, official, "[{\"_id\": }]");
            assert!(e.starts_with("g.json:1:"), "{e}");
        }
        // An object that is not official predictions: the simple reading
        // says why, whatever the gold file holds.
        let e = error(&Config::default(), r#"{"x": 1}"#, "[{");
        assert!(e.contains("p.json"), "{e}");
        let ok = run(
            &Config::default(),
            Path::new("p.json"),
            official.as_bytes(),
            Path::new("g.json"),
            gold.as_bytes(),
        )
        .unwrap();
        assert_eq!(ok.n(), 1);
    }
}
