//! Paired bootstrap comparison of two systems scored on the same items.
//!
//! Given per-item scores `a[i]` and `b[i]` of the same items, the observed
//! difference is `d = mean(b) - mean(a)`. Items are resampled with
//! replacement (the same indices for both systems, which keeps the pairing)
//! `resamples` times; the 95% interval is the 2.5th..97.5th percentile of
//! the resampled differences.
//!
//! The two-sided p-value of "no difference" comes from the paired
//! sign-flip (randomization) test: under the null each item's difference
//! is as likely negated, so p is the share of sign assignments whose mean
//! difference is at least as far from 0 as the observed one. It is exact
//! (all 2^n assignments) for n <= 16 items, and estimated from `resamples`
//! random assignments above that as `(1 + k) / (1 + resamples)`. It equals
//! 1 when `d == 0` and stays honest for tiny n (n = 1 gives p = 1).
//!
//! ```
//! use corpus_eval::stats::paired_bootstrap;
//! let a = [0.0; 10];
//! let b = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0];
//! let d = paired_bootstrap(&a, &b, 42, 2000).unwrap();
//! assert!((d.diff - 0.9).abs() < 1e-12);
//! assert!(d.ci_low > 0.0 && d.p_value < 0.01);
//! ```

use super::{percentile, SplitMix64};
use serde::Serialize;

/// Resamples used by `compare` unless told otherwise.
pub const DEFAULT_PAIRED_RESAMPLES: usize = 10_000;

/// How [`paired_bootstrap`] draws, for signatures: one SplitMix64 stream,
/// n indices per resample (multiply-shift), then the sign flips.
pub const DRAW: &str = "splitmix64-one-stream+indices,then-sign-flips";

/// The comparison of system B against system A on one metric.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PairedDiff {
    /// Items scored by both.
    pub n: usize,
    /// Mean of A over those items.
    pub mean_a: f64,
    /// Mean of B over those items.
    pub mean_b: f64,
    /// `mean_b - mean_a`.
    pub diff: f64,
    /// 2.5th percentile of the resampled differences.
    pub ci_low: f64,
    /// 97.5th percentile of the resampled differences.
    pub ci_high: f64,
    /// Two-sided sign-flip p-value of "no difference".
    pub p_value: f64,
}

/// Paired bootstrap of `b - a` (equal lengths); None when there are no
/// items or the lengths differ.
pub fn paired_bootstrap(a: &[f64], b: &[f64], seed: u64, resamples: usize) -> Option<PairedDiff> {
    if a.is_empty() || a.len() != b.len() {
        return None;
    }
    let n = a.len();
    let deltas: Vec<f64> = a.iter().zip(b).map(|(x, y)| y - x).collect();
    let mean_a = a.iter().sum::<f64>() / n as f64;
    let mean_b = b.iter().sum::<f64>() / n as f64;
    let diff = deltas.iter().sum::<f64>() / n as f64;
    let mut rng = SplitMix64::new(seed);
    let resampled: Vec<f64> = (0..resamples)
        .map(|_| (0..n).map(|_| deltas[rng.below(n)]).sum::<f64>() / n as f64)
        .collect();
    let (ci_low, ci_high) = interval(resampled, diff);
    let p_value = sign_flip_p(&deltas, diff, &mut rng, resamples);
    Some(PairedDiff {
        n,
        mean_a,
        mean_b,
        diff,
        ci_low,
        ci_high,
        p_value,
    })
}

/// The 95% percentile interval of resampled differences (the observed
/// difference when there are none).
fn interval(mut resampled: Vec<f64>, diff: f64) -> (f64, f64) {
    if resampled.is_empty() {
        return (diff, diff);
    }
    resampled.sort_by(f64::total_cmp);
    (percentile(&resampled, 0.025), percentile(&resampled, 0.975))
}

