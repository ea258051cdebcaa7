//! Who said a quote, in which turn, in which transcript: the attribution
//! of a checked quote.
//!
//! A quote found in its cited transcript is `cross_turn` (its span covers
//! two or more turns), else `uncertain_speaker` (it lies in a turn whose
//! speaker the transcript's reader doubts: an unlabelled cue between
//! labelled ones, a whisperX segment whose words' speakers disagree), else
//! `interviewer` (it lies in an interviewer's
//! turn), else `wrong_speaker` (the quote names a speaker and the span's
//! speaker differs: see [`crate::citations::turns::SpeakerConfig::same_speaker`]
//! for how names are compared), else `ok`; an edited quote's segments in
//! one turn are attributed by that turn. A quote not found at the match
//! level there is `other_source` (found exact or normalized in another
//! transcript of the corpus), else `altered` (the cited transcript has a
//! passage at or above the fuzzy threshold: a quote changed in its
//! wording), else `stitched` (two or more non-adjacent runs of at least
//! [`MIN_PIECE_WORDS`] words stand in the cited transcript and cover at
//! least [`MIN_PIECE_COVER`] of its words), else `fabricated`: no close
//! passage at all.
//!
//! ```
//! use corpus_eval::citations::{of_found, Attribution};
//! use corpus_eval::citations::SpeakerConfig;
//! use corpus_eval::citations::SourceText;
//!
//! let t = SourceText::with_speakers(
//!     "Interviewer: Do you sell at the market?\nAnna: Every Saturday, rain or shine.\n",
//!     &SpeakerConfig::default(),
//! );
//! let c = t.check("Every Saturday, rain or shine", 0.9);
//! assert_eq!(of_found(&t, &c, Some("Anna")).attribution, Some(Attribution::Ok));
//! assert_eq!(of_found(&t, &c, Some("Bo")).attribution, Some(Attribution::WrongSpeaker));
//! let c = t.check("Do you sell at the market?", 0.9);
//! assert_eq!(of_found(&t, &c, None).attribution, Some(Attribution::Interviewer));
//! ```

use super::{QuoteCheck, SourceText, Verdict};
use crate::text::aligned::Normalized;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::ops::Range;

/// Fewest words of a piece of a stitched quote.
pub const MIN_PIECE_WORDS: usize = 4;
/// Least share of a stitched quote's words its pieces cover.
pub const MIN_PIECE_COVER: f64 = 0.8;
/// A quote of this many words or more whose closest passage reaches the
/// lossless floor ([`crate::citations::fuzzy::LOSSLESS_FLOOR`]) but not
/// the fuzzy threshold is `altered`, not `fabricated` (a few words reach
/// the floor by chance).
pub const MIN_ALTERED_WORDS: usize = 6;

/// The attribution classes (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Attribution {
    /// The span covers text of two or more turns.
    CrossTurn,
    /// The span lies in a turn whose speaker is in doubt (the reader says
    /// so): neither `ok` nor `wrong_speaker` can be said.
    UncertainSpeaker,
    /// The span lies in an interviewer's turn.
    Interviewer,
    /// The quote names another speaker than the span's.
    WrongSpeaker,
    /// Found in the turn of the speaker named, but not where its citation
    /// says (beyond the time tolerance, outside the cited lines).
    WrongLocation,
    /// Found in one turn of a non-interviewer speaker (the named one).
    Ok,
    /// Not in the cited transcript, but in another one.
    OtherSource,
    /// Not found at the match level, but a passage of the cited transcript
    /// reaches the fuzzy threshold (its span, speaker and similarity are
    /// given).
    Altered,
    /// Not found whole; pieces of it stand apart in the cited transcript.
    Stitched,
    /// Not found, and no close passage; but a turn of the cited transcript
    /// (or up to three consecutive sentences of one) says the same in
    /// other words, by sentence embeddings (`--paraphrase`).
    Paraphrase,
    /// None of the above.
    Fabricated,
}

impl Attribution {
    /// Every class, in precedence order.
    pub const ALL: [Attribution; 11] = [
        Attribution::CrossTurn,
        Attribution::UncertainSpeaker,
        Attribution::Interviewer,
        Attribution::WrongSpeaker,
        Attribution::WrongLocation,
        Attribution::Ok,
        Attribution::OtherSource,
        Attribution::Altered,
        Attribution::Stitched,
        Attribution::Paraphrase,
        Attribution::Fabricated,
    ];

