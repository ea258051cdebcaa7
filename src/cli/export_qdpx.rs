//! `corpus-eval export-qdpx RUN_FOLDER OUT.qdpx`: [`crate::jobs::export_qdpx`]
//! from the command line.

use super::EXIT_OK;
use std::path::PathBuf;

/// Arguments of `export-qdpx`.
#[derive(Debug, clap::Args)]
pub struct ExportQdpxArgs {
    /// The run folder of an evaluate or check-report run (it holds
    /// manifest.json and results.json).
    pub run_folder: PathBuf,
    /// The REFI-QDA project to write (`.qdpx`).
    pub out: PathBuf,
    /// Look for the run's transcripts here, by name, when they are not at
    /// their recorded path.
    #[arg(long, value_name = "DIR")]
    pub inputs: Option<PathBuf>,
    /// Print one JSON object on stdout: `out`, `sources`, `selections`,
    /// `unlocated`.
    #[arg(long)]
    pub json: bool,
}

/// Runs `export-qdpx`: prints what it wrote.
pub(super) fn run(args: ExportQdpxArgs) -> anyhow::Result<u8> {
    let done =
        crate::jobs::export_qdpx::export(&args.run_folder, &args.out, args.inputs.as_deref())?;
    if args.json {
        outln!(
            "{}",
            serde_json::json!({
                "out": done.out,
                "sources": done.sources,
                "selections": done.selections,
                "unlocated": done.unlocated,
            })
        );
    } else {
        let n =
            |k: usize, one: &str, many: &str| format!("{k} {}", if k == 1 { one } else { many });
        outln!(
            "wrote {}: {}, {} ({} without a span)",
            done.out.display(),
            n(done.sources, "source", "sources"),
            n(done.selections, "selection", "selections"),
            n(done.unlocated, "quote", "quotes")
        );
    }
    Ok(EXIT_OK)
}
