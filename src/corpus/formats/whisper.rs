//! whisper and whisperX JSON: `{"segments": [{"start", "end", "text",
//! "speaker"?}]}` (whisperX adds the diarized `speaker`, e.g. `SPEAKER_00`,
//! which a [`SpeakerMap`] names). Consecutive segments of one speaker are
//! one turn, joined with a space.

use super::TimedTurn;
use crate::corpus::CorpusError;
use serde_json::Value;
use std::io::Read;
use std::path::Path;

/// Whether a `.json` file is for the transcript readers rather than
/// corpus-eval's chunk loader: an object whose first key is not
/// `"documents"` (corpus-eval's chunks start with `[` or `{"documents"`).
/// Only its first 4 KB are looked at: the file is then read once, by the
/// reader, which tells whisper (`"segments"`, after openai-whisper's whole
/// `"text"`) from the services' exports.
pub(crate) fn looks_like_whisper(path: &Path) -> bool {
    // Only a regular file is looked into (a FIFO is not waited on).
    let Ok((mut f, _)) = crate::corpus::input::open_regular(path) else {
        return false;
    };
    let mut head = vec![0u8; 4096];
    let n = f.read(&mut head).unwrap_or(0);
    whisper_head(&String::from_utf8_lossy(&head[..n]))
}

/// A document's start as whisper's: an object that is not `{"documents"`.
pub(crate) fn whisper_head(head: &str) -> bool {
    let head = head.trim_start_matches('\u{feff}').trim_start();
    match head.strip_prefix('{') {
        Some(rest) => !rest.trim_start().starts_with("\"documents\""),
        None => false,
    }
}

/// A word of a whisperX segment: its text, times and speaker.
struct Word {
    text: String,
    start: Option<f64>,
    end: Option<f64>,
    speaker: Option<String>,
}

/// The words of a segment (`words: [{"word", "start"?, "end"?,
/// "speaker"?}]`), those without a speaker given their neighbours' (the
/// one before, else the one after).
fn words_of(s: &Value) -> Vec<Word> {
    let mut words: Vec<Word> = s
        .get("words")
        .and_then(Value::as_array)
        .map(|ws| {
            ws.iter()
                .filter_map(|w| {
                    let text = w.get("word").and_then(Value::as_str)?.trim().to_string();
                    let time = |k: &str| {
                        w.get(k)
                            .and_then(Value::as_f64)
                            .filter(|t| t.is_finite() && *t >= 0.0)
                            .map(|t| t + 0.0)
                    };
                    let speaker = w
                        .get("speaker")
                        .and_then(Value::as_str)
                        .map(str::trim)
                        .filter(|l| !l.is_empty())
                        .map(str::to_string);
                    (!text.is_empty()).then_some(Word {
                        text,
                        start: time("start"),
                        end: time("end"),
                        speaker,
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    let mut last: Option<String> = None;
    for w in &mut words {
        match &w.speaker {
            Some(s) => last = Some(s.clone()),
            None => w.speaker = last.clone(),
        }
    }
    let mut next: Option<String> = None;
    for w in words.iter_mut().rev() {
        match &w.speaker {
            Some(s) => next = Some(s.clone()),
            None => w.speaker = next.clone(),
        }
    }
    words
}

/// The turns of a whisper JSON document, and the reader's doubts. A
/// whisperX segment whose words' speakers change is split where they
/// change; a segment without a speaker takes its words' majority speaker,
/// in doubt when they disagree.
#[cfg(test)]
pub(crate) fn parse(path: &Path, text: &str) -> Result<(Vec<TimedTurn>, Vec<String>), CorpusError> {
    let doc = crate::corpus::strict_json::parse_str(text.trim_start_matches('\u{feff}'))
        .map_err(|e| crate::corpus::json_error(path, &e))?;
    parse_doc(path, &doc)
}

/// [`parse`] of a parsed document.
pub(crate) fn parse_doc(
    path: &Path,
    doc: &Value,
) -> Result<(Vec<TimedTurn>, Vec<String>), CorpusError> {
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
    let mut doubts: Vec<String> = Vec::new();
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
            Some(Value::String(l)) => Some(l.trim().to_string()),
            Some(_) => return Err(err(record(), "speaker", "expected a string")),
        };
        if text.is_empty() {
            continue;
        }
        let words = words_of(s);
        let mut spoken: Vec<&str> = words.iter().filter_map(|w| w.speaker.as_deref()).collect();
        spoken.dedup();
        match speaker {
            // The segment's speaker, but its words' change: one cue per
            // run of one speaker's words.
            Some(_) if spoken.len() > 1 => {
                let mut k = 0;
                while k < words.len() {
                    let who = words[k].speaker.clone();
                    let run: Vec<&Word> =
                        words[k..].iter().take_while(|w| w.speaker == who).collect();
                    k += run.len();
                    let said = run
                        .iter()
                        .map(|w| w.text.as_str())
                        .collect::<Vec<_>>()
                        .join(" ");
                    let from = run.first().and_then(|w| w.start).unwrap_or(start);
                    let to = run.last().and_then(|w| w.end).unwrap_or(end).max(from);
                    super::push_cue(&mut turns, who, None, said, from, to);
                }
            }
            Some(who) => super::push_cue(&mut turns, Some(who), None, text, start, end),
            // No speaker: the words' majority, in doubt when they disagree.
            None if !spoken.is_empty() => {
                let mut counts: Vec<(&str, usize)> = Vec::new();
                for w in words.iter().filter_map(|w| w.speaker.as_deref()) {
                    match counts.iter_mut().find(|(s, _)| *s == w) {
                        Some(c) => c.1 += 1,
                        None => counts.push((w, 1)),
                    }
                }
                let best = counts
                    .iter()
                    .max_by_key(|(_, n)| *n)
                    .map(|(s, _)| s.to_string());
                if counts.len() > 1 {
                    turns.push(TimedTurn {
                        speaker: best,
                        role: None,
                        uncertain: true,
                        text,
                        cues: vec![super::Cue {
                            at: 0,
                            start: Some(start),
                            end: Some(end),
                        }],
                        lines: Vec::new(),
                    });
                    if doubts.is_empty() {
                        doubts.push(format!(
                            "{}: segment {i}: no speaker, and its words' speakers disagree ({}): the majority's is taken, in doubt (attribution `uncertain_speaker`)",
                            path.display(),
                            counts.iter().map(|(s, n)| format!("{s} {n}")).collect::<Vec<_>>().join(", ")
                        ));
                    }
                } else {
                    super::push_cue(&mut turns, best, None, text, start, end);
                }
            }
            None => super::push_cue(&mut turns, None, None, text, start, end),
        }
    }
    Ok((turns, doubts))
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
        let map =
            super::super::SpeakerMap::parse("SPEAKER_00=Interviewer,SPEAKER_01=Tomas").unwrap();
        let mut turns = parse(Path::new("w.json"), doc).unwrap().0;
        super::super::name_speakers(&mut turns, &map);
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
        let turns = parse(&long, &doc).unwrap().0;
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
            let e = parse(Path::new("w.json"), doc).unwrap_err().to_string();
            assert!(e.contains("w.json") && e.contains(field), "{e}");
        }
    }
}
