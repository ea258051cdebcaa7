//! Keeping secrets out of everything stored or printed: one URL redactor
//! (user info, query values and fragments) and one secret redactor that
//! finds a secret in any of the encodings a server may echo it in (as
//! written, JSON-escaped, double-escaped, HTML entities, percent-encoded,
//! base64 at any alignment, hex).
//!
//! Redaction is applied to what is stored or printed, never to what is
//! parsed: a reply is parsed whole first, and its strings are redacted
//! afterwards ([`Redactor::redact_value`]), so even a one-byte secret cannot
//! break a reply's syntax.
//!
//! ```
//! use corpus_eval::secrets::{redact_url, Redactor};
//! assert_eq!(
//!     redact_url("http://user:pw@h.example/api?key=s3cret&v=2"),
//!     "http://<redacted>@h.example/api?key=<redacted>&v=<redacted>"
//! );
//! let r = Redactor::new(["tok/en+1"]);
//! assert_eq!(r.redact("echo tok%2Fen%2B1 and dG9rL2VuKzE="), "echo <redacted> and <redacted>");
//! ```

use aho_corasick::{AhoCorasick, MatchKind};
use base64::Engine;
use serde_json::Value;
use std::borrow::Cow;
use std::ops::Range;
use std::sync::{Arc, RwLock};

/// What a redacted secret or URL part is replaced with.
pub const REDACTED: &str = "<redacted>";

/// Environment variables whose values are secrets wherever they appear.
pub const SECRET_ENV: [&str; 3] = [
    "EVALUATION_API_AUTH",
    "CORPUS_EVAL_JUDGE_KEY",
    "OPENAI_API_KEY",
];

/// Environment variables holding URLs whose credentials are secrets.
pub const URL_ENV: [&str; 2] = ["EVALUATION_API_URL", "CORPUS_EVAL_JUDGE_URL"];

/// Finds secrets in their echoed encodings and blanks them out.
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    secrets: Vec<String>,
    matcher: Option<AhoCorasick>,
}

