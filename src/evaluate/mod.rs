//! The main job as a library function: score every answer and verify every
//! quote of a question set against a transcript corpus, then aggregate.
//!
//! Pure: inputs in, results out; reading files belongs to
//! [`crate::corpus`], writing the run folder to [`crate::report`], and
//! results.json (the question file with the results added) is written by
//! the views (`views::results`).

pub(crate) mod items;

pub use items::*;
pub(crate) mod paraphrase;
#[cfg(feature = "semantic")]
pub use paraphrase::{apply as apply_paraphrases, ParaphraseError};
pub use paraphrase::{Nearest, ParaphraseCounts, DEFAULT_PARAPHRASE_THRESHOLD, MAX_WINDOW};
mod parts;

pub use parts::SummaryParts;

use crate::citations::attribution::{self, Attributed, Attribution};
use crate::citations::turns::SpeakerConfig;
use crate::citations::{self, Located, MatchLevel, QuoteCheck, SourceText};
use crate::corpus::{CorpusError, QuestionSet, TranscriptSet};
use crate::lexicon::Lexicon;
use crate::scoring::{self, phrases::Analyzer, CompiledQuestion, QuestionType};
use crate::stats::GroupStat;
use rayon::prelude::*;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

/// Settings of an evaluation run.
#[derive(Debug, Clone, Serialize)]
pub struct EvalConfig {
    /// The weakest verdict that counts as found.
    pub match_level: MatchLevel,
    /// Similarity a fuzzy match needs.
    pub fuzzy_threshold: f64,
    /// Seed of the bootstrap.
    pub seed: u64,
    /// Bootstrap resamples.
    pub resamples: usize,
    /// Speaker labels and interviewer labels of the transcripts.
    #[serde(skip)]
    pub speakers: SpeakerConfig,
    /// The quote normalizer's settings (the filler words it drops).
    #[serde(skip)]
    pub normalize: crate::text::aligned::NormalizeOptions,
    /// How the fuzzy search finds its windows.
    #[serde(skip)]
    pub fuzzy_search: citations::FuzzySearch,
    /// The word lists of the `meaning` classes.
    #[serde(skip)]
    pub meaning: std::sync::Arc<citations::MeaningWords>,
    /// Seconds a quote may stand from the time its citation gives.
    #[serde(skip)]
    pub time_tolerance: f64,
}

/// The default of `--time-tolerance`, in seconds.
pub const DEFAULT_TIME_TOLERANCE: f64 = 60.0;

impl Default for EvalConfig {
    fn default() -> Self {
        EvalConfig {
            match_level: MatchLevel::Normalized,
            fuzzy_threshold: citations::DEFAULT_FUZZY_THRESHOLD,
            seed: 42,
            resamples: crate::stats::DEFAULT_RESAMPLES,
            speakers: SpeakerConfig::default(),
            normalize: Default::default(),
            fuzzy_search: Default::default(),
            meaning: citations::MeaningWords::english(),
            time_tolerance: DEFAULT_TIME_TOLERANCE,
        }
    }
}

/// A checked quote.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct QuoteResult {
    /// The check's outcome.
    #[serde(flatten)]
    pub check: QuoteCheck,
    /// Whether it counts as found under the run's match level.
    pub found: bool,
    /// The quote's source FILE, as cited.
    pub source: Option<String>,
    /// The id of the transcript `source` resolves to (`P1.vtt` when cited
    /// as `P1` or `P1.vtt`), None when it names none: what the summary
    /// groups quotes by. Not written (results.json keeps the source as
    /// cited); `merge` resolves it again.
    #[serde(skip)]
    pub transcript: Option<String>,
    /// Who said it: the span's speaker, the attribution class, and where
    /// an `other_source` or `stitched` quote stands.
    #[serde(flatten)]
    pub attributed: Attributed,
    /// When it was said (the cue, segment or timestamp where its span
    /// starts and ends), for transcripts read from a format with times;
    /// None when the format has none or the quote was not found.
    #[serde(default)]
    pub time: Option<crate::corpus::formats::QuoteTime>,
    /// Where it was found against where its citation says (a time or
    /// lines), when it cites one and was found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<crate::corpus::Location>,
    /// With `--paraphrase`, for a quote with no close passage: the passage
    /// of its cited transcript its meaning is nearest ("what was said").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nearest: Option<Nearest>,
}

/// The times of a quote's pieces (stitched pieces, an edited quote's
/// segments) in the transcript `source`.
pub fn time_pieces(transcripts: &TranscriptSet, source: Option<&str>, attributed: &mut Attributed) {
    if let Some(t) = source.and_then(|s| transcripts.get(s)) {
        for p in &mut attributed.pieces {
            p.time = t.time_of(p.byte_span.clone());
        }
    }
}

