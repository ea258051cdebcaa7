//! An evaluation's summary from partial aggregates: what a partition of the
//! pairs (a shard, a Ray task, a Spark partition) contributes to
//! summary.json, in a form whose parts add up.
//!
//! Every statistic comes from sums and counts: the groups' scores as value
//! counts ([`ValueCounts`]), verdict and attribution counts, item counts
//! and the pairs' warnings with their positions. Parts merge associatively
//! and commutatively, and [`SummaryParts::finish`] gives the same summary
//! (means, intervals, counts, warnings) however the pairs were split: the
//! command line summarizes one part, `merge` and the Python and Ray paths
//! merge many. The driver of a distributed run holds the parts, never the
//! rows.

use super::{unlabelled_warning, AttributionCounts, EvalConfig, Evaluation, Summary, NO_SOURCE};
use crate::citations::attribution::Attribution;
use crate::citations::Verdict;
use crate::stats::{group_seed, GroupStat, ValueCounts};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A partition's contribution to an evaluation's summary (see the module
/// documentation). Serialized as JSON for the engines that carry parts
/// between processes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SummaryParts {
    /// The evaluation's signature (parts of different settings do not
    /// merge).
    pub signature: String,
    /// Pairs.
    pub pairs: usize,
    /// Answers.
    pub answers: usize,
    /// Answers with a score.
    pub scored_answers: usize,
    /// Quotes.
    pub quotes: usize,
    /// Every answer score.
    pub overall: ValueCounts,
    /// The pairs' existence scores.
    pub existence: ValueCounts,
    /// The pairs' strict existence scores.
    pub strict_existence: ValueCounts,
    /// Answer scores per answer source.
    pub by_source: BTreeMap<String, ValueCounts>,
    /// Quotes found (1) or not (0) per quote source.
    pub by_quote_source: BTreeMap<String, ValueCounts>,
    /// Answer scores per question type.
    pub by_type: BTreeMap<String, ValueCounts>,
    /// Quotes per verdict (the verdicts met).
    pub verdicts: BTreeMap<String, usize>,
    /// Quotes per attribution class (the classes met).
    pub attribution: BTreeMap<String, usize>,
    /// Quotes per attribution class per cited transcript.
    pub attribution_by_transcript: BTreeMap<String, BTreeMap<String, usize>>,
    /// Quotes whose match changes what was said.
    #[serde(default)]
    pub meaning: crate::citations::MeaningCounts,
    /// Each unscored pair's position in the question file and warning.
    pub warnings: Vec<(usize, String)>,
    /// Transcripts without speaker labels, in corpus order.
    pub unlabelled: Vec<String>,
    /// Quotes per transcript that cite a time the transcript has none to
    /// check.
    #[serde(default)]
    pub untimed: BTreeMap<String, usize>,
}

impl SummaryParts {
    /// The parts of a whole evaluation (pair positions 0..n).
    pub fn of(eval: &Evaluation) -> SummaryParts {
        SummaryParts::of_pairs(eval, &(0..eval.pairs.len()).collect::<Vec<_>>())
    }

    /// The parts of an evaluation of some of the pairs; `positions[i]` is
    /// pair i's position in the question file (what orders the warnings).
    pub fn of_pairs(eval: &Evaluation, positions: &[usize]) -> SummaryParts {
        let mut s = SummaryParts::of_rows(&eval.signature, &eval.pairs, |i| {
            positions.get(i).copied().unwrap_or(i)
        });
        s.unlabelled = eval.unlabelled.clone();
        s
    }

    /// The parts of some pairs' results under `signature`, without the
    /// unlabelled transcripts; `position(i)` is `pairs[i]`'s position in
    /// the question file.
    pub(crate) fn of_rows(
        signature: &str,
        pairs: &[super::PairResult],
        position: impl Fn(usize) -> usize,
    ) -> SummaryParts {
        let mut s = SummaryParts {
            signature: signature.to_string(),
            pairs: pairs.len(),
            ..SummaryParts::default()
        };
        for (i, p) in pairs.iter().enumerate() {
            if let Some(e) = p.existence_score {
                s.existence.add(e);
            }
            if let Some(x) = p.strict_existence() {
                s.strict_existence.add(x);
            }
            if let Some(w) = &p.warning {
                s.warnings.push((position(i), w.clone()));
            }
            for a in &p.answers {
                s.answers += 1;
                if let Some(score) = a.score {
                    s.scored_answers += 1;
                    s.overall.add(score);
                    let src = a.source.as_deref().unwrap_or(NO_SOURCE);
                    s.by_source.entry(src.to_string()).or_default().add(score);
                    if let Some(t) = p.qtype {
                        s.by_type
                            .entry(t.name().to_string())
                            .or_default()
                            .add(score);
                    }
                }
                for q in &a.quotes {
                    s.quotes += 1;
                    *s.verdicts
                        .entry(q.check.verdict.as_str().to_string())
                        .or_default() += 1;
                    // One group per transcript, however it was cited
                    // (`P1` and `P1.vtt`); a source that names none as
                    // cited.
                    let src = q
                        .transcript
                        .as_deref()
                        .or(q.source.as_deref())
                        .unwrap_or(NO_SOURCE);
                    if let Some(at) = q.attributed.attribution {
                        let name = at.as_str().to_string();
                        *s.attribution.entry(name.clone()).or_default() += 1;
                        *s.attribution_by_transcript
                            .entry(src.to_string())
                            .or_default()
                            .entry(name)
                            .or_default() += 1;
                    }
                    s.meaning.add(q.check.meaning_changes());
                    add_counts(&mut s.untimed, &super::untimed_counts([(src, q)]));
                    s.by_quote_source
                        .entry(src.to_string())
                        .or_default()
                        .add(if q.found { 1.0 } else { 0.0 });
                }
            }
        }
        s
    }