impl Redactor {
    /// A redactor for these secrets (empty ones are ignored).
    pub fn new<I, S>(secrets: I) -> Redactor
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut r = Redactor::default();
        for s in secrets {
            r.secrets.push(s.as_ref().to_string());
        }
        r.rebuild();
        r
    }

    /// Adds a secret (ignored when empty or already known).
    pub fn add(&mut self, secret: &str) {
        if secret.is_empty() || self.secrets.iter().any(|s| s == secret) {
            return;
        }
        self.secrets.push(secret.to_string());
        self.rebuild();
    }

    /// True when there is no secret to look for.
    pub fn is_empty(&self) -> bool {
        self.matcher.is_none()
    }

    fn rebuild(&mut self) {
        self.secrets.retain(|s| !s.is_empty());
        let mut forms: Vec<String> = self.secrets.iter().flat_map(|s| forms_of(s)).collect();
        forms.sort();
        forms.dedup();
        self.matcher = if forms.is_empty() {
            None
        } else {
            AhoCorasick::builder()
                .match_kind(MatchKind::LeftmostLongest)
                .build(&forms)
                .ok()
        };
    }

    /// `text` with every echoed form of every secret replaced by
    /// [`REDACTED`]. Besides the forms looked for as they stand (escapes,
    /// base64, hex), the text is decoded, repeatedly, the way any escaping
    /// style would be undone (HTML character references, named or
    /// numeric; JSON and C-style backslash escapes; percent-encoding),
    /// and a secret found in a decoded text blanks out the stretch of the
    /// original it was decoded from: no escaping style, nor several
    /// applied one over another, carries a secret through.
    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let hits = self.hits(text);
        if hits.is_empty() {
            return Cow::Borrowed(text);
        }
        let mut out = String::with_capacity(text.len());
        let mut at = 0;
        for h in hits {
            out.push_str(&text[at..h.start]);
            out.push_str(REDACTED);
            at = h.end;
        }
        out.push_str(&text[at..]);
        Cow::Owned(out)
    }

    /// The byte ranges of `text` that [`Redactor::redact`] blanks out: in
    /// order, disjoint, on char boundaries.
    pub fn hits(&self, text: &str) -> Vec<Range<usize>> {
        let Some(m) = &self.matcher else {
            return Vec::new();
        };
        let mut hits: Vec<Range<usize>> = m.find_iter(text).map(|h| h.range()).collect();
        let mut layer = Decoded::identity(text.as_bytes());
        for _ in 0..MAX_DECODES {
            let Some(next) = layer.decode_once() else {
                break;
            };
            for h in m.find_iter(next.bytes.as_slice()) {
                hits.push(next.origin(h.range()));
            }
            layer = next;
        }
        hits.sort_unstable_by_key(|r| r.start);
        let mut out: Vec<Range<usize>> = Vec::with_capacity(hits.len());
        for h in hits {
            // Widened to char boundaries (a decoded byte comes from whole
            // escapes, but keep the output valid UTF-8 whatever happens).
            let mut start = h.start.min(text.len());
            while !text.is_char_boundary(start) {
                start -= 1;
            }
            let mut end = h.end.min(text.len());
            while !text.is_char_boundary(end) {
                end += 1;
            }
            match out.last_mut() {
                Some(last) if start < last.end => last.end = last.end.max(end),
                _ if end > start => out.push(start..end),
                _ => {}
            }
        }
        out
    }

    /// Redacts neighbouring pieces of one text (a context's text before, the
    /// match and the text after; strings a view writes side by side): a
    /// secret split across two or more pieces is found in their join and
    /// blanked out in each piece it touches.
    pub fn redact_pieces(&self, pieces: &mut [&mut String]) {
        if self.is_empty() {
            return;
        }
        let joined: String = pieces.iter().map(|p| p.as_str()).collect();
        let hits = self.hits(&joined);
        if hits.is_empty() {
            return;
        }
        let mut base = 0;
        for piece in pieces.iter_mut() {
            let len = piece.len();
            let mut out = String::with_capacity(len);
            let mut at = 0;
            for h in &hits {
                let (s, e) = (
                    h.start.clamp(base, base + len) - base,
                    h.end.clamp(base, base + len) - base,
                );
                if e <= s {
                    continue;
                }
                let mut s = s;
                while !piece.is_char_boundary(s) {
                    s -= 1;
                }
                let mut e = e;
                while !piece.is_char_boundary(e) {
                    e += 1;
                }
                if s < at {
                    s = at;
                }
                out.push_str(&piece[at..s]);
                out.push_str(REDACTED);
                at = e;
            }
            out.push_str(&piece[at..]);
            base += len;
            **piece = out;
        }
    }

    /// Redacts every string (and object key) inside a parsed JSON value.
    pub fn redact_value(&self, value: &mut Value) {
        if !self.is_empty() {
            let redact = |t: &str| self.redact(t).into_owned();
            rewrite_strings(value, &redact, Some(&redact));
        }
    }
}

/// Decodings applied one over another when looking for secrets (a secret
/// escaped more often than this is still found by its listed forms up to
/// two levels deeper).
const MAX_DECODES: usize = 4;

/// A text with one or more levels of escapes decoded, and for each of its
/// bytes the byte range of the original text it was decoded from.
struct Decoded {
    bytes: Vec<u8>,
    /// Per byte: (start, end) in the original.
    from: Vec<(u32, u32)>,
}

impl Decoded {
    /// The original text itself.
    fn identity(bytes: &[u8]) -> Decoded {
        Decoded {
            bytes: bytes.to_vec(),
            from: (0..bytes.len() as u32).map(|i| (i, i + 1)).collect(),
        }
    }

    /// The original range of a range of this text's bytes.
    fn origin(&self, r: Range<usize>) -> Range<usize> {
        if r.start >= r.end || r.end > self.from.len() {
            return 0..0;
        }
        self.from[r.start].0 as usize..self.from[r.end - 1].1 as usize
    }

