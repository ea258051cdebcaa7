//! `corpus-eval hotpot`: HotpotQA answer and citation metrics, simple or
//! official format, with a run folder and an HTML report.

use super::{InputError, EXIT_OK};
use crate::jobs::hotpot::{execute, Config};
use crate::views::text::hotpot_summary;
use serde_json::Value;
use std::path::PathBuf;

/// Arguments of `hotpot`. Each setting is a field of
/// [`crate::jobs::hotpot::Config`]: `--config FILE` gives a whole
/// configuration, flags given on the command line override it.
#[derive(Debug, clap::Args)]
pub struct HotpotArgs {
    /// Predictions: a simple-format array or an official {"answer", "sp"} object.
    #[arg(required_unless_present = "print_config")]
    pub predictions: Option<PathBuf>,
    /// Gold: a simple-format array or the HotpotQA JSON.
    #[arg(required_unless_present = "print_config")]
    pub gold: Option<PathBuf>,
    /// Settings, `--junit`, `--no-progress`, `--json`.
    #[command(flatten)]
    pub job: super::JobArgs<Config>,
}

/// Runs `hotpot`.
pub(super) fn run(args: HotpotArgs) -> anyhow::Result<u8> {
    let Some(config) = args.job.config()? else {
        return Ok(EXIT_OK);
    };
    let (Some(predictions), Some(gold)) = (&args.predictions, &args.gold) else {
        return Err(InputError("hotpot needs PREDICTIONS and GOLD".into()).into());
    };
    let (path, eval, system) = args
        .job
        .progress
        .run(|| execute(&config, predictions, gold))?;
    let averages = Value::Object(eval.averages_json());
    args.job
        .finish(&config.fail_under, Some(&path), &averages, || {
            hotpot_summary(&eval, &system)
        })
}
