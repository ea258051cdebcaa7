//! `corpus-eval agreement`: parity with scikit-learn, statsmodels,
//! krippendorff and irrCAC (reference values computed once by
//! scripts/agreement_reference.py), the join, the outputs and the errors.

use crate::util::{fixture, png_size, read_json, Dir};
use corpus_eval::agreement::Level;
use corpus_eval::jobs::agreement::{run, Config};
use serde_json::Value;

fn close(name: &str, key: &str, got: Option<f64>, want: &Value) {
    match (got, want.as_f64()) {
        (Some(g), Some(w)) => assert!(
            (g - w).abs() <= 1e-9,
            "{name} {key}: got {g}, reference {w} (diff {:e})",
            (g - w).abs()
        ),
        (None, None) => {}
        (g, _) => panic!("{name} {key}: got {g:?}, reference {want}"),
    }
}

#[test]
fn coefficients_equal_the_reference_libraries() {
    let expected = read_json(&fixture("agreement/expected.json"));
    let tables = expected["tables"].as_object().unwrap();
    assert!(tables.len() >= 40, "the reference set has 48 tables");
    let mut checked = 0;
    for (name, want) in tables {
        let level: Level = serde_json::from_value(want["level"].clone()).unwrap();
        let config = Config {
            id: "id".into(),
            level,
            resamples: 0,
            ..Config::default()
        };
        let a = run(&config, &[fixture(&format!("agreement/tables/{name}"))]).unwrap();
        assert_eq!(
            a.n_items as u64,
            want["n_items"].as_u64().unwrap(),
            "{name}"
        );
        assert_eq!(
            a.n_ratings as u64,
            want["n_ratings"].as_u64().unwrap(),
            "{name}"
        );
        assert_eq!(
            a.n_raters as u64,
            want["raters"].as_u64().unwrap(),
            "{name}"
        );
        assert_eq!(
            a.n_disagreements as u64,
            want["disagreements"].as_u64().unwrap(),
            "{name}"
        );
        assert_eq!(
            a.fleiss_kappa.n_items as u64,
            want["fleiss_items"].as_u64().unwrap(),
            "{name}"
        );
        let mut check = |key: &str, got: Option<f64>| {
            close(name, key, got, &want[key]);
            checked += 1;
        };
        check("percent_agreement", a.percent_agreement.value);
        check("cohen_kappa", a.cohen_kappa.value);
        check("fleiss_kappa", a.fleiss_kappa.value);
        check("krippendorff_alpha", a.krippendorff_alpha.value);
        check("gwet_ac1", a.gwet_ac1.value);
        check("prevalence_index", a.prevalence_index.value);
        check("bias_index", a.bias_index.value);
        check("pabak", a.pabak.value);
        if level.is_numeric() {
            let v =
                |c: &Option<corpus_eval::agreement::Coefficient>| c.as_ref().and_then(|c| c.value);
            check("cohen_kappa_linear", v(&a.cohen_kappa_linear));
            check("cohen_kappa_quadratic", v(&a.cohen_kappa_quadratic));
            check("gwet_ac2_linear", v(&a.gwet_ac2_linear));
            check("gwet_ac2_quadratic", v(&a.gwet_ac2_quadratic));
            assert_eq!(v(&a.gwet_ac2), v(&a.gwet_ac2_quadratic));
        } else {
            assert!(a.cohen_kappa_linear.is_none() && a.gwet_ac2.is_none());
        }
        if let Some(c) = &a.confusion_matrix {
            let labels: Vec<String> =
                serde_json::from_value(want["confusion_labels"].clone()).unwrap();
            let counts: Vec<Vec<u64>> =
                serde_json::from_value(want["confusion_counts"].clone()).unwrap();
            assert_eq!(c.labels, labels, "{name}");
            assert_eq!(c.counts, counts, "{name}");
        }
    }
    assert!(checked > 400, "{checked} values compared");
}

/// Two coders in two files, joined on the id (outer join).
fn two_coders(dir: &Dir) -> (std::path::PathBuf, std::path::PathBuf) {
    let a = dir.write(
        "alice.csv",
        "quote_id,alice\nq1,verbatim\nq2,paraphrase\nq3,verbatim\nq4,fabricated\nq5,verbatim\nq6,verbatim\n",
    );
    let b = dir.write(
        "bob.jsonl",
        "{\"quote_id\": \"q1\", \"bob\": \"verbatim\"}\n{\"quote_id\": \"q2\", \"bob\": \"verbatim\"}\n{\"quote_id\": \"q3\", \"bob\": \"verbatim\"}\n{\"quote_id\": \"q4\", \"bob\": \"fabricated\"}\n{\"quote_id\": \"q5\", \"bob\": null}\n{\"quote_id\": \"q7\", \"bob\": \"paraphrase\"}\n",
    );
    (a, b)
}

