//! Issue 53: defects found by fuzzing the readers (hostile archives, reads
//! outside a project, devices and FIFOs, quadratic inputs, loose maps) and
//! by a new user's first study. One test per item, named after it.

use crate::util::{read_json, sample, Dir};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Writes a zip archive of `files` (name, bytes), deflated.
fn write_zip(path: &Path, files: &[(&str, &[u8])]) {
    let mut w = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .large_file(true);
    for (name, bytes) in files {
        w.start_file(*name, options).unwrap();
        w.write_all(bytes).unwrap();
    }
    w.finish().unwrap();
}

/// Writes a zip whose one entry `name` inflates to `len` bytes of `fill`,
/// streamed (never held whole).
fn write_bomb(path: &Path, name: &str, head: &[u8], fill: u8, len: usize) {
    let mut w = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .compression_level(Some(1))
        .large_file(true);
    w.start_file(name, options).unwrap();
    w.write_all(head).unwrap();
    let block = vec![fill; 1 << 20];
    let mut left = len;
    while left > 0 {
        let n = left.min(block.len());
        w.write_all(&block[..n]).unwrap();
        left -= n;
    }
    w.finish().unwrap();
}

/// A REFI-QDA project file naming `sources` (name, plainTextPath).
fn qde(sources: &[(String, String)]) -> String {
    let mut xml = String::from(
        r#"<?xml version="1.0" encoding="utf-8"?><Project name="p" xmlns="urn:QDA-XML:project:1.0"><Sources>"#,
    );
    for (k, (name, path)) in sources.iter().enumerate() {
        xml.push_str(&format!(
            r#"<TextSource guid="s{k}" name="{name}" plainTextPath="{path}"/>"#
        ));
    }
    xml.push_str("</Sources></Project>");
    xml
}

/// Runs `corpus-eval ARGS`, killed after `limit` (a hang is a failure, not
/// a test that never ends).
fn run_bounded(dir: &Dir, args: &[&str], limit: Duration) -> (i32, String) {
    let mut child = dir
        .command(args, &[])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let mut err = String::new();
            use std::io::Read;
            child
                .stderr
                .take()
                .unwrap()
                .read_to_string(&mut err)
                .unwrap();
            return (status.code().unwrap_or(-1), err);
        }
        if start.elapsed() > limit {
            child.kill().unwrap();
            panic!("corpus-eval {args:?} did not end (it waits on its input)");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn issue_53_01_zip_bombs_are_refused_naming_the_file_and_the_entry() {
    let dir = Dir::new("r53-bomb");
    // 300 MiB of spaces inside one Word document part: over the 256 MiB
    // bound of one entry.
    let docx = dir.path().join("bomb.docx");
    write_bomb(
        &docx,
        "word/document.xml",
        b"<w:document><w:body><w:p><w:r><w:t>Ana: hi",
        b' ',
        300 << 20,
    );
    let size = std::fs::metadata(&docx).unwrap().len();
    assert!(size < 4 << 20, "{size}");
    dir.run(&["transcript", "bomb.docx"])
        .expect_code(2)
        .expect_stderr(&["bomb.docx", "word/document.xml", "zip bomb"]);
    // As a report of check-report too.
    dir.write("t.txt", "Ana: we left in the spring of that year.\n");
    let r = dir
        .run(&["check-report", "bomb.docx", "t.txt", "--out", "runs"])
        .expect_code(2);
    r.expect_stderr(&["bomb.docx", "word/document.xml"]);
    assert!(!dir.path().join("runs").exists());
    // A project's source entry.
    let qdpx = dir.path().join("bomb.qdpx");
    let project = qde(&[("a".into(), "internal://a.txt".into())]);
    {
        let mut w = zip::ZipWriter::new(std::fs::File::create(&qdpx).unwrap());
        let o = zip::write::SimpleFileOptions::default()
            .compression_level(Some(1))
            .large_file(true);
        w.start_file("project.qde", o).unwrap();
        w.write_all(project.as_bytes()).unwrap();
        w.start_file("sources/a.txt", o).unwrap();
        let block = vec![b'a'; 1 << 20];
        for _ in 0..300 {
            w.write_all(&block).unwrap();
        }
        w.finish().unwrap();
    }
    dir.run(&["transcript", "bomb.qdpx"])
        .expect_code(2)
        .expect_stderr(&["bomb.qdpx", "sources/a.txt", "zip bomb"]);
}

#[test]
fn issue_53_02_one_entry_named_by_many_sources_counts_against_the_archive_bound() {
    let dir = Dir::new("r53-amplify");
    // 2,000 sources naming one 600 KB entry: 1.2 GB of text, over the
    // 1 GiB bound of one archive, refused before any source is built.
    let entry = "Ana: we left in the spring. ".repeat(600_000 / 28);
    let sources: Vec<(String, String)> = (0..2000)
        .map(|k| (format!("s{k}"), "internal://one.txt".to_string()))
        .collect();
    let qdpx = dir.path().join("amp.qdpx");
    write_zip(
        &qdpx,
        &[
            ("project.qde", qde(&sources).as_bytes()),
            ("sources/one.txt", entry.as_bytes()),
        ],
    );
    assert!(std::fs::metadata(&qdpx).unwrap().len() < 64 << 10);
    dir.run(&["transcript", "amp.qdpx"])
        .expect_code(2)
        .expect_stderr(&["amp.qdpx", "internal://one.txt", "1024 MiB"]);
    // Twenty sources of it are read, the entry once.
    let few: Vec<(String, String)> = sources[..20].to_vec();
    write_zip(
        &qdpx,
        &[
            ("project.qde", qde(&few).as_bytes()),
            ("sources/one.txt", entry.as_bytes()),
        ],
    );
    let r = dir
        .run(&["transcript", "amp.qdpx", "--json"])
        .expect_code(0);
    let v: serde_json::Value = serde_json::from_str(&r.stdout()).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 20);
}

