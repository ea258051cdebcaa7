//! Issue 40: verdicts a researcher can defend (`issue_40_<name>`).

use crate::util::{read_json, Dir};
use serde_json::{json, Value};

const TEXT: &str = "Interviewer: Tell me about the house.
Marta: She hated it, honestly, but she never said so to my grandmother. Um, the council never delivered it, they promised the roof in spring.
Interviewer: And the garden?
Marta: We grew leeks and potatoes behind the watchmaker's shop every single year. I sold the umbrella stand in 1999.
Mrs Okafor: The damp came back every winter, no matter how often I cleaned it.";

/// `evaluate` of `quotes` (`[quote, speaker]`) against [`TEXT`] with
/// `extra` flags; returns results.json's quotes, the summary and the run
/// folder.
fn run(
    dir: &Dir,
    quotes: &[(&str, Option<&str>)],
    extra: &[&str],
) -> (Vec<Value>, Value, std::path::PathBuf) {
    let verbatims: Vec<Value> = quotes
        .iter()
        .map(|(q, s)| match s {
            Some(s) => json!({"quote": q, "source": "a.csv", "speaker": s}),
            None => json!({"quote": q, "source": "a.csv"}),
        })
        .collect();
    let q = json!({"qa_pairs": [{"id": "p1",
        "question": {"text": "Q?", "type": "Yes/No", "metric": "yes"},
        "answers": [{"answer": "yes", "source": "a.csv", "verbatims": verbatims}]}]});
    dir.write("q.json", &q.to_string());
    dir.write(
        "t.json",
        &json!([{"page_content": TEXT, "metadata": {"FILE": "a.csv"}},
                {"page_content": "Bo: Completely different words about fishing boats in the harbour.", "metadata": {"FILE": "b.csv"}}])
        .to_string(),
    );
    let parent = format!("runs{}", dir.run_folders(".").len());
    let mut args = vec![
        "evaluate",
        "q.json",
        "t.json",
        "--out",
        &parent,
        "--no-plots",
        "--no-progress",
    ];
    args.extend_from_slice(extra);
    let folder = dir.run_new_folder(&args, &parent);
    let results = read_json(&folder.join("results.json"));
    let quotes = results["qa_pairs"][0]["answers"][0]["verbatims"]
        .as_array()
        .unwrap()
        .clone();
    (quotes, read_json(&folder.join("summary.json")), folder)
}

fn said(q: &Value) -> String {
    let span = &q["span"];
    let (s, e) = (
        span["start"].as_u64().unwrap() as usize,
        span["end"].as_u64().unwrap() as usize,
    );
    TEXT.chars().skip(s).take(e - s).collect()
}

