//! Krippendorff's unitized alpha (uα): how far coders agree on where the
//! units of a continuum (a text's characters) lie and how they are coded,
//! with chance agreement removed.
//!
//! Each coder's units, with the gaps between them, cut the continuum into
//! segments. The observed coincidences are the overlaps of two coders'
//! segments, tag by tag (`o_ck = Σ_{i≠j} Σ_{g of i, tagged c} Σ_{h of j,
//! tagged k} |g ∩ h| / (m - 1)`, a gap being a tag of its own); the
//! expected ones are `e_ck = l·· (l_c· l_·k - [c = k] Σ_{s tagged c} w(s)) /
//! (l··² - Σ_s w(s))`, where `w(s)` is a unit's length squared and a gap's
//! length; and `uα = 1 - (l·· - Σ_c o_cc) / (l·· - Σ_c e_cc)`
//! (Krippendorff, Mathet, Bouvry and Widlöcher 2016, Quality & Quantity
//! 50, the coincidence-matrix form), equal to the `krippendorff-unitized-
//! alpha` package's to 1e-9 on the cases `scripts/unitized_alpha_reference.py`
//! generates (fixtures/agreement-unitized). Several texts are one
//! continuum, end to end. A code's own uα reads the coders' other codes as
//! gaps.

use std::collections::BTreeSet;

/// One coder's unit: characters `start..end` of the continuum, coded
/// `code`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Unit {
    /// The first character.
    pub start: u64,
    /// Past the last character.
    pub end: u64,
    /// Its code.
    pub code: String,
}

/// Why a set of unitizations cannot be compared.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UnitizedError {
    /// Fewer than two coders.
    #[error("unitized alpha needs two coders or more, got {0}")]
    TooFewCoders(usize),
    /// A unit empty or past the continuum's end.
    #[error("coder {coder}: unit {start}..{end} lies outside 0..{length} or is empty")]
    OutOfRange {
        /// The coder's index.
        coder: usize,
        /// The unit's start.
        start: u64,
        /// The unit's end.
        end: u64,
        /// The continuum's length.
        length: u64,
    },
    /// Two units of one coder overlap.
    #[error("coder {coder}: units {first:?} and {second:?} overlap")]
    Overlap {
        /// The coder's index.
        coder: usize,
        /// The earlier unit (start, end).
        first: (u64, u64),
        /// The later unit (start, end).
        second: (u64, u64),
    },
}

/// uα of `coders`' units over a continuum of `length` characters; None
/// when no disagreement can be expected (every coder one segment of one
/// tag, all alike).
pub fn unitized_alpha(length: u64, coders: &[Vec<Unit>]) -> Result<Option<f64>, UnitizedError> {
    let tags: BTreeSet<&str> = coders.iter().flatten().map(|u| u.code.as_str()).collect();
    let tags: Vec<&str> = tags.into_iter().collect();
    let segments = segmentations(length, coders, |code| {
        tags.binary_search(&code).ok().map(|i| i + 1)
    })?;
    Ok(alpha(&segments, tags.len() + 1))
}

/// uα of `code` against the rest: the coders' units of other codes read
/// as gaps.
pub fn unitized_alpha_of(
    length: u64,
    coders: &[Vec<Unit>],
    code: &str,
) -> Result<Option<f64>, UnitizedError> {
    let only: Vec<Vec<Unit>> = coders
        .iter()
        .map(|units| units.iter().filter(|u| u.code == code).cloned().collect())
        .collect();
    unitized_alpha(length, &only)
}

/// A segment: (start, end, tag), tag 0 a gap.
type Segment = (u64, u64, usize);

