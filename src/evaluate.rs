//! The main job as a library function: score every answer and verify every
//! quote of a question set against a transcript corpus, then aggregate.
//!
//! Pure: inputs in, results out; reading files and writing the run folder
//! belong to [`crate::corpus`] and [`crate::report`].

use crate::citations::attribution::{self, Attributed, Attribution};
use crate::citations::turns::SpeakerConfig;
use crate::citations::{self, Located, MatchLevel, QuoteCheck, SourceText, Verdict};
use crate::corpus::{QuestionSet, TranscriptSet};
use crate::lexicon::Lexicon;
use crate::scoring::{self, phrases::Analyzer, CompiledQuestion, QuestionType};
use crate::stats::{summarize, GroupStat};
use rayon::prelude::*;
use serde::Serialize;
use serde_json::{json, Value};
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
}

impl Default for EvalConfig {
    fn default() -> Self {
        EvalConfig {
            match_level: MatchLevel::Normalized,
            fuzzy_threshold: citations::DEFAULT_FUZZY_THRESHOLD,
            seed: 42,
            resamples: crate::stats::DEFAULT_RESAMPLES,
            speakers: SpeakerConfig::default(),
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
    /// The quote's source FILE.
    pub source: Option<String>,
    /// Who said it: the span's speaker, the attribution class, and where
    /// an `other_source` or `stitched` quote stands.
    #[serde(flatten)]
    pub attributed: Attributed,
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
    /// Number of quotes per verdict.
    pub verdicts: BTreeMap<String, usize>,
    /// Counts of pairs, answers and quotes.
    pub counts: BTreeMap<String, usize>,
    /// One line per unscored pair.
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

/// Group name for answers without a source.
pub const NO_SOURCE: &str = "(no source)";

/// Scores and verifies a question set against transcripts.
pub fn evaluate(
    questions: &QuestionSet,
    transcripts: &TranscriptSet,
    lexicon: &Lexicon,
    config: &EvalConfig,
) -> Evaluation {
    let sources: Vec<SourceText> = transcripts
        .transcripts
        .par_iter()
        .map(|t| SourceText::with_speakers(t.text.clone(), &config.speakers))
        .collect();
    crate::timings::phase("turns");
    // Each distinct (type, metric) compiled once (WordNet enrichment is
    // the costly part), then every pair scored in parallel.
    let mut distinct: HashMap<(&str, String), usize> = HashMap::new();
    let keys: Vec<usize> = questions
        .pairs
        .iter()
        .map(|p| {
            let next = distinct.len();
            *distinct
                .entry((p.qtype.as_str(), p.metric.to_string()))
                .or_insert(next)
        })
        .collect();
    let mut groups: Vec<Vec<usize>> = vec![Vec::new(); distinct.len()];
    for (pi, &k) in keys.iter().enumerate() {
        groups[k].push(pi);
    }
    drop(distinct);
    // Group by group: compile, score its pairs, drop the compiled metric
    // (held all at once they weigh more than the questions).
    let mut scored: Vec<Option<ScoredPair>> = vec![None; questions.pairs.len()];
    crate::progress::start("scoring answers", questions.pairs.len() as u64);
    let by_group: Vec<Vec<(usize, ScoredPair)>> = groups
        .par_iter()
        .map_init(
            || Analyzer::new(lexicon),
            |analyzer, group| {
                let first = &questions.pairs[group[0]];
                let compiled = CompiledQuestion::compile(&first.qtype, &first.metric, lexicon);
                group
                    .iter()
                    .map(|&pi| {
                        crate::progress::advance(1);
                        (pi, score_pair(&questions.pairs[pi], &compiled, analyzer))
                    })
                    .collect()
            },
        )
        .collect();
    for (pi, sp) in by_group.into_iter().flatten() {
        scored[pi] = Some(sp);
    }
    crate::timings::phase("scoring");
    let scored: Vec<ScoredPair> = scored
        .into_iter()
        .map(|s| s.unwrap_or((None, Vec::new(), None)))
        .collect();
    // Quotes, answer by answer (in parallel over answers): a quote an
    // answer repeats takes the next occurrence its earlier copies left free.
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
    let answers: Vec<(usize, usize)> = questions
        .pairs
        .iter()
        .enumerate()
        .flat_map(|(pi, p)| (0..p.answers.len()).map(move |ai| (pi, ai)))
        .collect();
    // Every quote's verbatim occurrences, transcript by transcript (one
    // pass over each for all its quotes).
    let mut cited: Vec<Vec<&str>> = vec![Vec::new(); sources.len()];
    let slots: Vec<Option<(usize, usize)>> = quote_refs
        .iter()
        .map(|(_, _, q)| {
            let i = q.source.as_deref().and_then(|s| transcripts.position(s))?;
            cited[i].push(q.quote.as_str());
            Some((i, cited[i].len() - 1))
        })
        .collect();
    crate::progress::finish();
    crate::progress::start("verifying quotes", quote_refs.len() as u64);
    let located: Vec<Vec<Located>> = sources
        .par_iter()
        .zip(&cited)
        .map(|(s, quotes)| s.locate_all(quotes))
        .collect();
    crate::timings::phase("locate");
    // The fuzzy index of each transcript some quote needs it for, built
    // in parallel up front.
    sources
        .par_iter()
        .zip(&located)
        .zip(&cited)
        .filter(|((_, l), c)| {
            l.iter()
                .zip(c.iter())
                .any(|(l, q)| l.verdict.is_none() && !q.trim().is_empty())
        })
        .for_each(|((s, _), _)| s.prepare_fuzzy());
    crate::timings::phase("fuzzy index");
    let mut starts: Vec<usize> = Vec::with_capacity(answers.len());
    let mut at = 0;
    for &(pi, ai) in &answers {
        starts.push(at);
        at += questions.pairs[pi].answers[ai].quotes.len();
    }
    let checks: Vec<QuoteCheck> = answers
        .par_iter()
        .zip(&starts)
        .flat_map_iter(|(&(pi, ai), &first)| {
            let quotes = &questions.pairs[pi].answers[ai].quotes;
            let mut used: BTreeMap<(usize, &str), Vec<std::ops::Range<usize>>> = BTreeMap::new();
            let mut out = Vec::with_capacity(quotes.len());
            for (k, q) in quotes.iter().enumerate() {
                out.push(match slots[first + k] {
                    Some((i, slot)) => {
                        let key = (i, q.quote.trim());
                        let prior = used.entry(key).or_default();
                        let c = sources[i].check_located(
                            &q.quote,
                            config.fuzzy_threshold,
                            prior,
                            &located[i][slot],
                        );
                        if let Some(b) = &c.byte_span {
                            prior.push(b.clone());
                        }
                        c
                    }
                    None => QuoteCheck::unknown_source(),
                });
            }
            crate::progress::advance(quotes.len() as u64);
            out
        })
        .collect();
    crate::progress::finish();
    crate::timings::phase("check quotes");
    let attributed = attribute(&quote_refs, &checks, &sources, transcripts, config);
    crate::timings::phase("attribution");
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
        let found = config.match_level.accepts(check.verdict);
        pairs[*pi].answers[*ai].quotes.push(QuoteResult {
            check,
            found,
            source: q.source.clone(),
            attributed,
        });
    }
    for p in &mut pairs {
        let (found, total) = p
            .answers
            .iter()
            .flat_map(|a| &a.quotes)
            .fold((0usize, 0usize), |(f, t), q| {
                (f + usize::from(q.found), t + 1)
            });
        p.existence_score = (total > 0).then(|| found as f64 / total as f64);
    }
    crate::timings::phase("results");
    drop(sources);
    crate::timings::phase("drop sources");
    Evaluation {
        pairs,
        config: config.clone(),
        signature: signature(lexicon, config),
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

/// Each quote's attribution: found quotes by their turn; the others are
/// looked up in the other transcripts (one automaton over all of them),
/// then as stitched pieces in their own, else fabricated.
fn attribute(
    quote_refs: &[(usize, usize, &crate::corpus::Quote)],
    checks: &[QuoteCheck],
    sources: &[SourceText],
    transcripts: &TranscriptSet,
    config: &EvalConfig,
) -> Vec<Attributed> {
    let cited =
        |q: &crate::corpus::Quote| q.source.as_deref().and_then(|s| transcripts.position(s));
    let mut out: Vec<Attributed> = quote_refs
        .par_iter()
        .zip(checks)
        .map(|((_, _, q), c)| match cited(q) {
            Some(i) if config.match_level.accepts(c.verdict) => {
                attribution::of_found(&sources[i], c, q.speaker.as_deref())
            }
            _ => Attributed::default(),
        })
        .collect();
    let missing: Vec<(usize, usize)> = quote_refs
        .iter()
        .zip(checks)
        .enumerate()
        .filter_map(|(k, ((_, _, q), c))| {
            let i = cited(q)?;
            (!config.match_level.accepts(c.verdict)).then_some((k, i))
        })
        .collect();
    let names: Vec<String> = transcripts
        .transcripts
        .iter()
        .map(|t| t.file.clone())
        .collect();
    let lookups: Vec<(usize, &str)> = missing
        .iter()
        .map(|&(k, i)| (i, quote_refs[k].2.quote.as_str()))
        .collect();
    let elsewhere = attribution::other_sources(sources, &names, &lookups);
    let resolved: Vec<(usize, Attributed)> = missing
        .par_iter()
        .zip(elsewhere)
        .map(|(&(k, i), other)| {
            let a = match other {
                Some(o) => Attributed {
                    attribution: Some(Attribution::OtherSource),
                    other_source: Some(o),
                    ..Attributed::default()
                },
                None => match attribution::stitched(&sources[i], &quote_refs[k].2.quote) {
                    Some(pieces) => Attributed {
                        attribution: Some(Attribution::Stitched),
                        pieces,
                        ..Attributed::default()
                    },
                    None => Attributed {
                        attribution: Some(Attribution::Fabricated),
                        ..Attributed::default()
                    },
                },
            };
            (k, a)
        })
        .collect();
    for (k, a) in resolved {
        out[k] = a;
    }
    out
}

/// The signature of an evaluation's settings.
pub fn signature(lexicon: &Lexicon, config: &EvalConfig) -> String {
    crate::signature::Signature::new(format!("corpus-eval:{}", env!("CARGO_PKG_VERSION")))
        .part(scoring::signature(lexicon))
        .part(citations::signature(
            config.match_level,
            config.fuzzy_threshold,
        ))
        .part(config.speakers.signature())
        .field(
            "attribution",
            format!(
                "pieces>={}w,cover>={}",
                attribution::MIN_PIECE_WORDS,
                attribution::MIN_PIECE_COVER
            ),
        )
        .field(
            "ci",
            format!(
                "percentile-bootstrap-95,n={},seed={}",
                config.resamples, config.seed
            ),
        )
        .long()
}

/// Groups scores by key and summarizes each group. Each group's bootstrap is
/// seeded with the run seed mixed with the group's name, so adding a group
/// does not change another's interval.
fn grouped(groups: BTreeMap<String, Vec<f64>>, config: &EvalConfig) -> BTreeMap<String, GroupStat> {
    groups
        .into_iter()
        .map(|(k, xs)| {
            let seed = crate::stats::group_seed(config.seed, &k);
            (k, summarize(&xs, seed, config.resamples))
        })
        .collect()
}

/// Aggregates an evaluation.
pub fn summarize_evaluation(eval: &Evaluation) -> Summary {
    let config = &eval.config;
    let mut by_source: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    let mut by_quote_source: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    let mut by_type: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    let mut all = Vec::new();
    let mut existence = Vec::new();
    let mut strict = Vec::new();
    let mut attribution = AttributionCounts::default();
    for a in Attribution::ALL {
        attribution.overall.insert(a.as_str().to_string(), 0);
    }
    let mut verdicts: BTreeMap<String, usize> = BTreeMap::new();
    for v in [
        Verdict::Exact,
        Verdict::Normalized,
        Verdict::Fuzzy,
        Verdict::NotFound,
        Verdict::UnknownSource,
    ] {
        verdicts.insert(v.as_str().to_string(), 0);
    }
    let (mut answers, mut scored, mut quotes) = (0, 0, 0);
    for p in &eval.pairs {
        if let Some(e) = p.existence_score {
            existence.push(e);
        }
        if let Some(s) = p.strict_existence() {
            strict.push(s);
        }
        for a in &p.answers {
            answers += 1;
            if let Some(s) = a.score {
                scored += 1;
                all.push(s);
                let src = a.source.clone().unwrap_or_else(|| NO_SOURCE.to_string());
                by_source.entry(src).or_default().push(s);
                if let Some(t) = p.qtype {
                    by_type.entry(t.name().to_string()).or_default().push(s);
                }
            }
            for q in &a.quotes {
                quotes += 1;
                *verdicts
                    .entry(q.check.verdict.as_str().to_string())
                    .or_default() += 1;
                let src = q.source.clone().unwrap_or_else(|| NO_SOURCE.to_string());
                if let Some(a) = q.attributed.attribution {
                    *attribution
                        .overall
                        .entry(a.as_str().to_string())
                        .or_default() += 1;
                    let per = attribution.by_transcript.entry(src.clone()).or_default();
                    *per.entry(a.as_str().to_string()).or_default() += 1;
                }
                by_quote_source
                    .entry(src)
                    .or_default()
                    .push(if q.found { 1.0 } else { 0.0 });
            }
        }
    }
    let counts = BTreeMap::from([
        ("pairs".to_string(), eval.pairs.len()),
        ("answers".to_string(), answers),
        ("scored_answers".to_string(), scored),
        ("unscored_answers".to_string(), answers - scored),
        ("quotes".to_string(), quotes),
    ]);
    Summary {
        signature: eval.signature.clone(),
        transcript_average_scores: grouped(by_source, config),
        verbatim_average_scores: grouped(by_quote_source, config),
        by_type: grouped(by_type, config),
        overall: summarize(&all, config.seed, config.resamples),
        existence: summarize(&existence, config.seed ^ 1, config.resamples),
        strict_existence: summarize(&strict, config.seed ^ 2, config.resamples),
        attribution,
        verdicts,
        counts,
        warnings: eval
            .pairs
            .iter()
            .filter_map(|p| p.warning.clone())
            .collect(),
    }
}

/// The input document with results added: `score` on every answer,
/// `verdict`, `found`, `similarity` and `span` on every quote, and `id` and
/// `existence_score` on every pair (a copy; [`Annotated`] writes the same
/// without one).
pub fn annotate(questions: &QuestionSet, eval: &Evaluation) -> Value {
    serde_json::to_value(Annotated::new(questions, eval)).unwrap_or(Value::Null)
}

/// The input document with results added, serialized straight from the
/// document and the results (no copy of either): what [`annotate`]
/// returns. Fields the results add replace fields of the same name where
/// they stand and otherwise follow the document's own.
#[derive(Debug, Clone, Copy)]
pub struct Annotated<'a> {
    questions: &'a QuestionSet,
    eval: &'a Evaluation,
}

impl<'a> Annotated<'a> {
    /// The annotated view of `questions` with `eval`'s results.
    pub fn new(questions: &'a QuestionSet, eval: &'a Evaluation) -> Self {
        Annotated { questions, eval }
    }
}

/// A field the results add to an object of the document.
enum Field<'a> {
    Value(Value),
    Answers(&'a [Value], &'a [AnswerResult]),
    Quotes(&'a [Value], &'a [QuoteResult]),
    Pairs(&'a [Value], &'a [PairResult]),
}

impl Serialize for Field<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Field::Value(v) => v.serialize(s),
            Field::Pairs(items, res) => patched_seq(s, items, res, pair_fields),
            Field::Answers(items, res) => patched_seq(s, items, res, answer_fields),
            Field::Quotes(items, res) => patched_seq(s, items, res, quote_fields),
        }
    }
}

