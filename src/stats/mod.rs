//! Averages, grouping and bootstrap confidence intervals.
//!
//! Resampling uses [`SplitMix64`], a small deterministic generator seeded by
//! the caller (`--seed`), so the same inputs and seed give the same
//! intervals on every machine.
//!
//! ```
//! use corpus_eval::stats::summarize;
//! let s = summarize(&[1.0, 0.0, 1.0, 1.0], 42, 1000);
//! assert_eq!(s.mean, 0.75);
//! assert!(s.ci_low <= 0.75 && 0.75 <= s.ci_high);
//! ```

use rayon::prelude::*;
use serde::Serialize;

pub(crate) mod binomial;

pub use binomial::*;
mod counts;
pub(crate) mod detmath;
pub use detmath::*;
pub(crate) mod multiple;
pub use multiple::*;
pub(crate) mod paired;
pub use paired::*;

/// Bootstrap resamples used by default.
pub const DEFAULT_RESAMPLES: usize = 2000;

/// How [`summarize`] draws its resamples, for signatures (a changed draw
/// is a changed signature): SplitMix64, one stretch of the stream per
/// resample; a group of few distinct values by binomial counts per value,
/// any other by one index per item (multiply-shift, no modulo).
pub const SUMMARIZE_DRAW: &str = "splitmix64-stretch-per-resample+binomial-counts|indices";

pub use counts::ValueCounts;

/// How [`ValueCounts::summarize`] draws its resamples, for signatures: as
/// [`SUMMARIZE_DRAW`]'s count draws, for every group (its means and
/// intervals depend on the values' counts only, never on the items' order
/// or on how they were partitioned).
pub const COUNTS_DRAW: &str = "splitmix64-stretch-per-resample+binomial-counts";

/// How the per-item bootstraps of `lexical` and `agreement` draw: one
/// SplitMix64 stretch of n indices per resample (multiply-shift).
pub const ITEMS_DRAW: &str = "splitmix64-stretch-per-resample+indices";

/// A deterministic 64-bit generator (SplitMix64).
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator with the given seed.
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    /// The generator after `k` draws (SplitMix64's state advances by a
    /// constant per draw).
    pub fn skipped(&self, k: u64) -> Self {
        SplitMix64(self.0.wrapping_add(k.wrapping_mul(0x9E37_79B9_7F4A_7C15)))
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform index below `n` (n > 0), without modulo bias worth noting
    /// for n far below 2^64.
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }
}

/// The bootstrap seed of a named group: the run seed mixed with the group's
/// name (FNV-1a), so adding a group never changes another group's interval.
///
/// ```
/// use corpus_eval::stats::group_seed;
/// assert_eq!(group_seed(42, "a"), group_seed(42, "a"));
/// assert_ne!(group_seed(42, "a"), group_seed(42, "b"));
/// ```
pub fn group_seed(seed: u64, group: &str) -> u64 {
    seed ^ crate::text::hash::fnv1a(group.as_bytes())
}

/// Mean, count and 95% percentile-bootstrap interval of a group of scores.
/// Over zero scores there is no mean: it serializes as
/// `{"mean": null, "n": 0, "ci_low": null, "ci_high": null}`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GroupStat {
    /// Mean score.
    pub mean: f64,
    /// Number of scores.
    pub n: usize,
    /// 2.5th percentile of the bootstrap means.
    pub ci_low: f64,
    /// 97.5th percentile of the bootstrap means.
    pub ci_high: f64,
}

impl Serialize for GroupStat {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let value = |x: f64| (self.n > 0 && x.is_finite()).then_some(x + 0.0);
        let mut st = serializer.serialize_struct("GroupStat", 4)?;
        st.serialize_field("mean", &value(self.mean))?;
        st.serialize_field("n", &self.n)?;
        st.serialize_field("ci_low", &value(self.ci_low))?;
        st.serialize_field("ci_high", &value(self.ci_high))?;
        st.end()
    }
}

impl GroupStat {
    /// `mean [ci_low, ci_high]` with `digits` decimals, or `n/a` over zero
    /// scores (never NaN, inf or -0).
    pub fn display(&self, digits: usize) -> String {
        if self.n == 0 || !self.mean.is_finite() {
            return "n/a".into();
        }
        format!(
            "{:.digits$} [{:.digits$}, {:.digits$}]",
            self.mean + 0.0,
            self.ci_low + 0.0,
            self.ci_high + 0.0
        )
    }
}

/// Arithmetic mean (0 for an empty slice; never -0).
pub fn mean(xs: &[f64]) -> f64 {
    if xs.is_empty() {
        0.0
    } else {
        xs.iter().sum::<f64>() / xs.len() as f64 + 0.0
    }
}

