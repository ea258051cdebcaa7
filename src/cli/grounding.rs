//! `corpus-eval grounding`: relevance, completeness and hallucination of
//! RAG responses against their context, with a run folder.

use super::{InputError, EXIT_OK};
use crate::jobs::grounding::{execute, Config};
use std::path::PathBuf;

/// Arguments of `grounding`. Each setting is a field of
/// [`crate::jobs::grounding::Config`]: `--config FILE` gives a whole
/// configuration, flags given on the command line override it.
#[derive(Debug, clap::Args)]
pub struct GroundingArgs {
    /// Rows {"id", "query", "response", "context"} (context: a text or a
    /// list of texts): a JSON array, JSON Lines, .csv or .tsv.
    #[arg(required_unless_present = "print_config")]
    pub input: Option<PathBuf>,
    /// Settings, `--junit`, `--no-progress`, `--json`.
    #[command(flatten)]
    pub job: super::JobArgs<Config>,
}

/// Runs `grounding`.
pub fn run(args: GroundingArgs) -> anyhow::Result<u8> {
    let Some(config) = args.job.config()? else {
        return Ok(EXIT_OK);
    };
    let Some(input) = &args.input else {
        return Err(InputError("grounding needs INPUT".into()).into());
    };
    let (path, output) = args.job.progress.run(|| execute(&config, input))?;
    let summary = &output.summary;
    args.job
        .finish(&config.fail_under, Some(&path), summary, || {
            format!(
                "{}\nsignature: {}",
                grounding_table(summary),
                crate::grounding::signature()
            )
        })
}

/// `grounding`'s terminal table: the mean of each metric and n.
fn grounding_table(summary: &crate::jobs::grounding::Summary) -> String {
    let m = &summary.means;
    let rows: Vec<Vec<String>> = [
        ("relevance", m.relevance),
        ("completeness", m.completeness),
        ("hallucination", m.hallucination),
        ("claim_error", m.claim_error),
        ("drift_penalty", m.drift_penalty),
    ]
    .iter()
    .map(|(k, v)| vec![k.to_string(), format!("{:.4}", v + 0.0)])
    .chain(std::iter::once(vec![
        "n".to_string(),
        summary.n.to_string(),
    ]))
    .collect();
    crate::views::table::grid_table(&["metric", "mean"], &rows)
}
