//! Issue 43: transcripts in every format researchers keep them (WebVTT,
//! SubRip, text with timestamps, Otter, whisperX, .docx, REFI-QDA), alone
//! or in a folder, and the time of every quote.

use crate::util::{read_json, repo, Dir};
use serde_json::Value;
use std::path::PathBuf;

fn interview(name: &str) -> String {
    repo()
        .join("datasets/interview")
        .join(name)
        .display()
        .to_string()
}

fn questions() -> String {
    repo()
        .join("datasets/interview-questions.json")
        .display()
        .to_string()
}

const MAP: &str = "SPEAKER_00=Interviewer,SPEAKER_01=Ana Lopez";

/// The quotes of a run's results.json.
fn quotes(folder: &std::path::Path) -> Vec<Value> {
    let r = read_json(&folder.join("results.json"));
    r["qa_pairs"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|p| p["answers"].as_array().unwrap().clone())
        .flat_map(|a| a["verbatims"].as_array().unwrap().clone())
        .collect()
}

fn evaluate(dir: &Dir, transcripts: &str, out: &str) -> PathBuf {
    dir.run_new_folder(
        &[
            "evaluate",
            &questions(),
            transcripts,
            "--out",
            out,
            "--no-plots",
            "--speaker-map",
            MAP,
        ],
        out,
    )
}

#[test]
fn issue_43_every_format_gives_the_same_verdicts_speakers_and_times() {
    let dir = Dir::new("formats-same");
    let timed = ["harbour.vtt", "harbour.srt", "harbour.json"];
    let all = [
        "harbour.txt",
        "harbour.md",
        "otter/harbour.txt",
        "harbour.vtt",
        "harbour.srt",
        "harbour.json",
        "harbour.docx",
        "harbour.qdpx",
    ];
    let mut seen: Vec<(String, Vec<Value>)> = Vec::new();
    for (k, f) in all.iter().enumerate() {
        let folder = evaluate(&dir, &interview(f), &format!("r{k}"));
        let qs = quotes(&folder);
        assert_eq!(qs.len(), 3, "{f}");
        // Across an inline timestamp or a cue boundary: exact, said by the
        // one it is attributed to.
        assert_eq!(qs[0]["verdict"], "exact", "{f}: {}", qs[0]);
        assert_eq!(qs[0]["attribution"], "ok", "{f}");
        assert_eq!(qs[0]["span_speaker"], "Ana Lopez", "{f}");
        // Otter's label lines give whole seconds.
        let otter = f.starts_with("otter/");
        let (first, second) = if otter { (4.0, 11.0) } else { (4.5, 11.5) };
        assert_eq!(qs[0]["time"]["start"], first, "{f}");
        assert_eq!(qs[1]["verdict"], "exact", "{f}: {}", qs[1]);
        assert_eq!(qs[1]["time"]["start"], second, "{f}");
        assert_eq!(qs[2]["verdict"], "not_found", "{f}");
        assert_eq!(qs[2]["time"], Value::Null, "{f}");
        if timed.contains(f) {
            assert_eq!(qs[0]["time"]["end"], 9.0, "{f}");
            assert_eq!(qs[1]["time"]["end"], 16.0, "{f}");
        } else {
            assert_eq!(qs[0]["time"]["end"], Value::Null, "{f}");
        }
        // quotes.csv carries the times.
        let mut csv = csv::Reader::from_path(folder.join("quotes.csv")).unwrap();
        let header: Vec<String> = csv.headers().unwrap().iter().map(String::from).collect();
        let at = header.iter().position(|h| *h == "time_start").unwrap();
        assert_eq!(header[at + 1], "time_end");
        let row = csv.records().next().unwrap().unwrap();
        assert_eq!(&row[at], if otter { "4" } else { "4.5" }, "{f}");
        // The speaker map is part of the signature.
        let summary = read_json(&folder.join("summary.json"));
        let sig = summary["signature"].as_str().unwrap();
        assert!(sig.contains("|speaker-map:2:sha256:"), "{sig}");
        seen.push((f.to_string(), qs));
    }
    // The same plain text where no heading is added: the same spans.
    let spans: Vec<&Value> = seen
        .iter()
        .filter(|(f, _)| !f.ends_with(".md") && !f.ends_with(".docx"))
        .map(|(_, q)| &q[0]["span"])
        .collect();
    assert!(spans.windows(2).all(|w| w[0] == w[1]), "{spans:?}");
}

