//! A validating JSON skimmer: finds where a value ends without building it.
//!
//! It accepts only what serde_json accepts when it skips a value (for an
//! unknown field, `IgnoredAny`), and sometimes less: nesting deeper than
//! [`MAX_DEPTH`] is refused here. Like serde_json's skipping, it leaves
//! the UTF-8 of skipped strings and the range of skipped numbers unchecked.
//! A caller that gets `None` parses with serde_json, which gives the value
//! or the error; a caller that gets a position can trust the bytes up to
//! it are one JSON value.
//!
//! Example: the unit test `the_module_example_skips_values`.

/// Deepest nesting skimmed (deeper values are left to serde_json).
pub(crate) const MAX_DEPTH: u32 = 64;

/// Whether `b` is JSON whitespace.
pub(crate) fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\n' | b'\r' | b'\t')
}

/// The first position at or after `i` that is not JSON whitespace.
pub(crate) fn skip_ws(bytes: &[u8], mut i: usize) -> usize {
    while bytes.get(i).is_some_and(|&b| is_ws(b)) {
        i += 1;
    }
    i
}

/// The end (exclusive) of the string whose opening quote is at `i`, or
/// None when it is not a valid JSON string (unterminated, a raw control
/// character, an unknown escape, a `\u` without four hex digits).
pub(crate) fn skip_string(bytes: &[u8], i: usize) -> Option<usize> {
    if bytes.get(i) != Some(&b'"') {
        return None;
    }
    let mut i = i + 1;
    loop {
        i += find_special(bytes.get(i..)?)?;
        if bytes[i] < 0x20 {
            return None;
        }
        if bytes[i] == b'"' {
            return Some(i + 1);
        }
        match bytes.get(i + 1)? {
            b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => i += 2,
            b'u' => {
                let hex = bytes.get(i + 2..i + 6)?;
                if !hex.iter().all(u8::is_ascii_hexdigit) {
                    return None;
                }
                i += 6;
            }
            _ => return None,
        }
    }
}

/// The position in `text` of its first quote, backslash or control byte
/// (below 0x20): where a JSON string's plain run ends. 16 bytes at a time.
pub(crate) fn find_special(text: &[u8]) -> Option<usize> {
    let mut at = 0;
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{
            __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_max_epu8, _mm_movemask_epi8,
            _mm_or_si128, _mm_set1_epi8,
        };
        // SAFETY: SSE2 is part of x86_64; every load reads 16 bytes inside
        // `text` (at + 16 <= len).
        unsafe {
            let quote = _mm_set1_epi8(b'"' as i8);
            let backslash = _mm_set1_epi8(b'\\' as i8);
            let control = _mm_set1_epi8(0x1f);
            while at + 16 <= text.len() {
                let v = _mm_loadu_si128(text.as_ptr().add(at).cast::<__m128i>());
                // max(v, 0x1f) == 0x1f exactly for bytes up to 0x1f.
                let hits = _mm_or_si128(
                    _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
                    _mm_cmpeq_epi8(_mm_max_epu8(v, control), control),
                );
                let mask = _mm_movemask_epi8(hits) as u32;
                if mask != 0 {
                    return Some(at + mask.trailing_zeros() as usize);
                }
                at += 16;
            }
        }
    }
    text[at..]
        .iter()
        .position(|&c| c == b'"' || c == b'\\' || c < 0x20)
        .map(|p| at + p)
}

/// The end of the number starting at `i`: `-? (0 | [1-9][0-9]*) (. [0-9]+)?
/// ([eE] [+-]? [0-9]+)?`. A digit right after a leading 0 is left for the
/// caller to refuse (it is not a delimiter).
fn skip_number(bytes: &[u8], mut i: usize) -> Option<usize> {
    let digits = |mut i: usize| {
        let start = i;
        while bytes.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        (i > start).then_some(i)
    };
    if bytes.get(i) == Some(&b'-') {
        i += 1;
    }
    i = match bytes.get(i)? {
        b'0' => i + 1,
        b'1'..=b'9' => digits(i)?,
        _ => return None,
    };
    if bytes.get(i) == Some(&b'.') {
        i = digits(i + 1)?;
    }
    if let Some(b'e' | b'E') = bytes.get(i) {
        i += 1;
        if let Some(b'+' | b'-') = bytes.get(i) {
            i += 1;
        }
        i = digits(i)?;
    }
    Some(i)
}

