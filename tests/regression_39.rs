//! Regression tests of issue 39: defects found by fuzzing and by a fresh
//! clone (`issue_39_<name>`).

use crate::util::{read_json, Dir};
use serde_json::{json, Value};

/// `evaluate` of `quotes` (each `[quote, source]`) against `transcripts`
/// (each `[FILE, text]`) with `extra` flags; returns the run folder's
/// results.json quotes and the summary.
fn evaluate(
    dir: &Dir,
    transcripts: &[(&str, &str)],
    quotes: &[&str],
    extra: &[&str],
) -> (Vec<Value>, Value) {
    let source = transcripts[0].0;
    let verbatims: Vec<Value> = quotes
        .iter()
        .map(|q| json!({"quote": q, "source": source}))
        .collect();
    let q = json!({"qa_pairs": [{"id": "p1",
        "question": {"text": "Q?", "type": "Yes/No", "metric": "yes"},
        "answers": [{"answer": "a", "source": source, "verbatims": verbatims}]}]});
    let t: Vec<Value> = transcripts
        .iter()
        .map(|(f, text)| json!({"page_content": text, "metadata": {"FILE": f}}))
        .collect();
    let qp = dir.write("q.json", &q.to_string());
    let tp = dir.write("t.json", &Value::Array(t).to_string());
    let mut args = vec![
        "evaluate",
        qp.to_str().unwrap(),
        tp.to_str().unwrap(),
        "--out",
        "runs",
        "--no-plots",
        "--no-html",
        "--no-progress",
    ];
    args.extend_from_slice(extra);
    let folder = dir.run_new_folder(&args, "runs");
    let results = read_json(&folder.join("results.json"));
    let summary = read_json(&folder.join("summary.json"));
    let quotes = results["qa_pairs"][0]["answers"][0]["verbatims"]
        .as_array()
        .unwrap()
        .clone();
    (quotes, summary)
}

// 1. A printed configuration holds no secret.

#[test]
fn issue_39_print_config_redacts_urls() {
    let dir = Dir::new("i39-print-config");
    dir.write("q.jsonl", "{\"id\": \"a\", \"question\": \"x\"}\n");
    let secrets = ["PASSWORD123", "QUERYKEY456", "FRAG789", "TENANT77"];
    let url = "http://user:PASSWORD123@127.0.0.1:18803/api?key=QUERYKEY456&tenant=TENANT77#FRAG789";
    let rag = dir
        .run(&["rag", "run", "q.jsonl", "--api-url", url, "--print-config"])
        .expect_code(0)
        .expect_stderr(&["<redacted>", "$EVALUATION_API_URL"]);
    let judge = dir
        .run(&[
            "judge-answers",
            "--method",
            "llm_judge",
            "--judge-url",
            "http://u:PASSWORD123@h/v1?api-key=QUERYKEY456",
            "--print-config",
        ])
        .expect_code(0)
        .expect_stderr(&["<redacted>"]);
    for run in [&rag, &judge] {
        for s in secrets {
            assert!(!run.stdout().contains(s), "{s} in {}", run.stdout());
            assert!(!run.stderr().contains(s), "{s} in {}", run.stderr());
        }
    }
    assert!(rag
        .stdout()
        .contains("api_url = \"http://<redacted>@127.0.0.1:18803/api?key=<redacted>&tenant=<redacted>#<redacted>\""));
    // The printed configuration is a configuration: read back, it prints
    // the same.
    dir.write("saved.toml", &rag.stdout());
    let again = dir
        .run(&[
            "rag",
            "run",
            "q.jsonl",
            "--config",
            "saved.toml",
            "--print-config",
        ])
        .expect_code(0);
    assert_eq!(again.stdout(), rag.stdout());
}

// 11. A saved configuration names every setting.

