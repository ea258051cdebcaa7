//! A real chat-completions server on 127.0.0.1 for the judge tests.
//!
//! It reads the prompt's "Generated Answer:" line and answers by the
//! directives the answer carries:
//! - `[score=X]`: reply "X" (default: "1.0" when the answer contains the
//!   expected answer, else "0.0");
//! - `[429xN]` / `[500xN]`: the first N requests for this prompt get HTTP 429
//!   (with `Retry-After`, see [`JudgeServer::retry_after`]) or 500;
//! - `[garbage]`: always reply "I think it is quite good" (no number);
//! - `[garbagexN]`: that reply for the first N requests, then the score;
//! - `[badjson]`: a body that is not chat-completions JSON;
//! - `[sleep=MS]`: wait MS milliseconds before answering.
//!
//! With a required key, a request without `Authorization: Bearer KEY` gets
//! 401. Every request is logged (prompt answer line and arrival time).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// One logged request.
#[derive(Debug, Clone)]
pub struct Logged {
    /// The "Generated Answer:" line's text.
    pub answer: String,
    /// When it arrived.
    pub at: Instant,
    /// The request body as JSON.
    pub body: serde_json::Value,
    /// The Authorization header.
    pub auth: Option<String>,
}

#[derive(Default)]
struct State {
    seen: HashMap<String, usize>,
    log: Vec<Logged>,
    /// Requests after this many are held (not answered) until released;
    /// see `JudgeServer::hold_after`.
    hold_after: Option<usize>,
}

/// A running server; stops when dropped.
pub struct JudgeServer {
    pub url: String,
    state: Arc<Mutex<State>>,
    server: Arc<tiny_http::Server>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

fn directive(answer: &str, name: &str) -> Option<String> {
    let start = answer.find(&format!("[{name}"))? + name.len() + 1;
    let end = start + answer[start..].find(']')?;
    Some(answer[start..end].to_string())
}

fn count(answer: &str, name: &str) -> Option<usize> {
    directive(answer, name).and_then(|d| d.strip_prefix('x').and_then(|n| n.parse().ok()))
}

impl JudgeServer {
    /// Seconds the server asks clients to wait in `Retry-After`.
    pub fn retry_after() -> u64 {
        1
    }

    /// Starts a server; `key`, when given, is required as the bearer token.
    pub fn start(key: Option<&str>) -> JudgeServer {
        let server = Arc::new(tiny_http::Server::http("127.0.0.1:0").expect("bind 127.0.0.1"));
        let url = format!(
            "http://{}/v1",
            server.server_addr().to_ip().expect("ip address")
        );
        let state = Arc::new(Mutex::new(State::default()));
        let key = key.map(str::to_string);
        let threads = (0..8)
            .map(|_| {
                let server = Arc::clone(&server);
                let state = Arc::clone(&state);
                let key = key.clone();
                std::thread::spawn(move || {
                    while let Ok(req) = server.recv() {
                        handle(req, &state, key.as_deref());
                    }
                })
            })
            .collect();
        JudgeServer {
            url,
            state,
            server,
            threads,
        }
    }

    /// Holds every request after the first `n` unanswered (for up to 30 s)
    /// until [`JudgeServer::release`]: a test can then act while exactly
    /// one request is in flight, whatever the machine's load.
    pub fn hold_after(&self, n: usize) {
        self.state.lock().unwrap().hold_after = Some(n);
    }

    /// Answers held requests and stops holding.
    pub fn release(&self) {
        self.state.lock().unwrap().hold_after = None;
    }

    /// Every request so far.
    pub fn log(&self) -> Vec<Logged> {
        self.state.lock().unwrap().log.clone()
    }

