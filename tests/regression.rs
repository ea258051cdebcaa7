//! Regression tests named after the issue that found each defect
//! (`issue_<n>_<short name>`).

use crate::util::judge_server::JudgeServer;
use crate::util::rag_server::RagServer;
use crate::util::{encodings, files_under, fixture, png_size, read_json, repo, Dir, Run};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Stdio;

/// Every file under `dir` (SQLite databases and their journals included),
/// read as bytes, plus the run's stdout and stderr: none may hold any of
/// `needles`.
#[track_caller]
pub(crate) fn assert_nowhere(dir: &Path, runs: &[&Run], needles: &[String]) {
    let mut haystacks: Vec<(String, Vec<u8>)> = files_under(dir)
        .into_iter()
        .map(|f| {
            let bytes = std::fs::read(&f).unwrap_or_default();
            (f.display().to_string(), bytes)
        })
        .collect();
    for (i, r) in runs.iter().enumerate() {
        haystacks.push((format!("stdout of run {i}"), r.out.stdout.clone()));
        haystacks.push((format!("stderr of run {i}"), r.out.stderr.clone()));
    }
    for needle in needles.iter().filter(|n| !n.is_empty()) {
        for (name, bytes) in &haystacks {
            let found = bytes.windows(needle.len()).any(|w| w == needle.as_bytes());
            assert!(!found, "{needle:?} found in {name}");
        }
    }
}

pub(crate) fn main_job_questions(dir: &Dir, texts: &[&str]) -> PathBuf {
    let rows: Vec<String> = texts
        .iter()
        .enumerate()
        .map(|(i, t)| json!({"id": format!("r{i}"), "question": t}).to_string())
        .collect();
    dir.write("q.jsonl", &(rows.join("\n") + "\n"))
}

/// `corpus-eval rag run ARGS --no-progress` in `dir`.
fn rag_run(dir: &Dir, args: &[&str]) -> Run {
    let mut all = vec!["rag", "run"];
    all.extend_from_slice(args);
    all.push("--no-progress");
    dir.run(&all)
}

const PASSWORD: &str = "Pa55-WORD-sentinel";
const QUERY_KEY: &str = "qk-sentinel-0042";

// 1. URLs: user info and query values never stored or printed.

#[test]
fn issue_12_url_credentials_never_stored() {
    let server = RagServer::start(None, 4);
    let dir = Dir::new("i12-url");
    let q = main_job_questions(&dir, &["Is the soil sandy?"]);
    let port = server.url.trim_start_matches("http://127.0.0.1:");
    let url = format!("http://user:{PASSWORD}@127.0.0.1:{port}?key={QUERY_KEY}");
    let first = rag_run(
        &dir,
        &[q.to_str().unwrap(), "--out", "out", "--api-url", &url],
    );
    assert_eq!(first.code(), 0, "{}", first.stderr());
    let folder = dir.run_folders("out").remove(0);
    let manifest = read_json(&folder.join("manifest.json"));
    let line = manifest["command_line"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        line.contains("http://<redacted>@127.0.0.1") && line.contains("?key=<redacted>"),
        "{line}"
    );
    // A resume session, and a failed run (nothing listens there).
    let resumed = rag_run(
        &dir,
        &["--resume", folder.to_str().unwrap(), "--api-url", &url],
    );
    let dead = format!("http://user:{PASSWORD}@127.0.0.1:9/x?api-key={QUERY_KEY}");
    let failed = rag_run(
        &dir,
        &[
            q.to_str().unwrap(),
            "--out",
            "out2",
            "--api-url",
            &dead,
            "--max-retries",
            "0",
        ],
    );
    assert_eq!(failed.code(), 1, "{}", failed.stderr());
    // The judge's URL likewise.
    let judge = JudgeServer::start(None);
    let items = dir.write(
        "items.json",
        &json!([{"id": "a", "question": "Capital?", "answer": "Paris", "ground_truth": "Paris"}])
            .to_string(),
    );
    let judge_url = format!(
        "{}?api-key={QUERY_KEY}",
        judge
            .url
            .replacen("http://", &format!("http://u:{PASSWORD}@"), 1)
    );
    let judged = dir.run(&[
        "judge-answers",
        items.to_str().unwrap(),
        "--method",
        "llm_judge",
        "--judge-url",
        &judge_url,
        "--cache",
        "judge.sqlite",
        "--out",
        "runs",
    ]);
    assert_eq!(judged.code(), 0, "{}", judged.stderr());
    assert_nowhere(
        dir.path(),
        &[&first, &resumed, &failed, &judged],
        &[PASSWORD.to_string(), QUERY_KEY.to_string()],
    );
}