/// A quote's result: its check and attribution with the times of its
/// span and pieces and, when it cites a place, its `location` (an `ok`
/// quote beyond the tolerance or outside the lines is `wrong_location`).
fn quote_result(
    transcripts: &TranscriptSet,
    config: &EvalConfig,
    q: &crate::corpus::Quote,
    check: QuoteCheck,
    mut attributed: Attributed,
) -> QuoteResult {
    let source = q.source.as_deref();
    time_pieces(transcripts, source, &mut attributed);
    let time = quote_time(transcripts, source, &check);
    let found = config.match_level.accepts(check.verdict);
    let location = q
        .place
        .filter(|_| found && check.byte_span.is_some())
        .and_then(|place| located(transcripts, source, &check, time, place));
    if location.is_some_and(|l| !l.within(config.time_tolerance))
        && attributed.attribution == Some(citations::Attribution::Ok)
    {
        attributed.attribution = Some(citations::Attribution::WrongLocation);
    }
    QuoteResult {
        found,
        transcript: resolved(transcripts, source),
        source: q.source.clone(),
        check,
        attributed,
        time,
        location,
        nearest: None,
    }
}

/// The location of a found quote against its cited `place`: its start
/// time, or the 1-based line of the transcript's text it starts on.
fn located(
    transcripts: &TranscriptSet,
    source: Option<&str>,
    check: &QuoteCheck,
    time: Option<crate::corpus::formats::QuoteTime>,
    place: crate::corpus::CitedPlace,
) -> Option<crate::corpus::Location> {
    let line = match place {
        crate::corpus::CitedPlace::Lines(..) => {
            let at = check.byte_span.as_ref()?.start;
            let transcript = transcripts.get(source?)?;
            // A text file's own lines; else the lines of the text as read.
            match transcript.line_of(at) {
                Some(line) => Some(line),
                None => {
                    let text = transcript.text().ok()?;
                    let before = &text.as_bytes()[..at.min(text.len())];
                    Some(1 + memchr::memchr_iter(b'\n', before).count())
                }
            }
        }
        crate::corpus::CitedPlace::Time(_) => {
            // A transcript with times, but none before the quote: its
            // place cannot be told, and the transcript is not "untimed".
            let timed = transcripts
                .get(source?)
                .is_some_and(|t| !t.times().is_empty());
            if timed && time.and_then(|t| t.start).is_none() {
                return None;
            }
            None
        }
    };
    crate::corpus::Location::of(place, time.and_then(|t| t.start), line)
}

/// When the quote `check` found in the transcript `source` was said.
pub fn quote_time(
    transcripts: &TranscriptSet,
    source: Option<&str>,
    check: &QuoteCheck,
) -> Option<crate::corpus::formats::QuoteTime> {
    let span = check.byte_span.clone()?;
    transcripts.get(source?)?.time_of(span)
}

/// One scored answer.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct AnswerResult {
    /// Score in [0, 1], or None when the question could not be scored.
    pub score: Option<f64>,
    /// The answer's source FILE.
    pub source: Option<String>,
    /// Its quotes, checked.
    pub quotes: Vec<QuoteResult>,
}

/// One evaluated question.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct PairResult {
    /// The pair's id.
    pub id: String,
    /// The question type, when recognized.
    pub qtype: Option<QuestionType>,
    /// Found quotes / quotes; None without quotes.
    pub existence_score: Option<f64>,
    /// The answers.
    pub answers: Vec<AnswerResult>,
    /// Why the pair's answers are unscored, if they are.
    pub warning: Option<String>,
}

impl PairResult {
    /// Share of the pair's quotes found with attribution `ok`; None
    /// without quotes.
    pub fn strict_existence(&self) -> Option<f64> {
        let (ok, all) =
            self.answers
                .iter()
                .flat_map(|a| &a.quotes)
                .fold((0usize, 0usize), |(ok, all), q| {
                    let good = q.found && q.attributed.attribution == Some(Attribution::Ok);
                    (ok + usize::from(good), all + 1)
                });
        (all > 0).then(|| ok as f64 / all as f64)
    }
}

/// The whole evaluation.
#[derive(Debug, Clone, Serialize)]
pub struct Evaluation {
    /// Per pair, in input order.
    pub pairs: Vec<PairResult>,
    /// The configuration used.
    pub config: EvalConfig,
    /// Signature of every setting that can change a number.
    pub signature: String,
    /// The transcripts cited by quotes in which no speaker label was
    /// found (their quotes' attribution could not be checked), in corpus
    /// order.
    pub unlabelled: Vec<String>,
}

/// The transcripts among `cited` (indices) in which the speaker pattern
/// finds no label, by name, in corpus order.
pub fn unlabelled_transcripts(
    transcripts: &TranscriptSet,
    cited: impl IntoIterator<Item = usize>,
    speakers: &crate::citations::turns::SpeakerConfig,
) -> Result<Vec<String>, CorpusError> {
    let mut cited: Vec<usize> = cited.into_iter().collect();
    cited.sort_unstable();
    cited.dedup();
    let labelled: Vec<bool> = cited
        .par_iter()
        .map(|&t| {
            let transcript = &transcripts.transcripts[t];
            let text = transcript.text()?;
            Ok(crate::citations::turns::Turns::of(&text, transcript.labels(), speakers).labelled())
        })
        .collect::<Result<_, CorpusError>>()?;
    Ok(cited
        .iter()
        .zip(labelled)
        .filter(|(_, l)| !l)
        .map(|(&t, _)| transcripts.transcripts[t].file.clone())
        .collect())
}

