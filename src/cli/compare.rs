//! `corpus-eval compare`: systems side by side, with paired bootstrap tests
//! of every difference.

use super::EXIT_OK;
use crate::compare::signature;
use crate::jobs::compare::{execute, Config, MAX_RESAMPLES, MIN_RESAMPLES};
use crate::jobs::JobConfig;
use crate::report::text::compare_tables;
use std::path::PathBuf;

/// Arguments of `compare`. Each setting is a field of
/// [`crate::jobs::compare::Config`]: `--config FILE` gives a whole
/// configuration, flags given on the command line override it.
#[derive(Debug, clap::Args)]
pub struct CompareArgs {
    /// Systems as NAME=PATH, PATH a hotpot run folder, a metrics JSON or a per_example.json.
    #[arg(
        required_unless_present_any = ["print_config", "config"],
        num_args = 2..,
        value_name = "NAME=RUN_OR_METRICS_JSON"
    )]
    pub systems: Vec<String>,
    /// Parent folder of the run folder [default: reports].
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Bootstrap resamples of the paired tests (100 to 1,000,000) [default: 10000].
    #[arg(long)]
    pub resamples: Option<usize>,
    /// Seed of the paired bootstrap [default: 42].
    #[arg(long)]
    pub seed: Option<u64>,
    /// `--config FILE` (which may also list `systems`), `--print-config`.
    #[command(flatten)]
    pub settings: super::ConfigArgs,
}

impl CompareArgs {
    /// The configuration: the file's (or the defaults), then the flags.
    pub fn resolve(&self) -> anyhow::Result<Config> {
        let mut c: Config = self.settings.base()?;
        super::set(&mut c.out, &self.out);
        if !self.systems.is_empty() {
            c.systems = self.systems.clone();
        }
        super::set(&mut c.resamples, &self.resamples);
        let (r, lo, hi) = (c.resamples, MIN_RESAMPLES, MAX_RESAMPLES);
        crate::jobs::check_in("--resamples", r as f64, lo as f64, hi as f64)?;
        super::set(&mut c.seed, &self.seed);
        if !self.settings.print_config {
            c.validate()?;
        }
        Ok(c)
    }
}

/// Runs `compare`.
pub fn run(args: CompareArgs) -> anyhow::Result<u8> {
    let config = args.resolve()?;
    if args.settings.printed(&config)? {
        return Ok(EXIT_OK);
    }
    let (path, comparison) = execute(&config)?;
    outln!("{}", compare_tables(&comparison));
    outln!("signature: {}", signature(config.resamples, config.seed));
    outln!("run folder: {}", path.display());
    Ok(EXIT_OK)
}
