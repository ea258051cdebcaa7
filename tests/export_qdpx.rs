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
    let qde = files.keys().find(|k| k.ends_with(".qde")).unwrap();
    let project = std::str::from_utf8(&files[qde]).unwrap();
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
            out.push((
                name.clone(),
                attr(tag, "name").unwrap_or("").to_string(),
                said,
            ));
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

/// An XML element, parsed: name, sorted attributes, children (text
/// trimmed; whitespace-only text dropped).
#[derive(Debug, Clone, PartialEq)]
enum Node {
    Element(String, Vec<(String, String)>, Vec<Node>),
    Text(String),
}

fn tree(xml: &str) -> Node {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut stack: Vec<Node> = vec![Node::Element("#document".into(), vec![], vec![])];
    let element = |e: &quick_xml::events::BytesStart<'_>| {
        let mut attrs: Vec<(String, String)> = e
            .attributes()
            .map(|a| {
                let a = a.unwrap();
                (
                    String::from_utf8(a.key.as_ref().to_vec()).unwrap(),
                    a.unescape_value().unwrap().into_owned(),
                )
            })
            .collect();
        attrs.sort();
        Node::Element(
            String::from_utf8(e.name().as_ref().to_vec()).unwrap(),
            attrs,
            vec![],
        )
    };
    let push = |stack: &mut Vec<Node>, node: Node| {
        if let Some(Node::Element(_, _, children)) = stack.last_mut() {
            children.push(node);
        }
    };
    loop {
        match reader.read_event().unwrap() {
            Event::Start(e) => stack.push(element(&e)),
            Event::Empty(e) => {
                let node = element(&e);
                push(&mut stack, node);
            }
            Event::End(_) => {
                let node = stack.pop().unwrap();
                push(&mut stack, node);
            }
            Event::Text(t) => {
                let text = t.xml10_content().unwrap().trim().to_string();
                if !text.is_empty() {
                    push(&mut stack, Node::Text(text));
                }
            }
            Event::GeneralRef(r) => {
                let name = String::from_utf8(r.to_vec()).unwrap();
                push(&mut stack, Node::Text(format!("&{name};")));
            }
            Event::Eof => break,
            _ => {}
        }
    }
    stack.pop().unwrap()
}

/// `node` without what the tool added: its user, its code group, the
/// selections it made (and a `Users` left empty by that).
fn without_the_tool(node: &Node, tool: &str) -> Option<Node> {
    let Node::Element(name, attrs, children) = node else {
        return Some(node.clone());
    };
    let has = |k: &str, v: &str| attrs.iter().any(|(a, b)| a == k && b == v);
    if (name == "User" && has("guid", tool))
        || (name == "PlainTextSelection" && has("creatingUser", tool))
        || (name == "Code" && has("name", "corpus-eval") && has("isCodable", "false"))
    {
        return None;
    }
    let kept: Vec<Node> = children
        .iter()
        .filter_map(|c| without_the_tool(c, tool))
        .collect();
    if name == "Users" && kept.is_empty() {
        return None;
    }
    Some(Node::Element(name.clone(), attrs.clone(), kept))
}

const HAFEN: &str = "[00:00:01.0] Interviewer: Erzählen Sie vom Hafen.\n[00:00:04.5] Ana López: Wir sind im Frühling 1987 gegangen, [00:00:07.2] nachdem die Fabrik schloss.\n[00:00:11.0] Interviewer: Und dann?\n[00:00:13.0] Ana López: Es gab kein Geld und keine Arbeit für meinen Vater.\n";
const PIER: &str = "[00:00:02.0] Interviewer: Und Sie?\n[00:00:03.5] Bob Meyer: Der Hafen war unser ganzes Leben, jeden Tag.\n";