/// A JSON array of the document whose objects are patched with their
/// results (`patch`), item k with result k; other items as they are.
fn patched_seq<'a, S: serde::Serializer, R>(
    s: S,
    items: &'a [Value],
    results: &'a [R],
    patch: fn(&'a serde_json::Map<String, Value>, &'a R) -> Patched<'a>,
) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeSeq;
    let mut seq = s.serialize_seq(Some(items.len()))?;
    for (k, item) in items.iter().enumerate() {
        match (item, results.get(k)) {
            (Value::Object(o), Some(r)) => seq.serialize_element(&patch(o, r))?,
            _ => seq.serialize_element(item)?,
        }
    }
    seq.end()
}

fn answer_fields<'a>(o: &'a serde_json::Map<String, Value>, r: &'a AnswerResult) -> Patched<'a> {
    let mut fields = vec![("score", Field::Value(json!(r.score)))];
    if let Some(Value::Array(q)) = o.get("verbatims") {
        fields.push(("verbatims", Field::Quotes(q, &r.quotes)));
    }
    Patched { base: o, fields }
}

/// An object of the document with fields added or replaced.
struct Patched<'a> {
    base: &'a serde_json::Map<String, Value>,
    fields: Vec<(&'static str, Field<'a>)>,
}

impl Serialize for Patched<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let added = self
            .fields
            .iter()
            .filter(|(k, _)| !self.base.contains_key(*k))
            .count();
        let mut map = s.serialize_map(Some(self.base.len() + added))?;
        for (k, v) in self.base {
            match self.fields.iter().find(|(f, _)| f == k) {
                Some((_, f)) => map.serialize_entry(k, f)?,
                None => map.serialize_entry(k, v)?,
            }
        }
        for (k, f) in &self.fields {
            if !self.base.contains_key(*k) {
                map.serialize_entry(k, f)?;
            }
        }
        map.end()
    }
}

