//! Quality gates for CI: `--fail-under METRIC=VALUE` on the commands that
//! write an overall statistic, and the regressions `compare
//! --fail-on-regression` looks for. A gate that fails makes the command
//! exit 3 after its run folder is written ([`EXIT_GATE`]); a JUnit XML
//! report (one test case per gate) is what CI systems display.
//!
//! Metric names are the keys of each command's summary ([`EVALUATE`] and
//! the other tables);
//! an unknown name, or a bound outside the metric's range, is refused
//! before anything runs.
//!
//! ```
//! use corpus_eval::gates::{check, parse, results, EVALUATE};
//! let gates = parse("existence=0.8,score=0.5").unwrap();
//! check("evaluate", EVALUATE, &gates).unwrap();
//! let summary = serde_json::json!({"existence": {"mean": 0.75}, "overall": {"mean": 0.9}});
//! let r = results(EVALUATE, &gates, &summary);
//! assert!(!r[0].passed && r[1].passed);
//! assert!(check("evaluate", EVALUATE, &parse("bogus=1").unwrap()).is_err());
//! ```

use serde_json::Value;
use std::collections::BTreeMap;

/// Exit code: a quality gate failed (the outputs were written).
pub const EXIT_GATE: u8 = 3;

/// One metric a command's gates may name: its name, its range, and where
/// its value stands in the command's summary (a JSON pointer).
#[derive(Debug, Clone, Copy)]
pub struct Metric {
    /// The name `--fail-under` takes.
    pub name: &'static str,
    /// Least value.
    pub lo: f64,
    /// Greatest value.
    pub hi: f64,
    /// JSON pointer of the value in the summary.
    pub pointer: &'static str,
}

const fn m(name: &'static str, lo: f64, hi: f64, pointer: &'static str) -> Metric {
    Metric {
        name,
        lo,
        hi,
        pointer,
    }
}

// The metrics each gated command's summary holds; a job's configuration
// names its table (its `GATES`).

/// The metrics of `evaluate`'s summary.
pub const EVALUATE: &[Metric] = &[
    m("score", 0.0, 1.0, "/overall/mean"),
    m("existence", 0.0, 1.0, "/existence/mean"),
    m("strict_existence", 0.0, 1.0, "/strict_existence/mean"),
];
/// The metrics of `hotpot`'s summary.
pub const HOTPOT: &[Metric] = &[
    m("answer_em", 0.0, 1.0, "/answer_em"),
    m("answer_f1", 0.0, 1.0, "/answer_f1"),
    m("citation_precision", 0.0, 1.0, "/citation_precision"),
    m("citation_recall", 0.0, 1.0, "/citation_recall"),
    m("citation_f1", 0.0, 1.0, "/citation_f1"),
    m(
        "insufficient_context_detection",
        0.0,
        1.0,
        "/insufficient_context_detection",
    ),
    m("em", 0.0, 1.0, "/em"),
    m("f1", 0.0, 1.0, "/f1"),
    m("prec", 0.0, 1.0, "/prec"),
    m("recall", 0.0, 1.0, "/recall"),
    m("sp_em", 0.0, 1.0, "/sp_em"),
    m("sp_f1", 0.0, 1.0, "/sp_f1"),
    m("sp_prec", 0.0, 1.0, "/sp_prec"),
    m("sp_recall", 0.0, 1.0, "/sp_recall"),
    m("joint_em", 0.0, 1.0, "/joint_em"),
    m("joint_f1", 0.0, 1.0, "/joint_f1"),
    m("joint_prec", 0.0, 1.0, "/joint_prec"),
    m("joint_recall", 0.0, 1.0, "/joint_recall"),
];
/// The metrics of `lexical`'s summary.
pub const LEXICAL: &[Metric] = &[
    m("rouge1", 0.0, 1.0, "/rouge1"),
    m("rouge2", 0.0, 1.0, "/rouge2"),
    m("rougeL", 0.0, 1.0, "/rougeL"),
    m("rougeLsum", 0.0, 1.0, "/rougeLsum"),
    m("bleu", 0.0, 100.0, "/bleu"),
    m("chrf", 0.0, 100.0, "/chrf"),
    m("squad_em", 0.0, 100.0, "/squad_em"),
    m("squad_f1", 0.0, 100.0, "/squad_f1"),
];
/// The metrics of `text-eval`'s summary.
pub const TEXT_EVAL: &[Metric] = &[
    m("overall_score", 0.0, 1.0, "/overall/means/overall_score"),
    m(
        "composite_accuracy",
        0.0,
        1.0,
        "/overall/means/composite_accuracy",
    ),
    m(
        "composite_relevance",
        0.0,
        1.0,
        "/overall/means/composite_relevance",
    ),
    m(
        "composite_safety",
        0.0,
        1.0,
        "/overall/means/composite_safety",
    ),
    m(
        "composite_quality",
        0.0,
        1.0,
        "/overall/means/composite_quality",
    ),
    m("pass_rate", 0.0, 1.0, "/overall/pass_rates/all"),
];
/// The metrics of `grounding`'s summary.
pub const GROUNDING: &[Metric] = &[
    m("relevance", 0.0, 1.0, "/means/relevance"),
    m("completeness", 0.0, 1.0, "/means/completeness"),
];
/// The metrics of `judge-answers`'s summary.
pub const JUDGE: &[Metric] = &[
    m("mean_score", 0.0, 1.0, "/mean_score"),
    m("accuracy", 0.0, 1.0, "/accuracy"),
    m("precision", 0.0, 1.0, "/precision"),
    m("recall", 0.0, 1.0, "/recall"),
    m("f1", 0.0, 1.0, "/f1"),
];
/// The metrics of `rag run`'s summary.
pub const RAG: &[Metric] = &[
    m("existence", 0.0, 1.0, "/existence/mean"),
    m("score", 0.0, 1.0, "/score/mean"),
];
/// The metrics of `agreement`'s summary.
pub const AGREEMENT: &[Metric] = &[
    m("percent_agreement", 0.0, 1.0, "/percent_agreement/value"),
    m("cohen_kappa", -1.0, 1.0, "/cohen_kappa/value"),
    m("fleiss_kappa", -1.0, 1.0, "/fleiss_kappa/value"),
    m("krippendorff_alpha", -1.0, 1.0, "/krippendorff_alpha/value"),
    m("gwet_ac1", -1.0, 1.0, "/gwet_ac1/value"),
    m("pabak", -1.0, 1.0, "/pabak/value"),
    m("unitized_alpha", -1.0, 1.0, "/unitized_alpha/value"),
    m(
        "binary_unitized_alpha",
        -1.0,
        1.0,
        "/binary_unitized_alpha/value",
    ),
    m(
        "coding_unitized_alpha",
        -1.0,
        1.0,
        "/coding_unitized_alpha/value",
    ),
];

