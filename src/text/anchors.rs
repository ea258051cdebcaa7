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

/// Where a citation says its quote stands: a time of the recording or
/// lines of the transcript file (1-based, the range inclusive).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CitedPlace {
    /// Seconds from the start.
    Time(f64),
    /// The first and last line.
    Lines(usize, usize),
}

/// The largest cited time read, in seconds (a thousand hours).
const MAX_CITED_SECONDS: f64 = 3.6e6;
/// The largest cited line read.
const MAX_CITED_LINE: usize = 1_000_000_000;

impl CitedPlace {
    /// A time as citations write it: `00:12:31`, `1:02:03` (h:mm:ss),
    /// `12:31` (mm:ss), with optional decimals (`12:31.5`); minutes and
    /// seconds below 60 after the first field.
    pub fn parse_time(text: &str) -> Option<f64> {
        let t = text.trim();
        let fields: Vec<&str> = t.split(':').collect();
        if !(2..=3).contains(&fields.len()) {
            return None;
        }
        let mut total = 0.0;
        for (i, f) in fields.iter().enumerate() {
            let last = i + 1 == fields.len();
            let (whole, frac) = match f.split_once(['.', ',']) {
                Some((w, d)) if last && !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()) => {
                    (w, d)
                }
                Some(_) => return None,
                None => (*f, ""),
            };
            if whole.is_empty() || whole.len() > 2 || !whole.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            let v: f64 = whole.parse().ok()?;
            if i > 0 && v >= 60.0 {
                return None;
            }
            total = total * 60.0 + v;
            if !frac.is_empty() {
                total += format!("0.{frac}").parse::<f64>().ok()?;
            }
        }
        (total.is_finite() && total <= MAX_CITED_SECONDS).then_some(total)
    }

    /// A quote's place given as fields, as question files and Python's
    /// quote tables give it: a `time` (seconds, or `hh:mm:ss` / `mm:ss`) or
    /// a `line` (a number from 1, or `"45-47"`), at most one of them. An
    /// error is the field and what is wrong with it.
    pub fn from_fields(
        time: Option<&str>,
        line: Option<&str>,
    ) -> Result<Option<CitedPlace>, (&'static str, String)> {
        match (time, line) {
            (Some(_), Some(_)) => Err(("line", "give a time or a line, not both".into())),
            (Some(t), None) => Self::parse_seconds(t)
                .map(|s| Some(CitedPlace::Time(s)))
                .ok_or_else(|| {
                    (
                        "time",
                        format!(
                            "expected seconds (0 to {MAX_CITED_SECONDS}) or \"hh:mm:ss\", got {t:?}"
                        ),
                    )
                }),
            (None, Some(l)) => Self::parse_lines(l, true)
                .map(|(a, b)| Some(CitedPlace::Lines(a, b)))
                .ok_or_else(|| {
                    (
                        "line",
                        format!("expected a line number from 1, or \"FIRST-LAST\", got {l:?}"),
                    )
                }),
            (None, None) => Ok(None),
        }
    }

    /// A time given as seconds (`751`, `751.5`) or as [`Self::parse_time`]
    /// reads it.
    pub fn parse_seconds(text: &str) -> Option<f64> {
        let t = text.trim();
        if t.contains(':') {
            return Self::parse_time(t);
        }
        let v: f64 = t.parse().ok()?;
        // `-0` reads as 0, never -0.
        (v.is_finite() && (0.0..=MAX_CITED_SECONDS).contains(&v)).then_some(v + 0.0)
    }

    /// Lines as citations write them: `line 45`, `l. 45`, `ll. 45-47`,
    /// `lines 45–47`, or a bare `45` / `45-47` (`bare`).
    pub fn parse_lines(text: &str, bare: bool) -> Option<(usize, usize)> {
        let t = text.trim();
        let lower = t.to_lowercase();
        // `l.`/`ll.` or a word and a space: `L12` is a participant's
        // code, not a line.
        let rest = ["lines ", "line ", "ll.", "ll ", "l.", "l "]
            .iter()
            .find_map(|p| lower.strip_prefix(p))
            .map(str::trim);
        let rest = match rest {
            Some(r) => r,
            None if bare => lower.as_str(),
            None => return None,
        };
        let number = |s: &str| -> Option<usize> {
            let s = s.trim();
            if s.is_empty() || s.len() > 10 || !s.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            s.parse()
                .ok()
                .filter(|&n| (1..=MAX_CITED_LINE).contains(&n))
        };
        let (first, last) = match rest.split_once(['-', '\u{2013}']) {
            Some((a, b)) => (number(a)?, number(b)?),
            None => {
                let n = number(rest)?;
                (n, n)
            }
        };
        (first <= last).then_some((first, last))
    }

    /// A part of a citation that names a place (`00:12:31`, `[12:31]`,
    /// `l. 45`): the place.
    pub fn parse(part: &str) -> Option<CitedPlace> {
        let t = part
            .trim()
            .trim_start_matches(['[', '('])
            .trim_end_matches([']', ')']);
        if let Some(s) = Self::parse_time(t) {
            return Some(CitedPlace::Time(s));
        }
        Self::parse_lines(t, false).map(|(a, b)| CitedPlace::Lines(a, b))
    }
}