    /// The class's name in outputs.
    pub fn as_str(self) -> &'static str {
        match self {
            Attribution::CrossTurn => "cross_turn",
            Attribution::UncertainSpeaker => "uncertain_speaker",
            Attribution::Interviewer => "interviewer",
            Attribution::WrongSpeaker => "wrong_speaker",
            Attribution::WrongLocation => "wrong_location",
            Attribution::Ok => "ok",
            Attribution::OtherSource => "other_source",
            Attribution::Altered => "altered",
            Attribution::Stitched => "stitched",
            Attribution::Paraphrase => "paraphrase",
            Attribution::Fabricated => "fabricated",
        }
    }
}

/// A span in characters of a transcript.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Span {
    /// First char.
    pub start: usize,
    /// One past the last char.
    pub end: usize,
}

impl From<Range<usize>> for Span {
    fn from(r: Range<usize>) -> Span {
        Span {
            start: r.start,
            end: r.end,
        }
    }
}

/// Where a quote not found in its cited transcript was found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OtherSource {
    /// The transcript (its FILE).
    pub source: String,
    /// `exact` or `normalized`.
    pub verdict: Verdict,
    /// The span in that transcript.
    pub span: Span,
    /// The speaker of the turn the span starts in.
    pub span_speaker: Option<String>,
    /// The span in bytes (not serialized).
    #[serde(skip)]
    pub byte_span: Range<usize>,
}

/// One piece of a stitched quote, in quote order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Piece {
    /// The transcript's text of the piece.
    pub text: String,
    /// Its span in the cited transcript.
    pub span: Span,
    /// The speaker of the turn the piece starts in.
    pub span_speaker: Option<String>,
    /// The span in bytes (not serialized).
    #[serde(skip)]
    pub byte_span: Range<usize>,
    /// When the piece was said, for a transcript read from a format with
    /// times (left out otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<crate::text::anchors::QuoteTime>,
}

/// A quote's attribution and where it points.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Attributed {
    /// The class (None only for an unknown source).
    pub attribution: Option<Attribution>,
    /// The speaker of the turn where the matched span starts.
    pub span_speaker: Option<String>,
    /// For `other_source`: where (boxed: few quotes have one, and every
    /// quote's result holds the field).
    pub other_source: Option<Box<OtherSource>>,
    /// For `stitched`: the pieces; for an `edited` quote with an
    /// ellipsis: one per segment.
    pub pieces: Vec<Piece>,
}

/// The pieces of a quote at byte ranges of its transcript.
fn pieces_at(src: &SourceText, ranges: &[Range<usize>]) -> Vec<Piece> {
    ranges
        .iter()
        .map(|bytes| Piece {
            text: src.text()[bytes.clone()].to_string(),
            span: src.chars_of(bytes.clone()).into(),
            span_speaker: speaker_at(src, bytes.start),
            byte_span: bytes.clone(),
            time: None,
        })
        .collect()
}

/// A quote not found at the match level whose check still holds a passage
/// of the cited transcript (a fuzzy one at or above the threshold, or a
/// closer verdict the level does not accept), or whose closest passage
/// reaches the lossless floor when it has [`MIN_ALTERED_WORDS`] words or
/// more: `altered`, with the passage's speaker. None without such a
/// passage.
pub fn altered(src: &SourceText, check: &QuoteCheck, quote: &str) -> Option<Attributed> {
    let bytes = match (&check.byte_span, &check.closest_bytes) {
        (Some(b), _) => b,
        (None, Some(b)) if close_enough(check, quote) => b,
        _ => return None,
    };
    Some(Attributed {
        attribution: Some(Attribution::Altered),
        span_speaker: speaker_at(src, bytes.start),
        pieces: pieces_at(src, &check.segments),
        ..Attributed::default()
    })
}

/// A quote not found at the match level, looked at in its cited
/// transcript: `altered` (a passage at or above the threshold, or a close
/// one: see [`altered`]), else its `stitched` pieces; at most one is
/// given, neither for a quote that is fabricated there. A close passage
/// gives way to pieces that do not all lie inside it: those come from
/// apart.
pub fn altered_or_stitched(
    src: &SourceText,
    check: &QuoteCheck,
    quote: &str,
) -> (Option<Attributed>, Option<Vec<Piece>>) {
    if check.byte_span.is_some() {
        return (altered(src, check, quote), None);
    }
    let pieces = stitched(src, quote);
    if let (true, Some(passage)) = (close_enough(check, quote), &check.closest_bytes) {
        let inside = pieces.as_ref().is_none_or(|p| {
            p.iter()
                .all(|x| passage.start <= x.byte_span.start && x.byte_span.end <= passage.end)
        });
        if inside {
            return (altered(src, check, quote), None);
        }
    }
    (None, pieces)
}

