//! What commands print on a terminal: each job's summary as text tables
//! (the command line prints these; the JSON outputs are the jobs' own).

use super::table::{grid_table, summary_table};
use serde_json::Value;

/// `evaluate`'s terminal summary: the groups with their intervals, the
/// quote verdicts and the unscored pairs.
pub(crate) fn evaluate_summary(
    summary: &crate::evaluate::Summary,
    level: crate::citations::MatchLevel,
) -> String {
    let mut rows: Vec<(&str, &str, crate::stats::GroupStat)> =
        vec![("overall", "all answers", summary.overall)];
    rows.extend(
        summary
            .by_type
            .iter()
            .map(|(k, s)| ("type", k.as_str(), *s)),
    );
    rows.extend(
        summary
            .transcript_average_scores
            .iter()
            .map(|(k, s)| ("answers by source", k.as_str(), *s)),
    );
    rows.extend(
        summary
            .verbatim_average_scores
            .iter()
            .map(|(k, s)| ("quotes found by source", k.as_str(), *s)),
    );
    rows.push(("existence", "pairs with quotes", summary.existence));
    rows.push((
        "strict existence",
        "found, attribution ok",
        summary.strict_existence,
    ));
    let mut out = summary_table(&rows);
    let verdicts: Vec<String> = summary
        .verdicts
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    out.push_str(&format!(
        "\nquotes: {} (match: {})",
        verdicts.join(" "),
        level.as_str()
    ));
    let classes: Vec<String> = crate::citations::attribution::Attribution::ALL
        .iter()
        .map(|a| {
            let n = summary.attribution.overall.get(a.as_str()).copied();
            format!("{}={}", a.as_str(), n.unwrap_or(0))
        })
        .collect();
    out.push_str(&format!("\nattribution: {}", classes.join(" ")));
    if !summary.warnings.is_empty() {
        out.push_str(&format!(
            "\n{} warning(s) (unscored pairs, transcripts without speaker labels): see above",
            summary.warnings.len()
        ));
    }
    out
}

/// `hotpot`'s terminal summary: the averaged metrics, the system and the
/// signature.
pub(crate) fn hotpot_summary(eval: &crate::hotpot::HotpotEvaluation, system: &str) -> String {
    let rows: Vec<Vec<String>> = eval
        .format
        .metric_names()
        .iter()
        .zip(&eval.averages)
        .map(|(name, v)| {
            let shown = if eval.n() == 0 {
                "n/a".to_string()
            } else {
                format!("{:.4}", v + 0.0)
            };
            vec![(*name).to_string(), shown]
        })
        .chain(std::iter::once(vec!["n".to_string(), eval.n().to_string()]))
        .collect();
    format!(
        "{}\n{system} ({} format)\nsignature: {}",
        grid_table(&["metric", "value"], &rows),
        eval.format.as_str(),
        eval.signature
    )
}

/// `text-eval`'s terminal table: one row per category and one for all.
pub(crate) fn text_eval_table(summary: &Value) -> String {
    let mut rows = Vec::new();
    let mut add = |name: &str, g: &Value| {
        let m = |k: &str| {
            g["means"][k]
                .as_f64()
                .map_or("-".into(), |v| format!("{v:.4}"))
        };
        let p = |k: &str| {
            g["pass_rates"][k]
                .as_f64()
                .map_or("-".into(), |v| format!("{:.0}%", v * 100.0))
        };
        rows.push(vec![
            name.to_string(),
            g["n"].to_string(),
            m("overall_score"),
            m("composite_accuracy"),
            m("composite_relevance"),
            m("composite_safety"),
            m("composite_quality"),
            p("all"),
        ]);
    };
    if let Some(cats) = summary["categories"].as_object() {
        for (name, g) in cats {
            add(name, g);
        }
    }
    add("All", &summary["overall"]);
    let first = if summary["embeddings"] == "fallback-tfidf" {
        "category [TF-IDF fallback, no model]"
    } else {
        "category"
    };
    grid_table(
        &[
            first,
            "n",
            "overall",
            "accuracy",
            "relevance",
            "safety",
            "quality",
            "passed all",
        ],
        &rows,
    )
}

