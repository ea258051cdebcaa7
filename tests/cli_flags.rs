//! The flags of the jobs' settings (`cli::flags`): every setting of every
//! configuration has a flag that sets its field alone; a flag not given
//! keeps a configuration file's value; values a setting refuses are named
//! by their flag; the help shows each default.

use clap::{Args, Command, FromArgMatches};
use corpus_eval::cli::flags::{Api, Flags};
use corpus_eval::jobs::settings::{Kind, Setting, Settings};
use corpus_eval::jobs::{to_value, JobConfig};
use serde_json::Value;

/// `args` parsed by the flags of `C` alone.
fn parse<C: JobConfig + Settings>(args: &[&str]) -> Result<Flags<C>, clap::Error> {
    let cmd = Flags::<C>::augment_args(Command::new("t").no_binary_name(true));
    let m = cmd.try_get_matches_from(args)?;
    Flags::<C>::from_arg_matches(&m)
}

/// A value of each kind, different from the setting's default (`base`:
/// the default configuration as JSON), and the JSON the configuration
/// then holds at the key.
fn sample(s: &Setting, base: &Value) -> (Vec<String>, Value) {
    let flag = format!("--{}", s.flag);
    let default = base.get(s.key).cloned().unwrap_or(Value::Null);
    let text = |v: &str| (vec![flag.clone(), v.to_string()], Value::String(v.into()));
    match s.kind {
        Kind::Switch => (vec![flag.clone()], Value::Bool(true)),
        Kind::UInt => (vec![flag.clone(), "7".into()], Value::from(7u64)),
        Kind::Int => (vec![flag.clone(), "-3".into()], Value::from(-3i64)),
        Kind::Float => (vec![flag.clone(), "0.25".into()], Value::from(0.25)),
        Kind::Text => text("x-value"),
        Kind::Parsed(_) => text("2/3"),
        Kind::Choice(names) => {
            let name = names
                .iter()
                .find(|n| default.as_str() != Some(**n))
                .expect("a choice other than the default");
            text(name)
        }
        Kind::List { .. } => (
            vec![flag.clone(), "a,b".into(), flag.clone(), "c".into()],
            serde_json::json!(["a", "b", "c"]),
        ),
        Kind::Repeat => (
            vec![flag.clone(), "K=a,b".into(), flag.clone(), "L=c".into()],
            serde_json::json!(["K=a,b", "L=c"]),
        ),
        Kind::Bounds => (
            vec![
                flag.clone(),
                "m1=0.5,m2=0.25".into(),
                flag.clone(),
                "m3=1".into(),
            ],
            serde_json::json!({"m1": 0.5, "m2": 0.25, "m3": 1.0}),
        ),
    }
}

/// Every setting's flag reaches its field, and that field alone.
fn every_flag_sets_its_field<C: JobConfig + Settings>() {
    let base = to_value(&C::default());
    let settings = C::settings();
    assert!(!settings.is_empty(), "{}", C::COMMAND);
    for s in settings {
        if matches!(s.kind, Kind::List { check: Some(_), .. }) {
            continue; // items checked: see `a_checked_list_refuses_an_unknown_item`
        }
        let (args, expected) = sample(&s, &base);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let flags = parse::<C>(&args).unwrap_or_else(|e| panic!("{}: {args:?}: {e}", C::COMMAND));
        assert!(flags.given(s.key), "{} {}", C::COMMAND, s.key);
        let got = to_value(
            &flags
                .over(C::default())
                .unwrap_or_else(|e| panic!("{} {args:?}: {e}", C::COMMAND)),
        );
        let mut want = base.clone();
        want[s.key] = expected;
        assert_eq!(got, want, "{} {args:?}", C::COMMAND);
        assert!(
            !s.help.is_empty() && !s.help.contains("[`") && !s.help.contains("crate::"),
            "{} {}: {:?}",
            C::COMMAND,
            s.key,
            s.help
        );
    }
}

