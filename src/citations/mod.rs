//! Verbatim quote verification.
//!
//! Each quote is looked up in the transcript its source names, in three
//! steps: exact (substring after trimming), normalized (case, whitespace,
//! typographic quotes/apostrophes/dashes and diacritics ignored, see
//! [`crate::text::aligned`]), and fuzzy (the best approximate substring,
//! found through a word-bigram index, see [`fuzzy`]). The verdict is the
//! strongest step that matched; `--match` decides which verdicts count as
//! found. Spans are character offsets into the joined transcript.
//!
//! ```
//! use corpus_eval::citations::{Verdict, SourceText};
//! let t = SourceText::new("We grew “heirloom” potatoes and  leeks.".to_string());
//! let c = t.check("grew \"heirloom\" potatoes and leeks", 0.9);
//! assert_eq!(c.verdict, Verdict::Normalized);
//! assert_eq!(c.span, Some(3..38));
//! ```

pub(crate) mod attribution;

pub use attribution::*;
pub(crate) mod classes;
pub use classes::*;
pub(crate) mod differences;
pub use differences::*;
pub(crate) mod edited;
pub use edited::*;
pub mod fuzzy;
pub(crate) mod labels;
pub(crate) mod meaning;
pub use labels::*;
pub use meaning::*;
pub(crate) mod turns;
pub use turns::*;

use crate::text::aligned::{NormalizeOptions, Normalized};
use serde::{Deserialize, Serialize};
use std::ops::Range;
use std::sync::OnceLock;

/// Default similarity a fuzzy match needs.
pub const DEFAULT_FUZZY_THRESHOLD: f64 = 0.9;

/// The outcome of looking a quote up.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, serde::Deserialize, Hash,
)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Found as written (after trimming).
    Exact,
    /// Found after quote normalization.
    Normalized,
    /// Found as an edited quote: its segments between ellipses stand in
    /// order (exact or normalized), `[insertions]` and `[sic]` taken into
    /// account (see `edited`).
    Edited,
    /// An approximate substring reaches the similarity threshold.
    Fuzzy,
    /// Not in the transcript.
    NotFound,
    /// The source names no known transcript.
    UnknownSource,
}

impl Verdict {
    /// Every verdict, in strength order (how summaries list them).
    pub const ALL: [Verdict; 6] = [
        Verdict::Exact,
        Verdict::Normalized,
        Verdict::Edited,
        Verdict::Fuzzy,
        Verdict::NotFound,
        Verdict::UnknownSource,
    ];

    /// The verdict's name in output files.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Exact => "exact",
            Verdict::Normalized => "normalized",
            Verdict::Edited => "edited",
            Verdict::Fuzzy => "fuzzy",
            Verdict::NotFound => "not_found",
            Verdict::UnknownSource => "unknown_source",
        }
    }
}

/// The weakest verdict that counts as found (`--match`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum MatchLevel {
    /// Only exact matches count.
    Exact,
    /// Exact and normalized matches count.
    #[default]
    Normalized,
    /// Exact, normalized and fuzzy matches count.
    Fuzzy,
}

impl MatchLevel {
    /// Whether a verdict counts as found at this level.
    pub fn accepts(self, v: Verdict) -> bool {
        match self {
            MatchLevel::Exact => v == Verdict::Exact,
            MatchLevel::Normalized => {
                matches!(v, Verdict::Exact | Verdict::Normalized | Verdict::Edited)
            }
            MatchLevel::Fuzzy => matches!(
                v,
                Verdict::Exact | Verdict::Normalized | Verdict::Edited | Verdict::Fuzzy
            ),
        }
    }

    /// The level's name.
    pub fn as_str(self) -> &'static str {
        match self {
            MatchLevel::Exact => "exact",
            MatchLevel::Normalized => "normalized",
            MatchLevel::Fuzzy => "fuzzy",
        }
    }
}

/// The result of checking one quote.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct QuoteCheck {
    /// The strongest step that matched.
    pub verdict: Verdict,
    /// Similarity of the best match found, 0..1 (1 for exact and normalized).
    pub similarity: f64,
    /// Character offsets of the matched text in the transcript, when matched.
    pub span: Option<Range<usize>>,
    /// The same span in bytes of the transcript (not serialized).
    #[serde(skip)]
    pub byte_span: Option<Range<usize>>,
    /// What was ignored or applied to find it (see [`differences`]): `[]`
    /// for an exact match, None when nothing was matched.
    #[serde(default)]
    pub differences: Option<Vec<differences::Difference>>,
    /// What the quote changes in what was said (see [`meaning()`]): `[]`
    /// for an exact match, the changes against the matched passage (or,
    /// for a quote not found, against its closest passage), None when
    /// there is neither.
    #[serde(default)]
    pub meaning: Option<Vec<meaning::MeaningChange>>,
    /// An edited quote's segments between ellipses (two or more), as byte
    /// ranges of the transcript (not serialized: its pieces are).
    #[serde(skip)]
    pub segments: Vec<Range<usize>>,
    /// For a quote not found: the closest passage of the transcript (the
    /// best fuzzy match, below the threshold), in chars.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closest: Option<Range<usize>>,
    /// The same passage in bytes (not serialized).
    #[serde(skip)]
    pub closest_bytes: Option<Range<usize>>,
}

impl QuoteCheck {
    /// What a matched quote (found, or a passage the match level does not
    /// accept) changes in what was said; empty for an exact or unmatched
    /// one.
    pub fn meaning_changes(&self) -> &[meaning::MeaningChange] {
        match (self.verdict, &self.meaning) {
            (Verdict::NotFound | Verdict::UnknownSource, _) | (_, None) => &[],
            (_, Some(m)) => m,
        }
    }

    /// A quote whose source is unknown.
    pub fn unknown_source() -> QuoteCheck {
        QuoteCheck {
            verdict: Verdict::UnknownSource,
            ..QuoteCheck::not_found(0.0)
        }
    }

    /// A quote not found, its best similarity `similarity`.
    pub fn not_found(similarity: f64) -> QuoteCheck {
        QuoteCheck {
            verdict: Verdict::NotFound,
            similarity,
            span: None,
            byte_span: None,
            differences: None,
            meaning: None,
            segments: Vec::new(),
            closest: None,
            closest_bytes: None,
        }
    }
}

