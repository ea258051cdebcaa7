//! Citation checks of a reply: the seed's `check_verbatims` (the quote,
//! stripped, inside `context[source_index].page_content`), extended with the
//! main job's normalized and fuzzy verdicts and spans. An out-of-range or
//! negative source index is the verdict `invalid_source`.

use super::reply::Reply;
use crate::citations::attribution::{self, Attribution, OtherSource, Piece};
use crate::citations::{MatchLevel, QuoteCheck, SourceText, Verdict};
use serde::Serialize;

/// How citations are judged.
#[derive(Debug, Clone)]
pub struct CheckConfig {
    /// The weakest verdict that counts as found.
    pub level: MatchLevel,
    /// Fuzzy similarity threshold.
    pub fuzzy_threshold: f64,
    /// Speaker labels and interviewer labels inside the passages.
    pub speakers: crate::citations::turns::SpeakerConfig,
    /// The quote normalizer's settings (the filler words it drops).
    pub normalize: crate::text::aligned::NormalizeOptions,
    /// How the fuzzy search finds its passages.
    pub fuzzy_search: crate::citations::FuzzySearch,
    /// The word lists of the `meaning` classes.
    pub meaning: std::sync::Arc<crate::citations::MeaningWords>,
}

/// The verdict of one citation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct CitationCheck {
    /// As given.
    pub source_index: i64,
    /// As given.
    pub quote: String,
    /// exact, normalized, fuzzy, not_found or invalid_source.
    pub verdict: &'static str,
    /// Whether it counts as found at the match level.
    pub found: bool,
    /// Similarity of the best match, 0..1.
    pub similarity: f64,
    /// Character offsets `{start, end}` in the cited document's page_content.
    pub span: Option<crate::citations::attribution::Span>,
    /// The speaker of the turn (inside the passage) where the span starts.
    pub span_speaker: Option<String>,
    /// The attribution class (null for an invalid source).
    pub attribution: Option<Attribution>,
    /// For `other_source`: the other retrieved passage (its index as
    /// `source`) where the quote stands.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub other_source: Option<OtherSource>,
    /// What was ignored or applied to find it (`[]` exact, null when not
    /// found; see [`crate::citations::differences`]).
    pub differences: Option<Vec<crate::citations::differences::Difference>>,
    /// What the citation changes in what was said (`[]` exact, null when
    /// nothing was matched; see [`crate::citations::meaning()`]).
    pub meaning: Option<Vec<crate::citations::MeaningChange>>,
    /// For `stitched`: the pieces in the cited passage; for an `edited`
    /// quote with an ellipsis, one per segment.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pieces: Vec<Piece>,
}

