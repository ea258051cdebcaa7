//! `corpus-eval hotpot`: HotpotQA answer and citation metrics, simple or
//! official format, with a run folder and an HTML report.

use super::{InputError, EXIT_OK};
use crate::jobs::hotpot::{execute, Config};
use crate::jobs::JobConfig;
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
    /// Input format [default: auto].
    #[arg(long, value_parser = ["auto", "simple", "official"])]
    pub format: Option<String>,
    /// Print the averaged metrics with `run_folder` as one JSON object on
    /// stdout, nothing else there.
    #[arg(long)]
    pub json: bool,
    /// Parent folder of the run folder [default: reports].
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// The system's name in tables and comparisons (default: the predictions file's stem).
    #[arg(long = "name", value_name = "SYSTEM")]
    pub name: Option<String>,
    /// Do not draw hotpot_metrics.png (the HTML report then has no chart).
    #[arg(long)]
    pub no_plots: bool,
    /// Keep only the items whose id falls in shard I of N (FNV-1a of the
    /// id mod N, plus 1); join the shards with `corpus-eval merge`.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<crate::shard::Shard>,
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

impl HotpotArgs {
    /// The configuration: the file's (or the defaults), then the flags.
    pub fn resolve(&self) -> anyhow::Result<Config> {
        let mut c: Config = self.settings.base()?;
        super::set(&mut c.out, &self.out);
        super::set_enum(&mut c.format, &self.format)?;
        super::set_some(&mut c.shard, &self.shard);
        super::set_some(&mut c.name, &self.name);
        if self.no_plots {
            c.no_plots = true;
        }
        self.gates.apply(&mut c.fail_under)?;
        c.validate()?;
        Ok(c)
    }
}

/// Runs `hotpot`.
pub fn run(args: HotpotArgs) -> anyhow::Result<u8> {
    let config = args.resolve()?;
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
