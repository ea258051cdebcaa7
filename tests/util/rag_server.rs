//! A real RAG API on 127.0.0.1 for the `rag` tests and the benchmark. It
//! speaks the seed's contract: it retrieves the top-k chunks of
//! `datasets/corpus.json` by word overlap with the question (after the
//! metadata filter) and answers with the top chunk's first sentence and
//! citations that are verbatim (exact), lower-cased (normalized), missing a
//! word (fuzzy), invented (not_found) and out of range (invalid_source).
//!
//! Directives in the question text inject faults, counted per question:
//! `[429xN]` (with `Retry-After: 1`), `[500xN]`, `[dropxN]` (the connection
//! is closed mid-reply), `[badjsonxN]` (an HTML body), `[missingxN]` (JSON
//! without `answer`), `[slowxN]` (2 s before replying), `[echoxN]` (a 500
//! page echoing the request, auth included), `[sleep=MS]`; `[echo-answer]`
//! puts the auth into the answer; `[nocite]` answers without citations.
//! With an expected auth string, any other gets 401.

#![allow(dead_code)]

use serde_json::{json, Value};
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

#[derive(Default)]
struct State {
    seen: HashMap<String, usize>,
    bodies: Vec<Value>,
}

/// Counters shared with the handler threads.
#[derive(Default)]
struct Counters {
    requests: AtomicUsize,
    in_flight: AtomicUsize,
    max_in_flight: AtomicUsize,
    delay_ms: AtomicUsize,
    /// Requests hold their reply until this many have been in flight at
    /// once (0: no gate); see `RagServer::set_gate`.
    gate: AtomicUsize,
}

/// A running server; stops when dropped.
pub struct RagServer {
    pub url: String,
    state: Arc<Mutex<State>>,
    counters: Arc<Counters>,
    stopping: Arc<AtomicBool>,
    addr: std::net::SocketAddr,
    acceptor: Option<std::thread::JoinHandle<()>>,
}

/// One parsed request: the request target (path and query) and the body
/// (the headers are not needed).
struct Request {
    stream: TcpStream,
    target: String,
    body: String,
}

/// Reads one HTTP/1.1 request (headers, then Content-Length bytes).
fn read_request(stream: TcpStream) -> Option<Request> {
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut length = 0usize;
    let mut first = true;
    let mut target = String::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if first {
            first = false;
            if !line.starts_with("POST ") {
                return None;
            }
            target = line.split(' ').nth(1).unwrap_or_default().to_string();
            continue;
        }
        if line.is_empty() {
            break;
        }
        if let Some((k, v)) = line.split_once(':') {
            if k.trim().eq_ignore_ascii_case("content-length") {
                length = v.trim().parse().ok()?;
            }
        }
    }
    let mut body = vec![0u8; length];
    reader.read_exact(&mut body).ok()?;
    Some(Request {
        stream,
        target,
        body: String::from_utf8_lossy(&body).into_owned(),
    })
}

