//! HotpotQA evaluation as a library function: pair predictions with gold
//! records, score every item, average.
//!
//! Pure, like [`crate::evaluate`]: parsed records in, a [`HotpotEvaluation`]
//! out. Both formats produce the same shape (metric names, one row of
//! values per item, averages), which the run folder, the charts, the HTML
//! report and `compare` consume without caring which format it was.

use crate::corpus::hotpot::{OfficialGoldRecord, OfficialPredictions, SimpleRecord};
use crate::metrics::hotpot::{
    official_scores, official_signature, simple_averages, simple_scores, simple_signature,
    OFFICIAL_METRICS, SIMPLE_METRICS,
};
use crate::report::csv::CsvBuffer;
use rayon::prelude::*;
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use serde_json::{json, Map, Value};

/// The two input formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum HotpotFormat {
    /// Arrays of `{"answer", "citations"}` (the six-metric framework).
    Simple,
    /// HotpotQA gold JSON and leaderboard predictions (hotpot_evaluate_v1).
    Official,
}

impl HotpotFormat {
    /// "simple" or "official".
    pub fn as_str(self) -> &'static str {
        match self {
            HotpotFormat::Simple => "simple",
            HotpotFormat::Official => "official",
        }
    }

    /// The metric names of this format, in output order.
    pub fn metric_names(self) -> &'static [&'static str] {
        match self {
            HotpotFormat::Simple => &SIMPLE_METRICS,
            HotpotFormat::Official => &OFFICIAL_METRICS,
        }
    }
}

/// Predictions and gold that cannot be paired.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub(crate) enum HotpotError {
    /// The two simple-format files hold different numbers of items.
    #[error("{predictions} prediction(s) but {gold} gold item(s): the files must have the same length (items are paired by position)")]
    LengthMismatch {
        /// Items in the prediction file.
        predictions: usize,
        /// Items in the gold file.
        gold: usize,
    },
}

/// One scored item.
#[derive(Debug, Clone)]
pub struct Example {
    /// The item's 0-based position in the gold file.
    pub position: usize,
    /// The item's id (the 0-based position when the files give none).
    pub id: String,
    /// The question, when given.
    pub question: Option<String>,
    /// The predicted answer (None when the prediction is missing).
    pub prediction: Option<String>,
    /// The gold answer.
    pub gold: String,
    /// One value per metric name (None: not applicable or not predicted).
    pub scores: Vec<Option<f64>>,
}

/// The evaluation of one prediction file.
#[derive(Debug, Clone)]
pub struct HotpotEvaluation {
    /// Which format.
    pub format: HotpotFormat,
    /// Every item, in gold order.
    pub examples: Vec<Example>,
    /// Averages, aligned with `format.metric_names()`.
    pub averages: Vec<f64>,
    /// Official format: gold ids without a predicted answer.
    pub missing_answer: Vec<String>,
    /// Official format: gold ids without predicted supporting facts.
    pub missing_sp: Vec<String>,
    /// Official format: predicted ids that are not in the gold file.
    pub extra_predictions: usize,
    /// Simple format: items whose gold answer is "insufficient context".
    pub insufficient_context_n: Option<usize>,
    /// The metric signature.
    pub signature: String,
    /// Problems worth a warning that do not stop the evaluation.
    pub warnings: Vec<String>,
    /// For a `--shard I/N` run: the shard and the number of items of the
    /// whole gold file (items keep their `position` in per_example.json).
    pub shard: Option<(crate::shard::Shard, usize)>,
}

/// Items per chunk when per_example.json and items.csv are formatted in
/// parallel (the chunks are joined in order: the same bytes as one pass).
const TABLE_CHUNK: usize = 256;

impl HotpotEvaluation {
    /// Only the items whose id falls in `shard`, the averages and the
    /// missing-prediction lists recomputed over them; the warnings and
    /// `extra_predictions` stay those of the whole files.
    pub fn restrict(mut self, shard: crate::shard::Shard) -> HotpotEvaluation {
        let total = self.examples.len();
        self.examples.retain(|e| shard.contains(&e.id));
        self.missing_answer.retain(|id| shard.contains(id));
        self.missing_sp.retain(|id| shard.contains(id));
        self.refresh_averages();
        self.shard = Some((shard, total));
        self
    }

    /// Items joined from shards (each with its position), in gold order:
    /// the averages, the insufficient-context count and (official format)
    /// the missing-prediction lists recomputed from them.
    pub fn rejoin(mut self, mut examples: Vec<Example>) -> HotpotEvaluation {
        examples.sort_by_key(|e| e.position);
        self.examples = examples;
        if self.format == HotpotFormat::Official {
            self.refresh_missing();
        }
        self.refresh_averages();
        self.shard = None;
        self
    }