/// The warning of a transcript without speaker labels.
pub fn unlabelled_warning(name: &str) -> String {
    format!(
        "{name}: no speaker label found (speaker pattern): attribution was not checked there (set --speaker-pattern)"
    )
}

/// The warning for `n` quotes citing a time in the transcript `name`,
/// which has none.
pub fn untimed_warning(name: &str, n: usize) -> String {
    format!(
        "{name}: {n} quote{} cite{} a time, but the transcript has no times: {} place was not checked",
        if n == 1 { "" } else { "s" },
        if n == 1 { "s" } else { "" },
        if n == 1 { "its" } else { "their" },
    )
}

/// The warnings for the quotes of `quotes` (with the transcript each was
/// checked in) whose cited time their transcript cannot check, one per
/// transcript.
pub fn untimed_counts<'a>(
    quotes: impl IntoIterator<Item = (&'a str, &'a QuoteResult)>,
) -> BTreeMap<String, usize> {
    let mut out: BTreeMap<String, usize> = BTreeMap::new();
    for (name, q) in quotes {
        if q.location.is_some_and(|l| l.unchecked()) {
            *out.entry(name.to_string()).or_default() += 1;
        }
    }
    out
}

/// Aggregates of an evaluation (written to summary.json).
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    /// Settings that produced these numbers.
    pub signature: String,
    /// Mean answer score per answer source.
    pub transcript_average_scores: BTreeMap<String, GroupStat>,
    /// Share of quotes found per quote source.
    pub verbatim_average_scores: BTreeMap<String, GroupStat>,
    /// Mean answer score per question type.
    pub by_type: BTreeMap<String, GroupStat>,
    /// Mean of all answer scores.
    pub overall: GroupStat,
    /// Mean existence score over the pairs that have quotes.
    pub existence: GroupStat,
    /// Mean share of quotes found with attribution `ok`, over the pairs
    /// that have quotes.
    pub strict_existence: GroupStat,
    /// Quotes per attribution class: overall and per cited transcript.
    pub attribution: AttributionCounts,
    /// Quotes whose match changes what was said: the total and per class.
    pub meaning_changed: crate::citations::MeaningCounts,
    /// Number of quotes per verdict.
    pub verdicts: BTreeMap<String, usize>,
    /// Counts of pairs, answers and quotes.
    pub counts: BTreeMap<String, usize>,
    /// One line per unscored pair, then one per transcript without speaker
    /// labels.
    pub warnings: Vec<String>,
}

/// Quotes per attribution class.
#[derive(Debug, Clone, Default, Serialize)]
pub struct AttributionCounts {
    /// Over all quotes with a known source.
    pub overall: BTreeMap<String, usize>,
    /// Per cited transcript.
    pub by_transcript: BTreeMap<String, BTreeMap<String, usize>>,
}

/// A pair's type (when known), its answers' scores and its warning.
type ScoredPair = (Option<QuestionType>, Vec<Option<f64>>, Option<String>);

/// Pairs scored together under one compiled metric (one task).
const SCORE_CHUNK: usize = 256;

/// Group name for answers without a source.
pub const NO_SOURCE: &str = "(no source)";

/// Scores and verifies a question set against transcripts.
pub fn evaluate(
    questions: &QuestionSet,
    transcripts: &TranscriptSet,
    lexicon: &Lexicon,
    config: &EvalConfig,
) -> Result<Evaluation, CorpusError> {
    let scored = score_answers(questions, lexicon);
    verify_and_assemble(
        questions,
        transcripts,
        scored,
        signature(lexicon, config),
        config,
        &|| (),
    )
}

/// [`evaluate`] taking the lexicon, which is dropped once the answers are
/// scored: the quote checks (the run's memory peak) run without it.
/// Its manifest record ([`Lexicon::info`]) is taken beforehand. `freed`
/// is called each time the transcripts' lookup structures have all been
/// freed (the program may give their memory back then: a run's last
/// steps start from there).
pub fn evaluate_owned(
    questions: &QuestionSet,
    transcripts: &TranscriptSet,
    lexicon: Lexicon,
    config: &EvalConfig,
    freed: &(dyn Fn() + Sync),
) -> Result<Evaluation, CorpusError> {
    let scored = score_answers(questions, &lexicon);
    let signature = signature(&lexicon, config);
    // Its tables freed before the quote checks.
    drop(lexicon);
    verify_and_assemble(questions, transcripts, scored, signature, config, freed)
}

