//! `--shard I/N` and `corpus-eval merge`: the merged run equals the
//! unsharded run in every per-item output and the summary.

use crate::util::{read_json, repo, Dir};
use std::path::{Path, PathBuf};

/// Runs `args` plus `--out parent` and returns the new run folder.
fn run(dir: &Dir, args: &[String], parent: &str) -> PathBuf {
    let mut full: Vec<&str> = args.iter().map(String::as_str).collect();
    full.extend(["--out", parent]);
    dir.run_new_folder(&full, parent)
}

fn same_files(a: &Path, b: &Path, files: &[&str]) {
    for f in files {
        let (x, y) = (
            std::fs::read(a.join(f)).unwrap(),
            std::fs::read(b.join(f)).unwrap(),
        );
        assert!(
            x == y,
            "{f} differs between {} and {}",
            a.display(),
            b.display()
        );
    }
}

/// Shards 1..=n of `args`, their folders in a scrambled order.
fn shards(dir: &Dir, args: &[String], n: u32, parent: &str) -> Vec<PathBuf> {
    let mut folders: Vec<PathBuf> = (1..=n)
        .map(|i| {
            let mut a = args.to_vec();
            a.extend(["--shard".to_string(), format!("{i}/{n}")]);
            run(dir, &a, parent)
        })
        .collect();
    // Any order: reversed, then the middle one first.
    folders.reverse();
    let k = folders.len() / 2;
    folders.swap(0, k);
    folders
}

fn merge(dir: &Dir, folders: &[PathBuf], parent: &str) -> PathBuf {
    let mut args = vec!["merge".to_string()];
    args.extend(folders.iter().map(|f| f.display().to_string()));
    run(dir, &args, parent)
}

fn evaluate_args() -> Vec<String> {
    [
        "evaluate".to_string(),
        repo()
            .join("evaluation/data_fixture.json")
            .display()
            .to_string(),
        repo().join("datasets/corpus.json").display().to_string(),
        "--no-plots".to_string(),
    ]
    .to_vec()
}

/// For N in 1, 2, 3 and 7: runs the shards of `args` (folders under
/// `{prefix}-partsN`), merges them and checks `files` equal to the
/// unsharded run `whole`'s; returns the merged folders.
fn merges_equal_whole(
    dir: &Dir,
    args: &[String],
    whole: &Path,
    prefix: &str,
    files: &[&str],
) -> Vec<PathBuf> {
    [1, 2, 3, 7]
        .into_iter()
        .map(|n| {
            let parts = shards(dir, args, n, &format!("{prefix}-parts{n}"));
            let merged = merge(dir, &parts, &format!("{prefix}-merged{n}"));
            same_files(whole, &merged, files);
            merged
        })
        .collect()
}

fn grounding_args() -> Vec<String> {
    vec![
        "grounding".into(),
        repo()
            .join("evaluation/grounding/sample.json")
            .display()
            .to_string(),
    ]
}

fn hotpot_args(predictions: &Path, gold: &Path) -> Vec<String> {
    vec![
        "hotpot".into(),
        predictions.display().to_string(),
        gold.display().to_string(),
        "--no-plots".into(),
    ]
}

#[test]
fn evaluate_shards_merge_to_the_unsharded_run() {
    let dir = Dir::new("shard-evaluate");
    let args = evaluate_args();
    let whole = run(&dir, &args, "whole");
    for n in [1, 2, 3, 7] {
        let parts = shards(&dir, &args, n, &format!("parts{n}"));
        let mut pairs = 0;
        for p in &parts {
            let m = read_json(&p.join("manifest.json"));
            assert!(m["config"]["shard"]
                .as_str()
                .unwrap()
                .ends_with(&format!("/{n}")));
            pairs += read_json(&p.join("summary.json"))["counts"]["pairs"]
                .as_u64()
                .unwrap();
        }
        assert_eq!(pairs, 38, "the shards split the pairs");
        let merged = merge(&dir, &parts, &format!("merged{n}"));
        same_files(
            &whole,
            &merged,
            &["results.json", "summary.json", "items.csv", "quotes.csv"],
        );
        let m = read_json(&merged.join("manifest.json"));
        assert!(m["config"].get("shard").is_none());
        assert_eq!(
            m["settings"]["merged_from"].as_array().unwrap().len(),
            n as usize
        );
        // The audit report of the merged run shows every quote in context.
        let html = std::fs::read_to_string(merged.join("report.html")).unwrap();
        let html_whole = std::fs::read_to_string(whole.join("report.html")).unwrap();
        let data = |h: &str| {
            h[h.find("id=\"audit-data\"").expect("audit data")..]
                .split("</script>")
                .next()
                .unwrap_or("")
                .to_string()
        };
        assert_eq!(
            data(&html),
            data(&html_whole),
            "report data (with contexts) equal"
        );
    }
}

