//! `corpus-eval lexical`: parity with rouge-score 0.1.2, sacrebleu 2.x and
//! the official SQuAD scripts (reference values computed once by
//! scripts/lexical_reference.py), the command's inputs, outputs and errors.

use crate::util::{fixture, read_json, Dir};
use corpus_eval::lexical::bleu::{Bleu, Smooth, Stats, Tokenize};
use corpus_eval::lexical::rouge::{RougeType, Scorer};
use corpus_eval::lexical::{chrf, squad};
use serde_json::Value;

fn items() -> Vec<Value> {
    std::fs::read_to_string(fixture("lexical/pairs.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn refs(item: &Value) -> Vec<String> {
    match item.get("references") {
        Some(Value::Array(a)) => a.iter().map(|v| v.as_str().unwrap().to_string()).collect(),
        _ => vec![item["reference"].as_str().unwrap().to_string()],
    }
}

fn close(what: &str, got: f64, want: &Value) {
    let w = want
        .as_f64()
        .unwrap_or_else(|| panic!("{what}: reference {want}"));
    assert!(
        (got - w).abs() <= 1e-12,
        "{what}: got {got}, reference {w} (diff {:e})",
        (got - w).abs()
    );
}

#[test]
fn porter_stems_equal_nltk() {
    let text = std::fs::read_to_string(fixture("lexical/porter.tsv")).unwrap();
    let mut n = 0;
    let mut wrong = Vec::new();
    for line in text.lines() {
        let (w, s) = line.split_once('\t').unwrap();
        if corpus_eval::lexical::stem(w) != s {
            wrong.push(format!("{w}: {} (nltk {s})", corpus_eval::lexical::stem(w)));
        }
        n += 1;
    }
    assert!(n > 15_000, "{n}");
    assert!(
        wrong.is_empty(),
        "{} of {n} differ: {:?}",
        wrong.len(),
        &wrong[..wrong.len().min(20)]
    );
}

#[test]
fn rouge_equals_rouge_score() {
    let expected = read_json(&fixture("lexical/expected.json"));
    let names = ["rouge1", "rouge2", "rouge3", "rougeL", "rougeLsum"];
    let types: Vec<RougeType> = names.iter().map(|n| RougeType::parse(n).unwrap()).collect();
    for (stem, key) in [(false, "rouge"), (true, "rouge_stem")] {
        let scorer = Scorer::new(types.clone(), stem);
        for (item, want) in items().iter().zip(expected["items"].as_array().unwrap()) {
            let got = scorer.score_multi(&refs(item), item["prediction"].as_str().unwrap());
            for (k, name) in names.iter().enumerate() {
                let w = &want[key][name];
                let what = format!("{} {key} {name}", want["id"]);
                close(&format!("{what} precision"), got[k].precision, &w[0]);
                close(&format!("{what} recall"), got[k].recall, &w[1]);
                close(&format!("{what} fmeasure"), got[k].fmeasure, &w[2]);
            }
        }
    }
    let alone = Scorer::new(vec![RougeType::Lsum], false);
    for (item, want) in items().iter().zip(expected["items"].as_array().unwrap()) {
        let got = alone.score_multi(&refs(item), item["prediction"].as_str().unwrap());
        close("rougeLsum alone", got[0].fmeasure, &want["rougeLsum_alone"]);
    }
}

#[test]
fn bleu_and_chrf_equal_sacrebleu() {
    let expected = read_json(&fixture("lexical/expected.json"));
    let items = items();
    let want_items = expected["items"].as_array().unwrap();
    for (item, want) in items.iter().zip(want_items) {
        let p = item["prediction"].as_str().unwrap();
        assert_eq!(
            Tokenize::Tok13a.apply(p.trim_end()),
            want["tok13a"].as_str().unwrap(),
            "{}",
            want["id"]
        );
        assert_eq!(
            Tokenize::Intl.apply(p.trim_end()),
            want["tokintl"].as_str().unwrap(),
            "{}",
            want["id"]
        );
    }
    for tok in ["13a", "intl", "char", "none"] {
        for smooth in ["exp", "floor", "add-k", "none"] {
            let bleu = Bleu {
                tokenize: Tokenize::parse(tok).unwrap(),
                smooth: Smooth::parse(smooth).unwrap(),
                smooth_value: None,
            };
            let mut total = Stats::default();
            for (item, want) in items.iter().zip(want_items) {
                let s = bleu.stats(item["prediction"].as_str().unwrap(), &refs(item));
                total += s;
                close(
                    &format!("{} sentence bleu/{tok}/{smooth}", want["id"]),
                    bleu.score(&s, true),
                    &want[format!("bleu/{tok}/{smooth}")],
                );
            }
            close(
                &format!("corpus bleu/{tok}/{smooth}"),
                bleu.score(&total, false),
                &expected["corpus"][format!("bleu/{tok}/{smooth}")],
            );
        }
    }
    for (smooth, value, key) in [
        (Smooth::Floor, 0.3, "bleu/13a/floor0.3"),
        (Smooth::AddK, 2.0, "bleu/13a/add-k2"),
    ] {
        let bleu = Bleu {
            tokenize: Tokenize::Tok13a,
            smooth,
            smooth_value: Some(value),
        };
        let mut total = Stats::default();
        for item in &items {
            total += bleu.stats(item["prediction"].as_str().unwrap(), &refs(item));
        }
        close(key, bleu.score(&total, false), &expected["corpus"][key]);
    }
    let mut total = [[0u64; 3]; chrf::CHAR_ORDER];
    for (item, want) in items.iter().zip(want_items) {
        let s = chrf::stats(item["prediction"].as_str().unwrap(), &refs(item));
        chrf::add(&mut total, &s);
        close(
            &format!("{} chrf", want["id"]),
            chrf::score(&s),
            &want["chrf"],
        );
    }
    close(
        "corpus chrf",
        chrf::score(&total),
        &expected["corpus"]["chrf"],
    );
}

#[test]
fn squad_equals_the_official_scripts() {
    let expected = read_json(&fixture("lexical/expected.json"));
    for (version, key) in [
        (squad::Version::V1, "squad1.1"),
        (squad::Version::V2, "squad2.0"),
    ] {
        for (item, want) in items().iter().zip(expected["items"].as_array().unwrap()) {
            let (em, f1) = squad::score(item["prediction"].as_str().unwrap(), &refs(item), version);
            close(&format!("{} {key} em", want["id"]), em, &want[key][0]);
            close(&format!("{} {key} f1", want["id"]), f1, &want[key][1]);
        }
    }
}

fn pairs_arg() -> String {
    fixture("lexical/pairs.jsonl").display().to_string()
}

fn json_of(r: &crate::util::Run) -> Value {
    serde_json::from_str(r.stdout().trim()).expect("one JSON object on stdout")
}

#[test]
fn the_command_prints_the_reference_numbers() {
    let expected = read_json(&fixture("lexical/expected.json"));
    let c = &expected["corpus"];
    let d = Dir::new("lexical-json");
    let out = json_of(&d.run(&["lexical", &pairs_arg(), "--json"]).expect_code(0));
    let keys: Vec<&str> = out
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "rouge1",
            "rouge2",
            "rougeL",
            "rougeLsum",
            "bleu",
            "chrf",
            "squad_em",
            "squad_f1",
            "n",
            "signatures"
        ]
    );
    assert_eq!(out["n"], 400);
    for (key, want) in [
        ("rouge1", &c["rouge/rouge1"]),
        ("rouge2", &c["rouge/rouge2"]),
        ("rougeL", &c["rouge/rougeL"]),
        ("rougeLsum", &c["rouge/rougeLsum"]),
        ("bleu", &c["bleu/13a/exp"]),
        ("chrf", &c["chrf"]),
        ("squad_em", &c["squad2.0/em"]),
        ("squad_f1", &c["squad2.0/f1"]),
    ] {
        close(key, out[key].as_f64().unwrap(), want);
    }
    let sig = out["signatures"]["bleu"].as_str().unwrap();
    assert!(
        sig.starts_with("bleu|nrefs:var|case:mixed|eff:no|tok:13a|smooth:exp|"),
        "{sig}"
    );
    assert!(out["signatures"]["rouge1"]
        .as_str()
        .unwrap()
        .starts_with("rouge1|tok:rouge-score|stem:no|"));

    // Other settings, only the metrics asked for.
    let out = json_of(
        &d.run(&[
            "lexical",
            &pairs_arg(),
            "--json",
            "--metric",
            "rouge3,rougeL,bleu,squad",
            "--stemmer",
            "--bleu-tokenize",
            "intl",
            "--bleu-smooth",
            "floor",
            "--squad-version",
            "1.1",
        ])
        .expect_code(0),
    );
    let keys: Vec<&str> = out
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "rouge3",
            "rougeL",
            "bleu",
            "squad_em",
            "squad_f1",
            "n",
            "signatures"
        ]
    );
    close(
        "rouge3 stem",
        out["rouge3"].as_f64().unwrap(),
        &c["rouge_stem/rouge3"],
    );
    close(
        "rougeL stem",
        out["rougeL"].as_f64().unwrap(),
        &c["rouge_stem/rougeL"],
    );
    close(
        "bleu intl floor",
        out["bleu"].as_f64().unwrap(),
        &c["bleu/intl/floor"],
    );
    close(
        "squad1.1 em",
        out["squad_em"].as_f64().unwrap(),
        &c["squad1.1/em"],
    );
    close(
        "squad1.1 f1",
        out["squad_f1"].as_f64().unwrap(),
        &c["squad1.1/f1"],
    );
    assert!(out["signatures"]["bleu"]
        .as_str()
        .unwrap()
        .contains("tok:intl|smooth:floor[0.10]"));
    assert!(out["signatures"]["rougeL"]
        .as_str()
        .unwrap()
        .contains("stem:porter-nltk"));
    assert!(out["signatures"]["squad"]
        .as_str()
        .unwrap()
        .contains("v:1.1"));
    let out = json_of(
        &d.run(&[
            "lexical",
            &pairs_arg(),
            "--json",
            "--metric",
            "bleu",
            "--bleu-smooth",
            "add-k",
            "--bleu-smooth-value",
            "2",
        ])
        .expect_code(0),
    );
    close(
        "bleu add-k 2",
        out["bleu"].as_f64().unwrap(),
        &c["bleu/13a/add-k2"],
    );

    // The terminal table names every number and signature.
    let t = d.run(&["lexical", &pairs_arg()]).expect_code(0);
    for k in [
        "rouge1",
        "rougeLsum",
        "bleu",
        "chrf",
        "squad_f1",
        "signature: chrF2|nrefs:var",
    ] {
        assert!(t.stdout().contains(k), "{k}: {}", t.stdout());
    }
}

