//! Plain text and Markdown transcripts: the text as written, its turns
//! found later by the speaker pattern. Timestamps are taken out wherever
//! they stand (at a line's start, right after a label, inside a turn) and
//! become time anchors: `[hh:mm:ss]`, `[mm:ss]`, `[hh:mm:ss.s]`,
//! `(hh:mm:ss)`, `{hh:mm:ss}`, `#hh:mm:ss-d#` / `#hh:mm:ss.d#` (f4,
//! MAXQDA); and Otter's label line (`Name  0:03`, what was said on the
//! next lines) becomes a `Name: text` turn. Otter's footer line
//! (`Transcribed by https://otter.ai`) is not speech: it is dropped.

use super::{line_error, seconds, Cue, TimedTurn};
use crate::corpus::CorpusError;
use regex::Regex;
use std::path::Path;
use std::sync::OnceLock;

/// The timestamps taken out of a line (four forms; groups per form: hours,
/// minutes, seconds, fraction).
fn stamps() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(concat!(
            r"\[(?:([0-9]{1,2}):)?([0-9]{1,3}):([0-9]{2})(?:[.,]([0-9]{1,3}))?\]",
            r"|\(([0-9]{1,2}):([0-9]{2}):([0-9]{2})(?:[.,]([0-9]{1,3}))?\)",
            r"|\{([0-9]{1,2}):([0-9]{2}):([0-9]{2})(?:[.,]([0-9]{1,3}))?\}",
            r"|#([0-9]{1,2}):([0-9]{2}):([0-9]{2})[-.]([0-9]{1,3})#",
        ))
        .expect("the timestamp pattern compiles")
    })
}

/// Otter's label line: a name, two or more spaces, `m:ss` or `h:mm:ss`.
fn otter_label() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(&format!(
            r"^\s*({})[ \t]{{2,}}(?:([0-9]{{1,2}}):)?([0-9]{{1,3}}):([0-9]{{2}})\s*$",
            super::NAME
        ))
        .expect("the Otter label pattern compiles")
    })
}

/// Ends the open Otter turn: one without text is its label line, as
/// written.
fn close_otter(turns: &mut Vec<TimedTurn>, otter: &mut Option<TimedTurn>, line: &mut String) {
    if let Some(turn) = otter.take() {
        turns.push(if turn.text.is_empty() {
            TimedTurn {
                speaker: None,
                text: std::mem::take(line),
                cues: Vec::new(),
            }
        } else {
            turn
        });
    }
}

/// The seconds of a timestamp match (`caps`), range-checked.
fn stamp_seconds(caps: &regex::Captures<'_>) -> Result<f64, String> {
    let num = |i: usize| {
        caps.get(i)
            .map(|m| m.as_str().parse::<u64>().unwrap_or(u64::MAX))
    };
    for base in [1, 5, 9, 13] {
        if let Some(s) = num(base + 2) {
            let h = num(base);
            let m = num(base + 1).unwrap_or(0);
            return seconds(h, m, s, caps.get(base + 3).map(|m| m.as_str()));
        }
    }
    Err("not a timestamp".into())
}

/// A line's text with its timestamps taken out (and the spaces after
/// each, so that no double space is left), and its anchors.
fn strip_line(path: &Path, n: usize, line: &str) -> Result<(String, Vec<Cue>), CorpusError> {
    // Most lines hold no timestamp: no bracket, no search.
    if !line.contains(['[', '(', '{', '#']) {
        return Ok((line.trim_end().to_string(), Vec::new()));
    }
    let mut out = String::with_capacity(line.len());
    let mut cues = Vec::new();
    let mut at = 0;
    for caps in stamps().captures_iter(line) {
        let m = caps.get(0).map_or(0..0, |m| m.range());
        let t = stamp_seconds(&caps).map_err(|e| line_error(path, n, e))?;
        out.push_str(&line[at..m.start]);
        at = m.end;
        if out.is_empty() || out.ends_with([' ', '\t']) {
            at += line[at..].len() - line[at..].trim_start_matches([' ', '\t']).len();
        }
        cues.push(Cue {
            at: out.len(),
            start: Some(t),
            end: None,
        });
    }
    out.push_str(&line[at..]);
    let trimmed = out.trim_end().len();
    out.truncate(trimmed);
    for c in &mut cues {
        c.at = c.at.min(out.len());
    }
    Ok((out, cues))
}