/// Every pair's type, answer scores and warning, in pair order.
fn score_answers(questions: &QuestionSet, lexicon: &Lexicon) -> Vec<ScoredPair> {
    // Each distinct (type, metric) compiled once (WordNet enrichment is
    // the costly part), then every pair scored in parallel.
    let groups = scoring::metric_groups(
        questions
            .pairs
            .iter()
            .map(|p| (p.qtype.as_str(), &p.metric)),
    );
    // Group by group: compile, score its pairs (in parallel chunks: one
    // metric may serve thousands of pairs), drop the compiled metric (held
    // all at once they weigh more than the questions).
    let mut scored: Vec<Option<ScoredPair>> = vec![None; questions.pairs.len()];
    crate::progress::start("scoring answers", questions.pairs.len() as u64);
    let by_group: Vec<Vec<(usize, ScoredPair)>> = groups
        .par_iter()
        .map_init(scoring::EnrichCache::default, |cache, group| {
            let first = &questions.pairs[group[0]];
            let compiled =
                CompiledQuestion::compile_cached(&first.qtype, &first.metric, lexicon, cache);
            group
                .par_chunks(SCORE_CHUNK)
                .map_init(
                    || Analyzer::new(lexicon),
                    |analyzer, chunk| {
                        crate::progress::advance(chunk.len() as u64);
                        chunk
                            .iter()
                            .map(|&pi| (pi, score_pair(&questions.pairs[pi], &compiled, analyzer)))
                            .collect::<Vec<_>>()
                    },
                )
                .flatten()
                .collect()
        })
        .collect();
    for (pi, sp) in by_group.into_iter().flatten() {
        scored[pi] = Some(sp);
    }
    crate::progress::finish();
    scored
        .into_iter()
        .map(|s| s.unwrap_or((None, Vec::new(), None)))
        .collect()
}

/// Verifies every quote and assembles the results of the scored pairs.
fn verify_and_assemble(
    questions: &QuestionSet,
    transcripts: &TranscriptSet,
    scored: Vec<ScoredPair>,
    signature: String,
    config: &EvalConfig,
    freed: &(dyn Fn() + Sync),
) -> Result<Evaluation, CorpusError> {
    // Every quote with its answer, in file order.
    let quote_refs: Vec<(usize, usize, &crate::corpus::Quote)> = questions
        .pairs
        .iter()
        .enumerate()
        .flat_map(|(pi, p)| {
            p.answers
                .iter()
                .enumerate()
                .flat_map(move |(ai, a)| a.quotes.iter().map(move |q| (pi, ai, q)))
        })
        .collect();
    crate::progress::start("verifying quotes", quote_refs.len() as u64);
    let (checks, attributed, unlabelled) = verify_quotes(&quote_refs, transcripts, config, freed)?;
    crate::progress::finish();
    let mut pairs: Vec<PairResult> = questions
        .pairs
        .iter()
        .zip(scored)
        .map(|(p, (qtype, scores, warning))| PairResult {
            id: p.id.clone(),
            qtype,
            existence_score: None,
            answers: p
                .answers
                .iter()
                .zip(scores)
                .map(|(a, score)| AnswerResult {
                    score,
                    source: a.source.clone(),
                    quotes: Vec::with_capacity(a.quotes.len()),
                })
                .collect(),
            warning,
        })
        .collect();
    for (((pi, ai, q), check), attributed) in quote_refs.iter().zip(checks).zip(attributed) {
        pairs[*pi].answers[*ai].quotes.push(quote_result(
            transcripts,
            config,
            q,
            check,
            attributed,
        ));
    }
    set_existence_scores(&mut pairs);
    Ok(Evaluation {
        pairs,
        config: config.clone(),
        signature,
        unlabelled: unlabelled
            .into_iter()
            .map(|t| transcripts.transcripts[t].file.clone())
            .collect(),
    })
}

/// Each pair's existence score: the share of its quotes found (None
/// without quotes).
fn set_existence_scores(pairs: &mut [PairResult]) {
    for p in pairs {
        let (found, total) = p
            .answers
            .iter()
            .flat_map(|a| &a.quotes)
            .fold((0usize, 0usize), |(f, t), q| {
                (f + usize::from(q.found), t + 1)
            });
        p.existence_score = (total > 0).then(|| found as f64 / total as f64);
    }
}

/// A pair's type, its answers' scores and its warning, under its compiled
/// metric (or the reason it has none).
fn score_pair(
    pair: &crate::corpus::QaPair,
    compiled: &Result<CompiledQuestion, scoring::ScoreError>,
    analyzer: &mut Analyzer,
) -> ScoredPair {
    match compiled {
        Ok(q) => {
            let scores = pair
                .answers
                .iter()
                // A score is finite in [0, 1]; anything else is unscored,
                // never counted as scored.
                .map(|a| Some(q.score(&a.answer, analyzer)).filter(|s| s.is_finite()))
                .collect();
            (Some(q.question_type()), scores, None)
        }
        Err(e) => {
            let t = QuestionType::parse(&pair.qtype).ok();
            let warn = format!(
                "qa pair {} (id {:?}): {e}; its answers are unscored",
                pair.index,
                crate::corpus::Preview(&pair.id)
            );
            (t, vec![None; pair.answers.len()], Some(warn))
        }
    }
}