    /// One more level of escapes decoded; None when there is none (or the
    /// text could hold none: no `&`, `\` or `%`).
    fn decode_once(&self) -> Option<Decoded> {
        let b = &self.bytes;
        if !b.iter().any(|c| matches!(c, b'&' | b'\\' | b'%')) {
            return None;
        }
        let mut out = Decoded {
            bytes: Vec::with_capacity(b.len()),
            from: Vec::with_capacity(b.len()),
        };
        let mut changed = false;
        let mut i = 0;
        while i < b.len() {
            let (decoded, len) = match b[i] {
                b'&' => html_reference(&b[i..]),
                b'\\' => backslash_escape(&b[i..]),
                b'%' => percent_escape(&b[i..]),
                _ => (None, 1),
            };
            let span = (self.from[i].0, self.from[i + len - 1].1);
            match decoded {
                Some(d) => {
                    changed = true;
                    for byte in d.bytes() {
                        out.bytes.push(byte);
                        out.from.push(span);
                    }
                    i += len;
                }
                None => {
                    out.bytes.push(b[i]);
                    out.from.push(self.from[i]);
                    i += 1;
                }
            }
        }
        changed.then_some(out)
    }
}

/// A decoded escape: its bytes (a char's UTF-8, or one raw byte for
/// percent-encoding) and how many input bytes it took.
enum Unescaped {
    Char(char),
    Byte(u8),
}

impl Unescaped {
    fn bytes(&self) -> impl Iterator<Item = u8> {
        let mut buf = [0u8; 4];
        let v: Vec<u8> = match self {
            Unescaped::Char(c) => c.encode_utf8(&mut buf).as_bytes().to_vec(),
            Unescaped::Byte(b) => vec![*b],
        };
        v.into_iter()
    }
}

/// An HTML character reference at the start of `b` (`&amp;`, `&#39;`,
/// `&#x27;`, with or without the final `;` for numeric ones).
fn html_reference(b: &[u8]) -> (Option<Unescaped>, usize) {
    const NAMED: [(&str, char); 9] = [
        ("amp;", '&'),
        ("lt;", '<'),
        ("gt;", '>'),
        ("quot;", '"'),
        ("apos;", '\''),
        ("nbsp;", '\u{a0}'),
        ("sol;", '/'),
        ("plus;", '+'),
        ("equals;", '='),
    ];
    let rest = &b[1..];
    if let Some(num) = rest.strip_prefix(b"#") {
        let (hex, digits) = match num.first() {
            Some(b'x' | b'X') => (true, &num[1..]),
            _ => (false, num),
        };
        let n = digits
            .iter()
            .take_while(|c| {
                if hex {
                    c.is_ascii_hexdigit()
                } else {
                    c.is_ascii_digit()
                }
            })
            .count();
        if n == 0 || n > 8 {
            return (None, 1);
        }
        let text = std::str::from_utf8(&digits[..n]).unwrap_or("");
        let value = u32::from_str_radix(text, if hex { 16 } else { 10 }).ok();
        let Some(c) = value.and_then(char::from_u32) else {
            return (None, 1);
        };
        let mut len = 2 + usize::from(hex) + n;
        if b.get(len) == Some(&b';') {
            len += 1;
        }
        return (Some(Unescaped::Char(c)), len);
    }
    for (name, c) in NAMED {
        if rest.len() >= name.len() && rest[..name.len()].eq_ignore_ascii_case(name.as_bytes()) {
            return (Some(Unescaped::Char(c)), 1 + name.len());
        }
    }
    (None, 1)
}