/// `threshold`'s grid, the best row marked.
#[cfg(feature = "semantic")]
fn threshold_table(s: &crate::semantic::methods::ThresholdSearch) -> String {
    let rows: Vec<Vec<String>> = s
        .rows
        .iter()
        .map(|r| {
            let mark = if r.threshold == s.best { " *" } else { "" };
            let m = &r.metrics;
            vec![
                format!("{:.2}{mark}", r.threshold),
                r.positives.to_string(),
                format!("{:.4}", m.accuracy),
                format!("{:.4}", m.precision),
                format!("{:.4}", m.recall),
                format!("{:.4}", m.f1),
            ]
        })
        .collect();
    let header = [
        "threshold",
        "correct",
        "accuracy",
        "precision",
        "recall",
        "f1",
    ];
    grid_table(&header, &rows)
}

/// `judge-answers`' terminal summary: systems ranked, then the method's
/// figures and the signature.
#[cfg(all(feature = "net", feature = "semantic"))]
pub(crate) fn judge_summary(s: &crate::judge_answers::JudgeAnswersSummary) -> String {
    let rows: Vec<Vec<String>> = s
        .systems
        .iter()
        .map(|x| {
            vec![
                x.rank.map_or("-".into(), |r| r.to_string()),
                x.system.clone(),
                x.n.to_string(),
                x.mean_score
                    .map_or("n/a (nothing scored)".into(), |m| format!("{m:.4}")),
            ]
        })
        .collect();
    let mut out = grid_table(&["rank", "system", "n", "mean score"], &rows);
    let f = |v: Option<f64>| v.map_or_else(|| "n/a (no labels)".into(), |x| format!("{x:.4}"));
    let or_na = |v: Option<f64>, fmt: fn(f64) -> String| v.map_or_else(|| "n/a".into(), fmt);
    let c = &s.score_counts;
    let mut lines = vec![
        vec!["method".to_string(), s.method.as_str().to_string()],
        vec![
            "threshold".into(),
            or_na(s.threshold, |t| format!("{t:.2}")),
        ],
        vec![
            "anchors".into(),
            if s.anchors { "on" } else { "off" }.into(),
        ],
        vec![
            "items".into(),
            format!("{} ({} scored)", s.overall.n, s.overall.n_scored),
        ],
        vec![
            "mean score".into(),
            or_na(s.overall.mean_score, |m| format!("{m:.4}")),
        ],
        vec![
            "scores 0 / 0.5 / 1 / other".into(),
            format!("{} / {} / {} / {}", c.zero, c.half, c.one, c.other),
        ],
        vec!["accuracy".into(), f(s.overall.accuracy)],
        vec!["precision".into(), f(s.overall.precision)],
        vec!["recall".into(), f(s.overall.recall)],
        vec!["f1".into(), f(s.overall.f1)],
    ];
    if let Some(h) = &s.held_out {
        lines.push(vec![
            "held out (not used to choose the threshold)".into(),
            format!(
                "n {}, mean {}, accuracy {}, f1 {}",
                h.n,
                or_na(h.mean_score, |m| format!("{m:.4}")),
                f(h.accuracy),
                f(h.f1)
            ),
        ]);
    }
    if s.method.uses_judge() {
        let j = &s.judge;
        lines.push(vec![
            "judge calls / cached / failed".into(),
            format!("{} / {} / {}", j.calls, j.cached, j.failed),
        ]);
    }
    out.push('\n');
    out.push_str(&grid_table(&["", "value"], &lines));
    out.push_str(&format!("\nsignature: {}", s.signature));
    if let Some(a) = &s.agreement {
        out.push_str("\n\nagreement of the verdicts with the labels:\n");
        out.push_str(&agreement_report(a));
    }
    out
}

/// `rag ask`'s terminal text: the answer, each citation's verdict and the
/// existence score (quotes with the client's secrets redacted).
#[cfg(feature = "net")]
pub(crate) fn rag_checks(
    answer: &str,
    checks: &[crate::rag::verify::CitationCheck],
    existence: Option<f64>,
    level: crate::citations::MatchLevel,
    redactor: &crate::secrets::Redactor,
) -> String {
    let mut lines = vec![format!("answer: {answer}")];
    for (i, c) in checks.iter().enumerate() {
        let span = c
            .span
            .map_or(String::new(), |s| format!(" chars {}..{}", s.start, s.end));
        lines.push(format!(
            "[{}] source {} {} (similarity {:.3}{span}): {:?}",
            i + 1,
            c.source_index,
            c.verdict,
            c.similarity,
            redactor.redact(&c.quote)
        ));
    }
    lines.push(match existence {
        Some(e) => format!(
            "existence score: {e:.4} ({} of {} citations found, match {})",
            checks.iter().filter(|c| c.found).count(),
            checks.len(),
            level.as_str()
        ),
        None => "existence score: n/a (no citations)".into(),
    });
    lines.join("\n")
}

