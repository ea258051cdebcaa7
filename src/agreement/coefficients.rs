//! The agreement coefficients, their bootstrap intervals, and the
//! confusion matrix.
//!
//! Every coefficient is a sum over items of a small per-item contribution
//! (an item's distinct values and their counts), so one pass over the items
//! fills a few values x values matrices and each coefficient is read off
//! them: O(items x raters^2 + values^2). A bootstrap resample draws item
//! indices with replacement and refills the same matrices; resamples run in
//! parallel, each on its own stretch of one seeded [`SplitMix64`] stream, so
//! the intervals do not depend on the number of threads.
//!
//! Conventions (each as its reference computes it):
//! - `percent_agreement`: items whose present ratings are all equal, over
//!   items with two ratings or more.
//! - `cohen_kappa` (two raters, items both rated): `1 - sum(w*O)/sum(w*E)`
//!   with `E = outer(column sums, row sums)/n` over the values the two raters
//!   used (scikit-learn's `cohen_kappa_score`); unweighted `w = 1 - I`,
//!   linear `|i - j|`, quadratic `(i - j)^2` over the ranks of those values.
//! - `fleiss_kappa`: over the items every rater rated, statsmodels'
//!   `fleiss_kappa(method="fleiss")`.
//! - `krippendorff_alpha`: `1 - sum(o*d)/sum(e*d)` with the coincidence
//!   matrix `o` (units with two values or more, each pair weighted
//!   `1/(m_u - 1)`), `e = (n_c n_k - [c=k] n_c)/(n - 1)`, and the level's
//!   distance (nominal `c != k`; ordinal `(sum_{g=c..k} n_g - (n_c + n_k)/2)^2`;
//!   interval `(v_c - v_k)^2`; ratio `((v_c - v_k)/(v_c + v_k))^2`, 0 when
//!   both are 0), as the `krippendorff` package computes it.
//! - `gwet_ac1` / `gwet_ac2_*`: irrCAC's `CAC.gwet()`: `pa` over items with
//!   two ratings or more of `sum_k r_ik (r*_ik - 1) / (r_i (r_i - 1))` with
//!   `r*_ik = sum_l w_kl r_il`; `pi_k` the mean over rated items of
//!   `r_ik / r_i`; `pe = sum(w) sum_k pi_k (1 - pi_k) / (q (q - 1))` over the
//!   `q` values used; AC2 weights over ranks, linear `1 - |k - l|/(q - 1)`,
//!   quadratic `1 - (k - l)^2/(q - 1)^2` (the kappas' weights as
//!   agreement weights). `gwet_ac2` is the quadratic one.
//! - Two raters, two values `a`, `b` (in sorted order): `prevalence_index =
//!   (n_aa - n_bb)/n`, `bias_index = (n_ab - n_ba)/n` (Byrt, Bishop and
//!   Carlin 1993, signed; rows are the first rater); `pabak = (q p_o - 1)/(q
//!   - 1)` over the `q` values used.
//!
//! A coefficient the design does not allow (Cohen's kappa with three
//! raters) or that is undefined on the data (kappa when both raters used one
//! value only) has a `null` value and a `note` saying why; never NaN.

use super::{Level, Ratings, MISSING};
use crate::stats::{percentile, SplitMix64};
use rayon::prelude::*;
use serde::Serialize;

/// Bootstrap resamples by default.
pub const DEFAULT_RESAMPLES: usize = 2000;
/// Bootstrap seed by default.
pub const DEFAULT_SEED: u64 = 42;

/// How the coefficients' intervals are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    /// Bootstrap resamples over items (0: no intervals).
    pub resamples: usize,
    /// Seed of the bootstrap.
    pub seed: u64,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            resamples: DEFAULT_RESAMPLES,
            seed: DEFAULT_SEED,
        }
    }
}