/// Each coder's units and the gaps between them, covering `0..length` in
/// order, tagged by `tag` (None: a gap).
fn segmentations(
    length: u64,
    coders: &[Vec<Unit>],
    tag: impl Fn(&str) -> Option<usize>,
) -> Result<Vec<Vec<Segment>>, UnitizedError> {
    if coders.len() < 2 {
        return Err(UnitizedError::TooFewCoders(coders.len()));
    }
    let mut out = Vec::with_capacity(coders.len());
    for (coder, units) in coders.iter().enumerate() {
        let mut units: Vec<&Unit> = units.iter().collect();
        units.sort();
        let mut segments = Vec::with_capacity(2 * units.len() + 1);
        let mut at = 0;
        let mut last: Option<&Unit> = None;
        for u in units {
            if u.start >= u.end || u.end > length {
                return Err(UnitizedError::OutOfRange {
                    coder,
                    start: u.start,
                    end: u.end,
                    length,
                });
            }
            if let Some(prev) = last.filter(|p| u.start < p.end) {
                return Err(UnitizedError::Overlap {
                    coder,
                    first: (prev.start, prev.end),
                    second: (u.start, u.end),
                });
            }
            if u.start > at {
                segments.push((at, u.start, 0));
            }
            segments.push((u.start, u.end, tag(&u.code).unwrap_or(0)));
            at = u.end;
            last = Some(u);
        }
        if at < length {
            segments.push((at, length, 0));
        }
        out.push(segments);
    }
    Ok(out)
}

/// The coincidences of segmentations over `tags` tags (0 the gaps'),
/// each covering the continuum in order.
struct Coincidences {
    /// Observed: `o[c][k]`, symmetric, each ordered pair of coders'
    /// overlaps over `m - 1`.
    o: Vec<Vec<f64>>,
    /// Row sums `l_c·`.
    rows: Vec<f64>,
    /// `l··`.
    total: f64,
    /// Σ w(s) per tag: a unit's length squared, a gap's length.
    weight: Vec<f64>,
}

impl Coincidences {
    fn new(coders: &[Vec<Segment>], tags: usize) -> Coincidences {
        let m = coders.len();
        let mut o = vec![vec![0.0f64; tags]; tags];
        for i in 0..m {
            for j in i + 1..m {
                let (a, b) = (&coders[i], &coders[j]);
                let (mut x, mut y) = (0, 0);
                while x < a.len() && y < b.len() {
                    let (s, e) = (a[x].0.max(b[y].0), a[x].1.min(b[y].1));
                    if s < e {
                        let len = (e - s) as f64;
                        o[a[x].2][b[y].2] += len;
                        o[b[y].2][a[x].2] += len;
                    }
                    if a[x].1 <= b[y].1 {
                        x += 1;
                    } else {
                        y += 1;
                    }
                }
            }
        }
        let scale = 1.0 / (m - 1) as f64;
        for row in &mut o {
            for v in row.iter_mut() {
                *v *= scale;
            }
        }
        let rows: Vec<f64> = o.iter().map(|r| r.iter().sum()).collect();
        let total: f64 = rows.iter().sum();
        let mut weight = vec![0.0f64; tags];
        for s in coders.iter().flatten() {
            let len = (s.1 - s.0) as f64;
            weight[s.2] += if s.2 == 0 { len } else { len * len };
        }
        Coincidences {
            o,
            rows,
            total,
            weight,
        }
    }

    /// The expected coincidences' denominator, `l·· - Σ w / l··`.
    fn spread(&self) -> f64 {
        self.total - self.weight.iter().sum::<f64>() / self.total
    }
}

/// `1 - observed / expected` disagreement; None when none is expected.
fn ratio_alpha(observed: f64, expected: f64) -> Option<f64> {
    if expected == 0.0 || !expected.is_finite() {
        return None;
    }
    let value = 1.0 - observed / expected;
    value.is_finite().then_some(value + 0.0)
}

/// uα of segmentations over `tags` tags (0 the gaps'), each covering the
/// continuum in order.
fn alpha(coders: &[Vec<Segment>], tags: usize) -> Option<f64> {
    nominal(&Coincidences::new(coders, tags))
}

