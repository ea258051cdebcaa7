//! Turns and speakers of an interview transcript.
//!
//! A line that starts with a speaker label (by default
//! [`DEFAULT_SPEAKER_PATTERN`]: a capitalized name of up to 41 characters,
//! then `:` and a space) opens a turn; the text up to the next label
//! belongs to it. Text before the first label is a turn without a speaker,
//! and a transcript without labels is one such turn. Labels are not part of
//! what was said: [`Spoken`] is the transcript with every label taken out,
//! with a map back to the original's byte offsets.
//!
//! ```
//! use corpus_eval::citations::{SpeakerConfig, Turns};
//! let text = "Interviewer: Why tomatoes?\nAnna: They grow well here.\n";
//! let turns = Turns::parse(text, &SpeakerConfig::default());
//! assert_eq!(turns.spoken.text(), "Why tomatoes?\nThey grow well here.\n");
//! let at = text.find("They").unwrap();
//! assert_eq!(turns.speaker_at(at), Some("Anna"));
//! assert!(turns.is_interviewer(turns.turn_at(0).unwrap()));
//! ```

use regex::Regex;
use std::ops::Range;

pub(crate) use super::labels::DEFAULT_SPEAKER_PATTERN;

/// The default interviewer labels (compared case-insensitively; a number
/// after one is the same role: `Interviewer 2`, `Interviewer2`).
pub const DEFAULT_INTERVIEWER_LABELS: [&str; 8] = [
    "Interviewer",
    "Moderator",
    "Facilitator",
    "Researcher",
    "INT",
    "IV",
    "Q",
    "I",
];

/// Fills unset speaker settings with the defaults
/// ([`DEFAULT_SPEAKER_PATTERN`], [`DEFAULT_INTERVIEWER_LABELS`]).
pub fn fill_speaker_defaults(pattern: &mut Option<String>, labels: &mut Option<Vec<String>>) {
    pattern.get_or_insert_with(|| DEFAULT_SPEAKER_PATTERN.to_string());
    labels.get_or_insert_with(|| {
        DEFAULT_INTERVIEWER_LABELS
            .iter()
            .map(|s| s.to_string())
            .collect()
    });
}

/// How speaker labels are found and which mark the interviewer.
#[derive(Debug, Clone)]
pub struct SpeakerConfig {
    /// The compiled pattern; None for the default one, matched by hand
    /// ([`super::labels`]: its regex weighs ~14 MB).
    pattern: Option<Regex>,
    source: String,
    interviewer: Vec<String>,
    /// `(alias, label)` pairs: a claimed speaker named `alias` is the
    /// transcript's `label` (`--speaker-aliases`), both as written.
    aliases: std::sync::Arc<[(String, String)]>,
    /// The names given to diarized speakers when the transcripts were read
    /// (`--speaker-map`), for the signature: its count and digest.
    map: Option<(usize, String)>,
}

impl Default for SpeakerConfig {
    fn default() -> Self {
        SpeakerConfig::new(DEFAULT_SPEAKER_PATTERN, &DEFAULT_INTERVIEWER_LABELS)
            .expect("the default speaker pattern compiles with a group")
    }
}

impl SpeakerConfig {
    /// A pattern (multi-line: `^` is a line start; the first group is the
    /// label) and the interviewer labels. An invalid pattern, or one without
    /// a capturing group, is an error saying why.
    pub fn new<S: AsRef<str>>(pattern: &str, interviewer: &[S]) -> Result<SpeakerConfig, String> {
        let source = pattern.to_string();
        let pattern = if pattern == DEFAULT_SPEAKER_PATTERN {
            None
        } else {
            let re = compiled(pattern)?;
            if re.captures_len() < 2 {
                return Err("the pattern needs a capturing group: the speaker label".into());
            }
            Some(re)
        };
        Ok(SpeakerConfig {
            pattern,
            source,
            interviewer: interviewer
                .iter()
                .map(|l| l.as_ref().trim().to_lowercase())
                .filter(|l| !l.is_empty())
                .collect(),
            aliases: std::sync::Arc::from(Vec::new()),
            map: None,
        })
    }

