//! `corpus-eval hotpot` and `corpus-eval compare`: numbers against the
//! reference scripts, the run folder, the HTML report in a real browser,
//! and bad input.
//!
//! The expected.json files under fixtures/hotpot/ were computed by
//! scripts/hotpot_reference.py (the framework's evaluate_batch and the
//! loops of hotpot_evaluate_v1.py) on the fixture files beside them.

use crate::util::{fixture, png_size, read_json, repo, Dir};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// The last line of stdout parsed as JSON.
fn last_json(stdout: &str) -> Value {
    let line = stdout.lines().last().expect("stdout has a line");
    serde_json::from_str(line).unwrap_or_else(|e| panic!("last line is not JSON ({e}): {line}"))
}

#[track_caller]
fn assert_close(got: &Value, want: &Value, tolerance: f64) {
    let (g, w) = (got.as_object().unwrap(), want.as_object().unwrap());
    let mut gk: Vec<&String> = g.keys().collect();
    let mut wk: Vec<&String> = w.keys().collect();
    gk.sort();
    wk.sort();
    assert_eq!(gk, wk, "metric names differ\n got {got}\nwant {want}");
    for (k, wv) in w {
        let (a, b) = (g[k].as_f64().unwrap(), wv.as_f64().unwrap());
        assert!((a - b).abs() <= tolerance, "{k}: got {a}, want {b}");
    }
}