/// uα (2019, eq. 34): off-diagonal observed over expected coincidences.
fn nominal(c: &Coincidences) -> Option<f64> {
    let spread = c.spread();
    if c.total == 0.0 || spread == 0.0 {
        return None;
    }
    let tags = c.rows.len();
    let observed = c.total - (0..tags).map(|t| c.o[t][t]).sum::<f64>();
    let expected = c.total
        - (0..tags)
            .map(|t| (c.rows[t] * c.rows[t] - c.weight[t]) / spread)
            .sum::<f64>();
    ratio_alpha(observed, expected)
}

/// The unitizing alpha family of one comparison (Krippendorff 2019,
/// Content Analysis, 4th ed., section 12.6).
#[derive(Debug, Clone, PartialEq)]
pub struct UnitizedFamily {
    /// uα: agreement on where units lie and how they are coded (eq. 34).
    pub alpha: Option<f64>,
    /// |uα: agreement on where units lie, codes ignored: the coincidences
    /// collapsed to gap against unit (eq. 35).
    pub binary: Option<f64>,
    /// cuα: agreement on the codes where the coders' units meet, gaps
    /// ignored (eqs. 36-37).
    pub coding: Option<f64>,
    /// Each code's (k)uα, by code.
    pub values: Vec<ValueAlpha>,
}

/// One code's coding alpha within the family.
#[derive(Debug, Clone, PartialEq)]
pub struct ValueAlpha {
    /// The code.
    pub code: String,
    /// (k)uα: agreement on this code where the coders' units meet (eq.
    /// 38); None when none of its characters meets another coder's unit,
    /// or when no disagreement is expected (one code only: quallmer gives
    /// 1 there).
    pub alpha: Option<f64>,
    /// The share of this code's coincidences that meet another coder's
    /// unit (the rest meet gaps).
    pub coverage: f64,
}

/// uα, |uα, cuα and each code's (k)uα of `coders`' units over a
/// continuum of `length` characters, equal to quallmer 0.4.0's
/// `compute_alpha_u` to 1e-9 on the cases of
/// `scripts/unitized_alpha_family_reference.R` (Krippendorff's figure
/// 12.11 among them). Undefined figures (no expected disagreement) are
/// None.
pub fn unitized_family(length: u64, coders: &[Vec<Unit>]) -> Result<UnitizedFamily, UnitizedError> {
    let tags: BTreeSet<&str> = coders.iter().flatten().map(|u| u.code.as_str()).collect();
    let tags: Vec<&str> = tags.into_iter().collect();
    let segments = segmentations(length, coders, |code| {
        tags.binary_search(&code).ok().map(|i| i + 1)
    })?;
    let c = Coincidences::new(&segments, tags.len() + 1);
    let spread = c.spread();
    // |uα: gap against unit; the expected off-diagonal cells are the
    // marginals' products.
    let gap = c.rows[0];
    let binary = (c.total > 0.0 && spread != 0.0)
        .then(|| {
            ratio_alpha(
                2.0 * (gap - c.o[0][0]),
                2.0 * gap * (c.total - gap) / spread,
            )
        })
        .flatten();
    // cuα: the units' coincidences only, each unit's self-pairing
    // corrected by its pairable length (the characters another coder's
    // unit also covers).
    let valued = 1..tags.len() + 1;
    let rows: Vec<f64> = (0..=tags.len())
        .map(|t| {
            if t == 0 {
                0.0
            } else {
                valued.clone().map(|k| c.o[t][k]).sum()
            }
        })
        .collect();
    let total: f64 = rows.iter().sum();
    let mut pairable = vec![0.0f64; tags.len() + 1];
    for (i, own) in segments.iter().enumerate() {
        let others = covered(
            segments
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .map(|(_, s)| s),
        );
        for s in own.iter().filter(|s| s.2 != 0) {
            let len = others
                .iter()
                .map(|o| s.1.min(o.1).saturating_sub(s.0.max(o.0)))
                .sum::<u64>() as f64;
            pairable[s.2] += len * len;
        }
    }
    let star_spread = total - pairable.iter().sum::<f64>() / total;
    let defined = total > 0.0 && star_spread != 0.0 && star_spread.is_finite();
    let coding = defined
        .then(|| {
            let observed = total - valued.clone().map(|t| c.o[t][t]).sum::<f64>();
            let expected = (total * total - rows.iter().map(|r| r * r).sum::<f64>()) / star_spread;
            ratio_alpha(observed, expected)
        })
        .flatten();
    let values = valued
        .map(|t| {
            let alpha = (defined && rows[t] > 0.0)
                .then(|| {
                    let expected_col = (rows[t] * total - pairable[t]) / star_spread;
                    let observed = rows[t] - c.o[t][t];
                    let expected = rows[t] * (total - rows[t]) / star_spread;
                    ratio_alpha(observed, expected)
                        .map(|a| 1.0 - (expected_col / rows[t]) * (1.0 - a))
                })
                .flatten()
                .filter(|v| v.is_finite())
                .map(|v| v + 0.0);
            ValueAlpha {
                code: tags[t - 1].to_string(),
                alpha,
                coverage: if c.rows[t] > 0.0 {
                    rows[t] / c.rows[t]
                } else {
                    0.0
                },
            }
        })
        .collect();
    Ok(UnitizedFamily {
        alpha: nominal(&c),
        binary,
        coding,
        values,
    })
}

