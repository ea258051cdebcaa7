//! Who a report attributes a quote to: its cue's label resolved to a
//! transcript and a speaker, through a map of labels (`--sources`, CSV
//! `label,source,speaker`), a transcript id, or a speaker that occurs in
//! exactly one transcript.
//!
//! A label may hold several parts (`Gwen, UK-210, 00:12:31`): each part
//! that is not a time is resolved, the first source and the first speaker
//! found are kept.

use crate::citations::turns::{SpeakerConfig, Turns};
use crate::corpus::{CorpusError, TranscriptSet};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// The attribution a report gives a quote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Cited {
    /// The label as the report writes it.
    pub label: String,
    /// The transcript it resolves to (its id), or None when unresolved.
    pub source: Option<String>,
    /// The speaker it names, when it names one.
    pub speaker: Option<String>,
}

/// One row of a source map.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Row {
    label: String,
    source: String,
    speaker: Option<String>,
}

/// The labels a report uses (`P3`, `Gwen`) and the transcript and speaker
/// each stands for (`--sources MAP.csv`), indexed by label and by speaker
/// (trimmed, whitespace runs as one space, any case): a lookup is one hash probe,
/// however many rows the map has.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SourceMap {
    rows: Vec<Row>,
    /// Row of each folded label.
    by_label: std::collections::HashMap<String, usize>,
    /// Rows of each folded speaker.
    by_speaker: std::collections::HashMap<String, Vec<usize>>,
}

impl SourceMap {
    /// Reads a map from its text: CSV rows `label,source,speaker`
    /// (`speaker` optional, a header row `label,source[,speaker]` optional).
    /// Every source must be a transcript of `transcripts` (an id, or an id
    /// without its extension), and no label may come twice (any case);
    /// errors name the file (`path`), the line and the field.
    pub fn parse(
        path: &Path,
        text: &str,
        transcripts: &TranscriptSet,
    ) -> Result<SourceMap, CorpusError> {
        let fail = |line: u64, field: &str, message: String| CorpusError::Record {
            path: PathBuf::from(path),
            record: format!("line {line}"),
            field: field.to_string(),
            message,
        };
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .from_reader(text.trim_start_matches('\u{feff}').as_bytes());
        let mut map = SourceMap::default();
        let mut lines: Vec<u64> = Vec::new();
        let mut first = true;
        for (k, record) in reader.records().enumerate() {
            let line = k as u64 + 1;
            let record = record.map_err(|e| fail(line, "(csv)", e.to_string()))?;
            let line = record.position().map_or(line, |p| p.line());
            let cells: Vec<&str> = record.iter().map(str::trim).collect();
            if cells.iter().all(|c| c.is_empty()) {
                continue;
            }
            let header = first
                && cells
                    .first()
                    .is_some_and(|c| c.eq_ignore_ascii_case("label"))
                && cells
                    .get(1)
                    .is_some_and(|c| c.eq_ignore_ascii_case("source"));
            first = false;
            if header {
                continue;
            }
            let (label, source) = match cells.as_slice() {
                [label, source, ..] if !label.is_empty() && !source.is_empty() => (*label, *source),
                _ => {
                    return Err(fail(
                        line,
                        "label,source",
                        format!(
                            "expected `label,source[,speaker]`, found {}",
                            crate::corpus::preview(&cells.join(","))
                        ),
                    ))
                }
            };
            let Some(t) = transcripts.position(source) else {
                return Err(fail(
                    line,
                    "source",
                    format!(
                        "{} is not a transcript id (ids: {})",
                        crate::corpus::preview(source),
                        ids_preview(transcripts)
                    ),
                ));
            };
            if let Some(&j) = map.by_label.get(&fold(label)) {
                return Err(fail(
                    line,
                    "label",
                    format!(
                        "{} is also the label of line {}",
                        crate::corpus::preview(label),
                        lines[j]
                    ),
                ));
            }
            if cells.len() > 3 && cells[3..].iter().any(|c| !c.is_empty()) {
                return Err(fail(
                    line,
                    "label,source,speaker",
                    format!(
                        "{} cells: expected `label,source[,speaker]` (quote a cell that holds a comma)",
                        cells.len()
                    ),
                ));
            }
            lines.push(line);
            let speaker = cells
                .get(2)
                .filter(|s| !s.is_empty())
                .map(|s| s.to_string());
            let k = map.rows.len();
            map.by_label.insert(fold(label), k);
            if let Some(s) = &speaker {
                map.by_speaker.entry(fold(s)).or_default().push(k);
            }
            map.rows.push(Row {
                label: label.to_string(),
                source: transcripts.transcripts[t].file.clone(),
                speaker,
            });
        }
        Ok(map)
    }

    /// The number of rows.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// True without rows.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }
}

/// A few transcript ids, for an error message.
fn ids_preview(transcripts: &TranscriptSet) -> String {
    let ids: Vec<&str> = transcripts
        .transcripts
        .iter()
        .take(5)
        .map(|t| t.file.as_str())
        .collect();
    let more = transcripts.transcripts.len().saturating_sub(ids.len());
    if more > 0 {
        format!("{}, and {more} more", ids.join(", "))
    } else {
        ids.join(", ")
    }
}

