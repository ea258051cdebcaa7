//! Speaker labels as real exports write them, read once by the readers of
//! every text-bearing format (`.txt`, `.md`, `.docx` paragraphs, REFI-QDA
//! sources, WebVTT and SubRip cue text). A label is a short name (at most
//! five words, 41 characters) at the start of a line:
//!
//! | style | example |
//! |---|---|
//! | name and colon | `Ana Lopez: ...`, `Ana :` |
//! | with a role | `Ashlee Kupor (SL): ...`, `Ana [Participant]: ...`, `Dana - Interviewer: ...` |
//! | roles, any case, numbered | `interviewer:`, `INTERVIEWER:`, `Interviewer 1:`, `Interviewer1:`, `Participant 3:`, `P3:`, `R:`, `I:`, `INT:`, `Moderator:` |
//! | diarization | `SPEAKER_00:`, `[SPEAKER_00]:`, `[SPEAKER_00] ...`, `Speaker 1:`, `Speaker A:` |
//! | Markdown | `**Name:**`, `**Name**:`, `__Name:__`, `*Name:*`, `**Name** [0:00]`, `**Name**  0:00` |
//! | with a time | `Name (00:00):`, `[00:01:23] Name:`, `00:05:32  Name  text` (Krisp) |
//! | a label line (the words on the next lines) | `Name  0:00` (Otter), `Name 0:49` (Google Meet), `Name   3 minutes 4 seconds` (Teams), `**Name** [0:00]` |
//!
//! A name is capitalized word by word (`Ana`, `Ana de la Cruz`, `Dr. J. Smith`,
//! `O'Brien`), or a role word, a diarization label or a participant code in
//! any case. A sentence that holds a colon (`The problem was: money`) is no
//! label: its words are not a name. A line start that looks like a label but
//! breaks the rules (`[[ADA]]:`, an unbalanced `**Name:`) is a doubt the
//! reader reports.
//!
//! Hand-written (no regex): every line of a corpus goes through it, and the
//! common line (no colon near its start, no marker) is refused after a
//! scan of its first few bytes.

/// Most characters of a name.
const MAX_NAME_CHARS: usize = 41;
/// Most words of a name.
const MAX_NAME_WORDS: usize = 5;
/// How far into a line a label's colon may stand (bytes).
const MAX_HEAD_BYTES: usize = 96;

/// A label read at a line's start.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Label {
    /// The speaker as written (emphasis, brackets and role taken off).
    pub name: String,
    /// The role written beside the name (`SL` of `Ashlee Kupor (SL):`).
    pub role: Option<String>,
    /// A time the label carries (seconds).
    pub time: Option<f64>,
    /// The byte offset in the line where what was said starts (the line's
    /// length when nothing follows).
    pub rest: usize,
    /// A label line: what was said follows on the next lines.
    pub alone: bool,
    /// A label line of the weak kind (one space before its time: Google
    /// Meet's `Name 0:49`), which a capitalized phrase and a number can
    /// look like (`About 40 minutes`): the reader takes it only where label
    /// lines are the file's style.
    pub weak: bool,
}

/// How a label stands on its line.
#[derive(Clone, Copy)]
enum Kind {
    /// `Name: text`: what was said follows on the line (or the next lines).
    Inline,
    /// A label line with its time; `weak` with one space before the time.
    Timed { weak: bool },
}

/// What a line's start is.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Seen {
    /// A speaker label.
    Label(Label),
    /// It looks like a label but breaks the rules (reported, not read).
    Doubt,
    /// Speech (or anything else).
    Text,
}

/// Words that name a role (any case; a number may follow): an interviewer
/// or a participant, as research transcripts write them.
const ROLE_WORDS: [&str; 22] = [
    "interviewer",
    "interviewee",
    "participant",
    "respondent",
    "moderator",
    "facilitator",
    "researcher",
    "speaker",
    "student",
    "teacher",
    "host",
    "guest",
    "int",
    "iv",
    "ie",
    "mod",
    "q",
    "a",
    "i",
    "r",
    "p",
    "s",
];

/// Lower-case words that may stand inside a name (`Ana de la Cruz`,
/// `Ludwig van Beethoven`).
const PARTICLES: [&str; 24] = [
    "de", "da", "das", "do", "dos", "du", "del", "della", "der", "den", "des", "van", "von", "la",
    "le", "bin", "ibn", "al", "el", "y", "e", "di", "ten", "zu",
];