/// Percentile with linear interpolation between closest ranks (sorted input).
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = p.clamp(0.0, 1.0) * (sorted.len() - 1) as f64;
    let lo = rank.floor() as usize;
    let hi = rank.ceil() as usize;
    sorted[lo] + (sorted[hi] - sorted[lo]) * (rank - lo as f64)
}

/// The distinct values of `xs` (ascending) with their counts, when drawing
/// a resample as counts per value is cheaper than drawing every item. A
/// value's binomial draw walks about 1.6 standard deviations of outcomes
/// from its mode (a division each, ~10 item draws' time) after one
/// exponential (~20): the counts are used when those steps, summed over the
/// values, cost less than the n item draws.
fn few_values(xs: &[f64]) -> Option<Vec<(f64, u64)>> {
    let n = xs.len();
    let mut sorted: Vec<f64> = xs.to_vec();
    sorted.sort_unstable_by(f64::total_cmp);
    let mut out: Vec<(f64, u64)> = Vec::new();
    for x in sorted {
        match out.last_mut() {
            Some((v, c)) if v.total_cmp(&x).is_eq() => *c += 1,
            _ => {
                out.push((x, 1));
                if out.len() * 20 > n {
                    return None;
                }
            }
        }
    }
    let mut left = n as f64;
    let mut cost = 0.0;
    for &(_, count) in &out[..out.len() - 1] {
        let p = count as f64 / left;
        cost += 20.0 + 16.0 * (left * p * (1.0 - p)).sqrt();
        left -= count as f64;
    }
    (cost < n as f64).then_some(out)
}

/// The means of `resamples` bootstrap resamples of the `n` items whose
/// distinct values (ascending) and counts are `values`, each resample drawn
/// as the counts it gives each value (see [`summarize`]).
pub(crate) fn count_means(
    values: &[(f64, u64)],
    n: usize,
    seed: u64,
    resamples: usize,
) -> Vec<f64> {
    let draws = (values.len() as u64).saturating_sub(1);
    let table = binomial::LnFactorials::up_to(n as u64);
    // Value j's probability among the items of values j.. .
    let mut items_left = n as u64;
    let probs: Vec<binomial::Prob> = values
        .iter()
        .map(|&(_, count)| {
            let p = binomial::Prob::new(count as f64 / items_left.max(1) as f64);
            items_left = items_left.saturating_sub(count);
            p
        })
        .collect();
    (0..resamples)
        .into_par_iter()
        .map(|r| {
            let mut rng = SplitMix64::new(seed).skipped(r as u64 * draws);
            let mut left = n as u64;
            let mut sum = 0.0;
            for (j, (&(v, _), prob)) in values.iter().zip(&probs).enumerate() {
                let c = if j + 1 == values.len() {
                    left
                } else {
                    let u = binomial::uniform(&mut rng);
                    binomial::binomial_table(left, prob, &table, u)
                };
                sum += v * c as f64;
                left -= c;
            }
            sum / n as f64
        })
        .collect()
}