impl Request {
    fn respond(mut self, status: u16, text: &str, extra: Option<(&str, &str)>) {
        let reason = match status {
            200 => "OK",
            401 => "Unauthorized",
            422 => "Unprocessable Entity",
            429 => "Too Many Requests",
            _ => "Internal Server Error",
        };
        let mut head = format!(
            "HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
            text.len()
        );
        if let Some((k, v)) = extra {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
        head.push_str("\r\n");
        let _ = self.stream.write_all(head.as_bytes());
        let _ = self.stream.write_all(text.as_bytes());
        let _ = self.stream.flush();
    }
}

/// Waits until the gate's number of requests have been in flight at once
/// (or 10 s, after which the gate stays open).
fn wait_at_gate(counters: &Counters) {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let gate = counters.gate.load(Ordering::SeqCst);
        if gate == 0 || counters.max_in_flight.load(Ordering::SeqCst) >= gate {
            return;
        }
        if std::time::Instant::now() >= deadline {
            counters.gate.store(0, Ordering::SeqCst);
            return;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

impl RagServer {
    /// Starts a server (a thread per connection, one request per
    /// connection); `auth`, when given, must be the request's `auth` field.
    /// `_threads` is kept for call-site compatibility.
    pub fn start(auth: Option<&str>, _threads: usize) -> RagServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let addr = listener.local_addr().expect("address");
        let url = format!("http://{addr}/prompt");
        let state = Arc::new(Mutex::new(State::default()));
        let counters = Arc::new(Counters::default());
        let stopping = Arc::new(AtomicBool::new(false));
        let chunks = corpus();
        let auth = auth.map(str::to_string);
        let acceptor = {
            let (state, counters, stopping) = (
                Arc::clone(&state),
                Arc::clone(&counters),
                Arc::clone(&stopping),
            );
            std::thread::spawn(move || {
                for conn in listener.incoming() {
                    if stopping.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(stream) = conn else { continue };
                    let (state, counters, chunks, auth) = (
                        Arc::clone(&state),
                        Arc::clone(&counters),
                        Arc::clone(&chunks),
                        auth.clone(),
                    );
                    std::thread::spawn(move || {
                        let Some(req) = read_request(stream) else {
                            return;
                        };
                        let now = counters.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
                        counters.max_in_flight.fetch_max(now, Ordering::SeqCst);
                        counters.requests.fetch_add(1, Ordering::SeqCst);
                        wait_at_gate(&counters);
                        handle(req, &state, &counters, &chunks, auth.as_deref());
                        counters.in_flight.fetch_sub(1, Ordering::SeqCst);
                    });
                }
            })
        };
        RagServer {
            url,
            state,
            counters,
            stopping,
            addr,
            acceptor: Some(acceptor),
        }
    }
    /// Makes every reply wait `ms` milliseconds.
    pub fn set_delay_ms(&self, ms: usize) {
        self.counters.delay_ms.store(ms, Ordering::SeqCst);
    }

    /// Holds every reply until `n` requests have been in flight at once,
    /// so a client that overlaps its requests reaches exactly its
    /// concurrency whatever the machine's load. A client that never gets
    /// there opens the gate after 10 s (the test then sees the lower
    /// maximum and fails on it, not on time).
    pub fn set_gate(&self, n: usize) {
        self.counters.gate.store(n, Ordering::SeqCst);
    }

    /// Requests so far.
    pub fn requests(&self) -> usize {
        self.counters.requests.load(Ordering::SeqCst)
    }

    /// Most requests handled at once.
    pub fn max_in_flight(&self) -> usize {
        self.counters.max_in_flight.load(Ordering::SeqCst)
    }

    /// Requests received for a question.
    pub fn requests_for(&self, question: &str) -> usize {
        self.state
            .lock()
            .unwrap()
            .seen
            .get(question)
            .copied()
            .unwrap_or(0)
    }

    /// Every request body so far (auth included, as received).
    pub fn bodies(&self) -> Vec<Value> {
        self.state.lock().unwrap().bodies.clone()
    }
}

impl Drop for RagServer {
    fn drop(&mut self) {
        self.stopping.store(true, Ordering::SeqCst);
        // Wake the accept loop.
        let _ = TcpStream::connect(self.addr);
        if let Some(t) = self.acceptor.take() {
            let _ = t.join();
        }
    }
}

struct Chunk {
    text: String,
    metadata: Value,
    words: std::collections::HashSet<String>,
}

fn words(s: &str) -> Vec<String> {
    s.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() > 2)
        .map(str::to_string)
        .collect()
}

fn corpus() -> Arc<Vec<Chunk>> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/corpus.json");
    let doc: Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("corpus")).expect("corpus json");
    Arc::new(
        doc.as_array()
            .expect("array")
            .iter()
            .map(|c| {
                let text = c["page_content"].as_str().unwrap_or_default().to_string();
                Chunk {
                    words: words(&text).into_iter().collect(),
                    text,
                    metadata: c["metadata"].clone(),
                }
            })
            .collect(),
    )
}

fn directive(q: &str, name: &str) -> Option<String> {
    let start = q.find(&format!("[{name}"))? + name.len() + 1;
    let end = start + q[start..].find(']')?;
    Some(q[start..end].to_string())
}

fn count(q: &str, name: &str) -> Option<usize> {
    directive(q, name).and_then(|d| d.strip_prefix('x').and_then(|n| n.parse().ok()))
}

fn sentences(text: &str) -> Vec<String> {
    text.split_inclusive(['.', '?', '!'])
        .map(|s| s.trim().to_string())
        .filter(|s| s.split_whitespace().count() >= 3)
        .collect()
}