/// True for a quote not found whose closest passage still makes it
/// `altered` (see [`altered`]).
pub(crate) fn close_enough(check: &QuoteCheck, quote: &str) -> bool {
    let words = quote
        .split(|c: char| !c.is_alphanumeric() && c != '\'' && c != '\u{2019}')
        .filter(|w| !w.is_empty())
        .count();
    check.closest_bytes.is_some()
        && check.similarity >= crate::citations::fuzzy::LOSSLESS_FLOOR
        && words >= MIN_ALTERED_WORDS
}

fn speaker_at(src: &SourceText, byte: usize) -> Option<String> {
    src.turns()
        .and_then(|t| t.speaker_at(byte))
        .map(str::to_string)
}

/// The attribution of a quote found in its cited transcript. A quote that
/// changes what was said (a non-empty `meaning`) is never `ok`: it is
/// `altered`, whatever its match verdict.
pub fn of_found(src: &SourceText, check: &QuoteCheck, claimed: Option<&str>) -> Attributed {
    let Some(bytes) = &check.byte_span else {
        return Attributed::default();
    };
    let span_speaker = speaker_at(src, bytes.start);
    let attribution = match src.turns() {
        Some(t) => {
            let covered = t.turns_covered(bytes);
            if covered.len() >= 2 {
                Attribution::CrossTurn
            } else if covered.first().is_some_and(|&k| t.turns[k].uncertain) {
                Attribution::UncertainSpeaker
            } else if covered.first().is_some_and(|&k| t.is_interviewer(k)) {
                Attribution::Interviewer
            } else {
                wrong_or_ok(claimed, span_speaker.as_deref(), &t.speakers)
            }
        }
        None => wrong_or_ok(
            claimed,
            span_speaker.as_deref(),
            &crate::citations::turns::SpeakerConfig::default(),
        ),
    };
    let changed = check.meaning.as_ref().is_some_and(|m| !m.is_empty());
    let attribution = match attribution {
        Attribution::Ok if changed => Attribution::Altered,
        other => other,
    };
    Attributed {
        attribution: Some(attribution),
        span_speaker,
        pieces: pieces_at(src, &check.segments),
        ..Attributed::default()
    }
}

fn wrong_or_ok(
    claimed: Option<&str>,
    actual: Option<&str>,
    speakers: &crate::citations::turns::SpeakerConfig,
) -> Attribution {
    match (claimed.map(str::trim).filter(|c| !c.is_empty()), actual) {
        (Some(c), Some(a)) if !speakers.same_speaker(c, a) => Attribution::WrongSpeaker,
        _ => Attribution::Ok,
    }
}

/// The pieces of a quote not found whole, when they make it `stitched`:
/// two or more runs of at least [`MIN_PIECE_WORDS`] words, not adjacent in
/// the transcript, covering at least [`MIN_PIECE_COVER`] of the words.
pub fn stitched(src: &SourceText, quote: &str) -> Option<Vec<Piece>> {
    let (found, words) = src.pieces(quote, MIN_PIECE_WORDS);
    if found.len() < 2 || words == 0 {
        return None;
    }
    let covered: usize = found.iter().map(|p| p.quote_words.len()).sum();
    if (covered as f64) < MIN_PIECE_COVER * words as f64 {
        return None;
    }
    // Adjacent pieces are one stretch of the transcript with a word of the
    // quote between them: merged; two places at least are needed.
    let mut merged: Vec<super::fuzzy::Piece> = Vec::with_capacity(found.len());
    for p in found {
        match merged.last_mut() {
            Some(last) if last.text_words.end == p.text_words.start => {
                last.quote_words.end = p.quote_words.end;
                last.text_words.end = p.text_words.end;
                last.range.end = p.range.end;
            }
            _ => merged.push(p),
        }
    }
    if merged.len() < 2 {
        return None;
    }
    merged
        .iter()
        .map(|p| {
            let bytes = src.widened_to_text(p.range.clone())?;
            Some(Piece {
                text: src.text()[bytes.clone()].to_string(),
                span: src.chars_of(bytes.clone()).into(),
                span_speaker: speaker_at(src, bytes.start),
                byte_span: bytes,
                time: None,
            })
        })
        .collect()
}

