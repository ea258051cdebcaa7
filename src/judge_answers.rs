//! `judge-answers` as library functions: score answers against ground truths
//! with one of the semantic-evaluation design's methods, and summarize
//! against human labels and per system.
//!
//! The flow is split so the caller can estimate the judge's cost before any
//! call: [`prepare`] computes similarities, anchors and the method's own
//! scores; [`judge_plan`] lists the items the judge must see; [`finish`]
//! merges the judge's verdicts and summarizes.

use crate::corpus::judged::JudgedItem;
use crate::judge::{JudgeCounts, Verdict, VerdictStatus};
use crate::lexicon::Lexicon;
use crate::semantic::anchors::Anchors;
use crate::semantic::methods::{
    competition_ranks, keyword_score, label_metrics, threshold_score, Method, POSITIVE_ABOVE,
};
use crate::semantic::{EmbeddingCache, SemanticError};
use rayon::prelude::*;
use serde::Serialize;

/// The settings of a run.
#[derive(Debug, Clone, Serialize)]
pub struct JudgeAnswersConfig {
    /// The method.
    pub method: Method,
    /// The similarity threshold (fixed, or chosen for semantic_dynamic).
    pub threshold: f64,
    /// Require the ground truth's anchors in the answer (semantic methods).
    pub anchors: bool,
    /// hybrid: the judge re-scores items whose similarity is within this of the threshold.
    pub band: f64,
    /// hybrid: the judge re-scores every item of the N systems with the best semantic mean.
    pub judge_top: usize,
}

/// What [`prepare`] computed for every item.
#[derive(Debug, Clone)]
pub(crate) struct Prepared {
    /// Cosine of answer and ground truth (semantic methods).
    pub similarities: Option<Vec<f64>>,
    /// Anchors the answer lacks, per item (when anchors are checked).
    pub missing_anchors: Option<Vec<Vec<String>>>,
    /// The method's score before any judge verdict (None for llm_judge).
    pub base_scores: Vec<Option<f64>>,
}

/// Similarities of every item (one batched embedding of the distinct texts).
pub(crate) fn similarities(
    items: &[JudgedItem],
    cache: &EmbeddingCache,
) -> Result<Vec<f64>, SemanticError> {
    let pairs: Vec<(&str, &str)> = items
        .iter()
        .map(|i| (i.answer.as_str(), i.ground_truth.as_str()))
        .collect();
    cache.similarities(&pairs)
}

/// The anchors each answer lacks (empty when it has them all); anchors the
/// question already states are not required.
pub(crate) fn missing_anchors(items: &[JudgedItem], lexicon: &Lexicon) -> Vec<Vec<String>> {
    items
        .par_iter()
        .map(|i| {
            match Anchors::of(&i.ground_truth, lexicon)
                .excluding_context(&i.question, lexicon)
                .satisfied_by(&i.answer, lexicon)
            {
                Ok(()) => Vec::new(),
                Err(missing) => missing,
            }
        })
        .collect()
}

/// Computes similarities (semantic methods), anchors (when on) and the
/// method's scores.
pub(crate) fn prepare(
    items: &[JudgedItem],
    config: &JudgeAnswersConfig,
    cache: Option<&EmbeddingCache>,
    lexicon: &Lexicon,
) -> Result<Prepared, SemanticError> {
    let similarities = if config.method.uses_embeddings() {
        let cache = cache.ok_or_else(|| SemanticError::Inference {
            message: format!("{} needs the embedding model", config.method.as_str()),
        })?;
        Some(similarities(items, cache)?)
    } else {
        None
    };
    let missing = (config.anchors && config.method.uses_embeddings())
        .then(|| missing_anchors(items, lexicon));
    let base_scores = items
        .iter()
        .enumerate()
        .map(|(i, item)| match config.method {
            Method::Keyword => Some(keyword_score(&item.answer, &item.ground_truth)),
            Method::LlmJudge => None,
            Method::SemanticFixed | Method::SemanticDynamic | Method::Hybrid => {
                let sim = similarities.as_ref().map(|s| s[i]).unwrap_or(0.0);
                let ok = missing.as_ref().is_none_or(|m| m[i].is_empty());
                Some(threshold_score(sim, config.threshold, ok))
            }
        })
        .collect();
    Ok(Prepared {
        similarities,
        missing_anchors: missing,
        base_scores,
    })
}