fn reply_for(chunks: &[Chunk], body: &Value) -> Value {
    let question = body["question"].as_str().unwrap_or_default();
    let k = body["k"].as_u64().unwrap_or(10) as usize;
    let filter = body["filter"].as_object().cloned().unwrap_or_default();
    let q: std::collections::HashSet<String> = words(question).into_iter().collect();
    let mut ranked: Vec<(usize, usize)> = chunks
        .iter()
        .enumerate()
        .filter(|(_, c)| filter.iter().all(|(key, v)| c.metadata.get(key) == Some(v)))
        .map(|(i, c)| (c.words.intersection(&q).count(), i))
        .collect();
    ranked.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let docs: Vec<&Chunk> = ranked.iter().take(k).map(|&(_, i)| &chunks[i]).collect();
    let context: Vec<Value> = docs
        .iter()
        .map(|c| json!({"page_content": c.text, "metadata": c.metadata}))
        .collect();
    let mut citations = Vec::new();
    let mut answer = "insufficient context".to_string();
    if let Some(first) = docs.first() {
        let s0 = sentences(&first.text);
        answer = s0.first().cloned().unwrap_or_else(|| first.text.clone());
        if !question.contains("[nocite]") {
            if let Some(s) = s0.first() {
                citations.push(json!({"source_index": 0, "quote": s}));
            }
            let other = docs.len().min(2) - 1;
            if let Some(s) = sentences(&docs[other].text).last() {
                citations.push(json!({"source_index": other, "quote": s.to_uppercase()}));
            }
            if let Some(long) = s0.iter().max_by_key(|s| s.len()) {
                let mut w: Vec<&str> = long.split_whitespace().collect();
                if w.len() >= 8 {
                    w.remove(w.len() / 2);
                    citations.push(json!({"source_index": 0, "quote": w.join(" ")}));
                }
            }
            citations.push(json!({"source_index": 0, "quote": "Nobody in these interviews ever said this sentence."}));
            citations.push(json!({"source_index": docs.len() + 3, "quote": "out of range"}));
        }
    }
    json!({"question": question, "context": context, "answer": {"answer": answer, "citations": citations}})
}

