//! `corpus-eval transcript FILE`: [`crate::jobs::transcript`] from the
//! command line: the plain text quotes are matched against (one
//! `Label: text` line per turn; spans are offsets into it), or with
//! `--json` the turns with their speakers and times.

use super::EXIT_OK;
use crate::jobs::transcript::{read, Config};
use crate::views::text::{transcripts_json, transcripts_text};
use std::path::PathBuf;

/// Arguments of `transcript`.
#[derive(Debug, clap::Args)]
pub struct TranscriptArgs {
    /// A transcript file, a REFI-QDA .qdpx project or a folder (the
    /// formats: --help).
    #[arg(long_help = crate::corpus::formats::help())]
    pub file: PathBuf,
    /// Print JSON: {"id", "format", "labels": {"recognised", "turns"},
    /// "turns": [{"speaker", "role", "interviewer", "uncertain", "start",
    /// "end", "text"}]} (times in seconds or null; an array when the input
    /// holds several transcripts).
    #[arg(long)]
    pub json: bool,
    /// The reading options: `--speaker-pattern`, `--interviewer-labels`,
    /// `--speaker-map`, `--speaker-aliases`, `--allow-external-sources`.
    #[command(flatten)]
    pub settings: super::flags::Flags<Config>,
}

/// Prints the transcripts of `args.file`.
pub(super) fn run(args: TranscriptArgs) -> anyhow::Result<u8> {
    let (config, resolved) = args.settings.resolved(Config::resolve)?;
    let loaded = read(&config, &resolved, &args.file)?;
    for note in &loaded.notes {
        errln!("note: {}", crate::secrets::scrub(note));
    }
    let transcripts = loaded.data;
    if args.json {
        let v = transcripts_json(transcripts, &resolved.speakers);
        outln!("{}", serde_json::to_string_pretty(&v)?);
    } else if !transcripts.is_empty() {
        outln!("{}", transcripts_text(&transcripts));
    }
    Ok(EXIT_OK)
}
