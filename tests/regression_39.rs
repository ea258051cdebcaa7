//! Regression tests of issue 39: defects found by fuzzing and by a fresh
//! clone (`issue_39_<name>`).

use crate::util::{read_json, Dir};
use serde_json::{json, Value};

/// `evaluate` of `quotes` (each `[quote, source]`) against `transcripts`
/// (each `[FILE, text]`) with `extra` flags; returns the run folder's
/// results.json quotes and the summary.
fn evaluate(dir: &Dir, transcripts: &[(&str, &str)], quotes: &[&str], extra: &[&str]) -> (Vec<Value>, Value) {
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
        .run(&["rag", "run", "q.jsonl", "--config", "saved.toml", "--print-config"])
        .expect_code(0);
    assert_eq!(again.stdout(), rag.stdout());
}

// 11. A saved configuration names every setting.

#[test]
fn issue_39_print_config_names_every_setting() {
    let dir = Dir::new("i39-print-all");
    let run = dir.run(&["evaluate", "--print-config"]).expect_code(0);
    let out = run.stdout();
    for key in ["speaker_pattern = ", "interviewer_labels = ", "# wordnet = ", "# shard = "] {
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
    assert!(set.contains("shard = \"2/3\"") && !set.contains("# shard"), "{set}");
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
    let (s, e) = (span["start"].as_u64().unwrap() as usize, span["end"].as_u64().unwrap() as usize);
    assert_eq!(text.chars().skip(s).take(e - s).collect::<String>(), "The ﬂower was red");
}