#[test]
fn every_setting_of_every_job_has_a_flag_that_sets_it() {
    use corpus_eval::jobs::*;
    every_flag_sets_its_field::<evaluate::Config>();
    every_flag_sets_its_field::<check_report::Config>();
    every_flag_sets_its_field::<agreement::Config>();
    every_flag_sets_its_field::<compare::Config>();
    every_flag_sets_its_field::<grounding::Config>();
    every_flag_sets_its_field::<hotpot::Config>();
    every_flag_sets_its_field::<judge_answers::Config>();
    every_flag_sets_its_field::<judge_answers::ThresholdConfig>();
    every_flag_sets_its_field::<lexical::Config>();
    every_flag_sets_its_field::<rag::Config>();
    every_flag_sets_its_field::<text_eval::Config>();
    every_flag_sets_its_field::<score::Config>();
    every_flag_sets_its_field::<embed::Config>();
    every_flag_sets_its_field::<transcript::Config>();
    every_flag_sets_its_field::<merge::Config>();
    every_flag_sets_its_field::<rerun::Config>();
}

#[test]
fn a_flag_not_given_leaves_the_files_setting() {
    use corpus_eval::jobs::evaluate::Config;
    let file = Config {
        no_plots: true,
        seed: 7,
        fillers: Some(vec!["um".into()]),
        ..Config::default()
    };
    let flags = parse::<Config>(&["--no-html"]).unwrap();
    let c = flags.over(file.clone()).unwrap();
    assert!(c.no_plots && c.no_html, "a switch not given is not false");
    assert_eq!((c.seed, c.fillers), (7, Some(vec!["um".to_string()])));
    // Given, a flag wins over the file.
    let c = parse::<Config>(&["--seed", "9", "--fillers", "none"])
        .unwrap()
        .over(file)
        .unwrap();
    assert_eq!((c.seed, c.fillers), (9, Some(Vec::new())));
}

#[test]
fn fail_under_bounds_are_added_to_the_files() {
    use corpus_eval::jobs::evaluate::Config;
    let mut file = Config::default();
    file.fail_under.insert("existence".into(), 0.9);
    file.fail_under.insert("overall".into(), 0.1);
    let c = parse::<Config>(&["--fail-under", "overall=0.5,exact=0.25"])
        .unwrap()
        .over(file)
        .unwrap();
    let table: Vec<(&str, f64)> = c.fail_under.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    assert_eq!(
        table,
        [("exact", 0.25), ("existence", 0.9), ("overall", 0.5)]
    );
    let e = parse::<Config>(&["--fail-under", "overall"]).unwrap_err();
    assert!(e.to_string().contains("expected METRIC=VALUE"), "{e}");
    for bound in ["nan", "inf", "-inf"] {
        let e = parse::<Config>(&["--fail-under", &format!("overall={bound}")]).unwrap_err();
        assert!(
            e.to_string()
                .contains("overall: the bound is not a finite number"),
            "{e}"
        );
    }
}

#[test]
fn a_value_its_setting_refuses_is_named_by_its_flag() {
    use corpus_eval::jobs::rag::Config;
    // 2^33 is a u64 (the parser takes it) but not the u32 the field is.
    let flags = parse::<Config>(&["--max-retries", "8589934592"]).unwrap();
    let e = flags.over(Config::default()).unwrap_err().to_string();
    assert!(e.starts_with("--max-retries 8589934592: "), "{e}");
    for (args, needle) in [
        (&["--fuzzy-threshold", "NaN"][..], "not a finite number"),
        (&["--fuzzy-threshold", "inf"][..], "not a finite number"),
        (
            &["--match", "loose"][..],
            "possible values: exact, normalized, fuzzy",
        ),
        (&["--k", "-1"][..], "'-1'"),
    ] {
        let e = parse::<Config>(args).unwrap_err().to_string();
        assert!(e.contains(needle), "{args:?}: {e}");
    }
}

#[test]
fn a_checked_list_refuses_an_unknown_item() {
    use corpus_eval::jobs::check_report::Config;
    let c = parse::<Config>(&[
        "--fail-on",
        "fabricated, altered,,",
        "--fail-on",
        "stitched,fabricated",
    ])
    .unwrap()
    .over(Config::default())
    .unwrap();
    let names: Vec<&str> = c.fail_on.iter().map(|a| a.as_str()).collect();
    assert_eq!(names, ["fabricated", "altered", "stitched"]);
    let e = parse::<Config>(&["--fail-on", "ok,made_up"])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("unknown attribution class") && e.contains("fabricated"),
        "{e}"
    );
}

