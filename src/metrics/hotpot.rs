//! HotpotQA metrics in two flavours.
//!
//! - **simple** (the generation-quality framework's six metrics): answer F1
//!   and EM, citation precision/recall/F1 over sets of passage indices with
//!   its empty-list rules, and insufficient-context detection.
//! - **official** (the HotpotQA leaderboard script `hotpot_evaluate_v1.py`):
//!   answer em/f1/prec/recall with the yes/no/noanswer rule, supporting-fact
//!   set metrics, and joint metrics.
//!
//! ```
//! use corpus_eval::metrics::{simple_scores, SimpleItem};
//! let gold = SimpleItem { answer: "1844".into(), citations: vec![1, 3] };
//! let pred = SimpleItem { answer: "1844".into(), citations: vec![1] };
//! let s = simple_scores(&pred, &gold);
//! assert_eq!((s.answer_em, s.citation_precision, s.citation_recall), (1.0, 1.0, 0.5));
//! assert_eq!(s.insufficient_context_detection, None);
//! ```

use super::squad::{normalize_answer, token_overlap, SQUAD_NORMALIZATION};
pub use crate::corpus::hotpot::{OfficialGold, SimpleItem, SupportingFact};
use serde::Serialize;
use std::collections::HashSet;

/// The normalized answer that marks an unanswerable question.
pub const INSUFFICIENT_CONTEXT: &str = "insufficient context";

/// Names of the simple format's metrics, in output order.
pub const SIMPLE_METRICS: [&str; 6] = [
    "answer_f1",
    "answer_em",
    "citation_precision",
    "citation_recall",
    "citation_f1",
    "insufficient_context_detection",
];

/// Names of the official format's metrics, in the official script's order.
pub const OFFICIAL_METRICS: [&str; 12] = [
    "em",
    "f1",
    "prec",
    "recall",
    "sp_em",
    "sp_f1",
    "sp_prec",
    "sp_recall",
    "joint_em",
    "joint_f1",
    "joint_prec",
    "joint_recall",
];

/// Signature of the simple metrics (sacrebleu style).
pub fn simple_signature() -> String {
    crate::signature::Signature::new("hotpot-simple")
        .field("norm", SQUAD_NORMALIZATION)
        .field("answer-f1", "token-multiset,both-empty=1")
        .field(
            "citations",
            "set,empty-pred=1-if-gold-empty,empty-gold=1-if-pred-empty",
        )
        .field(
            "insufficient",
            format!("\"{INSUFFICIENT_CONTEXT}\",mean-over-applicable"),
        )
        .long()
}

/// Signature of the official metrics (sacrebleu style).
pub fn official_signature() -> String {
    crate::signature::Signature::new("hotpot-official(hotpot_evaluate_v1)")
        .field("norm", SQUAD_NORMALIZATION)
        .field("answer-f1", "token-multiset,yes/no/noanswer-mismatch=0")
        .field("sp", "set(title,sent_id)")
        .field("joint", "product")
        .field("denominator", "gold-items")
        .long()
}

/// The six metrics of one simple-format item.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SimpleScores {
    /// Token F1 of the normalized answers.
    pub answer_f1: f64,
    /// Exact match of the normalized answers.
    pub answer_em: f64,
    /// Share of predicted citations that are gold.
    pub citation_precision: f64,
    /// Share of gold citations that are predicted.
    pub citation_recall: f64,
    /// Harmonic mean of the two.
    pub citation_f1: f64,
    /// 1/0 whether "insufficient context" was recognized; None when the gold
    /// answer is not "insufficient context".
    pub insufficient_context_detection: Option<f64>,
}

impl SimpleScores {
    /// The metrics by name, in [`SIMPLE_METRICS`] order.
    pub fn values(&self) -> [Option<f64>; 6] {
        [
            Some(self.answer_f1),
            Some(self.answer_em),
            Some(self.citation_precision),
            Some(self.citation_recall),
            Some(self.citation_f1),
            self.insufficient_context_detection,
        ]
    }
}

fn set_of(xs: &[i64]) -> HashSet<i64> {
    xs.iter().copied().collect()
}

