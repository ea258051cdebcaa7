//! `corpus-eval evaluate`: the whole run end to end, verdicts, and bad input.

use crate::util::{png_size, read_json, repo, Dir};
use serde_json::{json, Value};

const CHUNK_A1: &str = "Interviewer: Where do you live?";
const CHUNK_A2: &str = "Anna: We’ve lived in Århus since 1999 — it is “home” now.";
const CHUNK_B: &str = "Ben: The soil is sandy, so irrigation matters a lot to our small farm.";

fn transcripts() -> String {
    json!([
        {"page_content": CHUNK_A1, "metadata": {"FILE": "a.csv", "PROJECT": "X"}},
        {"page_content": CHUNK_B, "metadata": {"FILE": "b.csv"}},
        {"page_content": CHUNK_A2, "metadata": {"FILE": "a.csv"}},
    ])
    .to_string()
}

/// The sample questions. The fuzzy quote of pair 1 carries a typo
/// ("irigation"): a dropped comma alone is no longer fuzzy (issue 40).
fn questions() -> String {
    json!({"qa_pairs": [
        {"id": "q1", "question": {"text": "Where?", "type": "ListOne", "metric": "{\"values\": [\"Aarhus\", \"Århus\"], \"weights\": [1, 1]}"},
         "answers": [{"answer": "In Arhus", "source": "a.csv", "verbatims": [
            {"quote": "  lived in Århus since 1999 ", "source": "a.csv"},
            {"quote": "we've lived in arhus since 1999 - it is \"home\" now", "source": "a.csv"},
            {"quote": "We sold everything in 2003.", "source": "a.csv"},
            {"quote": "lived in Århus", "source": "zzz.csv"},
            {"quote": "lived in Århus"}
         ]}]},
        {"question": {"text": "Sandy?", "type": "yes_no", "metric": "yes"},
         "answers": [{"answer": "Yes, very sandy.", "source": "b.csv", "verbatims": [
            {"quote": "the soil is sandy so irigation matters a lot to our small farm", "source": "b.csv"}
         ]}, {"answer": "no", "source": "b.csv"}]},
        {"id": 7, "question": {"text": "Odd", "type": "Essay", "metric": "{}"}, "answers": [{"answer": "text"}]}
    ]})
    .to_string()
}

fn chars(s: &str, start: u64, end: u64) -> String {
    s.chars()
        .skip(start as usize)
        .take((end - start) as usize)
        .collect()
}

