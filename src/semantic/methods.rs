//! The answer-judging methods' pure parts: the keyword score, the fixed
//! threshold decision, threshold search over the design's grid, and
//! accuracy/precision/recall/F1 against human labels.
//!
//! ```
//! use corpus_eval::semantic::{search_threshold, Optimize};
//! let sims = [0.95, 0.80, 0.62, 0.40];
//! let labels = [true, true, false, false];
//! let s = search_threshold(&sims, &[true; 4], Some(&labels), Optimize::Accuracy);
//! assert_eq!(s.best, 0.65); // first grid point that separates them
//! ```

use serde::Serialize;

/// The methods of `judge-answers`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// 1.0 when the normalized ground truth occurs in the normalized answer, else 0.5 (the design's original method, kept for comparison).
    Keyword,
    /// 1.0 when cosine >= threshold (and anchors hold), else 0.0.
    SemanticFixed,
    /// semantic_fixed with the threshold chosen on a validation split.
    SemanticDynamic,
    /// The LLM judge's score in [0, 1].
    LlmJudge,
    /// semantic_fixed, re-scored by the judge near the threshold and for the top systems.
    Hybrid,
}

impl Method {
    /// The method's name as written in outputs.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Keyword => "keyword",
            Method::SemanticFixed => "semantic_fixed",
            Method::SemanticDynamic => "semantic_dynamic",
            Method::LlmJudge => "llm_judge",
            Method::Hybrid => "hybrid",
        }
    }

    /// True for the methods that compare embeddings.
    pub fn uses_embeddings(self) -> bool {
        matches!(
            self,
            Method::SemanticFixed | Method::SemanticDynamic | Method::Hybrid
        )
    }

    /// True for the methods that call the LLM judge.
    pub fn uses_judge(self) -> bool {
        matches!(self, Method::LlmJudge | Method::Hybrid)
    }
}

/// What threshold search maximizes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Optimize {
    /// Share of items where the decision matches the label.
    Accuracy,
    /// F1 of the positive (correct) class.
    F1,
}

/// The design's threshold grid: 0.50 to 0.90 in steps of 0.05.
pub const THRESHOLD_GRID: [f64; 9] = [0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9];
/// The default fixed threshold.
pub const DEFAULT_THRESHOLD: f64 = 0.75;
/// Without labels, an item counts as correct when its similarity is above this (the design's proxy).
pub const PROXY_SIMILARITY: f64 = 0.9;
/// A score above this counts as a "correct" decision when compared with labels.
pub const POSITIVE_ABOVE: f64 = 0.5;

/// The keyword method: 1.0 when the normalized ground truth occurs in the
/// normalized answer, else 0.5.
pub fn keyword_score(answer: &str, ground_truth: &str) -> f64 {
    let gt = crate::text::normalize(ground_truth);
    if crate::text::normalize(answer).contains(&gt) {
        1.0
    } else {
        0.5
    }
}

/// The fixed-threshold decision: 1.0 when `similarity >= threshold` and the
/// anchors hold, else 0.0.
pub fn threshold_score(similarity: f64, threshold: f64, anchors_ok: bool) -> f64 {
    if anchors_ok && similarity >= threshold {
        1.0
    } else {
        0.0
    }
}

/// Agreement of binary decisions with labels.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct LabelMetrics {
    /// Items compared.
    pub n: usize,
    /// (TP + TN) / n.
    pub accuracy: f64,
    /// TP / (TP + FP); 0 when nothing is predicted positive.
    pub precision: f64,
    /// TP / (TP + FN); 0 when no label is positive.
    pub recall: f64,
    /// Harmonic mean of precision and recall; 0 when both are 0.
    pub f1: f64,
}