/// One coefficient: its value, 95% percentile-bootstrap interval, and the
/// items it used.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Coefficient {
    /// The value (`null` when undefined; then `note` says why).
    pub value: Option<f64>,
    /// 2.5th percentile of the resampled values (`null` without resamples).
    pub ci_low: Option<f64>,
    /// 97.5th percentile of the resampled values.
    pub ci_high: Option<f64>,
    /// Items the coefficient used.
    pub n_items: usize,
    /// Why the value is `null`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// The two raters' confusion matrix (rows: the first rater).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Confusion {
    /// The rater of the rows.
    pub rows: String,
    /// The rater of the columns.
    pub columns: String,
    /// The values both used, sorted.
    pub labels: Vec<String>,
    /// `counts[i][j]`: items the first rater gave `labels[i]` and the second
    /// `labels[j]`.
    pub counts: Vec<Vec<u64>>,
}

/// Ratings per rater, in rater order (a JSON object).
#[derive(Debug, Clone, PartialEq)]
pub struct RaterCounts(pub Vec<(String, usize)>);

impl Serialize for RaterCounts {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

/// Everything `corpus-eval agreement` reports.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Agreement {
    /// The level of measurement.
    pub level: Level,
    /// Items in the table.
    pub n_items: usize,
    /// Raters.
    pub n_raters: usize,
    /// Ratings present.
    pub n_ratings: usize,
    /// Ratings per rater.
    pub rater_counts: RaterCounts,
    /// Share of items (with two ratings or more) whose ratings all agree.
    pub percent_agreement: Coefficient,
    /// Cohen's kappa (two raters).
    pub cohen_kappa: Coefficient,
    /// Cohen's kappa, linear weights (ordinal and above).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cohen_kappa_linear: Option<Coefficient>,
    /// Cohen's kappa, quadratic weights (ordinal and above).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cohen_kappa_quadratic: Option<Coefficient>,
    /// Fleiss' kappa over the items every rater rated.
    pub fleiss_kappa: Coefficient,
    /// Krippendorff's alpha at the level.
    pub krippendorff_alpha: Coefficient,
    /// Gwet's AC1.
    pub gwet_ac1: Coefficient,
    /// Gwet's AC2 with quadratic weights (ordinal and above).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gwet_ac2: Option<Coefficient>,
    /// Gwet's AC2 with linear weights (ordinal and above).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gwet_ac2_linear: Option<Coefficient>,
    /// Gwet's AC2 with quadratic weights (ordinal and above).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gwet_ac2_quadratic: Option<Coefficient>,
    /// Byrt's prevalence index (two raters, two values).
    pub prevalence_index: Coefficient,
    /// Byrt's bias index (two raters, two values).
    pub bias_index: Coefficient,
    /// Prevalence- and bias-adjusted kappa (two raters).
    pub pabak: Coefficient,
    /// The confusion matrix (two raters; `null` otherwise).
    pub confusion_matrix: Option<Confusion>,
    /// Items whose present ratings differ.
    pub n_disagreements: usize,
    /// Their ids, in table order.
    pub disagreements: Vec<String>,
    /// The configuration of every number above.
    pub signature: String,
}

impl Agreement {
    /// The coefficients that apply to this level, by name, in report order.
    pub fn coefficients(&self) -> Vec<(&'static str, &Coefficient)> {
        let mut out = vec![
            ("percent_agreement", &self.percent_agreement),
            ("cohen_kappa", &self.cohen_kappa),
        ];
        let optional = [
            ("cohen_kappa_linear", &self.cohen_kappa_linear),
            ("cohen_kappa_quadratic", &self.cohen_kappa_quadratic),
        ];
        out.extend(
            optional
                .iter()
                .filter_map(|(n, c)| c.as_ref().map(|c| (*n, c))),
        );
        out.push(("fleiss_kappa", &self.fleiss_kappa));
        out.push(("krippendorff_alpha", &self.krippendorff_alpha));
        out.push(("gwet_ac1", &self.gwet_ac1));
        let optional = [
            ("gwet_ac2_linear", &self.gwet_ac2_linear),
            ("gwet_ac2_quadratic", &self.gwet_ac2_quadratic),
        ];
        out.extend(
            optional
                .iter()
                .filter_map(|(n, c)| c.as_ref().map(|c| (*n, c))),
        );
        out.push(("prevalence_index", &self.prevalence_index));
        out.push(("bias_index", &self.bias_index));
        out.push(("pabak", &self.pabak));
        out
    }
}