/// One literal of an edited quote's segment.
struct Literal {
    /// As written in the quote.
    written: String,
    /// Normalized as the transcript is.
    normalized: String,
    /// An insertion stands before it (it may follow the literal before it
    /// by up to [`edited::MAX_INSERTED_WORDS`] words).
    bridged: bool,
}

/// Start places of an edited quote's first segment tried in search of a
/// placement whose segments all stand in one turn.
const EDITED_STARTS: usize = 32;
/// Occurrences of a segment's first literal tried.
const EDITED_TRIES: usize = 256;

/// Bytes between char-count checkpoints (a char offset counts at most
/// this many bytes past one).
const CHECKPOINT: usize = 512;

/// One transcript prepared for quote lookups; the normalized text, the char
/// offset table and the fuzzy index are built on first use, once. With
/// speakers ([`SourceText::with_speakers`]) quotes are matched against what
/// was said, the speaker labels taken out; spans still point into the
/// original text.
#[derive(Debug)]
pub struct SourceText<'a> {
    text: std::borrow::Cow<'a, str>,
    turns: Option<turns::Turns>,
    normalized: OnceLock<Normalized>,
    /// The whole text normalized, labels included (for quotes that carry
    /// a label), built only when such a lookup happens.
    whole_normalized: OnceLock<Normalized>,
    /// The labels as written, lower-cased (see `turns::Turns::label_marks`).
    label_marks: OnceLock<Vec<String>>,
    char_checkpoints: OnceLock<Vec<usize>>,
    index: OnceLock<fuzzy::BigramIndex>,
    /// The q-gram index of the lossless fuzzy filter, built on first use.
    qgrams: OnceLock<fuzzy::qgram::QgramIndex>,
    /// What [`SourceText::expect_fuzzy`] prepared for the quotes it was
    /// told of.
    pieces: OnceLock<Announced>,
    /// Buffers of an earlier transcript that the structures built on
    /// first use are built into (see [`Workspace`]).
    spare: std::sync::Mutex<Workspace>,
    /// The quote normalizer's settings (the fillers it drops), for the
    /// transcript and the quotes looked up in it alike.
    options: NormalizeOptions,
    /// How the fuzzy search finds its windows.
    search: FuzzySearch,
    /// The word lists `meaning` reads.
    words: std::sync::Arc<meaning::MeaningWords>,
}

/// The lossless fuzzy search's preparation for a transcript's quotes
/// ([`SourceText::expect_fuzzy`]).
#[derive(Debug, Default)]
struct Announced {
    /// The word-piece tables of the lossless filter (None: no piece
    /// shared by two quotes that need it).
    tables: Option<fuzzy::wordbound::Tables>,
    /// Each announced quote's first step ([`fuzzy::voted_match`]), by
    /// its normalized text.
    voted: std::collections::HashMap<String, Option<fuzzy::FuzzyMatch>>,
}

/// How the fuzzy search finds the passages it verifies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FuzzySearch {
    /// Lossless at or above min(0.8, threshold): the windows the quote's
    /// word pairs vote for, then those of the word-piece bound (see
    /// [`fuzzy::wordbound`]) or the q-gram filter (see [`fuzzy::qgram`]).
    #[default]
    Lossless,
    /// The word pairs' windows only (faster on long, repetitive
    /// transcripts; may miss a passage whose word pairs the edits broke).
    Fast,
}

impl FuzzySearch {
    /// The name in settings and signatures.
    pub fn as_str(self) -> &'static str {
        match self {
            FuzzySearch::Lossless => "lossless",
            FuzzySearch::Fast => "fast",
        }
    }
}

/// One worker's reusable buffers: the text (when read back owned), the
/// spoken text, the normalized text and the word index of the transcript
/// it prepared last. A transcript prepared in a workspace
/// ([`Workspace::prepare`]) is built into them, and gives them back when
/// done with ([`Workspace::recycle`]), so that transcripts prepared one
/// after another allocate their large buffers, and fault their pages in,
/// once rather than once per transcript. This is the one door through
/// which buffer reuse reaches the lookups; a [`SourceText`] made with
/// [`SourceText::new`] or [`SourceText::with_speakers`] owns fresh ones.
#[derive(Debug, Default)]
pub(crate) struct Workspace {
    text: String,
    spoken: String,
    normalized: crate::text::aligned::NormalizedSpare,
    index: fuzzy::IndexSpare,
    pieces: Vec<u8>,
}

impl Workspace {
    /// The text's buffer, for a text read back into it (e.g.
    /// [`crate::corpus::Transcript::text_in`]) and handed to
    /// [`Workspace::prepare`] as an owned text.
    pub(crate) fn text_buffer(&mut self) -> &mut String {
        &mut self.text
    }

    /// A transcript split into turns by `speakers`, its structures built
    /// into this workspace's buffers (taken: the workspace is left empty
    /// until [`Workspace::recycle`] gives them back).
    pub(crate) fn prepare<'a>(
        &mut self,
        text: std::borrow::Cow<'a, str>,
        labels: Option<&[crate::text::anchors::TurnLabel]>,
        speakers: &turns::SpeakerConfig,
    ) -> SourceText<'a> {
        let mut spare = std::mem::take(self);
        let t = turns::Turns::parse_labelled(
            &text,
            labels,
            speakers,
            std::mem::take(&mut spare.spoken),
        );
        SourceText {
            turns: Some(t),
            spare: std::sync::Mutex::new(spare),
            ..SourceText::of(text)
        }
    }

    /// Takes back the large buffers of a transcript done with.
    pub(crate) fn recycle(&mut self, source: SourceText<'_>) {
        let mut spare = source.spare.into_inner().unwrap_or_else(|e| e.into_inner());
        if let std::borrow::Cow::Owned(text) = source.text {
            spare.text = text;
        }
        if let Some(t) = source.turns {
            spare.spoken = t.into_spoken_buffer();
        }
        if let Some(n) = source.normalized.into_inner() {
            spare.normalized = n.into_spare();
        }
        if let Some(i) = source.index.into_inner() {
            spare.index = i.into_spare();
        }
        if let Some(Announced {
            tables: Some(t), ..
        }) = source.pieces.into_inner()
        {
            spare.pieces = t.into_buffer();
        }
        *self = spare;
    }
}

