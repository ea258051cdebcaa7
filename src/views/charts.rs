//! PNG bar charts (plotters, bitmap backend) with an embedded DejaVu Sans
//! font, so charts render the same on a machine without fonts.

use crate::report::ReportError;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::FontStyle;
use std::path::Path;
use std::sync::Once;

/// The font family name charts use.
const FAMILY: &str = "sans-serif";

static FONTS: Once = Once::new();

/// Registers the bundled DejaVu Sans fonts with plotters (once).
pub(crate) fn register_fonts() {
    FONTS.call_once(|| {
        let _ = plotters::style::register_font(FAMILY, FontStyle::Normal, dejavu::sans::regular());
        let _ = plotters::style::register_font(FAMILY, FontStyle::Bold, dejavu::sans::bold());
    });
}

/// One bar: label, value in [0, 1], and the number of items behind it.
#[derive(Debug, Clone)]
pub(crate) struct Bar {
    /// Category label (e.g. a transcript FILE).
    pub label: String,
    /// The value, 0..1.
    pub value: f64,
    /// Items averaged.
    pub n: usize,
    /// Optional 95% interval.
    pub ci: Option<(f64, f64)>,
}

/// A horizontal bar chart of values in [0, 1].
#[derive(Debug, Clone)]
pub(crate) struct BarChart<'a> {
    /// Chart title.
    pub title: &'a str,
    /// Label of the value axis.
    pub value_label: &'a str,
    /// Label of the category axis.
    pub category_label: &'a str,
    /// Small print under the chart (e.g. the metric signature).
    pub footnote: &'a str,
    /// The bars, top to bottom.
    pub bars: &'a [Bar],
}

/// Width of every chart, in pixels.
pub(crate) const WIDTH: u32 = 1000;

/// The height a chart with `n` bars gets (at least 500 px; charts drawn
/// through [`render_bar_chart`] have at most [`MAX_BARS`] bars).
pub(crate) fn height_for(n: usize) -> u32 {
    (140 + 36 * n.min(MAX_BARS) as u32).max(500)
}

fn shorten(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let head: String = s.chars().take(max - 1).collect();
        format!("{head}…")
    }
}

/// Most bars a chart shows; past this, only the [`EDGE_BARS`] lowest and
/// highest are drawn (the title says so; the full table is in the run's
/// outputs), so a chart stays readable and its size bounded.
pub(crate) const MAX_BARS: usize = 40;
/// Bars kept at each end when a chart has more than [`MAX_BARS`].
pub(crate) const EDGE_BARS: usize = 20;

/// Renders `chart` as a PNG at `path` (through a temporary file). A chart of
/// more than [`MAX_BARS`] bars shows the highest and the lowest
/// [`EDGE_BARS`], highest first, and says so in its title.
pub(crate) fn render_bar_chart(path: &Path, chart: &BarChart) -> Result<(), ReportError> {
    let n = chart.bars.len();
    if n <= MAX_BARS {
        return render_atomically(path, |tmp| draw(tmp, chart));
    }
    let bars = extremes(chart.bars);
    let title = format!("{} (highest and lowest {EDGE_BARS} of {n})", chart.title);
    let shown = BarChart {
        title: &title,
        bars: &bars,
        ..chart.clone()
    };
    render_atomically(path, |tmp| draw(tmp, &shown))
}

/// The highest and the lowest [`EDGE_BARS`] bars by value, highest first
/// (ties broken by label, so the choice is deterministic).
fn extremes(bars: &[Bar]) -> Vec<Bar> {
    let mut order: Vec<&Bar> = bars.iter().collect();
    order.sort_by(|a, b| {
        b.value
            .total_cmp(&a.value)
            .then_with(|| a.label.cmp(&b.label))
    });
    let k = EDGE_BARS.min(order.len() / 2);
    order[..k]
        .iter()
        .chain(&order[order.len() - k..])
        .map(|b| (*b).clone())
        .collect()
}

