//! A JSON document as a flat tape of nodes over its text: one pass,
//! no value tree, no copy of any string.
//!
//! [`Tape::parse`] accepts exactly what `serde_json` accepts through
//! [`super::strict_json`] (RFC 8259; numbers that overflow a double and
//! lone surrogate escapes refused; nesting up to 128 levels) and refuses a
//! key repeated in one object. It says only *that* a document is invalid:
//! callers then parse it with [`super::strict_json`], whose error names
//! the line and column, so messages are the same as before.
//!
//! Each [`Node`] is a value (or an object key) with its byte range in the
//! text and the index of the node after its subtree, so the children of a
//! container are walked without recursion and a subtree is skipped in one
//! step. [`Tape::write_pretty`] writes a subtree exactly as
//! `serde_json::to_writer_pretty` writes the same value.
//!
//! Example: the unit test `the_module_example_walks_a_tape`.

use std::borrow::Cow;

/// What a node is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Kind {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool,
    /// A number.
    Number,
    /// A string without escapes (its text is its value).
    Str,
    /// A string with escapes (decoded on use).
    StrEscaped,
    /// An array.
    Array,
    /// An object: children alternate key (a string node) and value.
    Object,
}

/// One value of the document.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Node {
    /// The value's first byte (a string's opening quote).
    pub start: u32,
    /// One past its last byte (a string's closing quote included).
    pub end: u32,
    /// Index of the node after this subtree.
    pub next: u32,
    /// What it is.
    pub kind: Kind,
}

/// The nodes of a document, in document order (a container before its
/// children).
#[derive(Debug, Clone, Default)]
pub(crate) struct Tape {
    nodes: Vec<Node>,
}

/// Nesting allowed (serde_json's default recursion limit).
const MAX_DEPTH: usize = 128;

struct Scanner<'a> {
    b: &'a [u8],
    i: usize,
    nodes: Vec<Node>,
    /// Open containers: their node index.
    stack: Vec<usize>,
}

impl Tape {
    /// The tape of `text`, or None when `text` is not one valid JSON value
    /// (surrounding whitespace allowed) or repeats a key in an object.
    pub(crate) fn parse(text: &str) -> Option<Tape> {
        Tape::parse_with(text)
    }

    fn parse_with(text: &str) -> Option<Tape> {
        if text.len() >= u32::MAX as usize {
            return None;
        }
        let mut s = Scanner {
            b: text.as_bytes(),
            i: 0,
            // Room for a node per 8 bytes: more than documents of real
            // records need (a question file has one per ~16), so the tape
            // is not copied as it grows; room never used is never touched,
            // so it costs no memory.
            nodes: Vec::with_capacity(text.len() / 8 + 16),
            stack: Vec::new(),
        };
        s.document()?;
        let tape = Tape { nodes: s.nodes };
        tape.no_repeated_keys(text).then_some(tape)
    }

    /// The root node.
    pub(crate) fn root(&self) -> usize {
        0
    }

    /// Node `k`.
    pub(crate) fn node(&self, k: usize) -> Node {
        self.nodes[k]
    }

    /// Node `k`'s kind.
    pub(crate) fn kind(&self, k: usize) -> Kind {
        self.nodes[k].kind
    }

