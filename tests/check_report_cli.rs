//! Issue 44: `corpus-eval check-report` on the sample report (Markdown and
//! .docx), every attribution class, the gate's exit codes, bad inputs, an
//! empty report, rerun and the HTML page in headless Chromium.

use crate::util::{read_json, repo, Dir};
use std::path::{Path, PathBuf};

fn sample(name: &str) -> String {
    repo()
        .join("evaluation/check-report")
        .join(name)
        .display()
        .to_string()
}

/// Runs check-report with `extra` arguments into `DIR/runs`; the run
/// folder and the exit code.
fn check(dir: &Dir, report: &str, extra: &[&str], code: i32) -> PathBuf {
    let mut args: Vec<String> = vec![
        "check-report".into(),
        report.into(),
        sample("transcripts"),
        "--out".into(),
        dir.path().join("runs").display().to_string(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    dir.run(&args).expect_code(code);
    let mut folders = dir.run_folders("runs");
    folders.sort();
    folders.pop().expect("a run folder")
}

fn classes(folder: &Path) -> Vec<(String, String)> {
    read_json(&folder.join("results.json"))["quotes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| {
            (
                q["text"].as_str().unwrap().to_string(),
                q["attribution"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

#[test]
fn issue_44_the_sample_report_has_every_class_in_markdown_and_docx() {
    let dir = Dir::new("cr-sample");
    let sources = sample("sources.csv");
    let md = check(&dir, &sample("report.md"), &["--sources", &sources], 0);
    let results = read_json(&md.join("results.json"));
    let quotes = results["quotes"].as_array().unwrap();
    let by_text = |t: &str| {
        quotes
            .iter()
            .find(|q| q["text"].as_str().unwrap().contains(t))
            .unwrap_or_else(|| panic!("no quote with {t:?}"))
            .clone()
    };
    let expect = [
        ("never went back to the old house after the strike", "ok"),
        ("[…] My father sold the van", "ok"),
        ("all sold by the winter of 1992", "ok"),
        ("the chapel shut", "wrong_speaker"),
        ("how did that feel", "interviewer"),
        ("hoping. So the harbour", "cross_turn"),
        ("my brother kept his nets", "other_source"),
        ("Cardif", "altered"),
        ("and we waited on the pier", "stitched"),
        ("the council promised", "fabricated"),
        ("You could hear the gulls", "ok"),
        ("Honestly, it felt almost funny", "ok"),
    ];
    for (text, class) in expect {
        assert_eq!(by_text(text)["attribution"], class, "{text}");
    }
    // The edited quote's verdict; the name cue; the map; the time.
    let edited = by_text("[…] My father");
    assert_eq!(edited["verdict"], "edited");
    let declan = by_text("winter of 1992");
    assert_eq!(declan["cue"], "name");
    assert_eq!(declan["cited"]["speaker"], "Declan");
    assert_eq!(declan["source"], "IS-001.vtt");
    assert_eq!(declan["time"]["start"], 4.5);
    assert_eq!(declan["time"]["end"], 9.0);
    let wrong = by_text("the chapel shut");
    assert_eq!(wrong["cited"]["label"], "P1");
    assert_eq!(wrong["cited"]["speaker"], "Gwen Morgan");
    assert_eq!(wrong["span_speaker"], "Rhys Morgan");
    assert_eq!(
        by_text("my brother")["other_source"]["source"],
        "IS-001.vtt"
    );
    // Uncited, found elsewhere; uncited, nowhere; an unresolved label.
    let gulls = by_text("You could hear the gulls");
    assert!(gulls["cited"].is_null());
    assert_eq!(gulls["source"], "IS-001.vtt");
    let council = by_text("the council promised");
    assert!(council["source"].is_null() && council["cited"].is_null());
    let smith = quotes
        .iter()
        .find(|q| q["cited"]["label"] == "Smith 2019")
        .unwrap();
    assert!(smith["cited"]["source"].is_null());
    assert_eq!(smith["source"], "IS-002.txt");
    assert_eq!(smith["attribution"], "ok");
    // The block quote: its place is its first character after `> `.
    let block = by_text("Honestly");
    assert_eq!(block["cue"], "dash");
    assert_eq!(
        (block["line"].as_u64(), block["column"].as_u64()),
        (Some(13), Some(3))
    );
    // Scare quotes and code are not quotes.
    assert!(quotes.iter().all(|q| q["text"] != "almost funny"));
    assert_eq!(quotes.len(), 13);
    // summary.json: every class counted, the share ok, the signature.
    let summary = read_json(&md.join("summary.json"));
    assert_eq!(summary["quotes"], 13);
    assert_eq!(summary["ok"], 6);
    assert_eq!(summary["unresolved"], 1);
    assert_eq!(summary["uncited"], 2);
    assert_eq!(summary["attribution"]["fabricated"], 1);
    // Every class (issue 54 added `uncertain_speaker`, issue 57
    // `wrong_location` and `paraphrase`).
    assert_eq!(summary["attribution"].as_object().unwrap().len(), 11);
    let signature = summary["signature"].as_str().unwrap();
    assert!(signature.contains("min-words=4") && signature.contains("sources:3:sha256:"));
    // quotes.csv: a header and one row per quote.
    let csv = std::fs::read_to_string(md.join("quotes.csv")).unwrap();
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    assert_eq!(
        reader.headers().unwrap().iter().take(4).collect::<Vec<_>>(),
        ["quote_id", "line", "column", "text"]
    );
    assert_eq!(reader.records().count(), 13);
    // The .docx report: the same quotes and classes.
    let docx = check(&dir, &sample("report.docx"), &["--sources", &sources], 0);
    assert_eq!(classes(&md), classes(&docx));
    // The manifest names the inputs, and rerun reproduces every file.
    let manifest = read_json(&md.join("manifest.json"));
    assert_eq!(manifest["command"], "check-report");
    for role in ["report", "transcripts", "sources"] {
        assert!(manifest["inputs"][role].is_object(), "{role}");
    }
    let rerun = dir.run(&[
        "rerun",
        &md.display().to_string(),
        "--out",
        &dir.path().join("again").display().to_string(),
    ]);
    let rerun = rerun.expect_code(0);
    assert!(!rerun.stdout().contains("differs"), "{}", rerun.stdout());
    assert_eq!(rerun.stdout().matches("identical").count(), 5);
    // compare pairs the quotes of two runs: the same report checked with
    // `--match fuzzy` finds the altered quote.
    let fuzzy = check(
        &dir,
        &sample("report.md"),
        &["--sources", &sources, "--match", "fuzzy"],
        0,
    );
    let cmp = dir
        .run(&[
            "compare",
            &format!("normalized={}", md.display()),
            &format!("fuzzy={}", fuzzy.display()),
            "--out",
            &dir.path().join("cmp").display().to_string(),
            "--json",
        ])
        .expect_code(0);
    let out: serde_json::Value = serde_json::from_str(cmp.stdout().trim()).unwrap();
    assert_eq!(out["command"], "check-report", "{out}");
}

#[test]
fn issue_44_without_a_map_labels_resolve_to_ids_and_speakers() {
    let dir = Dir::new("cr-nomap");
    let report = dir.write(
        "r.md",
        "Rhys Morgan said “The chapel shut, then the school” and Maeve that \
         “we waited on the pier with the post bags” (IS-002). One said \
         “the boats were all sold by the winter of 1992” (Declan, IS-001, 00:00:04).\n",
    );
    let folder = check(&dir, &report.display().to_string(), &[], 0);
    let results = read_json(&folder.join("results.json"));
    let q = results["quotes"].as_array().unwrap();
    assert_eq!(q.len(), 3);
    assert_eq!(q[0]["cited"]["source"], "UK-210.txt");
    assert_eq!(q[0]["attribution"], "ok");
    assert_eq!(q[1]["cited"]["source"], "IS-002.txt");
    assert_eq!(q[1]["attribution"], "ok");
    assert_eq!(q[2]["cited"]["source"], "IS-001.vtt");
    assert_eq!(q[2]["cited"]["speaker"], "Declan");
    assert_eq!(q[2]["attribution"], "ok");
    assert_eq!(
        (q[2]["line"].as_u64(), q[2]["column"].as_u64()),
        (Some(1), Some(131))
    );
}

#[test]
fn issue_44_the_gate_exits_3_after_writing_and_2_for_an_unknown_class() {
    let dir = Dir::new("cr-gate");
    let sources = sample("sources.csv");
    let folder = check(
        &dir,
        &sample("report.md"),
        &[
            "--sources",
            &sources,
            "--fail-on",
            "fabricated,wrong_speaker",
        ],
        3,
    );
    assert!(
        folder.join("summary.json").is_file(),
        "written before exit 3"
    );
    let run = dir.run(&[
        "check-report",
        &sample("report.md"),
        &sample("transcripts"),
        "--sources",
        &sources,
        "--fail-on",
        "fabricated",
        "--out",
        &dir.path().join("more").display().to_string(),
    ]);
    let run = run.expect_code(3);
    assert!(
        run.stderr().contains("line 9, column 132: fabricated"),
        "{}",
        run.stderr()
    );
    assert!(!run.stderr().contains("wrong_speaker"));
    // A report whose quotes are all ok passes the same gate.
    let clean = dir.write(
        "clean.md",
        "Declan: “The boats were all sold by the winter of 1992”.\n",
    );
    check(
        &dir,
        &clean.display().to_string(),
        &["--fail-on", "fabricated"],
        0,
    );
    dir.run(&[
        "check-report",
        &sample("report.md"),
        &sample("transcripts"),
        "--fail-on",
        "fabricated,made_up",
    ])
    .expect_code(2)
    .expect_stderr(&["made_up", "classes: cross_turn"]);
}

#[test]
fn issue_44_empty_quoteless_and_bad_inputs() {
    let dir = Dir::new("cr-bad");
    // An empty report and one without quotes: exit 0, an empty table.
    for (name, text) in [
        ("empty.md", ""),
        ("none.txt", "No quotes here, only “scare” ones.\n"),
    ] {
        let report = dir.write(name, text);
        let folder = check(&dir, &report.display().to_string(), &["--json"], 0);
        let summary = read_json(&folder.join("summary.json"));
        assert_eq!(summary["quotes"], 0);
        assert!(summary["ok_share"].is_null());
        let csv = std::fs::read_to_string(folder.join("quotes.csv")).unwrap();
        assert_eq!(csv.lines().count(), 1, "{csv}");
    }
    let transcripts = sample("transcripts");
    // A .docx that is not one.
    let bad = dir.write("bad.docx", "not a zip");
    dir.run(&["check-report", &bad.display().to_string(), &transcripts])
        .expect_code(2)
        .expect_stderr(&["bad.docx", "not a zip archive"]);
    // A map row naming no transcript: the file, the line, the field.
    let map = dir.write(
        "map.csv",
        "label,source,speaker\nP1,UK-210,Gwen\nP9,XX-999,Nobody\n",
    );
    dir.run(&[
        "check-report",
        &sample("report.md"),
        &transcripts,
        "--sources",
        &map.display().to_string(),
    ])
    .expect_code(2)
    .expect_stderr(&["map.csv", "line 3", "`source`", "XX-999"]);
    // Out-of-range numbers and a missing report.
    dir.run(&[
        "check-report",
        &sample("report.md"),
        &transcripts,
        "--min-words",
        "0",
    ])
    .expect_code(2)
    .expect_stderr(&["--min-words"]);
    dir.run(&[
        "check-report",
        &sample("report.md"),
        &transcripts,
        "--fuzzy-threshold",
        "1.5",
    ])
    .expect_code(2);
    dir.run(&["check-report", "missing.md", &transcripts])
        .expect_code(2)
        .expect_stderr(&["missing.md"]);
}

#[test]
fn issue_44_report_html_is_self_contained_and_filters_in_headless_chromium() {
    let dir = Dir::new("cr-html");
    let folder = check(
        &dir,
        &sample("report.md"),
        &["--sources", &sample("sources.csv")],
        0,
    );
    let page = folder.join("report.html");
    let html = std::fs::read_to_string(&page).unwrap();
    for remote in ["http://", "https://", "src=\"//"] {
        assert!(!html.contains(remote), "report.html references {remote}");
    }
    // Each quote: a colour and a text badge; a card with its passage.
    assert_eq!(html.matches("<a class=\"q c-").count(), 13);
    assert!(html.contains("<span class=\"badge b-fabricated\">fabricated</span>"));
    assert!(html.contains("id=\"card-q1\""));
    assert!(html.contains("Rhys Morgan"), "the speaker of the passage");
    assert!(html.contains("0:04–0:09"), "the time of Declan's quote");
    let Some(dom) = crate::util::chromium_dom(&page, "") else {
        return;
    };
    assert!(dom.contains("data-shown=\"13\""), "every card shown");
    assert!(dom.contains("data-quotes=\"13\""));
    let dom = crate::util::chromium_dom(&page, "#class=fabricated").unwrap();
    assert!(dom.contains("data-shown=\"1\""), "one fabricated quote");
    assert!(dom.contains("data-filter=\"fabricated\""));
}

#[test]
fn issue_56_a_resolved_check_report_configuration_reads_its_files_once() {
    use corpus_eval::jobs::check_report::{execute, execute_resolved, Config};
    let dir = Dir::new("check-report-resolve-once");
    let aliases = dir.write("aliases.csv", "alias,label\nGwen,Gwen Adair\n");
    let config = |out: &str| Config {
        out: dir.path().join(out),
        no_html: true,
        speaker_aliases: Some(aliases.clone()),
        ..Config::default()
    };
    let report = PathBuf::from(sample("report.md"));
    let transcripts = PathBuf::from(sample("transcripts"));
    let (from_files, _) = execute(&config("a"), &report, &transcripts).unwrap();
    let resolved = config("b").resolve().unwrap();
    std::fs::remove_file(&aliases).unwrap();
    let (once, _) = execute_resolved(&config("b"), &resolved, &report, &transcripts).unwrap();
    assert_eq!(
        std::fs::read(once.join("results.json")).unwrap(),
        std::fs::read(from_files.join("results.json")).unwrap()
    );
    // The configuration alone now names a missing file.
    let e = execute(&config("c"), &report, &transcripts)
        .unwrap_err()
        .to_string();
    assert!(e.contains("aliases.csv"), "{e}");
}
