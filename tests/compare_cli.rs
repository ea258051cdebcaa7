//! `corpus-eval compare` over run folders of any scoring command: pairing
//! by id, paired bootstrap, Holm, clustered resampling, refusals, HTML.

use crate::util::{read_json, repo, Dir};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// A question file: one Yes/No pair per (id, source, answer), metric "yes".
fn questions(dir: &Dir, name: &str, answers: &[(String, String, &str)]) -> PathBuf {
    let pairs: Vec<Value> = answers
        .iter()
        .map(|(id, source, answer)| {
            json!({
                "id": id,
                "question": {"text": "Did it work?", "type": "Yes/No", "metric": "yes"},
                "answers": [{"answer": answer, "source": source, "verbatims": []}],
            })
        })
        .collect();
    dir.write(name, &json!({ "qa_pairs": pairs }).to_string())
}

fn evaluate(dir: &Dir, q: &Path, t: &Path, out: &str) -> PathBuf {
    dir.run_new_folder(
        &[
            "evaluate",
            q.to_str().unwrap(),
            t.to_str().unwrap(),
            "--no-plots",
            "--no-html",
            "--out",
            out,
        ],
        out,
    )
}

fn compare_json(dir: &Dir, systems: &[(&str, &Path)], extra: &[&str]) -> Value {
    let mut args = vec!["compare".to_string()];
    args.extend(systems.iter().map(|(n, p)| format!("{n}={}", p.display())));
    args.extend(["--out".to_string(), "cmp".to_string(), "--json".to_string()]);
    args.extend(extra.iter().map(|s| s.to_string()));
    let run = dir.run(&args).expect_code(0);
    serde_json::from_str(&run.stdout()).expect("--json prints one JSON object")
}

fn difference<'v>(cmp: &'v Value, metric: &str, a: &str, b: &str) -> &'v Value {
    cmp["differences"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["metric"] == metric && d["system_a"] == a && d["system_b"] == b)
        .unwrap_or_else(|| panic!("no difference {metric} {a} {b} in {cmp}"))
}

fn corpus() -> PathBuf {
    repo().join("datasets/corpus.json")
}

#[test]
fn identical_runs_differ_by_zero_with_p_one() {
    let dir = Dir::new("cmp-same");
    let q = repo().join("evaluation/data_fixture.json");
    let a = evaluate(&dir, &q, &corpus(), "a");
    let b = evaluate(&dir, &q, &corpus(), "b");
    let cmp = compare_json(&dir, &[("A", &a), ("B", &b)], &[]);
    assert_eq!(cmp["command"], "evaluate");
    assert_eq!(
        cmp["metrics"],
        json!(["score", "existence", "strict_existence"])
    );
    for d in cmp["differences"].as_array().unwrap() {
        let p = &d["paired"];
        assert_eq!(p["diff"], 0.0, "{d}");
        assert_eq!(
            (p["ci_low"].as_f64(), p["ci_high"].as_f64()),
            (Some(0.0), Some(0.0))
        );
        assert_eq!(p["p_value"], 1.0);
        assert_eq!(d["p_holm"], 1.0);
        assert!(
            d["cohens_dz"].is_null(),
            "no spread, no standardized effect"
        );
    }
    assert!(cmp["changed"].as_array().unwrap().is_empty());
    assert!(
        cmp["warnings"].as_array().unwrap().is_empty(),
        "{}",
        cmp["warnings"]
    );
    // The run folder holds the tables, the JSON and the page.
    let folder = Path::new(cmp["run_folder"].as_str().unwrap());
    let folder = dir.path().join(folder);
    for f in [
        "comparison.csv",
        "differences.csv",
        "comparison.json",
        "comparison.html",
        "manifest.json",
    ] {
        assert!(folder.join(f).is_file(), "{f}");
    }
    // items.csv: every compared item with each system's score.
    let items = std::fs::read_to_string(folder.join("items.csv")).unwrap();
    let mut lines = items.lines();
    assert_eq!(lines.next(), Some("metric,id,A,B"));
    let rows: Vec<&str> = lines.collect();
    let answers = read_json(&a.join("summary.json"))["counts"]["answers"]
        .as_u64()
        .unwrap();
    assert_eq!(rows.len() as u64, 3 * answers);
    assert!(rows.iter().any(|r| r.starts_with("score,dk-01/0,")));
    // Evaluate's existence counts once per pair: n equals the pairs with quotes.
    let summary = read_json(&a.join("summary.json"));
    assert_eq!(
        difference(&cmp, "existence", "A", "B")["paired"]["n"],
        summary["existence"]["n"]
    );
    assert_eq!(
        difference(&cmp, "score", "A", "B")["paired"]["n"],
        summary["overall"]["n"]
    );
}