/// The signature of the coefficients at `level` with `settings`.
pub fn signature(level: Level, settings: &Settings) -> String {
    let mut s = crate::signature::Signature::new("agreement")
        .field("version", env!("CARGO_PKG_VERSION"))
        .field("level", level.name())
        .field(
            "refs",
            "sklearn-cohen,statsmodels-fleiss,krippendorff,irrCAC-gwet",
        );
    if level.is_numeric() {
        s = s.field("weights", "rank-linear,rank-quadratic");
    }
    s = if settings.resamples == 0 {
        s.field("ci", "none")
    } else {
        s.field("ci", "percentile-bootstrap-items-95")
            .field("resamples", settings.resamples)
            .field("seed", settings.seed)
            .field("draw", crate::stats::ITEMS_DRAW)
    };
    s.long()
}

// Coefficient slots.
const PA: usize = 0;
const COHEN: usize = 1;
const COHEN_LIN: usize = 2;
const COHEN_QUAD: usize = 3;
const FLEISS: usize = 4;
const KRIPP: usize = 5;
const AC1: usize = 6;
const AC2_LIN: usize = 7;
const AC2_QUAD: usize = 8;
const PREV: usize = 9;
const BIAS: usize = 10;
const PABAK: usize = 11;
const SLOTS: usize = 12;

type Estimate = [Result<f64, &'static str>; SLOTS];

/// The table in the form the sums read: each item's distinct values with
/// their counts.
struct Prepared<'a> {
    ratings: &'a Ratings,
    k: usize,
    offsets: Vec<usize>,
    entries: Vec<(u32, u32)>,
    /// Two raters: the confusion cell of an item both rated.
    pair: Vec<u32>,
}

impl<'a> Prepared<'a> {
    fn new(ratings: &'a Ratings) -> Self {
        let k = ratings.labels.len();
        let r = ratings.n_raters();
        let mut offsets = Vec::with_capacity(ratings.n_items() + 1);
        let mut entries = Vec::with_capacity(ratings.cells.len());
        let mut pair = Vec::new();
        offsets.push(0);
        let mut row: Vec<u32> = Vec::with_capacity(r);
        for cells in ratings.cells.chunks_exact(r) {
            row.clear();
            row.extend(cells.iter().copied().filter(|&c| c != MISSING));
            row.sort_unstable();
            let start = entries.len();
            for &c in &row {
                match entries[start..].last_mut() {
                    Some((v, n)) if *v == c => *n += 1,
                    _ => entries.push((c, 1)),
                }
            }
            offsets.push(entries.len());
            if r == 2 {
                pair.push(match (cells[0], cells[1]) {
                    (a, b) if a != MISSING && b != MISSING => a * k as u32 + b,
                    _ => MISSING,
                });
            }
        }
        Prepared {
            ratings,
            k,
            offsets,
            entries,
            pair,
        }
    }

    fn item(&self, i: usize) -> &[(u32, u32)] {
        &self.entries[self.offsets[i]..self.offsets[i + 1]]
    }
}

/// The sums every coefficient is read from (items weighted by how often a
/// resample drew them).
#[derive(Clone)]
struct Sums {
    k: usize,
    /// Items with two ratings or more; of those, all equal.
    multi: f64,
    agree: f64,
    /// Two raters: the confusion matrix.
    confusion: Vec<f64>,
    /// Items every rater rated, the sum of their `P_i`, value counts.
    complete: f64,
    fleiss_p: f64,
    fleiss_counts: Vec<f64>,
    /// Krippendorff's coincidences.
    coincidence: Vec<f64>,
    /// Gwet: rated items, `sum r_ik r_il / (r_i (r_i - 1))`, `sum 1/(r_i -
    /// 1)`, `sum r_ik / r_i`.
    rated: f64,
    pairs: Vec<f64>,
    pair_base: f64,
    shares: Vec<f64>,
}