fn diffs(q: &Value) -> Vec<&str> {
    q["differences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_str().unwrap())
        .collect()
}

#[test]
fn issue_40_punctuation_and_fillers_are_ignored() {
    let dir = Dir::new("i40-punct");
    let (q, _, folder) = run(
        &dir,
        &[
            (
                "She hated it honestly but she never said so to my grandmother",
                Some("Marta"),
            ),
            ("so to my grandmother the council never delivered it", None),
            ("She hated it, honestly, but she never said so", None),
            ("I sold the um umbrella stand in 1999", None),
            ("I sold the brella stand in 1999", None),
        ],
        &["--match", "normalized"],
    );
    assert_eq!(q[0]["verdict"], "normalized");
    assert_eq!(q[0]["attribution"], "ok");
    assert_eq!(q[0]["span_speaker"], "Marta");
    assert_eq!(
        said(&q[0]),
        "She hated it, honestly, but she never said so to my grandmother"
    );
    assert_eq!(diffs(&q[0]), ["punctuation"]);
    // Fillers dropped from the source.
    assert_eq!(q[1]["verdict"], "normalized");
    assert_eq!(diffs(&q[1]), ["punctuation", "fillers"]);
    assert_eq!(q[2]["verdict"], "exact");
    assert_eq!(diffs(&q[2]), Vec::<&str>::new());
    // A filler in the quote dropped; `umbrella` is not a filler.
    assert_eq!(q[3]["verdict"], "normalized");
    assert_eq!(diffs(&q[3]), ["fillers"]);
    assert_ne!(q[4]["verdict"], "normalized");
    // quotes.csv carries them.
    let csv = std::fs::read_to_string(folder.join("quotes.csv")).unwrap();
    assert!(csv
        .lines()
        .next()
        .unwrap()
        .ends_with(",differences,meaning"));
    assert!(
        csv.contains(",punctuation,\n") || csv.contains(",punctuation,\r\n"),
        "{csv}"
    );
    // --fillers none: a filler is a word again.
    let (q, _, _) = run(
        &dir,
        &[("I sold the um umbrella stand in 1999", None)],
        &["--fillers", "none"],
    );
    assert_ne!(q[0]["verdict"], "normalized", "{}", q[0]);
    // --fillers LIST replaces the list.
    let (q, _, _) = run(
        &dir,
        &[("I sold the like umbrella stand in 1999", None)],
        &["--fillers", "like,you know"],
    );
    assert_eq!(q[0]["verdict"], "normalized");
}

#[test]
fn issue_40_edited_quotes() {
    let dir = Dir::new("i40-edited");
    let (q, summary, _) = run(
        &dir,
        &[
            (
                "She hated it ... she never said so to my grandmother",
                Some("Marta"),
            ),
            ("She hated it … she never said so to my grandmother", None),
            ("She hated it . . . she never said so", None),
            ("She hated it [...] never said so", None),
            ("She hated it […] never said so", None),
            ("...the council never delivered it", None),
            ("[The council] never delivered it", None),
            ("they promised [the repairs] in spring", None),
            ("the council never delivered [sic] it", None),
            // Negative: out of order, a segment nowhere, segments that
            // overlap, an insertion for seven words; then segments in order
            // across turns.
            (
                "never said so to my grandmother ... She hated it honestly",
                None,
            ),
            ("She hated it ... the mayor came by boat", None),
            ("She hated it [...] She hated it honestly", None),
            (
                "She hated it [and the landlord and the council and the mayor] the roof in spring",
                None,
            ),
            (
                "promised the roof in spring ... we grew leeks and potatoes",
                None,
            ),
        ],
        &[],
    );
    for (k, r) in q.iter().enumerate().take(9) {
        assert_eq!(r["verdict"], "edited", "quote {k}: {r}");
        assert_eq!(r["found"], true);
        assert_eq!(r["attribution"], "ok", "quote {k}: {r}");
    }
    // Segments: one piece each, the span from the first to the last.
    let pieces = q[0]["pieces"].as_array().unwrap();
    assert_eq!(pieces.len(), 2);
    assert_eq!(pieces[0]["span_speaker"], "Marta");
    assert!(said(&q[0]).starts_with("She hated it") && said(&q[0]).ends_with("grandmother"));
    assert!(diffs(&q[0]).contains(&"elision"));
    assert_eq!(diffs(&q[5]), ["elision"]);
    assert!(q[5].get("pieces").is_none(), "one segment: no pieces");
    assert!(diffs(&q[6]).contains(&"insertion"));
    assert!(diffs(&q[7]).contains(&"insertion"));
    assert!(diffs(&q[8]).contains(&"sic"));
    // Out of order / nowhere / too many words for an insertion: not edited.
    for (k, r) in q.iter().enumerate().take(13).skip(9) {
        assert_ne!(r["verdict"], "edited", "quote {k}: {r}");
        assert_eq!(r["found"], false);
    }
    // Segments in order over two turns: cross_turn.
    assert_eq!(q[13]["verdict"], "edited");
    assert_eq!(q[13]["attribution"], "cross_turn");
    assert_eq!(summary["verdicts"]["edited"], 10);
    // Not found at --match exact.
    let (q, _, _) = run(
        &dir,
        &[("She hated it ... she never said so", None)],
        &["--match", "exact"],
    );
    assert_eq!(q[0]["verdict"], "edited");
    assert_eq!(q[0]["found"], false);
}

#[test]
fn issue_40_altered_is_not_fabricated() {
    let dir = Dir::new("i40-altered");
    let (q, summary, _) = run(
        &dir,
        &[
            // Two typos: 0.95 similar.
            (
                "She hated it honestly but she nevr said so to my grandmothr",
                Some("Marta"),
            ),
            ("The mayor sold the harbour to a hotel chain in 2003", None),
            (
                "Completely different words about fishing boats in the harbour",
                None,
            ),
        ],
        &[],
    );
    assert_eq!(q[0]["verdict"], "fuzzy");
    assert_eq!(q[0]["found"], false);
    assert_eq!(q[0]["attribution"], "altered");
    assert_eq!(q[0]["span_speaker"], "Marta");
    assert!(q[0]["similarity"].as_f64().unwrap() >= 0.9);
    assert!(said(&q[0]).starts_with("She hated it"));
    assert_eq!(q[1]["attribution"], "fabricated");
    assert_eq!(q[1]["span"], Value::Null);
    // Another transcript holds it: other_source comes first.
    assert_eq!(q[2]["attribution"], "other_source");
    assert_eq!(summary["attribution"]["overall"]["altered"], 1);
    // At --match fuzzy it is found and attributed by its turn.
    let (q, _, _) = run(
        &dir,
        &[(
            "She hated it honestly but she nevr said so to my grandmothr",
            Some("Marta"),
        )],
        &["--match", "fuzzy"],
    );
    assert_eq!(q[0]["attribution"], "ok");
    assert_eq!(q[0]["found"], true);
}

#[test]
fn issue_40_speaker_names_as_people_write_them() {
    let dir = Dir::new("i40-names");
    let aliases = dir.write("aliases.csv", "alias,label\nGran,Marta\nDr. O,Mrs Okafor\n");
    let quotes = [
        ("She hated it, honestly", Some("Marta Kowalski")),
        ("She hated it, honestly", Some("MARTA")),
        ("The damp came back every winter", Some("Okafor")),
        ("The damp came back every winter", Some("Mrs. Okafor")),
        ("She hated it, honestly", Some("Gran")),
        ("The damp came back every winter", Some("Dr. O")),
        ("She hated it, honestly", Some("Okafor")),
        ("The damp came back every winter", Some("Marta")),
    ];
    let (q, _, _) = run(
        &dir,
        &quotes,
        &["--speaker-aliases", aliases.to_str().unwrap()],
    );
    for (k, r) in q.iter().enumerate() {
        let want = if k < 6 { "ok" } else { "wrong_speaker" };
        assert_eq!(r["attribution"], want, "quote {k}: {r}");
    }
    // Without the aliases, an alias is another speaker.
    let (q, _, _) = run(&dir, &quotes[4..6], &[]);
    assert_eq!(q[0]["attribution"], "wrong_speaker");
    // A bad aliases file names the file and the line.
    dir.write("bad.csv", "alias,label\nonly-one-name\n");
    dir.run(&[
        "evaluate",
        "q.json",
        "t.json",
        "--speaker-aliases",
        "bad.csv",
        "--out",
        "x",
    ])
    .expect_code(2)
    .expect_stderr(&["bad.csv", "line 2"]);
}

#[test]
fn issue_40_the_audit_report_shows_what_to_check() {
    let dir = Dir::new("i40-report");
    let (_, _, folder) = run(
        &dir,
        &[
            (
                "She hated it honestly but she nevr said so to my grandmothr",
                None,
            ),
            (
                "We grew leeks and potatoes behind the watch-maker shop every single year",
                None,
            ),
            ("She hated it ... she never said so", None),
            (
                "The council sold the roof to a mayor in the winter of 1999",
                None,
            ),
        ],
        &[],
    );
    let html = std::fs::read_to_string(folder.join("report.html")).unwrap();
    // The statistics fold away: the cards come first on the screen.
    assert!(html.contains("<details class=\"stats\">"));
    let Some(dom) = crate::util::chromium_dom(&folder.join("report.html"), "") else {
        return;
    };
    assert!(dom.contains("data-cards=\"4\""));
    // Differences as badges.
    assert!(dom.contains("class=\"diff\""), "difference badges");
    assert!(dom.contains(">elision<"));
    // A quote not found shows its closest passage.
    assert!(
        dom.contains("closest passage (similarity"),
        "closest passage"
    );
    // watch-maker against watchmaker's: the word is underlined.
    assert!(
        dom.contains("<mark class=\"d\">watchmaker"),
        "underlined: {}",
        &dom[dom.find("watchmaker").unwrap_or(0)..][..200.min(dom.len())]
    );
    // The first card stands before any chart or table of statistics.
    let first_card = dom.find("class=\"card\"").unwrap();
    let stats = dom.find("<details class=\"stats\"").unwrap();
    assert!(stats < first_card);
    assert!(!dom[stats..first_card].contains("<details class=\"stats\" open"));
}

#[test]
fn issue_40_fuzzy_search_modes_sign_themselves() {
    let dir = Dir::new("i40-search-modes");
    let quote = [(
        "She hated it honestly but she nevr said so to my grandmothr",
        None,
    )];
    let (q, summary, _) = run(&dir, &quote, &[]);
    assert!(summary["signature"]
        .as_str()
        .unwrap()
        .contains("search:lossless>=min(0.8,threshold)(word-pieces16,qgram3)"));
    let (qf, summary_fast, _) = run(&dir, &quote, &["--fuzzy-search", "fast"]);
    assert!(summary_fast["signature"]
        .as_str()
        .unwrap()
        .contains("search:word-pairs(budget)"));
    // Here both find the passage.
    assert_eq!(q[0]["similarity"], qf[0]["similarity"]);
    dir.run(&[
        "evaluate",
        "q.json",
        "t.json",
        "--fuzzy-search",
        "sometimes",
    ])
    .expect_code(2);
}
