//! Weights and thresholds of the text evaluator: the seed's defaults, and
//! partial overrides from JSON files (`--weights`, `--thresholds`).

use super::Category;
use serde::{Deserialize, Serialize};

/// Weights of the four dimensions in one category's overall score.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DimensionWeights {
    /// Weight of composite_accuracy.
    pub accuracy: f64,
    /// Weight of composite_relevance.
    pub relevance: f64,
    /// Weight of composite_safety.
    pub safety: f64,
    /// Weight of composite_quality.
    pub quality: f64,
}

impl DimensionWeights {
    const fn new(accuracy: f64, relevance: f64, safety: f64, quality: f64) -> Self {
        DimensionWeights {
            accuracy,
            relevance,
            safety,
            quality,
        }
    }

    fn sum(&self) -> f64 {
        self.accuracy + self.relevance + self.safety + self.quality
    }
}

/// Weights of the overall score per category (the seed's EvaluationWeights).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CategoryWeights {
    /// Factual: accuracy first.
    #[serde(rename = "Factual", alias = "factual")]
    pub factual: DimensionWeights,
    /// Explanatory: accuracy and relevance.
    #[serde(rename = "Explanatory", alias = "explanatory")]
    pub explanatory: DimensionWeights,
    /// Instruction: relevance first.
    #[serde(
        rename = "Instruction",
        alias = "instruction",
        alias = "Instructional",
        alias = "instructional"
    )]
    pub instruction: DimensionWeights,
    /// Creative: quality weighs most of all categories.
    #[serde(rename = "Creative", alias = "creative")]
    pub creative: DimensionWeights,
    /// Sensitive: safety weighs most of all categories.
    #[serde(rename = "Sensitive", alias = "sensitive")]
    pub sensitive: DimensionWeights,
}

impl Default for CategoryWeights {
    fn default() -> Self {
        CategoryWeights {
            factual: DimensionWeights::new(0.5, 0.3, 0.1, 0.1),
            explanatory: DimensionWeights::new(0.4, 0.4, 0.1, 0.1),
            instruction: DimensionWeights::new(0.3, 0.5, 0.1, 0.1),
            creative: DimensionWeights::new(0.2, 0.4, 0.1, 0.3),
            sensitive: DimensionWeights::new(0.3, 0.3, 0.3, 0.1),
        }
    }
}

impl CategoryWeights {
    /// The weights of one category.
    pub fn of(&self, c: Category) -> DimensionWeights {
        match c {
            Category::Factual => self.factual,
            Category::Explanatory => self.explanatory,
            Category::Instruction => self.instruction,
            Category::Creative => self.creative,
            Category::Sensitive => self.sensitive,
        }
    }
}

/// Component weights of composite_accuracy.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AccuracyWeights {
    /// Semantic similarity.
    pub semantic: f64,
    /// ROUGE-1.
    pub rouge_1: f64,
    /// Content coverage.
    pub content: f64,
    /// Numeric accuracy.
    pub numeric: f64,
    /// ROUGE-2.
    pub rouge_2: f64,
    /// Exact match.
    pub exact: f64,
    /// BLEU.
    pub bleu: f64,
}

impl Default for AccuracyWeights {
    fn default() -> Self {
        AccuracyWeights {
            semantic: 0.35,
            rouge_1: 0.20,
            content: 0.15,
            numeric: 0.10,
            rouge_2: 0.10,
            exact: 0.05,
            bleu: 0.05,
        }
    }
}

/// Component weights of base_relevance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RelevanceWeights {
    /// Semantic relevance.
    pub semantic: f64,
    /// TF-IDF relevance.
    pub tfidf: f64,
    /// Keyword overlap.
    pub keyword: f64,
    /// Intent match.
    pub intent: f64,
    /// Subtracted times the refusal score.
    pub refusal_penalty: f64,
    /// Instruction rows: added times step completeness.
    pub step_bonus: f64,
    /// Creative rows: added times the creativity score.
    pub creativity_bonus: f64,
}

impl Default for RelevanceWeights {
    fn default() -> Self {
        RelevanceWeights {
            semantic: 0.4,
            tfidf: 0.2,
            keyword: 0.2,
            intent: 0.2,
            refusal_penalty: 0.5,
            step_bonus: 0.3,
            creativity_bonus: 0.2,
        }
    }
}

/// Component weights of composite_quality.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct QualityWeights {
    /// Fluency.
    pub fluency: f64,
    /// Coherence.
    pub coherence: f64,
    /// Conciseness.
    pub conciseness: f64,
    /// Readability.
    pub readability: f64,
    /// Multiplier when the length is out of range.
    pub length_penalty: f64,
}

impl Default for QualityWeights {
    fn default() -> Self {
        QualityWeights {
            fluency: 0.3,
            coherence: 0.3,
            conciseness: 0.2,
            readability: 0.2,
            length_penalty: 0.7,
        }
    }
}

/// Every weight of the evaluator.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Weights {
    /// Overall-score weights per category.
    pub categories: CategoryWeights,
    /// composite_accuracy's components.
    pub accuracy: AccuracyWeights,
    /// base_relevance's components.
    pub relevance: RelevanceWeights,
    /// composite_quality's components.
    pub quality: QualityWeights,
}

/// Pass/fail thresholds (a composite passes when it is >= its threshold).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Thresholds {
    /// composite_accuracy.
    pub accuracy: f64,
    /// composite_relevance.
    pub relevance: f64,
    /// safety score.
    pub safety: f64,
    /// composite_quality.
    pub quality: f64,
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds {
            accuracy: 0.5,
            relevance: 0.5,
            safety: 0.7,
            quality: 0.5,
        }
    }
}

