//! Caption files: WebVTT (`.vtt`, as the W3C spec defines it: a `WEBVTT`
//! header, NOTE/STYLE/REGION blocks skipped, optional cue ids, cue settings
//! after the timing ignored, the speaker from a voice span `<v Name>` or
//! `<v.class Name>` or a `Name:` prefix, other tags removed, character
//! references decoded after the tags) and SubRip (`.srt`: numbered cues,
//! `hh:mm:ss,mmm --> hh:mm:ss,mmm`, a `Name:` prefix as speaker, tags
//! removed). Consecutive cues of one speaker are one turn, joined with a
//! space.

use super::{line_error, seconds, TimedTurn};
use crate::corpus::CorpusError;
use regex::Regex;
use std::path::Path;
use std::sync::OnceLock;

/// A cue timestamp: `hh:mm:ss.ttt` or `mm:ss.ttt` (WebVTT), `hh:mm:ss,mmm`
/// (SubRip; a `.` is taken too).
fn timestamp() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"^(?:([0-9]+):)?([0-9]{2}):([0-9]{2})[.,]([0-9]{1,3})$")
            .expect("the cue time pattern compiles")
    })
}

fn cue_time(path: &Path, n: usize, s: &str) -> Result<f64, CorpusError> {
    let caps = timestamp()
        .captures(s.trim())
        .ok_or_else(|| line_error(path, n, format!("`{}` is not a cue timestamp", s.trim())))?;
    let num = |i: usize| {
        caps.get(i)
            .map(|m| m.as_str().parse::<u64>().unwrap_or(u64::MAX))
    };
    seconds(
        num(1),
        num(2).unwrap_or(0),
        num(3).unwrap_or(0),
        caps.get(4).map(|m| m.as_str()),
    )
    .map_err(|e| line_error(path, n, e))
}

/// The start and end of a timing line (`start --> end [settings]`).
fn timing(path: &Path, n: usize, line: &str) -> Result<(f64, f64), CorpusError> {
    let (a, rest) = line
        .split_once("-->")
        .ok_or_else(|| line_error(path, n, "a timing line without `-->`"))?;
    let b = rest.split_whitespace().next().unwrap_or("");
    let (start, end) = (cue_time(path, n, a)?, cue_time(path, n, b)?);
    if end < start {
        return Err(line_error(path, n, "the cue ends before it starts"));
    }
    Ok((start, end))
}

/// The blocks of a caption file (lines between blank lines), each with
/// the number of its first line.
fn blocks(text: &str) -> Vec<(usize, Vec<&str>)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut out = Vec::new();
    let mut cur: Vec<&str> = Vec::new();
    let mut first = 0;
    for (i, raw) in text.split('\n').enumerate() {
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        // A timing line also ends the block before it when that block has
        // its own timing line already or is the WebVTT header (a cue's
        // number or id just before it goes with it).
        let timing_ends_block = line.contains("-->")
            && (cur.iter().any(|l| l.contains("-->"))
                || cur.first().is_some_and(|l| l.starts_with("WEBVTT")));
        if timing_ends_block {
            let carried = match cur.last() {
                Some(id) if cur.len() > 2 && !id.contains("-->") && is_cue_number(id) => cur.pop(),
                _ => None,
            };
            out.push((first, std::mem::take(&mut cur)));
            first = i + 1;
            if let Some(id) = carried {
                first = i;
                cur.push(id);
            }
            cur.push(line);
            continue;
        }
        if line.trim().is_empty() {
            if !cur.is_empty() {
                out.push((first, std::mem::take(&mut cur)));
            }
        } else {
            if cur.is_empty() {
                first = i + 1;
            }
            cur.push(line);
        }
    }
    if !cur.is_empty() {
        out.push((first, cur));
    }
    out
}

/// A SubRip cue number.
fn is_cue_number(line: &str) -> bool {
    let t = line.trim();
    !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit())
}

/// A WebVTT voice span's speaker: `<v Name>` or `<v.class Name>`.
fn voice() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"<v(?:\.[^\s>]+)*[ \t]+([^>]+)>").expect("the voice pattern compiles")
    })
}

