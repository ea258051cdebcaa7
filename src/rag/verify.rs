//! Citation checks of a reply: the seed's `check_verbatims` (the quote,
//! stripped, inside `context[source_index].page_content`), extended with the
//! main job's normalized and fuzzy verdicts and spans. An out-of-range or
//! negative source index is the verdict `invalid_source`.

use super::reply::Reply;
use crate::citations::{MatchLevel, SourceText, Verdict};
use serde::Serialize;

/// The verdict of one citation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CitationCheck {
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
    /// Character offsets in the cited document's page_content.
    pub span: Option<[usize; 2]>,
}

/// Checks every citation of `reply`; returns the checks and the existence
/// score (found / citations; None without citations).
pub fn check_citations(
    reply: &Reply,
    level: MatchLevel,
    fuzzy_threshold: f64,
) -> (Vec<CitationCheck>, Option<f64>) {
    // Each cited document is prepared once, however many quotes cite it.
    let mut sources: Vec<Option<SourceText>> = (0..reply.context.len()).map(|_| None).collect();
    let checks: Vec<CitationCheck> = reply
        .citations
        .iter()
        .map(|c| {
            let doc = usize::try_from(c.source_index)
                .ok()
                .filter(|&i| i < reply.context.len());
            let Some(i) = doc else {
                return CitationCheck {
                    source_index: c.source_index,
                    quote: c.quote.clone(),
                    verdict: "invalid_source",
                    found: false,
                    similarity: 0.0,
                    span: None,
                };
            };
            let source =
                sources[i].get_or_insert_with(|| SourceText::new(reply.context[i].clone()));
            let check = source.check(&c.quote, fuzzy_threshold);
            CitationCheck {
                source_index: c.source_index,
                quote: c.quote.clone(),
                verdict: check.verdict.as_str(),
                found: level.accepts(check.verdict) && check.verdict != Verdict::UnknownSource,
                similarity: check.similarity,
                span: check.span.map(|r| [r.start, r.end]),
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
        let (checks, existence) = check_citations(&reply, MatchLevel::Normalized, 0.9);
        let verdicts: Vec<&str> = checks.iter().map(|c| c.verdict).collect();
        assert_eq!(
            verdicts,
            [
                "exact",
                "normalized",
                "fuzzy",
                "not_found",
                "invalid_source",
                "invalid_source"
            ]
        );
        assert_eq!(checks[0].span, Some([0, 36]));
        assert_eq!(existence, Some(2.0 / 6.0));
        let (_, fuzzy) = check_citations(&reply, MatchLevel::Fuzzy, 0.9);
        assert_eq!(fuzzy, Some(3.0 / 6.0));
        let empty = Reply {
            context: vec![],
            answer: String::new(),
            citations: vec![],
        };
        assert_eq!(check_citations(&empty, MatchLevel::Normalized, 0.9).1, None);
    }
}