impl Sums {
    fn new(k: usize, two_raters: bool) -> Self {
        Sums {
            k,
            multi: 0.0,
            agree: 0.0,
            confusion: if two_raters {
                vec![0.0; k * k]
            } else {
                Vec::new()
            },
            complete: 0.0,
            fleiss_p: 0.0,
            fleiss_counts: vec![0.0; k],
            coincidence: vec![0.0; k * k],
            rated: 0.0,
            pairs: vec![0.0; k * k],
            pair_base: 0.0,
            shares: vec![0.0; k],
        }
    }

    fn clear(&mut self) {
        let k = self.k;
        let two = !self.confusion.is_empty();
        *self = Sums::new(k, two);
    }

    fn add(&mut self, p: &Prepared, item: usize) {
        let k = self.k;
        let values = p.item(item);
        let m: u32 = values.iter().map(|v| v.1).sum();
        if let Some(&cell) = p.pair.get(item) {
            if cell != MISSING {
                self.confusion[cell as usize] += 1.0;
            }
        }
        if m == 0 {
            return;
        }
        self.rated += 1.0;
        let mf = f64::from(m);
        for &(a, ca) in values {
            self.shares[a as usize] += f64::from(ca) / mf;
        }
        if m < 2 {
            return;
        }
        self.multi += 1.0;
        if values.len() == 1 {
            self.agree += 1.0;
        }
        let pm = mf - 1.0;
        let pairs = mf * pm;
        for &(a, ca) in values {
            for &(b, cb) in values {
                let at = a as usize * k + b as usize;
                let same = u32::from(a == b);
                self.coincidence[at] += f64::from(ca * (cb - same)) / pm;
                self.pairs[at] += f64::from(ca * cb) / pairs;
            }
        }
        self.pair_base += 1.0 / pm;
        let r = p.ratings.n_raters();
        if m as usize == r {
            self.complete += 1.0;
            let rf = r as f64;
            let squares: f64 = values.iter().map(|v| f64::from(v.1 * v.1)).sum();
            self.fleiss_p += (squares - rf) / (rf * (rf - 1.0));
            for &(a, ca) in values {
                self.fleiss_counts[a as usize] += f64::from(ca);
            }
        }
    }

    /// Every coefficient from the sums.
    fn estimate(&self, p: &Prepared) -> Estimate {
        let mut out: Estimate = [Err(""); SLOTS];
        out[PA] = if self.multi > 0.0 {
            Ok(self.agree / self.multi)
        } else {
            Err("no item has two ratings")
        };
        self.cohen(p, &mut out);
        out[FLEISS] = self.fleiss(p.ratings.n_raters());
        out[KRIPP] = self.krippendorff(p);
        self.gwet(&mut out);
        out
    }

