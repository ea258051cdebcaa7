//! `corpus-eval evaluate`: the main job.

use super::{as_text, load_lexicon, read_input, InputError, WordnetArgs, EXIT_OK};
use crate::citations::MatchLevel;
use crate::corpus::{parse_questions, parse_transcripts};
use crate::evaluate::Summary;
use crate::jobs::{self, evaluate::Config, JobConfig};
use crate::report::charts::{render_bar_chart, Bar, BarChart};
use crate::report::manifest::{InputFile, Manifest};
use crate::report::{table::summary_table, write_json, RunFolder};
use crate::stats::GroupStat;
use anyhow::Context;
use serde_json::json;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// `--match` values.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum MatchArg {
    /// Only exact substrings count as found.
    Exact,
    /// Exact or normalized matches count.
    Normalized,
    /// Exact, normalized or fuzzy matches count.
    Fuzzy,
}

/// Arguments of `evaluate`. Each setting is a field of
/// [`crate::jobs::evaluate::Config`]: `--config FILE` gives a whole
/// configuration, flags given on the command line override it.
#[derive(Debug, clap::Args)]
pub struct EvaluateArgs {
    /// Question file: {"qa_pairs": [...]} or a bare array.
    #[arg(required_unless_present = "print_config")]
    pub questions: Option<PathBuf>,
    /// Transcript corpus: an array (or {"documents": [...]}) of {page_content, metadata.FILE}.
    #[arg(required_unless_present = "print_config")]
    pub transcripts: Option<PathBuf>,
    /// Parent folder of the run folder [default: reports].
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// The weakest quote verdict that counts as found [default: normalized].
    #[arg(long = "match", value_enum)]
    pub match_level: Option<MatchArg>,
    /// Similarity (0..1) a fuzzy match needs [default: 0.9].
    #[arg(long)]
    pub fuzzy_threshold: Option<f64>,
    /// Do not draw the PNG charts.
    #[arg(long)]
    pub no_plots: bool,
    /// Seed of the bootstrap confidence intervals [default: 42].
    #[arg(long)]
    pub seed: Option<u64>,
    /// WordNet source.
    #[command(flatten)]
    pub wordnet: WordnetArgs,
    /// `--config FILE`, `--print-config`.
    #[command(flatten)]
    pub settings: super::ConfigArgs,
}

impl EvaluateArgs {
    /// The configuration: the file's (or the defaults), then the flags.
    pub fn resolve(&self) -> anyhow::Result<Config> {
        let mut c: Config = self.settings.base()?;
        if let Some(out) = &self.out {
            c.out = out.clone();
        }
        if let Some(m) = self.match_level {
            c.match_level = level_of(m);
        }
        if let Some(t) = self.fuzzy_threshold {
            c.fuzzy_threshold = t;
        }
        if self.no_plots {
            c.no_plots = true;
        }
        if let Some(seed) = self.seed {
            c.seed = seed;
        }
        if let Some(w) = &self.wordnet.wordnet {
            c.wordnet = Some(w.clone());
        }
        c.validate()?;
        Ok(c)
    }
}

/// The library's match level of a `--match` value.
pub fn level_of(m: MatchArg) -> MatchLevel {
    match m {
        MatchArg::Exact => MatchLevel::Exact,
        MatchArg::Normalized => MatchLevel::Normalized,
        MatchArg::Fuzzy => MatchLevel::Fuzzy,
    }
}

fn bars(groups: &BTreeMap<String, GroupStat>) -> Vec<Bar> {
    groups
        .iter()
        .filter(|(_, s)| s.n > 0)
        .map(|(k, s)| Bar {
            label: k.clone(),
            value: s.mean,
            n: s.n,
            ci: Some((s.ci_low, s.ci_high)),
        })
        .collect()
}

/// Runs the main job.
pub fn run(args: EvaluateArgs) -> anyhow::Result<u8> {
    let config = args.resolve()?;
    if args.settings.printed(&config)? {
        return Ok(EXIT_OK);
    }
    let (Some(questions), Some(transcripts)) = (&args.questions, &args.transcripts) else {
        return Err(InputError("evaluate needs QUESTIONS and TRANSCRIPTS".into()).into());
    };
    let (path, summary) = execute(&config, questions, transcripts)?;
    print_summary(&config, &summary, &path)?;
    Ok(EXIT_OK)
}

