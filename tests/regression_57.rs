//! Issue 57: quotes that change what was said (`meaning`), in evaluate
//! and check-report (`issue_57_<name>`).

use crate::util::{read_json, repo, sample_report, Dir};
use serde_json::{json, Value};

const TEXT: &str = "Interviewer: How often did you check the nets?
Ana: We sometimes checked the nets before the storm, and I would not change a thing.
Interviewer: How many came to the meeting?
Ana: About 15 people came, I think, and the council never answered our letters.";

/// `evaluate` of `quotes` against [`TEXT`] at `--match fuzzy`: the quote
/// records, the summary and the run folder.
fn run(dir: &Dir, quotes: &[&str], extra: &[&str]) -> (Vec<Value>, Value, std::path::PathBuf) {
    run_on(dir, TEXT, quotes, extra)
}

/// [`run`] against `text`.
fn run_on(
    dir: &Dir,
    text: &str,
    quotes: &[&str],
    extra: &[&str],
) -> (Vec<Value>, Value, std::path::PathBuf) {
    let verbatims: Vec<Value> = quotes
        .iter()
        .map(|q| json!({"quote": q, "source": "a.txt", "speaker": "Ana"}))
        .collect();
    let q = json!({"qa_pairs": [{"id": "p1",
        "question": {"text": "Q?", "type": "Yes/No", "metric": "yes"},
        "answers": [{"answer": "yes", "source": "a.txt", "verbatims": verbatims}]}]});
    dir.write("q.json", &q.to_string());
    dir.write(
        "t.json",
        &json!([{"page_content": text, "metadata": {"FILE": "a.txt"}}]).to_string(),
    );
    let parent = format!("runs{}", dir.run_folders(".").len());
    let mut args = vec![
        "evaluate",
        "q.json",
        "t.json",
        "--out",
        &parent,
        "--no-plots",
        "--no-progress",
        "--match",
        "fuzzy",
    ];
    args.extend_from_slice(extra);
    let folder = dir.run_new_folder(&args, &parent);
    let results = read_json(&folder.join("results.json"));
    let quotes = results["qa_pairs"][0]["answers"][0]["verbatims"]
        .as_array()
        .unwrap()
        .clone();
    (quotes, read_json(&folder.join("summary.json")), folder)
}