/// Accuracy, precision, recall and F1 of `predicted` against `labels` (the
/// human judgments: y_true, never "all correct"). Both slices have the same
/// length; an empty pair gives all zeros.
pub fn label_metrics(predicted: &[bool], labels: &[bool]) -> LabelMetrics {
    let (mut tp, mut fp, mut tn, mut fn_) = (0usize, 0usize, 0usize, 0usize);
    for (&p, &l) in predicted.iter().zip(labels) {
        match (p, l) {
            (true, true) => tp += 1,
            (true, false) => fp += 1,
            (false, false) => tn += 1,
            (false, true) => fn_ += 1,
        }
    }
    let n = tp + fp + tn + fn_;
    let ratio = |a: usize, b: usize| if b == 0 { 0.0 } else { a as f64 / b as f64 };
    let precision = ratio(tp, tp + fp);
    let recall = ratio(tp, tp + fn_);
    // 2PR/(P+R) as one division of counts, so equal F1s are equal floats
    // (threshold search breaks ties by exact comparison).
    let f1 = ratio(2 * tp, 2 * tp + fp + fn_);
    LabelMetrics {
        n,
        accuracy: ratio(tp + tn, n),
        precision,
        recall,
        f1,
    }
}

/// One grid point of a threshold search.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ThresholdRow {
    /// The threshold.
    pub threshold: f64,
    /// Items decided correct at this threshold.
    pub positives: usize,
    /// Metrics against the labels (or the proxy labels).
    #[serde(flatten)]
    pub metrics: LabelMetrics,
}

/// The result of a threshold search.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ThresholdSearch {
    /// Every grid point, ascending.
    pub rows: Vec<ThresholdRow>,
    /// The chosen threshold.
    pub best: f64,
    /// What was maximized.
    pub optimize: Optimize,
    /// "labels" (human judgments) or "proxy" (similarity > 0.9).
    pub target: &'static str,
}

/// Searches [`THRESHOLD_GRID`] for the threshold that best separates correct
/// from incorrect answers. With `labels`, decisions are compared with them;
/// without, with the proxy `similarity > 0.9` (and anchors holding). As in
/// the design, a threshold replaces the best only when strictly better, so
/// ties go to the lowest threshold, and the default 0.75 stays when every
/// grid point scores 0.
pub fn search_threshold(
    similarities: &[f64],
    anchors_ok: &[bool],
    labels: Option<&[bool]>,
    optimize: Optimize,
) -> ThresholdSearch {
    let proxy: Vec<bool>;
    let (target, labels) = match labels {
        Some(l) => ("labels", l),
        None => {
            proxy = similarities
                .iter()
                .zip(anchors_ok)
                .map(|(&s, &a)| a && s > PROXY_SIMILARITY)
                .collect();
            ("proxy", &proxy[..])
        }
    };
    let mut rows = Vec::with_capacity(THRESHOLD_GRID.len());
    let mut best = DEFAULT_THRESHOLD;
    let mut best_value = 0.0;
    for &threshold in &THRESHOLD_GRID {
        let predicted: Vec<bool> = similarities
            .iter()
            .zip(anchors_ok)
            .map(|(&s, &a)| threshold_score(s, threshold, a) > POSITIVE_ABOVE)
            .collect();
        let metrics = label_metrics(&predicted, labels);
        let value = match optimize {
            Optimize::Accuracy => metrics.accuracy,
            Optimize::F1 => metrics.f1,
        };
        if value > best_value {
            best_value = value;
            best = threshold;
        }
        rows.push(ThresholdRow {
            threshold,
            positives: predicted.iter().filter(|p| **p).count(),
            metrics,
        });
    }
    ThresholdSearch {
        rows,
        best,
        optimize,
        target,
    }
}

/// Ranks of `means` (1 = highest; equal means share a rank, the next rank
/// skips: 1, 1, 3).
pub fn competition_ranks(means: &[f64]) -> Vec<usize> {
    means
        .iter()
        .map(|m| 1 + means.iter().filter(|o| *o > m).count())
        .collect()
}

/// Picks `k` distinct indices out of `n` with a seeded shuffle, in
/// ascending order (the validation split of `semantic_dynamic`).
pub fn sample_indices(n: usize, k: usize, seed: u64) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..n).collect();
    let mut rng = crate::stats::SplitMix64::new(seed);
    let k = k.min(n);
    for i in 0..k {
        let j = i + rng.below(n - i);
        idx.swap(i, j);
    }
    let mut out = idx[..k].to_vec();
    out.sort_unstable();
    out
}

