//! whisper and whisperX JSON: `{"segments": [{"start", "end", "text",
//! "speaker"?}]}` (whisperX adds the diarized `speaker`, e.g. `SPEAKER_00`,
//! which a [`SpeakerMap`] names). Consecutive segments of one speaker are
//! one turn, joined with a space.

use super::{SpeakerMap, TimedTurn};
use crate::corpus::CorpusError;
use serde_json::Value;
use std::io::Read;
use std::path::Path;

/// Whether a `.json` file is whisper output: an object whose first key is
/// not `"documents"` (corpus-eval's chunks start with `[` or
/// `{"documents"`) and that holds `"segments"` (openai-whisper writes the
/// whole `"text"` first, so the whole file is looked at).
pub(crate) fn looks_like_whisper(path: &Path) -> bool {
    // Only a regular file is looked into (a FIFO is not waited on).
    let Ok((mut f, _)) = crate::corpus::input::open_regular(path) else {
        return false;
    };
    let mut head = vec![0u8; 4096];
    let n = f.read(&mut head).unwrap_or(0);
    if !whisper_head(&String::from_utf8_lossy(&head[..n])) {
        return false;
    }
    crate::corpus::input::read_bytes(path)
        .is_ok_and(|bytes| memchr::memmem::find(&bytes, b"\"segments\"").is_some())
}

/// [`looks_like_whisper`] of a file's text already read.
pub(crate) fn is_whisper_text(text: &str) -> bool {
    whisper_head(text) && memchr::memmem::find(text.as_bytes(), b"\"segments\"").is_some()
}

/// A document's start as whisper's: an object that is not `{"documents"`.
fn whisper_head(head: &str) -> bool {
    let head = head.trim_start_matches('\u{feff}').trim_start();
    match head.strip_prefix('{') {
        Some(rest) => !rest.trim_start().starts_with("\"documents\""),
        None => false,
    }
}

/// The turns of a whisper JSON document.
pub(crate) fn parse(
    path: &Path,
    text: &str,
    speakers: &SpeakerMap,
) -> Result<Vec<TimedTurn>, CorpusError> {
    let doc = crate::corpus::strict_json::parse_str(text.trim_start_matches('\u{feff}'))
        .map_err(|e| crate::corpus::json_error(path, &e))?;
    let err = |record: String, field: &str, message: &str| CorpusError::Record {
        path: path.to_path_buf(),
        record,
        field: field.to_string(),
        message: message.to_string(),
    };
    let segments = doc
        .get("segments")
        .and_then(Value::as_array)
        .ok_or_else(|| {
            err(
                "top level".into(),
                "segments",
                "expected an array of segments",
            )
        })?;
    let mut turns: Vec<TimedTurn> = Vec::new();
    for (i, s) in segments.iter().enumerate() {
        let record = || format!("segment {i}");
        let time = |field: &str| -> Result<f64, CorpusError> {
            match s.get(field) {
                Some(Value::Number(n)) => n
                    .as_f64()
                    .filter(|t| t.is_finite() && *t >= 0.0)
                    .map(|t| t + 0.0)
                    .ok_or_else(|| err(record(), field, "expected seconds, 0 or more")),
                _ => Err(err(record(), field, "expected seconds, 0 or more")),
            }
        };
        let (start, end) = (time("start")?, time("end")?);
        if end < start {
            return Err(err(record(), "end", "the segment ends before it starts"));
        }
        let text = match s.get("text") {
            Some(Value::String(t)) => t.split_whitespace().collect::<Vec<_>>().join(" "),
            _ => return Err(err(record(), "text", "expected a string")),
        };
        let speaker = match s.get("speaker") {
            None | Some(Value::Null) => None,
            Some(Value::String(l)) if l.trim().is_empty() => None,
            Some(Value::String(l)) => Some(speakers.name(l.trim()).to_string()),
            Some(_) => return Err(err(record(), "speaker", "expected a string")),
        };
        if text.is_empty() {
            continue;
        }
        super::push_cue(&mut turns, speaker, text, start, end);
    }
    Ok(turns)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_of_one_speaker_are_one_turn_and_the_map_names_them() {
        let doc = r#"{"segments": [
            {"start": 0.5, "end": 2.0, "text": " We lived", "speaker": "SPEAKER_01"},
            {"start": 2.0, "end": 3.5, "text": " by the sea.", "speaker": "SPEAKER_01"},
            {"start": 4.0, "end": 5.0, "text": "Why?", "speaker": "SPEAKER_00"},
            {"start": 5.0, "end": 6.0, "text": "Hm.", "speaker": "SPEAKER_07"}
        ], "language": "en"}"#;
        let map = SpeakerMap::parse("SPEAKER_00=Interviewer,SPEAKER_01=Tomas").unwrap();
        let turns = parse(Path::new("w.json"), doc, &map).unwrap();
        let got: Vec<_> = turns
            .iter()
            .map(|t| (t.speaker.as_deref(), t.text.as_str(), t.start(), t.end()))
            .collect();
        assert_eq!(
            got,
            [
                (Some("Tomas"), "We lived by the sea.", Some(0.5), Some(3.5)),
                (Some("Interviewer"), "Why?", Some(4.0), Some(5.0)),
                (Some("SPEAKER_07"), "Hm.", Some(5.0), Some(6.0)),
            ]
        );
    }

    #[test]
    fn whisper_is_recognised_after_a_long_text_and_times_are_never_negative_zero() {
        let dir = std::env::temp_dir().join(format!("ce-whisper-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let long = dir.join("long.json");
        let doc = format!(
            r#"{{"text": "{}", "segments": [{{"start": -0.0, "end": 1, "text": "x", "speaker": " "}}]}}"#,
            "word ".repeat(20_000)
        );
        std::fs::write(&long, &doc).unwrap();
        assert!(looks_like_whisper(&long));
        let turns = parse(&long, &doc, &SpeakerMap::default()).unwrap();
        assert_eq!(turns[0].start().map(f64::to_bits), Some(0f64.to_bits()));
        assert_eq!(turns[0].speaker, None);
        let chunks = dir.join("chunks.json");
        std::fs::write(&chunks, r#"{"documents": [{"page_content": "segments"}]}"#).unwrap();
        assert!(!looks_like_whisper(&chunks));
        std::fs::write(&chunks, r#"[{"page_content": "\"segments\""}]"#).unwrap();
        assert!(!looks_like_whisper(&chunks));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn bad_segments_name_the_segment_and_field() {
        let map = SpeakerMap::default();
        for (doc, field) in [
            (
                r#"{"segments": [{"start": 1, "end": 0.5, "text": "x"}]}"#,
                "end",
            ),
            (
                r#"{"segments": [{"start": -1, "end": 0.5, "text": "x"}]}"#,
                "start",
            ),
            (
                r#"{"segments": [{"start": 0, "end": 1, "text": 3}]}"#,
                "text",
            ),
            (r#"{"segments": {}}"#, "segments"),
        ] {
            let e = parse(Path::new("w.json"), doc, &map)
                .unwrap_err()
                .to_string();
            assert!(e.contains("w.json") && e.contains(field), "{e}");
        }
    }
}