fn classes(q: &Value) -> Vec<String> {
    q["meaning"]
        .as_array()
        .unwrap_or_else(|| panic!("no meaning list: {q}"))
        .iter()
        .map(|m| m["class"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn issue_57_a_quote_that_changes_the_meaning_is_altered_not_ok() {
    let dir = Dir::new("i57-meaning");
    let (q, summary, folder) = run(
        &dir,
        &[
            "We always checked the nets before the storm, and I would not change a thing",
            "before the storm, and I would change a thing",
            "About 50 people came, I think",
            "About 15 people came, I think, and the council nevr answered our letters",
            "We sometimes checked the nets before the storm",
            "We sometimes checked the nets befor the storm",
        ],
        &[],
    );
    let expected = [
        (vec!["quantifier"], "altered"),
        (vec!["negation"], "altered"),
        (vec!["number"], "altered"),
        (vec![], "ok"),
        (vec![], "ok"),
        (vec![], "ok"),
    ];
    for (k, (want, attribution)) in expected.iter().enumerate() {
        assert_eq!(classes(&q[k]), *want, "{}", q[k]);
        assert_eq!(q[k]["attribution"], *attribution, "{}", q[k]);
        assert_eq!(q[k]["found"], true, "{}", q[k]);
    }
    // The words on each side.
    assert_eq!(q[0]["meaning"][0]["quote"], "always");
    assert_eq!(q[0]["meaning"][0]["source"], "sometimes");
    assert_eq!(q[1]["meaning"][0]["source"], "not");
    // An exact quote changes nothing.
    assert_eq!(q[4]["verdict"], "exact");
    assert_eq!(q[4]["meaning"], json!([]));
    let m = &summary["meaning_changed"];
    assert_eq!(m["total"], 3);
    assert_eq!(m["by_class"]["negation"], 1);
    assert_eq!(m["by_class"]["hedge"], 0);
    assert!(summary["signature"]
        .as_str()
        .unwrap()
        .contains("|meaning:en.2|"));
    // quotes.csv: the classes, `;`-joined.
    let mut table = csv::Reader::from_path(folder.join("quotes.csv")).unwrap();
    let header = table.headers().unwrap().clone();
    let at = header.iter().position(|h| h == "meaning").unwrap();
    let cells: Vec<String> = table
        .records()
        .map(|r| r.unwrap()[at].to_string())
        .collect();
    assert_eq!(cells, ["quantifier", "negation", "number", "", "", ""]);
    // The audit page shows the change.
    let page = std::fs::read_to_string(folder.join("report.html")).unwrap();
    assert!(
        page.contains("\"meaning\":[{\"class\":\"quantifier\""),
        "no meaning in the page data"
    );
}

#[test]
fn issue_57_check_report_flags_meaning_and_gates_on_it() {
    let dir = Dir::new("i57-check-report");
    let args = |gate: &[&str]| {
        sample_report(
            &dir,
            "report-meaning.md",
            "runs",
            &[&["--no-html"], gate].concat(),
        )
    };
    dir.run(&args(&[])).expect_code(0);
    let out = dir.run(&args(&["--fail-on", "meaning"])).expect_code(3);
    let mut folders = dir.run_folders("runs");
    folders.sort();
    let folder = folders.pop().unwrap();
    let results = read_json(&folder.join("results.json"));
    let quotes = results["quotes"].as_array().unwrap();
    let got: Vec<(String, Vec<String>)> = quotes
        .iter()
        .map(|q| (q["attribution"].as_str().unwrap().to_string(), classes(q)))
        .collect();
    let want: Vec<(String, Vec<String>)> = [
        ("altered", vec!["negation"]),
        ("altered", vec!["quantifier"]),
        ("altered", vec!["number"]),
        ("ok", vec![]),
        ("altered", vec!["negation"]),
        ("altered", vec!["antonym"]),
        ("altered", vec!["antonym"]),
    ]
    .iter()
    .map(|(a, c)| (a.to_string(), c.iter().map(|s| s.to_string()).collect()))
    .collect();
    assert_eq!(got, want);
    // The ellipsis drops the `not`: an edited quote, altered.
    assert_eq!(quotes[4]["verdict"], "edited");
    assert_eq!(quotes[4]["meaning"][0]["source"], "never");
    let summary = read_json(&folder.join("summary.json"));
    assert_eq!(summary["meaning_changed"]["total"], 6);
    assert_eq!(summary["meaning_changed"]["by_class"]["antonym"], 2);
    assert_eq!(quotes[5]["meaning"][0]["quote"], "lost");
    assert_eq!(quotes[5]["meaning"][0]["source"], "kept");
    // The gate names each quote that changes the meaning.
    let stderr = out.stderr();
    assert_eq!(stderr.matches(": meaning: ").count(), 6, "{stderr}");
    // Word lists from a file: antonyms off and no quantifiers leave the
    // negations and the number; the signature names the file.
    let words = dir.path().join("words.toml");
    std::fs::write(&words, "quantifiers = []\nantonyms = false\n").unwrap();
    let w = words.display().to_string();
    let with_words = ["--no-html", "--meaning-words", &w];
    dir.run(&sample_report(
        &dir,
        "report-meaning.md",
        "words-runs",
        &with_words,
    ))
    .expect_code(0);
    let folder = dir.run_folders("words-runs").pop().unwrap();
    let quotes = read_json(&folder.join("results.json"))["quotes"].clone();
    let got: Vec<Vec<String>> = quotes.as_array().unwrap().iter().map(classes).collect();
    let n = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<String>>();
    assert_eq!(
        got,
        [
            n(&["negation"]),
            n(&[]),
            n(&["number"]),
            n(&[]),
            n(&["negation"]),
            n(&[]),
            n(&[])
        ]
    );
    let signature = read_json(&folder.join("summary.json"))["signature"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(signature.contains("|meaning:file."), "{signature}");
    // A list file that cannot be used is exit 2 naming it and the key.
    std::fs::write(&words, "negator = [\"not\"]\n").unwrap();
    let bad = dir.run(&args(&["--meaning-words", &w])).expect_code(2);
    assert!(
        bad.stderr().contains("--meaning-words")
            && bad.stderr().contains("words.toml")
            && bad.stderr().contains("negator"),
        "{}",
        bad.stderr()
    );
    // An unknown --fail-on name is refused, naming `meaning` among the
    // classes.
    let bad = dir.run(&args(&["--fail-on", "meanings"])).expect_code(2);
    assert!(bad.stderr().contains("or meaning"), "{}", bad.stderr());
}

#[test]
fn issue_57_a_close_passage_is_altered_not_fabricated() {
    // Item 4: a quote of six words or more whose closest passage reaches
    // the lossless floor (0.8) but not --fuzzy-threshold (0.9) is
    // `altered`; a shorter one, or one with no close passage, keeps
    // today's rule.
    let text = "Interviewer: And after the move?
Ana: Out of sight, out of mind, that is what the council thought of us.
Interviewer: And the school?
Ana: It was, like, the last thing, you know. The village died with it.
Interviewer: And the harbour?
Ana: The boats left early in the morning and came back late at night with nothing.";
    let dir = Dir::new("i57-close");
    let (q, _, _) = run_on(
        &dir,
        text,
        &[
            "out of sight and out of mind",
            "It was the last thing, you know",
            "out of sight mind",
            "The boats left early in the morning, all of them, and came back late at night with nothing",
            "We never spoke about the ferry to anyone at all",
        ],
        &[],
    );
    let similarity = |k: usize| q[k]["similarity"].as_f64().unwrap();
    assert!((0.8..0.9).contains(&similarity(0)), "{}", q[0]);
    assert_eq!(q[0]["attribution"], "altered", "{}", q[0]);
    assert_eq!(q[0]["span_speaker"], "Ana");
    assert!(q[0]["differences"].is_array(), "{}", q[0]);
    assert!((0.8..0.9).contains(&similarity(1)), "{}", q[1]);
    assert_eq!(q[1]["attribution"], "altered", "{}", q[1]);
    // Four words reach the floor by chance: not enough.
    assert_eq!(q[2]["attribution"], "fabricated", "{}", q[2]);
    // Words inserted into one sentence: its pieces lie inside the close
    // passage, an alteration, not pieces from apart.
    assert_eq!(q[3]["attribution"], "altered", "{}", q[3]);
    assert_eq!(q[4]["attribution"], "fabricated", "{}", q[4]);
    assert_eq!(q[4]["differences"], Value::Null);
}

#[test]
fn issue_57_check_report_checks_the_cited_place() {
    // Item 3: `(P1, 00:00:06)`, `(P2 0:05)`, `[00:19]`, `(P3, line 2)`,
    // `(P3, l. 2)` and a time cited in a transcript without times.
    let dir = Dir::new("i57-places");
    let args = |out: &str, extra: &[&str]| {
        sample_report(
            &dir,
            "report-places.md",
            out,
            &[&["--no-html"], extra].concat(),
        )
    };
    let run = dir.run(&args("a", &[])).expect_code(0);
    assert!(
        run.stderr()
            .contains("warning: IS-002.txt: 1 quote cites a time, but the transcript has no times"),
        "{}",
        run.stderr()
    );
    let folder = dir.run_folders("a").pop().unwrap();
    let quotes = read_json(&folder.join("results.json"))["quotes"].clone();
    let quotes = quotes.as_array().unwrap();
    let attributions: Vec<&str> = quotes
        .iter()
        .map(|q| q["attribution"].as_str().unwrap())
        .collect();
    assert_eq!(
        attributions,
        [
            "ok",
            "wrong_location",
            "ok",
            "ok",
            "ok",
            "wrong_location",
            "ok"
        ]
    );
    assert_eq!(
        quotes[0]["location"],
        json!({"unit": "seconds", "cited": 6.0, "found": 6.0, "delta": 0.0})
    );
    // `00:12:31` is 751 s; the quote stands at 19 s.
    assert_eq!(quotes[1]["location"]["cited"], 751.0);
    assert_eq!(quotes[1]["location"]["delta"], -732.0);
    // `0:05` reads as m:ss; the VTT cue starts at 4.5 s.
    assert_eq!(quotes[2]["location"]["delta"], -0.5);
    // `[00:19]` right after the quote, its label after it.
    assert_eq!(quotes[3]["location"]["cited"], 19.0);
    assert_eq!(quotes[3]["cited"]["source"], "IS-001.vtt");
    assert_eq!(
        quotes[5]["location"],
        json!({"unit": "lines", "cited": [2, 2], "found": 4, "delta": 2})
    );
    assert_eq!(quotes[6]["location"]["found"], Value::Null);
    let summary = read_json(&folder.join("summary.json"));
    assert_eq!(summary["attribution"]["wrong_location"], 2);
    assert!(summary["signature"]
        .as_str()
        .unwrap()
        .contains("|location:tol=60s|"));
    assert_eq!(summary["warnings"].as_array().unwrap().len(), 1);
    // A wider tolerance lets the time pass; the lines allow none.
    dir.run(&args("b", &["--time-tolerance", "800"]))
        .expect_code(0);
    let folder = dir.run_folders("b").pop().unwrap();
    let quotes = read_json(&folder.join("results.json"))["quotes"].clone();
    assert_eq!(quotes[1]["attribution"], "ok");
    assert_eq!(quotes[5]["attribution"], "wrong_location");
    // The gate; a tolerance out of range.
    dir.run(&args("c", &["--fail-on", "wrong_location"]))
        .expect_code(3);
    for bad in ["-1", "NaN", "1e9"] {
        let out = dir
            .run(&args("d", &["--time-tolerance", bad]))
            .expect_code(2);
        assert!(
            out.stderr().contains("--time-tolerance"),
            "{}",
            out.stderr()
        );
    }
}

#[test]
fn issue_57_evaluate_reads_a_verbatims_time_and_line() {
    let dir = Dir::new("i57-evaluate-places");
    let timed = repo().join("evaluation/check-report/transcripts");
    std::fs::create_dir_all(dir.path().join("t")).unwrap();
    for f in ["IS-001.vtt", "IS-002.txt"] {
        std::fs::copy(timed.join(f), dir.path().join("t").join(f)).unwrap();
    }
    let questions = |verbatims: Value| {
        json!({"qa_pairs": [{"id": "p1",
            "question": {"text": "Q?", "type": "Yes/No", "metric": "yes"},
            "answers": [{"answer": "yes", "verbatims": verbatims}]}]})
        .to_string()
    };
    dir.write(
        "q.json",
        &questions(json!([
            {"quote": "The boats were all sold by the winter of 1992", "source": "IS-001.vtt", "time": 5},
            {"quote": "The boats were all sold by the winter of 1992", "source": "IS-001.vtt", "time": "00:10:00"},
            {"quote": "We waited on the pier with the post bags", "source": "IS-002.txt", "line": 4},
            {"quote": "We waited on the pier with the post bags", "source": "IS-002.txt", "line": "1-2"},
            {"quote": "We waited on the pier with the post bags", "source": "IS-002.txt", "time": 3}
        ])),
    );
    let folder = dir.run_new_folder(
        &[
            "evaluate",
            "q.json",
            "t",
            "--out",
            "runs",
            "--no-plots",
            "--no-html",
        ],
        "runs",
    );
    let results = read_json(&folder.join("results.json"));
    let quotes = results["qa_pairs"][0]["answers"][0]["verbatims"]
        .as_array()
        .unwrap()
        .clone();
    let classes: Vec<&str> = quotes
        .iter()
        .map(|q| q["attribution"].as_str().unwrap())
        .collect();
    assert_eq!(
        classes,
        ["ok", "wrong_location", "ok", "wrong_location", "ok"]
    );
    assert_eq!(quotes[1]["location"]["delta"], -595.5);
    assert_eq!(quotes[3]["location"]["delta"], 2);
    let summary = read_json(&folder.join("summary.json"));
    let warnings = summary["warnings"].to_string();
    assert!(
        warnings.contains("IS-002.txt: 1 quote cites a time"),
        "{warnings}"
    );
    // A bad time names the record and the field.
    for (bad, field) in [
        (
            json!({"quote": "x y", "source": "IS-002.txt", "time": "soon"}),
            "time",
        ),
        (
            json!({"quote": "x y", "source": "IS-002.txt", "time": -3}),
            "time",
        ),
        (
            json!({"quote": "x y", "source": "IS-002.txt", "line": 0}),
            "line",
        ),
        (
            json!({"quote": "x y", "source": "IS-002.txt", "line": 2, "time": 1}),
            "line",
        ),
    ] {
        dir.write("bad.json", &questions(json!([bad])));
        let out = dir
            .run(&["evaluate", "bad.json", "t", "--out", "runs2", "--no-plots"])
            .expect_code(2);
        assert!(
            out.stderr()
                .contains(&format!("answers[0].verbatims[0].{field}")),
            "{}",
            out.stderr()
        );
    }
}

#[test]
fn issue_57_paraphrase_tier_on_the_labelled_set() {
    // Item 2: the labelled set (36 paraphrases of real turns, 36 invented
    // on-topic quotes) at the default threshold gives the figures the
    // docs state: 19 of 36 paraphrases found, 2 invented quotes passed.
    let dir = Dir::new("i57-paraphrase");
    let model = crate::util::model_dir().display().to_string();
    let labelled = repo().join("datasets/paraphrase/labelled.json");
    let corpus = repo().join("datasets/corpus.json");
    let folder = dir.run_new_folder(
        &[
            "evaluate",
            labelled.to_str().unwrap(),
            corpus.to_str().unwrap(),
            "--paraphrase",
            "--model-dir",
            &model,
            "--out",
            "runs",
            "--no-plots",
            "--no-html",
            "--no-progress",
        ],
        "runs",
    );
    let results = read_json(&folder.join("results.json"));
    let mut counts = std::collections::BTreeMap::new();
    for pair in results["qa_pairs"].as_array().unwrap() {
        let v = &pair["answers"][0]["verbatims"][0];
        let attribution = v["attribution"].as_str().unwrap().to_string();
        let label = v["label"].as_str().unwrap().to_string();
        // Every quote compared carries its nearest passage.
        let nearest = &v["nearest"];
        let similarity = nearest["similarity"].as_f64().unwrap();
        assert!((-1.0..=1.0).contains(&similarity));
        assert!(!nearest["text"].as_str().unwrap().is_empty());
        assert!(nearest["speaker"].is_string());
        assert_eq!(attribution == "paraphrase", similarity >= 0.8, "{v}");
        *counts.entry((label, attribution)).or_insert(0) += 1;
    }
    let n = |l: &str, a: &str| counts.get(&(l.to_string(), a.to_string())).copied();
    assert_eq!(n("paraphrase", "paraphrase"), Some(19), "{counts:?}");
    assert_eq!(n("paraphrase", "fabricated"), Some(17), "{counts:?}");
    assert_eq!(n("invented", "paraphrase"), Some(2), "{counts:?}");
    assert_eq!(n("invented", "fabricated"), Some(34), "{counts:?}");
    let summary = read_json(&folder.join("summary.json"));
    assert_eq!(summary["attribution"]["overall"]["paraphrase"], 21);
    assert!(summary["signature"]
        .as_str()
        .unwrap()
        .contains("|paraphrase:cos>=0.8,windows<=3|"));
}

#[test]
fn issue_57_check_report_shows_what_was_said_and_needs_the_model() {
    let dir = Dir::new("i57-paraphrase-report");
    let model = crate::util::model_dir().display().to_string();
    let args = |out: &str, extra: &[&str]| sample_report(&dir, "report-paraphrase.md", out, extra);
    // Off by default: no model read, no `nearest`.
    dir.run(&args("off", &["--model-dir", "/nonexistent"]))
        .expect_code(0);
    let folder = dir.run_folders("off").pop().unwrap();
    let quotes = read_json(&folder.join("results.json"))["quotes"].clone();
    assert!(quotes
        .as_array()
        .unwrap()
        .iter()
        .all(|q| q.get("nearest").is_none()));
    // On: one paraphrase (Declan's boats), two without a passage near
    // enough; each with the passage nearest it.
    dir.run(&args("on", &["--paraphrase", "--model-dir", &model]))
        .expect_code(0);
    let folder = dir.run_folders("on").pop().unwrap();
    let quotes = read_json(&folder.join("results.json"))["quotes"].clone();
    let classes: Vec<&str> = quotes
        .as_array()
        .unwrap()
        .iter()
        .map(|q| q["attribution"].as_str().unwrap())
        .collect();
    assert_eq!(classes, ["fabricated", "paraphrase", "fabricated"]);
    assert_eq!(quotes[1]["nearest"]["speaker"], "Declan");
    assert_eq!(quotes[1]["nearest"]["time"]["start"], 4.5);
    assert!(quotes[1]["nearest"]["text"]
        .as_str()
        .unwrap()
        .starts_with("The boats were all sold by the winter of 1992"));
    let page = std::fs::read_to_string(folder.join("report.html")).unwrap();
    assert!(
        page.contains("What was said"),
        "no nearest passage on the page"
    );
    // Without the model: exit 2 naming how to get it, before any output.
    let out = dir
        .run(&args(
            "none",
            &["--paraphrase", "--model-dir", "/nonexistent"],
        ))
        .expect_code(2);
    assert!(
        out.stderr().contains("scripts/fetch-model"),
        "{}",
        out.stderr()
    );
    assert!(dir.run_folders("none").is_empty());
    let out = dir
        .run(&args(
            "bad",
            &["--paraphrase", "--paraphrase-threshold", "1.5"],
        ))
        .expect_code(2);
    assert!(
        out.stderr().contains("--paraphrase-threshold"),
        "{}",
        out.stderr()
    );
}

#[test]
fn issue_57_cited_lines_are_the_files_lines_as_written() {
    // Blank lines between turns, a turn over two lines: the lines of the
    // file, not of the text corpus-eval derives from it.
    let dir = Dir::new("i57-lines");
    std::fs::create_dir_all(dir.path().join("t")).unwrap();
    dir.write(
        "t/A.txt",
        "Interviewer: What happened then?\n\nAna: We sold the boats in the spring.\nIt was a hard year for everyone.\n\nInterviewer: And after?\nAna: We moved to the city.\n",
    );
    dir.write(
        "r.md",
        "Ana said \u{201c}It was a hard year for everyone\u{201d} (A, line 4), \u{201c}We moved to the city\u{201d} (A, l. 7) and \u{201c}We sold the boats in the spring\u{201d} (A, line 2).\n",
    );
    dir.run(&["check-report", "r.md", "t", "--out", "runs", "--no-html"])
        .expect_code(0);
    let folder = dir.run_folders("runs").pop().unwrap();
    let quotes = read_json(&folder.join("results.json"))["quotes"].clone();
    let found: Vec<(u64, &str)> = quotes
        .as_array()
        .unwrap()
        .iter()
        .map(|q| {
            (
                q["location"]["found"].as_u64().unwrap(),
                q["attribution"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(found, [(4, "ok"), (7, "ok"), (3, "wrong_location")]);
}
