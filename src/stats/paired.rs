//! Paired bootstrap comparison of two systems scored on the same items.
//!
//! Given per-item scores `a[i]` and `b[i]` of the same items, the observed
//! difference is `d = mean(b) - mean(a)`. Items are resampled with
//! replacement (the same indices for both systems, which keeps the pairing)
//! `resamples` times; the 95% interval is the 2.5th..97.5th percentile of
//! the resampled differences, and the two-sided p-value tests "no
//! difference" by centring the bootstrap distribution on zero:
//! `p = (1 + #{|d*_k - d| >= |d|}) / (1 + resamples)` (Efron & Tibshirani,
//! ch. 16), so p is never 0 and equals 1 when `d == 0`.
//!
//! ```
//! use corpus_eval::stats::paired::paired_bootstrap;
//! let a = [0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 1.0];
//! let b = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0];
//! let d = paired_bootstrap(&a, &b, 42, 2000).unwrap();
//! assert_eq!(d.diff, 0.5);
//! assert!(d.ci_low > 0.0 && d.p_value < 0.05);
//! ```

use super::{percentile, SplitMix64};
use serde::Serialize;

/// Resamples used by `compare` unless told otherwise.
pub const DEFAULT_PAIRED_RESAMPLES: usize = 10_000;

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
    /// Two-sided bootstrap p-value of "no difference".
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
    let mut resampled: Vec<f64> = (0..resamples)
        .map(|_| (0..n).map(|_| deltas[rng.below(n)]).sum::<f64>() / n as f64)
        .collect();
    // A tolerance keeps ties (e.g. d == 0) counted despite rounding.
    let eps = 1e-12;
    let extreme = resampled
        .iter()
        .filter(|d| (*d - diff).abs() >= diff.abs() - eps)
        .count();
    resampled.sort_by(f64::total_cmp);
    let (ci_low, ci_high) = if resamples == 0 {
        (diff, diff)
    } else {
        (percentile(&resampled, 0.025), percentile(&resampled, 0.975))
    };
    Some(PairedDiff {
        n,
        mean_a,
        mean_b,
        diff,
        ci_low,
        ci_high,
        p_value: (1 + extreme) as f64 / (1 + resamples) as f64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