#[test]
fn json_output_joins_files_and_names_every_key() {
    let dir = Dir::new("agreement-json");
    let (a, b) = two_coders(&dir);
    let run = dir
        .run(&[
            "agreement",
            a.to_str().unwrap(),
            b.to_str().unwrap(),
            "--id",
            "quote_id",
            "--json",
            "--resamples",
            "200",
        ])
        .expect_code(0);
    let out: Value = serde_json::from_str(run.stdout().trim()).expect("one JSON object on stdout");
    for key in [
        "percent_agreement",
        "cohen_kappa",
        "fleiss_kappa",
        "krippendorff_alpha",
        "gwet_ac1",
        "prevalence_index",
        "bias_index",
        "n_items",
        "n_raters",
        "n_ratings",
        "rater_counts",
        "confusion_matrix",
        "disagreements",
        "signature",
    ] {
        assert!(out.get(key).is_some(), "missing {key}: {out}");
    }
    assert_eq!(out["n_items"], 7);
    assert_eq!(out["n_raters"], 2);
    assert_eq!(out["n_ratings"], 11);
    assert_eq!(
        out["rater_counts"],
        serde_json::json!({"alice": 6, "bob": 5})
    );
    // q1..q4 rated by both: q2 disagrees.
    assert_eq!(out["disagreements"], serde_json::json!(["q2"]));
    assert_eq!(out["cohen_kappa"]["n_items"], 4);
    assert_eq!(out["percent_agreement"]["value"], 0.75);
    let c = &out["confusion_matrix"];
    assert_eq!(
        c["labels"],
        serde_json::json!(["fabricated", "paraphrase", "verbatim"])
    );
    assert_eq!(
        c["counts"],
        serde_json::json!([[1, 0, 0], [0, 0, 1], [0, 0, 2]])
    );
    // Three values: no prevalence/bias index, with the reason.
    assert!(out["prevalence_index"]["value"].is_null());
    assert!(out["prevalence_index"]["note"].is_string());
    let sig = out["signature"].as_str().unwrap();
    assert!(
        sig.contains("level:nominal") && sig.contains("resamples:200") && sig.contains("seed:42"),
        "{sig}"
    );
    let k = &out["cohen_kappa"];
    assert!(k["ci_low"].as_f64().unwrap() <= k["value"].as_f64().unwrap());
    // Same seed, same intervals; the terminal report lists the disagreement.
    let again = dir.run(&[
        "agreement",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--id",
        "quote_id",
        "--json",
        "--resamples",
        "200",
    ]);
    assert_eq!(again.stdout(), run.stdout());
    let table = dir
        .run(&[
            "agreement",
            a.to_str().unwrap(),
            b.to_str().unwrap(),
            "--id",
            "quote_id",
        ])
        .expect_code(0)
        .stdout();
    assert!(
        table.contains("cohen_kappa") && table.contains("disagreements: 1 items: q2"),
        "{table}"
    );
}

#[test]
fn run_folder_has_manifest_json_csv_and_heat_map() {
    let dir = Dir::new("agreement-out");
    let (a, b) = two_coders(&dir);
    let folder = dir.run_new_folder(
        &[
            "agreement",
            a.to_str().unwrap(),
            b.to_str().unwrap(),
            "--id",
            "quote_id",
            "--out",
            "runs",
        ],
        "runs",
    );
    let m = read_json(&folder.join("manifest.json"));
    assert_eq!(m["command"], "agreement");
    assert_eq!(m["status"], "complete");
    assert!(m["inputs"]["input"].is_object() && m["inputs"]["input2"].is_object());
    let result = read_json(&folder.join("agreement.json"));
    assert_eq!(result["disagreements"], serde_json::json!(["q2"]));
    let csv = std::fs::read_to_string(folder.join("disagreements.csv")).unwrap();
    assert_eq!(csv, "id,alice,bob\nq2,paraphrase,verbatim\n");
    // Every item, flat: the raters' values, how many, whether all agree.
    let items = std::fs::read_to_string(folder.join("items.csv")).unwrap();
    assert_eq!(
        items,
        "id,alice,bob,n_ratings,agree\nq1,verbatim,verbatim,2,true\nq2,paraphrase,verbatim,2,false\n\
         q3,verbatim,verbatim,2,true\nq4,fabricated,fabricated,2,true\nq5,verbatim,,1,\n\
         q6,verbatim,,1,\nq7,,paraphrase,1,\n"
    );
    let (w, h) = png_size(&folder.join("confusion_matrix.png"));
    assert!(w >= 800 && h >= 800, "{w}x{h}");
    // rerun reproduces every output.
    let r = dir.run(&["rerun", folder.to_str().unwrap()]).expect_code(0);
    assert!(r.stdout().contains("identical"), "{}", r.stdout());
}

