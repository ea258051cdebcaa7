//! `corpus-eval evaluate`: the main job.

use super::{InputError, WordnetArgs, EXIT_OK};
use crate::citations::MatchLevel;
use crate::evaluate::Summary;
use crate::jobs::evaluate::{execute, Config};
use crate::jobs::JobConfig;
use crate::report::table::summary_table;
use crate::stats::GroupStat;
use std::path::{Path, PathBuf};

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
