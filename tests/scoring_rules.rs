//! Every question-type rule, through the library.

use corpus_eval::lexicon::Lexicon;
use corpus_eval::scoring::{score_answer, QuestionType, ScoreError};
use serde_json::{json, Value};
use std::sync::OnceLock;

fn lex() -> &'static Lexicon {
    static LEX: OnceLock<Lexicon> = OnceLock::new();
    LEX.get_or_init(|| Lexicon::embedded().expect("embedded lexicon"))
}

fn score(t: &str, metric: Value, answer: &str) -> f64 {
    score_answer(t, &metric, answer, lex())
        .unwrap_or_else(|e| panic!("{t} {metric} {answer:?}: {e}"))
}

#[track_caller]
fn close(got: f64, want: f64) {
    assert!((got - want).abs() < 1e-9, "got {got}, want {want}");
}

#[test]
fn type_names_match_loosely() {
    for (name, t) in [
        ("Yes/No", QuestionType::YesNo),
        ("yes_no", QuestionType::YesNo),
        ("YES NO", QuestionType::YesNo),
        ("Yes/No with Rationale", QuestionType::YesNoRationale),
        ("yes_no_with_rationale", QuestionType::YesNoRationale),
        ("ListOne", QuestionType::ListOne),
        ("list one", QuestionType::ListOne),
        ("list-many", QuestionType::ListMany),
        ("PICK_ONE", QuestionType::PickOne),
        ("Pick Many", QuestionType::PickMany),
    ] {
        assert_eq!(QuestionType::parse(name), Ok(t), "{name}");
    }
    assert!(matches!(
        QuestionType::parse("Essay"),
        Err(ScoreError::UnknownType(_))
    ));
}

#[test]
fn yes_no_polarity() {
    for a in [
        "yes",
        "Yes.",
        "YES!",
        "y",
        "Yeah, sure",
        "yep",
        "True",
        "correct, it does",
        "Affirmative",
    ] {
        close(score("Yes/No", json!("yes"), a), 1.0);
        close(score("Yes/No", json!("no"), a), 0.0);
    }
    for a in [
        "no",
        "No, never.",
        "n",
        "Nope",
        "false",
        "Incorrect",
        "never",
    ] {
        close(score("Yes/No", json!("no"), a), 1.0);
        close(score("Yes/No", json!("yes"), a), 0.0);
    }
    for a in ["", "maybe", "I think yes", "It depends", "Not sure"] {
        close(score("Yes/No", json!("yes"), a), 0.0);
        close(score("Yes/No", json!("no"), a), 0.0);
    }
    close(score("Yes/No", json!("\"No\""), "no"), 1.0);
    close(score("yes no", json!("Yes"), "yes"), 1.0);
}

#[test]
fn yes_no_with_rationale() {
    let m = json!({"expected": "yes", "rationale": ["cost", "rules"], "rationale_weight": 0.4});
    close(
        score(
            "Yes/No with Rationale",
            m.clone(),
            "Yes, because of the cost and the rules.",
        ),
        1.0,
    );
    close(
        score(
            "Yes/No with Rationale",
            m.clone(),
            "Yes, the costs were high.",
        ),
        0.6 + 0.4 * 0.5,
    );
    close(score("Yes/No with Rationale", m.clone(), "Yes."), 0.6);
    close(
        score(
            "Yes/No with Rationale",
            m.clone(),
            "No, because of the cost and the rules.",
        ),
        0.0,
    );
    close(
        score("Yes/No with Rationale", m.clone(), "Cost and rules, yes."),
        0.0,
    );
    // Enrichment: "regulation" is a WordNet synonym of "rule".
    close(
        score("Yes/No with Rationale", m, "Yes: regulations."),
        0.6 + 0.2,
    );
    // Default weight 0.5; no keywords: at least three words after the polarity word.
    let none = json!({"expected": "no"});
    close(
        score(
            "Yes/No with Rationale",
            none.clone(),
            "No, it was far too expensive.",
        ),
        1.0,
    );
    close(
        score("Yes/No with Rationale", none.clone(), "No, too expensive."),
        0.5,
    );
    close(
        score(
            "Yes/No with Rationale",
            json!("{\"expected\": \"no\", \"rationale\": []}"),
            "No.",
        ),
        0.5,
    );
    assert!(score_answer(
        "Yes/No with Rationale",
        &json!({"rationale": ["x"]}),
        "yes",
        lex()
    )
    .is_err());
    assert!(score_answer(
        "Yes/No with Rationale",
        &json!({"expected": "yes", "rationale_weight": -0.1}),
        "yes",
        lex()
    )
    .is_err());
}

