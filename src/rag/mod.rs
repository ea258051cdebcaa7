//! The RAG API client (`corpus-eval rag`): the seed's request/reply contract,
//! citation checks against the retrieved context, a retrying HTTP client and
//! batch runs journaled to `responses.jsonl` so that nothing is lost or asked
//! twice when a run is interrupted and resumed.

pub(crate) mod batch;
pub(crate) mod client;
pub(crate) mod journal;
pub(crate) mod questions;
pub use questions::*;
pub(crate) mod reply;
pub(crate) mod summary;
pub(crate) mod verify;

use serde_json::{Map, Value};

/// The metadata keys the Socioscope API filters on.
pub const FILTER_KEYS: [&str; 9] = [
    "PROJECT",
    "YEAR",
    "MONTH",
    "NAME",
    "COUNTRY",
    "GEOGRAPHY",
    "FILE",
    "TYPE",
    "RECORD LANG",
];

/// Defaults of a request, overridable per question.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestDefaults {
    /// Documents to retrieve.
    pub k: u64,
    /// The LangChain-style model name, passed through.
    pub model: String,
    /// Metadata filter.
    pub filter: Map<String, Value>,
}

/// Errors of the RAG API's settings and replies.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RagError {
    /// A `--filter` that is not `KEY=VALUE` with a known key.
    #[error("--filter {arg:?}: {message}")]
    Filter {
        /// The filter as given.
        arg: String,
        /// What is wrong.
        message: String,
    },
    /// An API URL that does not parse.
    #[error("--api-url: {message}")]
    Url {
        /// What the URL parser said.
        message: String,
    },
    /// The HTTP client could not be built.
    #[error("building the HTTP client: {message}")]
    Client {
        /// The cause.
        message: String,
    },
    /// A reply that breaks the API's contract.
    #[error("{message}")]
    Contract {
        /// What is missing or mistyped.
        message: String,
    },
    /// No valid reply came, after every attempt.
    #[error("{message} ({attempts} attempt(s))")]
    NoReply {
        /// The last attempt's reason.
        message: String,
        /// HTTP attempts made.
        attempts: u32,
    },
}

impl RagError {
    /// True for the user's settings (exit 2), false for runtime failures.
    pub fn is_input(&self) -> bool {
        matches!(self, RagError::Filter { .. } | RagError::Url { .. })
    }
}

/// Parses one `--filter KEY=VALUE`: the key must be one of
/// [`FILTER_KEYS`]; a value that reads as a JSON number stays a number
/// ("YEAR=2024" -> 2024), anything else is a string.
pub fn parse_filter(arg: &str) -> Result<(String, Value), RagError> {
    let fail = |message: String| RagError::Filter {
        arg: arg.to_string(),
        message,
    };
    let (key, value) = arg
        .split_once('=')
        .ok_or_else(|| fail("expected KEY=VALUE".into()))?;
    let key = key.trim();
    if !FILTER_KEYS.contains(&key) {
        return Err(fail(format!(
            "unknown key {key:?} (one of {})",
            FILTER_KEYS.join(", ")
        )));
    }
    let value = value.trim();
    let v = match value.parse::<serde_json::Number>() {
        Ok(n) if !value.starts_with('+') => Value::Number(n),
        _ => Value::String(value.to_string()),
    };
    Ok((key.to_string(), v))
}

/// The request body without `auth` (what is journaled); the client adds
/// `auth` only on the wire.
pub fn request_body(question: &str, k: u64, filter: &Map<String, Value>, model: &str) -> Value {
    serde_json::json!({
        "k": k,
        "filter": filter,
        "question": question,
        "model": model,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_keep_numbers_numbers() {
        assert_eq!(
            parse_filter("YEAR=2024").unwrap(),
            ("YEAR".into(), serde_json::json!(2024))
        );
        assert_eq!(
            parse_filter("PROJECT=FR-068").unwrap(),
            ("PROJECT".into(), serde_json::json!("FR-068"))
        );
        assert_eq!(
            parse_filter("RECORD LANG=en").unwrap().1,
            serde_json::json!("en")
        );
        assert_eq!(
            parse_filter("NAME=HavHøst").unwrap().1,
            serde_json::json!("HavHøst")
        );
        assert_eq!(parse_filter("YEAR=+5").unwrap().1, serde_json::json!("+5"));
        assert!(parse_filter("COLOR=red")
            .unwrap_err()
            .to_string()
            .contains("unknown key"));
        assert!(parse_filter("YEAR")
            .unwrap_err()
            .to_string()
            .contains("KEY=VALUE"));
    }

    #[test]
    fn request_body_has_no_auth() {
        let b = request_body("Who?", 10, &Map::new(), "openai:gpt-4o-mini");
        assert!(b.get("auth").is_none());
        assert_eq!(b["k"], 10);
    }
}