/// Runs the job on two input files and writes its run folder; returns the
/// folder and the summary (`rerun` calls this too).
pub(crate) fn execute(
    config: &Config,
    questions_path: &Path,
    transcripts_path: &Path,
) -> anyhow::Result<(PathBuf, Summary)> {
    let started = SystemTime::now();
    config.validate()?;
    let q_bytes = read_input(questions_path)?;
    let t_bytes = read_input(transcripts_path)?;
    let q_info = InputFile::new(questions_path, &q_bytes);
    let t_info = InputFile::new(transcripts_path, &t_bytes);
    let questions = parse_questions(questions_path, &as_text(questions_path, q_bytes)?)?;
    let transcripts = parse_transcripts(transcripts_path, &as_text(transcripts_path, t_bytes)?)?;
    let lexicon = load_lexicon(&WordnetArgs {
        wordnet: config.wordnet.clone(),
    })?;
    let output = jobs::evaluate::run(config, &questions, &transcripts, &lexicon)?;
    let summary = output.summary;
    for w in &summary.warnings {
        errln!("warning: {w}");
    }
    let eval_config = config.eval_config();
    let folder = RunFolder::create(&config.out, started)?;
    let written = write_run(&folder, config, &output.results, &summary);
    let mut outputs = match written {
        Ok(o) => o,
        Err(e) => {
            folder.abandon();
            return Err(e);
        }
    };
    outputs.push("manifest.json".into());
    let mut manifest = Manifest::new(
        "evaluate",
        BTreeMap::from([
            ("questions".to_string(), q_info),
            ("transcripts".to_string(), t_info),
        ]),
        json!({
            "match": eval_config.match_level,
            "fuzzy_threshold": eval_config.fuzzy_threshold,
            "seed": eval_config.seed,
            "bootstrap_resamples": eval_config.resamples,
            "confidence": 0.95,
            "plots": !config.no_plots,
            "out": config.out.display().to_string(),
            "pick_jaro_winkler_threshold": crate::scoring::PICK_JARO_WINKLER_THRESHOLD,
            "normalizer": crate::text::NORMALIZER_SIGNATURE,
            "quote_normalizer": crate::text::aligned::QUOTE_NORMALIZER_SIGNATURE,
            "span_unit": "unicode scalar values (chars) into the transcript joined with \\n",
        }),
        summary.signature.clone(),
        started,
        outputs,
    )
    .with_config(jobs::to_value(config));
    manifest.wordnet = Some(json!({
        "source": lexicon.source(),
        "sha256": lexicon.digest(),
        "lemmas": lexicon.lemma_count(),
        "synsets": lexicon.synset_count(),
    }));
    if let Err(e) = write_json(&folder.file("manifest.json"), &manifest) {
        folder.abandon();
        return Err(e.into());
    }
    let path = folder.finish().context("finishing the run folder")?;
    Ok((path, summary))
}

fn print_summary(config: &Config, summary: &Summary, path: &Path) -> anyhow::Result<()> {
    let mut rows: Vec<(&str, &str, GroupStat)> = vec![("overall", "all answers", summary.overall)];
    rows.extend(
        summary
            .by_type
            .iter()
            .map(|(k, s)| ("type", k.as_str(), *s)),
    );
    rows.extend(
        summary
            .transcript_average_scores
            .iter()
            .map(|(k, s)| ("answers by source", k.as_str(), *s)),
    );
    rows.extend(
        summary
            .verbatim_average_scores
            .iter()
            .map(|(k, s)| ("quotes found by source", k.as_str(), *s)),
    );
    rows.push(("existence", "pairs with quotes", summary.existence));
    outln!("{}", summary_table(&rows));
    let verdicts: Vec<String> = summary
        .verdicts
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    outln!(
        "quotes: {} (match: {})",
        verdicts.join(" "),
        config.match_level.as_str()
    );
    if !summary.warnings.is_empty() {
        outln!(
            "{} pair(s) unscored, see warnings above",
            summary.warnings.len()
        );
    }
    outln!("run folder: {}", path.display());
    Ok(())
}

fn write_run(
    folder: &RunFolder,
    config: &Config,
    results: &serde_json::Value,
    summary: &Summary,
) -> anyhow::Result<Vec<String>> {
    let mut outputs = vec!["results.json".to_string(), "summary.json".to_string()];
    write_json(&folder.file("results.json"), results)?;
    write_json(&folder.file("summary.json"), summary)?;
    if !config.no_plots {
        let footnote = format!("values: mean [95% bootstrap CI] n · {}", summary.signature);
        render_bar_chart(
            &folder.file("transcript_scores.png"),
            &BarChart {
                title: "Mean answer score per transcript",
                value_label: "mean answer score (0-1)",
                category_label: "answer source",
                footnote: &footnote,
                bars: &bars(&summary.transcript_average_scores),
            },
        )?;
        render_bar_chart(
            &folder.file("verbatim_scores.png"),
            &BarChart {
                title: "Share of quotes found per transcript",
                value_label: "quotes found (0-1)",
                category_label: "quote source",
                footnote: &footnote,
                bars: &bars(&summary.verbatim_average_scores),
            },
        )?;
        outputs.push("transcript_scores.png".into());
        outputs.push("verbatim_scores.png".into());
    }
    Ok(outputs)
}