/// Mean, n and a 95% percentile bootstrap interval of `xs` (`resamples`
/// resamples with replacement, generator seeded with `seed`).
///
/// A resample of n items with replacement is drawn as the counts it gives
/// each distinct value: a multinomial draw, made as one binomial per value
/// but the last (each conditional on the ones before, values ascending;
/// [`binomial`] inverts the exact distribution with one uniform). When
/// `xs` holds more than sqrt(n) distinct values, every item is drawn
/// instead. Both are the same bootstrap (the resampled means have the same
/// distribution); the count draws take about sqrt(n) steps per value
/// instead of n. Resample r uses its own stretch of one SplitMix64 stream
/// (draws r*d .. (r+1)*d, d the draws per resample), so resamples run in
/// parallel and give the same intervals on any machine and thread count.
pub fn summarize(xs: &[f64], seed: u64, resamples: usize) -> GroupStat {
    let m = mean(xs);
    if xs.len() < 2 || resamples == 0 {
        return GroupStat {
            mean: m,
            n: xs.len(),
            ci_low: m,
            ci_high: m,
        };
    }
    let n = xs.len();
    let mut means: Vec<f64> = match few_values(xs) {
        Some(values) => count_means(&values, n, seed, resamples),
        None => (0..resamples)
            .into_par_iter()
            .map(|r| {
                let mut rng = SplitMix64::new(seed).skipped(r as u64 * n as u64);
                let s: f64 = (0..n).map(|_| xs[rng.below(n)]).sum();
                s / n as f64
            })
            .collect(),
    };
    means.sort_by(f64::total_cmp);
    GroupStat {
        mean: m,
        n: xs.len(),
        ci_low: percentile(&means, 0.025) + 0.0,
        ci_high: percentile(&means, 0.975) + 0.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generator_is_deterministic() {
        let a: Vec<u64> = {
            let mut r = SplitMix64::new(7);
            (0..3).map(|_| r.next_u64()).collect()
        };
        let mut r = SplitMix64::new(7);
        assert_eq!(a, (0..3).map(|_| r.next_u64()).collect::<Vec<_>>());
        // Reference value of SplitMix64 seeded with 0.
        assert_eq!(SplitMix64::new(0).next_u64(), 0xE220_A839_7B1D_CDAF);
    }

    #[test]
    fn intervals_bracket_the_mean_and_shrink_with_n() {
        let small = summarize(&[0.0, 1.0, 0.5, 1.0, 0.0], 1, 2000);
        let xs: Vec<f64> = (0..500).map(|i| f64::from(i % 2)).collect();
        let big = summarize(&xs, 1, 2000);
        assert!(small.ci_low <= small.mean && small.mean <= small.ci_high);
        assert!(big.ci_high - big.ci_low < small.ci_high - small.ci_low);
        assert_eq!(summarize(&[0.3], 1, 2000).ci_low, 0.3);
        assert_eq!(summarize(&[], 1, 2000).n, 0);
        assert_eq!(summarize(&[1.0, 1.0, 1.0], 9, 100).ci_high, 1.0);
    }

    #[test]
    fn skipping_equals_drawing() {
        let mut a = SplitMix64::new(42);
        for _ in 0..1000 {
            a.next_u64();
        }
        let mut b = SplitMix64::new(42).skipped(1000);
        assert_eq!(a.next_u64(), b.next_u64());
    }

    #[test]
    fn count_draws_agree_with_item_draws() {
        // 10,000 items of five values (counts drawn) against the same
        // items with a sixth of a hair added to every value, so that no
        // two values are equal and every item is drawn: the intervals of
        // the two bootstraps agree to their Monte Carlo error.
        let xs: Vec<f64> = (0..10_000).map(|i| f64::from(i * 7 % 5) / 4.0).collect();
        assert!(few_values(&xs).is_some());
        let distinct: Vec<f64> = xs
            .iter()
            .enumerate()
            .map(|(i, x)| x + i as f64 * 1e-12)
            .collect();
        assert!(few_values(&distinct).is_none());
        let a = summarize(&xs, 3, 4000);
        let b = summarize(&distinct, 3, 4000);
        let se = (0.5f64 * 0.5 / 10_000.0).sqrt();
        assert!((a.ci_low - b.ci_low).abs() < 0.2 * se * 4.0, "{a:?} {b:?}");
        assert!(
            (a.ci_high - b.ci_high).abs() < 0.2 * se * 4.0,
            "{a:?} {b:?}"
        );
        // The interval is about mean +- 1.96 standard errors.
        let sd = (xs.iter().map(|x| (x - a.mean).powi(2)).sum::<f64>() / 1e4).sqrt();
        let half = 1.96 * sd / 100.0;
        assert!(
            ((a.ci_high - a.ci_low) / 2.0 - half).abs() < 0.1 * half,
            "{a:?}"
        );
        // Deterministic, and the same with one thread.
        assert_eq!(a, summarize(&xs, 3, 4000));
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        assert_eq!(pool.install(|| summarize(&xs, 3, 4000)), a);
    }

    #[test]
    fn count_draws_equal_the_sequential_definition() {
        // Two values: each resample is one binomial draw of the ones.
        let xs: Vec<f64> = (0..400).map(|i| f64::from(i % 3 == 0)).collect();
        let ones = xs.iter().filter(|&&x| x == 1.0).count() as f64;
        let mut rng = SplitMix64::new(8);
        let mut means: Vec<f64> = (0..700)
            .map(|_| {
                let zeros = binomial::binomial(400, (400.0 - ones) / 400.0, &mut rng);
                (400 - zeros) as f64 / 400.0
            })
            .collect();
        means.sort_by(f64::total_cmp);
        let s = summarize(&xs, 8, 700);
        assert_eq!(s.ci_low, percentile(&means, 0.025) + 0.0);
        assert_eq!(s.ci_high, percentile(&means, 0.975) + 0.0);
    }

    #[test]
    fn parallel_resamples_equal_one_sequential_stream() {
        // 301 items of 301 distinct values: every item is drawn.
        let xs: Vec<f64> = (0..301).map(|i| f64::from(i) / 301.0).collect();
        let mut rng = SplitMix64::new(5);
        let mut means: Vec<f64> = (0..500)
            .map(|_| (0..xs.len()).map(|_| xs[rng.below(xs.len())]).sum::<f64>() / 301.0)
            .collect();
        means.sort_by(f64::total_cmp);
        let s = summarize(&xs, 5, 500);
        assert_eq!(s.ci_low, percentile(&means, 0.025) + 0.0);
        assert_eq!(s.ci_high, percentile(&means, 0.975) + 0.0);
    }

    #[test]
    fn percentile_interpolates() {
        assert_eq!(percentile(&[0.0, 10.0], 0.5), 5.0);
        assert_eq!(percentile(&[1.0, 2.0, 3.0], 1.0), 3.0);
    }
}
