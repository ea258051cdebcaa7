//! `corpus-eval score` and `corpus-eval synonyms`.

use crate::util::{fixture, Dir};

#[test]
fn score_prints_the_number_alone() {
    let d = Dir::new("score");
    let r = d
        .run(&[
            "score",
            "--type",
            "ListMany",
            "--metric",
            r#"{"potato": 0.5, "kale": 0.25}"#,
            "Potatoes and kale",
        ])
        .expect_code(0);
    assert_eq!(r.stdout().trim(), "0.75");
    let r = d
        .run(&["score", "--type", "Yes/No", "--metric", "yes", "Yep."])
        .expect_code(0);
    assert_eq!(r.stdout().trim(), "1.0");
    let r = d
        .run(&["score", "--type", "Yes/No", "--metric", "no", "Yep."])
        .expect_code(0);
    assert_eq!(r.stdout().trim(), "0.0");
}

#[test]
fn score_prints_null_for_unscorable() {
    let d = Dir::new("score-null");
    let r = d
        .run(&["score", "--type", "Essay", "--metric", "yes", "x"])
        .expect_code(0)
        .expect_stderr(&["unknown question type"]);
    assert_eq!(r.stdout().trim(), "null");
    let r = d
        .run(&["score", "--type", "ListOne", "--metric", "{oops", "x"])
        .expect_code(0)
        .expect_stderr(&["metric"]);
    assert_eq!(r.stdout().trim(), "null");
    d.run(&["score", "--type", "ListOne"]).expect_code(2);
}

#[test]
fn synonyms_lists_the_enrichment() {
    let d = Dir::new("synonyms");
    let r = d.run(&["synonyms", "automobile"]).expect_code(0);
    let out = r.stdout();
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines.contains(&"car") && lines.contains(&"motorcar"),
        "{out}"
    );
    assert!(!lines.contains(&"automobile"));
    let r = d.run(&["synonyms", "5"]).expect_code(0);
    assert!(r.stdout().lines().any(|l| l == "five"), "{}", r.stdout());
    let r = d.run(&["synonyms", "twenty-one"]).expect_code(0);
    assert!(r.stdout().lines().any(|l| l == "21"), "{}", r.stdout());
    let r = d.run(&["synonyms", "qwxzv"]).expect_code(0);
    assert_eq!(r.stdout(), "");
}

#[test]
fn wordnet_dir_replaces_the_embedded_lexicon() {
    let d = Dir::new("wordnet-dir");
    let dict = fixture("lexicon/dict");
    let r = d
        .run(&[
            "synonyms".as_ref(),
            "car".as_ref(),
            "--wordnet".as_ref(),
            dict.as_os_str(),
        ])
        .expect_code(0);
    assert!(
        r.stdout().lines().any(|l| l == "automobile"),
        "{}",
        r.stdout()
    );
    // The fixture dict has no "spud"-bearing potato synset lines beyond its subset,
    // and words outside it have no synonyms.
    let r = d
        .run(&[
            "synonyms".as_ref(),
            "tractor".as_ref(),
            "--wordnet".as_ref(),
            dict.as_os_str(),
        ])
        .expect_code(0);
    assert_eq!(r.stdout(), "");
    let r = d
        .run(&[
            "score".as_ref(),
            "--type".as_ref(),
            "ListOne".as_ref(),
            "--metric".as_ref(),
            r#"{"automobile": 1}"#.as_ref(),
            "two cars".as_ref(),
            "--wordnet".as_ref(),
            dict.as_os_str(),
        ])
        .expect_code(0);
    assert_eq!(r.stdout().trim(), "1.0");
}