    fn cohen(&self, p: &Prepared, out: &mut Estimate) {
        let k = self.k;
        if p.ratings.n_raters() != 2 {
            for slot in [COHEN, COHEN_LIN, COHEN_QUAD, PREV, BIAS, PABAK] {
                out[slot] = Err("needs exactly two raters");
            }
            return;
        }
        let c = &self.confusion;
        let rows: Vec<f64> = (0..k).map(|i| c[i * k..(i + 1) * k].iter().sum()).collect();
        let cols: Vec<f64> = (0..k).map(|j| (0..k).map(|i| c[i * k + j]).sum()).collect();
        let used: Vec<usize> = (0..k).filter(|&i| rows[i] + cols[i] > 0.0).collect();
        let n: f64 = rows.iter().sum();
        if n == 0.0 {
            for slot in [COHEN, COHEN_LIN, COHEN_QUAD, PREV, BIAS, PABAK] {
                out[slot] = Err("no item rated by both raters");
            }
            return;
        }
        let kappa = |w: &dyn Fn(usize, usize) -> f64| {
            let (mut observed, mut expected) = (0.0, 0.0);
            for (x, &i) in used.iter().enumerate() {
                for (y, &j) in used.iter().enumerate() {
                    let wt = w(x, y);
                    observed += wt * c[i * k + j];
                    expected += wt * (cols[i] * rows[j] / n);
                }
            }
            if expected == 0.0 {
                Err("undefined: the raters used one value only")
            } else {
                Ok(1.0 - observed / expected)
            }
        };
        out[COHEN] = kappa(&|x, y| f64::from(u8::from(x != y)));
        out[COHEN_LIN] = kappa(&|x, y| x.abs_diff(y) as f64);
        out[COHEN_QUAD] = kappa(&|x, y| (x.abs_diff(y) as f64).powi(2));
        let q = used.len();
        if q == 2 {
            let (a, b) = (used[0], used[1]);
            out[PREV] = Ok((c[a * k + a] - c[b * k + b]) / n);
            out[BIAS] = Ok((c[a * k + b] - c[b * k + a]) / n);
        } else {
            out[PREV] = Err("needs exactly two values");
            out[BIAS] = Err("needs exactly two values");
        }
        out[PABAK] = if q >= 2 {
            let observed: f64 = used.iter().map(|&i| c[i * k + i]).sum::<f64>() / n;
            Ok((q as f64 * observed - 1.0) / (q as f64 - 1.0))
        } else {
            Err("undefined: the raters used one value only")
        };
    }

    fn fleiss(&self, raters: usize) -> Result<f64, &'static str> {
        if self.complete == 0.0 {
            return Err("no item rated by every rater");
        }
        let total = self.complete * raters as f64;
        let expected: f64 = self
            .fleiss_counts
            .iter()
            .map(|n| (n / total) * (n / total))
            .sum();
        let observed = self.fleiss_p / self.complete;
        if 1.0 - expected == 0.0 {
            Err("undefined: every rating has one value")
        } else {
            Ok((observed - expected) / (1.0 - expected))
        }
    }

    fn krippendorff(&self, p: &Prepared) -> Result<f64, &'static str> {
        let k = self.k;
        if self.multi == 0.0 {
            return Err("no item has two ratings");
        }
        if self.shares.iter().filter(|s| **s > 0.0).count() < 2 {
            return Err("undefined: one value only");
        }
        let o = &self.coincidence;
        let nv: Vec<f64> = (0..k).map(|j| (0..k).map(|i| o[i * k + j]).sum()).collect();
        let n: f64 = nv.iter().sum();
        let mut prefix = vec![0.0; k + 1];
        for (i, x) in nv.iter().enumerate() {
            prefix[i + 1] = prefix[i] + x;
        }
        let v = &p.ratings.values;
        let level = p.ratings.level;
        let distance = |a: usize, b: usize| -> f64 {
            match level {
                Level::Nominal => f64::from(u8::from(a != b)),
                Level::Ordinal => {
                    let (lo, hi) = (a.min(b), a.max(b));
                    let between = prefix[hi + 1] - prefix[lo];
                    (between - (nv[lo] + nv[hi]) / 2.0).powi(2)
                }
                Level::Interval => (v[a] - v[b]).powi(2),
                Level::Ratio => {
                    let sum = v[a] + v[b];
                    if sum == 0.0 {
                        0.0
                    } else {
                        ((v[a] - v[b]) / sum).powi(2)
                    }
                }
            }
        };
        let (mut observed, mut expected) = (0.0, 0.0);
        for a in 0..k {
            for b in 0..k {
                let d = distance(a, b);
                if d == 0.0 {
                    continue;
                }
                observed += o[a * k + b] * d;
                let diag = if a == b { nv[a] } else { 0.0 };
                expected += (nv[a] * nv[b] - diag) / (n - 1.0) * d;
            }
        }
        if expected == 0.0 {
            Err("undefined: no disagreement is expected by chance")
        } else {
            Ok(1.0 - observed / expected)
        }
    }

    fn gwet(&self, out: &mut Estimate) {
        let k = self.k;
        let used: Vec<usize> = (0..k).filter(|&i| self.shares[i] > 0.0).collect();
        let q = used.len();
        let fail = if self.multi == 0.0 {
            Some("no item has two ratings")
        } else if q < 2 {
            Some("undefined: one value only")
        } else {
            None
        };
        if let Some(why) = fail {
            for slot in [AC1, AC2_LIN, AC2_QUAD] {
                out[slot] = Err(why);
            }
            return;
        }
        let spread: f64 = used
            .iter()
            .map(|&i| {
                let pi = self.shares[i] / self.rated;
                pi * (1.0 - pi)
            })
            .sum();
        let qf = q as f64;
        let ac = |w: &dyn Fn(usize, usize) -> f64| {
            let (mut agree, mut total) = (0.0, 0.0);
            for (x, &i) in used.iter().enumerate() {
                for (y, &j) in used.iter().enumerate() {
                    let wt = w(x, y);
                    total += wt;
                    agree += wt * self.pairs[i * k + j];
                }
            }
            let pa = (agree - self.pair_base) / self.multi;
            let pe = total * spread / (qf * (qf - 1.0));
            if 1.0 - pe == 0.0 {
                Err("undefined: chance agreement is 1")
            } else {
                Ok((pa - pe) / (1.0 - pe))
            }
        };
        let span = qf - 1.0;
        out[AC1] = ac(&|x, y| f64::from(u8::from(x == y)));
        out[AC2_LIN] = ac(&|x, y| 1.0 - x.abs_diff(y) as f64 / span);
        out[AC2_QUAD] = ac(&|x, y| 1.0 - (x.abs_diff(y) as f64 / span).powi(2));
    }

    /// Items each coefficient used.
    fn used(&self, raters: usize) -> [usize; SLOTS] {
        let pairs: f64 = self.confusion.iter().sum();
        let pairs = if raters == 2 { pairs as usize } else { 0 };
        let mut n = [self.multi as usize; SLOTS];
        for slot in [COHEN, COHEN_LIN, COHEN_QUAD, PREV, BIAS, PABAK] {
            n[slot] = pairs;
        }
        n[FLEISS] = self.complete as usize;
        n
    }
}

