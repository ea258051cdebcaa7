//! `compare`'s tables (the systems side by side, the paired differences,
//! the items that changed most) and its report's charts, for the terminal,
//! the CSV files and report.html alike.

use crate::compare::Comparison;
use crate::report::csv::number;
use crate::views::html::HtmlPage;

/// Column titles of the side-by-side table (HotpotQA's as the framework
/// names them).
fn column_title(metric: &str) -> &str {
    match metric {
        "answer_f1" => "Answer F1",
        "answer_em" => "Answer EM",
        "citation_precision" => "Cit Precision",
        "citation_recall" => "Cit Recall",
        "citation_f1" => "Cit F1",
        "insufficient_context_detection" => "Insuf Context Det",
        other => other,
    }
}

fn show(x: Option<f64>, digits: usize) -> String {
    match x {
        Some(v) if digits == 0 => number(Some(v)),
        Some(v) => crate::report::fixed(v, digits),
        None => String::new(),
    }
}

/// The side-by-side table (`digits` 0: shortest exact numbers).
pub(crate) fn side_by_side(c: &Comparison, digits: usize) -> (Vec<String>, Vec<Vec<String>>) {
    let mut header = vec!["System".to_string()];
    header.extend(c.metrics.iter().map(|m| column_title(m).to_string()));
    header.push("n".into());
    let rows = c
        .systems
        .iter()
        .zip(&c.means)
        .map(|(s, means)| {
            let mut r = vec![s.name.clone()];
            r.extend(means.iter().map(|m| show(m.mean, digits)));
            r.push(s.n.map(|n| n.to_string()).unwrap_or_default());
            r
        })
        .collect();
    (header, rows)
}

/// The table of paired differences (`digits` 0: shortest exact numbers).
pub(crate) fn difference_rows(c: &Comparison, digits: usize) -> (Vec<String>, Vec<Vec<String>>) {
    let header: Vec<String> = [
        "metric",
        "system_a",
        "system_b",
        "n_paired",
        "mean_a",
        "mean_b",
        "diff_b_minus_a",
        "ci_low",
        "ci_high",
        "p_value",
        "p_holm",
        "cohens_dz",
        "note",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let rows = c
        .differences
        .iter()
        .map(|d| {
            let mut r = vec![d.metric.clone(), d.system_a.clone(), d.system_b.clone()];
            match &d.paired {
                Some(p) => {
                    r.push(p.n.to_string());
                    for v in [p.mean_a, p.mean_b, p.diff, p.ci_low, p.ci_high, p.p_value] {
                        r.push(show(Some(v), digits));
                    }
                }
                None => r.extend(std::iter::repeat_n(String::new(), 7)),
            }
            r.push(show(d.p_holm, digits));
            r.push(show(d.cohens_dz, digits));
            r.push(d.note.clone().unwrap_or_default());
            r
        })
        .collect();
    (header, rows)
}

/// The items that changed most, as a table.
pub(crate) fn changed_rows(c: &Comparison, digits: usize) -> (Vec<String>, Vec<Vec<String>>) {
    let header = ["metric", "system_a", "system_b", "id", "a", "b", "delta"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let rows = c
        .changed
        .iter()
        .map(|x| {
            vec![
                x.metric.clone(),
                x.system_a.clone(),
                x.system_b.clone(),
                x.id.clone(),
                show(Some(x.a), digits),
                show(Some(x.b), digits),
                show(Some(x.delta), digits),
            ]
        })
        .collect();
    (header, rows)
}

/// One chart per metric: each system's mean with its interval, then the
/// paired differences with theirs.
pub(crate) fn metric_charts(page: &mut HtmlPage, c: &Comparison) {
    use crate::views::svg::{dot_whisker, Dot};
    for (m, metric) in c.metrics.iter().enumerate() {
        page.heading(3, metric);
        let means: Vec<Dot> = c
            .systems
            .iter()
            .zip(&c.means)
            .filter_map(|(s, row)| {
                let v = row[m];
                v.mean.map(|mean| Dot {
                    label: s.name.clone(),
                    value: mean,
                    interval: v.ci_low.zip(v.ci_high),
                })
            })
            .collect();
        let diffs: Vec<Dot> = c
            .differences
            .iter()
            .filter(|d| d.metric == *metric)
            .filter_map(|d| {
                d.paired.map(|p| Dot {
                    label: format!("{} - {}", d.system_b, d.system_a),
                    value: p.diff,
                    interval: Some((p.ci_low, p.ci_high)),
                })
            })
            .collect();
        let mut html = String::from("<div class=\"charts\">");
        html.push_str(&dot_whisker(
            &format!("{metric}: mean per system (95% CI)"),
            &means,
            false,
        ));
        if !diffs.is_empty() {
            html.push_str(&dot_whisker(
                &format!("{metric}: paired difference B - A (95% CI)"),
                &diffs,
                true,
            ));
        }
        html.push_str("</div>");
        page.raw(&html);
    }
}
