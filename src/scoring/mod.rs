//! Question-type scorers.
//!
//! A question's metric is compiled once ([`CompiledQuestion::compile`]):
//! parsed for its type and enriched with WordNet synonyms and number forms.
//! Each answer is then scored by [`CompiledQuestion::score`], a pure function
//! of the answer text, the compiled metric and the lexicon.
//!
//! ```
//! use corpus_eval::lexicon::Lexicon;
//! use corpus_eval::scoring::{score_answer};
//! let lex = Lexicon::embedded().unwrap();
//! let metric = serde_json::json!({"values": ["automobile", "bicycle"], "weights": [1.0, 0.5]});
//! assert_eq!(score_answer("ListOne", &metric, "They drove cars.", &lex).unwrap(), 1.0);
//! assert_eq!(score_answer("Yes/No", &serde_json::json!("yes"), "Yep, often", &lex).unwrap(), 1.0);
//! ```

pub(crate) mod metric;
pub(crate) mod phrases;

use crate::lexicon::Lexicon;
use crate::text::normalize;
use metric::{parse_rationale, parse_weighted, parse_yes_no, word_polarity};
pub use phrases::Analyzer;
use phrases::{Forms, PhraseSet};
use serde_json::Value;

/// Jaro-Winkler similarity at or above which a Pick answer part matches the
/// closest option.
pub const PICK_JARO_WINKLER_THRESHOLD: f64 = 0.9;

/// Words a Yes/No with Rationale answer needs after its polarity word for
/// full coverage when the metric lists no keywords.
pub const RATIONALE_MIN_WORDS: usize = 3;

/// Why an answer could not be scored.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ScoreError {
    /// The question type is not one of the six.
    #[error("unknown question type {} (expected Yes/No, Yes/No with Rationale, ListOne, ListMany, PickOne or PickMany)", crate::text::preview::preview(.0))]
    UnknownType(String),
    /// The metric does not parse for the question type.
    #[error("metric does not parse: {0}")]
    Metric(String),
}

impl ScoreError {
    pub(crate) fn metric(msg: impl Into<String>) -> Self {
        ScoreError::Metric(msg.into())
    }
}

/// The six question types.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum QuestionType {
    /// Yes/No.
    YesNo,
    /// Yes/No with Rationale.
    YesNoRationale,
    /// ListOne: free text naming one value.
    ListOne,
    /// ListMany: free text naming several values.
    ListMany,
    /// PickOne: one option named.
    PickOne,
    /// PickMany: several options named.
    PickMany,
}

impl QuestionType {
    /// Parses a type name case- and separator-insensitively
    /// ("Yes/No", "yes_no", "ListOne", "list one", "Yes/No with Rationale").
    pub fn parse(name: &str) -> Result<QuestionType, ScoreError> {
        let key: String = name
            .chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect();
        Ok(match key.as_str() {
            "yesno" => QuestionType::YesNo,
            "yesnowithrationale" | "yesnorationale" => QuestionType::YesNoRationale,
            "listone" => QuestionType::ListOne,
            "listmany" => QuestionType::ListMany,
            "pickone" => QuestionType::PickOne,
            "pickmany" => QuestionType::PickMany,
            _ => return Err(ScoreError::UnknownType(name.to_string())),
        })
    }

    /// The canonical display name.
    pub fn name(self) -> &'static str {
        match self {
            QuestionType::YesNo => "Yes/No",
            QuestionType::YesNoRationale => "Yes/No with Rationale",
            QuestionType::ListOne => "ListOne",
            QuestionType::ListMany => "ListMany",
            QuestionType::PickOne => "PickOne",
            QuestionType::PickMany => "PickMany",
        }
    }
}

/// A weighted value of a metric.
#[derive(Debug, Clone)]
pub struct Choice {
    /// The value as written.
    pub value: String,
    /// Its weight.
    pub weight: f64,
    /// The value normalized.
    normalized: String,
}

/// A question's metric, parsed and enriched, ready to score answers.
#[derive(Debug, Clone)]
pub enum CompiledQuestion {
    /// Yes/No: the expected polarity.
    YesNo {
        /// true for "yes".
        expected: bool,
    },
    /// Yes/No with Rationale.
    Rationale {
        /// true for "yes".
        expected: bool,
        /// Weight of the rationale part.
        weight: f64,
        /// The keywords and their enrichments.
        keywords: PhraseSet,
    },
    /// ListOne / ListMany / PickOne / PickMany.
    Weighted {
        /// Which of the four.
        qtype: QuestionType,
        /// The values with their weights.
        choices: Vec<Choice>,
        /// Each value with its enrichments.
        phrases: PhraseSet,
    },
}

