//! Exact binomial draws from one uniform each, by inversion, with the
//! probabilities computed from basic IEEE operations only
//! ([`super::detmath`]): the same draws on every machine.
//!
//! For a small mean the outcomes are visited from 0 upwards; otherwise
//! from the mode outwards (mode, mode + 1, mode − 1, mode + 2, ...), which
//! takes about 1.6 standard deviations of steps. Inverting the cumulative
//! distribution in any fixed order of the outcomes is an exact sampler.
//!
//! ```
//! use corpus_eval::stats::{binomial, SplitMix64};
//! let mut rng = SplitMix64::new(1);
//! let draws: Vec<u64> = (0..2000).map(|_| binomial(100, 0.3, &mut rng)).collect();
//! let mean = draws.iter().sum::<u64>() as f64 / 2000.0;
//! assert!((mean - 30.0).abs() < 1.0);
//! ```

use super::detmath::{exp, ln, ln_gamma};
use super::SplitMix64;

/// A uniform draw in [0, 1) with 53 random bits.
pub fn uniform(rng: &mut SplitMix64) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / 9_007_199_254_740_992.0)
}

/// A success probability prepared for repeated draws: the smaller of p
/// and 1 − p, its logarithms, and whether it was mirrored.
#[derive(Debug, Clone, Copy)]
pub struct Prob {
    p: f64,
    ln_p: f64,
    ln_q: f64,
    mirrored: bool,
    degenerate: Option<bool>,
}

impl Prob {
    /// `p` clamped to [0, 1] (NaN reads as 0).
    pub fn new(p: f64) -> Prob {
        let p = if p.is_nan() { 0.0 } else { p.clamp(0.0, 1.0) };
        let degenerate = if p == 0.0 {
            Some(false)
        } else if p == 1.0 {
            Some(true)
        } else {
            None
        };
        let (p, mirrored) = if p > 0.5 { (1.0 - p, true) } else { (p, false) };
        Prob {
            p,
            ln_p: ln(p),
            ln_q: ln(1.0 - p),
            mirrored,
            degenerate,
        }
    }
}

/// ln k! for k = 0..=n, for draws of at most n trials.
#[derive(Debug, Clone)]
pub struct LnFactorials(Vec<f64>);

impl LnFactorials {
    /// The table up to `n`.
    pub fn up_to(n: u64) -> LnFactorials {
        LnFactorials((0..=n).map(|k| ln_gamma(k as f64 + 1.0)).collect())
    }

    fn get(&self, k: u64) -> f64 {
        self.0
            .get(k as usize)
            .copied()
            .unwrap_or_else(|| ln_gamma(k as f64 + 1.0))
    }
}

/// A draw of Binomial(`n`, `p`) (p clamped to [0, 1]); uses exactly one
/// uniform from `rng`, whatever `n` and `p` are.
pub fn binomial(n: u64, p: f64, rng: &mut SplitMix64) -> u64 {
    let u = uniform(rng);
    binomial_from(n, p, u)
}

/// The outcome of Binomial(`n`, `p`) that the uniform `u` in [0, 1) picks.
pub fn binomial_from(n: u64, p: f64, u: f64) -> u64 {
    draw(n, &Prob::new(p), &|k| ln_gamma(k as f64 + 1.0), u)
}

/// [`binomial_from`] with the probability prepared and ln k! from a table
/// (the same outcome, much cheaper when drawing often).
pub fn binomial_table(n: u64, prob: &Prob, table: &LnFactorials, u: f64) -> u64 {
    draw(n, prob, &|k| table.get(k), u)
}

fn draw(n: u64, prob: &Prob, ln_fact: &dyn Fn(u64) -> f64, u: f64) -> u64 {
    if n == 0 {
        return 0;
    }
    match prob.degenerate {
        Some(true) => return n,
        Some(false) => return 0,
        None => {}
    }
    let k = draw_small_p(n, prob, ln_fact, u);
    if prob.mirrored {
        n - k
    } else {
        k
    }
}

