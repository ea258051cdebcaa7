//! `corpus-eval score` and `corpus-eval synonyms`.

use super::{WordnetArgs, EXIT_OK};
use crate::scoring::{phrases::Analyzer, CompiledQuestion};
use serde_json::Value;

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
    /// WordNet source.
    #[command(flatten)]
    pub wordnet: WordnetArgs,
}

/// Arguments of `synonyms`.
#[derive(Debug, clap::Args)]
pub struct SynonymsArgs {
    /// The word or phrase.
    pub word: String,
    /// WordNet source.
    #[command(flatten)]
    pub wordnet: WordnetArgs,
}

/// Prints the score, or null with the reason on stderr.
pub fn run_score(args: ScoreArgs) -> anyhow::Result<u8> {
    let lexicon = crate::jobs::load_lexicon(args.wordnet.wordnet.as_deref())?;
    let metric = Value::String(args.metric);
    match CompiledQuestion::compile(&args.qtype, &metric, &lexicon) {
        Ok(q) => {
            let s = q.score(&args.answer, &mut Analyzer::new(&lexicon));
            outln!("{}", serde_json::to_string(&s)?);
        }
        Err(e) => {
            errln!("warning: {e}");
            outln!("null");
        }
    }
    Ok(EXIT_OK)
}

/// Prints the enrichment, one form per line.
pub fn run_synonyms(args: SynonymsArgs) -> anyhow::Result<u8> {
    let lexicon = crate::jobs::load_lexicon(args.wordnet.wordnet.as_deref())?;
    for s in lexicon.enrich(&args.word) {
        outln!("{s}");
    }
    Ok(EXIT_OK)
}