#[test]
fn issue_53_03_devices_and_fifos_are_refused_wherever_the_path_comes_from() {
    let dir = Dir::new("r53-devices");
    let (q, t) = sample();
    let limit = Duration::from_secs(60);
    // A flag or an argument.
    let (code, err) = run_bounded(&dir, &["transcript", "/dev/zero"], limit);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("/dev/zero"), "{err}");
    let (code, err) = run_bounded(&dir, &["evaluate", &q, "/dev/zero", "--out", "runs"], limit);
    assert_eq!(code, 2, "{err}");
    dir.write(
        "r.md",
        "Ana said “we left in the spring of that year” (P1).\n",
    );
    dir.write("t.txt", "Ana: we left in the spring of that year.\n");
    let (code, err) = run_bounded(
        &dir,
        &["check-report", "r.md", "t.txt", "--sources", "/dev/zero"],
        limit,
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("/dev/zero"), "{err}");
    // A FIFO: refused at once, not waited on; in a folder, skipped.
    let fifo = dir.path().join("pipe.txt");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let (code, err) = run_bounded(&dir, &["transcript", "pipe.txt"], limit);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("a FIFO") && err.contains("pipe.txt"), "{err}");
    let qfifo = dir.path().join("pipe.json");
    assert!(std::process::Command::new("mkfifo")
        .arg(&qfifo)
        .status()
        .unwrap()
        .success());
    let (code, err) = run_bounded(&dir, &["evaluate", "pipe.json", &t, "--out", "runs"], limit);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("a FIFO") && err.contains("pipe.json"), "{err}");
    let folder = dir.path().join("folder");
    std::fs::create_dir(&folder).unwrap();
    std::fs::write(folder.join("a.txt"), "Ana: hi there\n").unwrap();
    std::fs::rename(&fifo, folder.join("pipe.txt")).unwrap();
    let (code, err) = run_bounded(&dir, &["transcript", "folder"], limit);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("pipe.txt: skipped: not a regular file"),
        "{err}"
    );
    // A project's plainTextPath.
    for target in ["/dev/zero", "/proc/self/environ"] {
        let qdpx = dir.path().join("dev.qdpx");
        write_zip(
            &qdpx,
            &[(
                "project.qde",
                qde(&[("a".into(), target.into())]).as_bytes(),
            )],
        );
        for extra in [None, Some("--allow-external-sources")] {
            let mut args = vec!["transcript", "dev.qdpx"];
            args.extend(extra);
            let (code, err) = run_bounded(&dir, &args, limit);
            assert_eq!(code, 2, "{target} {extra:?}: {err}");
            assert!(
                err.contains("dev.qdpx") && err.contains("plainTextPath"),
                "{err}"
            );
        }
    }
}

#[test]
fn issue_53_04_a_project_reads_only_its_own_folder_unless_allowed_and_says_so() {
    let dir = Dir::new("r53-outside");
    let proj = dir.path().join("proj");
    std::fs::create_dir_all(proj.join("texts")).unwrap();
    std::fs::write(
        dir.path().join("secret.txt"),
        "Root: the secret outside the project.\n",
    )
    .unwrap();
    std::fs::write(proj.join("texts/in.txt"), "Ana: we left in the spring.\n").unwrap();
    std::os::unix::fs::symlink(dir.path().join("secret.txt"), proj.join("link.txt")).unwrap();
    let outside = [
        "../secret.txt",
        "%2e%2e/secret.txt",
        "/etc/passwd",
        "file:///etc/passwd",
        "link.txt",
        "/proc/self/environ",
    ];
    for target in outside {
        write_zip(
            &proj.join("p.qdpx"),
            &[(
                "project.qde",
                qde(&[("a".into(), target.into())]).as_bytes(),
            )],
        );
        let r = dir.run(&["transcript", "proj/p.qdpx"]).expect_code(2);
        let r = r.expect_stderr(&["p.qdpx", "plainTextPath"]);
        if target != "/proc/self/environ" {
            r.expect_stderr(&["outside the project's folder", "--allow-external-sources"]);
        }
    }
    // Inside the project's folder: read, and named.
    write_zip(
        &proj.join("p.qdpx"),
        &[(
            "project.qde",
            qde(&[
                ("in".into(), "texts/in.txt".into()),
                ("out".into(), "../secret.txt".into()),
            ])
            .as_bytes(),
        )],
    );
    dir.run(&["transcript", "proj/p.qdpx"])
        .expect_code(2)
        .expect_stderr(&["secret.txt", "outside the project's folder"]);
    let r = dir
        .run(&["transcript", "proj/p.qdpx", "--allow-external-sources"])
        .expect_code(0)
        .expect_stderr(&[
            "read a text source outside the archive",
            "in.txt",
            "secret.txt",
        ]);
    assert!(r.stdout().contains("the secret outside the project"));
    // /proc stays refused with the flag.
    write_zip(
        &proj.join("p.qdpx"),
        &[(
            "project.qde",
            qde(&[("e".into(), "/proc/self/environ".into())]).as_bytes(),
        )],
    );
    dir.run(&["transcript", "proj/p.qdpx", "--allow-external-sources"])
        .expect_code(2)
        .expect_stderr(&["/proc"]);
    // evaluate names the file read outside the archive in its manifest.
    write_zip(
        &proj.join("p.qdpx"),
        &[(
            "project.qde",
            qde(&[("harbour".into(), "texts/in.txt".into())]).as_bytes(),
        )],
    );
    let questions = dir.write(
        "q.json",
        r#"{"qa_pairs": [{"id": "q1", "question": {"text": "When?", "type": "ListOne", "metric": {"spring": 1}},
            "answers": [{"answer": "spring", "source": "harbour",
              "verbatims": [{"quote": "we left in the spring", "source": "harbour", "speaker": "Ana"}]}]}]}"#,
    );
    let args = [
        "evaluate",
        questions.to_str().unwrap(),
        "proj/p.qdpx",
        "--out",
        "runs",
        "--no-plots",
    ];
    let run = dir.run_new_folder(&args, "runs");
    let manifest = read_json(&run.join("manifest.json"));
    let notes = manifest["inputs"]["transcripts"]["notes"].to_string();
    assert!(notes.contains("texts/in.txt"), "{notes}");
}