/// Paired bootstrap of `b - a` resampling whole clusters (`cluster[i]` is
/// item i's cluster, e.g. its transcript): answers from one interview are
/// not independent, and resampling items one by one would make the
/// interval too narrow. A resample draws as many clusters as there are,
/// with replacement, and its difference is the sum of the drawn clusters'
/// differences over their items. The sign-flip p-value flips whole
/// clusters (exact up to 16 clusters). None when there are no items or the
/// lengths differ.
///
/// ```
/// use corpus_eval::stats::{paired_bootstrap, paired_bootstrap_clustered};
/// // Two transcripts: B is better on every answer of the first, worse on
/// // every answer of the second.
/// let a = [0.0; 8];
/// let b = [1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, -1.0];
/// let cluster = [0, 0, 0, 0, 1, 1, 1, 1];
/// let items = paired_bootstrap(&a, &b, 7, 2000).unwrap();
/// let clusters = paired_bootstrap_clustered(&a, &b, &cluster, 7, 2000).unwrap();
/// assert_eq!(items.diff, clusters.diff);
/// assert!(clusters.ci_high - clusters.ci_low > items.ci_high - items.ci_low);
/// assert_eq!(clusters.p_value, 1.0); // two clusters: 4 sign assignments, all as extreme
/// ```
pub fn paired_bootstrap_clustered(
    a: &[f64],
    b: &[f64],
    cluster: &[usize],
    seed: u64,
    resamples: usize,
) -> Option<PairedDiff> {
    let n = a.len();
    if n == 0 || b.len() != n || cluster.len() != n {
        return None;
    }
    let groups = cluster.iter().max().map_or(0, |m| m + 1);
    let mut sums = vec![0.0; groups];
    let mut sizes = vec![0usize; groups];
    for ((x, y), &c) in a.iter().zip(b).zip(cluster) {
        sums[c] += y - x;
        sizes[c] += 1;
    }
    let (sums, sizes): (Vec<f64>, Vec<usize>) =
        sums.into_iter().zip(sizes).filter(|(_, k)| *k > 0).unzip();
    let k = sums.len();
    let mean_a = a.iter().sum::<f64>() / n as f64;
    let mean_b = b.iter().sum::<f64>() / n as f64;
    let diff = sums.iter().sum::<f64>() / n as f64;
    let mut rng = SplitMix64::new(seed);
    let resampled: Vec<f64> = (0..resamples)
        .map(|_| {
            let (mut s, mut m) = (0.0, 0usize);
            for _ in 0..k {
                let c = rng.below(k);
                s += sums[c];
                m += sizes[c];
            }
            s / m as f64
        })
        .collect();
    let (ci_low, ci_high) = interval(resampled, diff);
    // Flipping cluster sums: the statistic is their total, and "at least as
    // extreme" compares totals (the item count n is the same in every
    // assignment).
    let scaled: Vec<f64> = sums.iter().map(|s| s * k as f64 / n as f64).collect();
    let p_value = sign_flip_p(&scaled, diff, &mut rng, resamples);
    Some(PairedDiff {
        n,
        mean_a,
        mean_b,
        diff,
        ci_low,
        ci_high,
        p_value,
    })
}

/// Largest n for which the sign-flip test enumerates every assignment.
const EXACT_SIGN_FLIP_MAX_N: usize = 16;

/// Whether `deltas`, item i negated where `negate(i)`, sum at least
/// `threshold` away from 0.
fn is_extreme(deltas: &[f64], threshold: f64, mut negate: impl FnMut(usize) -> bool) -> bool {
    let sum: f64 = deltas
        .iter()
        .enumerate()
        .map(|(i, d)| if negate(i) { -d } else { *d })
        .sum();
    sum.abs() >= threshold
}

/// Two-sided paired sign-flip p-value of the mean difference `diff`.
fn sign_flip_p(deltas: &[f64], diff: f64, rng: &mut SplitMix64, resamples: usize) -> f64 {
    let n = deltas.len();
    // A tolerance keeps ties (e.g. d == 0) counted despite rounding.
    let threshold = diff.abs() * n as f64 - 1e-9;
    if n <= EXACT_SIGN_FLIP_MAX_N {
        let total = 1u64 << n;
        let count = (0..total)
            .filter(|&m| is_extreme(deltas, threshold, |i| (m >> i) & 1 == 1))
            .count();
        return count as f64 / total as f64;
    }
    let mut count = 0;
    for _ in 0..resamples {
        let mut word = 0u64;
        let random_signs = |i: usize| {
            if i.is_multiple_of(64) {
                word = rng.next_u64();
            }
            (word >> (i % 64)) & 1 == 1
        };
        if is_extreme(deltas, threshold, random_signs) {
            count += 1;
        }
    }
    (1 + count) as f64 / (1 + resamples) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiny_samples_are_not_significant() {
        let d = paired_bootstrap(&[0.0], &[1.0], 1, 1000).unwrap();
        assert_eq!(d.p_value, 1.0);
        let d = paired_bootstrap(&[0.0; 5], &[1.0; 5], 1, 1000).unwrap();
        assert_eq!(d.p_value, 2.0 / 32.0);
    }

    #[test]
    fn identical_systems_have_p_one() {
        let a = [0.2, 0.4, 0.9];
        let d = paired_bootstrap(&a, &a, 1, 500).unwrap();
        assert_eq!(
            (d.diff, d.p_value, d.ci_low, d.ci_high),
            (0.0, 1.0, 0.0, 0.0)
        );
    }

    #[test]
    fn noise_is_not_significant_and_signal_is() {
        let mut rng = SplitMix64::new(3);
        let a: Vec<f64> = (0..200).map(|_| (rng.next_u64() % 2) as f64).collect();
        let b: Vec<f64> = (0..200).map(|_| (rng.next_u64() % 2) as f64).collect();
        let noise = paired_bootstrap(&a, &b, 5, 2000).unwrap();
        assert!(noise.p_value > 0.05, "{noise:?}");
        assert!(noise.ci_low < 0.0 && noise.ci_high > 0.0);
        let better: Vec<f64> = a.iter().map(|x| (x + 0.3).min(1.0)).collect();
        let signal = paired_bootstrap(&a, &better, 5, 2000).unwrap();
        assert!(signal.p_value < 0.01 && signal.ci_low > 0.0, "{signal:?}");
        assert!(paired_bootstrap(&[], &[], 1, 10).is_none());
        assert!(paired_bootstrap(&[1.0], &[1.0, 0.0], 1, 10).is_none());
    }
}