/// Where a found quote stands against where its citation says: seconds
/// (`found` is the quote's start, `delta = found - cited`) or 1-based
/// lines (`delta`: lines from the cited range, 0 inside it).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "unit", rename_all = "snake_case")]
pub enum Location {
    /// A cited time.
    Seconds {
        /// As cited.
        cited: f64,
        /// The quote's start; None where the transcript has no times (the
        /// place is not checked, and the run warns).
        found: Option<f64>,
        /// `found - cited`.
        delta: Option<f64>,
    },
    /// Cited lines.
    Lines {
        /// First and last line cited.
        cited: [usize; 2],
        /// The line the quote starts on.
        found: usize,
        /// Lines before (negative) or after the cited range; 0 inside.
        delta: i64,
    },
}

impl Location {
    /// The location of a quote found at `time` (its start, seconds) and
    /// on `line`, against the cited `place`; None for cited lines without
    /// a line.
    pub fn of(place: CitedPlace, time: Option<f64>, line: Option<usize>) -> Option<Location> {
        match place {
            CitedPlace::Time(cited) => {
                let found = time.filter(|t| t.is_finite());
                // Millisecond precision, and never -0.
                let delta = found.map(|f| ((f - cited) * 1000.0).round() / 1000.0 + 0.0);
                Some(Location::Seconds {
                    cited,
                    found,
                    delta,
                })
            }
            CitedPlace::Lines(first, last) => {
                let found = line?;
                let delta = if found < first {
                    -((first - found) as i64)
                } else if found > last {
                    (found - last) as i64
                } else {
                    0
                };
                Some(Location::Lines {
                    cited: [first, last],
                    found,
                    delta,
                })
            }
        }
    }

    /// True when the quote stands where cited: within `tolerance` seconds
    /// of a cited time, inside cited lines (or no time to tell).
    pub fn within(&self, tolerance: f64) -> bool {
        match *self {
            Location::Seconds { delta, .. } => delta.is_none_or(|d| d.abs() <= tolerance),
            Location::Lines { delta, .. } => delta == 0,
        }
    }

    /// True for a cited time the transcript has no times to check.
    pub fn unchecked(&self) -> bool {
        matches!(self, Location::Seconds { found: None, .. })
    }
}

#[cfg(test)]
mod place_tests {
    use super::*;

    /// The one reading of a place given as fields: a time or a line, not
    /// both, each error naming its field.
    #[test]
    fn places_given_as_fields() {
        let read = CitedPlace::from_fields;
        assert_eq!(read(None, None), Ok(None));
        assert_eq!(read(Some("12:31"), None), Ok(Some(CitedPlace::Time(751.0))));
        assert_eq!(read(Some("751.5"), None), Ok(Some(CitedPlace::Time(751.5))));
        assert_eq!(
            read(None, Some("45-47")),
            Ok(Some(CitedPlace::Lines(45, 47)))
        );
        assert_eq!(read(None, Some("3")), Ok(Some(CitedPlace::Lines(3, 3))));
        assert_eq!(read(Some("1"), Some("2")).unwrap_err().0, "line");
        let (field, why) = read(Some("soon"), None).unwrap_err();
        assert_eq!(field, "time");
        assert!(
            why.contains("0 to 3600000") && why.contains("\"soon\""),
            "{why}"
        );
        let (field, why) = read(None, Some("true")).unwrap_err();
        assert_eq!(field, "line");
        assert!(why.contains("FIRST-LAST"), "{why}");
        assert_eq!(read(None, Some("")).unwrap_err().0, "line");
    }

