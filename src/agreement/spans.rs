//! Agreement on spans: two coders' codings of the same sources (two users
//! of one QDA project, one user of two, or the tool's quote spans against
//! a human coder's), compared code by code.
//!
//! Per code: Krippendorff's unitized alpha of the code against the rest
//! ([`super::unitized`], the sources end to end as one continuum); the
//! overlap at the level of characters, the first coder taken as the
//! reference (precision: the share of the second coder's characters the
//! first also coded; recall: the share of the first's the second also
//! coded; F1 their harmonic mean); and the units matched one to one at a
//! least overlap (shared characters over the characters either covers,
//! greatest first). A coder's overlapping selections of one code are read
//! as one unit. Each figure has a percentile-bootstrap interval over the
//! sources (a resample draws as many sources with replacement, each copy a
//! continuum of its own). Over every code, uα is given when no coder's
//! codes overlap (one segmentation each); else it is null and says so.

use super::coefficients::Coefficient;
use super::unitized::{unitized_alpha, unitized_family, Unit, UnitizedError, UnitizedFamily};
use crate::stats::SplitMix64;
use serde::Serialize;
use std::collections::BTreeSet;
use std::path::PathBuf;

/// A coded stretch of one source: characters `start..end` of source
/// `source` (an index into the sources' lengths), coded `code`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Span {
    /// The source's index.
    pub source: usize,
    /// The first character.
    pub start: u64,
    /// Past the last character.
    pub end: u64,
    /// The code.
    pub code: String,
}

/// How the spans are compared.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpanSettings {
    /// Bootstrap resamples over sources (0: no intervals).
    pub resamples: usize,
    /// The bootstrap's seed.
    pub seed: u64,
    /// The least overlap (shared characters over the characters either
    /// covers) at which two units match.
    pub min_overlap: f64,
}

impl Default for SpanSettings {
    fn default() -> Self {
        SpanSettings {
            resamples: super::coefficients::DEFAULT_RESAMPLES,
            seed: super::coefficients::DEFAULT_SEED,
            min_overlap: 0.5,
        }
    }
}

/// One code's agreement (a row of codes.csv and of agreement.json's
/// `codes`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CodeSpans {
    /// The code.
    pub code: String,
    /// Unitized alpha of the code against the rest.
    #[serde(rename = "unitized_alpha")]
    pub alpha: Coefficient,
    /// (k)uα: agreement on this code where the coders' units meet
    /// (null when a coder's codes overlap).
    #[serde(rename = "coding_unitized_alpha")]
    pub coding_alpha: Coefficient,
    /// The share of this code's coincidences that meet the other coder's
    /// units (null when a coder's codes overlap).
    pub coverage: Option<f64>,
    /// Characters both coded over the second coder's.
    pub precision: Coefficient,
    /// Characters both coded over the first coder's.
    pub recall: Coefficient,
    /// The harmonic mean of precision and recall.
    pub f1: Coefficient,
    /// The first coder's units (overlapping selections joined).
    pub units_first: usize,
    /// The second coder's units.
    pub units_second: usize,
    /// Units matched one to one at the least overlap.
    pub matched: usize,
    /// Characters the first coder coded.
    pub chars_first: u64,
    /// Characters the second coder coded.
    pub chars_second: u64,
    /// Characters both coded.
    pub chars_both: u64,
}

/// Two coders' agreement on spans, over every code and code by code.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SpanAgreement {
    /// The sources compared.
    pub sources: usize,
    /// uα over every code (null when a coder's codes overlap).
    #[serde(rename = "unitized_alpha")]
    pub alpha: Coefficient,
    /// |uα: agreement on where units lie, codes ignored (when a coder's
    /// codes overlap, that of the union of each coder's units).
    #[serde(rename = "binary_unitized_alpha")]
    pub binary_alpha: Coefficient,
    /// cuα: agreement on the codes where the coders' units meet.
    #[serde(rename = "coding_unitized_alpha")]
    pub coding_alpha: Coefficient,
    /// Each code either coder used, by name.
    pub codes: Vec<CodeSpans>,
}

