//! What a transcript's plain text carries besides its words: its turns'
//! labels (as the readers found them) and its time anchors, and the time
//! of a span. The readers (`corpus::formats`) make them; the stages
//! (attribution, the turns of a text) read them.

/// A turn of a transcript's plain text as its reader found it: the bytes
/// of its label (`Name: `, empty for a turn without one), its speaker and
/// role, and whether the speaker is in doubt. Quotes are attributed by
/// these turns (a custom `--speaker-pattern` reads the text again instead).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TurnLabel {
    /// The label's bytes in the plain text; the turn's text follows.
    pub at: std::ops::Range<usize>,
    /// Who speaks.
    pub speaker: Option<String>,
    /// The role written beside the name.
    pub role: Option<String>,
    /// The speaker is in doubt.
    pub uncertain: bool,
}

/// A time anchor of a transcript's plain text (a cue's or segment's start in `corpus::formats`): `at` is a byte
/// offset of the text corpus-eval derives (`TimedTranscript::plain`).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TimeAnchor {
    /// Byte offset in the transcript's text.
    pub at: usize,
    /// Start, in seconds.
    pub start: Option<f64>,
    /// End, in seconds.
    pub end: Option<f64>,
}

/// When a quote was said: the start of the cue, segment or timestamp where
/// its span starts and the end of the one where it ends (seconds; `end` is
/// None where the format has no end times).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct QuoteTime {
    /// Start, in seconds.
    pub start: Option<f64>,
    /// End, in seconds.
    pub end: Option<f64>,
}

/// The time of the byte span `span` of a text with anchors `times` (in
/// order of `at`): None when there are none.
pub fn time_of(times: &[TimeAnchor], span: std::ops::Range<usize>) -> Option<QuoteTime> {
    if times.is_empty() {
        return None;
    }
    let at = |offset: usize| {
        let i = times.partition_point(|a| a.at <= offset);
        i.checked_sub(1).map(|i| times[i])
    };
    let start = at(span.start).and_then(|a| a.start);
    let end = at(span.end.saturating_sub(1).max(span.start)).and_then(|a| a.end);
    // Before the first timestamp: no time.
    (start.is_some() || end.is_some()).then_some(QuoteTime { start, end })
}