#[test]
fn verdicts_spans_scores_and_warnings() {
    let d = Dir::new("verdicts");
    d.write("q.json", &questions());
    d.write("t.json", &transcripts());
    let run = d
        .run(&["evaluate", "q.json", "t.json", "--out", "out", "--no-plots"])
        .expect_code(0)
        .expect_stderr(&["qa pair 2 (id \"7\")", "unknown question type"]);
    let folders = d.run_folders("out");
    assert_eq!(folders.len(), 1, "{}", run.stdout());
    let name = folders[0]
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    assert!(
        run.stdout().contains(&format!("run folder: out/{name}")),
        "{}",
        run.stdout()
    );
    let res = read_json(&folders[0].join("results.json"));
    let pairs = res["qa_pairs"].as_array().unwrap();
    let a_text = format!("{CHUNK_A1}\n{CHUNK_A2}");

    let quotes = pairs[0]["answers"][0]["verbatims"].as_array().unwrap();
    let verdicts: Vec<&str> = quotes
        .iter()
        .map(|q| q["verdict"].as_str().unwrap())
        .collect();
    assert_eq!(
        verdicts,
        [
            "exact",
            "normalized",
            "not_found",
            "unknown_source",
            "unknown_source"
        ]
    );
    let found: Vec<bool> = quotes
        .iter()
        .map(|q| q["found"].as_bool().unwrap())
        .collect();
    assert_eq!(found, [true, true, false, false, false]);
    let span = &quotes[0]["span"];
    assert_eq!(
        chars(
            &a_text,
            span["start"].as_u64().unwrap(),
            span["end"].as_u64().unwrap()
        ),
        "lived in Århus since 1999"
    );
    let span = &quotes[1]["span"];
    assert_eq!(
        chars(
            &a_text,
            span["start"].as_u64().unwrap(),
            span["end"].as_u64().unwrap()
        ),
        "We’ve lived in Århus since 1999 — it is “home” now"
    );
    assert_eq!(quotes[2]["span"], Value::Null);
    assert_eq!(quotes[3]["similarity"], json!(0.0));
    assert_eq!(pairs[0]["existence_score"], json!(0.4));
    assert_eq!(pairs[0]["answers"][0]["score"], json!(1.0));

    let fuzzy = &pairs[1]["answers"][0]["verbatims"][0];
    assert_eq!(fuzzy["verdict"], "fuzzy");
    assert_eq!(
        fuzzy["found"], false,
        "fuzzy does not count under --match normalized"
    );
    let sim = fuzzy["similarity"].as_f64().unwrap();
    assert!(sim > 0.95 && sim < 1.0, "{sim}");
    let span = &fuzzy["span"];
    let got = chars(
        CHUNK_B,
        span["start"].as_u64().unwrap(),
        span["end"].as_u64().unwrap(),
    );
    assert!(
        got.starts_with("The soil is sandy,") && got.ends_with("small farm"),
        "{got}"
    );
    assert_eq!(pairs[1]["id"], "1", "a missing id becomes the index");
    assert_eq!(pairs[1]["answers"][0]["score"], json!(1.0));
    assert_eq!(pairs[1]["answers"][1]["score"], json!(0.0));
    assert_eq!(pairs[1]["existence_score"], json!(0.0));
    assert_eq!(pairs[2]["answers"][0]["score"], Value::Null);
    assert_eq!(pairs[2]["existence_score"], Value::Null);

    let summary = read_json(&folders[0].join("summary.json"));
    assert_eq!(summary["overall"]["n"], 3);
    assert_eq!(
        summary["transcript_average_scores"]["b.csv"]["mean"],
        json!(0.5)
    );
    assert_eq!(
        summary["verbatim_average_scores"]["a.csv"]["mean"],
        json!(2.0 / 3.0)
    );
    assert_eq!(
        summary["verbatim_average_scores"]["zzz.csv"]["mean"],
        json!(0.0)
    );
    assert_eq!(summary["by_type"]["Yes/No"]["n"], 2);
    assert_eq!(summary["verdicts"]["unknown_source"], 2);
    assert_eq!(summary["warnings"].as_array().unwrap().len(), 1);
    for key in ["mean", "n", "ci_low", "ci_high"] {
        assert!(summary["overall"].get(key).is_some(), "overall.{key}");
    }
    assert!(summary["signature"]
        .as_str()
        .unwrap()
        .contains("match:normalized"));
    assert!(
        !folders[0].join("transcript_scores.png").exists(),
        "--no-plots"
    );
}

#[test]
fn match_level_decides_found() {
    let d = Dir::new("match-level");
    d.write("q.json", &questions());
    d.write("t.json", &transcripts());
    d.run(&[
        "evaluate",
        "q.json",
        "t.json",
        "--out",
        "fz",
        "--match",
        "fuzzy",
        "--no-plots",
    ])
    .expect_code(0);
    d.run(&[
        "evaluate",
        "q.json",
        "t.json",
        "--out",
        "ex",
        "--match",
        "exact",
        "--no-plots",
    ])
    .expect_code(0);
    let fz = read_json(&d.run_folders("fz")[0].join("results.json"));
    let ex = read_json(&d.run_folders("ex")[0].join("results.json"));
    assert_eq!(
        fz["qa_pairs"][1]["answers"][0]["verbatims"][0]["found"],
        true
    );
    assert_eq!(fz["qa_pairs"][1]["existence_score"], json!(1.0));
    assert_eq!(
        ex["qa_pairs"][0]["answers"][0]["verbatims"][1]["verdict"],
        "normalized"
    );
    assert_eq!(
        ex["qa_pairs"][0]["answers"][0]["verbatims"][1]["found"],
        false
    );
    assert_eq!(ex["qa_pairs"][0]["existence_score"], json!(0.2));
    // A threshold above the match's similarity makes it not_found.
    d.run(&[
        "evaluate",
        "q.json",
        "t.json",
        "--out",
        "hi",
        "--fuzzy-threshold",
        "0.999",
        "--no-plots",
    ])
    .expect_code(0);
    let hi = read_json(&d.run_folders("hi")[0].join("results.json"));
    let q = &hi["qa_pairs"][1]["answers"][0]["verbatims"][0];
    assert_eq!(q["verdict"], "not_found");
    assert_eq!(q["span"], Value::Null);
}