/// Compares `first`'s and `second`'s spans over sources of `lengths`
/// characters.
pub fn span_agreement(
    lengths: &[u64],
    first: &[Span],
    second: &[Span],
    settings: &SpanSettings,
) -> Result<SpanAgreement, UnitizedError> {
    for (coder, spans) in [first, second].into_iter().enumerate() {
        for s in spans {
            let length = lengths.get(s.source).copied().unwrap_or(0);
            if s.start >= s.end || s.end > length {
                return Err(UnitizedError::OutOfRange {
                    coder,
                    start: s.start,
                    end: s.end,
                    length,
                });
            }
        }
    }
    let codes: BTreeSet<&str> = first
        .iter()
        .chain(second)
        .map(|s| s.code.as_str())
        .collect();
    let all: Vec<usize> = (0..lengths.len()).collect();
    let draws = resamples(lengths.len(), settings);
    // Over every code: one segmentation per coder, unless its codes
    // overlap.
    let (a, b) = (
        joined(lengths.len(), first, None),
        joined(lengths.len(), second, None),
    );
    let overlapping = |units: &[Vec<(u64, u64, String)>]| {
        units.iter().any(|u| u.windows(2).any(|w| w[1].0 < w[0].1))
    };
    let families = (!overlapping(&a) && !overlapping(&b)).then(|| {
        let family = |draw: &[usize]| continuum_family(lengths, &a, &b, draw);
        (
            family(&all),
            draws.iter().map(|d| family(d)).collect::<Vec<_>>(),
        )
    });
    let over_all = |pick: &dyn Fn(&UnitizedFamily) -> Option<f64>| match &families {
        Some((point, resampled)) => Coefficient {
            value: point.as_ref().and_then(pick),
            ci_low: None,
            ci_high: None,
            n_items: lengths.len(),
            note: None,
        }
        .with_interval(resampled.iter().map(|f| f.as_ref().and_then(pick))),
        None => Coefficient {
            value: None,
            ci_low: None,
            ci_high: None,
            n_items: lengths.len(),
            note: Some("a coder's codes overlap: no single unitization to compare".into()),
        },
    };
    let mut out = Vec::new();
    for code in codes {
        let units = |spans: &[Span]| joined(lengths.len(), spans, Some(code));
        let (a, b) = (units(first), units(second));
        let point = figures(lengths, &a, &b, &all, settings.min_overlap);
        let resampled: Vec<Figures> = draws
            .iter()
            .map(|d| figures(lengths, &a, &b, d, settings.min_overlap))
            .collect();
        let coefficient = |pick: fn(&Figures) -> Option<f64>| {
            Coefficient {
                value: pick(&point),
                ci_low: None,
                ci_high: None,
                n_items: lengths.len(),
                note: None,
            }
            .with_interval(resampled.iter().map(pick))
        };
        out.push(CodeSpans {
            code: code.to_string(),
            alpha: coefficient(|f| f.alpha),
            coding_alpha: over_all(&|f: &UnitizedFamily| value_alpha(f, code)),
            coverage: families.as_ref().and_then(|(point, _)| {
                let v = point.as_ref()?.values.iter().find(|v| v.code == code)?;
                Some(v.coverage)
            }),
            precision: coefficient(|f| f.precision),
            recall: coefficient(|f| f.recall),
            f1: coefficient(|f| f.f1),
            units_first: a.iter().map(Vec::len).sum(),
            units_second: b.iter().map(Vec::len).sum(),
            matched: point.matched,
            chars_first: point.chars.0,
            chars_second: point.chars.1,
            chars_both: point.chars.2,
        });
    }
    Ok(SpanAgreement {
        codes: out,
        alpha: over_all(&|f: &UnitizedFamily| f.alpha),
        binary_alpha: match &families {
            Some(_) => over_all(&|f: &UnitizedFamily| f.binary),
            // Where units lie needs no one code per place: each coder's
            // units of every code, joined, as one code.
            None => {
                let one = |spans: &[Span]| {
                    let as_one: Vec<Span> = spans
                        .iter()
                        .map(|s| Span {
                            code: String::new(),
                            ..s.clone()
                        })
                        .collect();
                    joined(lengths.len(), &as_one, None)
                };
                let (a, b) = (one(first), one(second));
                let value = |draw: &[usize]| continuum_alpha(lengths, &a, &b, draw);
                Coefficient {
                    value: value(&all),
                    ci_low: None,
                    ci_high: None,
                    n_items: lengths.len(),
                    note: Some(
                        "a coder's codes overlap: every code read as one (the union of each coder's units)"
                            .into(),
                    ),
                }
                .with_interval(draws.iter().map(|d| value(d)))
            }
        },
        coding_alpha: over_all(&|f: &UnitizedFamily| f.coding),
        sources: lengths.len(),
    })
}

