//! The text evaluator (`corpus-eval text-eval`): accuracy, relevance, safety
//! and quality of LLM responses per question category, the category-weighted
//! overall score, pass flags, the primary failure mode and suggestions, as
//! the text-evaluation-framework design defines them.
//!
//! Two profiles: [`Profile::Reference`] reproduces the original Python
//! framework's published numbers, [`Profile::Standard`] uses conventional
//! definitions (sacrebleu sentence BLEU, TF-IDF fitted on the run,
//! Flesch-Kincaid readability). The README lists every difference.

pub(crate) mod config;

pub use config::*;
pub(crate) mod input;
pub use input::*;
pub(crate) mod lexical;
pub use lexical::*;
pub(crate) mod output;
pub use output::*;
pub(crate) mod patterns;
pub use patterns::*;
pub(crate) mod prep;
pub use prep::*;
pub(crate) mod quality;
pub(crate) mod relevance;
pub(crate) mod safety;
pub(crate) mod verdict;

use crate::lexicon::Lexicon;
use crate::text::tfidf::Tfidf;
use serde::Serialize;

/// A question category.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Category {
    /// Facts: accuracy weighs most.
    Factual,
    /// Explanations.
    Explanatory,
    /// Instructions ("Instructional" is accepted on input).
    Instruction,
    /// Creative writing.
    Creative,
    /// Sensitive topics: safety weighs most.
    Sensitive,
}

impl Category {
    /// Every category, in the seed's order.
    pub const ALL: [Category; 5] = [
        Category::Factual,
        Category::Explanatory,
        Category::Instruction,
        Category::Creative,
        Category::Sensitive,
    ];

    /// The name written in results.
    pub fn as_str(self) -> &'static str {
        match self {
            Category::Factual => "Factual",
            Category::Explanatory => "Explanatory",
            Category::Instruction => "Instruction",
            Category::Creative => "Creative",
            Category::Sensitive => "Sensitive",
        }
    }

    /// Parses a category name, case-insensitively ("Instructional" too).
    pub fn parse(s: &str) -> Option<Category> {
        match s.trim().to_lowercase().as_str() {
            "factual" => Some(Category::Factual),
            "explanatory" => Some(Category::Explanatory),
            "instruction" | "instructional" => Some(Category::Instruction),
            "creative" => Some(Category::Creative),
            "sensitive" => Some(Category::Sensitive),
            _ => None,
        }
    }
}

/// Which definitions the metrics follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Profile {
    /// The original Python framework's published output.
    Reference,
    /// Conventional definitions (see the README).
    Standard,
}

impl Profile {
    /// The profile's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Profile::Reference => "reference",
            Profile::Standard => "standard",
        }
    }
}

/// One input row.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TextRow {
    /// The row's id.
    pub id: String,
    /// Its category.
    pub category: Category,
    /// The question.
    pub question: String,
    /// The reference answer.
    pub reference: String,
    /// The response to evaluate.
    pub response: String,
}

/// The eight documents the reference profile's TF-IDF space is fitted on.
pub const REFERENCE_TFIDF_DOCS: [&str; 8] = [
    "machine learning artificial intelligence",
    "climate change global warming",
    "programming python java",
    "science biology chemistry physics",
    "history world events",
    "mathematics algebra geometry calculus",
    "literature books poetry",
    "business economics finance",
];

/// Where the semantic columns come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SemanticSource {
    /// Sentence embeddings (cosines supplied per row).
    Embeddings,
    /// TF-IDF cosine fitted on the run's questions, references and responses.
    FallbackTfidf,
}

impl SemanticSource {
    /// The name written in summary.json and manifest.json.
    pub fn as_str(self) -> &'static str {
        match self {
            SemanticSource::Embeddings => "model",
            SemanticSource::FallbackTfidf => "fallback-tfidf",
        }
    }
}

/// Everything a row's evaluation needs besides the row.
pub struct Evaluator<'a> {
    /// The profile.
    pub profile: Profile,
    /// WordNet, for lemmas and synonyms.
    pub lexicon: &'a Lexicon,
    /// The patterns.
    pub patterns: &'a Patterns,
    /// Weights.
    pub weights: &'a Weights,
    /// Pass thresholds.
    pub thresholds: &'a Thresholds,
    /// The TF-IDF space of relevance (the fixed 8 documents, or the run).
    pub relevance_space: Tfidf,
}

/// The cosines a row's semantic columns are made of.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SemanticPair {
    /// reference vs response.
    pub similarity: f64,
    /// question vs response.
    pub relevance: f64,
}

/// The fallback TF-IDF space: fitted on every question, reference and
/// response of the run.
pub fn fallback_space(rows: &[TextRow]) -> Tfidf {
    let docs: Vec<&str> = rows
        .iter()
        .flat_map(|r| {
            [
                r.question.as_str(),
                r.reference.as_str(),
                r.response.as_str(),
            ]
        })
        .collect();
    Tfidf::fit(&docs, true)
}

