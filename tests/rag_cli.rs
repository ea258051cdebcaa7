//! `corpus-eval rag`: against a real RAG server on 127.0.0.1
//! (`util::rag_server`): verdicts and scores end to end, retries and their
//! limits, resume after SIGKILL and Ctrl-C, the secret never written, and
//! overlapping requests.

use crate::util::rag_server::RagServer;
use crate::util::{files_under, read_json, read_jsonl, repo, Dir};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const SECRET: &str = "mongodb+srv://evaluator:S3cr3t-Pa55@cluster0.example.net";

fn questions(dir: &Dir, name: &str, texts: &[String]) -> PathBuf {
    let lines: Vec<String> = texts
        .iter()
        .enumerate()
        .map(|(i, q)| serde_json::json!({"id": format!("q{i:03}"), "question": q}).to_string())
        .collect();
    dir.write(name, &(lines.join("\n") + "\n"))
}

fn only_folder(dir: &Dir) -> PathBuf {
    let f = dir.run_folders("out");
    assert_eq!(f.len(), 1, "{f:?}");
    f[0].clone()
}

/// Every line of responses.jsonl, checking none is torn.
fn journal(folder: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(folder.join("responses.jsonl")).unwrap();
    assert!(text.is_empty() || text.ends_with('\n'), "torn last line");
    read_jsonl(&folder.join("responses.jsonl"))
}

fn assert_secret_absent(dir: &Dir, outputs: &[&str]) {
    for f in files_under(dir.path()) {
        let bytes = std::fs::read(&f).unwrap();
        let hay = String::from_utf8_lossy(&bytes);
        assert!(
            !hay.contains(SECRET) && !hay.contains("S3cr3t-Pa55"),
            "secret in {}",
            f.display()
        );
    }
    for o in outputs {
        assert!(!o.contains("S3cr3t-Pa55"), "secret in output");
    }
}