/// A coder's project: two users, nested codes, a variable, codings of a
/// selection and of a whole source, a note, a source written as an empty
/// element.
fn human_project(path: &Path) {
    let at = |text: &str, needle: &str| {
        let b = text.find(needle).unwrap();
        let s = text[..b].chars().count();
        (s, s + needle.chars().count())
    };
    let (a1, b1) = at(HAFEN, "Wir sind im Frühling 1987 gegangen");
    let (a2, b2) = at(HAFEN, "kein Geld und keine Arbeit");
    let g = |k: u32| format!("7b0c1d2e-0000-4000-8000-{k:012}");
    let xml = format!(
        r##"<?xml version="1.0" encoding="utf-8"?>
<Project name="Hafen" origin="QualCoder 3.6" creatingUserGUID="{alice}" xmlns="urn:QDA-XML:project:1.0">
 <Users><User guid="{alice}" name="Alice"/><User guid="{bob}" name="Bob"/></Users>
 <CodeBook>
  <Codes>
   <Code guid="{c1}" name="Leaving" isCodable="true" color="#ff0000"><Description>Why they left</Description>
    <Code guid="{c2}" name="Factory" isCodable="true"/>
   </Code>
   <Code guid="{c3}" name="Money" isCodable="true"/>
  </Codes>
 </CodeBook>
 <Variables><Variable guid="{v1}" name="Age" typeOfVariable="Integer"/></Variables>
 <Sources>
  <TextSource guid="{s1}" name="hafen" plainTextPath="internal://{s1}.txt" creatingUser="{alice}">
   <Description>Interview 1 &amp; memo</Description>
   <PlainTextSelection guid="{p1}" startPosition="{a1}" endPosition="{b1}" creatingUser="{alice}"><Coding guid="{k1}" creatingUser="{alice}"><CodeRef targetGUID="{c2}"/></Coding></PlainTextSelection>
   <PlainTextSelection guid="{p2}" startPosition="{a2}" endPosition="{b2}" creatingUser="{bob}"><Description>Bob: Geld &lt;&gt; Arbeit</Description><Coding guid="{k2}" creatingUser="{bob}"><CodeRef targetGUID="{c3}"/></Coding></PlainTextSelection>
   <Coding guid="{k3}" creatingUser="{alice}"><CodeRef targetGUID="{c1}"/></Coding>
   <NoteRef targetGUID="{n1}"/>
   <VariableValue><VariableRef targetGUID="{v1}"/><IntegerValue>61</IntegerValue></VariableValue>
  </TextSource>
  <TextSource guid="{s2}" name="pier" plainTextPath="internal://{s2}.txt"/>
 </Sources>
 <Notes><Note guid="{n1}" name="Memo" creatingUser="{alice}"><PlainTextContent>Ask about the ferry.</PlainTextContent></Note></Notes>
 <Description>The harbour study</Description>
</Project>
"##,
        alice = g(1),
        bob = g(2),
        c1 = g(11),
        c2 = g(12),
        c3 = g(13),
        v1 = g(21),
        s1 = g(31),
        s2 = g(32),
        p1 = g(41),
        p2 = g(42),
        k1 = g(51),
        k2 = g(52),
        k3 = g(53),
        n1 = g(61),
    );
    let file = std::fs::File::create(path).unwrap();
    let mut zip = zip::ZipWriter::new(file);
    let options = zip::write::SimpleFileOptions::default();
    use std::io::Write as _;
    zip.start_file("Hafen.qde", options).unwrap();
    zip.write_all(xml.as_bytes()).unwrap();
    for (k, text) in [(31, HAFEN), (32, PIER)] {
        zip.start_file(format!("sources/{}.txt", g(k)), options)
            .unwrap();
        zip.write_all(text.as_bytes()).unwrap();
    }
    zip.finish().unwrap();
}

