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
pub fn run(args: RerunArgs) -> anyhow::Result<u8> {
    let request = Request {
        run_folder: args.run_folder,
        out: args.out,
        inputs: args.inputs,
    };
    let outcome = args.progress.run(|| rerun(&request))?;
    if args.json {
        let v = serde_json::json!({
            "identical": outcome.identical(),
            "rerun_folder": outcome.folder.display().to_string(),
            "files": outcome.files.iter().map(|f| serde_json::json!({"name": f.name, "identical": f.identical})).collect::<Vec<_>>(),
        });
        outln!("{v}");
        return Ok(if outcome.identical() {
            EXIT_OK
        } else {
            EXIT_RUNTIME
        });
    }
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