#[test]
fn numeric_levels_weight_the_distance() {
    let dir = Dir::new("agreement-levels");
    let f = dir.write(
        "scores.tsv",
        "id\ta\tb\tc\n1\t1\t2\t1\n2\t3\t3\t2\n3\t5\t4\t5\n4\t2\t2\t\n5\t4\t5\t4\n6\t1\t1\t1\n",
    );
    let json = |level: &str| -> Value {
        let r = dir
            .run(&[
                "agreement",
                f.to_str().unwrap(),
                "--id",
                "id",
                "--level",
                level,
                "--json",
                "--resamples",
                "0",
            ])
            .expect_code(0);
        serde_json::from_str(r.stdout().trim()).unwrap()
    };
    let nominal = json("nominal");
    let interval = json("interval");
    assert!(nominal.get("gwet_ac2").is_none());
    assert!(interval["gwet_ac2"]["value"].is_number());
    // Near misses count as near agreement at the interval level.
    assert!(
        interval["krippendorff_alpha"]["value"].as_f64().unwrap()
            > nominal["krippendorff_alpha"]["value"].as_f64().unwrap()
    );
    // Three raters: Cohen's kappa is not defined; Fleiss uses the 5 complete items.
    assert!(interval["cohen_kappa"]["value"].is_null());
    assert_eq!(interval["fleiss_kappa"]["n_items"], 5);
    assert!(interval["confusion_matrix"].is_null());
    assert!(
        interval["percent_agreement"]["ci_low"].is_null(),
        "no resamples, no interval"
    );
}

#[test]
fn raters_pick_and_order_columns() {
    let dir = Dir::new("agreement-raters");
    let f = dir.write(
        "t.csv",
        "id,note,b,a\nx,hello,yes,no\ny,hi,no,no\nz,,yes,yes\n",
    );
    let r = dir
        .run(&[
            "agreement",
            f.to_str().unwrap(),
            "--id",
            "id",
            "--raters",
            "a,b",
            "--json",
            "--resamples",
            "0",
        ])
        .expect_code(0);
    let out: Value = serde_json::from_str(r.stdout().trim()).unwrap();
    assert_eq!(out["confusion_matrix"]["rows"], "a");
    assert_eq!(
        out["confusion_matrix"]["counts"],
        serde_json::json!([[1, 1], [0, 1]])
    );
    assert_eq!(out["disagreements"], serde_json::json!(["x"]));
}

#[test]
fn bad_input_is_exit_2_naming_file_row_and_column() {
    let dir = Dir::new("agreement-errors");
    let _ = dir.write("t.csv", "id,a,b\n1,2,3\n2,x,3\n");
    dir.run(&["agreement", "t.csv", "--id", "id", "--level", "ordinal"])
        .expect_code(2)
        .expect_stderr(&["t.csv", "row 1", "`a`", "\"x\" is not a finite number"]);
    dir.run(&["agreement", "t.csv", "--id", "nope"])
        .expect_code(2)
        .expect_stderr(&["t.csv", "no id column \"nope\""]);
    dir.run(&["agreement", "t.csv", "--id", "id", "--raters", "a,zz"])
        .expect_code(2)
        .expect_stderr(&["no file has a column \"zz\""]);
    dir.write("dup.csv", "id,a,b\n1,x,y\n1,x,x\n");
    dir.run(&["agreement", "dup.csv", "--id", "id"])
        .expect_code(2)
        .expect_stderr(&["dup.csv", "row 1", "repeats row 0"]);
    dir.write("one.csv", "id,a\n1,x\n");
    dir.run(&["agreement", "one.csv", "--id", "id"])
        .expect_code(2)
        .expect_stderr(&["two rater columns"]);
    dir.run(&["agreement", "t.csv", "--id", "id", "--resamples", "5"])
        .expect_code(2)
        .expect_stderr(&["--resamples"]);
    dir.write("neg.csv", "id,a,b\n1,-1,2\n");
    dir.run(&["agreement", "neg.csv", "--id", "id", "--level", "ratio"])
        .expect_code(2)
        .expect_stderr(&["neg.csv", "negative"]);
    dir.write("bad.json", "[{\"id\": 1, \"a\": [1], \"b\": 2}]");
    dir.run(&["agreement", "bad.json", "--id", "id"])
        .expect_code(2)
        .expect_stderr(&["bad.json", "item 0", "`a`"]);
    dir.write("broken.json", "[{\"id\": 1,, }]");
    dir.run(&["agreement", "broken.json", "--id", "id"])
        .expect_code(2)
        .expect_stderr(&["broken.json:1:"]);
    // Two files rating the same item differently for one rater.
    dir.write("c1.csv", "id,a,b\n1,x,y\n");
    dir.write("c2.csv", "id,a\n1,z\n");
    dir.run(&["agreement", "c1.csv", "c2.csv", "--id", "id"])
        .expect_code(2)
        .expect_stderr(&["c2.csv", "c1.csv"]);
    dir.run(&["agreement", "t.txt", "--id", "id"])
        .expect_code(2);
    // Nothing half-written.
    assert!(!dir.path().join("reports").exists());
}