#[test]
fn issue_53_04_a_secret_in_a_transcript_is_redacted_in_report_html_even_split() {
    let dir = Dir::new("r53-secret");
    let secret = "sk-test-0123456789abcdef";
    dir.write(
        "t.txt",
        &format!("Ana: my key is {secret} and we left in the spring.\n"),
    );
    // The quote ends inside the secret: the report's context splits it
    // between the match and the text after.
    let questions = dir.write(
        "q.json",
        r#"{"qa_pairs": [{"id": "q1", "question": {"text": "Key?", "type": "ListOne", "metric": {"key": 1}},
            "answers": [{"answer": "key", "source": "t.txt",
              "verbatims": [{"quote": "my key is sk-test-01234", "source": "t.txt", "speaker": "Ana"}]}]}]}"#,
    );
    let r = dir.run_env(
        &[
            "evaluate",
            questions.to_str().unwrap(),
            "t.txt",
            "--out",
            "runs",
            "--no-plots",
        ],
        &[("OPENAI_API_KEY", secret)],
    );
    r.expect_code(0);
    let run = dir.run_folders("runs").pop().unwrap();
    let html = std::fs::read_to_string(run.join("report.html")).unwrap();
    assert!(
        !html.contains("56789abcdef"),
        "the secret's tail is in report.html"
    );
    assert!(
        html.contains("<redacted>") || html.contains("\\u003credacted"),
        "no redaction mark"
    );
    // A secret cut by the context's 300-character clip: its shown part is
    // blanked out too.
    let filler = "and so on ".repeat(29);
    dir.write(
        "clip.txt",
        &format!("Ana: {secret} {filler}we sold the boat to a cousin in the next town.\n"),
    );
    let questions = dir.write(
        "q2.json",
        r#"{"qa_pairs": [{"id": "q1", "question": {"text": "Boat?", "type": "ListOne", "metric": {"boat": 1}},
            "answers": [{"answer": "boat", "source": "clip.txt",
              "verbatims": [{"quote": "we sold the boat to a cousin in the next town", "source": "clip.txt"}]}]}]}"#,
    );
    dir.run_env(
        &[
            "evaluate",
            questions.to_str().unwrap(),
            "clip.txt",
            "--out",
            "runs2",
            "--no-plots",
        ],
        &[("OPENAI_API_KEY", secret)],
    )
    .expect_code(0);
    let run = dir.run_folders("runs2").pop().unwrap();
    let html = std::fs::read_to_string(run.join("report.html")).unwrap();
    // The clip falls inside the secret (the quote starts 320 bytes in).
    let shown = &secret[15..];
    assert!(
        !html.contains(shown),
        "the clipped secret's tail {shown} is in report.html"
    );
    assert!(
        !html.contains("0123456789"),
        "a part of the secret is in report.html"
    );
}

#[test]
fn issue_53_05_quote_finding_is_linear_on_unclosed_marks() {
    // 1 MB of unclosed marks of every kind in one paragraph: each was a
    // scan to the paragraph's end (quadratic); 900 KB did not finish.
    let dir = Dir::new("r53-linear");
    let mut report = String::new();
    while report.len() < 1 << 20 {
        report.push_str("\"a b c d “e f „g «h »i `j <k ](l (m ");
    }
    report.push_str("\n\nAna said “we left in the spring of that year” (P1).\n");
    dir.write("r.md", &report);
    dir.write("t.txt", "Ana: we left in the spring of that year.\n");
    let (code, err) = run_bounded(
        &dir,
        &[
            "check-report",
            "r.md",
            "t.txt",
            "--out",
            "runs",
            "--no-html",
        ],
        Duration::from_secs(300),
    );
    assert_eq!(code, 0, "{err}");
    let run = dir.run_folders("runs").pop().unwrap();
    let summary = read_json(&run.join("summary.json"));
    assert_eq!(summary["quotes"], 1, "{summary}");
}

#[test]
fn issue_53_06_a_large_source_map_is_indexed() {
    let dir = Dir::new("r53-map");
    let mut map = String::from("label,source,speaker\n");
    for k in 0..25_000 {
        map.push_str(&format!("P{k},t.txt,Ana\n"));
    }
    map.push_str("Gwen,t.txt,Ana\n");
    dir.write("map.csv", &map);
    dir.write(
        "r.md",
        "Gwen said “we left in the spring of that year” (Gwen).\n",
    );
    dir.write("t.txt", "Ana: we left in the spring of that year.\n");
    let (code, err) = run_bounded(
        &dir,
        &[
            "check-report",
            "r.md",
            "t.txt",
            "--sources",
            "map.csv",
            "--out",
            "runs",
            "--no-html",
        ],
        Duration::from_secs(300),
    );
    assert_eq!(code, 0, "{err}");
    // A label given twice, and a row of four cells, name their lines.
    dir.write("dup.csv", "P1,t.txt,Ana\np1,t.txt,Bo\n");
    dir.run(&["check-report", "r.md", "t.txt", "--sources", "dup.csv"])
        .expect_code(2)
        .expect_stderr(&["dup.csv", "line 2", "also the label of line 1"]);
    dir.write("four.csv", "P1,t.txt,Ana,extra\n");
    dir.run(&["check-report", "r.md", "t.txt", "--sources", "four.csv"])
        .expect_code(2)
        .expect_stderr(&["four.csv", "line 1", "4 cells"]);
}