#[test]
fn a_better_system_gets_an_interval_above_zero_and_holm_adjusts_the_family() {
    let dir = Dir::new("cmp-better");
    let ids: Vec<String> = (0..40).map(|i| format!("q{i:02}")).collect();
    let src = |i: usize| format!("T{}.csv", i % 4);
    // A answers 10 of 40 right, B 30 (B wrong where A is right on none), C 12.
    let make = |name: &str, right: &dyn Fn(usize) -> bool| {
        let answers: Vec<(String, String, &str)> = ids
            .iter()
            .enumerate()
            .map(|(i, id)| (id.clone(), src(i), if right(i) { "Yes." } else { "No." }))
            .collect();
        questions(&dir, name, &answers)
    };
    let qa = make("a.json", &|i| i < 10);
    let qb = make("b.json", &|i| i < 30);
    let qc = make("c.json", &|i| i < 12);
    let (a, b, c) = (
        evaluate(&dir, &qa, &corpus(), "a"),
        evaluate(&dir, &qb, &corpus(), "b"),
        evaluate(&dir, &qc, &corpus(), "c"),
    );
    let mut args = vec!["compare".to_string()];
    for (n, p) in [("A", &a), ("B", &b), ("C", &c)] {
        args.push(format!("{n}={}", p.display()));
    }
    args.extend(["--out", "cmp", "--json", "--metric", "score"].map(String::from));
    // Different answer files are the point of comparing: a warning, not a refusal.
    let run = dir
        .run(&args)
        .expect_code(0)
        .expect_stderr(&["different questions files"]);
    let cmp: Value = serde_json::from_str(&run.stdout()).unwrap();
    assert_eq!(cmp["metrics"], json!(["score"]));
    let ab = &difference(&cmp, "score", "A", "B")["paired"];
    assert!((ab["diff"].as_f64().unwrap() - 0.5).abs() < 1e-12, "{ab}");
    assert!(ab["ci_low"].as_f64().unwrap() > 0.0, "{ab}");
    assert!(ab["p_value"].as_f64().unwrap() < 0.01);
    // d_z: differences twenty 1s and twenty 0s: 0.5 / sqrt(10/39).
    let dz = difference(&cmp, "score", "A", "B")["cohens_dz"]
        .as_f64()
        .unwrap();
    assert!((dz - 0.5 / (10.0f64 / 39.0).sqrt()).abs() < 1e-12, "{dz}");
    // Holm over the family of three tests, computed here by hand.
    let diffs = cmp["differences"].as_array().unwrap();
    assert_eq!(diffs.len(), 3);
    assert_eq!(cmp["family"]["tests"], 3);
    assert_eq!(cmp["family"]["pairs"], 3);
    let p: Vec<f64> = diffs
        .iter()
        .map(|d| d["paired"]["p_value"].as_f64().unwrap())
        .collect();
    let mut order: Vec<usize> = (0..3).collect();
    order.sort_by(|&i, &j| p[i].total_cmp(&p[j]));
    let mut want = [0.0; 3];
    let mut running: f64 = 0.0;
    for (rank, &i) in order.iter().enumerate() {
        running = running.max(((3 - rank) as f64 * p[i]).min(1.0));
        want[i] = running;
    }
    for (d, w) in diffs.iter().zip(want) {
        assert!(
            (d["p_holm"].as_f64().unwrap() - w).abs() < 1e-12,
            "{d} vs {w}"
        );
        assert!(d["p_holm"].as_f64().unwrap() >= d["paired"]["p_value"].as_f64().unwrap());
    }
    // The items that changed most: A -> B moved 20 items by +1, at most 10 listed.
    let changed: Vec<&Value> = cmp["changed"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["system_a"] == "A" && c["system_b"] == "B")
        .collect();
    assert_eq!(changed.len(), 10);
    assert!(changed.iter().all(|c| c["delta"] == 1.0));
}

