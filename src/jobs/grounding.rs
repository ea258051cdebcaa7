//! Grounding metrics of RAG responses (relevance, completeness,
//! hallucination against the context) as a typed job.
//!
//! ```
//! use corpus_eval::grounding::GroundingRow;
//! use corpus_eval::jobs::grounding::{run, Config};
//! use corpus_eval::lexicon::Lexicon;
//!
//! let row = GroundingRow {
//!     id: "g1".into(),
//!     query: "When did the pyramid open?".into(),
//!     response: "It opened in 1989.".into(),
//!     context: vec!["The pyramid opened to the public in 1989.".into()],
//! };
//! let out = run(&Config::default(), &[row], &Lexicon::embedded().unwrap()).unwrap();
//! assert_eq!(out.results[0].hallucination, 0.0);
//! assert_eq!(out.summary.n, 1);
//! ```

use super::{ConfigError, JobConfig, JobError};
pub use crate::grounding::summary::{summary, AnchorCount, Means, Summary};
use crate::grounding::GroundingRow;
use crate::grounding::{evaluate, signature, GroundingResult};
use crate::lexicon::Lexicon;
use crate::texteval::output::{py_float, tsv_field};
use crate::texteval::round4;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The settings of `corpus-eval grounding` (the defaults are the command
/// line's). Each field is a key of a `--config` file and a flag.
#[super::settings::shared_settings]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, super::settings::Settings)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    #[shared]
    pub version: u32,
    #[shared]
    pub out: PathBuf,
    #[shared]
    pub wordnet: Option<PathBuf>,
    #[shared]
    pub shard: Option<crate::shard::Shard>,
    #[shared]
    pub fail_under: std::collections::BTreeMap<String, f64>,
}

impl JobConfig for Config {
    const COMMAND: &'static str = "grounding";
    const GATES: &'static [crate::gates::Metric] = crate::gates::GROUNDING;
    const VERSION: u32 = 1;

    fn validate(&self) -> Result<(), ConfigError> {
        super::check_fail_under::<Self>(&self.fail_under)?;
        Ok(())
    }

    fn unset(&self) -> Vec<(&'static str, &'static str)> {
        super::unset_notes!(self; wordnet => "the embedded WordNet 3.0 lexicon", shard => "every row: no shard")
    }
}

/// What the job produces.
#[derive(Debug, Clone)]
pub struct Output {
    /// One result per row, in input order (`grounding.json`).
    pub results: Vec<GroundingResult>,
    /// `summary.json`.
    pub summary: Summary,
}

/// Scores every row (in parallel); at least one row is needed.
pub fn run(config: &Config, rows: &[GroundingRow], lexicon: &Lexicon) -> Result<Output, JobError> {
    config.validate()?;
    if rows.is_empty() && config.shard.is_none() {
        return Err(JobError::Input("no rows".into()));
    }
    crate::progress::start("grounding rows", rows.len() as u64);
    let results: Vec<GroundingResult> = rows
        .par_iter()
        .map(|r| {
            crate::progress::advance(1);
            evaluate(lexicon, r)
        })
        .collect();
    crate::progress::finish();
    let summary = summary(&results);
    Ok(Output { results, summary })
}

