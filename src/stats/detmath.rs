//! `ln`, `exp` and `ln Γ` from the basic IEEE operations only (+, −, ×, ÷
//! and exact power-of-two scaling), evaluated in a fixed order: the same
//! bits on every machine and platform, unlike the system math library,
//! whose last bits may differ between platforms. The bootstrap's binomial
//! sampler uses them so that intervals are reproducible everywhere.
//! Accuracy: a few ulp over the ranges used (checked against the standard
//! library in the tests).
//!
//! Kept rather than the `libm` crate (issue 42, measured 2026-11-27):
//! libm is as portable, and 1.7x faster on a mix of the three, but its
//! results differ in the last bits from these for 22% of `ln` arguments in
//! (0, 1), 6.5% of `exp` arguments in (-700, 0] and 30% of `ln Γ(k + 1)`
//! for k < 200,000. Every bootstrap draw reads them (the binomial sampler's
//! acceptance tests), so a switch would move draws near an acceptance edge
//! and change intervals printed under an unchanged draw signature
//! (`stats::SUMMARIZE_DRAW`). The speed is not worth it: 2 million calls
//! of each of the three take 89 ms here and 52 ms with libm.
//!
//! ```
//! use corpus_eval::stats::{exp, ln, ln_gamma};
//! assert!((ln(10.0) - std::f64::consts::LN_10).abs() < 1e-15);
//! assert!((exp(1.0) - std::f64::consts::E).abs() < 1e-15);
//! // ln Γ(5) = ln 24
//! assert!((ln_gamma(5.0) - 24f64.ln()).abs() < 1e-13);
//! ```

/// ln 2, split in a high part with trailing zero bits (so `k * LN2_HI` is
/// exact for |k| < 2^11) and the rest.
const LN2_HI: f64 = f64::from_bits(0x3fe6_2e42_fee0_0000);
const LN2_LO: f64 = f64::from_bits(0x3dea_39ef_3579_3c76);
const LOG2_E: f64 = std::f64::consts::LOG2_E;

/// 2^k for an exponent in the normal range, built from its bits.
fn pow2(k: i64) -> f64 {
    f64::from_bits(((k + 1023) as u64) << 52)
}

/// `x * 2^k`, in two exact steps so that results near the ends of the
/// range stay exact where representable.
fn scale(x: f64, k: i64) -> f64 {
    if k > 1000 {
        x * pow2(1000) * pow2(k - 1000)
    } else if k < -1000 {
        x * pow2(-1000) * pow2(k + 1000)
    } else {
        x * pow2(k)
    }
}

/// e^x (0 below about −745, +∞ above about 709.78; NaN stays NaN).
pub fn exp(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x > 709.782_712_893_384 {
        return f64::INFINITY;
    }
    if x < -745.2 {
        return 0.0;
    }
    // x = k ln 2 + r, |r| <= ln 2 / 2.
    let k = (x * LOG2_E).round();
    let r = (x - k * LN2_HI) - k * LN2_LO;
    // Taylor series of e^r to the 14th power (|r| <= 0.347: error < 1e-17),
    // Horner form.
    let mut p = 1.0 / 87_178_291_200.0; // 1/14!
    for d in [
        6_227_020_800.0, // 13!
        479_001_600.0,
        39_916_800.0,
        3_628_800.0,
        362_880.0,
        40_320.0,
        5_040.0,
        720.0,
        120.0,
        24.0,
        6.0,
        2.0,
        1.0,
        1.0,
    ] {
        p = p * r + 1.0 / d;
    }
    // p is now sum r^i / i! for i = 0..=14 (the last two steps add 1/1! r
    // and 1/0!).
    scale(p, k as i64)
}

/// 1/25, 1/23, ..., 1/3: the odd terms of the atanh series, highest first.
const ATANH_COEFFICIENTS: [f64; 12] = [
    1.0 / 25.0,
    1.0 / 23.0,
    1.0 / 21.0,
    1.0 / 19.0,
    1.0 / 17.0,
    1.0 / 15.0,
    1.0 / 13.0,
    1.0 / 11.0,
    1.0 / 9.0,
    1.0 / 7.0,
    1.0 / 5.0,
    1.0 / 3.0,
];

