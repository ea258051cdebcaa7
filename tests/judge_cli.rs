//! The LLM judge against a real chat-completions server on 127.0.0.1:
//! retries, Retry-After, failure accounting, the verdict cache, resume after
//! a kill, the cost estimate, and the key never written.

use crate::util::judge_server::JudgeServer;
use crate::util::{files_under, read_jsonl, Dir, Run};
use serde_json::{json, Value};
use std::time::Duration;

const KEY: &str = "sk-test-7c1f0a9e-secret";

fn items(answers: &[&str]) -> Value {
    Value::Array(
        answers
            .iter()
            .enumerate()
            .map(|(i, a)| json!({"id": format!("i{i}"), "question": "What is the capital of France?", "answer": a, "ground_truth": "Paris", "label": 1}))
            .collect(),
    )
}

/// Runs judge-answers with the server's URL and key; returns the run and
/// its summary (from --json) when it wrote a folder. The scores of the run
/// are then in `latest_scores`.
fn judge(d: &Dir, server: &JudgeServer, items: &Value, extra: &[&str]) -> (Run, Option<Value>) {
    let before = d.run_folders("runs");
    let path = d.write("items.json", &items.to_string());
    let mut args: Vec<String> = vec![
        "judge-answers".into(),
        path.display().to_string(),
        "--judge-url".into(),
        server.url.clone(),
        "--judge-backoff-ms".into(),
        "20".into(),
        "--cache".into(),
        d.path().join("judge.sqlite").display().to_string(),
        "--json".into(),
        "--out".into(),
        "runs".into(),
    ];
    if !extra.contains(&"--judge-model") {
        args.extend(["--judge-model".into(), "test-judge".into()]);
    }
    args.extend(extra.iter().map(|s| s.to_string()));
    let r = d.run_env(&args, &[("CORPUS_EVAL_JUDGE_KEY", KEY)]);
    let summary = r
        .stdout()
        .lines()
        .last()
        .and_then(|l| serde_json::from_str(l).ok());
    if let Some(new) = d
        .run_folders("runs")
        .into_iter()
        .find(|f| !before.contains(f))
    {
        std::fs::write(d.path().join("latest"), new.display().to_string()).unwrap();
    }
    (r, summary)
}

/// The scores of the run folder the last `judge` call wrote.
fn latest_scores(d: &Dir) -> Vec<Value> {
    let f = std::fs::read_to_string(d.path().join("latest")).expect("a run folder");
    read_jsonl(&std::path::Path::new(&f).join("scores.jsonl"))
}

#[test]
fn llm_judge_scores_and_sends_the_designs_request() {
    let d = Dir::new("judge-basic");
    let server = JudgeServer::start(Some(KEY));
    let (r, s) = judge(
        &d,
        &server,
        &items(&["It is Paris.", "Lyon", "Paris [score=0.8]"]),
        &["--method", "llm_judge"],
    );
    let r = r.expect_code(0);
    let s = s.unwrap();
    assert_eq!(s["method"], "llm_judge");
    assert_eq!(s["judge"]["calls"], 3);
    assert_eq!(s["judge"]["failed"], 0);
    let scores = latest_scores(&d);
    let got: Vec<f64> = scores
        .iter()
        .map(|s| s["score"].as_f64().unwrap())
        .collect();
    assert_eq!(got, [1.0, 0.0, 0.8]);
    assert_eq!(scores[2]["judge_reply"], "0.8");
    assert_eq!(scores[2]["judge_status"], "ok");
    assert_eq!(scores[0]["source"], "judge");
    let body = &server.log()[0].body;
    assert_eq!(body["model"], "test-judge");
    assert_eq!(body["temperature"], 0.0);
    assert_eq!(body["max_tokens"], 10);
    let prompt = body["messages"][0]["content"].as_str().unwrap();
    assert!(prompt.starts_with("Evaluate if the generated answer is factually correct"));
    assert!(prompt.contains("Question: What is the capital of France?\nExpected Answer: Paris\n"));
    assert!(prompt.ends_with("Respond with only a number between 0 and 1."));
    // The mean of 1.0, 0.0 and 0.8; against labels (all 1) 0.8 counts as correct.
    assert!((s["mean_score"].as_f64().unwrap() - 0.6).abs() < 1e-12);
    assert!((s["recall"].as_f64().unwrap() - 2.0 / 3.0).abs() < 1e-12);
    assert!(r.stderr().contains("judge cost estimate"));
}

