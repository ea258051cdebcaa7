//! Interview-aware verification through `evaluate`: turns, speakers, the
//! attribution classes, repeated quotes, custom patterns and bad patterns.

use crate::util::{read_json, repo, Dir};
use serde_json::{json, Value};

/// The text of a transcript as the tool joins it (chunks with `\n`).
fn joined(corpus: &Value, file: &str) -> String {
    let docs = corpus.as_array().unwrap();
    docs.iter()
        .filter(|d| d["metadata"]["FILE"] == file)
        .map(|d| d["page_content"].as_str().unwrap().to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

fn slice(text: &str, span: &Value) -> String {
    let (a, b) = (
        span["start"].as_u64().unwrap() as usize,
        span["end"].as_u64().unwrap() as usize,
    );
    text.chars().skip(a).take(b - a).collect()
}

/// Runs evaluate on inline questions and transcripts; returns the quotes
/// of the results in order, and the summary.
fn run(dir: &Dir, pairs: Value, corpus: &Value, extra: &[&str]) -> (Vec<Value>, Value) {
    dir.write("q.json", &json!({ "qa_pairs": pairs }).to_string());
    dir.write("t.json", &corpus.to_string());
    let mut args = vec![
        "evaluate",
        "q.json",
        "t.json",
        "--out",
        "runs",
        "--no-plots",
    ];
    args.extend_from_slice(extra);
    let folder = dir.run_new_folder(&args, "runs");
    let results = read_json(&folder.join("results.json"));
    let quotes = results["qa_pairs"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|p| p["answers"].as_array().unwrap().clone())
        .flat_map(|a| a["verbatims"].as_array().unwrap().clone())
        .collect();
    (quotes, read_json(&folder.join("summary.json")))
}

fn pair(quotes: Value) -> Value {
    json!([{"id": "p", "question": {"text": "?", "type": "ListOne", "metric": {"x": 1}},
            "answers": [{"answer": "x", "source": "a", "verbatims": quotes}]}])
}

const A1: &str = "Interviewer: What changed when you joined?\nAnna: We started sharing the tractor. Nobody owns it alone now.\n";
const A2: &str = "Interviewer: And the harvest?\nAnna: Better every year. We started sharing the tractor, as I said.\nBo: I disagree with Anna about the tractor.";
const B1: &str = "Moderator: Welcome.\nCarl: The mill closed in 1998 and the village emptied.";

fn corpus() -> Value {
    json!([
        {"page_content": A1, "metadata": {"FILE": "a"}},
        {"page_content": A2, "metadata": {"FILE": "a"}},
        {"page_content": B1, "metadata": {"FILE": "b"}},
        {"page_content": "Plain notes without any labels at all.", "metadata": {"FILE": "c"}},
    ])
}

#[test]
fn every_class_with_its_span_speaker_and_precedence() {
    let dir = Dir::new("attr-classes");
    let c = corpus();
    let text_a = joined(&c, "a");
    let q = |quote: &str, speaker: Option<&str>| {
        let mut v = json!({"quote": quote, "source": "a"});
        if let Some(s) = speaker {
            v["speaker"] = json!(s);
        }
        v
    };
    let (quotes, summary) = run(
        &dir,
        pair(json!([
            q("Nobody owns it alone now.", Some("anna")),
            q("Nobody owns it alone now.", Some("Bo")),
            // With the label quoted too: found as written, two turns.
            q("Nobody owns it alone now. Interviewer: And the harvest?", Some("Bo")),
            q("Nobody owns it alone now. And the harvest?", Some("Anna")),
            q("What changed when you joined?", Some("Anna")),
            q("The mill closed in 1998", None),
            q("We started sharing the tractor, nobody owns it alone, I disagree with Anna about the tractor", None),
            q("Our cooperative bought a second combine harvester", None),
        ])),
        &c,
        &[],
    );
    let got: Vec<&str> = quotes
        .iter()
        .map(|q| q["attribution"].as_str().unwrap_or("null"))
        .collect();
    assert_eq!(
        got,
        [
            "ok",
            "wrong_speaker",
            "cross_turn",
            "cross_turn",
            "interviewer",
            "other_source",
            "stitched",
            "fabricated"
        ]
    );
    // The claimed speaker is kept as written; the span's speaker is the
    // label of the turn where the span starts; spans slice the original.
    assert_eq!(quotes[0]["speaker"], "anna");
    assert_eq!(quotes[0]["span_speaker"], "Anna");
    assert_eq!(
        slice(&text_a, &quotes[0]["span"]),
        "Nobody owns it alone now."
    );
    assert_eq!(quotes[2]["verdict"], "normalized");
    assert_eq!(quotes[3]["verdict"], "normalized");
    assert_eq!(quotes[3]["span_speaker"], "Anna");
    assert_eq!(
        slice(&text_a, &quotes[3]["span"]),
        "Nobody owns it alone now.\n\nInterviewer: And the harvest?"
    );
    assert_eq!(quotes[4]["span_speaker"], "Interviewer");
    let other = &quotes[5]["other_source"];
    assert_eq!(other["source"], "b");
    assert_eq!(other["verdict"], "exact");
    assert_eq!(other["span_speaker"], "Carl");
    assert_eq!(slice(B1, &other["span"]), "The mill closed in 1998");
    let pieces = quotes[6]["pieces"].as_array().unwrap();
    assert_eq!(pieces.len(), 2, "{pieces:?}");
    assert_eq!(
        pieces[0]["text"],
        "We started sharing the tractor. Nobody owns it alone"
    );
    for p in pieces {
        assert_eq!(slice(&text_a, &p["span"]), p["text"].as_str().unwrap());
    }
    assert_eq!(pieces[0]["span_speaker"], "Anna");
    assert_eq!(pieces[1]["span_speaker"], "Bo");
    // Not found quotes keep today's verdict and no span.
    assert_eq!(quotes[5]["verdict"], "not_found");
    assert!(quotes[5]["span"].is_null() && quotes[5]["span_speaker"].is_null());
    // Summary: counts overall and per transcript; strict existence counts
    // only `ok` among found quotes.
    let overall = &summary["attribution"]["overall"];
    assert_eq!(overall["fabricated"], 1);
    assert_eq!(overall["cross_turn"], 2);
    assert_eq!(overall["ok"], 1);
    assert_eq!(summary["attribution"]["by_transcript"]["a"]["stitched"], 1);
    assert_eq!(summary["existence"]["mean"], 0.625);
    assert_eq!(summary["strict_existence"]["mean"], 0.125);
    assert!(summary["signature"]
        .as_str()
        .unwrap()
        .contains("speakers:default|interviewer:interviewer,moderator"));
}

#[test]
fn repeated_quotes_take_successive_occurrences() {
    let dir = Dir::new("attr-repeat");
    let c = corpus();
    let text_a = joined(&c, "a");
    let t = json!({"quote": "We started sharing the tractor", "source": "a"});
    let (quotes, _) = run(&dir, pair(json!([t, t, t])), &c, &[]);
    let spans: Vec<&Value> = quotes.iter().map(|q| &q["span"]).collect();
    assert_ne!(
        spans[0], spans[1],
        "the second copy takes the next occurrence"
    );
    for s in &spans {
        assert_eq!(slice(&text_a, s), "We started sharing the tractor");
    }
    assert!(spans[0]["end"].as_u64() <= spans[1]["start"].as_u64());
    // Only two occurrences: the third copy points at the first again.
    assert_eq!(spans[2], spans[0]);
    assert!(quotes.iter().all(|q| q["verdict"] == "exact"));
}

#[test]
fn unlabelled_transcripts_and_custom_patterns() {
    let dir = Dir::new("attr-custom");
    let c = json!([
        {"page_content": "Plain notes without any labels at all.", "metadata": {"FILE": "a"}},
    ]);
    let (quotes, _) = run(
        &dir,
        pair(json!([{"quote": "without any labels", "source": "a", "speaker": "Zoe"}])),
        &c,
        &[],
    );
    assert_eq!(quotes[0]["attribution"], "ok");
    assert!(quotes[0]["span_speaker"].is_null());
    // Bracketed labels with a custom pattern, and custom interviewer labels.
    let c = json!([
        {"page_content": "[MOD] How is the river?\n[P1] Cleaner than ten years ago.", "metadata": {"FILE": "a"}},
    ]);
    let quotes_of = |extra: &[&str], sub: &str| {
        run(
            &Dir::new(sub),
            pair(json!([
                {"quote": "How is the river?", "source": "a"},
                {"quote": "Cleaner than ten years ago.", "source": "a", "speaker": "P1"},
            ])),
            &c,
            extra,
        )
        .0
    };
    let q = quotes_of(
        &[
            "--speaker-pattern",
            r"^\[(\w+)\] ",
            "--interviewer-labels",
            "MOD,Host",
        ],
        "attr-custom-2",
    );
    assert_eq!(q[0]["attribution"], "interviewer");
    assert_eq!(q[0]["span_speaker"], "MOD");
    assert_eq!(q[1]["attribution"], "ok");
    assert_eq!(q[1]["span_speaker"], "P1");
    // The default pattern sees no labels here: one unlabelled turn.
    let q = quotes_of(&[], "attr-custom-3");
    assert_eq!(q[0]["attribution"], "ok");
    assert!(q[0]["span_speaker"].is_null());
}

#[test]
fn invalid_speaker_patterns_are_exit_2() {
    let dir = Dir::new("attr-bad");
    dir.write("q.json", &json!({"qa_pairs": pair(json!([]))}).to_string());
    dir.write("t.json", &corpus().to_string());
    for bad in [r"^(\w+", r"^\w+: "] {
        dir.run(&[
            "evaluate",
            "q.json",
            "t.json",
            "--out",
            "out",
            "--speaker-pattern",
            bad,
        ])
        .expect_code(2)
        .expect_stderr(&["--speaker-pattern"]);
    }
    assert!(!dir.path().join("out").exists());
    // rag ask and rag run check the pattern before anything else.
    dir.run(&["rag", "ask", "Who?", "--speaker-pattern", r"^\w+: "])
        .expect_code(2)
        .expect_stderr(&["--speaker-pattern"]);
    dir.run(&[
        "rag",
        "run",
        "q.json",
        "--out",
        "out",
        "--speaker-pattern",
        r"^(\w+",
    ])
    .expect_code(2)
    .expect_stderr(&["--speaker-pattern"]);
    assert!(!dir.path().join("out").exists());
}

#[test]
fn the_sample_shows_every_class() {
    let dir = Dir::new("attr-sample");
    let q = repo().join("evaluation/data_fixture.json");
    let t = repo().join("datasets/corpus.json");
    let folder = dir.run_new_folder(
        &[
            "evaluate",
            q.to_str().unwrap(),
            t.to_str().unwrap(),
            "--out",
            "runs",
            "--no-plots",
        ],
        "runs",
    );
    let s = read_json(&folder.join("summary.json"));
    for class in [
        "cross_turn",
        "interviewer",
        "wrong_speaker",
        "ok",
        "other_source",
        "stitched",
        "fabricated",
    ] {
        assert!(
            s["attribution"]["overall"][class].as_u64().unwrap() > 0,
            "{class} missing from the sample: {}",
            s["attribution"]
        );
    }
}

#[test]
fn the_audit_report_renders_and_filters_in_headless_chromium() {
    let dir = Dir::new("attr-report");
    let q = repo().join("evaluation/data_fixture.json");
    let t = repo().join("datasets/corpus.json");
    let args = |extra: &'static str| {
        let mut v = vec![
            "evaluate".to_string(),
            q.display().to_string(),
            t.display().to_string(),
            "--out".into(),
            extra.into(),
        ];
        if extra == "bare" {
            v.push("--no-html".into());
        }
        v
    };
    dir.run(&args("runs")).expect_code(0);
    let folder = &dir.run_folders("runs")[0];
    let page = folder.join("report.html");
    let html = std::fs::read_to_string(&page).unwrap();
    // Self-contained: nothing fetched from anywhere.
    for remote in ["http://", "https://", "src=\"//"] {
        assert!(!html.contains(remote), "report.html references {remote}");
    }
    let summary = read_json(&folder.join("summary.json"));
    let signature = corpus_eval::views::escape(summary["signature"].as_str().unwrap());
    assert!(html.contains(&signature), "the signature at the bottom");
    let quotes = summary["counts"]["quotes"].as_u64().unwrap();
    let not_found = summary["verdicts"]["not_found"].as_u64().unwrap();
    let Some(dom) = crate::util::chromium_dom(&page, "") else {
        return;
    };
    assert!(
        dom.contains("data-images-loaded=\"2/2\""),
        "charts did not load"
    );
    assert!(
        dom.contains(&format!("data-shown=\"{quotes}\"")),
        "all quotes listed"
    );
    assert!(dom.contains(&format!("data-cards=\"{}\"", quotes.min(50))));
    // The filter: by attribution, by verdict, by search text.
    let dom = crate::util::chromium_dom(&page, "#attribution=stitched").unwrap();
    assert!(dom.contains("data-shown=\"1\""), "one stitched quote");
    assert_eq!(dom.matches("data-attribution=\"stitched\"").count(), 1);
    assert!(dom.contains("data-cards=\"1\""));
    assert!(dom.contains("piece 2"), "each piece shown in place");
    let dom = crate::util::chromium_dom(&page, "#verdict=not_found").unwrap();
    assert!(dom.contains(&format!("data-shown=\"{not_found}\"")));
    let dom = crate::util::chromium_dom(&page, "#attribution=other_source").unwrap();
    assert!(dom.contains("found in DE-012_interview_repair_cafe.mp3.csv"));
    let dom = crate::util::chromium_dom(&page, "#q=never+fail+with").unwrap();
    assert!(
        dom.contains("data-shown=\"1\""),
        "search finds the bicycle quote"
    );
    assert!(dom.contains("<mark>"), "the span is highlighted");
    // The span as results.json has it, in characters.
    let results = read_json(&folder.join("results.json"));
    let span = results["qa_pairs"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|p| p["answers"].as_array().unwrap())
        .flat_map(|a| a["verbatims"].as_array().unwrap())
        .find(|q| q["quote"].as_str().unwrap().contains("never fail with"))
        .map(|q| q["span"].clone())
        .unwrap();
    let shown = format!("chars {}\u{2013}{}", span["start"], span["end"]);
    assert!(dom.contains(&shown), "{shown} on the card");
    // --no-html: no report.
    dir.run(&args("bare")).expect_code(0);
    assert!(!dir.run_folders("bare")[0].join("report.html").exists());
}
