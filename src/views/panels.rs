//! The six-panel figure of answer and citation metrics (hotpot_metrics.png):
//! answer F1 vs EM bars, citation precision/recall/F1 bars, the answer F1
//! and citation F1 histograms with their means, a heatmap of every metric
//! per example, and a radar chart of the averages.
//!
//! Per-example panels stay readable for any number of examples: past
//! [`MAX_BAR_GROUPS`] (bars) or [`MAX_HEATMAP_COLUMNS`] (heatmap) examples,
//! consecutive examples are averaged in equal bins and the panel says so.

use super::charts::register_fonts;
use crate::report::ReportError;
use crate::stats::mean;
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::FontStyle;

const FAMILY: &str = "sans-serif";
/// Figure size in pixels.
pub(crate) const SIZE: (u32, u32) = (1800, 1200);
/// Most bar groups a per-example bar panel draws before binning.
pub(crate) const MAX_BAR_GROUPS: usize = 40;
/// Most heatmap columns before binning.
pub(crate) const MAX_HEATMAP_COLUMNS: usize = 100;

/// The data of the figure: five per-example series of equal length.
#[derive(Debug, Clone)]
pub(crate) struct MetricPanels<'a> {
    /// Figure title.
    pub title: &'a str,
    /// What the three set metrics are about ("Citation", "Supporting fact").
    pub set_label: &'a str,
    /// Answer F1 per example.
    pub answer_f1: &'a [f64],
    /// Answer EM per example.
    pub answer_em: &'a [f64],
    /// Citation precision per example.
    pub precision: &'a [f64],
    /// Citation recall per example.
    pub recall: &'a [f64],
    /// Citation F1 per example.
    pub set_f1: &'a [f64],
    /// Small print at the bottom (signature).
    pub footnote: &'a str,
}

const TEAL: RGBColor = RGBColor(78, 205, 196);
const CORAL: RGBColor = RGBColor(255, 107, 107);
const MINT: RGBColor = RGBColor(149, 225, 211);
const ROSE: RGBColor = RGBColor(243, 129, 129);
const ORANGE: RGBColor = RGBColor(255, 170, 90);

/// Consecutive examples averaged into at most `max` bins: the bin means
/// and the bin width (1 when no binning was needed).
pub(crate) fn bin_means(xs: &[f64], max: usize) -> (Vec<f64>, usize) {
    if xs.len() <= max || max == 0 {
        return (xs.to_vec(), 1);
    }
    let width = xs.len().div_ceil(max);
    let means = xs
        .chunks(width)
        .map(|c| c.iter().sum::<f64>() / c.len() as f64)
        .collect();
    (means, width)
}