    /// The same settings, signed with the speaker map the transcripts were
    /// read with (`LABEL=Name` pairs; none when empty).
    pub fn with_map(mut self, pairs: &[(String, String)]) -> SpeakerConfig {
        self.map = (!pairs.is_empty()).then(|| {
            let all: Vec<String> = pairs.iter().map(|(a, n)| format!("{a}={n}")).collect();
            let h = crate::text::hash::sha256_hex(all.join("\n").as_bytes());
            (pairs.len(), h[..12].to_string())
        });
        self
    }

    /// The same settings with speaker aliases: `(alias, label)` pairs (a
    /// claimed speaker named `alias` is the transcript's `label`).
    pub fn with_aliases(mut self, aliases: Vec<(String, String)>) -> SpeakerConfig {
        self.aliases = std::sync::Arc::from(aliases);
        self
    }

    /// True when a claimed speaker (as a quote's source or a report names
    /// them) is the transcript's `label`: the two names are equal ignoring
    /// case, diacritics and punctuation, or every word of the shorter is a
    /// word of the longer (`Marta` and `Marta Kowalski`, `Okafor` and
    /// `Mrs Okafor`), or an alias names the claimed speaker and its label
    /// is the turn's (by the same rule).
    pub fn same_speaker(&self, claimed: &str, label: &str) -> bool {
        same_name(claimed, label)
            || self
                .aliases
                .iter()
                .any(|(alias, to)| name_words(alias) == name_words(claimed) && same_name(to, label))
    }

    /// True when `words` (a name as a report writes it: `Gwen`, `Gwen
    /// Morgan`) names the transcript's speaker `label`: every word of
    /// `words` is a word of the label (not the reverse: `translated by
    /// Maeve` does not name `Maeve`), or an alias written as `words`
    /// names it.
    pub fn names(&self, words: &str, label: &str) -> bool {
        let given = name_words(words);
        if given.is_empty() {
            return false;
        }
        let of_label = name_words(label);
        given.iter().all(|w| of_label.contains(w))
            || self
                .aliases
                .iter()
                .any(|(alias, to)| name_words(alias) == given && same_name(to, label))
    }

    /// The settings for signatures: the pattern's digest (default or
    /// custom) and the interviewer labels.
    pub fn signature(&self) -> String {
        let pattern = if self.source == DEFAULT_SPEAKER_PATTERN {
            "default".to_string()
        } else {
            let h = crate::text::hash::sha256_hex(self.source.as_bytes());
            format!("sha256:{}", &h[..12])
        };
        let aliases = if self.aliases.is_empty() {
            String::new()
        } else {
            let all: Vec<String> = self
                .aliases
                .iter()
                .map(|(a, l)| format!("{a}={l}"))
                .collect();
            let h = crate::text::hash::sha256_hex(all.join("\n").as_bytes());
            format!("|aliases:{}:sha256:{}", self.aliases.len(), &h[..12])
        };
        let map = match &self.map {
            Some((n, h)) => format!("|speaker-map:{n}:sha256:{h}"),
            None => String::new(),
        };
        format!(
            "speakers:{pattern}|interviewer:{}|names:words{aliases}{map}",
            self.interviewer.join(",")
        )
    }

    /// The interviewer labels, lower-cased, in order.
    pub fn interviewer_labels(&self) -> &[String] {
        &self.interviewer
    }

    /// True when `label` is an interviewer label (case-insensitive; a
    /// number after it is the same role: `Interviewer 2`, `INT1`).
    pub fn is_interviewer(&self, label: &str) -> bool {
        let l = label.trim().to_lowercase();
        if self.interviewer.contains(&l) {
            return true;
        }
        let bare = l.trim_end_matches(|c: char| c.is_ascii_digit()).trim_end();
        bare.len() < l.len() && !bare.is_empty() && self.interviewer.iter().any(|i| i == bare)
    }
}