#[test]
fn sample_data_end_to_end() {
    let d = Dir::new("sample");
    let q = repo().join("evaluation/data_fixture.json");
    let t = repo().join("datasets/corpus.json");
    let run = d
        .run(&[
            std::ffi::OsStr::new("evaluate"),
            q.as_os_str(),
            t.as_os_str(),
            "--out".as_ref(),
            "runs".as_ref(),
        ])
        .expect_code(0);
    assert!(
        run.stdout().contains("overall") && run.stdout().contains("95% CI"),
        "{}",
        run.stdout()
    );
    let folders = d.run_folders("runs");
    assert_eq!(folders.len(), 1);
    let name = folders[0]
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    assert!(
        name.len() == 23 && name.as_bytes()[8] == b'T' && name.as_bytes()[15] == b'Z',
        "{name}"
    );
    let mut files: Vec<String> = std::fs::read_dir(&folders[0])
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            "items.csv",
            "manifest.json",
            "quotes.csv",
            "report.html",
            "results.json",
            "summary.json",
            "transcript_scores.png",
            "verbatim_scores.png"
        ]
    );
    for png in ["transcript_scores.png", "verbatim_scores.png"] {
        let (w, h) = png_size(&folders[0].join(png));
        assert!(w >= 800 && h >= 500, "{png}: {w}x{h}");
    }
    // items.csv: one row per answer, read back by the csv crate; its
    // scores average to the summary's overall mean, its pair-level
    // existence (first answer of each pair) to the summary's existence.
    let summary = read_json(&folders[0].join("summary.json"));
    let mut reader = csv::Reader::from_path(folders[0].join("items.csv")).unwrap();
    let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    assert_eq!(header, corpus_eval::jobs::evaluate::ITEM_COLUMNS);
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(
        rows.len() as u64,
        summary["counts"]["answers"].as_u64().unwrap()
    );
    let mean = |col: usize, first_only: bool| {
        let v: Vec<f64> = rows
            .iter()
            .filter(|r| !first_only || &r[1] == "0")
            .filter_map(|r| r[col].parse::<f64>().ok())
            .collect();
        v.iter().sum::<f64>() / v.len() as f64
    };
    assert!((mean(5, false) - summary["overall"]["mean"].as_f64().unwrap()).abs() < 1e-12);
    assert!((mean(9, true) - summary["existence"]["mean"].as_f64().unwrap()).abs() < 1e-12);
    assert!((mean(10, true) - summary["strict_existence"]["mean"].as_f64().unwrap()).abs() < 1e-12);
    let res = read_json(&folders[0].join("results.json"));
    let pairs = res["qa_pairs"].as_array().unwrap();
    assert!(pairs.len() >= 30);
    let mut verdicts = std::collections::BTreeSet::new();
    let mut types = std::collections::BTreeSet::new();
    for p in pairs {
        assert!(p.get("existence_score").is_some());
        types.insert(p["question"]["type"].as_str().unwrap().to_string());
        for a in p["answers"].as_array().unwrap() {
            assert!(a["score"].is_number(), "every sample answer is scored: {a}");
            for q in a["verbatims"].as_array().unwrap() {
                verdicts.insert(q["verdict"].as_str().unwrap().to_string());
                for k in ["found", "similarity", "span"] {
                    assert!(q.get(k).is_some(), "quote lacks {k}");
                }
            }
        }
    }
    assert_eq!(types.len(), 6, "{types:?}");
    for v in ["exact", "normalized", "fuzzy", "not_found"] {
        assert!(
            verdicts.contains(v),
            "sample data lacks a {v} quote: {verdicts:?}"
        );
    }
    let m = read_json(&folders[0].join("manifest.json"));
    let qbytes = std::fs::read(&q).unwrap();
    use sha2::Digest;
    let hex: String = sha2::Sha256::digest(&qbytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(m["inputs"]["questions"]["sha256"], json!(hex));
    assert_eq!(m["tool_version"], env!("CARGO_PKG_VERSION"));
    assert!(m["command_line"]
        .as_array()
        .unwrap()
        .iter()
        .any(|a| a == "evaluate"));
    assert!(m["wordnet"]["source"]
        .as_str()
        .unwrap()
        .contains("WordNet 3.0"));
    for k in ["started_at", "finished_at", "settings", "signature"] {
        assert!(m.get(k).is_some(), "manifest lacks {k}");
    }
    assert_eq!(m["settings"]["seed"], 42);

    // A second run never overwrites the first; the same seed gives the same summary.
    d.run(&[
        std::ffi::OsStr::new("evaluate"),
        q.as_os_str(),
        t.as_os_str(),
        "--out".as_ref(),
        "runs".as_ref(),
        "--no-plots".as_ref(),
    ])
    .expect_code(0);
    let folders = d.run_folders("runs");
    assert_eq!(folders.len(), 2);
    assert_eq!(
        read_json(&folders[0].join("summary.json")),
        read_json(&folders[1].join("summary.json"))
    );
}

