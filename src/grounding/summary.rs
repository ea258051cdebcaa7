//! A grounding run's summary: the means of its metrics, the rows without
//! anchors or with drift, the anchors per kind, the signature.

use super::{signature, GroundingResult};
use crate::texteval::round4;
use serde::Serialize;
use std::collections::BTreeMap;

/// Means of the grounding metrics over the rows (4 decimals).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Means {
    /// Mean relevance.
    pub relevance: f64,
    /// Mean completeness.
    pub completeness: f64,
    /// Mean hallucination.
    pub hallucination: f64,
    /// Mean claim error.
    pub claim_error: f64,
    /// Mean drift penalty.
    pub drift_penalty: f64,
}

/// Anchors of one kind and how many the context supports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct AnchorCount {
    /// Anchors found in the responses.
    pub anchors: usize,
    /// Of those, supported by the context.
    pub supported: usize,
}

/// `summary.json` of a grounding run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    /// Always `"grounding"`.
    pub command: &'static str,
    /// Rows scored.
    pub n: usize,
    /// Means of each metric.
    pub means: Means,
    /// Rows whose response has no anchor.
    pub rows_without_anchors: usize,
    /// Rows with a drift penalty.
    pub rows_with_drift: usize,
    /// Anchors per kind.
    pub anchors: BTreeMap<String, AnchorCount>,
    /// The metric signature.
    pub signature: String,
}

/// `summary.json`: means, counts of rows without anchors or with drift,
/// anchors per kind, and the signature.
pub fn summary(results: &[GroundingResult]) -> Summary {
    let n = results.len().max(1) as f64;
    let mean = |f: &dyn Fn(&GroundingResult) -> f64| round4(results.iter().map(f).sum::<f64>() / n);
    let mut anchors: BTreeMap<String, AnchorCount> = BTreeMap::new();
    for a in results.iter().flat_map(|r| &r.anchors) {
        let e = anchors.entry(a.kind.clone()).or_insert(AnchorCount {
            anchors: 0,
            supported: 0,
        });
        e.anchors += 1;
        e.supported += usize::from(a.supported);
    }
    Summary {
        command: "grounding",
        n: results.len(),
        means: Means {
            relevance: mean(&|r| r.relevance),
            completeness: mean(&|r| r.completeness),
            hallucination: mean(&|r| r.hallucination),
            claim_error: mean(&|r| r.claim_error),
            drift_penalty: mean(&|r| r.drift_penalty),
        },
        rows_without_anchors: results.iter().filter(|r| r.anchors.is_empty()).count(),
        rows_with_drift: results.iter().filter(|r| r.drift_penalty > 0.0).count(),
        anchors,
        signature: signature(),
    }
}