#[test]
fn issue_53_07_junit_with_control_characters_is_well_formed_and_the_terminal_sees_no_escapes() {
    let dir = Dir::new("r53-junit");
    let (q, t) = sample();
    let a = dir.run_new_folder(
        &["evaluate", &q, &t, "--out", "a", "--no-plots", "--no-html"],
        "a",
    );
    let b = dir.run_new_folder(
        &[
            "evaluate",
            &q,
            &t,
            "--out",
            "b",
            "--no-plots",
            "--no-html",
            "--match",
            "exact",
        ],
        "b",
    );
    let name_a = format!("base\u{1}\u{8}\u{1b}[31m={}", a.display());
    let name_b = format!("worse\u{1b}]0;title\u{7}={}", b.display());
    let r = dir.run(&[
        "compare",
        &name_a,
        &name_b,
        "--fail-on-regression",
        "--out",
        "cmp",
        "--junit",
        "junit.xml",
    ]);
    let xml = std::fs::read_to_string(dir.path().join("junit.xml"))
        .unwrap_or_else(|e| panic!("{e}: {}\n{}", r.stdout(), r.stderr()));
    assert!(
        !xml.chars()
            .any(|c| (c as u32) < 0x20 && !"\t\n\r".contains(c)),
        "raw control characters in junit.xml: {xml:?}"
    );
    assert!(xml.contains("base") && xml.contains('\u{fffd}'), "{xml}");
    for out in [r.stdout(), r.stderr()] {
        assert!(!out.contains('\u{1b}') && !out.contains('\u{7}'), "{out:?}");
    }
}

#[test]
fn issue_53_08_lone_carriage_returns_end_lines_in_every_reader() {
    let dir = Dir::new("r53-cr");
    dir.write(
        "t.txt",
        "Ana: we left in the spring.\rBo: why did you leave?\r",
    );
    let r = dir.run(&["transcript", "t.txt", "--json"]).expect_code(0);
    let v: serde_json::Value = serde_json::from_str(&r.stdout()).unwrap();
    let turns = v["turns"].as_array().unwrap();
    assert_eq!(turns.len(), 2, "{v}");
    dir.write(
        "c.vtt",
        "WEBVTT\r\r00:00:01.000 --> 00:00:03.000\r<v Ana>We left in the spring.\r\r00:00:04.000 --> 00:00:05.000\r<v Bo>Why?\r",
    );
    let r = dir.run(&["transcript", "c.vtt", "--json"]).expect_code(0);
    let v: serde_json::Value = serde_json::from_str(&r.stdout()).unwrap();
    assert_eq!(v["turns"][1]["speaker"], "Bo", "{v}");
    assert_eq!(v["turns"][1]["start"], 4.0, "{v}");
    // check-report: the cue after a `\r`, and lines counted at `\r`.
    dir.write(
        "r.md",
        "Intro.\r\rAna said “we left in the spring”\r(P1).\r",
    );
    dir.write("map.csv", "P1,t.txt,Ana\n");
    let run = dir.run_new_folder(
        &[
            "check-report",
            "r.md",
            "t.txt",
            "--sources",
            "map.csv",
            "--min-words",
            "3",
            "--out",
            "runs",
            "--no-html",
        ],
        "runs",
    );
    let results = read_json(&run.join("results.json"));
    let quote = &results["quotes"][0];
    assert_eq!(quote["line"], 3, "{quote}");
    assert_eq!(quote["cited"]["label"], "P1", "{quote}");
}

#[test]
fn issue_53_09_maps_are_real_csv_and_gates_are_unambiguous() {
    let dir = Dir::new("r53-maps");
    dir.write("t.txt", "SPEAKER_00: we left in the spring.\n");
    let bad_specs = [("A=B=C", "one `=`"), ("SPEAKER_00=", "empty")];
    for (spec, needle) in bad_specs {
        dir.run(&["transcript", "t.txt", "--speaker-map", spec])
            .expect_code(2)
            .expect_stderr(&[needle]);
    }
    let bad_files = [
        ("three.csv", "SPEAKER_00,Ana,extra\n", "3 cells"),
        ("quote.csv", "SPEAKER_00,\"Ana\n", "never closed"),
        (
            "newline.csv",
            "SPEAKER_00,\"Ana\nBo: injected\"\n",
            "line break",
        ),
    ];
    for (name, text, needle) in bad_files {
        dir.write(name, text);
        dir.run(&["transcript", "t.txt", "--speaker-map", name])
            .expect_code(2)
            .expect_stderr(&[name, needle]);
    }
    // A quoted name with a comma, and a `""` inside one.
    dir.write(
        "ok.csv",
        "label,name\nSPEAKER_00,\"Lopez, Ana \"\"Anita\"\"\"\n",
    );
    dir.run(&["transcript", "t.txt", "--speaker-map", "ok.csv"])
        .expect_code(0);
    let (q, t) = sample();
    for gate in [
        &["--fail-on", ""][..],
        &["--fail-under", ""][..],
        &["--fail-under", "existence=0.5,existence=0.9"][..],
        &[
            "--fail-under",
            "existence=0.5",
            "--fail-under",
            "existence=0.9",
        ][..],
    ] {
        let cmd = if gate[0] == "--fail-on" {
            vec!["check-report", "t.txt", "t.txt"]
        } else {
            vec!["evaluate", q.as_str(), t.as_str()]
        };
        let mut args = cmd;
        args.extend_from_slice(gate);
        args.extend(["--out", "runs"]);
        let r = dir.run(&args).expect_code(2);
        assert!(r.stderr().contains(gate[0]), "{gate:?}: {}", r.stderr());
    }
    assert!(!dir.path().join("runs").exists());
}