impl<'a> SourceText<'a> {
    /// Wraps a transcript, owned or borrowed (matching runs over the whole
    /// text).
    pub fn new(text: impl Into<std::borrow::Cow<'a, str>>) -> SourceText<'a> {
        SourceText::of(text.into())
    }

    /// Wraps a transcript, owned or borrowed, split into turns by
    /// `speakers`.
    pub fn with_speakers(
        text: impl Into<std::borrow::Cow<'a, str>>,
        speakers: &turns::SpeakerConfig,
    ) -> SourceText<'a> {
        Workspace::default().prepare(text.into(), None, speakers)
    }

    /// A transcript's text split into the turns its reader found
    /// ([`turns::Turns::of`]).
    pub fn with_turns(
        text: impl Into<std::borrow::Cow<'a, str>>,
        labels: Option<&[crate::text::anchors::TurnLabel]>,
        speakers: &turns::SpeakerConfig,
    ) -> SourceText<'a> {
        Workspace::default().prepare(text.into(), labels, speakers)
    }

    /// A buffer taken from the spare ones (empty when none is left).
    fn take_spare<T: Default>(&self, part: impl FnOnce(&mut Workspace) -> &mut T) -> T {
        match self.spare.lock() {
            Ok(mut s) => std::mem::take(part(&mut s)),
            Err(_) => T::default(),
        }
    }

    fn of(text: std::borrow::Cow<'a, str>) -> SourceText<'a> {
        SourceText {
            text,
            turns: None,
            normalized: OnceLock::new(),
            whole_normalized: OnceLock::new(),
            label_marks: OnceLock::new(),
            char_checkpoints: OnceLock::new(),
            index: OnceLock::new(),
            qgrams: OnceLock::new(),
            pieces: OnceLock::new(),
            spare: std::sync::Mutex::new(Workspace::default()),
            options: NormalizeOptions::default(),
            search: FuzzySearch::default(),
            words: meaning::MeaningWords::english(),
        }
    }

    /// The same transcript, the changes of meaning of its quotes read
    /// with `words` instead of the English lists.
    pub fn meaning_words(
        mut self,
        words: &std::sync::Arc<meaning::MeaningWords>,
    ) -> SourceText<'a> {
        self.words = words.clone();
        self
    }

    /// The same transcript, its fuzzy search done the `search` way.
    pub fn searching(mut self, search: FuzzySearch) -> SourceText<'a> {
        self.search = search;
        self
    }

    /// The same transcript, normalized (with the quotes looked up in it)
    /// under `options` instead of the default ones.
    pub fn normalizing(mut self, options: &NormalizeOptions) -> SourceText<'a> {
        if self.options != *options {
            self.options = options.clone();
            self.normalized = OnceLock::new();
            self.whole_normalized = OnceLock::new();
            self.index = OnceLock::new();
            self.qgrams = OnceLock::new();
        }
        self
    }

    /// The quote normalizer's settings.
    pub fn options(&self) -> &NormalizeOptions {
        &self.options
    }

    /// Announces the quotes that may be searched for fuzzily in this
    /// transcript (those no exact or normalized lookup found), so that the
    /// lossless search tables what they share once
    /// ([`fuzzy::wordbound`]) rather than filter each alone. Only the
    /// first call counts; the matches are the same with or without it.
    ///
    /// `threshold` is the one the quotes will be checked at. Each
    /// announced quote's first step (the windows its word pairs vote
    /// for) is taken now, in parallel, and kept for its search; the
    /// tables then hold the bound of each quote that step leaves inexact,
    /// for the edits a better match at the lossless floor (or
    /// `threshold`, when lower) allows, computed for all of them at once.
    pub fn expect_fuzzy(&self, quotes: &[&str], threshold: f64) {
        use rayon::prelude::*;
        if self.search != FuzzySearch::Lossless || quotes.len() < 2 || self.pieces.get().is_some() {
            return;
        }
        self.pieces.get_or_init(|| {
            let text = self.normalized().text();
            let mut normalized: Vec<String> = quotes
                .iter()
                .map(|q| self.normalize_quote(q.trim()).into_text())
                .filter(|q| !q.is_empty())
                .collect();
            normalized.sort_unstable();
            normalized.dedup();
            let index = self.index();
            let voted: Vec<Option<fuzzy::FuzzyMatch>> = normalized
                .par_iter()
                .map(|q| fuzzy::voted_match(q, text, index))
                .collect();
            let floor = threshold.min(fuzzy::LOSSLESS_FLOOR);
            // Each quote left to the lossless filter, with the edits a
            // better match than its first step's allows.
            let (searched, edits): (Vec<Vec<char>>, Vec<usize>) = normalized
                .iter()
                .zip(&voted)
                .filter_map(|(q, v)| {
                    let need = fuzzy::lossless_need(v.as_ref(), floor)?;
                    let q: Vec<char> = q.chars().collect();
                    let k = fuzzy::qgram::max_edits(q.len(), need);
                    Some((q, k))
                })
                .unzip();
            let tables = if searched.len() < 2 {
                None
            } else {
                let buffer = self.take_spare(|s| &mut s.pieces);
                fuzzy::wordbound::Tables::new_in(text, &searched, buffer).map(|mut t| {
                    t.prepare(&searched, &edits);
                    t
                })
            };
            Announced {
                tables,
                voted: normalized.into_iter().zip(voted).collect(),
            }
        });
    }

    /// A quote normalized as this transcript is.
    pub(crate) fn normalize_quote(&self, quote: &str) -> Normalized {
        Normalized::with_options(quote, &self.options)
    }

    /// The transcript text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The turns, when the transcript was split by speakers.
    pub fn turns(&self) -> Option<&turns::Turns> {
        self.turns.as_ref()
    }

    /// What quotes are matched against: the spoken text, or the whole text.
    fn spoken(&self) -> &str {
        self.turns.as_ref().map_or(&self.text, |t| t.spoken.text())
    }

    /// An original byte range of a spoken byte range.
    fn to_text(&self, r: Range<usize>) -> Range<usize> {
        match &self.turns {
            Some(t) => t.spoken.range_to_original(r),
            None => r,
        }
    }

    fn normalized(&self) -> &Normalized {
        self.normalized.get_or_init(|| {
            let spare = self.take_spare(|s| &mut s.normalized);
            Normalized::build(self.spoken(), spare, &self.options)
        })
    }

    /// Builds the fuzzy index now (it is otherwise built on first use).
    pub fn prepare_fuzzy(&self) {
        self.index();
    }

    fn index(&self) -> &fuzzy::BigramIndex {
        self.index.get_or_init(|| {
            let text = self.normalized().text();
            let spare = self.take_spare(|s| &mut s.index);
            fuzzy::BigramIndex::new_in(text, spare)
        })
    }

    /// Char offset of a byte offset (on a char boundary).
    fn char_offset(&self, byte: usize) -> usize {
        let cps = self.char_checkpoints.get_or_init(|| {
            let mut v = Vec::with_capacity(self.text.len() / CHECKPOINT + 1);
            let mut chars = 0;
            let bytes = self.text.as_bytes();
            for chunk in bytes.chunks(CHECKPOINT) {
                v.push(chars);
                chars += chunk.iter().filter(|&&b| (b as i8) >= -0x40).count();
            }
            v.push(chars);
            v
        });
        let k = byte / CHECKPOINT;
        let base = cps.get(k).copied().unwrap_or(0);
        let start = k * CHECKPOINT;
        base + self.text.as_bytes()[start..byte]
            .iter()
            .filter(|&&b| (b as i8) >= -0x40)
            .count()
    }

    fn char_span(&self, bytes: Range<usize>) -> Range<usize> {
        self.char_offset(bytes.start)..self.char_offset(bytes.end)
    }

    /// A found check: the spoken byte range mapped to the original, in
    /// chars and bytes.
    fn found(&self, verdict: Verdict, similarity: f64, spoken: Range<usize>) -> QuoteCheck {
        self.found_in_text(verdict, similarity, self.to_text(spoken))
    }

    /// A found check of an original byte range.
    fn found_in_text(&self, verdict: Verdict, similarity: f64, bytes: Range<usize>) -> QuoteCheck {
        QuoteCheck {
            verdict,
            similarity,
            span: Some(self.char_span(bytes.clone())),
            byte_span: Some(bytes),
            differences: None,
            meaning: None,
            segments: Vec::new(),
            closest: None,
            closest_bytes: None,
        }
    }

    /// A transcript byte range widened over the marks the quote has at its
    /// ends (leading or trailing punctuation, not letters, digits or
    /// whitespace) where the transcript has the same ones: a normalized
    /// match covers `landlord.` when the quote ends with the period.
    pub(crate) fn cover_edges(&self, bytes: Range<usize>, quote: &str) -> Range<usize> {
        let q = quote.trim();
        let mark = |c: char| !c.is_alphanumeric() && !c.is_whitespace();
        let lead_len: usize = q.chars().take_while(|&c| mark(c)).map(char::len_utf8).sum();
        let trail_len: usize = q
            .chars()
            .rev()
            .take_while(|&c| mark(c))
            .map(char::len_utf8)
            .sum();
        let (mut start, mut end) = (bytes.start, bytes.end);
        if lead_len > 0 && lead_len < q.len() && self.text[..start].ends_with(&q[..lead_len]) {
            start -= lead_len;
        }
        if trail_len > 0
            && trail_len < q.len()
            && self.text[end..].starts_with(&q[q.len() - trail_len..])
        {
            end += trail_len;
        }
        start..end
    }

    /// A check with its `differences` (for a found one: what tells the
    /// quote from the transcript's text at the span).
    fn with_differences(&self, quote: &str, mut c: QuoteCheck) -> QuoteCheck {
        if c.meaning.is_none() {
            c.meaning = match (&c.byte_span, &c.closest_bytes, c.verdict) {
                // A normalized match has the quote's words (case,
                // punctuation, diacritics and fillers aside): nothing of
                // what `meaning` reads can differ, but for numbers (the
                // normalizer joins `3.5` into `35`).
                (Some(_), _, Verdict::Exact) => Some(Vec::new()),
                (Some(_), _, Verdict::Normalized) if !quote.bytes().any(|b| b.is_ascii_digit()) => {
                    Some(Vec::new())
                }
                (Some(b), _, _) | (None, Some(b), _) => {
                    let (before, said, after) = self.said_around(b.clone());
                    Some(
                        self.words
                            .changes(quote.trim(), &said, before..said.len() - after),
                    )
                }
                (None, None, _) => None,
            };
        }
        if c.differences.is_some() {
            return c;
        }
        // A closest passage that makes the quote `altered` is compared as
        // a match is.
        let close = match &c.closest_bytes {
            Some(b) if attribution::close_enough(&c, quote) => Some(b.clone()),
            _ => None,
        };
        c.differences = match (c.byte_span.clone().or(close), c.verdict) {
            (Some(_), Verdict::Exact) => Some(Vec::new()),
            (Some(b), verdict) => {
                let said = self.said_in(b.clone());
                let mut found = differences::differences(quote.trim(), &said, &self.options);
                // Every match that is not exact names what it ignored: what
                // the alignment cannot place is the normalizer's folding of
                // compatibility forms (a ligature, a full-width letter).
                if found.is_empty() && verdict == Verdict::Normalized && quote.trim() != said.trim()
                {
                    found.push(differences::Difference::Typography);
                }
                Some(found)
            }
            (None, _) => None,
        };
        c
    }

    /// What was said around a byte range: the range widened to whole
    /// words and by up to [`meaning::CONTEXT_WORDS`] words each side
    /// (within its line), as [`Self::said_in`] gives it, with the bytes
    /// of that text before and after the range's own words.
    fn said_around(&self, bytes: Range<usize>) -> (usize, String, usize) {
        let text = &self.text;
        let word_char = |c: char| c.is_alphanumeric() || c == '\'' || c == '\u{2019}';
        let mut start = bytes.start.min(text.len());
        while let Some(c) = text[..start].chars().next_back().filter(|&c| word_char(c)) {
            start -= c.len_utf8();
        }
        let mut end = bytes.end.min(text.len()).max(start);
        while let Some(c) = text[end..].chars().next().filter(|&c| word_char(c)) {
            end += c.len_utf8();
        }
        let own = start..end;
        // Whole words outward, not past a line break.
        let mut left = start;
        for _ in 0..meaning::CONTEXT_WORDS {
            let head = &text[..left];
            let trimmed = head.trim_end_matches(|c: char| !word_char(c) && c != '\n');
            if trimmed.ends_with('\n') || trimmed.is_empty() {
                break;
            }
            let word_start = trimmed
                .char_indices()
                .rev()
                .take_while(|&(_, c)| word_char(c))
                .last()
                .map_or(trimmed.len(), |(i, _)| i);
            left = word_start;
        }
        let mut right = end;
        for _ in 0..meaning::CONTEXT_WORDS {
            let tail = &text[right..];
            let skip = tail
                .char_indices()
                .find(|&(_, c)| word_char(c) || c == '\n')
                .map_or(tail.len(), |(i, _)| i);
            if tail[skip..].starts_with('\n') || skip == tail.len() {
                break;
            }
            let len = tail[skip..]
                .char_indices()
                .find(|&(_, c)| !word_char(c))
                .map_or(tail.len() - skip, |(i, _)| i);
            right += skip + len;
        }
        let before = self.said_in(left..own.start).len();
        let after = self.said_in(own.end..right).len();
        (before, self.said_in(left..right).into_owned(), after)
    }

    /// What was said in a byte range of the transcript: its text without
    /// the speaker labels inside it (what quotes are matched against).
    fn said_in(&self, bytes: Range<usize>) -> std::borrow::Cow<'_, str> {
        let Some(t) = &self.turns else {
            return std::borrow::Cow::Borrowed(&self.text[bytes]);
        };
        let pieces: Vec<&str> = t
            .covered(&bytes)
            .filter_map(|(_, turn)| {
                let (s, e) = (
                    turn.text.start.max(bytes.start),
                    turn.text.end.min(bytes.end),
                );
                (s < e).then(|| &self.text[s..e])
            })
            .collect();
        match pieces.as_slice() {
            [one] => std::borrow::Cow::Borrowed(one),
            _ => std::borrow::Cow::Owned(pieces.concat()),
        }
    }

    /// An edited quote's check, when its markers say it is one and its
    /// segments stand in this transcript in order: a placement with every
    /// segment in one turn first, else the first placement.
    fn check_edited(&self, quote: &str) -> Option<QuoteCheck> {
        let e = edited::parse(quote)?;
        // Each segment's literals: (as written, normalized, after an
        // insertion).
        let segs: Vec<Vec<Literal>> = e
            .segments
            .iter()
            .map(|s| {
                s.literals
                    .iter()
                    .zip(&s.bridged)
                    .filter_map(|(l, &bridged)| {
                        let normalized = self.normalize_quote(l).into_text();
                        (!normalized.is_empty()).then(|| Literal {
                            written: l.clone(),
                            normalized,
                            bridged,
                        })
                    })
                    .collect::<Vec<_>>()
            })
            .filter(|v| !v.is_empty())
            .collect();
        if segs.is_empty() {
            return None;
        }
        let mut fallback: Option<Vec<Vec<Range<usize>>>> = None;
        let mut from = 0;
        for _ in 0..EDITED_STARTS {
            let Some(first) = self.place_segment(&segs[0], from) else {
                break;
            };
            let start = first[0].start;
            let mut placed = vec![first];
            for seg in &segs[1..] {
                let after = placed.last().and_then(|p| p.last()).map_or(0, |r| r.end);
                match self.place_segment(seg, after) {
                    Some(r) => placed.push(r),
                    None => break,
                }
            }
            // A later segment that stands nowhere after this start stands
            // nowhere after a later one either.
            if placed.len() < segs.len() {
                break;
            }
            let bytes: Option<Vec<Vec<Range<usize>>>> = placed
                .iter()
                .map(|lits| {
                    lits.iter()
                        .map(|r| self.normalized_to_text(r.clone()))
                        .collect()
                })
                .collect();
            let Some(bytes) = bytes else {
                break;
            };
            let whole = bytes[0][0].start..bytes[bytes.len() - 1].last().map_or(0, |r| r.end);
            let one_turn = self
                .turns
                .as_ref()
                .is_none_or(|t| t.turns_covered(&whole).len() <= 1);
            if one_turn {
                return Some(self.edited_found(&e, &segs, bytes));
            }
            fallback.get_or_insert(bytes);
            let text = self.normalized().text();
            from = start + text[start..].chars().next().map_or(1, char::len_utf8);
        }
        fallback.map(|b| self.edited_found(&e, &segs, b))
    }

    /// The earliest placement, at or after normalized byte `from`, of one
    /// segment: its literals in order, each right after the one before or,
    /// across an insertion, at most [`edited::MAX_INSERTED_WORDS`] words
    /// after it; each literal's normalized range.
    fn place_segment(&self, literals: &[Literal], from: usize) -> Option<Vec<Range<usize>>> {
        let nt = self.normalized();
        let text = nt.text();
        let words = |t: &str| t.split(' ').filter(|w| !w.is_empty()).count();
        for first in nt
            .find_aligned_from(&literals[0].normalized, from)
            .take(EDITED_TRIES)
        {
            let mut placed = vec![first];
            for lit in &literals[1..] {
                let end = placed.last().map_or(0, |r| r.end);
                let next = nt.find_aligned_from(&lit.normalized, end).next()?;
                let allowed = if lit.bridged {
                    edited::MAX_INSERTED_WORDS
                } else {
                    0
                };
                if words(&text[end..next.start]) > allowed {
                    break;
                }
                placed.push(next);
            }
            if placed.len() == literals.len() {
                return Some(placed);
            }
        }
        None
    }

    /// The check of an edited quote whose literals stand at `placed`
    /// (byte ranges of the transcript, per segment, in order).
    fn edited_found(
        &self,
        e: &edited::Edited,
        segs: &[Vec<Literal>],
        placed: Vec<Vec<Range<usize>>>,
    ) -> QuoteCheck {
        let mut found = std::collections::BTreeSet::new();
        for (lits, ranges) in segs.iter().zip(&placed) {
            for (lit, bytes) in lits.iter().zip(ranges) {
                differences::collect(
                    &lit.written,
                    &self.text[bytes.clone()],
                    &self.options,
                    &mut found,
                );
            }
        }
        for (flag, d) in [
            (e.elision, differences::Difference::Elision),
            (e.insertion, differences::Difference::Insertion),
            (e.sic, differences::Difference::Sic),
        ] {
            if flag {
                found.insert(d);
            }
        }
        let segments: Vec<Range<usize>> = placed
            .iter()
            .map(|r| r[0].start..r[r.len() - 1].end)
            .collect();
        let whole = segments[0].start..segments[segments.len() - 1].end;
        QuoteCheck {
            differences: Some(found.into_iter().collect()),
            segments: if segments.len() >= 2 {
                segments
            } else {
                Vec::new()
            },
            ..self.found_in_text(Verdict::Edited, 1.0, whole)
        }
    }

    /// The original byte range of a byte range of the normalized spoken
    /// text.
    pub(crate) fn normalized_to_text(&self, r: Range<usize>) -> Option<Range<usize>> {
        let spoken = self.normalized().to_original(self.spoken(), r)?;
        Some(self.to_text(spoken))
    }

    /// The normalized spoken text (what normalized matching runs over).
    pub(crate) fn normalized_text(&self) -> &str {
        self.normalized().text()
    }

    /// The first occurrence of a normalized pattern in the normalized
    /// spoken text that begins and ends on whole source chars, at or after
    /// `hit` (an occurrence found by other means, perhaps cut inside a
    /// char), as an original byte range.
    pub(crate) fn aligned_from(&self, pattern: &str, hit: Range<usize>) -> Option<Range<usize>> {
        let nt = self.normalized();
        if nt.is_edge(hit.start) && nt.is_edge(hit.end) {
            return self.normalized_to_text(hit);
        }
        let r = nt.find_aligned(pattern).find(|r| r.start >= hit.start)?;
        self.normalized_to_text(r)
    }

    /// A normalized byte range widened to whole source chars, as an
    /// original byte range.
    pub(crate) fn widened_to_text(&self, r: Range<usize>) -> Option<Range<usize>> {
        let r = self.normalized().widen_to_edges(r);
        self.normalized_to_text(r)
    }

    /// Checks one quote: exact, then normalized, then fuzzy at `threshold`.
    pub fn check(&self, quote: &str, threshold: f64) -> QuoteCheck {
        self.check_avoiding(quote, threshold, &[])
    }

    /// [`SourceText::check`], where an exact or normalized match takes the
    /// first occurrence that overlaps none of `used` (byte ranges of the
    /// original): repeated quotes of one answer point at successive
    /// occurrences.
    pub fn check_avoiding(&self, quote: &str, threshold: f64, used: &[Range<usize>]) -> QuoteCheck {
        self.with_differences(quote, self.lookup_avoiding(quote, threshold, used))
    }

    /// [`SourceText::check_avoiding`] without the `differences`.
    fn lookup_avoiding(&self, quote: &str, threshold: f64, used: &[Range<usize>]) -> QuoteCheck {
        let trimmed = quote.trim();
        let not_found = QuoteCheck::not_found(0.0);
        if trimmed.is_empty() {
            return not_found;
        }
        // The first occurrence that overlaps no used range; when every
        // occurrence is used, the first one (as for a single quote).
        let free = |r: &Range<usize>| used.iter().all(|u| u.end <= r.start || r.end <= u.start);
        let spoken = self.spoken();
        let mut first: Option<(Verdict, Range<usize>)> = None;
        for at in memchr::memmem::find_iter(spoken.as_bytes(), trimmed.as_bytes()) {
            let r = at..at + trimmed.len();
            if free(&self.to_text(r.clone())) {
                return self.found(Verdict::Exact, 1.0, r);
            }
            first.get_or_insert((Verdict::Exact, r));
        }
        // A quote with editorial markers (an ellipsis, an [insertion],
        // [sic]) is an edited quote when its segments stand in order.
        if first.is_none() && edited::may_be_edited(trimmed) {
            if let Some(c) = self.check_edited(trimmed) {
                return c;
            }
        }
        let nq = self.normalize_quote(trimmed);
        if nq.text().is_empty() {
            return not_found;
        }
        let nt = self.normalized();
        for r in nt.find_aligned(nq.text()) {
            if let Some(orig) = nt.to_original(spoken, r) {
                let bytes = self.cover_edges(self.to_text(orig.clone()), trimmed);
                if free(&bytes) {
                    return self.found_in_text(Verdict::Normalized, 1.0, bytes);
                }
                first.get_or_insert((Verdict::Normalized, orig));
            }
        }
        if let Some((verdict, r)) = first {
            let bytes = self.to_text(r);
            let bytes = if verdict == Verdict::Normalized {
                self.cover_edges(bytes, trimmed)
            } else {
                bytes
            };
            return self.found_in_text(verdict, 1.0, bytes);
        }
        self.beyond_verbatim(trimmed, &nq, threshold)
    }

    /// The lookups after exact and normalized ones found nothing in the
    /// spoken text: the text as written (for a quote that carries a
    /// speaker label), then fuzzy.
    fn beyond_verbatim(&self, trimmed: &str, nq: &Normalized, threshold: f64) -> QuoteCheck {
        let not_found = QuoteCheck::not_found(0.0);
        let spoken = self.spoken();
        let nt = self.normalized();
        // A quote that carries a speaker label (or runs across one) is not
        // in the spoken text but stands in the transcript as written: found
        // there, its span covers the label (and its turns tell who spoke).
        if self.carries_label(trimmed) {
            if let Some(at) = memchr::memmem::find(self.text.as_bytes(), trimmed.as_bytes()) {
                return self.found_in_text(Verdict::Exact, 1.0, at..at + trimmed.len());
            }
            let whole = self
                .whole_normalized
                .get_or_init(|| Normalized::with_options(&self.text, &self.options));
            if let Some(r) = whole.find_aligned(nq.text()).next() {
                if let Some(orig) = whole.to_original(&self.text, r) {
                    return self.found_in_text(Verdict::Normalized, 1.0, orig);
                }
            }
        }
        let found = match self.search {
            FuzzySearch::Lossless => {
                let qgrams = || {
                    self.qgrams
                        .get_or_init(|| fuzzy::qgram::QgramIndex::new(nt.text()))
                };
                let announced = self.pieces.get();
                let lossless = fuzzy::Lossless {
                    tables: announced.and_then(|a| a.tables.as_ref()),
                    qgrams: &qgrams,
                };
                let floor = threshold.min(fuzzy::LOSSLESS_FLOOR);
                match announced.and_then(|a| a.voted.get(nq.text())) {
                    Some(voted) => {
                        fuzzy::search_after(nq.text(), nt.text(), voted.clone(), &lossless, floor)
                    }
                    None => fuzzy::search_in(nq.text(), nt.text(), self.index(), &lossless, floor),
                }
            }
            FuzzySearch::Fast => fuzzy::best_match(nq.text(), nt.text(), self.index()),
        };
        let Some(m) = found else {
            return not_found;
        };
        // A match begins and ends on whole source chars: one cut inside a
        // char's expansion is widened to cover it, and its similarity is
        // that of the widened text.
        let range = nt.widen_to_edges(m.range.clone());
        let similarity = if range == m.range {
            m.similarity
        } else {
            fuzzy::similarity_of(nq.text(), &nt.text()[range.clone()])
        };
        let orig = nt.to_original(spoken, range).map(|r| self.to_text(r));
        match orig {
            Some(bytes) if similarity >= threshold => {
                self.found_in_text(Verdict::Fuzzy, similarity, bytes)
            }
            // Not found: the closest passage, for a person to look at.
            closest => QuoteCheck {
                closest: closest.as_ref().map(|b| self.char_span(b.clone())),
                closest_bytes: closest,
                ..QuoteCheck::not_found(similarity)
            },
        }
    }

    /// Every occurrence of each quote (trimmed) in the spoken text: exact
    /// ones, else normalized ones, as byte ranges of the original text.
    /// One pass over the text for all quotes when there are many, else one
    /// substring search per quote (see [`BATCH_MIN`]).
    pub fn locate_all(&self, quotes: &[&str]) -> Vec<Located> {
        let spoken = self.spoken();
        let trimmed: Vec<&str> = quotes.iter().map(|q| q.trim()).collect();
        let exact = occurrences(spoken, &trimmed);
        let mut out: Vec<Located> = exact
            .into_iter()
            .map(|ranges| Located {
                verdict: (!ranges.is_empty()).then_some(Verdict::Exact),
                ranges: ranges.into_iter().map(|r| self.to_text(r)).collect(),
            })
            .collect();
        let missing: Vec<usize> = (0..out.len())
            .filter(|&k| out[k].verdict.is_none() && !trimmed[k].is_empty())
            .collect();
        if missing.is_empty() {
            return out;
        }
        let normalized: Vec<Normalized> = missing
            .iter()
            .map(|&k| self.normalize_quote(trimmed[k]))
            .collect();
        let patterns: Vec<&str> = normalized.iter().map(|n| n.text()).collect();
        let nt = self.normalized();
        for ((&k, ranges), pattern) in missing
            .iter()
            .zip(occurrences(nt.text(), &patterns))
            .zip(&patterns)
        {
            // Occurrences cut inside a char's expansion are not matches;
            // an aligned one they overlapped is then searched for again.
            let ranges = if ranges
                .iter()
                .all(|r| nt.is_edge(r.start) && nt.is_edge(r.end))
            {
                ranges
            } else {
                nt.find_aligned(pattern).collect()
            };
            let ranges: Vec<Range<usize>> = ranges
                .into_iter()
                .filter_map(|r| nt.to_original(spoken, r))
                .map(|r| self.cover_edges(self.to_text(r), trimmed[k]))
                .collect();
            if !ranges.is_empty() {
                out[k] = Located {
                    verdict: Some(Verdict::Normalized),
                    ranges,
                };
            }
        }
        out
    }

    /// [`SourceText::check_avoiding`] with the quote's occurrences found
    /// beforehand by [`SourceText::locate_all`]: the same result.
    pub fn check_located(
        &self,
        quote: &str,
        threshold: f64,
        used: &[Range<usize>],
        located: &Located,
    ) -> QuoteCheck {
        let free = |r: &Range<usize>| used.iter().all(|u| u.end <= r.start || r.end <= u.start);
        let c = match located.verdict {
            // An edited quote's normalized occurrence: its markers decide.
            Some(Verdict::Normalized) if edited::may_be_edited(quote) => {
                return self.check_avoiding(quote, threshold, used)
            }
            Some(v) => match located.ranges.iter().find(|r| free(r)) {
                Some(r) => self.found_in_text(v, 1.0, r.clone()),
                // Every exact occurrence taken: a normalized one may be free.
                None if v == Verdict::Exact => return self.check_avoiding(quote, threshold, used),
                None => self.found_in_text(v, 1.0, located.ranges[0].clone()),
            },
            None => {
                let trimmed = quote.trim();
                if trimmed.is_empty() {
                    return QuoteCheck::not_found(0.0);
                }
                if edited::may_be_edited(trimmed) {
                    if let Some(c) = self.check_edited(trimmed) {
                        return self.with_differences(quote, c);
                    }
                }
                let nq = self.normalize_quote(trimmed);
                if nq.text().is_empty() {
                    return QuoteCheck::not_found(0.0);
                }
                self.beyond_verbatim(trimmed, &nq, threshold)
            }
        };
        self.with_differences(quote, c)
    }

    /// True when a quote holds one of this transcript's labels as written
    /// (case aside): only then is it looked up in the text as written.
    fn carries_label(&self, quote: &str) -> bool {
        let Some(t) = &self.turns else {
            return false;
        };
        let marks = self.label_marks.get_or_init(|| t.label_marks(&self.text));
        if marks.is_empty() {
            return false;
        }
        let q = quote.to_lowercase();
        marks.iter().any(|m| q.contains(m.as_str()))
    }

    /// The pieces (runs of at least `min_words` words, normalized) of a
    /// quote that stand in this transcript, left to right.
    pub(crate) fn pieces(&self, quote: &str, min_words: usize) -> (Vec<fuzzy::Piece>, usize) {
        let nq = self.normalize_quote(quote.trim());
        let n = fuzzy::word_count(nq.text());
        (
            fuzzy::pieces(nq.text(), self.normalized().text(), self.index(), min_words),
            n,
        )
    }

    /// The char span of an original byte range.
    pub(crate) fn chars_of(&self, bytes: Range<usize>) -> Range<usize> {
        self.char_span(bytes)
    }
}

