//! The judge's prompt (the semantic-evaluation design's, verbatim in
//! content) and the parsing of its reply.

/// The prompt template; `{question}`, `{ground_truth}` and `{answer}` are
/// filled in.
pub(crate) const TEMPLATE: &str =
    "Evaluate if the generated answer is factually correct compared to the expected answer.

Question: {question}
Expected Answer: {ground_truth}
Generated Answer: {answer}

Scoring criteria:
- 1.0: Completely correct, all key facts present
- 0.8: Mostly correct, minor details missing
- 0.6: Partially correct, some key facts present
- 0.4: Somewhat correct, major gaps
- 0.2: Mostly incorrect
- 0.0: Completely incorrect or irrelevant

Respond with only a number between 0 and 1.";

/// Sampling temperature of every judge call.
pub(crate) const TEMPERATURE: f64 = 0.0;
/// Reply length limit of every judge call.
pub(crate) const MAX_TOKENS: u32 = 10;

/// The prompt for one item.
pub(crate) fn render(question: &str, answer: &str, ground_truth: &str) -> String {
    // Filled in one pass so a placeholder inside a field is not expanded.
    let mut out =
        String::with_capacity(TEMPLATE.len() + question.len() + answer.len() + ground_truth.len());
    let mut rest = TEMPLATE;
    while let Some(at) = rest.find('{') {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        let (value, len) = if tail.starts_with("{question}") {
            (question, "{question}".len())
        } else if tail.starts_with("{ground_truth}") {
            (ground_truth, "{ground_truth}".len())
        } else if tail.starts_with("{answer}") {
            (answer, "{answer}".len())
        } else {
            ("{", 1)
        };
        out.push_str(value);
        rest = &tail[len..];
    }
    out.push_str(rest);
    out
}

/// Short hash of the template (first 12 hex digits of its SHA-256), for
/// signatures.
pub(crate) fn template_hash() -> String {
    crate::text::hash::sha256_hex(TEMPLATE.as_bytes())[..12].to_string()
}

/// The score in a reply: its first number, when that number lies in
/// [0, 1]. "0.8", "Score: 1.0", ".6" and "1." parse; "8/10", "-0.2", "high"
/// and "" do not (the caller retries).
pub(crate) fn parse_score(reply: &str) -> Option<f64> {
    let bytes = reply.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let starts_number =
            c.is_ascii_digit() || (c == b'.' && bytes.get(i + 1).is_some_and(u8::is_ascii_digit));
        if starts_number {
            let negative = i > 0 && bytes[i - 1] == b'-';
            let mut j = i;
            while j < bytes.len() && bytes[j].is_ascii_digit() {
                j += 1;
            }
            if j < bytes.len() && bytes[j] == b'.' {
                j += 1;
                while j < bytes.len() && bytes[j].is_ascii_digit() {
                    j += 1;
                }
            }
            // "0,8" (a decimal comma) and "1/2" or "8/10" (a fraction) are
            // not the number they start with.
            let rest = &bytes[j..];
            let decimal_comma =
                rest.first() == Some(&b',') && rest.get(1).is_some_and(u8::is_ascii_digit);
            if decimal_comma || rest.first() == Some(&b'/') {
                return None;
            }
            let value: f64 = reply[i..j].trim_end_matches('.').parse().ok()?;
            let value = if negative { -value } else { value };
            return (0.0..=1.0).contains(&value).then_some(value);
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fills_the_template_once() {
        let p = render("Q {answer}?", "A", "G");
        assert!(p.contains("Question: Q {answer}?\n"));
        assert!(p.contains("Expected Answer: G\n"));
        assert!(p.contains("Generated Answer: A\n"));
        assert!(p.ends_with("Respond with only a number between 0 and 1."));
    }

    #[test]
    fn parses_the_first_number_in_range() {
        for (reply, want) in [
            ("0.8", Some(0.8)),
            ("1.0", Some(1.0)),
            ("1", Some(1.0)),
            ("0", Some(0.0)),
            (" Score: 0.6\n", Some(0.6)),
            (".4", Some(0.4)),
            ("1.", Some(1.0)),
            ("0.8 (mostly correct, 2 facts)", Some(0.8)),
            ("8/10", None),
            ("1/2", None),
            ("0,8", None),
            ("0, then 1", Some(0.0)),
            ("-0.2", None),
            ("1.5", None),
            ("high", None),
            ("", None),
            ("...", None),
        ] {
            assert_eq!(parse_score(reply), want, "{reply:?}");
        }
    }
}
