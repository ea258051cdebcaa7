//! `corpus-eval hotpot`: HotpotQA answer and citation metrics, simple or
//! official format, with a run folder and an HTML report.

use super::{InputError, EXIT_OK};
use crate::jobs::hotpot::{execute, Config};
use crate::report::text::hotpot_summary;
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
    /// Print the averaged metrics with `run_folder` as one JSON object on
    /// stdout, nothing else there.
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

/// Runs `hotpot`.
pub fn run(args: HotpotArgs) -> anyhow::Result<u8> {
    args.gates.check()?;
    let config = args.settings.resolve()?;
    if args.settings.printed(&config)? {
        return Ok(EXIT_OK);
    }
    let (Some(predictions), Some(gold)) = (&args.predictions, &args.gold) else {
        return Err(InputError("hotpot needs PREDICTIONS and GOLD".into()).into());
    };
    let (path, eval, system) = args.progress.run(|| execute(&config, predictions, gold))?;
    let averages = Value::Object(eval.averages_json());
    if args.json {
        super::print_json(&averages, Some(&path))?;
    } else {
        outln!("{}", hotpot_summary(&eval, &system));
        outln!("run folder: {}", path.display());
    }
    args.gates
        .finish::<Config>(&config.fail_under, &averages, EXIT_OK)
}