/// Where a quote stands verbatim in a transcript (see
/// [`SourceText::locate_all`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Located {
    /// Exact or normalized; None when neither lookup finds it.
    pub verdict: Option<Verdict>,
    /// Every occurrence, as byte ranges of the original text, in order.
    pub ranges: Vec<Range<usize>>,
}

/// Quotes per transcript from which one pass for all of them
/// (the multi-pattern search of `text::multifind`) beats a substring search per quote.
/// Measured (`cargo bench --features bench-internals --bench hot_paths -- lookup`, 750 KB transcript,
/// ~20-word quotes): a search per quote takes ~21 µs, the one pass ~1.0 ms
/// plus ~1.7 µs per quote (12 quotes: 0.26 ms against 1.04 ms; 750
/// quotes: 15.8 ms against 2.3 ms); they break even near 50.
pub const BATCH_MIN: usize = 48;

/// Every occurrence of each pattern in `text`, non-overlapping from the
/// left, as byte ranges in order; empty patterns have none.
fn occurrences(text: &str, patterns: &[&str]) -> Vec<Vec<Range<usize>>> {
    let mut out: Vec<Vec<Range<usize>>> = vec![Vec::new(); patterns.len()];
    let live: Vec<usize> = (0..patterns.len())
        .filter(|&k| !patterns[k].is_empty())
        .collect();
    if live.len() >= BATCH_MIN {
        return crate::text::multifind::MultiFind::new(patterns).find(text, false);
    }
    for k in live {
        let p = patterns[k];
        out[k] = memchr::memmem::find_iter(text.as_bytes(), p.as_bytes())
            .map(|at| at..at + p.len())
            .collect();
    }
    out
}