#[test]
fn list_one_uses_weights_and_lowest_when_several() {
    let m = json!({"values": ["potato", "kale", "leek"], "weights": [1.0, 0.5, 0.3]});
    close(score("ListOne", m.clone(), "Mostly potatoes."), 1.0);
    close(score("ListOne", m.clone(), "Kale!"), 0.5);
    close(score("ListOne", m.clone(), "potatoes and kale"), 0.5);
    close(score("ListOne", m.clone(), "potatoes, kale and leeks"), 0.3);
    close(score("ListOne", m.clone(), "tomatoes"), 0.0);
    close(score("ListOne", m.clone(), ""), 0.0);
    // Whole words only: "kalendar" is not "kale".
    close(score("ListOne", m.clone(), "the kalendar"), 0.0);
    // The map form and the string-held form mean the same.
    close(
        score("ListOne", json!("{\"potato\": 1.0, \"kale\": 0.5}"), "KALE"),
        0.5,
    );
}

#[test]
fn list_many_sums_and_clamps() {
    let m = json!({"potato": 0.4, "leek": 0.4, "kale": 0.4});
    close(score("ListMany", m.clone(), "potatoes"), 0.4);
    close(score("ListMany", m.clone(), "potatoes and leeks"), 0.8);
    close(score("ListMany", m.clone(), "potatoes, leeks, kale"), 1.0);
    close(score("ListMany", m.clone(), "potato potato potato"), 0.4);
    close(score("ListMany", m, "nothing here"), 0.0);
}

#[test]
fn synonyms_and_lemmas_match() {
    let m = json!({"values": ["automobile"], "weights": [1]});
    close(score("ListOne", m.clone(), "They came by car."), 1.0);
    close(score("ListOne", m.clone(), "Two cars were parked."), 1.0);
    close(score("ListOne", m, "A motorcar"), 1.0);
    let m = json!({"values": ["potato"], "weights": [1]});
    close(score("ListOne", m.clone(), "spuds"), 1.0);
    close(score("ListOne", m, "white potatoes"), 1.0);
    let m = json!({"values": ["goose"], "weights": [1]});
    close(score("ListOne", m, "three geese"), 1.0);
    let m = json!({"values": ["run"], "weights": [1]});
    close(score("ListOne", m, "she ran"), 1.0);
    // Multi-word lemmas and values.
    let m = json!({"values": ["climate change"], "weights": [1]});
    close(
        score("ListOne", m.clone(), "a global climate change issue"),
        1.0,
    );
    close(score("ListOne", m, "the climate is changing"), 0.0);
}

#[test]
fn numbers_in_words_and_digits() {
    for (value, answer) in [
        ("5", "five people"),
        ("five", "5 people"),
        ("21", "twenty-one votes"),
        ("twenty-one", "21 votes"),
        ("105", "one hundred and five"),
        ("105", "one hundred five"),
        ("one hundred and five", "105"),
        ("1000", "1,000 signatures"),
        ("1,000", "one thousand"),
        ("1,000", "1000"),
        ("2024", "two thousand and twenty-four"),
    ] {
        let m = json!({"values": [value], "weights": [1]});
        close(score("ListOne", m, answer), 1.0);
    }
    let m = json!({"values": ["21"], "weights": [1]});
    close(score("ListOne", m.clone(), "twenty votes"), 0.0);
    close(score("ListOne", m, "210 votes"), 0.0);
}