    #[test]
    fn times_read_as_citations_write_them() {
        assert_eq!(CitedPlace::parse_time("00:12:31"), Some(751.0));
        assert_eq!(CitedPlace::parse_time("12:31"), Some(751.0));
        assert_eq!(CitedPlace::parse_time("1:02:03"), Some(3723.0));
        assert_eq!(CitedPlace::parse_time("12:31.5"), Some(751.5));
        for bad in [
            "12", "12:61", "1:2:3:4", "a:10", "123:10", "12:", ":12", "12:31.x",
        ] {
            assert_eq!(CitedPlace::parse_time(bad), None, "{bad}");
        }
        assert_eq!(CitedPlace::parse_seconds("751"), Some(751.0));
        assert_eq!(CitedPlace::parse_seconds("00:12:31"), Some(751.0));
        assert!(CitedPlace::parse_seconds("-0").unwrap().is_sign_positive());
        for bad in ["-1", "NaN", "inf", "1e300", ""] {
            assert_eq!(CitedPlace::parse_seconds(bad), None, "{bad}");
        }
    }

    #[test]
    fn lines_read_as_citations_write_them() {
        let l = |s: &str| CitedPlace::parse_lines(s, false);
        assert_eq!(l("line 45"), Some((45, 45)));
        assert_eq!(l("l. 45"), Some((45, 45)));
        assert_eq!(l("ll. 45-47"), Some((45, 47)));
        assert_eq!(l("lines 45\u{2013}47"), Some((45, 47)));
        assert_eq!(l("L.45"), Some((45, 45)));
        for bad in [
            "45",
            "line",
            "line 0",
            "ll. 47-45",
            "lines a-b",
            "Lena 4",
            "l. 99999999999",
            "L12",
            "LL3",
            "line45",
        ] {
            assert_eq!(l(bad), None, "{bad}");
        }
        assert_eq!(CitedPlace::parse_lines("45-47", true), Some((45, 47)));
        assert_eq!(CitedPlace::parse("[12:31]"), Some(CitedPlace::Time(751.0)));
        assert_eq!(CitedPlace::parse("Gwen"), None);
    }

    #[test]
    fn a_location_is_within_tolerance_or_the_range() {
        let at = Location::of(CitedPlace::Time(751.0), Some(760.5), None).unwrap();
        assert_eq!(
            at,
            Location::Seconds {
                cited: 751.0,
                found: Some(760.5),
                delta: Some(9.5)
            }
        );
        assert!(at.within(60.0) && !at.within(5.0) && !at.unchecked());
        let untimed = Location::of(CitedPlace::Time(1.0), None, Some(3)).unwrap();
        assert!(untimed.unchecked() && untimed.within(0.0));
        assert_eq!(Location::of(CitedPlace::Lines(1, 1), Some(3.0), None), None);
        let lines = Location::of(CitedPlace::Lines(45, 47), None, Some(50)).unwrap();
        assert_eq!(
            lines,
            Location::Lines {
                cited: [45, 47],
                found: 50,
                delta: 3
            }
        );
        assert!(!lines.within(1e9));
        let inside = Location::of(CitedPlace::Lines(45, 47), None, Some(46)).unwrap();
        assert!(inside.within(0.0));
        let before = Location::of(CitedPlace::Lines(45, 47), None, Some(40)).unwrap();
        assert!(matches!(before, Location::Lines { delta: -5, .. }));
        // No -0 for an equal time.
        let same = Location::of(CitedPlace::Time(2.0), Some(2.0), None).unwrap();
        assert_eq!(
            serde_json::to_string(&same).unwrap(),
            r#"{"unit":"seconds","cited":2.0,"found":2.0,"delta":0.0}"#
        );
    }
}