/// The relevance TF-IDF space of a profile.
pub fn relevance_space(profile: Profile, rows: &[TextRow]) -> Tfidf {
    match profile {
        Profile::Reference => Tfidf::fit(&REFERENCE_TFIDF_DOCS, true),
        Profile::Standard => {
            // Fitted on the same prep texts the rows are scored on, so that
            // "COVID-19" (prep "covid19") is a term of the space.
            let docs: Vec<String> = rows
                .iter()
                .flat_map(|r| {
                    [
                        prep::prep(&r.question).join(" "),
                        prep::prep(&r.response).join(" "),
                    ]
                })
                .collect();
            Tfidf::fit(&docs, true)
        }
    }
}

/// A score rounded as Python's `round(x, 4)` does (correctly rounded
/// decimal), with -0 made 0.
pub fn round4(x: f64) -> f64 {
    if !x.is_finite() {
        return x;
    }
    format!("{x:.4}").parse::<f64>().unwrap_or(x) + 0.0
}

impl Evaluator<'_> {
    /// Evaluates one row, given its semantic cosines.
    pub fn evaluate(&self, row: &TextRow, sem: SemanticPair) -> output::TextResult {
        let lex = self.lexicon;
        let pat = self.patterns;
        let w = self.weights;
        let resp_lower = row.response.to_lowercase();
        let ref_tokens = prep::prep(&row.reference);
        let resp_tokens = prep::prep(&row.response);
        let q_tokens = prep::prep(&row.question);

        // Accuracy.
        let exact = if ref_tokens == resp_tokens { 1.0 } else { 0.0 };
        let rouge_1 = lexical::rouge_n(&ref_tokens, &resp_tokens, 1);
        let rouge_2 = lexical::rouge_n(&ref_tokens, &resp_tokens, 2);
        let bleu = match self.profile {
            Profile::Reference => lexical::bleu_reference(
                &row.reference,
                &row.response,
                ref_tokens.len(),
                resp_tokens.len(),
            ),
            Profile::Standard => lexical::sentence_bleu(&row.reference, &row.response),
        };
        let semantic = sem.similarity.clamp(0.0, 1.0);
        let numeric = lexical::numeric_accuracy(&row.reference, &row.response);
        let resp_keys = prep::keyword_set(lex, &resp_tokens);
        let coverage =
            prep::synonym_coverage(lex, &prep::keyword_set(lex, &ref_tokens), &resp_keys);
        let aw = &w.accuracy;
        let composite_accuracy = aw.semantic * semantic
            + aw.rouge_1 * rouge_1
            + aw.content * coverage
            + aw.numeric * numeric
            + aw.rouge_2 * rouge_2
            + aw.exact * exact
            + aw.bleu * bleu;

        // Relevance.
        let sem_rel = sem.relevance.clamp(0.0, 1.0);
        let tfidf = self
            .relevance_space
            .cosine(&q_tokens.join(" "), &resp_tokens.join(" "));
        let keyword = prep::synonym_coverage(lex, &prep::keyword_set(lex, &q_tokens), &resp_keys);
        let intent = relevance::intent_match(pat, &row.question, &row.response);
        let refusal = relevance::refusal_score(pat, &resp_lower);
        let depth = relevance::depth_score(row.category, resp_tokens.len());
        let distinct = {
            let mut v: Vec<&str> = resp_tokens.iter().map(String::as_str).collect();
            v.sort_unstable();
            v.dedup();
            v.len()
        };
        let rw = &w.relevance;
        let (steps, creativity, adjustment) = match row.category {
            Category::Instruction => {
                let s = relevance::step_completeness(pat, &resp_lower);
                (Some(s), None, rw.step_bonus * s)
            }
            Category::Creative => {
                let c = relevance::creativity_score(pat, &resp_lower, distinct);
                (None, Some(c), rw.creativity_bonus * c)
            }
            _ => (None, None, 0.0),
        };
        let base_relevance = rw.semantic * sem_rel
            + rw.tfidf * tfidf
            + rw.keyword * keyword
            + rw.intent * intent
            + adjustment
            - rw.refusal_penalty * refusal;
        let composite_relevance = base_relevance.clamp(0.0, 1.0);

        // Safety.
        let safety = safety::assess(pat, &row.question, &row.response);

        // Quality.
        let (length_ok, length_feedback) = quality::length(resp_tokens.len());
        let fluency = quality::fluency(&row.response);
        let coherence = quality::coherence(pat, &row.response);
        let conciseness = quality::conciseness(&resp_tokens);
        let readability = match self.profile {
            Profile::Reference => quality::readability_reference(&row.response, &resp_tokens),
            Profile::Standard => quality::readability_flesch_kincaid(&row.response, &resp_tokens),
        };
        let qw = &w.quality;
        let mut composite_quality = qw.fluency * fluency
            + qw.coherence * coherence
            + qw.conciseness * conciseness
            + qw.readability * readability;
        if !length_ok {
            composite_quality *= qw.length_penalty;
        }

        // Everything after this point reads the rounded scores.
        let ca = round4(composite_accuracy);
        let cr = round4(composite_relevance);
        let cs = round4(safety.score);
        let cq = round4(composite_quality);
        let dw = w.categories.of(row.category);
        let overall =
            round4(dw.accuracy * ca + dw.relevance * cr + dw.safety * cs + dw.quality * cq);
        let is_refusal = refusal > 0.7;
        let decisive = verdict::Decisive {
            accuracy: ca,
            semantic: round4(semantic),
            numeric: round4(numeric),
            relevance: cr,
            refusal,
            intent,
            is_refusal,
            safety: cs,
            bias_categories: &safety.categories,
            balance: round4(safety.perspective_balance),
            quality: cq,
            coherence: round4(coherence),
            conciseness: round4(conciseness),
            fluency: round4(fluency),
        };
        let failure = verdict::primary_failure_mode(&decisive);
        let suggestions = verdict::suggestions(&decisive);
        let t = self.thresholds;
        output::TextResult {
            id: row.id.clone(),
            category: row.category.as_str().to_string(),
            question: row.question.clone(),
            reference: row.reference.clone(),
            response: row.response.clone(),
            overall_score: overall,
            accuracy_exact_match: exact,
            accuracy_rouge_1: round4(rouge_1),
            accuracy_rouge_2: round4(rouge_2),
            accuracy_bleu_score: round4(bleu),
            accuracy_semantic_similarity: round4(semantic),
            accuracy_numeric_accuracy: round4(numeric),
            accuracy_content_coverage: round4(coverage),
            composite_accuracy: ca,
            accuracy_feedback: verdict::accuracy_feedback(ca, row.category == Category::Creative),
            relevance_semantic_relevance: round4(sem_rel),
            relevance_tfidf_relevance: round4(tfidf),
            relevance_keyword_overlap: round4(keyword),
            relevance_intent_match: intent,
            relevance_refusal_score: refusal,
            relevance_depth_score: round4(depth),
            composite_relevance: cr,
            relevance_feedback: verdict::relevance_feedback(cr),
            safety_has_bias_risk: safety.has_bias_risk(),
            safety_bias_categories: safety.categories.clone(),
            safety_bias_severity: round4(safety.severity),
            safety_perspective_balance: round4(safety.perspective_balance),
            safety_safety_score: cs,
            composite_safety: cs,
            safety_feedback: safety::feedback(&safety),
            quality_length_ok: length_ok,
            quality_length_feedback: length_feedback,
            quality_fluency_score: round4(fluency),
            quality_coherence_score: round4(coherence),
            quality_conciseness_score: round4(conciseness),
            quality_readability_score: round4(readability),
            composite_quality: cq,
            quality_feedback: verdict::quality_feedback(cq),
            overall_feedback: verdict::overall_feedback(overall, failure),
            primary_failure_mode: failure.to_string(),
            improvement_suggestions: suggestions,
            passed_accuracy: ca >= t.accuracy,
            passed_relevance: cr >= t.relevance,
            passed_safety: cs >= t.safety,
            passed_quality: cq >= t.quality,
            is_refusal,
            relevance_step_completeness: steps.map(round4),
            relevance_creativity_score: creativity.map(round4),
            relevance_adjustment: round4(adjustment),
            base_relevance: round4(base_relevance),
            response_words: resp_tokens.len(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn categories_parse_case_insensitively() {
        assert_eq!(Category::parse("factual"), Some(Category::Factual));
        assert_eq!(
            Category::parse("INSTRUCTIONAL"),
            Some(Category::Instruction)
        );
        assert_eq!(Category::parse("Instruction"), Some(Category::Instruction));
        assert_eq!(Category::parse(" Creative "), Some(Category::Creative));
        assert_eq!(Category::parse("Opinion"), None);
    }

    #[test]
    fn round4_is_pythons_round() {
        assert_eq!(round4(0.83333333), 0.8333);
        assert_eq!(round4(0.65), 0.65);
        assert_eq!(round4(-0.0), 0.0);
        assert_eq!(round4(0.00004), 0.0);
        // 0.00005 is stored just above 5e-5: Python rounds it up.
        assert_eq!(round4(0.00005), 0.0001);
    }

    #[test]
    fn reference_tfidf_space_is_mostly_zero() {
        let v = relevance_space(Profile::Reference, &[]);
        assert_eq!(v.vocabulary_len(), 28);
        assert_eq!(
            v.cosine("what is the capital of france", "paris is the capital"),
            0.0
        );
        let c = v.cosine(
            "what is machine learning",
            "machine learning is a field of artificial intelligence",
        );
        // q: machine, learning; r: machine, learning, artificial, intelligence
        // (equal idf): 2 / (sqrt 2 x 2).
        assert!((c - 2.0 / (2f64.sqrt() * 2.0)).abs() < 1e-12, "{c}");
    }
}
