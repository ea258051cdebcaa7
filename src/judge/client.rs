//! One judge call over an OpenAI-compatible chat-completions endpoint, with
//! a timeout, retries with exponential backoff and jitter (on connection
//! errors, timeouts, 429, 5xx and replies that hold no score), and
//! `Retry-After` honoured.

use super::prompt::{parse_score, MAX_TOKENS, TEMPERATURE};
use super::JudgeError;
use crate::http::{backoff, send_and_read, snippet};
use crate::secrets::{url_secrets, Redactor};
use serde_json::{json, Value};
use std::time::Duration;

/// How the judge is reached.
#[derive(Debug, Clone)]
pub struct JudgeConfig {
    /// The base URL (`.../v1`) or the full `.../chat/completions` URL.
    pub url: String,
    /// The model name sent in each request.
    pub model: String,
    /// Per-request timeout.
    pub timeout: Duration,
    /// Attempts per item (the design's 3).
    pub max_attempts: u32,
    /// First backoff; doubled after each failed attempt.
    pub backoff_base: Duration,
}

/// Longest wait before a retry, whatever `Retry-After` asks.
const MAX_WAIT: Duration = Duration::from_secs(120);

/// The outcome of asking the judge about one prompt.
#[derive(Debug, Clone, PartialEq)]
pub struct Asked {
    /// The score and the raw reply, or why every attempt failed.
    pub result: Result<(f64, String), String>,
    /// HTTP requests sent.
    pub requests: u32,
    /// The last raw reply received (also for failures).
    pub last_reply: Option<String>,
}

/// An HTTP client for the judge. The API key is held here only: it is sent
/// as a bearer token and never logged, printed or written.
pub struct JudgeClient {
    config: JudgeConfig,
    endpoint: String,
    key: Option<String>,
    redactor: Redactor,
    http: reqwest::blocking::Client,
}

impl std::fmt::Debug for JudgeClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JudgeClient")
            .field("endpoint", &self.endpoint)
            .field("model", &self.config.model)
            .field("key", &self.key.as_ref().map(|_| "(set)"))
            .finish()
    }
}

/// The chat-completions URL for a base URL.
pub(crate) fn endpoint_of(url: &str) -> String {
    // The path is extended before the query (`.../v1?api-key=K` becomes
    // `.../v1/chat/completions?api-key=K`).
    let (base, query) = match url.find(['?', '#']) {
        Some(i) => url.split_at(i),
        None => (url, ""),
    };
    let base = base.trim_end_matches('/');
    if base.ends_with("/chat/completions") {
        format!("{base}{query}")
    } else {
        format!("{base}/chat/completions{query}")
    }
}

/// What one attempt came to.
enum Attempt {
    Scored(f64, String),
    /// Worth retrying, after the given wait if the server named one.
    Retry(String, Option<Duration>, Option<String>),
    /// Not worth retrying (e.g. 401, 400).
    Fatal(String, Option<String>),
}

impl JudgeClient {
    /// A client for `config`, authenticating with `key` when given.
    pub fn new(config: JudgeConfig, key: Option<String>) -> Result<JudgeClient, JudgeError> {
        let http = reqwest::blocking::Client::builder()
            .timeout(config.timeout)
            .connect_timeout(config.timeout.min(Duration::from_secs(10)))
            .user_agent(concat!("corpus-eval/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| JudgeError::Config {
                message: format!("cannot build the HTTP client: {e}"),
            })?;
        // The key and the URL's credentials, in every encoding a judge may
        // echo them in (a 401 body often quotes the key), never reach a
        // verdict, the cache or a message.
        let redactor = Redactor::new(key.iter().cloned().chain(url_secrets(&config.url)));
        Ok(JudgeClient {
            endpoint: endpoint_of(&config.url),
            config,
            key,
            redactor,
            http,
        })
    }

    /// The chat-completions URL used.
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// The judge model.
    pub fn model(&self) -> &str {
        &self.config.model
    }

