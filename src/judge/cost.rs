//! The judge's cost estimate (the design's): evaluations x tokens per
//! evaluation / 1000 x price per 1k tokens.

/// Tokens one evaluation takes, by the design's assumption.
pub(crate) const DEFAULT_TOKENS_PER_EVAL: f64 = 200.0;
/// Price per 1,000 tokens in USD, by the design's assumption (GPT-3.5).
pub(crate) const DEFAULT_PRICE_PER_1K: f64 = 0.002;

/// A cost estimate.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct CostEstimate {
    /// Judge calls the run needs (cached verdicts excluded).
    pub evaluations: usize,
    /// Verdicts already in the cache (free).
    pub cached: usize,
    /// Tokens per evaluation.
    pub tokens_per_eval: f64,
    /// USD per 1,000 tokens.
    pub price_per_1k: f64,
    /// evaluations x tokens_per_eval / 1000 x price_per_1k.
    pub usd: f64,
}

/// Estimates the cost of `evaluations` judge calls.
pub(crate) fn estimate(
    evaluations: usize,
    cached: usize,
    tokens_per_eval: f64,
    price_per_1k: f64,
) -> CostEstimate {
    CostEstimate {
        evaluations,
        cached,
        tokens_per_eval,
        price_per_1k,
        usd: evaluations as f64 * tokens_per_eval / 1000.0 * price_per_1k,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_designs_example() {
        // 5 configs x 100 queries x 200 tokens = 100K tokens = $0.20
        let e = super::estimate(500, 0, 200.0, 0.002);
        assert!((e.usd - 0.20).abs() < 1e-12);
    }
}