/// The columns of `grounding.tsv`.
pub const TSV_COLUMNS: [&str; 11] = [
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

/// A result's eight metrics in [`TSV_COLUMNS`] order (after `id`), and
/// its anchor counts (all, unsupported).
fn row_values(r: &GroundingResult) -> ([f64; 8], [usize; 2]) {
    (
        [
            r.relevance,
            r.completeness,
            r.hallucination,
            r.claim_error,
            r.drift_penalty,
            r.tfidf_cosine,
            r.jaccard,
            r.bigram_overlap,
        ],
        [
            r.anchors.len(),
            r.anchors.iter().filter(|a| !a.supported).count(),
        ],
    )
}

/// `grounding.tsv`: one row per result, 4-decimal Python floats.
pub fn tsv(results: &[GroundingResult]) -> String {
    let mut out = TSV_COLUMNS.join("\t");
    out.push('\n');
    for r in results {
        let (values, counts) = row_values(r);
        let fields: Vec<String> = std::iter::once(tsv_field(&r.id))
            .chain(values.iter().map(|x| py_float(round4(*x))))
            .chain(counts.iter().map(usize::to_string))
            .collect();
        out.push_str(&fields.join("\t"));
        out.push('\n');
    }
    out
}

/// The columns of `items.csv`: those of `grounding.tsv`.
pub const ITEM_COLUMNS: [&str; 11] = TSV_COLUMNS;

/// `items.csv`: one row per response with its metrics, unrounded.
pub fn items_csv(results: &[GroundingResult]) -> String {
    use crate::report::csv::number;
    let mut out = crate::report::csv::CsvBuffer::new();
    out.record(ITEM_COLUMNS);
    for r in results {
        let (values, counts) = row_values(r);
        out.field(&r.id);
        for v in values {
            out.field(number(Some(v)));
        }
        for c in counts {
            out.field(c.to_string());
        }
        out.end_record();
    }
    out.into_string()
}

/// Runs the job on an input file and writes its run folder under
/// `config.out` (the command line and `rerun` call this); returns the
/// folder and the output.
pub fn execute(config: &Config, input: &Path) -> Result<(PathBuf, Output), JobError> {
    use crate::report::manifest::InputFile;
    let started = std::time::SystemTime::now();
    config.validate()?;
    let bytes = super::read_input(input)?;
    let mut rows = crate::grounding::input::load_grounding_rows(input)?;
    if rows.is_empty() {
        return Err(JobError::Input(format!("{}: no rows", input.display())));
    }
    if let Some(shard) = config.shard {
        rows.retain(|r| shard.contains(&r.id));
    }
    let lexicon = super::load_lexicon(config.wordnet.as_deref())?;
    let output = run(config, &rows, &lexicon)?;
    let inputs = BTreeMap::from([("input".to_string(), InputFile::new(input, &bytes))]);
    let manifest = manifest(config, inputs, output.results.len(), &lexicon, started);
    let run = crate::report::run::RunWriter::create(&config.out, started, manifest)?;
    Ok((write_run(run, &output)?, output))
}

/// The manifest of a grounding run (`execute` and `merge` write it).
pub fn manifest(
    config: &Config,
    inputs: BTreeMap<String, crate::report::manifest::InputFile>,
    rows: usize,
    lexicon: &Lexicon,
    started: std::time::SystemTime,
) -> crate::report::manifest::Manifest {
    let mut settings = json!({
        "rows": rows,
        "drift_threshold": 0.2,
        "drift_penalty": 0.2,
        "stop_words": {"tfidf": "scikit-learn ENGLISH_STOP_WORDS (318)", "completeness": "NLTK english (179)"},
        "out": config.out.display().to_string(),
    });
    if let (Some(shard), serde_json::Value::Object(m)) = (config.shard, &mut settings) {
        m.insert("shard".into(), json!(shard));
    }
    crate::report::manifest::Manifest::new("grounding", inputs, settings, signature(), started)
        .with_config(super::to_value(config))
        .with_lexicon(lexicon)
}

/// Writes the outputs into the run folder and finishes it (`execute` and
/// `merge` call this).
pub fn write_run(
    mut run: crate::report::run::RunWriter,
    output: &Output,
) -> Result<PathBuf, JobError> {
    let results = &output.results;
    run.write_json_array("grounding.json", results)?;
    run.write("grounding.tsv", tsv(results).as_bytes())?;
    run.write("items.csv", items_csv(results).as_bytes())?;
    run.write_json("summary.json", &output.summary)?;
    #[cfg(feature = "charts")]
    {
        use crate::views::charts::{render_histogram_panels, HistogramPanels};
        let col = |f: &dyn Fn(&GroundingResult) -> f64| results.iter().map(f).collect::<Vec<f64>>();
        let (rel, comp, hal) = (
            col(&|r| r.relevance),
            col(&|r| r.completeness),
            col(&|r| r.hallucination),
        );
        run.render("grounding_metrics.png", |path| {
            render_histogram_panels(
                path,
                &HistogramPanels {
                    title: "Grounding metrics: distributions",
                    footnote: &crate::signature::shorten(&signature()),
                    panels: &[
                        ("relevance (higher is better)", &rel),
                        ("completeness (higher is better)", &comp),
                        ("hallucination (lower is better)", &hal),
                    ],
                },
            )
        })?;
    }
    Ok(run.finish()?)
}
