//! `corpus-eval grounding`: relevance, completeness and hallucination of
//! RAG responses against their context, with a run folder.

use super::{complete_run, load_lexicon, read_input, InputError, WordnetArgs, EXIT_OK};
use crate::grounding::input::load_grounding_rows;
use crate::grounding::{evaluate, GroundingResult, SIGNATURE};
use crate::report::charts::{render_histogram_panels, HistogramPanels};
use crate::report::manifest::{InputFile, Manifest};
use crate::report::table::grid_table;
use crate::report::{write_atomic, write_json, write_json_array, RunFolder};
use crate::texteval::output::{py_float, tsv_field};
use crate::texteval::round4;
use rayon::prelude::*;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::SystemTime;

/// Arguments of `grounding`.
#[derive(Debug, clap::Args)]
pub struct GroundingArgs {
    /// Rows {"id", "query", "response", "context"} (context: a text or a
    /// list of texts): a JSON array, JSON Lines, .csv or .tsv.
    pub input: PathBuf,
    /// Parent folder of the run folder.
    #[arg(long, default_value = "reports")]
    pub out: PathBuf,
    /// Print the summary as JSON (the last thing on stdout).
    #[arg(long)]
    pub json: bool,
    /// WordNet.
    #[command(flatten)]
    pub wordnet: WordnetArgs,
}

const TSV_COLUMNS: [&str; 11] = [
    "id",
    "relevance",
    "completeness",
    "hallucination",
    "claim_error",
    "drift_penalty",
    "tfidf_cosine",
    "jaccard",
    "bigram_overlap",
    "anchors",
    "unsupported_anchors",
];

fn tsv(results: &[GroundingResult]) -> String {
    let mut out = TSV_COLUMNS.join("\t");
    out.push('\n');
    for r in results {
        let f = |x: f64| py_float(round4(x));
        let fields = [
            tsv_field(&r.id),
            f(r.relevance),
            f(r.completeness),
            f(r.hallucination),
            f(r.claim_error),
            f(r.drift_penalty),
            f(r.tfidf_cosine),
            f(r.jaccard),
            f(r.bigram_overlap),
            r.anchors.len().to_string(),
            r.anchors
                .iter()
                .filter(|a| !a.supported)
                .count()
                .to_string(),
        ];
        out.push_str(&fields.join("\t"));
        out.push('\n');
    }
    out
}

fn summary(results: &[GroundingResult]) -> Value {
    let n = results.len().max(1) as f64;
    let mean = |f: &dyn Fn(&GroundingResult) -> f64| round4(results.iter().map(f).sum::<f64>() / n);
    let mut kinds: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for a in results.iter().flat_map(|r| &r.anchors) {
        let e = kinds.entry(a.kind).or_insert((0, 0));
        e.0 += 1;
        if a.supported {
            e.1 += 1;
        }
    }
    let kinds: serde_json::Map<String, Value> = kinds
        .into_iter()
        .map(|(k, (n, s))| (k.to_string(), json!({"anchors": n, "supported": s})))
        .collect();
    json!({
        "command": "grounding",
        "n": results.len(),
        "means": {
            "relevance": mean(&|r| r.relevance),
            "completeness": mean(&|r| r.completeness),
            "hallucination": mean(&|r| r.hallucination),
            "claim_error": mean(&|r| r.claim_error),
            "drift_penalty": mean(&|r| r.drift_penalty),
        },
        "rows_without_anchors": results.iter().filter(|r| r.anchors.is_empty()).count(),
        "rows_with_drift": results.iter().filter(|r| r.drift_penalty > 0.0).count(),
        "anchors": kinds,
        "signature": SIGNATURE,
    })
}

/// Runs `grounding`.
pub fn run(args: GroundingArgs) -> anyhow::Result<u8> {
    let started = SystemTime::now();
    let bytes = read_input(&args.input)?;
    let rows = load_grounding_rows(&args.input)?;
    if rows.is_empty() {
        return Err(InputError(format!("{}: no rows", args.input.display())).into());
    }
    let lexicon = load_lexicon(&args.wordnet)?;
    let results: Vec<GroundingResult> = rows.par_iter().map(|r| evaluate(&lexicon, r)).collect();
    let summary = summary(&results);
    let inputs = BTreeMap::from([("input".to_string(), InputFile::new(&args.input, &bytes))]);
    let settings = json!({
        "rows": results.len(),
        "drift_threshold": 0.2,
        "drift_penalty": 0.2,
        "stop_words": {"tfidf": "scikit-learn ENGLISH_STOP_WORDS (318)", "completeness": "NLTK english (179)"},
        "out": args.out.display().to_string(),
    });
    let folder = RunFolder::create(&args.out, started)?;
    let (path, ()) = complete_run(folder, |folder| {
        write_json_array(&folder.file("grounding.json"), &results)?;
        write_atomic(&folder.file("grounding.tsv"), tsv(&results).as_bytes())?;
        write_json(&folder.file("summary.json"), &summary)?;
        let col = |f: &dyn Fn(&GroundingResult) -> f64| results.iter().map(f).collect::<Vec<f64>>();
        let (rel, comp, hal) = (
            col(&|r| r.relevance),
            col(&|r| r.completeness),
            col(&|r| r.hallucination),
        );
        render_histogram_panels(
            &folder.file("grounding_metrics.png"),
            &HistogramPanels {
                title: "Grounding metrics: distributions",
                footnote: SIGNATURE,
                panels: &[
                    ("relevance (higher is better)", &rel),
                    ("completeness (higher is better)", &comp),
                    ("hallucination (lower is better)", &hal),
                ],
            },
        )?;
        let manifest = Manifest::new(
            "grounding",
            inputs,
            settings,
            SIGNATURE.to_string(),
            started,
            vec![
                "grounding.json".into(),
                "grounding.tsv".into(),
                "summary.json".into(),
                "grounding_metrics.png".into(),
                "manifest.json".into(),
            ],
        );
        write_json(
            &folder.file("manifest.json"),
            &manifest.with_lexicon(&lexicon),
        )?;
        Ok(())
    })?;
    if args.json {
        errln!("run folder: {}", path.display());
        outln!("{summary}");
    } else {
        let m = &summary["means"];
        let rows: Vec<Vec<String>> = [
            "relevance",
            "completeness",
            "hallucination",
            "claim_error",
            "drift_penalty",
        ]
        .iter()
        .map(|k| {
            vec![
                k.to_string(),
                format!("{:.4}", m[k].as_f64().unwrap_or(f64::NAN)),
            ]
        })
        .chain(std::iter::once(vec![
            "n".to_string(),
            results.len().to_string(),
        ]))
        .collect();
        outln!("{}", grid_table(&["metric", "mean"], &rows));
        outln!("signature: {SIGNATURE}");
        outln!("run folder: {}", path.display());
    }
    Ok(EXIT_OK)
}