#[test]
fn ask_prints_every_verdict_and_the_existence_score() {
    let server = RagServer::start(Some(SECRET), 4);
    let dir = Dir::new("rag-ask");
    let env = [("EVALUATION_API_AUTH", SECRET)];
    let run = dir
        .run_env(
            &[
                "rag",
                "ask",
                "What did the housing association say about the garden?",
                "--api-url",
                &server.url,
                "--k",
                "3",
                "--filter",
                "COUNTRY=Denmark",
                "--filter",
                "YEAR=2024",
            ],
            &env,
        )
        .expect_code(0);
    let out = run.stdout();
    assert!(out.starts_with("answer: "), "{out}");
    for v in [
        "exact",
        "normalized",
        "fuzzy",
        "not_found",
        "invalid_source",
    ] {
        assert!(out.contains(&format!(" {v} ")), "{v} missing in {out}");
    }
    // 5 citations; exact and normalized count at the default match level.
    assert!(
        out.contains("existence score: 0.4000 (2 of 5 citations found, match normalized)"),
        "{out}"
    );
    let body = &server.bodies()[0];
    assert_eq!(body["auth"], SECRET);
    assert_eq!(body["k"], 3);
    assert_eq!(body["filter"]["YEAR"], 2024);
    assert_eq!(body["filter"]["COUNTRY"], "Denmark");
    assert_eq!(body["model"], "openai:gpt-4o-mini");
    let json = dir
        .run_env(
            &[
                "rag",
                "ask",
                "What did the housing association say about the garden?",
                "--api-url",
                &server.url,
                "--json",
                "--match",
                "fuzzy",
            ],
            &env,
        )
        .expect_code(0);
    let v: Value = serde_json::from_str(json.stdout().trim()).unwrap();
    let verdicts: Vec<&str> = v["citations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["verdict"].as_str().unwrap())
        .collect();
    assert_eq!(
        verdicts,
        [
            "exact",
            "normalized",
            "fuzzy",
            "not_found",
            "invalid_source"
        ]
    );
    assert_eq!(v["existence_score"], 0.6);
    assert!(v["request"].get("auth").is_none());
    // The exact quote's span is where the quote stands in page_content.
    let c0 = &v["citations"][0];
    let page: Vec<char> = v["response"]["context"][0]["page_content"]
        .as_str()
        .unwrap()
        .chars()
        .collect();
    let span: Vec<usize> = ["start", "end"]
        .iter()
        .map(|k| c0["span"][k].as_u64().unwrap() as usize)
        .collect();
    assert_eq!(
        page[span[0]..span[1]].iter().collect::<String>(),
        c0["quote"].as_str().unwrap()
    );
    assert_secret_absent(
        &dir,
        &[&run.stdout(), &run.stderr(), &json.stdout(), &json.stderr()],
    );
    // Without a URL: exit 2; a bad filter key: exit 2.
    dir.run(&["rag", "ask", "q"])
        .expect_code(2)
        .expect_stderr(&["no API URL"]);
    dir.run(&[
        "rag",
        "ask",
        "q",
        "--api-url",
        &server.url,
        "--filter",
        "COLOUR=red",
    ])
    .expect_code(2)
    .expect_stderr(&["unknown key"]);
}

#[test]
fn run_checks_citations_and_scores_answers_end_to_end() {
    let server = RagServer::start(Some(SECRET), 8);
    let dir = Dir::new("rag-run");
    let q = repo().join("evaluation/data_fixture.json");
    let run = dir
        .run_env(
            &[
                "rag",
                "run",
                q.to_str().unwrap(),
                "--out",
                "out",
                "--api-url",
                &server.url,
                "--concurrency",
                "4",
                "--no-progress",
            ],
            &[("EVALUATION_API_AUTH", SECRET)],
        )
        .expect_code(0);
    let folder = only_folder(&dir);
    let lines = journal(&folder);
    assert_eq!(lines.len(), 38);
    let mut scored = 0;
    for l in &lines {
        for key in [
            "id",
            "question",
            "request",
            "response",
            "error",
            "attempts",
            "elapsed_ms",
            "citations",
            "existence_score",
            "score",
        ] {
            assert!(l.get(key).is_some(), "{key} missing in {l}");
        }
        assert!(l["error"].is_null());
        assert!(l["request"].get("auth").is_none());
        let cites = l["citations"].as_array().unwrap();
        let found = cites.iter().filter(|c| c["found"] == true).count();
        if cites.is_empty() {
            assert!(l["existence_score"].is_null());
        } else {
            assert_eq!(
                l["existence_score"].as_f64().unwrap(),
                found as f64 / cites.len() as f64
            );
        }
        for c in cites {
            let v = c["verdict"].as_str().unwrap();
            // Interview-aware: every citation says who said it.
            assert!(c.get("attribution").is_some() && c.get("span_speaker").is_some());
            assert_eq!(c["attribution"].is_null(), v == "invalid_source", "{c}");
            assert_eq!(c["found"] == true, v == "exact" || v == "normalized", "{c}");
            if v == "invalid_source" {
                assert!(c["span"].is_null());
            }
        }
        if let Some(s) = l["score"].as_f64() {
            assert!((0.0..=1.0).contains(&s));
            scored += 1;
        }
    }
    assert!(scored >= 30, "only {scored} answers scored");
    let summary = read_json(&folder.join("summary.json"));
    assert_eq!(summary["questions"], 38);
    assert_eq!(summary["answered"], 38);
    assert_eq!(summary["failed"], 0);
    assert!(summary["by_type"]["Yes/No"]["score"]["n"].as_u64().unwrap() > 0);
    assert!(summary["signature"]
        .as_str()
        .unwrap()
        .starts_with("rag:v1|"));
    let manifest = read_json(&folder.join("manifest.json"));
    assert_eq!(manifest["command"], "rag run");
    assert_eq!(manifest["settings"]["concurrency"], 4);
    assert!(folder.join("rag_scores.png").is_file());
    assert!(run.stdout().contains("38 questions: 38 answered, 0 failed"));
    // The manifest: complete, the config, clock facts only here.
    assert_eq!(manifest["status"], "complete");
    assert_eq!(manifest["config"]["concurrency"], 4);
    assert_eq!(manifest["settings"]["session"]["asked"], 38);
    assert!(summary.get("session").is_none(), "no clock time in summary");
    assert!(manifest["files"]["responses.jsonl"]["sha256"].is_string());
    // rerun: from the journal, no request sent.
    let requests = server.requests();
    let again = dir
        .run(&["rerun", folder.to_str().unwrap(), "--out", "again"])
        .expect_code(0);
    for f in [
        "run.json",
        "responses.jsonl",
        "summary.json",
        "rag_scores.png",
    ] {
        assert!(
            again.stdout().contains(&format!("identical {f}")),
            "{f}: {}",
            again.stdout()
        );
    }
    assert!(
        again.stderr().contains("from its journal"),
        "{}",
        again.stderr()
    );
    assert_eq!(server.requests(), requests, "rerun sent a request");
    assert!(
        again.stdout().contains("identical items.csv"),
        "{}",
        again.stdout()
    );
    // items.csv: one row per question, as the journal says.
    let mut reader = csv::Reader::from_path(folder.join("items.csv")).unwrap();
    assert_eq!(
        reader.headers().unwrap().iter().collect::<Vec<_>>(),
        corpus_eval::jobs::rag::ITEM_COLUMNS
    );
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 38);
    let scores: Vec<f64> = rows.iter().filter_map(|r| r[3].parse().ok()).collect();
    assert_eq!(scores.len(), scored);
    let nameless: Vec<&csv::StringRecord> = rows
        .iter()
        .filter(|r| &r[2] != "false" || r[7].is_empty())
        .collect();
    assert!(
        nameless.is_empty(),
        "every answer names its transcript: {nameless:?}"
    );
    // compare: the run against its rerun, by transcript: no difference.
    let rerun_folder = dir.run_folders("again")[0].clone();
    let cmp = dir
        .run(&[
            "compare".to_string(),
            format!("first={}", folder.display()),
            format!("again={}", rerun_folder.display()),
            "--cluster".into(),
            "source".into(),
            "--json".into(),
            "--out".into(),
            "cmp".into(),
        ])
        .expect_code(0);
    let cmp: Value = serde_json::from_str(&cmp.stdout()).unwrap();
    assert_eq!(cmp["command"], "rag run");
    assert_eq!(cmp["metrics"], serde_json::json!(["score", "existence"]));
    for d in cmp["differences"].as_array().unwrap() {
        assert_eq!(d["paired"]["diff"], 0.0, "{d}");
        assert_eq!(d["p_holm"], 1.0, "{d}");
    }
    assert_secret_absent(&dir, &[&run.stdout(), &run.stderr()]);
}