/// Otter's footer: `Transcribed by https://otter.ai` (any case, the
/// address with or without its scheme), a line of its own.
fn is_otter_footer(line: &str) -> bool {
    let t = line.trim().to_ascii_lowercase();
    t.strip_prefix("transcribed by")
        .map(|rest| {
            rest.trim()
                .trim_start_matches("https://")
                .trim_start_matches("http://")
        })
        .is_some_and(|rest| rest.trim_end_matches('/') == "otter.ai")
}

/// The turns of a text transcript: one per line (labels stay in the text,
/// for the speaker pattern), an Otter label line and the lines after it
/// one turn of that speaker.
pub(crate) fn parse(path: &Path, text: &str) -> Result<Vec<TimedTurn>, CorpusError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut turns: Vec<TimedTurn> = Vec::new();
    // The Otter turn being read, if any.
    let mut otter: Option<TimedTurn> = None;
    // The Otter label line as written.
    let mut otter_line = String::new();
    for (i, raw) in text.split('\n').enumerate() {
        let n = i + 1;
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        // An Otter label line ends in a digit after two spaces.
        let maybe_otter = line.trim_end().ends_with(|c: char| c.is_ascii_digit())
            && (line.contains("  ") || line.contains('\t'));
        if let Some(caps) = maybe_otter.then(|| otter_label().captures(line)).flatten() {
            close_otter(&mut turns, &mut otter, &mut otter_line);
            let num = |i: usize| {
                caps.get(i)
                    .map(|m| m.as_str().parse::<u64>().unwrap_or(u64::MAX))
            };
            let t = seconds(num(2), num(3).unwrap_or(0), num(4).unwrap_or(0), None)
                .map_err(|e| line_error(path, n, e))?;
            otter_line = line.to_string();
            otter = Some(TimedTurn {
                speaker: Some(caps[1].trim().to_string()),
                text: String::new(),
                cues: vec![Cue {
                    at: 0,
                    start: Some(t),
                    end: None,
                }],
            });
            continue;
        }
        if is_otter_footer(line) {
            close_otter(&mut turns, &mut otter, &mut otter_line);
            continue;
        }
        let (clean, cues) = strip_line(path, n, line)?;
        // An Otter turn ends at a blank line or a `Name:` label; one with
        // no text is the line it was, as written.
        let blank = clean.trim().is_empty() && cues.is_empty();
        let has_text = otter.as_ref().is_some_and(|t| !t.text.is_empty());
        if blank && has_text {
            // The blank line after an Otter turn closes it.
            close_otter(&mut turns, &mut otter, &mut otter_line);
            continue;
        }
        if super::label().is_match(&clean) {
            close_otter(&mut turns, &mut otter, &mut otter_line);
        }
        match &mut otter {
            Some(turn) if !clean.trim().is_empty() || !cues.is_empty() => {
                let joined = turn.text.len() + usize::from(!turn.text.is_empty());
                if !turn.text.is_empty() {
                    turn.text.push(' ');
                }
                let lead = clean.len() - clean.trim_start().len();
                turn.text.push_str(clean.trim_start());
                turn.cues.extend(cues.into_iter().map(|c| Cue {
                    at: joined + c.at.saturating_sub(lead),
                    ..c
                }));
            }
            // A blank line right after the label line.
            Some(_) => {}
            None => turns.push(TimedTurn {
                speaker: None,
                text: clean,
                cues,
            }),
        }
    }
    close_otter(&mut turns, &mut otter, &mut otter_line);
    // The trailing empty line of a file ending in a newline.
    if turns
        .last()
        .is_some_and(|t| t.speaker.is_none() && t.text.is_empty() && t.cues.is_empty())
    {
        turns.pop();
    }
    Ok(turns)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(line: &str) -> (String, Vec<(usize, f64)>) {
        let turns = parse(Path::new("t.txt"), line).unwrap();
        assert_eq!(turns.len(), 1, "{turns:?}");
        let t = &turns[0];
        (
            t.text.clone(),
            t.cues.iter().map(|c| (c.at, c.start.unwrap())).collect(),
        )
    }

    #[test]
    fn every_timestamp_form_is_taken_out_and_anchored() {
        assert_eq!(
            one("[00:01:02] Ana: I grew up [01:10] by the sea."),
            (
                "Ana: I grew up by the sea.".into(),
                vec![(0, 62.0), (15, 70.0)]
            )
        );
        assert_eq!(
            one("Ana: (00:00:05) we left {00:00:09.5} in May #00:00:12-3#"),
            (
                "Ana: we left in May".into(),
                vec![(5, 5.0), (13, 9.5), (19, 12.3)]
            )
        );
        assert_eq!(one("Bo: [1:02:03.25] yes").1, vec![(4, 3723.25)]);
        assert_eq!(one("#00:00:07.5# Bo: no").1, vec![(0, 7.5)]);
        // Not timestamps: one digit, words, a ratio.
        assert_eq!(
            one("Ana: at 10:30 or [a:b] 1:2").0,
            "Ana: at 10:30 or [a:b] 1:2"
        );
    }

    #[test]
    fn a_timestamp_out_of_range_names_the_line() {
        let err = parse(Path::new("t.txt"), "Ana: hi\n\nBo: [00:61:00] no")
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("t.txt:3:") && err.contains("out of range"),
            "{err}"
        );
        assert!(parse(Path::new("t.txt"), "[10:75] x").is_err());
    }

    #[test]
    fn otter_label_lines_open_turns() {
        let text = "Ana Lopez  0:03\r\nWe lived by the harbour.\r\nThen [0:09] we left.\r\n\r\nTomas  1:02:05\r\nWhy?\r\n";
        let turns = parse(Path::new("o.txt"), text).unwrap();
        assert_eq!(turns.len(), 2);
        assert_eq!(turns[0].speaker.as_deref(), Some("Ana Lopez"));
        assert_eq!(turns[0].text, "We lived by the harbour. Then we left.");
        assert_eq!(turns[0].cues[0].start, Some(3.0));
        assert_eq!(turns[0].cues[1].at, "We lived by the harbour. Then ".len());
        assert_eq!(turns[0].cues[1].start, Some(9.0));
        assert_eq!(
            (turns[1].text.as_str(), turns[1].start()),
            ("Why?", Some(3725.0))
        );
        // A line like an Otter label does not swallow the labelled lines
        // after it (it stays as written), nor the paragraph after a blank
        // line.
        let turns = parse(Path::new("o.txt"), "Interview  10:30\nAna: hi\nBo: yo\n").unwrap();
        let texts: Vec<&str> = turns.iter().map(|t| t.text.as_str()).collect();
        assert_eq!(texts, ["Interview  10:30", "Ana: hi", "Bo: yo"]);
        assert!(turns
            .iter()
            .all(|t| t.speaker.is_none() && t.cues.is_empty()));
        let turns = parse(Path::new("o.txt"), "Ana  0:03\nhi there\n\nA note.\n").unwrap();
        let texts: Vec<&str> = turns.iter().map(|t| t.text.as_str()).collect();
        assert_eq!(texts, ["hi there", "A note."]);
    }

    #[test]
    fn issue_53_19_otters_footer_is_not_the_last_speakers_words() {
        let text = "Ana Lopez  0:03\nWe lived by the harbour.\n\nTomas  0:09\nWhy?\nTranscribed by https://otter.ai\n";
        let turns = parse(Path::new("o.txt"), text).unwrap();
        assert_eq!(turns.len(), 2, "{turns:?}");
        assert_eq!(turns[1].text, "Why?");
        // Right after the words, no blank line; and without the scheme.
        let turns = parse(
            Path::new("o.txt"),
            "Tomas  0:09\nWhy?\n\nTranscribed by otter.ai",
        )
        .unwrap();
        assert_eq!(turns.len(), 1, "{turns:?}");
        // A sentence that mentions it is speech.
        let turns = parse(
            Path::new("o.txt"),
            "Ana: it was transcribed by otter.ai for us",
        )
        .unwrap();
        assert_eq!(turns[0].text, "Ana: it was transcribed by otter.ai for us");
    }

    #[test]
    fn a_bom_and_crlf_are_not_text() {
        let turns = parse(Path::new("t.txt"), "\u{feff}Ana: hi\r\nBo: yo\r\n").unwrap();
        let texts: Vec<&str> = turns.iter().map(|t| t.text.as_str()).collect();
        assert_eq!(texts, ["Ana: hi", "Bo: yo"]);
    }
}
