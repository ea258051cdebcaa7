//! The paraphrase tier (`--paraphrase`): a quote with no close passage
//! in its cited transcript (`fabricated`) is compared, by the sentence
//! embeddings `semantic` computes, with every turn of that transcript and
//! every run of one to [`MAX_WINDOW`] consecutive sentences of one turn.
//! Its nearest passage is recorded as `nearest {text, speaker, time,
//! similarity}` ("what was said"); at or above the threshold the quote is
//! a `paraphrase`: the person said this, in other words, and the quotation
//! marks are what is wrong.
//!
//! Each transcript's passages are embedded once per run, and only for the
//! transcripts such quotes cite; the quotes in one batch.

#[cfg(feature = "semantic")]
use crate::{
    citations::{
        turns::{SpeakerConfig, Turns},
        Attribution,
    },
    corpus::{CorpusError, TranscriptSet},
    semantic::{cosine, Embedder, SemanticError},
};
use serde::{Deserialize, Serialize};
#[cfg(feature = "semantic")]
use std::ops::Range;

/// The most consecutive sentences of one turn compared as one passage.
pub const MAX_WINDOW: usize = 3;

/// The default `--paraphrase-threshold` (cosine), chosen on the labelled
/// set of `datasets/paraphrase/` (see docs/quote-verification.md).
pub const DEFAULT_PARAPHRASE_THRESHOLD: f64 = 0.8;

/// The passage of the cited transcript nearest a quote not found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Nearest {
    /// The passage as written.
    pub text: String,
    /// The speaker of its turn.
    pub speaker: Option<String>,
    /// When it was said, where the transcript has times.
    pub time: Option<crate::corpus::formats::QuoteTime>,
    /// Cosine of the two embeddings (6 decimals).
    pub similarity: f64,
}

