//! One judge call over an OpenAI-compatible chat-completions endpoint, with
//! a timeout, retries with exponential backoff and jitter (on connection
//! errors, timeouts, 429, 5xx and replies that hold no score), and
//! `Retry-After` honoured.

use super::prompt::{parse_score, MAX_TOKENS, TEMPERATURE};
use super::JudgeError;
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
pub fn endpoint_of(url: &str) -> String {
    let url = url.trim_end_matches('/');
    if url.ends_with("/chat/completions") {
        url.to_string()
    } else {
        format!("{url}/chat/completions")
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
        Ok(JudgeClient {
            endpoint: endpoint_of(&config.url),
            config,
            key,
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
    pub fn ask(&self, prompt: &str) -> Asked {
        let mut requests = 0;
        let mut last_reply = None;
        let mut last_error = String::new();
        let seed = crate::report::fnv1a(prompt.as_bytes());
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
        let resp = match req.send() {
            Ok(r) => r,
            Err(e) => {
                let kind = if e.is_timeout() {
                    "timeout"
                } else {
                    "connection error"
                };
                return Attempt::Retry(format!("{kind}: {}", without_url(&e)), None, None);
            }
        };
        let status = resp.status();
        let retry_after = resp
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| parse_retry_after(v, std::time::SystemTime::now()));
        let text = match resp.text() {
            Ok(t) => t,
            Err(e) => {
                return Attempt::Retry(
                    format!("reading the reply: {}", without_url(&e)),
                    retry_after,
                    None,
                )
            }
        };
        if status.as_u16() == 429 || status.is_server_error() {
            return Attempt::Retry(
                format!("HTTP {status}: {}", snippet(&text)),
                retry_after,
                None,
            );
        }
        if !status.is_success() {
            return Attempt::Fatal(format!("HTTP {status}: {}", snippet(&text)), None);
        }
        let content = serde_json::from_str::<Value>(&text).ok().and_then(|v| {
            v.pointer("/choices/0/message/content")
                .and_then(Value::as_str)
                .map(str::to_string)
        });
        match content {
            None => Attempt::Retry(
                format!("not a chat-completions reply: {}", snippet(&text)),
                None,
                None,
            ),
            Some(reply) => match parse_score(&reply) {
                Some(score) => Attempt::Scored(score, reply),
                None => Attempt::Retry(
                    format!("reply holds no score in [0, 1]: {:?}", snippet(&reply)),
                    None,
                    Some(reply),
                ),
            },
        }
    }
}

/// A reqwest error's message without the URL (which is already known and
/// could carry credentials a user put in it).
fn without_url(e: &reqwest::Error) -> String {
    let mut msg = e.to_string();
    if let Some(url) = e.url() {
        msg = msg.replace(url.as_str(), "<judge-url>");
    }
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        msg.push_str(": ");
        msg.push_str(&s.to_string());
        source = s.source();
    }
    msg
}

/// A `Retry-After` value: delay seconds ("120", "1.5") or an HTTP date
/// ("Sun, 06 Nov 1994 08:49:37 GMT"; a past date means no wait).
pub fn parse_retry_after(value: &str, now: std::time::SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(secs) = value.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs));
    }
    let fields: Vec<&str> = value.split_whitespace().collect();
    let [_, day, month, year, time, zone] = fields[..] else {
        return None;
    };
    if zone != "GMT" {
        return None;
    }
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let month = MONTHS.iter().position(|m| *m == month)? as i64 + 1;
    let (day, year): (i64, i64) = (day.parse().ok()?, year.parse().ok()?);
    let mut hms = time.split(':').map(|p| p.parse::<i64>().ok());
    let (h, m, sec) = (hms.next()??, hms.next()??, hms.next()??);
    if !(1..=31).contains(&day) || h > 23 || m > 59 || sec > 60 {
        return None;
    }
    let at = days_from_civil(year, month, day) * 86_400 + h * 3600 + m * 60 + sec;
    let now = now.duration_since(std::time::UNIX_EPOCH).ok()?.as_secs() as i64;
    Some(Duration::from_secs(at.saturating_sub(now).max(0) as u64))
}

/// Days from 1970-01-01 to a proleptic Gregorian date (Hinnant's
/// days-from-civil formula).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The first 200 bytes of a body, on a char boundary.
fn snippet(text: &str) -> String {
    let mut end = text.len().min(200);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_string()
}

/// Exponential backoff with +-25% jitter: base x 2^(attempt-1).
fn backoff(base: Duration, attempt: u32, seed: u64) -> Duration {
    let exp = base.saturating_mul(1u32 << (attempt - 1).min(16));
    let mut rng = crate::stats::SplitMix64::new(seed ^ attempt as u64);
    let jitter = 0.75 + (rng.next_u64() % 1000) as f64 / 2000.0;
    exp.mul_f64(jitter)
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
    }

    #[test]
    fn backoff_grows_with_jitter() {
        let base = Duration::from_millis(100);
        let b1 = backoff(base, 1, 7);
        let b3 = backoff(base, 3, 7);
        assert!(b1 >= Duration::from_millis(75) && b1 <= Duration::from_millis(125));
        assert!(b3 >= Duration::from_millis(300) && b3 <= Duration::from_millis(500));
    }

    #[test]
    fn retry_after_seconds_and_dates() {
        let now = std::time::UNIX_EPOCH + Duration::from_secs(784_111_777); // Sun, 06 Nov 1994 08:49:37 GMT
        assert_eq!(parse_retry_after("2", now), Some(Duration::from_secs(2)));
        assert_eq!(
            parse_retry_after(" 1.5 ", now),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(
            parse_retry_after("Sun, 06 Nov 1994 08:49:47 GMT", now),
            Some(Duration::from_secs(10))
        );
        assert_eq!(
            parse_retry_after("Sun, 06 Nov 1994 08:49:00 GMT", now),
            Some(Duration::ZERO)
        );
        assert_eq!(
            parse_retry_after("Thu, 01 Jan 1970 00:00:00 GMT", now),
            Some(Duration::ZERO)
        );
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
        for bad in [
            "-1",
            "soon",
            "Sun, 06 Foo 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 25:00:00 GMT",
            "NaN",
        ] {
            assert_eq!(parse_retry_after(bad, now), None, "{bad}");
        }
    }

    #[test]
    fn snippets_cut_on_char_boundaries() {
        let s = "é".repeat(150);
        assert!(snippet(&s).len() <= 200);
        assert_eq!(snippet("short"), "short");
    }
}