    /// Asks the judge to score `prompt`, retrying up to the attempt limit.
    /// Replies are parsed as received; the reply and error texts returned
    /// (what is stored and printed) have the client's secrets redacted.
    pub fn ask(&self, prompt: &str) -> Asked {
        let asked = self.ask_raw(prompt);
        let clean = |t: String| match self.redactor.redact(&t) {
            std::borrow::Cow::Owned(r) => r,
            std::borrow::Cow::Borrowed(_) => t,
        };
        Asked {
            result: asked
                .result
                .map(|(score, reply)| (score, clean(reply)))
                .map_err(clean),
            requests: asked.requests,
            last_reply: asked.last_reply.map(clean),
        }
    }

    fn ask_raw(&self, prompt: &str) -> Asked {
        let mut requests = 0;
        let mut last_reply = None;
        let mut last_error = String::new();
        let seed = crate::text::hash::fnv1a(prompt.as_bytes());
        for attempt in 1..=self.config.max_attempts.max(1) {
            requests += 1;
            let wait = match self.attempt(prompt) {
                Attempt::Scored(score, reply) => {
                    return Asked {
                        result: Ok((score, reply.clone())),
                        requests,
                        last_reply: Some(reply),
                    }
                }
                Attempt::Fatal(why, reply) => {
                    return Asked {
                        result: Err(why),
                        requests,
                        last_reply: reply.or(last_reply),
                    }
                }
                Attempt::Retry(why, wait, reply) => {
                    last_error = why;
                    if reply.is_some() {
                        last_reply = reply;
                    }
                    wait
                }
            };
            if attempt < self.config.max_attempts {
                let backoff = backoff(self.config.backoff_base, attempt, seed);
                std::thread::sleep(wait.unwrap_or(backoff).min(MAX_WAIT));
            }
        }
        Asked {
            result: Err(format!(
                "no score after {} attempts; last: {last_error}",
                self.config.max_attempts.max(1)
            )),
            requests,
            last_reply,
        }
    }

    fn attempt(&self, prompt: &str) -> Attempt {
        let body = json!({
            "model": self.config.model,
            "messages": [{"role": "user", "content": prompt}],
            "temperature": TEMPERATURE,
            "max_tokens": MAX_TOKENS,
        });
        let mut req = self.http.post(&self.endpoint).json(&body);
        if let Some(key) = &self.key {
            req = req.bearer_auth(key);
        }
        let reply = match send_and_read(req, "<judge-url>") {
            Ok(r) => r,
            Err((why, wait)) => return Attempt::Retry(why, wait, None),
        };
        let (status, retry_after, text) = (reply.status, reply.retry_after, reply.text);
        if status.as_u16() == 429 || status.is_server_error() {
            return Attempt::Retry(
                format!("HTTP {status}: {}", snippet(&self.redactor.redact(&text))),
                retry_after,
                None,
            );
        }
        if !status.is_success() {
            return Attempt::Fatal(
                format!("HTTP {status}: {}", snippet(&self.redactor.redact(&text))),
                None,
            );
        }
        let content = serde_json::from_str::<Value>(&text).ok().and_then(|v| {
            v.pointer("/choices/0/message/content")
                .and_then(Value::as_str)
                .map(str::to_string)
        });
        match content {
            None => Attempt::Retry(
                format!(
                    "not a chat-completions reply: {}",
                    snippet(&self.redactor.redact(&text))
                ),
                None,
                None,
            ),
            Some(reply) => match parse_score(&reply) {
                Some(score) => Attempt::Scored(score, reply),
                None => Attempt::Retry(
                    format!(
                        "reply holds no score in [0, 1]: {:?}",
                        snippet(&self.redactor.redact(&reply))
                    ),
                    None,
                    Some(reply),
                ),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints() {
        assert_eq!(endpoint_of("http://h/v1"), "http://h/v1/chat/completions");
        assert_eq!(endpoint_of("http://h/v1/"), "http://h/v1/chat/completions");
        assert_eq!(
            endpoint_of("http://h/v1/chat/completions"),
            "http://h/v1/chat/completions"
        );
        assert_eq!(
            endpoint_of("http://h/v1?api-key=K"),
            "http://h/v1/chat/completions?api-key=K"
        );
    }
}