/// Whether `word` is a role word, optionally numbered (`Interviewer1`,
/// `P3`) or lettered (`Speaker A` is two words: the letter stands alone).
fn is_role_word(word: &str) -> bool {
    let bare = word.trim_end_matches(|c: char| c.is_ascii_digit());
    ROLE_WORDS.iter().any(|r| r.eq_ignore_ascii_case(bare))
}

/// A diarization label: `SPEAKER_00`, `spk_1`, `SPEAKER_A`.
fn is_diarized(word: &str) -> bool {
    let lower = word.to_ascii_lowercase();
    ["speaker_", "spk_", "spk"].iter().any(|p| {
        lower
            .strip_prefix(p)
            .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_alphanumeric()))
    })
}

/// A character a name may hold.
fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, ' ' | '.' | '\'' | '’' | '-' | '_')
}

/// `s` as a speaker's name, trimmed, when it is one (see the module
/// documentation).
pub(crate) fn name(s: &str) -> Option<&str> {
    let s = s.trim();
    if s.is_empty() || s.chars().count() > MAX_NAME_CHARS || !s.chars().all(is_name_char) {
        return None;
    }
    let words: Vec<&str> = s.split_whitespace().collect();
    if words.is_empty() || words.len() > MAX_NAME_WORDS {
        return None;
    }
    let first = words[0];
    if words.len() <= 2 && (is_role_word(first) || is_diarized(first)) {
        // `Interviewer`, `Interviewer 2`, `Speaker A`, `P3`, `SPEAKER_00`.
        let ok = words.get(1).is_none_or(|w| {
            w.chars().all(|c| c.is_ascii_digit())
                || (w.len() == 1 && w.chars().all(|c| c.is_ascii_alphabetic()))
        });
        if ok {
            return Some(s);
        }
    }
    let capital = |w: &str| w.chars().next().is_some_and(char::is_uppercase);
    if !capital(first) {
        return None;
    }
    let rest_ok = words[1..].iter().all(|w| {
        capital(w)
            || w.chars().all(|c| c.is_ascii_digit())
            || PARTICLES.contains(&w.to_lowercase().as_str())
    });
    rest_ok.then_some(s)
}

/// A name with an optional role or time after it: `Ana (SL)`,
/// `Ana [Participant]`, `Dana - Interviewer`, `Ana (00:00)`.
fn name_and_role(head: &str) -> Option<(String, Option<String>, Option<f64>)> {
    let head = head.trim();
    for (open, close) in [('(', ')'), ('[', ']')] {
        if let Some(inner) = head.strip_suffix(close) {
            if let Some(k) = inner.rfind(open) {
                let (who, what) = (&inner[..k], inner[k + open.len_utf8()..].trim());
                let who = name(who)?;
                if let Some(t) = clock(what) {
                    return Some((who.to_string(), None, Some(t)));
                }
                if !what.is_empty()
                    && what.chars().count() <= 30
                    && !what.contains([':', '(', ')', '[', ']'])
                {
                    return Some((who.to_string(), Some(what.to_string()), None));
                }
                return None;
            }
        }
    }
    // A dash (`-`, or the first byte of `–` and `—`) is rare in a label.
    let dashed = memchr::memchr2(b'-', 0xE2, head.as_bytes()).is_some();
    for dash in [" - ", " – ", " — "].into_iter().filter(|_| dashed) {
        if let Some((who, role)) = head.split_once(dash) {
            let (who, role) = (name(who)?, role.trim());
            if !role.is_empty() && role.chars().count() <= 30 && name(role).is_some() {
                return Some((who.to_string(), Some(role.to_string()), None));
            }
            return None;
        }
    }
    name(head).map(|n| (n.to_string(), None, None))
}