#[test]
fn issue_39_print_config_names_every_setting() {
    let dir = Dir::new("i39-print-all");
    let run = dir.run(&["evaluate", "--print-config"]).expect_code(0);
    let out = run.stdout();
    for key in [
        "speaker_pattern = ",
        "interviewer_labels = ",
        "# wordnet = ",
        "# shard = ",
    ] {
        assert!(out.contains(key), "{key} missing:\n{out}");
    }
    dir.write("saved.toml", &out);
    let again = dir
        .run(&["evaluate", "--config", "saved.toml", "--print-config"])
        .expect_code(0);
    assert_eq!(again.stdout(), out);
    let set = dir
        .run(&["evaluate", "--shard", "2/3", "--print-config"])
        .expect_code(0)
        .stdout();
    assert!(
        set.contains("shard = \"2/3\"") && !set.contains("# shard"),
        "{set}"
    );
}

// 2. A match covers a character's whole expansion or none of it.

#[test]
fn issue_39_no_match_inside_one_characters_expansion() {
    let dir = Dir::new("i39-expansion");
    let text = "Anna: Add ½ cups of sugar. The ﬂower was red. It is 5 ㎞ away, in the Ⅻ century.";
    let (quotes, _) = evaluate(
        &dir,
        &[("a.csv", text)],
        &[
            "2 cups of sugar",
            "lower was red",
            "m away, in the",
            "I century",
            "1/2 cups of sugar",
            "the flower was red",
        ],
        &["--match", "fuzzy", "--fuzzy-threshold", "0.99"],
    );
    for q in &quotes[..4] {
        assert_ne!(q["verdict"], "normalized", "{q}");
        assert_ne!(q["verdict"], "exact", "{q}");
        assert!(q["similarity"].as_f64().unwrap() < 1.0, "{q}");
    }
    assert_eq!(quotes[5]["verdict"], "normalized", "{}", quotes[5]);
    let span = &quotes[5]["span"];
    let (s, e) = (
        span["start"].as_u64().unwrap() as usize,
        span["end"].as_u64().unwrap() as usize,
    );
    assert_eq!(
        text.chars().skip(s).take(e - s).collect::<String>(),
        "The ﬂower was red"
    );
}

// 3, 4 and 5. Secrets in any escaping style, every query value of a URL.

/// Runs `rag run` in two shards with an auth and a URL whose every query
/// value is a secret, merges them, reruns the merged folder, and asks once:
/// no secret may stand anywhere, in any encoding.
#[test]
fn issue_39_rag_secrets_in_every_escaping_style() {
    use crate::regression::{assert_nowhere, main_job_questions};
    use crate::util::rag_server::RagServer;
    use crate::util::{encodings, escaped_encodings};
    let auth = "auth-39:Pa'ss\"w<o>rd/+&é";
    let server = RagServer::start(Some(auth), 4);
    let dir = Dir::new("i39-rag-escaped");
    let q = main_job_questions(
        &dir,
        &["Tell me [echo-escaped]", "Again [echo-escaped] now"],
    );
    let url = format!(
        "{}/api?key=K1-sentinel&tenant=T2-tenant-sentinel",
        server.url
    );
    let env = [("EVALUATION_API_AUTH", auth)];
    let mut runs = Vec::new();
    for shard in ["1/2", "2/2"] {
        let r = dir.run_env(
            &[
                "rag",
                "run",
                q.to_str().unwrap(),
                "--out",
                &format!("s{}", &shard[..1]),
                "--api-url",
                &url,
                "--shard",
                shard,
                "--no-progress",
            ],
            &env,
        );
        assert_eq!(r.code(), 0, "{}", r.stderr());
        runs.push(r);
    }
    let mut folders = dir.run_folders("s1");
    folders.extend(dir.run_folders("s2"));
    let mut args: Vec<String> = vec!["merge".into()];
    args.extend(folders.iter().map(|f| f.display().to_string()));
    args.extend(["--out".into(), "merged".into()]);
    let merged = dir.run(&args);
    assert_eq!(merged.code(), 0, "{}", merged.stderr());
    let merged_folder = dir.run_folders("merged").remove(0);
    let rerun = dir.run(&["rerun", merged_folder.to_str().unwrap(), "--out", "again"]);
    assert_eq!(rerun.code(), 0, "{}\n{}", rerun.stdout(), rerun.stderr());
    let ask = dir.run_env(
        &["rag", "ask", "Tell me [echo-escaped]", "--api-url", &url],
        &env,
    );
    assert_eq!(ask.code(), 0, "{}", ask.stderr());
    assert!(ask.stdout().contains("<redacted>"), "{}", ask.stdout());
    runs.extend([merged, rerun, ask]);
    let mut needles: Vec<String> = Vec::new();
    // The tenant is not a two-letter value: "T2" stands by chance in every
    // timestamp of the hours 20 to 23 UTC (`2026-11-27T20:14:33Z`), and
    // in hex or base64 of other data.
    for secret in [auth, "K1-sentinel", "T2-tenant-sentinel"] {
        needles.extend(encodings(secret));
        needles.extend(escaped_encodings(secret));
    }
    needles.retain(|n| n.len() >= 2);
    let refs: Vec<&crate::util::Run> = runs.iter().collect();
    assert_nowhere(dir.path(), &refs, &needles);
}