/// A backslash escape at the start of `b`: JSON's (`\"`, `\\`, `\/`,
/// `\n`, ..., `\uXXXX` with surrogate pairs) and C's `\'` and `\xHH`.
fn backslash_escape(b: &[u8]) -> (Option<Unescaped>, usize) {
    let hex4 = |at: usize| -> Option<u32> {
        let d = b.get(at..at + 4)?;
        u32::from_str_radix(std::str::from_utf8(d).ok()?, 16).ok()
    };
    match b.get(1) {
        Some(b'"') => (Some(Unescaped::Char('"')), 2),
        Some(b'\\') => (Some(Unescaped::Char('\\')), 2),
        Some(b'/') => (Some(Unescaped::Char('/')), 2),
        Some(b'\'') => (Some(Unescaped::Char('\'')), 2),
        Some(b'n') => (Some(Unescaped::Char('\n')), 2),
        Some(b'r') => (Some(Unescaped::Char('\r')), 2),
        Some(b't') => (Some(Unescaped::Char('\t')), 2),
        Some(b'b') => (Some(Unescaped::Char('\u{8}')), 2),
        Some(b'f') => (Some(Unescaped::Char('\u{c}')), 2),
        Some(b'x') => match b.get(2..4).and_then(|d| std::str::from_utf8(d).ok()) {
            Some(d) => match u8::from_str_radix(d, 16) {
                Ok(v) => (Some(Unescaped::Byte(v)), 4),
                Err(_) => (None, 1),
            },
            None => (None, 1),
        },
        Some(b'u') => {
            let Some(hi) = hex4(2) else {
                return (None, 1);
            };
            if (0xD800..0xDC00).contains(&hi) && b.get(6..8) == Some(b"\\u") {
                if let Some(lo) = hex4(8).filter(|lo| (0xDC00..0xE000).contains(lo)) {
                    let c = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                    if let Some(c) = char::from_u32(c) {
                        return (Some(Unescaped::Char(c)), 12);
                    }
                }
            }
            match char::from_u32(hi) {
                Some(c) => (Some(Unescaped::Char(c)), 6),
                None => (None, 1),
            }
        }
        _ => (None, 1),
    }
}

/// A percent-encoded byte at the start of `b` (`%2F`, `%2f`).
fn percent_escape(b: &[u8]) -> (Option<Unescaped>, usize) {
    match b.get(1..3).and_then(|d| std::str::from_utf8(d).ok()) {
        Some(d) if d.bytes().all(|c| c.is_ascii_hexdigit()) => match u8::from_str_radix(d, 16) {
            Ok(v) => (Some(Unescaped::Byte(v)), 3),
            Err(_) => (None, 1),
        },
        _ => (None, 1),
    }
}

/// A text rewrite: the new text (equal to the old one when nothing changed).
type Rewrite<'a> = &'a dyn Fn(&str) -> String;

/// Applies `value_fn` to every string inside a JSON value and, when given,
/// `key_fn` to every object key (a map is rebuilt only when a key changes).
fn rewrite_strings(value: &mut Value, value_fn: Rewrite, key_fn: Option<Rewrite>) {
    match value {
        Value::String(s) => {
            let new = value_fn(s);
            if new != *s {
                *s = new;
            }
        }
        Value::Array(items) => items
            .iter_mut()
            .for_each(|v| rewrite_strings(v, value_fn, key_fn)),
        Value::Object(map) => {
            if let Some(key_fn) = key_fn {
                if map.keys().any(|k| key_fn(k) != *k) {
                    let old = std::mem::take(map);
                    for (k, v) in old {
                        map.insert(key_fn(&k), v);
                    }
                }
            }
            map.values_mut()
                .for_each(|v| rewrite_strings(v, value_fn, key_fn));
        }
        _ => {}
    }
}

/// Every encoding of `secret` looked for: the secret and each of its
/// escapes, the escapes of those escapes (double escaping), its base64 at
/// the three byte alignments (so it is found inside a longer encoded text,
/// e.g. `user:secret` in Basic auth), and its hex.
fn forms_of(secret: &str) -> Vec<String> {
    let mut forms = vec![secret.to_string()];
    for once in escapes(secret) {
        forms.extend(escapes(&once));
        forms.push(once);
    }
    for b64 in base64_forms(secret.as_bytes()) {
        forms.extend(escapes(&b64));
        forms.push(b64);
    }
    let hex = crate::text::hash::hex(secret.as_bytes());
    if hex.len() >= 8 {
        forms.push(hex.to_uppercase());
        forms.push(hex);
    }
    forms.retain(|f| !f.is_empty());
    forms
}

