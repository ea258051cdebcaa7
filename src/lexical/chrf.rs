//! chrF as sacrebleu 2.x computes it with its defaults: character n-grams
//! of orders 1-6 over the segment with all whitespace removed (Python's
//! `str.split()` set), no word n-grams, beta 2, case kept; precision and
//! recall averaged over the orders where both sides have n-grams; several
//! references: the one with the best sentence F; corpus chrF from the
//! summed statistics. Scores 0-100.
//!
//! ```
//! use corpus_eval::lexical::chrf::{stats, score};
//! let s = stats("the cat is on the mat", &["the cat sits on the mat"]);
//! assert!((score(&s) - 65.42442610494132).abs() < 1e-9);
//! ```

use super::{pytext, sorted_intersection};

/// Character n-gram orders.
pub const CHAR_ORDER: usize = 6;
/// Beta (recall weighted beta^2 times precision).
pub const BETA: u32 = 2;

/// Per order: hypothesis n-grams (0 when the reference has none of that
/// order), reference n-grams, matches.
pub type Stats = [[u64; 3]; CHAR_ORDER];

/// The sorted character n-grams of each order, packed 21 bits per
/// character.
fn ngrams(text: &str) -> Vec<Vec<u128>> {
    let chars: Vec<u32> = text
        .chars()
        .filter(|c| !pytext::is_space(*c))
        .map(u32::from)
        .collect();
    (1..=CHAR_ORDER)
        .map(|n| {
            if chars.len() < n {
                return Vec::new();
            }
            let mut v: Vec<u128> = chars
                .windows(n)
                .map(|w| w.iter().fold(0u128, |k, &c| (k << 21) | u128::from(c)))
                .collect();
            v.sort_unstable();
            v
        })
        .collect()
}

fn match_stats(h: &[Vec<u128>], r: &[Vec<u128>]) -> Stats {
    let mut s: Stats = [[0; 3]; CHAR_ORDER];
    for n in 0..CHAR_ORDER {
        let (hn, rn) = (&h[n], &r[n]);
        s[n] = [
            if rn.is_empty() { 0 } else { hn.len() as u64 },
            rn.len() as u64,
            sorted_intersection(hn, rn) as u64,
        ];
    }
    s
}

/// The statistics of a hypothesis against its references (the reference
/// with the highest sentence chrF, the first on a tie).
pub fn stats<S: AsRef<str>>(hypothesis: &str, references: &[S]) -> Stats {
    let h = ngrams(hypothesis);
    let mut best: Option<(f64, Stats)> = None;
    for r in references {
        let s = match_stats(&h, &ngrams(r.as_ref()));
        let f = score(&s);
        if best.is_none_or(|(b, _)| f > b) {
            best = Some((f, s));
        }
    }
    best.map_or([[0; 3]; CHAR_ORDER], |(_, s)| s)
}

/// Sums statistics (corpus chrF).
pub fn add(total: &mut Stats, s: &Stats) {
    for n in 0..CHAR_ORDER {
        for k in 0..3 {
            total[n][k] += s[n][k];
        }
    }
}

/// chrF (0-100) from statistics, as sacrebleu's `_compute_f_score`.
pub fn score(s: &Stats) -> f64 {
    let eps = 1e-16;
    let factor = f64::from(BETA * BETA);
    let (mut avg_prec, mut avg_rec, mut effective) = (0.0f64, 0.0f64, 0u32);
    for [n_hyp, n_ref, n_match] in s.iter().copied() {
        let prec = if n_hyp > 0 {
            n_match as f64 / n_hyp as f64
        } else {
            eps
        };
        let rec = if n_ref > 0 {
            n_match as f64 / n_ref as f64
        } else {
            eps
        };
        if n_hyp > 0 && n_ref > 0 {
            avg_prec += prec;
            avg_rec += rec;
            effective += 1;
        }
    }
    if effective == 0 {
        avg_prec = 0.0;
        avg_rec = 0.0;
    } else {
        avg_prec /= f64::from(effective);
        avg_rec /= f64::from(effective);
    }
    if avg_prec + avg_rec != 0.0 {
        let mut score = (1.0 + factor) * avg_prec * avg_rec;
        score /= factor * avg_prec + avg_rec;
        100.0 * score
    } else {
        0.0
    }
}

/// sacrebleu's signature fields for chrF's defaults.
pub fn signature_fields() -> String {
    format!("case:mixed|eff:yes|nc:{CHAR_ORDER}|nw:0|space:no")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_sides_are_zero() {
        assert_eq!(score(&stats("", &["abc"])), 0.0);
        assert_eq!(score(&stats("abc", &[""])), 0.0);
        assert_eq!(score(&stats("abc", &["abc"])), 100.0);
    }
}
