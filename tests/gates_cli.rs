//! Issue 41: quality gates. `--fail-under METRIC=VALUE` on every command
//! that writes an overall statistic exits 3 once its run folder is
//! written, 0 when every gate passes, 2 for an unknown metric or a bound
//! out of range (before anything runs); `--junit` writes one test case per
//! gate; `compare --fail-on-regression` exits 3 on a significant
//! regression against the first system.

use crate::util::{repo, Dir};

fn r(p: &str) -> String {
    repo().join(p).display().to_string()
}

/// The commands and their inputs, each with a metric that its sample run
/// reaches (`pass`) and one bound it cannot (`fail`).
fn commands() -> Vec<(&'static str, Vec<String>, &'static str, &'static str)> {
    vec![
        (
            "evaluate",
            vec![
                "evaluate".into(),
                r("evaluation/data_fixture.json"),
                r("datasets/corpus.json"),
                "--no-plots".into(),
                "--no-html".into(),
            ],
            "score=0.1",
            "existence=0.99",
        ),
        (
            "hotpot",
            vec![
                "hotpot".into(),
                r("evaluation/hotpot/predictions.json"),
                r("evaluation/hotpot/gold.json"),
                "--no-plots".into(),
            ],
            "answer_em=0",
            "answer_f1=1",
        ),
        (
            "lexical",
            vec![
                "lexical".into(),
                r("fixtures/lexical/pairs.jsonl"),
                "--out".into(),
                "runs".into(),
            ],
            "bleu=10",
            "rouge1=0.99",
        ),
        (
            "text-eval",
            vec![
                "text-eval".into(),
                r("evaluation/text-eval/sample.json"),
                "--no-embeddings".into(),
            ],
            "overall_score=0.1",
            "pass_rate=0.99",
        ),
        (
            "grounding",
            vec!["grounding".into(), r("evaluation/grounding/sample.json")],
            "completeness=0.1",
            "relevance=0.99",
        ),
        (
            "judge-answers",
            vec![
                "judge-answers".into(),
                r("evaluation/semantic/answers.jsonl"),
                "--method".into(),
                "keyword".into(),
            ],
            "mean_score=0.1",
            "f1=0.99",
        ),
        (
            "agreement",
            vec![
                "agreement".into(),
                r("fixtures/agreement/paradox.csv"),
                "--id".into(),
                "quote_id".into(),
                "--out".into(),
                "runs".into(),
            ],
            "percent_agreement=0.5",
            "cohen_kappa=0.5",
        ),
    ]
}

fn with(args: &[String], extra: &[&str]) -> Vec<String> {
    let mut a = args.to_vec();
    if !a.iter().any(|x| x == "--out") {
        a.extend(["--out".to_string(), "runs".to_string()]);
    }
    a.extend(extra.iter().map(|s| s.to_string()));
    a.push("--no-progress".into());
    a
}

#[test]
fn issue_41_fail_under_exit_codes_on_every_command() {
    for (name, args, pass, fail) in commands() {
        let dir = Dir::new(&format!("gates-{name}"));
        // Passing gates: 0, and the JUnit report says so.
        let ok = dir.run(&with(&args, &["--fail-under", pass, "--junit", "pass.xml"]));
        assert_eq!(ok.code(), 0, "{name}: {}", ok.stderr());
        let xml = std::fs::read_to_string(dir.path().join("pass.xml")).unwrap();
        assert!(xml.contains("tests=\"1\" failures=\"0\""), "{name}: {xml}");
        // A failing gate: 3, after the run folder is written, the metric,
        // its value and the bound named on stderr.
        let before = dir.run_folders("runs").len();
        let bad = dir.run(&with(
            &args,
            &[
                "--fail-under",
                fail,
                "--fail-under",
                pass,
                "--junit",
                "fail.xml",
            ],
        ));
        assert_eq!(bad.code(), 3, "{name}: {}", bad.stderr());
        let metric = fail.split('=').next().unwrap();
        let bound = fail.split('=').nth(1).unwrap();
        assert!(
            bad.stderr()
                .contains(&format!("quality gate failed: {metric} = "))
                && bad.stderr().contains(&format!("is below {bound}")),
            "{name}: {}",
            bad.stderr()
        );
        assert_eq!(
            dir.run_folders("runs").len(),
            before + 1,
            "{name}: the run folder is written"
        );
        let xml = std::fs::read_to_string(dir.path().join("fail.xml")).unwrap();
        assert!(
            xml.contains("tests=\"2\" failures=\"1\"") && xml.contains("<failure"),
            "{name}: {xml}"
        );
        // An unknown metric: 2 before anything runs, the valid names listed.
        let before = dir.run_folders("runs").len();
        let unknown = dir.run(&with(&args, &["--fail-under", "no_such_metric=0.5"]));
        assert_eq!(unknown.code(), 2, "{name}: {}", unknown.stderr());
        assert!(
            unknown.stderr().contains("no_such_metric") && unknown.stderr().contains(metric),
            "{name}: {}",
            unknown.stderr()
        );
        // A bound outside the metric's range: 2.
        let out = dir.run(&with(&args, &["--fail-under", &format!("{metric}=250")]));
        assert_eq!(out.code(), 2, "{name}: {}", out.stderr());
        let malformed = dir.run(&with(&args, &["--fail-under", metric]));
        assert_eq!(malformed.code(), 2, "{name}: {}", malformed.stderr());
        assert_eq!(
            dir.run_folders("runs").len(),
            before,
            "{name}: nothing written on a bad gate"
        );
    }
}