/// For each quote (its text and the index of its cited transcript), the
/// first other transcript (in corpus order) where it stands exact or
/// normalized. One pass for all the quotes (`text::multifind`) runs once
/// over each transcript's normalized spoken text (transcripts in
/// parallel), so the cost does not grow with quotes times transcripts.
pub fn other_sources(
    sources: &[SourceText<'_>],
    names: &[String],
    quotes: &[(usize, &str)],
) -> Vec<Option<OtherSource>> {
    let options = sources
        .first()
        .map(|s| s.options().clone())
        .unwrap_or_default();
    other_sources_in(sources.len(), names, quotes, &options, |t, visit| {
        visit(&sources[t])
    })
}

/// One transcript's first occurrence of a pattern: the pattern, where, and
/// the transcript's text there (to tell exact from normalized).
struct Hit {
    pattern: usize,
    text: String,
    /// Up to [`EDGE_CHARS`] chars of the transcript before and after it
    /// (a quote's edge marks may stand there).
    before: String,
    after: String,
    found: OtherSource,
}

/// Chars kept around an other-source hit.
const EDGE_CHARS: usize = 8;

/// [`other_sources`] over `count` transcripts handed over one at a time:
/// `source(t, visit)` hands transcript `t` to `visit` (it may prepare it
/// for the occasion and drop it after: its normalized spoken text is
/// searched, and the occurrences found are placed in its original text).
pub fn other_sources_in<F>(
    count: usize,
    names: &[String],
    quotes: &[(usize, &str)],
    options: &crate::text::aligned::NormalizeOptions,
    source: F,
) -> Vec<Option<OtherSource>>
where
    F: Fn(usize, &mut dyn FnMut(&SourceText<'_>)) + Sync,
{
    // Each quote normalized; equal ones share a pattern (held once: the
    // patterns borrow the quotes' normalized texts).
    let normalized: Vec<String> = quotes
        .iter()
        .map(|(_, q)| Normalized::with_options(q.trim(), options).into_text())
        .collect();
    let mut pattern_refs: Vec<&str> = Vec::new();
    let mut pattern_of: HashMap<&str, usize> = HashMap::new();
    let quote_pattern: Vec<Option<usize>> = normalized
        .iter()
        .map(|n| {
            if n.is_empty() {
                return None;
            }
            Some(*pattern_of.entry(n).or_insert_with(|| {
                pattern_refs.push(n);
                pattern_refs.len() - 1
            }))
        })
        .collect();
    drop(pattern_of);
    // No transcript but the cited ones: nothing can be found elsewhere.
    let only_cited = quotes.iter().all(|(cited, _)| *cited < count) && count < 2;
    if pattern_refs.is_empty() || count == 0 || only_cited {
        return vec![None; quotes.len()];
    }
    let finder = crate::text::multifind::MultiFind::new(&pattern_refs);
    // Per transcript: the first occurrence of each pattern found in it,
    // placed in its original text.
    let hits: Vec<Vec<Hit>> = (0..count)
        .into_par_iter()
        .map(|t| {
            let mut hits = Vec::new();
            source(t, &mut |src| {
                for (pattern, found) in finder
                    .find(src.normalized_text(), true)
                    .into_iter()
                    .enumerate()
                {
                    let Some(r) = found.into_iter().next() else {
                        continue;
                    };
                    let Some(bytes) = src.aligned_from(pattern_refs[pattern], r) else {
                        continue;
                    };
                    let text = src.text();
                    let before: String = {
                        let head = &text[..bytes.start];
                        let at = head
                            .char_indices()
                            .rev()
                            .nth(EDGE_CHARS - 1)
                            .map_or(0, |(i, _)| i);
                        head[at..].to_string()
                    };
                    let after: String = text[bytes.end..].chars().take(EDGE_CHARS).collect();
                    hits.push(Hit {
                        pattern,
                        before,
                        after,
                        text: text[bytes.clone()].to_string(),
                        found: OtherSource {
                            source: names.get(t).cloned().unwrap_or_default(),
                            verdict: Verdict::Normalized,
                            span: src.chars_of(bytes.clone()).into(),
                            span_speaker: speaker_at(src, bytes.start),
                            byte_span: bytes,
                        },
                    });
                }
            });
            hits
        })
        .collect();
    // Per pattern: the transcripts holding it, in corpus order.
    let mut holders: Vec<Vec<(usize, &Hit)>> = vec![Vec::new(); pattern_refs.len()];
    for (t, hs) in hits.iter().enumerate() {
        for h in hs {
            holders[h.pattern].push((t, h));
        }
    }
    quotes
        .iter()
        .zip(&quote_pattern)
        .map(|((cited, quote), p)| {
            let (_, hit) = holders[(*p)?].iter().find(|(t, _)| t != cited)?;
            let mut found = hit.found.clone();
            let q = quote.trim();
            if hit.text == q {
                found.verdict = Verdict::Exact;
            } else if let Some(i) = q.find(hit.text.as_str()) {
                // The quote's edge marks stand beside the hit: covered,
                // and then it may be the quote exactly.
                let (lead, trail) = (&q[..i], &q[i + hit.text.len()..]);
                let marks = |s: &str| {
                    s.chars()
                        .all(|c| !c.is_alphanumeric() && !c.is_whitespace())
                };
                if marks(lead)
                    && marks(trail)
                    && hit.before.ends_with(lead)
                    && hit.after.starts_with(trail)
                {
                    let (lc, tc) = (lead.chars().count(), trail.chars().count());
                    found.span.start -= lc;
                    found.span.end += tc;
                    found.byte_span =
                        found.byte_span.start - lead.len()..found.byte_span.end + trail.len();
                    found.verdict = Verdict::Exact;
                }
            }
            Some(found)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::citations::turns::SpeakerConfig;

    const A: &str = "Interviewer: What did the cooperative change for you?\n\
Núria: We stopped paying rent to a landlord. The building belongs to all of us now.\n\
Interviewer: And the neighbours?\n\
Núria: Some were suspicious at first, they thought we were a sect or something.\n";
    const B: &str =
        "Moderator: Next question.\nJürgen: The repair café opened in 2014 in the old school.\n";

    fn src(t: &str) -> SourceText<'static> {
        SourceText::with_speakers(t.to_string(), &SpeakerConfig::default())
    }

    fn slice(t: &str, s: &Span) -> String {
        t.chars().skip(s.start).take(s.end - s.start).collect()
    }

    #[test]
    fn each_found_class_and_its_precedence() {
        let a = src(A);
        let c = a.check("The building belongs to all of us now.", 0.9);
        let at = of_found(&a, &c, Some("núria"));
        assert_eq!(at.attribution, Some(Attribution::Ok));
        assert_eq!(at.span_speaker.as_deref(), Some("Núria"));
        // The span's text, sliced from the original, is the quote.
        assert_eq!(
            slice(A, &c.span.clone().unwrap().into()),
            "The building belongs to all of us now."
        );
        let c = a.check("The building belongs to all of us now.", 0.9);
        assert_eq!(
            of_found(&a, &c, Some("Jordi")).attribution,
            Some(Attribution::WrongSpeaker)
        );
        // Across the label: found, cross_turn beats the named speaker.
        let c = a.check("all of us now. And the neighbours?", 0.9);
        assert_eq!(c.verdict, Verdict::Normalized);
        assert_eq!(
            of_found(&a, &c, Some("Jordi")).attribution,
            Some(Attribution::CrossTurn)
        );
        let c = a.check("And the neighbours?", 0.9);
        let at = of_found(&a, &c, Some("Núria"));
        assert_eq!(at.attribution, Some(Attribution::Interviewer));
        assert_eq!(at.span_speaker.as_deref(), Some("Interviewer"));
    }

    #[test]
    fn stitched_needs_two_apart_pieces_covering_most_words() {
        let a = src(A);
        let q = "We stopped paying rent to a landlord, they thought we were a sect";
        assert_eq!(a.check(q, 0.9).verdict, Verdict::NotFound);
        let pieces = stitched(&a, q).expect("stitched");
        assert_eq!(pieces.len(), 2);
        assert_eq!(pieces[0].text, "We stopped paying rent to a landlord");
        assert_eq!(pieces[1].text, "they thought we were a sect");
        assert_eq!(pieces[1].span_speaker.as_deref(), Some("Núria"));
        assert_eq!(slice(A, &pieces[1].span), "they thought we were a sect");
        // One piece only, or too little covered: not stitched.
        assert!(stitched(
            &a,
            "We stopped paying rent to a landlord and bought goats for the roof garden"
        )
        .is_none());
        assert!(stitched(&a, "Nothing of this was ever said by anyone here").is_none());
    }

    #[test]
    fn other_sources_found_once_per_corpus() {
        let (a, b) = (src(A), src(B));
        let names = vec!["a".to_string(), "b".to_string()];
        let found = other_sources(
            &[a, b],
            &names,
            &[
                (0, "the repair café opened in 2014"),
                (1, "We stopped paying rent to a landlord."),
                (0, "never said anywhere"),
                (1, "The repair café opened in 2014"),
            ],
        );
        let o = found[0].as_ref().unwrap();
        assert_eq!((o.source.as_str(), o.verdict), ("b", Verdict::Normalized));
        assert_eq!(o.span_speaker.as_deref(), Some("Jürgen"));
        assert_eq!(slice(B, &o.span), "The repair café opened in 2014");
        let o = found[1].as_ref().unwrap();
        assert_eq!((o.source.as_str(), o.verdict), ("a", Verdict::Exact));
        assert!(found[2].is_none());
        // Found only in its own (cited) transcript: not another source.
        assert!(found[3].is_none());
    }
}