// 2. The judge key, echoed by the judge, never reaches a file.

#[test]
fn issue_12_judge_key_echo_redacted() {
    // Header-safe (visible ASCII), with characters every encoding changes.
    let key = "sk-sentinel/KEY+9f3a'x\"<&>";
    let server = JudgeServer::start(None);
    let dir = Dir::new("i12-judge-key");
    let items = dir.write(
        "items.json",
        &json!([
            {"id": "a", "question": "Capital?", "answer": "Paris [echo-key]", "ground_truth": "Paris"},
            {"id": "b", "question": "Capital?", "answer": "Paris [echo-401]", "ground_truth": "Paris"}
        ])
        .to_string(),
    );
    let r = dir.run_env(
        &[
            "judge-answers",
            items.to_str().unwrap(),
            "--method",
            "llm_judge",
            "--judge-url",
            &server.url,
            "--judge-backoff-ms",
            "1",
            "--cache",
            "judge.sqlite",
            "--out",
            "runs",
            "--json",
        ],
        &[("CORPUS_EVAL_JUDGE_KEY", key)],
    );
    // The echoed key did not stop the score from being read.
    let folder = dir.run_folders("runs").remove(0);
    let scores = crate::util::read_jsonl(&folder.join("scores.jsonl"));
    assert_eq!(scores[0]["score"], json!(1.0), "{scores:?}");
    assert!(scores[1]["score"].is_null(), "{scores:?}");
    assert!(
        files_under(dir.path())
            .iter()
            .any(|f| f.extension().is_some_and(|e| e == "sqlite")),
        "the cache was written"
    );
    assert_nowhere(dir.path(), &[&r], &encodings(key));
}

// 3 and 4. The RAG auth in any encoding; a short auth does not break replies.

#[test]
fn issue_12_rag_auth_echo_redacted_in_every_encoding() {
    let auth = "auth-sentinel:V3ry/S3cret+'&\"<é>";
    let server = RagServer::start(Some(auth), 4);
    let dir = Dir::new("i12-rag-auth");
    let q = main_job_questions(&dir, &["Tell me [echo-encoded]", "Once more [echox1]"]);
    let env = [("EVALUATION_API_AUTH", auth)];
    let run = dir.run_env(
        &[
            "rag",
            "run",
            q.to_str().unwrap(),
            "--out",
            "out",
            "--api-url",
            &server.url,
            "--backoff-ms",
            "1",
            "--no-progress",
        ],
        &env,
    );
    assert_eq!(run.code(), 0, "{}", run.stderr());
    let ask = dir.run_env(
        &[
            "rag",
            "ask",
            "Tell me [echo-encoded]",
            "--api-url",
            &server.url,
        ],
        &env,
    );
    assert_eq!(ask.code(), 0, "{}", ask.stderr());
    assert!(ask.stdout().contains("<redacted>"), "{}", ask.stdout());
    let ask_json = dir.run_env(
        &[
            "rag",
            "ask",
            "Tell me [echo-encoded]",
            "--api-url",
            &server.url,
            "--json",
        ],
        &env,
    );
    assert_eq!(ask_json.code(), 0, "{}", ask_json.stderr());
    // The citation quotes the passage: found, though both hold the secret.
    let v: Value = serde_json::from_str(ask_json.stdout().trim()).unwrap();
    assert_eq!(v["citations"][0]["verdict"], "exact", "{v}");
    assert_nowhere(dir.path(), &[&run, &ask, &ask_json], &encodings(auth));
}

#[test]
fn issue_12_short_auth_does_not_break_parsing() {
    let server = RagServer::start(Some("x"), 2);
    let dir = Dir::new("i12-short-auth");
    let ask = dir.run_env(
        &["rag", "ask", "Is the soil sandy?", "--api-url", &server.url],
        &[("EVALUATION_API_AUTH", "x")],
    );
    assert_eq!(ask.code(), 0, "{}", ask.stderr());
    assert!(ask.stdout().starts_with("answer: "), "{}", ask.stdout());
    assert_eq!(server.requests(), 1, "the first reply was accepted");
}

