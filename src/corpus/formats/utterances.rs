//! The JSON utterance exports of transcription services, each read from
//! its public schema into turns (consecutive utterances of one speaker are
//! one turn, each an anchor with its times):
//!
//! | export | shape | times | speaker |
//! |---|---|---|---|
//! | AssemblyAI | `{"utterances": [{"speaker", "text", "start", "end"}]}` | milliseconds | `A` → `Speaker A` |
//! | Rev.ai | `{"monologues": [{"speaker", "speaker_name"?, "elements": [{"type", "value", "ts"?, "end_ts"?}]}]}` | seconds | `speaker_name`, else `Speaker N` |
//! | AWS Transcribe | `{"results": {"items": [{"type", "alternatives": [{"content"}], "start_time"?, "end_time"?, "speaker_label"?}], "speaker_labels": {"segments": [{"items": [{"start_time", "speaker_label"}]}]}}}` | seconds, as strings | `spk_0` |
//! | Deepgram | `{"results": {"utterances": [{"speaker", "transcript", "start", "end"}]}}` | seconds | `N` → `Speaker N` |
//! | a plain list | `[{"speaker", "text", "start"?, "end"?}]` | seconds, or `h:mm:ss` | as written |
//!
//! `--speaker-map` names the speakers by these labels (`Speaker A=Ana`).

use super::TimedTurn;
use crate::corpus::CorpusError;
use serde_json::Value;
use std::path::Path;

/// Which export a JSON document is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Export {
    /// AssemblyAI's transcript (`utterances`, times in ms).
    AssemblyAi,
    /// Rev.ai's transcript (`monologues`).
    RevAi,
    /// AWS Transcribe's output (`results.items`, `results.speaker_labels`).
    Aws,
    /// Deepgram's response (`results.utterances`).
    Deepgram,
    /// A plain list of `{speaker, text, start, end}`.
    List,
}

/// The export a document's start (its first 64 KB) looks like, if any:
/// told by its top-level keys.
pub(crate) fn sniff(head: &str) -> Option<Export> {
    let t = head.trim_start_matches('\u{feff}').trim_start();
    let has = |k: &str| t.contains(&format!("\"{k}\""));
    if t.starts_with('[') {
        // A list of utterances, not corpus-eval's chunks.
        return (has("speaker") && has("text") && !has("page_content")).then_some(Export::List);
    }
    if !t.starts_with('{') || t[1..].trim_start().starts_with("\"documents\"") {
        return None;
    }
    if has("monologues") {
        Some(Export::RevAi)
    } else if has("results") && (has("speaker_labels") || has("alternatives")) && has("items") {
        Some(Export::Aws)
    } else if has("results") && has("utterances") {
        Some(Export::Deepgram)
    } else if has("utterances") && !has("segments") {
        Some(Export::AssemblyAi)
    } else {
        None
    }
}

/// Whether a `.json` file is a service's utterance export (by its first
/// 64 KB; only a regular file is looked into).
pub(crate) fn looks_like_export(path: &Path) -> bool {
    use std::io::Read;
    let Ok((f, _)) = crate::corpus::input::open_regular(path) else {
        return false;
    };
    let mut head = Vec::new();
    if f.take(64 << 10).read_to_end(&mut head).is_err() {
        return false;
    }
    sniff(&String::from_utf8_lossy(&head)).is_some()
}

/// A bad field of record `record`.
fn bad(path: &Path, record: String, field: &str, message: &str) -> CorpusError {
    CorpusError::Record {
        path: path.to_path_buf(),
        record,
        field: field.to_string(),
        message: message.to_string(),
    }
}

/// Seconds from a number (scaled by `scale`) or a numeric string (AWS), or
/// a `h:mm:ss` string; finite and not negative.
fn seconds(v: Option<&Value>, scale: f64) -> Option<Option<f64>> {
    let t = match v {
        None | Some(Value::Null) => return Some(None),
        Some(Value::Number(n)) => n.as_f64()? * scale,
        Some(Value::String(s)) => match s.trim().parse::<f64>() {
            Ok(x) => x * scale,
            Err(_) => super::labels::clock(s)?,
        },
        Some(_) => return None,
    };
    (t.is_finite() && t >= 0.0).then_some(Some(t + 0.0))
}