    /// Official format: the gold ids without a predicted answer, and
    /// without predicted supporting facts (no `sp_em`), from the examples.
    fn refresh_missing(&mut self) {
        let missing = |has: &dyn Fn(&Example) -> bool| -> Vec<String> {
            self.examples
                .iter()
                .filter(|e| !has(e))
                .map(|e| e.id.clone())
                .collect()
        };
        let answer = missing(&|e| e.prediction.is_some());
        let sp = missing(&|e| e.scores.get(4).copied().flatten().is_some());
        self.missing_answer = answer;
        self.missing_sp = sp;
    }

    fn refresh_averages(&mut self) {
        let row = |e: &Example, k: usize| e.scores.get(k).copied().flatten();
        match self.format {
            HotpotFormat::Simple => {
                let a = crate::metrics::hotpot::simple_averages_of(
                    self.examples
                        .iter()
                        .map(|e| std::array::from_fn(|k| row(e, k))),
                );
                self.averages = a.values().to_vec();
                self.insufficient_context_n = Some(a.insufficient_context_n);
            }
            HotpotFormat::Official => {
                self.averages = crate::metrics::hotpot::official_averages_of(
                    self.examples
                        .iter()
                        .map(|e| std::array::from_fn(|k| row(e, k))),
                )
                .to_vec();
            }
        }
    }
    /// Number of items (the averages' denominator).
    pub fn n(&self) -> usize {
        self.examples.len()
    }

    /// The averaged metrics by name (null when there are no items), plus
    /// `n`: what `--json` prints.
    pub fn averages_json(&self) -> Map<String, Value> {
        let mut m = Map::new();
        // Over zero items there is no average: null, with n 0.
        let n = self.n();
        for (name, v) in self.format.metric_names().iter().zip(&self.averages) {
            m.insert((*name).to_string(), json!((n > 0).then_some(*v + 0.0)));
        }
        m.insert("n".into(), json!(self.n()));
        m
    }

    /// metrics.json: the averages plus format, system, counts and signature.
    pub fn metrics_json(&self, system: &str) -> Value {
        let mut m = Map::new();
        m.insert("system".into(), json!(system));
        m.insert("format".into(), json!(self.format));
        m.extend(self.averages_json());
        if let Some(k) = self.insufficient_context_n {
            m.insert("insufficient_context_n".into(), json!(k));
        }
        if self.format == HotpotFormat::Official {
            m.insert("missing_answer".into(), json!(self.missing_answer));
            m.insert("missing_sp".into(), json!(self.missing_sp));
            m.insert("extra_predictions".into(), json!(self.extra_predictions));
        }
        if !self.warnings.is_empty() {
            m.insert("warnings".into(), json!(self.warnings));
        }
        if let Some((shard, total)) = self.shard {
            m.insert("shard".into(), json!(shard));
            m.insert("items_total".into(), json!(total));
        }
        m.insert("signature".into(), json!(self.signature));
        Value::Object(m)
    }

    /// per_example.json: a JSON array with one compact object per line
    /// (id, question when given, prediction, gold, every metric).
    pub fn per_example_json(&self) -> Vec<u8> {
        let names = self.format.metric_names();
        let position = self.shard.is_some();
        let parts: Vec<Vec<u8>> = self
            .examples
            .par_chunks(TABLE_CHUNK)
            .map(|chunk| {
                let mut out = Vec::with_capacity(chunk.len() * 400);
                for (i, e) in chunk.iter().enumerate() {
                    if i > 0 {
                        out.extend_from_slice(b",\n");
                    }
                    // Serializing a plain struct into a Vec cannot fail.
                    let row = ExampleRow {
                        example: e,
                        names,
                        position,
                    };
                    let _ = serde_json::to_writer(&mut out, &row);
                }
                out
            })
            .collect();
        let mut out = Vec::with_capacity(parts.iter().map(|p| p.len() + 2).sum::<usize>() + 6);
        out.extend_from_slice(b"[\n");
        for (i, part) in parts.iter().enumerate() {
            if i > 0 {
                out.extend_from_slice(b",\n");
            }
            out.extend_from_slice(part);
        }
        out.extend_from_slice(b"\n]\n");
        out
    }

