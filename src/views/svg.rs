//! Inline SVG charts for HTML reports: a dot-and-whisker plot (one row per
//! label: a dot at the value, a whisker over its interval), drawn as text,
//! so a report stays one self-contained file.
//!
//! ```
//! use corpus_eval::views::{dot_whisker, Dot};
//! let svg = dot_whisker("means", &[Dot { label: "A".into(), value: 0.5, interval: Some((0.4, 0.6)) }], false);
//! assert!(svg.starts_with("<svg") && svg.contains("<circle") && svg.contains(">A</text>"));
//! ```

use super::html::escape;
use std::fmt::Write;

/// One row of a dot-and-whisker plot.
#[derive(Debug, Clone, PartialEq)]
pub struct Dot {
    /// The row's label.
    pub label: String,
    /// Where the dot stands.
    pub value: f64,
    /// The whisker, when known.
    pub interval: Option<(f64, f64)>,
}

const WIDTH: f64 = 560.0;
const LABEL: f64 = 170.0;
const ROW: f64 = 26.0;
const TOP: f64 = 28.0;
const BOTTOM: f64 = 30.0;

/// A dot-and-whisker plot titled `title`; with `zero_line`, a dashed
/// line marks 0 (for differences) and the axis always includes it.
pub fn dot_whisker(title: &str, dots: &[Dot], zero_line: bool) -> String {
    let finite = |x: f64| x.is_finite().then_some(x);
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    for d in dots {
        for x in [
            Some(d.value),
            d.interval.map(|i| i.0),
            d.interval.map(|i| i.1),
        ]
        .into_iter()
        .flatten()
        .filter_map(finite)
        {
            lo = lo.min(x);
            hi = hi.max(x);
        }
    }
    if zero_line || !lo.is_finite() {
        lo = lo.min(0.0);
        hi = hi.max(0.0);
    }
    if hi - lo < 1e-12 {
        hi = lo + 1.0;
    }
    let pad = (hi - lo) * 0.05;
    let (lo, hi) = (lo - pad, hi + pad);
    let plot = WIDTH - LABEL - 20.0;
    let x = |v: f64| LABEL + (v - lo) / (hi - lo) * plot;
    let height = TOP + BOTTOM + ROW * dots.len().max(1) as f64;
    let mut s = String::new();
    let _ = write!(
        s,
        "<svg class=\"chart\" role=\"img\" width=\"{WIDTH}\" height=\"{height}\" viewBox=\"0 0 {WIDTH} {height}\" font-family=\"sans-serif\" font-size=\"12\">\
<title>{t}</title><text x=\"{LABEL}\" y=\"16\" font-weight=\"bold\">{t}</text>",
        t = escape(title)
    );
    let axis_y = height - BOTTOM + 6.0;
    let _ = write!(
        s,
        "<line x1=\"{LABEL}\" y1=\"{axis_y}\" x2=\"{:.1}\" y2=\"{axis_y}\" stroke=\"#888\"/>",
        LABEL + plot
    );
    for k in 0..=4 {
        let v = lo + (hi - lo) * f64::from(k) / 4.0;
        let _ = write!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"#555\">{}</text>",
            x(v),
            axis_y + 16.0,
            crate::report::fixed(v, 3)
        );
    }
    if zero_line {
        let _ = write!(
            s,
            "<line x1=\"{z:.1}\" y1=\"{TOP}\" x2=\"{z:.1}\" y2=\"{axis_y}\" stroke=\"#c00\" stroke-dasharray=\"4 3\"/>",
            z = x(0.0)
        );
    }
    for (i, d) in dots.iter().enumerate() {
        let y = TOP + ROW * (i as f64 + 0.5);
        let _ = write!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            LABEL - 8.0,
            y + 4.0,
            escape(&d.label)
        );
        if let Some((a, b)) = d.interval.filter(|(a, b)| a.is_finite() && b.is_finite()) {
            let _ = write!(
                s,
                "<line x1=\"{:.1}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"#246\" stroke-width=\"2\"/>",
                x(a),
                x(b)
            );
        }
        if d.value.is_finite() {
            let _ = write!(
                s,
                "<circle cx=\"{:.1}\" cy=\"{y:.1}\" r=\"4.5\" fill=\"#246\"><title>{}</title></circle>",
                x(d.value),
                escape(&match d.interval {
                    Some((a, b)) => format!(
                        "{} [{}, {}]",
                        crate::report::fixed(d.value, 4),
                        crate::report::fixed(a, 4),
                        crate::report::fixed(b, 4)
                    ),
                    None => crate::report::fixed(d.value, 4),
                })
            );
        }
    }
    s.push_str("</svg>");
    s
}
