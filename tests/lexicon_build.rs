//! The compact lexicon: built from WordNet dict files by the tool itself,
//! and the shipped one is what the tool builds from WordNet 3.0.

use crate::util::{fixture, Dir};
use corpus_eval::lexicon::{build_compact, Lexicon};
use std::io::Read;
use std::path::Path;

#[test]
fn builds_from_a_dict_folder() {
    let text = build_compact(&fixture("lexicon/dict")).expect("fixture dict builds");
    assert!(text.starts_with("corpus-eval-lexicon 1\nsource\tWordNet 3.0"));
    let lex = Lexicon::from_compact(text, "fixture", "0").unwrap();
    assert!(lex.synonyms("automobile").contains(&"car".to_string()));
    assert!(lex.morphy("geese", 'n').contains(&"goose".to_string()));
    assert!(lex.morphy("ran", 'v').contains(&"run".to_string()));
}

#[test]
fn build_lexicon_command_writes_gzip() {
    let d = Dir::new("build-lexicon");
    let dict = fixture("lexicon/dict");
    d.run(&[
        "build-lexicon".as_ref(),
        dict.as_os_str(),
        "lex.txt.gz".as_ref(),
    ])
    .expect_code(0);
    let gz = std::fs::read(d.path().join("lex.txt.gz")).unwrap();
    let mut text = String::new();
    flate2::read::GzDecoder::new(&gz[..])
        .read_to_string(&mut text)
        .unwrap();
    assert_eq!(text, build_compact(&dict).unwrap());
    d.run(&["build-lexicon", "nowhere", "x.gz"])
        .expect_code(2)
        .expect_stderr(&["nowhere"]);
    assert!(!d.path().join("x.gz").exists());
}

#[test]
fn malformed_dict_is_an_error_with_file_and_line() {
    let d = Dir::new("bad-dict");
    for f in [
        "data.noun",
        "data.verb",
        "data.adj",
        "data.adv",
        "index.noun",
        "index.verb",
        "index.adj",
        "index.adv",
        "noun.exc",
        "verb.exc",
        "adj.exc",
        "adv.exc",
    ] {
        let src = fixture("lexicon/dict").join(f);
        std::fs::copy(src, d.path().join(f)).unwrap();
    }
    std::fs::write(
        d.path().join("data.verb"),
        "00000001 29 v zz oops 0 000 | gloss\n",
    )
    .unwrap();
    let err = build_compact(d.path()).unwrap_err().to_string();
    assert!(err.contains("data.verb:1"), "{err}");
}

/// The shipped lexicon is exactly what `build-lexicon` makes from Debian's
/// wordnet-base (WordNet 3.0). `.ci/run` installs it and sets
/// CORPUS_EVAL_REQUIRE_WORDNET=1 so this cannot pass by being skipped there.
#[test]
fn shipped_lexicon_rebuilds_from_wordnet_3_0() {
    let dir =
        std::env::var("CORPUS_EVAL_WORDNET_DIR").unwrap_or_else(|_| "/usr/share/wordnet".into());
    let dir = Path::new(&dir);
    if !dir.join("data.noun").exists() {
        assert!(
            std::env::var_os("CORPUS_EVAL_REQUIRE_WORDNET").is_none(),
            "WordNet dict files required but missing at {} (apt-get install wordnet-base)",
            dir.display()
        );
        eprintln!(
            "NOTE: {} missing; shipped-lexicon rebuild check not run (install wordnet-base)",
            dir.display()
        );
        return;
    }
    let built = build_compact(dir).expect("WordNet 3.0 builds");
    let gz = std::fs::read(crate::util::repo().join("datasets/wordnet-lexicon.txt.gz")).unwrap();
    let mut shipped = String::new();
    flate2::read::GzDecoder::new(&gz[..])
        .read_to_string(&mut shipped)
        .unwrap();
    assert!(
        shipped == corpus_eval::lexicon::EMBEDDED_LEXICON,
        "the binary embeds the shipped lexicon"
    );
    assert!(
        built == shipped,
        "datasets/wordnet-lexicon.txt.gz differs from a rebuild of {}",
        dir.display()
    );
    let lex = Lexicon::embedded().unwrap();
    assert_eq!(lex.lemma_count(), 147_306);
    assert_eq!(lex.synset_count(), 117_659);
}