/// RdYlGn colormap (ColorBrewer, 11 classes) at t in [0, 1].
pub(crate) fn rd_yl_gn(t: f64) -> RGBColor {
    const STOPS: [(u8, u8, u8); 11] = [
        (165, 0, 38),
        (215, 48, 39),
        (244, 109, 67),
        (253, 174, 97),
        (254, 224, 139),
        (255, 255, 191),
        (217, 239, 139),
        (166, 217, 106),
        (102, 189, 99),
        (26, 152, 80),
        (0, 104, 55),
    ];
    let t = if t.is_finite() {
        t.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let x = t * 10.0;
    let i = (x.floor() as usize).min(9);
    let f = x - i as f64;
    let (a, b) = (STOPS[i], STOPS[i + 1]);
    let lerp = |p: u8, q: u8| (f64::from(p) + (f64::from(q) - f64::from(p)) * f).round() as u8;
    RGBColor(lerp(a.0, b.0), lerp(a.1, b.1), lerp(a.2, b.2))
}

type Area<'a> = DrawingArea<BitMapBackend<'a>, Shift>;

fn err<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

/// Renders the figure and returns the PNG file's bytes.
pub(crate) fn render_metric_panels(data: &MetricPanels) -> Result<Vec<u8>, ReportError> {
    register_fonts();
    let fail = |message: String| ReportError::Chart {
        path: "hotpot_metrics.png".into(),
        message,
    };
    let mut rgb = vec![0u8; SIZE.0 as usize * SIZE.1 as usize * 3];
    draw(&mut rgb, data).map_err(fail)?;
    encode_png(&rgb, SIZE).map_err(fail)
}

/// Encodes 8-bit RGB pixels as a PNG (see [`crate::report::pngenc`]).
pub(crate) fn encode_png(rgb: &[u8], (width, height): (u32, u32)) -> Result<Vec<u8>, String> {
    crate::report::pngenc::encode_rgb(rgb, width, height)
}

/// Draws the figure into `rgb`: panels 1 to 5 each on its own canvas, in
/// parallel with the title and footnote, then copied into place; the radar
/// last, on the figure itself (its axis labels reach into the next panel).
fn draw(rgb: &mut [u8], d: &MetricPanels) -> Result<(), String> {
    use rayon::prelude::*;
    // The panels' rectangles, as plotters splits the figure's body.
    let rects: Vec<(std::ops::Range<i32>, std::ops::Range<i32>)> = {
        let root = BitMapBackend::with_buffer(rgb, SIZE).into_drawing_area();
        body_panels(&root)
            .iter()
            .map(|panel| panel.get_pixel_range())
            .collect()
    };
    let (drawn, whole) = rayon::join(
        || -> Vec<Result<Vec<u8>, String>> {
            rects[..5]
                .par_iter()
                .enumerate()
                .map(|(k, (xs, ys))| {
                    let size = ((xs.end - xs.start) as u32, (ys.end - ys.start) as u32);
                    // White, as the figure's background.
                    let mut canvas = vec![255u8; size.0 as usize * size.1 as usize * 3];
                    {
                        let area =
                            BitMapBackend::with_buffer(&mut canvas, size).into_drawing_area();
                        draw_panel(k, &area, d)?;
                        area.present().map_err(err)?;
                    }
                    Ok(canvas)
                })
                .collect()
        },
        || draw_title_and_footnote(rgb, d),
    );
    whole?;
    let stride = SIZE.0 as usize * 3;
    for ((xs, ys), canvas) in rects.iter().zip(drawn) {
        let canvas = canvas?;
        let row = (xs.end - xs.start) as usize * 3;
        for (y, line) in (ys.start..ys.end).zip(canvas.chunks_exact(row)) {
            let at = y as usize * stride + xs.start as usize * 3;
            rgb[at..at + row].copy_from_slice(line);
        }
    }
    let root = BitMapBackend::with_buffer(rgb, SIZE).into_drawing_area();
    draw_panel(5, &body_panels(&root)[5], d)?;
    root.present().map_err(err)
}

/// The six panel areas of the figure's body (below the title, above the
/// footnote), left to right and top to bottom.
fn body_panels<'a>(root: &Area<'a>) -> Vec<Area<'a>> {
    let (_, rest) = root.split_vertically(56);
    let (body, _) = rest.split_vertically(SIZE.1 - 56 - 40);
    body.split_evenly((2, 3))
}

/// The figure's white background, title and footnote.
fn draw_title_and_footnote(rgb: &mut [u8], d: &MetricPanels) -> Result<(), String> {
    let root = BitMapBackend::with_buffer(rgb, SIZE).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let (top, rest) = root.split_vertically(56);
    top.draw(&Text::new(
        d.title.to_string(),
        (SIZE.0 as i32 / 2, 16),
        (FAMILY, 28)
            .into_font()
            .style(FontStyle::Bold)
            .color(&BLACK)
            .pos(Pos::new(HPos::Center, VPos::Top)),
    ))
    .map_err(err)?;
    let (_, foot) = rest.split_vertically(SIZE.1 - 56 - 40);
    let chars: Vec<char> = d.footnote.chars().collect();
    for (k, line) in chars.chunks(240).take(2).enumerate() {
        foot.draw(&Text::new(
            line.iter().collect::<String>(),
            (10, 3 + 17 * k as i32),
            (FAMILY, 12).into_font().color(&RGBColor(90, 90, 90)),
        ))
        .map_err(err)?;
    }
    root.present().map_err(err)
}

