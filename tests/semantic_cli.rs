//! The embedding model, `similarity`, `embed`, `threshold`, and the
//! model-based methods of `judge-answers`. These need all-MiniLM-L6-v2
//! (fetched by `util::model_dir`); they fail, never skip, without it.

use crate::util::{fixture, model_dir, read_json, read_jsonl, Dir};
use corpus_eval::semantic::{Embedder, EmbeddingCache, EngineKind};
use serde_json::{json, Value};

fn embedder() -> &'static Embedder {
    static E: std::sync::OnceLock<Embedder> = std::sync::OnceLock::new();
    E.get_or_init(|| Embedder::load(&model_dir()).expect("load the model"))
}

fn model_arg() -> String {
    model_dir().display().to_string()
}

#[test]
fn cosines_match_sentence_transformers() {
    let reference = read_json(&fixture("semantic/reference_pairs.json"));
    let pairs = reference["pairs"].as_array().unwrap();
    assert_eq!(pairs.len(), 20);
    let e = embedder();
    let cache = EmbeddingCache::new(e);
    let texts: Vec<(String, String)> = pairs
        .iter()
        .map(|p| {
            (
                p["a"].as_str().unwrap().to_string(),
                p["b"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let got = cache.similarities(&texts).unwrap();
    let mut worst: f64 = 0.0;
    for (p, g) in pairs.iter().zip(&got) {
        let want = p["cosine"].as_f64().unwrap();
        worst = worst.max((want - g).abs());
        assert!(
            (want - g).abs() < 1e-4,
            "{:?} vs {:?}: want {want}, got {g}",
            p["a"],
            p["b"]
        );
        // Token counts agree up to truncation at 256.
        let ta = p["tokens_a"].as_u64().unwrap() as usize;
        assert_eq!(
            e.token_count(p["a"].as_str().unwrap()).unwrap(),
            ta.min(256)
        );
    }
    // Some texts are longer than the wheel's fixed 128 tokens, one past 256.
    assert!(pairs
        .iter()
        .any(|p| (129..=256).contains(&p["tokens_a"].as_u64().unwrap())));
    assert!(pairs.iter().any(|p| p["tokens_a"].as_u64().unwrap() > 256));
    eprintln!("largest cosine difference from sentence-transformers: {worst:.2e}");
    // One at a time gives the same vectors as the batch (padding is masked).
    let one = e.embed_one(&texts[19].0).unwrap();
    let batch = cache.embed_all(&[texts[19].0.as_str()]).unwrap();
    let d: f32 = one
        .iter()
        .zip(batch[0].iter())
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f32::max);
    assert!(d < 1e-5, "{d}");
    let (computed, _) = cache.counts();
    assert_eq!(
        computed,
        texts
            .iter()
            .flat_map(|(a, b)| [a, b])
            .collect::<std::collections::HashSet<_>>()
            .len()
    );
}

#[test]
fn the_fused_pass_equals_candle_transformers_bert() {
    let reference = Embedder::load_with(&model_dir(), EngineKind::CandleBert).unwrap();
    let fused = embedder();
    assert_eq!(fused.engine_kind(), EngineKind::Fused);
    assert!(reference.signature().contains("engine:candle-bert"));
    // Lengths from 2 to over 256 tokens in one call, so batches are padded.
    let long = "The cooperative shared water, seed and labour. ".repeat(40);
    let texts: Vec<String> = [
        "",
        "Paris",
        "The capital of France is Paris",
        "Île-de-France, 1,000 cafés!",
        &long,
        "twenty-one participants in 2019",
        "東京は日本の首都です。",
        "a b c d e f g h i j k l m n o p",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let a = fused.embed(&texts).unwrap();
    let b = reference.embed(&texts).unwrap();
    for (t, (x, y)) in texts.iter().zip(a.iter().zip(&b)) {
        let d = x
            .iter()
            .zip(y)
            .map(|(p, q)| (p - q).abs())
            .fold(0f32, f32::max);
        assert!(d < 1e-5, "{t:?}: max difference {d}");
    }
}

#[test]
fn embeddings_are_unit_length_and_cached() {
    let e = embedder();
    assert_eq!(e.dim(), 384);
    assert_eq!(e.max_tokens(), 256);
    let cache = EmbeddingCache::new(e);
    let v = cache.embed_all(&["a", "b", "a"]).unwrap();
    for x in &v {
        let n: f32 = x.iter().map(|a| a * a).sum::<f32>().sqrt();
        assert!((n - 1.0).abs() < 1e-4);
    }
    assert!(std::sync::Arc::ptr_eq(&v[0], &v[2]));
    cache.embed_all(&["b"]).unwrap();
    assert_eq!(cache.counts(), (2, 2));
}

#[test]
fn similarity_prints_the_cosine_alone() {
    let d = Dir::new("similarity");
    let r = d
        .run(&[
            "similarity",
            "The capital of France is London",
            "The capital of France is Paris",
            "--model-dir",
            &model_arg(),
        ])
        .expect_code(0);
    let v: f64 = r.stdout().trim().parse().expect("a number alone");
    assert!((v - 0.8372).abs() < 1e-3, "{v}");
    // Found without --model-dir (the project's models/ folder).
    let r = d
        .run(&[
            "similarity",
            "I don't know",
            "The capital of France is Paris",
        ])
        .expect_code(0);
    let v: f64 = r.stdout().trim().parse().unwrap();
    assert!(v.abs() < 0.01, "{v}");
}

#[test]
fn a_missing_model_says_how_to_get_one() {
    let d = Dir::new("no-model");
    let empty = d.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let empty = empty.display().to_string();
    d.run(&["similarity", "a", "b", "--model-dir", &empty])
        .expect_code(2)
        .expect_stderr(&["--model-dir", "model.safetensors", "scripts/fetch-model"]);
    d.run_env(
        &["similarity", "a", "b"],
        &[("CORPUS_EVAL_MODEL_DIR", &empty)],
    )
    .expect_code(2)
    .expect_stderr(&["CORPUS_EVAL_MODEL_DIR", "scripts/fetch-model"]);
    let items = d.write("items.json", r#"[{"answer": "a", "ground_truth": "b"}]"#);
    d.run_env(
        &["judge-answers".as_ref(), items.as_os_str()],
        &[("CORPUS_EVAL_MODEL_DIR", &empty)],
    )
    .expect_code(2)
    .expect_stderr(&["scripts/fetch-model"]);
    assert!(d.run_folders("reports").is_empty());
    // keyword needs no model.
    d.run_env(
        &[
            "judge-answers".as_ref(),
            items.as_os_str(),
            "--method".as_ref(),
            "keyword".as_ref(),
        ],
        &[("CORPUS_EVAL_MODEL_DIR", &empty)],
    )
    .expect_code(0);
}

#[test]
fn embed_writes_jsonl() {
    model_dir();
    let d = Dir::new("embed");
    let txt = d.write(
        "texts.txt",
        "first line\nsecond line\n\nfourth, after an empty one\n",
    );
    let out = d.path().join("emb.jsonl");
    d.run(&[
        "embed".as_ref(),
        txt.as_os_str(),
        "--output".as_ref(),
        out.as_os_str(),
    ])
    .expect_code(0);
    let lines = read_jsonl(&out);
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[3]["text"], "fourth, after an empty one");
    assert_eq!(lines[2]["index"], 2);
    let v: Vec<f64> = lines[0]["embedding"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    assert_eq!(v.len(), 384);
    let direct = embedder().embed_one("first line").unwrap();
    assert!(v
        .iter()
        .zip(&direct)
        .all(|(a, b)| (a - *b as f64).abs() < 1e-6));

    let js = d.write("texts.json", r#"[{"id": "x1", "text": "hello"}, "plain"]"#);
    let r = d.run(&["embed".as_ref(), js.as_os_str()]).expect_code(0);
    let rows: Vec<Value> = r
        .stdout()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["id"], "x1");
    assert!(rows[1].get("id").is_none());
    let bad = d.write("bad.json", r#"[{"id": 1, "txt": "x"}]"#);
    d.run(&["embed".as_ref(), bad.as_os_str()])
        .expect_code(2)
        .expect_stderr(&["bad.json", "item 0", "text"]);
    let bad = d.write("bad2.jsonl", "\"ok\"\n{\"text\": }\n");
    d.run(&["embed".as_ref(), bad.as_os_str()])
        .expect_code(2)
        .expect_stderr(&["bad2.jsonl:2:"]);
}

/// Writes items and runs judge-answers; returns (summary, scores, run folder).
fn judge(d: &Dir, items: &Value, extra: &[&str]) -> (Value, Vec<Value>, std::path::PathBuf) {
    model_dir();
    let path = d.write("items.json", &items.to_string());
    let mut args: Vec<String> = vec!["judge-answers".into(), path.display().to_string()];
    args.extend(extra.iter().map(|s| s.to_string()));
    args.extend(["--out".into(), "runs".into(), "--json".into()]);
    let before = d.run_folders("runs");
    let r = d.run(&args).expect_code(0);
    let after = d.run_folders("runs");
    let folder = after
        .into_iter()
        .find(|f| !before.contains(f))
        .expect("a new run folder");
    let mut summary: Value = serde_json::from_str(r.stdout().lines().last().unwrap()).unwrap();
    // summary.json, with the run folder's path.
    let named = summary
        .as_object_mut()
        .and_then(|o| o.remove("run_folder"))
        .expect("run_folder");
    assert_eq!(d.path().join(named.as_str().unwrap()), folder);
    assert_eq!(summary, read_json(&folder.join("summary.json")));
    (summary, read_jsonl(&folder.join("scores.jsonl")), folder)
}

#[test]
fn the_designs_unit_tests() {
    let d = Dir::new("seed-tests");
    let items = json!([
        {"id": "paraphrase", "answer": "The capital of France is Paris", "ground_truth": "Paris is France's capital city"},
        {"id": "london", "answer": "The capital of France is London", "ground_truth": "The capital of France is Paris"},
        {"id": "lyon", "answer": "The capital of France is Lyon", "ground_truth": "The capital of France is Paris"},
        {"id": "dunno", "answer": "I don't know", "ground_truth": "The capital of France is Paris"},
    ]);
    let score = |scores: &[Value], id: &str| {
        scores.iter().find(|s| s["id"] == id).unwrap()["score"]
            .as_f64()
            .unwrap()
    };
    let (_, on, _) = judge(
        &d,
        &items,
        &["--method", "semantic_fixed", "--threshold", "0.7"],
    );
    assert_eq!(score(&on, "paraphrase"), 1.0);
    assert_eq!(score(&on, "london"), 0.0);
    assert_eq!(score(&on, "lyon"), 0.0);
    assert_eq!(score(&on, "dunno"), 0.0);
    let london = on.iter().find(|s| s["id"] == "london").unwrap();
    assert_eq!(london["anchors_missing"], json!(["Paris"]));
    assert!((london["similarity"].as_f64().unwrap() - 0.8372).abs() < 1e-3);
    let (summary, off, _) = judge(
        &d,
        &items,
        &[
            "--method",
            "semantic_fixed",
            "--threshold",
            "0.7",
            "--anchors",
            "off",
        ],
    );
    assert_eq!(score(&off, "paraphrase"), 1.0);
    assert_eq!(score(&off, "london"), 1.0);
    assert_eq!(score(&off, "lyon"), 1.0);
    assert_eq!(score(&off, "dunno"), 0.0);
    assert_eq!(summary["anchors"], false);
    assert!(off[0].get("anchors_missing").is_none());
    // Lyon (0.749) falls under the default 0.75 even without anchors.
    let (_, off75, _) = judge(
        &d,
        &items,
        &["--method", "semantic_fixed", "--anchors", "off"],
    );
    assert_eq!(score(&off75, "lyon"), 0.0);
    assert_eq!(score(&off75, "london"), 1.0);
}

fn sample_items() -> Value {
    let text =
        std::fs::read_to_string(crate::util::repo().join("evaluation/semantic/answers.jsonl"))
            .unwrap();
    Value::Array(
        text.lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect(),
    )
}

#[test]
fn keyword_gives_half_and_semantic_methods_do_not() {
    let d = Dir::new("distributions");
    let items = sample_items();
    let (kw, kw_scores, folder) = judge(&d, &items, &["--method", "keyword"]);
    assert!(kw_scores
        .iter()
        .all(|s| s["score"] == 1.0 || s["score"] == 0.5));
    assert!(kw["score_counts"]["half"].as_u64().unwrap() > 0);
    assert_eq!(kw["threshold"], Value::Null);
    assert!(kw_scores.iter().all(|s| s["similarity"].is_null()));
    assert!(folder.join("score_distribution_keyword.png").is_file());
    let (fixed, scores, folder) = judge(&d, &items, &["--method", "semantic_fixed"]);
    assert_eq!(fixed["score_counts"]["half"], 0);
    assert!(scores
        .iter()
        .all(|s| s["score"] == 1.0 || s["score"] == 0.0));
    assert!(scores
        .iter()
        .all(|s| s["threshold"] == 0.75 && s["method"] == "semantic_fixed"));
    for png in [
        "score_distribution_semantic_fixed.png",
        "score_distribution_keyword.png",
    ] {
        let (w, h) = crate::util::png_size(&folder.join(png));
        assert!(w >= 800 && h >= 400);
    }
    let manifest = read_json(&folder.join("manifest.json"));
    assert_eq!(manifest["command"], "judge-answers");
    assert_eq!(manifest["settings"]["model"]["dim"], 384);
    assert_eq!(
        manifest["settings"]["model"]["sha256"]
            .as_str()
            .unwrap()
            .len(),
        64
    );
    assert!(manifest["outputs"]
        .as_array()
        .unwrap()
        .contains(&json!("scores.jsonl")));
    assert!(fixed["signature"]
        .as_str()
        .unwrap()
        .contains("model:all-MiniLM-L6-v2"));
}

#[test]
fn metrics_against_labels_and_systems() {
    let d = Dir::new("labels");
    let (summary, scores, _) = judge(&d, &sample_items(), &["--method", "semantic_fixed"]);
    // Recompute from the per-item lines: y_true are the human labels.
    let (mut tp, mut fp, mut tn, mut fn_) = (0.0, 0.0, 0.0, 0.0);
    for s in &scores {
        match (
            s["score"].as_f64().unwrap() > 0.5,
            s["label"].as_bool().unwrap(),
        ) {
            (true, true) => tp += 1.0,
            (true, false) => fp += 1.0,
            (false, false) => tn += 1.0,
            (false, true) => fn_ += 1.0,
        }
    }
    assert!(fn_ > 0.0 && tn > 0.0, "the sample has both kinds of error");
    let p = tp / (tp + fp);
    let r = tp / (tp + fn_);
    let close = |k: &str, v: f64| {
        assert!(
            (summary[k].as_f64().unwrap() - v).abs() < 1e-12,
            "{k}: {}",
            summary[k]
        )
    };
    close("accuracy", (tp + tn) / 24.0);
    close("precision", p);
    close("recall", r);
    close("f1", 2.0 * p * r / (p + r));
    assert_eq!(summary["n"], 24);
    let systems = summary["systems"].as_array().unwrap();
    assert_eq!(systems.len(), 3);
    assert_eq!(systems[0]["rank"], 1);
    assert!(systems
        .windows(2)
        .all(|w| w[0]["mean_score"].as_f64() >= w[1]["mean_score"].as_f64()));
    assert_eq!(
        summary["judge"],
        json!({"calls": 0, "cached": 0, "failed": 0, "judged": 0})
    );
    // Without labels the label metrics are null.
    let unlabelled: Value = sample_items()
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            let mut i = i.clone();
            i.as_object_mut().unwrap().remove("label");
            i
        })
        .collect();
    let (summary, _, _) = judge(&d, &unlabelled, &["--method", "semantic_fixed"]);
    for k in ["accuracy", "precision", "recall", "f1"] {
        assert_eq!(summary[k], Value::Null, "{k}");
    }
}

#[test]
fn threshold_search_with_and_without_labels() {
    model_dir();
    let d = Dir::new("threshold");
    let sample = crate::util::repo().join("evaluation/semantic/answers.jsonl");
    let r = d
        .run(&["threshold".as_ref(), sample.as_os_str()])
        .expect_code(0);
    let out = r.stdout();
    let last = out.lines().last().unwrap();
    assert!(
        last.starts_with("threshold: ") && last.len() == "threshold: 0.60".len(),
        "{out}"
    );
    let chosen: f64 = last["threshold: ".len()..].parse().unwrap();
    assert!(out.contains("human labels"), "{out}");
    for t in ["0.50", "0.75", "0.90"] {
        assert!(out.contains(t), "{out}");
    }
    // The choice maximizes accuracy and is the lowest of the best: recompute.
    let (_, scores, _) = judge(&d, &sample_items(), &["--method", "semantic_fixed"]);
    let acc = |t: f64| {
        scores
            .iter()
            .filter(|s| {
                let ok = s["anchors_missing"].as_array().unwrap().is_empty();
                let pred = ok && s["similarity"].as_f64().unwrap() >= t;
                pred == s["label"].as_bool().unwrap()
            })
            .count()
    };
    let grid = [0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9];
    let best = grid.iter().map(|&t| acc(t)).max().unwrap();
    let want = grid.iter().copied().find(|&t| acc(t) == best).unwrap();
    assert_eq!(chosen, want);

    // Without labels: the proxy (similarity > 0.9).
    let items = d.write("nolabels.json", &json!([
        {"answer": "The capital of France is Paris", "ground_truth": "Paris is France's capital city"},
        {"answer": "The cat sits on the mat", "ground_truth": "The cat is on the mat"},
        {"answer": "I don't know", "ground_truth": "The capital of France is Paris"},
    ]).to_string());
    let r = d
        .run(&[
            "threshold".as_ref(),
            items.as_os_str(),
            "--anchors".as_ref(),
            "off".as_ref(),
        ])
        .expect_code(0);
    let out = r.stdout();
    assert!(out.contains("proxy"), "{out}");
    // 0.965 is a proxy positive, 0.908 too: every grid point up to 0.90 agrees; the lowest wins.
    assert_eq!(out.lines().last().unwrap(), "threshold: 0.50", "{out}");
    let r = d
        .run(&[
            "threshold".as_ref(),
            items.as_os_str(),
            "--optimize".as_ref(),
            "f1".as_ref(),
            "--anchors".as_ref(),
            "off".as_ref(),
        ])
        .expect_code(0);
    // Both proxy positives are decided correct up to 0.90: F1 = 1 everywhere.
    assert_eq!(r.stdout().lines().last().unwrap(), "threshold: 0.50");

    // With labels and --optimize f1: recompute F1 per grid point from the
    // per-item similarities and anchors, and take the lowest of the best.
    let f1 = |t: f64| {
        let (mut tp, mut fp, mut fn_) = (0, 0, 0);
        for s in &scores {
            let ok = s["anchors_missing"].as_array().unwrap().is_empty();
            let pred = ok && s["similarity"].as_f64().unwrap() >= t;
            match (pred, s["label"].as_bool().unwrap()) {
                (true, true) => tp += 1,
                (true, false) => fp += 1,
                (false, true) => fn_ += 1,
                _ => {}
            }
        }
        // As a fraction (numerator, denominator) to compare exactly.
        (2 * tp, 2 * tp + fp + fn_)
    };
    let better = |a: (i32, i32), b: (i32, i32)| a.0 * b.1 > b.0 * a.1;
    let mut want = 0.75;
    let mut best = (0, 1);
    for &t in &grid {
        if better(f1(t), best) {
            best = f1(t);
            want = t;
        }
    }
    let r = d
        .run(&[
            "threshold".as_ref(),
            sample.as_os_str(),
            "--optimize".as_ref(),
            "f1".as_ref(),
        ])
        .expect_code(0);
    assert_eq!(
        r.stdout().lines().last().unwrap(),
        format!("threshold: {want:.2}")
    );

    // --agreement: the verdicts at the chosen threshold against the labels;
    // percent agreement is the accuracy there, and the threshold stays last.
    let r = d
        .run(&[
            "threshold".as_ref(),
            sample.as_os_str(),
            "--optimize".as_ref(),
            "f1".as_ref(),
            "--agreement".as_ref(),
        ])
        .expect_code(0);
    let out = r.stdout();
    assert_eq!(out.lines().last().unwrap(), format!("threshold: {want:.2}"));
    let n = scores.len() as f64;
    let pa = format!("{:.4}", acc(want) as f64 / n);
    let row = out
        .lines()
        .find(|l| l.contains("percent_agreement"))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(row.contains(&pa), "{row} vs {pa}");
    assert!(
        out.contains("cohen_kappa") && out.contains("gwet_ac1"),
        "{out}"
    );

    // --json: one object; --out: a run folder whose threshold.json is that
    // object, and which rerun reproduces.
    let r = d
        .run(&[
            "threshold".as_ref(),
            sample.as_os_str(),
            "--optimize".as_ref(),
            "f1".as_ref(),
            "--json".as_ref(),
            "--out".as_ref(),
            "truns".as_ref(),
        ])
        .expect_code(0);
    let v: Value = serde_json::from_str(r.stdout().trim()).expect("one JSON object");
    assert_eq!(v["threshold"].as_f64(), Some(want));
    assert_eq!(v["optimize"], "f1");
    assert_eq!(v["target"], "labels");
    assert_eq!(v["n"], 24);
    assert_eq!(v["grid"].as_array().unwrap().len(), grid.len());
    assert!(v.get("agreement").is_none());
    assert!(
        v["signature"]
            .as_str()
            .unwrap()
            .starts_with("threshold|optimize:f1|target:labels|anchors:on|"),
        "{v}"
    );
    let folders = d.run_folders("truns");
    assert_eq!(folders.len(), 1);
    let mut v = v;
    let named = v
        .as_object_mut()
        .and_then(|o| o.remove("run_folder"))
        .expect("run_folder");
    assert_eq!(d.path().join(named.as_str().unwrap()), folders[0]);
    assert_eq!(read_json(&folders[0].join("threshold.json")), v);
    // items.csv: every item at the chosen threshold.
    let items = std::fs::read_to_string(folders[0].join("items.csv")).unwrap();
    let mut lines = items.lines();
    assert_eq!(
        lines.next(),
        Some("id,system,similarity,anchors_ok,score,verdict,label")
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 24);
    for row in &rows {
        let score: f64 = row[4].parse().unwrap();
        let verdict = if score > 0.5 { "pass" } else { "fail" };
        assert_eq!(row[5], verdict, "{row:?}");
        assert!(row[6] == "pass" || row[6] == "fail", "{row:?}");
    }
    assert_eq!(
        read_json(&folders[0].join("manifest.json"))["command"],
        "threshold"
    );
    let again = d
        .run(&["rerun".as_ref(), folders[0].as_os_str()])
        .expect_code(0);
    assert!(again.stdout().contains("identical"), "{}", again.stdout());
}

#[test]
fn semantic_dynamic_applies_the_chosen_threshold() {
    let d = Dir::new("dynamic");
    // Validation file where only a threshold of 0.95 or more... is not on the
    // grid: the labels make 0.85 the first that separates them.
    let validation = d.write("validation.json", &json!([
        {"answer": "The capital of France is Paris", "ground_truth": "Paris is France's capital city", "label": 1},
        {"answer": "The cat sits on the mat", "ground_truth": "The cat is on the mat", "label": 1},
        {"answer": "The capital of France is London", "ground_truth": "The capital of France is Paris", "label": 0},
        {"answer": "Potatoes are the backbone of the garden.", "ground_truth": "We mostly grow potatoes.", "label": 0},
    ]).to_string());
    let v = validation.display().to_string();
    let (summary, scores, folder) = judge(
        &d,
        &sample_items(),
        &[
            "--method",
            "semantic_dynamic",
            "--validation",
            &v,
            "--anchors",
            "off",
        ],
    );
    assert_eq!(summary["threshold"], 0.85);
    // A separate validation file leaves every input item a test item.
    assert!(summary.get("held_out").is_none());
    assert!(scores.iter().all(|s| s.get("split").is_none()));
    assert!(scores.iter().all(|s| s["threshold"] == 0.85));
    let manifest = read_json(&folder.join("manifest.json"));
    assert_eq!(manifest["settings"]["validation"]["threshold"], 0.85);
    assert!(manifest["inputs"]["validation"]["sha256"].is_string());
    // A fraction of the input, seeded: the same draw twice.
    let drawn = [
        "--method",
        "semantic_dynamic",
        "--validation-fraction",
        "0.25",
        "--seed",
        "7",
    ];
    let (a, a_scores, fa) = judge(&d, &sample_items(), &drawn);
    // The drawn items are marked, and held_out covers the others.
    let marked = a_scores
        .iter()
        .filter(|s| s["split"] == "validation")
        .count();
    assert_eq!(marked, 6);
    assert_eq!(a["held_out"]["n"], 18);
    assert_eq!(a["n"], 24);
    assert!(a["held_out"]["accuracy"].is_f64());
    let (b, _, fb) = judge(&d, &sample_items(), &drawn);
    assert_eq!(a["threshold"], b["threshold"]);
    let ids = |f: &std::path::Path| {
        read_json(&f.join("manifest.json"))["settings"]["validation"]["ids"].clone()
    };
    assert_eq!(ids(&fa), ids(&fb));
    assert_eq!(ids(&fa).as_array().unwrap().len(), 6);
}

#[test]
fn bad_items_name_the_file_item_and_field() {
    let d = Dir::new("bad-items");
    let p = d.write(
        "items.jsonl",
        "{\"answer\": \"a\", \"ground_truth\": \"b\"}\n{\"id\": \"x\", \"answer\": \"a\"}\n",
    );
    d.run(&[
        "judge-answers".as_ref(),
        p.as_os_str(),
        "--method".as_ref(),
        "keyword".as_ref(),
    ])
    .expect_code(2)
    .expect_stderr(&["items.jsonl", "item 1", "\"x\"", "line 2", "ground_truth"]);
    let p = d.write(
        "broken.json",
        "[{\"answer\": \"a\",\n \"ground_truth\" \"b\"}]",
    );
    d.run(&["threshold".as_ref(), p.as_os_str()])
        .expect_code(2)
        .expect_stderr(&["broken.json:2:"]);
    let p = d.write("empty.json", "[]");
    d.run(&["judge-answers".as_ref(), p.as_os_str()])
        .expect_code(2)
        .expect_stderr(&["no items"]);
    let p = d.write("ok.json", r#"[{"answer": "a", "ground_truth": "b"}]"#);
    d.run(&[
        "judge-answers".as_ref(),
        p.as_os_str(),
        "--threshold".as_ref(),
        "1.5".as_ref(),
    ])
    .expect_code(2);
    d.run(&[
        "judge-answers".as_ref(),
        p.as_os_str(),
        "--method".as_ref(),
        "llm_judge".as_ref(),
    ])
    .expect_code(2)
    .expect_stderr(&["--judge-url"]);
    assert!(d.run_folders("reports").is_empty());
}