    /// Adds another partition's parts. Parts of evaluations with different
    /// signatures (settings) are an error.
    pub fn merge(&mut self, other: &SummaryParts) -> Result<(), String> {
        if self.signature.is_empty() {
            self.signature = other.signature.clone();
        } else if !other.signature.is_empty() && other.signature != self.signature {
            return Err(format!(
                "summary parts of different settings: {:?} and {:?}",
                self.signature, other.signature
            ));
        }
        self.pairs += other.pairs;
        self.answers += other.answers;
        self.scored_answers += other.scored_answers;
        self.quotes += other.quotes;
        self.overall.merge(&other.overall);
        self.existence.merge(&other.existence);
        self.strict_existence.merge(&other.strict_existence);
        for (mine, theirs) in [
            (&mut self.by_source, &other.by_source),
            (&mut self.by_quote_source, &other.by_quote_source),
            (&mut self.by_type, &other.by_type),
        ] {
            for (k, v) in theirs {
                mine.entry(k.clone()).or_default().merge(v);
            }
        }
        add_counts(&mut self.verdicts, &other.verdicts);
        add_counts(&mut self.attribution, &other.attribution);
        self.meaning.merge(&other.meaning);
        for (t, counts) in &other.attribution_by_transcript {
            add_counts(
                self.attribution_by_transcript.entry(t.clone()).or_default(),
                counts,
            );
        }
        self.warnings.extend(other.warnings.iter().cloned());
        add_counts(&mut self.untimed, &other.untimed);
        for name in &other.unlabelled {
            if !self.unlabelled.contains(name) {
                self.unlabelled.push(name.clone());
            }
        }
        Ok(())
    }

    /// The summary: each group's mean and interval from its value counts
    /// (the bootstrap seeded as `config` says: the run seed for the
    /// overall score, mixed with 1 and 2 for the existence scores and with
    /// the group's name for a group), counts, and the warnings in pair
    /// order, then the unlabelled transcripts'.
    pub fn finish(mut self, config: &EvalConfig) -> Summary {
        let (seed, resamples) = (config.seed, config.resamples);
        let grouped = |groups: &BTreeMap<String, ValueCounts>| -> BTreeMap<String, GroupStat> {
            groups
                .par_iter()
                .map(|(k, v)| (k.clone(), v.summarize(group_seed(seed, k), resamples)))
                .collect::<Vec<_>>()
                .into_iter()
                .collect()
        };
        let (
            (transcript_average_scores, verbatim_average_scores),
            (by_type, (overall, (existence, strict_existence))),
        ) = rayon::join(
            || {
                rayon::join(
                    || grouped(&self.by_source),
                    || grouped(&self.by_quote_source),
                )
            },
            || {
                rayon::join(
                    || grouped(&self.by_type),
                    || {
                        rayon::join(
                            || self.overall.summarize(seed, resamples),
                            || {
                                rayon::join(
                                    || self.existence.summarize(seed ^ 1, resamples),
                                    || self.strict_existence.summarize(seed ^ 2, resamples),
                                )
                            },
                        )
                    },
                )
            },
        );
        let attribution = AttributionCounts {
            overall: Attribution::ALL
                .iter()
                .map(|a| {
                    let name = a.as_str();
                    (
                        name.to_string(),
                        self.attribution.get(name).copied().unwrap_or(0),
                    )
                })
                .collect(),
            by_transcript: self
                .attribution_by_transcript
                .iter()
                .map(|(t, c)| {
                    let used = c
                        .iter()
                        .filter(|(_, &n)| n > 0)
                        .map(|(k, &n)| (k.clone(), n))
                        .collect();
                    (t.clone(), used)
                })
                .collect(),
        };
        let verdicts = Verdict::ALL
            .iter()
            .map(|v| {
                let name = v.as_str();
                (
                    name.to_string(),
                    self.verdicts.get(name).copied().unwrap_or(0),
                )
            })
            .collect();
        let counts = BTreeMap::from([
            ("pairs".to_string(), self.pairs),
            ("answers".to_string(), self.answers),
            ("scored_answers".to_string(), self.scored_answers),
            (
                "unscored_answers".to_string(),
                self.answers.saturating_sub(self.scored_answers),
            ),
            ("quotes".to_string(), self.quotes),
        ]);
        self.warnings.sort_by_key(|(position, _)| *position);
        Summary {
            signature: self.signature,
            transcript_average_scores,
            verbatim_average_scores,
            by_type,
            overall,
            existence,
            strict_existence,
            attribution,
            meaning_changed: self.meaning.listed(),
            verdicts,
            counts,
            warnings: self
                .warnings
                .into_iter()
                .map(|(_, w)| w)
                .chain(self.unlabelled.iter().map(|t| unlabelled_warning(t)))
                .chain(
                    self.untimed
                        .iter()
                        .map(|(t, n)| super::untimed_warning(t, *n)),
                )
                .collect(),
        }
    }
}

/// Adds `other`'s counts to `into`'s.
fn add_counts(into: &mut BTreeMap<String, usize>, other: &BTreeMap<String, usize>) {
    for (k, n) in other {
        *into.entry(k.clone()).or_default() += n;
    }
}