/// A name's words: case, diacritics and punctuation aside.
fn name_words(name: &str) -> Vec<String> {
    crate::text::aligned::Normalized::with_options(
        name,
        &crate::text::aligned::NormalizeOptions::no_fillers(),
    )
    .into_text()
    .split(' ')
    .filter(|w| !w.is_empty())
    .map(str::to_string)
    .collect()
}

/// Two names of one person (see [`SpeakerConfig::same_speaker`]).
fn same_name(a: &str, b: &str) -> bool {
    let (a, b) = (name_words(a), name_words(b));
    if a.is_empty() || b.is_empty() {
        return a == b;
    }
    let (short, long) = if a.len() <= b.len() {
        (&a, &b)
    } else {
        (&b, &a)
    };
    short.iter().all(|w| long.contains(w))
}

/// The multi-line regex of a speaker pattern, compiled once per process
/// (a Unicode pattern takes milliseconds to compile; settings are resolved
/// several times per run).
fn compiled(pattern: &str) -> Result<Regex, String> {
    static CACHE: std::sync::Mutex<Vec<(String, Regex)>> = std::sync::Mutex::new(Vec::new());
    if let Ok(cache) = CACHE.lock() {
        if let Some((_, re)) = cache.iter().find(|(p, _)| p == pattern) {
            return Ok(re.clone());
        }
    }
    let re = Regex::new(&format!("(?m){pattern}")).map_err(|e| e.to_string())?;
    if let Ok(mut cache) = CACHE.lock() {
        if cache.len() < 16 {
            cache.push((pattern.to_string(), re.clone()));
        }
    }
    Ok(re)
}

/// One turn: its label (None before the first label or without labels),
/// and byte ranges in the original text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Turn {
    /// The speaker label.
    pub speaker: Option<String>,
    /// The role written beside the speaker's name, where the reader found
    /// one.
    pub role: Option<String>,
    /// True when the label (or the role written beside it) is an
    /// interviewer label.
    pub interviewer: bool,
    /// The speaker is in doubt (the reader says so: an unlabelled cue
    /// between labelled ones, a segment whose words' speakers disagree).
    pub uncertain: bool,
    /// The label as it stands (prefix whitespace, label, `:`, space).
    pub label: Range<usize>,
    /// What was said: from the end of the label to the next label.
    pub text: Range<usize>,
}

/// The transcript without its labels, with the way back to the original.
#[derive(Debug, Clone)]
pub struct Spoken {
    text: String,
    /// Kept pieces: (offset in `text`, offset in the original), sorted.
    pieces: Vec<(usize, usize)>,
}

impl Spoken {
    /// The text with the labels taken out.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The original byte offset of a byte offset of [`Spoken::text`].
    pub fn to_original(&self, at: usize) -> usize {
        let k = self.pieces.partition_point(|&(s, _)| s <= at).max(1) - 1;
        match self.pieces.get(k) {
            Some(&(s, o)) => o + (at - s),
            None => at,
        }
    }

    /// The original byte range of a non-empty range of [`Spoken::text`]: its
    /// start and its last byte are mapped, so a range that runs across a
    /// removed label covers the label in the original.
    pub fn range_to_original(&self, r: Range<usize>) -> Range<usize> {
        if r.is_empty() {
            let at = self.to_original(r.start);
            return at..at;
        }
        self.to_original(r.start)..self.to_original(r.end - 1) + 1
    }
}

/// The turns of a transcript.
#[derive(Debug, Clone)]
pub struct Turns {
    /// Every turn, in order (at least one).
    pub turns: Vec<Turn>,
    /// The speaker settings the turns were read with (names are compared
    /// through them).
    pub speakers: SpeakerConfig,
    /// The transcript without labels.
    pub spoken: Spoken,
}

