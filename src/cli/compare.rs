//! `corpus-eval compare`: systems side by side, with paired bootstrap tests
//! of every difference.

use super::EXIT_OK;
use crate::compare::signature;
use crate::jobs::compare::{execute, Config};
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
pub fn run(args: CompareArgs) -> anyhow::Result<u8> {
    let mut config = args.settings.merged()?;
    if !args.systems.is_empty() {
        config.systems = args.systems.clone();
    }
    let Some(config) = args.settings.ready(config)? else {
        return Ok(EXIT_OK);
    };
    let alpha = args.alpha.unwrap_or(0.05);
    if !(alpha.is_finite() && alpha > 0.0 && alpha < 1.0) {
        return Err(super::InputError(format!(
            "--alpha must lie strictly between 0 and 1, got {}",
            crate::corpus::number_preview(alpha)
        ))
        .into());
    }
    let (path, comparison) = args.progress.run(|| execute(&config))?;
    let sig = signature(config.resamples, config.seed, config.cluster);
    if args.json {
        let v = crate::jobs::compare::comparison_json(&comparison, &sig);
        super::print_json(&v, Some(&path))?;
    } else {
        outln!("{}", crate::views::text::compare_tables(&comparison));
        outln!("signature: {sig}");
        outln!("run folder: {}", path.display());
    }
    if !args.fail_on_regression {
        return Ok(EXIT_OK);
    }
    let checks = crate::compare::regressions(&comparison, alpha);
    for (_, failure) in &checks {
        if let Some(f) = failure {
            errln!("regression: {f}");
        }
    }
    if let Some(path) = &args.junit {
        let xml = crate::gates::junit_xml("compare", &checks);
        crate::report::write_atomic(path, xml.as_bytes())?;
    }
    Ok(if checks.iter().any(|(_, f)| f.is_some()) {
        super::EXIT_GATE
    } else {
        EXIT_OK
    })
}