#[test]
fn issue_43_a_folder_of_transcripts_ids_by_relative_path_with_or_without_extension() {
    let dir = Dir::new("formats-folder");
    let corpus = dir.path().join("corpus");
    std::fs::create_dir_all(corpus.join("wave2")).unwrap();
    std::fs::copy(
        interview("harbour.vtt"),
        corpus.join("wave2/IS-004_harbour.vtt"),
    )
    .unwrap();
    std::fs::write(
        corpus.join("IS-001.txt"),
        "Interviewer: Where were you born?\r\nBo: In [00:00:03] Cádiz, by the sea.\r\n",
    )
    .unwrap();
    // A hidden file is not a transcript.
    std::fs::write(corpus.join(".notes.txt"), "x").unwrap();
    let qs = serde_json::json!({"qa_pairs": [{"id": "f1", "question": {"text": "Where?", "type": "ListOne", "metric": "{\"values\": [\"Cadiz\"], \"weights\": [1.0]}"},
        "answers": [{"answer": "Cádiz.", "verbatims": [
            {"quote": "We left in the spring of 1987, after the cannery closed.", "source": "wave2/IS-004_harbour", "speaker": "Ana Lopez"},
            {"quote": "We left in the spring of 1987", "source": "wave2/IS-004_harbour.vtt"},
            {"quote": "Cádiz, by the sea.", "source": "IS-001", "speaker": "Bo"},
            {"quote": "by the sea", "source": "harbour"}]}]}]});
    dir.write("q.json", &qs.to_string());
    let folder = dir.run_new_folder(
        &[
            "evaluate",
            "q.json",
            "corpus",
            "--out",
            "runs",
            "--no-plots",
        ],
        "runs",
    );
    let q = quotes(&folder);
    let verdicts: Vec<&str> = q.iter().map(|q| q["verdict"].as_str().unwrap()).collect();
    assert_eq!(
        verdicts,
        ["exact", "exact", "exact", "unknown_source"],
        "{q:?}"
    );
    assert_eq!(q[2]["time"]["start"], 3.0);
    assert_eq!(q[2]["span_speaker"], "Bo");
    // The manifest records the folder by its listing's digest; a rerun
    // finds it and reproduces every output.
    let m = read_json(&folder.join("manifest.json"));
    assert_eq!(
        m["inputs"]["transcripts"]["sha256"].as_str().unwrap().len(),
        64
    );
    let r = dir
        .run(&["rerun", &folder.display().to_string(), "--out", "again"])
        .expect_code(0);
    assert!(!r.stdout().contains("different"), "{}", r.stdout());
    // A changed file in the folder changes its digest.
    std::fs::write(corpus.join("IS-001.txt"), "Bo: changed").unwrap();
    dir.run(&["rerun", &folder.display().to_string(), "--out", "third"])
        .expect_code(2)
        .expect_stderr(&["changed since the run"]);
}

#[test]
fn issue_43_transcript_command_prints_text_and_json() {
    let dir = Dir::new("formats-cmd");
    let r = dir
        .run(&["transcript", &interview("harbour.vtt")])
        .expect_code(0);
    assert_eq!(
        r.stdout().lines().nth(1),
        Some("Ana Lopez: We left in the spring of 1987, after the cannery closed.")
    );
    let r = dir
        .run(&["transcript", &interview("harbour.json"), "--json"])
        .expect_code(0);
    let v: Value = serde_json::from_str(&r.stdout()).unwrap();
    assert_eq!(v["id"], "harbour.json");
    assert_eq!(v["format"], "whisper");
    // Unmapped diarized labels stay as they are.
    assert_eq!(v["turns"][1]["speaker"], "SPEAKER_01");
    assert_eq!(v["turns"][1]["start"], 4.5);
    assert_eq!(v["turns"][1]["end"], 9.0);
    assert_eq!(
        v["turns"][3]["text"],
        "There was no money & no work for my father."
    );
    let r = dir
        .run(&[
            "transcript",
            &interview("harbour.json"),
            "--json",
            "--speaker-map",
            "SPEAKER_01=Ana",
        ])
        .expect_code(0);
    let v: Value = serde_json::from_str(&r.stdout()).unwrap();
    assert_eq!(v["turns"][1]["speaker"], "Ana");
    assert_eq!(v["turns"][0]["speaker"], "SPEAKER_00");
    let r = dir
        .run(&["transcript", &interview("harbour.qdpx"), "--json"])
        .expect_code(0);
    let v: Value = serde_json::from_str(&r.stdout()).unwrap();
    assert_eq!(
        (v["id"].as_str(), v["format"].as_str()),
        (Some("harbour"), Some("qdpx"))
    );
    assert_eq!(v["turns"][0]["end"], Value::Null);
    // A speaker map given twice the same label is a usage error.
    dir.run(&[
        "transcript",
        &interview("harbour.json"),
        "--speaker-map",
        "A=B,A=C",
    ])
    .expect_code(2);
}