/// A code's (k)uα in a family.
fn value_alpha(family: &UnitizedFamily, code: &str) -> Option<f64> {
    family.values.iter().find(|v| v.code == code)?.alpha
}

impl Coefficient {
    /// This coefficient with the 2.5th and 97.5th percentiles of its
    /// resampled values (none without any finite one).
    fn with_interval(mut self, values: impl Iterator<Item = Option<f64>>) -> Coefficient {
        if self.value.is_some() {
            (self.ci_low, self.ci_high) = super::coefficients::interval(values.flatten());
        }
        self
    }
}

/// Each resample's sources (drawn with replacement).
fn resamples(sources: usize, settings: &SpanSettings) -> Vec<Vec<usize>> {
    if sources == 0 {
        return Vec::new();
    }
    let base = SplitMix64::new(settings.seed);
    (0..settings.resamples)
        .map(|b| {
            let mut rng = base.skipped((b as u64).wrapping_mul(sources as u64));
            (0..sources).map(|_| rng.below(sources)).collect()
        })
        .collect()
}

/// Per source, a coder's units of `code` (of every code when None),
/// sorted; overlapping units of one code joined into one.
fn joined(sources: usize, spans: &[Span], code: Option<&str>) -> Vec<Vec<(u64, u64, String)>> {
    let mut out: Vec<Vec<(u64, u64, String)>> = vec![Vec::new(); sources];
    for s in spans.iter().filter(|s| code.is_none_or(|c| s.code == c)) {
        out[s.source].push((s.start, s.end, s.code.clone()));
    }
    for units in &mut out {
        units.sort();
        let mut merged: Vec<(u64, u64, String)> = Vec::with_capacity(units.len());
        for u in units.drain(..) {
            match merged.iter_mut().rev().find(|m| m.2 == u.2) {
                Some(m) if u.0 < m.1 => m.1 = m.1.max(u.1),
                _ => merged.push(u),
            }
        }
        merged.sort();
        *units = merged;
    }
    out
}

/// The figures of one code over some sources.
struct Figures {
    alpha: Option<f64>,
    precision: Option<f64>,
    recall: Option<f64>,
    f1: Option<f64>,
    matched: usize,
    /// Characters of the first coder, of the second, of both.
    chars: (u64, u64, u64),
}

/// One code's figures over `draw` (source indices, repeats allowed).
fn figures(
    lengths: &[u64],
    a: &[Vec<(u64, u64, String)>],
    b: &[Vec<(u64, u64, String)>],
    draw: &[usize],
    min_overlap: f64,
) -> Figures {
    let (mut ca, mut cb, mut both, mut matched) = (0, 0, 0, 0);
    for &s in draw {
        ca += a[s].iter().map(|u| u.1 - u.0).sum::<u64>();
        cb += b[s].iter().map(|u| u.1 - u.0).sum::<u64>();
        both += shared(&a[s], &b[s]);
        matched += matches(&a[s], &b[s], min_overlap);
    }
    let ratio = |x: u64, y: u64| (y > 0).then(|| x as f64 / y as f64);
    let (precision, recall) = (ratio(both, cb), ratio(both, ca));
    let f1 = match (precision, recall) {
        (Some(p), Some(r)) if p + r > 0.0 => Some(2.0 * p * r / (p + r)),
        (Some(_), Some(_)) => Some(0.0),
        _ => None,
    };
    Figures {
        alpha: continuum_alpha(lengths, a, b, draw),
        precision,
        recall,
        f1,
        matched,
        chars: (ca, cb, both),
    }
}