    /// Node `k`'s text (a string's with its quotes).
    pub(crate) fn raw<'t>(&self, text: &'t str, k: usize) -> &'t str {
        let n = self.nodes[k];
        &text[n.start as usize..n.end as usize]
    }

    /// The children of a container node (keys and values alternate in an
    /// object); none for other nodes.
    pub(crate) fn children(&self, k: usize) -> Children<'_> {
        let n = self.nodes[k];
        let container = matches!(n.kind, Kind::Array | Kind::Object);
        Children {
            tape: self,
            at: k + 1,
            end: if container { n.next as usize } else { k + 1 },
        }
    }

    /// The (key node, value node) pairs of an object node.
    pub(crate) fn entries(&self, k: usize) -> Entries<'_> {
        Entries {
            inner: if self.nodes[k].kind == Kind::Object {
                self.children(k)
            } else {
                Children {
                    tape: self,
                    at: k + 1,
                    end: k + 1,
                }
            },
        }
    }

    /// The value of `key` in object node `k`.
    pub(crate) fn field(&self, text: &str, k: usize, key: &str) -> Option<usize> {
        self.entries(k)
            .find(|&(kn, _)| self.str_value(text, kn).as_deref() == Some(key))
            .map(|(_, v)| v)
    }

    /// A string node's value (escapes decoded); None for other nodes.
    pub(crate) fn str_value<'t>(&self, text: &'t str, k: usize) -> Option<Cow<'t, str>> {
        let n = self.nodes[k];
        let inner = &text[n.start as usize + 1..n.end as usize - 1];
        match n.kind {
            Kind::Str => Some(Cow::Borrowed(inner)),
            Kind::StrEscaped => Some(Cow::Owned(unescape(inner))),
            _ => None,
        }
    }

    /// Node `k` as a `serde_json::Value` (parsed from its text).
    pub(crate) fn value(&self, text: &str, k: usize) -> serde_json::Value {
        super::strict_json::parse_str(self.raw(text, k)).unwrap_or(serde_json::Value::Null)
    }

    /// No object repeats a key (compared decoded).
    fn no_repeated_keys(&self, text: &str) -> bool {
        let mut keys: Vec<usize> = Vec::new();
        for (k, n) in self.nodes.iter().enumerate() {
            if n.kind != Kind::Object {
                continue;
            }
            keys.clear();
            keys.extend(self.entries(k).map(|(key, _)| key));
            if keys.len() < 2 {
                continue;
            }
            let any_escaped = keys.iter().any(|&k| self.nodes[k].kind == Kind::StrEscaped);
            if keys.len() <= 16 && !any_escaped {
                for (a, &ka) in keys.iter().enumerate() {
                    let ra = self.raw(text, ka);
                    if keys[a + 1..].iter().any(|&kb| self.raw(text, kb) == ra) {
                        return false;
                    }
                }
            } else {
                let mut seen = std::collections::HashSet::with_capacity(keys.len());
                for &key in &keys {
                    if !seen.insert(self.str_value(text, key)) {
                        return false;
                    }
                }
            }
        }
        true
    }

    /// Writes the JSON value `text` (one value, as [`Tape::parse`] accepts)
    /// as [`Tape::write_pretty`] writes its root; false, with nothing
    /// written, when `text` is not one.
    pub(crate) fn write_pretty_text(text: &str, depth: usize, out: &mut Vec<u8>) -> bool {
        match Tape::parse(text) {
            Some(tape) => {
                tape.write_pretty(text, tape.root(), depth, out);
                true
            }
            None => false,
        }
    }

    /// Writes node `k` as `serde_json::to_writer_pretty` writes its value,
    /// nested `depth` levels deep (two spaces a level).
    pub(crate) fn write_pretty(&self, text: &str, k: usize, depth: usize, out: &mut Vec<u8>) {
        let n = self.nodes[k];
        match n.kind {
            Kind::Null | Kind::Bool | Kind::Str => {
                out.extend_from_slice(self.raw(text, k).as_bytes())
            }
            Kind::StrEscaped => {
                let v = self.str_value(text, k).unwrap_or_default();
                write_json_string(&v, out);
            }
            Kind::Number => write_number(self.raw(text, k), out),
            Kind::Array => {
                let mut items = self.children(k).peekable();
                if items.peek().is_none() {
                    out.extend_from_slice(b"[]");
                    return;
                }
                out.push(b'[');
                let mut first = true;
                for item in items {
                    if !first {
                        out.push(b',');
                    }
                    first = false;
                    newline(out, depth + 1);
                    self.write_pretty(text, item, depth + 1, out);
                }
                newline(out, depth);
                out.push(b']');
            }
            Kind::Object => {
                let mut entries = self.entries(k).peekable();
                if entries.peek().is_none() {
                    out.extend_from_slice(b"{}");
                    return;
                }
                out.push(b'{');
                let mut first = true;
                for (key, value) in entries {
                    if !first {
                        out.push(b',');
                    }
                    first = false;
                    newline(out, depth + 1);
                    self.write_pretty(text, key, depth + 1, out);
                    out.extend_from_slice(b": ");
                    self.write_pretty(text, value, depth + 1, out);
                }
                newline(out, depth);
                out.push(b'}');
            }
        }
    }
}