/// A speaker label: a string as written, a number as `Speaker N`; with
/// `letters` (AssemblyAI's `A`, `B`), a letter alone as `Speaker A`.
fn speaker_of(v: Option<&Value>, letters: bool) -> Option<String> {
    match v? {
        Value::String(s) if s.trim().is_empty() => None,
        Value::String(s) if letters && s.trim().len() == 1 => Some(format!("Speaker {}", s.trim())),
        Value::String(s) => Some(s.trim().to_string()),
        Value::Number(n) => Some(format!("Speaker {n}")),
        _ => None,
    }
}

/// Appends one utterance (its times checked) to the turns.
fn push(
    path: &Path,
    turns: &mut Vec<TimedTurn>,
    record: String,
    (speaker, text): (Option<String>, String),
    (start, end): (Option<f64>, Option<f64>),
) -> Result<(), CorpusError> {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.is_empty() {
        return Ok(());
    }
    let start = start.unwrap_or(0.0);
    let end = end.unwrap_or(start);
    if end < start {
        return Err(bad(
            path,
            record,
            "end",
            "the utterance ends before it starts",
        ));
    }
    super::push_cue(turns, speaker, None, text, start, end);
    Ok(())
}

/// AWS words gathered into one speaker's utterance: the speaker, the
/// words, the start and end, and the first item's index.
type Gathered = (Option<String>, String, Option<f64>, Option<f64>, usize);

/// The export a parsed document is, by its top-level keys (for a document
/// whose keys come after more than [`sniff`] looks at: Deepgram's
/// `results.channels`, AssemblyAI's `words`, AWS's whole transcript).
pub(crate) fn export_of(doc: &Value) -> Option<Export> {
    if doc.get("documents").is_some() || doc.get("segments").is_some() {
        return None;
    }
    let results = doc.get("results");
    if doc.get("monologues").is_some_and(Value::is_array) {
        Some(Export::RevAi)
    } else if results.is_some_and(|r| r.get("items").is_some_and(Value::is_array)) {
        Some(Export::Aws)
    } else if results.is_some_and(|r| r.get("utterances").is_some_and(Value::is_array)) {
        Some(Export::Deepgram)
    } else if doc.get("utterances").is_some_and(Value::is_array) {
        Some(Export::AssemblyAi)
    } else {
        None
    }
}

/// The turns of an export's text.
#[cfg(test)]
pub(crate) fn parse(
    path: &Path,
    text: &str,
    export: Export,
) -> Result<Vec<TimedTurn>, CorpusError> {
    let doc = crate::corpus::strict_json::parse_str(text.trim_start_matches('\u{feff}'))
        .map_err(|e| crate::corpus::json_error(path, &e))?;
    parse_doc(path, &doc, export)
}

