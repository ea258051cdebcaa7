//! Issue 56: each class list ([`ClassList`]: verdicts, attributions,
//! differences) is the one place a class is named; what names classes
//! elsewhere is checked against it here, so that a class added to a list
//! and missed by a view (or named by a view and missing from the lists)
//! fails the suite.

use crate::util::repo;
use corpus_eval::citations::Attribution;
use corpus_eval::citations::ClassList;
use corpus_eval::citations::Verdict;
use std::collections::BTreeSet;

fn names<C: ClassList>() -> BTreeSet<String> {
    C::ALL.iter().map(|c| c.name().to_string()).collect()
}

/// The `PREFIX-NAME` class names a style sheet styles (`.b-ok`).
fn styled(sheet: &str, prefix: &str) -> BTreeSet<String> {
    let dot = format!(".{prefix}-");
    let mut out = BTreeSet::new();
    let mut rest = sheet;
    while let Some(i) = rest.find(&dot) {
        rest = &rest[i + dot.len()..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_lowercase() || *c == '_')
            .collect();
        out.insert(name);
    }
    out
}

fn asset(name: &str) -> String {
    std::fs::read_to_string(repo().join("src/views/assets").join(name)).unwrap()
}

#[test]
fn issue_56_check_report_styles_every_attribution_and_nothing_else() {
    let sheet = asset("check-report.css");
    let mut want = names::<Attribution>();
    // A quote with no attribution is shown as `unknown`.
    want.insert("unknown".into());
    for prefix in ["c", "b"] {
        assert_eq!(styled(&sheet, prefix), want, ".{prefix}- classes");
    }
}

#[test]
fn issue_56_the_audit_styles_every_verdict_and_attribution_and_nothing_else() {
    let sheet = asset("audit.css");
    let mut want = names::<Verdict>();
    want.extend(names::<Attribution>());
    assert_eq!(styled(&sheet, "b"), want);
}

/// check-report's `--fail-on` help lists the attribution classes, in
/// order.
#[test]
fn issue_56_fail_on_help_lists_the_attribution_classes() {
    let src = std::fs::read_to_string(repo().join("src/jobs/check_report.rs")).unwrap();
    let at = src.find("pub fail_on:").unwrap();
    let doc: String = src[..at]
        .lines()
        .rev()
        .skip_while(|l| !l.trim_start().starts_with("///"))
        .take_while(|l| l.trim_start().starts_with("///"))
        .map(|l| l.trim_start().trim_start_matches("///").trim())
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect::<Vec<_>>()
        .join(" ");
    let list = doc
        .split("(comma-separated:")
        .nth(1)
        .and_then(|r| r.split(')').next())
        .unwrap_or_else(|| panic!("no class list in: {doc}"));
    let listed: Vec<&str> = list
        .split(',')
        .map(|s| s.trim().trim_end_matches('.'))
        .collect();
    let all: Vec<&str> = Attribution::ALL.iter().map(|a| a.as_str()).collect();
    assert_eq!(listed, all);
}

/// The Python package names no class itself: its constants
/// (`VERDICTS`, `ATTRIBUTIONS`, `DIFFERENCES`) and `ray.py`'s missing
/// classes come from the one list through `_native.classes()`.
#[test]
fn issue_56_the_python_package_takes_its_classes_from_the_list() {
    use corpus_eval::citations::Difference;
    let names: Vec<&str> = Verdict::ALL
        .iter()
        .map(|c| c.name())
        .chain(Attribution::ALL.iter().map(|c| c.name()))
        .chain(Difference::ALL.iter().map(|c| c.name()))
        .chain(
            corpus_eval::citations::MeaningClass::ALL
                .iter()
                .map(|c| c.name()),
        )
        .collect();
    for file in [
        "python/corpus_eval/ray.py",
        "python/corpus_eval/__init__.py",
    ] {
        let text = std::fs::read_to_string(repo().join(file)).unwrap();
        // A list of classes written out: a line with two class names as
        // Python string literals (the match levels, which share three
        // verdicts' names, aside).
        for (n, line) in text.lines().enumerate() {
            if line.contains("match") {
                continue;
            }
            let named: Vec<&&str> = names
                .iter()
                .filter(|name| {
                    line.contains(&format!("\"{name}\"")) || line.contains(&format!("'{name}'"))
                })
                .collect();
            assert!(
                named.len() < 2,
                "{file}:{}: names the classes {named:?} itself: take them from _native.classes()",
                n + 1
            );
        }
        assert!(text.contains("_native.classes()"), "{file}");
    }
    let binding = std::fs::read_to_string(repo().join("python/src/lib.rs")).unwrap();
    assert!(binding.contains("Attribution::is_missing"));
}

/// The documentation's class tables and lists are the lists, in order:
/// quote-verification.md's verdict and attribution tables (the CSV
/// columns' values) and its list of `differences`.
#[test]
fn issue_56_the_documented_classes_are_the_lists() {
    use corpus_eval::citations::Difference;
    let doc = std::fs::read_to_string(repo().join("docs/quote-verification.md")).unwrap();
    // The runs of consecutive table rows whose first cell is a class name.
    fn runs<C: ClassList>(doc: &str) -> Vec<Vec<String>> {
        let all = names::<C>();
        let mut runs: Vec<Vec<String>> = vec![Vec::new()];
        for line in doc.lines() {
            let first = line
                .strip_prefix("| `")
                .and_then(|rest| rest.split_once("` |"))
                .map(|(name, _)| name.to_string());
            match first {
                Some(name) if all.contains(&name) => runs.last_mut().unwrap().push(name),
                _ => runs.push(Vec::new()),
            }
        }
        runs
    }
    let order = |all: &[&'static str]| all.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let verdicts: Vec<&str> = Verdict::ALL.iter().map(|c| c.name()).collect();
    assert!(
        runs::<Verdict>(&doc).contains(&order(&verdicts)),
        "docs/quote-verification.md: no verdict table listing {verdicts:?}"
    );
    let attributions: Vec<&str> = Attribution::ALL.iter().map(|c| c.name()).collect();
    assert!(
        runs::<Attribution>(&doc).contains(&order(&attributions)),
        "docs/quote-verification.md: no attribution table listing {attributions:?}"
    );
    let meanings: Vec<&str> = corpus_eval::citations::MeaningClass::ALL
        .iter()
        .map(|c| c.name())
        .collect();
    assert!(
        runs::<corpus_eval::citations::MeaningClass>(&doc).contains(&order(&meanings)),
        "docs/quote-verification.md: no meaning table listing {meanings:?}"
    );
    let differences: Vec<&str> = Difference::ALL.iter().map(|c| c.name()).collect();
    let flat: String = doc.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains(&format!("`{}`", differences.join(", "))),
        "docs/quote-verification.md: the differences are not listed as {differences:?}"
    );
}
