//! Issue 58: `export-qdpx` writes a run's located quotes as a REFI-QDA
//! project (`issue_58_<name>`).

use crate::util::{read_json, repo, sample_report, Dir};
use std::io::Read as _;
use std::path::Path;

/// The archive's entries by name.
fn entries(qdpx: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    let file = std::fs::File::open(qdpx).unwrap();
    let mut zip = zip::ZipArchive::new(file).unwrap();
    let mut out = std::collections::BTreeMap::new();
    for i in 0..zip.len() {
        let mut e = zip.by_index(i).unwrap();
        let mut bytes = Vec::new();
        e.read_to_end(&mut bytes).unwrap();
        out.insert(e.name().unwrap().to_string(), bytes);
    }
    out
}

/// An attribute's value in an XML start tag's text.
fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let at = tag.find(&format!(" {name}=\""))? + name.len() + 3;
    tag[at..].split('"').next()
}

/// Validates `project.qde` against the standard's schema with xmllint
/// (required where CORPUS_EVAL_REQUIRE_XMLLINT is set, as CI sets it).
fn validate(dir: &Dir, project: &[u8]) {
    let has = std::process::Command::new("xmllint")
        .arg("--version")
        .output()
        .is_ok();
    if !has {
        assert!(
            std::env::var_os("CORPUS_EVAL_REQUIRE_XMLLINT").is_none(),
            "CORPUS_EVAL_REQUIRE_XMLLINT is set but xmllint is not installed"
        );
        eprintln!("skipped: the schema check needs xmllint (Debian: libxml2-utils)");
        return;
    }
    let path = dir.write("project.qde", std::str::from_utf8(project).unwrap());
    let out = std::process::Command::new("xmllint")
        .arg("--noout")
        .arg("--schema")
        .arg(repo().join("fixtures/refi-qda/Project.xsd"))
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "project.qde is not valid: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Each selection's text (characters of its source's plain text).
fn selections(
    files: &std::collections::BTreeMap<String, Vec<u8>>,
) -> Vec<(String, String, String)> {
    let project = std::str::from_utf8(&files["project.qde"]).unwrap();
    let mut out = Vec::new();
    for source in project.split("<TextSource ").skip(1) {
        let tag = &source[..source.find('>').unwrap()];
        let path = attr(tag, "plainTextPath").unwrap();
        let name = attr(tag, "name").unwrap().to_string();
        let entry = path.replace("internal://", "sources/");
        let text = std::str::from_utf8(&files[&entry]).unwrap();
        let body = &source[..source.find("</TextSource>").unwrap()];
        for sel in body.split("<PlainTextSelection ").skip(1) {
            let tag = &sel[..sel.find('>').unwrap()];
            let start: usize = attr(tag, "startPosition").unwrap().parse().unwrap();
            let end: usize = attr(tag, "endPosition").unwrap().parse().unwrap();
            let said: String = text.chars().skip(start).take(end - start).collect();
            out.push((name.clone(), attr(tag, "name").unwrap().to_string(), said));
        }
    }
    out
}

#[test]
fn issue_58_a_check_report_run_exports_a_valid_project() {
    let dir = Dir::new("i58-report");
    dir.run(&sample_report(&dir, "report.md", "runs", &["--no-html"]))
        .expect_code(0);
    let run = dir.run_folders("runs").pop().unwrap();
    let out = dir.path().join("out.qdpx");
    let printed = dir
        .run(&[
            "export-qdpx",
            run.to_str().unwrap(),
            out.to_str().unwrap(),
            "--json",
        ])
        .expect_code(0);
    let summary: serde_json::Value = serde_json::from_str(&printed.stdout()).unwrap();
    assert_eq!(summary["sources"], 3);
    let files = entries(&out);
    validate(&dir, &files["project.qde"]);
    let project = std::str::from_utf8(&files["project.qde"]).unwrap();
    // The tool's user, its codes with the report's colours, the signature.
    assert!(project.contains(&format!(
        "name=\"corpus-eval {}\"",
        env!("CARGO_PKG_VERSION")
    )));
    assert!(project.contains("name=\"corpus-eval\" isCodable=\"false\""));
    assert!(project.contains("name=\"wrong_speaker\" isCodable=\"true\" color=\"#8e44ad\""));
    let results = read_json(&run.join("results.json"));
    let signature = results["signature"].as_str().unwrap();
    assert!(project.contains(&signature[..40]));
    // Each found quote's selection holds the text its span covers.
    let got = selections(&files);
    assert_eq!(got.len() as u64, summary["selections"].as_u64().unwrap());
    for q in results["quotes"].as_array().unwrap() {
        if q["verdict"] == "exact" {
            let id = q["quote_id"].as_str().unwrap();
            let sel = got.iter().find(|(_, n, _)| n == id).unwrap();
            assert_eq!(sel.2, q["text"].as_str().unwrap(), "{id}");
        }
    }
    // An edited quote's segments are selections of their own.
    let edited = results["quotes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["verdict"] == "edited")
        .unwrap();
    let id = edited["quote_id"].as_str().unwrap();
    for (k, piece) in edited["pieces"].as_array().unwrap().iter().enumerate() {
        let name = format!("{id} piece {}", k + 1);
        let sel = got.iter().find(|(_, n, _)| *n == name).unwrap();
        assert_eq!(sel.2, piece["text"].as_str().unwrap(), "{name}");
    }
    // `runs/latest` is the run it links to, named by its own folder.
    dir.run(&["export-qdpx", "runs/latest", "latest.qdpx"])
        .expect_code(0);
    let latest = entries(&dir.path().join("latest.qdpx"));
    let folder = run.file_name().unwrap().to_string_lossy().to_string();
    assert!(std::str::from_utf8(&latest["project.qde"])
        .unwrap()
        .contains(&format!("name=\"corpus-eval check-report {folder}\"")));
    // The same run exports the same bytes.
    let again = dir.path().join("again.qdpx");
    dir.run(&[
        "export-qdpx",
        run.to_str().unwrap(),
        again.to_str().unwrap(),
    ])
    .expect_code(0);
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&again).unwrap());
}