/// One level of escaping, in each way a server may apply it.
fn escapes(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    // JSON string escapes: with non-ASCII as \uXXXX or not, with <>&' as
    // \u00XX (HTML-safe encoders) or not, with "/" as "\/" or not.
    for ascii in [false, true] {
        for html_safe in [false, true] {
            let json = json_escape(s, ascii, html_safe);
            out.push(json.replace('/', "\\/"));
            out.push(json);
        }
    }
    out.extend([
        html_escape(s, "&#x27;", "&quot;"),
        html_escape(s, "&#39;", "&#34;"),
        html_escape(s, "&apos;", "&quot;"),
    ]);
    // Percent-encoding with the safe sets of the common encoders
    // (RFC 3986 unreserved; Python's quote; JavaScript's
    // encodeURIComponent; encodeURI), upper and lower hex, space as %20 or +.
    for safe in ["", "/", "!*'()", "!*'();,/?:@&=+$#"] {
        for upper in [true, false] {
            for plus in [false, true] {
                out.push(percent_encode(s, safe, upper, plus));
            }
        }
    }
    out.retain(|f| f != s);
    out.sort();
    out.dedup();
    out
}

fn json_escape(s: &str, ascii: bool, html_safe: bool) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '<' | '>' | '&' | '\'' if html_safe => out.push_str(&format!("\\u{:04x}", c as u32)),
            c if (c as u32) < 0x20 || (ascii && !c.is_ascii()) => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{u:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out
}

fn html_escape(s: &str, apos: &str, quot: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str(quot),
            '\'' => out.push_str(apos),
            c => out.push(c),
        }
    }
    out
}

fn percent_encode(s: &str, safe: &str, upper: bool, plus: bool) -> String {
    let mut out = String::with_capacity(s.len() * 3);
    for &b in s.as_bytes() {
        let c = b as char;
        if b.is_ascii_alphanumeric() || "-._~".contains(c) || (b.is_ascii() && safe.contains(c)) {
            out.push(c);
        } else if b == b' ' && plus {
            out.push('+');
        } else if upper {
            out.push_str(&format!("%{b:02X}"));
        } else {
            out.push_str(&format!("%{b:02x}"));
        }
    }
    out
}

/// The base64 of `bytes` as it stands inside any longer base64 text: for
/// each of the three alignments, the characters that depend on the secret's
/// bytes alone (at least 4 of them, so a short secret does not blank out
/// unrelated text), plus the whole padded and unpadded encodings, in the
/// standard and the URL-safe alphabets.
fn base64_forms(bytes: &[u8]) -> Vec<String> {
    let engines = [
        base64::engine::general_purpose::STANDARD,
        base64::engine::general_purpose::URL_SAFE,
    ];
    let mut out = Vec::new();
    for engine in engines {
        let whole = engine.encode(bytes);
        out.push(whole.trim_end_matches('=').to_string());
        out.push(whole);
        // A form under 4 characters ("eA" for "x") would blank out
        // unrelated text.
        out.retain(|f| f.len() >= 4);
        for k in 0..3usize {
            let mut buf = vec![0u8; k];
            buf.extend_from_slice(bytes);
            let enc = engine.encode(&buf);
            let first = (8 * k).div_ceil(6);
            let last = (8 * (k + bytes.len())) / 6;
            if last >= first + 4 {
                out.push(enc[first..last].to_string());
            }
        }
    }
    out
}