#[test]
fn retries_honour_retry_after_and_recover() {
    let d = Dir::new("judge-retry");
    let server = JudgeServer::start(Some(KEY));
    let (r, s) = judge(
        &d,
        &server,
        &items(&[
            "Paris [429x1]",
            "Paris [500x2]",
            "Paris [garbagex1] [score=0.6]",
        ]),
        &["--method", "llm_judge", "--judge-concurrency", "1"],
    );
    r.expect_code(0);
    let s = s.unwrap();
    assert_eq!(s["judge"]["failed"], 0);
    assert_eq!(s["judge"]["calls"], 2 + 3 + 2);
    let scores = latest_scores(&d);
    assert_eq!(scores[2]["score"], 0.6);
    let log = server.log();
    let first: Vec<_> = log
        .iter()
        .filter(|l| l.answer.contains("[429x1]"))
        .collect();
    assert_eq!(first.len(), 2);
    let waited = first[1].at - first[0].at;
    assert!(
        waited >= Duration::from_millis(JudgeServer::retry_after() * 1000 - 50),
        "Retry-After not honoured: {waited:?}"
    );
}

#[test]
fn failures_are_recorded_counted_and_never_scored_zero() {
    let d = Dir::new("judge-fail");
    let server = JudgeServer::start(Some(KEY));
    let answers = [
        "Paris",
        "Paris [garbage]",
        "Paris [500x9]",
        "Paris [badjson]",
        "Paris [sleep=1500]",
    ];
    let (r, s) = judge(
        &d,
        &server,
        &items(&answers),
        &["--method", "llm_judge", "--judge-timeout", "0.4"],
    );
    let r = r.expect_code(1).expect_stderr(&["4 judge verdicts failed"]);
    let s = s.unwrap();
    assert_eq!(s["judge"]["failed"], 4);
    assert_eq!(s["n_scored"], 1);
    assert_eq!(s["mean_score"], 1.0);
    let scores = latest_scores(&d);
    for (i, why) in [
        (1, "no score in [0, 1]"),
        (2, "HTTP 500"),
        (3, "not a chat-completions reply"),
        (4, "timeout"),
    ] {
        assert_eq!(scores[i]["score"], Value::Null, "{}", scores[i]);
        assert_eq!(scores[i]["judge_status"], "failed");
        let err = scores[i]["judge_error"].as_str().unwrap();
        assert!(err.contains(why) && err.contains("3 attempts"), "{err}");
    }
    assert_eq!(scores[1]["judge_reply"], "I think it is quite good");
    // Three attempts each, no more.
    for a in &answers[1..4] {
        assert_eq!(
            server.log().iter().filter(|l| l.answer == *a).count(),
            3,
            "{a}"
        );
    }
    // The key is never written or printed.
    // Every file, the verdict cache's SQLite files included, byte by byte.
    let files = files_under(d.path());
    assert!(files
        .iter()
        .any(|f| f.extension().is_some_and(|e| e == "sqlite")));
    for f in files {
        let bytes = std::fs::read(&f).unwrap();
        let found = bytes.windows(KEY.len()).any(|w| w == KEY.as_bytes());
        assert!(!found, "{} holds the key", f.display());
    }
    assert!(!r.stdout().contains(KEY) && !r.stderr().contains(KEY));
    assert!(server
        .log()
        .iter()
        .all(|l| l.auth.as_deref() == Some(&format!("Bearer {KEY}")[..])));
}

#[test]
fn a_wrong_key_fails_without_retries() {
    let d = Dir::new("judge-401");
    let server = JudgeServer::start(Some("another-key"));
    let (r, s) = judge(&d, &server, &items(&["Paris"]), &["--method", "llm_judge"]);
    r.expect_code(1);
    assert_eq!(s.unwrap()["judge"]["calls"], 1);
    let scores = latest_scores(&d);
    assert!(scores[0]["judge_error"].as_str().unwrap().contains("401"));
}

