//! `corpus-eval grounding`: relevance, completeness and hallucination of
//! RAG responses against their context, with a run folder.

use super::{InputError, EXIT_OK};
use crate::jobs::grounding::{execute, Config};
use std::path::PathBuf;

/// Arguments of `grounding`. Each setting is a field of
/// [`crate::jobs::grounding::Config`]: `--config FILE` gives a whole
/// configuration, flags given on the command line override it.
#[derive(Debug, clap::Args)]
pub struct GroundingArgs {
    /// Rows {"id", "query", "response", "context"} (context: a text or a
    /// list of texts): a JSON array, JSON Lines, .csv or .tsv.
    #[arg(required_unless_present = "print_config")]
    pub input: Option<PathBuf>,
    /// Settings, `--junit`, `--no-progress`, `--json`.
    #[command(flatten)]
    pub job: super::JobArgs<Config>,
}

/// Runs `grounding`.
pub(super) fn run(args: GroundingArgs) -> anyhow::Result<u8> {
    let Some(config) = args.job.config()? else {
        return Ok(EXIT_OK);
    };
    let Some(input) = &args.input else {
        return Err(InputError("grounding needs INPUT".into()).into());
    };
    let (path, output) = args.job.progress.run(|| execute(&config, input))?;
    let summary = &output.summary;
    args.job
        .finish(&config.fail_under, Some(&path), summary, || {
            crate::views::text::grounding_table(summary)
        })
}
