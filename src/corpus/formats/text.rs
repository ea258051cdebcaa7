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

/// Appends a line's text to `out` with its timestamps taken out (and the
/// spaces after each, so that no double space is left; trailing spaces
/// dropped), and its anchors to `cues` (offsets into `out`).
fn strip_into(
    path: &Path,
    n: usize,
    line: &str,
    out: &mut String,
    cues: &mut Vec<Cue>,
) -> Result<(), CorpusError> {
    let start = out.len();
    // Most lines hold no timestamp: no bracket, no search.
    let b = line.as_bytes();
    if memchr::memchr3(b'[', b'(', b'{', b).is_none() && memchr::memchr(b'#', b).is_none() {
        out.push_str(line.trim_end());
        return Ok(());
    }
    let first_cue = cues.len();
    let mut at = 0;
    for caps in stamps().captures_iter(line) {
        let m = caps.get(0).map_or(0..0, |m| m.range());
        let t = stamp_seconds(&caps).map_err(|e| line_error(path, n, e))?;
        out.push_str(&line[at..m.start]);
        at = m.end;
        if out.len() == start || out.ends_with([' ', '\t']) {
            at += line[at..].len() - line[at..].trim_start_matches([' ', '\t']).len();
        }
        cues.push(Cue {
            at: out.len(),
            start: Some(t),
            end: None,
        });
    }
    out.push_str(&line[at..]);
    let trimmed = start + out[start..].trim_end().len();
    out.truncate(trimmed);
    for c in &mut cues[first_cue..] {
        c.at = c.at.min(out.len());
    }
    Ok(())
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

/// A text transcript read: its turns and the first line that looked like
/// a label the reader did not accept.
#[derive(Debug, Clone, Default)]
pub(crate) struct Parsed {
    /// The turns, in order.
    pub turns: Vec<TimedTurn>,
    /// The first doubtful line: its number (1-based) and text.
    pub doubt: Option<(usize, String)>,
}

/// A turn being read: what was said is written into its text as the
/// lines come (no line is held on its own).
struct Open {
    turn: TimedTurn,
    /// Lines written so far.
    lines: usize,
    /// Blank lines read since the last line written (written, as empty
    /// lines, only when another line follows: a turn's trailing blank lines
    /// are dropped).
    blank: usize,
    /// Opened by a label line (Otter, Meet, Teams): a blank line after its
    /// words ends it, and without words it is the line as written.
    label_line: Option<String>,
    /// The file line it opened on (1-based).
    first_line: usize,
}

impl Open {
    fn new(turn: TimedTurn, label_line: Option<String>, first_line: usize) -> Open {
        Open {
            turn,
            lines: 0,
            blank: 0,
            label_line,
            first_line,
        }
    }

    fn has_words(&self) -> bool {
        self.lines > 0
    }

    /// Writes a line that is not blank (its timestamps out).
    fn line(&mut self, path: &Path, n: usize, said: &str) -> Result<(), CorpusError> {
        if self.lines > 0 {
            for _ in 0..=self.blank {
                self.turn.text.push('\n');
            }
        }
        self.blank = 0;
        self.lines += 1;
        self.turn.lines.push((self.turn.text.len(), n));
        strip_into(path, n, said, &mut self.turn.text, &mut self.turn.cues)
    }

    /// The turn; None when it holds nothing.
    fn finish(self) -> Option<TimedTurn> {
        if self.lines == 0 {
            return match self.label_line {
                // A label line without words stays as written.
                Some(line) => Some(TimedTurn {
                    speaker: None,
                    role: None,
                    uncertain: false,
                    text: line,
                    cues: Vec::new(),
                    lines: vec![(0, self.first_line)],
                }),
                None if self.turn.speaker.is_some() => Some(self.turn),
                None => None,
            };
        }
        Some(self.turn)
    }
}

/// Whether a text file holds Markdown's markup (a `.txt` exported from a
/// Markdown page): emphasis, character references or backslash escapes.
pub(crate) fn holds_markdown(text: &str) -> bool {
    // The marks' first bytes are rare in speech: each found one is looked
    // at (two SIMD passes over the text, not one per mark).
    let b = text.as_bytes();
    let follows = |k: usize, what: &[u8]| b[k + 1..].starts_with(what);
    let marked = memchr::memchr3_iter(b'*', b'_', b'&', b).any(|k| match b[k] {
        b'*' => follows(k, b"*"),
        b'_' => follows(k, b"_"),
        _ => follows(k, b"#") || follows(k, b"amp;") || follows(k, b"nbsp;"),
    });
    marked
        || memchr::memchr_iter(b'\\', b).any(|k| matches!(b.get(k + 1), Some(b'[' | b'*' | b'_')))
}

/// The turns of a text transcript (see the module documentation): a
/// labelled line opens a turn of its speaker (a label line opens one whose
/// words follow on the next lines); a line without a label continues the
/// turn before it; consecutive turns of one speaker are one turn. With
/// `markdown`, the markup of each line is taken out first
/// ([`super::markdown`]).
pub(crate) fn parse(path: &Path, text: &str, markdown: bool) -> Result<Parsed, CorpusError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut out = Parsed::default();
    let mut open: Option<Open> = None;
    let close = |open: &mut Option<Open>, out: &mut Parsed| {
        if let Some(turn) = open.take().and_then(Open::finish) {
            // One speaker, one turn: a turn of the speaker who spoke last
            // goes on with that turn.
            match out.turns.last_mut() {
                Some(last)
                    if turn.speaker.is_some()
                        && last.speaker == turn.speaker
                        && (turn.role.is_none() || last.role == turn.role) =>
                {
                    let base = last.text.len() + 1;
                    last.text.push('\n');
                    last.text.push_str(&turn.text);
                    last.cues.extend(turn.cues.into_iter().map(|c| Cue {
                        at: base + c.at,
                        ..c
                    }));
                    last.lines
                        .extend(turn.lines.into_iter().map(|(at, n)| (base + at, n)));
                }
                _ => out.turns.push(turn),
            }
        }
    };
    // Lines split at `\n` by a SIMD search (std's split is a byte loop).
    let ends = memchr::memchr_iter(b'\n', text.as_bytes()).chain(std::iter::once(text.len()));
    let mut from = 0;
    for (i, end) in ends.enumerate() {
        let raw = &text[from..end];
        from = end + 1;
        let n = i + 1;
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        if is_otter_footer(raw) {
            close(&mut open, &mut out);
            continue;
        }
        let decoded;
        let line = if markdown {
            decoded = super::markdown::unescape(raw);
            decoded.as_str()
        } else {
            raw
        };
        // A weak label line (`About 40 minutes`) where the file is not read
        // by label lines (the turn open was opened by `Name:`) is speech.
        let inline_turn = open
            .as_ref()
            .is_some_and(|o| o.turn.speaker.is_some() && o.label_line.is_none());
        let (seen, said) = match super::labels::recognize(line) {
            super::labels::Seen::Label(l) if l.weak && inline_turn => (None, line),
            super::labels::Seen::Label(l) => {
                let said = &line[l.rest..];
                (Some(l), said)
            }
            super::labels::Seen::Doubt => {
                if out.doubt.is_none() {
                    out.doubt = Some((n, raw.to_string()));
                }
                (None, line)
            }
            super::labels::Seen::Text => (None, line),
        };
        let said = if markdown {
            super::markdown::restore(super::markdown::inline(said))
        } else {
            std::borrow::Cow::Borrowed(said)
        };
        match seen {
            Some(l) => {
                close(&mut open, &mut out);
                let label_cue = l.time.map(|t| Cue {
                    at: 0,
                    start: Some(t),
                    end: None,
                });
                let alone = l.alone;
                let mut o = Open::new(
                    TimedTurn {
                        speaker: Some(l.name),
                        role: l.role,
                        uncertain: false,
                        text: String::new(),
                        cues: label_cue.into_iter().collect(),
                        lines: Vec::new(),
                    },
                    alone.then(|| raw.trim_end().to_string()),
                    n,
                );
                let said = said.trim_start();
                if !alone && !said.is_empty() {
                    o.line(path, n, said)?;
                }
                open = Some(o);
            }
            None if said.trim().is_empty() => {
                // A blank line ends a label line's turn once it has words
                // (Otter); elsewhere it is kept inside the turn.
                match &mut open {
                    Some(o) if o.label_line.is_some() && o.has_words() => {
                        close(&mut open, &mut out);
                    }
                    Some(o) => o.blank += 1,
                    None => {}
                }
            }
            None => match &mut open {
                Some(o) => o.line(path, n, &said)?,
                None => {
                    let mut o = Open::new(unlabelled(), None, n);
                    o.line(path, n, &said)?;
                    open = Some(o);
                }
            },
        }
    }
    close(&mut open, &mut out);
    Ok(out)
}