#[test]
fn hotpot_shards_merge_to_the_unsharded_run_in_both_formats() {
    let dir = Dir::new("shard-hotpot");
    for (fmt, p, g) in [
        (
            "simple",
            repo().join("evaluation/hotpot/predictions.json"),
            repo().join("evaluation/hotpot/gold.json"),
        ),
        (
            "official",
            repo().join("fixtures/hotpot/official/predictions.json"),
            repo().join("fixtures/hotpot/official/gold.json"),
        ),
    ] {
        let args = hotpot_args(&p, &g);
        let whole = run(&dir, &args, &format!("{fmt}-whole"));
        merges_equal_whole(
            &dir,
            &args,
            &whole,
            fmt,
            &["metrics.json", "per_example.json", "items.csv"],
        );
    }
}

#[test]
fn grounding_shards_merge_to_the_unsharded_run() {
    let dir = Dir::new("shard-grounding");
    let args = grounding_args();
    let whole = run(&dir, &args, "whole");
    merges_equal_whole(
        &dir,
        &args,
        &whole,
        "grounding",
        &[
            "grounding.json",
            "grounding.tsv",
            "items.csv",
            "summary.json",
        ],
    );
}

#[test]
fn missing_duplicated_and_foreign_shards_are_refused() {
    let dir = Dir::new("shard-refuse");
    let args = evaluate_args();
    let parts = shards(&dir, &args, 3, "parts");
    let by_index = |i: u32| {
        parts
            .iter()
            .find(|p| {
                read_json(&p.join("manifest.json"))["config"]["shard"] == format!("{i}/3").as_str()
            })
            .unwrap()
            .display()
            .to_string()
    };
    let (s1, s2, s3) = (by_index(1), by_index(2), by_index(3));
    dir.run(&["merge", &s1, &s3, "--out", "m"])
        .expect_code(2)
        .expect_stderr(&["missing shard(s) 2/3"]);
    // Shard 2 run twice: both folders named.
    let mut again = args.clone();
    again.extend(["--shard".to_string(), "2/3".to_string()]);
    let s2b = run(&dir, &again, "again").display().to_string();
    dir.run(&["merge", &s1, &s2, &s2b, &s3, "--out", "m"])
        .expect_code(2)
        .expect_stderr(&["shard 2/3 is given twice", &s2, &s2b]);
    // Another configuration (--match exact) is not the same run.
    let mut other = args.clone();
    other.extend(["--match", "exact", "--shard", "2/3"].map(String::from));
    let odd = run(&dir, &other, "odd").display().to_string();
    dir.run(&["merge", &s1, &odd, &s3, "--out", "m"])
        .expect_code(2)
        .expect_stderr(&[&odd, "another configuration"]);
    // The odd one is named whichever place it is given in: the majority
    // is the reference.
    let named = format!("{odd} was run with another configuration than");
    dir.run(&["merge", &odd, &s1, &s3, "--out", "m"])
        .expect_code(2)
        .expect_stderr(&[&named]);
    dir.run(&["merge", &s1, &s3, &odd, "--out", "m"])
        .expect_code(2)
        .expect_stderr(&[&named]);
    // An unsharded run is not a shard.
    let whole = run(&dir, &args, "whole").display().to_string();
    dir.run(&["merge", &whole, "--out", "m"])
        .expect_code(2)
        .expect_stderr(&["not a shard run"]);
    // A shard of another N.
    let mut four = args.clone();
    four.extend(["--shard".to_string(), "2/4".to_string()]);
    let s24 = run(&dir, &four, "four").display().to_string();
    dir.run(&["merge", &s1, &s24, &s3, "--out", "m"])
        .expect_code(2)
        .expect_stderr(&["one N for all shards"]);
    // Bad --shard values.
    for bad in ["0/3", "4/3", "3", "a/b"] {
        let mut a = args.clone();
        a.extend(["--shard".to_string(), bad.to_string()]);
        dir.run(&a).expect_code(2).expect_stderr(&["I/N"]);
    }
    assert!(
        dir.run_folders("m").is_empty(),
        "nothing written on refusal"
    );
}

#[test]
fn text_eval_shards_merge_to_the_unsharded_run() {
    let dir = Dir::new("shard-text-eval");
    // Both profiles: the standard one fits its TF-IDF space on the run's
    // rows, which every shard must still do over all of them.
    for profile in ["reference", "standard"] {
        let args: Vec<String> = vec![
            "text-eval".into(),
            repo()
                .join("evaluation/text-eval/sample.json")
                .display()
                .to_string(),
            "--no-embeddings".into(),
            "--profile".into(),
            profile.into(),
        ];
        let whole = run(&dir, &args, &format!("{profile}-whole"));
        merges_equal_whole(
            &dir,
            &args,
            &whole,
            profile,
            &["results.json", "results.tsv", "items.csv", "summary.json"],
        );
    }
}