#[test]
fn per_item_lines_and_text_files_agree_with_the_items_file() {
    let expected = read_json(&fixture("lexical/expected.json"));
    let d = Dir::new("lexical-per-item");
    d.run(&[
        "lexical",
        &pairs_arg(),
        "--per-item",
        "items.jsonl",
        "--json",
    ])
    .expect_code(0);
    let lines = crate::util::read_jsonl(&d.path().join("items.jsonl"));
    assert_eq!(lines.len(), 400);
    for (k, (line, want)) in lines
        .iter()
        .zip(expected["items"].as_array().unwrap())
        .enumerate()
    {
        assert_eq!(line["index"], k);
        assert_eq!(line["id"], want["id"]);
        close(
            "rouge1 f",
            line["rouge1"]["fmeasure"].as_f64().unwrap(),
            &want["rouge"]["rouge1"][2],
        );
        close(
            "rougeL p",
            line["rougeL"]["precision"].as_f64().unwrap(),
            &want["rouge"]["rougeL"][0],
        );
        close(
            "sentence bleu",
            line["bleu"].as_f64().unwrap(),
            &want["bleu/13a/exp"],
        );
        close(
            "sentence chrf",
            line["chrf"].as_f64().unwrap(),
            &want["chrf"],
        );
        close(
            "squad f1",
            line["squad_f1"].as_f64().unwrap(),
            &want["squad2.0"][1],
        );
    }

    // Single-line items with one or two references as text files: the same
    // numbers as the JSON items.
    let items: Vec<Value> = super::lexical_cli::items()
        .into_iter()
        .filter(|i| {
            let r = refs(i);
            (r.len() == 2)
                && !i["prediction"].as_str().unwrap().contains('\n')
                && r.iter().all(|x| !x.contains('\n'))
        })
        .collect();
    assert!(items.len() >= 10, "{}", items.len());
    let mut preds = String::new();
    let (mut r1, mut r2) = (String::new(), String::new());
    let mut jsonl = String::new();
    for i in &items {
        preds.push_str(&format!("{}\n", i["prediction"].as_str().unwrap()));
        let r = refs(i);
        r1.push_str(&format!("{}\r\n", r[0]));
        r2.push_str(&format!("{}\n", r[1]));
        jsonl.push_str(&format!(
            "{}\n",
            serde_json::json!({"prediction": i["prediction"], "references": r})
        ));
    }
    d.write("p.txt", &preds);
    d.write("r1.txt", &r1);
    d.write("r2.txt", &r2);
    d.write("i.jsonl", &jsonl);
    let a = json_of(
        &d.run(&["lexical", "p.txt", "r1.txt", "r2.txt", "--json"])
            .expect_code(0),
    );
    let b = json_of(&d.run(&["lexical", "i.jsonl", "--json"]).expect_code(0));
    assert_eq!(a, b);
    assert!(a["signatures"]["bleu"]
        .as_str()
        .unwrap()
        .contains("nrefs:2"));
    assert_eq!(a["n"], items.len());
}