#[test]
fn issue_43_bad_files_are_exit_2_naming_file_and_line_and_nothing_is_written() {
    let dir = Dir::new("formats-bad");
    let cases: [(&str, &[u8], &str); 6] = [
        (
            "bad.vtt",
            b"WEBVTT\n\n1\n00:00:01.000 00:00:02.000\nhi\n",
            "bad.vtt:4:",
        ),
        (
            "bad.srt",
            b"1\n00:00:01,000 --> 00:00:99,000\nhi\n",
            "bad.srt:2:",
        ),
        ("bad.txt", b"Ana: fine\nBo: [00:75:00] no\n", "bad.txt:2:"),
        ("bad.docx", b"not a zip", "bad.docx"),
        ("bad.qdpx", b"PK not really", "bad.qdpx"),
        (
            "bad.json",
            br#"{"segments": [{"start": 2, "end": 1, "text": "x"}]}"#,
            "segment 0",
        ),
    ];
    let q = questions();
    for (name, bytes, needle) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        let out = format!("out-{name}");
        let r = dir
            .run(&["evaluate", &q, &path.display().to_string(), "--out", &out])
            .expect_code(2);
        assert!(r.stderr().contains(needle), "{name}: {}", r.stderr());
        assert!(
            !dir.path().join(&out).exists(),
            "{name}: something was written"
        );
        dir.run(&["transcript", &path.display().to_string()])
            .expect_code(2);
    }
    // A folder with one bad file: the whole input is refused.
    let corpus = dir.path().join("corpus");
    std::fs::create_dir_all(&corpus).unwrap();
    std::fs::copy(interview("harbour.vtt"), corpus.join("a.vtt")).unwrap();
    std::fs::write(corpus.join("b.srt"), "1\nno timing\nhi\n").unwrap();
    dir.run(&["evaluate", &q, "corpus", "--out", "out-folder"])
        .expect_code(2)
        .expect_stderr(&["b.srt:2:"]);
    assert!(!dir.path().join("out-folder").exists());
}

#[test]
fn issue_43_stitched_pieces_and_edited_segments_carry_their_own_times() {
    let dir = Dir::new("formats-pieces");
    let q = serde_json::json!({"qa_pairs": [{"id": "p1", "question": {"text": "Why?", "type": "ListOne", "metric": "{\"values\": [\"money\"], \"weights\": [1.0]}"},
        "answers": [{"answer": "Money.", "verbatims": [
            {"quote": "We left in the spring of 1987 ... no money & no work for my father.", "source": "harbour", "speaker": "Ana Lopez"},
            {"quote": "We left in the spring of 1987 because there was no money & no work for my father.", "source": "harbour", "speaker": "Ana Lopez"}]}]}]});
    dir.write("q.json", &q.to_string());
    let folder = dir.run_new_folder(
        &[
            "evaluate",
            "q.json",
            &interview("harbour.vtt"),
            "--out",
            "runs",
            "--no-plots",
        ],
        "runs",
    );
    let qs = quotes(&folder);
    assert_eq!(qs[0]["verdict"], "edited", "{}", qs[0]);
    let starts = |q: &Value| -> Vec<Value> {
        q["pieces"]
            .as_array()
            .unwrap_or_else(|| panic!("no pieces: {q}"))
            .iter()
            .map(|p| p["time"]["start"].clone())
            .collect()
    };
    assert_eq!(starts(&qs[0]), [4.5, 11.5], "{}", qs[0]);
    assert_eq!(qs[1]["attribution"], "stitched", "{}", qs[1]);
    assert_eq!(starts(&qs[1]), [4.5, 11.5], "{}", qs[1]);
    // JSON chunks: pieces have no `time` at all (outputs as before).
    let chunks = serde_json::json!([
        {"page_content": "Ana: We left in the spring of 1987, after the cannery closed.\nBo: Why?\nAna: There was no money & no work for my father.", "metadata": {"FILE": "harbour"}}
    ]);
    dir.write("t.json", &chunks.to_string());
    let folder = dir.run_new_folder(
        &[
            "evaluate",
            "q.json",
            "t.json",
            "--out",
            "runs2",
            "--no-plots",
        ],
        "runs2",
    );
    let qs = quotes(&folder);
    assert!(qs[0]["pieces"][0].get("time").is_none(), "{}", qs[0]);
}