/// Values already enriched: each value's phrases (the canonical tokens of
/// the value, then of each enrichment, as `PhraseSet::new` makes them),
/// so that metrics sharing values (a run's thousands of questions over
/// one vocabulary) enrich each value once.
#[derive(Debug, Default)]
pub struct EnrichCache {
    phrases: rustc_hash::FxHashMap<String, std::sync::Arc<[Vec<String>]>>,
}

/// Cap on cached values (a worker's memory stays bounded).
const ENRICH_CACHE_LIMIT: usize = 100_000;

impl EnrichCache {
    /// The phrases of `value`: computed once, then from the cache.
    pub fn phrases(&mut self, value: &str, lexicon: &Lexicon) -> std::sync::Arc<[Vec<String>]> {
        if let Some(p) = self.phrases.get(value) {
            return p.clone();
        }
        let mut texts = vec![value.to_string()];
        texts.extend(lexicon.enrich(value));
        let p: std::sync::Arc<[Vec<String>]> = texts
            .iter()
            .map(|t| crate::text::canonical_tokens(t))
            .collect();
        if self.phrases.len() >= ENRICH_CACHE_LIMIT {
            self.phrases.clear();
        }
        self.phrases.insert(value.to_string(), p.clone());
        p
    }

    fn phrase_set(&mut self, values: &[String], lexicon: &Lexicon) -> PhraseSet {
        let phrases: Vec<std::sync::Arc<[Vec<String>]>> =
            values.iter().map(|v| self.phrases(v, lexicon)).collect();
        PhraseSet::from_shared(&phrases)
    }
}

impl CompiledQuestion {
    /// Parses `metric` for the type named `qtype` and enriches its values.
    pub fn compile(
        qtype: &str,
        metric: &Value,
        lexicon: &Lexicon,
    ) -> Result<CompiledQuestion, ScoreError> {
        Self::compile_cached(qtype, metric, lexicon, &mut EnrichCache::default())
    }

    /// [`CompiledQuestion::compile`] with values enriched through `cache`
    /// (the same result).
    pub fn compile_cached(
        qtype: &str,
        metric: &Value,
        lexicon: &Lexicon,
        cache: &mut EnrichCache,
    ) -> Result<CompiledQuestion, ScoreError> {
        let t = QuestionType::parse(qtype)?;
        Ok(match t {
            QuestionType::YesNo => CompiledQuestion::YesNo {
                expected: parse_yes_no(metric)?,
            },
            QuestionType::YesNoRationale => {
                let m = parse_rationale(metric)?;
                CompiledQuestion::Rationale {
                    expected: m.expected,
                    weight: m.weight,
                    keywords: cache.phrase_set(&m.keywords, lexicon),
                }
            }
            _ => {
                let pairs = parse_weighted(metric)?;
                let values: Vec<String> = pairs.iter().map(|(v, _)| v.clone()).collect();
                CompiledQuestion::Weighted {
                    qtype: t,
                    phrases: cache.phrase_set(&values, lexicon),
                    choices: pairs
                        .into_iter()
                        .map(|(value, weight)| Choice {
                            normalized: normalize(&value),
                            value,
                            weight,
                        })
                        .collect(),
                }
            }
        })
    }

    /// The question type.
    pub fn question_type(&self) -> QuestionType {
        match self {
            CompiledQuestion::YesNo { .. } => QuestionType::YesNo,
            CompiledQuestion::Rationale { .. } => QuestionType::YesNoRationale,
            CompiledQuestion::Weighted { qtype, .. } => *qtype,
        }
    }