#[test]
fn issue_53_10_a_folder_walk_notes_what_it_skips() {
    let dir = Dir::new("r53-walk");
    let folder = dir.path().join("corpus");
    std::fs::create_dir_all(folder.join("sub")).unwrap();
    std::fs::write(folder.join("a.txt"), "Ana: we left.\n").unwrap();
    std::fs::write(folder.join("sub/b.txt"), "Bo: why?\n").unwrap();
    std::fs::write(dir.path().join("outside.txt"), "Eve: secret.\n").unwrap();
    let other = dir.path().join("elsewhere");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("c.txt"), "Cy: hi.\n").unwrap();
    std::os::unix::fs::symlink(dir.path().join("outside.txt"), folder.join("out.txt")).unwrap();
    std::os::unix::fs::symlink(folder.join("a.txt"), folder.join("in.txt")).unwrap();
    std::os::unix::fs::symlink(&other, folder.join("linked")).unwrap();
    {
        use std::os::unix::ffi::OsStrExt;
        let name = std::ffi::OsStr::from_bytes(b"bad\xff.txt");
        std::fs::write(folder.join(name), "Dee: hi.\n").unwrap();
    }
    let r = dir.run(&["transcript", "corpus", "--json"]).expect_code(0);
    let v: serde_json::Value = serde_json::from_str(&r.stdout()).unwrap();
    let ids: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["a.txt", "in.txt", "sub/b.txt"]);
    let err = r.stderr();
    for needle in [
        "out.txt: skipped: a link to a file outside the folder",
        "linked: skipped: a linked folder is not followed",
        "skipped: its name is not UTF-8",
    ] {
        assert!(err.contains(needle), "{needle}: {err}");
    }
    assert!(!r.stdout().contains("secret"));
    // NFC and NFD twins print alike: an error naming both.
    let twins = dir.path().join("twins");
    std::fs::create_dir_all(&twins).unwrap();
    std::fs::write(twins.join("Jos\u{e9}.txt"), "Ana: one.\n").unwrap();
    std::fs::write(twins.join("Jose\u{301}.txt"), "Ana: two.\n").unwrap();
    dir.run(&["transcript", "twins"])
        .expect_code(2)
        .expect_stderr(&["Unicode forms", "rename one"]);
}

#[test]
fn issue_53_11_junit_that_cannot_be_written_is_refused_before_the_run() {
    let dir = Dir::new("r53-junit-path");
    let (q, t) = sample();
    let r = dir
        .run(&[
            "evaluate",
            &q,
            &t,
            "--out",
            "runs",
            "--fail-under",
            "existence=0",
            "--junit",
            "/proc/version",
        ])
        .expect_code(2);
    r.expect_stderr(&["--junit", "/proc"]);
    assert!(!dir.path().join("runs").exists(), "the run went ahead");
    // Through a link, the file it points to is written (the documented
    // rule for every output).
    let target: PathBuf = dir.path().join("real.xml");
    std::fs::write(&target, "").unwrap();
    std::os::unix::fs::symlink(&target, dir.path().join("link.xml")).unwrap();
    dir.run(&[
        "evaluate",
        &q,
        &t,
        "--out",
        "runs",
        "--no-plots",
        "--no-html",
        "--fail-under",
        "existence=0",
        "--junit",
        "link.xml",
    ])
    .expect_code(0);
    assert!(std::fs::read_to_string(&target)
        .unwrap()
        .contains("<testsuite"));
}

#[test]
fn issue_53_15_evaluate_quotes_csv_says_who_spoke() {
    let dir = Dir::new("r53-quotes-csv");
    dir.write(
        "t.txt",
        "Ana: we left in the spring, after the cannery closed.\nBo: and we sold the boat to a cousin.\n",
    );
    let questions = dir.write(
        "q.json",
        r#"{"qa_pairs": [{"id": "q1", "question": {"text": "When?", "type": "ListOne", "metric": {"spring": 1}},
            "answers": [{"answer": "spring", "source": "t.txt",
              "verbatims": [{"quote": "we sold the boat to a cousin", "source": "t.txt", "speaker": "Ana"}]}]}]}"#,
    );
    let run = dir.run_new_folder(
        &[
            "evaluate",
            questions.to_str().unwrap(),
            "t.txt",
            "--out",
            "runs",
            "--no-plots",
            "--no-html",
        ],
        "runs",
    );
    let mut table = csv::Reader::from_path(run.join("quotes.csv")).unwrap();
    let header: Vec<String> = table.headers().unwrap().iter().map(String::from).collect();
    let row = table.records().next().unwrap().unwrap();
    let cell = |name: &str| row[header.iter().position(|h| h == name).unwrap()].to_string();
    assert_eq!(cell("quote"), "we sold the boat to a cousin");
    assert_eq!(cell("cited_speaker"), "Ana");
    assert_eq!(cell("span_speaker"), "Bo");
    assert_eq!(cell("attribution"), "wrong_speaker");
    // The chapter lists every column.
    let doc = std::fs::read_to_string(crate::util::repo().join("docs/evaluate.md")).unwrap();
    let line = doc
        .lines()
        .find(|l| l.starts_with("| `quotes.csv`"))
        .unwrap();
    for h in &header {
        assert!(
            line.contains(&format!("`{h}"))
                || line.contains(&format!(" {h}"))
                || line.contains(&format!("{h},"))
                || line.contains(&format!("{h}`")),
            "docs/evaluate.md lacks {h}"
        );
    }
}

