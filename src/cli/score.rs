//! `corpus-eval score` and `corpus-eval synonyms`: [`crate::jobs::score`]
//! from the command line.

use super::EXIT_OK;
use crate::jobs::score::{score, synonyms, Config};

/// Arguments of `score`.
#[derive(Debug, clap::Args)]
pub struct ScoreArgs {
    /// Question type (Yes/No, Yes/No with Rationale, ListOne, ListMany, PickOne, PickMany).
    #[arg(long = "type", value_name = "T")]
    pub qtype: String,
    /// The metric: JSON, or a plain "yes"/"no".
    #[arg(long, value_name = "M")]
    pub metric: String,
    /// The answer text.
    pub answer: String,
    /// `--wordnet`.
    #[command(flatten)]
    pub settings: super::flags::Flags<Config>,
    /// Print one JSON object on stdout (nothing else there).
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `synonyms`.
#[derive(Debug, clap::Args)]
pub struct SynonymsArgs {
    /// The word or phrase.
    pub word: String,
    /// `--wordnet`.
    #[command(flatten)]
    pub settings: super::flags::Flags<Config>,
    /// Print one JSON object on stdout (nothing else there).
    #[arg(long)]
    pub json: bool,
}

/// Prints the score, or null with the reason on stderr.
pub(super) fn run_score(args: ScoreArgs) -> anyhow::Result<u8> {
    let config = args.settings.checked()?;
    let out = score(&config, &args.qtype, &args.metric, &args.answer)?;
    if let Some(note) = &out.note {
        errln!("warning: {note}");
    }
    let score = serde_json::to_string(&out.score)?;
    super::print_run(args.json, None, &out, || score)?;
    Ok(EXIT_OK)
}

/// Prints the enrichment, one form per line.
pub(super) fn run_synonyms(args: SynonymsArgs) -> anyhow::Result<u8> {
    let out = synonyms(&args.settings.checked()?, &args.word)?;
    if args.json || !out.forms.is_empty() {
        super::print_run(args.json, None, &out, || out.forms.join("\n"))?;
    }
    Ok(EXIT_OK)
}