    /// Scores one answer, in [0, 1].
    pub fn score(&self, answer: &str, analyzer: &mut Analyzer) -> f64 {
        match self {
            CompiledQuestion::YesNo { expected } => match polarity(answer) {
                Some(p) if p == *expected => 1.0,
                _ => 0.0,
            },
            CompiledQuestion::Rationale {
                expected,
                weight,
                keywords,
            } => {
                if polarity(answer) != Some(*expected) {
                    return 0.0;
                }
                let tokens = analyzer.analyze(answer);
                let rest = tokens.get(1..).unwrap_or(&[]);
                let coverage = if keywords.value_count() == 0 {
                    if rest.len() >= RATIONALE_MIN_WORDS {
                        1.0
                    } else {
                        0.0
                    }
                } else {
                    let hits = keywords.matches(rest).iter().filter(|h| **h).count();
                    hits as f64 / keywords.value_count() as f64
                };
                (1.0 - weight) + weight * coverage
            }
            CompiledQuestion::Weighted {
                qtype,
                choices,
                phrases,
            } => {
                let matched: Vec<bool> = match qtype {
                    QuestionType::ListOne | QuestionType::ListMany => {
                        phrases.matches(&analyzer.analyze(answer))
                    }
                    _ => {
                        let parts = if *qtype == QuestionType::PickMany {
                            split_parts(answer, choices, phrases, analyzer)
                        } else {
                            vec![answer.to_string()]
                        };
                        let mut hit = vec![false; choices.len()];
                        for part in parts {
                            if let Some(i) = pick_option(&part, choices, phrases, analyzer) {
                                hit[i] = true;
                            }
                        }
                        hit
                    }
                };
                let weights = choices
                    .iter()
                    .zip(&matched)
                    .filter(|(_, m)| **m)
                    .map(|(c, _)| c.weight);
                let score = match qtype {
                    QuestionType::ListOne | QuestionType::PickOne => weights
                        .fold(None, |acc: Option<f64>, w| {
                            Some(acc.map_or(w, |a| a.min(w)))
                        })
                        .unwrap_or(0.0),
                    _ => weights.sum::<f64>(),
                };
                // A score is in [0, 1] whatever the weights (a weight above
                // 1 counts as 1); float noise from summed weights is dropped
                // (0.2 + 0.4 is 0.6 here), and -0 (an empty sum) is 0.
                (score.clamp(0.0, 1.0) * 1e12).round() / 1e12 + 0.0
            }
        }
    }

    /// The values a metric names with their weights (empty for Yes/No types).
    pub fn values(&self) -> Vec<(&str, f64)> {
        match self {
            CompiledQuestion::Weighted { choices, .. } => choices
                .iter()
                .map(|c| (c.value.as_str(), c.weight))
                .collect(),
            _ => Vec::new(),
        }
    }
}

/// The polarity of an answer: its normalized first word as a yes- or no-word.
pub fn polarity(answer: &str) -> Option<bool> {
    let n = normalize(answer);
    n.split(' ').next().and_then(word_polarity)
}

/// Splits a PickMany answer into the parts that name options: a JSON array
/// of strings, or text split on commas, semicolons and newlines, then on
/// " and " unless the segment as a whole names an option.
fn split_parts(
    answer: &str,
    choices: &[Choice],
    phrases: &PhraseSet,
    analyzer: &mut Analyzer,
) -> Vec<String> {
    let trimmed = answer.trim();
    if trimmed.starts_with('[') {
        if let Ok(Value::Array(items)) = serde_json::from_str::<Value>(trimmed) {
            return items
                .iter()
                .filter_map(|v| match v {
                    Value::String(s) => Some(s.clone()),
                    Value::Number(n) => Some(n.to_string()),
                    _ => None,
                })
                .collect();
        }
    }
    let mut parts = Vec::new();
    for seg in trimmed.split([',', ';', '\n']) {
        let seg = seg.trim();
        if seg.is_empty() {
            continue;
        }
        let norm = normalize(seg);
        let whole = choices.iter().any(|c| c.normalized == norm)
            || phrases.equals(&analyzer.analyze(seg)).iter().any(|h| *h);
        if whole {
            parts.push(seg.to_string());
            continue;
        }
        for p in split_and(seg) {
            parts.push(p);
        }
    }
    parts
}

/// Splits on the word "and" (case-insensitive, surrounded by spaces).
fn split_and(seg: &str) -> Vec<String> {
    let lower = seg.to_lowercase();
    if lower.len() != seg.len() {
        // Case mapping changed byte lengths; split on the exact form only.
        return seg
            .split(" and ")
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect();
    }
    let mut out = Vec::new();
    let mut start = 0;
    let mut from = 0;
    while let Some(pos) = lower[from..].find(" and ") {
        let at = from + pos;
        out.push(seg[start..at].trim().to_string());
        start = at + 5;
        from = start;
    }
    out.push(seg[start..].trim().to_string());
    out.retain(|s| !s.is_empty());
    out
}

/// Drops one leading article ("the parking garage" -> "parking garage").
fn strip_article(normalized: &str) -> &str {
    for a in ["the ", "a ", "an "] {
        if let Some(rest) = normalized.strip_prefix(a) {
            return rest;
        }
    }
    normalized
}