/// One `--fail-under` bound.
#[derive(Debug, Clone, PartialEq)]
pub struct Gate {
    /// The metric.
    pub metric: String,
    /// The least value that passes.
    pub bound: f64,
}

/// Parses `METRIC=VALUE[,METRIC=VALUE...]`.
pub fn parse(spec: &str) -> Result<Vec<Gate>, String> {
    spec.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| {
            let (metric, value) = s
                .split_once('=')
                .ok_or_else(|| format!("{}: expected METRIC=VALUE", crate::corpus::preview(s)))?;
            let bound: f64 = value.trim().parse().map_err(|_| {
                format!(
                    "{}: {} is not a number",
                    metric.trim(),
                    crate::corpus::preview(value.trim())
                )
            })?;
            Ok(Gate {
                metric: metric.trim().to_string(),
                bound,
            })
        })
        .collect()
}

/// Gates as a configuration holds them (`fail_under`: metric to bound).
pub fn from_table(table: &BTreeMap<String, f64>) -> Vec<Gate> {
    table
        .iter()
        .map(|(metric, &bound)| Gate {
            metric: metric.clone(),
            bound,
        })
        .collect()
}

/// Checks every gate's metric is one of `known` (the metrics `command`
/// writes) and its bound lies in the metric's range; the error lists the
/// valid names.
pub fn check(command: &str, known: &[Metric], gates: &[Gate]) -> Result<(), String> {
    for g in gates {
        let Some(metric) = known.iter().find(|m| m.name == g.metric) else {
            let names: Vec<&str> = known.iter().map(|m| m.name).collect();
            return Err(if names.is_empty() {
                format!("{command} has no quality gates")
            } else {
                format!(
                    "unknown metric {}; {command}'s metrics: {}",
                    crate::corpus::preview(&g.metric),
                    names.join(", ")
                )
            });
        };
        if !(g.bound.is_finite() && g.bound >= metric.lo && g.bound <= metric.hi) {
            return Err(format!(
                "{}: the bound must lie in [{}, {}], got {}",
                g.metric,
                metric.lo,
                metric.hi,
                crate::corpus::number_preview(g.bound)
            ));
        }
    }
    Ok(())
}

/// One gate's outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// The metric.
    pub metric: String,
    /// The bound.
    pub bound: f64,
    /// The run's value (None when the run has none: no item, or a metric
    /// this run did not compute); a gate without a value fails.
    pub value: Option<f64>,
    /// `value >= bound`.
    pub passed: bool,
}

