//! Inter-rater agreement: how far automatic verdicts (or several human
//! coders) agree, with the coefficients a paper reports.
//!
//! A [`Ratings`] table holds items x raters, each cell a category or
//! missing; [`coefficients::agreement`] computes, in one pass over the
//! items, percent agreement, Cohen's kappa (unweighted, and linear and
//! quadratic at ordinal levels and above, as scikit-learn's
//! `cohen_kappa_score`), Fleiss' kappa (as statsmodels' `fleiss_kappa`, over
//! the items every rater rated), Krippendorff's alpha (as the `krippendorff`
//! package, coincidence-matrix method, with missing values), Gwet's AC1 and
//! AC2 (as irrCAC's `CAC.gwet`), and for two raters the prevalence and bias
//! indices and PABAK; each with a percentile-bootstrap interval over items.
//! `table` reads and joins the coders' files.
//!
//! ```
//! use corpus_eval::agreement::{{agreement, Settings}, Level, Ratings};
//! let cell = |s: &str| (!s.is_empty()).then(|| s.to_string());
//! let ratings = Ratings::nominal(
//!     vec!["q1".into(), "q2".into(), "q3".into(), "q4".into()],
//!     vec!["tool".into(), "coder".into()],
//!     ["yes", "yes", "no", "no", "yes", "no", "no", ""].iter().map(|s| cell(s)).collect(),
//! )
//! .unwrap();
//! let a = agreement(&ratings, &Settings { resamples: 0, ..Settings::default() });
//! assert_eq!(a.percent_agreement.value, Some(2.0 / 3.0));
//! assert_eq!(a.disagreements, vec!["q3".to_string()]);
//! assert_eq!(a.n_ratings, 7);
//! # let _ = Level::Nominal;
//! ```

pub(crate) mod coefficients;

pub use coefficients::*;
pub(crate) mod spans;
pub(crate) mod table;
pub(crate) mod unitized;

pub use spans::{span_agreement, CodeSpans, Span, SpanAgreement, SpanSettings};
pub use unitized::{
    unitized_alpha, unitized_alpha_of, unitized_family, Unit, UnitizedError, UnitizedFamily,
    ValueAlpha,
};

use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// The level of measurement of the ratings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Unordered categories (strings).
    #[default]
    Nominal,
    /// Ordered categories (numbers; only their order counts).
    Ordinal,
    /// Numbers whose differences count.
    Interval,
    /// Non-negative numbers whose ratios count.
    Ratio,
}

impl Level {
    /// The level's name, as the flag takes it.
    pub fn name(self) -> &'static str {
        match self {
            Level::Nominal => "nominal",
            Level::Ordinal => "ordinal",
            Level::Interval => "interval",
            Level::Ratio => "ratio",
        }
    }

    /// True above nominal: values must be numbers, and the weighted
    /// coefficients are computed.
    pub fn is_numeric(self) -> bool {
        self != Level::Nominal
    }
}

/// Most distinct values a table may hold (the coefficients work on
/// values x values matrices).
pub const MAX_VALUES: usize = 1000;

/// A missing cell.
const MISSING: u32 = u32::MAX;

/// Why a ratings table cannot be built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum RatingsError {
    /// The cells do not make an items x raters table.
    #[error("{cells} cells for {items} items x {raters} raters")]
    Shape {
        /// Cells given.
        cells: usize,
        /// Items.
        items: usize,
        /// Raters.
        raters: usize,
    },
    /// Fewer than two raters.
    #[error("agreement needs two raters at least, got {0}")]
    TooFewRaters(usize),
    /// No items.
    #[error("no items to compare")]
    NoItems,
    /// More distinct values than [`MAX_VALUES`].
    #[error("{0} distinct values (at most {MAX_VALUES}): agreement coefficients compare categories; bin continuous scores first")]
    TooManyValues(usize),
    /// A number that is not finite (or negative at the ratio level).
    #[error("{0} is not a usable number here")]
    BadNumber(f64),
}

/// Ratings: items x raters, each cell one of the sorted distinct values
/// (`labels`) or missing.
#[derive(Debug, Clone, PartialEq)]
pub struct Ratings {
    /// Item ids, in table order.
    pub ids: Vec<String>,
    /// Rater names, in column order.
    pub raters: Vec<String>,
    /// The level of measurement.
    pub level: Level,
    /// Distinct values, sorted (as numbers above nominal, as strings by
    /// their bytes at nominal): a cell's index is its rank.
    pub labels: Vec<String>,
    /// Each label's number (above nominal), else its rank.
    pub values: Vec<f64>,
    cells: Vec<u32>,
}

impl Ratings {
    /// A nominal table from row-major cells (`items x raters`, `None`
    /// missing).
    pub fn nominal(
        ids: Vec<String>,
        raters: Vec<String>,
        cells: Vec<Option<String>>,
    ) -> Result<Ratings, RatingsError> {
        let mut texts: Vec<String> = Vec::new();
        let mut index: HashMap<String, u32> = HashMap::new();
        let indexed = cells
            .into_iter()
            .map(|c| {
                c.map(|s| {
                    *index.entry(s).or_insert_with_key(|s| {
                        texts.push(s.clone());
                        texts.len() as u32 - 1
                    })
                })
            })
            .collect();
        Ratings::nominal_indexed(ids, raters, &texts, indexed)
    }

