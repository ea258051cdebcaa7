//! Quality of a response on its own: length, fluency, coherence,
//! conciseness and readability.

use super::patterns::Patterns;
use super::prep::segments;
use std::collections::HashMap;

/// Fewest prep words of an appropriate length.
pub(crate) const MIN_WORDS: usize = 5;
/// Most prep words of an appropriate length.
pub(crate) const MAX_WORDS: usize = 300;

/// (length ok, feedback) for a response of `words` prep words.
pub(crate) fn length(words: usize) -> (bool, String) {
    let (ok, what) = if words < MIN_WORDS {
        (false, "Too short")
    } else if words > MAX_WORDS {
        (false, "Too long")
    } else {
        (true, "Appropriate length")
    };
    (ok, format!("{what} ({words} words, ideal: 10-100)"))
}

/// Mean sentence score: 1.0, x0.3 under 2 words (else x0.7 over 50 words),
/// x0.5 when the sentence does not start with an upper-case letter; 0 for a
/// text without sentences.
pub(crate) fn fluency(response: &str) -> f64 {
    let sentences = segments(response);
    if sentences.is_empty() {
        return 0.0;
    }
    let total: f64 = sentences
        .iter()
        .map(|s| {
            let words = s.split_whitespace().count();
            let mut f = 1.0;
            if words < 2 {
                f *= 0.3;
            } else if words > 50 {
                f *= 0.7;
            }
            if !s.chars().next().is_some_and(char::is_uppercase) {
                f *= 0.5;
            }
            f
        })
        .sum();
    total / sentences.len() as f64
}

/// 1.0 under two sentences, else all indicator hits over 2(N - 1), capped
/// at 1.
pub(crate) fn coherence(patterns: &Patterns, response: &str) -> f64 {
    let n = segments(response).len();
    if n < 2 {
        return 1.0;
    }
    let lower = response.to_lowercase();
    let hits: usize = patterns
        .coherence
        .iter()
        .map(|re| re.find_iter(&lower).count())
        .sum();
    (hits as f64 / (2 * (n - 1)) as f64).min(1.0)
}

/// 0.7 x type-token ratio + 0.3 x max(0, 1 - 0.1 x the repeats beyond five
/// of every word longer than three characters); 0 for no words.
pub(crate) fn conciseness(words: &[String]) -> f64 {
    if words.is_empty() {
        return 0.0;
    }
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for w in words {
        *counts.entry(w.as_str()).or_insert(0) += 1;
    }
    let ttr = counts.len() as f64 / words.len() as f64;
    let penalty: f64 = counts
        .iter()
        .filter(|(w, &c)| w.chars().count() > 3 && c > 5)
        .map(|(_, &c)| 0.1 * (c - 5) as f64)
        .sum();
    0.7 * ttr + 0.3 * (1.0 - penalty).max(0.0)
}

/// The reference profile's readability: clip(1 - (0.39 x words per
/// sentence + 11.8 x average word length in characters - 15.59) / 20).
/// The formula puts characters where Flesch-Kincaid has syllables, so it is
/// about 0 for English; kept as the original computed it.
pub(crate) fn readability_reference(response: &str, words: &[String]) -> f64 {
    if words.is_empty() {
        return 0.0;
    }
    let sentences = segments(response).len().max(1) as f64;
    let wps = words.len() as f64 / sentences;
    let awl = words.iter().map(|w| w.chars().count()).sum::<usize>() as f64 / words.len() as f64;
    (1.0 - (0.39 * wps + 11.8 * awl - 15.59) / 20.0).clamp(0.0, 1.0)
}

/// The standard profile's readability: the Flesch-Kincaid grade level
/// (0.39 x words per sentence + 11.8 x syllables per word - 15.59) mapped
/// by the seed's clip(1 - grade / 20).
pub(crate) fn readability_flesch_kincaid(response: &str, words: &[String]) -> f64 {
    if words.is_empty() {
        return 0.0;
    }
    let sentences = segments(response).len().max(1) as f64;
    let wps = words.len() as f64 / sentences;
    let spw = words.iter().map(|w| syllables(w)).sum::<usize>() as f64 / words.len() as f64;
    let grade = 0.39 * wps + 11.8 * spw - 15.59;
    (1.0 - grade / 20.0).clamp(0.0, 1.0)
}