fn hotpot_json(dir: &Dir, pred: &Path, gold: &Path, extra: &[&str]) -> Value {
    let mut args: Vec<String> = vec![
        "hotpot".into(),
        pred.display().to_string(),
        gold.display().to_string(),
        "--json".into(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    let run = dir.run(&args).expect_code(0);
    let mut v = last_json(&run.stdout());
    // The averages, and the run folder's path.
    let folder = v
        .as_object_mut()
        .and_then(|o| o.remove("run_folder"))
        .expect("run_folder");
    assert!(dir.path().join(folder.as_str().unwrap()).is_dir());
    v
}

#[test]
fn seed_batch_example_gives_the_seeds_numbers() {
    let dir = Dir::new("hotpot-seed");
    let ev = repo().join("evaluation/hotpot");
    let got = hotpot_json(
        &dir,
        &ev.join("predictions.json"),
        &ev.join("gold.json"),
        &[],
    );
    // The framework's batch of 8: F1 (1 + 2/3 + 1 + 1 + 1 + 1 + 0 + 1) / 8, and so on.
    let want = json!({
        "answer_f1": (6.0 + 2.0 / 3.0) / 8.0,
        "answer_em": 0.75,
        "citation_precision": (6.0 + 2.0 / 3.0) / 8.0,
        "citation_recall": 6.5 / 8.0,
        "citation_f1": (5.0 + 0.8 + 2.0 / 3.0) / 8.0,
        "insufficient_context_detection": 1.0,
        "n": 8
    });
    assert_close(&got, &want, 1e-12);
    // Per item: the seed's scenarios.
    let run = &dir.run_folders("reports")[0];
    let rows = read_json(&run.join("per_example.json"));
    let row = |id: &str| {
        rows.as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == id)
            .unwrap()
            .clone()
    };
    assert!((row("ex2")["answer_f1"].as_f64().unwrap() - 2.0 / 3.0).abs() < 1e-12);
    assert_eq!(row("ex2")["answer_em"], 0.0);
    assert!((row("ex3")["citation_precision"].as_f64().unwrap() - 2.0 / 3.0).abs() < 1e-12);
    assert_eq!(row("ex4")["citation_recall"], 0.5);
    assert_eq!(row("ex5")["insufficient_context_detection"], 1.0);
    assert_eq!(row("ex1")["insufficient_context_detection"], Value::Null);
    assert_eq!(row("ex7")["citation_f1"], 0.0);
    assert_eq!(
        row("ex1")["question"],
        "Which magazine was started first Arthur's Magazine or First for Women?"
    );
}

#[test]
fn formats_match_the_reference_scripts() {
    let dir = Dir::new("hotpot-reference");
    for case in ["simple", "simple_edge", "official", "edge"] {
        let f = fixture(&format!("hotpot/{case}"));
        let got = hotpot_json(&dir, &f.join("predictions.json"), &f.join("gold.json"), &[]);
        let want = read_json(&f.join("expected.json"));
        assert_close(&got, &want, 1e-9);
    }
    // Forcing the format that auto picks gives the same numbers.
    let f = fixture("hotpot/edge");
    let forced = hotpot_json(
        &dir,
        &f.join("predictions.json"),
        &f.join("gold.json"),
        &["--format", "official"],
    );
    assert_close(&forced, &read_json(&f.join("expected.json")), 1e-9);
}

#[test]
fn official_edge_cases_per_item() {
    let dir = Dir::new("hotpot-edge");
    let f = fixture("hotpot/edge");
    let run = dir
        .run(&[
            "hotpot".as_ref(),
            f.join("predictions.json").as_os_str(),
            f.join("gold.json").as_os_str(),
        ])
        .expect_code(0)
        .expect_stderr(&["no predicted answer", "missing_both", "no predicted sp"]);
    assert!(run.stdout().contains("joint_f1"), "{}", run.stdout());
    let folder = &dir.run_folders("reports")[0];
    let metrics = read_json(&folder.join("metrics.json"));
    assert_eq!(
        metrics["missing_answer"],
        json!(["missing_both", "missing_ans"])
    );
    assert_eq!(metrics["missing_sp"], json!(["missing_both", "missing_sp"]));
    assert_eq!(metrics["extra_predictions"], 1);
    assert_eq!(metrics["n"], 12);
    assert_eq!(metrics["format"], "official");
    let rows = read_json(&folder.join("per_example.json"));
    let row = |id: &str| {
        rows.as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == id)
            .unwrap_or_else(|| panic!("no row {id}"))
            .clone()
    };
    // "yes it is" vs "yes": F1 forced to 0 although a token is shared.
    assert_eq!(
        (row("yes2")["em"].clone(), row("yes2")["f1"].clone()),
        (json!(0.0), json!(0.0))
    );
    // Duplicated predicted facts count once: exact set.
    assert_eq!(row("yes1")["sp_em"], 1.0);
    assert_eq!(row("yes1")["joint_em"], 1.0);
    // Empty answers: EM 1 but F1 0 (no common token), as the official script.
    assert_eq!(
        (row("empty")["em"].clone(), row("empty")["f1"].clone()),
        (json!(1.0), json!(0.0))
    );
    // Missing parts are null per item and have no joint metrics.
    assert_eq!(row("missing_sp")["sp_f1"], Value::Null);
    assert_eq!(row("missing_sp")["joint_f1"], Value::Null);
    assert_eq!(row("missing_ans")["f1"], Value::Null);
    assert_eq!(row("missing_ans")["sp_prec"], 1.0);
    assert_eq!(row("missing_both")["prediction"], Value::Null);
    // Unicode: accents are not folded; final sigma lower-cases like Python.
    assert_eq!(row("uni")["em"], 0.0);
    assert_eq!(row("sigma")["em"], 1.0);
    assert_eq!(row("art")["em"], 1.0);
}