/// The turns of a parsed export.
pub(crate) fn parse_doc(
    path: &Path,
    doc: &Value,
    export: Export,
) -> Result<Vec<TimedTurn>, CorpusError> {
    let mut turns = Vec::new();
    let time = |v: Option<&Value>, scale: f64, record: &dyn Fn() -> String, field: &str| {
        seconds(v, scale).ok_or_else(|| bad(path, record(), field, "expected seconds, 0 or more"))
    };
    match export {
        Export::AssemblyAi | Export::Deepgram | Export::List => {
            let (list, key, text_key, scale) = match export {
                Export::AssemblyAi => (doc.get("utterances"), "utterances", "text", 0.001),
                Export::Deepgram => (
                    doc.get("results").and_then(|r| r.get("utterances")),
                    "results.utterances",
                    "transcript",
                    1.0,
                ),
                _ => (Some(doc), "(top level)", "text", 1.0),
            };
            let list = list.and_then(Value::as_array).ok_or_else(|| {
                bad(
                    path,
                    "top level".into(),
                    key,
                    "expected an array of utterances",
                )
            })?;
            for (i, u) in list.iter().enumerate() {
                let record = || format!("utterance {i}");
                let said = match u.get(text_key) {
                    Some(Value::String(s)) => s.clone(),
                    _ => return Err(bad(path, record(), text_key, "expected a string")),
                };
                let start = time(u.get("start"), scale, &record, "start")?;
                let end = time(u.get("end"), scale, &record, "end")?;
                push(
                    path,
                    &mut turns,
                    record(),
                    (
                        speaker_of(u.get("speaker"), export == Export::AssemblyAi),
                        said,
                    ),
                    (start, end),
                )?;
            }
        }
        Export::RevAi => {
            let list = doc
                .get("monologues")
                .and_then(Value::as_array)
                .ok_or_else(|| bad(path, "top level".into(), "monologues", "expected an array"))?;
            for (i, m) in list.iter().enumerate() {
                let record = || format!("monologue {i}");
                let speaker = speaker_of(m.get("speaker_name"), false)
                    .or_else(|| speaker_of(m.get("speaker"), false));
                let elements = m
                    .get("elements")
                    .and_then(Value::as_array)
                    .ok_or_else(|| bad(path, record(), "elements", "expected an array"))?;
                let mut said = String::new();
                let (mut start, mut end): (Option<f64>, Option<f64>) = (None, None);
                for e in elements {
                    said.push_str(e.get("value").and_then(Value::as_str).unwrap_or(""));
                    if let Some(ts) = time(e.get("ts"), 1.0, &record, "ts")? {
                        start.get_or_insert(ts);
                    }
                    if let Some(te) = time(e.get("end_ts"), 1.0, &record, "end_ts")? {
                        end = Some(te);
                    }
                }
                push(path, &mut turns, record(), (speaker, said), (start, end))?;
            }
        }
        Export::Aws => {
            let results = doc
                .get("results")
                .ok_or_else(|| bad(path, "top level".into(), "results", "missing"))?;
            let items = results
                .get("items")
                .and_then(Value::as_array)
                .ok_or_else(|| bad(path, "results".into(), "items", "expected an array"))?;
            // The speaker of each word by its start time (older outputs
            // give it in speaker_labels only).
            let mut by_start: std::collections::HashMap<String, String> = Default::default();
            if let Some(segments) = results
                .get("speaker_labels")
                .and_then(|s| s.get("segments"))
                .and_then(Value::as_array)
            {
                for item in segments
                    .iter()
                    .filter_map(|s| s.get("items").and_then(Value::as_array))
                    .flatten()
                {
                    if let (Some(t), Some(l)) = (
                        item.get("start_time").and_then(Value::as_str),
                        item.get("speaker_label").and_then(Value::as_str),
                    ) {
                        by_start.insert(t.to_string(), l.to_string());
                    }
                }
            }
            // Words gathered into utterances of one speaker.
            let mut current: Option<Gathered> = None;
            for (i, item) in items.iter().enumerate() {
                let record = || format!("results.items {i}");
                let word = item
                    .get("alternatives")
                    .and_then(Value::as_array)
                    .and_then(|a| a.first())
                    .and_then(|a| a.get("content"))
                    .and_then(Value::as_str)
                    .ok_or_else(|| {
                        bad(
                            path,
                            record(),
                            "alternatives",
                            "expected [{\"content\": ...}]",
                        )
                    })?;
                let punct = item.get("type").and_then(Value::as_str) == Some("punctuation");
                let start = time(item.get("start_time"), 1.0, &record, "start_time")?;
                let end = time(item.get("end_time"), 1.0, &record, "end_time")?;
                let speaker = item
                    .get("speaker_label")
                    .and_then(Value::as_str)
                    .map(str::to_string)
                    .or_else(|| {
                        item.get("start_time")
                            .and_then(Value::as_str)
                            .and_then(|t| by_start.get(t).cloned())
                    });
                match &mut current {
                    Some(c) if punct || speaker.is_none() || c.0 == speaker => {
                        if !punct {
                            c.1.push(' ');
                        }
                        c.1.push_str(word);
                        c.3 = end.or(c.3);
                    }
                    _ => {
                        if let Some((s, t, a, b, k)) = current.take() {
                            push(
                                path,
                                &mut turns,
                                format!("results.items {k}"),
                                (s, t),
                                (a, b),
                            )?;
                        }
                        current = Some((speaker, word.to_string(), start, end, i));
                    }
                }
            }
            if let Some((s, t, a, b, k)) = current {
                push(
                    path,
                    &mut turns,
                    format!("results.items {k}"),
                    (s, t),
                    (a, b),
                )?;
            }
        }
    }
    Ok(turns)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A turn's speaker, text, start and end.
    type Row = (Option<String>, String, Option<f64>, Option<f64>);

    fn read(doc: &str) -> Vec<Row> {
        let export = sniff(doc).unwrap_or_else(|| panic!("not sniffed: {doc}"));
        parse(Path::new("x.json"), doc, export)
            .unwrap()
            .into_iter()
            .map(|t| (t.speaker.clone(), t.text.clone(), t.start(), t.end()))
            .collect()
    }

    fn s(x: &str) -> Option<String> {
        Some(x.into())
    }

    #[test]
    fn every_export_reads_into_turns() {
        let want = vec![
            (
                s("Speaker A"),
                "We left in spring. After the cannery closed.".into(),
                Some(0.5),
                Some(4.0),
            ),
            (s("Speaker B"), "Why?".into(), Some(4.5), Some(5.0)),
        ];
        assert_eq!(
            read(
                r#"{"id": "x", "utterances": [{"speaker": "A", "text": "We left in spring.", "start": 500, "end": 2000},
                {"speaker": "A", "text": "After the cannery closed.", "start": 2000, "end": 4000},
                {"speaker": "B", "text": "Why?", "start": 4500, "end": 5000}]}"#
            ),
            want
        );
        let rev = read(
            r#"{"monologues": [{"speaker": 0, "elements": [{"type": "text", "value": "We", "ts": 0.5, "end_ts": 0.7},
            {"type": "punct", "value": " "}, {"type": "text", "value": "left", "ts": 0.7, "end_ts": 1.0}, {"type": "punct", "value": "."}]},
            {"speaker": 1, "speaker_name": "Tomas", "elements": [{"type": "text", "value": "Why", "ts": 4.5, "end_ts": 5.0}, {"type": "punct", "value": "?"}]}]}"#,
        );
        assert_eq!(
            rev,
            [
                (s("Speaker 0"), "We left.".into(), Some(0.5), Some(1.0)),
                (s("Tomas"), "Why?".into(), Some(4.5), Some(5.0))
            ]
        );
        let aws = read(
            r#"{"jobName": "j", "results": {"transcripts": [{"transcript": "We left. Why?"}],
            "speaker_labels": {"speakers": 2, "segments": [{"speaker_label": "spk_0", "start_time": "0.5", "end_time": "1.0",
              "items": [{"start_time": "0.5", "end_time": "0.7", "speaker_label": "spk_0"}, {"start_time": "0.7", "end_time": "1.0", "speaker_label": "spk_0"}]},
              {"speaker_label": "spk_1", "start_time": "4.5", "end_time": "5.0", "items": [{"start_time": "4.5", "end_time": "5.0", "speaker_label": "spk_1"}]}]},
            "items": [{"start_time": "0.5", "end_time": "0.7", "alternatives": [{"confidence": "0.99", "content": "We"}], "type": "pronunciation"},
              {"start_time": "0.7", "end_time": "1.0", "alternatives": [{"confidence": "0.99", "content": "left"}], "type": "pronunciation"},
              {"alternatives": [{"confidence": "0.0", "content": "."}], "type": "punctuation"},
              {"start_time": "4.5", "end_time": "5.0", "alternatives": [{"confidence": "0.9", "content": "Why"}], "type": "pronunciation"},
              {"alternatives": [{"confidence": "0.0", "content": "?"}], "type": "punctuation"}]}}"#,
        );
        assert_eq!(
            aws,
            [
                (s("spk_0"), "We left.".into(), Some(0.5), Some(1.0)),
                (s("spk_1"), "Why?".into(), Some(4.5), Some(5.0))
            ]
        );
        let dg = read(
            r#"{"metadata": {}, "results": {"channels": [], "utterances": [
            {"start": 0.5, "end": 1.0, "transcript": "We left.", "speaker": 0, "channel": 0},
            {"start": 4.5, "end": 5.0, "transcript": "Why?", "speaker": 1, "channel": 0}]}}"#,
        );
        assert_eq!(dg[1], (s("Speaker 1"), "Why?".into(), Some(4.5), Some(5.0)));
        let list = read(
            r#"[{"speaker": "Ana", "text": "We left.", "start": 0.5, "end": 1.0},
            {"speaker": "Tomas", "text": "Why?", "start": "0:04", "end": "0:05"}]"#,
        );
        assert_eq!(list[1], (s("Tomas"), "Why?".into(), Some(4.0), Some(5.0)));
    }

    #[test]
    fn chunks_and_whisper_are_not_exports_and_bad_records_are_named() {
        assert_eq!(
            sniff(r#"[{"page_content": "x", "metadata": {"FILE": "a"}}]"#),
            None
        );
        assert_eq!(sniff(r#"{"documents": [{"utterances": 1}]}"#), None);
        assert_eq!(sniff(r#"{"segments": [], "text": "utterances"}"#), None);
        let e = parse(
            Path::new("x.json"),
            r#"{"utterances": [{"speaker": "A", "text": "x", "start": 5, "end": 1}]}"#,
            Export::AssemblyAi,
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("x.json") && e.contains("utterance 0") && e.contains("end"),
            "{e}"
        );
        let e = parse(
            Path::new("x.json"),
            r#"[{"speaker": "A", "text": 3}]"#,
            Export::List,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("utterance 0") && e.contains("text"), "{e}");
    }
}
