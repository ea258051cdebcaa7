//! Typed jobs at the command line: `--config FILE` (TOML or JSON) under the
//! flags, `--print-config`, the resolved config in the manifest, and
//! `corpus-eval rerun` reproducing a run from its folder alone.

use crate::util::{read_json, repo, sample, Dir};
use serde_json::json;
use std::path::PathBuf;

#[test]
fn print_config_gives_the_defaults_as_toml() {
    let dir = Dir::new("jobs-print");
    let r = dir.run(&["evaluate", "--print-config"]).expect_code(0);
    let text = r.stdout();
    for line in [
        "version = 1",
        "out = \"reports\"",
        "match = \"normalized\"",
        "fuzzy_threshold = 0.9",
        "no_plots = false",
        "seed = 42",
    ] {
        assert!(text.lines().any(|l| l == line), "{line} missing in\n{text}");
    }
    // The printed file is a valid config that changes nothing.
    dir.write("c.toml", &text);
    let again = dir
        .run(&["evaluate", "--config", "c.toml", "--print-config"])
        .expect_code(0);
    assert_eq!(again.stdout(), text);
}

#[test]
fn flags_override_the_file_and_unknown_keys_are_refused() {
    let dir = Dir::new("jobs-config");
    dir.write("c.toml", "seed = 5\nmatch = \"fuzzy\"\nno_plots = true\n");
    let r = dir
        .run(&[
            "evaluate",
            "--config",
            "c.toml",
            "--seed",
            "9",
            "--print-config",
        ])
        .expect_code(0);
    let out = r.stdout();
    assert!(
        out.contains("seed = 9")
            && out.contains("match = \"fuzzy\"")
            && out.contains("no_plots = true"),
        "{out}"
    );
    dir.write("c.json", r#"{"seed": 3, "match": "exact"}"#);
    let r = dir
        .run(&["evaluate", "--config", "c.json", "--print-config"])
        .expect_code(0);
    assert!(r.stdout().contains("seed = 3") && r.stdout().contains("match = \"exact\""));
    dir.write("bad.toml", "seed = 5\nbogus = 1\n");
    let (q, t) = sample();
    dir.run(&["evaluate", &q, &t, "--config", "bad.toml"])
        .expect_code(2)
        .expect_stderr(&["bad.toml", "line 2", "unknown field `bogus`"]);
    dir.write("bad.json", r#"{"seed": 1, "extra": true}"#);
    dir.run(&["evaluate", &q, &t, "--config", "bad.json"])
        .expect_code(2)
        .expect_stderr(&["bad.json", "unknown field `extra`"]);
    dir.write("range.json", r#"{"fuzzy_threshold": 2}"#);
    dir.run(&["evaluate", &q, &t, "--config", "range.json"])
        .expect_code(2)
        .expect_stderr(&["--fuzzy-threshold", "[0, 1]"]);
    dir.write("v.toml", "version = 99\n");
    dir.run(&["evaluate", &q, &t, "--config", "v.toml"])
        .expect_code(2)
        .expect_stderr(&["v.toml", "version 99"]);
    dir.write("c.yaml", "seed: 1\n");
    dir.run(&["evaluate", &q, &t, "--config", "c.yaml"])
        .expect_code(2)
        .expect_stderr(&[".toml or .json"]);
    assert!(dir.run_folders("reports").is_empty());
}

#[test]
fn the_manifest_records_the_resolved_config() {
    let dir = Dir::new("jobs-manifest");
    let (q, t) = sample();
    dir.write("c.toml", "seed = 5\n");
    let folder = dir.run_new_folder(
        &[
            "evaluate", &q, &t, "--config", "c.toml", "--match", "fuzzy", "--out", "runs",
        ],
        "runs",
    );
    let m = read_json(&folder.join("manifest.json"));
    assert_eq!(
        m["config"],
        // Issue 53: `allow_external_sources`, a switch, is recorded too.
        json!({"version": 1, "out": "runs", "match": "fuzzy", "fuzzy_threshold": 0.9, "no_plots": false, "no_html": false, "seed": 5, "time_tolerance": 60.0, "paraphrase": false, "paraphrase_threshold": 0.8, "allow_external_sources": false})
    );
    assert_eq!(m["settings"]["seed"], 5);
}

fn rerun(dir: &Dir, folder: &std::path::Path, extra: &[&str]) -> crate::util::Run {
    let mut args = vec!["rerun".to_string(), folder.display().to_string()];
    args.extend(extra.iter().map(|s| s.to_string()));
    dir.run(&args)
}

#[test]
fn rerun_of_evaluate_is_identical_file_by_file() {
    let dir = Dir::new("jobs-rerun");
    let (q, t) = sample();
    let folder = dir.run_new_folder(
        &["evaluate", &q, &t, "--out", "runs", "--seed", "11"],
        "runs",
    );
    let r = rerun(&dir, &folder, &["--out", "again"]).expect_code(0);
    let out = r.stdout();
    for f in [
        "results.json",
        "summary.json",
        "transcript_scores.png",
        "verbatim_scores.png",
    ] {
        assert!(out.contains(&format!("identical {f}")), "{out}");
    }
    assert!(!out.contains("different"), "{out}");
    let again: Vec<PathBuf> = dir.run_folders("again");
    assert_eq!(again.len(), 1);
    // The rerun's manifest has the same config and inputs.
    let (a, b) = (
        read_json(&folder.join("manifest.json")),
        read_json(&again[0].join("manifest.json")),
    );
    assert_eq!(
        a["inputs"]["questions"]["sha256"],
        b["inputs"]["questions"]["sha256"]
    );
    assert_eq!(a["config"]["seed"], b["config"]["seed"]);
    // A tampered output is reported as different (exit 1).
    let summary = folder.join("summary.json");
    let text = std::fs::read_to_string(&summary).unwrap();
    std::fs::write(&summary, text.replacen("\"n\"", "\"n\" ", 1)).unwrap();
    let r = rerun(&dir, &folder, &["--out", "third"]).expect_code(1);
    assert!(
        r.stdout().contains("different summary.json"),
        "{}",
        r.stdout()
    );
    assert!(
        r.stdout().contains("identical results.json"),
        "{}",
        r.stdout()
    );
}

#[test]
fn rerun_refuses_changed_or_missing_inputs() {
    let dir = Dir::new("jobs-rerun-inputs");
    let (_, t) = sample();
    let q = dir.path().join("q.json");
    std::fs::copy(repo().join("evaluation/data_fixture.json"), &q).unwrap();
    let folder = dir.run_new_folder(
        &["evaluate", "q.json", &t, "--out", "runs", "--no-plots"],
        "runs",
    );
    let recorded = read_json(&folder.join("manifest.json"))["inputs"]["questions"]["sha256"]
        .as_str()
        .unwrap()
        .to_string();
    // Changed: named with both digests.
    let mut text = std::fs::read_to_string(&q).unwrap();
    text.push('\n');
    std::fs::write(&q, &text).unwrap();
    let r = rerun(&dir, &folder, &[]).expect_code(2);
    assert!(
        r.stderr().contains("q.json") && r.stderr().contains(&recorded),
        "{}",
        r.stderr()
    );
    // Missing: named; --inputs DIR finds it by file name.
    std::fs::remove_file(&q).unwrap();
    rerun(&dir, &folder, &[])
        .expect_code(2)
        .expect_stderr(&["q.json", "missing"]);
    let elsewhere = dir.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    std::fs::copy(
        repo().join("evaluation/data_fixture.json"),
        elsewhere.join("q.json"),
    )
    .unwrap();
    let r = rerun(&dir, &folder, &["--inputs", "elsewhere", "--out", "again"]).expect_code(0);
    assert!(
        r.stdout().contains("identical results.json"),
        "{}",
        r.stdout()
    );
}

#[test]
fn rerun_of_hotpot_is_identical_html_and_png_included() {
    let dir = Dir::new("jobs-rerun-hotpot");
    for case in ["simple", "official"] {
        let f = crate::util::fixture("hotpot").join(case);
        let p = f.join("predictions.json").display().to_string();
        let g = f.join("gold.json").display().to_string();
        dir.write("h.toml", "name = \"sys\"\n");
        let out = format!("runs-{case}");
        let folder = dir.run_new_folder(
            &["hotpot", &p, &g, "--out", &out, "--config", "h.toml"],
            &out,
        );
        let m = read_json(&folder.join("manifest.json"));
        assert_eq!(m["config"]["name"], "sys");
        let r = rerun(&dir, &folder, &["--out", &format!("again-{case}")]).expect_code(0);
        for f in [
            "metrics.json",
            "per_example.json",
            "items.csv",
            "hotpot_metrics.png",
            "report.html",
        ] {
            assert!(
                r.stdout().contains(&format!("identical {f}")),
                "{}",
                r.stdout()
            );
        }
    }
    let r = dir.run(&["hotpot", "--print-config"]).expect_code(0);
    assert!(r.stdout().contains("format = \"auto\""), "{}", r.stdout());
}

#[test]
fn rerun_of_grounding_is_identical() {
    let dir = Dir::new("jobs-rerun-grounding");
    let input = repo()
        .join("evaluation/grounding/sample.json")
        .display()
        .to_string();
    let folder = dir.run_new_folder(&["grounding", &input, "--out", "runs"], "runs");
    let r = rerun(&dir, &folder, &["--out", "again"]).expect_code(0);
    for f in [
        "grounding.json",
        "grounding.tsv",
        "summary.json",
        "grounding_metrics.png",
    ] {
        assert!(
            r.stdout().contains(&format!("identical {f}")),
            "{}",
            r.stdout()
        );
    }
    assert_eq!(
        read_json(&folder.join("manifest.json"))["config"]["version"],
        1
    );
}

#[test]
fn rerun_of_text_eval_is_identical_and_checks_its_files() {
    let dir = Dir::new("jobs-rerun-text-eval");
    let input = repo()
        .join("evaluation/text-eval/sample.json")
        .display()
        .to_string();
    dir.write("th.json", r#"{"accuracy": 0.6}"#);
    dir.write("c.toml", "no_embeddings = true\nprofile = \"standard\"\n");
    let folder = dir.run_new_folder(
        &[
            "text-eval",
            &input,
            "--thresholds",
            "th.json",
            "--config",
            "c.toml",
            "--out",
            "runs",
        ],
        "runs",
    );
    let m = read_json(&folder.join("manifest.json"));
    assert_eq!(m["config"]["profile"], "standard");
    assert!(m["inputs"]["thresholds"]["sha256"].is_string());
    let r = rerun(&dir, &folder, &["--out", "again"]).expect_code(0);
    for f in [
        "results.tsv",
        "results.json",
        "summary.json",
        "composite_scores.png",
        "pass_rates.png",
    ] {
        assert!(
            r.stdout().contains(&format!("identical {f}")),
            "{}",
            r.stdout()
        );
    }
    // The thresholds file is an input: changed, the rerun refuses.
    dir.write("th.json", r#"{"accuracy": 0.7}"#);
    rerun(&dir, &folder, &["--out", "third"])
        .expect_code(2)
        .expect_stderr(&["th.json", "thresholds input changed"]);
}

#[test]
fn rerun_of_compare_is_identical_from_another_folder() {
    let dir = Dir::new("jobs-rerun-compare");
    let f = crate::util::fixture("hotpot/simple");
    let (p, g) = (
        f.join("predictions.json").display().to_string(),
        f.join("gold.json").display().to_string(),
    );
    let a = dir.run_new_folder(&["hotpot", &p, &g, "--out", "a", "--no-plots"], "a");
    let b = dir.run_new_folder(
        &[
            "hotpot",
            &p,
            &g,
            "--out",
            "b",
            "--no-plots",
            "--name",
            "copy",
        ],
        "b",
    );
    // Relative system paths, resolved in the folder the run ran in.
    let rel = |p: &std::path::Path| p.strip_prefix(dir.path()).unwrap().display().to_string();
    dir.write(
        "cmp.toml",
        &format!(
            "systems = [\"base={}\", \"copy={}\"]\nresamples = 500\n",
            rel(&a),
            rel(&b)
        ),
    );
    let folder = dir.run_new_folder(&["compare", "--config", "cmp.toml", "--out", "c"], "c");
    assert_eq!(
        read_json(&folder.join("manifest.json"))["config"]["resamples"],
        500
    );
    // rerun from another working folder: same numbers, same files.
    let other = Dir::new("jobs-rerun-compare-elsewhere");
    let r = other
        .run(&[
            "rerun",
            &folder.display().to_string(),
            "--out",
            &dir.path().join("again").display().to_string(),
        ])
        .expect_code(0);
    for f in [
        "comparison.csv",
        "differences.csv",
        "comparison.json",
        "comparison.html",
    ] {
        assert!(
            r.stdout().contains(&format!("identical {f}")),
            "{}",
            r.stdout()
        );
    }
}

/// Every output the manifest lists has the sha256 and size it records, and
/// the manifest says the run is complete.
fn assert_manifest_complete(folder: &std::path::Path) {
    let m = read_json(&folder.join("manifest.json"));
    assert_eq!(m["status"], "complete");
    assert!(m["finished_at"].is_string());
    let outputs: Vec<&str> = m["outputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o.as_str().unwrap())
        .collect();
    assert_eq!(outputs.last(), Some(&"manifest.json"));
    for name in &outputs[..outputs.len() - 1] {
        let bytes = std::fs::read(folder.join(name)).unwrap();
        let f = &m["files"][*name];
        assert_eq!(f["bytes"], bytes.len(), "{name}");
        assert_eq!(
            f["sha256"],
            corpus_eval::text::hash::sha256_hex(&bytes),
            "{name}"
        );
    }
    // Every file in the folder is listed.
    for e in std::fs::read_dir(folder).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        assert!(outputs.contains(&name.as_str()), "{name} not listed");
    }
}

#[test]
fn every_run_records_its_outputs_with_sha256() {
    let dir = Dir::new("jobs-manifest-files");
    let (q, t) = sample();
    let folder = dir.run_new_folder(&["evaluate", &q, &t, "--out", "runs"], "runs");
    assert_manifest_complete(&folder);
    let input = repo()
        .join("evaluation/grounding/sample.json")
        .display()
        .to_string();
    let folder = dir.run_new_folder(&["grounding", &input, "--out", "g"], "g");
    assert_manifest_complete(&folder);
    let answers = repo()
        .join("evaluation/semantic/answers.jsonl")
        .display()
        .to_string();
    let folder = dir.run_new_folder(
        &[
            "judge-answers",
            &answers,
            "--method",
            "keyword",
            "--out",
            "k",
        ],
        "k",
    );
    assert_manifest_complete(&folder);
}

fn judge_run(dir: &Dir, extra: &[&str], parent: &str) -> PathBuf {
    let answers = repo()
        .join("evaluation/semantic/answers.jsonl")
        .display()
        .to_string();
    let mut args = vec!["judge-answers", answers.as_str(), "--out", parent];
    args.extend_from_slice(extra);
    dir.run_new_folder(&args, parent)
}

fn assert_identical(r: &crate::util::Run, files: &[&str]) {
    let out = r.stdout();
    for f in files {
        assert!(out.contains(&format!("identical {f}")), "{f}: {out}");
    }
    assert!(!out.contains("different"), "{out}");
}

#[test]
fn rerun_of_judge_answers_keyword_is_identical() {
    let dir = Dir::new("jobs-rerun-keyword");
    let folder = judge_run(&dir, &["--method", "keyword"], "runs");
    let m = read_json(&folder.join("manifest.json"));
    assert_eq!(m["config"]["method"], "keyword");
    let r = rerun(&dir, &folder, &["--out", "again"]).expect_code(0);
    assert_identical(
        &r,
        &[
            "scores.jsonl",
            "summary.json",
            "score_distribution_keyword.png",
        ],
    );
}

#[test]
fn rerun_of_judge_answers_semantic_methods_is_identical() {
    let dir = Dir::new("jobs-rerun-semantic");
    let model = crate::util::model_dir().display().to_string();
    let folder = judge_run(
        &dir,
        &["--method", "semantic_fixed", "--model-dir", &model],
        "fixed",
    );
    let r = rerun(&dir, &folder, &["--out", "again"]).expect_code(0);
    assert_identical(
        &r,
        &[
            "scores.jsonl",
            "summary.json",
            "score_distribution_semantic_fixed.png",
            "score_distribution_keyword.png",
        ],
    );
    // semantic_dynamic: the validation draw (fraction and seed) comes back
    // from the config, so the chosen threshold and held-out split do too.
    let folder = judge_run(
        &dir,
        &[
            "--method",
            "semantic_dynamic",
            "--validation-fraction",
            "0.5",
            "--seed",
            "7",
            "--anchors",
            "off",
            "--model-dir",
            &model,
        ],
        "dynamic",
    );
    let m = read_json(&folder.join("manifest.json"));
    assert_eq!(m["config"]["seed"], 7);
    assert_eq!(m["config"]["anchors"], "off");
    let r = rerun(&dir, &folder, &["--out", "again2"]).expect_code(0);
    assert_identical(&r, &["scores.jsonl", "summary.json"]);
}

#[test]
fn rerun_of_judge_answers_checks_its_validation_file() {
    let dir = Dir::new("jobs-rerun-validation");
    let model = crate::util::model_dir().display().to_string();
    std::fs::copy(
        repo().join("evaluation/semantic/answers.jsonl"),
        dir.path().join("val.jsonl"),
    )
    .unwrap();
    let folder = judge_run(
        &dir,
        &[
            "--method",
            "semantic_dynamic",
            "--validation",
            "val.jsonl",
            "--model-dir",
            &model,
            "--no-plots",
        ],
        "runs",
    );
    let m = read_json(&folder.join("manifest.json"));
    assert!(m["inputs"]["validation"]["sha256"].is_string());
    let r = rerun(&dir, &folder, &["--out", "again"]).expect_code(0);
    assert_identical(&r, &["scores.jsonl", "summary.json"]);
    // A changed validation file: exit 2 naming it.
    let mut text = std::fs::read_to_string(dir.path().join("val.jsonl")).unwrap();
    text.push('\n');
    std::fs::write(dir.path().join("val.jsonl"), text).unwrap();
    rerun(&dir, &folder, &[])
        .expect_code(2)
        .expect_stderr(&["val.jsonl", "changed"]);
}

#[test]
fn judge_answers_and_threshold_take_config_files() {
    let dir = Dir::new("jobs-judge-config");
    let r = dir.run(&["judge-answers", "--print-config"]).expect_code(0);
    let text = r.stdout();
    for line in [
        "method = \"semantic_fixed\"",
        "threshold = 0.75",
        "anchors = \"on\"",
        "judge_model = \"gpt-3.5-turbo\"",
        "judge_concurrency = 4",
    ] {
        assert!(text.lines().any(|l| l == line), "{line} missing in\n{text}");
    }
    dir.write("c.toml", "method = \"keyword\"\nthreshold = 0.6\n");
    let r = dir
        .run(&[
            "judge-answers",
            "--config",
            "c.toml",
            "--threshold",
            "0.7",
            "--print-config",
        ])
        .expect_code(0);
    assert!(
        r.stdout().contains("method = \"keyword\""),
        "{}",
        r.stdout()
    );
    assert!(r.stdout().contains("threshold = 0.7"), "{}", r.stdout());
    dir.write("bad.toml", "methd = \"keyword\"\n");
    dir.run(&["judge-answers", "--config", "bad.toml", "--print-config"])
        .expect_code(2)
        .expect_stderr(&["bad.toml", "methd"]);
    dir.write("range.json", "{\"threshold\": 1.5}");
    dir.run(&["judge-answers", "--config", "range.json", "--print-config"])
        .expect_code(2)
        .expect_stderr(&["--threshold", "1.5"]);
    let r = dir
        .run(&["threshold", "--print-config", "--optimize", "f1"])
        .expect_code(0);
    assert!(r.stdout().contains("optimize = \"f1\""), "{}", r.stdout());
}

/// Issue 56: a configuration is resolved once. The speaker map and the
/// aliases file are read by `resolve`, and the run takes what it read:
/// with both files gone, `execute_resolved` still applies them (a job
/// that read them again would fail), and its results equal those of a
/// run from the files. An invalid setting is an error from
/// `eval_config`, never the defaults in its place.
#[test]
fn issue_56_a_resolved_configuration_reads_its_files_once() {
    use corpus_eval::jobs::evaluate::{execute, execute_resolved, Config};
    let dir = crate::util::Dir::new("resolve-once");
    let map = dir.write("map.csv", "SPEAKER_01,Interviewee A\n");
    let aliases = dir.write("aliases.csv", "alias,label\nAna Lopez,Interviewee A\n");
    let questions = repo().join("datasets/interview-questions.json");
    let transcripts = repo().join("datasets/interview/harbour.json");
    let config = |out: &str, aliases: Option<PathBuf>| Config {
        out: dir.path().join(out),
        no_plots: true,
        no_html: true,
        speaker_map: Some(map.display().to_string()),
        speaker_aliases: aliases,
        ..Config::default()
    };
    let attributions = |folder: &std::path::Path| -> Vec<String> {
        let r = read_json(&folder.join("results.json"));
        r["qa_pairs"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|p| p["answers"].as_array().unwrap().clone())
            .flat_map(|a| a["verbatims"].as_array().unwrap().clone())
            .map(|v| v["attribution"].as_str().unwrap_or("").to_string())
            .collect()
    };
    // The map alone names the speaker `Interviewee A`, not Ana Lopez.
    let (no_alias, _) = execute(&config("a", None), &questions, &transcripts).unwrap();
    assert_eq!(
        attributions(&no_alias)[..2],
        ["wrong_speaker", "wrong_speaker"]
    );
    // With the aliases, from the files.
    let from_files = execute(
        &config("b", Some(aliases.clone())),
        &questions,
        &transcripts,
    )
    .unwrap()
    .0;
    assert_eq!(attributions(&from_files)[..2], ["ok", "ok"]);
    // Resolved, then the files removed: the run applies what was read.
    let resolved = config("c", Some(aliases.clone())).resolve().unwrap();
    std::fs::remove_file(&map).unwrap();
    std::fs::remove_file(&aliases).unwrap();
    let (once, _) = execute_resolved(&resolved, &questions, &transcripts).unwrap();
    assert_eq!(
        std::fs::read(once.join("results.json")).unwrap(),
        std::fs::read(from_files.join("results.json")).unwrap()
    );
    // And the configuration itself now names missing files.
    assert!(config("d", Some(aliases)).resolve().is_err());
    // No silent defaults.
    let bad = Config {
        speaker_pattern: Some("(".into()),
        ..Config::default()
    };
    let e = bad.eval_config().unwrap_err().to_string();
    assert!(e.contains("--speaker-pattern"), "{e}");
}