#[test]
fn run_folder_and_report() {
    let dir = Dir::new("hotpot-folder");
    let f = fixture("hotpot/simple");
    let run = dir
        .run(&[
            "hotpot".as_ref(),
            f.join("predictions.json").as_os_str(),
            f.join("gold.json").as_os_str(),
            "--name".as_ref(),
            "baseline".as_ref(),
            "--out".as_ref(),
            "runs".as_ref(),
        ])
        .expect_code(0);
    assert!(run.stdout().contains("answer_f1") && run.stdout().contains("baseline"));
    let folders = dir.run_folders("runs");
    assert_eq!(folders.len(), 1, "{folders:?}");
    let folder = &folders[0];
    let mut files: Vec<String> = std::fs::read_dir(folder)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            "hotpot_metrics.png",
            "items.csv",
            "manifest.json",
            "metrics.json",
            "per_example.json",
            "report.html"
        ]
    );
    let metrics = read_json(&folder.join("metrics.json"));
    assert_eq!(metrics["system"], "baseline");
    assert!(metrics["signature"]
        .as_str()
        .unwrap()
        .starts_with("hotpot-simple|"));
    let per = read_json(&folder.join("per_example.json"));
    assert_eq!(per.as_array().unwrap().len(), 300);
    assert_eq!(per[0]["id"], "q0");
    assert_eq!(per[0]["question"], "Question 0?");
    let csv = std::fs::read_to_string(folder.join("items.csv")).unwrap();
    assert_eq!(
        csv.lines().next().unwrap(),
        "id,question,prediction,gold,answer_f1,answer_em,citation_precision,citation_recall,citation_f1,insufficient_context_detection"
    );
    assert_eq!(csv.lines().count(), 301);
    assert_eq!(png_size(&folder.join("hotpot_metrics.png")), (1800, 1200));
    let manifest = read_json(&folder.join("manifest.json"));
    assert_eq!(manifest["command"], "hotpot");
    let gold_bytes = std::fs::read(f.join("gold.json")).unwrap();
    assert_eq!(manifest["inputs"]["gold"]["bytes"], gold_bytes.len());
    assert_eq!(manifest["signature"], metrics["signature"]);
    let html = std::fs::read_to_string(folder.join("report.html")).unwrap();
    for needle in [
        "<table id=\"results\">",
        "Metric definitions",
        "Interpretation guide",
        "Run manifest",
        "data:image/png;base64,",
    ] {
        assert!(html.contains(needle), "report.html lacks {needle}");
    }
    assert!(
        !html.contains("http://") && !html.contains("https://"),
        "report must not fetch anything"
    );
    // A second run never overwrites the first.
    dir.run(&[
        "hotpot".as_ref(),
        f.join("predictions.json").as_os_str(),
        f.join("gold.json").as_os_str(),
        "--out".as_ref(),
        "runs".as_ref(),
        "--no-plots".as_ref(),
    ])
    .expect_code(0);
    assert_eq!(dir.run_folders("runs").len(), 2);
}

#[test]
fn html_report_renders_in_headless_chromium() {
    let dir = Dir::new("hotpot-chromium");
    let f = fixture("hotpot/official");
    dir.run(&[
        "hotpot".as_ref(),
        f.join("predictions.json").as_os_str(),
        f.join("gold.json").as_os_str(),
    ])
    .expect_code(0);
    let folder = &dir.run_folders("reports")[0];
    let Some(dom) = crate::util::chromium_dom(&folder.join("report.html"), "") else {
        return;
    };
    assert!(
        dom.contains("data-images-loaded=\"1/1\""),
        "chart did not load:\n{}",
        &dom[..dom.len().min(600)]
    );
    assert!(dom.contains("<table id=\"results\">") && dom.contains("joint_f1"));
    assert!(dom.contains("<table id=\"examples\">"));
}

fn write(dir: &Dir, name: &str, v: &Value) -> PathBuf {
    dir.write(name, &serde_json::to_string_pretty(v).unwrap())
}

