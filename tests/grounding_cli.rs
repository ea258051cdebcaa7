//! `corpus-eval grounding`: relevance, completeness and hallucination with
//! anchors of every kind, on the sample file and hand-made rows.

use crate::util::{png_size, read_json, repo, Dir};
use serde_json::{json, Value};
use std::path::PathBuf;

fn run_ok(dir: &Dir, input: &str) -> PathBuf {
    dir.run_new_folder(&["grounding", input, "--out", "out"], "out")
}

fn results(folder: &std::path::Path) -> Vec<Value> {
    read_json(&folder.join("grounding.json"))
        .as_array()
        .unwrap()
        .clone()
}

fn by_id<'a>(rows: &'a [Value], id: &str) -> &'a Value {
    rows.iter().find(|r| r["id"] == id).unwrap()
}

#[test]
fn sample_run_and_metric_identities() {
    let dir = Dir::new("gr-sample");
    let folder = run_ok(
        &dir,
        repo()
            .join("evaluation/grounding/sample.json")
            .to_str()
            .unwrap(),
    );
    for f in [
        "grounding.json",
        "grounding.tsv",
        "summary.json",
        "grounding_metrics.png",
        "manifest.json",
    ] {
        assert!(folder.join(f).is_file(), "{f}");
    }
    assert!(png_size(&folder.join("grounding_metrics.png")).0 >= 800);
    let rows = results(&folder);
    assert_eq!(rows.len(), 9);
    for r in &rows {
        let g = |k: &str| r[k].as_f64().unwrap();
        assert!((g("relevance") - (g("tfidf_cosine") + g("jaccard")) / 2.0).abs() < 1e-12);
        assert_eq!(g("hallucination"), g("claim_error").max(g("drift_penalty")));
        assert_eq!(
            g("drift_penalty"),
            if g("bigram_overlap") < 0.2 { 0.2 } else { 0.0 }
        );
        let anchors = r["anchors"].as_array().unwrap();
        let unsupported = anchors.iter().filter(|a| a["supported"] == false).count();
        if anchors.is_empty() {
            assert_eq!(g("claim_error"), 0.0);
            assert_eq!(r["note"], "no anchors: claim error is 0");
        } else {
            assert_eq!(g("claim_error"), unsupported as f64 / anchors.len() as f64);
        }
        for a in anchors {
            assert_eq!(a["supported"] == true, a["evidence"].is_string());
        }
    }
    // Fleming: claim and year supported, by the context sentence.
    let g5 = by_id(&rows, "g5");
    assert_eq!(g5["hallucination"], 0.0);
    let claim = &g5["anchors"][0];
    assert_eq!(claim["kind"], "claim");
    assert_eq!(claim["value"], "fleming|discover|penicillin");
    assert_eq!(claim["text"], "Fleming discovered penicillin");
    assert_eq!(claim["span"], json!({"start": 10, "end": 39}));
    // Pasteur: the claim and the year are not in the context.
    let g6 = by_id(&rows, "g6");
    assert_eq!(g6["claim_error"], 1.0);
    // Hedged response: no anchors; off-topic response: drift.
    assert_eq!(by_id(&rows, "g7")["anchors"], json!([]));
    assert_eq!(by_id(&rows, "g8")["drift_penalty"], 0.2);
    // The empty response is scored.
    assert_eq!(by_id(&rows, "g9")["completeness"], 1.0);
    let tsv = std::fs::read_to_string(folder.join("grounding.tsv")).unwrap();
    assert!(
        tsv.starts_with("id\trelevance\tcompleteness\thallucination\tclaim_error\tdrift_penalty\t")
    );
    assert_eq!(tsv.lines().count(), 10);
    let summary = read_json(&folder.join("summary.json"));
    assert_eq!(summary["n"], 9);
    assert!(summary["signature"]
        .as_str()
        .unwrap()
        .starts_with("grounding:v1"));
    assert_eq!(
        read_json(&folder.join("manifest.json"))["command"],
        "grounding"
    );
}

#[test]
fn every_anchor_kind_is_compared_by_value() {
    let dir = Dir::new("gr-kinds");
    let rows = json!([{
        "id": "k",
        "query": "When did the library open and what did it cost?",
        "response": "The library opened in 1987. It cost five million dollars, employs 1,000 people and opens at 9 am. The library holds 2.5 million books.",
        "context": ["The library opened its doors on March 3, 1987.", "Built for $5,000,000, it has 1000 staff.", "Doors open at 09:00."]
    }]);
    let p = dir.path().join("in.json");
    std::fs::write(&p, rows.to_string()).unwrap();
    let r = &results(&run_ok(&dir, p.to_str().unwrap()))[0];
    let got: Vec<(String, String, bool)> = r["anchors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["kind"].as_str().unwrap().into(),
                a["value"].as_str().unwrap().into(),
                a["supported"] == true,
            )
        })
        .collect();
    let want: Vec<(String, String, bool)> = [
        ("date", "1987", true),
        ("money", "5000000", true),
        ("number", "1000", true),
        ("time", "09:00", true),
        ("claim", "library|hold|books", false),
        ("number", "2500000", false),
    ]
    .iter()
    .map(|(k, v, s)| (k.to_string(), v.to_string(), *s))
    .collect();
    assert_eq!(got, want);
    assert_eq!(r["claim_error"], 2.0 / 6.0);
    assert_eq!(
        r["anchors"][0]["evidence"],
        "The library opened its doors on March 3, 1987."
    );
}

#[test]
fn context_forms_and_bad_input() {
    let dir = Dir::new("gr-bad");
    // Context as one string in a CSV.
    let csv = dir.write(
        "in.csv",
        "id,query,response,context\n1,Who?,Ada wrote programs.,\"Ada wrote programs, long ago.\"\n",
    );
    let r = &results(&run_ok(&dir, csv.to_str().unwrap()))[0];
    assert_eq!(r["anchors"][0]["value"], "ada|write|programs");
    assert_eq!(r["anchors"][0]["supported"], true);
    let missing = dir.write(
        "missing.json",
        r#"[{"id": "a", "query": "q", "response": "r"}]"#,
    );
    dir.run(&["grounding", missing.to_str().unwrap(), "--out", "out"])
        .expect_code(2)
        .expect_stderr(&["missing.json: row 0: field `context`: missing"]);
    let typed = dir.write(
        "typed.json",
        r#"[{"id": "a", "query": "q", "response": "r", "context": ["ok", 3]}]"#,
    );
    dir.run(&["grounding", typed.to_str().unwrap(), "--out", "out"])
        .expect_code(2)
        .expect_stderr(&["field `context[1]`: expected a string, found a number"]);
    let jsonl = dir.write(
        "bad.jsonl",
        "{\"id\": \"a\", \"query\": \"q\", \"response\": \"r\", \"context\": \"c\"}\n{\"id\": }\n",
    );
    dir.run(&["grounding", jsonl.to_str().unwrap(), "--out", "out"])
        .expect_code(2)
        .expect_stderr(&["bad.jsonl:2:"]);
    assert_eq!(dir.run_folders("out").len(), 1);
}