/// The draw for p <= 1/2.
fn draw_small_p(n: u64, prob: &Prob, ln_fact: &dyn Fn(u64) -> f64, u: f64) -> u64 {
    let p = prob.p;
    let ratio = p / (1.0 - p);
    let nf = n as f64;
    if nf * p < 16.0 {
        // From 0 upwards: P(0) = q^n, P(k+1) = P(k) (n-k)/(k+1) p/q.
        let mut pmf = exp(nf * prob.ln_q);
        let mut cdf = pmf;
        let mut k = 0u64;
        while u >= cdf && k < n {
            pmf *= (n - k) as f64 / (k + 1) as f64 * ratio;
            k += 1;
            cdf += pmf;
            if pmf == 0.0 {
                // Rounding left a sliver above the last mass: the tail.
                break;
            }
        }
        return k;
    }
    // From the mode outwards.
    let mode = (((nf + 1.0) * p).floor() as u64).min(n);
    let m = mode as f64;
    let log_pmf =
        ln_fact(n) - ln_fact(mode) - ln_fact(n - mode) + m * prob.ln_p + (nf - m) * prob.ln_q;
    let at_mode = exp(log_pmf);
    let mut cdf = at_mode;
    if u < cdf {
        return mode;
    }
    // Next outcome above (hi + 1) and below (lo - 1), with their masses.
    let (mut hi, mut lo) = (mode, mode);
    let (mut pmf_hi, mut pmf_lo) = (at_mode, at_mode);
    loop {
        let up = hi < n && pmf_hi > 0.0;
        let down = lo > 0 && pmf_lo > 0.0;
        if !up && !down {
            return mode;
        }
        if up {
            pmf_hi *= (n - hi) as f64 / (hi + 1) as f64 * ratio;
            hi += 1;
            cdf += pmf_hi;
            if u < cdf {
                return hi;
            }
        }
        if down {
            pmf_lo *= lo as f64 / (n - lo + 1) as f64 / ratio;
            lo -= 1;
            cdf += pmf_lo;
            if u < cdf {
                return lo;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The exact probabilities of Binomial(n, p), from the standard
    /// library's logarithms.
    fn pmf(n: u64, p: f64) -> Vec<f64> {
        let mut out = Vec::new();
        let mut log_c = 0.0f64;
        for k in 0..=n {
            if k > 0 {
                log_c += ((n - k + 1) as f64).ln() - (k as f64).ln();
            }
            out.push((log_c + k as f64 * p.ln() + (n - k) as f64 * (1.0 - p).ln()).exp());
        }
        out
    }

    /// Pearson's chi-square of `draws` draws against the exact
    /// distribution, over cells of expected count >= 5 (the tails pooled);
    /// returns (statistic, degrees of freedom).
    fn chi_square(n: u64, p: f64, draws: usize, seed: u64) -> (f64, usize) {
        let mut rng = SplitMix64::new(seed);
        let mut seen = vec![0usize; n as usize + 1];
        for _ in 0..draws {
            seen[binomial(n, p, &mut rng) as usize] += 1;
        }
        let probs = pmf(n, p);
        let (mut stat, mut cells) = (0.0, 0usize);
        let (mut pool_e, mut pool_o) = (0.0, 0.0);
        for (k, &pk) in probs.iter().enumerate() {
            pool_e += pk * draws as f64;
            pool_o += seen[k] as f64;
            if pool_e >= 5.0 {
                stat += (pool_o - pool_e).powi(2) / pool_e;
                cells += 1;
                pool_e = 0.0;
                pool_o = 0.0;
            }
        }
        if pool_e > 0.0 {
            stat += (pool_o - pool_e).powi(2) / pool_e.max(1e-9);
        }
        (stat, cells.saturating_sub(1))
    }

    #[test]
    fn draws_follow_the_binomial_distribution() {
        // Small means (upward search), large means (from the mode), p
        // above one half (mirrored), and the two paths' border.
        for (n, p) in [
            (10, 0.3),
            (40, 0.1),
            (200, 0.05),
            (1000, 0.5),
            (40_000, 0.25),
            (37, 0.9),
            (160, 0.1),
            (161, 0.1),
            (5000, 0.999),
        ] {
            let (stat, df) = chi_square(n, p, 50_000, n ^ 7);
            // The 99.9% quantile of chi-square is below df + 4.5 sqrt(2 df) + 10
            // for these df; the draws are deterministic, so this cannot flake.
            let limit = df as f64 + 4.5 * (2.0 * df as f64).sqrt() + 10.0;
            assert!(stat < limit, "n {n} p {p}: chi2 {stat} over {df} df");
        }
    }

    #[test]
    fn edge_cases() {
        let mut rng = SplitMix64::new(3);
        assert_eq!(binomial(0, 0.5, &mut rng), 0);
        assert_eq!(binomial(9, 0.0, &mut rng), 0);
        assert_eq!(binomial(9, 1.0, &mut rng), 9);
        assert_eq!(binomial(9, f64::NAN, &mut rng), 0);
        for u in [0.0, 0.5, 0.999_999_999_999] {
            assert!(binomial_from(50, 0.5, u) <= 50);
            assert!(binomial_from(5, 0.01, u) <= 5);
        }
        assert_eq!(binomial_from(5, 0.01, 0.0), 0);
        // u = 0 picks the first outcome visited: the mode.
        assert_eq!(binomial_from(100_000, 0.5, 0.0), 50_000);
    }

    #[test]
    fn the_table_gives_the_same_draws() {
        let table = LnFactorials::up_to(5000);
        for (n, p) in [(5000u64, 0.3), (4000, 0.77), (100, 0.01), (2, 0.5)] {
            let prob = Prob::new(p);
            for i in 0..200 {
                let u = f64::from(i) / 200.0;
                let a = binomial_from(n, p, u);
                let b = binomial_table(n, &prob, &table, u);
                assert!(a.abs_diff(b) <= 1, "n {n} p {p} u {u}: {a} vs {b}");
            }
        }
    }

    #[test]
    fn one_uniform_per_draw() {
        let mut a = SplitMix64::new(11);
        binomial(1000, 0.4, &mut a);
        binomial(3, 0.4, &mut a);
        let mut b = SplitMix64::new(11).skipped(2);
        assert_eq!(a.next_u64(), b.next_u64());
    }
}