#[test]
fn echoed_secrets_are_redacted() {
    let server = RagServer::start(Some(SECRET), 4);
    let dir = Dir::new("rag-echo");
    let texts = vec![
        "[echox1] Who ran the garden?".to_string(),
        "[echo-answer] Who sold the surplus?".to_string(),
    ];
    let q = questions(&dir, "q.jsonl", &texts);
    let run = dir
        .run_env(
            &[
                "rag",
                "run",
                q.to_str().unwrap(),
                "--out",
                "out",
                "--api-url",
                &server.url,
                "--backoff-ms",
                "10",
                "--max-retries",
                "0",
                "--no-progress",
            ],
            &[("EVALUATION_API_AUTH", SECRET)],
        )
        .expect_code(1);
    let folder = only_folder(&dir);
    let lines = journal(&folder);
    let echo = lines.iter().find(|l| l["id"] == "q000").unwrap();
    let why = echo["error"].as_str().unwrap();
    assert!(
        why.contains("bad gateway for") && why.contains("<redacted>"),
        "{echo}"
    );
    let answer = lines.iter().find(|l| l["id"] == "q001").unwrap();
    assert_eq!(
        answer["response"]["answer"]["answer"],
        "Your auth is <redacted>"
    );
    assert_secret_absent(&dir, &[&run.stdout(), &run.stderr()]);
}