#[test]
fn run_folder_rerun_and_judge_answers_runs_as_input() {
    let d = Dir::new("lexical-run");
    let folder = d.run_new_folder(
        &[
            "lexical",
            &pairs_arg(),
            "--out",
            "runs",
            "--resamples",
            "100",
            "--metric",
            "rouge1,bleu,chrf",
        ],
        "runs",
    );
    let summary = read_json(&folder.join("summary.json"));
    assert!(
        summary["intervals"]["bleu"]["ci_low"].as_f64().unwrap()
            < summary["bleu"].as_f64().unwrap()
    );
    assert!(
        summary["intervals"]["bleu"]["ci_high"].as_f64().unwrap()
            > summary["bleu"].as_f64().unwrap()
    );
    assert_eq!(
        crate::util::read_jsonl(&folder.join("items.jsonl")).len(),
        400
    );
    let manifest = read_json(&folder.join("manifest.json"));
    assert_eq!(manifest["command"], "lexical");
    let r = d.run(&["rerun", folder.to_str().unwrap()]).expect_code(0);
    assert!(r.stdout().contains("identical"), "{}", r.stdout());

    // A judge-answers run folder: its answers against its ground truths.
    let answers = crate::util::repo().join("evaluation/semantic/answers.jsonl");
    let judged = d.run_new_folder(
        &[
            "judge-answers",
            answers.to_str().unwrap(),
            "--method",
            "keyword",
            "--out",
            "judged",
        ],
        "judged",
    );
    let from_run = json_of(
        &d.run(&[
            "lexical",
            judged.to_str().unwrap(),
            "--json",
            "--metric",
            "rouge1,squad",
        ])
        .expect_code(0),
    );
    let direct = json_of(
        &d.run(&[
            "lexical",
            answers.to_str().unwrap(),
            "--json",
            "--metric",
            "rouge1,squad",
            "--prediction-field",
            "answer",
            "--reference-field",
            "ground_truth",
        ])
        .expect_code(0),
    );
    assert_eq!(from_run, direct);
    assert_eq!(from_run["n"], 24);
    // Not a run with pairs.
    d.run(&["lexical", folder.to_str().unwrap()])
        .expect_code(2)
        .expect_stderr(&["\"lexical\" run has no prediction/reference pairs"]);
}