/// `text` without its tags (`<...>`, and SubRip's `{\an8}`-style ones).
fn without_tags(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(['<', '{']) {
        out.push_str(&rest[..i]);
        let close = if rest[i..].starts_with('<') { '>' } else { '}' };
        let is_ass = close == '}' && rest[i + 1..].starts_with('\\');
        match rest[i..].find(close) {
            Some(j) if close == '>' || is_ass => rest = &rest[i + j + 1..],
            _ => {
                out.push_str(&rest[i..i + 1]);
                rest = &rest[i + 1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// Character references decoded (`&lt;`, `&amp;`, `&nbsp;`, `&#39;`,
/// `&#x27;`, ...); an unknown one is kept as written.
pub(crate) fn decode_entities(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        // A `;` within 12 bytes (a byte index: always a char boundary).
        let end = tail.as_bytes()[..tail.len().min(12)]
            .iter()
            .position(|&b| b == b';');
        let decoded = end.and_then(|e| {
            let name = &tail[1..e];
            let c = match name {
                "amp" => Some('&'),
                "lt" => Some('<'),
                "gt" => Some('>'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                "nbsp" => Some('\u{a0}'),
                "lrm" => Some('\u{200e}'),
                "rlm" => Some('\u{200f}'),
                _ => name
                    .strip_prefix("#x")
                    .or_else(|| name.strip_prefix("#X"))
                    .and_then(|h| u32::from_str_radix(h, 16).ok())
                    .or_else(|| name.strip_prefix('#').and_then(|d| d.parse().ok()))
                    .and_then(char::from_u32),
            };
            c.map(|c| (c, e + 1))
        });
        match decoded {
            Some((c, len)) => {
                out.push(c);
                rest = &tail[len..];
            }
            None => {
                out.push('&');
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// Tags removed, then references decoded, whitespace collapsed.
fn clean(markup: &str) -> String {
    let text = decode_entities(&without_tags(markup));
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A speaker name, None when empty.
fn name(s: &str) -> Option<String> {
    Some(s.trim().to_string()).filter(|s| !s.is_empty())
}

/// A cue's speaker as its text gives it: the speaker, the role beside
/// the name, and what was said.
type Said = (Option<String>, Option<String>, String);

/// A cue's payload lines (joined with a space) as speakers and texts: each
/// voice span's name for the text up to the next span (`<v Ana>Yes.</v>
/// <v Bo>No.</v>` is two), else a label at its start (every style
/// [`super::labels`] reads: `Name:`, `[SPEAKER_00]:`, `Name (Role):`);
/// tags removed, then references decoded.
fn payload(lines: &[&str]) -> Vec<Said> {
    let joined = lines.join(" ");
    let spans: Vec<_> = voice().captures_iter(&joined).collect();
    if spans.is_empty() {
        let text = clean(&joined);
        // A label line (`About 40 minutes`) is no label in a cue: the cue
        // is what was said.
        return vec![match super::labels::recognize(&text) {
            super::labels::Seen::Label(l) if !l.alone => {
                (Some(l.name), l.role, text[l.rest..].trim().to_string())
            }
            _ => (None, None, text),
        }];
    }
    let mut out = Vec::new();
    let first = spans[0].get(0).map_or(0, |m| m.start());
    if !clean(&joined[..first]).is_empty() {
        out.push((None, None, clean(&joined[..first])));
    }
    for (k, c) in spans.iter().enumerate() {
        let from = c.get(0).map_or(0, |m| m.end());
        let to = spans
            .get(k + 1)
            .and_then(|n| n.get(0))
            .map_or(joined.len(), |m| m.start());
        let speaker = c.get(1).and_then(|m| name(&decode_entities(m.as_str())));
        out.push((speaker, None, clean(&joined[from..to])));
    }
    out
}

/// Whether a turn's text ends a sentence (`.`, `?`, `!`, `…`, a closing
/// quotation mark after one).
fn ends_sentence(text: &str) -> bool {
    let t = text.trim_end().trim_end_matches(['"', '”', '’', '\'', ')']);
    t.ends_with(['.', '?', '!', '…'])
}

/// One cue block, WebVTT's or SubRip's: an optional cue id (or number),
/// the timing line, then its payload. Its texts join the turns
/// (consecutive cues of one speaker are one turn, each cue an anchor);
/// cues without text are skipped. `first` is the block's first line.
fn cue_into(
    path: &Path,
    first: usize,
    lines: &[&str],
    turns: &mut Vec<TimedTurn>,
    starts: &mut Vec<usize>,
) -> Result<(), CorpusError> {
    let t = usize::from(!lines.first().is_some_and(|l| l.contains("-->")));
    let Some(line) = lines.get(t) else {
        return Err(line_error(path, first, "a timing line without `-->`"));
    };
    let (start, end) = timing(path, first + t, line)?;
    for (speaker, role, text) in payload(&lines[t + 1..]) {
        if text.is_empty() {
            continue;
        }
        // A cue without a label right after a labelled one, inside its
        // sentence, goes on with it; any other goes alone (its speaker in
        // doubt when labelled cues stand around it: see `mark_uncertain`).
        let speaker = match (speaker, turns.last()) {
            (None, Some(last)) if last.speaker.is_some() && !ends_sentence(&last.text) => {
                last.speaker.clone()
            }
            (s, _) => s,
        };
        let role = match (&role, turns.last()) {
            (None, Some(last)) if last.speaker == speaker => last.role.clone(),
            _ => role,
        };
        super::push_cue(turns, speaker, role, text, start, end);
        if starts.len() < turns.len() {
            starts.push(first);
        }
    }
    Ok(())
}

/// Marks the turns without a speaker that stand between labelled ones as
/// in doubt (`starts`: each turn's first line), and says where the first
/// one is, as a warning.
fn mark_uncertain(path: &Path, turns: &mut [TimedTurn], starts: &[usize]) -> Vec<String> {
    let (Some(first), Some(last)) = (
        turns.iter().position(|t| t.speaker.is_some()),
        turns.iter().rposition(|t| t.speaker.is_some()),
    ) else {
        return Vec::new();
    };
    let mut doubt = None;
    for (k, t) in turns.iter_mut().enumerate().take(last).skip(first) {
        if t.speaker.is_none() {
            t.uncertain = true;
            if doubt.is_none() {
                doubt = Some(format!(
                    "{}:{}: a cue without a speaker between labelled cues ({}): its speaker is in doubt (attribution `uncertain_speaker`)",
                    path.display(),
                    starts.get(k).copied().unwrap_or(0),
                    crate::corpus::preview(&t.text)
                ));
            }
        }
    }
    doubt.into_iter().collect()
}

/// The turns of a WebVTT file, and the reader's doubts.
pub(crate) fn parse_vtt(
    path: &Path,
    text: &str,
) -> Result<(Vec<TimedTurn>, Vec<String>), CorpusError> {
    let blocks = blocks(text);
    let header = blocks
        .first()
        .and_then(|(_, b)| b.first())
        .copied()
        .unwrap_or("");
    let is_header = header.starts_with("WEBVTT")
        && header[6..]
            .chars()
            .next()
            .is_none_or(|c| c == ' ' || c == '\t');
    if !is_header {
        return Err(line_error(
            path,
            1,
            "not a WebVTT file (no `WEBVTT` header)",
        ));
    }
    let mut turns = Vec::new();
    let mut starts = Vec::new();
    for (first, lines) in blocks.iter().skip(1) {
        let head = lines[0];
        let keyword = |k: &str| {
            head.strip_prefix(k)
                .is_some_and(|r| r.is_empty() || r.starts_with([' ', '\t']))
        };
        if keyword("NOTE") || keyword("STYLE") || keyword("REGION") {
            continue;
        }
        cue_into(path, *first, lines, &mut turns, &mut starts)?;
    }
    let doubts = mark_uncertain(path, &mut turns, &starts);
    Ok((turns, doubts))
}

/// The turns of a SubRip file, and the reader's doubts.
pub(crate) fn parse_srt(
    path: &Path,
    text: &str,
) -> Result<(Vec<TimedTurn>, Vec<String>), CorpusError> {
    let mut turns = Vec::new();
    let mut starts = Vec::new();
    for (first, lines) in blocks(text) {
        cue_into(path, first, &lines, &mut turns, &mut starts)?;
    }
    let doubts = mark_uncertain(path, &mut turns, &starts);
    Ok((turns, doubts))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Speaker, text, start and end of a turn.
    type Row<'a> = (Option<&'a str>, &'a str, Option<f64>, Option<f64>);

    fn summary(turns: &[TimedTurn]) -> Vec<Row<'_>> {
        turns
            .iter()
            .map(|t| (t.speaker.as_deref(), t.text.as_str(), t.start(), t.end()))
            .collect()
    }

    #[test]
    fn webvtt_of_the_spec_zoom_and_teams() {
        let vtt = "\u{feff}WEBVTT - a title\r\n\r\nNOTE a comment\r\nover lines\r\n\r\nSTYLE\r\n::cue { color: red }\r\n\r\n\
                   1\r\n00:00:01.000 --> 00:00:04.000\r\nAna Lopez: We lived by\r\n\r\n\
                   2\r\n00:00:04.000 --> 00:00:06.500\r\nAna Lopez: the harbour.\r\n\r\n\
                   5c7f0e2a-9a8b-4b1c-8d2e-1f2a3b4c5d6e/12-0\r\n00:01:00.000 --> 00:01:02.000 align:start position:10%\r\n<v Tomas Berg>Why &lt;then&gt;?</v>\r\n\r\n\
                   00:01:03.000 --> 00:01:05.000\r\n<v.loud Ana Lopez><i>Money</i> &amp; work.</v>\r\n";
        let turns = parse_vtt(Path::new("z.vtt"), vtt).unwrap().0;
        assert_eq!(
            summary(&turns),
            [
                (
                    Some("Ana Lopez"),
                    "We lived by the harbour.",
                    Some(1.0),
                    Some(6.5)
                ),
                (Some("Tomas Berg"), "Why <then>?", Some(60.0), Some(62.0)),
                (Some("Ana Lopez"), "Money & work.", Some(63.0), Some(65.0)),
            ]
        );
        assert_eq!(turns[0].cues[1].at, "We lived by ".len());
        assert_eq!(
            parse_vtt(Path::new("z.vtt"), "WEBVTT\n\n01:02.500 --> 01:04.000\nhi")
                .unwrap()
                .0[0]
                .start(),
            Some(62.5)
        );
    }

    #[test]
    fn webvtt_errors_name_the_line() {
        let err = parse_vtt(
            Path::new("z.vtt"),
            "WEBVTT\n\n1\n00:00:01.000 00:00:02.000\nhi\n",
        )
        .unwrap_err()
        .to_string();
        assert!(err.starts_with("z.vtt:4:") && err.contains("-->"), "{err}");
        let err =
            parse_vtt(Path::new("z.vtt"), "1\n00:00:01.000 --> 00:00:02.000\nhi").unwrap_err();
        assert!(err.to_string().contains("WEBVTT"), "{err}");
        let err = parse_vtt(
            Path::new("z.vtt"),
            "WEBVTT\n\n00:00:61.000 --> 00:01:02.000\nhi",
        )
        .unwrap_err();
        assert!(
            err.to_string().starts_with("z.vtt:3:") && err.to_string().contains("range"),
            "{err}"
        );
        // A cue without text is fine.
        assert!(parse_vtt(
            Path::new("z.vtt"),
            "WEBVTT\n\n00:00:01.000 --> 00:00:02.000\n"
        )
        .unwrap()
        .0
        .is_empty());
    }

    #[test]
    fn subrip_cues_speakers_and_tags() {
        let srt = "1\n00:00:01,000 --> 00:00:03,000\nAna: <i>We left</i>\n{\\an8}in May.\n\n2\n00:00:03,000 --> 00:00:04,250\nAna: Then\n\n3\n00:00:05,000 --> 00:00:06,000\nTomas: Why?\n";
        let turns = parse_srt(Path::new("s.srt"), srt).unwrap().0;
        assert_eq!(
            summary(&turns),
            [
                (Some("Ana"), "We left in May. Then", Some(1.0), Some(4.25)),
                (Some("Tomas"), "Why?", Some(5.0), Some(6.0)),
            ]
        );
        let err = parse_srt(Path::new("s.srt"), "1\n00:00:01,000 -> 00:00:02,000\nhi").unwrap_err();
        assert!(err.to_string().starts_with("s.srt:2:"), "{err}");
    }

    #[test]
    fn references_decode_after_tags() {
        assert_eq!(
            decode_entities("a &lt;b&gt; &#39;c&#x27; &unknown; &"),
            "a <b> 'c' &unknown; &"
        );
        assert_eq!(
            payload(&["&lt;in&gt; <b>x</b>"]),
            [(None, None, "<in> x".to_string())]
        );
        assert_eq!(
            payload(&["<v Ana>Yes.</v> <v.loud Bo>No &amp; no.</v>", "<v  >hm"]),
            [
                (Some("Ana".to_string()), None, "Yes.".to_string()),
                (Some("Bo".to_string()), None, "No & no.".to_string()),
                (None, None, "hm".to_string()),
            ]
        );
        // Entities across a cut never split a character.
        assert_eq!(
            decode_entities("Fish&Chips für… &amp"),
            "Fish&Chips für… &amp"
        );
    }

    #[test]
    fn a_timing_line_ends_the_header_or_a_cue_without_a_blank_line() {
        let vtt = "WEBVTT\n00:00:01.000 --> 00:00:02.000\nhi\n00:00:02.000 --> 00:00:03.000\nthere";
        let turns = parse_vtt(Path::new("v.vtt"), vtt).unwrap().0;
        assert_eq!(summary(&turns), [(None, "hi there", Some(1.0), Some(3.0))]);
        assert_eq!(turns[0].cues.len(), 2);
        let srt =
            "1\n00:00:01,000 --> 00:00:02,000\nAna: hi\n2\n00:00:02,000 --> 00:00:03,000\nBo: yo\n";
        let turns = parse_srt(Path::new("s.srt"), srt).unwrap().0;
        assert_eq!(
            summary(&turns),
            [
                (Some("Ana"), "hi", Some(1.0), Some(2.0)),
                (Some("Bo"), "yo", Some(2.0), Some(3.0))
            ]
        );
        // Non-ASCII digits are not a timestamp.
        assert!(parse_srt(Path::new("s.srt"), "1\n٠٠:٠٠:٠١,٠٠٠ --> 00:00:02,000\nx").is_err());
    }
}