#[test]
fn issue_53_13_the_documented_compare_is_safe_to_repeat_and_a_glob_is_named() {
    let dir = Dir::new("r53-compare-again");
    let (q, t) = sample();
    let eval = |out: &str, extra: &[&str]| {
        let mut args = vec![
            "evaluate",
            q.as_str(),
            t.as_str(),
            "--out",
            out,
            "--no-plots",
            "--no-html",
        ];
        args.extend_from_slice(extra);
        dir.run_new_folder(&args, out)
    };
    let a1 = eval("runs/a", &[]);
    let b1 = eval("runs/b", &["--match", "exact"]);
    let latest = dir.path().join("runs/a/latest");
    assert_eq!(
        std::fs::canonicalize(&latest).unwrap(),
        std::fs::canonicalize(&a1).unwrap()
    );
    // The documented command, twice (a second run into each folder).
    let a2 = eval("runs/a", &[]);
    eval("runs/b", &["--match", "exact"]);
    assert_eq!(
        std::fs::canonicalize(&latest).unwrap(),
        std::fs::canonicalize(&a2).unwrap()
    );
    for _ in 0..2 {
        let r = dir
            .run(&[
                "compare",
                "normalized=runs/a/latest",
                "exact=runs/b/latest",
                "--cluster",
                "source",
                "--resamples",
                "200",
                "--out",
                "cmp",
                "--json",
            ])
            .expect_code(0);
        let v: serde_json::Value = serde_json::from_str(r.stdout().trim()).unwrap();
        let folder = PathBuf::from(v["run_folder"].as_str().unwrap());
        let manifest = read_json(&dir.path().join(folder).join("manifest.json"));
        // The comparison records the run folder the link named.
        let inputs = manifest["inputs"].to_string();
        assert!(!inputs.contains("latest"), "{inputs}");
    }
    // What `normalized=$(echo runs/a/*)` gives the command: said plainly.
    let r = dir
        .run(&[
            "compare",
            &format!("normalized={}", a1.display()),
            &a2.display().to_string(),
            &format!("exact={}", b1.display()),
        ])
        .expect_code(2);
    r.expect_stderr(&["matched 2 run folders", "normalized=", "/latest"]);
}

#[test]
fn issue_53_14_compare_draws_do_not_depend_on_the_systems_names() {
    let dir = Dir::new("r53-names");
    let (q, t) = sample();
    let a = dir.run_new_folder(
        &["evaluate", &q, &t, "--out", "a", "--no-plots", "--no-html"],
        "a",
    );
    let b = dir.run_new_folder(
        &[
            "evaluate",
            &q,
            &t,
            "--out",
            "b",
            "--no-plots",
            "--no-html",
            "--match",
            "exact",
        ],
        "b",
    );
    let compare = |x: &str, y: &str| -> serde_json::Value {
        let r = dir
            .run(&[
                "compare",
                &format!("{x}={}", a.display()),
                &format!("{y}={}", b.display()),
                "--cluster",
                "source",
                "--seed",
                "42",
                "--out",
                "cmp",
                "--json",
            ])
            .expect_code(0);
        serde_json::from_str(r.stdout().trim()).unwrap()
    };
    let (one, two) = (compare("normalized", "exact"), compare("base", "worse"));
    let strip = |v: &serde_json::Value| -> Vec<serde_json::Value> {
        v["differences"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["paired"].clone())
            .collect()
    };
    assert_eq!(strip(&one), strip(&two));
    let means = |v: &serde_json::Value| -> Vec<serde_json::Value> {
        v["systems"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["means"].clone())
            .collect()
    };
    assert_eq!(means(&one), means(&two));
    assert!(one["signature"]
        .as_str()
        .unwrap()
        .contains("streams:seed+positions+metric"));
}

#[test]
fn issue_53_16_a_transcript_cited_with_and_without_its_extension_is_one_source() {
    let dir = Dir::new("r53-one-source");
    dir.write("P1_zoom.vtt", "WEBVTT\n\n00:00:01.000 --> 00:00:04.000\n<v Priya>We left in the spring of that year.\n\n00:00:05.000 --> 00:00:08.000\n<v Priya>And we sold the boat to a cousin.\n");
    let questions = dir.write(
        "q.json",
        r#"{"qa_pairs": [{"id": "q1", "question": {"text": "When?", "type": "ListOne", "metric": {"spring": 1}},
            "answers": [{"answer": "spring", "source": "P1_zoom",
              "verbatims": [{"quote": "We left in the spring of that year.", "source": "P1_zoom", "speaker": "Priya"},
                            {"quote": "we sold the boat to a cousin", "source": "P1_zoom.vtt", "speaker": "Priya"}]}]}]}"#,
    );
    let run = dir.run_new_folder(
        &[
            "evaluate",
            questions.to_str().unwrap(),
            "P1_zoom.vtt",
            "--out",
            "runs",
            "--no-plots",
            "--no-html",
        ],
        "runs",
    );
    let summary = read_json(&run.join("summary.json"));
    let by = summary["attribution"]["by_transcript"].as_object().unwrap();
    assert_eq!(by.keys().collect::<Vec<_>>(), ["P1_zoom.vtt"], "{summary}");
    assert_eq!(by["P1_zoom.vtt"]["ok"], 2);
    let verbatim = summary["verbatim_average_scores"].as_object().unwrap();
    assert_eq!(
        verbatim.keys().collect::<Vec<_>>(),
        ["P1_zoom.vtt"],
        "{summary}"
    );
    // results.json keeps each source as cited.
    let results = read_json(&run.join("results.json"));
    let quotes = &results["qa_pairs"][0]["answers"][0]["verbatims"];
    assert_eq!(
        (quotes[0]["source"].as_str(), quotes[1]["source"].as_str()),
        (Some("P1_zoom"), Some("P1_zoom.vtt"))
    );
}