#[test]
fn issue_39_judge_key_escaped_in_a_401_is_redacted() {
    use crate::regression::assert_nowhere;
    use crate::util::judge_server::JudgeServer;
    use crate::util::{encodings, escaped_encodings};
    let key = "sk-39/KEY+9f'x\"<&>";
    let server = JudgeServer::start(None);
    let dir = Dir::new("i39-judge-401");
    let rows: Vec<Value> = (0..6)
        .map(|i| json!({"id": format!("r{i}"), "question": "Capital?", "answer": "Paris [echo-401-escaped]", "ground_truth": "Paris"}))
        .collect();
    let items = dir.write("items.json", &Value::Array(rows).to_string());
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
        ],
        &[("CORPUS_EVAL_JUDGE_KEY", key)],
    );
    let folder = dir.run_folders("runs").remove(0);
    let scores = crate::util::read_jsonl(&folder.join("scores.jsonl"));
    assert_eq!(scores.len(), 6);
    for s in &scores {
        let err = s["judge_error"].as_str().unwrap_or_default();
        assert!(err.contains("<redacted>"), "{s}");
    }
    let mut needles = encodings(key);
    needles.extend(escaped_encodings(key));
    assert_nowhere(dir.path(), &[&r], &needles);
}

// 11. The folder `merge` writes reruns to identical outputs.

#[test]
fn issue_39_merged_folders_rerun_identical() {
    use crate::util::repo;
    let dir = Dir::new("i39-merge-rerun");
    let r = |p: &str| repo().join(p).display().to_string();
    let commands: Vec<Vec<String>> = vec![
        vec![
            "evaluate".into(),
            r("evaluation/data_fixture.json"),
            r("datasets/corpus.json"),
        ],
        vec![
            "hotpot".into(),
            r("evaluation/hotpot/predictions.json"),
            r("evaluation/hotpot/gold.json"),
        ],
        vec!["grounding".into(), r("evaluation/grounding/sample.json")],
        vec![
            "text-eval".into(),
            r("evaluation/text-eval/sample.json"),
            "--no-embeddings".into(),
        ],
        vec![
            "judge-answers".into(),
            r("evaluation/semantic/answers.jsonl"),
            "--method".into(),
            "keyword".into(),
        ],
    ];
    for (k, args) in commands.iter().enumerate() {
        let mut shards = Vec::new();
        for s in ["1/2", "2/2"] {
            let parent = format!("c{k}-parts");
            let mut a: Vec<&str> = args.iter().map(String::as_str).collect();
            a.extend(["--shard", s, "--out", &parent]);
            let before = dir.run_folders(&parent);
            dir.run(&a).expect_code(0);
            let new: Vec<_> = dir
                .run_folders(&parent)
                .into_iter()
                .filter(|f| !before.contains(f))
                .collect();
            shards.extend(new);
        }
        let mut m: Vec<String> = vec!["merge".into()];
        m.extend(shards.iter().map(|f| f.display().to_string()));
        m.extend(["--out".into(), format!("c{k}-merged")]);
        dir.run(&m).expect_code(0);
        let merged = dir.run_folders(&format!("c{k}-merged")).remove(0);
        let again = dir.run(&[
            "rerun",
            merged.to_str().unwrap(),
            "--out",
            &format!("c{k}-again"),
        ]);
        assert_eq!(
            again.code(),
            0,
            "{}: {}\n{}",
            args[0],
            again.stdout(),
            again.stderr()
        );
        assert!(
            !again.stdout().contains("different"),
            "{}: {}",
            args[0],
            again.stdout()
        );
    }
}