#[test]
fn transcript_clusters_widen_the_interval() {
    let dir = Dir::new("cmp-cluster");
    // Six transcripts of eight answers: B is right on every answer of three
    // transcripts and on none of the other three, A on none at all. The
    // gain sits in whole interviews, so resampling interviews is wider.
    let mut a_answers = Vec::new();
    let mut b_answers = Vec::new();
    for t in 0..6 {
        for k in 0..8 {
            let id = format!("t{t}-{k}");
            let src = format!("T{t}.csv");
            a_answers.push((id.clone(), src.clone(), "No."));
            b_answers.push((id, src, if t < 3 { "Yes." } else { "No." }));
        }
    }
    let qa = questions(&dir, "a.json", &a_answers);
    let qb = questions(&dir, "b.json", &b_answers);
    let a = evaluate(&dir, &qa, &corpus(), "a");
    let b = evaluate(&dir, &qb, &corpus(), "b");
    let items = compare_json(&dir, &[("A", &a), ("B", &b)], &["--metric", "score"]);
    let clusters = compare_json(
        &dir,
        &[("A", &a), ("B", &b)],
        &["--metric", "score", "--cluster", "source"],
    );
    assert_eq!(clusters["cluster"], "source");
    let width = |c: &Value| {
        let p = &difference(c, "score", "A", "B")["paired"];
        assert!((p["diff"].as_f64().unwrap() - 0.5).abs() < 1e-12);
        p["ci_high"].as_f64().unwrap() - p["ci_low"].as_f64().unwrap()
    };
    assert!(
        width(&clusters) > 1.5 * width(&items),
        "clustered {} vs items {}",
        width(&clusters),
        width(&items)
    );
    // Six clusters: the exact sign-flip test has 64 assignments; as extreme
    // as the observed one are those that give the three changed clusters
    // one sign (2 of 8), whatever the unchanged three get: p = 16/64.
    let p = difference(&clusters, "score", "A", "B")["paired"]["p_value"]
        .as_f64()
        .unwrap();
    assert!((p - 0.25).abs() < 1e-12, "p {p}");
    assert!(clusters["signature"]
        .as_str()
        .unwrap()
        .contains("resample:transcript"));
}

#[test]
fn mixed_commands_and_different_references_are_refused() {
    let dir = Dir::new("cmp-refuse");
    let q = repo().join("evaluation/data_fixture.json");
    let a = evaluate(&dir, &q, &corpus(), "a");
    // The same transcripts with one more byte: another reference input.
    let mut bytes = std::fs::read(corpus()).unwrap();
    bytes.push(b'\n');
    let other = dir.path().join("corpus2.json");
    std::fs::write(&other, bytes).unwrap();
    let b = evaluate(&dir, &q, &other, "b");
    dir.run(&[
        "compare".to_string(),
        format!("A={}", a.display()),
        format!("B={}", b.display()),
    ])
    .expect_code(2)
    .expect_stderr(&["different transcripts files", "\"A\"", "\"B\""]);
    let g = dir.run_new_folder(
        &[
            "grounding",
            repo()
                .join("evaluation/grounding/sample.json")
                .to_str()
                .unwrap(),
            "--out",
            "g",
        ],
        "g",
    );
    dir.run(&[
        "compare".to_string(),
        format!("A={}", a.display()),
        format!("G={}", g.display()),
    ])
    .expect_code(2)
    .expect_stderr(&["evaluate run", "grounding run"]);
    // --cluster source needs per-item sources; --metric a known metric.
    let g2 = dir.run_new_folder(
        &[
            "grounding",
            repo()
                .join("evaluation/grounding/sample.json")
                .to_str()
                .unwrap(),
            "--out",
            "g2",
        ],
        "g2",
    );
    let pair = [format!("A={}", g.display()), format!("B={}", g2.display())];
    dir.run(&["compare", &pair[0], &pair[1], "--cluster", "source"])
        .expect_code(2)
        .expect_stderr(&["--cluster source", "grounding"]);
    dir.run(&["compare", &pair[0], &pair[1], "--metric", "bogus"])
        .expect_code(2)
        .expect_stderr(&["bogus", "relevance, completeness, hallucination"]);
    // A run folder whose items.csv is damaged names the file, line and column.
    let items = g2.join("items.csv");
    let text = std::fs::read_to_string(&items).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let mut cells: Vec<String> = lines[1].split(',').map(String::from).collect();
    cells[1] = "lots".into();
    lines[1] = cells.join(",");
    std::fs::write(&items, lines.join("\n") + "\n").unwrap();
    dir.run(&["compare", &pair[0], &pair[1]])
        .expect_code(2)
        .expect_stderr(&["items.csv", "line 2", "relevance", "lots"]);
}

