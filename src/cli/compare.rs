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
    /// Systems as NAME=PATH: run folders of one command (evaluate,
    /// judge-answers, text-eval, grounding, rag run, lexical, hotpot), or
    /// hotpot metrics JSON / per_example.json files.
    #[arg(
        required_unless_present_any = ["print_config", "config"],
        num_args = 2..,
        value_name = "NAME=RUN_FOLDER"
    )]
    pub systems: Vec<String>,
    /// Compare only these metrics (comma-separated; repeatable) [default: every metric the runs share].
    #[arg(long, value_name = "M,M,...", value_delimiter = ',')]
    pub metric: Option<Vec<String>>,
    /// Resample whole transcripts instead of items (evaluate and rag runs:
    /// answers from one interview are not independent) [default: none].
    #[arg(long, value_parser = ["none", "source"])]
    pub cluster: Option<String>,
    /// Print the comparison as one JSON object on stdout (nothing else there).
    #[arg(long)]
    pub json: bool,
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
    /// `--no-progress`.
    #[command(flatten)]
    pub progress: super::progress::ProgressArgs,
}

impl CompareArgs {
    /// The configuration: the file's (or the defaults), then the flags.
    pub fn resolve(&self) -> anyhow::Result<Config> {
        let mut c: Config = self.settings.base()?;
        super::set(&mut c.out, &self.out);
        if !self.systems.is_empty() {
            c.systems = self.systems.clone();
        }
        super::set(&mut c.metric, &self.metric);
        super::set_enum(&mut c.cluster, &self.cluster)?;
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
    let (path, comparison) = args.progress.run(|| execute(&config))?;
    let sig = signature(config.resamples, config.seed, config.cluster);
    if args.json {
        let v = crate::jobs::compare::comparison_json(&comparison, &sig);
        super::print_json(&v, Some(&path))?;
        return Ok(EXIT_OK);
    }
    outln!("{}", compare_tables(&comparison));
    outln!("signature: {sig}");
    outln!("run folder: {}", path.display());
    Ok(EXIT_OK)
}