/// Panel `k` (0 to 5, left to right, top to bottom) on `area`.
fn draw_panel(k: usize, area: &Area, d: &MetricPanels) -> Result<(), String> {
    let n = d.answer_f1.len();
    match k {
        0 => grouped_bars(
            area,
            "1. Answer F1 vs Answer EM",
            n,
            &[
                ("Answer F1", d.answer_f1, TEAL),
                ("Answer EM", d.answer_em, CORAL),
            ],
        ),
        1 => grouped_bars(
            area,
            &format!("2. {} metrics (Prec, Rec, F1)", d.set_label),
            n,
            &[
                ("Precision", d.precision, MINT),
                ("Recall", d.recall, ROSE),
                ("F1", d.set_f1, ORANGE),
            ],
        ),
        2 => histogram(
            area,
            "3. Answer F1 distribution",
            "Answer F1 score",
            d.answer_f1,
            TEAL,
        ),
        3 => histogram(
            area,
            &format!("4. {} F1 distribution", d.set_label),
            &format!("{} F1 score", d.set_label),
            d.set_f1,
            ORANGE,
        ),
        4 => {
            let short = if d.set_label == "Citation" {
                "Cit"
            } else {
                "SP"
            };
            let rows = [
                ("Ans F1".to_string(), d.answer_f1),
                ("Ans EM".to_string(), d.answer_em),
                (format!("{short} Prec"), d.precision),
                (format!("{short} Rec"), d.recall),
                (format!("{short} F1"), d.set_f1),
            ];
            heatmap(area, &rows)
        }
        _ => {
            let averages: Vec<(String, f64)> = vec![
                ("Answer F1".into(), mean(d.answer_f1)),
                ("Answer EM".into(), mean(d.answer_em)),
                (format!("{} Precision", d.set_label), mean(d.precision)),
                (format!("{} Recall", d.set_label), mean(d.recall)),
                (format!("{} F1", d.set_label), mean(d.set_f1)),
            ];
            radar(area, &averages)
        }
    }
}

type ValueChart<'a, 'b> =
    ChartContext<'a, BitMapBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// Draws the series legend in a white box at `position`.
fn draw_legend<'a, 'b: 'a>(
    chart: &mut ValueChart<'a, 'b>,
    position: SeriesLabelPosition,
) -> Result<(), String> {
    chart
        .configure_series_labels()
        .position(position)
        .background_style(WHITE.mix(0.85))
        .border_style(RGBColor(180, 180, 180))
        .label_font((FAMILY, 13))
        .draw()
        .map_err(err)
}

fn x_axis_name(n: usize, width: usize) -> String {
    if width == 1 {
        format!("examples (n={n})")
    } else {
        format!("examples, mean per bin of {width} consecutive (n={n})")
    }
}