/// Every quote's check and attribution, transcript by transcript.
///
/// Each transcript's lookup structures (turns, normalized text, word
/// index) live only while its own quotes are checked (transcripts in
/// parallel), so memory holds a few of them at a time, not the corpus's;
/// the next transcript is built into their buffers ([`citations::Workspace`]),
/// so that their pages are not given back and faulted in again for each.
/// Quotes found in their transcript are attributed by their turn; the
/// others are looked up in the other transcripts (one automaton over all
/// of them, each transcript prepared again for it), then as stitched
/// pieces in their own, else fabricated.
fn verify_quotes(
    quote_refs: &[(usize, usize, &crate::corpus::Quote)],
    transcripts: &TranscriptSet,
    config: &EvalConfig,
    freed: &(dyn Fn() + Sync),
) -> Result<Checked3, CorpusError> {
    verify_quotes_in(quote_refs, transcripts, config, None, freed)
}

/// A transcript prepared for lookups: built for the occasion (and dropped
/// after it), or kept by a [`PreparedTranscripts`].
enum Source<'a> {
    Fresh(Box<SourceText<'a>>),
    Kept(&'a SourceText<'static>),
}

impl<'a> std::ops::Deref for Source<'a> {
    type Target = SourceText<'a>;
    fn deref(&self) -> &SourceText<'a> {
        match self {
            Source::Fresh(s) => s,
            Source::Kept(s) => s,
        }
    }
}

/// [`verify_quotes`], the transcripts' lookup structures taken from `kept`
/// (prepared once, for many calls) when given and its speaker settings
/// are the configuration's; `freed` called once their structures are
/// freed, after each of the two searches.
fn verify_quotes_in(
    quote_refs: &[(usize, usize, &crate::corpus::Quote)],
    transcripts: &TranscriptSet,
    config: &EvalConfig,
    kept: Option<&PreparedTranscripts>,
    freed: &(dyn Fn() + Sync),
) -> Result<Checked3, CorpusError> {
    let kept = kept.filter(|k| {
        k.speakers == config.speakers.signature()
            && k.normalize == config.normalize
            && k.fuzzy_search == config.fuzzy_search
            && k.meaning == config.meaning
    });
    let n = quote_refs.len();
    // Each quote's transcript, and each transcript's quotes in file order.
    let cited: Vec<Option<usize>> = quote_refs
        .iter()
        .map(|(_, _, q)| q.source.as_deref().and_then(|s| transcripts.position(s)))
        .collect();
    let mut by_transcript: Vec<Vec<usize>> = vec![Vec::new(); transcripts.transcripts.len()];
    for (k, c) in cited.iter().enumerate() {
        if let Some(i) = c {
            by_transcript[*i].push(k);
        }
    }
    // Largest transcripts first, for an even spread over the threads.
    let mut order: Vec<usize> = (0..by_transcript.len())
        .filter(|&i| !by_transcript[i].is_empty())
        .collect();
    order.sort_by_key(|&i| std::cmp::Reverse(transcripts.transcripts[i].len()));
    // Each transcript is built into the buffers of one done with before
    // (a few sets of them, one per transcript prepared at once).
    let workspaces: crate::pool::Pool<citations::Workspace> = crate::pool::Pool::default();
    let prepare = |t: usize| -> Result<Source<'_>, CorpusError> {
        Ok(match kept {
            Some(k) => Source::Kept(k.source(t)?),
            None => {
                let mut workspace = workspaces.take();
                let transcript = &transcripts.transcripts[t];
                let text = transcript.text_in(workspace.text_buffer())?;
                Source::Fresh(Box::new(
                    workspace
                        .prepare(text, transcript.labels(), &config.speakers)
                        .normalizing(&config.normalize)
                        .searching(config.fuzzy_search)
                        .meaning_words(&config.meaning),
                ))
            }
        })
    };
    let done_with = |src: Source<'_>| {
        if let Source::Fresh(s) = src {
            let mut workspace = citations::Workspace::default();
            workspace.recycle(*s);
            workspaces.put(workspace);
        }
    };
    // Each transcript's lookup structures are done with once its quotes
    // are checked (their buffers kept for the next one): the search of the
    // other transcripts prepares each one again, a few at a time, so
    // memory never holds the corpus's normalized texts at once.
    let done: Vec<(usize, bool, TranscriptChecked)> = order
        .par_iter()
        .map(|&i| -> Result<_, CorpusError> {
            let src = prepare(i)?;
            let out = check_transcript(&src, &by_transcript[i], quote_refs, config);
            let labelled = src.turns().is_some_and(|t| t.labelled());
            done_with(src);
            crate::progress::advance(by_transcript[i].len() as u64);
            Ok((i, labelled, out))
        })
        .collect::<Result<_, CorpusError>>()?;
    // The transcripts' lookup structures are freed (unless prepared ahead).
    workspaces.clear();
    freed();
    let mut checks: Vec<QuoteCheck> = vec![QuoteCheck::unknown_source(); n];
    let mut attributed: Vec<Attributed> = vec![Attributed::default(); n];
    let mut stitched: Vec<Option<Vec<attribution::Piece>>> = vec![None; n];
    let mut altered: Vec<Option<Attributed>> = vec![None; n];
    let mut missing: Vec<usize> = Vec::new();
    let mut unlabelled: Vec<usize> = Vec::new();
    for (t, labelled, out) in done {
        if !labelled {
            unlabelled.push(t);
        }
        for (k, c) in out {
            checks[k] = c.check;
            match c.attributed {
                Some(a) => attributed[k] = a,
                None => {
                    missing.push(k);
                    stitched[k] = c.stitched;
                    altered[k] = c.altered;
                }
            }
        }
    }
    missing.sort_unstable();
    // Not found in their own transcript: another transcript, then pieces.
    let names: Vec<String> = transcripts
        .transcripts
        .iter()
        .map(|t| t.file.clone())
        .collect();
    let lookups: Vec<(usize, &str)> = missing
        .iter()
        .filter_map(|&k| Some((cited[k]?, quote_refs[k].2.quote.as_str())))
        .collect();
    let elsewhere = if lookups.is_empty() {
        Vec::new()
    } else {
        let found = other_sources_or_error(&names, &lookups, &config.normalize, |t, visit| {
            let src = prepare(t)?;
            visit(&src);
            done_with(src);
            Ok(())
        })?;
        // Their lookup structures again.
        workspaces.clear();
        freed();
        found
    };
    for (&k, other) in missing.iter().zip(elsewhere) {
        attributed[k] = match other {
            Some(o) => Attributed {
                attribution: Some(Attribution::OtherSource),
                other_source: Some(Box::new(o)),
                ..Attributed::default()
            },
            None => match (altered[k].take(), stitched[k].take()) {
                (Some(a), _) => a,
                (None, Some(pieces)) => Attributed {
                    attribution: Some(Attribution::Stitched),
                    pieces,
                    ..Attributed::default()
                },
                (None, None) => Attributed {
                    attribution: Some(Attribution::Fabricated),
                    ..Attributed::default()
                },
            },
        };
    }
    unlabelled.sort_unstable();
    Ok((checks, attributed, unlabelled))
}