#[test]
fn bad_input_is_exit_2_with_file_row_and_field() {
    let d = Dir::new("lexical-errors");
    d.write(
        "a.jsonl",
        "{\"prediction\": \"x\", \"reference\": \"y\"}\n{\"prediction\": \"x\"}\n",
    );
    d.run(&["lexical", "a.jsonl"])
        .expect_code(2)
        .expect_stderr(&["a.jsonl", "row 1", "`reference`", "missing"]);
    d.write("b.jsonl", "{\"prediction\": 3, \"reference\": \"y\"}\n");
    d.run(&["lexical", "b.jsonl"])
        .expect_code(2)
        .expect_stderr(&["b.jsonl", "row 0", "`prediction`"]);
    d.write("c.json", "[{\"prediction\": \"x\", \"references\": []}]");
    d.run(&["lexical", "c.json"])
        .expect_code(2)
        .expect_stderr(&["c.json", "`references`", "at least one reference"]);
    d.write("d.json", "[{\"prediction\": \"x\",, }]");
    d.run(&["lexical", "d.json"])
        .expect_code(2)
        .expect_stderr(&["d.json:1:"]);
    d.write("p.txt", "a\nb\n");
    d.write("r.txt", "a\n");
    d.run(&["lexical", "p.txt", "r.txt"])
        .expect_code(2)
        .expect_stderr(&["r.txt has 1 lines but p.txt has 2"]);
    d.run(&["lexical", "p.txt"])
        .expect_code(2)
        .expect_stderr(&["p.txt"]);
    d.write(
        "ok.jsonl",
        "{\"prediction\": \"x\", \"reference\": \"y\"}\n",
    );
    for (args, needle) in [
        (
            vec!["--metric", "rouge1,meteor"],
            "unknown metric \"meteor\"",
        ),
        (vec!["--metric", "rouge10"], "unknown metric"),
        (vec!["--resamples", "5"], "--resamples"),
        (
            vec!["--bleu-smooth-value", "0.2"],
            "only applies to floor and add-k",
        ),
        (
            vec!["--bleu-smooth", "floor", "--bleu-smooth-value", "-1"],
            "--bleu-smooth-value",
        ),
        (
            vec!["--bleu-smooth", "floor", "--bleu-smooth-value", "NaN"],
            "--bleu-smooth-value",
        ),
        (vec!["--bleu-tokenize", "zh"], "zh"),
    ] {
        let mut a = vec!["lexical", "ok.jsonl"];
        a.extend(args);
        d.run(&a).expect_code(2).expect_stderr(&[needle]);
    }
    // Nothing to score.
    d.write("empty.jsonl", "\n");
    d.run(&["lexical", "empty.jsonl"])
        .expect_code(2)
        .expect_stderr(&["no items to score"]);
    d.write("none.txt", "");
    d.run(&["lexical", "none.txt", "none.txt"])
        .expect_code(2)
        .expect_stderr(&["no items to score"]);
    // Nothing written by a failed run.
    d.run(&[
        "lexical",
        "a.jsonl",
        "--out",
        "runs",
        "--per-item",
        "pi.jsonl",
    ])
    .expect_code(2);
    assert!(!d.path().join("runs").exists() && !d.path().join("pi.jsonl").exists());
    // Empty texts are scored, never NaN.
    d.write("e.jsonl", "{\"prediction\": \"\", \"reference\": \"\"}\n{\"prediction\": \"...\", \"references\": [\"\", \"!\"]}\n");
    let out = json_of(&d.run(&["lexical", "e.jsonl", "--json"]).expect_code(0));
    for k in ["rouge1", "rouge2", "rougeL", "rougeLsum", "bleu", "chrf"] {
        assert_eq!(out[k].as_f64(), Some(0.0), "{k}");
    }
    assert_eq!(out["squad_em"].as_f64(), Some(100.0));
}
