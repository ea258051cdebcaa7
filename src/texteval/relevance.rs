//! Relevance of a response to its question: intent match, refusal, depth,
//! step completeness and creativity (the pattern-based parts; semantic,
//! TF-IDF and keyword scores are computed by the caller).

use super::patterns::Patterns;
use super::Category;

/// 1.0 when the question's intent (by its opening words) is answered in
/// kind by the response (by its markers), else 0.5.
pub(crate) fn intent_match(patterns: &Patterns, question: &str, response: &str) -> f64 {
    let q = question.to_lowercase();
    let r = response.to_lowercase();
    let hit = patterns.intent.iter().any(|rule| {
        rule.question_prefixes
            .iter()
            .any(|p| q.starts_with(p.as_str()))
            && rule.response_markers.iter().any(|m| r.contains(m.as_str()))
    });
    if hit {
        1.0
    } else {
        0.5
    }
}

/// 1.0 when a refusal pattern matches the lower-cased response, else 0.0.
pub(crate) fn refusal_score(patterns: &Patterns, response_lower: &str) -> f64 {
    if patterns
        .refusal
        .iter()
        .any(|re| re.is_match(response_lower))
    {
        1.0
    } else {
        0.0
    }
}

/// The (min, max) word range of a category's appropriate depth.
pub(crate) fn depth_range(category: Category) -> (usize, usize) {
    match category {
        Category::Factual => (10, 30),
        Category::Explanatory => (30, 100),
        Category::Instruction => (20, 80),
        Category::Creative => (20, 200),
        Category::Sensitive => (30, 150),
    }
}

/// 1.0 inside the category's range, n/min below it, max/n above it.
pub(crate) fn depth_score(category: Category, words: usize) -> f64 {
    let (lo, hi) = depth_range(category);
    if words < lo {
        words as f64 / lo as f64
    } else if words > hi {
        hi as f64 / words as f64
    } else {
        1.0
    }
}

/// Step keywords present (each counted once, as substrings) plus numbered
/// steps, over 8, capped at 1.
pub(crate) fn step_completeness(patterns: &Patterns, response_lower: &str) -> f64 {
    let keywords = patterns
        .step_keywords
        .iter()
        .filter(|k| response_lower.contains(k.as_str()))
        .count();
    let numbered = patterns.numbered_step.find_iter(response_lower).count();
    ((keywords + numbered) as f64 / 8.0).min(1.0)
}

/// 0.25 per creativity indicator present, plus 0.25 when the response has
/// more than 15 distinct prep words, capped at 1.
pub(crate) fn creativity_score(
    patterns: &Patterns,
    response_lower: &str,
    distinct_words: usize,
) -> f64 {
    let present = patterns
        .creativity
        .iter()
        .filter(|re| re.is_match(response_lower))
        .count();
    let bonus = if distinct_words > 15 { 0.25 } else { 0.0 };
    (0.25 * present as f64 + bonus).min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intent_rules() {
        let p = Patterns::bundled();
        assert_eq!(
            intent_match(&p, "What is DNA?", "DNA refers to a molecule"),
            1.0
        );
        assert_eq!(intent_match(&p, "What is DNA?", "A molecule."), 0.5);
        assert_eq!(
            intent_match(&p, "How do I bake?", "First, heat the oven."),
            1.0
        );
        assert_eq!(
            intent_match(&p, "Why is the sky blue?", "Due to scattering."),
            1.0
        );
        assert_eq!(
            intent_match(&p, "Who is Ada?", "She was a mathematician."),
            1.0
        );
        assert_eq!(intent_match(&p, "Explain DNA", "DNA means life"), 0.5);
    }

    #[test]
    fn refusals() {
        let p = Patterns::bundled();
        for r in [
            "i'm sorry, i cannot answer that.",
            "i am unable to answer",
            "i'm afraid i can't help",
            "that's beyond my capabilities",
            "i would rather not say",
            "that is not allowed",
        ] {
            assert_eq!(refusal_score(&p, r), 1.0, "{r}");
        }
        assert_eq!(refusal_score(&p, "paris is the capital."), 0.0);
    }

    #[test]
    fn depth_ranges() {
        assert_eq!(depth_score(Category::Factual, 5), 0.5);
        assert_eq!(depth_score(Category::Factual, 20), 1.0);
        assert_eq!(depth_score(Category::Factual, 60), 0.5);
        assert_eq!(depth_score(Category::Creative, 400), 0.5);
        assert_eq!(depth_score(Category::Explanatory, 0), 0.0);
    }

    #[test]
    fn steps_and_creativity() {
        let p = Patterns::bundled();
        // first, then, finally + "1. " and "2. " = 5 of 8.
        let s = step_completeness(&p, "1. first mix. 2. then bake, finally eat");
        assert_eq!(s, 5.0 / 8.0);
        assert_eq!(step_completeness(&p, "nothing here"), 0.0);
        let all = "step first second third then next finally 1. 2. 3. ";
        assert_eq!(step_completeness(&p, all), 1.0);
        assert_eq!(creativity_score(&p, "imagine a sea like a mirror", 6), 0.5);
        assert_eq!(creativity_score(&p, "plain", 16), 0.25);
        assert_eq!(creativity_score(&p, "plain", 15), 0.0);
    }
}