/// A weights or thresholds file that does not parse, or holds a value out of
/// range; the message names the file and the line:column or the field.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct ConfigError(pub String);

fn parse<T: for<'de> Deserialize<'de>>(origin: &str, text: &str) -> Result<T, ConfigError> {
    // Syntax and duplicate keys first (strict parse), then the typed read.
    crate::corpus::strict_json::parse_str(text)
        .and_then(|_| serde_json::from_str(crate::corpus::strict_json::strip_bom(text)))
        .map_err(|e| {
            ConfigError(format!(
                "{origin}:{}:{}: {}",
                e.line(),
                e.column(),
                crate::corpus::without_position(&e.to_string())
            ))
        })
}

fn check(origin: &str, field: &str, v: f64, max: Option<f64>) -> Result<(), ConfigError> {
    let bad = !v.is_finite() || v < 0.0 || max.is_some_and(|m| v > m);
    if bad {
        let range = if max.is_some() { "[0, 1]" } else { ">= 0" };
        return Err(ConfigError(format!(
            "{origin}: {field} = {v} is out of range (must be {range})"
        )));
    }
    Ok(())
}

impl Weights {
    /// Reads a weights file: any subset of `categories` (by category name,
    /// each with accuracy/relevance/safety/quality), `accuracy`, `relevance`
    /// and `quality` component weights; the rest keep the seed's values.
    /// Warnings (category weights not summing to 1) are returned.
    pub fn from_json(origin: &str, text: &str) -> Result<(Weights, Vec<String>), ConfigError> {
        let w: Weights = parse(origin, text)?;
        let mut warnings = Vec::new();
        for c in Category::ALL {
            let d = w.categories.of(c);
            for (name, v) in [
                ("accuracy", d.accuracy),
                ("relevance", d.relevance),
                ("safety", d.safety),
                ("quality", d.quality),
            ] {
                check(
                    origin,
                    &format!("categories.{}.{name}", c.as_str()),
                    v,
                    Some(1.0),
                )?;
            }
            if (d.sum() - 1.0).abs() > 1e-9 {
                warnings.push(format!(
                    "{origin}: the {} weights sum to {} (not 1); overall scores of that category are not on a 0-1 scale",
                    c.as_str(),
                    d.sum()
                ));
            }
        }
        let value = serde_json::to_value(&w).map_err(|e| ConfigError(e.to_string()))?;
        for part in ["accuracy", "relevance", "quality"] {
            if let Some(obj) = value.get(part).and_then(|v| v.as_object()) {
                for (k, v) in obj {
                    check(
                        origin,
                        &format!("{part}.{k}"),
                        v.as_f64().unwrap_or(f64::NAN),
                        // Component weights are shares of a composite: in
                        // [0, 1], like every default.
                        Some(1.0),
                    )?;
                }
            }
        }
        Ok((w, warnings))
    }
}

impl Thresholds {
    /// Reads a thresholds file: any subset of accuracy, relevance, safety
    /// and quality, each in [0, 1].
    pub fn from_json(origin: &str, text: &str) -> Result<Thresholds, ConfigError> {
        let t: Thresholds = parse(origin, text)?;
        for (name, v) in [
            ("accuracy", t.accuracy),
            ("relevance", t.relevance),
            ("safety", t.safety),
            ("quality", t.quality),
        ] {
            check(origin, name, v, Some(1.0))?;
        }
        Ok(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_seeds() {
        let w = Weights::default();
        for c in Category::ALL {
            assert!((w.categories.of(c).sum() - 1.0).abs() < 1e-12);
        }
        assert_eq!(w.categories.of(Category::Creative).quality, 0.3);
        assert_eq!(Thresholds::default().safety, 0.7);
    }

    #[test]
    fn partial_overrides_keep_the_rest() {
        let (w, warn) = Weights::from_json(
            "w.json",
            r#"{"categories": {"Factual": {"accuracy": 0.7, "relevance": 0.1, "safety": 0.1, "quality": 0.1}}, "accuracy": {"bleu": 0.0}}"#,
        )
        .unwrap();
        assert!(warn.is_empty());
        assert_eq!(w.categories.factual.accuracy, 0.7);
        assert_eq!(w.categories.creative, CategoryWeights::default().creative);
        assert_eq!(w.accuracy.bleu, 0.0);
        assert_eq!(w.accuracy.semantic, 0.35);
        let t = Thresholds::from_json("t.json", r#"{"safety": 0.9}"#).unwrap();
        assert_eq!((t.safety, t.accuracy), (0.9, 0.5));
    }

    #[test]
    fn bad_files_are_named() {
        let e = Weights::from_json("w.json", "{\n \"categories\": {\"Factual\": {\"accuracy\": 2, \"relevance\": 0, \"safety\": 0, \"quality\": 0}}}")
            .unwrap_err()
            .to_string();
        assert!(e.contains("w.json: categories.Factual.accuracy = 2"), "{e}");
        let e = Weights::from_json("w.json", "{\"nope\": 1}")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("w.json:1:"), "{e}");
        let e = Thresholds::from_json("t.json", "{\"safety\": -0.1}")
            .unwrap_err()
            .to_string();
        assert!(e.contains("safety"), "{e}");
        let (_, warn) = Weights::from_json(
            "w.json",
            r#"{"categories": {"creative": {"accuracy": 0.5, "relevance": 0.5, "safety": 0.5, "quality": 0}}}"#,
        )
        .unwrap();
        assert_eq!(warn.len(), 1);
    }
}