impl Turns {
    /// Splits `text` into turns.
    pub fn parse(text: &str, config: &SpeakerConfig) -> Turns {
        Turns::parse_in(text, config, String::new())
    }

    /// The turns of a transcript: those its reader found (`labels`, see
    /// [`crate::corpus::Transcript::labels`]), unless a custom speaker
    /// pattern is set or there are none (corpus-eval's JSON chunks): then
    /// the pattern's.
    pub fn of(
        text: &str,
        labels: Option<&[crate::text::anchors::TurnLabel]>,
        config: &SpeakerConfig,
    ) -> Turns {
        Turns::parse_labelled(text, labels, config, String::new())
    }

    /// [`Turns::of`], the spoken text built into `spoken` (a buffer kept
    /// from an earlier transcript: [`Turns::into_spoken_buffer`]).
    pub(crate) fn parse_labelled(
        text: &str,
        labels: Option<&[crate::text::anchors::TurnLabel]>,
        config: &SpeakerConfig,
        spoken: String,
    ) -> Turns {
        match labels {
            Some(found) if config.pattern.is_none() => {
                let mut turns = Vec::with_capacity(found.len().max(1));
                for (i, l) in found.iter().enumerate() {
                    let start = l.at.start.min(text.len());
                    let label_end = l.at.end.clamp(start, text.len());
                    let end = found
                        .get(i + 1)
                        .map_or(text.len(), |n| n.at.start.max(label_end))
                        .min(text.len());
                    let interviewer = l
                        .speaker
                        .as_deref()
                        .is_some_and(|s| config.is_interviewer(s))
                        || l.role.as_deref().is_some_and(|r| config.is_interviewer(r));
                    turns.push(Turn {
                        speaker: l.speaker.clone(),
                        role: l.role.clone(),
                        interviewer,
                        uncertain: l.uncertain,
                        label: start..label_end,
                        text: label_end..end,
                    });
                }
                if turns.is_empty() {
                    turns.push(Turn {
                        speaker: None,
                        role: None,
                        interviewer: false,
                        uncertain: false,
                        label: 0..0,
                        text: 0..text.len(),
                    });
                }
                Turns::of_turns(text, turns, config, spoken)
            }
            _ => Turns::parse_in(text, config, spoken),
        }
    }

    /// [`Turns::parse`], the spoken text built into `spoken` (a buffer
    /// kept from an earlier transcript: [`Turns::into_spoken_buffer`]).
    pub(crate) fn parse_in(text: &str, config: &SpeakerConfig, spoken: String) -> Turns {
        let mut labels: Vec<(Range<usize>, String)> = Vec::new();
        match &config.pattern {
            // The default pattern's label is the match up to its first `:`
            // (the label's chars exclude it), trimmed.
            None => {
                for m in super::labels::find_labels(text) {
                    if let Some((label, _)) = text[m.clone()].split_once(':') {
                        labels.push((m, label.trim().to_string()));
                    }
                }
            }
            // A custom pattern: matches by the fast (DFA) search; the group
            // found by searching again from each match's start (the same
            // leftmost-first match, in the whole text's context).
            Some(pattern) => {
                for m in pattern.find_iter(text) {
                    if m.is_empty() {
                        continue;
                    }
                    let group = pattern.captures_at(text, m.start()).and_then(|c| c.get(1));
                    if let Some(g) = group {
                        labels.push((m.range(), g.as_str().trim().to_string()));
                    }
                }
            }
        }
        let mut turns = Vec::with_capacity(labels.len() + 1);
        let first = labels.first().map_or(text.len(), |(r, _)| r.start);
        if first > 0 || labels.is_empty() {
            turns.push(Turn {
                speaker: None,
                role: None,
                interviewer: false,
                uncertain: false,
                label: 0..0,
                text: 0..first,
            });
        }
        for (i, (range, label)) in labels.iter().enumerate() {
            let end = labels.get(i + 1).map_or(text.len(), |(r, _)| r.start);
            turns.push(Turn {
                interviewer: config.is_interviewer(label),
                role: None,
                uncertain: false,
                speaker: Some(label.clone()),
                label: range.clone(),
                text: range.end..end,
            });
        }
        Turns::of_turns(text, turns, config, spoken)
    }

