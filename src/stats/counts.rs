//! Value counts: a group of scores as the count of each distinct value, the
//! partial aggregate that partitions of a run return and that add up.
//!
//! ```
//! use corpus_eval::stats::ValueCounts;
//! let (mut a, mut b) = (ValueCounts::default(), ValueCounts::default());
//! for x in [1.0, 0.0, 1.0] { a.add(x); }
//! b.add(1.0);
//! a.merge(&b);
//! assert_eq!((a.n(), a.mean()), (4, 0.75));
//! let s = a.summarize(42, 1000);
//! assert!(s.ci_low <= 0.75 && 0.75 <= s.ci_high);
//! ```

use super::GroupStat;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A group of scores as the count of each distinct value. Counts of two
/// partitions add ([`ValueCounts::merge`]: associative and commutative),
/// and the mean and interval depend on the counts only: the same on one
/// machine, over shards or over any partitioning of the items. Serialized
/// as `[[value, count], ...]`, values ascending.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ValueCounts {
    counts: BTreeMap<Key, u64>,
}

/// An f64 as a key that orders as the number does (finite values).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Key(u64);

impl Key {
    fn of(x: f64) -> Key {
        // -0 counts as 0.
        let bits = (x + 0.0).to_bits();
        Key(if bits >> 63 == 1 {
            !bits
        } else {
            bits | 1 << 63
        })
    }

    fn value(self) -> f64 {
        let bits = if self.0 >> 63 == 1 {
            self.0 & !(1 << 63)
        } else {
            !self.0
        };
        f64::from_bits(bits)
    }
}

impl ValueCounts {
    /// Counts one score (a score that is not finite is not a score: it is
    /// left out).
    pub fn add(&mut self, x: f64) {
        if x.is_finite() {
            *self.counts.entry(Key::of(x)).or_default() += 1;
        }
    }

    /// Adds another partition's counts.
    pub fn merge(&mut self, other: &ValueCounts) {
        for (k, c) in &other.counts {
            *self.counts.entry(*k).or_default() += c;
        }
    }

    /// The number of scores.
    pub fn n(&self) -> usize {
        self.counts.values().sum::<u64>() as usize
    }

    /// The distinct values, ascending, with their counts.
    pub fn values(&self) -> Vec<(f64, u64)> {
        self.counts.iter().map(|(k, &c)| (k.value(), c)).collect()
    }

    /// The mean: the values' sum, ascending, over n (0 for no scores;
    /// never -0).
    pub fn mean(&self) -> f64 {
        let n = self.n();
        if n == 0 {
            return 0.0;
        }
        let sum: f64 = self.counts.iter().map(|(k, &c)| k.value() * c as f64).sum();
        sum / n as f64 + 0.0
    }

    /// Mean, n and a 95% percentile bootstrap interval (`resamples`
    /// resamples, seeded with `seed`), every resample drawn as the counts
    /// it gives each value ([`super::COUNTS_DRAW`]).
    pub fn summarize(&self, seed: u64, resamples: usize) -> GroupStat {
        let (n, m) = (self.n(), self.mean());
        if n < 2 || resamples == 0 {
            return GroupStat {
                mean: m,
                n,
                ci_low: m,
                ci_high: m,
            };
        }
        let mut means = super::count_means(&self.values(), n, seed, resamples);
        means.sort_by(f64::total_cmp);
        GroupStat {
            mean: m,
            n,
            ci_low: super::percentile(&means, 0.025) + 0.0,
            ci_high: super::percentile(&means, 0.975) + 0.0,
        }
    }
}

impl FromIterator<f64> for ValueCounts {
    fn from_iter<I: IntoIterator<Item = f64>>(xs: I) -> ValueCounts {
        let mut v = ValueCounts::default();
        for x in xs {
            v.add(x);
        }
        v
    }
}

impl Serialize for ValueCounts {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.counts.iter().map(|(k, c)| (k.value(), c)))
    }
}

impl<'de> Deserialize<'de> for ValueCounts {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<ValueCounts, D::Error> {
        use serde::de::Error;
        let pairs: Vec<(f64, u64)> = Vec::deserialize(deserializer)?;
        let mut v = ValueCounts::default();
        for (x, c) in pairs {
            if !x.is_finite() || c == 0 {
                return Err(D::Error::custom(format!(
                    "a value count must be a finite value and a count of at least 1, not [{x}, {c}]"
                )));
            }
            *v.counts.entry(Key::of(x)).or_default() += c;
        }
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_order_as_numbers_and_read_back() {
        let xs = [-3.5, -1e-300, -0.0, 0.0, 1e-300, 0.25, 1.0, 7e10];
        let keys: Vec<Key> = xs.iter().map(|&x| Key::of(x)).collect();
        assert!(keys.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(Key::of(-0.0), Key::of(0.0));
        for x in xs {
            assert_eq!(Key::of(x).value(), x + 0.0);
        }
    }

    #[test]
    fn equal_to_summarize_where_it_draws_counts() {
        // Few distinct values: summarize draws counts, so the same numbers.
        let xs: Vec<f64> = (0..5000).map(|i| f64::from(i * 7 % 5) / 4.0).collect();
        let v: ValueCounts = xs.iter().copied().collect();
        assert_eq!(v.summarize(42, 500), super::super::summarize(&xs, 42, 500));
    }

    #[test]
    fn any_partitioning_gives_the_same_numbers() {
        let mut next = crate::test_rng::seeded(7);
        let xs: Vec<f64> = (0..3000).map(|_| (next() % 40) as f64 / 39.0).collect();
        let whole: ValueCounts = xs.iter().copied().collect();
        for parts in [2, 3, 17] {
            let mut merged = ValueCounts::default();
            for chunk in xs.chunks(xs.len() / parts + 1).rev() {
                merged.merge(&chunk.iter().copied().collect());
            }
            assert_eq!(merged, whole);
            assert_eq!(merged.summarize(9, 300), whole.summarize(9, 300));
        }
        let text = serde_json::to_string(&whole).unwrap();
        assert_eq!(serde_json::from_str::<ValueCounts>(&text).unwrap(), whole);
        assert!(serde_json::from_str::<ValueCounts>("[[0.5, 0]]").is_err());
    }

    #[test]
    fn small_groups() {
        let none = ValueCounts::default();
        assert_eq!((none.n(), none.mean()), (0, 0.0));
        let one: ValueCounts = [0.3].into_iter().collect();
        let s = one.summarize(1, 100);
        assert_eq!((s.mean, s.ci_low, s.ci_high), (0.3, 0.3, 0.3));
        let same: ValueCounts = [1.0, 1.0, 1.0].into_iter().collect();
        assert_eq!(same.summarize(9, 100).ci_high, 1.0);
        let skip: ValueCounts = [f64::NAN, 1.0].into_iter().collect();
        assert_eq!(skip.n(), 1);
    }
}