/// The verification configuration, for signatures.
pub fn signature(
    level: MatchLevel,
    threshold: f64,
    options: &NormalizeOptions,
    search: FuzzySearch,
) -> String {
    format!(
        "quote-norm:{}|fuzzy:{}>={}|search:{}|match:{}|span:chars",
        options.signature(),
        fuzzy::SIMILARITY_SIGNATURE,
        threshold,
        match search {
            FuzzySearch::Lossless => fuzzy::SEARCH_SIGNATURE,
            FuzzySearch::Fast => "word-pairs(budget)",
        },
        level.as_str()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slice(text: &str, span: &Range<usize>) -> String {
        text.chars()
            .skip(span.start)
            .take(span.end - span.start)
            .collect()
    }

    const T: &str = "Interviewer: Tell me about the farm.\nMarie-Hélène: Well, we’ve grown potatoes here since 1987 — my grandfather started it. The soil is sandy, so irrigation matters a lot.";

    #[test]
    fn exact_with_trimming() {
        let s = SourceText::new(T);
        let c = s.check("  grown potatoes here since 1987 ", 0.9);
        assert_eq!(c.verdict, Verdict::Exact);
        assert_eq!(
            slice(T, c.span.as_ref().unwrap()),
            "grown potatoes here since 1987"
        );
    }

    #[test]
    fn normalized_ignores_case_quotes_dashes_diacritics() {
        let s = SourceText::new(T);
        let c = s.check(
            "marie-helene: well, WE'VE grown potatoes here since 1987 - my grandfather",
            0.9,
        );
        assert_eq!(c.verdict, Verdict::Normalized);
        assert_eq!(c.similarity, 1.0);
        assert_eq!(
            slice(T, c.span.as_ref().unwrap()),
            "Marie-Hélène: Well, we’ve grown potatoes here since 1987 — my grandfather"
        );
    }

    #[test]
    fn fuzzy_reports_the_matched_span() {
        let s = SourceText::new(T);
        let c = s.check("The soil is very sandy so irrigation matters a lot", 0.8);
        assert_eq!(c.verdict, Verdict::Fuzzy);
        assert!(c.similarity >= 0.8 && c.similarity < 1.0, "{c:?}");
        let got = slice(T, c.span.as_ref().unwrap());
        assert!(
            got.starts_with("The soil is") && got.ends_with("matters a lot"),
            "{got}"
        );
    }

    #[test]
    fn invented_and_empty_quotes_are_not_found() {
        let s = SourceText::new(T);
        let c = s.check("We sold the farm to a supermarket chain in 2003", 0.9);
        assert_eq!(c.verdict, Verdict::NotFound);
        assert!(c.similarity < 0.9);
        assert_eq!(c.span, None);
        assert_eq!(s.check("   ", 0.9).verdict, Verdict::NotFound);
    }

    #[test]
    fn match_levels() {
        assert!(MatchLevel::Normalized.accepts(Verdict::Exact));
        assert!(!MatchLevel::Normalized.accepts(Verdict::Fuzzy));
        assert!(MatchLevel::Fuzzy.accepts(Verdict::Fuzzy));
        assert!(!MatchLevel::Exact.accepts(Verdict::Normalized));
        assert!(!MatchLevel::Fuzzy.accepts(Verdict::UnknownSource));
    }

    /// A labelled transcript of `turns` turns drawn from `seed`, with
    /// non-ASCII words and typographic punctuation.
    fn generated(seed: u64, turns: usize) -> String {
        const WORDS: [&str; 12] = [
            "leeks",
            "Gràcia",
            "we’ve",
            "tractor",
            "rent",
            "the",
            "co-op",
            "—",
            "soil",
            "“sandy”",
            "1987",
            "neighbours",
        ];
        let mut x = seed;
        let mut next = move |n: usize| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) as usize % n
        };
        let mut out = String::new();
        for t in 0..turns {
            out.push_str(["Interviewer: ", "Núria: ", "Anna:  "][t % 3]);
            for _ in 0..5 + next(20) {
                out.push_str(WORDS[next(WORDS.len())]);
                out.push(if next(9) == 0 { '\n' } else { ' ' });
            }
            out.push('\n');
        }
        out
    }

    #[test]
    fn built_into_spare_buffers_checks_the_same() {
        let speakers = turns::SpeakerConfig::default();
        let mut workspace = Workspace::default();
        // Long, short, then long again: buffers shrink and grow in turn.
        for (seed, turns) in [(1, 400), (2, 30), (3, 700), (4, 1)] {
            let text = generated(seed, turns);
            let fresh = SourceText::with_speakers(text.clone(), &speakers);
            let reused = workspace.prepare(std::borrow::Cow::Owned(text.clone()), None, &speakers);
            let spoken = fresh.spoken().to_string();
            let words: Vec<&str> = spoken.split_whitespace().collect();
            let mut quotes: Vec<String> = Vec::new();
            for k in (0..words.len().saturating_sub(12)).step_by(17) {
                let piece = words[k..k + 12].join(" ");
                quotes.push(piece.clone());
                quotes.push(piece.to_uppercase());
                quotes.push(piece.replacen("the", "a", 1));
            }
            quotes.push("nothing like this was ever said here at all".into());
            for q in &quotes {
                assert_eq!(reused.check(q, 0.8), fresh.check(q, 0.8), "{q}");
            }
            assert_eq!(reused.normalized_text(), fresh.normalized_text());
            workspace.recycle(reused);
            // The buffers come back with their room.
            assert!(workspace.text.capacity() >= text.len());
            assert!(workspace.spoken.capacity() >= spoken.len());
        }
    }

    #[test]
    fn char_offsets_across_checkpoints() {
        let text = format!("{}needle", "é".repeat(5000));
        let s = SourceText::new(text.clone());
        let c = s.check("needle", 0.9);
        assert_eq!(c.span, Some(5000..5006));
    }
}
