//! `corpus-eval rerun RUN_FOLDER`: [`crate::jobs::rerun`] from the command
//! line.

use super::{EXIT_OK, EXIT_RUNTIME};
use crate::jobs::rerun::{rerun, Config, Request};
use std::path::PathBuf;

/// Arguments of `rerun`.
#[derive(Debug, clap::Args)]
pub struct RerunArgs {
    /// The run folder to reproduce (it holds manifest.json).
    pub run_folder: PathBuf,
    /// `--out`, `--inputs`.
    #[command(flatten)]
    pub settings: super::flags::Flags<Config>,
    /// Print one JSON object on stdout: `identical`, `rerun_folder` and
    /// `files` ({name, identical}).
    #[arg(long)]
    pub json: bool,
    /// `--no-progress`.
    #[command(flatten)]
    pub progress: super::progress::ProgressArgs,
}

/// Runs `rerun`: prints `identical NAME` or `different NAME` per output;
/// exit 0 when every output is identical, 1 otherwise.
pub(super) fn run(args: RerunArgs) -> anyhow::Result<u8> {
    let request = Request::new(args.run_folder, args.settings.checked()?);
    let outcome = args.progress.run(|| rerun(&request))?;
    match args.json {
        true => outln!("{}", outcome.to_json()),
        false => outln!("{}", outcome.lines()),
    }
    Ok(if outcome.identical() {
        EXIT_OK
    } else {
        EXIT_RUNTIME
    })
}
