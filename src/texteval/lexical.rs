//! The lexical accuracy metrics: exact match, ROUGE-1/2 (clipped counts,
//! F1), BLEU in the reference profile's form and as sacrebleu's sentence
//! BLEU, and numeric accuracy.

use regex::Regex;
use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

fn ngram_counts<S: AsRef<str>>(tokens: &[S], n: usize) -> HashMap<Vec<&str>, usize> {
    let mut m = HashMap::new();
    if n == 0 || tokens.len() < n {
        return m;
    }
    for w in tokens.windows(n) {
        *m.entry(w.iter().map(|t| t.as_ref()).collect()).or_insert(0) += 1;
    }
    m
}

/// (clipped matches, n-grams of the candidate) for order `n`.
fn clipped<S: AsRef<str>>(reference: &[S], candidate: &[S], n: usize) -> (usize, usize) {
    let r = ngram_counts(reference, n);
    let c = ngram_counts(candidate, n);
    let matches = c
        .iter()
        .map(|(g, &k)| k.min(r.get(g).copied().unwrap_or(0)))
        .sum();
    (matches, candidate.len().saturating_sub(n - 1))
}

/// ROUGE-N F1 with clipped n-gram counts (not unique types); 0 when either
/// side has no n-gram or nothing matches.
///
/// ```
/// use corpus_eval::texteval::rouge_n;
/// let r: Vec<&str> = "the cat sits on the mat".split(' ').collect();
/// let c: Vec<&str> = "the cat is on the mat".split(' ').collect();
/// assert!((rouge_n(&r, &c, 1) - 5.0 / 6.0).abs() < 1e-12);
/// assert!((rouge_n(&r, &c, 2) - 0.6).abs() < 1e-12);
/// ```
pub fn rouge_n<S: AsRef<str>>(reference: &[S], candidate: &[S], n: usize) -> f64 {
    let (matches, c_total) = clipped(reference, candidate, n);
    let r_total = reference.len().saturating_sub(n - 1);
    if matches == 0 || c_total == 0 || r_total == 0 {
        return 0.0;
    }
    let p = matches as f64 / c_total as f64;
    let r = matches as f64 / r_total as f64;
    2.0 * p * r / (p + r)
}

/// The reference profile's BLEU: clipped 1..4-gram precisions on the raw
/// `split()` tokens (case and punctuation kept); orders with zero precision
/// are dropped and the score is the geometric mean of the rest (0 when all
/// are zero); brevity penalty `exp(1 - r/c)` when `c < r`, with `r` and `c`
/// the prep token counts of reference and response.
///
/// ```
/// use corpus_eval::texteval::bleu_reference;
/// let b = bleu_reference("the cat sits on the mat", "the cat is on the mat", 6, 6);
/// assert!((b - 0.5).abs() < 1e-12);
/// ```
pub fn bleu_reference(reference: &str, response: &str, ref_len: usize, resp_len: usize) -> f64 {
    let r: Vec<&str> = reference.split_whitespace().collect();
    let c: Vec<&str> = response.split_whitespace().collect();
    let logs: Vec<f64> = (1..=4)
        .filter_map(|n| {
            let (m, total) = clipped(&r, &c, n);
            (m > 0 && total > 0).then(|| (m as f64 / total as f64).ln())
        })
        .collect();
    if logs.is_empty() {
        return 0.0;
    }
    let bp = if resp_len < ref_len {
        if resp_len == 0 {
            0.0
        } else {
            (1.0 - ref_len as f64 / resp_len as f64).exp()
        }
    } else {
        1.0
    };
    bp * (logs.iter().sum::<f64>() / logs.len() as f64).exp()
}

/// sacrebleu's 13a tokenizer (the mteval-v13a rules), as tokens: see
/// [`crate::lexical::bleu::tokenize_13a`].
pub fn tokenize_13a(line: &str) -> Vec<String> {
    crate::lexical::pytext::split(&crate::lexical::bleu::tokenize_13a(line))
        .map(str::to_string)
        .collect()
}

/// sacrebleu's `sentence_bleu` with its defaults (13a tokenization, exp
/// smoothing, effective order), on a 0-1 scale instead of 0-100: the
/// `lexical` command's sentence BLEU divided by 100.
///
/// ```
/// use corpus_eval::texteval::sentence_bleu;
/// let b = sentence_bleu("the cat sits on the mat", "the cat is on the mat");
/// assert!((b - 0.3799178428).abs() < 1e-9);
/// ```
pub fn sentence_bleu(reference: &str, response: &str) -> f64 {
    let bleu = crate::lexical::bleu::Bleu::default();
    bleu.score(&bleu.stats(response, &[reference]), true) / 100.0
}