#[test]
fn the_cache_makes_reruns_free_and_skips_failures() {
    let d = Dir::new("judge-cache");
    let server = JudgeServer::start(Some(KEY));
    let answers = ["Paris", "Lyon", "Paris [score=0.4]"];
    let (r, s) = judge(&d, &server, &items(&answers), &["--method", "llm_judge"]);
    r.expect_code(0);
    assert_eq!(s.unwrap()["judge"]["calls"], 3);
    let (r, s) = judge(&d, &server, &items(&answers), &["--method", "llm_judge"]);
    r.expect_code(0);
    let s = s.unwrap();
    assert_eq!(
        s["judge"],
        json!({"calls": 0, "cached": 3, "failed": 0, "judged": 0})
    );
    assert_eq!(server.requests(), 3);
    let scores = latest_scores(&d);
    assert_eq!(scores[2]["score"], 0.4);
    assert_eq!(scores[2]["judge_status"], "cached");
    // Another judge model is another key.
    let (_, s) = judge(
        &d,
        &server,
        &items(&answers[..1]),
        &["--method", "llm_judge", "--judge-model", "other"],
    );
    assert_eq!(s.unwrap()["judge"]["calls"], 1);
    // --no-cache calls again.
    let (_, s) = judge(
        &d,
        &server,
        &items(&answers[..1]),
        &["--method", "llm_judge", "--no-cache"],
    );
    assert_eq!(s.unwrap()["judge"]["cached"], 0);
}

#[test]
fn an_interrupted_run_resumes_without_repeating_calls() {
    let d = Dir::new("judge-resume");
    let server = JudgeServer::start(Some(KEY));
    let answers: Vec<String> = (0..12).map(|i| format!("Paris number {i}")).collect();
    let refs: Vec<&str> = answers.iter().map(String::as_str).collect();
    let path = d.write("items.json", &items(&refs).to_string());
    let cache = d.path().join("judge.sqlite").display().to_string();
    let args = [
        "judge-answers",
        &path.display().to_string(),
        "--method",
        "llm_judge",
        "--judge-url",
        &server.url,
        "--judge-concurrency",
        "1",
        "--cache",
        &cache,
        "--out",
        "runs",
    ];
    // Four verdicts are answered, the fifth request is held in flight: the
    // kill (SIGKILL) lands there whatever the machine's load.
    server.hold_after(4);
    let mut child = d
        .command(&args, &[("CORPUS_EVAL_JUDGE_KEY", KEY)])
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while server.requests() < 5 && started.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    server.release();
    let before = server.requests();
    assert_eq!(before, 5, "four answered, one held when the kill came");
    assert!(
        d.run_folders("runs").is_empty(),
        "a killed run leaves no run folder"
    );
    let r = d
        .run_env(
            &[&args[..], &["--json"]].concat(),
            &[("CORPUS_EVAL_JUDGE_KEY", KEY)],
        )
        .expect_code(0);
    let s: Value = serde_json::from_str(r.stdout().lines().last().unwrap()).unwrap();
    let cached = s["judge"]["cached"].as_u64().unwrap() as usize;
    let calls = s["judge"]["calls"].as_u64().unwrap() as usize;
    // Verdicts whose reply arrived before the kill are not asked again.
    assert!(
        cached >= before - 1,
        "cached {cached}, requests before the kill {before}"
    );
    assert_eq!(cached + calls, 12);
    let answered: std::collections::HashSet<String> =
        server.log().iter().map(|l| l.answer.clone()).collect();
    assert_eq!(answered.len(), 12);
    assert!(
        server.requests() <= 13,
        "at most the one in flight is repeated: {}",
        server.requests()
    );
}

