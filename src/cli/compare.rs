//! `corpus-eval compare`: systems side by side, with paired bootstrap tests
//! of every difference.

use super::EXIT_OK;
use crate::compare::signature;
use crate::jobs::compare::{execute, Config};
use crate::jobs::conclude;
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
    /// Print the comparison as one JSON object on stdout (nothing else there).
    #[arg(long)]
    pub json: bool,
    /// Quality gate: exit 3, once the comparison is written, when a system
    /// is worse than the first one (the baseline) on a compared metric
    /// with a Holm-adjusted p below `--alpha`.
    #[arg(long)]
    pub fail_on_regression: bool,
    /// Significance level of `--fail-on-regression` (0 < alpha < 1) [default: 0.05].
    #[arg(long, requires = "fail_on_regression")]
    pub alpha: Option<f64>,
    /// Write the regression checks as a JUnit XML report (one test case
    /// per system and metric) to FILE.
    #[arg(long, value_name = "FILE", requires = "fail_on_regression")]
    pub junit: Option<PathBuf>,
    /// `--config FILE` (which may also list `systems`), `--print-config`.
    #[command(flatten)]
    pub settings: super::ConfigArgs<Config>,
    /// `--no-progress`.
    #[command(flatten)]
    pub progress: super::progress::ProgressArgs,
}

/// Runs `compare`.
pub(super) fn run(args: CompareArgs) -> anyhow::Result<u8> {
    let mut config = args.settings.merged()?;
    if !args.systems.is_empty() {
        config.systems = args.systems.clone();
    }
    let Some(config) = args.settings.ready(config)? else {
        return Ok(EXIT_OK);
    };
    let alpha = crate::jobs::compare::alpha(args.alpha)?;
    let (path, comparison) = args.progress.run(|| execute(&config))?;
    let sig = signature(config.resamples, config.seed, config.cluster);
    let v = crate::jobs::compare::comparison_json(&comparison, &sig);
    super::print_run(args.json, Some(&path), &v, || {
        let tables = crate::views::text::compare_tables(&comparison);
        format!("{tables}\nsignature: {sig}")
    })?;
    if !args.fail_on_regression {
        return Ok(EXIT_OK);
    }
    let checks = crate::compare::regressions(&comparison, alpha);
    Ok(conclude(
        "compare",
        "regression",
        &checks,
        args.junit.as_deref(),
    )?)
}