#[test]
fn judge_answers_shards_merge_to_the_unsharded_run() {
    let dir = Dir::new("shard-judge");
    let input = repo()
        .join("evaluation/semantic/answers.jsonl")
        .display()
        .to_string();
    let args: Vec<String> = vec![
        "judge-answers".into(),
        input.clone(),
        "--method".into(),
        "keyword".into(),
        "--agreement".into(),
    ];
    let whole = run(&dir, &args, "whole");
    let merged = merges_equal_whole(
        &dir,
        &args,
        &whole,
        "keyword",
        &["scores.jsonl", "items.csv", "summary.json"],
    );
    for merged in merged {
        let m = read_json(&merged.join("manifest.json"));
        assert_eq!(m["command"], "judge-answers");
        assert!(m["config"].get("shard").is_none());
    }
    // semantic_dynamic draws its validation items from the whole input in
    // every shard: the same threshold, the same split, the same summary.
    let model = crate::util::model_dir().display().to_string();
    let dynamic: Vec<String> = vec![
        "judge-answers".into(),
        input,
        "--method".into(),
        "semantic_dynamic".into(),
        "--validation-fraction".into(),
        "0.3".into(),
        "--seed".into(),
        "11".into(),
        "--model-dir".into(),
        model,
        "--no-plots".into(),
    ];
    let whole = run(&dir, &dynamic, "dyn-whole");
    let parts = shards(&dir, &dynamic, 3, "dyn-parts");
    let merged = merge(&dir, &parts, "dyn-merged");
    same_files(
        &whole,
        &merged,
        &["scores.jsonl", "items.csv", "summary.json"],
    );
    // hybrid with --judge-top ranks systems over every item: no shards.
    let mut hybrid = args.clone();
    hybrid[3] = "hybrid".into();
    hybrid.extend(["--judge-top", "1", "--shard", "1/2"].map(String::from));
    dir.run(&hybrid)
        .expect_code(2)
        .expect_stderr(&["--shard", "--judge-top"]);
}

#[test]
fn shards_of_other_commands_inputs_or_items_are_refused() {
    let dir = Dir::new("shard-foreign");
    let args = evaluate_args();
    let part = |args: &[String], i: u32, parent: &str| {
        let mut a = args.to_vec();
        a.extend(["--shard".to_string(), format!("{i}/3")]);
        run(&dir, &a, parent).display().to_string()
    };
    let (s1, s3) = (part(&args, 1, "p"), part(&args, 3, "p"));
    // A hotpot shard among evaluate shards.
    let hotpot = hotpot_args(
        &repo().join("evaluation/hotpot/predictions.json"),
        &repo().join("evaluation/hotpot/gold.json"),
    );
    let h2 = part(&hotpot, 2, "h");
    dir.run(&["merge", &h2, &s1, &s3, "--out", "m"])
        .expect_code(2)
        .expect_stderr(&[
            &format!("{h2} is a hotpot run"),
            "merge shards of one command",
        ]);
    // Shard 2 over another questions file (one byte more).
    let q = repo().join("evaluation/data_fixture.json");
    let mut bytes = std::fs::read(&q).unwrap();
    bytes.push(b'\n');
    let copy = dir.path().join("questions-copy.json");
    std::fs::write(&copy, bytes).unwrap();
    let mut other = args.clone();
    other[1] = copy.display().to_string();
    let o2 = part(&other, 2, "o");
    dir.run(&["merge", &s1, &o2, &s3, "--out", "m"])
        .expect_code(2)
        .expect_stderr(&[&format!("{o2} read another questions file")]);
    // A shard whose per-item output lost a row: the row is named.
    let g = grounding_args();
    let gs: Vec<String> = (1..=3).map(|i| part(&g, i, "g")).collect();
    let file = Path::new(&gs[1]).join("grounding.json");
    let mut rows: Vec<serde_json::Value> =
        serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    let lost = rows.pop().unwrap()["id"].as_str().unwrap().to_string();
    std::fs::write(&file, serde_json::to_vec(&rows).unwrap()).unwrap();
    dir.run(&["merge", &gs[0], &gs[1], &gs[2], "--out", "m"])
        .expect_code(2)
        .expect_stderr(&[&gs[1], &format!("lacks row \"{lost}\"")]);
    assert!(
        dir.run_folders("m").is_empty(),
        "nothing written on refusal"
    );
}