/// English syllables of a lower-case word by the usual heuristic: vowel
/// groups (y counts as a vowel), a silent final "e" dropped (not in "-le"),
/// at least one. Digits and other non-letters count one syllable per word.
pub(crate) fn syllables(word: &str) -> usize {
    let letters: Vec<char> = word.chars().filter(|c| c.is_alphabetic()).collect();
    if letters.is_empty() {
        return 1;
    }
    let vowel = |c: char| matches!(c, 'a' | 'e' | 'i' | 'o' | 'u' | 'y');
    let mut groups = 0;
    let mut prev = false;
    for &c in &letters {
        let v = vowel(c);
        if v && !prev {
            groups += 1;
        }
        prev = v;
    }
    let n = letters.len();
    if n > 2
        && letters[n - 1] == 'e'
        && !vowel(letters[n - 2])
        && (letters[n - 2] != 'l' || vowel(letters[n - 3]))
    {
        groups -= 1;
    }
    groups.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::texteval::prep::prep;

    #[test]
    fn length_feedback() {
        assert_eq!(
            length(4),
            (false, "Too short (4 words, ideal: 10-100)".into())
        );
        assert!(length(5).0);
        assert_eq!(
            length(42),
            (true, "Appropriate length (42 words, ideal: 10-100)".into())
        );
        assert_eq!(length(301).1, "Too long (301 words, ideal: 10-100)");
    }

    #[test]
    fn fluency_rules() {
        assert_eq!(fluency("The sky is blue. It is clear!"), 1.0);
        // "the sky is blue" not capitalized (0.5), "Ok" one word (0.3).
        assert!((fluency("the sky is blue. Ok.") - 0.4).abs() < 1e-12);
        // one word and lower case: 0.3 x 0.5.
        assert!((fluency("ok") - 0.15).abs() < 1e-12);
        let long = format!("A {}.", "word ".repeat(55));
        assert!((fluency(&long) - 0.7).abs() < 1e-12);
        assert_eq!(fluency(""), 0.0);
    }

    #[test]
    fn coherence_counts_every_hit() {
        let p = Patterns::bundled();
        assert_eq!(coherence(&p, "One sentence only."), 1.0);
        // 3 sentences -> 4 needed; "first", "then" -> 0.5.
        assert_eq!(coherence(&p, "First mix. Then bake. Eat."), 0.5);
        assert_eq!(coherence(&p, "A b. C d."), 0.0);
    }

    #[test]
    fn conciseness_penalizes_repeats() {
        let w = prep("data data data data data data data data");
        // ttr 1/8; "data" 8 times: penalty 0.3 -> 0.7/8 + 0.3 x 0.7.
        assert!((conciseness(&w) - (0.7 / 8.0 + 0.21)).abs() < 1e-12);
        let w = prep("a cat sat");
        assert!((conciseness(&w) - 1.0).abs() < 1e-12);
        assert_eq!(conciseness(&[]), 0.0);
    }

    #[test]
    fn readability_profiles() {
        let text = "A cat is on a mat.";
        let w = prep(text);
        // wps 6, awl 2: 1 - (2.34 + 23.6 - 15.59) / 20 = 0.4825.
        assert!((readability_reference(text, &w) - 0.4825).abs() < 1e-12);
        let long = "Photosynthesis converts electromagnetic radiation into chemical energy.";
        assert_eq!(readability_reference(long, &prep(long)), 0.0);
        // 6 words, 6 syllables: grade 2.34 + 11.8 - 15.59 = -1.45 -> 1.
        assert_eq!(readability_flesch_kincaid(text, &w), 1.0);
        assert_eq!(readability_flesch_kincaid(long, &prep(long)), 0.0);
        let mid =
            "The committee approved the new budget after a long discussion about public spending.";
        // 13 words, 24 heuristic syllables: grade 5.07 + 11.8 x 24/13 - 15.59.
        let grade = 0.39 * 13.0 + 11.8 * 24.0 / 13.0 - 15.59;
        let fk = readability_flesch_kincaid(mid, &prep(mid));
        assert!((fk - (1.0 - grade / 20.0)).abs() < 1e-12, "{fk}");
    }

    #[test]
    fn syllable_heuristic() {
        for (w, n) in [
            ("cat", 1),
            ("table", 2),
            ("make", 1),
            ("photosynthesis", 5),
            ("rhythm", 1),
            ("the", 1),
            ("42", 1),
        ] {
            assert_eq!(syllables(w), n, "{w}");
        }
    }
}