/// The two coders' units over `draw`'s sources end to end, and the
/// continuum's length.
fn continuum(
    lengths: &[u64],
    a: &[Vec<(u64, u64, String)>],
    b: &[Vec<(u64, u64, String)>],
    draw: &[usize],
) -> (u64, [Vec<Unit>; 2]) {
    let mut at = 0;
    let (mut ua, mut ub) = (Vec::new(), Vec::new());
    for &s in draw {
        for (units, out) in [(&a[s], &mut ua), (&b[s], &mut ub)] {
            out.extend(units.iter().map(|u| Unit {
                start: at + u.0,
                end: at + u.1,
                code: u.2.clone(),
            }));
        }
        at += lengths[s];
    }
    (at, [ua, ub])
}

/// Unitized alpha of the two coders' units over `draw`'s sources end to
/// end.
fn continuum_alpha(
    lengths: &[u64],
    a: &[Vec<(u64, u64, String)>],
    b: &[Vec<(u64, u64, String)>],
    draw: &[usize],
) -> Option<f64> {
    let (length, coders) = continuum(lengths, a, b, draw);
    unitized_alpha(length, &coders).ok().flatten()
}

/// The unitizing alpha family of the two coders' units over `draw`'s
/// sources end to end.
fn continuum_family(
    lengths: &[u64],
    a: &[Vec<(u64, u64, String)>],
    b: &[Vec<(u64, u64, String)>],
    draw: &[usize],
) -> Option<UnitizedFamily> {
    let (length, coders) = continuum(lengths, a, b, draw);
    unitized_family(length, &coders).ok()
}

/// Characters both sorted, disjoint unit lists cover.
fn shared(a: &[(u64, u64, String)], b: &[(u64, u64, String)]) -> u64 {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        let (s, e) = (a[i].0.max(b[j].0), a[i].1.min(b[j].1));
        n += e.saturating_sub(s);
        if a[i].1 <= b[j].1 {
            i += 1;
        } else {
            j += 1;
        }
    }
    n
}

/// Units matched one to one at `min_overlap` or more (shared characters
/// over the characters either covers), the greatest overlaps first.
fn matches(a: &[(u64, u64, String)], b: &[(u64, u64, String)], min_overlap: f64) -> usize {
    let mut pairs: Vec<(f64, usize, usize)> = Vec::new();
    for (i, x) in a.iter().enumerate() {
        for (j, y) in b.iter().enumerate() {
            let common = x.1.min(y.1).saturating_sub(x.0.max(y.0));
            if common == 0 {
                continue;
            }
            let union = x.1.max(y.1) - x.0.min(y.0);
            let overlap = common as f64 / union as f64;
            if overlap >= min_overlap {
                pairs.push((overlap, i, j));
            }
        }
    }
    pairs.sort_by(|p, q| q.0.total_cmp(&p.0).then(p.1.cmp(&q.1)).then(p.2.cmp(&q.2)));
    let (mut used_a, mut used_b) = (vec![false; a.len()], vec![false; b.len()]);
    let mut n = 0;
    for (_, i, j) in pairs {
        if !used_a[i] && !used_b[j] {
            used_a[i] = true;
            used_b[j] = true;
            n += 1;
        }
    }
    n
}

/// A coder compared: the file read and the user.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Coder {
    /// The project (or run folder) read.
    pub file: PathBuf,
    /// The user's name (its GUID when it has none), or `corpus-eval` for a
    /// run's spans.
    pub coder: String,
    /// The codings of this coder compared (a selection coded with two
    /// codes counts twice), within the codes and sources compared.
    pub codings: usize,
}