#[test]
fn issue_58_a_run_on_a_project_exports_that_project_with_the_tools_codings_added() {
    let dir = Dir::new("i58-round-trip");
    let project = dir.path().join("hafen.qdpx");
    human_project(&project);
    dir.write(
        "report.md",
        "# Hafen\n\nAna López: \"im Frühling 1987 gegangen, nachdem die Fabrik schloss\" (P1).\n\nBob Meyer: \"Der Hafen war unser ganzes Leben\" (P2).\n",
    );
    dir.write(
        "sources.csv",
        "label,source,speaker\nP1,hafen,Ana López\nP2,pier,Bob Meyer\n",
    );
    dir.run(&[
        "check-report",
        "report.md",
        "hafen.qdpx",
        "--sources",
        "sources.csv",
        "--out",
        "runs",
        "--no-html",
    ])
    .expect_code(0);
    let out = dir.path().join("out.qdpx");
    let printed = dir
        .run(&[
            "export-qdpx",
            "runs/latest",
            out.to_str().unwrap(),
            "--json",
        ])
        .expect_code(0)
        .stdout();
    let summary: serde_json::Value = serde_json::from_str(&printed).unwrap();
    assert_eq!(summary["selections"], 2, "{summary}");
    let before = entries(&project);
    let after = entries(&out);
    // The same entries; every one but the project file byte for byte.
    assert_eq!(
        before.keys().collect::<Vec<_>>(),
        after.keys().collect::<Vec<_>>()
    );
    for (name, bytes) in &before {
        if name != "Hafen.qde" {
            assert_eq!(bytes, &after[name], "{name}");
        }
    }
    let merged = std::str::from_utf8(&after["Hafen.qde"]).unwrap();
    validate(&dir, merged.as_bytes());
    // Take away the tool's user, code group and selections: the coder's
    // project, unchanged in meaning.
    let tool = merged
        .split("name=\"corpus-eval ")
        .next()
        .and_then(|s| s.rsplit("guid=\"").next())
        .map(|s| s.trim_end_matches("\" ").to_string())
        .unwrap();
    assert_eq!(tool.len(), 36, "{tool}");
    let original = tree(std::str::from_utf8(&before["Hafen.qde"]).unwrap());
    assert_ne!(tree(merged), original);
    assert_eq!(without_the_tool(&tree(merged), &tool).unwrap(), original);
    // The tool's selections count in the project's own text (stamps and
    // all), and the source written as an empty element took one.
    let text = |entry: &str| String::from_utf8(after[entry].clone()).unwrap();
    let mut said = Vec::new();
    for sel in merged.split("<PlainTextSelection ").skip(1) {
        let tag = &sel[..sel.find('>').unwrap()];
        if attr(tag, "creatingUser") != Some(tool.as_str()) {
            continue;
        }
        let source = merged[..merged.find(tag).unwrap()]
            .rsplit("<TextSource ")
            .next()
            .and_then(|t| attr(t, "plainTextPath"))
            .unwrap()
            .replace("internal://", "sources/");
        let start: usize = attr(tag, "startPosition").unwrap().parse().unwrap();
        let end: usize = attr(tag, "endPosition").unwrap().parse().unwrap();
        said.push(
            text(&source)
                .chars()
                .skip(start)
                .take(end - start)
                .collect::<String>(),
        );
    }
    said.sort();
    assert_eq!(
        said,
        [
            "Der Hafen war unser ganzes Leben",
            "im Frühling 1987 gegangen, [00:00:07.2] nachdem die Fabrik schloss"
        ]
    );
    // The tool's codings compared with a coder's, in the same project.
    let got: serde_json::Value = serde_json::from_str(
        &dir.run(&[
            "agreement",
            "--spans",
            out.to_str().unwrap(),
            "--coders",
            &format!("Alice,corpus-eval {}", env!("CARGO_PKG_VERSION")),
            "--resamples",
            "0",
            "--json",
        ])
        .expect_code(0)
        .stdout(),
    )
    .unwrap();
    assert_eq!(got["second"]["codings"].as_u64(), Some(4), "{got}");
    // The tool codes each selection twice (verdict, attribution): its
    // codes overlap, so only where units lie is compared.
    assert!(got["unitized_alpha"]["value"].is_null(), "{got}");
    assert!(got["binary_unitized_alpha"]["value"].is_f64(), "{got}");
    // A project that holds the tool's codings already is refused.
    dir.run(&[
        "check-report",
        "report.md",
        out.to_str().unwrap(),
        "--sources",
        "sources.csv",
        "--out",
        "runs2",
        "--no-html",
    ])
    .expect_code(0);
    let e = dir
        .run(&["export-qdpx", "runs2/latest", "again.qdpx"])
        .expect_code(2)
        .stderr();
    assert!(e.contains("already holds"), "{e}");
    assert!(!dir.path().join("again.qdpx").exists());
}

/// Every bundled transcript format exports a project valid against the
/// schema, whose selection of the quote is the quote's text (a run on the
/// `.qdpx` gives that project, with the tool's codings added).
#[test]
fn issue_58_every_transcript_format_exports_a_valid_project() {
    let dir = Dir::new("i58-formats");
    dir.write(
        "report.md",
        "# Harbour\n\nAna Lopez said that \"There was no money & no work for my father.\"\n",
    );
    let interview = repo().join("datasets/interview");
    let mut formats = vec![
        "harbour.txt",
        "harbour.md",
        "harbour.vtt",
        "harbour.srt",
        "harbour.docx",
        "harbour.json",
        "harbour.qdpx",
        "otter/harbour.txt",
    ];
    let styles: Vec<String> = std::fs::read_dir(interview.join("styles"))
        .unwrap()
        .map(|e| format!("styles/{}", e.unwrap().file_name().to_string_lossy()))
        .collect();
    formats.extend(styles.iter().map(String::as_str));
    assert!(formats.len() >= 12, "{formats:?}");
    for (k, format) in formats.iter().enumerate() {
        let runs = format!("runs{k}");
        dir.run(&[
            "check-report",
            "report.md",
            interview.join(format).to_str().unwrap(),
            "--out",
            &runs,
            "--no-html",
        ])
        .expect_code(0);
        let out = dir.path().join(format!("out{k}.qdpx"));
        dir.run(&[
            "export-qdpx",
            &format!("{runs}/latest"),
            out.to_str().unwrap(),
        ])
        .expect_code(0);
        let files = entries(&out);
        let qde = files.keys().find(|k| k.ends_with(".qde")).unwrap().clone();
        validate(&dir, &files[&qde]);
        let got = selections(&files);
        assert!(
            got.iter()
                .any(|(_, _, said)| said == "There was no money & no work for my father."),
            "{format}: {got:?}"
        );
    }
}