/// A group's `mean [low, high] (n=N)`, or `n/a`.
pub(crate) fn mean_with_ci(g: &Value) -> String {
    match (
        g["mean"].as_f64(),
        g["ci_low"].as_f64(),
        g["ci_high"].as_f64(),
    ) {
        (Some(m), Some(l), Some(h)) => format!("{m:.4} [{l:.4}, {h:.4}] (n={})", g["n"]),
        _ => "n/a".into(),
    }
}

/// Most disagreeing ids the terminal lists (the JSON and the run folder
/// have them all).
const SHOWN_DISAGREEMENTS: usize = 20;

/// `agreement --spans`: the coders, then the figures over every code and
/// per code.
pub(crate) fn span_agreement_report(r: &crate::agreement::spans::SpansResult) -> String {
    let f = |x: Option<f64>| x.map_or_else(|| "n/a".to_string(), |v| format!("{:.4}", v + 0.0));
    let ci = |c: &crate::agreement::coefficients::Coefficient| match (c.ci_low, c.ci_high) {
        (Some(lo), Some(hi)) => format!("[{}, {}]", f(Some(lo)), f(Some(hi))),
        _ => "-".into(),
    };
    let mut out = format!(
        "first (reference): {} in {} ({} codings)\nsecond: {} in {} ({} codings)\n{} sources compared",
        r.first.coder,
        r.first.file.display(),
        r.first.codings,
        r.second.coder,
        r.second.file.display(),
        r.second.codings,
        r.agreement.sources
    );
    if !r.sources_skipped.is_empty() {
        out.push_str(&format!("; not compared: {}", r.sources_skipped.join("; ")));
    }
    if r.selections_skipped > 0 {
        out.push_str(&format!(
            "; {} selections left out (empty, or not carried back to the project's text)",
            r.selections_skipped
        ));
    }
    out.push_str("\n\n");
    let rows: Vec<Vec<String>> = [
        ("unitized alpha (uα)", &r.agreement.alpha),
        ("binary |uα", &r.agreement.binary_alpha),
        ("coding cuα", &r.agreement.coding_alpha),
    ]
    .iter()
    .map(|(name, c)| {
        vec![
            name.to_string(),
            f(c.value),
            ci(c),
            c.note.clone().unwrap_or_default(),
        ]
    })
    .collect();
    out.push_str(&grid_table(
        &["over every code", "value", "95% CI", "note"],
        &rows,
    ));
    out.push('\n');
    let rows: Vec<Vec<String>> = r
        .agreement
        .codes
        .iter()
        .map(|c| {
            vec![
                c.code.clone(),
                format!("{} {}", f(c.alpha.value), ci(&c.alpha)),
                f(c.coding_alpha.value),
                f(c.precision.value),
                f(c.recall.value),
                format!("{} {}", f(c.f1.value), ci(&c.f1)),
                format!("{}/{}/{}", c.matched, c.units_first, c.units_second),
            ]
        })
        .collect();
    out.push_str(&grid_table(
        &[
            "code",
            "uα [95% CI]",
            "(k)uα",
            "precision",
            "recall",
            "F1 [95% CI]",
            "matched/first/second",
        ],
        &rows,
    ));
    out.push_str(&format!("\n{}\n", r.signature));
    out
}