/// The README's worked example: 90 shared `verbatim`, 5/5 splits, never both
/// `fabricated`. Expected values derived by hand from the formulas.
#[test]
fn the_kappa_paradox_as_the_readme_works_it() {
    let dir = Dir::new("agreement-paradox");
    let f = fixture("agreement/paradox.csv");
    let r = dir
        .run(&[
            "agreement",
            f.to_str().unwrap(),
            "--id",
            "quote_id",
            "--json",
        ])
        .expect_code(0);
    let out: Value = serde_json::from_str(r.stdout().trim()).unwrap();
    let v = |k: &str| out[k]["value"].as_f64().unwrap();
    // po = 0.9, pe = 0.95^2 + 0.05^2 = 0.905.
    assert!((v("percent_agreement") - 0.9).abs() < 1e-12);
    assert!((v("cohen_kappa") - (0.9 - 0.905) / (1.0 - 0.905)).abs() < 1e-12);
    // AC1: pe = 2 * 0.05 * 0.95 / (2 - 1) = 0.095.
    assert!((v("gwet_ac1") - (0.9 - 0.095) / (1.0 - 0.095)).abs() < 1e-12);
    // Alpha: Do = 20/200, De = 2 * 10 * 190 / (200 * 199).
    let de = 2.0 * 10.0 * 190.0 / (200.0 * 199.0);
    assert!((v("krippendorff_alpha") - (1.0 - 0.1 / de)).abs() < 1e-12);
    assert!((v("prevalence_index") + 0.9).abs() < 1e-12);
    assert_eq!(v("bias_index"), 0.0);
    assert!((v("pabak") - 0.8).abs() < 1e-12);
    assert_eq!(out["n_disagreements"], 10);
    assert_eq!(
        out["confusion_matrix"]["counts"],
        serde_json::json!([[0, 5], [5, 90]])
    );
    // The terminal shows the first 20 disagreements (here all 10) and the signature.
    let t = dir
        .run(&["agreement", f.to_str().unwrap(), "--id", "quote_id"])
        .expect_code(0);
    assert!(t.stdout().contains("q090, q091"), "{}", t.stdout());
    assert!(
        t.stdout().contains("resamples:2000|seed:42"),
        "{}",
        t.stdout()
    );
}