#[test]
fn grounding_runs_compare_and_the_page_renders_in_chromium() {
    let dir = Dir::new("cmp-html");
    let input = repo().join("evaluation/grounding/sample.json");
    let run =
        |out: &str| dir.run_new_folder(&["grounding", input.to_str().unwrap(), "--out", out], out);
    let (a, b) = (run("a"), run("b"));
    let cmp = compare_json(&dir, &[("A", &a), ("B", &b)], &[]);
    assert_eq!(
        cmp["metrics"],
        json!(["relevance", "completeness", "hallucination"])
    );
    assert_eq!(cmp["family"]["tests"], 3);
    let folder = dir.path().join(cmp["run_folder"].as_str().unwrap());
    let page = folder.join("comparison.html");
    let html = std::fs::read_to_string(&page).unwrap();
    assert_eq!(
        html.matches("<svg").count(),
        6,
        "a means chart and a difference chart per metric"
    );
    for remote in ["http://", "https://", "src=\"//"] {
        assert!(
            !html.contains(remote),
            "comparison.html references {remote}"
        );
    }
    let Some(dom) = crate::util::chromium_dom(&page, "") else {
        return;
    };
    assert!(dom.contains("data-charts=\"6/6\""), "charts did not draw");
    assert!(dom.contains("<table id=\"changed\">"));
}

/// Writes `rows` (JSON values) to `name` as a JSON array.
fn write_rows(dir: &Dir, name: &str, rows: &[Value]) -> PathBuf {
    dir.write(name, &Value::Array(rows.to_vec()).to_string())
}