/// Citation precision, recall and F1 with the framework's empty-list rules.
pub fn citation_prf(pred: &[i64], gold: &[i64]) -> (f64, f64, f64) {
    let (p, g) = (set_of(pred), set_of(gold));
    let correct = p.intersection(&g).count() as f64;
    let precision = if p.is_empty() {
        if g.is_empty() {
            1.0
        } else {
            0.0
        }
    } else {
        correct / p.len() as f64
    };
    let recall = if g.is_empty() {
        if p.is_empty() {
            1.0
        } else {
            0.0
        }
    } else {
        correct / g.len() as f64
    };
    let f1 = if precision + recall == 0.0 {
        0.0
    } else {
        2.0 * precision * recall / (precision + recall)
    };
    (precision, recall, f1)
}

/// The six metrics of one prediction against its gold record.
pub fn simple_scores(pred: &SimpleItem, gold: &SimpleItem) -> SimpleScores {
    let p = normalize_answer(&pred.answer);
    let g = normalize_answer(&gold.answer);
    let gold_insufficient = g == INSUFFICIENT_CONTEXT;
    let pred_insufficient = p == INSUFFICIENT_CONTEXT;
    let answer_em = if p == g { 1.0 } else { 0.0 };
    let answer_f1 = if gold_insufficient && pred_insufficient {
        1.0
    } else {
        let o = token_overlap(&p, &g);
        if o.predicted == 0 && o.reference == 0 {
            1.0
        } else {
            o.f1()
        }
    };
    let (citation_precision, citation_recall, citation_f1) =
        citation_prf(&pred.citations, &gold.citations);
    SimpleScores {
        answer_f1,
        answer_em,
        citation_precision,
        citation_recall,
        citation_f1,
        insufficient_context_detection: gold_insufficient.then_some(if pred_insufficient {
            1.0
        } else {
            0.0
        }),
    }
}

/// Batch averages of the simple metrics, as the framework's evaluate_batch:
/// each metric averaged over the items where it applies, 0.0 when none.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SimpleAverages {
    /// Mean answer F1.
    pub answer_f1: f64,
    /// Mean answer EM.
    pub answer_em: f64,
    /// Mean citation precision.
    pub citation_precision: f64,
    /// Mean citation recall.
    pub citation_recall: f64,
    /// Mean citation F1.
    pub citation_f1: f64,
    /// Mean detection over the items whose gold is "insufficient context".
    pub insufficient_context_detection: f64,
    /// Number of items.
    pub n: usize,
    /// Items whose gold answer is "insufficient context".
    pub insufficient_context_n: usize,
}

impl SimpleAverages {
    /// The averages by name, in [`SIMPLE_METRICS`] order.
    pub fn values(&self) -> [f64; 6] {
        [
            self.answer_f1,
            self.answer_em,
            self.citation_precision,
            self.citation_recall,
            self.citation_f1,
            self.insufficient_context_detection,
        ]
    }
}

fn mean_or_zero(sum: f64, n: usize) -> f64 {
    if n == 0 {
        0.0
    } else {
        sum / n as f64
    }
}

/// Averages per-item simple scores.
pub fn simple_averages(items: &[SimpleScores]) -> SimpleAverages {
    simple_averages_of(items.iter().map(SimpleScores::values))
}

/// Averages of simple-format value rows (in [`SIMPLE_METRICS`] order), in
/// the order given: what [`simple_averages`] computes, from any source of
/// rows (e.g. the items of merged shards).
pub fn simple_averages_of(rows: impl Iterator<Item = [Option<f64>; 6]>) -> SimpleAverages {
    let mut sums = [0.0f64; 6];
    let mut counts = [0usize; 6];
    let mut n = 0;
    for row in rows {
        n += 1;
        for (k, v) in row.iter().enumerate() {
            if let Some(v) = v {
                sums[k] += v;
                counts[k] += 1;
            }
        }
    }
    let m = |k: usize| mean_or_zero(sums[k], counts[k]);
    SimpleAverages {
        answer_f1: m(0),
        answer_em: m(1),
        citation_precision: m(2),
        citation_recall: m(3),
        citation_f1: m(4),
        insufficient_context_detection: m(5),
        n,
        insufficient_context_n: counts[5],
    }
}

