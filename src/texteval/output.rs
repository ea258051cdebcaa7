//! The text evaluator's results: one typed record per row, its 46-column
//! TSV form (Python's spelling of floats, booleans and lists, as the
//! original framework's pandas output), and the run summary.

use super::Category;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// The results of one row. The first 46 fields are the TSV's columns, in
/// order; the rest are details written only to results.json.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[allow(missing_docs)]
pub struct TextResult {
    pub id: String,
    pub category: String,
    pub question: String,
    pub reference: String,
    pub response: String,
    pub overall_score: f64,
    pub accuracy_exact_match: f64,
    pub accuracy_rouge_1: f64,
    pub accuracy_rouge_2: f64,
    pub accuracy_bleu_score: f64,
    pub accuracy_semantic_similarity: f64,
    pub accuracy_numeric_accuracy: f64,
    pub accuracy_content_coverage: f64,
    pub composite_accuracy: f64,
    pub accuracy_feedback: String,
    pub relevance_semantic_relevance: f64,
    pub relevance_tfidf_relevance: f64,
    pub relevance_keyword_overlap: f64,
    pub relevance_intent_match: f64,
    pub relevance_refusal_score: f64,
    pub relevance_depth_score: f64,
    pub composite_relevance: f64,
    pub relevance_feedback: String,
    pub safety_has_bias_risk: bool,
    pub safety_bias_categories: Vec<String>,
    pub safety_bias_severity: f64,
    pub safety_perspective_balance: f64,
    pub safety_safety_score: f64,
    pub composite_safety: f64,
    pub safety_feedback: String,
    pub quality_length_ok: bool,
    pub quality_length_feedback: String,
    pub quality_fluency_score: f64,
    pub quality_coherence_score: f64,
    pub quality_conciseness_score: f64,
    pub quality_readability_score: f64,
    pub composite_quality: f64,
    pub quality_feedback: String,
    pub overall_feedback: String,
    pub primary_failure_mode: String,
    pub improvement_suggestions: Vec<String>,
    pub passed_accuracy: bool,
    pub passed_relevance: bool,
    pub passed_safety: bool,
    pub passed_quality: bool,
    pub is_refusal: bool,
    /// Instruction rows: step completeness (null for other categories).
    pub relevance_step_completeness: Option<f64>,
    /// Creative rows: the creativity score (null for other categories).
    pub relevance_creativity_score: Option<f64>,
    /// The category adjustment added to base relevance.
    pub relevance_adjustment: f64,
    /// Relevance before clamping to [0, 1].
    pub base_relevance: f64,
    /// The response's prep word count (depth and length use it).
    pub response_words: usize,
}

/// The TSV's columns, in order.
pub const COLUMNS: [&str; 46] = [
    "id",
    "category",
    "question",
    "reference",
    "response",
    "overall_score",
    "accuracy_exact_match",
    "accuracy_rouge_1",
    "accuracy_rouge_2",
    "accuracy_bleu_score",
    "accuracy_semantic_similarity",
    "accuracy_numeric_accuracy",
    "accuracy_content_coverage",
    "composite_accuracy",
    "accuracy_feedback",
    "relevance_semantic_relevance",
    "relevance_tfidf_relevance",
    "relevance_keyword_overlap",
    "relevance_intent_match",
    "relevance_refusal_score",
    "relevance_depth_score",
    "composite_relevance",
    "relevance_feedback",
    "safety_has_bias_risk",
    "safety_bias_categories",
    "safety_bias_severity",
    "safety_perspective_balance",
    "safety_safety_score",
    "composite_safety",
    "safety_feedback",
    "quality_length_ok",
    "quality_length_feedback",
    "quality_fluency_score",
    "quality_coherence_score",
    "quality_conciseness_score",
    "quality_readability_score",
    "composite_quality",
    "quality_feedback",
    "overall_feedback",
    "primary_failure_mode",
    "improvement_suggestions",
    "passed_accuracy",
    "passed_relevance",
    "passed_safety",
    "passed_quality",
    "is_refusal",
];

/// A float as Python's `repr` writes it ("0.5", "1.0", "0.8333").
pub fn py_float(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.into();
    }
    let s = format!("{}", x + 0.0);
    if s.contains('.') || s.contains('e') {
        s
    } else {
        format!("{s}.0")
    }
}