    /// items.csv: header `id,question,prediction,gold,<metrics>`, one
    /// row per item; a metric that does not apply is an empty field.
    pub fn per_example_csv(&self) -> String {
        use std::fmt::Write;
        let names = self.format.metric_names();
        let mut header = CsvBuffer::new();
        header.record(
            ["id", "question", "prediction", "gold"]
                .into_iter()
                .chain(names.iter().copied()),
        );
        let parts: Vec<String> = self
            .examples
            .par_chunks(TABLE_CHUNK)
            .map(|chunk| {
                let mut out = CsvBuffer::new();
                let mut number = String::new();
                for e in chunk {
                    out.field(&e.id);
                    out.field(e.question.as_deref().unwrap_or(""));
                    out.field(e.prediction.as_deref().unwrap_or(""));
                    out.field(&e.gold);
                    for v in &e.scores {
                        number.clear();
                        if let Some(x) = v {
                            let _ = write!(number, "{x}");
                        }
                        out.field(&number);
                    }
                    out.end_record();
                }
                out.into_string()
            })
            .collect();
        let mut out = header.into_string();
        out.reserve(parts.iter().map(String::len).sum());
        for part in &parts {
            out.push_str(part);
        }
        out
    }

    /// The per-item values of one metric (None as 0, as in the averages of
    /// the official format); for charts.
    pub fn column(&self, metric: &str) -> Vec<f64> {
        let Some(k) = self.format.metric_names().iter().position(|m| *m == metric) else {
            return Vec::new();
        };
        self.examples
            .iter()
            .map(|e| e.scores[k].unwrap_or(0.0))
            .collect()
    }

    /// The average of one metric by name.
    pub fn average(&self, metric: &str) -> Option<f64> {
        let k = self
            .format
            .metric_names()
            .iter()
            .position(|m| *m == metric)?;
        self.averages.get(k).copied()
    }
}

/// Scores simple-format predictions against gold records, paired by
/// position.
pub(crate) fn evaluate_simple(
    predictions: &[SimpleRecord],
    gold: &[SimpleRecord],
) -> Result<HotpotEvaluation, HotpotError> {
    if predictions.len() != gold.len() {
        return Err(HotpotError::LengthMismatch {
            predictions: predictions.len(),
            gold: gold.len(),
        });
    }
    // Items are paired by position, as the framework does; ids that
    // disagree are reported, not fatal (e.g. 1 and "1").
    let mismatched: Vec<String> = predictions
        .iter()
        .zip(gold)
        .enumerate()
        .filter_map(|(index, (p, g))| match (&p.id, &g.id) {
            (Some(pi), Some(gi)) if pi != gi => Some(format!(
                "item {index}: prediction id {:?}, gold id {:?}",
                crate::corpus::Preview(pi),
                crate::corpus::Preview(gi)
            )),
            _ => None,
        })
        .collect();
    let mut warnings = Vec::new();
    if let Some(first) = mismatched.first() {
        warnings.push(format!(
            "{} item(s) have different ids in the two files (paired by position anyway); first: {first}",
            mismatched.len()
        ));
    }
    crate::progress::start("scoring items", gold.len() as u64);
    let scores: Vec<_> = predictions
        .par_iter()
        .zip(gold.par_iter())
        .map(|(p, g)| {
            crate::progress::advance(1);
            simple_scores(&p.item, &g.item)
        })
        .collect();
    crate::progress::finish();
    let averages = simple_averages(&scores);
    let examples = predictions
        .iter()
        .zip(gold)
        .zip(&scores)
        .enumerate()
        .map(|(index, ((p, g), s))| Example {
            position: index,
            id: g
                .id
                .clone()
                .or_else(|| p.id.clone())
                .unwrap_or_else(|| index.to_string()),
            question: g.question.clone().or_else(|| p.question.clone()),
            prediction: Some(p.item.answer.clone()),
            gold: g.item.answer.clone(),
            scores: s.values().to_vec(),
        })
        .collect();
    Ok(HotpotEvaluation {
        format: HotpotFormat::Simple,
        examples,
        averages: averages.values().to_vec(),
        missing_answer: Vec::new(),
        missing_sp: Vec::new(),
        extra_predictions: 0,
        insufficient_context_n: Some(averages.insufficient_context_n),
        signature: simple_signature(),
        warnings,
        shard: None,
    })
}

