//! Issue 58: `agreement --spans` compares two coders' codings of the same
//! texts (two users of one REFI-QDA project, a user of each of two
//! projects, or a run's located quotes against a user's codings).

use crate::util::{read_json, repo, Dir};
use corpus_eval::agreement::{unitized_family, Unit};
use std::io::Write as _;
use std::path::{Path, PathBuf};

const ALICE: &str = "00000000-0000-4000-8000-0000000000a1";
const BOB: &str = "00000000-0000-4000-8000-0000000000b1";
const CAROL: &str = "00000000-0000-4000-8000-0000000000c9";

/// A source: its name, text, and selections (user GUID, code name,
/// start, end in characters).
struct Source<'a> {
    name: &'a str,
    text: &'a str,
    selections: Vec<(&'a str, &'a str, usize, usize)>,
}

/// Characters `needle` covers in `text` (the first occurrence).
fn chars(text: &str, needle: &str) -> (usize, usize) {
    let b = text.find(needle).expect("needle");
    let s = text[..b].chars().count();
    (s, s + needle.chars().count())
}

/// Writes a REFI-QDA project with Alice, Bob and Carol as users.
fn project(path: &Path, sources: &[Source<'_>]) -> PathBuf {
    let mut codes: Vec<&str> = sources
        .iter()
        .flat_map(|s| s.selections.iter().map(|x| x.1))
        .collect();
    codes.sort_unstable();
    codes.dedup();
    let guid = |k: usize| format!("00000000-0000-4000-8000-{k:012}");
    let code_guid = |name: &str| guid(900 + codes.iter().position(|c| *c == name).unwrap());
    let mut xml = String::from(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<Project name=\"coders\" xmlns=\"urn:QDA-XML:project:1.0\">\n<Users>",
    );
    for (g, n) in [(ALICE, "Alice"), (BOB, "Bob"), (CAROL, "Carol")] {
        xml.push_str(&format!("<User guid=\"{g}\" name=\"{n}\"/>"));
    }
    xml.push_str("</Users><CodeBook><Codes>");
    for c in &codes {
        xml.push_str(&format!(
            "<Code guid=\"{}\" name=\"{c}\" isCodable=\"true\"/>",
            code_guid(c)
        ));
    }
    xml.push_str("</Codes></CodeBook><Sources>");
    let mut k = 0;
    for (i, s) in sources.iter().enumerate() {
        xml.push_str(&format!(
            "<TextSource guid=\"{}\" name=\"{}\" plainTextPath=\"internal://s{i}.txt\">",
            guid(500 + i),
            s.name
        ));
        for (user, code, start, end) in &s.selections {
            k += 1;
            xml.push_str(&format!(
                "<PlainTextSelection guid=\"{}\" startPosition=\"{start}\" endPosition=\"{end}\" creatingUser=\"{user}\"><Coding guid=\"{}\" creatingUser=\"{user}\"><CodeRef targetGUID=\"{}\"/></Coding></PlainTextSelection>",
                guid(k),
                guid(1000 + k),
                code_guid(code)
            ));
        }
        xml.push_str("</TextSource>");
    }
    xml.push_str("</Sources></Project>\n");
    let file = std::fs::File::create(path).unwrap();
    let mut zip = zip::ZipWriter::new(file);
    let options = zip::write::SimpleFileOptions::default();
    zip.start_file("project.qde", options).unwrap();
    zip.write_all(xml.as_bytes()).unwrap();
    for (i, s) in sources.iter().enumerate() {
        zip.start_file(format!("sources/s{i}.txt"), options)
            .unwrap();
        zip.write_all(s.text.as_bytes()).unwrap();
    }
    zip.finish().unwrap();
    path.to_path_buf()
}

const ANA: &str = "Interviewer: Wann sind Sie gegangen?\nAna López: Im Frühling 1987, nachdem die Fabrik schloss.\nInterviewer: Warum?\nAna López: Es gab kein Geld und keine Arbeit für meinen Vater.\n";
const BOATS: &str = "Interviewer: Und die Boote?\nAna López: Die Boote wurden verkauft, eins nach dem anderen, an Männer aus dem Norden.\n";

/// Alice and Bob code two sources with two codes; Carol codes one span.
fn two_coders(dir: &Dir) -> PathBuf {
    let (a1, b1) = chars(ANA, "Im Frühling 1987, nachdem die Fabrik schloss.");
    let (a2, _) = chars(ANA, "Im Frühling 1987");
    let (m1, m2) = chars(ANA, "kein Geld und keine Arbeit");
    let (d1, d2) = chars(BOATS, "Die Boote wurden verkauft");
    project(
        &dir.path().join("two.qdpx"),
        &[
            Source {
                name: "ana",
                text: ANA,
                selections: vec![
                    (ALICE, "Leaving", a1, b1),
                    (BOB, "Leaving", a2, a2 + 26),
                    (ALICE, "Money", m1, m2),
                    (BOB, "Money", m1, m2),
                ],
            },
            Source {
                name: "boats",
                text: BOATS,
                selections: vec![(ALICE, "Leaving", d1, d2), (BOB, "Money", d1, d2 + 8)],
            },
        ],
    )
}

fn json(dir: &Dir, args: &[&str]) -> serde_json::Value {
    let mut a = vec!["agreement", "--spans", "--json"];
    a.extend(args);
    serde_json::from_str(&dir.run(&a).expect_code(0).stdout()).unwrap()
}

#[test]
fn issue_58_two_users_of_one_project_are_compared_in_characters() {
    let dir = Dir::new("i58-spans");
    let p = two_coders(&dir);
    let p = p.to_str().unwrap();
    // Carol coded nothing: Alice and Bob are the only coders.
    let got = json(&dir, &[p, "--resamples", "0"]);
    assert_eq!(got["first"]["coder"], "Alice");
    assert_eq!(got["second"]["coder"], "Bob");
    assert_eq!(
        (got["sources"].as_u64(), got["first"]["codings"].as_u64()),
        (Some(2), Some(3))
    );
    let leaving = &got["codes"][0];
    assert_eq!(leaving["code"], "Leaving");
    // Alice: 45 + 25 characters (ü is one); Bob: 26 inside Alice's first.
    let (a1, b1) = chars(ANA, "Im Frühling 1987, nachdem die Fabrik schloss.");
    let (d1, d2) = chars(BOATS, "Die Boote wurden verkauft");
    assert_eq!(b1 - a1, 45);
    assert_eq!(leaving["chars_first"], (b1 - a1 + d2 - d1) as u64);
    assert_eq!(leaving["chars_second"], 26);
    assert_eq!(leaving["chars_both"], 26);
    assert_eq!(leaving["precision"]["value"], 1.0);
    let recall = leaving["recall"]["value"].as_f64().unwrap();
    assert!((recall - 26.0 / 70.0).abs() < 1e-12, "{recall}");
    // 26 of 45 characters overlap: 0.58, matched.
    assert_eq!(
        (leaving["matched"].as_u64(), leaving["units_first"].as_u64()),
        (Some(1), Some(2))
    );
    // The alphas are the library's (the reference-checked functions) over
    // the sources end to end.
    let offset = ANA.chars().count() as u64;
    let u = |s: usize, e: usize, code: &str| Unit {
        start: s as u64,
        end: e as u64,
        code: code.into(),
    };
    let (m1, m2) = chars(ANA, "kein Geld und keine Arbeit");
    let (a2, _) = chars(ANA, "Im Frühling 1987");
    let alice = vec![
        u(a1, b1, "Leaving"),
        u(m1, m2, "Money"),
        u(d1 + offset as usize, d2 + offset as usize, "Leaving"),
    ];
    let bob = vec![
        u(a2, a2 + 26, "Leaving"),
        u(m1, m2, "Money"),
        u(d1 + offset as usize, d2 + 8 + offset as usize, "Money"),
    ];
    let total = offset + BOATS.chars().count() as u64;
    let family = unitized_family(total, &[alice, bob]).unwrap();
    let close = |v: &serde_json::Value, w: Option<f64>| {
        assert!(
            (v["value"].as_f64().unwrap() - w.unwrap()).abs() < 1e-12,
            "{v} {w:?}"
        )
    };
    close(&got["unitized_alpha"], family.alpha);
    close(&got["binary_unitized_alpha"], family.binary);
    close(&got["coding_unitized_alpha"], family.coding);
    close(&leaving["coding_unitized_alpha"], family.values[0].alpha);
    assert!(got["signature"]
        .as_str()
        .unwrap()
        .starts_with("agreement:spans|alpha:unitized"));
    // By GUID and in the other order: the reference changes sides.
    let swapped = json(
        &dir,
        &[p, "--coders", &format!("{BOB},Alice"), "--resamples", "0"],
    );
    assert_eq!(swapped["first"]["coder"], "Bob");
    assert_eq!(swapped["codes"][0]["recall"]["value"], 1.0);
    assert_eq!(swapped["unitized_alpha"], got["unitized_alpha"]);
    // One code only.
    let money = json(&dir, &[p, "--codes", "Money", "--resamples", "0"]);
    assert_eq!(money["codes"].as_array().unwrap().len(), 1);
    assert_eq!(money["first"]["codings"], 1);
    // Intervals over sources, reproducible.
    let one = json(&dir, &[p, "--resamples", "200", "--seed", "3"]);
    let two = json(&dir, &[p, "--resamples", "200", "--seed", "3"]);
    assert_eq!(one, two);
    assert!(
        one["unitized_alpha"]["ci_low"].as_f64().unwrap()
            <= one["unitized_alpha"]["value"].as_f64().unwrap()
    );
    // The text report names both coders and the signature.
    let text = dir
        .run(&["agreement", "--spans", p, "--resamples", "0"])
        .expect_code(0)
        .stdout();
    assert!(
        text.contains("first (reference): Alice") && text.contains("binary |uα"),
        "{text}"
    );
    assert!(text.contains("agreement:spans|"), "{text}");
}

#[test]
fn issue_58_coders_and_codes_that_are_not_there_are_named() {
    let dir = Dir::new("i58-spans-errors");
    let p = two_coders(&dir);
    let p = p.to_str().unwrap();
    let e = dir
        .run(&["agreement", "--spans", p, "--coders", "Alice,Dave"])
        .expect_code(2)
        .stderr();
    assert!(
        e.contains("no coder `Dave`") && e.contains("Alice (3 codings), Bob (3 codings)"),
        "{e}"
    );
    let e = dir
        .run(&["agreement", "--spans", p, "--coders", "Alice,Alice"])
        .expect_code(2)
        .stderr();
    assert!(e.contains("named twice"), "{e}");
    let e = dir
        .run(&["agreement", "--spans", p, "--codes", "Nothing"])
        .expect_code(2)
        .stderr();
    assert!(
        e.contains("`Nothing`") && e.contains("Leaving, Money"),
        "{e}"
    );
    let e = dir
        .run(&["agreement", p, "--coders", "Alice,Bob", "--id", "id"])
        .expect_code(2)
        .stderr();
    assert!(e.contains("--spans"), "{e}");
    let e = dir
        .run(&["agreement", "--spans", p, "--min-overlap", "0"])
        .expect_code(2)
        .stderr();
    assert!(e.contains("--min-overlap"), "{e}");
    // Three coders: which two must be said.
    let (s, e) = chars(ANA, "Warum?");
    let three = project(
        &dir.path().join("three.qdpx"),
        &[Source {
            name: "ana",
            text: ANA,
            selections: vec![(ALICE, "Q", s, e), (BOB, "Q", s, e), (CAROL, "Q", s, e)],
        }],
    );
    let e = dir
        .run(&["agreement", "--spans", three.to_str().unwrap()])
        .expect_code(2)
        .stderr();
    assert!(
        e.contains("3 coders coded") && e.contains("--coders X,Y"),
        "{e}"
    );
    // A selection past its source's end.
    let bad = project(
        &dir.path().join("bad.qdpx"),
        &[Source {
            name: "ana",
            text: "short",
            selections: vec![(ALICE, "Q", 0, 3), (BOB, "Q", 2, 40)],
        }],
    );
    let e = dir
        .run(&["agreement", "--spans", bad.to_str().unwrap()])
        .expect_code(2)
        .stderr();
    assert!(
        e.contains("bad.qdpx") && e.contains("2..40") && e.contains("`Bob`") && e.contains("`ana`"),
        "{e}"
    );
    let e = dir
        .run(&["agreement", p, "--id", "id", "--min-overlap", "0.7"])
        .expect_code(2)
        .stderr();
    assert!(e.contains("--min-overlap") && e.contains("--spans"), "{e}");
    // Names are read without the spaces around them.
    let spaced = json(
        &dir,
        &[
            p,
            "--coders",
            "Alice, Bob",
            "--codes",
            " Money",
            "--resamples",
            "0",
        ],
    );
    assert_eq!(spaced["second"]["coder"], "Bob");
}

#[test]
fn issue_58_one_user_of_each_of_two_projects_on_the_sources_both_hold() {
    let dir = Dir::new("i58-spans-two");
    let (a, b) = chars(ANA, "nachdem die Fabrik schloss");
    let first = project(
        &dir.path().join("a.qdpx"),
        &[
            Source {
                name: "ana",
                text: ANA,
                selections: vec![(ALICE, "Leaving", a, b)],
            },
            Source {
                name: "only-a",
                text: "x y z",
                selections: vec![],
            },
        ],
    );
    let second = project(
        &dir.path().join("b.qdpx"),
        &[
            Source {
                name: "ana",
                text: ANA,
                selections: vec![(ALICE, "Leaving", a + 8, b)],
            },
            Source {
                name: "boats",
                text: "other text",
                selections: vec![],
            },
        ],
    );
    let got = json(
        &dir,
        &[
            first.to_str().unwrap(),
            second.to_str().unwrap(),
            "--resamples",
            "0",
        ],
    );
    assert_eq!(got["sources"], 1);
    let skipped = got["sources_skipped"].as_array().unwrap();
    assert_eq!(skipped.len(), 2, "{skipped:?}");
    assert!(skipped[0].as_str().unwrap().contains("only-a (only in"));
    let c = &got["codes"][0];
    assert_eq!(
        (c["chars_first"].as_u64(), c["chars_second"].as_u64()),
        (Some((b - a) as u64), Some((b - a - 8) as u64))
    );
    // Another text under the same name: not compared, and nothing left.
    let other = project(
        &dir.path().join("c.qdpx"),
        &[Source {
            name: "ana",
            text: "Ein anderer Text.",
            selections: vec![(BOB, "Leaving", 0, 3)],
        }],
    );
    let e = dir
        .run(&[
            "agreement",
            "--spans",
            first.to_str().unwrap(),
            other.to_str().unwrap(),
        ])
        .expect_code(2)
        .stderr();
    assert!(
        e.contains("not the same text") && e.contains("nothing to compare"),
        "{e}"
    );
}

#[test]
fn issue_58_a_runs_quotes_against_a_coders_codings_in_the_projects_own_text() {
    let dir = Dir::new("i58-spans-run");
    let harbour = repo().join("datasets/interview/harbour.qdpx");
    std::fs::create_dir(dir.path().join("tr")).unwrap();
    std::fs::copy(&harbour, dir.path().join("tr/harbour.qdpx")).unwrap();
    dir.write(
        "report.md",
        "# Findings\n\nAna Lopez said the family left \"in the spring of 1987, after the cannery closed\".\n\nShe explained: \"There was no money & no work for my father.\"\n",
    );
    dir.run(&[
        "check-report",
        "report.md",
        "tr",
        "--out",
        "runs",
        "--no-html",
    ])
    .expect_code(0);
    let got = json(
        &dir,
        &["runs/latest", "tr/harbour.qdpx", "--resamples", "0"],
    );
    assert_eq!(got["first"]["coder"], "(no user)");
    assert_eq!(
        got["second"]["coder"],
        format!("corpus-eval {}", env!("CARGO_PKG_VERSION"))
    );
    assert_eq!(got["selections_skipped"], 0);
    // The run's spans count in the text without stamps; carried back, the
    // first covers "in the spring of 1987, [00:00:06.8] after the cannery
    // closed" of the project's text (60 characters, inside the coder's
    // 69), the second "There was no money & no work for my father." (43).
    let c = &got["codes"][0];
    assert_eq!(c["code"], "Leaving the harbour");
    assert_eq!(
        (
            c["chars_first"].as_u64(),
            c["chars_second"].as_u64(),
            c["chars_both"].as_u64()
        ),
        (Some(69), Some(103), Some(60))
    );
    assert_eq!(c["matched"], 1);
    // A run on the same interview in another format (the project's source
    // named as its file without extension): its spans are carried to the
    // project's text alike.
    for format in ["vtt", "srt", "docx", "json", "md"] {
        let file = repo().join(format!("datasets/interview/harbour.{format}"));
        let runs = format!("runs-{format}");
        dir.run(&[
            "check-report",
            "report.md",
            file.to_str().unwrap(),
            "--out",
            &runs,
            "--no-html",
        ])
        .expect_code(0);
        let other = json(
            &dir,
            &[
                &format!("{runs}/latest"),
                "tr/harbour.qdpx",
                "--resamples",
                "0",
            ],
        );
        let c = &other["codes"][0];
        assert_eq!(
            (
                c["chars_first"].as_u64(),
                c["chars_second"].as_u64(),
                c["chars_both"].as_u64()
            ),
            (Some(69), Some(103), Some(60)),
            "{format}"
        );
    }
    // A project of two interviews, the run on one of them: the coder's
    // codings in the other are not counted as the tool's misses.
    let harbour_text = {
        let file = std::fs::File::open(&harbour).unwrap();
        let mut zip = zip::ZipArchive::new(file).unwrap();
        let name = (0..zip.len())
            .map(|i| zip.by_index(i).unwrap().name().unwrap().to_string())
            .find(|n| n.ends_with(".txt"))
            .unwrap();
        let mut entry = zip.by_name(&name).unwrap();
        let mut text = String::new();
        std::io::Read::read_to_string(&mut entry, &mut text).unwrap();
        text
    };
    let (c1, c2) = chars(
        &harbour_text,
        "We left in the spring of 1987, [00:00:06.8] after the cannery closed.",
    );
    let two = project(
        &dir.path().join("two-interviews.qdpx"),
        &[
            Source {
                name: "harbour",
                text: &harbour_text,
                selections: vec![(ALICE, "Leaving", c1, c2)],
            },
            Source {
                name: "boats",
                text: BOATS,
                selections: vec![(ALICE, "Leaving", 0, 20)],
            },
        ],
    );
    let got = json(
        &dir,
        &["runs/latest", two.to_str().unwrap(), "--resamples", "0"],
    );
    assert_eq!(got["sources"], 1);
    assert_eq!(got["sources_skipped"][0], "boats (not in the run)");
    assert_eq!(got["codes"][0]["chars_first"], 69);
    // A code the coder did not use is named, with the codes she did.
    let e = dir
        .run(&[
            "agreement",
            "--spans",
            "runs/latest",
            two.to_str().unwrap(),
            "--codes",
            "Leavin",
        ])
        .expect_code(2)
        .stderr();
    assert!(
        e.contains("`Leavin`") && e.contains("codes used: Leaving"),
        "{e}"
    );
    // A run folder with agreement.json and codes.csv; a gate fails with 3.
    let run = dir
        .run(&[
            "agreement",
            "--spans",
            "runs/latest",
            "tr/harbour.qdpx",
            "--out",
            "agr",
            "--resamples",
            "0",
            "--fail-under",
            "unitized_alpha=0.99",
        ])
        .expect_code(3);
    assert!(run.stderr().contains("unitized_alpha"), "{}", run.stderr());
    let folder = dir.run_folders("agr").pop().unwrap();
    let written = read_json(&folder.join("agreement.json"));
    assert_eq!(written["codes"][0]["chars_both"], 60);
    let csv = std::fs::read_to_string(folder.join("codes.csv")).unwrap();
    assert!(
        csv.starts_with("code,unitized_alpha,coding_unitized_alpha,coverage,precision,recall,f1,"),
        "{csv}"
    );
    assert_eq!(
        read_json(&folder.join("manifest.json"))["command"],
        "agreement"
    );
    // Two codes of the coder's and none named: which one must be said.
    let e = dir
        .run(&[
            "agreement",
            "--spans",
            "runs/latest",
            "tr/harbour.qdpx",
            "--coders",
            "Alice,Bob",
        ])
        .expect_code(2)
        .stderr();
    assert!(e.contains("one coder"), "{e}");
}

#[test]
fn issue_58_text_sources_outside_the_projects_folder_need_allowing() {
    let dir = Dir::new("i58-spans-external");
    let text = dir.write("outside.txt", ANA);
    std::fs::create_dir(dir.path().join("proj")).unwrap();
    let (s, e) = chars(ANA, "kein Geld und keine Arbeit");
    let xml = format!(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?><Project name=\"x\" xmlns=\"urn:QDA-XML:project:1.0\"><Users><User guid=\"{ALICE}\" name=\"Alice\"/><User guid=\"{BOB}\" name=\"Bob\"/></Users><CodeBook><Codes><Code guid=\"00000000-0000-4000-8000-000000000901\" name=\"Money\" isCodable=\"true\"/></Codes></CodeBook><Sources><TextSource guid=\"00000000-0000-4000-8000-000000000501\" name=\"ana\" plainTextPath=\"{}\">{}{}</TextSource></Sources></Project>",
        text.display(),
        format_args!("<PlainTextSelection guid=\"00000000-0000-4000-8000-000000000001\" startPosition=\"{s}\" endPosition=\"{e}\" creatingUser=\"{ALICE}\"><Coding guid=\"00000000-0000-4000-8000-000000000011\" creatingUser=\"{ALICE}\"><CodeRef targetGUID=\"00000000-0000-4000-8000-000000000901\"/></Coding></PlainTextSelection>"),
        format_args!("<PlainTextSelection guid=\"00000000-0000-4000-8000-000000000002\" startPosition=\"{s}\" endPosition=\"{e}\" creatingUser=\"{BOB}\"><Coding guid=\"00000000-0000-4000-8000-000000000012\" creatingUser=\"{BOB}\"><CodeRef targetGUID=\"00000000-0000-4000-8000-000000000901\"/></Coding></PlainTextSelection>"),
    );
    let path = dir.path().join("proj/x.qdpx");
    let mut zip = zip::ZipWriter::new(std::fs::File::create(&path).unwrap());
    zip.start_file("project.qde", zip::write::SimpleFileOptions::default())
        .unwrap();
    zip.write_all(xml.as_bytes()).unwrap();
    zip.finish().unwrap();
    let p = path.to_str().unwrap();
    let e = dir
        .run(&["agreement", "--spans", p])
        .expect_code(2)
        .stderr();
    assert!(
        e.contains("outside") && e.contains("--allow-external-sources"),
        "{e}"
    );
    let run = dir
        .run(&[
            "agreement",
            "--spans",
            p,
            "--allow-external-sources",
            "--resamples",
            "0",
            "--json",
        ])
        .expect_code(0);
    assert!(run.stderr().contains("outside.txt"), "{}", run.stderr());
    let got: serde_json::Value = serde_json::from_str(&run.stdout()).unwrap();
    assert_eq!(got["unitized_alpha"]["value"], 1.0);
}

/// A project whose sources hold their text inline (`<PlainTextContent>`)
/// is compared, and exported into, as one with files.
#[test]
fn issue_58_sources_with_inline_text() {
    let dir = Dir::new("i58-spans-inline");
    let (s, e) = chars(ANA, "kein Geld und keine Arbeit");
    let sel = |k: u32, user: &str| {
        format!("<PlainTextSelection guid=\"00000000-0000-4000-8000-00000000000{k}\" startPosition=\"{s}\" endPosition=\"{e}\" creatingUser=\"{user}\"><Coding guid=\"00000000-0000-4000-8000-00000000001{k}\" creatingUser=\"{user}\"><CodeRef targetGUID=\"00000000-0000-4000-8000-000000000901\"/></Coding></PlainTextSelection>")
    };
    let xml = format!(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?><Project name=\"x\" xmlns=\"urn:QDA-XML:project:1.0\"><Users><User guid=\"{ALICE}\" name=\"Alice\"/><User guid=\"{BOB}\" name=\"Bob\"/></Users><CodeBook><Codes><Code guid=\"00000000-0000-4000-8000-000000000901\" name=\"Money\" isCodable=\"true\"/></Codes></CodeBook><Sources><TextSource guid=\"00000000-0000-4000-8000-000000000501\" name=\"ana\"><PlainTextContent>{}</PlainTextContent>{}{}</TextSource></Sources></Project>",
        ANA,
        sel(1, ALICE),
        sel(2, BOB)
    );
    let path = dir.path().join("inline.qdpx");
    let mut zip = zip::ZipWriter::new(std::fs::File::create(&path).unwrap());
    zip.start_file("project.qde", zip::write::SimpleFileOptions::default())
        .unwrap();
    zip.write_all(xml.as_bytes()).unwrap();
    zip.finish().unwrap();
    let got = json(&dir, &[path.to_str().unwrap(), "--resamples", "0"]);
    assert_eq!(got["codes"][0]["chars_both"], (e - s) as u64);
    // A run on it exports it with the tool's selection in the inline text.
    dir.write(
        "report.md",
        "# R\n\nAna López said: \"Es gab kein Geld und keine Arbeit\".\n",
    );
    dir.run(&[
        "check-report",
        "report.md",
        "inline.qdpx",
        "--out",
        "runs",
        "--no-html",
    ])
    .expect_code(0);
    let printed = dir
        .run(&["export-qdpx", "runs/latest", "out.qdpx", "--json"])
        .expect_code(0)
        .stdout();
    assert!(printed.contains("\"selections\":1"), "{printed}");
    let tool = json(
        &dir,
        &[
            "out.qdpx",
            "--coders",
            &format!("Alice,corpus-eval {}", env!("CARGO_PKG_VERSION")),
            "--resamples",
            "0",
        ],
    );
    // The tool's two codings (verdict, attribution) of the one selection.
    assert_eq!(tool["second"]["codings"], 2);
}