/// Answer metrics of one item (official script's update_answer).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct AnswerScores {
    /// Exact match.
    pub em: f64,
    /// Token F1 (0 on a yes/no/noanswer mismatch).
    pub f1: f64,
    /// Token precision.
    pub prec: f64,
    /// Token recall.
    pub recall: f64,
}

/// Supporting-fact metrics of one item (official script's update_sp).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SpScores {
    /// 1 when the predicted set equals the gold set.
    pub sp_em: f64,
    /// Set F1.
    pub sp_f1: f64,
    /// Set precision (0 for an empty prediction).
    pub sp_prec: f64,
    /// Set recall (0 for an empty gold set).
    pub sp_recall: f64,
}

/// Everything the official script computes for one gold item; a part is
/// None when the prediction file lacks the item's answer or sp entry.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OfficialScores {
    /// Answer metrics.
    pub answer: Option<AnswerScores>,
    /// Supporting-fact metrics.
    pub sp: Option<SpScores>,
    /// Joint metrics (em, f1, prec, recall), when both parts exist.
    pub joint: Option<[f64; 4]>,
}

impl OfficialScores {
    /// The metrics in [`OFFICIAL_METRICS`] order (None where missing).
    pub fn values(&self) -> [Option<f64>; 12] {
        let a = self.answer;
        let s = self.sp;
        let j = self.joint;
        [
            a.map(|a| a.em),
            a.map(|a| a.f1),
            a.map(|a| a.prec),
            a.map(|a| a.recall),
            s.map(|s| s.sp_em),
            s.map(|s| s.sp_f1),
            s.map(|s| s.sp_prec),
            s.map(|s| s.sp_recall),
            j.map(|j| j[0]),
            j.map(|j| j[1]),
            j.map(|j| j[2]),
            j.map(|j| j[3]),
        ]
    }
}

/// Answer metrics as the official script's f1_score and exact_match_score.
pub fn official_answer(prediction: &str, gold: &str) -> AnswerScores {
    let p = normalize_answer(prediction);
    let g = normalize_answer(gold);
    let em = if p == g { 1.0 } else { 0.0 };
    let special = |s: &str| matches!(s, "yes" | "no" | "noanswer");
    if (special(&p) || special(&g)) && p != g {
        return AnswerScores {
            em,
            f1: 0.0,
            prec: 0.0,
            recall: 0.0,
        };
    }
    let o = token_overlap(&p, &g);
    AnswerScores {
        em,
        f1: o.f1(),
        prec: o.precision(),
        recall: o.recall(),
    }
}