#[test]
fn seed_changes_only_the_intervals() {
    let d = Dir::new("seed");
    let q = repo().join("evaluation/data_fixture.json");
    let t = repo().join("datasets/corpus.json");
    for (out, seed) in [("s1", "1"), ("s2", "2")] {
        d.run(&[
            std::ffi::OsStr::new("evaluate"),
            q.as_os_str(),
            t.as_os_str(),
            "--out".as_ref(),
            out.as_ref(),
            "--no-plots".as_ref(),
            "--seed".as_ref(),
            seed.as_ref(),
        ])
        .expect_code(0);
    }
    let a = read_json(&d.run_folders("s1")[0].join("summary.json"));
    let b = read_json(&d.run_folders("s2")[0].join("summary.json"));
    assert_eq!(a["overall"]["mean"], b["overall"]["mean"]);
    // Issue 45: the resamples are drawn as counts per value (a percentile
    // may fall on the same value for two seeds): the interval changes.
    assert_ne!(
        (&a["overall"]["ci_low"], &a["overall"]["ci_high"]),
        (&b["overall"]["ci_low"], &b["overall"]["ci_high"])
    );
}

/// Runs evaluate on bad input and checks exit 2, the message, and that no
/// run folder (and no output folder) was created.
fn rejects(name: &str, questions: &str, transcripts: &str, needles: &[&str]) {
    let d = Dir::new(name);
    d.write("q.json", questions);
    d.write("t.json", transcripts);
    d.run(&["evaluate", "q.json", "t.json", "--out", "out"])
        .expect_code(2)
        .expect_stderr(needles);
    assert!(
        !d.path().join("out").exists(),
        "{name}: nothing may be written"
    );
}

#[test]
fn malformed_json_names_file_line_and_column() {
    rejects(
        "bad-q-json",
        "{\"qa_pairs\": [\n  {\"question\": }\n]}",
        &transcripts(),
        &["q.json:2:16"],
    );
    rejects(
        "bad-t-json",
        &questions(),
        "[{\"page_content\": \"x\",\n\n \"metadata\": {\"FILE\": \"a\"}",
        &["t.json:3:"],
    );
    rejects("empty-file", "", &transcripts(), &["q.json:1:0", "EOF"]);
    rejects(
        "trailing",
        &format!("{} x", questions()),
        &transcripts(),
        &["q.json:1:"],
    );
}