/// `agreement`'s terminal report: counts, a table of coefficients with
/// their intervals and items used, the two raters' confusion matrix, and
/// the first disagreements.
pub(crate) fn agreement_report(a: &crate::agreement::coefficients::Agreement) -> String {
    let per_rater: Vec<String> = a
        .rater_counts
        .0
        .iter()
        .map(|(r, n)| format!("{r} {n}"))
        .collect();
    let mut out = format!(
        "{} items, {} raters, {} ratings ({}); level {}\n",
        a.n_items,
        a.n_raters,
        a.n_ratings,
        per_rater.join(", "),
        a.level.name()
    );
    let f = |x: Option<f64>| x.map_or_else(|| "n/a".to_string(), |v| format!("{:.4}", v + 0.0));
    let rows: Vec<Vec<String>> = a
        .coefficients()
        .iter()
        .map(|(name, c)| {
            vec![
                name.to_string(),
                f(c.value),
                match (c.ci_low, c.ci_high) {
                    (Some(lo), Some(hi)) => format!("[{}, {}]", f(Some(lo)), f(Some(hi))),
                    _ => "-".into(),
                },
                c.n_items.to_string(),
                c.note.clone().unwrap_or_default(),
            ]
        })
        .collect();
    out.push_str(&grid_table(
        &["coefficient", "value", "95% CI", "items", "note"],
        &rows,
    ));
    out.push('\n');
    if let Some(c) = &a.confusion_matrix {
        out.push_str(&format!(
            "confusion matrix (rows: {}, columns: {}):\n",
            c.rows, c.columns
        ));
        let mut header = vec![String::new()];
        header.extend(c.labels.iter().cloned());
        let rows: Vec<Vec<String>> = c
            .labels
            .iter()
            .zip(&c.counts)
            .map(|(l, counts)| {
                let mut r = vec![l.clone()];
                r.extend(counts.iter().map(u64::to_string));
                r
            })
            .collect();
        out.push_str(&grid_table(&header, &rows));
        out.push('\n');
    }
    let shown: Vec<&str> = a
        .disagreements
        .iter()
        .take(SHOWN_DISAGREEMENTS)
        .map(String::as_str)
        .collect();
    if a.n_disagreements == 0 {
        out.push_str("disagreements: none\n");
    } else {
        out.push_str(&format!(
            "disagreements: {} items{}: {}\n",
            a.n_disagreements,
            if a.n_disagreements > shown.len() {
                format!(" (first {})", shown.len())
            } else {
                String::new()
            },
            shown.join(", ")
        ));
    }
    out.push_str(&format!("signature: {}", a.signature));
    out
}

/// The terminal report of `lexical`: one row per number with its interval
/// (when resampled) and the signatures.
pub(crate) fn lexical_report(summary: &serde_json::Value) -> String {
    let n = summary["n"].as_u64().unwrap_or(0);
    let mut rows: Vec<Vec<String>> = Vec::new();
    if let Some(o) = summary.as_object() {
        for (k, v) in o {
            let Some(x) = v.as_f64() else { continue };
            if k == "n" {
                continue;
            }
            let ci = &summary["intervals"][k];
            let interval = match (ci["ci_low"].as_f64(), ci["ci_high"].as_f64()) {
                (Some(lo), Some(hi)) => format!("[{lo:.4}, {hi:.4}]"),
                _ => "-".into(),
            };
            rows.push(vec![k.clone(), format!("{x:.4}"), interval]);
        }
    }
    let mut out = format!("{n} items\n");
    out.push_str(&grid_table(&["metric", "value", "95% CI"], &rows));
    out.push('\n');
    if let Some(sigs) = summary["signatures"].as_object() {
        for s in sigs.values().filter_map(|s| s.as_str()) {
            out.push_str(&format!("signature: {s}\n"));
        }
    }
    out.trim_end().to_string()
}

/// `transcript`'s text: each transcript's plain text (one `Label: text`
/// line per turn), under a `==> ID <==` header when there are several.
pub(crate) fn transcripts_text(transcripts: &[crate::corpus::formats::TimedTranscript]) -> String {
    match transcripts {
        [one] => one.plain().0,
        all => all
            .iter()
            .map(|t| format!("==> {} <==\n{}", t.id, t.plain().0))
            .collect::<Vec<_>>()
            .join("\n\n"),
    }
}

/// `transcript --json`: one transcript's [`transcript_json`], or an array
/// of them when there are several.
pub(crate) fn transcripts_json(
    transcripts: Vec<crate::corpus::formats::TimedTranscript>,
    speakers: &crate::citations::turns::SpeakerConfig,
) -> Value {
    let mut all: Vec<Value> = transcripts
        .into_iter()
        .map(|t| transcript_json(t, speakers))
        .collect();
    match all.len() {
        1 => all.remove(0),
        _ => Value::Array(all),
    }
}