/// Facts as a set: sorted, without repeats.
fn fact_set(facts: &[SupportingFact]) -> Vec<(&str, i64)> {
    let mut v: Vec<(&str, i64)> = facts.iter().map(|(t, i)| (t.as_str(), *i)).collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// Supporting-fact metrics as the official script's update_sp.
pub fn official_sp(prediction: &[SupportingFact], gold: &[SupportingFact]) -> SpScores {
    // Both lists as sets: sorted without repeats (a handful of facts
    // each; no hashing).
    let (p, g) = (fact_set(prediction), fact_set(gold));
    let tp = p.iter().filter(|f| g.binary_search(f).is_ok()).count();
    let fp = p.len() - tp;
    let fn_ = g.len() - tp;
    let prec = if tp + fp > 0 {
        tp as f64 / (tp + fp) as f64
    } else {
        0.0
    };
    let recall = if tp + fn_ > 0 {
        tp as f64 / (tp + fn_) as f64
    } else {
        0.0
    };
    let f1 = if prec + recall > 0.0 {
        2.0 * prec * recall / (prec + recall)
    } else {
        0.0
    };
    SpScores {
        sp_em: if fp + fn_ == 0 { 1.0 } else { 0.0 },
        sp_f1: f1,
        sp_prec: prec,
        sp_recall: recall,
    }
}

/// One item's official metrics from its (possibly missing) predictions.
pub fn official_scores(
    gold: &OfficialGold,
    answer: Option<&str>,
    sp: Option<&[SupportingFact]>,
) -> OfficialScores {
    let answer = answer.map(|a| official_answer(a, &gold.answer));
    let sp = sp.map(|s| official_sp(s, &gold.supporting_facts));
    let joint = match (answer, sp) {
        (Some(a), Some(s)) => {
            let prec = a.prec * s.sp_prec;
            let recall = a.recall * s.sp_recall;
            let f1 = if prec + recall > 0.0 {
                2.0 * prec * recall / (prec + recall)
            } else {
                0.0
            };
            Some([a.em * s.sp_em, f1, prec, recall])
        }
        _ => None,
    };
    OfficialScores { answer, sp, joint }
}

/// Averages of the official metrics: sums over the gold items divided by
/// the number of gold items (a missing prediction adds 0).
pub fn official_averages(items: &[OfficialScores]) -> [f64; 12] {
    official_averages_of(items.iter().map(OfficialScores::values))
}

/// Averages of official-format value rows (in [`OFFICIAL_METRICS`] order):
/// what [`official_averages`] computes, from any source of rows.
pub fn official_averages_of(rows: impl Iterator<Item = [Option<f64>; 12]>) -> [f64; 12] {
    let mut sums = [0.0f64; 12];
    let mut n = 0;
    for row in rows {
        n += 1;
        for (k, v) in row.iter().enumerate() {
            if let Some(v) = v {
                sums[k] += v;
            }
        }
    }
    sums.map(|s| mean_or_zero(s, n))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(answer: &str, citations: &[i64]) -> SimpleItem {
        SimpleItem {
            answer: answer.into(),
            citations: citations.to_vec(),
        }
    }

    #[test]
    fn empty_citation_rules() {
        assert_eq!(citation_prf(&[], &[]), (1.0, 1.0, 1.0));
        assert_eq!(citation_prf(&[], &[1]), (0.0, 0.0, 0.0));
        assert_eq!(citation_prf(&[2], &[]), (0.0, 0.0, 0.0));
        assert_eq!(citation_prf(&[1, 1, 2], &[1]), (0.5, 1.0, 2.0 / 3.0));
    }

    #[test]
    fn insufficient_context() {
        let s = simple_scores(
            &item("Insufficient context.", &[]),
            &item("insufficient context", &[]),
        );
        assert_eq!(s.insufficient_context_detection, Some(1.0));
        assert_eq!((s.answer_f1, s.answer_em, s.citation_f1), (1.0, 1.0, 1.0));
        let s = simple_scores(
            &item("25 percent", &[2]),
            &item("insufficient context", &[]),
        );
        assert_eq!(s.insufficient_context_detection, Some(0.0));
        let s = simple_scores(&item("", &[]), &item("the", &[]));
        assert_eq!((s.answer_f1, s.answer_em), (1.0, 1.0));
    }

    #[test]
    fn official_yes_no_rule() {
        let a = official_answer("yes", "no");
        assert_eq!((a.em, a.f1), (0.0, 0.0));
        let a = official_answer("yes it is", "yes");
        assert_eq!((a.f1, a.prec, a.recall), (0.0, 0.0, 0.0));
        let a = official_answer("Yes.", "yes");
        assert_eq!((a.em, a.f1), (1.0, 1.0));
        let a = official_answer("", "");
        assert_eq!((a.em, a.f1), (1.0, 0.0));
    }

    #[test]
    fn official_sp_sets() {
        let g = vec![("A".to_string(), 0), ("B".to_string(), 2)];
        let p = vec![
            ("A".to_string(), 0),
            ("A".to_string(), 0),
            ("C".to_string(), 1),
        ];
        let s = official_sp(&p, &g);
        assert_eq!((s.sp_em, s.sp_prec, s.sp_recall), (0.0, 0.5, 0.5));
        let s = official_sp(&[], &[]);
        assert_eq!((s.sp_em, s.sp_f1), (1.0, 0.0));
    }
}