fn grouped_bars(
    area: &Area,
    title: &str,
    n: usize,
    series: &[(&str, &[f64], RGBColor)],
) -> Result<(), String> {
    let binned: Vec<(Vec<f64>, usize)> = series
        .iter()
        .map(|(_, xs, _)| bin_means(xs, MAX_BAR_GROUPS))
        .collect();
    let groups = binned.first().map(|b| b.0.len()).unwrap_or(0);
    let width = binned.first().map(|b| b.1).unwrap_or(1);
    let mut chart = ChartBuilder::on(area)
        .caption(title, (FAMILY, 20).into_font().style(FontStyle::Bold))
        .margin(12)
        .x_label_area_size(44)
        .y_label_area_size(48)
        .build_cartesian_2d(-0.5f64..groups.max(1) as f64 - 0.5, 0f64..1.1f64)
        .map_err(err)?;
    let label = |x: &f64| -> String {
        if *x < -0.01 || (*x - x.round()).abs() > 0.01 || x.round() as usize >= groups {
            return String::new();
        }
        let i = x.round() as usize;
        if width == 1 {
            format!("#{}", i + 1)
        } else {
            format!("{}", i * width + 1)
        }
    };
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(groups.clamp(1, 12))
        .x_label_formatter(&|x| label(x))
        .y_labels(6)
        .y_desc("Score")
        .x_desc(x_axis_name(n, width))
        .label_style((FAMILY, 12))
        .axis_desc_style((FAMILY, 14))
        .light_line_style(TRANSPARENT)
        .draw()
        .map_err(err)?;
    let k = series.len() as f64;
    let bar = 0.8 / k;
    for (s, ((name, _, color), (values, _))) in series.iter().zip(&binned).enumerate() {
        let color = *color;
        chart
            .draw_series(values.iter().enumerate().map(move |(i, v)| {
                let x0 = i as f64 - 0.4 + bar * s as f64;
                Rectangle::new(
                    [(x0, 0.0), (x0 + bar, v.clamp(0.0, 1.1))],
                    color.mix(0.85).filled(),
                )
            }))
            .map_err(err)?
            .label(*name)
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 14, y + 5)], color.filled()));
    }
    if groups == 0 {
        chart
            .draw_series(std::iter::once(Text::new(
                "no data".to_string(),
                (-0.1, 0.5),
                (FAMILY, 18).into_font(),
            )))
            .map_err(err)?;
    }
    draw_legend(&mut chart, SeriesLabelPosition::UpperRight)
}

fn histogram(
    area: &Area,
    title: &str,
    axis: &str,
    xs: &[f64],
    color: RGBColor,
) -> Result<(), String> {
    let mut counts = [0usize; 10];
    for &x in xs {
        let b = if x.is_finite() {
            ((x.clamp(0.0, 1.0) * 10.0).floor() as usize).min(9)
        } else {
            0
        };
        counts[b] += 1;
    }
    let top = (*counts.iter().max().unwrap_or(&0)).max(1) as f64 * 1.15;
    let m = mean(xs);
    let mut chart = ChartBuilder::on(area)
        .caption(title, (FAMILY, 20).into_font().style(FontStyle::Bold))
        .margin(12)
        .x_label_area_size(44)
        .y_label_area_size(56)
        .build_cartesian_2d(0f64..1f64, 0f64..top)
        .map_err(err)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(11)
        .x_label_formatter(&|x| format!("{x:.1}"))
        .y_label_formatter(&|y| format!("{y:.0}"))
        .x_desc(axis)
        .y_desc("Frequency")
        .label_style((FAMILY, 12))
        .axis_desc_style((FAMILY, 14))
        .light_line_style(TRANSPARENT)
        .draw()
        .map_err(err)?;
    chart
        .draw_series(counts.iter().enumerate().map(|(i, c)| {
            let x0 = i as f64 / 10.0;
            Rectangle::new([(x0, 0.0), (x0 + 0.1, *c as f64)], color.mix(0.7).filled())
        }))
        .map_err(err)?;
    chart
        .draw_series(counts.iter().enumerate().map(|(i, c)| {
            let x0 = i as f64 / 10.0;
            Rectangle::new([(x0, 0.0), (x0 + 0.1, *c as f64)], BLACK.stroke_width(1))
        }))
        .map_err(err)?;
    chart
        .draw_series(DashedLineSeries::new(
            vec![(m, 0.0), (m, top)],
            10,
            6,
            RED.stroke_width(2),
        ))
        .map_err(err)?
        .label(format!("Mean: {m:.3} (n={})", xs.len()))
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], RED.stroke_width(2)));
    draw_legend(&mut chart, SeriesLabelPosition::UpperLeft)
}