#[test]
fn issue_58_an_evaluate_run_with_non_ascii_sources_exports_character_positions() {
    let dir = Dir::new("i58-evaluate");
    let (q, t) = crate::util::sample();
    let run = dir.run_new_folder(
        &[
            "evaluate",
            &q,
            &t,
            "--out",
            "runs",
            "--no-plots",
            "--no-html",
            "--no-progress",
        ],
        "runs",
    );
    let out = dir.path().join("sample.qdpx");
    dir.run(&["export-qdpx", run.to_str().unwrap(), out.to_str().unwrap()])
        .expect_code(0);
    let files = entries(&out);
    validate(&dir, &files["project.qde"]);
    let got = selections(&files);
    let results = read_json(&run.join("results.json"));
    let mut checked = 0;
    for pair in results["qa_pairs"].as_array().unwrap() {
        for answer in pair["answers"].as_array().unwrap() {
            for v in answer["verbatims"].as_array().into_iter().flatten() {
                if v["verdict"] != "exact" {
                    continue;
                }
                let quote = v["quote"].as_str().unwrap().trim();
                assert!(
                    got.iter().any(|(_, _, said)| said == quote),
                    "no selection holds {quote:?}"
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 20, "{checked}");
    // Non-ASCII text before a selection: positions count characters.
    assert!(got
        .iter()
        .any(|(source, _, _)| source.starts_with("FR-068") || source.starts_with("DE-012")));
    // A run of another command is refused, naming it.
    let err = dir
        .run(&["export-qdpx", dir.path().to_str().unwrap(), "x.qdpx"])
        .expect_code(2);
    assert!(err.stderr().contains("manifest.json"), "{}", err.stderr());
    assert!(!dir.path().join("x.qdpx").exists());
}