/// Every quote's check and attribution, and the transcripts checked that
/// have no speaker label (indices).
type Checked3 = (Vec<QuoteCheck>, Vec<Attributed>, Vec<usize>);

/// One transcript's checked quotes, by their index.
type TranscriptChecked = Vec<(usize, Checked)>;

/// A quote checked in its transcript: the check, its attribution when
/// found (else None, and the stitched pieces it would have when no other
/// transcript holds it).
struct Checked {
    check: QuoteCheck,
    attributed: Option<Attributed>,
    stitched: Option<Vec<attribution::Piece>>,
    /// Not found, with a passage at or above the threshold.
    altered: Option<Attributed>,
}

/// Checks the quotes `ks` (indices into `quote_refs`, file order) in one
/// transcript. A quote an answer repeats takes the next occurrence its
/// earlier copies left free: only exact and normalized occurrences are
/// taken, so those are resolved in order first; the rest (fuzzy search,
/// pieces) run in parallel.
fn check_transcript(
    src: &SourceText<'_>,
    ks: &[usize],
    quote_refs: &[(usize, usize, &crate::corpus::Quote)],
    config: &EvalConfig,
) -> Vec<(usize, Checked)> {
    let quotes: Vec<&str> = ks.iter().map(|&k| quote_refs[k].2.quote.as_str()).collect();
    let located: Vec<Located> = src.locate_all(&quotes);
    let mut used: HashMap<(usize, usize, &str), Vec<std::ops::Range<usize>>> = HashMap::new();
    let mut verbatim: Vec<Option<QuoteCheck>> = vec![None; ks.len()];
    for (j, &k) in ks.iter().enumerate() {
        if located[j].verdict.is_none() {
            continue;
        }
        let (pi, ai, q) = quote_refs[k];
        let prior = used.entry((pi, ai, q.quote.trim())).or_default();
        let c = src.check_located(&q.quote, config.fuzzy_threshold, prior, &located[j]);
        if let Some(b) = &c.byte_span {
            prior.push(b.clone());
        }
        verbatim[j] = Some(c);
    }
    drop(used);
    let fuzzy: Vec<&str> = quotes
        .iter()
        .zip(&located)
        .filter(|(_, l)| l.verdict.is_none())
        .map(|(q, _)| *q)
        .collect();
    src.expect_fuzzy(&fuzzy, config.fuzzy_threshold);
    ks.par_iter()
        .zip(verbatim)
        .zip(&located)
        .map(|((&k, verbatim), located)| {
            let q = quote_refs[k].2;
            let check = verbatim.unwrap_or_else(|| {
                {
                    src.check_located(&q.quote, config.fuzzy_threshold, &[], located)
                }
            });
            let checked = if config.match_level.accepts(check.verdict) {
                Checked {
                    attributed: Some(attribution::of_found(src, &check, q.speaker.as_deref())),
                    check,
                    stitched: None,
                    altered: None,
                }
            } else {
                // A passage at or above the threshold makes it `altered`
                // (unless another transcript holds it); without one, its
                // stitched pieces are looked for.
                let (altered, stitched) = attribution::altered_or_stitched(src, &check, &q.quote);
                Checked {
                    stitched,
                    altered,
                    check,
                    attributed: None,
                }
            };
            (k, checked)
        })
        .collect()
}