#[test]
fn missing_required_fields_name_the_pair() {
    let no_type = r#"[{"id":"ok","question":{"text":"a","type":"Yes/No","metric":"yes"}},{"id":"q2","question":{"text":"b","metric":"yes"}}]"#;
    rejects(
        "no-type",
        no_type,
        &transcripts(),
        &["qa pair 1 (id \"q2\")", "question.type"],
    );
    let no_text = r#"[{"question":{"type":"Yes/No","metric":"yes"}}]"#;
    rejects(
        "no-text",
        no_text,
        &transcripts(),
        &["qa pair 0 (id \"0\")", "question.text"],
    );
    let no_metric =
        r#"{"qa_pairs":[{"id":"m","question":{"text":"a","type":"Yes/No","metric":null}}]}"#;
    rejects(
        "no-metric",
        no_metric,
        &transcripts(),
        &["qa pair 0 (id \"m\")", "question.metric"],
    );
    let bad_answers =
        r#"[{"question":{"text":"a","type":"Yes/No","metric":"yes"},"answers":{"answer":"x"}}]"#;
    rejects(
        "bad-answers",
        bad_answers,
        &transcripts(),
        &["answers", "expected an array"],
    );
    let bad_quote = r#"[{"question":{"text":"a","type":"Yes/No","metric":"yes"},"answers":[{"answer":"x","verbatims":[{"source":"a.csv"}]}]}]"#;
    rejects(
        "bad-quote",
        bad_quote,
        &transcripts(),
        &["answers[0].verbatims[0].quote", "missing"],
    );
    rejects(
        "no-file",
        &questions(),
        r#"[{"page_content":"x","metadata":{}}]"#,
        &["chunk 0", "metadata.FILE"],
    );
    rejects("wrong-root", "42", &transcripts(), &["q.json", "qa_pairs"]);
    rejects(
        "wrong-root-t",
        &questions(),
        r#"{"docs": []}"#,
        &["t.json", "documents"],
    );
}

#[test]
fn usage_errors_exit_2() {
    let d = Dir::new("usage");
    d.write("q.json", &questions());
    d.write("t.json", &transcripts());
    d.run(&["evaluate", "q.json", "missing.json"])
        .expect_code(2)
        .expect_stderr(&["missing.json"]);
    d.run(&["evaluate", "q.json", "t.json", "--fuzzy-threshold", "1.5"])
        .expect_code(2)
        .expect_stderr(&["--fuzzy-threshold"]);
    d.run(&["evaluate", "q.json", "t.json", "--match", "loose"])
        .expect_code(2);
    d.run(&["evaluate", "q.json"]).expect_code(2);
    d.run(&["evaluate", "q.json", "t.json", "--wordnet", "no-such-dir"])
        .expect_code(2)
        .expect_stderr(&["no-such-dir"]);
    assert!(!d.path().join("reports").exists());
    std::fs::write(d.path().join("bin.json"), [0xff, 0xfe, 0x00]).unwrap();
    d.run(&["evaluate", "bin.json", "t.json"])
        .expect_code(2)
        .expect_stderr(&["bin.json", "UTF-8"]);
}

#[test]
fn unwritable_output_is_a_runtime_error() {
    let d = Dir::new("unwritable");
    d.write("q.json", &questions());
    d.write("t.json", &transcripts());
    d.write("blocker", "a file where the output folder should be");
    d.run(&["evaluate", "q.json", "t.json", "--out", "blocker/runs"])
        .expect_code(1)
        .expect_stderr(&["blocker"]);
}