    /// [`Ratings::nominal`] from cells given as indices into `texts`
    /// (the form a reader that interns its cells has).
    pub fn nominal_indexed(
        ids: Vec<String>,
        raters: Vec<String>,
        texts: &[String],
        cells: Vec<Option<u32>>,
    ) -> Result<Ratings, RatingsError> {
        check_shape(ids.len(), raters.len(), cells.len())?;
        let mut used = vec![false; texts.len()];
        for c in cells.iter().flatten() {
            if let Some(u) = used.get_mut(*c as usize) {
                *u = true;
            }
        }
        let mut order: Vec<usize> = (0..texts.len()).filter(|&i| used[i]).collect();
        order.sort_unstable_by(|&a, &b| texts[a].cmp(&texts[b]));
        if order.len() > MAX_VALUES {
            return Err(RatingsError::TooManyValues(order.len()));
        }
        let mut label_of = vec![MISSING; texts.len()];
        for (k, &i) in order.iter().enumerate() {
            label_of[i] = k as u32;
        }
        let labels: Vec<String> = order.iter().map(|&i| texts[i].clone()).collect();
        let cells = cells
            .iter()
            .map(|c| {
                c.and_then(|i| label_of.get(i as usize).copied())
                    .unwrap_or(MISSING)
            })
            .collect();
        let values = (0..labels.len()).map(|i| i as f64).collect();
        Ok(Ratings {
            ids,
            raters,
            level: Level::Nominal,
            labels,
            values,
            cells,
        })
    }

    /// A numeric table (ordinal, interval or ratio) from row-major cells.
    /// Values must be finite, and non-negative at the ratio level; `1` and
    /// `1.0` are one value.
    pub fn numeric(
        ids: Vec<String>,
        raters: Vec<String>,
        level: Level,
        cells: Vec<Option<f64>>,
    ) -> Result<Ratings, RatingsError> {
        check_shape(ids.len(), raters.len(), cells.len())?;
        for v in cells.iter().flatten() {
            if !v.is_finite() || (level == Level::Ratio && *v < 0.0) {
                return Err(RatingsError::BadNumber(*v));
            }
        }
        let mut values: Vec<f64> = cells.iter().flatten().map(|v| v + 0.0).collect();
        values.sort_unstable_by(f64::total_cmp);
        values.dedup();
        if values.len() > MAX_VALUES {
            return Err(RatingsError::TooManyValues(values.len()));
        }
        let cells = cells
            .iter()
            .map(|c| match c {
                Some(v) => values
                    .binary_search_by(|x| x.total_cmp(&(v + 0.0)))
                    .map_or(MISSING, |i| i as u32),
                None => MISSING,
            })
            .collect();
        let labels = values.iter().map(|v| number_label(*v)).collect();
        Ok(Ratings {
            ids,
            raters,
            level: if level == Level::Nominal {
                Level::Ordinal
            } else {
                level
            },
            labels,
            values,
            cells,
        })
    }

    /// Items.
    pub fn n_items(&self) -> usize {
        self.ids.len()
    }

    /// Raters.
    pub fn n_raters(&self) -> usize {
        self.raters.len()
    }

    /// The value index item `item` got from rater `rater`, if rated.
    pub fn cell(&self, item: usize, rater: usize) -> Option<usize> {
        match self.cells.get(item * self.raters.len() + rater) {
            Some(&c) if c != MISSING => Some(c as usize),
            _ => None,
        }
    }

    /// One item's cells, one per rater.
    pub fn row(&self, item: usize) -> impl Iterator<Item = Option<usize>> + '_ {
        let r = self.raters.len();
        self.cells[item * r..(item + 1) * r]
            .iter()
            .map(|&c| (c != MISSING).then_some(c as usize))
    }
}

fn check_shape(items: usize, raters: usize, cells: usize) -> Result<(), RatingsError> {
    if raters < 2 {
        return Err(RatingsError::TooFewRaters(raters));
    }
    if items == 0 {
        return Err(RatingsError::NoItems);
    }
    if items.checked_mul(raters) != Some(cells) {
        return Err(RatingsError::Shape {
            cells,
            items,
            raters,
        });
    }
    Ok(())
}

/// A number as a label: the shortest text that reads back as it (`1`, not
/// `1.0`; never `-0`).
pub fn number_label(v: f64) -> String {
    format!("{}", v + 0.0)
}

/// Agreement between a method's pass/fail verdicts and human labels
/// (`judge-answers --agreement`, `threshold --agreement`): two raters named
/// `method` and `label`, values `pass`/`fail`, an item missing where either
/// is absent.
pub fn verdicts_against_labels(
    ids: Vec<String>,
    method: &str,
    verdicts: &[Option<bool>],
    labels: &[Option<bool>],
    settings: &coefficients::Settings,
) -> Result<coefficients::Agreement, RatingsError> {
    let word = |b: bool| if b { "pass" } else { "fail" }.to_string();
    let cells = verdicts
        .iter()
        .zip(labels)
        .flat_map(|(v, l)| [v.map(word), l.map(word)])
        .collect();
    let ratings = Ratings::nominal(ids, vec![method.to_string(), "label".into()], cells)?;
    Ok(coefficients::agreement(&ratings, settings))
}
