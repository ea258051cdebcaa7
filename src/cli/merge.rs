//! `corpus-eval merge RUN_FOLDER... --out DIR`: [`crate::jobs::merge`] from
//! the command line.

use super::EXIT_OK;
use crate::jobs::merge::{merge, Request};
use std::path::PathBuf;

/// Arguments of `merge`.
#[derive(Debug, clap::Args)]
pub struct MergeArgs {
    /// The shards' run folders (from `--shard I/N` runs), in any order.
    #[arg(required = true, num_args = 1.., value_name = "RUN_FOLDER")]
    pub folders: Vec<PathBuf>,
    /// Parent folder of the merged run folder [default: reports].
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Look for inputs here, by file name, when they are not at their
    /// recorded paths.
    #[arg(long, value_name = "DIR")]
    pub inputs: Option<PathBuf>,
    /// Print one JSON object on stdout: `run_folder` and `shards`.
    #[arg(long)]
    pub json: bool,
    /// `--no-progress`.
    #[command(flatten)]
    pub progress: super::progress::ProgressArgs,
}

/// Runs `merge`: prints the merged run folder.
pub fn run(args: MergeArgs) -> anyhow::Result<u8> {
    let request = Request {
        folders: args.folders.clone(),
        out: args.out.unwrap_or_else(|| PathBuf::from("reports")),
        inputs: args.inputs,
    };
    let folder = args.progress.run(|| merge(&request))?;
    if args.json {
        let v = serde_json::json!({"shards": args.folders.len()});
        super::print_json(&v, Some(&folder))?;
    } else {
        outln!("merged {} shards", args.folders.len());
        outln!("run folder: {}", folder.display());
    }
    Ok(EXIT_OK)
}
