//! `corpus-eval merge RUN_FOLDER... --out DIR`: [`crate::jobs::merge`] from
//! the command line.

use super::EXIT_OK;
use crate::jobs::merge::{merge, Config, Request};
use std::path::PathBuf;

/// Arguments of `merge`.
#[derive(Debug, clap::Args)]
pub struct MergeArgs {
    /// The shards' run folders (from `--shard I/N` runs), in any order.
    #[arg(required = true, num_args = 1.., value_name = "RUN_FOLDER")]
    pub folders: Vec<PathBuf>,
    /// `--out`, `--inputs`.
    #[command(flatten)]
    pub settings: super::flags::Flags<Config>,
    /// Print one JSON object on stdout: `run_folder` and `shards`.
    #[arg(long)]
    pub json: bool,
    /// `--no-progress`.
    #[command(flatten)]
    pub progress: super::progress::ProgressArgs,
}

/// Runs `merge`: prints the merged run folder.
pub(super) fn run(args: MergeArgs) -> anyhow::Result<u8> {
    let shards = args.folders.len();
    let request = Request::new(args.folders, args.settings.checked()?);
    let folder = args.progress.run(|| merge(&request))?;
    let v = serde_json::json!({ "shards": shards });
    super::print_run(args.json, Some(&folder), &v, || {
        format!("merged {shards} shards")
    })?;
    Ok(EXIT_OK)
}
