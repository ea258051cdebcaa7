//! An evaluation put back together from its per-item tables (what a data
//! engine computes in pieces: each answer's score, each quote's check), so
//! that [`super::summarize_evaluation`] gives the summary `evaluate` gives
//! for the same items. Rows may come in any order: pairs are ordered by
//! their position in the question file, answers and quotes by theirs.

use super::{AnswerResult, EvalConfig, Evaluation, PairResult, QuoteResult};
use crate::citations::attribution::{Attributed, Attribution};
use crate::citations::{QuoteCheck, Verdict};
use crate::lexicon::Lexicon;
use crate::scoring::{CompiledQuestion, EnrichCache, QuestionType};
use serde_json::Value;
use std::collections::HashMap;

/// One row per pair of the question file.
#[derive(Debug, Clone, Default)]
pub struct Pairs<'a> {
    /// Position in the file.
    pub index: Vec<Option<i64>>,
    /// The pair's id.
    pub id: Vec<Option<&'a str>>,
    /// The question type as written.
    pub qtype: Vec<Option<&'a str>>,
    /// The metric.
    pub metric: Vec<Value>,
    /// How many answers the pair has in the question file (empty: not
    /// known, not checked).
    pub answers: Vec<Option<i64>>,
    /// How many quotes its answers hold together (empty: not checked).
    pub quotes: Vec<Option<i64>>,
}

/// One row per answer.
#[derive(Debug, Clone, Default)]
pub struct Answers<'a> {
    /// Its pair's position.
    pub pair: Vec<Option<i64>>,
    /// Its position among the pair's answers.
    pub index: Vec<Option<i64>>,
    /// Its source transcript.
    pub source: Vec<Option<&'a str>>,
    /// Its score (null when unscored).
    pub score: Vec<Option<f64>>,
}

/// One row per quote.
#[derive(Debug, Clone, Default)]
pub struct Quotes<'a> {
    /// Its pair's position.
    pub pair: Vec<Option<i64>>,
    /// Its answer's position.
    pub answer: Vec<Option<i64>>,
    /// Its position among the answer's quotes.
    pub index: Vec<Option<i64>>,
    /// The transcript it cites.
    pub source: Vec<Option<&'a str>>,
    /// Its verdict.
    pub verdict: Vec<Option<&'a str>>,
    /// Whether it counts as found.
    pub found: Vec<Option<bool>>,
    /// Its attribution (null for an unknown source).
    pub attribution: Vec<Option<&'a str>>,
    /// Its changes of meaning' classes, `;`-joined as in quotes.csv (None:
    /// the column is absent; the summary then counts none).
    pub meaning: Option<Vec<Option<&'a str>>>,
}

fn position(v: Option<i64>, what: &str, row: usize) -> Result<usize, String> {
    v.and_then(|x| usize::try_from(x).ok())
        .ok_or_else(|| format!("{what} row {row}: a position (a whole number >= 0) is needed"))
}

fn parse_verdict(s: &str) -> Option<Verdict> {
    serde_json::from_value(Value::String(s.to_string())).ok()
}

fn parse_attribution(s: &str) -> Option<Attribution> {
    serde_json::from_value(Value::String(s.to_string())).ok()
}

/// Most pairs a completeness error names.
const NAMED: usize = 10;

/// Every pair whose answer or quote rows are fewer or more than the pairs
/// table says it has (rows lost or doubled by the engine that made the
/// tables) is an error naming the pairs; a pair without counts is not
/// checked.
fn check_complete(
    pairs: &Pairs<'_>,
    order: &[(usize, usize)],
    out: &[PairResult],
) -> Result<(), String> {
    let mut wrong: Vec<String> = Vec::new();
    for (k, &(index, r)) in order.iter().enumerate() {
        let pair = &out[k];
        let have_answers = pair.answers.len() as i64;
        let have_quotes: i64 = pair.answers.iter().map(|a| a.quotes.len() as i64).sum();
        let mut say = Vec::new();
        if let Some(want) = pairs.answers.get(r).copied().flatten() {
            if want != have_answers {
                say.push(format!("{want} answers expected, {have_answers} found"));
            }
        }
        if let Some(want) = pairs.quotes.get(r).copied().flatten() {
            if want != have_quotes {
                say.push(format!("{want} quotes expected, {have_quotes} found"));
            }
        }
        if !say.is_empty() {
            wrong.push(format!(
                "pair {index} (id {:?}): {}",
                crate::corpus::Preview(&pair.id),
                say.join(", ")
            ));
        }
    }
    if wrong.is_empty() {
        return Ok(());
    }
    let n = wrong.len();
    let more = n.saturating_sub(NAMED);
    wrong.truncate(NAMED);
    Err(format!(
        "rows lost or doubled: {n} pair(s) do not have the answers and quotes the pairs table counts: {}{}",
        wrong.join("; "),
        if more > 0 {
            format!("; and {more} more")
        } else {
            String::new()
        }
    ))
}