/// The items the judge must score: all of them for llm_judge; for hybrid,
/// those whose similarity lies within the band of the threshold and every
/// item of the top `judge_top` systems by semantic mean score.
pub(crate) fn judge_plan(
    items: &[JudgedItem],
    prepared: &Prepared,
    config: &JudgeAnswersConfig,
) -> Vec<usize> {
    match config.method {
        Method::LlmJudge => (0..items.len()).collect(),
        Method::Hybrid => {
            let sims = prepared.similarities.as_deref().unwrap_or(&[]);
            let top: Vec<String> = system_means(items, &prepared.base_scores)
                .into_iter()
                .filter(|s| s.rank.is_some())
                .take(config.judge_top)
                .map(|s| s.system)
                .collect();
            (0..items.len())
                .filter(|&i| {
                    sims.get(i)
                        .is_some_and(|s| (s - config.threshold).abs() <= config.band + 1e-12)
                        || top.contains(&items[i].system)
                })
                .collect()
        }
        _ => Vec::new(),
    }
}

/// One item's result (a line of scores.jsonl).
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct ItemScore {
    /// The item's id.
    pub id: String,
    /// Its system.
    pub system: String,
    /// The method.
    pub method: Method,
    /// The score; null when the judge failed on an llm_judge item.
    pub score: Option<f64>,
    /// Cosine of answer and ground truth (semantic methods).
    pub similarity: Option<f64>,
    /// The threshold applied (semantic methods).
    pub threshold: Option<f64>,
    /// What the score comes from: "keyword", "semantic" or "judge".
    #[serde(deserialize_with = "score_source")]
    pub source: Word,
    /// The human label, when given.
    pub label: Option<bool>,
    /// Anchors the answer lacks (when anchors are checked).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anchors_missing: Option<Vec<String>>,
    /// semantic_dynamic with a validation draw from the input: "validation"
    /// for the items that chose the threshold, else "test".
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "score_split"
    )]
    pub split: Option<Word>,
    /// The judge's raw reply (when the judge saw the item).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge_reply: Option<String>,
    /// ok, cached or failed (when the judge saw the item).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge_status: Option<VerdictStatus>,
    /// Why the judge failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge_error: Option<String>,
}

/// One of a few fixed words (`source`, `split`). Named so that the
/// derived `Deserialize` (through the functions below) does not borrow
/// from its input: [`ItemScore`] reads from any text.
pub(crate) type Word = &'static str;

/// An item score's `source` read back (one of its three values).
fn score_source<'de, D: serde::Deserializer<'de>>(d: D) -> Result<&'static str, D::Error> {
    let s = <String as serde::Deserialize>::deserialize(d)?;
    ["keyword", "semantic", "judge"]
        .into_iter()
        .find(|k| *k == s)
        .ok_or_else(|| serde::de::Error::custom(format!("unknown score source {s:?}")))
}

/// An item score's `split` read back.
fn score_split<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<&'static str>, D::Error> {
    let s = <Option<String> as serde::Deserialize>::deserialize(d)?;
    match s.as_deref() {
        None => Ok(None),
        Some("validation") => Ok(Some("validation")),
        Some("test") => Ok(Some("test")),
        Some(other) => Err(serde::de::Error::custom(format!("unknown split {other:?}"))),
    }
}

/// One system's line of the summary.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SystemScore {
    /// The system.
    pub system: String,
    /// Mean score of its scored items; null when none could be scored
    /// (every judge verdict failed), never a silent 0.
    pub mean_score: Option<f64>,
    /// 1 = best; equal means share a rank; null without a mean.
    pub rank: Option<usize>,
    /// Items scored.
    pub n: usize,
}

/// The summary (summary.json).
#[derive(Debug, Clone, Serialize)]
pub struct JudgeAnswersSummary {
    /// The method.
    pub method: Method,
    /// The threshold (null for keyword and llm_judge).
    pub threshold: Option<f64>,
    /// n, mean score and label metrics over every item (written at the top
    /// level of summary.json).
    #[serde(flatten)]
    pub overall: Statistics,
    /// Per system, best first.
    pub systems: Vec<SystemScore>,
    /// semantic_dynamic with a validation draw from the input: the same
    /// statistics over the items that did not choose the threshold.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub held_out: Option<Statistics>,
    /// The judge's counters (zeros when it was not used).
    pub judge: JudgeCounts,
    /// Whether anchors were checked.
    pub anchors: bool,
    /// How many scores are exactly 0, 0.5 and 1.
    pub score_counts: ScoreCounts,
    /// The settings behind the numbers.
    pub signature: String,
    /// `--agreement`: the pass/fail verdicts against the labels.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agreement: Option<crate::agreement::coefficients::Agreement>,
}