#[track_caller]
fn rejected(dir: &Dir, pred: &Path, gold: &Path, extra: &[&str], needles: &[&str]) {
    let mut args = vec![
        "hotpot".to_string(),
        pred.display().to_string(),
        gold.display().to_string(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    let run = dir.run(&args).expect_code(2).expect_stderr(needles);
    assert!(!run.stderr().contains("panicked"), "{}", run.stderr());
    assert!(
        dir.run_folders("reports").is_empty(),
        "nothing is written on bad input"
    );
}

#[test]
fn bad_input_names_file_item_and_field() {
    let dir = Dir::new("hotpot-bad");
    let gold = write(
        &dir,
        "gold.json",
        &json!([{"answer": "x", "citations": [1]}, {"answer": "y", "citations": []}]),
    );
    let bad_json = dir.write(
        "bad.json",
        "[\n {\"answer\": \"x\",\n  \"citations\": [1,]}\n]",
    );
    rejected(&dir, &bad_json, &gold, &[], &["bad.json:3:", "error"]);
    let cite = write(
        &dir,
        "cite.json",
        &json!([{"answer": "x", "citations": [1]}, {"id": "b", "answer": "y", "citations": [1, "2"]}]),
    );
    rejected(
        &dir,
        &cite,
        &gold,
        &[],
        &["cite.json", "item 1 (id \"b\")", "citations[1]", "integer"],
    );
    let frac = write(
        &dir,
        "frac.json",
        &json!([{"answer": "x", "citations": [1.5]}, {"answer": "y"}]),
    );
    rejected(&dir, &frac, &gold, &[], &["item 0", "citations[0]"]);
    let boolean = write(
        &dir,
        "bool.json",
        &json!([{"answer": "x", "citations": [true]}, {"answer": "y"}]),
    );
    rejected(&dir, &boolean, &gold, &[], &["citations[0]"]);
    let no_answer = write(
        &dir,
        "noans.json",
        &json!([{"citations": []}, {"answer": "y"}]),
    );
    rejected(
        &dir,
        &no_answer,
        &gold,
        &[],
        &["noans.json", "item 0", "`answer`", "missing"],
    );
    let short = write(&dir, "short.json", &json!([{"answer": "x"}]));
    rejected(
        &dir,
        &short,
        &gold,
        &[],
        &["1 prediction(s) but 2 gold item(s)"],
    );
    let ids_a = write(
        &dir,
        "ida.json",
        &json!([{"id": "a", "answer": "x"}, {"id": "b", "answer": "y"}]),
    );
    let ids_b = write(
        &dir,
        "idb.json",
        &json!([{"id": "a", "answer": "x"}, {"id": "c", "answer": "y"}]),
    );
    // Ids that disagree are paired by position (as the framework does), with a warning.
    let run = dir
        .run(&[
            "hotpot".as_ref(),
            ids_a.as_os_str(),
            ids_b.as_os_str(),
            "--out".as_ref(),
            "ok".as_ref(),
        ])
        .expect_code(0)
        .expect_stderr(&["warning", "item 1", "\"b\"", "\"c\""]);
    drop(run);
    rejected(
        &dir,
        &ids_a,
        &gold,
        &["--format", "official"],
        &["needs an object"],
    );
    // Official format.
    let ogold = write(
        &dir,
        "og.json",
        &json!([{"_id": "x1", "answer": "a", "supporting_facts": [["T", 0], ["U", "1"]]}]),
    );
    let opred = write(
        &dir,
        "op.json",
        &json!({"answer": {"x1": "a"}, "sp": {"x1": [["T", 0]]}}),
    );
    rejected(
        &dir,
        &opred,
        &ogold,
        &[],
        &[
            "og.json",
            "item 0 (_id \"x1\")",
            "supporting_facts[1]",
            "[string, integer]",
        ],
    );
    let ogold = write(
        &dir,
        "og2.json",
        &json!([{"_id": "x1", "answer": "a", "supporting_facts": [["T", 0]]}]),
    );
    let opred = write(
        &dir,
        "op2.json",
        &json!({"answer": {"x1": "a"}, "sp": {"x1": [["T"]]}}),
    );
    rejected(&dir, &opred, &ogold, &[], &["op2.json", "sp.x1[0]"]);
    let opred = write(&dir, "op3.json", &json!({"answer": {"x1": 5}, "sp": {}}));
    rejected(
        &dir,
        &opred,
        &ogold,
        &[],
        &["answer.x1", "expected a string"],
    );
    let nogold = write(
        &dir,
        "og3.json",
        &json!([{"answer": "a", "supporting_facts": []}]),
    );
    let opred = write(&dir, "op4.json", &json!({"answer": {}, "sp": {}}));
    rejected(
        &dir,
        &opred,
        &nogold,
        &[],
        &["og3.json", "item 0", "_id", "missing"],
    );
    let truncated = dir.write(
        "og4.json",
        "[{\"_id\": \"x1\", \"answer\": \"a\", \"context\": [[\"T\", [\"s\"",
    );
    rejected(&dir, &opred, &truncated, &[], &["og4.json:1:"]);
    rejected(
        &dir,
        &dir.path().join("nope.json"),
        &gold,
        &[],
        &["nope.json"],
    );
}

fn run_hotpot(dir: &Dir, pred: &Path, gold: &Path, out: &str) -> PathBuf {
    dir.run(&[
        "hotpot".as_ref(),
        pred.as_os_str(),
        gold.as_os_str(),
        "--out".as_ref(),
        out.as_ref(),
        "--no-plots".as_ref(),
    ])
    .expect_code(0);
    let folders = dir.run_folders(out);
    assert_eq!(folders.len(), 1);
    folders[0].clone()
}

#[test]
fn compare_tests_differences_with_a_paired_bootstrap() {
    let dir = Dir::new("compare");
    let f = fixture("hotpot/simple");
    let gold: Value = read_json(&f.join("gold.json"));
    // A system that answers every question right and one that copies the
    // baseline: the first difference is real, the second is exactly zero.
    let perfect: Vec<Value> = gold
        .as_array()
        .unwrap()
        .iter()
        .map(|g| json!({"id": g["id"], "answer": g["answer"], "citations": g["citations"]}))
        .collect();
    let perfect = write(&dir, "perfect.json", &json!(perfect));
    let base_run = run_hotpot(&dir, &f.join("predictions.json"), &f.join("gold.json"), "a");
    let copy_run = run_hotpot(&dir, &f.join("predictions.json"), &f.join("gold.json"), "b");
    let good_run = run_hotpot(&dir, &perfect, &f.join("gold.json"), "c");
    let run = dir
        .run(&[
            "compare".to_string(),
            format!("base={}", base_run.display()),
            format!("copy={}", copy_run.join("metrics.json").display()),
            format!("good={}", good_run.display()),
            "--resamples".into(),
            "2000".into(),
        ])
        .expect_code(0);
    let out = run.stdout();
    assert!(
        out.contains("Answer F1") && out.contains("Cit Precision") && out.contains("good"),
        "{out}"
    );
    let folder = &dir.run_folders("reports")[0];
    let cmp = read_json(&folder.join("comparison.json"));
    let diff = |a: &str, b: &str, m: &str| {
        cmp["differences"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["system_a"] == a && d["system_b"] == b && d["metric"] == m)
            .unwrap_or_else(|| panic!("no difference {a} {b} {m}"))["paired"]
            .clone()
    };
    let same = diff("base", "copy", "answer_f1");
    assert_eq!(
        (same["diff"].clone(), same["p_value"].clone()),
        (json!(0.0), json!(1.0))
    );
    let better = diff("base", "good", "answer_f1");
    assert!(better["diff"].as_f64().unwrap() > 0.1);
    assert!(better["ci_low"].as_f64().unwrap() > 0.0);
    assert!(better["p_value"].as_f64().unwrap() < 0.01);
    assert_eq!(better["n"], 300);
    // Detection is paired only over the items where it applies.
    let det = diff("base", "good", "insufficient_context_detection");
    assert!(det["n"].as_u64().unwrap() < 300 && det["n"].as_u64().unwrap() > 0);
    let csv = std::fs::read_to_string(folder.join("comparison.csv")).unwrap();
    assert!(
        csv.starts_with(
            "System,Answer F1,Answer EM,Cit Precision,Cit Recall,Cit F1,Insuf Context Det,n\n"
        ),
        "{csv}"
    );
    assert_eq!(csv.lines().count(), 4);
    let dcsv = std::fs::read_to_string(folder.join("differences.csv")).unwrap();
    assert_eq!(dcsv.lines().count(), 1 + 3 * 6);
    let html = std::fs::read_to_string(folder.join("comparison.html")).unwrap();
    assert!(
        html.contains("<table id=\"comparison\">") && html.contains("<table id=\"differences\">")
    );
    let manifest = read_json(&folder.join("manifest.json"));
    assert_eq!(manifest["command"], "compare");
    assert!(manifest["inputs"]
        .as_object()
        .unwrap()
        .contains_key("good:per_example.json"));
}

#[test]
fn compare_accepts_plain_metrics_and_rejects_mixtures() {
    let dir = Dir::new("compare-bad");
    // The framework's own saved results: a flat object of averages.
    let a = write(
        &dir,
        "a.json",
        &json!({"answer_f1": 0.5, "answer_em": 0.4, "citation_precision": 0.3, "citation_recall": 0.2, "citation_f1": 0.25}),
    );
    let b = write(
        &dir,
        "b.json",
        &json!({"answer_f1": 0.6, "answer_em": 0.5, "citation_precision": 0.3, "citation_recall": 0.2, "citation_f1": 0.25, "insufficient_context_detection": 1.0}),
    );
    let run = dir
        .run(&[
            "compare".to_string(),
            format!("A={}", a.display()),
            format!("B={}", b.display()),
        ])
        .expect_code(0);
    assert!(
        run.stdout().contains("no per-item scores"),
        "{}",
        run.stdout()
    );
    let o = write(
        &dir,
        "o.json",
        &json!({"em": 0.1, "f1": 0.2, "prec": 0.2, "recall": 0.2, "sp_em": 0.0, "sp_f1": 0.1, "sp_prec": 0.1, "sp_recall": 0.1, "joint_em": 0.0, "joint_f1": 0.0, "joint_prec": 0.0, "joint_recall": 0.0}),
    );
    dir.run(&[
        "compare".to_string(),
        format!("A={}", a.display()),
        format!("O={}", o.display()),
    ])
    .expect_code(2)
    .expect_stderr(&["simple-format", "official-format"]);
    dir.run(&[
        "compare".to_string(),
        format!("A={}", a.display()),
        "B".to_string(),
    ])
    .expect_code(2)
    .expect_stderr(&["NAME=PATH"]);
    dir.run(&[
        "compare".to_string(),
        format!("A={}", a.display()),
        format!("A={}", b.display()),
    ])
    .expect_code(2)
    .expect_stderr(&["unique"]);
    let broken = write(&dir, "c.json", &json!({"answer_f1": "high"}));
    dir.run(&[
        "compare".to_string(),
        format!("A={}", a.display()),
        format!("C={}", broken.display()),
    ])
    .expect_code(2)
    .expect_stderr(&["c.json", "answer_f1", "expected a number"]);
    dir.run(&["compare".to_string(), format!("A={}", a.display())])
        .expect_code(2);
}

#[test]
fn compare_pairs_repeated_ids_and_refuses_different_gold() {
    let dir = Dir::new("compare-ids");
    let gold = write(
        &dir,
        "gold.json",
        &json!([{"id": "x", "answer": "a"}, {"id": "x", "answer": "b"}, {"answer": "c"}]),
    );
    let other_gold = write(
        &dir,
        "gold2.json",
        &json!([{"id": "x", "answer": "z"}, {"id": "x", "answer": "b"}, {"answer": "c"}]),
    );
    let pred = write(
        &dir,
        "pred.json",
        &json!([{"answer": "a"}, {"answer": "b"}, {"answer": "q"}]),
    );
    let pred2 = write(
        &dir,
        "pred2.json",
        &json!([{"answer": "z"}, {"answer": "b"}, {"answer": "q"}]),
    );
    let a = run_hotpot(&dir, &pred, &gold, "a");
    let b = run_hotpot(&dir, &pred2, &gold, "b");
    let run = dir
        .run(&[
            "compare".to_string(),
            format!("A={}", a.display()),
            format!("B={}", b.display()),
        ])
        .expect_code(0)
        .expect_stderr(&["different predictions files"]);
    assert!(run.stdout().contains("answer_em"), "{}", run.stdout());
    let folder = &dir.run_folders("reports")[0];
    let cmp = read_json(&folder.join("comparison.json"));
    let em = cmp["differences"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["metric"] == "answer_em")
        .unwrap()["paired"]
        .clone();
    // Three items paired (x, x#2, 2): A gets 2/3, B 1/3; n = 3 is far too
    // few for significance (exact sign-flip p = 1).
    assert_eq!(em["n"], 3);
    assert!((em["diff"].as_f64().unwrap() + 1.0 / 3.0).abs() < 1e-12);
    assert_eq!(em["p_value"], 1.0);
    assert_eq!(cmp["warnings"].as_array().unwrap().len(), 1);
    // Scored against another gold file, the items are not the same items.
    let c = run_hotpot(&dir, &pred, &other_gold, "c");
    dir.run(&[
        "compare".to_string(),
        format!("A={}", a.display()),
        format!("C={}", c.display()),
    ])
    .expect_code(2)
    .expect_stderr(&["different gold files"]);
}
