//! A string as JSON text, byte for byte what `serde_json` writes, eight
//! bytes at a time.
//!
//! `serde_json` looks every byte up in a table. Long texts (the audit
//! report's transcript contexts) are almost all bytes that need no escape,
//! so this tests eight at once (one word: any control byte, `"` or `\`?)
//! and copies the clean stretches whole. Escapes are `serde_json`'s: `\"`,
//! `\\`, `\b`, `\f`, `\n`, `\r`, `\t`, other control bytes `\u00xx` (lower-case
//! hex); everything else, DEL and non-ASCII included, as it is.
//!
//! ```
//! let mut out = Vec::new();
//! corpus_eval::text::write(&mut out, "a \"b\"\n\u{1}");
//! assert_eq!(out, serde_json::to_vec("a \"b\"\n\u{1}").unwrap());
//! ```

use super::swar;

/// Whether any byte of `w` is below 0x20, `"` or `\`.
#[inline(always)]
fn needs_escape(w: u64) -> bool {
    swar::control_bytes(w) | swar::bytes_equal(w, b'"') | swar::bytes_equal(w, b'\\') != 0
}

/// The escape of byte `b`, when it needs one.
#[inline(always)]
fn escape(out: &mut Vec<u8>, b: u8) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    match b {
        b'"' => out.extend_from_slice(b"\\\""),
        b'\\' => out.extend_from_slice(b"\\\\"),
        0x08 => out.extend_from_slice(b"\\b"),
        0x0C => out.extend_from_slice(b"\\f"),
        b'\n' => out.extend_from_slice(b"\\n"),
        b'\r' => out.extend_from_slice(b"\\r"),
        b'\t' => out.extend_from_slice(b"\\t"),
        _ => out.extend_from_slice(&[
            b'\\',
            b'u',
            b'0',
            b'0',
            HEX[usize::from(b >> 4)],
            HEX[usize::from(b & 15)],
        ]),
    }
}

/// Appends `s` as a JSON string (quotes included) to `out`.
pub fn write(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    // `clean`: where the stretch not yet copied starts.
    let (mut clean, mut i) = (0, 0);
    while i < bytes.len() {
        if let Some(w) = swar::word_at(bytes, i) {
            if !needs_escape(w) {
                i += 8;
                continue;
            }
        }
        // Byte by byte up to the next word boundary (or the end).
        let stop = (i + 8).min(bytes.len());
        while i < stop {
            let b = bytes[i];
            if b < 0x20 || b == b'"' || b == b'\\' {
                out.extend_from_slice(&bytes[clean..i]);
                escape(out, b);
                clean = i + 1;
            }
            i += 1;
        }
    }
    out.extend_from_slice(&bytes[clean..]);
    out.push(b'"');
}

/// Appends `s` as a JSON string, or `null`.
pub fn write_opt(out: &mut Vec<u8>, s: Option<&str>) {
    match s {
        Some(s) => write(out, s),
        None => out.extend_from_slice(b"null"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_class_as_serde_json_writes_it() {
        // Each single char, then generated strings of mixed classes at
        // every offset within a word.
        for c in (0u32..0x300).chain([0x2028, 0x2029, 0xFFFF, 0x1F600]) {
            let Some(c) = char::from_u32(c) else { continue };
            let s = format!("abcdefg{c}hijklmnop{c}");
            let mut out = Vec::new();
            write(&mut out, &s);
            assert_eq!(out, serde_json::to_vec(&s).unwrap(), "{c:?}");
        }
        let pieces = [
            "a",
            "plain text ",
            "\"",
            "\\",
            "\n",
            "\t",
            "\u{0}",
            "\u{1f}",
            "\u{7f}",
            "é",
            "</",
            "\u{2028}",
            "🙂",
            " ",
        ];
        let mut next = crate::test_rng::seeded(0x6a50_6e57);
        for _ in 0..5000 {
            let s = crate::test_rng::text_of(&mut next, &pieces, 20);
            let mut out = b"prefix".to_vec();
            write(&mut out, &s);
            let mut want = b"prefix".to_vec();
            want.extend(serde_json::to_vec(&s).unwrap());
            assert_eq!(out, want, "{s:?}");
        }
        let mut out = Vec::new();
        write_opt(&mut out, None);
        write_opt(&mut out, Some("x"));
        assert_eq!(out, b"null\"x\"");
    }
}