#[test]
fn issue_53_17_word_quotation_styles_are_block_quotes() {
    let dir = Dir::new("r53-word-quote");
    dir.write("t.txt", "Ana: we left in the spring of that year and never came back.\nBo: the boat was sold to a cousin in the next town.\n");
    let para = |style: Option<&str>, text: &str| {
        let p_pr = style.map_or(String::new(), |s| {
            format!(r#"<w:pPr><w:pStyle w:val="{s}"/></w:pPr>"#)
        });
        format!(r#"<w:p>{p_pr}<w:r><w:t xml:space="preserve">{text}</w:t></w:r></w:p>"#)
    };
    let body = [
        para(None, "Ana described the move:"),
        para(
            Some("Zitat"),
            "we left in the spring of that year and never came back",
        ),
        para(None, "Then a plain paragraph of the text."),
        para(
            Some("IntenseQuote"),
            "the boat was sold to a cousin in the next town",
        ),
        para(Some("Heading1"), "not a quote at all in this heading"),
    ]
    .join("");
    let document = format!(
        r#"<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>{body}</w:body></w:document>"#
    );
    // A German Word: the style id is `Zitat`, its name `Quote`.
    let styles = r#"<?xml version="1.0"?><w:styles xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">
        <w:style w:type="paragraph" w:styleId="Zitat"><w:name w:val="Quote"/></w:style>
        <w:style w:type="paragraph" w:styleId="IntenseQuote"><w:name w:val="Intense Quote"/></w:style>
        <w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/></w:style></w:styles>"#;
    write_zip(
        &dir.path().join("r.docx"),
        &[
            ("word/document.xml", document.as_bytes()),
            ("word/styles.xml", styles.as_bytes()),
        ],
    );
    let run = dir.run_new_folder(
        &[
            "check-report",
            "r.docx",
            "t.txt",
            "--out",
            "runs",
            "--no-html",
        ],
        "runs",
    );
    let results = read_json(&run.join("results.json"));
    let quotes = results["quotes"].as_array().unwrap();
    let texts: Vec<&str> = quotes.iter().map(|q| q["text"].as_str().unwrap()).collect();
    assert_eq!(
        texts,
        [
            "we left in the spring of that year and never came back",
            "the boat was sold to a cousin in the next town"
        ]
    );
    assert!(
        quotes
            .iter()
            .all(|q| q["block"] == true && q["verdict"] == "exact"),
        "{results}"
    );
    assert_eq!(
        (quotes[0]["line"].as_u64(), quotes[0]["column"].as_u64()),
        (Some(2), Some(1))
    );
}

#[test]
fn issue_53_20_every_normalized_quote_names_a_difference() {
    let dir = Dir::new("r53-differences");
    dir.write(
        "t.txt",
        "Ana: she left, and then \"the rain came down\" on the ﬁelds by the sea.\n",
    );
    let quotes = [
        "she left.",
        "“the rain came down”",
        "um, she left, and then",
        "SHE LEFT, AND THEN",
        "the rain came down on the fields",
        "on the ﬁelds by the sea!",
    ];
    let verbatims: Vec<String> = quotes
        .iter()
        .map(|q| serde_json::json!({"quote": q, "source": "t.txt"}).to_string())
        .collect();
    let questions = dir.write(
        "q.json",
        &format!(
            r#"{{"qa_pairs": [{{"id": "q1", "question": {{"text": "?", "type": "ListOne", "metric": {{"rain": 1}}}},
            "answers": [{{"answer": "rain", "source": "t.txt", "verbatims": [{}]}}]}}]}}"#,
            verbatims.join(",")
        ),
    );
    let run = dir.run_new_folder(
        &[
            "evaluate",
            questions.to_str().unwrap(),
            "t.txt",
            "--out",
            "runs",
            "--no-plots",
            "--no-html",
        ],
        "runs",
    );
    let results = read_json(&run.join("results.json"));
    let got = results["qa_pairs"][0]["answers"][0]["verbatims"]
        .as_array()
        .unwrap();
    let mut normalized = 0;
    for q in got {
        let verdict = q["verdict"].as_str().unwrap();
        let diffs = q["differences"].as_array().map_or(0, Vec::len);
        if verdict != "exact" && verdict != "not_found" {
            assert!(diffs > 0, "{q}");
        }
        normalized += usize::from(verdict == "normalized");
    }
    assert!(normalized >= 4, "{got:?}");
}