#[test]
fn hybrid_asks_the_judge_near_the_threshold_and_for_top_systems() {
    crate::util::model_dir();
    let d = Dir::new("judge-hybrid");
    let server = JudgeServer::start(Some(KEY));
    let items = json!([
        {"id": "near", "system": "a", "answer": "The capital of France is London", "ground_truth": "The capital of France is Paris"},
        {"id": "far", "system": "a", "answer": "I don't know", "ground_truth": "The capital of France is Paris"},
        {"id": "high", "system": "b", "answer": "The capital of France is Paris", "ground_truth": "Paris is France's capital city"},
    ]);
    let (r, s) = judge(
        &d,
        &server,
        &items,
        &["--method", "hybrid", "--anchors", "off"],
    );
    r.expect_code(0);
    let s = s.unwrap();
    // Only "near" (0.837, within 0.1 of 0.75) is judged; the judge says 0.0.
    assert_eq!(s["judge"]["calls"], 1);
    let scores = latest_scores(&d);
    assert_eq!(scores[0]["source"], "judge");
    assert_eq!(scores[0]["score"], 0.0);
    assert_eq!(scores[1]["source"], "semantic");
    assert_eq!(scores[2]["score"], 1.0);
    let folder = std::fs::read_to_string(d.path().join("latest")).unwrap();
    assert!(std::path::Path::new(&folder)
        .join("score_distribution_semantic_fixed.png")
        .is_file());
    // --judge-top 1: every item of the best system ("b") too.
    let (_, s) = judge(
        &d,
        &server,
        &items,
        &["--method", "hybrid", "--anchors", "off", "--judge-top", "1"],
    );
    let s = s.unwrap();
    assert_eq!(s["judge"]["cached"], 1);
    assert_eq!(s["judge"]["calls"], 1);
    assert_eq!(
        server.log().last().unwrap().answer,
        "The capital of France is Paris"
    );
}

#[test]
fn cost_estimate_and_limit() {
    let d = Dir::new("judge-cost");
    let server = JudgeServer::start(Some(KEY));
    let many: Vec<String> = (0..500).map(|i| format!("answer {i}")).collect();
    let refs: Vec<&str> = many.iter().map(String::as_str).collect();
    let (r, _) = judge(
        &d,
        &server,
        &items(&refs),
        &["--method", "llm_judge", "--estimate-cost"],
    );
    let r = r.expect_code(0);
    // The design's example: 500 evaluations x 200 tokens = 100K tokens = $0.20.
    let v: Value = serde_json::from_str(r.stdout().trim()).expect("one JSON object");
    assert_eq!(v["method"], "llm_judge");
    assert_eq!(v["estimate"]["evaluations"], 500);
    assert!(
        (v["estimate"]["usd"].as_f64().unwrap() - 0.2).abs() < 1e-12,
        "{v}"
    );
    // As text without --json.
    let r = d
        .run_env(
            &[
                "judge-answers",
                d.path().join("items.json").to_str().unwrap(),
                "--method",
                "llm_judge",
                "--judge-url",
                &server.url,
                "--no-cache",
                "--estimate-cost",
            ],
            &[("CORPUS_EVAL_JUDGE_KEY", KEY)],
        )
        .expect_code(0);
    assert!(r.stdout().contains("$0.2000"), "{}", r.stdout());
    let (r, _) = judge(
        &d,
        &server,
        &items(&refs),
        &["--method", "llm_judge", "--max-cost", "0.1"],
    );
    r.expect_code(2).expect_stderr(&["--max-cost", "$0.2000"]);
    let (r, _) = judge(
        &d,
        &server,
        &items(&refs),
        &[
            "--method",
            "llm_judge",
            "--estimate-cost",
            "--price-per-1k",
            "0.01",
            "--tokens-per-eval",
            "100",
        ],
    );
    let v: Value = serde_json::from_str(r.expect_code(0).stdout().trim()).unwrap();
    // 500 x 100 tokens / 1000 x $0.01.
    assert!(
        (v["estimate"]["usd"].as_f64().unwrap() - 0.5).abs() < 1e-12,
        "{v}"
    );
    assert_eq!(server.requests(), 0, "nothing was called");
    assert!(d.run_folders("runs").is_empty());
}