/// Each gate against the run's summary (as JSON), whose metrics are
/// `known`.
pub fn results(known: &[Metric], gates: &[Gate], summary: &Value) -> Vec<Outcome> {
    gates
        .iter()
        .map(|g| {
            let value = known
                .iter()
                .find(|m| m.name == g.metric)
                .and_then(|m| summary.pointer(m.pointer))
                .and_then(Value::as_f64);
            Outcome {
                metric: g.metric.clone(),
                bound: g.bound,
                value,
                passed: value.is_some_and(|v| v >= g.bound),
            }
        })
        .collect()
}

/// The message of a failed gate (`existence 0.7312 < 0.8`).
pub fn failure_message(o: &Outcome) -> String {
    match o.value {
        Some(v) => format!(
            "{} = {} is below {}",
            o.metric,
            crate::report::fixed(v, 4),
            o.bound
        ),
        None => format!("{} has no value in this run (bound {})", o.metric, o.bound),
    }
}

/// A JUnit XML report: one test suite named after the command, one test
/// case per gate (a failed one with its `<failure>`).
pub fn junit_xml(command: &str, cases: &[(String, Option<String>)]) -> String {
    let esc = crate::text::escape_markup;
    let failures = cases.iter().filter(|(_, f)| f.is_some()).count();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    out.push_str(&format!(
        "<testsuites name=\"corpus-eval\" tests=\"{}\" failures=\"{failures}\">\n  <testsuite name=\"corpus-eval {}\" tests=\"{}\" failures=\"{failures}\" errors=\"0\">\n",
        cases.len(),
        esc(command),
        cases.len()
    ));
    for (name, failure) in cases {
        out.push_str(&format!(
            "    <testcase classname=\"corpus-eval.{}\" name=\"{}\"",
            esc(&command.replace(' ', "-")),
            esc(name)
        ));
        match failure {
            None => out.push_str("/>\n"),
            Some(message) => out.push_str(&format!(
                ">\n      <failure message=\"{}\">{}</failure>\n    </testcase>\n",
                esc(message),
                esc(message)
            )),
        }
    }
    out.push_str("  </testsuite>\n</testsuites>\n");
    out
}

/// The JUnit cases of `--fail-under` outcomes.
pub fn cases(outcomes: &[Outcome]) -> Vec<(String, Option<String>)> {
    outcomes
        .iter()
        .map(|o| {
            (
                format!("{} >= {}", o.metric, o.bound),
                (!o.passed).then(|| failure_message(o)),
            )
        })
        .collect()
}

/// Metrics where a lower value is the better one (a comparison's
/// regression is then an increase).
pub fn lower_is_better(metric: &str) -> bool {
    ["hallucination", "claim_error", "drift_penalty"]
        .iter()
        .any(|m| metric.contains(m))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_check_and_results() {
        assert_eq!(
            parse(" existence=0.8 , score=0.5").unwrap(),
            vec![
                Gate {
                    metric: "existence".into(),
                    bound: 0.8
                },
                Gate {
                    metric: "score".into(),
                    bound: 0.5
                }
            ]
        );
        assert!(parse("existence").is_err());
        assert!(parse("existence=abc").is_err());
        let e = check("evaluate", EVALUATE, &parse("existance=0.8").unwrap()).unwrap_err();
        assert!(e.contains("existence, strict_existence"), "{e}");
        assert!(check("evaluate", EVALUATE, &parse("existence=1.5").unwrap()).is_err());
        assert!(check("evaluate", EVALUATE, &parse("existence=NaN").unwrap()).is_err());
        assert!(check("agreement", AGREEMENT, &parse("cohen_kappa=-0.5").unwrap()).is_ok());
        assert!(check("lexical", LEXICAL, &parse("bleu=30").unwrap()).is_ok());
        let e = check("compare", &[], &parse("score=0.5").unwrap()).unwrap_err();
        assert_eq!(e, "compare has no quality gates");
        let summary = serde_json::json!({"existence": {"mean": 0.8}, "overall": {"mean": null}});
        let r = results(
            EVALUATE,
            &parse("existence=0.8,score=0.1").unwrap(),
            &summary,
        );
        assert!(r[0].passed, "equal to the bound passes");
        assert!(!r[1].passed && r[1].value.is_none(), "no value fails");
        let xml = junit_xml("evaluate", &cases(&r));
        assert!(xml.contains("tests=\"2\" failures=\"1\""), "{xml}");
        assert!(
            xml.contains("<failure message=\"score has no value"),
            "{xml}"
        );
    }
}