// 5 and 8. Counts and durations from flags are bounded.

#[test]
fn issue_12_numeric_flags_are_bounded() {
    let dir = Dir::new("i12-flags");
    let q = main_job_questions(&dir, &["Q?"]);
    let q = q.to_str().unwrap();
    let huge = "18446744073709551615";
    for (args, flag) in [
        (
            vec!["compare", "a=x.json", "b=y.json", "--resamples", huge],
            "--resamples",
        ),
        (
            vec![
                "compare",
                "a=x.json",
                "b=y.json",
                "--resamples",
                "4294967296",
            ],
            "--resamples",
        ),
        (
            vec![
                "rag",
                "run",
                q,
                "--api-url",
                "http://127.0.0.1:9/",
                "--timeout",
                "9223372036854775807",
            ],
            "--timeout",
        ),
        (
            vec![
                "rag",
                "run",
                q,
                "--api-url",
                "http://127.0.0.1:9/",
                "--backoff-ms",
                "4294967296",
            ],
            "--backoff-ms",
        ),
        (
            vec![
                "rag",
                "run",
                q,
                "--api-url",
                "http://127.0.0.1:9/",
                "--max-retries",
                "4294967295",
            ],
            "--max-retries",
        ),
        (
            vec![
                "rag",
                "run",
                q,
                "--api-url",
                "http://127.0.0.1:9/",
                "--concurrency",
                "100000",
            ],
            "--concurrency",
        ),
        (
            vec![
                "rag",
                "ask",
                "Q?",
                "--api-url",
                "http://127.0.0.1:9/",
                "--timeout",
                "1e300",
            ],
            "--timeout",
        ),
        (
            vec![
                "judge-answers",
                "items.json",
                "--method",
                "llm_judge",
                "--judge-url",
                "http://127.0.0.1:9/",
                "--judge-backoff-ms",
                "4294967296",
            ],
            "--judge-backoff-ms",
        ),
        (
            vec![
                "judge-answers",
                "items.json",
                "--method",
                "llm_judge",
                "--judge-url",
                "http://127.0.0.1:9/",
                "--judge-attempts",
                "4294967295",
            ],
            "--judge-attempts",
        ),
        (
            vec![
                "judge-answers",
                "items.json",
                "--method",
                "keyword",
                "--max-cost=-1",
            ],
            "--max-cost",
        ),
    ] {
        dir.write(
            "items.json",
            &json!([{"id": "a", "question": "Q", "answer": "A", "ground_truth": "A"}]).to_string(),
        );
        let r = dir.run(&args).expect_code(2);
        assert!(
            r.stderr().contains(flag) && r.stderr().contains("must lie in"),
            "{args:?}: {}",
            r.stderr()
        );
    }
    // Nothing was created by a usage error.
    assert!(dir.run_folders("reports").is_empty());
}

// 6. A WordNet count that cannot fit its line.

#[test]
fn issue_12_wordnet_counts_are_bounded() {
    for (file, huge) in [
        ("data.noun", "ffffffffffffffff"),
        ("data.noun", "fffffffff"),
        ("index.noun", "18446744073709551615"),
    ] {
        let dir = Dir::new("i12-wordnet");
        let dict = dir.path().join("dict");
        std::fs::create_dir(&dict).unwrap();
        for entry in std::fs::read_dir(fixture("lexicon/dict")).unwrap() {
            let entry = entry.unwrap();
            std::fs::copy(entry.path(), dict.join(entry.file_name())).unwrap();
        }
        let text = std::fs::read_to_string(dict.join(file)).unwrap();
        let mut replaced = false;
        let lines: Vec<String> = text
            .lines()
            .map(|l| {
                if replaced || l.starts_with("  ") {
                    return l.to_string();
                }
                replaced = true;
                let mut f: Vec<&str> = l.split(' ').collect();
                // data: offset lex_filenum ss_type w_cnt; index: lemma pos synset_cnt p_cnt
                f[3] = huge;
                f.join(" ")
            })
            .collect();
        std::fs::write(dict.join(file), lines.join("\n") + "\n").unwrap();
        dir.run(&["build-lexicon", "dict", "out.txt"])
            .expect_code(2)
            .expect_stderr(&[file]);
        assert!(!dir.path().join("out.txt").exists());
        dir.run(&["synonyms", "car", "--wordnet", "dict"])
            .expect_code(2)
            .expect_stderr(&[file]);
    }
}

