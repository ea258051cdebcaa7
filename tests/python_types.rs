//! Issue 56: the Python package's keyword arguments are typed from the
//! Rust configurations. `python/corpus_eval/_configs.pyi` holds one
//! `TypedDict` per job, rendered from each configuration's keys and
//! settings (`jobs::settings::python_typed_dict`); this test fails when the
//! file and the configurations part, and with `CORPUS_EVAL_BLESS=1` writes
//! the file anew.

use crate::util::repo;
use corpus_eval::jobs::{self, settings::python_typed_dict};

/// The stub file as the configurations give it.
fn rendered() -> String {
    let mut out = String::from(
        "\"\"\"The keyword arguments of the package's functions: one TypedDict per job\n\
         configuration, its `--config` keys typed by their settings. Rendered from\n\
         the Rust configurations by the test suite (tests/python_types.rs; set\n\
         CORPUS_EVAL_BLESS=1 to write it anew): do not edit by hand.\"\"\"\n\n\
         from typing import Any, Dict, List, Literal, TypedDict\n",
    );
    // check_report(report, corpus, sources=None, **config): `sources` is a
    // parameter of its own.
    for class in [
        python_typed_dict::<jobs::evaluate::Config>("EvaluateConfig", &[]),
        python_typed_dict::<jobs::check_report::Config>("CheckReportConfig", &["sources"]),
        python_typed_dict::<jobs::hotpot::Config>("HotpotConfig", &[]),
        python_typed_dict::<jobs::text_eval::Config>("TextEvalConfig", &[]),
        python_typed_dict::<jobs::grounding::Config>("GroundingConfig", &[]),
        python_typed_dict::<jobs::lexical::Config>("LexicalConfig", &[]),
        python_typed_dict::<jobs::agreement::Config>("AgreementConfig", &[]),
    ] {
        out.push_str("\n\n");
        out.push_str(&class);
    }
    out
}

#[test]
fn issue_56_the_python_configs_are_the_rust_configurations() {
    let path = repo().join("python/corpus_eval/_configs.pyi");
    let want = rendered();
    if std::env::var_os("CORPUS_EVAL_BLESS").is_some() {
        std::fs::write(&path, &want).unwrap();
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "{} differs from the configurations (CORPUS_EVAL_BLESS=1 writes it):\n{want}",
        path.display()
    );
    // Every setting the evaluate flags name is a typed key.
    for key in [
        "match: Literal[\"exact\", \"normalized\", \"fuzzy\"]",
        "fuzzy_threshold: float",
        "seed: int",
        "fail_under: Dict[str, float]",
    ] {
        assert!(want.contains(key), "{key}");
    }
}