/// Seconds of `m:ss`, `mm:ss`, `h:mm:ss` (a fraction allowed).
pub(crate) fn clock(s: &str) -> Option<f64> {
    let s = s.trim();
    let (whole, frac) = match s.split_once(['.', ',']) {
        Some((w, f)) if !f.is_empty() && f.len() <= 3 && f.bytes().all(|b| b.is_ascii_digit()) => {
            (w, Some(f))
        }
        Some(_) => return None,
        None => (s, None),
    };
    let parts: Vec<&str> = whole.split(':').collect();
    if !(2..=3).contains(&parts.len())
        || parts
            .iter()
            .any(|p| p.is_empty() || p.len() > 3 || !p.bytes().all(|b| b.is_ascii_digit()))
    {
        return None;
    }
    let n = |p: &str| p.parse::<u64>().ok();
    let (h, m, sec) = match parts.as_slice() {
        [m, s] => (None, n(m)?, n(s)?),
        [h, m, s] => (Some(n(h)?), n(m)?, n(s)?),
        _ => return None,
    };
    if parts.last().is_some_and(|p| p.len() != 2) {
        return None;
    }
    super::seconds(h, m, sec, frac).ok()
}

/// Seconds of a spelled-out offset: `3 minutes 4 seconds`, `1 hour 2
/// minutes`, `45 seconds`, `1 minute` (Teams' Word transcripts).
pub(crate) fn spelled(s: &str) -> Option<f64> {
    let words: Vec<&str> = s.split_whitespace().collect();
    if words.is_empty() || !words.len().is_multiple_of(2) || words.len() > 6 {
        return None;
    }
    let mut total = 0u64;
    for pair in words.chunks(2) {
        let n: u64 = pair[0].parse().ok()?;
        let unit = match pair[1].trim_end_matches(',').to_ascii_lowercase().as_str() {
            "hour" | "hours" => 3600,
            "minute" | "minutes" => 60,
            "second" | "seconds" => 1,
            _ => return None,
        };
        total = total.checked_add(n.checked_mul(unit)?)?;
    }
    (total < 1 << 40).then_some(total as f64)
}

/// A time written after a label: `[0:00]`, `(0:00)`, `0:00`, or spelled.
fn time_of(s: &str) -> Option<f64> {
    let t = s.trim();
    let inner = t
        .strip_prefix('[')
        .and_then(|r| r.strip_suffix(']'))
        .or_else(|| t.strip_prefix('(').and_then(|r| r.strip_suffix(')')))
        .unwrap_or(t);
    clock(inner).or_else(|| spelled(inner))
}

/// A leading time: `[00:01:23] `, `(00:01:23) `, or `00:05:32  ` (Krisp:
/// two or more spaces after it). Its seconds and the bytes it takes.
fn leading_time(line: &str) -> Option<(f64, usize)> {
    let t = line.trim_start();
    let lead = line.len() - t.len();
    for (open, close) in [('[', ']'), ('(', ')')] {
        if let Some(rest) = t.strip_prefix(open) {
            let end = rest.find(close)?;
            let secs = clock(&rest[..end])?;
            let after = &rest[end + 1..];
            let skip = after.len() - after.trim_start().len();
            return Some((secs, lead + 1 + end + 1 + skip));
        }
    }
    let end = t.find(|c: char| !(c.is_ascii_digit() || c == ':' || c == '.'))?;
    let secs = clock(&t[..end])?;
    let after = &t[end..];
    let skip = after.len() - after.trim_start_matches([' ', '\t']).len();
    (after.starts_with("  ") || after.starts_with('\t')).then_some((secs, lead + end + skip))
}

/// The emphasis marker a line opens with (`**`, `__`, `*`, `_`).
fn emphasis(t: &str) -> Option<&'static str> {
    ["**", "__", "*", "_"]
        .into_iter()
        .find(|m| t.starts_with(m) && !(m.len() == 1 && t[1..].starts_with(*m)))
}

