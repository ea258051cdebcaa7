//! `corpus-eval agreement`: Cohen, Fleiss, Krippendorff and Gwet between
//! raters, from one or more files joined on an id column.

use super::{InputError, EXIT_OK};
use crate::jobs::agreement::{execute, Config};
use crate::report::text::agreement_report;
use std::path::PathBuf;

/// Arguments of `agreement`. Each setting is a field of
/// [`crate::jobs::agreement::Config`]: `--config FILE` gives a whole
/// configuration, flags given on the command line override it.
#[derive(Debug, clap::Args)]
pub struct AgreementArgs {
    /// Ratings: CSV, TSV, a JSON array of objects or JSON Lines (by
    /// extension), or a run folder (evaluate's quotes.csv, judge-answers'
    /// items.csv); several files are joined on the id column.
    #[arg(required_unless_present = "print_config")]
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

/// Runs `agreement`.
pub fn run(args: AgreementArgs) -> anyhow::Result<u8> {
    args.gates.check()?;
    let config = args.settings.resolve()?;
    if args.settings.printed(&config)? {
        return Ok(EXIT_OK);
    }
    if args.files.is_empty() {
        return Err(InputError("agreement needs FILE".into()).into());
    }
    let (folder, result) = args.progress.run(|| execute(&config, &args.files))?;
    if args.json {
        super::print_json(&result, folder.as_deref())?;
    } else {
        outln!("{}", agreement_report(&result));
        if let Some(path) = &folder {
            outln!("run folder: {}", path.display());
        }
    }
    args.gates
        .finish::<Config>(&config.fail_under, &result, EXIT_OK)
}