/// Checks every citation of `reply`; returns the checks and the existence
/// score (found / citations; None without citations).
pub(crate) fn check_citations(
    reply: &Reply,
    config: &CheckConfig,
) -> (Vec<CitationCheck>, Option<f64>) {
    let (level, fuzzy_threshold) = (config.level, config.fuzzy_threshold);
    // Every passage prepared once (turns inside it apply), however many
    // quotes cite it.
    let sources: Vec<SourceText> = reply
        .context
        .iter()
        .map(|p| {
            SourceText::with_speakers(p.clone(), &config.speakers)
                .normalizing(&config.normalize)
                .searching(config.fuzzy_search)
                .meaning_words(&config.meaning)
        })
        .collect();
    let cited: Vec<Option<usize>> = reply
        .citations
        .iter()
        .map(|c| {
            usize::try_from(c.source_index)
                .ok()
                .filter(|&i| i < reply.context.len())
        })
        .collect();
    let raw: Vec<Option<QuoteCheck>> = reply
        .citations
        .iter()
        .zip(&cited)
        .map(|(c, i)| i.map(|i| sources[i].check(&c.quote, fuzzy_threshold)))
        .collect();
    let found = |c: &QuoteCheck| level.accepts(c.verdict) && c.verdict != Verdict::UnknownSource;
    // Quotes not found in their passage: looked up in the other passages.
    let missing: Vec<(usize, usize)> = raw
        .iter()
        .zip(&cited)
        .enumerate()
        .filter_map(|(k, (c, i))| match (c, i) {
            (Some(c), Some(i)) if !found(c) => Some((k, *i)),
            _ => None,
        })
        .collect();
    let names: Vec<String> = (0..sources.len()).map(|i| i.to_string()).collect();
    let lookups: Vec<(usize, &str)> = missing
        .iter()
        .map(|&(k, i)| (i, reply.citations[k].quote.as_str()))
        .collect();
    let mut elsewhere: Vec<Option<OtherSource>> = vec![None; raw.len()];
    for ((k, _), o) in missing
        .iter()
        .zip(attribution::other_sources(&sources, &names, &lookups))
    {
        elsewhere[*k] = o;
    }
    let checks: Vec<CitationCheck> = reply
        .citations
        .iter()
        .zip(raw)
        .zip(elsewhere)
        .enumerate()
        .map(|(k, ((c, check), other))| {
            let Some(check) = check else {
                return CitationCheck {
                    source_index: c.source_index,
                    quote: c.quote.clone(),
                    verdict: "invalid_source",
                    found: false,
                    similarity: 0.0,
                    span: None,
                    span_speaker: None,
                    attribution: None,
                    other_source: None,
                    differences: None,
                    meaning: None,
                    pieces: Vec::new(),
                };
            };
            let src = &sources[cited[k].unwrap_or(0)];
            let is_found = found(&check);
            let mut a = if is_found {
                attribution::of_found(src, &check, None)
            } else {
                attribution::Attributed::default()
            };
            if !is_found {
                if let Some(o) = other {
                    a.attribution = Some(Attribution::OtherSource);
                    a.other_source = Some(Box::new(o));
                } else {
                    match attribution::altered_or_stitched(src, &check, &c.quote) {
                        (Some(altered), _) => a = altered,
                        (None, Some(p)) => {
                            a.attribution = Some(Attribution::Stitched);
                            a.pieces = p;
                        }
                        (None, None) => a.attribution = Some(Attribution::Fabricated),
                    }
                }
            }
            CitationCheck {
                source_index: c.source_index,
                quote: c.quote.clone(),
                verdict: check.verdict.as_str(),
                found: is_found,
                similarity: check.similarity,
                span: check.span.map(Into::into),
                span_speaker: a.span_speaker,
                attribution: a.attribution,
                other_source: a.other_source.map(|o| *o),
                differences: check.differences.clone(),
                meaning: check.meaning.clone(),
                pieces: a.pieces,
            }
        })
        .collect();
    let existence = (!checks.is_empty())
        .then(|| checks.iter().filter(|c| c.found).count() as f64 / checks.len() as f64);
    (checks, existence)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::citations::turns::SpeakerConfig;
    use crate::citations::MatchLevel;

    fn cfg(level: MatchLevel) -> CheckConfig {
        CheckConfig {
            level,
            fuzzy_threshold: 0.9,
            normalize: Default::default(),
            fuzzy_search: Default::default(),
            speakers: SpeakerConfig::default(),
            meaning: crate::citations::MeaningWords::english(),
        }
    }
    use crate::rag::reply::Citation;

    #[test]
    fn verdicts_and_invalid_sources() {
        let reply = Reply {
            context: vec![
                "We had three meetings with the board before they said yes.".into(),
                "The garden opened in May, with forty families.".into(),
            ],
            answer: "No.".into(),
            citations: vec![
                Citation {
                    source_index: 0,
                    quote: " We had three meetings with the board ".into(),
                },
                Citation {
                    source_index: 1,
                    quote: "the garden opened in may, with forty families.".into(),
                },
                Citation {
                    source_index: 1,
                    quote: "The garden opened in May with forty families.".into(),
                },
                Citation {
                    source_index: 0,
                    quote: "Nobody ever came to the meetings.".into(),
                },
                Citation {
                    source_index: 2,
                    quote: "x".into(),
                },
                Citation {
                    source_index: -1,
                    quote: "x".into(),
                },
            ],
        };
        let (checks, existence) = check_citations(&reply, &cfg(MatchLevel::Normalized));
        let verdicts: Vec<&str> = checks.iter().map(|c| c.verdict).collect();
        assert_eq!(
            verdicts,
            [
                "exact",
                "normalized",
                // Issue 40: a dropped comma is the transcriber's
                // punctuation, not another quote (it was `fuzzy`).
                "normalized",
                "not_found",
                "invalid_source",
                "invalid_source"
            ]
        );
        use crate::citations::differences::Difference;
        assert_eq!(checks[0].differences, Some(vec![]));
        assert_eq!(checks[1].differences, Some(vec![Difference::Case]));
        assert_eq!(checks[2].differences, Some(vec![Difference::Punctuation]));
        assert_eq!(checks[3].differences, None);
        assert_eq!(checks[0].meaning, Some(vec![]));
        assert_eq!(
            checks[0].span,
            Some(crate::citations::attribution::Span { start: 0, end: 36 })
        );
        assert_eq!(existence, Some(3.0 / 6.0));
        let (_, fuzzy) = check_citations(&reply, &cfg(MatchLevel::Fuzzy));
        assert_eq!(fuzzy, Some(3.0 / 6.0));
        let empty = Reply {
            context: vec![],
            answer: String::new(),
            citations: vec![],
        };
        assert_eq!(
            check_citations(&empty, &cfg(MatchLevel::Normalized)).1,
            None
        );
    }

    #[test]
    fn attribution_inside_passages() {
        let reply = Reply {
            context: vec![
                "Interviewer: Who runs it?\nAnna: The families take turns, one week each.".into(),
                "Bo: The council pays for the water.".into(),
            ],
            answer: "x".into(),
            citations: vec![
                Citation {
                    source_index: 0,
                    quote: "The families take turns".into(),
                },
                Citation {
                    source_index: 0,
                    quote: "Who runs it?".into(),
                },
                Citation {
                    source_index: 0,
                    quote: "The council pays for the water.".into(),
                },
                Citation {
                    source_index: 0,
                    quote: "Nobody pays anything here.".into(),
                },
                Citation {
                    source_index: 5,
                    quote: "x".into(),
                },
            ],
        };
        let (checks, _) = check_citations(&reply, &cfg(MatchLevel::Normalized));
        let got: Vec<Option<&str>> = checks
            .iter()
            .map(|c| c.attribution.map(|a| a.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                Some("ok"),
                Some("interviewer"),
                Some("other_source"),
                Some("fabricated"),
                None
            ]
        );
        assert_eq!(checks[0].span_speaker.as_deref(), Some("Anna"));
        let other = checks[2].other_source.as_ref().unwrap();
        assert_eq!(other.source, "1");
        assert_eq!(other.span_speaker.as_deref(), Some("Bo"));
    }
}