/// What the start of `line` is. `line` holds no line break.
pub(crate) fn recognize(line: &str) -> Seen {
    // The common line is refused at once: no colon, bracket, emphasis or
    // time near its start.
    let head_end = floor(line, MAX_HEAD_BYTES.min(line.len()));
    let head = &line[..head_end];
    let trimmed = head.trim_start();
    let marked = trimmed.starts_with(['[', '(', '*', '_'])
        || trimmed.starts_with(|c: char| c.is_ascii_digit());
    let ends_like_time = line
        .trim_end()
        .ends_with(|c: char| c.is_ascii_digit() || c == 's' || c == 'e' || c == ']' || c == ')');
    if !marked && !head.contains(':') && !ends_like_time {
        return Seen::Text;
    }
    // A leading time (`[00:01:23] Name: ...`, Krisp's `00:05:32  Name  text`).
    let (time, from) = leading_time(line).unwrap_or((f64::NAN, 0));
    let time = (!time.is_nan()).then_some(time);
    let body = &line[from..];
    let lead = body.len() - body.trim_start().len();
    let t = &body[lead..];
    let at = from + lead;
    let label = |name: String, role, label_time: Option<f64>, rest: usize, kind: Kind| {
        let rest = (at + rest).min(line.len());
        let rest = rest + (line[rest..].len() - line[rest..].trim_start().len());
        let timed = matches!(kind, Kind::Timed { .. });
        Seen::Label(Label {
            name,
            role,
            time: label_time.or(time),
            alone: timed && line[rest..].trim().is_empty(),
            weak: matches!(kind, Kind::Timed { weak: true }),
            rest,
        })
    };
    // Krisp: time, two spaces, name, two spaces, text.
    if time.is_some() && from > 0 && !line[..from].trim_start().starts_with(['[', '(']) {
        if let Some(gap) = t.find("  ").or_else(|| t.find('\t')) {
            if let Some(n) = name(&t[..gap]) {
                return label(n.to_string(), None, None, gap, Kind::Inline);
            }
        }
    }
    // Markdown emphasis: `**Name:**`, `**Name**:`, `**Name** [0:00]`.
    if let Some(m) = emphasis(t) {
        let inner_from = m.len();
        let Some(close) = t[inner_from..].find(m).map(|k| inner_from + k) else {
            return doubt_if_colon(t);
        };
        let inner = &t[inner_from..close];
        let after = &t[close + m.len()..];
        if let Some(who) = inner
            .strip_suffix(':')
            .or_else(|| inner.trim_end().strip_suffix(':'))
        {
            return match name_and_role(who) {
                Some((n, role, lt)) => label(n, role, lt, close + m.len(), Kind::Inline),
                None => doubt_if_colon(t),
            };
        }
        if let Some(rest) = after
            .strip_prefix(':')
            .or_else(|| after.trim_start().strip_prefix(':'))
        {
            let used = t.len() - rest.len();
            return match name_and_role(inner) {
                Some((n, role, lt)) => label(n, role, lt, used, Kind::Inline),
                None => Seen::Doubt,
            };
        }
        // A time after the emphasized name: `**Emma** [0:00] text`.
        let after_t = after.trim_start();
        let time_end = if after_t.starts_with('[') {
            after_t.find(']').map(|k| k + 1)
        } else if after_t.starts_with('(') {
            after_t.find(')').map(|k| k + 1)
        } else {
            Some(after_t.find(char::is_whitespace).unwrap_or(after_t.len()))
        };
        if let (Some(e), Some((n, role, _))) = (time_end, name_and_role(inner)) {
            if let Some(lt) = time_of(&after_t[..e]) {
                let used = t.len() - after_t.len() + e;
                return label(n, role, Some(lt), used, Kind::Timed { weak: false });
            }
        }
        return Seen::Text;
    }
    // Brackets: `[SPEAKER_00]:`, `[SPEAKER_00] text`, `[Ana]: text`.
    if let Some(rest) = t.strip_prefix('[') {
        let Some(end) = rest.find(']') else {
            return doubt_if_colon(t);
        };
        let inner = &rest[..end];
        let after = &rest[end + 1..];
        if inner.starts_with('[') || inner.contains('[') {
            return doubt_if_colon(t);
        }
        let Some(n) = name(inner) else {
            return if after.trim_start().starts_with(':') {
                Seen::Doubt
            } else {
                Seen::Text
            };
        };
        if let Some(r) = after
            .strip_prefix(':')
            .or_else(|| after.trim_start().strip_prefix(':'))
        {
            return label(n.to_string(), None, None, t.len() - r.len(), Kind::Inline);
        }
        if is_diarized(n.split_whitespace().next().unwrap_or(""))
            || n.to_ascii_lowercase().starts_with("speaker")
        {
            return label(n.to_string(), None, None, 1 + end + 1, Kind::Inline);
        }
        return Seen::Text;
    }
    // `Name (Role): text`, `Name: text`, `Name :`.
    // The first colon followed by a space or the line's end: a colon
    // inside a time (`Ana (00:12):`, `at 10:30`) or a URL is no label's.
    let head_t = &t[..floor(t, MAX_HEAD_BYTES.min(t.len()))];
    let colon = head_t.match_indices(':').map(|(k, _)| k).find(|&k| {
        let after = &t[k + 1..];
        after.is_empty() || after.starts_with(char::is_whitespace)
    });
    if let Some(colon) = colon {
        let head = &t[..colon];
        if let Some((n, role, lt)) = name_and_role(head) {
            return label(n, role, lt, colon + 1, Kind::Inline);
        }
        if head.starts_with(['[', '(', '*', '_', '{', '<']) {
            return Seen::Doubt;
        }
    }
    // A label line: `Name  0:00` (Otter), `Name 0:49` (Meet), `Name   3
    // minutes 4 seconds` (Teams): a name, then only a time.
    let line_t = t.trim_end();
    if let Some(split) = time_suffix(line_t) {
        let who = &line_t[..split];
        if let Some((n, role, _)) = name_and_role(who) {
            if let Some(lt) = time_of(&line_t[split..]) {
                // Two or more spaces (or a tab) before the time: Otter's,
                // Teams'; one: Google Meet's, or a phrase with a number.
                let gap = &line_t[..split];
                let weak = !(gap.ends_with("  ") || gap.ends_with('\t'));
                return label(n, role, Some(lt), line_t.len(), Kind::Timed { weak });
            }
        }
    }
    Seen::Text
}

