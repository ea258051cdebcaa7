//! `corpus-eval text-eval`: the text evaluator over a row file, with a run
//! folder (results.tsv, results.json, summary.json, two charts, manifest).

use super::{InputError, EXIT_OK};
use crate::jobs::text_eval::{execute, summary_text, Config};
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
    /// Settings, `--junit`, `--no-progress`, `--json`.
    #[command(flatten)]
    pub job: super::JobArgs<Config>,
}

/// Runs `text-eval`.
pub(super) fn run(args: TextEvalArgs) -> anyhow::Result<u8> {
    let Some(config) = args.job.config()? else {
        return Ok(EXIT_OK);
    };
    let Some(input) = &args.input else {
        return Err(InputError("text-eval needs INPUT".into()).into());
    };
    let (path, output, sem) = args.job.progress.run(|| execute(&config, input))?;
    args.job
        .finish(&config.fail_under, Some(&path), &output.summary, || {
            summary_text(&output, &sem)
        })
}