/// `signature` with the quote verification's settings added: matching,
/// speakers and the attribution rules (`evaluate` and `check-report` sign
/// them alike).
pub fn with_verification(
    signature: crate::signature::Signature,
    config: &EvalConfig,
) -> crate::signature::Signature {
    signature
        .part(citations::signature(
            config.match_level,
            config.fuzzy_threshold,
            &config.normalize,
            config.fuzzy_search,
        ))
        .part(config.speakers.signature())
        .field("meaning", config.meaning.signature())
        .field("location", format!("tol={}s", config.time_tolerance))
        .field(
            "attribution",
            format!(
                "pieces>={}w,cover>={}",
                attribution::MIN_PIECE_WORDS,
                attribution::MIN_PIECE_COVER
            ),
        )
}

/// The signature of an evaluation's settings.
pub fn signature(lexicon: &Lexicon, config: &EvalConfig) -> String {
    let head =
        crate::signature::Signature::new(format!("corpus-eval:{}", env!("CARGO_PKG_VERSION")))
            .part(scoring::signature(lexicon));
    with_verification(head, config)
        .field(
            "ci",
            format!(
                "percentile-bootstrap-95,n={},seed={},draw:{}",
                config.resamples,
                config.seed,
                crate::stats::COUNTS_DRAW
            ),
        )
        .long()
}

/// Aggregates an evaluation: its [`SummaryParts`], finished. The means
/// and intervals depend on each group's value counts only, so a run split
/// into shards or partitions gives the same summary once its parts are
/// merged.
pub fn summarize_evaluation(eval: &Evaluation) -> Summary {
    SummaryParts::of(eval).finish(&eval.config)
}

/// Checks quotes that stand alone (no question file): each quote in the
/// transcript its source names, exactly as [`evaluate`] checks an answer's
/// quotes. Quotes with the same `group` (e.g. an answer's id) are one
/// answer's: a quote repeated there takes the next occurrence its earlier
/// copies left free; a quote without a group stands alone.
pub fn check_quotes(
    quotes: &[crate::corpus::Quote],
    groups: &[Option<&str>],
    transcripts: &TranscriptSet,
    config: &EvalConfig,
) -> Result<Vec<QuoteResult>, CorpusError> {
    check_quotes_with(quotes, groups, transcripts, config, None)
}

fn check_quotes_with(
    quotes: &[crate::corpus::Quote],
    groups: &[Option<&str>],
    transcripts: &TranscriptSet,
    config: &EvalConfig,
    kept: Option<&PreparedTranscripts>,
) -> Result<Vec<QuoteResult>, CorpusError> {
    let mut group_of: HashMap<&str, usize> = HashMap::new();
    let refs: Vec<(usize, usize, &crate::corpus::Quote)> = quotes
        .iter()
        .enumerate()
        .map(|(k, q)| {
            let g = match groups.get(k).copied().flatten() {
                Some(name) => {
                    let next = group_of.len();
                    *group_of.entry(name).or_insert(next)
                }
                None => usize::MAX - k,
            };
            (g, 0, q)
        })
        .collect();
    let (checks, attributed, _) = verify_quotes_in(&refs, transcripts, config, kept, &|| ())?;
    Ok(quotes
        .iter()
        .zip(checks.into_iter().zip(attributed))
        .map(|(q, (check, attributed))| quote_result(transcripts, config, q, check, attributed))
        .collect())
}

/// The id of the transcript a cited source names (an id, or an id without
/// its extension), if it names one.
pub(crate) fn resolved(transcripts: &TranscriptSet, source: Option<&str>) -> Option<String> {
    transcripts.get(source?).map(|t| t.file.clone())
}

/// A transcript corpus parsed once and its transcripts prepared for
/// lookups on first use and kept (turns, normalized text, word index), for
/// callers that check many batches of quotes against one corpus (a data
/// engine's worker). Memory grows with the transcripts used.
#[derive(Debug)]
pub struct PreparedTranscripts {
    set: TranscriptSet,
    speaker_config: SpeakerConfig,
    speakers: String,
    normalize: crate::text::aligned::NormalizeOptions,
    fuzzy_search: citations::FuzzySearch,
    meaning: std::sync::Arc<citations::MeaningWords>,
    sources: Vec<std::sync::OnceLock<SourceText<'static>>>,
}

impl PreparedTranscripts {
    /// The corpus, its transcripts split into turns by `speakers`.
    pub fn new(
        set: TranscriptSet,
        speakers: SpeakerConfig,
        normalize: crate::text::aligned::NormalizeOptions,
        fuzzy_search: citations::FuzzySearch,
    ) -> PreparedTranscripts {
        let sources = (0..set.transcripts.len())
            .map(|_| std::sync::OnceLock::new())
            .collect();
        PreparedTranscripts {
            normalize,
            fuzzy_search,
            meaning: citations::MeaningWords::english(),
            speakers: speakers.signature(),
            speaker_config: speakers,
            set,
            sources,
        }
    }