/// A value as reported: finite, never -0.
fn clean(x: f64) -> Option<f64> {
    x.is_finite().then_some(x + 0.0)
}

/// Computes every coefficient, its interval (unless `resamples` is 0), the
/// confusion matrix (two raters) and the disagreements.
pub fn agreement(ratings: &Ratings, settings: &Settings) -> Agreement {
    let p = Prepared::new(ratings);
    let two = ratings.n_raters() == 2;
    let mut sums = Sums::new(p.k, two);
    for i in 0..ratings.n_items() {
        sums.add(&p, i);
    }
    let point = sums.estimate(&p);
    let used = sums.used(ratings.n_raters());
    let intervals = bootstrap(&p, settings, &point);
    let coefficient = |slot: usize| {
        let (value, note) = match point[slot] {
            Ok(v) => match clean(v) {
                Some(v) => (Some(v), None),
                None => (None, Some("undefined on this data".to_string())),
            },
            Err(why) => (None, Some(why.to_string())),
        };
        let (ci_low, ci_high) = match (value, intervals.get(slot)) {
            (Some(_), Some(&(lo, hi))) => (lo, hi),
            _ => (None, None),
        };
        Coefficient {
            value,
            ci_low,
            ci_high,
            n_items: used[slot],
            note,
        }
    };
    let numeric = ratings.level.is_numeric();
    let weighted = |slot: usize| numeric.then(|| coefficient(slot));
    let mut rater_counts = vec![0usize; ratings.n_raters()];
    let mut disagreements = Vec::new();
    for i in 0..ratings.n_items() {
        for (r, c) in ratings.row(i).enumerate() {
            rater_counts[r] += usize::from(c.is_some());
        }
        let values = p.item(i);
        if values.len() > 1 {
            disagreements.push(ratings.ids[i].clone());
        }
    }
    Agreement {
        level: ratings.level,
        n_items: ratings.n_items(),
        n_raters: ratings.n_raters(),
        n_ratings: rater_counts.iter().sum(),
        rater_counts: RaterCounts(ratings.raters.iter().cloned().zip(rater_counts).collect()),
        percent_agreement: coefficient(PA),
        cohen_kappa: coefficient(COHEN),
        cohen_kappa_linear: weighted(COHEN_LIN),
        cohen_kappa_quadratic: weighted(COHEN_QUAD),
        fleiss_kappa: coefficient(FLEISS),
        krippendorff_alpha: coefficient(KRIPP),
        gwet_ac1: coefficient(AC1),
        gwet_ac2: weighted(AC2_QUAD),
        gwet_ac2_linear: weighted(AC2_LIN),
        gwet_ac2_quadratic: weighted(AC2_QUAD),
        prevalence_index: coefficient(PREV),
        bias_index: coefficient(BIAS),
        pabak: coefficient(PABAK),
        confusion_matrix: two.then(|| confusion(&sums, ratings)),
        n_disagreements: disagreements.len(),
        disagreements,
        signature: signature(ratings.level, settings),
    }
}