/// The evaluation the tables describe (its quotes' similarities and spans
/// are not part of them, nor of the summary).
pub fn evaluation(
    pairs: &Pairs<'_>,
    answers: &Answers<'_>,
    quotes: &Quotes<'_>,
    lexicon: &Lexicon,
    config: &EvalConfig,
) -> Result<Evaluation, String> {
    // Pairs in file order, each with its type and warning (each distinct
    // metric compiled once, as evaluate does).
    let mut order: Vec<(usize, usize)> = (0..pairs.id.len())
        .map(|r| {
            Ok((
                position(pairs.index.get(r).copied().flatten(), "pairs", r)?,
                r,
            ))
        })
        .collect::<Result<_, String>>()?;
    order.sort_unstable();
    let mut slot: HashMap<usize, usize> = HashMap::with_capacity(order.len());
    let mut cache = EnrichCache::default();
    let mut compiled: HashMap<(String, String), Result<QuestionType, String>> = HashMap::new();
    let mut out: Vec<PairResult> = Vec::with_capacity(order.len());
    for &(index, r) in &order {
        if slot.insert(index, out.len()).is_some() {
            return Err(format!("pairs: position {index} appears twice"));
        }
        let id = pairs.id[r].unwrap_or_default().to_string();
        let qtype = pairs.qtype.get(r).copied().flatten().unwrap_or_default();
        let metric = pairs.metric.get(r).cloned().unwrap_or(Value::Null);
        let key = (qtype.to_string(), metric.to_string());
        let result = compiled
            .entry(key)
            .or_insert_with(|| {
                CompiledQuestion::compile_cached(qtype, &metric, lexicon, &mut cache)
                    .map(|q| q.question_type())
                    .map_err(|e| e.to_string())
            })
            .clone();
        let (qt, warning) = match result {
            Ok(t) => (Some(t), None),
            Err(e) => (
                QuestionType::parse(qtype).ok(),
                Some(format!(
                    "qa pair {index} (id {:?}): {e}; its answers are unscored",
                    crate::corpus::Preview(&id)
                )),
            ),
        };
        out.push(PairResult {
            id,
            qtype: qt,
            existence_score: None,
            answers: Vec::new(),
            warning,
        });
    }
    // Answers in order, then quotes in order.
    let mut a_order: Vec<(usize, usize, usize)> = (0..answers.pair.len())
        .map(|r| {
            Ok((
                position(answers.pair[r], "answers", r)?,
                position(answers.index.get(r).copied().flatten(), "answers", r)?,
                r,
            ))
        })
        .collect::<Result<_, String>>()?;
    a_order.sort_unstable();
    for (p, a, r) in a_order {
        let at = *slot
            .get(&p)
            .ok_or_else(|| format!("answers row {r}: no pair at position {p}"))?;
        if out[at].answers.len() != a {
            return Err(format!(
                "answers row {r}: answer {a} of pair {p} follows {} answers",
                out[at].answers.len()
            ));
        }
        out[at].answers.push(AnswerResult {
            score: answers
                .score
                .get(r)
                .copied()
                .flatten()
                .filter(|s| s.is_finite()),
            source: answers.source.get(r).copied().flatten().map(str::to_string),
            quotes: Vec::new(),
        });
    }
    let mut q_order: Vec<(usize, usize, usize, usize)> = (0..quotes.pair.len())
        .map(|r| {
            Ok((
                position(quotes.pair[r], "quotes", r)?,
                position(quotes.answer.get(r).copied().flatten(), "quotes", r)?,
                position(quotes.index.get(r).copied().flatten(), "quotes", r)?,
                r,
            ))
        })
        .collect::<Result<_, String>>()?;
    q_order.sort_unstable();
    for (p, a, k, r) in q_order {
        let at = *slot
            .get(&p)
            .ok_or_else(|| format!("quotes row {r}: no pair at position {p}"))?;
        let answer = out[at]
            .answers
            .get_mut(a)
            .ok_or_else(|| format!("quotes row {r}: pair {p} has no answer {a}"))?;
        if answer.quotes.len() != k {
            return Err(format!(
                "quotes row {r}: quote {k} of answer {a} of pair {p} follows {} quotes",
                answer.quotes.len()
            ));
        }
        let verdict_text = quotes.verdict.get(r).copied().flatten().unwrap_or_default();
        let verdict = parse_verdict(verdict_text)
            .ok_or_else(|| format!("quotes row {r}: unknown verdict {verdict_text:?}"))?;
        let attribution = match quotes.attribution.get(r).copied().flatten() {
            None => None,
            Some(s) => Some(
                parse_attribution(s)
                    .ok_or_else(|| format!("quotes row {r}: unknown attribution {s:?}"))?,
            ),
        };
        let meaning = match quotes
            .meaning
            .as_ref()
            .and_then(|m| m.get(r).copied().flatten())
        {
            None => None,
            Some(cell) => Some(
                cell.split(';')
                    .filter(|s| !s.is_empty())
                    .map(|s| {
                        serde_json::from_value(Value::String(s.to_string()))
                            .map(|class| crate::citations::MeaningChange {
                                class,
                                quote: String::new(),
                                source: String::new(),
                            })
                            .map_err(|_| format!("quotes row {r}: unknown meaning class {s:?}"))
                    })
                    .collect::<Result<Vec<_>, String>>()?,
            ),
        };
        answer.quotes.push(QuoteResult {
            check: QuoteCheck {
                verdict,
                meaning,
                ..QuoteCheck::not_found(0.0)
            },
            found: quotes
                .found
                .get(r)
                .copied()
                .flatten()
                .unwrap_or_else(|| config.match_level.accepts(verdict)),
            source: quotes.source.get(r).copied().flatten().map(str::to_string),
            transcript: None,
            attributed: Attributed {
                attribution,
                ..Attributed::default()
            },
            time: None,
            location: None,
            nearest: None,
        });
    }
    check_complete(pairs, &order, &out)?;
    super::set_existence_scores(&mut out);
    Ok(Evaluation {
        pairs: out,
        config: config.clone(),
        signature: super::signature(lexicon, config),
        // The rows carry no transcript: which had no speaker label is not
        // known here (the warning comes with the rows' own run).
        unlabelled: Vec::new(),
    })
}