#[test]
fn no_panic_on_odd_inputs() {
    let odd = [
        "[]",
        "{}",
        "null",
        "[1, 2]",
        "[{}]",
        "[[[[[[[[[[]]]]]]]]]]",
        "\"text\"",
        r#"[{"question": {"text": "a", "type": "ListMany", "metric": "{\"values\": [], \"weights\": []}"}, "answers": [{"answer": null}]}]"#,
        r#"[{"question": {"text": "a", "type": "PickMany", "metric": {"x": 1}}, "answers": [{"answer": "[1, {}, null]"}]}]"#,
        r#"[{"question": {"text": "a", "type": "ListOne", "metric": {"x": 1e308}}, "answers": [{"answer": "", "verbatims": [{"quote": "", "source": "a.csv"}]}]}]"#,
    ];
    for (i, q) in odd.iter().enumerate() {
        let d = Dir::new(&format!("odd-{i}"));
        d.write("q.json", q);
        d.write("t.json", &transcripts());
        let run = d.run(&["evaluate", "q.json", "t.json", "--no-plots"]);
        assert!(
            matches!(run.code(), 0 | 2),
            "input {q}: exit {}\n{}",
            run.code(),
            run.stderr()
        );
        assert!(
            !run.stderr().contains("panicked"),
            "input {q}: {}",
            run.stderr()
        );
    }
}

/// The questions load before the transcripts: a bad questions file with a
/// pipe for transcripts (whose writer never comes) fails at once, naming
/// the questions, without opening the pipe (opening it would wait for a
/// writer).
#[cfg(unix)]
#[test]
fn bad_questions_fail_before_a_pipe_of_transcripts_is_opened() {
    let d = Dir::new("eval-fifo");
    let q = d.write("q.json", "{\"qa_pairs\": [");
    let fifo = d.path().join("t.fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo");
    assert!(made.success());
    let mut child = d
        .command(
            &[
                "evaluate".as_ref(),
                q.as_os_str(),
                fifo.as_os_str(),
                "--no-progress".as_ref(),
            ],
            &[],
        )
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    // A guard against a hang, not a timing: the run either ends or, after
    // a minute, the pipe gets a writer so that it can.
    let mut waited = 0;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        waited += 1;
        if waited == 600 {
            let _ = std::fs::write(&fifo, "[]");
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    let out = child.wait_with_output().expect("output");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("q.json"), "{stderr}");
    assert!(waited < 600, "the run waited for the pipe: {stderr}");
}

/// results.json reproduces the question document around the results: a
/// wrapper's entries before and after `qa_pairs` in their order and as
/// written (escapes decoded as serde_json writes them, numbers kept), the
/// pairs' own fields in place, and the whole file exactly as serde_json's
/// pretty printer writes the same value.
#[test]
fn results_keep_the_wrapper_entries_and_escapes_around_the_pairs() {
    let d = Dir::new("wrapper-entries");
    let pair = |id: &str| {
        format!(
            r#"{{{id}"question": {{"text": "Sandy\u0021", "type": "yes_no", "metric": "yes"}}, "note\u00e9": [1.50, -0, 1e3, "a\/b", {{}}, []],
              "answers": [{{"answer": "Yes", "source": "b.csv", "extra": {{"k": null}},
                "verbatims": [{{"quote": "the soil is sandy", "source": "b.csv", "verdict": "old"}}]}}]}}"#
        )
    };
    let text = format!(
        r#"{{"title\u0020x": "T\n", "n": 12.0, "nested": {{"a": [true, false]}},
            "qa_pairs": [{}, {}],
            "after": ["z", {{"deep": {{"x": 1}}}}], "empty": {{}}}}"#,
        pair(r#""id": "p1", "#),
        pair("")
    );
    d.write("q.json", &text);
    d.write("t.json", &transcripts());
    d.run(&[
        "evaluate",
        "q.json",
        "t.json",
        "--out",
        "out",
        "--no-plots",
        "--no-html",
    ])
    .expect_code(0);
    let path = d.run_folders("out")[0].join("results.json");
    let written = std::fs::read_to_string(&path).unwrap();
    let res: Value = serde_json::from_str(&written).unwrap();
    assert_eq!(
        written,
        serde_json::to_string_pretty(&res).unwrap() + "\n",
        "not serde_json's pretty form"
    );
    let input: Value = serde_json::from_str(&text).unwrap();
    let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(
        keys(&res),
        ["title x", "n", "nested", "qa_pairs", "after", "empty"]
    );
    for k in ["title x", "n", "nested", "after", "empty"] {
        assert_eq!(res[k], input[k], "{k}");
    }
    assert!(written.contains("\"n\": 12.0,"), "{written}");
    let pairs = res["qa_pairs"].as_array().unwrap();
    assert_eq!(pairs.len(), 2);
    for (i, p) in pairs.iter().enumerate() {
        let orig = &input["qa_pairs"][i];
        assert_eq!(p["question"], orig["question"]);
        assert_eq!(p["noteé"], orig["noteé"]);
        assert!(p["existence_score"].is_number(), "{p}");
        let a = &p["answers"][0];
        assert_eq!(a["extra"], orig["answers"][0]["extra"]);
        assert!(a["score"].is_number(), "{a}");
        // A field the results add replaces the one written in its place.
        let q = &a["verbatims"][0];
        assert_eq!(keys(q)[..3], ["quote", "source", "verdict"]);
        assert_eq!(q["verdict"], "normalized", "{q}");
    }
    assert_eq!(pairs[0]["id"], "p1");
    assert_eq!(keys(&pairs[0])[0], "id");
    // A pair without an id gets its index, after its own fields.
    assert_eq!(pairs[1]["id"], "1");
    assert_eq!(keys(&pairs[1])[..3], ["question", "noteé", "answers"]);
}

