//! The text evaluator's patterns (refusal, intent, bias, balance,
//! absolutes, creativity, coherence, steps), read from one JSON data file so
//! that a researcher can extend them. The bundled file is
//! `datasets/text-eval-patterns.json`; `--patterns FILE` replaces it.

use regex::Regex;
use serde::Deserialize;
use std::collections::BTreeMap;

/// The bundled pattern file.
pub const BUNDLED: &str = include_str!("../../datasets/text-eval-patterns.json");

/// One intent rule: a question starting with one of the prefixes is
/// answered in kind when the response contains one of the markers.
#[derive(Debug, Clone, Deserialize)]
pub struct IntentRule {
    /// Lower-case question prefixes.
    pub question_prefixes: Vec<String>,
    /// Lower-case substrings of the response.
    pub response_markers: Vec<String>,
}

/// The pattern file as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct PatternFile {
    #[serde(rename = "_comment", default)]
    _comment: Option<String>,
    refusal: Vec<String>,
    intent: Vec<IntentRule>,
    bias: serde_json::Map<String, serde_json::Value>,
    severity: BTreeMap<String, f64>,
    default_severity: f64,
    balance_triggers: Vec<String>,
    balanced_indicators: Vec<String>,
    absolute_phrases: Vec<String>,
    creativity: Vec<String>,
    coherence: Vec<String>,
    step_keywords: Vec<String>,
    numbered_step: String,
}

/// The compiled patterns.
#[derive(Debug, Clone)]
pub struct Patterns {
    /// Refusal regexes (lower-cased response).
    pub refusal: Vec<Regex>,
    /// Intent rules.
    pub intent: Vec<IntentRule>,
    /// Bias categories and their regexes (lower-cased response), in name order.
    pub bias: Vec<(String, Vec<Regex>)>,
    /// Severity of each known bias category.
    pub severity: BTreeMap<String, f64>,
    /// Severity of a category the map lacks.
    pub default_severity: f64,
    /// Question words that make perspective balance apply.
    pub balance_triggers: Vec<String>,
    /// Balanced-language regexes.
    pub balanced_indicators: Vec<Regex>,
    /// Absolute-phrase regexes.
    pub absolute_phrases: Vec<Regex>,
    /// Creativity indicator regexes.
    pub creativity: Vec<Regex>,
    /// Coherence indicator regexes.
    pub coherence: Vec<Regex>,
    /// Step keywords (substrings of the lower-cased response).
    pub step_keywords: Vec<String>,
    /// A numbered step ("1. ", "2) ").
    pub numbered_step: Regex,
    /// sha256 of the file's bytes, for the manifest and signature.
    pub digest: String,
}

/// A pattern file that does not parse or compile; the message names the
/// file, the line and column (JSON) or the list and pattern (regex).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct PatternError(pub String);

fn compile(origin: &str, list: &str, items: &[String]) -> Result<Vec<Regex>, PatternError> {
    items
        .iter()
        .enumerate()
        .map(|(i, p)| {
            Regex::new(p).map_err(|e| {
                PatternError(format!(
                    "{origin}: {list}[{i}] {:?} is not a valid regex: {e}",
                    crate::corpus::Preview(p)
                ))
            })
        })
        .collect()
}

impl Patterns {
    /// The bundled patterns.
    pub fn bundled() -> Patterns {
        // The bundled file is tested to parse and compile.
        Patterns::parse("datasets/text-eval-patterns.json", BUNDLED)
            .unwrap_or_else(|e| panic!("bundled pattern file is broken: {e}"))
    }

    /// Parses and compiles a pattern file; `origin` names it in errors.
    pub fn parse(origin: &str, text: &str) -> Result<Patterns, PatternError> {
        // Syntax and duplicate keys first (strict parse), then the typed read.
        let file: PatternFile = crate::corpus::strict_json::parse_str(text)
            .and_then(|_| serde_json::from_str(crate::corpus::strict_json::strip_bom(text)))
            .map_err(|e| {
                PatternError(format!(
                    "{origin}:{}:{}: {}",
                    e.line(),
                    e.column(),
                    crate::corpus::without_position(&e.to_string())
                ))
            })?;
        // serde_json keeps the file's key order: categories are reported in it.
        let mut bias = Vec::new();
        for (name, list) in &file.bias {
            let list: Vec<String> = serde_json::from_value(list.clone()).map_err(|e| {
                PatternError(format!(
                    "{origin}: bias.{name} must be a list of regexes: {e}"
                ))
            })?;
            bias.push((
                name.clone(),
                compile(origin, &format!("bias.{name}"), &list)?,
            ));
        }
        for (name, v) in file
            .severity
            .iter()
            .map(|(k, v)| (format!("severity.{k}"), *v))
            .chain(std::iter::once((
                "default_severity".to_string(),
                file.default_severity,
            )))
        {
            if !(0.0..=1.0).contains(&v) {
                return Err(PatternError(format!(
                    "{origin}: {name} = {v} is out of range (must be in [0, 1])"
                )));
            }
        }
        let numbered_step = Regex::new(&file.numbered_step).map_err(|e| {
            PatternError(format!("{origin}: numbered_step is not a valid regex: {e}"))
        })?;
        Ok(Patterns {
            refusal: compile(origin, "refusal", &file.refusal)?,
            intent: file.intent,
            bias,
            severity: file.severity,
            default_severity: file.default_severity,
            balance_triggers: file.balance_triggers,
            balanced_indicators: compile(origin, "balanced_indicators", &file.balanced_indicators)?,
            absolute_phrases: compile(origin, "absolute_phrases", &file.absolute_phrases)?,
            creativity: compile(origin, "creativity", &file.creativity)?,
            coherence: compile(origin, "coherence", &file.coherence)?,
            step_keywords: file.step_keywords,
            numbered_step,
            digest: crate::report::sha256_hex(text.as_bytes()),
        })
    }

    /// The severity of a bias category (the default for one the map lacks).
    pub fn severity_of(&self, category: &str) -> f64 {
        self.severity
            .get(category)
            .copied()
            .unwrap_or(self.default_severity)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundled_file_compiles() {
        let p = Patterns::bundled();
        assert!(p.refusal.len() >= 4);
        assert_eq!(p.bias.len(), 4);
        assert_eq!(p.severity_of("climate_change"), 0.5);
        assert_eq!(p.severity_of("hate_speech"), 1.0);
    }

    #[test]
    fn bad_regex_is_named() {
        let text = BUNDLED.replace("\\\\bcannot\\\\b", "(unclosed");
        let err = Patterns::parse("p.json", &text).unwrap_err().to_string();
        assert!(err.contains("p.json: refusal[4]"), "{err}");
        let text = BUNDLED.replace("\"hate_speech\": 1.0", "\"hate_speech\": 2.0");
        let err = Patterns::parse("p.json", &text).unwrap_err().to_string();
        assert!(
            err.contains("severity.hate_speech = 2 is out of range"),
            "{err}"
        );
        let bundled = Patterns::bundled();
        let names: Vec<&str> = bundled.bias.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "gender_stereotypes",
                "racial_stereotypes",
                "religious_bias",
                "climate_change"
            ]
        );
    }
}