#[test]
fn text_eval_lexical_and_judge_answers_runs_compare() {
    let dir = Dir::new("cmp-commands");
    // text-eval: the same questions and references, B answers every item
    // with the reference itself, A with an unrelated sentence.
    let sample: Vec<Value> = serde_json::from_str(
        &std::fs::read_to_string(repo().join("evaluation/text-eval/sample.json")).unwrap(),
    )
    .unwrap();
    let with_response = |good: bool| -> Vec<Value> {
        sample
            .iter()
            .map(|r| {
                let mut r = r.clone();
                r["response"] = if good {
                    r["reference"].clone()
                } else {
                    json!("Bananas are yellow and grow in bunches.")
                };
                r
            })
            .collect()
    };
    let (ta, tb) = (
        write_rows(&dir, "ta.json", &with_response(false)),
        write_rows(&dir, "tb.json", &with_response(true)),
    );
    let text_eval = |input: &Path, out: &str| {
        dir.run_new_folder(
            &[
                "text-eval",
                input.to_str().unwrap(),
                "--no-embeddings",
                "--out",
                out,
            ],
            out,
        )
    };
    let (a, b) = (text_eval(&ta, "ta"), text_eval(&tb, "tb"));
    let cmp = compare_json(&dir, &[("A", &a), ("B", &b)], &[]);
    assert_eq!(cmp["command"], "text-eval");
    assert_eq!(
        cmp["metrics"],
        json!([
            "overall_score",
            "composite_accuracy",
            "composite_relevance",
            "composite_safety",
            "composite_quality"
        ])
    );
    let overall = &difference(&cmp, "overall_score", "A", "B")["paired"];
    assert_eq!(
        overall["n"].as_u64(),
        Some(sample.len() as u64),
        "{overall}"
    );
    assert!(overall["diff"].as_f64().unwrap() > 0.0, "{overall}");

    // lexical: B's predictions are the references, A's are reversed.
    let refs = [
        "the cooperative repaired forty bicycles last spring",
        "the harvest was smaller because the rain came late",
        "we met the mayor twice about the damp flats",
        "the fishermen said the catch halves every decade",
    ];
    let items = |good: bool| -> Vec<Value> {
        refs.iter()
            .enumerate()
            .map(|(k, r)| {
                let p = if good {
                    r.to_string()
                } else {
                    r.split(' ').rev().collect::<Vec<_>>().join(" ")
                };
                json!({"id": format!("i{k}"), "prediction": p, "reference": r})
            })
            .collect()
    };
    let (la, lb) = (
        write_rows(&dir, "la.json", &items(false)),
        write_rows(&dir, "lb.json", &items(true)),
    );
    let lexical = |input: &Path, out: &str| {
        dir.run_new_folder(
            &[
                "lexical",
                input.to_str().unwrap(),
                "--metric",
                "rouge1,rougeL",
                "--out",
                out,
            ],
            out,
        )
    };
    let (a, b) = (lexical(&la, "la"), lexical(&lb, "lb"));
    let cmp = compare_json(
        &dir,
        &[("A", &a), ("B", &b)],
        &["--metric", "rougeL_fmeasure"],
    );
    assert_eq!(cmp["command"], "lexical");
    let rouge_l = &difference(&cmp, "rougeL_fmeasure", "A", "B")["paired"];
    assert_eq!(rouge_l["n"], 4, "{rouge_l}");
    // B is perfect; A's reversed words keep one word of LCS in each.
    assert!(rouge_l["diff"].as_f64().unwrap() > 0.5, "{rouge_l}");

    // judge-answers: each method's score is its own metric; two runs of
    // keyword over different answers compare, keyword against
    // semantic_fixed has no metric in common (exit 2, naming both).
    let answers = repo().join("evaluation/semantic/answers.jsonl");
    let lines: Vec<Value> = std::fs::read_to_string(&answers)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let perfect: Vec<Value> = lines
        .iter()
        .map(|l| {
            let mut l = l.clone();
            l["answer"] = l["ground_truth"].clone();
            l
        })
        .collect();
    let perfect = write_rows(&dir, "perfect.json", &perfect);
    let judge = |input: &Path, method: &str, out: &str| {
        dir.run_new_folder(
            &[
                "judge-answers",
                input.to_str().unwrap(),
                "--method",
                method,
                "--no-plots",
                "--out",
                out,
            ],
            out,
        )
    };
    let (a, b) = (
        judge(&answers, "keyword", "ja"),
        judge(&perfect, "keyword", "jb"),
    );
    let cmp = compare_json(&dir, &[("A", &a), ("B", &b)], &[]);
    assert_eq!(cmp["command"], "judge-answers");
    assert_eq!(cmp["metrics"], json!(["keyword"]));
    let kw = &difference(&cmp, "keyword", "A", "B")["paired"];
    assert_eq!(kw["n"].as_u64(), Some(lines.len() as u64), "{kw}");
    assert!(kw["diff"].as_f64().unwrap() > 0.0, "{kw}");
    let semantic = judge(&answers, "semantic_fixed", "js");
    dir.run(&[
        "compare".to_string(),
        format!("A={}", a.display()),
        format!("S={}", semantic.display()),
        "--out".into(),
        "cmp".into(),
    ])
    .expect_code(2)
    .expect_stderr(&["keyword", "semantic_fixed"]);
}