fn heatmap(area: &Area, rows: &[(String, &[f64])]) -> Result<(), String> {
    let (main, bar) = area.split_horizontally(area.dim_in_pixel().0.saturating_sub(80));
    let binned: Vec<(Vec<f64>, usize)> = rows
        .iter()
        .map(|(_, xs)| bin_means(xs, MAX_HEATMAP_COLUMNS))
        .collect();
    let cols = binned.first().map(|b| b.0.len()).unwrap_or(0);
    let width = binned.first().map(|b| b.1).unwrap_or(1);
    let n = rows.first().map(|r| r.1.len()).unwrap_or(0);
    let nrows = rows.len();
    let mut chart = ChartBuilder::on(&main)
        .caption(
            "5. Performance heatmap",
            (FAMILY, 20).into_font().style(FontStyle::Bold),
        )
        .margin(12)
        .x_label_area_size(44)
        .y_label_area_size(80)
        .build_cartesian_2d(
            -0.5f64..cols.max(1) as f64 - 0.5,
            (0..nrows.saturating_sub(1)).into_segmented(),
        )
        .map_err(err)?;
    let names: Vec<String> = rows.iter().map(|r| r.0.clone()).collect();
    chart
        .configure_mesh()
        .disable_mesh()
        .x_labels(cols.clamp(1, 10))
        .x_label_formatter(&|x| {
            let i = x.round() as usize;
            if *x < -0.01 || (*x - x.round()).abs() > 0.01 || i >= cols {
                String::new()
            } else if width == 1 {
                format!("#{}", i + 1)
            } else {
                format!("{}", i * width + 1)
            }
        })
        .y_labels(nrows)
        .y_label_formatter(&|y| match y {
            SegmentValue::CenterOf(r) => names
                .get(nrows.saturating_sub(1 + *r))
                .cloned()
                .unwrap_or_default(),
            _ => String::new(),
        })
        .x_desc(x_axis_name(n, width))
        .label_style((FAMILY, 12))
        .axis_desc_style((FAMILY, 14))
        .draw()
        .map_err(err)?;
    for (r, (values, _)) in binned.iter().enumerate() {
        let row = nrows - 1 - r;
        chart
            .draw_series(values.iter().enumerate().map(|(i, v)| {
                Rectangle::new(
                    [
                        (i as f64 - 0.5, SegmentValue::Exact(row)),
                        (i as f64 + 0.5, SegmentValue::Exact(row + 1)),
                    ],
                    rd_yl_gn(*v).filled(),
                )
            }))
            .map_err(err)?;
    }
    // Colour bar.
    let (w, h) = bar.dim_in_pixel();
    let (x0, x1) = (8i32, 30i32);
    let (y0, y1) = (50i32, h as i32 - 60);
    let span = (y1 - y0).max(1);
    for y in y0..y1 {
        let t = 1.0 - f64::from(y - y0) / f64::from(span);
        bar.draw(&Rectangle::new(
            [(x0, y), (x1, y + 1)],
            rd_yl_gn(t).filled(),
        ))
        .map_err(err)?;
    }
    bar.draw(&Rectangle::new([(x0, y0), (x1, y1)], BLACK.stroke_width(1)))
        .map_err(err)?;
    for (t, label) in [(1.0, "1.0"), (0.5, "0.5"), (0.0, "0.0")] {
        let y = y0 + ((1.0 - t) * f64::from(span)) as i32;
        bar.draw(&Text::new(
            label,
            (x1 + 4, y),
            (FAMILY, 12)
                .into_font()
                .color(&BLACK)
                .pos(Pos::new(HPos::Left, VPos::Center)),
        ))
        .map_err(err)?;
    }
    bar.draw(&Text::new(
        "Score",
        ((w as i32) / 2 - 10, y0 - 18),
        (FAMILY, 13).into_font().style(FontStyle::Bold),
    ))
    .map_err(err)?;
    Ok(())
}