/// A newline and `depth` levels of two-space indentation.
pub(crate) fn newline(out: &mut Vec<u8>, depth: usize) {
    out.push(b'\n');
    for _ in 0..depth {
        out.extend_from_slice(b"  ");
    }
}

/// `s` as a JSON string, escaped as serde_json escapes.
pub(crate) fn write_json_string(s: &str, out: &mut Vec<u8>) {
    // Writing into a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *out, s);
}

/// A number as serde_json writes the `Number` it parses to (integers as
/// integers, others in their shortest round-trip form).
fn write_number(raw: &str, out: &mut Vec<u8>) {
    match serde_json::from_str::<serde_json::Number>(raw) {
        Ok(n) => {
            let _ = serde_json::to_writer(&mut *out, &n);
        }
        Err(_) => out.extend_from_slice(raw.as_bytes()),
    }
}

/// The children of a container.
#[derive(Debug, Clone)]
pub(crate) struct Children<'t> {
    tape: &'t Tape,
    at: usize,
    end: usize,
}

impl Iterator for Children<'_> {
    type Item = usize;
    fn next(&mut self) -> Option<usize> {
        if self.at >= self.end {
            return None;
        }
        let k = self.at;
        self.at = self.tape.nodes[k].next as usize;
        Some(k)
    }
}

/// The (key, value) node pairs of an object.
#[derive(Debug, Clone)]
pub(crate) struct Entries<'t> {
    inner: Children<'t>,
}

impl Iterator for Entries<'_> {
    type Item = (usize, usize);
    fn next(&mut self) -> Option<(usize, usize)> {
        let key = self.inner.next()?;
        let value = self.inner.next()?;
        Some((key, value))
    }
}

/// Decodes the escapes of a string's inner text (already validated).
pub(crate) fn unescape(inner: &str) -> String {
    let mut out = String::with_capacity(inner.len());
    unescape_into(inner, &mut out);
    out
}

/// [`unescape`], appending to `out`.
pub(crate) fn unescape_into(inner: &str, out: &mut String) {
    let b = inner.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let Some(rel) = memchr::memchr(b'\\', &b[i..]) else {
            out.push_str(&inner[i..]);
            break;
        };
        out.push_str(&inner[i..i + rel]);
        i += rel + 1;
        let Some(&e) = b.get(i) else {
            break;
        };
        i += 1;
        match e {
            b'"' => out.push('"'),
            b'\\' => out.push('\\'),
            b'/' => out.push('/'),
            b'b' => out.push('\u{8}'),
            b'f' => out.push('\u{c}'),
            b'n' => out.push('\n'),
            b'r' => out.push('\r'),
            b't' => out.push('\t'),
            b'u' => {
                let hi = hex4(&b[i..]).unwrap_or(0xfffd);
                i += 4;
                let c = if (0xd800..0xdc00).contains(&hi) {
                    let lo = hex4(b.get(i + 2..).unwrap_or(&[])).unwrap_or(0xdc00);
                    i += 6;
                    0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00)
                } else {
                    hi
                };
                out.push(char::from_u32(c).unwrap_or('\u{fffd}'));
            }
            _ => {}
        }
    }
}

/// The value of four hex digits.
fn hex4(b: &[u8]) -> Option<u32> {
    let digits = b.get(..4)?;
    let mut v = 0u32;
    for &d in digits {
        v = v * 16 + (d as char).to_digit(16)?;
    }
    Some(v)
}