/// Scores official-format predictions against the HotpotQA gold records,
/// with the official script's semantics (every gold item counts).
pub(crate) fn evaluate_official(
    predictions: &OfficialPredictions,
    gold: &[OfficialGoldRecord],
) -> HotpotEvaluation {
    crate::progress::start("scoring items", gold.len() as u64);
    // Items are scored and made into examples in parallel, while the
    // predictions for ids outside the gold file are counted.
    let (examples, extra_predictions): (Vec<Example>, usize) = rayon::join(
        || {
            gold.par_iter()
                .enumerate()
                .map(|(position, g)| {
                    crate::progress::advance(1);
                    let id = &g.gold.id;
                    let answer = predictions.answer.get(id);
                    let scores = official_scores(
                        &g.gold,
                        answer.map(String::as_str),
                        predictions.sp.get(id).map(Vec::as_slice),
                    );
                    Example {
                        position,
                        id: id.clone(),
                        question: g.question.clone(),
                        prediction: answer.cloned(),
                        gold: g.gold.answer.clone(),
                        scores: scores.values().to_vec(),
                    }
                })
                .collect()
        },
        || {
            let gold_ids: std::collections::HashSet<&str> =
                gold.iter().map(|g| g.gold.id.as_str()).collect();
            predictions
                .answer
                .keys()
                .chain(
                    predictions
                        .sp
                        .keys()
                        .filter(|k| !predictions.answer.contains_key(*k)),
                )
                .filter(|k| !gold_ids.contains(k.as_str()))
                .count()
        },
    );
    crate::progress::finish();
    let mut eval = HotpotEvaluation {
        format: HotpotFormat::Official,
        examples,
        averages: Vec::new(),
        missing_answer: Vec::new(),
        missing_sp: Vec::new(),
        extra_predictions,
        insufficient_context_n: None,
        signature: official_signature(),
        warnings: Vec::new(),
        shard: None,
    };
    // The lists and averages as a shard join computes them.
    eval.refresh_missing();
    eval.refresh_averages();
    eval
}

/// One line of per_example.json.
struct ExampleRow<'a> {
    example: &'a Example,
    names: &'static [&'static str],
    /// Write the item's position (shard runs).
    position: bool,
}

impl Serialize for ExampleRow<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let e = self.example;
        let mut m = serializer.serialize_map(None)?;
        if self.position {
            m.serialize_entry("position", &e.position)?;
        }
        m.serialize_entry("id", &e.id)?;
        if let Some(q) = &e.question {
            m.serialize_entry("question", q)?;
        }
        m.serialize_entry("prediction", &e.prediction)?;
        m.serialize_entry("gold", &e.gold)?;
        for (name, v) in self.names.iter().zip(&e.scores) {
            m.serialize_entry(name, v)?;
        }
        m.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::hotpot::SimpleItem;

    fn record(i: usize, answer: String, citations: Vec<i64>) -> SimpleRecord {
        SimpleRecord {
            id: Some(format!("q{i}")),
            question: i
                .is_multiple_of(3)
                .then(|| format!("Who, \"exactly\", is {i}?")),
            item: SimpleItem { answer, citations },
        }
    }

    /// Tables formatted in parallel chunks equal one pass over the items
    /// (more items than several chunks, quotes and commas in fields).
    #[test]
    fn chunked_tables_equal_one_pass() {
        let n = TABLE_CHUNK * 3 + 17;
        let gold: Vec<_> = (0..n)
            .map(|i| record(i, format!("answer {i}, \"x\""), vec![1, (i % 4) as i64]))
            .collect();
        let predictions: Vec<_> = (0..n)
            .map(|i| record(i, format!("answer {}", i % 7), vec![(i % 3) as i64]))
            .collect();
        let eval = evaluate_simple(&predictions, &gold).unwrap();
        let names = eval.format.metric_names();

        let mut json = b"[\n".to_vec();
        let mut csv = CsvBuffer::new();
        csv.record(
            ["id", "question", "prediction", "gold"]
                .into_iter()
                .chain(names.iter().copied()),
        );
        for (i, e) in eval.examples.iter().enumerate() {
            if i > 0 {
                json.extend_from_slice(b",\n");
            }
            let row = ExampleRow {
                example: e,
                names,
                position: false,
            };
            json.extend_from_slice(&serde_json::to_vec(&row).unwrap());
            let mut fields = vec![
                e.id.clone(),
                e.question.clone().unwrap_or_default(),
                e.prediction.clone().unwrap_or_default(),
                e.gold.clone(),
            ];
            fields.extend(
                e.scores
                    .iter()
                    .map(|v| v.map(|x| x.to_string()).unwrap_or_default()),
            );
            csv.record(fields);
        }
        json.extend_from_slice(b"\n]\n");
        assert_eq!(eval.examples.len(), n);
        assert_eq!(
            String::from_utf8(eval.per_example_json()).unwrap(),
            String::from_utf8(json).unwrap()
        );
        assert_eq!(eval.per_example_csv(), csv.into_string());
        let rows: Vec<Value> = serde_json::from_slice(&eval.per_example_json()).unwrap();
        assert_eq!(rows.len(), n);
        assert_eq!(rows[n - 1]["id"], format!("q{}", n - 1));
    }
}