/// Mean score and metrics against the labels over a set of items.
#[derive(Debug, Clone, Copy, Serialize, PartialEq)]
pub struct Statistics {
    /// Items.
    pub n: usize,
    /// Items with a score (failed judge verdicts have none).
    pub n_scored: usize,
    /// Mean score of the scored items.
    pub mean_score: Option<f64>,
    /// Against the labels (null without labels).
    pub accuracy: Option<f64>,
    /// Against the labels.
    pub precision: Option<f64>,
    /// Against the labels.
    pub recall: Option<f64>,
    /// Against the labels.
    pub f1: Option<f64>,
    /// Labelled, scored items the metrics are computed on.
    pub n_labelled: usize,
}

/// The [`Statistics`] of `chosen`.
fn statistics<'a>(chosen: impl Iterator<Item = &'a ItemScore>) -> Statistics {
    let mut n = 0;
    let mut scored: Vec<f64> = Vec::new();
    let (mut predicted, mut labels) = (Vec::new(), Vec::new());
    for s in chosen {
        n += 1;
        if let Some(score) = s.score {
            scored.push(score);
            if let Some(label) = s.label {
                predicted.push(score > POSITIVE_ABOVE);
                labels.push(label);
            }
        }
    }
    let m = (!labels.is_empty()).then(|| label_metrics(&predicted, &labels));
    Statistics {
        n,
        n_scored: scored.len(),
        mean_score: (!scored.is_empty()).then(|| crate::stats::mean(&scored)),
        accuracy: m.map(|m| m.accuracy),
        precision: m.map(|m| m.precision),
        recall: m.map(|m| m.recall),
        f1: m.map(|m| m.f1),
        n_labelled: labels.len(),
    }
}

/// Counts of the characteristic scores.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct ScoreCounts {
    /// Scores of exactly 0.
    pub zero: usize,
    /// Scores of exactly 0.5 (the keyword method's floor).
    pub half: usize,
    /// Scores of exactly 1.
    pub one: usize,
    /// Any other score.
    pub other: usize,
}

/// Means per system over the scored items, best first, with ranks; equal
/// means are listed by system name; systems with nothing scored come last,
/// without mean or rank.
pub(crate) fn system_means(items: &[JudgedItem], scores: &[Option<f64>]) -> Vec<SystemScore> {
    system_means_of(items.iter().map(|i| i.system.as_str()), scores)
}

/// [`system_means`] of items given by their systems.
pub(crate) fn system_means_of<'a>(
    systems: impl Iterator<Item = &'a str>,
    scores: &[Option<f64>],
) -> Vec<SystemScore> {
    let mut order: Vec<&str> = Vec::new();
    let mut sums: std::collections::HashMap<&str, (f64, usize)> = std::collections::HashMap::new();
    for (system, score) in systems.zip(scores) {
        let e = sums.entry(system).or_insert_with(|| {
            order.push(system);
            (0.0, 0)
        });
        if let Some(s) = score {
            e.0 += s;
            e.1 += 1;
        }
    }
    let means: Vec<Option<f64>> = order
        .iter()
        .map(|s| {
            let (sum, n) = sums[s];
            (n > 0).then(|| sum / n as f64)
        })
        .collect();
    let scored: Vec<f64> = means.iter().flatten().copied().collect();
    let ranks = competition_ranks(&scored);
    let mut next_rank = ranks.into_iter();
    let mut out: Vec<SystemScore> = order
        .into_iter()
        .zip(means)
        .map(|(system, mean_score)| SystemScore {
            n: sums[system].1,
            system: system.to_string(),
            rank: mean_score.and_then(|_| next_rank.next()),
            mean_score,
        })
        .collect();
    out.sort_by(|a, b| {
        let key = |s: &SystemScore| s.rank.unwrap_or(usize::MAX);
        key(a).cmp(&key(b)).then_with(|| a.system.cmp(&b.system))
    });
    out
}