/// The name of an optimization target as written in outputs.
pub fn optimize_name(o: Optimize) -> &'static str {
    match o {
        Optimize::Accuracy => "accuracy",
        Optimize::F1 => "f1",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keyword_is_half_or_one() {
        assert_eq!(
            keyword_score("The capital of France is Paris", "paris"),
            1.0
        );
        assert_eq!(keyword_score("The capital of France is Lyon", "Paris"), 0.5);
        assert_eq!(keyword_score("I don't know", "Paris"), 0.5);
        assert_eq!(keyword_score("Café Müller", "cafe muller"), 1.0);
    }

    #[test]
    fn label_metrics_use_the_labels() {
        // The design's F1 bug assumed every label is 1; here two are 0.
        let m = label_metrics(&[true, true, false, false], &[true, false, false, true]);
        assert_eq!(m.accuracy, 0.5);
        assert_eq!(m.precision, 0.5);
        assert_eq!(m.recall, 0.5);
        assert_eq!(m.f1, 0.5);
        let m = label_metrics(&[false, false], &[false, false]);
        assert_eq!(
            (m.accuracy, m.precision, m.recall, m.f1),
            (1.0, 0.0, 0.0, 0.0)
        );
        let m = label_metrics(&[true, true, true], &[true, false, false]);
        assert!((m.f1 - 0.5).abs() < 1e-12);
    }

    #[test]
    fn search_with_labels_prefers_the_lowest_tie() {
        let sims = [0.92, 0.81, 0.66, 0.58, 0.30];
        let labels = [true, true, true, false, false];
        let s = search_threshold(&sims, &[true; 5], Some(&labels), Optimize::Accuracy);
        assert_eq!(s.target, "labels");
        assert_eq!(s.best, 0.6);
        assert_eq!(s.rows.len(), 9);
        assert_eq!(s.rows[1].metrics.accuracy, 0.8);
        assert_eq!(s.rows[2].metrics.accuracy, 1.0);
        assert_eq!(s.rows[3].metrics.accuracy, 1.0);
    }

    #[test]
    fn search_without_labels_uses_the_proxy() {
        let sims = [0.95, 0.91, 0.88, 0.40];
        let s = search_threshold(&sims, &[true; 4], None, Optimize::Accuracy);
        assert_eq!(s.target, "proxy");
        // 0.88 is a false positive up to 0.85; 0.9 agrees everywhere.
        assert_eq!(s.best, 0.9);
        // No similarity in [0.5, 0.9]: every grid point agrees, the lowest wins.
        let s = search_threshold(&[0.95, 0.2], &[true; 2], None, Optimize::Accuracy);
        assert_eq!(s.best, 0.5);
    }

    #[test]
    fn equal_f1_is_a_tie() {
        // (tp 2, fp 10, fn 0) and (tp 1, fp 4, fn 1) both have F1 = 2/7;
        // computed as 2PR/(P+R) they differed in the last bit.
        let a = label_metrics(
            &[true; 12],
            &[
                true, true, false, false, false, false, false, false, false, false, false, false,
            ],
        );
        let b = label_metrics(
            &[
                true, false, true, true, true, true, false, false, false, false, false, false,
            ],
            &[
                true, true, false, false, false, false, false, false, false, false, false, false,
            ],
        );
        assert_eq!(a.f1, b.f1);
        assert_eq!(a.f1, 2.0 / 7.0);
    }

    #[test]
    fn all_zero_keeps_the_default() {
        let s = search_threshold(&[0.1, 0.2], &[true; 2], Some(&[true, true]), Optimize::F1);
        assert_eq!(s.best, DEFAULT_THRESHOLD);
    }

    #[test]
    fn anchors_turn_decisions_off() {
        let s = search_threshold(
            &[0.84, 0.97],
            &[false, true],
            Some(&[false, true]),
            Optimize::Accuracy,
        );
        assert_eq!(s.best, 0.5);
        assert_eq!(s.rows[0].metrics.accuracy, 1.0);
    }

    #[test]
    fn ranks_and_samples() {
        assert_eq!(competition_ranks(&[0.5, 0.9, 0.5, 0.1]), [2, 1, 2, 4]);
        let a = sample_indices(100, 10, 42);
        assert_eq!(a.len(), 10);
        assert_eq!(a, sample_indices(100, 10, 42));
        assert_ne!(a, sample_indices(100, 10, 43));
        assert!(a.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(sample_indices(3, 10, 1), [0, 1, 2]);
    }
}