/// The option a part names: equal after normalization (a leading article
/// ignored), else equal to an enrichment, else the closest by Jaro-Winkler
/// when >= the threshold.
fn pick_option(
    part: &str,
    choices: &[Choice],
    phrases: &PhraseSet,
    analyzer: &mut Analyzer,
) -> Option<usize> {
    let full = normalize(part);
    let norm = strip_article(&full);
    if norm.is_empty() {
        return None;
    }
    if let Some(i) = choices
        .iter()
        .position(|c| strip_article(&c.normalized) == norm)
    {
        return Some(i);
    }
    let tokens: Vec<Forms> = analyzer.analyze(norm);
    if let Some(i) = phrases.equals(&tokens).iter().position(|h| *h) {
        return Some(i);
    }
    let mut best: Option<(usize, f64)> = None;
    for (i, c) in choices.iter().enumerate() {
        let s = strsim::jaro_winkler(norm, strip_article(&c.normalized));
        if best.is_none_or(|(_, b)| s > b) {
            best = Some((i, s));
        }
    }
    best.filter(|(_, s)| *s >= PICK_JARO_WINKLER_THRESHOLD)
        .map(|(i, _)| i)
}

/// Compiles and scores in one call (convenient for single answers; the
/// pipeline compiles each question once).
pub fn score_answer(
    qtype: &str,
    metric: &Value,
    answer: &str,
    lexicon: &Lexicon,
) -> Result<f64, ScoreError> {
    let q = CompiledQuestion::compile(qtype, metric, lexicon)?;
    let mut analyzer = Analyzer::new(lexicon);
    Ok(q.score(answer, &mut analyzer))
}

/// The scoring configuration, for signatures.
pub fn signature(lexicon: &Lexicon) -> String {
    format!(
        "norm:{}|lemma:morphy({})|numbers:en-words<->digits|pick-jw:{}|rationale-min-words:{}",
        crate::text::NORMALIZER_SIGNATURE,
        lexicon.signature(),
        PICK_JARO_WINKLER_THRESHOLD,
        RATIONALE_MIN_WORDS
    )
}

/// One answer to score: its text, question type and metric.
#[derive(Debug, Clone, Copy)]
pub struct ScoreItem<'a> {
    /// The answer.
    pub answer: &'a str,
    /// The question type as written.
    pub qtype: &'a str,
    /// The metric (a JSON value, possibly a string holding JSON).
    pub metric: &'a Value,
}

/// A (type, metric) pair as a grouping key: two keys are equal exactly
/// when the types are and the metrics' JSON texts would be (objects keep
/// their member order), hashed and compared without writing the text.
struct MetricKey<'a>(&'a str, &'a Value);

/// A number as its JSON text tells it apart: the kind (unsigned, negative,
/// float) and the value's bits.
fn number_key(n: &serde_json::Number) -> (u8, u64) {
    if let Some(u) = n.as_u64() {
        (0, u)
    } else if let Some(i) = n.as_i64() {
        (1, i as u64)
    } else {
        (2, n.as_f64().map_or(0, f64::to_bits))
    }
}

fn hash_value<H: std::hash::Hasher>(v: &Value, h: &mut H) {
    use std::hash::Hash;
    match v {
        Value::Null => h.write_u8(0),
        Value::Bool(b) => h.write_u8(1 + u8::from(*b)),
        Value::Number(n) => {
            h.write_u8(3);
            number_key(n).hash(h);
        }
        Value::String(s) => {
            h.write_u8(4);
            s.hash(h);
        }
        Value::Array(items) => {
            h.write_u8(5);
            h.write_usize(items.len());
            for x in items {
                hash_value(x, h);
            }
        }
        Value::Object(map) => {
            h.write_u8(6);
            h.write_usize(map.len());
            for (k, x) in map {
                k.hash(h);
                hash_value(x, h);
            }
        }
    }
}

/// Equal as JSON texts: objects compared member by member in order.
fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => number_key(x) == number_key(y),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_value(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((kp, p), (kq, q))| kp == kq && same_value(p, q))
        }
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::String(x), Value::String(y)) => x == y,
        _ => false,
    }
}

impl std::hash::Hash for MetricKey<'_> {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.0.hash(h);
        hash_value(self.1, h);
    }
}

impl PartialEq for MetricKey<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0 && same_value(self.1, other.1)
    }
}

impl Eq for MetricKey<'_> {}