/// Runs `corpus-eval ARGS` on a pseudo-terminal (util-linux `script`) and
/// returns what the terminal showed; None when `script` is missing.
fn on_a_terminal(dir: &Dir, args: &[&str]) -> Option<String> {
    let bin = env!("CARGO_BIN_EXE_corpus-eval");
    let line = std::iter::once(bin)
        .chain(args.iter().copied())
        .map(|a| format!("'{}'", a.replace('\'', "'\\''")))
        .collect::<Vec<_>>()
        .join(" ");
    let out = std::process::Command::new("script")
        .args(["-qec", &line, "/dev/null"])
        .current_dir(dir.path())
        .output()
        .ok()?;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn progress_bars_show_on_a_terminal_only() {
    let dir = Dir::new("progress");
    let q = crate::util::repo().join("evaluation/data_fixture.json");
    let t = crate::util::repo().join("datasets/corpus.json");
    let (q, t) = (q.to_str().unwrap(), t.to_str().unwrap());
    let args = ["evaluate", q, t, "--no-plots", "--no-html", "--out", "runs"];
    // Piped stderr (as here): no bar.
    let piped = dir.run(&args).expect_code(0);
    assert!(
        !piped.stderr().contains("scoring answers"),
        "{}",
        piped.stderr()
    );
    let Some(shown) = on_a_terminal(&dir, &args) else {
        eprintln!("skipping the terminal check: no `script` (util-linux) installed");
        return;
    };
    // Items done of the total, items/s and the ETA, per stage.
    for needle in ["scoring answers", "verifying quotes", "/38", "/s", "ETA"] {
        assert!(
            shown.contains(needle),
            "{needle:?} not on the terminal: {shown}"
        );
    }
    let mut quiet = args.to_vec();
    quiet.push("--no-progress");
    let shown = on_a_terminal(&dir, &quiet).unwrap();
    assert!(!shown.contains("scoring answers"), "{shown}");
    assert!(shown.contains("run folder"), "{shown}");
}

#[test]
fn every_computing_command_prints_one_json_object_with_json() {
    let dir = Dir::new("json-everywhere");
    let r = |p: &str| crate::util::repo().join(p).display().to_string();
    let (q, t) = (r("evaluation/data_fixture.json"), r("datasets/corpus.json"));
    let runs: Vec<Vec<String>> = [
        vec!["evaluate", &q, &t, "--no-plots", "--no-html", "--out", "e"],
        vec![
            "hotpot",
            &r("evaluation/hotpot/predictions.json"),
            &r("evaluation/hotpot/gold.json"),
            "--no-plots",
            "--out",
            "h",
        ],
        vec![
            "grounding",
            &r("evaluation/grounding/sample.json"),
            "--out",
            "g",
        ],
        vec![
            "text-eval",
            &r("evaluation/text-eval/sample.json"),
            "--no-embeddings",
            "--out",
            "t",
        ],
        vec![
            "judge-answers",
            &r("evaluation/semantic/answers.jsonl"),
            "--method",
            "keyword",
            "--no-plots",
            "--out",
            "j",
        ],
        vec!["threshold", &r("evaluation/semantic/answers.jsonl")],
        vec![
            "lexical",
            &r("fixtures/lexical/pairs.jsonl"),
            "--metric",
            "rouge1,bleu",
        ],
        vec![
            "agreement",
            &r("fixtures/agreement/paradox.csv"),
            "--id",
            "quote_id",
        ],
        vec![
            "score",
            "--type",
            "Yes/No",
            "--metric",
            "yes",
            "Yes, it did.",
        ],
        vec!["synonyms", "car"],
        vec!["similarity", "a cat sat", "a cat was sitting"],
    ]
    .iter()
    .map(|v| v.iter().map(|s| s.to_string()).collect())
    .collect();
    dir.write("texts.txt", "a cat sat\na dog ran\n");
    let extra: Vec<Vec<String>> = [
        vec!["embed", "texts.txt", "--output", "texts.jsonl"],
        vec!["build-lexicon", &r("fixtures/lexicon/dict"), "lexicon.txt"],
        vec![
            "judge-answers",
            &r("evaluation/semantic/answers.jsonl"),
            "--method",
            "keyword",
            "--estimate-cost",
        ],
        vec![
            "threshold",
            &r("evaluation/semantic/answers.jsonl"),
            "--out",
            "th",
        ],
        vec![
            "lexical",
            &r("fixtures/lexical/pairs.jsonl"),
            "--metric",
            "rouge1",
            "--out",
            "l",
        ],
        vec![
            "agreement",
            &r("fixtures/agreement/paradox.csv"),
            "--id",
            "quote_id",
            "--out",
            "a",
            "--resamples",
            "0",
        ],
        vec![
            "evaluate",
            &q,
            &t,
            "--no-plots",
            "--no-html",
            "--shard",
            "1/1",
            "--out",
            "s",
        ],
    ]
    .iter()
    .map(|v| v.iter().map(|s| s.to_string()).collect())
    .collect();
    for mut args in runs.into_iter().chain(extra) {
        args.push("--json".into());
        let run = dir.run(&args).expect_code(0);
        let v: serde_json::Value = serde_json::from_str(run.stdout().trim()).unwrap_or_else(|e| {
            panic!(
                "{args:?}: stdout is not one JSON value ({e}): {}",
                run.stdout()
            )
        });
        assert!(v.is_object(), "{args:?}: {v}");
        // A run folder is named the same way by every command that writes one.
        if args.iter().any(|a| a == "--out") {
            let folder = v["run_folder"]
                .as_str()
                .unwrap_or_else(|| panic!("{args:?}: no run_folder in {v}"));
            assert!(dir.path().join(folder).join("manifest.json").is_file());
            assert!(run.stderr().contains(&format!("run folder: {folder}")));
        } else {
            assert!(v.get("run_folder").is_none(), "{args:?}: {v}");
        }
    }
    // merge of the one shard, as JSON.
    let shard = dir.run_folders("s")[0].display().to_string();
    let run = dir
        .run(&["merge", &shard, "--out", "m", "--json"])
        .expect_code(0);
    let v: serde_json::Value = serde_json::from_str(run.stdout().trim()).unwrap();
    assert_eq!(v["shards"], 1, "{v}");
    assert!(dir.path().join(v["run_folder"].as_str().unwrap()).is_dir());
    // rerun of the evaluate run, as JSON too.
    let folder = dir.run_folders("e")[0].display().to_string();
    let run = dir
        .run(&["rerun", &folder, "--out", "again", "--json"])
        .expect_code(0);
    let v: serde_json::Value = serde_json::from_str(run.stdout().trim()).unwrap();
    assert_eq!(v["identical"], true, "{v}");
}

#[test]
fn every_long_command_shows_its_stage_on_a_terminal_and_none_with_no_progress() {
    let dir = Dir::new("progress-all");
    let r = |p: &str| crate::util::repo().join(p).display().to_string();
    dir.write("texts.txt", "a cat sat\na dog ran\nthe bird flew\n");
    let hotpot = (
        r("evaluation/hotpot/predictions.json"),
        r("evaluation/hotpot/gold.json"),
    );
    let answers = r("evaluation/semantic/answers.jsonl");
    let grounding_in = r("evaluation/grounding/sample.json");
    let text_in = r("evaluation/text-eval/sample.json");
    let pairs = r("fixtures/lexical/pairs.jsonl");
    let ratings = r("fixtures/agreement/paradox.csv");
    let cases: Vec<(&str, Vec<&str>)> = vec![
        (
            "scoring items",
            vec!["hotpot", &hotpot.0, &hotpot.1, "--no-plots", "--out", "h"],
        ),
        (
            "scoring rows",
            vec!["text-eval", &text_in, "--no-embeddings", "--out", "t"],
        ),
        (
            "grounding rows",
            vec!["grounding", &grounding_in, "--out", "g"],
        ),
        (
            "scoring items",
            vec!["lexical", &pairs, "--metric", "rouge1"],
        ),
        (
            "bootstrap resamples",
            vec!["agreement", &ratings, "--id", "quote_id"],
        ),
        (
            "embedding",
            vec!["embed", "texts.txt", "--output", "e.jsonl"],
        ),
        ("embedding", vec!["threshold", &answers]),
        (
            "embedding",
            vec![
                "judge-answers",
                &answers,
                "--method",
                "semantic_fixed",
                "--no-plots",
                "--out",
                "j",
            ],
        ),
    ];
    for (stage, args) in &cases {
        // The bar's message, then a space before the bar itself.
        let stage = &format!("{stage} ");
        let Some(shown) = on_a_terminal(&dir, args) else {
            eprintln!("skipping the terminal check: no `script` (util-linux) installed");
            return;
        };
        assert!(
            shown.contains(stage),
            "{args:?}: {stage:?} not shown: {shown}"
        );
        assert!(shown.contains("ETA"), "{args:?}: no ETA: {shown}");
        let mut quiet = args.clone();
        quiet.push("--no-progress");
        let shown = on_a_terminal(&dir, &quiet).unwrap();
        assert!(!shown.contains(stage), "{quiet:?} shows {stage:?}: {shown}");
        // Piped stderr: no bar either.
        let piped = dir.run(args).expect_code(0);
        assert!(
            !piped.stderr().contains(stage),
            "{args:?}: {}",
            piped.stderr()
        );
    }
    // compare and rerun report the stages of their work too.
    let (a, b) = (
        dir.run_folders("g")[0].clone(),
        dir.run_folders("h")[0].clone(),
    );
    let ga = format!("A={}", a.display());
    let gb = format!("B={}", a.display());
    let shown = on_a_terminal(&dir, &["compare", &ga, &gb, "--out", "c"]).unwrap();
    assert!(shown.contains("paired tests"), "{shown}");
    let hotpot_run = b.display().to_string();
    let shown = on_a_terminal(&dir, &["rerun", &hotpot_run, "--out", "again"]).unwrap();
    assert!(shown.contains("scoring items"), "{shown}");
    assert!(shown.contains("identical"), "{shown}");
}