    /// The turns with their spoken text (labels out).
    fn of_turns(text: &str, turns: Vec<Turn>, config: &SpeakerConfig, mut spoken: String) -> Turns {
        spoken.clear();
        spoken.reserve(text.len());
        let mut pieces = Vec::with_capacity(turns.len());
        for t in &turns {
            if !t.text.is_empty() {
                pieces.push((spoken.len(), t.text.start));
                spoken.push_str(&text[t.text.clone()]);
            }
        }
        Turns {
            turns,
            speakers: config.clone(),
            spoken: Spoken {
                text: spoken,
                pieces,
            },
        }
    }

    /// The spoken text's buffer, for [`Turns::parse_in`].
    pub(crate) fn into_spoken_buffer(self) -> String {
        self.spoken.text
    }

    /// True when the transcript has at least one label.
    pub fn labelled(&self) -> bool {
        self.turns.iter().any(|t| t.speaker.is_some())
    }

    /// The distinct labels as written (e.g. `Anna:`), lower-cased.
    pub fn label_marks(&self, text: &str) -> Vec<String> {
        let mut marks: Vec<String> = self
            .turns
            .iter()
            .filter(|t| t.speaker.is_some())
            .map(|t| text[t.label.clone()].trim().to_lowercase())
            .filter(|m| !m.is_empty())
            .collect();
        marks.sort();
        marks.dedup();
        marks
    }

    /// The index of the turn an original byte offset falls in (a label
    /// counts as part of its turn).
    pub fn turn_at(&self, at: usize) -> Option<usize> {
        let k = self
            .turns
            .partition_point(|t| t.label.start.min(t.text.start) <= at);
        k.checked_sub(1)
    }

    /// The speaker of the turn an original byte offset falls in.
    pub fn speaker_at(&self, at: usize) -> Option<&str> {
        self.turn_at(at)
            .and_then(|k| self.turns[k].speaker.as_deref())
    }

    /// True when turn `k` is an interviewer's.
    pub fn is_interviewer(&self, k: usize) -> bool {
        self.turns.get(k).is_some_and(|t| t.interviewer)
    }

    /// The turns whose spoken text a non-empty original byte range covers.
    pub fn turns_covered(&self, r: &Range<usize>) -> Vec<usize> {
        self.covered(r).map(|(k, _)| k).collect()
    }

