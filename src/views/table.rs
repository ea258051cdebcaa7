//! Terminal tables (tabled).

use crate::stats::GroupStat;
use tabled::builder::Builder;
use tabled::settings::Style;

/// A summary table: one row per (group kind, name) with mean, n and the 95%
/// interval.
pub(crate) fn summary_table(rows: &[(&str, &str, GroupStat)]) -> String {
    let mut b = Builder::default();
    b.push_record(["group", "name", "mean", "n", "95% CI"]);
    for (kind, name, s) in rows {
        b.push_record([
            kind.to_string(),
            name.to_string(),
            if s.n == 0 {
                "n/a".to_string()
            } else {
                format!("{:.3}", s.mean + 0.0)
            },
            s.n.to_string(),
            if s.n == 0 {
                "n/a".to_string()
            } else {
                format!("[{:.3}, {:.3}]", s.ci_low + 0.0, s.ci_high + 0.0)
            },
        ]);
    }
    let mut t = b.build();
    t.with(Style::rounded());
    t.to_string()
}

/// A plain table from a header and rows of cells.
pub(crate) fn grid_table<S: AsRef<str>>(header: &[S], rows: &[Vec<String>]) -> String {
    let mut b = Builder::default();
    b.push_record(header.iter().map(|h| h.as_ref().to_string()));
    for r in rows {
        b.push_record(r.iter().cloned());
    }
    let mut t = b.build();
    t.with(Style::rounded());
    t.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_rows() {
        let s = GroupStat {
            mean: 0.5,
            n: 2,
            ci_low: 0.0,
            ci_high: 1.0,
        };
        let t = summary_table(&[("overall", "all", s)]);
        assert!(
            t.contains("overall") && t.contains("0.500") && t.contains("[0.000, 1.000]"),
            "{t}"
        );
    }
}