    /// The same, the changes of meaning read with `words`.
    pub fn with_meaning_words(mut self, words: std::sync::Arc<citations::MeaningWords>) -> Self {
        self.meaning = words;
        self
    }

    /// The transcripts.
    pub fn transcripts(&self) -> &TranscriptSet {
        &self.set
    }

    fn source(&self, t: usize) -> Result<&SourceText<'static>, CorpusError> {
        if let Some(s) = self.sources[t].get() {
            return Ok(s);
        }
        let transcript = &self.set.transcripts[t];
        let text = transcript.text()?.into_owned();
        Ok(self.sources[t].get_or_init(|| {
            SourceText::with_turns(text, transcript.labels(), &self.speaker_config)
                .normalizing(&self.normalize)
                .searching(self.fuzzy_search)
                .meaning_words(&self.meaning)
        }))
    }
}

/// For each quote (the id of the transcript it cites, its text), the first
/// transcript of `prepared` in corpus order, other than the cited one,
/// that holds it (exactly or normalized), as a quote's `other_source`
/// records it: the search [`evaluate`] makes for the quotes not found in
/// their own transcript. The cited transcripts need not be in `prepared`,
/// so a corpus split into partitions is searched one partition at a time
/// (the first holder over the partitions, in the whole corpus's order, is
/// the one a single search finds).
pub fn other_sources_prepared(
    quotes: &[(Option<&str>, &str)],
    prepared: &PreparedTranscripts,
) -> Result<Vec<Option<attribution::OtherSource>>, CorpusError> {
    let set = &prepared.set;
    let names: Vec<String> = set.transcripts.iter().map(|t| t.file.clone()).collect();
    let lookups: Vec<(usize, &str)> = quotes
        .iter()
        .map(|(source, quote)| {
            let cited = source.and_then(|s| set.position(s)).unwrap_or(usize::MAX);
            (cited, *quote)
        })
        .collect();
    other_sources_or_error(&names, &lookups, &prepared.normalize, |t, visit| {
        visit(prepared.source(t)?);
        Ok(())
    })
}

/// [`attribution::other_sources_in`] over the transcripts `names` lists,
/// each handed to the search by `each` (which may fail to decode it: the
/// first error, kept from inside the search, which visits transcripts in
/// parallel, stops it).
fn other_sources_or_error<F>(
    names: &[String],
    lookups: &[(usize, &str)],
    normalize: &crate::text::aligned::NormalizeOptions,
    each: F,
) -> Result<Vec<Option<attribution::OtherSource>>, CorpusError>
where
    F: Fn(usize, &mut dyn FnMut(&SourceText<'_>)) -> Result<(), CorpusError> + Sync,
{
    let failed: std::sync::Mutex<Option<CorpusError>> = std::sync::Mutex::new(None);
    let found =
        attribution::other_sources_in(names.len(), names, lookups, normalize, |t, visit| {
            if let Err(e) = each(t, visit) {
                if let Ok(mut f) = failed.lock() {
                    f.get_or_insert(e);
                }
            }
        });
    match failed.into_inner().ok().flatten() {
        Some(e) => Err(e),
        None => Ok(found),
    }
}

/// [`check_quotes`] against a prepared corpus (the same results; a
/// configuration with other speaker settings prepares its own).
pub fn check_quotes_prepared(
    quotes: &[crate::corpus::Quote],
    groups: &[Option<&str>],
    prepared: &PreparedTranscripts,
    config: &EvalConfig,
) -> Result<Vec<QuoteResult>, CorpusError> {
    check_quotes_with(quotes, groups, &prepared.set, config, Some(prepared))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn owned_lexicon_and_packed_transcripts_give_the_same_evaluation() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let questions = crate::corpus::Loader::new()
            .questions(&root.join("evaluation/data_fixture.json"))
            .unwrap()
            .data;
        let mut transcripts = crate::corpus::Loader::new()
            .transcripts(&root.join("datasets/corpus.json"))
            .unwrap()
            .data;
        let lexicon = Lexicon::embedded().unwrap();
        let info = lexicon.info();
        assert_eq!(
            (info.source.as_str(), info.sha256.as_str()),
            (lexicon.source(), lexicon.digest())
        );
        assert_eq!(
            (info.lemmas, info.synsets),
            (lexicon.lemma_count(), lexicon.synset_count())
        );
        let config = EvalConfig::default();
        let borrowed = evaluate(&questions, &transcripts, &lexicon, &config).unwrap();
        assert!(borrowed
            .pairs
            .iter()
            .any(|p| p.answers.iter().any(|a| !a.quotes.is_empty())));
        transcripts.pack();
        let owned = evaluate_owned(&questions, &transcripts, lexicon, &config, &|| ()).unwrap();
        assert_eq!(borrowed.signature, owned.signature);
        // Byte spans included (they are not serialized).
        assert_eq!(
            format!("{:?}", borrowed.pairs),
            format!("{:?}", owned.pairs)
        );
    }
}