#[test]
fn diacritics_and_unicode() {
    let m = json!({"values": ["Saint-Étienne", "Århus"], "weights": [1, 0.5]});
    close(score("ListOne", m.clone(), "in saint etienne"), 1.0);
    close(score("ListOne", m.clone(), "SAINT-ÉTIENNE"), 1.0);
    close(score("ListOne", m.clone(), "Arhus"), 0.5);
    let m = json!({"values": ["cafe"], "weights": [1]});
    close(score("ListOne", m, "a café ﬁne"), 1.0);
    close(
        score(
            "PickOne",
            json!({"Crème brûlée": 1, "Tart": 0}),
            "creme brulee",
        ),
        1.0,
    );
}

#[test]
fn pick_one_equality_enrichment_and_jaro_winkler() {
    let m = json!({"values": ["every second Thursday", "every Saturday", "once a month"], "weights": [1, 0.2, 0]});
    close(score("PickOne", m.clone(), "Every second Thursday."), 1.0);
    close(score("PickOne", m.clone(), "every saturday"), 0.2);
    // Jaro-Winkler >= 0.9 against the closest option.
    close(score("PickOne", m.clone(), "every secnd thursday"), 1.0);
    close(score("PickOne", m.clone(), "sometimes"), 0.0);
    // Enrichment: "auto" equals an enrichment of "automobile".
    close(
        score("PickOne", json!({"automobile": 1, "bicycle": 0.5}), "Auto"),
        1.0,
    );
    close(
        score(
            "PickOne",
            json!({"automobile": 1, "bicycle": 0.5}),
            "a bicycle",
        ),
        0.5,
    );
    close(score("PickOne", json!({"5": 1, "6": 0}), "five"), 1.0);
}

#[test]
fn pick_many_splits_answers() {
    let m = json!({"values": ["fair prices", "help for young people", "more quotas"], "weights": [0.5, 0.5, 0.3]});
    close(
        score(
            "PickMany",
            m.clone(),
            "Fair prices and help for young people",
        ),
        1.0,
    );
    close(
        score("PickMany", m.clone(), "fair prices; more quotas"),
        0.8,
    );
    close(
        score(
            "PickMany",
            m.clone(),
            "fair prices\nmore quotas\nfair prices",
        ),
        0.8,
    );
    close(
        score("PickMany", m.clone(), "[\"fair prices\", \"more quotas\"]"),
        0.8,
    );
    close(
        score(
            "PickMany",
            m.clone(),
            "fair prices, help for young people, more quotas",
        ),
        1.0,
    );
    close(score("PickMany", m.clone(), "nothing"), 0.0);
    // An option containing " and " is kept whole.
    let m = json!({"salt and pepper": 0.6, "oil": 0.4});
    close(score("PickMany", m.clone(), "salt and pepper, oil"), 1.0);
    close(score("PickMany", m, "oil AND salt and pepper"), 0.4);
    // PickOne does not split.
    close(score("PickOne", json!({"a b": 1.0, "c": 0.5}), "a b"), 1.0);
}

#[test]
fn bad_metrics_are_errors_not_scores() {
    for (t, m) in [
        ("ListOne", json!("not json")),
        ("ListOne", json!({"values": ["a", "b"], "weights": [1]})),
        ("ListMany", json!({"values": ["a"]})),
        ("ListMany", json!({"a": "heavy"})),
        ("PickOne", json!([1, 2])),
        ("PickMany", json!({})),
        ("Yes/No", json!("perhaps")),
        ("Yes/No", json!({"values": ["a"], "weights": [1]})),
        ("ListOne", json!({"a": -0.5})),
    ] {
        assert!(
            matches!(score_answer(t, &m, "a", lex()), Err(ScoreError::Metric(_))),
            "{t} {m}"
        );
    }
    assert!(matches!(
        score_answer("Essay", &json!("yes"), "yes", lex()),
        Err(ScoreError::UnknownType(_))
    ));
}