fn radar(area: &Area, axes: &[(String, f64)]) -> Result<(), String> {
    let (w, h) = area.dim_in_pixel();
    area.draw(&Text::new(
        "6. Overall performance profile (averages)",
        (w as i32 / 2, 14),
        (FAMILY, 20)
            .into_font()
            .style(FontStyle::Bold)
            .color(&BLACK)
            .pos(Pos::new(HPos::Center, VPos::Top)),
    ))
    .map_err(err)?;
    let cx = w as f64 / 2.0;
    let cy = h as f64 / 2.0 + 20.0;
    let radius = (w.min(h) as f64 / 2.0 - 80.0).max(40.0);
    let k = axes.len().max(1);
    let angle = |i: usize| std::f64::consts::TAU * i as f64 / k as f64;
    let at = |i: usize, v: f64| -> (i32, i32) {
        let a = angle(i);
        (
            (cx + radius * v * a.cos()).round() as i32,
            (cy - radius * v * a.sin()).round() as i32,
        )
    };
    let grid = RGBColor(200, 200, 200);
    for ring in 1..=5 {
        let v = f64::from(ring) / 5.0;
        let r = (radius * v).round() as i32;
        area.draw(&Circle::new(
            (cx.round() as i32, cy.round() as i32),
            r,
            grid.stroke_width(1),
        ))
        .map_err(err)?;
        area.draw(&Text::new(
            format!("{v:.1}"),
            (cx.round() as i32 + 3, cy.round() as i32 - r - 2),
            (FAMILY, 11).into_font().color(&RGBColor(120, 120, 120)),
        ))
        .map_err(err)?;
    }
    for (i, (label, _)) in axes.iter().enumerate() {
        area.draw(&PathElement::new(
            vec![at(i, 0.0), at(i, 1.0)],
            grid.stroke_width(1),
        ))
        .map_err(err)?;
        let a = angle(i);
        let hpos = if a.cos() > 0.3 {
            HPos::Left
        } else if a.cos() < -0.3 {
            HPos::Right
        } else {
            HPos::Center
        };
        area.draw(&Text::new(
            label.clone(),
            at(i, 1.1),
            (FAMILY, 14)
                .into_font()
                .style(FontStyle::Bold)
                .color(&BLACK)
                .pos(Pos::new(hpos, VPos::Center)),
        ))
        .map_err(err)?;
    }
    let points: Vec<(i32, i32)> = axes
        .iter()
        .enumerate()
        .map(|(i, (_, v))| at(i, v.clamp(0.0, 1.0)))
        .collect();
    area.draw(&Polygon::new(points.clone(), CORAL.mix(0.25).filled()))
        .map_err(err)?;
    let mut closed = points.clone();
    if let Some(first) = points.first() {
        closed.push(*first);
    }
    area.draw(&PathElement::new(closed, CORAL.stroke_width(2)))
        .map_err(err)?;
    for (p, (_, v)) in points.iter().zip(axes) {
        area.draw(&Circle::new(*p, 4, CORAL.filled()))
            .map_err(err)?;
        area.draw(&Text::new(
            format!("{v:.3}"),
            (p.0 + 6, p.1 - 12),
            (FAMILY, 12).into_font(),
        ))
        .map_err(err)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binning_keeps_means() {
        let xs: Vec<f64> = (0..100).map(|i| f64::from(i % 2)).collect();
        let (b, w) = bin_means(&xs, 40);
        assert_eq!(w, 3);
        assert_eq!(b.len(), 34);
        assert!((b[0] - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!(bin_means(&[0.5], 40), (vec![0.5], 1));
    }

    #[test]
    fn colormap_ends() {
        assert_eq!(rd_yl_gn(0.0), RGBColor(165, 0, 38));
        assert_eq!(rd_yl_gn(1.0), RGBColor(0, 104, 55));
        assert_eq!(rd_yl_gn(0.5), RGBColor(255, 255, 191));
    }
}