/// Where the time that ends a label line starts: after the last run of
/// spaces before a clock (`0:49`, `[0:00]`) or a spelled offset.
fn time_suffix(line: &str) -> Option<usize> {
    if !line.ends_with(|c: char| c.is_ascii_digit() || c == ']' || c == ')' || c == 's' || c == 'e')
    {
        return None;
    }
    // A clock: the last word.
    if let Some(k) = line.rfind([' ', '\t']) {
        if time_of(&line[k + 1..]).is_some() && !line[..k].trim().is_empty() {
            return Some(k + 1);
        }
    }
    // A spelled offset (`1 hour 2 minutes 3 seconds`: short): the first
    // digit word of the line's tail from which the rest is one.
    let tail = floor(line, line.len().saturating_sub(40));
    let mut at = 0;
    for (k, c) in line.char_indices().skip_while(|(k, _)| *k < tail) {
        if c.is_ascii_digit()
            && (k == 0 || line[..k].ends_with([' ', '\t']))
            && spelled(&line[k..]).is_some()
        {
            at = k;
            break;
        }
    }
    (at > 0).then_some(at)
}

/// A label-like start that breaks the rules, when a colon follows soon.
fn doubt_if_colon(t: &str) -> Seen {
    if t[..floor(t, 48.min(t.len()))].contains(':') {
        Seen::Doubt
    } else {
        Seen::Text
    }
}