/// The JSON of one transcript: its turns as quotes are attributed by them
/// (the reader's, or a custom speaker pattern's), each with its speaker,
/// role, whether the speaker is in doubt or an interviewer, the times of
/// its text; and how many turns carry a recognised label.
fn transcript_json(
    t: crate::corpus::formats::TimedTranscript,
    speakers: &crate::citations::turns::SpeakerConfig,
) -> Value {
    let format = t.format.as_str();
    let id = t.id.clone();
    let (text, times, labels) = t.plain_labelled();
    let labels = (t.format != crate::corpus::formats::Format::Chunks).then_some(labels.as_slice());
    let turns = crate::citations::turns::Turns::of(&text, labels, speakers);
    let shown: Vec<&crate::citations::turns::Turn> = turns
        .turns
        .iter()
        .filter(|turn| !text[turn.text.clone()].trim().is_empty())
        .collect();
    let recognised = shown.iter().filter(|turn| turn.speaker.is_some()).count();
    let rows: Vec<Value> = shown
        .iter()
        .map(|turn| {
            let time = crate::corpus::formats::time_of(&times, turn.text.clone());
            serde_json::json!({
                "speaker": turn.speaker,
                "role": turn.role,
                "interviewer": turn.interviewer,
                "uncertain": turn.uncertain,
                "start": time.and_then(|t| t.start),
                "end": time.and_then(|t| t.end),
                "text": text[turn.text.clone()].trim(),
            })
        })
        .collect();
    serde_json::json!({
        "id": id,
        "format": format,
        "labels": {"recognised": recognised, "turns": rows.len()},
        "turns": rows,
    })
}

/// `check-report`'s terminal summary: the counts, then each quote that is
/// not `ok` as `LINE:COLUMN: CLASS: "text"`, then the signature.
pub(crate) fn check_report_summary(
    s: &crate::check_report::Summary,
    quotes: &[crate::check_report::CheckedQuote],
) -> String {
    let mut out = format!(
        "{} ({} cited, {} unresolved, {} uncited): {} found, {} ok",
        super::count(s.quotes, "quote", "quotes"),
        s.cited,
        s.unresolved,
        s.uncited,
        s.found,
        s.ok
    );
    if let Some(share) = s.ok_share {
        out.push_str(&format!(" ({:.1}%)", share * 100.0));
    }
    out.push('\n');
    for (class, n) in &s.attribution {
        if *n > 0 {
            out.push_str(&format!("  {class:<14} {n}\n"));
        }
    }
    for q in quotes.iter().filter(|q| !q.ok()) {
        let class = q
            .result
            .attributed
            .attribution
            .map_or("unknown_source", |a| a.as_str());
        out.push_str(&format!(
            "{}:{}: {class}: {}\n",
            q.line,
            q.column,
            crate::corpus::preview(&q.text)
        ));
    }
    out.push_str(&format!(
        "signature: {}",
        crate::signature::shorten(&s.signature)
    ));
    out
}

/// `compare`'s terminal tables: the systems side by side, then the paired
/// differences.
pub(crate) fn compare_tables(c: &crate::compare::Comparison) -> String {
    use crate::views::compare::{difference_rows, side_by_side};
    let (header, rows) = side_by_side(c, 3);
    let first = crate::views::table::grid_table(&header, &rows);
    let (header, rows) = difference_rows(c, 4);
    let shown = [0, 1, 2, 6, 7, 8, 9, 10, 11, 12];
    let pick = |r: &Vec<String>| shown.iter().map(|&k| r[k].clone()).collect::<Vec<_>>();
    let second =
        crate::views::table::grid_table(&pick(&header), &rows.iter().map(pick).collect::<Vec<_>>());
    format!("{first}\n{second}")
}

/// `grounding`'s terminal table: the mean of each metric and n, then the
/// signature.
pub(crate) fn grounding_table(summary: &crate::grounding::summary::Summary) -> String {
    let m = &summary.means;
    let rows: Vec<Vec<String>> = [
        ("relevance", m.relevance),
        ("completeness", m.completeness),
        ("hallucination", m.hallucination),
        ("claim_error", m.claim_error),
        ("drift_penalty", m.drift_penalty),
    ]
    .iter()
    .map(|(k, v)| vec![k.to_string(), format!("{:.4}", v + 0.0)])
    .chain(std::iter::once(vec![
        "n".to_string(),
        summary.n.to_string(),
    ]))
    .collect();
    let table = super::table::grid_table(&["metric", "mean"], &rows);
    format!("{table}\nsignature: {}", summary.signature)
}

/// `threshold`'s output: the grid, the target and settings, and last
/// `threshold: 0.60`.
#[cfg(feature = "semantic")]
pub(crate) fn threshold_report(
    s: &crate::semantic::methods::ThresholdSearch,
    n: usize,
    anchors: bool,
    model_signature: &str,
) -> String {
    let target = if s.target == "labels" {
        "human labels"
    } else {
        "proxy labels (similarity > 0.9)"
    };
    format!(
        "{}\ntarget: {target} ({} items), optimize: {}, anchors: {}, {model_signature}\nthreshold: {:.2}",
        threshold_table(s),
        n,
        crate::semantic::methods::optimize_name(s.optimize),
        if anchors { "on" } else { "off" },
        s.best
    )
}