    /// The turns (index, turn) whose spoken text an original byte range
    /// covers, in order: found from the turns' order, not by a scan of
    /// every turn (this runs for each quote checked).
    pub(crate) fn covered<'t>(
        &'t self,
        r: &'t Range<usize>,
    ) -> impl Iterator<Item = (usize, &'t Turn)> + 't {
        // Turns are in text order: the first whose text ends after the
        // range's start, then on while they start before its end.
        let first = self.turns.partition_point(|t| t.text.end <= r.start);
        self.turns[first..]
            .iter()
            .enumerate()
            .take_while(move |(_, t)| t.text.start < r.end)
            .filter(move |(_, t)| r.start < t.text.end)
            .map(move |(k, t)| (first + k, t))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parsed_into_a_used_buffer_is_the_same() {
        let pieces = ["Anna: ", "Q: ", "\n", "we sold ", "é", "Interviewer:", " "];
        let mut next = crate::test_rng::seeded(0x7a1c);
        let mut buffer = String::new();
        let config = SpeakerConfig::default();
        for _ in 0..300 {
            let text = crate::test_rng::text_of(&mut next, &pieces, 60);
            let fresh = Turns::parse(&text, &config);
            let reused = Turns::parse_in(&text, &config, buffer);
            assert_eq!(format!("{reused:?}"), format!("{fresh:?}"), "{text:?}");
            buffer = reused.into_spoken_buffer();
        }
    }

    #[test]
    fn labels_split_turns_and_leave_the_spoken_text() {
        let text =
            "Intro line.\nQ: Where?\n  Núria Puig: Here, in Gràcia.\nmore of hers\nI: Thanks.";
        let t = Turns::parse(text, &SpeakerConfig::default());
        let speakers: Vec<Option<&str>> = t.turns.iter().map(|x| x.speaker.as_deref()).collect();
        assert_eq!(
            speakers,
            vec![None, Some("Q"), Some("Núria Puig"), Some("I")]
        );
        assert!(t.turns[1].interviewer && !t.turns[2].interviewer && t.turns[3].interviewer);
        assert_eq!(
            t.spoken.text(),
            "Intro line.\nWhere?\nHere, in Gràcia.\nmore of hers\nThanks."
        );
        // Every spoken byte maps back to the same byte of the original.
        let s = t.spoken.text();
        for (i, ch) in s.char_indices() {
            let o = t.spoken.to_original(i);
            assert_eq!(text[o..].chars().next(), Some(ch));
        }
        let at = text.find("more").unwrap();
        assert_eq!(t.speaker_at(at), Some("Núria Puig"));
        let r = s.find("Where").unwrap()..s.find("Gràcia").unwrap() + "Gràcia".len();
        let o = t.spoken.range_to_original(r);
        assert_eq!(&text[o.clone()], "Where?\n  Núria Puig: Here, in Gràcia");
        assert_eq!(t.turns_covered(&o), vec![1, 2]);
    }

    #[test]
    fn the_default_patterns_labels_equal_its_group() {
        // The same pattern written differently takes the search for the
        // group: every turn must come out the same.
        let same = SpeakerConfig::new(
            &format!("(?:){DEFAULT_SPEAKER_PATTERN}"),
            &DEFAULT_INTERVIEWER_LABELS,
        )
        .unwrap();
        let text = "Intro.\n  Núria Puig :  Here, in Gràcia: yes.\nQ: Why?\n\n Anna Maria: x\nlow: not a label\nÉmile:\ttab\nB:c\nMr O'Neil-Smith: ok\n";
        let a = Turns::parse(text, &SpeakerConfig::default());
        let b = Turns::parse(text, &same);
        assert_eq!(a.turns, b.turns);
        assert_eq!(a.spoken.text(), b.spoken.text());
        let speakers: Vec<Option<&str>> = a.turns.iter().map(|t| t.speaker.as_deref()).collect();
        assert_eq!(
            speakers,
            vec![
                None,
                Some("Núria Puig"),
                Some("Q"),
                Some("Anna Maria"),
                Some("Émile"),
                Some("Mr O'Neil-Smith")
            ]
        );
    }

    #[test]
    fn unlabelled_text_is_one_turn() {
        let t = Turns::parse("just words: here", &SpeakerConfig::default());
        assert_eq!(t.turns.len(), 1);
        assert_eq!(t.turns[0].speaker, None);
        assert_eq!(t.spoken.text(), "just words: here");
        assert!(!t.labelled());
    }

    #[test]
    fn custom_pattern_and_labels() {
        let c = SpeakerConfig::new(r"^\[(\w+)\] ", &["MOD"]).unwrap();
        let t = Turns::parse("[MOD] Hello\n[P1] Hi", &c);
        assert_eq!(t.spoken.text(), "Hello\nHi");
        assert!(t.turns[0].interviewer);
        assert_eq!(t.turns[1].speaker.as_deref(), Some("P1"));
        assert!(SpeakerConfig::new(r"^\w+: ", &["x"]).is_err());
        assert!(SpeakerConfig::new(r"^(\w+", &["x"]).is_err());
    }
}
