//! `corpus-eval grounding`: relevance, completeness and hallucination of
//! RAG responses against their context, with a run folder.

use super::{complete_run, load_lexicon, read_input, InputError, WordnetArgs, EXIT_OK};
use crate::grounding::input::load_grounding_rows;
use crate::grounding::{GroundingResult, SIGNATURE};
use crate::jobs::grounding::{tsv, Config};
use crate::jobs::{self, JobConfig};
use crate::report::charts::{render_histogram_panels, HistogramPanels};
use crate::report::manifest::{InputFile, Manifest};
use crate::report::table::grid_table;
use crate::report::{write_atomic, write_json, write_json_array, RunFolder};
use serde_json::json;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Arguments of `grounding`. Each setting is a field of
/// [`crate::jobs::grounding::Config`]: `--config FILE` gives a whole
/// configuration, flags given on the command line override it.
#[derive(Debug, clap::Args)]
pub struct GroundingArgs {
    /// Rows {"id", "query", "response", "context"} (context: a text or a
    /// list of texts): a JSON array, JSON Lines, .csv or .tsv.
    #[arg(required_unless_present = "print_config")]
    pub input: Option<PathBuf>,
    /// Parent folder of the run folder [default: reports].
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Print the summary as JSON (the last thing on stdout).
    #[arg(long)]
    pub json: bool,
    /// WordNet.
    #[command(flatten)]
    pub wordnet: WordnetArgs,
    /// `--config FILE`, `--print-config`.
    #[command(flatten)]
    pub settings: super::ConfigArgs,
}

impl GroundingArgs {
    /// The configuration: the file's (or the defaults), then the flags.
    pub fn resolve(&self) -> anyhow::Result<Config> {
        let mut c: Config = self.settings.base()?;
        if let Some(out) = &self.out {
            c.out = out.clone();
        }
        if let Some(w) = &self.wordnet.wordnet {
            c.wordnet = Some(w.clone());
        }
        c.validate()?;
        Ok(c)
    }
}

/// Runs `grounding`.
pub fn run(args: GroundingArgs) -> anyhow::Result<u8> {
    let config = args.resolve()?;
    if args.settings.printed(&config)? {
        return Ok(EXIT_OK);
    }
    let Some(input) = &args.input else {
        return Err(InputError("grounding needs INPUT".into()).into());
    };
    let (path, output) = execute(&config, input)?;
    let (results, summary) = (&output.results, &output.summary);
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
            let shown = m[k]
                .as_f64()
                .map_or_else(|| "n/a".to_string(), |v| format!("{:.4}", v + 0.0));
            vec![k.to_string(), shown]
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

/// Runs the job on an input file and writes its run folder (`rerun` calls
/// this too).
pub(crate) fn execute(
    config: &Config,
    input: &Path,
) -> anyhow::Result<(PathBuf, jobs::grounding::Output)> {
    let started = SystemTime::now();
    config.validate()?;
    let bytes = read_input(input)?;
    let rows = load_grounding_rows(input)?;
    if rows.is_empty() {
        return Err(InputError(format!("{}: no rows", input.display())).into());
    }
    let lexicon = load_lexicon(&WordnetArgs {
        wordnet: config.wordnet.clone(),
    })?;
    let output = jobs::grounding::run(config, &rows, &lexicon)?;
    let (results, summary) = (&output.results, &output.summary);
    let inputs = BTreeMap::from([("input".to_string(), InputFile::new(input, &bytes))]);
    let settings = json!({
        "rows": results.len(),
        "drift_threshold": 0.2,
        "drift_penalty": 0.2,
        "stop_words": {"tfidf": "scikit-learn ENGLISH_STOP_WORDS (318)", "completeness": "NLTK english (179)"},
        "out": config.out.display().to_string(),
    });
    let folder = RunFolder::create(&config.out, started)?;
    let (path, ()) = complete_run(folder, |folder| {
        write_json_array(&folder.file("grounding.json"), results)?;
        write_atomic(&folder.file("grounding.tsv"), tsv(results).as_bytes())?;
        write_json(&folder.file("summary.json"), summary)?;
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
        )
        .with_config(jobs::to_value(config));
        write_json(
            &folder.file("manifest.json"),
            &manifest.with_lexicon(&lexicon),
        )?;
        Ok(())
    })?;
    Ok((path, output))
}