/// The same with `qa_pairs` first and last among the wrapper's entries,
/// more pairs than one write batch holds (512), and a shard's pairs.
#[test]
fn results_keep_the_wrapper_with_many_pairs_and_shards() {
    let d = Dir::new("wrapper-batches");
    let pairs: Vec<Value> = (0..2100)
        .map(|i| {
            json!({"id": format!("p{i}"), "k\u{e9}": [i, 1.5],
                   "question": {"text": "Sandy?", "type": "yes_no", "metric": "yes"},
                   "answers": [{"answer": if i % 3 == 0 { "no" } else { "yes" }}]})
        })
        .collect();
    d.write("t.json", &transcripts());
    for (name, doc) in [
        ("first", json!({"qa_pairs": pairs, "after": {"x": [1, {}]}})),
        ("last", json!({"before": "b", "qa_pairs": pairs})),
    ] {
        let file = format!("{name}.json");
        d.write(&file, &serde_json::to_string(&doc).unwrap());
        for shard in [None, Some("2/3")] {
            let out = format!("out-{name}-{}", shard.is_some());
            let mut args = vec![
                "evaluate",
                &file,
                "t.json",
                "--out",
                &out,
                "--no-plots",
                "--no-html",
            ];
            if let Some(s) = shard {
                args.extend(["--shard", s]);
            }
            d.run(&args).expect_code(0);
            let path = d.run_folders(&out)[0].join("results.json");
            let written = std::fs::read_to_string(&path).unwrap();
            let res: Value = serde_json::from_str(&written).unwrap();
            assert_eq!(written, serde_json::to_string_pretty(&res).unwrap() + "\n");
            let got = res["qa_pairs"].as_array().unwrap();
            let ids: Vec<&str> = got.iter().map(|p| p["id"].as_str().unwrap()).collect();
            match shard {
                None => assert_eq!(ids.len(), 2100, "{name}"),
                Some(_) => assert!(ids.len() > 500 && ids.len() < 1000, "{}", ids.len()),
            }
            // Each pair written is its input pair with its scores added.
            for p in got {
                let i: usize = p["id"].as_str().unwrap()[1..].parse().unwrap();
                assert_eq!(p["k\u{e9}"], doc["qa_pairs"][i]["k\u{e9}"]);
                assert_eq!(
                    p["answers"][0]["answer"],
                    doc["qa_pairs"][i]["answers"][0]["answer"]
                );
                assert!(p["answers"][0]["score"].is_number());
            }
            for (k, v) in doc.as_object().unwrap() {
                if k != "qa_pairs" {
                    assert_eq!(&res[k], v, "{name} {k}");
                }
            }
            let keys: Vec<&String> = res.as_object().unwrap().keys().collect();
            let want: Vec<&String> = doc.as_object().unwrap().keys().collect();
            assert_eq!(keys, want);
        }
    }
}