/// The natural logarithm (x > 0; ln 0 = −∞, negative or NaN gives NaN).
pub fn ln(x: f64) -> f64 {
    if x.is_nan() || x < 0.0 {
        return f64::NAN;
    }
    if x == 0.0 {
        return f64::NEG_INFINITY;
    }
    if x.is_infinite() {
        return x;
    }
    // x = m 2^e with m in [sqrt(1/2), sqrt(2)).
    let (mut m, mut e) = if x < f64::MIN_POSITIVE {
        // Subnormal: scale into the normal range first.
        let y = x * pow2(54);
        (y, -54i64)
    } else {
        (x, 0)
    };
    let bits = m.to_bits();
    let exponent = ((bits >> 52) & 0x7ff) as i64 - 1023;
    m = f64::from_bits((bits & 0x000f_ffff_ffff_ffff) | (1023u64 << 52));
    e += exponent;
    if m > std::f64::consts::SQRT_2 {
        m *= 0.5;
        e += 1;
    }
    // ln m = 2 atanh(s), s = (m - 1) / (m + 1), |s| <= 0.1716:
    // 2 (s + s^3/3 + s^5/5 + ...), to s^25 (s^2 <= 0.0295: the next term
    // is below 1e-20).
    let s = (m - 1.0) / (m + 1.0);
    let s2 = s * s;
    let mut sum = 0.0;
    for c in ATANH_COEFFICIENTS {
        sum = (sum + c) * s2;
    }
    let ln_m = 2.0 * s * (1.0 + sum);
    let e = e as f64;
    e * LN2_HI + (e * LN2_LO + ln_m)
}

/// ln Γ(x) for x > 0 (Stirling's series, shifted above 15 by the
/// recurrence Γ(x + 1) = x Γ(x)).
pub fn ln_gamma(x: f64) -> f64 {
    if x.is_nan() || x <= 0.0 {
        return f64::NAN;
    }
    let mut x = x;
    let mut shift = 1.0;
    while x < 15.0 {
        shift *= x;
        x += 1.0;
    }
    let inv = 1.0 / x;
    let inv2 = inv * inv;
    // 1/(12x) - 1/(360x^3) + 1/(1260x^5) - 1/(1680x^7) + 1/(1188x^9)
    let series = inv
        * (1.0 / 12.0
            + inv2
                * (-1.0 / 360.0
                    + inv2 * (1.0 / 1260.0 + inv2 * (-1.0 / 1680.0 + inv2 * (1.0 / 1188.0)))));
    const HALF_LN_2PI: f64 = 0.918_938_533_204_672_8;
    (x - 0.5) * ln(x) - x + HALF_LN_2PI + series - ln(shift)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, rel: f64) -> bool {
        a == b || (a - b).abs() <= rel * b.abs().max(f64::MIN_POSITIVE)
    }

    #[test]
    fn exp_matches_the_standard_library() {
        let mut x = -700.0;
        while x < 709.0 {
            assert!(close(exp(x), x.exp(), 4e-16), "exp({x}) = {}", exp(x));
            x += 0.731;
        }
        for x in [0.0, 1e-300, -1e-300, 1e-10, 0.5, -0.5, 1.0, 2.0, 10.0] {
            assert!(close(exp(x), x.exp(), 4e-16), "exp({x})");
        }
        assert_eq!(exp(0.0), 1.0);
        assert_eq!(exp(-800.0), 0.0);
        assert_eq!(exp(800.0), f64::INFINITY);
        assert!(exp(f64::NAN).is_nan());
    }

    #[test]
    fn ln_matches_the_standard_library() {
        let mut x = 1e-310;
        while x < 1e300 {
            assert!(close(ln(x), x.ln(), 4e-16), "ln({x}) = {}", ln(x));
            x *= 1.37;
        }
        for x in [0.5f64, 0.999_999, 1.0, 1.000_001, 2.0, 3.0, 1e6 + 1.0] {
            let want = x.ln();
            assert!(
                (ln(x) - want).abs() <= 4e-16 * want.abs().max(1e-300)
                    || (ln(x) - want).abs() < 1e-22,
                "ln({x}) = {} vs {want}",
                ln(x)
            );
        }
        assert_eq!(ln(1.0), 0.0);
        assert_eq!(ln(0.0), f64::NEG_INFINITY);
        assert!(ln(-1.0).is_nan());
    }

    #[test]
    fn ln_gamma_matches_factorials() {
        let mut fact: f64 = 1.0;
        for n in 1..171u32 {
            // Γ(n) = (n - 1)!
            let want = fact.ln();
            assert!(
                (ln_gamma(f64::from(n)) - want).abs() <= 1e-13 * want.abs().max(1.0),
                "ln Γ({n}) = {} vs {want}",
                ln_gamma(f64::from(n))
            );
            fact *= f64::from(n);
        }
        // Γ(1/2) = sqrt(pi)
        let half = std::f64::consts::PI.sqrt().ln();
        assert!((ln_gamma(0.5) - half).abs() < 1e-14);
        // Large arguments: Stirling is exact enough (ln Γ(1e6 + 1) = ln 1e6!).
        let big = ln_gamma(1e6 + 1.0);
        assert!((big - 12_815_518.384_658_169).abs() < 1e-6, "{big}");
    }
}
