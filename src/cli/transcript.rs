//! `corpus-eval transcript FILE`: a transcript file of any supported format
//! as corpus-eval reads it: the plain text quotes are matched against (one
//! `Label: text` line per turn; spans are offsets into it), or with
//! `--json` its turns with their speakers and times.

use super::EXIT_OK;
use crate::corpus::formats::SpeakerMap;
use serde_json::Value;
use std::path::PathBuf;

/// Arguments of `transcript`.
#[derive(Debug, clap::Args)]
pub struct TranscriptArgs {
    /// A transcript file (.txt, .md, .vtt, .srt, whisper .json, .docx,
    /// corpus-eval's JSON chunks), a REFI-QDA .qdpx project or a folder.
    pub file: PathBuf,
    /// Print JSON: {"id", "format", "turns": [{"speaker", "start", "end",
    /// "text"}]} (times in seconds or null; an array when the input holds
    /// several transcripts).
    #[arg(long)]
    pub json: bool,
    /// Names of diarized speakers: `SPEAKER_00=Interviewer,...` or a CSV
    /// file of `label,name` rows.
    #[arg(long, value_name = "MAP|FILE")]
    pub speaker_map: Option<String>,
}

/// Prints the transcripts of `args.file`.
pub fn run(args: TranscriptArgs) -> anyhow::Result<u8> {
    let speakers = match &args.speaker_map {
        Some(spec) => {
            SpeakerMap::parse(spec).map_err(|message| crate::jobs::ConfigError::Invalid {
                field: "--speaker-map".into(),
                message,
            })?
        }
        None => SpeakerMap::default(),
    };
    let transcripts = crate::corpus::Loader::new()
        .speakers(speakers)
        .timed_transcripts(&args.file)?;
    if args.json {
        let mut all: Vec<Value> = transcripts
            .into_iter()
            .map(crate::views::text::transcript_json)
            .collect();
        let v = if all.len() == 1 {
            all.remove(0)
        } else {
            Value::Array(all)
        };
        outln!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(EXIT_OK);
    }
    let several = transcripts.len() > 1;
    for (i, t) in transcripts.into_iter().enumerate() {
        if several {
            if i > 0 {
                outln!();
            }
            outln!("==> {} <==", t.id);
        }
        outln!("{}", t.plain().0);
    }
    Ok(EXIT_OK)
}