/// What `agreement --spans` gives (agreement.json; `--json` prints it).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SpansResult {
    /// How the figures were computed.
    pub signature: String,
    /// The reference coder (precision and recall are against it).
    pub first: Coder,
    /// The other coder.
    pub second: Coder,
    /// Sources only one project holds, or whose texts differ (not
    /// compared).
    pub sources_skipped: Vec<String>,
    /// Selections left out: empty ones, and a run's spans that could not
    /// be carried back to the project's text.
    pub selections_skipped: usize,
    /// The figures.
    #[serde(flatten)]
    pub agreement: SpanAgreement,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(source: usize, start: u64, end: u64, code: &str) -> Span {
        Span {
            source,
            start,
            end,
            code: code.into(),
        }
    }

    const NO_CI: SpanSettings = SpanSettings {
        resamples: 0,
        seed: 1,
        min_overlap: 0.5,
    };

    #[test]
    fn identical_disjoint_and_shifted_spans() {
        let lengths = [100, 60];
        let a = vec![span(0, 10, 30, "quote"), span(1, 5, 25, "quote")];
        let same = span_agreement(&lengths, &a, &a, &NO_CI).unwrap();
        let q = &same.codes[0];
        assert_eq!(
            (q.alpha.value, q.f1.value, q.matched),
            (Some(1.0), Some(1.0), 2)
        );
        assert_eq!(same.alpha.value, Some(1.0));
        // Disjoint: nothing shared, alpha below 0.
        let b = vec![span(0, 50, 70, "quote"), span(1, 30, 50, "quote")];
        let apart = span_agreement(&lengths, &a, &b, &NO_CI).unwrap();
        let q = &apart.codes[0];
        assert_eq!(
            (q.precision.value, q.recall.value, q.f1.value),
            (Some(0.0), Some(0.0), Some(0.0))
        );
        assert_eq!(q.matched, 0);
        assert!(q.alpha.value.unwrap() < 0.0);
        // Shifted by 5 of 20: 15 shared of 25 covered (0.6): matched.
        let b = vec![span(0, 15, 35, "quote"), span(1, 10, 30, "quote")];
        let shifted = span_agreement(&lengths, &a, &b, &NO_CI).unwrap();
        let q = &shifted.codes[0];
        assert_eq!((q.chars_first, q.chars_second, q.chars_both), (40, 40, 30));
        assert_eq!(q.precision.value, Some(0.75));
        assert_eq!(q.matched, 2);
        // By 11 of 20: 9 of 31 covered: not matched.
        let b = vec![span(0, 21, 41, "quote")];
        assert_eq!(
            span_agreement(&lengths, &a, &b, &NO_CI).unwrap().codes[0].matched,
            0
        );
    }

    /// A code's alpha equals the unitized alpha of that code alone over
    /// the sources end to end (the reference-checked function).
    #[test]
    fn a_codes_alpha_is_the_unitized_alpha_of_the_sources_end_to_end() {
        let lengths = [80, 40];
        let a = vec![
            span(0, 5, 20, "x"),
            span(0, 30, 50, "y"),
            span(1, 0, 10, "x"),
        ];
        let b = vec![
            span(0, 8, 22, "x"),
            span(0, 30, 45, "x"),
            span(1, 2, 12, "x"),
        ];
        let got = span_agreement(&lengths, &a, &b, &NO_CI).unwrap();
        let x = got.codes.iter().find(|c| c.code == "x").unwrap();
        let u = |s, e| Unit {
            start: s,
            end: e,
            code: "x".into(),
        };
        let want = unitized_alpha(
            120,
            &[
                vec![u(5, 20), u(80, 90)],
                vec![u(8, 22), u(30, 45), u(82, 92)],
            ],
        )
        .unwrap();
        assert_eq!(x.alpha.value, want);
        // Over every code: no coder's codes overlap, so it is given.
        assert!(got.alpha.value.is_some());
        // Overlapping codes of one coder: no overall alpha, said why; the
        // binary alpha of the union of each coder's units.
        let c = vec![span(0, 5, 20, "x"), span(0, 10, 30, "y")];
        let got = span_agreement(&lengths, &c, &b, &NO_CI).unwrap();
        assert_eq!(got.alpha.value, None);
        assert!(got.alpha.note.as_deref().unwrap().contains("overlap"));
        let one = |s, e| Unit {
            start: s,
            end: e,
            code: String::new(),
        };
        let want = unitized_alpha(
            120,
            &[vec![one(5, 30)], vec![one(8, 22), one(30, 45), one(82, 92)]],
        )
        .unwrap();
        assert_eq!(got.binary_alpha.value, want);
        assert!(want.is_some());
        assert!(got.binary_alpha.note.as_deref().unwrap().contains("union"));
    }

    /// Same places, one code swapped: |uα is 1 (the units lie alike),
    /// cuα and the swapped codes' (k)uα fall below 1.
    #[test]
    fn the_binary_and_coding_alphas_tell_places_from_codes() {
        let lengths = [100, 100];
        let a = vec![
            span(0, 10, 30, "x"),
            span(0, 40, 60, "y"),
            span(1, 10, 30, "x"),
            span(1, 50, 70, "y"),
        ];
        let mut b = a.clone();
        b[1].code = "x".into();
        let got = span_agreement(&lengths, &a, &b, &NO_CI).unwrap();
        assert_eq!(got.binary_alpha.value, Some(1.0));
        let coding = got.coding_alpha.value.unwrap();
        assert!(coding < 1.0, "{coding}");
        assert!(got.alpha.value.unwrap() < 1.0);
        let x = got.codes.iter().find(|c| c.code == "x").unwrap();
        assert!(x.coding_alpha.value.unwrap() < 1.0);
        assert_eq!(x.coverage, Some(1.0));
        // Identical codings: every figure 1.
        let same = span_agreement(&lengths, &a, &a, &NO_CI).unwrap();
        assert_eq!(
            (same.binary_alpha.value, same.coding_alpha.value),
            (Some(1.0), Some(1.0))
        );
    }

    #[test]
    fn overlapping_selections_of_one_code_are_one_unit_and_bad_spans_are_named() {
        let a = vec![span(0, 5, 20, "x"), span(0, 10, 30, "x")];
        let b = vec![span(0, 5, 30, "x")];
        let got = span_agreement(&[50], &a, &b, &NO_CI).unwrap();
        assert_eq!((got.codes[0].units_first, got.codes[0].matched), (1, 1));
        assert_eq!(got.codes[0].alpha.value, Some(1.0));
        assert!(matches!(
            span_agreement(&[50], &[span(0, 40, 60, "x")], &b, &NO_CI),
            Err(UnitizedError::OutOfRange { coder: 0, .. })
        ));
    }

    #[test]
    fn the_bootstrap_over_sources_brackets_the_value_and_repeats() {
        let lengths: Vec<u64> = vec![100; 12];
        let mut a = Vec::new();
        let mut b = Vec::new();
        for s in 0..12 {
            a.push(span(s, 10, 40, "q"));
            b.push(span(s, 10 + (s as u64 % 4) * 3, 40, "q"));
        }
        let settings = SpanSettings {
            resamples: 300,
            seed: 7,
            min_overlap: 0.5,
        };
        let one = span_agreement(&lengths, &a, &b, &settings).unwrap();
        let two = span_agreement(&lengths, &a, &b, &settings).unwrap();
        assert_eq!(one, two);
        let alpha = &one.codes[0].alpha;
        let (lo, v, hi) = (
            alpha.ci_low.unwrap(),
            alpha.value.unwrap(),
            alpha.ci_high.unwrap(),
        );
        assert!(lo <= v && v <= hi && lo < hi, "{lo} {v} {hi}");
        let f1 = &one.codes[0].f1;
        assert!(f1.ci_low.unwrap() <= f1.value.unwrap());
    }
}