fn pair_fields<'a>(o: &'a serde_json::Map<String, Value>, r: &'a PairResult) -> Patched<'a> {
    let mut fields = Vec::with_capacity(4);
    if o.get("id").is_none_or(Value::is_null) {
        fields.push(("id", Field::Value(Value::String(r.id.clone()))));
    }
    fields.push(("existence_score", Field::Value(json!(r.existence_score))));
    if let Some(w) = &r.warning {
        fields.push(("warning", Field::Value(Value::String(w.clone()))));
    }
    if let Some(Value::Array(a)) = o.get("answers") {
        fields.push(("answers", Field::Answers(a, &r.answers)));
    }
    Patched { base: o, fields }
}

fn quote_fields<'a>(o: &'a serde_json::Map<String, Value>, qr: &'a QuoteResult) -> Patched<'a> {
    let at = &qr.attributed;
    let mut fields = vec![
        ("verdict", Field::Value(json!(qr.check.verdict))),
        ("found", Field::Value(json!(qr.found))),
        (
            "similarity",
            Field::Value(json!(round6(qr.check.similarity))),
        ),
        (
            "span",
            Field::Value(match &qr.check.span {
                Some(s) => json!({"start": s.start, "end": s.end}),
                None => Value::Null,
            }),
        ),
        ("span_speaker", Field::Value(json!(at.span_speaker))),
        ("attribution", Field::Value(json!(at.attribution))),
    ];
    if let Some(src) = &at.other_source {
        fields.push(("other_source", Field::Value(json!(src))));
    }
    if !at.pieces.is_empty() {
        fields.push(("pieces", Field::Value(json!(at.pieces))));
    }
    Patched { base: o, fields }
}

impl Serialize for Annotated<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let pairs = &self.eval.pairs;
        match &self.questions.document {
            Value::Array(items) => Field::Pairs(items, pairs).serialize(s),
            Value::Object(o) => match o.get("qa_pairs") {
                Some(Value::Array(items)) => Patched {
                    base: o,
                    fields: vec![("qa_pairs", Field::Pairs(items, pairs))],
                }
                .serialize(s),
                _ => o.serialize(s),
            },
            other => other.serialize(s),
        }
    }
}

fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6 + 0.0
}