#[test]
fn issue_41_fail_under_in_a_config_file() {
    let dir = Dir::new("gates-config");
    dir.write("gates.toml", "[fail_under]\nexistence = 0.99\n");
    let run = dir.run(&[
        "evaluate",
        &r("evaluation/data_fixture.json"),
        &r("datasets/corpus.json"),
        "--config",
        "gates.toml",
        "--out",
        "runs",
        "--no-plots",
        "--no-progress",
    ]);
    assert_eq!(run.code(), 3, "{}", run.stderr());
    dir.write("bad.toml", "[fail_under]\nexistance = 0.5\n");
    dir.run(&["evaluate", "--config", "bad.toml", "--print-config"])
        .expect_code(2)
        .expect_stderr(&["bad.toml", "existance", "strict_existence"]);
}

#[test]
fn issue_41_rag_run_gates() {
    use crate::regression::main_job_questions;
    let server = crate::util::rag_server::RagServer::start(None, 4);
    let dir = Dir::new("gates-rag");
    let q = main_job_questions(&dir, &["Is the soil sandy?", "Who repairs bicycles?"]);
    let args = |gate: &str| {
        dir.run(&[
            "rag",
            "run",
            q.to_str().unwrap(),
            "--api-url",
            &server.url,
            "--out",
            "runs",
            "--no-progress",
            "--fail-under",
            gate,
        ])
    };
    assert_eq!(args("existence=0").code(), 0);
    let bad = args("existence=1");
    assert_eq!(bad.code(), 3, "{}", bad.stderr());
    assert!(bad.stderr().contains("quality gate failed: existence"));
    assert_eq!(args("latency=1").code(), 2);
}

#[test]
fn issue_41_compare_fails_on_a_regression() {
    let dir = Dir::new("gates-compare");
    // Two evaluate runs of the same items: the baseline, and one that
    // counts only exact quotes as found (fewer found).
    let (q, t) = (r("evaluation/data_fixture.json"), r("datasets/corpus.json"));
    let base = dir.run_new_folder(
        &[
            "evaluate",
            &q,
            &t,
            "--out",
            "a",
            "--no-plots",
            "--no-html",
            "--no-progress",
        ],
        "a",
    );
    let worse = dir.run_new_folder(
        &[
            "evaluate",
            &q,
            &t,
            "--match",
            "exact",
            "--out",
            "b",
            "--no-plots",
            "--no-html",
            "--no-progress",
        ],
        "b",
    );
    let a = format!("base={}", base.display());
    let b = format!("worse={}", worse.display());
    let ok = dir.run(&[
        "compare",
        &b,
        &a,
        "--out",
        "c1",
        "--fail-on-regression",
        "--no-progress",
    ]);
    assert_eq!(
        ok.code(),
        0,
        "the baseline is the first system: {}",
        ok.stderr()
    );
    let bad = dir.run(&[
        "compare",
        &a,
        &b,
        "--out",
        "c2",
        "--fail-on-regression",
        "--junit",
        "cmp.xml",
        "--no-progress",
    ]);
    assert_eq!(bad.code(), 3, "{}", bad.stderr());
    assert!(
        bad.stderr()
            .contains("regression: worse is worse than base on existence"),
        "{}",
        bad.stderr()
    );
    assert!(bad.stderr().contains("Holm-adjusted p"), "{}", bad.stderr());
    assert_eq!(dir.run_folders("c2").len(), 1, "the comparison is written");
    let xml = std::fs::read_to_string(dir.path().join("cmp.xml")).unwrap();
    assert!(xml.contains("<failure"), "{xml}");
    dir.run(&[
        "compare",
        &a,
        &b,
        "--out",
        "c3",
        "--fail-on-regression",
        "--alpha",
        "1.5",
    ])
    .expect_code(2);
}
