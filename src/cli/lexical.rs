//! `corpus-eval lexical`: ROUGE, BLEU, chrF and SQuAD EM/F1 equal to the
//! reference libraries (rouge-score, sacrebleu, the official SQuAD scripts).

use super::{InputError, EXIT_OK};
use crate::jobs::lexical::{execute, Config};
use crate::views::text::lexical_report;
use std::path::PathBuf;

/// Arguments of `lexical`. Each setting is a field of
/// [`crate::jobs::lexical::Config`]: `--config FILE` gives a whole
/// configuration, flags given on the command line override it.
#[derive(Debug, clap::Args)]
pub struct LexicalArgs {
    /// INPUT: a JSON, JSON Lines, CSV or TSV file of items with
    /// `prediction` and `reference` (a text) or `references` (a list), or a
    /// text-eval / judge-answers run folder; or a predictions text file
    /// followed by one or more REFERENCES files, one segment per line.
    #[arg(
        required_unless_present = "print_config",
        value_name = "INPUT [REFERENCES...]"
    )]
    pub files: Vec<PathBuf>,
    /// Settings, `--junit`, `--no-progress`, `--json`.
    #[command(flatten)]
    pub job: super::JobArgs<Config>,
}

/// Runs `lexical`.
pub(super) fn run(args: LexicalArgs) -> anyhow::Result<u8> {
    let Some(config) = args.job.config()? else {
        return Ok(EXIT_OK);
    };
    if args.files.is_empty() {
        return Err(InputError("lexical needs INPUT".into()).into());
    }
    let (folder, output) = args.job.progress.run(|| execute(&config, &args.files))?;
    args.job.finish(
        &config.fail_under,
        folder.as_deref(),
        &output.summary,
        || lexical_report(&output.summary),
    )
}