/// The largest char boundary of `s` at or below `at`.
fn floor(s: &str, mut at: usize) -> usize {
    while at > 0 && !s.is_char_boundary(at) {
        at -= 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (name, role, time, what was said) of a label line.
    fn read(line: &str) -> Option<(String, Option<String>, Option<f64>, String)> {
        match recognize(line) {
            Seen::Label(l) => Some((l.name, l.role, l.time, line[l.rest..].to_string())),
            _ => None,
        }
    }

    fn who(line: &str) -> Option<String> {
        read(line).map(|r| r.0)
    }

    #[test]
    fn names_roles_and_diarization_labels() {
        for (line, name) in [
            ("Ana: we left", "Ana"),
            ("Ana Lopez : we left", "Ana Lopez"),
            ("interviewer: why?", "interviewer"),
            ("INTERVIEWER: why?", "INTERVIEWER"),
            ("Interviewer 1: why?", "Interviewer 1"),
            ("Interviewer1: why?", "Interviewer1"),
            ("Participant 3: yes", "Participant 3"),
            ("P3: yes", "P3"),
            ("R: yes", "R"),
            ("I: why?", "I"),
            ("INT: why?", "INT"),
            ("Moderator: welcome", "Moderator"),
            ("Facilitator: welcome", "Facilitator"),
            ("SPEAKER_00: hello", "SPEAKER_00"),
            ("[SPEAKER_00]: hello", "SPEAKER_00"),
            ("[SPEAKER_01] hello", "SPEAKER_01"),
            ("Speaker 1: hello", "Speaker 1"),
            ("Speaker A: hello", "Speaker A"),
            ("Ana de la Cruz: hola", "Ana de la Cruz"),
            ("Dr. J. O'Brien: hm", "Dr. J. O'Brien"),
        ] {
            assert_eq!(who(line).as_deref(), Some(name), "{line}");
        }
        assert_eq!(read("[SPEAKER_01] hello").unwrap().3, "hello");
    }

    #[test]
    fn roles_beside_a_name() {
        let r = read("Ashlee Kupor (SL): okay so").unwrap();
        assert_eq!(
            (r.0.as_str(), r.1.as_deref(), r.3.as_str()),
            ("Ashlee Kupor", Some("SL"), "okay so")
        );
        let r = read("Ana [Participant]: yes").unwrap();
        assert_eq!((r.0.as_str(), r.1.as_deref()), ("Ana", Some("Participant")));
        let r = read("Dana Whitfield - Interviewer: why").unwrap();
        assert_eq!(
            (r.0.as_str(), r.1.as_deref()),
            ("Dana Whitfield", Some("Interviewer"))
        );
        let r = read("Ana (00:12): we left").unwrap();
        assert_eq!((r.0.as_str(), r.1, r.2), ("Ana", None, Some(12.0)));
    }

    #[test]
    fn markdown_labels() {
        for line in [
            "**Jerod Santo:** welcome",
            "**Jerod Santo**: welcome",
            "__Jerod Santo:__ welcome",
            "*Jerod Santo:* welcome",
        ] {
            let r = read(line).unwrap_or_else(|| panic!("{line}"));
            assert_eq!(
                (r.0.as_str(), r.3.as_str()),
                ("Jerod Santo", "welcome"),
                "{line}"
            );
        }
        let r = read("**Emma** [0:07] so we began").unwrap();
        assert_eq!(
            (r.0.as_str(), r.2, r.3.as_str()),
            ("Emma", Some(7.0), "so we began")
        );
        let l = match recognize("**Emma**  0:00") {
            Seen::Label(l) => l,
            other => panic!("{other:?}"),
        };
        assert!(l.alone && l.time == Some(0.0) && l.name == "Emma");
    }

    #[test]
    fn times_with_labels() {
        let r = read("[00:01:23] Ana: we left").unwrap();
        assert_eq!(
            (r.0.as_str(), r.2, r.3.as_str()),
            ("Ana", Some(83.0), "we left")
        );
        let r = read("00:05:32  Ana Lopez  we left").unwrap();
        assert_eq!(
            (r.0.as_str(), r.2, r.3.as_str()),
            ("Ana Lopez", Some(332.0), "we left")
        );
        for (line, secs) in [
            ("Ana Lopez  0:03", 3.0),
            ("Ana Lopez 0:49", 49.0),
            ("Ana Lopez   3 minutes 4 seconds", 184.0),
            ("Ana   1:02:05", 3725.0),
        ] {
            match recognize(line) {
                Seen::Label(l) => assert!(
                    l.alone && l.time == Some(secs) && (l.name == "Ana Lopez" || l.name == "Ana"),
                    "{line}: {l:?}"
                ),
                other => panic!("{line}: {other:?}"),
            }
        }
    }

    #[test]
    fn sentences_with_a_colon_are_no_labels() {
        for line in [
            "The problem was: money",
            "we met at 10:30 and left",
            "So the answer is: maybe",
            "see https://example.org: there",
            "It was 1987",
            "The year was 1987 and then",
            "a plain line",
            "",
        ] {
            assert_eq!(recognize(line), Seen::Text, "{line}");
        }
    }

    #[test]
    fn label_like_starts_that_break_the_rules_are_doubts() {
        for line in [
            "[[ADA]]: yes",
            "**Ana: unbalanced",
            "[not a name here]: x",
            "(Ana): hi",
        ] {
            assert_eq!(recognize(line), Seen::Doubt, "{line}");
        }
    }

    #[test]
    fn clocks_and_spelled_offsets() {
        assert_eq!(clock("0:49"), Some(49.0));
        assert_eq!(clock("1:02:03"), Some(3723.0));
        assert_eq!(clock("12:31.5"), Some(751.5));
        assert_eq!(clock("10:3"), None);
        assert_eq!(clock("a:bc"), None);
        assert_eq!(spelled("3 minutes 4 seconds"), Some(184.0));
        assert_eq!(spelled("1 hour 2 minutes"), Some(3720.0));
        assert_eq!(spelled("3 apples"), None);
    }
}