#[test]
fn the_help_shows_each_default_from_the_configuration() {
    use corpus_eval::jobs::evaluate::Config;
    let mut cmd = Flags::<Config>::augment_args(Command::new("t"));
    let help = cmd.render_help().to_string();
    for shown in [
        "Similarity (0..1) a fuzzy match needs [default: 0.9]",
        "[default: reports]",
        "[default: normalized] [possible values: exact, normalized, fuzzy]",
        "--shard <I/N>",
        "--fillers <A,B,...|none>",
    ] {
        assert!(help.contains(shown), "{shown:?} not in\n{help}");
    }
    // A switch shows no default, an unset setting none either.
    assert!(!help.contains("[default: false]") && !help.contains("[default: null]"));
}

#[test]
fn rag_ask_takes_the_api_settings_alone() {
    use corpus_eval::jobs::rag::Config;
    let cmd = Flags::<Config, Api>::augment_args(Command::new("t"));
    let flags: Vec<&str> = cmd.get_arguments().filter_map(|a| a.get_long()).collect();
    assert!(
        flags.contains(&"api-url") && flags.contains(&"match"),
        "{flags:?}"
    );
    for run_only in [
        "out",
        "concurrency",
        "seed",
        "shard",
        "fail-under",
        "wordnet",
    ] {
        assert!(!flags.contains(&run_only), "{run_only} in {flags:?}");
    }
}

/// `(command, settings)` of every job configuration.
fn every_jobs_settings() -> Vec<(&'static str, Vec<Setting>)> {
    use corpus_eval::jobs::*;
    fn of<C: JobConfig + Settings>() -> (&'static str, Vec<Setting>) {
        (C::COMMAND, C::settings())
    }
    vec![
        of::<evaluate::Config>(),
        of::<check_report::Config>(),
        of::<agreement::Config>(),
        of::<compare::Config>(),
        of::<grounding::Config>(),
        of::<hotpot::Config>(),
        of::<judge_answers::Config>(),
        of::<judge_answers::ThresholdConfig>(),
        of::<lexical::Config>(),
        of::<rag::Config>(),
        of::<text_eval::Config>(),
        of::<score::Config>(),
        of::<embed::Config>(),
        of::<transcript::Config>(),
        of::<merge::Config>(),
        of::<rerun::Config>(),
    ]
}

#[test]
fn issue_56_a_shared_setting_has_one_help_in_every_job() {
    // The settings spliced from one declaration (`#[shared]`): where a job
    // has one of these keys, its help opens with the one help text (a
    // job's own note may follow). The exceptions are settings of the same
    // name that mean something else there, named here one by one.
    let shared = [
        "out",
        "shard",
        "fail_under",
        "wordnet",
        "match",
        "fuzzy_threshold",
        "fuzzy_search",
        "fillers",
        "speaker_pattern",
        "interviewer_labels",
        "speaker_aliases",
        "speaker_map",
        "allow_external_sources",
    ];
    let own = [
        ("agreement", "out"),
        ("lexical", "out"),
        ("threshold", "out"),
        ("merge", "out"),
        ("rerun", "out"),
        ("transcript", "speaker_pattern"),
    ];
    let all = every_jobs_settings();
    let mut seen = std::collections::BTreeMap::<&str, usize>::new();
    for key in shared {
        let mut base: Option<String> = None;
        for (command, settings) in &all {
            let Some(s) = settings.iter().find(|s| s.key == key) else {
                continue;
            };
            if own.contains(&(*command, key)) {
                continue;
            }
            *seen.entry(key).or_default() += 1;
            // The shared text is the shortest help among the jobs.
            match &base {
                Some(b) if s.help.len() >= b.len() => {}
                _ => base = Some(s.help.to_string()),
            }
        }
        let base = base.unwrap_or_else(|| panic!("no job has the shared setting {key}"));
        for (command, settings) in &all {
            if let Some(s) = settings.iter().find(|s| s.key == key) {
                if own.contains(&(*command, key)) {
                    assert!(
                        !s.help.starts_with(&base),
                        "{command} {key}: listed as its own but shared now"
                    );
                    continue;
                }
                assert!(
                    s.help.starts_with(&base),
                    "{command} {key}: {:?} does not open with the shared help {base:?}",
                    s.help
                );
            }
        }
    }
    // Shared means more than one job.
    for (key, n) in seen {
        assert!(n >= 2, "{key} is in {n} job only");
    }
}
