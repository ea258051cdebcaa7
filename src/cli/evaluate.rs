//! `corpus-eval evaluate`: the main job.

use super::{InputError, EXIT_OK};
use crate::jobs::evaluate::{execute_resolved, Config};
use crate::views::text::evaluate_summary;
use std::path::PathBuf;

/// Arguments of `evaluate`. Each setting is a field of
/// [`crate::jobs::evaluate::Config`]: `--config FILE` gives a whole
/// configuration, flags given on the command line override it.
#[derive(Debug, clap::Args)]
pub struct EvaluateArgs {
    /// Question file: {"qa_pairs": [...]} or a bare array.
    #[arg(required_unless_present = "print_config")]
    pub questions: Option<PathBuf>,
    /// Transcripts: a folder, one transcript file or a REFI-QDA project
    /// (the formats: `corpus-eval transcript --help`).
    #[arg(required_unless_present = "print_config", long_help = crate::corpus::formats::help())]
    pub transcripts: Option<PathBuf>,
    /// Settings, `--junit`, `--no-progress`, `--json`.
    #[command(flatten)]
    pub job: super::JobArgs<Config>,
}

/// Runs the main job.
pub(super) fn run(args: EvaluateArgs) -> anyhow::Result<u8> {
    let Some((config, resolved)) = args.job.resolved(Config::resolve)? else {
        return Ok(EXIT_OK);
    };
    let (Some(questions), Some(transcripts)) = (&args.questions, &args.transcripts) else {
        return Err(InputError("evaluate needs QUESTIONS and TRANSCRIPTS".into()).into());
    };
    let (path, summary) = args
        .job
        .progress
        .run(|| execute_resolved(&resolved, questions, transcripts))?;
    args.job
        .finish(&config.fail_under, Some(&path), &summary, || {
            evaluate_summary(&summary, config.match_level)
        })
}