fn confusion(sums: &Sums, ratings: &Ratings) -> Confusion {
    let k = sums.k;
    let c = &sums.confusion;
    let used: Vec<usize> = (0..k)
        .filter(|&i| (0..k).any(|j| c[i * k + j] > 0.0 || c[j * k + i] > 0.0))
        .collect();
    Confusion {
        rows: ratings.raters[0].clone(),
        columns: ratings.raters[1].clone(),
        labels: used.iter().map(|&i| ratings.labels[i].clone()).collect(),
        counts: used
            .iter()
            .map(|&i| used.iter().map(|&j| c[i * k + j] as u64).collect())
            .collect(),
    }
}

/// Percentile-bootstrap intervals per slot (`None` where no resample gave a
/// value).
fn bootstrap(
    p: &Prepared,
    settings: &Settings,
    point: &Estimate,
) -> Vec<(Option<f64>, Option<f64>)> {
    let n = p.ratings.n_items();
    if settings.resamples == 0 || n == 0 {
        return Vec::new();
    }
    let base = SplitMix64::new(settings.seed);
    let two = p.ratings.n_raters() == 2;
    crate::progress::start("bootstrap resamples", settings.resamples as u64);
    let draws: Vec<Estimate> = (0..settings.resamples)
        .into_par_iter()
        .map_init(
            || Sums::new(p.k, two),
            |sums, b| {
                sums.clear();
                let mut rng = base.skipped((b as u64).wrapping_mul(n as u64));
                for _ in 0..n {
                    sums.add(p, rng.below(n));
                }
                let estimate = sums.estimate(p);
                crate::progress::advance(1);
                estimate
            },
        )
        .collect();
    crate::progress::finish();
    (0..SLOTS)
        .map(|slot| {
            if point[slot].is_err() {
                return (None, None);
            }
            interval(draws.iter().filter_map(|d| d[slot].ok()))
        })
        .collect()
}