/// The positions of `keys` grouped by distinct (type, metric), groups in
/// order of first appearance: each group's metric is compiled once. Two
/// metrics are the same when their JSON texts are.
pub fn metric_groups<'a>(keys: impl Iterator<Item = (&'a str, &'a Value)>) -> Vec<Vec<usize>> {
    let mut distinct: std::collections::HashMap<MetricKey<'a>, usize, rustc_hash::FxBuildHasher> =
        Default::default();
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (k, (qtype, metric)) in keys.enumerate() {
        let next = distinct.len();
        let g = *distinct.entry(MetricKey(qtype, metric)).or_insert(next);
        if g == groups.len() {
            groups.push(Vec::new());
        }
        groups[g].push(k);
    }
    groups
}

/// Scores many answers in parallel, each distinct (type, metric) compiled
/// once (as `evaluate` does): each answer's score in [0, 1], or why its
/// metric cannot be used.
pub fn score_many(items: &[ScoreItem<'_>], lexicon: &Lexicon) -> Vec<Result<f64, ScoreError>> {
    use rayon::prelude::*;
    let groups = metric_groups(items.iter().map(|i| (i.qtype, i.metric)));
    let scored: Vec<Vec<(usize, Result<f64, ScoreError>)>> = groups
        .par_iter()
        .map_init(EnrichCache::default, |cache, group| {
            let first = &items[group[0]];
            let compiled =
                CompiledQuestion::compile_cached(first.qtype, first.metric, lexicon, cache);
            group
                .par_chunks(256)
                .map_init(
                    || Analyzer::new(lexicon),
                    |analyzer, chunk| {
                        chunk
                            .iter()
                            .map(|&k| {
                                let r = match &compiled {
                                    Ok(q) => Ok(q.score(items[k].answer, analyzer)),
                                    Err(e) => Err(e.clone()),
                                };
                                (k, r)
                            })
                            .collect::<Vec<_>>()
                    },
                )
                .flatten()
                .collect()
        })
        .collect();
    let mut out: Vec<Result<f64, ScoreError>> = (0..items.len())
        .map(|_| Err(ScoreError::metric("not scored")))
        .collect();
    for (k, r) in scored.into_iter().flatten() {
        out[k] = r;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The grouping by JSON text, as it was written first.
    fn by_text<'a>(keys: &[(&'a str, &'a Value)]) -> Vec<Vec<usize>> {
        let mut distinct: std::collections::HashMap<(&str, String), usize> = Default::default();
        let mut groups: Vec<Vec<usize>> = Vec::new();
        for (k, (qtype, metric)) in keys.iter().enumerate() {
            let next = distinct.len();
            let g = *distinct.entry((qtype, metric.to_string())).or_insert(next);
            if g == groups.len() {
                groups.push(Vec::new());
            }
            groups[g].push(k);
        }
        groups
    }

    #[test]
    fn metric_groups_equal_grouping_by_json_text() {
        let values = [
            json!(null),
            json!(true),
            json!(false),
            json!(1),
            json!(1.0),
            json!(-1),
            json!(-1.0),
            json!(0.0),
            json!(-0.0),
            json!(0),
            json!(u64::MAX),
            json!(-9_007_199_254_740_993i64),
            json!(0.1),
            json!(0.1 + 0.2),
            json!(""),
            json!("a"),
            json!("1"),
            json!("null"),
            json!(["a", "b"]),
            json!(["b", "a"]),
            json!([["a"], "b"]),
            json!(["a", ["b"]]),
            json!([]),
            json!({}),
            json!({"values": ["a"], "weights": [1.0]}),
            json!({"weights": [1.0], "values": ["a"]}),
            json!({"values": ["a"], "weights": [1]}),
            json!({"values": {"a": 1}}),
            json!({"values": [{"a": 1}]}),
            json!({"a": null}),
            json!({"b": null}),
        ];
        let types = ["ListOne", "Yes/No", ""];
        let mut keys: Vec<(&str, &Value)> = Vec::new();
        let mut seed = crate::test_rng::seeded(5);
        for _ in 0..2000 {
            let t = types[(seed() % types.len() as u64) as usize];
            let v = &values[(seed() % values.len() as u64) as usize];
            keys.push((t, v));
        }
        assert_eq!(metric_groups(keys.iter().copied()), by_text(&keys));
        // Every pair of values: grouped together exactly when their texts
        // are equal.
        for a in &values {
            for b in &values {
                let pair = [("t", a), ("t", b)];
                assert_eq!(
                    metric_groups(pair.iter().copied()),
                    by_text(&pair),
                    "{a} {b}"
                );
            }
        }
    }
}