/// Merges the judge's verdicts (`(item index, verdict)`) into the scores
/// and summarizes. A failed verdict leaves an llm_judge item unscored and a
/// hybrid item with its semantic score; both are counted as failed.
/// `validation` lists the items (indices) that chose the threshold when they
/// were drawn from `items`: they are marked, and the summary adds the
/// statistics over the other items (`held_out`).
pub(crate) fn finish(
    items: &[JudgedItem],
    prepared: &Prepared,
    verdicts: &[(usize, Verdict)],
    config: &JudgeAnswersConfig,
    validation: Option<&[usize]>,
    judge_counts: JudgeCounts,
    signature: String,
) -> (Vec<ItemScore>, JudgeAnswersSummary) {
    let semantic = config.method.uses_embeddings();
    let is_validation: Option<Vec<bool>> = validation.map(|v| {
        let mut mask = vec![false; items.len()];
        for &i in v {
            if let Some(m) = mask.get_mut(i) {
                *m = true;
            }
        }
        mask
    });
    let mut scores: Vec<ItemScore> = items
        .iter()
        .enumerate()
        .map(|(i, item)| ItemScore {
            id: item.id.clone(),
            system: item.system.clone(),
            method: config.method,
            score: prepared.base_scores[i],
            similarity: prepared.similarities.as_ref().map(|s| s[i]),
            threshold: semantic.then_some(config.threshold),
            source: match config.method {
                Method::Keyword => "keyword",
                Method::LlmJudge => "judge",
                _ => "semantic",
            },
            label: item.label,
            anchors_missing: prepared.missing_anchors.as_ref().map(|m| m[i].clone()),
            split: is_validation
                .as_ref()
                .map(|mask| if mask[i] { "validation" } else { "test" }),
            judge_reply: None,
            judge_status: None,
            judge_error: None,
        })
        .collect();
    for (i, v) in verdicts {
        let Some(s) = scores.get_mut(*i) else {
            continue;
        };
        s.judge_reply = v.reply.clone();
        s.judge_status = Some(v.status);
        s.judge_error = v.error.clone();
        if let Some(score) = v.score {
            s.score = Some(score);
            s.source = "judge";
        }
    }
    let summary = summarize_scores(&scores, config, judge_counts, signature);
    (scores, summary)
}

