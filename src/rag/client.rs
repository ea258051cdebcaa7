//! The RAG API's HTTP client: POST the request (with `auth` added on the
//! wire only), a per-request timeout, and retries with exponential backoff
//! and jitter on connection errors, timeouts, 429, 5xx and replies that
//! break the contract, honouring `Retry-After`.

use super::reply::{parse_reply, Reply};
use crate::http::{backoff, send_and_read, snippet};
use crate::secrets::{redact_url, url_secrets, Redactor};
use serde_json::Value;
use std::time::{Duration, Instant};

/// The environment variable holding the API's auth string.
pub(crate) const AUTH_ENV: &str = "EVALUATION_API_AUTH";
/// The environment variable holding the API's URL.
pub(crate) const URL_ENV: &str = "EVALUATION_API_URL";

/// How the API is reached.
#[derive(Debug, Clone)]
pub struct ClientConfig {
    /// The endpoint.
    pub url: String,
    /// Per-request timeout.
    pub timeout: Duration,
    /// Retries after the first attempt.
    pub max_retries: u32,
    /// First backoff, doubled after each failed attempt.
    pub backoff_base: Duration,
    /// Longest wait before a retry, whatever `Retry-After` asks.
    pub max_wait: Duration,
}

/// The outcome of one question.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The reply body, when a reply kept the contract.
    pub response: Option<Value>,
    /// The parsed reply.
    pub reply: Option<Reply>,
    /// Why no valid reply came (the last attempt's reason, with the first
    /// 200 bytes of its body when there was one).
    pub error: Option<String>,
    /// HTTP attempts made.
    pub attempts: u32,
    /// Wall time from the first attempt to the outcome.
    pub elapsed_ms: u64,
}

enum Attempt {
    Ok(Value, Reply),
    Retry(String, Option<Duration>),
    Fatal(String),
}

/// The API client. The auth string is held here only: it goes into each
/// request body on the wire and is never logged, printed or written.
pub struct RagClient {
    config: ClientConfig,
    auth: Option<String>,
    redactor: Redactor,
    http: reqwest::blocking::Client,
}

impl std::fmt::Debug for RagClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RagClient")
            .field("url", &redact_url(&self.config.url))
            .field("auth", &self.auth.as_ref().map(|_| "(set)"))
            .finish()
    }
}

impl RagClient {
    /// A client for `config`, with the auth string (from the environment).
    pub fn new(config: ClientConfig, auth: Option<String>) -> Result<RagClient, super::RagError> {
        reqwest::Url::parse(&config.url).map_err(|e| super::RagError::Url {
            message: e.to_string(),
        })?;
        let http = reqwest::blocking::Client::builder()
            .timeout(config.timeout)
            .connect_timeout(config.timeout.min(Duration::from_secs(10)))
            .pool_max_idle_per_host(64)
            // A redirect would re-POST the body, auth included, to another
            // host: never follow one.
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| super::RagError::Client {
                message: e.to_string(),
            })?;
        // The auth string and the URL's credentials, in every encoding a
        // server may echo them in, are kept out of what is stored or shown.
        let redactor = Redactor::new(auth.iter().cloned().chain(url_secrets(&config.url)));
        Ok(RagClient {
            config,
            auth,
            redactor,
            http,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &ClientConfig {
        &self.config
    }

    /// The redactor of this client's secrets (the auth string, the URL's
    /// credentials), for whatever is stored or printed of its replies.
    pub fn redactor(&self) -> &Redactor {
        &self.redactor
    }

    /// Asks one question (`body` without auth), retrying up to the limit.
    pub fn ask(&self, body: &Value) -> Outcome {
        let started = Instant::now();
        let seed = crate::text::hash::fnv1a(body.to_string().as_bytes());
        let attempts_allowed = self.config.max_retries.saturating_add(1);
        let mut last = String::new();
        for attempt in 1..=attempts_allowed {
            let wait = match self.attempt(body) {
                Attempt::Ok(mut response, reply) => {
                    self.redactor.redact_value(&mut response);
                    return Outcome {
                        response: Some(response),
                        reply: Some(reply),
                        error: None,
                        attempts: attempt,
                        elapsed_ms: started.elapsed().as_millis() as u64,
                    };
                }
                Attempt::Fatal(why) => {
                    return Outcome {
                        response: None,
                        reply: None,
                        error: Some(why),
                        attempts: attempt,
                        elapsed_ms: started.elapsed().as_millis() as u64,
                    }
                }
                Attempt::Retry(why, wait) => {
                    last = why;
                    wait
                }
            };
            if attempt < attempts_allowed {
                let pause =
                    wait.unwrap_or_else(|| backoff(self.config.backoff_base, attempt, seed));
                std::thread::sleep(pause.min(self.config.max_wait));
            }
        }
        Outcome {
            response: None,
            reply: None,
            error: Some(format!(
                "no valid reply after {attempts_allowed} attempts; last: {last}"
            )),
            attempts: attempts_allowed,
            elapsed_ms: started.elapsed().as_millis() as u64,
        }
    }

    fn attempt(&self, body: &Value) -> Attempt {
        let mut wire = body.clone();
        if let (Some(auth), Some(obj)) = (&self.auth, wire.as_object_mut()) {
            obj.insert("auth".into(), Value::String(auth.clone()));
        }
        let reply = match send_and_read(self.http.post(&self.config.url).json(&wire), "<api-url>") {
            Ok(r) => r,
            Err((why, wait)) => {
                return Attempt::Retry(self.redactor.redact(&why).into_owned(), wait)
            }
        };
        let (status, retry_after, text) = (reply.status, reply.retry_after, reply.text);
        // The body is parsed as received; only what is shown of it is
        // redacted (a short secret must not break the reply's syntax).
        let shown = || snippet(&self.redactor.redact(&text));
        if matches!(status.as_u16(), 408 | 429) || status.is_server_error() {
            return Attempt::Retry(format!("HTTP {status}: {}", shown()), retry_after);
        }
        if !status.is_success() {
            return Attempt::Fatal(format!("HTTP {status}: {}", shown()));
        }
        let value: Value = match serde_json::from_str(&text) {
            Ok(v) => v,
            Err(e) => return Attempt::Retry(format!("reply is not JSON ({e}): {}", shown()), None),
        };
        match parse_reply(&value) {
            Ok(reply) => Attempt::Ok(value, reply),
            Err(why) => Attempt::Retry(
                format!(
                    "reply breaks the contract ({}): {}",
                    self.redactor.redact(&why.to_string()),
                    shown()
                ),
                None,
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_escaped_form_of_the_secret_is_redacted() {
        let config = ClientConfig {
            url: "http://127.0.0.1:9/".into(),
            timeout: Duration::from_secs(1),
            max_retries: 0,
            backoff_base: Duration::from_millis(1),
            max_wait: Duration::from_secs(1),
        };
        let secret = "u:p\"w/é&x";
        let c = RagClient::new(config, Some(secret.into())).unwrap();
        for echoed in [
            secret.to_string(),
            "u:p\\\"w/é&x".to_string(),
            "u:p\\\"w/\\u00e9&x".to_string(),
            "u:p\\\"w\\/é&x".to_string(),
            "u:p&quot;w/é&amp;x".to_string(),
        ] {
            let out = c
                .redactor()
                .redact(&format!("echo: {echoed}!"))
                .into_owned();
            assert_eq!(out, "echo: <redacted>!", "{echoed}");
        }
    }
}
