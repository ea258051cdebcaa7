//! HTTP retry helpers shared by the network clients (the LLM judge, the RAG
//! API): `Retry-After` parsing, exponential backoff with jitter, body
//! snippets for error messages, and error messages without URLs.

use std::time::Duration;

/// A reply read whole: status, the `Retry-After` wait and the body.
#[derive(Debug)]
pub(crate) struct HttpReply {
    /// The HTTP status.
    pub status: reqwest::StatusCode,
    /// What `Retry-After` asked for, if anything.
    pub retry_after: Option<Duration>,
    /// The body as text.
    pub text: String,
}

fn transport_kind(e: &reqwest::Error) -> &'static str {
    if e.is_timeout() {
        "timeout"
    } else {
        "connection error"
    }
}

/// Sends `request` and reads the whole reply. A transport failure (no
/// connection, a timeout, a body cut short) is `Err((reason, retry_after))`,
/// always worth a retry; the reason names `placeholder` instead of the URL.
pub(crate) fn send_and_read(
    request: reqwest::blocking::RequestBuilder,
    placeholder: &str,
) -> Result<HttpReply, (String, Option<Duration>)> {
    let resp = request.send().map_err(|e| {
        let why = format!("{}: {}", transport_kind(&e), without_url(&e, placeholder));
        (why, None)
    })?;
    let status = resp.status();
    let retry_after = resp
        .headers()
        .get(reqwest::header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| parse_retry_after(v, std::time::SystemTime::now()));
    let text = resp.text().map_err(|e| {
        let why = format!(
            "{} reading the reply: {}",
            transport_kind(&e),
            without_url(&e, placeholder)
        );
        (why, retry_after)
    })?;
    Ok(HttpReply {
        status,
        retry_after,
        text,
    })
}

/// A reqwest error's message with its causes, the URL (already known, and
/// possibly carrying credentials a user put in it) replaced by `placeholder`.
pub(crate) fn without_url(e: &reqwest::Error, placeholder: &str) -> String {
    let mut msg = e.to_string();
    if let Some(url) = e.url() {
        msg = msg.replace(url.as_str(), placeholder);
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
pub(crate) fn parse_retry_after(value: &str, now: std::time::SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(secs) = value.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0)
            .then(|| Duration::try_from_secs_f64(secs).ok())
            .flatten();
    }
    // IMF-fixdate, RFC 850 and asctime dates, as RFC 9110 asks a
    // recipient to accept.
    let at = httpdate::parse_http_date(value).ok()?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

/// The first 200 bytes of a body, on a char boundary.
pub(crate) fn snippet(text: &str) -> String {
    let mut end = text.len().min(200);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_string()
}

/// Exponential backoff with +-25% jitter: base x 2^(attempt-1), the
/// jitter drawn from `seed` (so two callers with different seeds spread).
pub(crate) fn backoff(base: Duration, attempt: u32, seed: u64) -> Duration {
    let exp = base.saturating_mul(1u32 << (attempt - 1).min(16));
    let mut rng = crate::stats::SplitMix64::new(seed ^ attempt as u64);
    let jitter = 0.75 + (rng.next_u64() % 1000) as f64 / 2000.0;
    // A day at most, whatever the base (no overflow on absurd settings).
    Duration::try_from_secs_f64(exp.as_secs_f64() * jitter)
        .unwrap_or(Duration::MAX)
        .min(Duration::from_secs(86_400))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_with_jitter() {
        let base = Duration::from_millis(100);
        let b1 = backoff(base, 1, 7);
        let b3 = backoff(base, 3, 7);
        assert!(b1 >= Duration::from_millis(75) && b1 <= Duration::from_millis(125));
        assert!(b3 >= Duration::from_millis(300) && b3 <= Duration::from_millis(500));
        assert_eq!(backoff(Duration::MAX, 30, 1), Duration::from_secs(86_400));
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
        for bad in [
            "-1",
            "soon",
            "Sun, 06 Foo 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 25:00:00 GMT",
            "NaN",
            "1e30",
            "Sun, 06 Nov 99999999999 08:49:37 GMT",
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