impl Scanner<'_> {
    fn ws(&mut self) {
        while let Some(&c) = self.b.get(self.i) {
            if c == b' ' || c == b'\n' || c == b'\t' || c == b'\r' {
                self.i += 1;
            } else {
                break;
            }
        }
    }

    fn push(&mut self, kind: Kind, start: usize, end: usize) {
        let k = self.nodes.len();
        self.nodes.push(Node {
            start: start as u32,
            end: end as u32,
            next: k as u32 + 1,
            kind,
        });
    }

    /// The whole document: one value between optional whitespace.
    fn document(&mut self) -> Option<()> {
        self.ws();
        self.value()?;
        // Containers are closed in `close`; anything open is an error.
        loop {
            if self.stack.is_empty() {
                self.ws();
                return (self.i == self.b.len()).then_some(());
            }
            self.after_value()?;
        }
    }

    /// After a value inside a container: a comma and the next element
    /// (or key), or the container's end.
    fn after_value(&mut self) -> Option<()> {
        self.ws();
        let top = *self.stack.last()?;
        let object = self.nodes[top].kind == Kind::Object;
        match *self.b.get(self.i)? {
            b',' => {
                self.i += 1;
                self.ws();
                if object {
                    self.key()?;
                }
                self.value()
            }
            b'}' if object => self.close(),
            b']' if !object => self.close(),
            _ => None,
        }
    }

    fn close(&mut self) -> Option<()> {
        self.i += 1;
        let top = self.stack.pop()?;
        let next = self.nodes.len() as u32;
        let n = &mut self.nodes[top];
        n.end = self.i as u32;
        n.next = next;
        Some(())
    }

    /// An object key and its colon.
    fn key(&mut self) -> Option<()> {
        if self.b.get(self.i) != Some(&b'"') {
            return None;
        }
        self.string()?;
        self.ws();
        if self.b.get(self.i) != Some(&b':') {
            return None;
        }
        self.i += 1;
        self.ws();
        Some(())
    }

    /// One value; a container is opened (and its first element or key
    /// read, or closed when empty).
    fn value(&mut self) -> Option<()> {
        let start = self.i;
        match *self.b.get(self.i)? {
            b'"' => self.string(),
            b'{' | b'[' => {
                let object = self.b[self.i] == b'{';
                if self.stack.len() >= MAX_DEPTH {
                    return None;
                }
                self.push(
                    if object { Kind::Object } else { Kind::Array },
                    start,
                    start + 1,
                );
                self.stack.push(self.nodes.len() - 1);
                self.i += 1;
                self.ws();
                let close = if object { b'}' } else { b']' };
                if self.b.get(self.i) == Some(&close) {
                    return self.close();
                }
                if object {
                    self.key()?;
                }
                self.value()
            }
            b't' => self.literal(b"true", Kind::Bool),
            b'f' => self.literal(b"false", Kind::Bool),
            b'n' => self.literal(b"null", Kind::Null),
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }

    fn literal(&mut self, word: &[u8], kind: Kind) -> Option<()> {
        let start = self.i;
        if !self.b[self.i..].starts_with(word) {
            return None;
        }
        self.i += word.len();
        self.push(kind, start, self.i);
        Some(())
    }

    fn digits(&mut self) -> usize {
        let from = self.i;
        while self.b.get(self.i).is_some_and(u8::is_ascii_digit) {
            self.i += 1;
        }
        self.i - from
    }

    fn number(&mut self) -> Option<()> {
        let start = self.i;
        if self.b[self.i] == b'-' {
            self.i += 1;
        }
        match self.b.get(self.i)? {
            b'0' => self.i += 1,
            b'1'..=b'9' => {
                self.digits();
            }
            _ => return None,
        }
        let mut float = false;
        if self.b.get(self.i) == Some(&b'.') {
            self.i += 1;
            if self.digits() == 0 {
                return None;
            }
            float = true;
        }
        if matches!(self.b.get(self.i), Some(b'e' | b'E')) {
            self.i += 1;
            if matches!(self.b.get(self.i), Some(b'+' | b'-')) {
                self.i += 1;
            }
            if self.digits() == 0 {
                return None;
            }
            float = true;
        }
        let raw = std::str::from_utf8(&self.b[start..self.i]).ok()?;
        // serde_json refuses numbers beyond a double's range; integers too
        // large for 64 bits become doubles there.
        if (float || raw.len() > 18) && !raw.parse::<f64>().ok()?.is_finite() {
            return None;
        }
        self.push(Kind::Number, start, self.i);
        Some(())
    }

    fn string(&mut self) -> Option<()> {
        let start = self.i;
        self.i += 1;
        let mut escaped = false;
        loop {
            // Jump to the next quote, backslash or control byte.
            self.i += super::skim::find_special(&self.b[self.i..])?;
            match self.b[self.i] {
                b'"' => {
                    self.i += 1;
                    let kind = if escaped { Kind::StrEscaped } else { Kind::Str };
                    self.push(kind, start, self.i);
                    return Some(());
                }
                b'\\' => {
                    escaped = true;
                    self.i += 1;
                    match *self.b.get(self.i)? {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => self.i += 1,
                        b'u' => {
                            let v = hex4(&self.b[self.i + 1..])?;
                            self.i += 5;
                            if (0xdc00..0xe000).contains(&v) {
                                return None;
                            }
                            if (0xd800..0xdc00).contains(&v) {
                                if self.b.get(self.i..self.i + 2) != Some(b"\\u") {
                                    return None;
                                }
                                let lo = hex4(&self.b[self.i + 2..])?;
                                if !(0xdc00..0xe000).contains(&lo) {
                                    return None;
                                }
                                self.i += 6;
                            }
                        }
                        _ => return None,
                    }
                }
                _ => return None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_module_example_walks_a_tape() {
        let text = r#"{"a": [1, "x\n"], "b": null}"#;
        let tape = Tape::parse(text).unwrap();
        let root = tape.root();
        assert_eq!(tape.kind(root), Kind::Object);
        let a = tape.field(text, root, "a").unwrap();
        let items: Vec<usize> = tape.children(a).collect();
        assert_eq!(tape.str_value(text, items[1]).as_deref(), Some("x\n"));
        assert!(Tape::parse(r#"{"a": 1, "a": 2}"#).is_none());
    }

    use super::*;

    /// The tape accepts what strict_json accepts, and writes what
    /// serde_json's pretty writer writes.
    fn agrees(text: &str) {
        let strict = crate::corpus::strict_json::parse_str(text);
        let tape = Tape::parse(text);
        assert_eq!(
            tape.is_some(),
            strict.is_ok(),
            "{text:?}: tape {} strict {:?}",
            tape.is_some(),
            strict.as_ref().err()
        );
        if let (Some(tape), Ok(v)) = (tape, strict) {
            let mut out = Vec::new();
            tape.write_pretty(text, tape.root(), 0, &mut out);
            assert_eq!(
                String::from_utf8(out).unwrap(),
                serde_json::to_string_pretty(&v).unwrap(),
                "{text:?}"
            );
        }
    }

    #[test]
    fn accepts_and_refuses_as_serde_json() {
        for text in [
            "0",
            "-0",
            "1.5",
            "-1e-7",
            "1E+2",
            "12345678901234567890123",
            "1e400",
            "-1e400",
            "1e-400",
            "01",
            "1.",
            ".5",
            "-",
            "1e",
            "+1",
            "true",
            "false",
            "null",
            "nul",
            "\"\"",
            "\"a\\u00e9b\"",
            "\"\\ud83d\\ude00\"",
            "\"\\ud83d\"",
            "\"\\ude00\"",
            "\"\\ud83dx\"",
            "\"\\x\"",
            "\"a\u{1}\"",
            "\"tab\there\"",
            "[]",
            "{}",
            "[1,]",
            "[,1]",
            "{\"a\":1,}",
            "{\"a\" 1}",
            "{1:2}",
            "[1 2]",
            " [ 1 , { \"b\" : [ ] } ] ",
            "[1] x",
            "",
            "  ",
            "{\"a\":1,\"a\":2}",
            "{\"a\":1,\"\\u0061\":2}",
            "{\"a\":{\"a\":1},\"b\":{\"a\":2}}",
            "[\"\\/\\b\\f\\n\\r\\t\\\"\\\\\"]",
            "{\"k\": \"caf\u{e9} \\u2014 ok\", \"n\": [1.0, 2, -3.25e3, 100000000000000000000]}",
        ] {
            agrees(text);
        }
        let deep = format!("{}{}", "[".repeat(127), "]".repeat(127));
        agrees(&deep);
        let deeper = format!("{}{}", "[".repeat(130), "]".repeat(130));
        agrees(&deeper);
    }

    #[test]
    fn agrees_with_serde_json_on_generated_documents() {
        // Random documents from a small grammar, then random edits of them
        // (a byte deleted, duplicated or replaced): valid and invalid.
        let mut seed = 0x5eed_u64;
        let mut next = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        fn gen(next: &mut dyn FnMut(usize) -> usize, depth: usize, out: &mut String) {
            let pick = if depth > 4 { next(5) } else { next(8) };
            match pick {
                0 => out.push_str(["null", "true", "false"][next(3)]),
                1 => out.push_str(["0", "-12", "3.25", "1e5", "-0.5E-3", "7"][next(6)]),
                2..=4 => {
                    out.push('"');
                    for _ in 0..next(6) {
                        out.push_str(
                            [
                                "a",
                                "é",
                                " ",
                                "\\n",
                                "\\\"",
                                "\\u00e9",
                                "\\ud83d\\ude00",
                                "k",
                            ][next(8)],
                        );
                    }
                    out.push('"');
                }
                5 | 6 => {
                    out.push('{');
                    let n = next(4);
                    for k in 0..n {
                        if k > 0 {
                            out.push(',');
                        }
                        out.push_str(["\"a\"", "\"b\"", "\"c\"", "\"a\""][next(4)]);
                        out.push_str([":", " : "][next(2)]);
                        gen(next, depth + 1, out);
                    }
                    out.push('}');
                }
                _ => {
                    out.push('[');
                    let n = next(4);
                    for k in 0..n {
                        if k > 0 {
                            out.push_str([",", ", "][next(2)]);
                        }
                        gen(next, depth + 1, out);
                    }
                    out.push(']');
                }
            }
        }
        for _ in 0..20_000 {
            let mut doc = String::new();
            gen(&mut next, 0, &mut doc);
            agrees(&doc);
            let bytes = doc.as_bytes();
            if bytes.is_empty() {
                continue;
            }
            let at = next(bytes.len());
            let mut edited = bytes.to_vec();
            match next(3) {
                0 => {
                    edited.remove(at);
                }
                1 => edited.insert(at, bytes[at]),
                _ => edited[at] = b"{}[],:\"\\ 0e-.nt"[next(15)],
            }
            if let Ok(s) = String::from_utf8(edited) {
                agrees(&s);
            }
        }
    }

    #[test]
    fn walks_children_and_fields() {
        let text = r#"{"qa_pairs": [{"id": "x", "answers": []}, 5], "k\u00e9y": "v"}"#;
        let tape = Tape::parse(text).unwrap();
        let pairs = tape.field(text, tape.root(), "qa_pairs").unwrap();
        let items: Vec<usize> = tape.children(pairs).collect();
        assert_eq!(items.len(), 2);
        assert_eq!(tape.raw(text, items[1]), "5");
        let id = tape.field(text, items[0], "id").unwrap();
        assert_eq!(tape.str_value(text, id).unwrap(), "x");
        assert!(tape.field(text, tape.root(), "kéy").is_some());
        assert_eq!(
            tape.value(text, items[0]),
            serde_json::json!({"id": "x", "answers": []})
        );
    }
}