/// Errors of the paraphrase tier.
#[cfg(feature = "semantic")]
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ParaphraseError {
    /// A transcript could not be read.
    #[error(transparent)]
    Corpus(#[from] CorpusError),
    /// The model failed.
    #[error(transparent)]
    Semantic(#[from] SemanticError),
}

/// What the tier did: quotes compared, passages embedded, paraphrases.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ParaphraseCounts {
    /// Quotes compared (those `fabricated` in a transcript of the corpus).
    pub compared: usize,
    /// Passages embedded.
    pub passages: usize,
    /// Quotes made `paraphrase`.
    pub paraphrases: usize,
}

/// A transcript's passages: each turn's text, and each run of one to
/// [`MAX_WINDOW`] consecutive sentences of a turn, as byte ranges of
/// `text` with their turn's speaker; each text once.
#[cfg(feature = "semantic")]
pub(crate) fn passages(text: &str, turns: &Turns) -> Vec<(Range<usize>, Option<String>)> {
    let mut out: Vec<(Range<usize>, Option<String>)> = Vec::new();
    let mut seen: std::collections::HashSet<&str> = std::collections::HashSet::new();
    for turn in &turns.turns {
        let sentences = sentences(text, turn.text.clone());
        let mut push = |r: Range<usize>| {
            let t = text[r.clone()].trim();
            if t.chars().any(char::is_alphanumeric) && seen.insert(t) {
                out.push((r, turn.speaker.clone()));
            }
        };
        for i in 0..sentences.len() {
            for n in 1..=MAX_WINDOW.min(sentences.len() - i) {
                push(sentences[i].start..sentences[i + n - 1].end);
            }
        }
        if let (true, Some(first), Some(last)) = (
            sentences.len() > MAX_WINDOW,
            sentences.first(),
            sentences.last(),
        ) {
            push(first.start..last.end);
        }
    }
    out
}

/// The sentences of `text[range]`: runs ending at `.`, `!`, `?` or `…`
/// followed by whitespace (or the end), trimmed.
#[cfg(feature = "semantic")]
fn sentences(text: &str, range: Range<usize>) -> Vec<Range<usize>> {
    let part = &text[range.clone()];
    let mut out = Vec::new();
    let mut from = 0;
    let mut chars = part.char_indices().peekable();
    while let Some((k, c)) = chars.next() {
        let next_is_space = chars.peek().is_none_or(|&(_, n)| n.is_whitespace());
        if matches!(c, '.' | '!' | '?' | '\u{2026}') && next_is_space {
            let end = k + c.len_utf8();
            push_trimmed(part, from..end, range.start, &mut out);
            from = end;
        }
    }
    push_trimmed(part, from..part.len(), range.start, &mut out);
    out
}

#[cfg(feature = "semantic")]
fn push_trimmed(part: &str, r: Range<usize>, base: usize, out: &mut Vec<Range<usize>>) {
    let s = &part[r.clone()];
    let lead = s.len() - s.trim_start().len();
    let trail = s.len() - s.trim_end().len();
    if lead + trail < s.len() {
        out.push(base + r.start + lead..base + r.end - trail);
    }
}

/// Compares each `fabricated` quote of `quotes` (the quote's text and its
/// result) with the passages of its cited transcript: records `nearest`
/// on each, and makes those at or above `threshold` `paraphrase`.
#[cfg(feature = "semantic")]
pub fn apply(
    quotes: &mut [(&str, &mut super::QuoteResult)],
    transcripts: &TranscriptSet,
    speakers: &SpeakerConfig,
    embedder: &Embedder,
    threshold: f64,
) -> Result<ParaphraseCounts, ParaphraseError> {
    let mut counts = ParaphraseCounts::default();
    // The quotes to compare, by transcript.
    let mut by_transcript: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
    for (k, (_, r)) in quotes.iter().enumerate() {
        if r.attributed.attribution != Some(Attribution::Fabricated) {
            continue;
        }
        let cited = r.transcript.as_deref().or(r.source.as_deref());
        if let Some(t) = cited.and_then(|s| transcripts.position(s)) {
            by_transcript.entry(t).or_default().push(k);
        }
    }
    for (t, members) in by_transcript {
        let transcript = &transcripts.transcripts[t];
        let text = transcript.text()?;
        let turns = Turns::of(&text, transcript.labels(), speakers);
        let found = passages(&text, &turns);
        if found.is_empty() {
            continue;
        }
        let texts: Vec<&str> = found.iter().map(|(r, _)| text[r.clone()].trim()).collect();
        let passage_vecs = embedder.embed(&texts)?;
        let quote_texts: Vec<&str> = members.iter().map(|&k| quotes[k].0.trim()).collect();
        let quote_vecs = embedder.embed(&quote_texts)?;
        counts.passages += texts.len();
        for (&k, qv) in members.iter().zip(&quote_vecs) {
            let best = passage_vecs
                .iter()
                .enumerate()
                .map(|(i, pv)| (i, cosine(qv, pv)))
                .filter(|(_, s)| s.is_finite())
                .fold(None::<(usize, f64)>, |best, (i, s)| match best {
                    Some((_, b)) if b >= s => best,
                    _ => Some((i, s)),
                });
            let Some((i, similarity)) = best else {
                continue;
            };
            let similarity = ((similarity.clamp(-1.0, 1.0) * 1e6).round() / 1e6) + 0.0;
            let (range, speaker) = &found[i];
            let result = &mut quotes[k].1;
            counts.compared += 1;
            if similarity >= threshold {
                result.attributed.attribution = Some(Attribution::Paraphrase);
                counts.paraphrases += 1;
            }
            result.nearest = Some(Nearest {
                text: texts[i].to_string(),
                speaker: speaker.clone(),
                time: transcript.time_of(range.clone()),
                similarity,
            });
        }
    }
    Ok(counts)
}

#[cfg(all(test, feature = "semantic"))]
mod tests {
    use super::*;

    #[test]
    fn passages_are_turns_and_windows_of_their_sentences() {
        let text = "Interviewer: Why?\nAna: One. Two! Three? Four.\nBo: Only one here\n";
        let turns = Turns::parse(text, &SpeakerConfig::default());
        let got: Vec<&str> = passages(text, &turns)
            .iter()
            .map(|(r, _)| &text[r.clone()])
            .collect();
        assert_eq!(
            got,
            [
                "Why?",
                "One.",
                "One. Two!",
                "One. Two! Three?",
                "Two!",
                "Two! Three?",
                "Two! Three? Four.",
                "Three?",
                "Three? Four.",
                "Four.",
                "One. Two! Three? Four.",
                "Only one here",
            ]
        );
        let speakers: Vec<Option<String>> =
            passages(text, &turns).into_iter().map(|(_, s)| s).collect();
        assert_eq!(speakers[1].as_deref(), Some("Ana"));
        assert_eq!(speakers[11].as_deref(), Some("Bo"));
    }

    #[test]
    fn a_decimal_or_an_abbreviation_inside_a_word_does_not_end_a_sentence() {
        let text = "It cost 2.50 each.Then more. Done";
        let got: Vec<&str> = sentences(text, 0..text.len())
            .into_iter()
            .map(|r| &text[r])
            .collect();
        assert_eq!(got, ["It cost 2.50 each.Then more.", "Done"]);
    }
}
