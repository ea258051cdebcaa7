//! `corpus-eval lexical`: ROUGE, BLEU, chrF and SQuAD EM/F1 equal to the
//! reference libraries (rouge-score, sacrebleu, the official SQuAD scripts).

use super::{InputError, EXIT_OK};
use crate::jobs::lexical::{execute, Config};
use crate::report::text::lexical_report;
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
    /// Print one JSON object on stdout (with `run_folder` when one is
    /// written), nothing else there.
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

/// Runs `lexical`.
pub fn run(args: LexicalArgs) -> anyhow::Result<u8> {
    args.gates.check()?;
    let config = args.settings.resolve()?;
    if args.settings.printed(&config)? {
        return Ok(EXIT_OK);
    }
    if args.files.is_empty() {
        return Err(InputError("lexical needs INPUT".into()).into());
    }
    let (folder, output) = args.progress.run(|| execute(&config, &args.files))?;
    if args.json {
        super::print_json(&output.summary, folder.as_deref())?;
    } else {
        outln!("{}", lexical_report(&output.summary));
        if let Some(path) = &folder {
            outln!("run folder: {}", path.display());
        }
    }
    args.gates
        .finish::<Config>(&config.fail_under, &output.summary, EXIT_OK)
}
