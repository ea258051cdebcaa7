//! Issue 54: real exports read right. Every speaker-label style and JSON
//! export of fixtures/labels/ (written by scripts/make-label-fixtures.py,
//! its expectations in expected.json) is read with its speakers, roles and
//! times, and a misattributed quote is `wrong_speaker` or `interviewer` in
//! each, never `ok`; doubts are loud.

use crate::util::{read_json, repo, Dir};
use serde_json::{json, Value};

fn expected() -> Value {
    read_json(&repo().join("fixtures/labels/expected.json"))
}

/// `transcript FILE --json` with `flags`.
fn turns(dir: &Dir, file: &str, flags: &[&str]) -> Value {
    let mut args = vec!["transcript", file, "--json"];
    args.extend_from_slice(flags);
    let r = dir.run(&args).expect_code(0);
    serde_json::from_str(&r.stdout()).unwrap_or_else(|e| panic!("{file}: {e}: {}", r.stdout()))
}

#[test]
fn issue_54_every_label_style_and_export_reads_speakers_roles_and_times() {
    let dir = Dir::new("r54-styles");
    let all = expected();
    let fixtures = all["fixtures"].as_array().unwrap();
    assert!(fixtures.len() >= 30, "{}", fixtures.len());
    for f in fixtures {
        let name = f["file"].as_str().unwrap();
        let path = repo().join("fixtures/labels").join(name);
        let flags: Vec<&str> = f["flags"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        let mapped = flags.contains(&"--speaker-map");
        let t = turns(&dir, path.to_str().unwrap(), &flags);
        assert_eq!(
            t["labels"],
            json!({"recognised": 4, "turns": 4}),
            "{name}: {t}"
        );
        let speakers: Vec<&str> = t["turns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["speaker"].as_str().unwrap_or("(none)"))
            .collect();
        let (i, p) = if mapped {
            ("Interviewer", "Ana Lopez")
        } else {
            (
                f["interviewer"].as_str().unwrap(),
                f["participant"].as_str().unwrap(),
            )
        };
        assert_eq!(speakers, [i, p, i, p], "{name}");
        let answer = &t["turns"][1];
        assert_eq!(answer["role"], f["role"], "{name}: {answer}");
        assert_eq!(
            t["turns"][0]["interviewer"], true,
            "{name}: the interviewer's turn"
        );
        assert_eq!(answer["interviewer"], false, "{name}");
        if !f["start"].is_null() {
            assert_eq!(answer["start"], f["start"], "{name}: {answer}");
        }
        assert!(
            answer["text"]
                .as_str()
                .unwrap()
                .starts_with("We left in the spring of 1987"),
            "{name}: {answer}"
        );
    }
}

#[test]
fn issue_54_a_misattributed_quote_is_never_ok_in_any_style() {
    let dir = Dir::new("r54-verdicts");
    let all = expected();
    let said = all["quotes"]["participant"].as_str().unwrap();
    let asked = all["quotes"]["interviewer"].as_str().unwrap();
    for f in all["fixtures"].as_array().unwrap() {
        let name = f["file"].as_str().unwrap();
        let flags: Vec<&str> = f["flags"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        let mapped = flags.contains(&"--speaker-map");
        let (i, p) = if mapped {
            ("Interviewer", "Ana Lopez")
        } else {
            (
                f["interviewer"].as_str().unwrap(),
                f["participant"].as_str().unwrap(),
            )
        };
        std::fs::copy(
            repo().join("fixtures/labels").join(name),
            dir.path().join(name),
        )
        .unwrap();
        let questions = json!({"qa_pairs": [{"id": "q1",
            "question": {"text": "Why?", "type": "ListOne", "metric": {"spring": 1}},
            "answers": [{"answer": "spring", "source": name, "verbatims": [
                {"quote": said, "source": name, "speaker": p},
                {"quote": said, "source": name, "speaker": i},
                {"quote": asked, "source": name, "speaker": p}]}]}]});
        let q = dir.write("q.json", &questions.to_string());
        let out = format!("runs-{name}");
        let mut args = vec![
            "evaluate",
            q.to_str().unwrap(),
            name,
            "--out",
            &out,
            "--no-plots",
            "--no-html",
        ];
        args.extend_from_slice(&flags);
        let run = dir.run_new_folder(&args, &out);
        let results = read_json(&run.join("results.json"));
        let got: Vec<(&str, &str)> = results["qa_pairs"][0]["answers"][0]["verbatims"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| {
                (
                    v["verdict"].as_str().unwrap(),
                    v["attribution"].as_str().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("exact", "ok"),
                ("exact", "wrong_speaker"),
                ("exact", "interviewer")
            ],
            "{name}"
        );
    }
}

#[test]
fn issue_54_sentences_with_a_colon_stay_speech_and_doubts_are_loud() {
    let dir = Dir::new("r54-negative");
    dir.write(
        "colon.txt",
        "Ana Lopez: We had one problem in those years.\nThe problem was: money, and the boats.\nInterviewer: Why?\n",
    );
    let t = turns(&dir, "colon.txt", &[]);
    assert_eq!(t["labels"], json!({"recognised": 2, "turns": 2}), "{t}");
    assert_eq!(t["turns"][0]["speaker"], "Ana Lopez");
    // A label the rules reject is named on stderr and in summary.json.
    dir.write(
        "doubt.txt",
        "Ana Lopez: We left in the spring.\n[[ADA]]: and that was that for us\nInterviewer: Why?\n",
    );
    let r = dir.run(&["transcript", "doubt.txt"]).expect_code(0);
    assert!(r.stderr().is_empty() || !r.stderr().contains("panicked"));
    let questions = json!({"qa_pairs": [{"id": "q1",
        "question": {"text": "Why?", "type": "ListOne", "metric": {"spring": 1}},
        "answers": [{"answer": "spring", "source": "doubt.txt", "verbatims": [
            {"quote": "We left in the spring.", "source": "doubt.txt", "speaker": "Ana Lopez"}]}]}]});
    let q = dir.write("q.json", &questions.to_string());
    let before = dir.run_folders("runs");
    let r = dir
        .run(&[
            "evaluate",
            q.to_str().unwrap(),
            "doubt.txt",
            "--out",
            "runs",
            "--no-plots",
            "--no-html",
        ])
        .expect_code(0)
        .expect_stderr(&["warning:", "doubt.txt:2:", "[[ADA]]"]);
    drop(r);
    let run = dir
        .run_folders("runs")
        .into_iter()
        .find(|f| !before.contains(f))
        .unwrap();
    let summary = read_json(&run.join("summary.json"));
    assert!(
        summary["warnings"].to_string().contains("doubt.txt:2"),
        "{summary}"
    );
}

#[test]
fn issue_54_an_unlabelled_cue_between_labelled_ones_is_its_own_turn_in_doubt() {
    let dir = Dir::new("r54-cues");
    dir.write(
        "c.vtt",
        "WEBVTT\n\n00:00:01.000 --> 00:00:03.000\n<v Ana>We left in the spring\n\n\
         00:00:03.000 --> 00:00:05.000\nof 1987 after the cannery closed.\n\n\
         00:00:06.000 --> 00:00:08.000\nThe boat was sold to a cousin in Vigo.\n\n\
         00:00:09.000 --> 00:00:10.000\n<v Interviewer>Why?\n",
    );
    let t = turns(&dir, "c.vtt", &[]);
    let rows: Vec<(Value, Value)> = t["turns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| (x["speaker"].clone(), x["uncertain"].clone()))
        .collect();
    // The second cue goes on with Ana's sentence; the third, after a full
    // stop and with no voice span, is no one's, in doubt.
    assert_eq!(
        rows,
        [
            (json!("Ana"), json!(false)),
            (Value::Null, json!(true)),
            (json!("Interviewer"), json!(false))
        ],
        "{t}"
    );
    let questions = json!({"qa_pairs": [{"id": "q1",
        "question": {"text": "Why?", "type": "ListOne", "metric": {"spring": 1}},
        "answers": [{"answer": "spring", "source": "c.vtt", "verbatims": [
            {"quote": "We left in the spring of 1987 after the cannery closed.", "source": "c.vtt", "speaker": "Ana"},
            {"quote": "The boat was sold to a cousin in Vigo.", "source": "c.vtt", "speaker": "Ana"}]}]}]});
    let q = dir.write("q.json", &questions.to_string());
    let run = dir.run_new_folder(
        &[
            "evaluate",
            q.to_str().unwrap(),
            "c.vtt",
            "--out",
            "runs",
            "--no-plots",
            "--no-html",
        ],
        "runs",
    );
    let results = read_json(&run.join("results.json"));
    let v = &results["qa_pairs"][0]["answers"][0]["verbatims"];
    assert_eq!(
        (v[0]["attribution"].as_str(), v[1]["attribution"].as_str()),
        (Some("ok"), Some("uncertain_speaker"))
    );
    let summary = read_json(&run.join("summary.json"));
    assert!(
        summary["warnings"].to_string().contains("c.vtt:"),
        "{summary}"
    );
}

#[test]
fn issue_54_whisperx_words_split_a_segment_where_the_speaker_changes() {
    let dir = Dir::new("r54-whisperx");
    dir.write(
        "w.json",
        r#"{"segments": [
          {"start": 0.0, "end": 4.0, "text": "Why did you leave? We left in spring.", "speaker": "SPEAKER_00",
           "words": [{"word": "Why", "start": 0.0, "end": 0.3, "speaker": "SPEAKER_00"},
                     {"word": "did", "start": 0.3, "end": 0.5, "speaker": "SPEAKER_00"},
                     {"word": "you", "start": 0.5, "end": 0.7},
                     {"word": "leave?", "start": 0.7, "end": 1.0, "speaker": "SPEAKER_00"},
                     {"word": "We", "start": 1.5, "end": 1.7, "speaker": "SPEAKER_01"},
                     {"word": "left", "start": 1.7, "end": 2.0, "speaker": "SPEAKER_01"},
                     {"word": "in", "start": 2.0, "end": 2.2, "speaker": "SPEAKER_01"},
                     {"word": "spring.", "start": 2.2, "end": 4.0, "speaker": "SPEAKER_01"}]},
          {"start": 5.0, "end": 7.0, "text": "So it was the cannery then.",
           "words": [{"word": "So", "speaker": "SPEAKER_01"}, {"word": "it", "speaker": "SPEAKER_00"},
                     {"word": "was", "speaker": "SPEAKER_01"}, {"word": "the", "speaker": "SPEAKER_01"},
                     {"word": "cannery", "speaker": "SPEAKER_01"}, {"word": "then.", "speaker": "SPEAKER_01"}]}
        ]}"#,
    );
    let t = turns(
        &dir,
        "w.json",
        &["--speaker-map", "SPEAKER_00=Interviewer,SPEAKER_01=Ana"],
    );
    let rows: Vec<(Value, Value, Value, Value)> = t["turns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            (
                x["speaker"].clone(),
                x["uncertain"].clone(),
                x["start"].clone(),
                x["text"].clone(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            (
                json!("Interviewer"),
                json!(false),
                json!(0.0),
                json!("Why did you leave?")
            ),
            (
                json!("Ana"),
                json!(false),
                json!(1.5),
                json!("We left in spring.")
            ),
            (
                json!("Ana"),
                json!(true),
                json!(5.0),
                json!("So it was the cannery then.")
            ),
        ],
        "{t}"
    );
}

#[test]
fn issue_54_interviewer_labels_add_to_the_defaults_and_none_replaces_them() {
    let dir = Dir::new("r54-interviewers");
    dir.write(
        "t.txt",
        "Dana Whitfield: Why did you leave?\nInterviewer 2: And then?\nAna: We left in the spring of 1987.\n",
    );
    let interviewer = |flags: &[&str]| -> Vec<bool> {
        turns(&dir, "t.txt", flags)["turns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["interviewer"].as_bool().unwrap())
            .collect()
    };
    assert_eq!(interviewer(&[]), [false, true, false]);
    assert_eq!(
        interviewer(&["--interviewer-labels", "Dana Whitfield"]),
        [true, true, false]
    );
    assert_eq!(
        interviewer(&["--interviewer-labels", "none,Dana Whitfield"]),
        [true, false, false]
    );
}

#[test]
fn issue_54_check_report_warns_of_labels_that_resolve_to_nothing() {
    let dir = Dir::new("r54-unresolved");
    dir.write(
        "t.txt",
        "Ana Lopez: We left in the spring of 1987 after the cannery closed.\n",
    );
    dir.write(
        "r.md",
        "She said “we left in the spring of 1987 after the cannery closed” (P1).\n",
    );
    let r = dir
        .run(&[
            "check-report",
            "r.md",
            "t.txt",
            "--out",
            "runs",
            "--no-html",
        ])
        .expect_code(0)
        .expect_stderr(&["warning:", "P1", "--sources"]);
    drop(r);
    let run = dir.run_folders("runs").pop().unwrap();
    let summary = read_json(&run.join("summary.json"));
    assert!(
        summary["warnings"].to_string().contains("--sources"),
        "{summary}"
    );
}

#[test]
fn issue_54_the_bundled_interview_in_real_export_styles_gives_the_same_verdicts() {
    let dir = Dir::new("r54-datasets");
    let questions = repo().join("datasets/interview-questions.json");
    let run = |file: &str, flags: &[&str], out: &str| -> Vec<(String, String, String)> {
        // Cited as `harbour`: the file is read under that name.
        let ext = file.rsplit('.').next().unwrap();
        let to = dir.path().join(format!("{out}-in"));
        std::fs::create_dir_all(&to).unwrap();
        let path = to.join(format!("harbour.{ext}"));
        std::fs::copy(repo().join("datasets/interview").join(file), &path).unwrap();
        let mut args = vec![
            "evaluate",
            questions.to_str().unwrap(),
            path.to_str().unwrap(),
            "--out",
            out,
            "--no-plots",
            "--no-html",
        ];
        args.extend_from_slice(flags);
        let folder = dir.run_new_folder(&args, out);
        let r = read_json(&folder.join("results.json"));
        r["qa_pairs"][0]["answers"][0]["verbatims"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| {
                (
                    v["verdict"].as_str().unwrap().to_string(),
                    v["attribution"].as_str().unwrap().to_string(),
                    v["span_speaker"].as_str().unwrap_or("").to_string(),
                )
            })
            .collect()
    };
    let want = run("harbour.vtt", &[], "base");
    assert_eq!(want[0].1, "ok");
    for (file, flags) in [
        ("styles/harbour_zoom.vtt", &[][..]),
        ("styles/harbour_podcast.md", &[][..]),
        ("styles/harbour_meet.txt", &[][..]),
        (
            "styles/harbour_whisperx.srt",
            &[
                "--speaker-map",
                "SPEAKER_00=Interviewer,SPEAKER_01=Ana Lopez",
            ][..],
        ),
        (
            "styles/harbour_assemblyai.json",
            &["--speaker-map", "Speaker A=Interviewer,Speaker B=Ana Lopez"][..],
        ),
    ] {
        let got = run(file, flags, &format!("runs-{}", file.replace('/', "-")));
        let strip = |v: &[(String, String, String)]| -> Vec<(String, String)> {
            v.iter().map(|(a, b, _)| (a.clone(), b.clone())).collect()
        };
        assert_eq!(strip(&got), strip(&want), "{file}");
        assert_eq!(got[0].2, "Ana Lopez", "{file}");
    }
}

#[test]
fn issue_54_review_cases_read_right() {
    let dir = Dir::new("r54-review");
    let rows = |file: &str| -> Vec<(Value, Value)> {
        turns(&dir, file, &[])["turns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| (x["speaker"].clone(), x["text"].clone()))
            .collect()
    };
    // A bare label alone on its line opens an ordinary turn: its later
    // paragraphs stay the speaker's.
    dir.write(
        "bare.txt",
        "INTERVIEWER:\nWhy?\n\nRESPONDENT:\nPara one.\n\nPara two.\n",
    );
    assert_eq!(
        rows("bare.txt"),
        [
            (json!("INTERVIEWER"), json!("Why?")),
            (json!("RESPONDENT"), json!("Para one.\n\nPara two."))
        ]
    );
    // A phrase with a number is no label line inside a `Name:` file.
    dir.write(
        "phrase.txt",
        "Ana: It was slow.\nAbout 40 minutes\nand then we reached Vigo.\n",
    );
    assert_eq!(
        rows("phrase.txt"),
        [(
            json!("Ana"),
            json!("It was slow.\nAbout 40 minutes\nand then we reached Vigo.")
        )]
    );
    // Nor is a caption cue of one.
    dir.write(
        "c.srt",
        "1\n00:00:01,000 --> 00:00:02,000\nAbout 40 minutes\n",
    );
    assert_eq!(rows("c.srt"), [(Value::Null, json!("About 40 minutes"))]);
    // A role written once: `Ana (SL):` and `Ana:` are one speaker's turn.
    dir.write("role.txt", "Ana (SL): a\nAna: b\nBo: c\n");
    assert_eq!(rows("role.txt")[0], (json!("Ana"), json!("a\nb")));
    // Escaped markup stays as the page shows it; a list item is no doubt.
    dir.write(
        "e.md",
        "**Ana:** it was \\*so\\* hard\n\n* Note: we went home\n",
    );
    assert_eq!(
        rows("e.md")[0].1,
        json!("it was *so* hard\n\nNote: we went home")
    );
    let r = dir.run(&["transcript", "e.md"]).expect_code(0);
    assert!(!r.stderr().contains("warning"), "{}", r.stderr());
    // A plain list keeps a one-letter speaker as written.
    dir.write(
        "l.json",
        r#"[{"speaker": "I", "text": "Why?"}, {"speaker": "R", "text": "Because."}]"#,
    );
    let t = turns(&dir, "l.json", &[]);
    assert_eq!(
        (&t["turns"][0]["speaker"], &t["turns"][0]["interviewer"]),
        (&json!("I"), &json!(true))
    );
    // A certain segment after one in doubt is a turn of its own.
    dir.write(
        "w.json",
        r#"{"segments": [
          {"start": 0, "end": 1, "text": "So it was.", "words": [{"word": "So", "speaker": "S1"}, {"word": "it", "speaker": "S1"}, {"word": "was.", "speaker": "S0"}]},
          {"start": 2, "end": 3, "text": "We left in spring.", "speaker": "S1"}]}"#,
    );
    let t = turns(&dir, "w.json", &[]);
    let u: Vec<&Value> = t["turns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| &x["uncertain"])
        .collect();
    assert_eq!(u, [&json!(true), &json!(false)]);
    // A Deepgram response whose utterances come after 64 KB of words.
    let words: Vec<Value> = (0..3000)
        .map(|k| json!({"word": "word", "start": k as f64 * 0.1, "end": k as f64 * 0.1 + 0.05, "speaker": 0}))
        .collect();
    let doc = json!({"metadata": {}, "results": {"channels": [{"alternatives": [{"words": words}]}],
        "utterances": [{"start": 0.5, "end": 1.0, "transcript": "We left.", "speaker": 0},
                       {"start": 1.5, "end": 2.0, "transcript": "Why?", "speaker": 1}]}});
    dir.write("dg.json", &doc.to_string());
    assert!(std::fs::metadata(dir.path().join("dg.json")).unwrap().len() > 64 << 10);
    let t = turns(&dir, "dg.json", &[]);
    assert_eq!(
        (&t["format"], &t["turns"][1]["speaker"]),
        (&json!("deepgram"), &json!("Speaker 1"))
    );
}