/// The end of `word` (`true`, `false`, `null`) at `i`.
fn skip_literal(bytes: &[u8], i: usize, word: &[u8]) -> Option<usize> {
    (bytes.get(i..i + word.len())? == word).then_some(i + word.len())
}

/// After `{` or `,` in an object (whitespace before the key allowed): the
/// key's text between its quotes (escapes left as they are) and the
/// position of its value, past the colon.
pub(crate) fn key(bytes: &[u8], i: usize) -> Option<(std::ops::Range<usize>, usize)> {
    let start = skip_ws(bytes, i);
    let end = skip_string(bytes, start)?;
    let colon = skip_ws(bytes, end);
    (bytes.get(colon) == Some(&b':')).then(|| (start + 1..end - 1, skip_ws(bytes, colon + 1)))
}

/// The end (exclusive) of the JSON value at `i` (whitespace before it
/// skipped), or None when it is not one valid value (see the module
/// documentation). Nothing after the value is looked at: the caller checks
/// that a delimiter follows (after `0`, a digit is not one).
pub(crate) fn skip_value(bytes: &[u8], i: usize) -> Option<usize> {
    // Open containers as a bit stack (1: object), `depth` deep.
    let mut stack: u64 = 0;
    let mut depth: u32 = 0;
    let mut i = skip_ws(bytes, i);
    loop {
        // A value starts at i.
        match bytes.get(i)? {
            b'"' => i = skip_string(bytes, i)?,
            b'-' | b'0'..=b'9' => i = skip_number(bytes, i)?,
            b't' => i = skip_literal(bytes, i, b"true")?,
            b'f' => i = skip_literal(bytes, i, b"false")?,
            b'n' => i = skip_literal(bytes, i, b"null")?,
            open @ (b'[' | b'{') => {
                if depth == MAX_DEPTH {
                    return None;
                }
                let object = *open == b'{';
                let close = if object { b'}' } else { b']' };
                let inside = skip_ws(bytes, i + 1);
                if bytes.get(inside) == Some(&close) {
                    i = inside + 1;
                } else {
                    stack = (stack << 1) | u64::from(object);
                    depth += 1;
                    i = if object {
                        key(bytes, inside)?.1
                    } else {
                        inside
                    };
                    continue;
                }
            }
            _ => return None,
        }
        // A value ended at i: close containers until a comma starts the
        // next value, or the outermost value is done.
        loop {
            if depth == 0 {
                return Some(i);
            }
            let object = stack & 1 == 1;
            i = skip_ws(bytes, i);
            match bytes.get(i)? {
                b',' => {
                    i = if object {
                        key(bytes, i + 1)?.1
                    } else {
                        skip_ws(bytes, i + 1)
                    };
                    break;
                }
                b'}' if object => {}
                b']' if !object => {}
                _ => return None,
            }
            i += 1;
            stack >>= 1;
            depth -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_module_example_skips_values() {
        let text = br#"  {"a": [1, -2.5e3, "x\"y", {"b": null}], "c": true} tail"#;
        assert_eq!(skip_value(text, 0), Some(text.len() - 5));
        assert_eq!(skip_value(br#"[1, 2,]"#, 0), None);
        assert_eq!(skip_value(b"\"tab\there\"", 0), None); // a raw control character
    }

    use super::*;
    use serde::de::IgnoredAny;

    /// What serde_json says when it skips the value at the start of
    /// `text`: the end of the value, or None for an error.
    fn serde_end(text: &[u8]) -> Option<usize> {
        let mut stream = serde_json::Deserializer::from_slice(text).into_iter::<IgnoredAny>();
        stream.next()?.ok()?;
        Some(stream.byte_offset())
    }

    #[test]
    fn written_cases_agree_with_serde_json() {
        let cases: &[&str] = &[
            "0",
            "-0",
            "01",
            "1.",
            "1.5",
            "-",
            "-a",
            "1e",
            "1e+",
            "1E-7",
            "2.5e10",
            "-12.0e+3",
            "true",
            "tru",
            "false",
            "null",
            "nul",
            "\"\"",
            "\"a\\\"b\"",
            "\"\\u00e9\"",
            "\"\\u00g9\"",
            "\"\\ud800\"",
            "\"\\x\"",
            "\"\\/\"",
            "\"unterminated",
            "\"a\u{1}b\"",
            "\"a\u{7f}b\"",
            "\"caf\u{e9}\"",
            "[]",
            "[ ]",
            "[1,]",
            "[,1]",
            "[1 2]",
            "[1,[2,[3,{}]]]",
            "{}",
            "{ }",
            "{\"a\":1}",
            "{\"a\" : [ 1 , { \"b\" : null } ] }",
            "{\"a\":1,}",
            "{\"a\"}",
            "{a:1}",
            "{\"a\":1 \"b\":2}",
            "{\"a\":1,\"a\":2}",
            "[}",
            "{]",
            "[1}",
            "  \t\n[1]",
            "[1]]",
            "x",
            "",
            "[",
            "{\"a\":",
            "[\"\\",
            "[1.5e3,-0.0,true,false,null,\"s\"]",
        ];
        // Inside an array, as callers use it: a delimiter must follow.
        for case in cases {
            let wrapped = format!("[{case}]");
            assert_eq!(
                skip_value(wrapped.as_bytes(), 0),
                serde_end(wrapped.as_bytes()),
                "{case:?}"
            );
        }
    }

    #[test]
    fn find_special_finds_the_first_quote_backslash_or_control_byte() {
        for len in 0..70 {
            for at in 0..=len {
                for special in [b'"', b'\\', 0x00, 0x1f, b'\n'] {
                    let mut text: Vec<u8> = (0..len).map(|k| b' ' + (k % 90) as u8).collect();
                    for c in &mut text {
                        if *c == b'"' || *c == b'\\' {
                            *c = b'x';
                        }
                    }
                    // Bytes from 0x20 up and above 0x7f are plain.
                    if len > 3 {
                        text[len / 2] = 0xe9;
                        text[0] = 0x20;
                    }
                    let expected = (at < len).then_some(at);
                    if at < len {
                        text[at] = special;
                        for c in &mut text[..at] {
                            if *c < 0x20 || *c == b'"' || *c == b'\\' {
                                *c = b'y';
                            }
                        }
                    }
                    assert_eq!(find_special(&text), expected, "{len} {at} {special}");
                }
            }
        }
    }

    #[test]
    fn deep_nesting_is_left_to_serde_json() {
        let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        assert!(skip_value(deep(MAX_DEPTH as usize).as_bytes(), 0).is_some());
        assert!(skip_value(deep(MAX_DEPTH as usize + 1).as_bytes(), 0).is_none());
    }

    /// Random mutations of a document: whenever the skimmer accepts,
    /// serde_json accepts with the same end; it may refuse only what is
    /// deeper than MAX_DEPTH.
    #[test]
    fn never_accepts_what_serde_json_refuses() {
        let base = br#"{"_id": "x1", "context": [["T\u00e9", ["A \"s\" 1.", "B\\n"]], ["U", []]], "n": [-1.5e3, 0, true, null, {}], "s": "\/"}"#;
        let alphabet = b"{}[]\",:\\ \t\n0123456789.-+eEtrufalsn\x01\x1fu";
        let mut next = crate::test_rng::seeded(0x9e37_79b9_7f4a_7c15);
        let (mut accepted, mut refused) = (0, 0);
        for _ in 0..20_000 {
            let mut doc = base.to_vec();
            for _ in 0..1 + next() % 3 {
                let at = (next() % doc.len() as u64) as usize;
                let byte = alphabet[(next() % alphabet.len() as u64) as usize];
                match next() % 3 {
                    0 => doc[at] = byte,
                    1 => doc.insert(at, byte),
                    _ => {
                        doc.remove(at);
                    }
                }
                if doc.is_empty() {
                    doc.push(b'1');
                }
            }
            doc.insert(0, b'[');
            doc.push(b']');
            let ours = skip_value(&doc, 0);
            let theirs = serde_end(&doc);
            assert_eq!(ours, theirs, "{}", String::from_utf8_lossy(&doc));
            if ours.is_some() {
                accepted += 1;
            } else {
                refused += 1;
            }
        }
        assert!(accepted > 1000 && refused > 1000, "{accepted} {refused}");
    }
}