/// Draws a PNG with `draw` into a temporary file beside `path`, then
/// renames it into place; a failure leaves nothing behind.
fn render_atomically(
    path: &Path,
    draw: impl FnOnce(&Path) -> Result<(), String>,
) -> Result<(), ReportError> {
    let path = &crate::report::destination(path)?;
    register_fonts();
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.tmp-{}.png", std::process::id()));
    let fail = |message: String| ReportError::Chart {
        path: path.to_path_buf(),
        message,
    };
    let result = draw(&tmp).map_err(fail);
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    std::fs::rename(&tmp, path).map_err(|source| ReportError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// A drawing area of a PNG file.
type Canvas<'a> = DrawingArea<BitMapBackend<'a>, plotters::coord::Shift>;

/// Lines of small print under a chart, at most.
const FOOT_LINES: usize = 4;
/// Height of one line of small print, in pixels.
const FOOT_LINE: u32 = 16;

/// `text` broken at spaces (or `|`, a signature's separator) into lines no
/// wider than `width` pixels as `measure` measures them; a word wider
/// than a line is cut. At most [`FOOT_LINES`] lines, the last ending in
/// `…` when the text goes on.
fn wrap(text: &str, width: u32, measure: impl Fn(&str) -> u32) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    // Words keep their separator at their end, so a line breaks after it.
    let mut words: Vec<String> = Vec::new();
    let mut word = String::new();
    for c in text.chars() {
        word.push(c);
        if c == ' ' || c == '|' {
            words.push(std::mem::take(&mut word));
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    for w in words {
        let candidate = format!("{line}{w}");
        if measure(candidate.trim_end()) <= width {
            line = candidate;
            continue;
        }
        if !line.is_empty() {
            lines.push(line.trim_end().to_string());
        }
        line = w;
        // A word wider than a line: cut where it stops fitting.
        while measure(line.trim_end()) > width && line.chars().count() > 1 {
            let mut head = line.clone();
            while measure(&head) > width && head.chars().count() > 1 {
                head.pop();
            }
            line = line.chars().skip(head.chars().count()).collect();
            lines.push(head);
        }
    }
    if !line.trim_end().is_empty() {
        lines.push(line.trim_end().to_string());
    }
    if lines.len() > FOOT_LINES {
        lines.truncate(FOOT_LINES);
        if let Some(last) = lines.last_mut() {
            while measure(&format!("{last}…")) > width && last.chars().count() > 1 {
                last.pop();
            }
            last.push('…');
        }
    }
    lines
}

/// A white WIDTH x `height` canvas with `footnote` in small grey print along
/// its bottom, wrapped to the canvas's width (never cut off at its edge);
/// returns the whole canvas and the area above the footnote.
fn canvas<'a>(
    path: &'a Path,
    height: u32,
    footnote: &str,
) -> Result<(Canvas<'a>, Canvas<'a>), String> {
    let root = BitMapBackend::new(path, (WIDTH, height)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let font = (FAMILY, 12).into_font().color(&RGBColor(90, 90, 90));
    let lines = wrap(footnote, WIDTH - 20, |t| {
        root.estimate_text_size(t, &font)
            .map_or(t.chars().count() as u32 * 7, |(w, _)| w)
    });
    let foot_height = 12 + FOOT_LINE * lines.len().max(1) as u32;
    let (main, foot) = root.split_vertically(height - foot_height);
    for (k, line) in lines.iter().enumerate() {
        foot.draw(&Text::new(
            line.clone(),
            (10, 6 + FOOT_LINE as i32 * k as i32),
            font.clone(),
        ))
        .map_err(|e| e.to_string())?;
    }
    Ok((root, main))
}

fn draw(path: &Path, chart: &BarChart) -> Result<(), String> {
    let n = chart.bars.len();
    let height = height_for(n);
    let (root, main) = canvas(path, height, chart.footnote)?;
    let labels: Vec<String> = chart.bars.iter().map(|b| shorten(&b.label, 46)).collect();
    let longest = labels.iter().map(|l| l.chars().count()).max().unwrap_or(4) as u32;
    let label_area = (longest * 8 + 24).clamp(80, 400);
    let mut builder = ChartBuilder::on(&main);
    builder
        .caption(chart.title, (FAMILY, 26).into_font().style(FontStyle::Bold))
        .margin(16)
        .margin_right(40)
        .x_label_area_size(50)
        .y_label_area_size(label_area);
    let rows = n.max(1);
    let mut ctx = builder
        .build_cartesian_2d(0f64..1.0f64, (0usize..rows - 1).into_segmented())
        .map_err(|e| e.to_string())?;
    ctx.configure_mesh()
        .disable_y_mesh()
        .x_desc(chart.value_label)
        .y_desc(chart.category_label)
        .x_labels(11)
        .x_label_formatter(&|x| format!("{x:.1}"))
        .y_labels(rows)
        .y_label_formatter(&|y| match y {
            SegmentValue::CenterOf(r) if *r < n => {
                labels.get(n - 1 - *r).cloned().unwrap_or_default()
            }
            _ => String::new(),
        })
        .label_style((FAMILY, 14))
        .axis_desc_style((FAMILY, 16))
        .draw()
        .map_err(|e| e.to_string())?;
    if n == 0 {
        ctx.draw_series(std::iter::once(Text::new(
            "no data".to_string(),
            (0.42, SegmentValue::CenterOf(0)),
            (FAMILY, 20).into_font(),
        )))
        .map_err(|e| e.to_string())?;
    }
    let fill = RGBColor(52, 120, 198);
    // The first bar is drawn at the top.
    let row = |i: usize| n - 1 - i;
    ctx.draw_series(chart.bars.iter().enumerate().map(|(i, b)| {
        let mut r = Rectangle::new(
            [
                (0.0, SegmentValue::Exact(row(i))),
                (b.value.clamp(0.0, 1.0), SegmentValue::Exact(row(i) + 1)),
            ],
            fill.filled(),
        );
        r.set_margin(5, 5, 0, 0);
        r
    }))
    .map_err(|e| e.to_string())?;
    // The 95% interval of each bar as an error bar (whiskers with caps).
    let whisker = RGBColor(204, 85, 0);
    ctx.draw_series(chart.bars.iter().enumerate().filter_map(|(i, b)| {
        let (lo, hi) = b.ci?;
        let (lo, hi) = (lo.clamp(0.0, 1.0), hi.clamp(0.0, 1.0));
        Some(ErrorBar::new_horizontal(
            SegmentValue::CenterOf(row(i)),
            lo,
            b.value.clamp(lo, hi),
            hi,
            whisker.stroke_width(2),
            12,
        ))
    }))
    .map_err(|e| e.to_string())?;
    ctx.draw_series(chart.bars.iter().enumerate().map(|(i, b)| {
        let v = b.value.clamp(0.0, 1.0);
        let text = match b.ci {
            Some((lo, hi)) => format!("{:.2}  [{lo:.2}, {hi:.2}]  n={}", b.value, b.n),
            None => format!("{:.2}  n={}", b.value, b.n),
        };
        // Right of the bar and its whisker; inside the bar, from its start
        // (white), when there is no room to the right.
        let end = b.ci.map_or(v, |(_, hi)| hi.clamp(0.0, 1.0).max(v));
        let (x, color) = if end <= 0.62 {
            (end + 0.015, BLACK)
        } else if v >= 0.37 {
            (0.005, WHITE)
        } else {
            (v + 0.015, BLACK)
        };
        Text::new(
            text,
            (x.max(0.005), SegmentValue::CenterOf(row(i))),
            (FAMILY, 14)
                .into_font()
                .color(&color)
                .pos(Pos::new(HPos::Left, VPos::Center)),
        )
    }))
    .map_err(|e| e.to_string())?;
    root.present().map_err(|e| e.to_string())?;
    Ok(())
}

/// A histogram of scores in [0, 1]: 11 bins centred on 0.0, 0.1, ..., 1.0.
#[cfg(feature = "cli")]
#[derive(Debug, Clone)]
pub(crate) struct ScoreHistogram<'a> {
    /// Chart title.
    pub title: &'a str,
    /// Small print under the chart (e.g. the signature).
    pub footnote: &'a str,
    /// The scores (values outside [0, 1] are clamped).
    pub scores: &'a [f64],
}

/// The bin (0..=10) of a score: the nearest tenth.
pub(crate) fn score_bin(score: f64) -> usize {
    (score.clamp(0.0, 1.0) * 10.0).round() as usize
}

/// Renders a score histogram as a PNG at `path` (through a temporary file).
#[cfg(feature = "cli")]
pub(crate) fn render_score_histogram(
    path: &Path,
    chart: &ScoreHistogram,
) -> Result<(), ReportError> {
    render_atomically(path, |tmp| draw_histogram(tmp, chart))
}

#[cfg(feature = "cli")]
fn draw_histogram(path: &Path, chart: &ScoreHistogram) -> Result<(), String> {
    let (root, main) = canvas(path, 560, chart.footnote)?;
    draw_histogram_panel(&main, chart.title, 24, chart.scores)?;
    root.present().map_err(|e| e.to_string())?;
    Ok(())
}

/// Several score histograms side by side in one PNG, one panel per
/// (title, scores), under a common title.
#[derive(Debug, Clone)]
pub(crate) struct HistogramPanels<'a> {
    /// Chart title.
    pub title: &'a str,
    /// Small print under the chart (e.g. the signature).
    pub footnote: &'a str,
    /// The panels: (panel title, scores in [0, 1]).
    pub panels: &'a [(&'a str, &'a [f64])],
}

/// Renders side-by-side score histograms as a PNG at `path` (through a
/// temporary file).
pub(crate) fn render_histogram_panels(
    path: &Path,
    chart: &HistogramPanels,
) -> Result<(), ReportError> {
    render_atomically(path, |tmp| {
        let (root, main) = canvas(tmp, 560, chart.footnote)?;
        let (head, body) = main.split_vertically(44);
        head.draw(&Text::new(
            chart.title.to_string(),
            (16, 10),
            (FAMILY, 24).into_font().style(FontStyle::Bold),
        ))
        .map_err(|e| e.to_string())?;
        let areas = body.split_evenly((1, chart.panels.len().max(1)));
        for (area, (title, scores)) in areas.iter().zip(chart.panels) {
            draw_histogram_panel(area, title, 18, scores)?;
        }
        root.present().map_err(|e| e.to_string())?;
        Ok(())
    })
}

fn draw_histogram_panel(
    area: &Canvas<'_>,
    title: &str,
    title_size: u32,
    scores: &[f64],
) -> Result<(), String> {
    let mut counts = [0usize; 11];
    for &s in scores {
        counts[score_bin(s)] += 1;
    }
    let top = counts.iter().copied().max().unwrap_or(0).max(1);
    let mut ctx = ChartBuilder::on(area)
        .caption(
            title,
            (FAMILY, title_size).into_font().style(FontStyle::Bold),
        )
        .margin(16)
        .margin_right(30)
        .x_label_area_size(50)
        .y_label_area_size(70)
        .build_cartesian_2d((0usize..10).into_segmented(), 0usize..top + top / 8 + 1)
        .map_err(|e| e.to_string())?;
    ctx.configure_mesh()
        .disable_x_mesh()
        .x_desc("score")
        .y_desc("items")
        .x_labels(11)
        .x_label_formatter(&|x| match x {
            SegmentValue::CenterOf(b) => format!("{:.1}", *b as f64 / 10.0),
            _ => String::new(),
        })
        .label_style((FAMILY, 14))
        .axis_desc_style((FAMILY, 16))
        .draw()
        .map_err(|e| e.to_string())?;
    let fill = RGBColor(52, 120, 198);
    ctx.draw_series(counts.iter().enumerate().map(|(b, &c)| {
        let mut r = Rectangle::new(
            [(SegmentValue::Exact(b), 0), (SegmentValue::Exact(b + 1), c)],
            fill.filled(),
        );
        r.set_margin(0, 0, 6, 6);
        r
    }))
    .map_err(|e| e.to_string())?;
    ctx.draw_series(
        counts
            .iter()
            .enumerate()
            .filter(|(_, c)| **c > 0)
            .map(|(b, &c)| {
                Text::new(
                    c.to_string(),
                    (SegmentValue::CenterOf(b), c),
                    (FAMILY, 14)
                        .into_font()
                        .color(&BLACK)
                        .pos(Pos::new(HPos::Center, VPos::Bottom)),
                )
            }),
    )
    .map_err(|e| e.to_string())?;
    Ok(())
}

#[cfg(test)]
mod wrap_tests {
    use super::*;

    #[test]
    fn issue_39_footnotes_wrap_inside_the_width() {
        let measure = |t: &str| t.chars().count() as u32 * 7;
        let sig = "evaluate|quote-norm:nfkd+strip-marks+lower|fuzzy:1-levenshtein/maxlen>=0.9|match:normalized|boot:2000|seed:42|wordnet:3.0|v:0.1.0 and a very long word ".repeat(3);
        let lines = wrap(&sig, 300, measure);
        assert!(lines.len() <= FOOT_LINES && lines.len() > 1, "{lines:?}");
        assert!(lines.iter().all(|l| measure(l) <= 300), "{lines:?}");
        assert!(lines.last().unwrap().ends_with('…'));
        let short = wrap("a|b c", 300, measure);
        assert_eq!(short, vec!["a|b c".to_string()]);
        let long_word = wrap(&"x".repeat(50), 140, measure);
        assert!(long_word.iter().all(|l| measure(l) <= 140), "{long_word:?}");
        assert_eq!(long_word.concat(), "x".repeat(50));
    }

    /// The RGB pixels of a PNG, with its width.
    fn pixels(path: &Path) -> (Vec<[u8; 3]>, usize) {
        let decoder = png::Decoder::new(std::fs::File::open(path).unwrap());
        let mut reader = decoder.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut buf).unwrap();
        let px = buf[..info.buffer_size()]
            .chunks(info.color_type.samples())
            .map(|c| [c[0], c[1], c[2]])
            .collect();
        (px, info.width as usize)
    }

    #[test]
    fn issue_39_intervals_are_error_bars_and_the_footnote_fits() {
        let dir = std::env::temp_dir().join(format!("ce-chart-39-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let footnote = "values: mean [95% bootstrap CI] n · ".to_string()
            + &"corpus-eval:0.1.0|norm:nfkd+strip-marks|fuzzy:1-levenshtein/maxlen>=0.9|".repeat(3);
        let draw_one = |name: &str, ci: Option<(f64, f64)>| {
            let bars = [Bar {
                label: "a.csv".into(),
                value: 0.3,
                n: 9,
                ci,
            }];
            let chart = BarChart {
                title: "t",
                value_label: "v",
                category_label: "c",
                footnote: &footnote,
                bars: &bars,
            };
            let path = dir.join(name);
            render_bar_chart(&path, &chart).unwrap();
            pixels(&path)
        };
        let whisker = [204, 85, 0];
        let (with, width) = draw_one("with.png", Some((0.1, 0.5)));
        let (without, _) = draw_one("without.png", None);
        let dark = |px: &[[u8; 3]]| px.iter().filter(|p| **p == whisker).count();
        assert!(dark(&with) > 100, "error bars drawn");
        assert_eq!(dark(&without), 0, "no interval, no error bar");
        // Nothing is drawn in the last columns (the footnote is wrapped,
        // not cut off at the edge).
        let height = with.len() / width;
        for y in 0..height {
            for x in width - 4..width {
                assert_eq!(with[y * width + x], [255, 255, 255], "pixel at {x},{y}");
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bar(label: &str, value: f64) -> Bar {
        Bar {
            label: label.into(),
            value,
            n: 1,
            ci: None,
        }
    }

    #[test]
    fn past_forty_bars_the_highest_and_lowest_twenty_are_kept() {
        let bars: Vec<Bar> = (0..100)
            .map(|i| bar(&format!("t{i:03}"), i as f64 / 100.0))
            .collect();
        let kept = extremes(&bars);
        assert_eq!(kept.len(), 2 * EDGE_BARS);
        // Highest first: 0.99 .. 0.80, then the lowest 0.19 .. 0.00.
        assert_eq!(kept[0].label, "t099");
        assert_eq!(kept[EDGE_BARS - 1].label, "t080");
        assert_eq!(kept[EDGE_BARS].label, "t019");
        assert_eq!(kept[2 * EDGE_BARS - 1].label, "t000");
        // Ties are broken by label, so the choice is deterministic.
        let ties: Vec<Bar> = (0..50).map(|i| bar(&format!("z{i:02}"), 0.5)).collect();
        let kept = extremes(&ties);
        assert_eq!(kept[0].label, "z00");
        assert_eq!(kept[2 * EDGE_BARS - 1].label, "z49");
    }
}

/// A confusion matrix drawn as a heat map, each cell labelled with its
/// count.
#[derive(Debug, Clone)]
pub(crate) struct Heatmap<'a> {
    /// Chart title.
    pub title: &'a str,
    /// Small print under the chart (e.g. the signature).
    pub footnote: &'a str,
    /// The rater of the rows (vertical axis).
    pub rows: &'a str,
    /// The rater of the columns (horizontal axis).
    pub columns: &'a str,
    /// The values, in order, for rows and columns alike.
    pub labels: &'a [String],
    /// `counts[i][j]`: row value `i`, column value `j`.
    pub counts: &'a [Vec<u64>],
}

/// Most values a heat map draws (the table in the run's JSON has them all).
pub(crate) const MAX_HEATMAP_LABELS: usize = 30;

/// Renders `map` as a PNG at `path` (through a temporary file); at most
/// [`MAX_HEATMAP_LABELS`] values are drawn (the title says when more were
/// left out).
pub(crate) fn render_heatmap(path: &Path, map: &Heatmap) -> Result<(), ReportError> {
    render_atomically(path, |tmp| draw_heatmap(tmp, map))
}

fn draw_heatmap(path: &Path, map: &Heatmap) -> Result<(), String> {
    let k = map.labels.len().min(MAX_HEATMAP_LABELS);
    let title = if map.labels.len() > k {
        format!("{} (first {k} of {} values)", map.title, map.labels.len())
    } else {
        map.title.to_string()
    };
    let (root, main) = canvas(path, 900, map.footnote)?;
    let labels: Vec<String> = map.labels[..k].iter().map(|l| shorten(l, 18)).collect();
    let max = map.counts[..k]
        .iter()
        .flat_map(|r| r[..k].iter())
        .copied()
        .max()
        .unwrap_or(0)
        .max(1) as f64;
    let n = k.max(1);
    let mut builder = ChartBuilder::on(&main);
    builder
        .caption(&title, (FAMILY, 24).into_font().style(FontStyle::Bold))
        .margin(20)
        .margin_right(40)
        .x_label_area_size(70)
        .y_label_area_size(170);
    let mut ctx = builder
        .build_cartesian_2d(
            (0usize..n - 1).into_segmented(),
            (0usize..n - 1).into_segmented(),
        )
        .map_err(|e| e.to_string())?;
    let label_of = |v: &SegmentValue<usize>, flip: bool| match v {
        SegmentValue::CenterOf(i) if *i < k => {
            let at = if flip { k - 1 - *i } else { *i };
            labels.get(at).cloned().unwrap_or_default()
        }
        _ => String::new(),
    };
    ctx.configure_mesh()
        .disable_mesh()
        .x_desc(shorten(map.columns, 60))
        .y_desc(shorten(map.rows, 60))
        .x_labels(n)
        .y_labels(n)
        .x_label_formatter(&|v| label_of(v, false))
        .y_label_formatter(&|v| label_of(v, true))
        .label_style((FAMILY, 14))
        .axis_desc_style((FAMILY, 16))
        .draw()
        .map_err(|e| e.to_string())?;
    // Row 0 at the top.
    let cells = (0..k).flat_map(|i| (0..k).map(move |j| (i, j)));
    ctx.draw_series(cells.clone().map(|(i, j)| {
        let t = map.counts[i][j] as f64 / max;
        let shade = |lo: f64, hi: f64| (lo + (hi - lo) * t).round() as u8;
        let color = RGBColor(shade(247.0, 8.0), shade(251.0, 69.0), shade(255.0, 148.0));
        let y = k - 1 - i;
        let mut r = Rectangle::new(
            [
                (SegmentValue::Exact(j), SegmentValue::Exact(y)),
                (SegmentValue::Exact(j + 1), SegmentValue::Exact(y + 1)),
            ],
            color.filled(),
        );
        r.set_margin(1, 1, 1, 1);
        r
    }))
    .map_err(|e| e.to_string())?;
    ctx.draw_series(cells.map(|(i, j)| {
        let count = map.counts[i][j];
        let color = if count as f64 / max > 0.55 {
            WHITE
        } else {
            BLACK
        };
        Text::new(
            count.to_string(),
            (SegmentValue::CenterOf(j), SegmentValue::CenterOf(k - 1 - i)),
            (FAMILY, 18)
                .into_font()
                .color(&color)
                .pos(Pos::new(HPos::Center, VPos::Center)),
        )
    }))
    .map_err(|e| e.to_string())?;
    root.present().map_err(|e| e.to_string())?;
    Ok(())
}
