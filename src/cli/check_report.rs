//! `corpus-eval check-report`: the quotes of a written report, found,
//! attributed and checked against the transcripts.

use super::{InputError, EXIT_OK};
use crate::jobs::check_report::{execute_resolved, gate_failures, Config};
use crate::jobs::{conclude, JobConfig};
use crate::views::text::check_report_summary;
use std::path::PathBuf;

/// Arguments of `check-report`. Each setting is a field of
/// [`crate::jobs::check_report::Config`]: `--config FILE` gives a whole
/// configuration, flags given on the command line override it.
#[derive(Debug, clap::Args)]
pub struct CheckReportArgs {
    /// The report: Markdown, plain text or a Word .docx file.
    #[arg(required_unless_present = "print_config")]
    pub report: Option<PathBuf>,
    /// Transcripts: a folder, one transcript file, a REFI-QDA .qdpx
    /// project, or corpus-eval's JSON chunks (as `evaluate` takes them).
    #[arg(required_unless_present = "print_config")]
    pub transcripts: Option<PathBuf>,
    /// `--config FILE`, `--print-config` and the settings' flags.
    #[command(flatten)]
    pub settings: super::ConfigArgs<Config>,
    /// Print the summary (summary.json with `run_folder`) as one JSON
    /// object on stdout, nothing else there.
    #[arg(long)]
    pub json: bool,
}

/// Runs `check-report`.
pub(super) fn run(args: CheckReportArgs) -> anyhow::Result<u8> {
    let Some((config, matching)) = args.settings.resolved(Config::resolve)? else {
        return Ok(EXIT_OK);
    };
    let (Some(report), Some(transcripts)) = (&args.report, &args.transcripts) else {
        return Err(InputError("check-report needs REPORT and TRANSCRIPTS".into()).into());
    };
    let (path, output) = execute_resolved(&config, &matching, report, transcripts)?;
    super::print_run(args.json, Some(&path), &output.summary, || {
        check_report_summary(&output.summary, &output.quotes)
    })?;
    let failed = gate_failures(&config, report, &output.quotes);
    Ok(conclude(
        Config::COMMAND,
        "quality gate failed",
        &failed,
        None,
    )?)
}