/// A URL with its user info, every query value and its fragment replaced by
/// [`REDACTED`]; scheme, host, port, path and query keys stay readable. Text
/// that is not a URL passes through with the same rules applied to what
/// looks like user info or a query.
pub fn redact_url(url: &str) -> String {
    let (before_fragment, fragment) = match url.split_once('#') {
        Some((b, f)) => (b, Some(f)),
        None => (url, None),
    };
    let (base, query) = match before_fragment.split_once('?') {
        Some((b, q)) => (b, Some(q)),
        None => (before_fragment, None),
    };
    let (scheme, rest) = match base.find("://") {
        Some(i) => (&base[..i + 3], &base[i + 3..]),
        None => ("", base),
    };
    let authority_end = rest.find('/').unwrap_or(rest.len());
    let (authority, path) = rest.split_at(authority_end);
    let mut out = String::with_capacity(url.len() + 16);
    out.push_str(scheme);
    match authority.rfind('@') {
        Some(at) => {
            out.push_str(REDACTED);
            out.push_str(&authority[at..]);
        }
        None => out.push_str(authority),
    }
    out.push_str(path);
    if let Some(q) = query {
        out.push('?');
        let parts: Vec<String> = q
            .split('&')
            .map(|p| match p.split_once('=') {
                Some((k, v)) if !v.is_empty() => format!("{k}={REDACTED}"),
                Some((k, _)) => format!("{k}="),
                None if p.is_empty() => String::new(),
                None => REDACTED.to_string(),
            })
            .collect();
        out.push_str(&parts.join("&"));
    }
    if let Some(f) = fragment {
        out.push('#');
        if !f.is_empty() {
            out.push_str(REDACTED);
        }
    }
    out
}

