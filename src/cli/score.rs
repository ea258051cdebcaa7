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
    /// Print one JSON object on stdout (nothing else there).
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `synonyms`.
#[derive(Debug, clap::Args)]
pub struct SynonymsArgs {
    /// The word or phrase.
    pub word: String,
    /// WordNet source.
    #[command(flatten)]
    pub wordnet: WordnetArgs,
    /// Print one JSON object on stdout (nothing else there).
    #[arg(long)]
    pub json: bool,
}

/// Prints the score, or null with the reason on stderr.
pub fn run_score(args: ScoreArgs) -> anyhow::Result<u8> {
    let lexicon = crate::jobs::load_lexicon(args.wordnet.wordnet.as_deref())?;
    let metric = Value::String(args.metric);
    let (score, note) = match CompiledQuestion::compile(&args.qtype, &metric, &lexicon) {
        Ok(q) => (
            Some(q.score(&args.answer, &mut Analyzer::new(&lexicon))),
            None,
        ),
        Err(e) => {
            errln!("warning: {e}");
            (None, Some(e.to_string()))
        }
    };
    if args.json {
        let v = serde_json::json!({
            "score": score,
            "type": args.qtype,
            "metric": metric,
            "note": note,
            "signature": crate::scoring::signature(&lexicon),
        });
        outln!("{v}");
    } else {
        outln!("{}", serde_json::to_string(&score)?);
    }
    Ok(EXIT_OK)
}

/// Prints the enrichment, one form per line.
pub fn run_synonyms(args: SynonymsArgs) -> anyhow::Result<u8> {
    let lexicon = crate::jobs::load_lexicon(args.wordnet.wordnet.as_deref())?;
    let forms = lexicon.enrich(&args.word);
    if args.json {
        let v = serde_json::json!({
            "word": args.word,
            "forms": forms,
            "wordnet": {"source": lexicon.source(), "sha256": lexicon.digest()},
        });
        outln!("{v}");
        return Ok(EXIT_OK);
    }
    for s in forms {
        outln!("{s}");
    }
    Ok(EXIT_OK)
}