    /// Number of requests so far.
    pub fn requests(&self) -> usize {
        self.state.lock().unwrap().log.len()
    }
}

impl Drop for JudgeServer {
    fn drop(&mut self) {
        self.server.unblock();
        for _ in 1..self.threads.len() {
            self.server.unblock();
        }
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

fn handle(mut req: tiny_http::Request, state: &Mutex<State>, key: Option<&str>) {
    let mut body = String::new();
    let _ = req.as_reader().read_to_string(&mut body);
    let auth = req
        .headers()
        .iter()
        .find(|h| h.field.equiv("Authorization"))
        .map(|h| h.value.as_str().to_string());
    let json: serde_json::Value = serde_json::from_str(&body).unwrap_or(serde_json::Value::Null);
    let prompt = json
        .pointer("/messages/0/content")
        .and_then(|c| c.as_str())
        .unwrap_or_default()
        .to_string();
    let field = |name: &str| {
        prompt
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .unwrap_or_default()
            .to_string()
    };
    let answer = field("Generated Answer: ");
    let expected = field("Expected Answer: ");
    let n = {
        let mut st = state.lock().unwrap();
        st.log.push(Logged {
            answer: answer.clone(),
            at: Instant::now(),
            body: json.clone(),
            auth: auth.clone(),
        });
        let e = st.seen.entry(prompt.clone()).or_insert(0);
        *e += 1;
        *e
    };
    let arrived = state.lock().unwrap().log.len();
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline
        && state
            .lock()
            .unwrap()
            .hold_after
            .is_some_and(|n| arrived > n)
    {
        std::thread::sleep(Duration::from_millis(5));
    }
    if let Some(ms) = directive(&answer, "sleep=").and_then(|d| d.parse::<u64>().ok()) {
        std::thread::sleep(Duration::from_millis(ms));
    }
    let respond = |status: u16, text: String, extra: Option<(&str, String)>| {
        let mut resp = tiny_http::Response::from_string(text).with_status_code(status);
        resp.add_header(tiny_http::Header::from_bytes("Content-Type", "application/json").unwrap());
        if let Some((k, v)) = extra {
            resp.add_header(tiny_http::Header::from_bytes(k, v.as_bytes()).unwrap());
        }
        let _ = req.respond(resp);
    };
    let sent_key = auth
        .as_deref()
        .and_then(|a| a.strip_prefix("Bearer "))
        .unwrap_or_default()
        .to_string();
    if answer.contains("[echo-401-escaped]") {
        // A 401 whose message holds the key already JSON-escaped twice
        // (the body escapes it once more), and in the other styles.
        let double = {
            let once = serde_json::to_string(&sent_key).unwrap();
            serde_json::to_string(&once[1..once.len() - 1]).unwrap()
        };
        let others = super::escaped_encodings(&sent_key).join(" | ");
        let body = serde_json::json!({"error": {"message": format!("Incorrect API key provided: {} {others}", &double[1..double.len() - 1])}});
        return respond(401, body.to_string(), None);
    }
    if answer.contains("[echo-401]") {
        // What a real API answers to a wrong key: the key, echoed.
        let body = serde_json::json!({"error": {"message": format!("Incorrect API key provided: {sent_key}")}});
        return respond(401, body.to_string(), None);
    }
    if let Some(k) = key {
        if auth.as_deref() != Some(&format!("Bearer {k}")) {
            return respond(401, r#"{"error": "bad key"}"#.into(), None);
        }
    }
    if count(&answer, "429").is_some_and(|c| n <= c) {
        return respond(
            429,
            r#"{"error": "rate limited"}"#.into(),
            Some(("Retry-After", JudgeServer::retry_after().to_string())),
        );
    }
    if count(&answer, "500").is_some_and(|c| n <= c) {
        return respond(500, "upstream exploded".into(), None);
    }
    if answer.contains("[badjson]") {
        return respond(200, "<html>proxy error</html>".into(), None);
    }
    let garbage = answer.contains("[garbage]") || count(&answer, "garbage").is_some_and(|c| n <= c);
    let content = if answer.contains("[echo-key]") {
        // A score, then the key in every encoding the redactor must catch.
        format!("1.0 {}", super::encodings(&sent_key).join(" | "))
    } else if garbage {
        "I think it is quite good".to_string()
    } else if let Some(s) = directive(&answer, "score=") {
        s
    } else if answer.to_lowercase().contains(&expected.to_lowercase()) {
        "1.0".into()
    } else {
        "0.0".into()
    };
    let reply = serde_json::json!({
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "model": json.get("model").cloned().unwrap_or_default(),
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
    });
    respond(200, reply.to_string(), None)
}
