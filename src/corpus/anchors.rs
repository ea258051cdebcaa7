//! The format a transcript was read from, shared by the readers
//! ([`super::formats`]) and the transcript set; its turns' labels and time
//! anchors are the base layer's (`text::anchors`: the stages read them).

pub use crate::text::anchors::{time_of, CitedPlace, Location, QuoteTime, TimeAnchor, TurnLabel};

/// A transcript file's format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Format {
    /// Plain text (`.txt`).
    Text,
    /// Markdown (`.md`), read as text.
    Markdown,
    /// WebVTT captions (`.vtt`).
    WebVtt,
    /// SubRip captions (`.srt`).
    Srt,
    /// whisper / whisperX JSON segments.
    Whisper,
    /// A Word document (`.docx`).
    Docx,
    /// A text source of a REFI-QDA project (`.qdpx`).
    Qdpx,
    /// corpus-eval's JSON chunks (`page_content`, `metadata.FILE`).
    Chunks,
    /// AssemblyAI's transcript JSON (`utterances`).
    AssemblyAi,
    /// Rev.ai's transcript JSON (`monologues`).
    RevAi,
    /// AWS Transcribe's output JSON (`results.items`).
    Aws,
    /// Deepgram's response JSON (`results.utterances`).
    Deepgram,
    /// A JSON list of `{speaker, text, start, end}`.
    Utterances,
}

impl Format {
    /// The name shown in `corpus-eval transcript --json` (`txt`, `md`,
    /// `vtt`, `srt`, `whisper`, `docx`, `qdpx`, `chunks`).
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Text => "txt",
            Format::Markdown => "md",
            Format::WebVtt => "vtt",
            Format::Srt => "srt",
            Format::Whisper => "whisper",
            Format::Docx => "docx",
            Format::Qdpx => "qdpx",
            Format::Chunks => "chunks",
            Format::AssemblyAi => "assemblyai",
            Format::RevAi => "revai",
            Format::Aws => "aws",
            Format::Deepgram => "deepgram",
            Format::Utterances => "utterances",
        }
    }
}
