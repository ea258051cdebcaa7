//! `corpus-eval judge-answers` and `corpus-eval threshold`: flags into
//! [`crate::jobs::judge_answers`] configurations, and the terminal output.

use super::{ConfigArgs, InputError, EXIT_OK, EXIT_RUNTIME};
use crate::jobs::judge_answers::{
    estimate_json, estimate_line, execute_threshold_run, report_progress, threshold_signature,
    write_run, Config, Context, ThresholdConfig,
};
use crate::views::text::judge_summary;
use std::path::PathBuf;
use std::time::SystemTime;

/// Arguments of `judge-answers`. Each setting is a field of
/// [`crate::jobs::judge_answers::Config`]: `--config FILE` gives a whole
/// configuration, flags given on the command line override it.
#[derive(Debug, clap::Args)]
pub struct JudgeAnswersArgs {
    /// Items: JSON array or JSONL of {"id"?, "question"?, "answer", "ground_truth", "label"? (0/1), "system"?}.
    #[arg(required_unless_present = "print_config")]
    pub input: Option<PathBuf>,
    /// Print the judge's cost estimate and stop (no calls, no run folder).
    #[arg(long)]
    pub estimate_cost: bool,
    /// Settings, `--junit`, `--no-progress`, `--json`.
    #[command(flatten)]
    pub job: super::JobArgs<Config>,
}

/// Arguments of `threshold`.
#[derive(Debug, clap::Args)]
pub struct ThresholdArgs {
    /// Items: JSON array or JSONL of {"answer", "ground_truth", "label"? (0/1), ...}.
    #[arg(required_unless_present = "print_config")]
    pub input: Option<PathBuf>,
    /// Print one JSON object on stdout (nothing else there).
    #[arg(long)]
    pub json: bool,
    /// `--config FILE`, `--print-config` and the settings' flags.
    #[command(flatten)]
    pub settings: ConfigArgs<ThresholdConfig>,
    /// `--no-progress`.
    #[command(flatten)]
    pub progress: super::progress::ProgressArgs,
}

/// Runs `threshold`: prints the grid and, last, `threshold: 0.60` (or with
/// `--json` one JSON object).
pub(super) fn run_threshold(args: ThresholdArgs) -> anyhow::Result<u8> {
    let Some(c) = args.settings.config()? else {
        return Ok(EXIT_OK);
    };
    let Some(input) = &args.input else {
        return Err(InputError("threshold needs INPUT".into()).into());
    };
    let (folder, out, signature) = args.progress.run(|| execute_threshold_run(&c, input))?;
    let anchors = c.anchors == crate::jobs::judge_answers::Anchors::On;
    if args.json {
        let full = threshold_signature(&out, anchors, &signature);
        super::print_json(&out.to_json(anchors, &full), folder.as_deref())?;
    } else {
        if let Some(path) = &folder {
            errln!("run folder: {}", path.display());
        }
        outln!("{}", out.text(anchors, &signature));
    }
    Ok(EXIT_OK)
}

/// Runs `judge-answers`.
pub(super) fn run(args: JudgeAnswersArgs) -> anyhow::Result<u8> {
    let started = SystemTime::now();
    let Some(config) = args.job.config()? else {
        return Ok(EXIT_OK);
    };
    let Some(input) = &args.input else {
        return Err(InputError("judge-answers needs INPUT".into()).into());
    };
    let bytes = crate::jobs::read_input(input)?;
    let context = Context::load(&config, input)?;
    // Embedding (semantic methods) reports its progress too.
    let plan = args.job.progress.run(|| context.plan(&config))?;
    let estimate = plan.estimate()?;
    let line = estimate_line(estimate.as_ref(), config.method);
    match (args.estimate_cost, args.job.json) {
        (true, true) => super::print_json(&estimate_json(estimate, &config), None)?,
        (true, false) => outln!("{line}"),
        _ if estimate.is_some() => errln!("{line}"),
        _ => {}
    }
    if args.estimate_cost {
        return Ok(EXIT_OK);
    }
    let output = args.job.progress.run(|| plan.run(&report_progress))?;
    let path = write_run(&config, (input, &bytes), &context, &output, started)?;
    let summary = &output.summary;
    args.job
        .print(Some(&path), summary, || judge_summary(summary))?;
    if summary.judge.failed > 0 {
        errln!(
            "error: {} judge verdicts failed (see judge_status/judge_error in scores.jsonl); rerun to retry them: verdicts already given are cached",
            summary.judge.failed
        );
        return Ok(EXIT_RUNTIME);
    }
    args.job.gates.finish::<Config>(&config.fail_under, summary)
}