/// An `evaluate` run folder's quotes.csv joins with a coder's sheet on
/// `quote_id`.
#[test]
fn evaluate_run_folder_joins_a_coders_sheet() {
    let dir = Dir::new("agreement-evaluate");
    let root = crate::util::repo();
    let q = root.join("evaluation/data_fixture.json");
    let t = root.join("datasets/corpus.json");
    let run = dir.run_new_folder(
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
    let mut table = csv::Reader::from_path(run.join("quotes.csv")).unwrap();
    let header: Vec<String> = table.headers().unwrap().iter().map(String::from).collect();
    assert_eq!(
        header,
        [
            "pair_id",
            "answer_index",
            "quote_index",
            "quote_id",
            // Issue 53: the quote as cited, who the answer says said it,
            // who speaks where it was found.
            "quote",
            "source",
            "cited_speaker",
            "span_speaker",
            "verdict",
            "attribution",
            "similarity",
            "found",
            "span_start",
            "span_end",
            // Issue 43: when the quote was said (empty for JSON chunks).
            "time_start",
            "time_end",
            // Issue 40: what was ignored to find each quote.
            "differences",
            // Issue 57: what the quote changes in what was said.
            "meaning",
        ]
    );
    // The coder agrees except on the first two quotes, where she says
    // `fabricated` (or `exact` if the tool said fabricated).
    let mut sheet = String::from("quote_id,coder\n");
    let mut flipped = Vec::new();
    let mut n = 0;
    for (i, row) in table.records().enumerate() {
        let cells = row.unwrap();
        let (id, verdict) = (&cells[3], &cells[8]);
        assert_eq!(
            id,
            format!("{}/{}/{}", &cells[0], &cells[1], &cells[2]),
            "quote_id is PAIR/ANSWER/QUOTE"
        );
        let coder = if i < 2 {
            flipped.push(id.to_string());
            if verdict == "fabricated" {
                "exact"
            } else {
                "fabricated"
            }
        } else {
            verdict
        };
        sheet.push_str(&format!("{id},{coder}\n"));
        n += 1;
    }
    assert!(n >= 10, "the sample has quotes");
    let coder = dir.write("coder.csv", &sheet);
    let r = dir
        .run(&[
            "agreement",
            run.to_str().unwrap(),
            coder.to_str().unwrap(),
            "--id",
            "quote_id",
            "--raters",
            "verdict,coder",
            "--json",
            "--resamples",
            "0",
        ])
        .expect_code(0);
    let out: Value = serde_json::from_str(r.stdout().trim()).unwrap();
    assert_eq!(out["n_items"], n);
    assert_eq!(out["disagreements"], serde_json::json!(flipped));
    let pa = out["percent_agreement"]["value"].as_f64().unwrap();
    assert!((pa - (n - 2) as f64 / n as f64).abs() < 1e-12);
}

/// `judge-answers --agreement` reports the same coefficients as `agreement`
/// over the run folder's items.csv (verdict against label).
#[test]
fn judge_answers_agreement_equals_agreement_over_items_csv() {
    let dir = Dir::new("agreement-judge");
    let answers = crate::util::repo().join("evaluation/semantic/answers.jsonl");
    let before = dir.run_folders("runs");
    let r = dir
        .run(&[
            "judge-answers",
            answers.to_str().unwrap(),
            "--method",
            "keyword",
            "--agreement",
            "--json",
            "--out",
            "runs",
        ])
        .expect_code(0);
    let summary: Value = serde_json::from_str(r.stdout().lines().last().unwrap()).unwrap();
    let folder = dir
        .run_folders("runs")
        .into_iter()
        .find(|f| !before.contains(f))
        .unwrap();
    let block = &summary["agreement"];
    assert_eq!(block["n_items"], 24, "{block}");
    assert_eq!(block["n_raters"], 2);
    let items = std::fs::read_to_string(folder.join("items.csv")).unwrap();
    assert!(
        items.starts_with("id,system,method,score,similarity,verdict,label\n"),
        "{items}"
    );
    let r = dir
        .run(&[
            "agreement",
            folder.to_str().unwrap(),
            "--id",
            "id",
            "--raters",
            "verdict,label",
            "--json",
        ])
        .expect_code(0);
    let direct: Value = serde_json::from_str(r.stdout().trim()).unwrap();
    for k in [
        "percent_agreement",
        "cohen_kappa",
        "fleiss_kappa",
        "krippendorff_alpha",
        "gwet_ac1",
        "prevalence_index",
        "bias_index",
        "pabak",
    ] {
        assert_eq!(block[k]["value"], direct[k]["value"], "{k}");
        assert_eq!(block[k]["ci_low"], direct[k]["ci_low"], "{k}");
    }
    assert_eq!(block["disagreements"], direct["disagreements"]);
    assert_eq!(
        block["confusion_matrix"]["counts"],
        direct["confusion_matrix"]["counts"]
    );
    // Without labels, --agreement is an error.
    let unlabelled = dir.write(
        "u.json",
        r#"[{"answer": "Paris", "ground_truth": "Paris"}]"#,
    );
    dir.run(&[
        "judge-answers",
        unlabelled.to_str().unwrap(),
        "--method",
        "keyword",
        "--agreement",
    ])
    .expect_code(2)
    .expect_stderr(&["label"]);
}