/// The 2.5th and 97.5th percentiles of resampled values (of their finite
/// ones; none without any).
pub(crate) fn interval(values: impl IntoIterator<Item = f64>) -> (Option<f64>, Option<f64>) {
    let mut values: Vec<f64> = values.into_iter().filter(|v| v.is_finite()).collect();
    if values.is_empty() {
        return (None, None);
    }
    values.sort_unstable_by(f64::total_cmp);
    (
        clean(percentile(&values, 0.025)),
        clean(percentile(&values, 0.975)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nominal(raters: usize, cells: &[&str]) -> Ratings {
        let n = cells.len() / raters;
        Ratings::nominal(
            (0..n).map(|i| format!("i{i}")).collect(),
            (0..raters).map(|r| format!("r{r}")).collect(),
            cells
                .iter()
                .map(|c| (!c.is_empty()).then(|| c.to_string()))
                .collect(),
        )
        .unwrap()
    }

    const NO_CI: Settings = Settings {
        resamples: 0,
        seed: 42,
    };

    #[test]
    fn perfect_and_chance_two_raters() {
        let r = nominal(2, &["a", "a", "b", "b", "a", "a", "b", "b"]);
        let a = agreement(&r, &NO_CI);
        assert_eq!(a.cohen_kappa.value, Some(1.0));
        assert_eq!(a.percent_agreement.value, Some(1.0));
        assert_eq!(a.krippendorff_alpha.value, Some(1.0));
        assert!(a.disagreements.is_empty());
        // Textbook: 2x2 table [[20, 5], [10, 15]]: po = 0.7, pe = 0.5, kappa 0.4.
        let mut cells = Vec::new();
        for (x, y, n) in [
            ("y", "y", 20),
            ("y", "n", 5),
            ("n", "y", 10),
            ("n", "n", 15),
        ] {
            for _ in 0..n {
                cells.push(x);
                cells.push(y);
            }
        }
        let a = agreement(&nominal(2, &cells), &NO_CI);
        assert!((a.cohen_kappa.value.unwrap() - 0.4).abs() < 1e-12);
        // Sorted labels n, y: a = n_nn = 15, d = n_yy = 20, b = n_ny = 10, c = n_yn = 5.
        assert!((a.prevalence_index.value.unwrap() - (15.0 - 20.0) / 50.0).abs() < 1e-12);
        assert!((a.bias_index.value.unwrap() - (10.0 - 5.0) / 50.0).abs() < 1e-12);
        assert!((a.pabak.value.unwrap() - 0.4).abs() < 1e-12);
        let c = a.confusion_matrix.unwrap();
        assert_eq!(c.labels, vec!["n", "y"]);
        assert_eq!(c.counts, vec![vec![15, 10], vec![5, 20]]);
    }

    #[test]
    fn one_value_is_undefined_not_nan() {
        let r = nominal(2, &["a", "a", "a", "a"]);
        let a = agreement(&r, &Settings::default());
        assert_eq!(a.cohen_kappa.value, None);
        assert!(a.cohen_kappa.note.is_some());
        assert_eq!(a.krippendorff_alpha.value, None);
        assert_eq!(a.percent_agreement.value, Some(1.0));
        let json = serde_json::to_string(&a).unwrap();
        assert!(!json.contains("NaN") && !json.contains("inf"));
    }

    #[test]
    fn three_raters_have_no_cohen_and_fleiss_uses_complete_items() {
        let r = nominal(3, &["a", "a", "a", "a", "b", "", "b", "b", "b"]);
        let a = agreement(&r, &NO_CI);
        assert_eq!(a.cohen_kappa.value, None);
        assert_eq!(a.fleiss_kappa.n_items, 2);
        assert!(a.confusion_matrix.is_none());
        assert_eq!(a.disagreements, vec!["i1"]);
        assert_eq!(a.n_ratings, 8);
    }

    #[test]
    fn bootstrap_is_deterministic_and_brackets_the_value() {
        let cells: Vec<&str> = (0..200)
            .flat_map(|i| {
                let x = if i % 3 == 0 { "a" } else { "b" };
                let y = if i % 7 == 0 { "a" } else { x };
                [x, y]
            })
            .collect();
        let r = nominal(2, &cells);
        let s = Settings {
            resamples: 500,
            seed: 7,
        };
        let a = agreement(&r, &s);
        let b = agreement(&r, &s);
        assert_eq!(a, b);
        let k = &a.cohen_kappa;
        assert!(k.ci_low.unwrap() <= k.value.unwrap() && k.value.unwrap() <= k.ci_high.unwrap());
        assert!(k.ci_low.unwrap() < k.ci_high.unwrap());
        let c = agreement(
            &r,
            &Settings {
                resamples: 500,
                seed: 8,
            },
        );
        assert_ne!(a.cohen_kappa.ci_low, c.cohen_kappa.ci_low);
    }
}
