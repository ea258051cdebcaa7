//! `corpus-eval transcript FILE`: a transcript file of any supported format
//! as corpus-eval reads it: the plain text quotes are matched against (one
//! `Label: text` line per turn; spans are offsets into it), or with
//! `--json` its turns with their speakers and times.

use super::EXIT_OK;
use crate::citations::turns::{SpeakerConfig, Turns};
use crate::corpus::formats::{SpeakerMap, TimedTranscript};
use serde_json::{json, Value};
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

/// The JSON of one transcript: its turns as the speaker pattern finds them
/// in its plain text, each with the times of its text.
fn transcript_json(t: TimedTranscript) -> Value {
    let format = t.format.as_str();
    let id = t.id.clone();
    let (text, times) = t.plain();
    let turns = Turns::parse(&text, &SpeakerConfig::default());
    let turns: Vec<Value> = turns
        .turns
        .iter()
        .filter(|turn| !text[turn.text.clone()].trim().is_empty())
        .map(|turn| {
            let time = crate::corpus::formats::time_of(&times, turn.text.clone());
            json!({
                "speaker": turn.speaker,
                "start": time.and_then(|t| t.start),
                "end": time.and_then(|t| t.end),
                "text": text[turn.text.clone()].trim(),
            })
        })
        .collect();
    json!({"id": id, "format": format, "turns": turns})
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
        let mut all: Vec<Value> = transcripts.into_iter().map(transcript_json).collect();
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
