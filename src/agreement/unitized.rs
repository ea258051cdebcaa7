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

/// uα of segmentations over `tags` tags (0 the gaps'), each covering the
/// continuum in order.
fn alpha(coders: &[Vec<Segment>], tags: usize) -> Option<f64> {
    let m = coders.len();
    // Observed coincidences: each ordered pair of coders' overlaps (the
    // matrix is symmetric: each unordered pair counted both ways).
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
    // Σ w(s) over every segment, and per tag.
    let mut weight = vec![0.0f64; tags];
    for s in coders.iter().flatten() {
        let len = (s.1 - s.0) as f64;
        weight[s.2] += if s.2 == 0 { len } else { len * len };
    }
    let denominator = total * total - weight.iter().sum::<f64>();
    if denominator == 0.0 {
        return None;
    }
    let observed: f64 = (0..tags).map(|c| o[c][c]).sum();
    let expected: f64 = (0..tags)
        .map(|c| total * (rows[c] * rows[c] - weight[c]) / denominator)
        .sum();
    let disagreement = total - expected;
    if disagreement == 0.0 {
        return None;
    }
    let value = 1.0 - (total - observed) / disagreement;
    value.is_finite().then_some(value + 0.0)
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

    /// uα and each code's uα equal the `krippendorff-unitized-alpha`
    /// package's on every generated case (identical, disjoint, shifted,
    /// partly overlapping, a coder without units, random codings of 2 and
    /// 3 coders, several sources end to end), to 1e-9.
    #[test]
    fn equals_the_reference_package() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/agreement-unitized/expected.json");
        let doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).expect("fixture")).expect("json");
        let cases = doc["cases"].as_array().expect("cases");
        assert!(cases.len() >= 30);
        let close = |got: Option<f64>, want: &serde_json::Value, what: &str| match want.as_f64() {
            Some(w) => {
                let g = got.unwrap_or_else(|| panic!("{what}: None, want {w}"));
                assert!((g - w).abs() < 1e-9, "{what}: {g} against {w}");
            }
            None => assert_eq!(got, None, "{what}"),
        };
        for case in cases {
            let name = case["name"].as_str().expect("name");
            let length = case["length"].as_u64().expect("length");
            let coders: Vec<Vec<Unit>> = case["coders"]
                .as_object()
                .expect("coders")
                .values()
                .map(units)
                .collect();
            close(
                unitized_alpha(length, &coders).expect("valid"),
                &case["alpha"],
                name,
            );
            for (code, want) in case["per_code"].as_object().expect("per code") {
                let got = unitized_alpha_of(length, &coders, code).expect("valid");
                close(got, want, &format!("{name}, {code}"));
            }
        }
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
