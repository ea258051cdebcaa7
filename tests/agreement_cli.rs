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
            let v = |c: &Option<corpus_eval::agreement::coefficients::Coefficient>| {
                c.as_ref().and_then(|c| c.value)
            };
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