/// The summary of item scores (in input order): statistics over every
/// item and, when items carry a `split`, over the test items
/// (`held_out`), system means and ranks, score counts; `agreement` is left
/// to the caller.
pub(crate) fn summarize_scores(
    scores: &[ItemScore],
    config: &JudgeAnswersConfig,
    judge_counts: JudgeCounts,
    signature: String,
) -> JudgeAnswersSummary {
    let semantic = config.method.uses_embeddings();
    let final_scores: Vec<Option<f64>> = scores.iter().map(|s| s.score).collect();
    let held_out = scores
        .iter()
        .any(|s| s.split.is_some())
        .then(|| statistics(scores.iter().filter(|s| s.split != Some("validation"))));
    let mut counts = ScoreCounts::default();
    for s in final_scores.iter().flatten() {
        match *s {
            0.0 => counts.zero += 1,
            0.5 => counts.half += 1,
            1.0 => counts.one += 1,
            _ => counts.other += 1,
        }
    }
    JudgeAnswersSummary {
        method: config.method,
        threshold: semantic.then_some(config.threshold),
        overall: statistics(scores.iter()),
        systems: system_means_of(scores.iter().map(|s| s.system.as_str()), &final_scores),
        held_out,
        judge: judge_counts,
        anchors: config.anchors && semantic,
        score_counts: counts,
        signature,
        agreement: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(id: &str, system: &str, answer: &str, gt: &str, label: Option<bool>) -> JudgedItem {
        JudgedItem {
            id: id.into(),
            question: String::new(),
            answer: answer.into(),
            ground_truth: gt.into(),
            label,
            system: system.into(),
        }
    }

    fn config(method: Method) -> JudgeAnswersConfig {
        JudgeAnswersConfig {
            method,
            threshold: 0.75,
            anchors: true,
            band: 0.1,
            judge_top: 0,
        }
    }

    #[test]
    fn keyword_scores_and_label_metrics() {
        let lex = Lexicon::embedded().unwrap();
        let items = vec![
            item("a", "s1", "It is Paris", "Paris", Some(true)),
            item("b", "s1", "It is Lyon", "Paris", Some(false)),
            item("c", "s2", "No idea", "Paris", Some(true)),
        ];
        let cfg = config(Method::Keyword);
        let p = prepare(&items, &cfg, None, &lex).unwrap();
        assert_eq!(p.base_scores, vec![Some(1.0), Some(0.5), Some(0.5)]);
        assert!(judge_plan(&items, &p, &cfg).is_empty());
        let (scores, summary) = finish(
            &items,
            &p,
            &[],
            &cfg,
            None,
            JudgeCounts::default(),
            "sig".into(),
        );
        assert_eq!(scores[1].source, "keyword");
        assert_eq!(summary.score_counts.half, 2);
        // 0.5 is not above 0.5: only "a" is predicted correct.
        assert_eq!(summary.overall.accuracy, Some(2.0 / 3.0));
        assert_eq!(summary.overall.precision, Some(1.0));
        assert_eq!(summary.overall.recall, Some(0.5));
        assert_eq!(summary.systems[0].system, "s1");
        assert_eq!(summary.systems[0].mean_score, Some(0.75));
        assert_eq!(summary.systems[1].rank, Some(2));
        assert!(summary.held_out.is_none());
        assert!(scores.iter().all(|s| s.split.is_none()));
        // Items 0 and 1 chose a threshold: the held-out statistics cover item 2.
        let (scores, summary) = finish(
            &items,
            &p,
            &[],
            &cfg,
            Some(&[0, 1]),
            JudgeCounts::default(),
            "sig".into(),
        );
        assert_eq!(scores[0].split, Some("validation"));
        assert_eq!(scores[2].split, Some("test"));
        let held = summary.held_out.unwrap();
        assert_eq!(
            (held.n, held.mean_score, held.accuracy),
            (1, Some(0.5), Some(0.0))
        );
        assert_eq!(summary.overall.n, 3);
        assert_eq!(summary.threshold, None);
    }

    #[test]
    fn semantic_needs_the_model() {
        let lex = Lexicon::embedded().unwrap();
        let items = vec![item("a", "s", "x", "y", None)];
        assert!(prepare(&items, &config(Method::SemanticFixed), None, &lex).is_err());
    }

    #[test]
    fn hybrid_plan_takes_the_band_and_top_systems() {
        let items = vec![
            item("a", "s1", "", "", None),
            item("b", "s1", "", "", None),
            item("c", "s2", "", "", None),
            item("d", "s2", "", "", None),
        ];
        let p = Prepared {
            similarities: Some(vec![0.70, 0.95, 0.20, 0.86]),
            missing_anchors: None,
            base_scores: vec![Some(0.0), Some(1.0), Some(0.0), Some(1.0)],
        };
        let mut cfg = config(Method::Hybrid);
        assert_eq!(judge_plan(&items, &p, &cfg), vec![0]);
        cfg.judge_top = 1;
        // s1 and s2 tie at 0.5; ties go by system name: s1 first.
        assert_eq!(judge_plan(&items, &p, &cfg), vec![0, 1]);
        // Named the other way round, s2's items are the top system's.
        let mut renamed = items.clone();
        renamed[0].system = "s3".into();
        renamed[1].system = "s3".into();
        assert_eq!(judge_plan(&renamed, &p, &cfg), vec![0, 2, 3]);
        let failed = Verdict {
            score: None,
            status: VerdictStatus::Failed,
            reply: Some("?".into()),
            error: Some("no score".into()),
            requests: 3,
        };
        let ok = Verdict {
            score: Some(0.8),
            status: VerdictStatus::Ok,
            reply: Some("0.8".into()),
            error: None,
            requests: 1,
        };
        let (scores, summary) = finish(
            &items,
            &p,
            &[(0, failed), (1, ok)],
            &cfg,
            None,
            JudgeCounts::default(),
            String::new(),
        );
        assert_eq!(scores[0].score, Some(0.0));
        assert_eq!(scores[0].source, "semantic");
        assert_eq!(scores[0].judge_status, Some(VerdictStatus::Failed));
        assert_eq!(scores[1].score, Some(0.8));
        assert_eq!(scores[1].source, "judge");
        assert_eq!(summary.overall.n_scored, 4);
    }

    #[test]
    fn a_system_with_nothing_scored_has_no_mean_and_no_rank() {
        let items = vec![item("a", "s1", "", "", None), item("b", "s2", "", "", None)];
        let means = system_means(&items, &[None, Some(0.0)]);
        assert_eq!(means[0].system, "s2");
        assert_eq!((means[0].mean_score, means[0].rank), (Some(0.0), Some(1)));
        assert_eq!(
            (means[1].mean_score, means[1].rank, means[1].n),
            (None, None, 0)
        );
    }
}
