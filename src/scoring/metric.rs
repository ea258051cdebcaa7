//! Parsing question metrics for each question type.
//!
//! A metric is a JSON value, or a string that holds JSON (Socioscope stores
//! metrics as strings); Yes/No metrics may be the plain string "yes"/"no".

use super::ScoreError;
use serde_json::Value;

/// The JSON inside a metric: a string holding JSON is parsed; any other
/// string is kept as a JSON string.
pub(crate) fn unwrap_metric(metric: &Value) -> Value {
    if let Value::String(s) = metric {
        let t = s.trim();
        if t.starts_with('{') || t.starts_with('[') || t.starts_with('"') {
            if let Ok(v) = serde_json::from_str::<Value>(t) {
                return v;
            }
        }
        return Value::String(t.to_string());
    }
    metric.clone()
}

/// Answer polarity words.
pub(crate) const YES_WORDS: [&str; 7] =
    ["yes", "y", "yeah", "yep", "true", "correct", "affirmative"];
/// Negative polarity words.
pub(crate) const NO_WORDS: [&str; 6] = ["no", "n", "nope", "false", "incorrect", "never"];

/// The polarity of a word: Some(true) for a yes-word, Some(false) for a no-word.
pub(crate) fn word_polarity(word: &str) -> Option<bool> {
    if YES_WORDS.contains(&word) {
        Some(true)
    } else if NO_WORDS.contains(&word) {
        Some(false)
    } else {
        None
    }
}

fn expected_from(v: &Value) -> Result<bool, ScoreError> {
    match v {
        Value::Bool(b) => Ok(*b),
        Value::String(s) => {
            let n = crate::text::normalize(s);
            word_polarity(&n).ok_or_else(|| {
                ScoreError::metric(format!(
                    "expected \"yes\" or \"no\", found {:?}",
                    crate::text::preview::Preview(s)
                ))
            })
        }
        other => Err(ScoreError::metric(format!(
            "expected \"yes\" or \"no\", found {}",
            crate::text::preview::Preview(other)
        ))),
    }
}

/// Parses a Yes/No metric: "yes"/"no" (or true/false, or `{"expected": ...}`).
pub(crate) fn parse_yes_no(metric: &Value) -> Result<bool, ScoreError> {
    match unwrap_metric(metric) {
        Value::Object(o) => match o.get("expected") {
            Some(v) => expected_from(v),
            None => Err(ScoreError::metric("object metric without \"expected\"")),
        },
        v => expected_from(&v),
    }
}

/// A Yes/No with Rationale metric.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RationaleMetric {
    /// The expected polarity.
    pub expected: bool,
    /// Keywords the rationale should contain.
    pub keywords: Vec<String>,
    /// Weight of the rationale part, in [0, 1].
    pub weight: f64,
}

/// Parses `{"expected": "yes"|"no", "rationale": [keywords], "rationale_weight": w}`.
pub(crate) fn parse_rationale(metric: &Value) -> Result<RationaleMetric, ScoreError> {
    let v = unwrap_metric(metric);
    let Value::Object(o) = v else {
        return Err(ScoreError::metric(
            "expected {\"expected\": \"yes\"|\"no\", \"rationale\": [...], \"rationale_weight\": w}",
        ));
    };
    let expected = expected_from(
        o.get("expected")
            .ok_or_else(|| ScoreError::metric("missing \"expected\""))?,
    )?;
    let keywords = match o.get("rationale") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(a)) => a
            .iter()
            .map(|k| match k {
                Value::String(s) => Ok(s.clone()),
                Value::Number(n) => Ok(n.to_string()),
                _ => Err(ScoreError::metric("rationale keywords must be strings")),
            })
            .collect::<Result<_, _>>()?,
        Some(_) => {
            return Err(ScoreError::metric(
                "\"rationale\" must be a list of keywords",
            ))
        }
    };
    let weight = match o.get("rationale_weight") {
        None | Some(Value::Null) => 0.5,
        Some(w) => {
            number(w).ok_or_else(|| ScoreError::metric("\"rationale_weight\" must be a number"))?
        }
    };
    if !(0.0..=1.0).contains(&weight) {
        return Err(ScoreError::metric(format!(
            "\"rationale_weight\" {weight} is outside [0, 1]"
        )));
    }
    Ok(RationaleMetric {
        expected,
        keywords,
        weight,
    })
}

fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
    .filter(|x: &f64| x.is_finite())
}

fn value_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) if !s.trim().is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Parses a weighted metric: `{"values": [...], "weights": [...]}` or
/// `{"value": weight, ...}`. Weights are finite and not negative.
pub(crate) fn parse_weighted(metric: &Value) -> Result<Vec<(String, f64)>, ScoreError> {
    let v = unwrap_metric(metric);
    let Value::Object(o) = v else {
        return Err(ScoreError::metric(
            "expected {\"values\": [...], \"weights\": [...]} or {\"value\": weight, ...}",
        ));
    };
    let pairs: Vec<(String, f64)> = if o.contains_key("values") || o.contains_key("weights") {
        let values = o
            .get("values")
            .and_then(Value::as_array)
            .ok_or_else(|| ScoreError::metric("\"values\" must be a list"))?;
        let weights = o
            .get("weights")
            .and_then(Value::as_array)
            .ok_or_else(|| ScoreError::metric("\"weights\" must be a list"))?;
        if values.len() != weights.len() {
            return Err(ScoreError::metric(format!(
                "{} values but {} weights",
                values.len(),
                weights.len()
            )));
        }
        values
            .iter()
            .zip(weights)
            .map(|(v, w)| {
                let value = value_text(v).ok_or_else(|| {
                    ScoreError::metric(format!(
                        "value {} is not a non-empty string",
                        crate::text::preview::Preview(v)
                    ))
                })?;
                let weight = number(w)
                    .ok_or_else(|| ScoreError::metric(format!("weight {w} is not a number")))?;
                Ok((value, weight))
            })
            .collect::<Result<_, ScoreError>>()?
    } else {
        o.iter()
            .map(|(k, w)| {
                let weight = number(w).ok_or_else(|| {
                    ScoreError::metric(format!(
                        "weight of {:?} is not a number",
                        crate::text::preview::Preview(k)
                    ))
                })?;
                Ok((k.clone(), weight))
            })
            .collect::<Result<_, ScoreError>>()?
    };
    if pairs.is_empty() {
        return Err(ScoreError::metric("no values"));
    }
    if let Some((v, w)) = pairs.iter().find(|(_, w)| *w < 0.0) {
        return Err(ScoreError::metric(format!(
            "weight {w} of {:?} is negative",
            crate::text::preview::Preview(v)
        )));
    }
    if pairs.iter().any(|(v, _)| v.trim().is_empty()) {
        return Err(ScoreError::metric("a value is empty"));
    }
    Ok(pairs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn yes_no_forms() {
        assert!(parse_yes_no(&json!("yes")).unwrap());
        assert!(!parse_yes_no(&json!(" No ")).unwrap());
        assert!(parse_yes_no(&json!("\"yes\"")).unwrap());
        assert!(parse_yes_no(&json!(true)).unwrap());
        assert!(parse_yes_no(&json!("maybe")).is_err());
        assert!(parse_yes_no(&json!(3)).is_err());
    }

    #[test]
    fn rationale_forms() {
        let m =
            parse_rationale(&json!("{\"expected\": \"no\", \"rationale\": [\"cost\"]}")).unwrap();
        assert_eq!(
            m,
            RationaleMetric {
                expected: false,
                keywords: vec!["cost".into()],
                weight: 0.5
            }
        );
        assert!(parse_rationale(&json!({"expected": "yes", "rationale_weight": 2})).is_err());
        assert!(parse_rationale(&json!("yes")).is_err());
    }

    #[test]
    fn weighted_forms() {
        let a = parse_weighted(&json!({"values": ["a", "b"], "weights": [0.5, 1]})).unwrap();
        assert_eq!(a, vec![("a".to_string(), 0.5), ("b".to_string(), 1.0)]);
        let b = parse_weighted(&json!("{\"a\": 0.5, \"b\": 1}")).unwrap();
        assert_eq!(a, b);
        assert!(parse_weighted(&json!({"values": ["a"], "weights": [1, 2]})).is_err());
        assert!(parse_weighted(&json!({"values": ["a"]})).is_err());
        assert!(parse_weighted(&json!({"a": "x"})).is_err());
        assert!(parse_weighted(&json!({"a": -1})).is_err());
        assert!(parse_weighted(&json!({})).is_err());
        assert!(parse_weighted(&json!("not json")).is_err());
        assert!(parse_weighted(&json!([1, 2])).is_err());
    }
}
