//! `corpus-eval lexical`: parity with rouge-score 0.1.2, sacrebleu 2.x and
//! the official SQuAD scripts (reference values computed once by
//! scripts/lexical_reference.py), the command's inputs, outputs and errors.

use crate::util::{fixture, read_json};
use corpus_eval::lexical::bleu::{Bleu, Smooth, Stats, Tokenize};
use corpus_eval::lexical::rouge::{RougeType, Scorer};
use corpus_eval::lexical::{chrf, porter, squad};
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
        if porter::stem(w) != s {
            wrong.push(format!("{w}: {} (nltk {s})", porter::stem(w)));
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
