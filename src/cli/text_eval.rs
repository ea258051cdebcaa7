//! `corpus-eval text-eval`: the text evaluator over a row file, with a run
//! folder (results.tsv, results.json, summary.json, two charts, manifest).

use super::{InputError, EXIT_OK};
use crate::jobs::text_eval::{execute, Config};
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
    /// Print summary.json with `run_folder` as one JSON object on stdout,
    /// nothing else there.
    #[arg(long)]
    pub json: bool,
    /// `--fail-under`, `--junit`.
    #[command(flatten)]
    pub gates: super::GateArgs,
    /// `--config FILE`, `--print-config` and the settings' flags.
    #[command(flatten)]
    pub settings: super::ConfigArgs<Config>,
    /// `--no-progress`.
    #[command(flatten)]
    pub progress: super::progress::ProgressArgs,
}

/// Runs `text-eval`.
pub fn run(args: TextEvalArgs) -> anyhow::Result<u8> {
    args.gates.check()?;
    let config = args.settings.resolve()?;
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