/// The secrets a URL carries: its password (and user name when there is no
/// password: a token used as the user) and the value of every query
/// parameter.
pub fn url_secrets(url: &str) -> Vec<String> {
    let mut out = Vec::new();
    let (before_fragment, fragment) = match url.split_once('#') {
        Some((b, f)) => (b, Some(f)),
        None => (url, None),
    };
    // A fragment is never sent to the server; it is redacted in stored
    // URLs but not hunted for elsewhere.
    let _ = fragment;
    let (base, query) = match before_fragment.split_once('?') {
        Some((b, q)) => (b, Some(q)),
        None => (before_fragment, None),
    };
    let rest = base.find("://").map_or(base, |i| &base[i + 3..]);
    let authority = &rest[..rest.find('/').unwrap_or(rest.len())];
    if let Some(at) = authority.rfind('@') {
        let userinfo = &authority[..at];
        match userinfo.split_once(':') {
            Some((user, pw)) => {
                out.push(pw.to_string());
                out.push(percent_decode(pw));
                if user.len() >= 8 {
                    out.push(user.to_string());
                }
            }
            None => out.push(userinfo.to_string()),
        }
    }
    // Every query value: whatever its name, a value given in a URL may be
    // a credential (`?tenant=...`, `?x-amz-signature=...`), and it is
    // redacted wherever it is echoed, as the URL itself is stored.
    for p in query.into_iter().flat_map(|q| q.split('&')) {
        let (_, v) = p.split_once('=').unwrap_or(("", p));
        if !v.is_empty() {
            out.push(v.to_string());
            out.push(percent_decode(v));
        }
    }
    out.retain(|s| !s.is_empty());
    out.sort();
    out.dedup();
    out
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        match (
            b[i],
            b.get(i + 1).copied().and_then(hex),
            b.get(i + 2).copied().and_then(hex),
        ) {
            (b'%', Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 3;
            }
            (b'+', _, _) => {
                out.push(b' ');
                i += 1;
            }
            (c, _, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Every URL inside `text` (a scheme, `://`, up to white space or a quote)
/// passed through [`redact_url`].
pub fn redact_urls_in(text: &str) -> Cow<'_, str> {
    if !text.contains("://") {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("://") {
        let start = rest[..i]
            .char_indices()
            .rev()
            .take_while(|(_, c)| c.is_ascii_alphanumeric() || "+.-".contains(*c))
            .last()
            .map_or(i, |(j, _)| j);
        let len = rest[i..]
            .find(|c: char| c.is_whitespace() || "\"'<>`".contains(c))
            .unwrap_or(rest.len() - i);
        out.push_str(&rest[..start]);
        out.push_str(&redact_url(&rest[start..i + len]));
        rest = &rest[i + len..];
    }
    out.push_str(rest);
    Cow::Owned(out)
}

static PROCESS: RwLock<Option<Arc<Redactor>>> = RwLock::new(None);

/// Adds secrets to the process-wide redactor that [`scrub`] applies to
/// command lines, manifests and messages.
pub fn register<I, S>(secrets: I)
where
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    let mut guard = PROCESS.write().unwrap_or_else(|e| e.into_inner());
    let mut next = guard.as_deref().cloned().unwrap_or_default();
    for s in secrets {
        next.add(s.as_ref());
    }
    *guard = Some(Arc::new(next));
}

/// Registers the secrets of the environment ([`SECRET_ENV`], and the
/// credentials of the URLs in [`URL_ENV`]) and of URLs among `args`.
pub fn register_from_env_and_args<S: AsRef<str>>(args: &[S]) {
    let mut found: Vec<String> = SECRET_ENV
        .iter()
        .filter_map(|v| std::env::var(v).ok())
        .collect();
    for v in URL_ENV {
        if let Ok(url) = std::env::var(v) {
            found.extend(url_secrets(&url));
        }
    }
    for a in args {
        let a = a.as_ref();
        if let Some(i) = a.find("://") {
            let start = a[..i].rfind('=').map_or(0, |j| j + 1);
            found.extend(url_secrets(&a[start..]));
        }
    }
    register(found);
}

/// The process-wide redactor (everything registered so far).
pub fn process_redactor() -> Arc<Redactor> {
    let guard = PROCESS.read().unwrap_or_else(|e| e.into_inner());
    guard.clone().unwrap_or_default()
}

/// `text` as it may be stored or printed: URLs redacted and every registered
/// secret blanked out, in any encoding.
pub fn scrub(text: &str) -> String {
    let urls = redact_urls_in(text);
    process_redactor().redact(&urls).into_owned()
}

/// URLs inside every string of a JSON value redacted ([`redact_urls_in`]),
/// registered secrets left alone: for a job's configuration, which `rerun`
/// executes again and which holds no secret by construction.
pub fn scrub_urls_value(value: &mut Value) {
    rewrite_strings(value, &|t| redact_urls_in(t).into_owned(), None);
}

/// [`scrub`] applied to every string of a JSON value (keys: registered
/// secrets only).
pub fn scrub_value(value: &mut Value) {
    let redactor = process_redactor();
    let keys = |t: &str| redactor.redact(t).into_owned();
    rewrite_strings(
        value,
        &|t| redactor.redact(&redact_urls_in(t)).into_owned(),
        Some(&keys),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_keep_host_and_path_and_lose_credentials() {
        assert_eq!(
            redact_url("https://user:pw@h.example:8080/p/q?key=s&x=&flag#frag"),
            "https://<redacted>@h.example:8080/p/q?key=<redacted>&x=&<redacted>#<redacted>"
        );
        assert_eq!(redact_url("http://127.0.0.1:9/v1"), "http://127.0.0.1:9/v1");
        assert_eq!(redact_url("not a url"), "not a url");
        assert_eq!(
            redact_urls_in("--api-url=http://u:PW@h/api?api-key=K and more"),
            "--api-url=http://<redacted>@h/api?api-key=<redacted> and more"
        );
    }

    #[test]
    fn url_secrets_are_passwords_and_every_query_value() {
        let s = url_secrets("http://user:PASS%2Fword@h/api?key=K&format=json&t=abcdefgh12");
        assert!(s.contains(&"PASS%2Fword".to_string()));
        assert!(s.contains(&"PASS/word".to_string()));
        assert!(s.contains(&"K".to_string()));
        // Issue 39: every query value is a secret, whatever its name.
        assert!(s.contains(&"abcdefgh12".to_string()));
        assert!(s.contains(&"json".to_string()));
    }

    #[test]
    fn issue_39_escapes_of_any_style_and_depth_are_redacted() {
        let secret = "sk-39/Pa'ss\"w<o>rd&é";
        let r = Redactor::new([secret]);
        let decimal: String = secret.chars().map(|c| format!("&#{};", c as u32)).collect();
        let hex: String = secret
            .chars()
            .map(|c| format!("&#X{:X}", c as u32))
            .collect();
        let php = html_escape(secret, "&#039;", "&quot;");
        let ruby = html_escape(secret, "&#39;", "&quot;");
        let json1 = json_escape(secret, true, false);
        let json3 = json_escape(&json_escape(&json1, false, false), false, true);
        let pct_json = percent_encode(&json1, "", false, false);
        let html_pct = html_escape(&percent_encode(secret, "/", true, true), "&#39;", "&quot;");
        for echo in [decimal, hex, php, ruby, json3, pct_json, html_pct] {
            let text = format!("before {echo} after");
            let out = r.redact(&text);
            assert_eq!(out, "before <redacted> after", "{echo}");
        }
        // Text that merely holds escapes stays as it is.
        let plain = r#"a \"quote\" &amp; 50% of \u00e9"#;
        assert_eq!(r.redact(plain), plain);
    }

    #[test]
    fn every_encoding_is_found() {
        use base64::engine::general_purpose::STANDARD;
        let secret = "s3cr'et\"/é&<x> y";
        let r = Redactor::new([secret]);
        let json1 = serde_json::to_string(secret).unwrap();
        let json1 = json1.trim_matches('"').to_string();
        let json2 = serde_json::to_string(&json1).unwrap();
        let json2 = json2.trim_matches('"').to_string();
        let echoes = [
            secret.to_string(),
            json1.clone(),
            json2,
            json_escape(secret, true, false),
            json_escape(secret, true, true),
            html_escape(secret, "&#x27;", "&quot;"),
            html_escape(&json1, "&#x27;", "&quot;"),
            percent_encode(secret, "", true, false),
            percent_encode(secret, "", false, true),
            percent_encode(&percent_encode(secret, "", true, false), "", true, false),
            STANDARD.encode(secret),
            STANDARD.encode(format!("user:{secret}")),
            STANDARD.encode(format!("ab{secret}cd")),
            base64::engine::general_purpose::URL_SAFE.encode(format!("a{secret}")),
        ];
        for echo in echoes {
            let text = format!("before {echo} after");
            let out = r.redact(&text);
            assert!(!out.contains(&echo), "{echo} survived: {out}");
            assert!(
                out.starts_with("before ") && out.ends_with(" after"),
                "{out}"
            );
        }
    }

    #[test]
    fn values_are_redacted_after_parsing() {
        let r = Redactor::new(["x"]);
        let mut v: Value = serde_json::from_str(r#"{"content": "an x here", "n": 1}"#).unwrap();
        r.redact_value(&mut v);
        assert_eq!(v["content"], "an <redacted> here");
        assert_eq!(v["n"], 1);
    }

    #[test]
    fn issue_53_a_secret_split_across_neighbouring_strings_is_found() {
        let r = Redactor::new(["sk-live-0123456789"]);
        let (mut a, mut b, mut c) = (
            "env: OPENAI_API_KEY=sk-live-01".to_string(),
            "2345".to_string(),
            "6789 and more".to_string(),
        );
        r.redact_pieces(&mut [&mut a, &mut b, &mut c]);
        assert_eq!(
            (a.as_str(), b.as_str(), c.as_str()),
            (
                "env: OPENAI_API_KEY=<redacted>",
                "<redacted>",
                "<redacted> and more"
            )
        );
        for piece in [&a, &b, &c] {
            assert!(!piece.contains("sk-live") && !piece.contains("6789"));
        }
        // Nothing found: nothing changed; one piece as `redact` does.
        let (mut x, mut y) = ("a sk-live".to_string(), "-nope".to_string());
        r.redact_pieces(&mut [&mut x, &mut y]);
        assert_eq!((x.as_str(), y.as_str()), ("a sk-live", "-nope"));
        let mut one = "key sk-live-0123456789!".to_string();
        r.redact_pieces(&mut [&mut one]);
        assert_eq!(one, r.redact("key sk-live-0123456789!"));
    }

    #[test]
    fn nothing_registered_changes_nothing() {
        let r = Redactor::new(Vec::<String>::new());
        assert!(r.is_empty());
        assert!(matches!(r.redact("abc"), Cow::Borrowed(_)));
    }
}