/// A label as labels are compared: trimmed, whitespace runs as one
/// space, any case.
fn fold(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// `00:12:31`, `12:31`, `1:02:03.5`, `[12:31]`: a time, not a label
/// (read as [`crate::corpus::CitedPlace::parse_time`] reads it).
fn is_time(part: &str) -> bool {
    let t = part
        .trim()
        .trim_start_matches(['[', '('])
        .trim_end_matches([']', ')']);
    crate::corpus::CitedPlace::parse_time(t).is_some()
}

/// Resolves labels against a map, the transcripts' ids and their speakers.
#[derive(Debug)]
pub(crate) struct Resolver<'a> {
    map: &'a SourceMap,
    transcripts: &'a TranscriptSet,
    speakers: &'a SpeakerConfig,
    /// Each transcript's distinct speakers.
    by_transcript: Vec<Vec<String>>,
}

/// What one part of a label says.
#[derive(Debug, Default)]
struct Part {
    source: Option<String>,
    speaker: Option<String>,
    /// The source comes from a map row or a transcript id.
    sure: bool,
}

impl<'a> Resolver<'a> {
    /// A resolver: every transcript's speakers are read (by `speakers`).
    pub(crate) fn new(
        map: &'a SourceMap,
        transcripts: &'a TranscriptSet,
        speakers: &'a SpeakerConfig,
    ) -> Result<Resolver<'a>, CorpusError> {
        use rayon::prelude::*;
        let by_transcript = transcripts
            .transcripts
            .par_iter()
            .map(|t| -> Result<Vec<String>, CorpusError> {
                let text = t.text()?;
                let turns = Turns::of(&text, t.labels(), speakers);
                let mut names: Vec<String> =
                    turns.turns.into_iter().filter_map(|t| t.speaker).collect();
                names.sort();
                names.dedup();
                Ok(names)
            })
            .collect::<Result<_, _>>()?;
        Ok(Resolver {
            map,
            transcripts,
            speakers,
            by_transcript,
        })
    }

    /// The transcripts (by index) in which a speaker of this name speaks.
    fn speaking(&self, name: &str) -> Vec<usize> {
        (0..self.by_transcript.len())
            .filter(|&t| {
                self.by_transcript[t]
                    .iter()
                    .any(|s| self.speakers.names(name, s))
            })
            .collect()
    }

    /// The map's row of a label.
    fn row(&self, label: &str) -> Option<&Row> {
        let k = self.map.by_label.get(&fold(label))?;
        self.map.rows.get(*k)
    }

    /// One part of a label.
    fn part(&self, part: &str) -> Option<Part> {
        let rows = &self.map.rows;
        if let Some(r) = self.row(part) {
            return Some(Part {
                source: Some(r.source.clone()),
                speaker: r.speaker.clone(),
                sure: true,
            });
        }
        let by_speaker: Vec<&Row> = self
            .map
            .by_speaker
            .get(&fold(part))
            .map(|ks| ks.iter().filter_map(|k| rows.get(*k)).collect())
            .unwrap_or_default();
        if let [r] = by_speaker.as_slice() {
            return Some(Part {
                source: Some(r.source.clone()),
                speaker: r.speaker.clone(),
                sure: true,
            });
        }
        if let Some(t) = self.transcripts.position(part.trim()) {
            return Some(Part {
                source: Some(self.transcripts.transcripts[t].file.clone()),
                speaker: None,
                sure: true,
            });
        }
        // A speaker's name: the transcript too when only one has them.
        if !part.chars().next().is_some_and(char::is_alphabetic) {
            return None;
        }
        match self.speaking(part).as_slice() {
            [] => None,
            [t] => Some(Part {
                source: Some(self.transcripts.transcripts[*t].file.clone()),
                speaker: Some(part.trim().to_string()),
                sure: false,
            }),
            _ => Some(Part {
                source: None,
                speaker: Some(part.trim().to_string()),
                sure: false,
            }),
        }
    }

    /// True when `words` (one or two words of the report) name a speaker
    /// or a label this resolver knows.
    pub(crate) fn is_name(&self, words: &str) -> bool {
        self.part(words).is_some()
    }

    /// The attribution a label gives (source and speaker None when no part
    /// of it resolves). A speaker named alongside a transcript is looked
    /// for in that transcript.
    pub(crate) fn resolve(&self, label: &str) -> Cited {
        // The whole label first: a map's label may hold `,` (`Morgan, Gwen`).
        if let Some(r) = self.row(label) {
            return Cited {
                label: label.to_string(),
                source: Some(r.source.clone()),
                speaker: r.speaker.clone(),
            };
        }
        // Places are no labels: `00:12:31`, `l. 45`, the time of `P3 12:31`.
        let parts: Vec<&str> = label
            .split([',', ';'])
            .map(str::trim)
            .filter(|p| !p.is_empty() && !is_time(p))
            .filter(|p| crate::corpus::CitedPlace::parse(p).is_none())
            .map(|p| match p.rsplit_once(char::is_whitespace) {
                Some((head, last)) if is_time(last) => head.trim_end(),
                _ => p,
            })
            .collect();
        // A map row or a transcript id names the source for sure; a
        // speaker's name only where one transcript has them.
        let resolved: Vec<Part> = parts.iter().filter_map(|p| self.part(p)).collect();
        let sure = resolved
            .iter()
            .find(|p| p.sure)
            .and_then(|p| p.source.clone());
        let source = sure.or_else(|| resolved.iter().find_map(|p| p.source.clone()));
        let speaker = resolved.iter().find_map(|p| p.speaker.clone());
        Cited {
            label: label.to_string(),
            source,
            speaker,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::Transcript;

    fn set() -> TranscriptSet {
        TranscriptSet::from_transcripts(vec![
            Transcript::new(
                "UK-210.txt".into(),
                "Interviewer: Tell me.\nGwen Morgan: We never went back.\n".into(),
                1,
            ),
            Transcript::new(
                "IS-001.txt".into(),
                "Interviewer: And then?\nDeclan: The boats were sold.\nGwen Morgan: Yes.\n".into(),
                1,
            ),
            Transcript::new(
                "IS-002.txt".into(),
                "Interviewer: So?\nMaeve: Nothing.\n".into(),
                1,
            ),
        ])
    }

    #[test]
    fn labels_resolve_through_the_map_ids_and_unique_speakers() {
        let t = set();
        let map = SourceMap::parse(
            Path::new("map.csv"),
            "label,source,speaker\nP3,UK-210,Gwen Morgan\nP7,IS-002.txt,\n",
            &t,
        )
        .unwrap();
        assert_eq!(map.len(), 2);
        let speakers = SpeakerConfig::default();
        let r = Resolver::new(&map, &t, &speakers).unwrap();
        let cited = |l: &str| {
            let c = r.resolve(l);
            (c.source, c.speaker)
        };
        let some = |s: &str| Some(s.to_string());
        assert_eq!(cited("P3"), (some("UK-210.txt"), some("Gwen Morgan")));
        assert_eq!(cited("p7"), (some("IS-002.txt"), None));
        assert_eq!(cited("IS-001"), (some("IS-001.txt"), None));
        assert_eq!(cited("Declan"), (some("IS-001.txt"), some("Declan")));
        // Gwen speaks in two transcripts; the map's row names her, so the
        // map's source wins.
        assert_eq!(
            cited("Gwen Morgan"),
            (some("UK-210.txt"), some("Gwen Morgan"))
        );
        assert_eq!(
            cited("Declan, IS-002, 00:12:31"),
            (some("IS-002.txt"), some("Declan"))
        );
        assert_eq!(cited("Smith 2020"), (None, None));
        assert!(r.is_name("Declan") && r.is_name("P3") && !r.is_name("Smith"));
        // A label names a speaker only with words of the speaker's name.
        assert_eq!(cited("translated by Maeve"), (None, None));
        assert_eq!(cited("as the interviewer noted"), (None, None));
        assert!(!r.is_name("When Declan"));
        let comma = SourceMap::parse(
            Path::new("map.csv"),
            "\"Morgan, Gwen\",UK-210,Gwen Morgan\n",
            &t,
        )
        .unwrap();
        let r2 = Resolver::new(&comma, &t, &speakers).unwrap();
        let c = r2.resolve("Morgan, Gwen");
        assert_eq!(
            (c.source.as_deref(), c.speaker.as_deref()),
            (Some("UK-210.txt"), Some("Gwen Morgan"))
        );
        let no_map = SourceMap::default();
        let r = Resolver::new(&no_map, &t, &speakers).unwrap();
        assert_eq!(r.resolve("Gwen").source, None);
        assert_eq!(r.resolve("Gwen").speaker, some("Gwen"));
        assert_eq!(r.resolve("Maeve").source, some("IS-002.txt"));
    }

    #[test]
    fn a_bad_map_names_the_file_line_and_field() {
        let t = set();
        let e = SourceMap::parse(Path::new("map.csv"), "P3,UK-210\nP4,NOPE,X\n", &t)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("map.csv") && e.contains("line 2") && e.contains("`source`"),
            "{e}"
        );
        let e = SourceMap::parse(Path::new("map.csv"), "P3\n", &t)
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 1"), "{e}");
        let e = SourceMap::parse(
            Path::new("map.csv"),
            "P3,UK-210\nP4,IS-001\np3,IS-002\n",
            &t,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("line 3") && e.contains("label of line 1"), "{e}");
        // A blank row before the header.
        let map =
            SourceMap::parse(Path::new("map.csv"), ",,\nlabel,source\nP3,UK-210\n", &t).unwrap();
        assert_eq!(map.len(), 1);
    }

    #[test]
    fn times_are_not_labels() {
        assert!(is_time("00:12:31") && is_time("12:31") && is_time("1:02:03.5"));
        assert!(!is_time("P3") && !is_time("UK-210") && !is_time("2020"));
    }
}