#[test]
fn issue_53_23_swapped_arguments_get_a_hint() {
    let dir = Dir::new("r53-swapped");
    let (q, t) = sample();
    dir.run(&["evaluate", &t, &q, "--out", "runs"])
        .expect_code(2)
        .expect_stderr(&[
            "hint:",
            "the first argument is the questions file",
            "other way round",
        ]);
    let vtt = crate::util::repo().join("datasets/interview/harbour.vtt");
    dir.run(&["evaluate", vtt.to_str().unwrap(), &q, "--out", "runs"])
        .expect_code(2)
        .expect_stderr(&["hint:", "harbour.vtt looks like a transcript corpus"]);
    // A broken questions file that is no corpus gets no hint.
    dir.write("broken.json", "{\"qa_pairs\": [}");
    let r = dir
        .run(&["evaluate", "broken.json", &t, "--out", "runs"])
        .expect_code(2);
    assert!(!r.stderr().contains("hint:"), "{}", r.stderr());
}

#[test]
fn issue_53_21_every_documented_report_link_shows_what_it_says() {
    let dir = Dir::new("r53-doc-links");
    let (q, t) = sample();
    let run = dir.run_new_folder(&["evaluate", &q, &t, "--out", "runs", "--no-plots"], "runs");
    let page = run.join("report.html");
    let doc = std::fs::read_to_string(crate::util::repo().join("docs/audit-report.md")).unwrap();
    let links: Vec<&str> = doc
        .split("report.html#")
        .skip(1)
        .map(|rest| rest.split(['`', ' ', ')']).next().unwrap())
        .collect();
    assert!(links.len() >= 3, "{links:?}");
    for link in links {
        let Some(dom) = crate::util::chromium_dom(&page, &format!("#{link}")) else {
            return;
        };
        assert!(
            !dom.contains("data-shown=\"0\"") && dom.contains("data-shown=\""),
            "report.html#{link} shows no quote"
        );
        let html = std::fs::read_to_string(&page).unwrap();
        assert!(!html.contains(">null</option>"), "a raw null option");
    }
}

#[test]
fn issue_53_22_a_closest_passage_card_names_its_speaker_and_time() {
    let dir = Dir::new("r53-closest");
    dir.write(
        "t.vtt",
        "WEBVTT\n\n00:00:01.000 --> 00:00:04.000\n<v Interviewer>Why did you leave the town?\n\n00:01:05.000 --> 00:01:09.000\n<v Ana>We left in the spring of that year after the cannery closed down.\n",
    );
    dir.write(
        "r.md",
        "Ana said “we departed in the autumn of the year after the cannery shut” (t.vtt).\n",
    );
    let run = dir.run_new_folder(&["check-report", "r.md", "t.vtt", "--out", "runs"], "runs");
    let results = read_json(&run.join("results.json"));
    let quote = &results["quotes"][0];
    assert_eq!(quote["found"], false, "{quote}");
    let html = std::fs::read_to_string(run.join("report.html")).unwrap();
    let card = html
        .split("The closest passage:")
        .nth(1)
        .expect("a closest passage");
    let meta = card.split("</p>").nth(1).unwrap();
    assert!(meta.contains("speaker: Ana"), "{meta}");
    assert!(meta.contains("1:05"), "{meta}");
}

#[test]
fn issue_53_review_latest_links_hidden_sources_and_hosts() {
    let dir = Dir::new("r53-review");
    let (q, t) = sample();
    // Shards merged from a glob that holds the `latest` link too.
    for i in 1..=2 {
        dir.run_new_folder(
            &[
                "evaluate",
                &q,
                &t,
                "--shard",
                &format!("{i}/2"),
                "--out",
                "shards",
                "--no-plots",
                "--no-html",
            ],
            "shards",
        );
    }
    let mut entries: Vec<String> = std::fs::read_dir(dir.path().join("shards"))
        .unwrap()
        .map(|e| e.unwrap().path().display().to_string())
        .collect();
    entries.sort();
    assert_eq!(entries.len(), 3, "two runs and the link: {entries:?}");
    let mut args = vec!["merge".to_string()];
    args.extend(entries);
    args.extend(["--out".into(), "merged".into()]);
    dir.run(&args).expect_code(0);
    // compare resolves `latest/` with its slash.
    let a = dir.run_new_folder(
        &["evaluate", &q, &t, "--out", "a", "--no-plots", "--no-html"],
        "a",
    );
    let r = dir
        .run(&[
            "compare",
            "x=a/latest/",
            "y=a/latest",
            "--resamples",
            "200",
            "--out",
            "cmp",
            "--json",
        ])
        .expect_code(0);
    let v: serde_json::Value = serde_json::from_str(r.stdout().trim()).unwrap();
    let m = read_json(
        &dir.path()
            .join(v["run_folder"].as_str().unwrap())
            .join("manifest.json"),
    );
    let inputs = m["inputs"].to_string();
    assert!(!inputs.contains("latest"), "{inputs}");
    assert!(
        inputs.contains(a.file_name().unwrap().to_str().unwrap()),
        "{inputs}"
    );
    // A project's hidden files and another host's files are no sources.
    let proj = dir.path().join("proj");
    std::fs::create_dir_all(proj.join(".ssh")).unwrap();
    std::fs::write(proj.join(".ssh/id_key"), "SECRET KEY\n").unwrap();
    std::fs::write(proj.join(".env"), "TOKEN=x\n").unwrap();
    for target in [".ssh/id_key", ".env", "file://evil.example/etc/passwd"] {
        write_zip(
            &proj.join("p.qdpx"),
            &[(
                "project.qde",
                qde(&[("a".into(), target.into())]).as_bytes(),
            )],
        );
        let r = dir.run(&["transcript", "proj/p.qdpx"]).expect_code(2);
        assert!(!r.stdout().contains("SECRET"), "{target}");
        r.expect_stderr(&["plainTextPath"]);
    }
}