#[test]
fn retries_their_limits_and_resume_of_failures() {
    let server = RagServer::start(None, 8);
    let dir = Dir::new("rag-retry");
    let texts: Vec<String> = [
        "[429x1] What did the garden need?",
        "[500x2] Who sold the surplus?",
        "[badjsonx1] What happened at the market?",
        "[missingx1] Who joined the board?",
        "[dropx1] What did the families grow?",
        "[500x9] Why did the council hesitate?",
        "What did the volunteers say?",
        "[slowx1] What did the mayor promise?",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let q = questions(&dir, "q.jsonl", &texts);
    let args = |extra: &[&str]| {
        let mut a = vec![
            "rag",
            "run",
            "--out",
            "out",
            "--api-url",
            &server.url,
            "--backoff-ms",
            "10",
            "--no-progress",
        ];
        a.extend_from_slice(extra);
        a.iter().map(|s| s.to_string()).collect::<Vec<String>>()
    };
    let t0 = Instant::now();
    let mut first = args(&["--max-retries", "2", "--timeout", "1"]);
    first.insert(2, q.to_str().unwrap().to_string());
    let run = dir.run(&first).expect_code(1);
    assert!(
        run.stderr().contains("1 question(s) have no valid reply"),
        "{}",
        run.stderr()
    );
    // Retry-After: 1 was honoured.
    assert!(t0.elapsed() >= Duration::from_secs(1));
    let folder = only_folder(&dir);
    let by_id: BTreeMap<String, Value> = journal(&folder)
        .into_iter()
        .map(|l| (l["id"].as_str().unwrap().to_string(), l))
        .collect();
    let attempts = |id: &str| by_id[id]["attempts"].as_u64().unwrap();
    assert_eq!(
        (
            attempts("q000"),
            attempts("q001"),
            attempts("q002"),
            attempts("q003"),
            attempts("q004")
        ),
        (2, 3, 2, 2, 2)
    );
    assert_eq!(attempts("q006"), 1);
    // The first attempt outlived --timeout 1 and was retried.
    assert_eq!(attempts("q007"), 2);
    for id in ["q000", "q001", "q002", "q003", "q004", "q006"] {
        assert!(by_id[id]["error"].is_null(), "{id}: {}", by_id[id]);
    }
    let failed = &by_id["q005"];
    assert_eq!(failed["attempts"], 3);
    let why = failed["error"].as_str().unwrap();
    assert!(
        why.contains("no valid reply after 3 attempts")
            && why.contains("HTTP 500")
            && why.contains("upstream exploded"),
        "{why}"
    );
    assert!(failed["response"].is_null());
    assert_eq!(server.requests_for(&texts[5]), 3);
    let summary = read_json(&folder.join("summary.json"));
    assert_eq!(
        (summary["failed"].as_u64(), summary["answered"].as_u64()),
        (Some(1), Some(7))
    );
    // Resume asks only the failed id; with enough retries it succeeds.
    let before: Vec<usize> = texts.iter().map(|t| server.requests_for(t)).collect();
    let f = folder.to_str().unwrap().to_string();
    dir.run(&args(&["--resume", &f, "--max-retries", "10"]))
        .expect_code(0);
    for (i, t) in texts.iter().enumerate() {
        let now = server.requests_for(t);
        if i == 5 {
            assert_eq!(now, 10);
        } else {
            assert_eq!(now, before[i], "{t} asked again");
        }
    }
    let lines = journal(&folder);
    assert_eq!(lines.len(), 9);
    assert_eq!(lines.last().unwrap()["id"], "q005");
    assert!(lines.last().unwrap()["error"].is_null());
    assert_eq!(read_json(&folder.join("summary.json"))["answered"], 8);
    // The manifest records this session's transport settings.
    let session = &read_json(&folder.join("manifest.json"))["settings"]["session"];
    assert_eq!(session["resumed"], true);
    assert_eq!(session["max_retries"], 10);
}

/// Waits until the journal has at least `n` lines.
fn wait_for_lines(path: &Path, n: usize) {
    let t0 = Instant::now();
    loop {
        let lines = std::fs::read_to_string(path)
            .map(|t| t.matches('\n').count())
            .unwrap_or(0);
        if lines >= n {
            return;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "journal stuck at {lines} lines"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn journal_path(dir: &Dir) -> PathBuf {
    let t0 = Instant::now();
    loop {
        // The visible folder (a run is staged under a hidden name until
        // run.json is durable).
        let visible = dir
            .run_folders("out")
            .into_iter()
            .find(|f| !f.file_name().unwrap().to_string_lossy().starts_with('.'));
        if let Some(f) = visible {
            return f.join("responses.jsonl");
        }
        assert!(t0.elapsed() < Duration::from_secs(30), "no run folder");
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn check_each_once(folder: &Path, n: usize) {
    let lines = journal(folder);
    let mut ids: Vec<&str> = lines.iter().map(|l| l["id"].as_str().unwrap()).collect();
    assert!(lines.iter().all(|l| l["error"].is_null()));
    ids.sort_unstable();
    let before = ids.len();
    ids.dedup();
    assert_eq!(before, ids.len(), "an id answered twice");
    assert_eq!(ids.len(), n, "questions lost");
}

#[test]
fn sigkill_mid_batch_then_resume_loses_and_duplicates_nothing() {
    let server = RagServer::start(Some(SECRET), 8);
    server.set_delay_ms(15);
    let dir = Dir::new("rag-kill");
    let texts: Vec<String> = (0..80)
        .map(|i| format!("Question {i} about the garden and the market?"))
        .collect();
    let q = questions(&dir, "q.jsonl", &texts);
    let env = [("EVALUATION_API_AUTH", SECRET)];
    let mut child = dir
        .command(
            &[
                "rag",
                "run",
                q.to_str().unwrap(),
                "--out",
                "out",
                "--api-url",
                &server.url,
                "--concurrency",
                "4",
                "--no-progress",
            ],
            &env,
        )
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let path = journal_path(&dir);
    wait_for_lines(&path, 12);
    child.kill().unwrap();
    let status = child.wait().unwrap();
    assert!(!status.success());
    let folder = only_folder(&dir);
    let partial = std::fs::read_to_string(&path)
        .unwrap()
        .matches('\n')
        .count();
    assert!(partial < 80, "the kill came too late to test anything");
    let run = dir
        .run_env(
            &[
                "rag",
                "run",
                "--resume",
                folder.to_str().unwrap(),
                "--no-progress",
            ],
            &env,
        )
        .expect_code(0);
    assert!(
        run.stderr().contains(&format!("{partial} answered")),
        "{}",
        run.stderr()
    );
    check_each_once(&folder, 80);
    assert_secret_absent(&dir, &[&run.stdout(), &run.stderr()]);
}

#[test]
fn ctrl_c_stops_cleanly_and_says_how_to_resume() {
    let server = RagServer::start(None, 8);
    server.set_delay_ms(20);
    let dir = Dir::new("rag-sigint");
    let texts: Vec<String> = (0..60)
        .map(|i| format!("Question {i} about the families?"))
        .collect();
    let q = questions(&dir, "q.jsonl", &texts);
    let child = dir
        .command(
            &[
                "rag",
                "run",
                q.to_str().unwrap(),
                "--out",
                "out",
                "--api-url",
                &server.url,
                "--concurrency",
                "2",
                "--no-progress",
            ],
            &[],
        )
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let path = journal_path(&dir);
    wait_for_lines(&path, 5);
    let ok = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(ok.success());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    let folder = only_folder(&dir);
    assert!(
        stderr.contains(&format!(
            "resume with: corpus-eval rag run --resume {}",
            folder.display()
        )),
        "{stderr}"
    );
    dir.run(&[
        "rag",
        "run",
        "--resume",
        folder.to_str().unwrap(),
        "--no-progress",
    ])
    .expect_code(0);
    check_each_once(&folder, 60);
}

#[test]
fn issue_12_concurrency_overlap_counted_by_server() {
    // Overlap is asserted from the server's own counters, never from the
    // wall clock: replies are held until 8 requests are in flight at once.
    let server = RagServer::start(None, 16);
    server.set_gate(8);
    let dir = Dir::new("rag-concurrency");
    let texts: Vec<String> = (0..16).map(|i| format!("Question {i}?")).collect();
    let q = questions(&dir, "q.jsonl", &texts);
    let run = dir
        .run(&[
            "rag",
            "run",
            q.to_str().unwrap(),
            "--out",
            "out",
            "--api-url",
            &server.url,
            "--concurrency",
            "8",
            "--no-progress",
            "--json",
        ])
        .expect_code(0);
    // 8 at once (the flag's number), never more, and no retry hid it.
    assert_eq!(server.max_in_flight(), 8);
    assert_eq!(server.requests(), 16);
    let folder = only_folder(&dir);
    check_each_once(&folder, 16);
    // --json: summary.json and the run folder, one object on stdout.
    let mut v: Value = serde_json::from_str(run.stdout().trim()).expect("one JSON object");
    let named = v
        .as_object_mut()
        .and_then(|o| o.remove("run_folder"))
        .expect("run_folder");
    assert_eq!(dir.path().join(named.as_str().unwrap()), folder);
    assert_eq!(v, read_json(&folder.join("summary.json")));
    assert!(
        run.stderr().contains("this session: 16 asked"),
        "{}",
        run.stderr()
    );
}

#[test]
fn bad_question_files_and_resume_folders() {
    let server = RagServer::start(None, 2);
    let dir = Dir::new("rag-bad");
    let q = dir.write(
        "q.jsonl",
        "{\"id\": \"a\", \"question\": \"Who?\"}\n{\"id\": \"b\"}\n",
    );
    dir.run(&[
        "rag",
        "run",
        q.to_str().unwrap(),
        "--out",
        "out",
        "--api-url",
        &server.url,
    ])
    .expect_code(2)
    .expect_stderr(&["q.jsonl: item 1 at line 2: field `question`: missing"]);
    let q = dir.write(
        "f.jsonl",
        "{\"id\": \"a\", \"question\": \"Who?\", \"filter\": {\"COLOUR\": \"red\"}}\n",
    );
    dir.run(&[
        "rag",
        "run",
        q.to_str().unwrap(),
        "--out",
        "out",
        "--api-url",
        &server.url,
    ])
    .expect_code(2)
    .expect_stderr(&["field `filter.COLOUR`"]);
    dir.run(&["rag", "run", "--resume", dir.path().to_str().unwrap()])
        .expect_code(2)
        .expect_stderr(&["not a rag run folder"]);
    assert!(dir.run_folders("out").is_empty());
    assert_eq!(server.requests(), 0);
}

#[test]
fn shards_merge_into_the_unsharded_runs_summary() {
    // The test server answers each question the same way every time, so
    // the shards' replies are the unsharded run's, split.
    let server = RagServer::start(Some(SECRET), 8);
    let dir = Dir::new("rag-shards");
    let q = repo().join("evaluation/data_fixture.json");
    let run = |out: &str, shard: Option<&str>| {
        let mut args = vec![
            "rag".to_string(),
            "run".into(),
            q.display().to_string(),
            "--out".into(),
            out.into(),
            "--api-url".into(),
            server.url.clone(),
            "--no-progress".into(),
        ];
        if let Some(s) = shard {
            args.extend(["--shard".to_string(), s.to_string()]);
        }
        dir.run_env(&args, &[("EVALUATION_API_AUTH", SECRET)])
            .expect_code(0);
    };
    run("whole", None);
    for s in ["2/3", "1/3", "3/3"] {
        run("shards", Some(s));
    }
    let shards = dir.run_folders("shards");
    assert_eq!(shards.len(), 3);
    // Each shard asked only its own questions.
    let asked: usize = shards.iter().map(|f| journal(f).len()).sum();
    assert_eq!(asked, 38);
    let mut args: Vec<String> = vec!["merge".into()];
    args.extend(shards.iter().map(|f| f.display().to_string()));
    args.extend(["--out".into(), "merged".into()]);
    dir.run(&args).expect_code(0);
    let merged = &dir.run_folders("merged")[0];
    let whole = &dir.run_folders("whole")[0];
    for name in ["summary.json", "items.csv"] {
        assert_eq!(
            std::fs::read(merged.join(name)).unwrap(),
            std::fs::read(whole.join(name)).unwrap(),
            "{name}"
        );
    }
    // One line per question, in the file's order.
    let ids: Vec<String> = journal(merged)
        .iter()
        .map(|l| l["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids.len(), 38);
    // A shard missing is refused.
    let mut args: Vec<String> = vec!["merge".into()];
    args.extend(shards[..2].iter().map(|f| f.display().to_string()));
    args.extend(["--out".into(), "merged2".into()]);
    dir.run(&args)
        .expect_code(2)
        .expect_stderr(&["missing shard"]);
    assert_secret_absent(&dir, &[]);
}
