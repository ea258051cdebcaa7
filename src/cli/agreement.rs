//! `corpus-eval agreement`: Cohen, Fleiss, Krippendorff and Gwet between
//! raters, from one or more files joined on an id column.

use super::{InputError, EXIT_OK};
use crate::jobs::agreement::{execute, Config};
use crate::views::text::agreement_report;
use std::path::PathBuf;

/// Arguments of `agreement`. Each setting is a field of
/// [`crate::jobs::agreement::Config`]: `--config FILE` gives a whole
/// configuration, flags given on the command line override it.
#[derive(Debug, clap::Args)]
pub struct AgreementArgs {
    /// Ratings: CSV, TSV, a JSON array of objects or JSON Lines (by
    /// extension), or a run folder (evaluate's quotes.csv, judge-answers'
    /// items.csv); several files are joined on the id column. With
    /// --spans: A.qdpx [B.qdpx], or RUN_FOLDER CODED.qdpx.
    #[arg(required_unless_present = "print_config")]
    pub files: Vec<PathBuf>,
    /// Settings, `--junit`, `--no-progress`, `--json`.
    #[command(flatten)]
    pub job: super::JobArgs<Config>,
}

/// Runs `agreement`.
pub(super) fn run(args: AgreementArgs) -> anyhow::Result<u8> {
    let Some(config) = args.job.config()? else {
        return Ok(EXIT_OK);
    };
    if args.files.is_empty() {
        return Err(InputError("agreement needs FILE".into()).into());
    }
    if config.spans {
        let (folder, result) = args
            .job
            .progress
            .run(|| crate::jobs::span_agreement::execute(&config, &args.files))?;
        return args
            .job
            .finish(&config.fail_under, folder.as_deref(), &result, || {
                crate::views::text::span_agreement_report(&result)
            });
    }
    let (folder, result) = args.job.progress.run(|| execute(&config, &args.files))?;
    args.job
        .finish(&config.fail_under, folder.as_deref(), &result, || {
            agreement_report(&result)
        })
}