/// A string as Python's `repr` writes it: single quotes unless the text
/// holds a single quote and no double quote; backslashes and control
/// characters escaped.
pub fn py_str(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// A list of strings as Python's `repr` writes it (`['a', 'b']`, `[]`).
pub fn py_list(items: &[String]) -> String {
    let inner: Vec<String> = items.iter().map(|s| py_str(s)).collect();
    format!("[{}]", inner.join(", "))
}

fn py_bool(b: bool) -> String {
    if b { "True" } else { "False" }.into()
}

impl TextResult {
    /// The row's 46 TSV fields, in column order, unquoted.
    pub fn tsv_fields(&self) -> Vec<String> {
        let f = py_float;
        vec![
            self.id.clone(),
            self.category.clone(),
            self.question.clone(),
            self.reference.clone(),
            self.response.clone(),
            f(self.overall_score),
            f(self.accuracy_exact_match),
            f(self.accuracy_rouge_1),
            f(self.accuracy_rouge_2),
            f(self.accuracy_bleu_score),
            f(self.accuracy_semantic_similarity),
            f(self.accuracy_numeric_accuracy),
            f(self.accuracy_content_coverage),
            f(self.composite_accuracy),
            self.accuracy_feedback.clone(),
            f(self.relevance_semantic_relevance),
            f(self.relevance_tfidf_relevance),
            f(self.relevance_keyword_overlap),
            f(self.relevance_intent_match),
            f(self.relevance_refusal_score),
            f(self.relevance_depth_score),
            f(self.composite_relevance),
            self.relevance_feedback.clone(),
            py_bool(self.safety_has_bias_risk),
            py_list(&self.safety_bias_categories),
            f(self.safety_bias_severity),
            f(self.safety_perspective_balance),
            f(self.safety_safety_score),
            f(self.composite_safety),
            self.safety_feedback.clone(),
            py_bool(self.quality_length_ok),
            self.quality_length_feedback.clone(),
            f(self.quality_fluency_score),
            f(self.quality_coherence_score),
            f(self.quality_conciseness_score),
            f(self.quality_readability_score),
            f(self.composite_quality),
            self.quality_feedback.clone(),
            self.overall_feedback.clone(),
            self.primary_failure_mode.clone(),
            py_list(&self.improvement_suggestions),
            py_bool(self.passed_accuracy),
            py_bool(self.passed_relevance),
            py_bool(self.passed_safety),
            py_bool(self.passed_quality),
            py_bool(self.is_refusal),
        ]
    }

    /// The row's composite for a dimension of [`DIMENSIONS`] (the overall
    /// score for any other name), for summaries and charts.
    pub fn composite(&self, dim: &str) -> f64 {
        match dim {
            "accuracy" => self.composite_accuracy,
            "relevance" => self.composite_relevance,
            "safety" => self.composite_safety,
            "quality" => self.composite_quality,
            _ => self.overall_score,
        }
    }

    /// Whether the row passed a dimension of [`DIMENSIONS`] (quality for
    /// any other name).
    pub fn passed(&self, dim: &str) -> bool {
        match dim {
            "accuracy" => self.passed_accuracy,
            "relevance" => self.passed_relevance,
            "safety" => self.passed_safety,
            _ => self.passed_quality,
        }
    }
}

/// One TSV field, quoted as Python's csv module does (QUOTE_MINIMAL): in
/// double quotes, with inner quotes doubled, when it holds a tab, a quote
/// or a line break.
pub fn tsv_field(s: &str) -> String {
    if s.contains(['\t', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// The whole results.tsv: the header line and one line per row.
pub fn to_tsv(results: &[TextResult]) -> String {
    let mut out = COLUMNS.join("\t");
    out.push('\n');
    for r in results {
        let fields: Vec<String> = r.tsv_fields().iter().map(|f| tsv_field(f)).collect();
        out.push_str(&fields.join("\t"));
        out.push('\n');
    }
    out
}

/// The columns of `items.csv`.
pub const ITEM_COLUMNS: [&str; 13] = [
    "id",
    "category",
    "overall_score",
    "composite_accuracy",
    "composite_relevance",
    "composite_safety",
    "composite_quality",
    "passed_accuracy",
    "passed_relevance",
    "passed_safety",
    "passed_quality",
    "is_refusal",
    "primary_failure_mode",
];

/// `items.csv`: one row per answer with its id, category, overall score
/// and the four composites (unrounded), the four pass verdicts and the
/// refusal flag (`true`/`false`), and the primary failure mode.
pub fn items_csv(results: &[TextResult]) -> String {
    use crate::report::csv::number;
    let mut out = crate::report::csv::CsvBuffer::new();
    out.record(ITEM_COLUMNS);
    for r in results {
        out.field(&r.id);
        out.field(&r.category);
        for v in [
            r.overall_score,
            r.composite_accuracy,
            r.composite_relevance,
            r.composite_safety,
            r.composite_quality,
        ] {
            out.field(number(Some(v)));
        }
        for passed in [
            r.passed_accuracy,
            r.passed_relevance,
            r.passed_safety,
            r.passed_quality,
            r.is_refusal,
        ] {
            out.field(if passed { "true" } else { "false" });
        }
        out.field(&r.primary_failure_mode);
        out.end_record();
    }
    out.into_string()
}

/// The dimensions of the summary and charts.
pub const DIMENSIONS: [&str; 4] = ["accuracy", "relevance", "safety", "quality"];

fn group_summary(rows: &[&TextResult]) -> Value {
    let n = rows.len();
    let mean = |f: &dyn Fn(&TextResult) -> f64| {
        if n == 0 {
            Value::Null
        } else {
            json!(super::round4(
                rows.iter().map(|r| f(r)).sum::<f64>() / n as f64
            ))
        }
    };
    let mut means = serde_json::Map::new();
    means.insert("overall_score".into(), mean(&|r| r.overall_score));
    for d in DIMENSIONS {
        means.insert(format!("composite_{d}"), mean(&|r| r.composite(d)));
    }
    let mut pass = serde_json::Map::new();
    for d in DIMENSIONS {
        pass.insert(d.into(), mean(&|r| if r.passed(d) { 1.0 } else { 0.0 }));
    }
    pass.insert(
        "all".into(),
        mean(&|r| {
            if DIMENSIONS.iter().all(|d| r.passed(d)) {
                1.0
            } else {
                0.0
            }
        }),
    );
    let mut modes: BTreeMap<&str, usize> = BTreeMap::new();
    for r in rows {
        *modes.entry(r.primary_failure_mode.as_str()).or_insert(0) += 1;
    }
    json!({
        "n": n,
        "means": means,
        "pass_rates": pass,
        "refusals": rows.iter().filter(|r| r.is_refusal).count(),
        "bias_risks": rows.iter().filter(|r| r.safety_has_bias_risk).count(),
        "failure_modes": modes,
    })
}

/// summary.json's statistics: overall and per category (categories with
/// rows only, in the seed's order).
pub fn summary(results: &[TextResult]) -> Value {
    let all: Vec<&TextResult> = results.iter().collect();
    let mut per = serde_json::Map::new();
    for c in Category::ALL {
        let rows: Vec<&TextResult> = results
            .iter()
            .filter(|r| r.category == c.as_str())
            .collect();
        if !rows.is_empty() {
            per.insert(c.as_str().into(), group_summary(&rows));
        }
    }
    json!({ "overall": group_summary(&all), "categories": per })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_spellings() {
        assert_eq!(py_float(1.0), "1.0");
        assert_eq!(py_float(0.0), "0.0");
        assert_eq!(py_float(-0.0), "0.0");
        assert_eq!(py_float(0.8333), "0.8333");
        assert_eq!(py_float(0.65), "0.65");
        assert_eq!(py_list(&[]), "[]");
        assert_eq!(py_list(&["climate_change".into()]), "['climate_change']");
        assert_eq!(py_str("it's"), "\"it's\"");
        assert_eq!(py_str("say \"it's\""), "'say \"it\\'s\"'");
        assert_eq!(py_str("a\\b\nc"), "'a\\\\b\\nc'");
    }

    #[test]
    fn tsv_quoting() {
        assert_eq!(tsv_field("plain, text"), "plain, text");
        assert_eq!(tsv_field("a\tb"), "\"a\tb\"");
        assert_eq!(tsv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(tsv_field("two\nlines"), "\"two\nlines\"");
        assert_eq!(COLUMNS.len(), 46);
    }
}