/// The numbers of a text: the set of matches of `\b\d+(?:\.\d+)?\b`, as
/// strings ("3" and "3.0" differ, as in the original framework).
pub fn numbers(text: &str) -> HashSet<&str> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| Regex::new(r"\b\d+(?:\.\d+)?\b").unwrap_or_else(|e| panic!("{e}")));
    re.find_iter(text).map(|m| m.as_str()).collect()
}

/// Share of the reference's numbers found among the response's; 1.0 when
/// the reference has none.
pub fn numeric_accuracy(reference: &str, response: &str) -> f64 {
    let r = numbers(reference);
    if r.is_empty() {
        return 1.0;
    }
    let c = numbers(response);
    r.iter().filter(|n| c.contains(*n)).count() as f64 / r.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<&str> {
        s.split_whitespace().collect()
    }

    #[test]
    fn rouge_uses_clipped_counts() {
        // The appendix's cat/mat example: 5 of 6 unigrams match (the twice-
        // seen "the" counts twice), where unique types would give 0.8.
        let (r, c) = (
            toks("the cat sits on the mat"),
            toks("the cat is on the mat"),
        );
        assert!((rouge_n(&r, &c, 1) - 0.8333).abs() < 1e-4);
        // Clipping: "the the the" vs "the": 1 match; P = 1/3, R = 1.
        assert!((rouge_n(&toks("the"), &toks("the the the"), 1) - 0.5).abs() < 1e-12);
        assert_eq!(rouge_n(&toks(""), &toks("a"), 1), 0.0);
        assert_eq!(rouge_n(&toks("a"), &toks("a"), 2), 0.0);
    }

    #[test]
    fn reference_bleu_drops_zero_orders_and_penalizes_brevity() {
        assert_eq!(bleu_reference("a b c", "x y z", 3, 3), 0.0);
        assert_eq!(bleu_reference("a b", "", 2, 0), 0.0);
        // Case-sensitive raw tokens: "The" != "the", so only "cat" matches
        // of unigrams; p1 = 1/2, the bigram fails -> 0.5.
        assert!((bleu_reference("the cat", "The cat", 2, 2) - 0.5).abs() < 1e-12);
        // Brevity: c = 2 < r = 4 -> exp(1 - 2) times the precision mean.
        let b = bleu_reference("a b c d", "a b", 4, 2);
        assert!((b - (-1.0f64).exp()).abs() < 1e-12, "{b}");
    }

    #[test]
    fn tokenizer_13a_splits_punctuation_not_numbers() {
        assert_eq!(
            tokenize_13a("Hello, world! It costs $3.50, ok? 1-2 a-b"),
            vec![
                "Hello", ",", "world", "!", "It", "costs", "$", "3.50", ",", "ok", "?", "1", "-",
                "2", "a-b"
            ]
        );
        assert_eq!(tokenize_13a("a &amp; b"), vec!["a", "&", "b"]);
    }

    #[test]
    fn sentence_bleu_matches_sacrebleu() {
        // sacrebleu 2.x sentence_bleu(hyp, [ref]).score / 100.
        let cases = [
            (
                "the cat sits on the mat",
                "the cat is on the mat",
                0.3799178428257963,
            ),
            ("a", "", 0.0),
            ("a", "x", 0.0),
            ("a b c d e", "a b", 0.2231301601484299),
            (
                "the quick brown fox jumped over the dog.",
                "The quick brown fox, jumped!",
                0.19740631366145518,
            ),
        ];
        for (r, c, want) in cases {
            let got = sentence_bleu(r, c);
            assert!((got - want).abs() < 1e-12, "{r:?} / {c:?}: {got} vs {want}");
        }
    }

    #[test]
    fn numeric_accuracy_compares_number_strings() {
        assert_eq!(numeric_accuracy("no numbers", "42"), 1.0);
        assert_eq!(numeric_accuracy("In 1969 and 2019", "1969 only"), 0.5);
        assert_eq!(numeric_accuracy("3.5 m", "about 3.50 m"), 0.0);
        assert_eq!(numeric_accuracy("pi is 3.14", "3.14"), 1.0);
    }
}