/// The characters some unit (not a gap) of `coders` covers, as sorted,
/// disjoint ranges.
fn covered<'a>(coders: impl Iterator<Item = &'a Vec<Segment>>) -> Vec<(u64, u64)> {
    let mut ranges: Vec<(u64, u64)> = coders
        .flatten()
        .filter(|s| s.2 != 0)
        .map(|s| (s.0, s.1))
        .collect();
    ranges.sort_unstable();
    let mut out: Vec<(u64, u64)> = Vec::with_capacity(ranges.len());
    for (s, e) in ranges {
        match out.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => out.push((s, e)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn units(raw: &serde_json::Value) -> Vec<Unit> {
        raw.as_array()
            .expect("units")
            .iter()
            .map(|u| Unit {
                start: u[0].as_u64().expect("start"),
                end: u[1].as_u64().expect("end"),
                code: u[2].as_str().expect("code").to_string(),
            })
            .collect()
    }

    /// The cases of a reference file of fixtures/agreement-unitized: each
    /// case's name, continuum length, coders' units and record.
    fn cases(file: &str) -> Vec<(String, u64, Vec<Vec<Unit>>, serde_json::Value)> {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/agreement-unitized")
            .join(file);
        let doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).expect("fixture")).expect("json");
        doc["cases"]
            .as_array()
            .expect("cases")
            .iter()
            .map(|case| {
                let coders = case["coders"]
                    .as_object()
                    .expect("coders")
                    .values()
                    .map(units)
                    .collect();
                (
                    case["name"].as_str().expect("name").to_string(),
                    case["length"].as_u64().expect("length"),
                    coders,
                    case.clone(),
                )
            })
            .collect()
    }

    /// uα and each code's uα equal the `krippendorff-unitized-alpha`
    /// package's on every generated case (identical, disjoint, shifted,
    /// partly overlapping, a coder without units, random codings of 2 and
    /// 3 coders, several sources end to end), to 1e-9.
    #[test]
    fn equals_the_reference_package() {
        let cases = cases("expected.json");
        assert!(cases.len() >= 30);
        let close = |got: Option<f64>, want: &serde_json::Value, what: &str| match want.as_f64() {
            Some(w) => {
                let g = got.unwrap_or_else(|| panic!("{what}: None, want {w}"));
                assert!((g - w).abs() < 1e-9, "{what}: {g} against {w}");
            }
            None => assert_eq!(got, None, "{what}"),
        };
        for (name, length, coders, case) in &cases {
            let (name, length) = (name.as_str(), *length);
            close(
                unitized_alpha(length, coders).expect("valid"),
                &case["alpha"],
                name,
            );
            for (code, want) in case["per_code"].as_object().expect("per code") {
                let got = unitized_alpha_of(length, coders, code).expect("valid");
                close(got, want, &format!("{name}, {code}"));
            }
        }
    }

    /// uα, |uα, cuα and each code's (k)uα and coverage equal quallmer
    /// 0.4.0's on the same cases and on Krippendorff's worked example
    /// (2019, figure 12.11: uα 0.5100, the book's 0.510; |uα 0.4136, the
    /// book's 0.413; cuα 0.7283, where the book prints 0.724), to 1e-9. Where
    /// quallmer finds no expected disagreement it gives 1 (or NA): that is
    /// None here.
    #[test]
    fn the_family_equals_quallmer_and_the_worked_example() {
        let mut compared = 0;
        let mut close =
            |got: Option<f64>, want: &serde_json::Value, what: &str| match (got, want.as_f64()) {
                (Some(g), Some(w)) => {
                    assert!((g - w).abs() < 1e-9, "{what}: {g} against {w}");
                    compared += 1;
                }
                (None, w) => assert!(w.is_none_or(|w| w == 1.0), "{what}: None, want {w:?}"),
                (Some(g), None) => panic!("{what}: {g}, want NA"),
            };
        let mut book = None;
        for (name, length, coders, case) in &cases("family.json") {
            let (name, length) = (name.as_str(), *length);
            let got = unitized_family(length, coders).expect("valid");
            close(got.alpha, &case["alpha"], &format!("{name}: uα"));
            close(got.binary, &case["binary"], &format!("{name}: |uα"));
            close(got.coding, &case["coding"], &format!("{name}: cuα"));
            let values = case["per_value"].as_object().expect("per value");
            for v in &got.values {
                // quallmer lists no value when no units meet at all.
                let Some(want) = values.get(&v.code) else {
                    assert!(values.is_empty() && v.alpha.is_none() && v.coverage == 0.0);
                    continue;
                };
                close(v.alpha, &want["alpha"], &format!("{name}: ({})uα", v.code));
                let coverage = want["coverage"].as_f64().expect("coverage");
                assert!((v.coverage - coverage).abs() < 1e-9, "{name}: {}", v.code);
            }
            if name.starts_with("Krippendorff") {
                book = Some(got);
            }
        }
        assert!(compared > 100, "{compared} figures compared");
        let book = book.expect("the worked example");
        let round = |v: Option<f64>| (v.expect("defined") * 1000.0).round() / 1000.0;
        assert_eq!((round(book.alpha), round(book.binary)), (0.51, 0.414));
    }

    #[test]
    fn identical_coders_agree_fully_and_bad_units_are_named() {
        let u = |s, e| Unit {
            start: s,
            end: e,
            code: "quote".into(),
        };
        let a = vec![u(2, 5), u(8, 9)];
        assert_eq!(unitized_alpha(10, &[a.clone(), a.clone()]), Ok(Some(1.0)));
        assert_eq!(
            unitized_alpha(10, std::slice::from_ref(&a)),
            Err(UnitizedError::TooFewCoders(1))
        );
        assert!(matches!(
            unitized_alpha(10, &[a.clone(), vec![u(8, 12)]]),
            Err(UnitizedError::OutOfRange { coder: 1, .. })
        ));
        assert!(matches!(
            unitized_alpha(10, &[a, vec![u(1, 4), u(3, 6)]]),
            Err(UnitizedError::Overlap { coder: 1, .. })
        ));
        // No units at all: nothing to disagree on.
        assert_eq!(unitized_alpha(10, &[vec![], vec![]]), Ok(None));
    }
}
