//! Multiple comparisons: Holm's step-down adjustment of p-values.
//!
//! With m tests, sort the p-values ascending p(1) <= ... <= p(m); the
//! adjusted value of the k-th smallest is `max over j <= k of
//! min(1, (m - j + 1) * p(j))`. It controls the family-wise error rate
//! (the chance of any false claim among the m) at the nominal level, under
//! any dependence between the tests, and is never less powerful than
//! Bonferroni (Holm 1979).
//!
//! ```
//! use corpus_eval::stats::holm;
//! // m = 4, sorted 0.01, 0.03, 0.04, 0.5: 0.01*4 = 0.04, 0.03*3 = 0.09,
//! // 0.04*2 = 0.08 -> 0.09 (monotone), 0.5*1 = 0.5.
//! let adjusted = holm(&[0.01, 0.04, 0.03, 0.5]);
//! let want = [0.04, 0.09, 0.09, 0.5];
//! for (a, w) in adjusted.iter().zip(want) {
//!     assert!((a - w).abs() < 1e-12);
//! }
//! ```

/// Holm-adjusted p-values, in the order given.
pub fn holm(p: &[f64]) -> Vec<f64> {
    let m = p.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&i, &j| p[i].total_cmp(&p[j]).then(i.cmp(&j)));
    let mut adjusted = vec![0.0; m];
    let mut running: f64 = 0.0;
    for (rank, &i) in order.iter().enumerate() {
        let scaled = ((m - rank) as f64 * p[i]).min(1.0);
        running = running.max(scaled);
        adjusted[i] = running;
    }
    adjusted
}

#[cfg(test)]
mod tests {
    use super::holm;

    #[test]
    fn one_test_is_unchanged_and_ones_stay_one() {
        assert_eq!(holm(&[0.03]), vec![0.03]);
        assert_eq!(holm(&[1.0, 1.0]), vec![1.0, 1.0]);
        assert!(holm(&[]).is_empty());
    }

    #[test]
    fn equals_r_p_adjust_holm() {
        // R: p.adjust(c(0.01, 0.02, 0.03, 0.04, 0.05), "holm")
        //    0.05 0.08 0.09 0.09 0.09
        let adjusted = holm(&[0.01, 0.02, 0.03, 0.04, 0.05]);
        for (a, w) in adjusted.iter().zip([0.05, 0.08, 0.09, 0.09, 0.09]) {
            assert!((a - w).abs() < 1e-12, "{adjusted:?}");
        }
        // Scaled values above 1 are cut to 1: 0.4*3, 0.5*2, 0.6.
        assert_eq!(holm(&[0.6, 0.4, 0.5]), vec![1.0, 1.0, 1.0]);
    }

    #[test]
    fn ties_get_the_same_adjustment() {
        // m = 3: 0.02*3 = 0.06, then 0.02*2 = 0.04 -> 0.06, then 0.2.
        assert_eq!(holm(&[0.2, 0.02, 0.02]), vec![0.2, 0.06, 0.06]);
    }
}