/// A turn without a speaker.
fn unlabelled() -> TimedTurn {
    TimedTurn {
        speaker: None,
        role: None,
        uncertain: false,
        text: String::new(),
        cues: Vec::new(),
        lines: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turns(text: &str) -> Vec<TimedTurn> {
        parse(Path::new("t.txt"), text, false).unwrap().turns
    }

    /// (speaker, text) of each turn.
    fn said(text: &str) -> Vec<(Option<String>, String)> {
        turns(text)
            .into_iter()
            .map(|t| (t.speaker, t.text))
            .collect()
    }

    fn one(line: &str) -> (String, Vec<(usize, f64)>) {
        let turns = turns(line);
        assert_eq!(turns.len(), 1, "{turns:?}");
        let t = &turns[0];
        (
            t.text.clone(),
            t.cues.iter().map(|c| (c.at, c.start.unwrap())).collect(),
        )
    }

    fn s(x: &str) -> Option<String> {
        Some(x.to_string())
    }

    #[test]
    fn every_timestamp_form_is_taken_out_and_anchored() {
        // The label's time anchors the turn; what was said keeps its own.
        assert_eq!(
            one("[00:01:02] Ana: I grew up [01:10] by the sea."),
            ("I grew up by the sea.".into(), vec![(0, 62.0), (10, 70.0)])
        );
        assert_eq!(
            one("Ana: (00:00:05) we left {00:00:09.5} in May #00:00:12-3#"),
            (
                "we left in May".into(),
                vec![(0, 5.0), (8, 9.5), (14, 12.3)]
            )
        );
        assert_eq!(one("Bo: [1:02:03.25] yes").1, vec![(0, 3723.25)]);
        assert_eq!(one("#00:00:07.5# Bo: no").1, vec![(0, 7.5)]);
        // Not timestamps: one digit, words, a ratio.
        assert_eq!(one("Ana: at 10:30 or [a:b] 1:2").0, "at 10:30 or [a:b] 1:2");
    }

    #[test]
    fn a_timestamp_out_of_range_names_the_line() {
        let err = parse(Path::new("t.txt"), "Ana: hi\n\nBo: [00:61:00] no", false)
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("t.txt:3:") && err.contains("out of range"),
            "{err}"
        );
        assert!(parse(Path::new("t.txt"), "[10:75] x", false).is_err());
    }

    #[test]
    fn label_lines_open_turns() {
        let text = "Ana Lopez  0:03\r\nWe lived by the harbour.\r\nThen [0:09] we left.\r\n\r\nTomas  1:02:05\r\nWhy?\r\n";
        let t = turns(text);
        assert_eq!(t.len(), 2);
        assert_eq!(t[0].speaker.as_deref(), Some("Ana Lopez"));
        assert_eq!(t[0].text, "We lived by the harbour.\nThen we left.");
        assert_eq!(t[0].cues[0].start, Some(3.0));
        assert_eq!(t[0].cues[1].at, "We lived by the harbour.\nThen ".len());
        assert_eq!(t[0].cues[1].start, Some(9.0));
        assert_eq!((t[1].text.as_str(), t[1].start()), ("Why?", Some(3725.0)));
        // A label line without words stays as written; the paragraph after
        // a label line's blank line is no one's.
        assert_eq!(
            said("Interview  10:30\nAna: hi\nBo: yo\n"),
            [
                (None, "Interview  10:30".into()),
                (s("Ana"), "hi".into()),
                (s("Bo"), "yo".into())
            ]
        );
        assert_eq!(
            said("Ana  0:03\nhi there\n\nA note.\n"),
            [(s("Ana"), "hi there".into()), (None, "A note.".into())]
        );
        // Google Meet (one space) and Teams (a spelled offset).
        let t = turns("Ana Lopez 0:49\nwe left\nBo   3 minutes 4 seconds\nwhy?");
        assert_eq!((t[0].start(), t[1].start()), (Some(49.0), Some(184.0)));
        assert_eq!(t[1].speaker.as_deref(), Some("Bo"));
    }

    #[test]
    fn one_speaker_one_turn_and_sentences_with_a_colon_are_speech() {
        assert_eq!(
            said("Ana: part one\n\npart two\nAna: part three\nBo: why?"),
            [
                (s("Ana"), "part one\n\npart two\npart three".into()),
                (s("Bo"), "why?".into())
            ]
        );
        assert_eq!(
            said("Ana: we had one problem.\nThe problem was: money\nBo: I see"),
            [
                (
                    s("Ana"),
                    "we had one problem.\nThe problem was: money".into()
                ),
                (s("Bo"), "I see".into())
            ]
        );
    }

    #[test]
    fn roles_and_doubts() {
        let p = parse(
            Path::new("t.txt"),
            "Ashlee Kupor (SL): okay\n[[ADA]]: hm\nBo: yes",
            false,
        )
        .unwrap();
        assert_eq!(p.turns[0].role.as_deref(), Some("SL"));
        assert_eq!(p.turns[0].text, "okay\n[[ADA]]: hm");
        assert_eq!(p.doubt, Some((2, "[[ADA]]: hm".to_string())));
    }

    #[test]
    fn markdown_markup_is_not_speech() {
        let p = parse(
            Path::new("t.md"),
            "**Jerod Santo:** it&#39;s **really** \\[12:07\\] [here](http://x)\n**Emma** [0:30] we *did*",
            true,
        )
        .unwrap();
        assert_eq!(p.turns[0].speaker.as_deref(), Some("Jerod Santo"));
        assert_eq!(p.turns[0].text, "it's really here");
        assert_eq!(p.turns[0].cues[0].start, Some(727.0));
        assert_eq!(
            (
                p.turns[1].speaker.as_deref(),
                p.turns[1].text.as_str(),
                p.turns[1].start()
            ),
            (Some("Emma"), "we did", Some(30.0))
        );
    }

    #[test]
    fn issue_53_19_otters_footer_is_not_the_last_speakers_words() {
        let text = "Ana Lopez  0:03\nWe lived by the harbour.\n\nTomas  0:09\nWhy?\nTranscribed by https://otter.ai\n";
        let t = turns(text);
        assert_eq!(t.len(), 2, "{t:?}");
        assert_eq!(t[1].text, "Why?");
        // Right after the words, no blank line; and without the scheme.
        let t = turns("Tomas  0:09\nWhy?\n\nTranscribed by otter.ai");
        assert_eq!(t.len(), 1, "{t:?}");
        // A sentence that mentions it is speech.
        let t = turns("Ana: it was transcribed by otter.ai for us");
        assert_eq!(t[0].text, "it was transcribed by otter.ai for us");
    }

    #[test]
    fn a_bom_and_crlf_are_not_text() {
        assert_eq!(
            said("\u{feff}Ana: hi\r\nBo: yo\r\n"),
            [(s("Ana"), "hi".into()), (s("Bo"), "yo".into())]
        );
    }
}