// 7. Write errors on stdout: a closed pipe is quiet, a full disk is exit 1.

fn sample_args() -> Vec<Vec<String>> {
    let r = |p: &str| repo().join(p).display().to_string();
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<String>>();
    let hotpot = fixture("hotpot/simple");
    vec![
        s(&["synonyms", "car"]),
        s(&["score", "--type", "ListOne", "--metric", "{\"a\": 1}", "a"]),
        vec![
            "evaluate".into(),
            r("evaluation/data_fixture.json"),
            r("datasets/corpus.json"),
            "--no-plots".into(),
            "--out".into(),
            "out".into(),
        ],
        vec![
            "hotpot".into(),
            hotpot.join("predictions.json").display().to_string(),
            hotpot.join("gold.json").display().to_string(),
            "--json".into(),
            "--no-plots".into(),
            "--out".into(),
            "out".into(),
        ],
        vec![
            "text-eval".into(),
            r("evaluation/text-eval/sample.json"),
            "--no-embeddings".into(),
            "--out".into(),
            "out".into(),
        ],
        vec![
            "grounding".into(),
            r("evaluation/grounding/sample.json"),
            "--out".into(),
            "out".into(),
        ],
    ]
}

/// Runs the binary with a stdout pipe whose read end is closed before the
/// process starts (python3 makes the pipe), so every write gets EPIPE;
/// returns the exit code and stderr.
fn closed_stdout(dir: &Dir, args: &[String]) -> (i32, String) {
    let script = "import os, subprocess, sys\n\
r, w = os.pipe()\n\
os.close(r)\n\
p = subprocess.run(sys.argv[1:], stdout=w, stderr=subprocess.PIPE)\n\
sys.stderr.write(p.stderr.decode('utf-8', 'replace'))\n\
sys.exit(p.returncode)\n";
    let out = std::process::Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_corpus-eval"))
        .args(args)
        .current_dir(dir.path())
        .env("XDG_CACHE_HOME", dir.path().join(".cache"))
        .output()
        .expect("python3 runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn issue_12_closed_stdout_keeps_a_failure_exit_code() {
    // A run that fails (exit 1) still fails when nobody reads its output.
    let dir = Dir::new("i12-epipe-code");
    let r = |p: &str| repo().join(p).display().to_string();
    dir.run(&[
        "evaluate",
        &r("evaluation/data_fixture.json"),
        &r("datasets/corpus.json"),
        "--out",
        "runs",
        "--no-plots",
    ])
    .expect_code(0);
    let folder = dir.run_folders("runs").remove(0);
    let summary = folder.join("summary.json");
    let text = std::fs::read_to_string(&summary).unwrap();
    std::fs::write(&summary, text.replacen('{', "{ ", 1)).unwrap();
    let args: Vec<String> = vec![
        "rerun".into(),
        folder.display().to_string(),
        "--out".into(),
        "again".into(),
    ];
    let (code, stderr) = closed_stdout(&dir, &args);
    assert_eq!(code, 1, "{stderr}");
}

/// A stream whose every write fails with "no space left on device".
fn dev_full() -> Stdio {
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full");
    Stdio::from(file)
}

#[test]
fn issue_12_stdout_write_errors_do_not_panic() {
    let dir = Dir::new("i12-stdout");
    for args in sample_args() {
        // A full disk: exit 1 with a message, never a panic.
        let out = dir.command(&args, &[]).stdout(dev_full()).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(
            stderr.contains("writing to standard output") && !stderr.contains("panicked"),
            "{args:?}: {stderr}"
        );
        // A reader that is gone before the first write (`| head -c0`):
        // exit 0, nothing said.
        let (code, stderr) = closed_stdout(&dir, &args);
        assert_eq!(code, 0, "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

#[test]
fn issue_12_stderr_write_errors_do_not_panic() {
    // The same class on standard error: notes and warnings that cannot be
    // written are dropped, the command's outcome stands.
    let dir = Dir::new("i12-stderr");
    for args in sample_args() {
        let out = dir
            .command(&args, &[])
            .stdout(Stdio::null())
            .stderr(dev_full())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}");
    }
    // A warning on a closed stderr (evaluate warns about the unknown type).
    dir.write(
        "q.json",
        &json!({"qa_pairs": [{"id": "p", "question": {"text": "?", "type": "Essay", "metric": {}}, "answers": [{"answer": "a"}]}]}).to_string(),
    );
    dir.write(
        "t.json",
        &json!([{"page_content": "x", "metadata": {"FILE": "a.csv"}}]).to_string(),
    );
    let out = dir
        .command(
            &["evaluate", "q.json", "t.json", "--out", "w", "--no-plots"],
            &[],
        )
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
}

// 9. A rag run folder is visible only once run.json is durable.

#[test]
fn issue_12_rag_usage_errors_create_nothing() {
    let dir = Dir::new("i12-rag-folder");
    let q = main_job_questions(&dir, &["Q?"]);
    dir.run(&[
        "rag",
        "run",
        q.to_str().unwrap(),
        "--out",
        "out",
        "--api-url",
        "http://127.0.0.1:9/",
        "--filter",
        "BAD=1",
    ])
    .expect_code(2)
    .expect_stderr(&["BAD"]);
    assert!(
        !dir.path().join("out").exists()
            || std::fs::read_dir(dir.path().join("out")).unwrap().count() == 0,
        "a usage error left something behind"
    );
    // A run that starts: its visible folder holds run.json from the start.
    let server = RagServer::start(None, 2);
    // The reply takes 2 s: the folder is visible for that long at least.
    server.set_delay_ms(2000);
    let mut child = dir
        .command(
            &[
                "rag",
                "run",
                q.to_str().unwrap(),
                "--out",
                "live",
                "--api-url",
                &server.url,
                "--no-progress",
            ],
            &[],
        )
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Watch the folder appear: whenever a run folder is visible, its
    // run.json is whole.
    let mut seen = 0;
    while child.try_wait().unwrap().is_none() {
        for f in dir.run_folders("live") {
            if f.file_name().unwrap().to_string_lossy().starts_with('.') {
                continue;
            }
            let run_json = std::fs::read_to_string(f.join("run.json")).expect("run.json");
            serde_json::from_str::<Value>(&run_json).expect("whole run.json");
            seen += 1;
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    assert!(seen > 0, "the folder was seen while the run was live");
}

// 10. Non-regular destinations are refused, never replaced.

#[test]
fn issue_12_non_regular_destinations_are_refused() {
    let dir = Dir::new("i12-dest");
    std::os::unix::fs::symlink("/dev/null", dir.path().join("mynull")).unwrap();
    let fifo = dir.path().join("myfifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    std::fs::create_dir(dir.path().join("afolder")).unwrap();
    let dict = fixture("lexicon/dict").display().to_string();
    for (dest, what) in [
        ("mynull", "character device"),
        ("myfifo", "FIFO"),
        ("afolder", "folder"),
    ] {
        dir.run(&["build-lexicon", &dict, dest])
            .expect_code(2)
            .expect_stderr(&[dest, what]);
        dir.run(&["embed", "texts.txt", "-o", dest])
            .expect_code(2)
            .expect_stderr(&[dest, what]);
    }
    // `--out` must be a folder (or not exist yet).
    dir.write("afile", "x");
    let q = repo().join("evaluation/data_fixture.json");
    let t = repo().join("datasets/corpus.json");
    for (out, what) in [("mynull", "character device"), ("afile", "regular file")] {
        dir.run(&[
            "evaluate",
            q.to_str().unwrap(),
            t.to_str().unwrap(),
            "--out",
            out,
            "--no-plots",
        ])
        .expect_code(2)
        .expect_stderr(&[out, what, "not a folder"]);
    }
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::symlink_metadata(dir.path().join("mynull"))
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    assert!(std::fs::metadata("/dev/null")
        .unwrap()
        .file_type()
        .is_char_device());
}

// 11. Staging folders of killed runs are swept after a day.

#[test]
fn issue_12_stale_partial_folders_are_swept() {
    let dir = Dir::new("i12-sweep");
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let me = std::process::id();
    let names = [
        // (name, age, removed?)
        (
            ".20200101T000000Z-abcdef.4294967295.partial",
            "2 days ago",
            true,
        ),
        (".20200101T000000Z-abcde0.partial", "3 days ago", true),
        (
            ".20200101T000000Z-abcde1.4294967295.partial",
            "1 hour ago",
            false,
        ),
        (
            &*format!(".20200101T000000Z-abcde2.{me}.partial"),
            "5 days ago",
            false,
        ),
        (".notes.partial", "5 days ago", false),
    ];
    for (name, age, _) in &names {
        let p = out.join(name);
        std::fs::create_dir(&p).unwrap();
        std::fs::write(p.join("results.json"), "[").unwrap();
        let touched = std::process::Command::new("touch")
            .args(["-d", age])
            .arg(&p)
            .status()
            .unwrap();
        assert!(touched.success());
    }
    let r = dir
        .run(&[
            "evaluate",
            &repo()
                .join("evaluation/data_fixture.json")
                .display()
                .to_string(),
            &repo().join("datasets/corpus.json").display().to_string(),
            "--out",
            "out",
            "--no-plots",
        ])
        .expect_code(0);
    for (name, _, removed) in &names {
        assert_eq!(!out.join(name).exists(), *removed, "{name}: {}", r.stderr());
        assert_eq!(r.stderr().contains(&**name), *removed, "{}", r.stderr());
    }
}

// 12 and 13. Scores in [0, 1]; no NaN, inf or -0 anywhere.

#[test]
fn issue_12_scores_are_clamped_and_never_negative_zero() {
    let dir = Dir::new("i12-scores");
    for (qtype, metric, answer, want) in [
        ("ListOne", r#"{"a": 2, "b": 3}"#, "a", "1.0"),
        ("PickOne", r#"{"a": 5}"#, "a", "1.0"),
        ("ListOne", r#"{"a": 1e300, "b": 1e300}"#, "a and b", "1.0"),
        ("ListMany", r#"{"a": 0.5}"#, "nothing", "0.0"),
        ("PickMany", r#"{"a": 0.5}"#, "nothing", "0.0"),
    ] {
        let r = dir
            .run(&["score", "--type", qtype, "--metric", metric, answer])
            .expect_code(0);
        assert_eq!(r.stdout().trim(), want, "{qtype} {metric} {answer}");
    }
    // Weights of 1e300 in a corpus: every answer scored, finite summary.
    let q = json!({"qa_pairs": [
        {"id": "p1", "question": {"text": "Which?", "type": "ListOne", "metric": {"a": 1e300, "b": 1e300}}, "answers": [{"answer": "a"}, {"answer": "b"}]},
        {"id": "p2", "question": {"text": "Which?", "type": "ListMany", "metric": {"zz": 0.5}}, "answers": [{"answer": "nothing"}, {"answer": "still nothing"}]}
    ]});
    dir.write("q.json", &q.to_string());
    dir.write(
        "t.json",
        &json!([{"page_content": "x", "metadata": {"FILE": "a.csv"}}]).to_string(),
    );
    let r = dir
        .run(&["evaluate", "q.json", "t.json", "--out", "out"])
        .expect_code(0);
    let folder = dir.run_folders("out").remove(0);
    let s = read_json(&folder.join("summary.json"));
    assert_eq!(s["by_type"]["ListOne"]["mean"], json!(1.0), "{s}");
    assert_eq!(s["by_type"]["ListOne"]["n"], json!(2));
    assert_eq!(s["by_type"]["ListMany"]["mean"], json!(0.0));
    for f in files_under(&folder) {
        if f.extension().is_some_and(|e| e == "json") {
            let text = std::fs::read_to_string(&f).unwrap();
            assert!(
                !text.contains("-0.0") && !text.contains("NaN"),
                "{}",
                f.display()
            );
        }
    }
    let out = r.stdout();
    for bad in ["-0.0", "NaN", "inf,", "inf]", "-0.000"] {
        assert!(!out.contains(bad), "{bad} in {out}");
    }
}

#[test]
fn issue_12_numbers_from_files_are_range_checked() {
    let dir = Dir::new("i12-file-numbers");
    let weights = dir.write(
        "w.json",
        r#"{"accuracy": {"semantic": 1e308, "rouge_1": 0.1}}"#,
    );
    dir.run(&[
        "text-eval",
        &repo()
            .join("evaluation/text-eval/sample.json")
            .display()
            .to_string(),
        "--no-embeddings",
        "--weights",
        weights.to_str().unwrap(),
        "--out",
        "out",
    ])
    .expect_code(2)
    .expect_stderr(&["w.json", "accuracy.semantic"]);
    // compare: a per-example score outside [0, 1] names file, item and field.
    let f = fixture("hotpot/simple");
    dir.run(&[
        "hotpot".as_ref(),
        f.join("predictions.json").as_os_str(),
        f.join("gold.json").as_os_str(),
        "--out".as_ref(),
        "h".as_ref(),
        "--no-plots".as_ref(),
    ])
    .expect_code(0);
    let run = dir.run_folders("h").remove(0);
    let mut items = read_json(&run.join("per_example.json"));
    items[0]["answer_f1"] = json!(1.5);
    let bad = dir.write("bad.json", &items.to_string());
    dir.run(&[
        "compare".to_string(),
        format!("a={}", run.display()),
        format!("b={}", bad.display()),
    ])
    .expect_code(2)
    .expect_stderr(&["bad.json", "item 0", "answer_f1", "[0, 1]"]);
}

// 14. Statistics over nothing are null with n 0.

#[test]
fn issue_12_empty_statistics_are_null() {
    let dir = Dir::new("i12-empty");
    dir.write(
        "q.json",
        &json!({"qa_pairs": [{"id": "p", "question": {"text": "?", "type": "ListOne", "metric": {"a": 1}}, "answers": [{"answer": "a"}]}]}).to_string(),
    );
    dir.write(
        "t.json",
        &json!([{"page_content": "x", "metadata": {"FILE": "a.csv"}}]).to_string(),
    );
    let r = dir
        .run(&["evaluate", "q.json", "t.json", "--out", "out", "--no-plots"])
        .expect_code(0);
    let s = read_json(&dir.run_folders("out")[0].join("summary.json"));
    // No quotes: the existence statistic has no mean.
    assert_eq!(
        s["existence"],
        json!({"mean": null, "n": 0, "ci_low": null, "ci_high": null}),
        "{s}"
    );
    assert!(r.stdout().contains("n/a"), "{}", r.stdout());
    // hotpot over zero items.
    dir.write("p.json", "[]");
    dir.write("g.json", "[]");
    let h = dir
        .run(&[
            "hotpot",
            "p.json",
            "g.json",
            "--json",
            "--no-plots",
            "--out",
            "h",
        ])
        .expect_code(0);
    let v: Value = serde_json::from_str(h.stdout().trim()).unwrap();
    assert_eq!(v["n"], json!(0));
    for (k, x) in v.as_object().unwrap() {
        if k != "n" && k != "run_folder" {
            assert!(x.is_null(), "{k}: {v}");
        }
    }
}

// 15. Echoed values are cut at 200 characters.

#[test]
fn issue_12_error_messages_cut_long_values() {
    let dir = Dir::new("i12-long");
    let huge = "Z".repeat(5_000_000);
    dir.write(
        "rows.json",
        &json!([{"id": "1", "category": huge, "question": "q", "reference": "r", "response": "r"}])
            .to_string(),
    );
    let r = dir
        .run(&["text-eval", "rows.json", "--no-embeddings", "--out", "out"])
        .expect_code(2);
    let err = r.stderr();
    assert!(err.len() < 2_000, "{} bytes of stderr", err.len());
    assert!(err.contains("(5000002 chars)"), "{err}");
}

// 17 and 18. The README stands alone and tells how to install.

#[test]
fn issue_12_readme_stands_alone() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    for outside in ["](../", "`../", " ../"] {
        assert!(!readme.contains(outside), "README points outside the repo");
    }
    assert!(!readme.contains("shared/seeds"));
    let head: String = readme.lines().take(30).collect::<Vec<_>>().join("\n");
    assert!(head.contains("cargo install --path ."), "{head}");
    // The signature example carries the embedded lexicon's digest.
    let lex = corpus_eval::lexicon::Lexicon::embedded().unwrap();
    let digest = &lex.digest()[..12];
    assert!(
        readme.contains(&format!("WordNet 3.0#{digest}")),
        "README's signature example lacks {digest}"
    );
    for script in ["bench-embed", "bench-hotpot", "bench-rows", "bench-rag"] {
        let text = std::fs::read_to_string(repo().join("scripts").join(script)).unwrap();
        for line in text.lines().filter(|l| l.contains("target/release")) {
            assert!(line.contains("CARGO_TARGET_DIR"), "{script}: {line}");
        }
    }
}

// 19. A byte-order mark is fine; a duplicate key is not.

#[test]
fn issue_12_bom_accepted_duplicate_keys_refused() {
    let dir = Dir::new("i12-json");
    let q = std::fs::read_to_string(repo().join("evaluation/data_fixture.json")).unwrap();
    let t = std::fs::read_to_string(repo().join("datasets/corpus.json")).unwrap();
    dir.write("q.json", &format!("\u{feff}{q}"));
    dir.write("t.json", &format!("\u{feff}{t}"));
    dir.run(&["evaluate", "q.json", "t.json", "--out", "out", "--no-plots"])
        .expect_code(0);
    dir.write(
        "dup.json",
        "{\"qa_pairs\": [{\"id\": \"a\",\n  \"id\": \"b\", \"question\": {\"text\": \"?\", \"type\": \"ListOne\", \"metric\": {\"a\": 1}}, \"answers\": []}]}",
    );
    dir.run(&["evaluate", "dup.json", "t.json", "--out", "out2"])
        .expect_code(2)
        .expect_stderr(&["dup.json:2:", "duplicate key \"id\""]);
    assert!(dir.run_folders("out2").is_empty());
    // JSONL rows, CSV-free formats of other commands: the same rule.
    dir.write(
        "rows.jsonl",
        "{\"id\": \"1\", \"query\": \"q\", \"query\": \"q2\", \"response\": \"r\", \"context\": \"c\"}\n",
    );
    dir.run(&["grounding", "rows.jsonl", "--out", "out3"])
        .expect_code(2)
        .expect_stderr(&["rows.jsonl:1:", "duplicate key \"query\""]);
    // A settings file likewise (a weights file for text-eval).
    dir.write(
        "w.json",
        "{\"accuracy\": {\"semantic\": 0.1,\n \"semantic\": 0.2}}",
    );
    dir.run(&[
        "text-eval",
        &repo()
            .join("evaluation/text-eval/sample.json")
            .display()
            .to_string(),
        "--no-embeddings",
        "--weights",
        "w.json",
        "--out",
        "out4",
    ])
    .expect_code(2)
    .expect_stderr(&["w.json:2:", "duplicate key \"semantic\""]);
}

// 20. Charts stay bounded past 40 groups.

#[test]
fn issue_12_charts_are_bounded() {
    let dir = Dir::new("i12-charts");
    let n = 120;
    let chunks: Vec<Value> = (0..n)
        .map(|i| json!({"page_content": format!("Speaker {i} said words {i}"), "metadata": {"FILE": format!("t{i:03}.csv")}}))
        .collect();
    let pairs: Vec<Value> = (0..n)
        .map(|i| json!({"id": format!("p{i}"), "question": {"text": "?", "type": "ListOne", "metric": {"words": 1}},
            "answers": [{"answer": if i % 3 == 0 { "words" } else { "none" }, "source": format!("t{i:03}.csv"),
                         "verbatims": [{"quote": format!("said words {i}"), "source": format!("t{i:03}.csv")}]}]}))
        .collect();
    dir.write("t.json", &Value::Array(chunks).to_string());
    dir.write("q.json", &json!({"qa_pairs": pairs}).to_string());
    dir.run(&["evaluate", "q.json", "t.json", "--out", "out"])
        .expect_code(0);
    let folder = dir.run_folders("out").remove(0);
    for chart in ["transcript_scores.png", "verbatim_scores.png"] {
        let (w, h) = png_size(&folder.join(chart));
        assert_eq!(w, 1000);
        // 40 bars at most: 140 + 36 x 40.
        assert!(h <= 1580, "{chart}: {h} px high");
    }
    // The full table is still in the outputs.
    let s = read_json(&folder.join("summary.json"));
    assert_eq!(s["transcript_average_scores"].as_object().unwrap().len(), n);
}