fn handle(
    req: Request,
    state: &Mutex<State>,
    counters: &Counters,
    chunks: &[Chunk],
    auth: Option<&str>,
) {
    let body: Value = serde_json::from_str(&req.body).unwrap_or(Value::Null);
    let question = body["question"].as_str().unwrap_or_default().to_string();
    let n = {
        let mut st = state.lock().unwrap();
        st.bodies.push(body.clone());
        let e = st.seen.entry(question.clone()).or_insert(0);
        *e += 1;
        *e
    };
    let delay = counters.delay_ms.load(Ordering::SeqCst) as u64
        + directive(&question, "sleep=")
            .and_then(|d| d.parse::<u64>().ok())
            .unwrap_or(0);
    let slow = if count(&question, "slow").is_some_and(|c| n <= c) {
        2000
    } else {
        0
    };
    if delay + slow > 0 {
        std::thread::sleep(Duration::from_millis(delay + slow));
    }
    let valid = body["k"].is_u64()
        && body["filter"].is_object()
        && body["question"].is_string()
        && body["model"].is_string();
    if !valid {
        return req.respond(422, r#"{"detail": "bad request body"}"#, None);
    }
    if let Some(expected) = auth {
        if body["auth"].as_str() != Some(expected) {
            return req.respond(401, r#"{"detail": "bad auth"}"#, None);
        }
    }
    if count(&question, "429").is_some_and(|c| n <= c) {
        return req.respond(
            429,
            r#"{"detail": "rate limited"}"#,
            Some(("Retry-After", "1")),
        );
    }
    if count(&question, "500").is_some_and(|c| n <= c) {
        return req.respond(500, "upstream exploded", None);
    }
    if count(&question, "drop").is_some_and(|c| n <= c) {
        // Promise a body, send part of it, and close the connection.
        let mut stream = req.stream;
        let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 500\r\nConnection: close\r\n\r\n{\"question\": ");
        let _ = stream.flush();
        let _ = stream.shutdown(std::net::Shutdown::Both);
        return;
    }
    if count(&question, "echo").is_some_and(|c| n <= c) {
        // A proxy error page that echoes the request, auth included.
        let page = format!("bad gateway for {}", req.body);
        return req.respond(500, &page, None);
    }
    if count(&question, "badjson").is_some_and(|c| n <= c) {
        return req.respond(
            200,
            "<html><body>502 Bad Gateway (proxy)</body></html>",
            None,
        );
    }
    let mut reply = reply_for(chunks, &body);
    if question.contains("[echo-answer]") {
        reply["answer"]["answer"] = Value::String(format!(
            "Your auth is {}",
            body["auth"].as_str().unwrap_or("")
        ));
    }
    if question.contains("[echo-escaped]") {
        // The auth and every query value of the URL it was called by, in
        // every escaping style of `escaped_encodings`.
        let query = req.target.split_once('?').map_or("", |(_, q)| q);
        let mut secrets: Vec<String> = vec![body["auth"].as_str().unwrap_or("").to_string()];
        secrets.extend(
            query
                .split('&')
                .filter_map(|p| p.split_once('=').map(|(_, v)| v.to_string())),
        );
        let shown = secrets
            .iter()
            .flat_map(|s| escaped_encodings(s))
            .collect::<Vec<_>>()
            .join(" | ");
        reply["answer"]["answer"] = Value::String(format!("Echo: {shown}"));
        if let Some(ctx) = reply["context"].as_array_mut() {
            if let Some(first) = ctx.first_mut() {
                first["page_content"] = Value::String(format!("Interviewer: {shown}"));
            }
        }
        reply["answer"]["citations"] = serde_json::json!([{"source_index": 0, "quote": shown}]);
    }
    if question.contains("[echo-encoded]") {
        // The auth in every encoding a server may echo it in: in the
        // answer, in a passage and in a citation quoting that passage.
        let shown = encodings(body["auth"].as_str().unwrap_or("")).join(" | ");
        reply["answer"]["answer"] = Value::String(format!("Echo: {shown}"));
        if let Some(ctx) = reply["context"].as_array_mut() {
            if let Some(first) = ctx.first_mut() {
                first["page_content"] = Value::String(format!("Interviewer: {shown}"));
            }
        }
        reply["answer"]["citations"] = serde_json::json!([{"source_index": 0, "quote": shown}]);
    }
    if count(&question, "missing").is_some_and(|c| n <= c) {
        if let Some(o) = reply.as_object_mut() {
            o.remove("answer");
        }
    }
    req.respond(200, &reply.to_string(), None)
}

/// `secret` as servers echo it: as written, JSON-escaped, double-escaped,
/// HTML entities, percent-encoded, base64 (alone and inside Basic auth) and
/// hex. The encoders are written here, independently of the product's.
pub fn encodings(secret: &str) -> Vec<String> {
    use base64::Engine;
    let json = |s: &str| {
        let q = serde_json::to_string(s).unwrap();
        q[1..q.len() - 1].to_string()
    };
    let html = |s: &str| {
        s.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('"', "&quot;")
            .replace('\'', "&#x27;")
    };
    let pct = |upper: bool| -> String {
        secret
            .bytes()
            .map(|b| match b {
                b if b.is_ascii_alphanumeric() || b"-._~".contains(&b) => (b as char).to_string(),
                b if upper => format!("%{b:02X}"),
                b => format!("%{b:02x}"),
            })
            .collect()
    };
    let b64 = base64::engine::general_purpose::STANDARD;
    vec![
        secret.to_string(),
        json(secret),
        json(&json(secret)),
        html(secret),
        pct(true),
        pct(false),
        b64.encode(secret),
        b64.encode(format!("user:{secret}")),
        secret.bytes().map(|b| format!("{b:02x}")).collect(),
    ]
}

/// `secret` in escaping styles beyond [`encodings`]: PHP's
/// `htmlspecialchars` (`&#039;`, `&quot;`), Ruby's `CGI.escapeHTML`
/// (`&#39;`), every char as a decimal or hex character reference, every
/// char as a JSON `\uXXXX`, JSON escaped three times, HTML over JSON over
/// percent-encoding. Written here, independently of the product's.
pub fn escaped_encodings(secret: &str) -> Vec<String> {
    let json = |s: &str| {
        let q = serde_json::to_string(s).unwrap();
        q[1..q.len() - 1].to_string()
    };
    let html = |s: &str, apos: &str| {
        s.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('"', "&quot;")
            .replace('\'', apos)
    };
    let pct: String = secret
        .bytes()
        .map(|b| match b {
            b if b.is_ascii_alphanumeric() => (b as char).to_string(),
            b => format!("%{b:02X}"),
        })
        .collect();
    vec![
        html(secret, "&#039;"),
        html(secret, "&#39;"),
        secret.chars().map(|c| format!("&#{};", c as u32)).collect(),
        secret
            .chars()
            .map(|c| format!("&#x{:x};", c as u32))
            .collect(),
        secret
            .encode_utf16()
            .map(|u| format!("\\u{u:04x}"))
            .collect(),
        json(&json(&json(secret))),
        html(&json(&pct), "&#039;"),
    ]
}