// 13. Transcripts without speaker labels are named.

#[test]
fn issue_39_transcripts_without_labels_are_named() {
    let dir = Dir::new("i39-unlabelled");
    let (quotes, summary) = evaluate(
        &dir,
        &[
            (
                "plain.csv",
                "[00:01:23] Anna: we grew leeks and potatoes every year",
            ),
            (
                "labelled.csv",
                "Anna: we grew leeks and potatoes every year",
            ),
        ],
        &["we grew leeks and potatoes"],
        &[],
    );
    assert_eq!(quotes[0]["verdict"], "exact");
    let warnings = summary["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    let w = warnings[0].as_str().unwrap();
    assert!(w.starts_with("plain.csv: no speaker label found"), "{w}");
    // And on stderr: a second run, its stderr read.
    let run = dir.run(&[
        "evaluate",
        "q.json",
        "t.json",
        "--out",
        "runs2",
        "--no-plots",
        "--no-html",
        "--no-progress",
    ]);
    assert_eq!(run.code(), 0);
    assert!(
        run.stderr()
            .contains("warning: plain.csv: no speaker label found"),
        "{}",
        run.stderr()
    );
    // A pattern that reads the layout finds the labels: no warning.
    let (_, summary) = evaluate(
        &dir,
        &[(
            "plain.csv",
            "[00:01:23] Anna: we grew leeks and potatoes every year",
        )],
        &["we grew leeks and potatoes"],
        &["--speaker-pattern", r"^\[[0-9:]+\] ([A-Z][a-z]+): "],
    );
    assert_eq!(summary["warnings"], json!([]));
}

// 6 and 9. Echoes are bounded; errors name the file and the key.

#[test]
fn issue_39_echoed_values_are_bounded_and_errors_name_file_and_key() {
    let dir = Dir::new("i39-echoes");
    let huge = "x".repeat(2_000_000);
    dir.write("bad-enum.toml", &format!("match = \"{huge}\"\n"));
    let r = dir
        .run(&["evaluate", "--config", "bad-enum.toml", "--print-config"])
        .expect_code(2);
    assert!(
        r.stderr().len() < 3000 && r.stderr().contains("bad-enum.toml"),
        "{} bytes",
        r.stderr().len()
    );
    let pattern = format!("({}", "a ".repeat(60_000));
    let r = dir
        .run(&["evaluate", "--speaker-pattern", &pattern, "--print-config"])
        .expect_code(2);
    assert!(
        r.stderr().len() < 3000 && r.stderr().contains("--speaker-pattern"),
        "{} bytes",
        r.stderr().len()
    );
    let digits = format!("1{}", "0".repeat(308));
    let r = dir
        .run(&["evaluate", "--fuzzy-threshold", &digits, "--print-config"])
        .expect_code(2);
    assert!(r.stderr().contains("got 1e308"), "{}", r.stderr());
    // A config value out of range names the file and the key.
    dir.write("neg.toml", "fuzzy_threshold = -1\n");
    dir.run(&["evaluate", "--config", "neg.toml", "--print-config"])
        .expect_code(2)
        .expect_stderr(&["neg.toml", "fuzzy_threshold", "[0, 1]"]);
    dir.write("neg.json", "{\"fuzzy_threshold\": 2}");
    dir.run(&["evaluate", "--config", "neg.json", "--print-config"])
        .expect_code(2)
        .expect_stderr(&["neg.json", "key `fuzzy_threshold`"]);
    // An empty lexical input names its file.
    dir.write("empty.jsonl", "");
    dir.run(&["lexical", "empty.jsonl"])
        .expect_code(2)
        .expect_stderr(&["empty.jsonl", "no items"]);
    // Broken agreement headers name the file, line and column.
    dir.write("open-quote.csv", "id,a,\"b\n1,2,3\n");
    dir.run(&["agreement", "open-quote.csv", "--id", "id"])
        .expect_code(2)
        .expect_stderr(&["open-quote.csv:1:1", "line break"]);
    dir.write("twice.csv", "id,a,a\n1,2,3\n");
    dir.run(&["agreement", "twice.csv", "--id", "id"])
        .expect_code(2)
        .expect_stderr(&["twice.csv:1:1", "names an earlier column"]);
    let long_header = format!("id,{},b\n1,2,3\n", "h".repeat(50_000));
    dir.write("long.csv", &long_header);
    let r = dir
        .run(&["agreement", "long.csv", "--id", "nope"])
        .expect_code(2);
    assert!(r.stderr().len() < 3000, "{} bytes", r.stderr().len());
}

// 7. Side files are bounded.

#[test]
fn issue_39_side_files_are_bounded() {
    use crate::util::repo;
    let dir = Dir::new("i39-side-files");
    // A config file over 1 MiB is not read.
    let big = std::fs::File::create(dir.path().join("big.toml")).unwrap();
    big.set_len(3 << 30).unwrap();
    dir.run(&["evaluate", "--config", "big.toml", "--print-config"])
        .expect_code(2)
        .expect_stderr(&["big.toml", "not a configuration file"]);
    // A run folder whose items.csv is a 1 GB sparse file: refused after
    // its first line's bound, not read whole.
    let r = |p: &str| repo().join(p).display().to_string();
    let folder = dir.run_new_folder(
        &[
            "evaluate",
            &r("evaluation/data_fixture.json"),
            &r("datasets/corpus.json"),
            "--out",
            "runs",
            "--no-plots",
            "--no-html",
            "--no-progress",
        ],
        "runs",
    );
    let other = dir.path().join("other");
    std::fs::create_dir_all(&other).unwrap();
    for f in [
        "manifest.json",
        "summary.json",
        "results.json",
        "quotes.csv",
    ] {
        std::fs::copy(folder.join(f), other.join(f)).unwrap();
    }
    let sparse = std::fs::File::create(other.join("items.csv")).unwrap();
    sparse.set_len(1 << 30).unwrap();
    let a = format!("a={}", folder.display());
    let b = format!("b={}", other.display());
    dir.run(&["compare", &a, &b, "--out", "cmp"])
        .expect_code(2)
        .expect_stderr(&["items.csv", "16 MiB"]);
}

// 8. A symbolic link destination is written through.

#[cfg(unix)]
#[test]
fn issue_39_symlink_destinations_are_written_through() {
    use crate::util::repo;
    let dir = Dir::new("i39-symlink");
    std::fs::write(dir.path().join("target.jsonl"), "old\n").unwrap();
    std::os::unix::fs::symlink("target.jsonl", dir.path().join("link.jsonl")).unwrap();
    // A dangling link: its target is created.
    std::os::unix::fs::symlink("made.jsonl", dir.path().join("dangling.jsonl")).unwrap();
    dir.write(
        "items.jsonl",
        "{\"prediction\": \"a cat\", \"reference\": \"a cat\"}\n",
    );
    for link in ["link.jsonl", "dangling.jsonl"] {
        dir.run(&["lexical", "items.jsonl", "--per-item", link])
            .expect_code(0);
        let meta = std::fs::symlink_metadata(dir.path().join(link)).unwrap();
        assert!(meta.file_type().is_symlink(), "{link} stays a link");
    }
    let target = std::fs::read_to_string(dir.path().join("target.jsonl")).unwrap();
    assert!(
        target.contains("\"id\"") || target.contains("rouge"),
        "target written: {target}"
    );
    assert!(dir.path().join("made.jsonl").is_file());
    // build-lexicon through a link to a .gz file.
    let dict = repo().join("fixtures/lexicon/dict");
    std::os::unix::fs::symlink("lex.txt.gz", dir.path().join("lex-link.gz")).unwrap();
    dir.run(&["build-lexicon", dict.to_str().unwrap(), "lex-link.gz"])
        .expect_code(0);
    assert!(dir.path().join("lex.txt.gz").is_file());
    assert!(std::fs::symlink_metadata(dir.path().join("lex-link.gz"))
        .unwrap()
        .file_type()
        .is_symlink());
}
