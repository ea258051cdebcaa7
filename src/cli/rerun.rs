//! `corpus-eval rerun RUN_FOLDER`: [`crate::jobs::rerun`] from the command
//! line.

use super::{EXIT_OK, EXIT_RUNTIME};
use crate::jobs::rerun::{rerun, Request};
use std::path::PathBuf;

/// Arguments of `rerun`.
#[derive(Debug, clap::Args)]
pub struct RerunArgs {
    /// The run folder to reproduce (it holds manifest.json).
    pub run_folder: PathBuf,
    /// Parent folder of the new run folder [default: the original's parent].
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Look for inputs here, by file name, when they are not at their
    /// recorded paths.
    #[arg(long, value_name = "DIR")]
    pub inputs: Option<PathBuf>,
}

/// Runs `rerun`: prints `identical NAME` or `different NAME` per output;
/// exit 0 when every output is identical, 1 otherwise.
pub fn run(args: RerunArgs) -> anyhow::Result<u8> {
    let outcome = rerun(&Request {
        run_folder: args.run_folder,
        out: args.out,
        inputs: args.inputs,
    })?;
    for f in &outcome.files {
        let verdict = if f.identical {
            "identical"
        } else {
            "different"
        };
        outln!("{verdict} {}", f.name);
    }
    outln!("rerun folder: {}", outcome.folder.display());
    Ok(if outcome.identical() {
        EXIT_OK
    } else {
        EXIT_RUNTIME
    })
}
