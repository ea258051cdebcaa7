//! The statistics of a RAG run, from the last outcome of each question in
//! its journal: answered and failed counts, citation verdicts, and the mean
//! (with a 95% bootstrap interval) of existence scores and answer scores,
//! overall and per question type.

use crate::stats::{summarize, GroupStat};
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// Bootstrap resamples per group.
pub(crate) const RESAMPLES: usize = 2000;

fn group(xs: &[f64], seed: u64, name: &str) -> Value {
    if xs.is_empty() {
        return json!({"mean": null, "n": 0, "ci_low": null, "ci_high": null});
    }
    let s: GroupStat = summarize(xs, crate::stats::group_seed(seed, name), RESAMPLES);
    json!(s)
}

/// The summary of `outcomes` (one per question); `types` maps ids to their
/// question types, when the question file has them.
pub(crate) fn summarize_run(
    outcomes: &[Value],
    types: &BTreeMap<String, String>,
    seed: u64,
) -> Value {
    let mut verdicts: BTreeMap<String, usize> = BTreeMap::new();
    let mut existence: Vec<f64> = Vec::new();
    let mut scores: Vec<f64> = Vec::new();
    let mut by_type: BTreeMap<String, (Vec<f64>, Vec<f64>)> = BTreeMap::new();
    let mut failed: Vec<String> = Vec::new();
    let mut attempts = 0u64;
    for o in outcomes {
        let id = o["id"].as_str().unwrap_or_default().to_string();
        attempts = attempts.saturating_add(o["attempts"].as_u64().unwrap_or(0));
        if !o["error"].is_null() {
            failed.push(id);
            continue;
        }
        for c in o["citations"].as_array().into_iter().flatten() {
            if let Some(v) = c["verdict"].as_str() {
                *verdicts.entry(v.to_string()).or_insert(0) += 1;
            }
        }
        let t = types.get(&id).cloned();
        if let Some(e) = o["existence_score"].as_f64() {
            existence.push(e);
            if let Some(t) = &t {
                by_type.entry(t.clone()).or_default().0.push(e);
            }
        }
        if let Some(s) = o["score"].as_f64() {
            scores.push(s);
            if let Some(t) = &t {
                by_type.entry(t.clone()).or_default().1.push(s);
            }
        }
    }
    let types_json: serde_json::Map<String, Value> = by_type
        .iter()
        .map(|(t, (e, s))| {
            (
                t.clone(),
                json!({
                    "existence": group(e, seed, &format!("existence/{t}")),
                    "score": group(s, seed, &format!("score/{t}")),
                }),
            )
        })
        .collect();
    json!({
        "questions": outcomes.len(),
        "answered": outcomes.len() - failed.len(),
        "failed": failed.len(),
        "failed_ids": failed,
        "http_attempts": attempts,
        "citations": verdicts.values().sum::<usize>(),
        "verdicts": verdicts,
        "existence": group(&existence, seed, "existence"),
        "score": group(&scores, seed, "score"),
        "by_type": types_json,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_are_counted_not_scored() {
        let outcomes = vec![
            json!({"id": "a", "error": null, "attempts": 1, "existence_score": 0.5, "score": 1.0,
                   "citations": [{"verdict": "exact"}, {"verdict": "not_found"}]}),
            json!({"id": "b", "error": "HTTP 500", "attempts": 6, "existence_score": null, "score": null, "citations": []}),
            json!({"id": "c", "error": null, "attempts": 2, "existence_score": 1.0, "score": null,
                   "citations": [{"verdict": "invalid_source"}]}),
        ];
        let types = BTreeMap::from([("a".to_string(), "Yes/No".to_string())]);
        let s = summarize_run(&outcomes, &types, 42);
        assert_eq!(s["answered"], 2);
        assert_eq!(s["failed_ids"], json!(["b"]));
        assert_eq!(s["http_attempts"], 9);
        assert_eq!(
            s["verdicts"],
            json!({"exact": 1, "invalid_source": 1, "not_found": 1})
        );
        assert_eq!(s["existence"]["mean"], 0.75);
        assert_eq!(s["score"]["n"], 1);
        assert_eq!(s["by_type"]["Yes/No"]["score"]["mean"], 1.0);
    }
}
