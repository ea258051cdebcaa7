//! `corpus-eval text-eval`: the text evaluator over a row file, with a run
//! folder (results.tsv, results.json, summary.json, two charts, manifest).

use super::{InputError, WordnetArgs, EXIT_OK};
use crate::jobs::text_eval::{execute, Config};
use crate::jobs::JobConfig;
use crate::report::text::text_eval_table;
use crate::texteval::SemanticSource;
use std::path::PathBuf;

/// Arguments of `text-eval`. Each setting is a field of
/// [`crate::jobs::text_eval::Config`]: `--config FILE` gives a whole
/// configuration, flags given on the command line override it.
#[derive(Debug, clap::Args)]
pub struct TextEvalArgs {
    /// Rows {"id", "category", "question", "reference", "response"}: a JSON
    /// array, JSON Lines, .csv or .tsv.
    #[arg(required_unless_present = "print_config")]
    pub input: Option<PathBuf>,
    /// Parent folder of the run folder [default: reports].
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// JSON file overriding weights: {"categories": {"Factual": {"accuracy",
    /// "relevance", "safety", "quality"}, ...}, "accuracy": {...},
    /// "relevance": {...}, "quality": {...}} (any subset).
    #[arg(long, value_name = "FILE")]
    pub weights: Option<PathBuf>,
    /// JSON file overriding pass thresholds: {"accuracy", "relevance",
    /// "safety", "quality"} (any subset).
    #[arg(long, value_name = "FILE")]
    pub thresholds: Option<PathBuf>,
    /// Pattern file replacing datasets/text-eval-patterns.json.
    #[arg(long, value_name = "FILE")]
    pub patterns: Option<PathBuf>,
    /// reference: the original framework's published numbers; standard:
    /// conventional definitions (see the README) [default: reference].
    #[arg(long, value_parser = ["reference", "standard"])]
    pub profile: Option<String>,
    /// Compute the semantic columns with the TF-IDF fallback instead of the
    /// embedding model.
    #[arg(long)]
    pub no_embeddings: bool,
    /// Fail (exit 2, naming the fetch command) when no embedding model is
    /// found, instead of falling back to TF-IDF.
    #[arg(long)]
    pub require_model: bool,
    /// Print summary.json with `run_folder` as one JSON object on stdout,
    /// nothing else there.
    #[arg(long)]
    pub json: bool,
    /// Keep only the rows whose id falls in shard I of N (FNV-1a of the id
    /// mod N, plus 1; TF-IDF spaces still fitted on every row); join the
    /// shards with `corpus-eval merge`.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<crate::shard::Shard>,
    /// Folder of the sentence-embedding model (default: $CORPUS_EVAL_MODEL_DIR,
    /// then models/all-MiniLM-L6-v2, then the Hugging Face cache).
    #[arg(long, value_name = "DIR")]
    pub model_dir: Option<PathBuf>,
    /// The forward pass: fused, or candle-transformers' BertModel
    /// [default: fused].
    #[arg(long, value_parser = super::similarity::ENGINES)]
    pub engine: Option<String>,
    /// WordNet.
    #[command(flatten)]
    pub wordnet: WordnetArgs,
    /// `--fail-under`, `--junit`.
    #[command(flatten)]
    pub gates: super::GateArgs,
    /// `--config FILE`, `--print-config`.
    #[command(flatten)]
    pub settings: super::ConfigArgs,
    /// `--no-progress`.
    #[command(flatten)]
    pub progress: super::progress::ProgressArgs,
}

impl TextEvalArgs {
    /// The configuration: the file's (or the defaults), then the flags.
    pub fn resolve(&self) -> anyhow::Result<Config> {
        let mut c: Config = self.settings.base()?;
        super::set(&mut c.out, &self.out);
        for (field, flag) in [
            (&mut c.weights, &self.weights),
            (&mut c.thresholds, &self.thresholds),
            (&mut c.patterns, &self.patterns),
            (&mut c.model_dir, &self.model_dir),
            (&mut c.wordnet, &self.wordnet.wordnet),
        ] {
            if let Some(p) = flag {
                *field = Some(p.clone());
            }
        }
        super::set_enum(&mut c.profile, &self.profile)?;
        c.require_model |= self.require_model;
        super::set_some(&mut c.shard, &self.shard);
        if self.no_embeddings {
            c.no_embeddings = true;
        }
        super::set(&mut c.engine, &self.engine);
        self.gates.apply(&mut c.fail_under)?;
        c.validate()?;
        Ok(c)
    }
}

/// Runs `text-eval`.
pub fn run(args: TextEvalArgs) -> anyhow::Result<u8> {
    let config = args.resolve()?;
    if args.settings.printed(&config)? {
        return Ok(EXIT_OK);
    }
    let Some(input) = &args.input else {
        return Err(InputError("text-eval needs INPUT".into()).into());
    };
    let (path, output, sem) = args.progress.run(|| execute(&config, input))?;
    if args.json {
        super::print_json(&output.summary, Some(&path))?;
    } else {
        outln!("{}", text_eval_table(&output.summary));
        if sem.source == SemanticSource::FallbackTfidf {
            outln!(
                "degraded: {}; for sentence embeddings run scripts/fetch-model (or --require-model to make this an error)",
                crate::jobs::text_eval::degraded_note(&sem)
            );
        }
        outln!("signature: {}", output.signature);
        outln!("run folder: {}", path.display());
    }
    args.gates
        .finish::<Config>(&config.fail_under, &output.summary, EXIT_OK)
}
