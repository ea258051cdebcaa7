//! Anchors: the facts a correct answer must contain, whatever its wording.
//!
//! Embedding similarity rewards shared wording: "The capital of France is
//! London" is 0.84 similar to "The capital of France is Paris". So the
//! semantic methods (with `--anchors on`) also require every anchor of the
//! ground truth to appear in the answer:
//!
//! - **numbers**, in digits or words ("21", "twenty-one"), ordinals ("14th")
//!   and decimals, compared by value ("07" = "7", "3.50" = "3.5");
//! - **names**: capitalized words that are not stop words ("France",
//!   "Paris", "NASA"), matched up to case, diacritics and inflection, or by a
//!   WordNet synonym of the name ("USA" for "United States") that is not
//!   itself part of the ground truth (so "capital of France", a synonym of
//!   "Paris", cannot stand in for "Paris" in "The capital of France is
//!   Paris");
//! - **dates**: month names match their abbreviations and numeric dates
//!   ("1789-07-14", "14/07/1789") of that month; their day and year are
//!   numbers.
//!
//! A lone "one" is not an anchor (it is more often a pronoun than a number).

use crate::lexicon::Lexicon;
use crate::text::{self, stopwords};
use std::collections::HashSet;

/// What an anchor stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AnchorKind {
    /// A number (value in canonical digits).
    Number,
    /// A capitalized name.
    Name,
    /// A month of a date.
    Month,
}

/// One anchor of a ground truth.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Anchor {
    /// The anchor as it reads in the ground truth.
    pub text: String,
    /// Its kind.
    pub kind: AnchorKind,
    /// Normalized forms that satisfy it (phrases of normalized words).
    #[serde(skip)]
    forms: Vec<String>,
}

/// The anchors of one ground truth.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct Anchors {
    items: Vec<Anchor>,
}

/// Short description of the anchor rule, for signatures.
pub const ANCHORS_SIGNATURE: &str = "anchors:numbers+names+months,wordnet-synonyms";

const MONTHS: [(&str, &[&str]); 12] = [
    ("january", &["jan"]),
    ("february", &["feb"]),
    ("march", &["mar"]),
    ("april", &["apr"]),
    ("may", &[]),
    ("june", &["jun"]),
    ("july", &["jul"]),
    ("august", &["aug"]),
    ("september", &["sep", "sept"]),
    ("october", &["oct"]),
    ("november", &["nov"]),
    ("december", &["dec"]),
];

/// The month (1-12) a normalized word names, full or abbreviated.
fn month_of(word: &str) -> Option<usize> {
    MONTHS
        .iter()
        .position(|(full, abbr)| *full == word || abbr.contains(&word))
        .map(|i| i + 1)
}

/// A number token in canonical form: digits without leading zeros, decimals
/// without trailing zeros, ordinal suffixes dropped ("14th" -> "14").
fn canonical_number(token: &str) -> Option<String> {
    let digits = ["st", "nd", "rd", "th"]
        .iter()
        .find_map(|s| token.strip_suffix(s))
        .filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
        .unwrap_or(token);
    let (int, frac) = match digits.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (digits, None),
    };
    if int.is_empty()
        || !int.bytes().all(|b| b.is_ascii_digit())
        || !frac.is_none_or(|f| !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit()))
    {
        return None;
    }
    let int = int.trim_start_matches('0');
    let int = if int.is_empty() { "0" } else { int };
    Some(match frac.map(|f| f.trim_end_matches('0')) {
        Some(f) if !f.is_empty() => format!("{int}.{f}"),
        _ => int.to_string(),
    })
}

/// The raw words of a text: runs of alphanumeric characters, case kept.
fn raw_words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
}

/// The canonical numbers of a text (number words turned into digits).
fn numbers_in(text: &str) -> Vec<String> {
    text::canonical_tokens(text)
        .iter()
        .filter_map(|t| canonical_number(t))
        .collect()
}

/// A numeric date's three fields ("1789-07-14", "14/07/1789",
/// "07.14.1789"), as (first, second, third) with `iso` when the year comes
/// first.
struct NumericDate<'a> {
    parts: [&'a str; 3],
    iso: bool,
}

impl NumericDate<'_> {
    /// Parses a whitespace-separated chunk (surrounding punctuation allowed).
    fn parse(chunk: &str) -> Option<NumericDate<'_>> {
        let chunk = chunk.trim_matches(|c: char| !c.is_ascii_digit());
        let mut it = chunk.split(['-', '/', '.']);
        let parts = [it.next()?, it.next()?, it.next()?];
        let ok = it.next().is_none()
            && parts
                .iter()
                .all(|p| !p.is_empty() && p.len() <= 4 && p.bytes().all(|b| b.is_ascii_digit()));
        ok.then_some(NumericDate {
            iso: parts[0].len() == 4,
            parts,
        })
    }

    /// The months it may name: one for year-first and for day/month orders
    /// a day above 12 settles; both otherwise.
    fn months(&self) -> Vec<usize> {
        let n = |p: &str| p.parse::<usize>().unwrap_or(0);
        let candidates = if self.iso {
            vec![n(self.parts[1])]
        } else {
            vec![n(self.parts[0]), n(self.parts[1])]
        };
        candidates
            .into_iter()
            .filter(|m| (1..=12).contains(m))
            .collect()
    }

    /// "14 July 1789" when the month is certain, else the three numbers
    /// apart ("07 04 1789"), so numbers and months read as in words.
    fn in_words(&self) -> String {
        let months = self.months();
        if months.is_empty() {
            return self.parts.join(" ");
        }
        let (day, year) = if self.iso {
            (self.parts[2], self.parts[0])
        } else if months.len() == 1 && months[0] == self.parts[1].parse().unwrap_or(0) {
            (self.parts[0], self.parts[2])
        } else if months.len() == 1 {
            (self.parts[1], self.parts[2])
        } else {
            return self.parts.join(" ");
        };
        let (name, _) = MONTHS[months[0] - 1];
        let mut month = name.to_string();
        month[..1].make_ascii_uppercase();
        format!("{day} {month} {year}")
    }
}

/// Months named by numeric dates in `text`.
fn months_of_numeric_dates(text: &str) -> Vec<usize> {
    text.split_whitespace()
        .filter_map(NumericDate::parse)
        .flat_map(|d| d.months())
        .collect()
}

/// `text` with its numeric dates written out ("on 1789-07-14." -> "on 14
/// July 1789.").
fn dates_in_words(text: &str) -> std::borrow::Cow<'_, str> {
    if !text
        .split_whitespace()
        .any(|c| NumericDate::parse(c).is_some())
    {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    let mut rest = text;
    while !rest.is_empty() {
        let ws = rest.len() - rest.trim_start().len();
        out.push_str(&rest[..ws]);
        rest = &rest[ws..];
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let chunk = &rest[..end];
        match NumericDate::parse(chunk) {
            Some(d) => {
                let core = chunk.trim_matches(|c: char| !c.is_ascii_digit());
                let at = chunk.find(core).unwrap_or(0);
                out.push_str(&chunk[..at]);
                out.push_str(&d.in_words());
                out.push_str(&chunk[at + core.len()..]);
            }
            None => out.push_str(chunk),
        }
        rest = &rest[end..];
    }
    std::borrow::Cow::Owned(out)
}

impl Anchors {
    /// The anchors of a ground truth.
    pub fn of(ground_truth: &str, lexicon: &Lexicon) -> Anchors {
        let ground_truth = &*dates_in_words(ground_truth);
        let gt_norm = format!(" {} ", text::normalize(ground_truth));
        let mut items: Vec<Anchor> = Vec::new();
        let mut seen: HashSet<String> = HashSet::new();

        let has_digit_one =
            text::words(&gt_norm).any(|w| canonical_number(w).as_deref() == Some("1"));
        for value in numbers_in(ground_truth) {
            if value == "1" && !has_digit_one {
                continue;
            }
            if seen.insert(format!("#{value}")) {
                items.push(Anchor {
                    text: value.clone(),
                    kind: AnchorKind::Number,
                    forms: vec![value],
                });
            }
        }

        for word in raw_words(ground_truth) {
            if !word.chars().next().is_some_and(char::is_uppercase) {
                continue;
            }
            let norm = text::normalize(word);
            if norm.is_empty()
                || norm.contains(' ')
                || stopwords::is_stop_word(&norm)
                || norm == "yes"
                || canonical_number(&norm).is_some()
                || !seen.insert(norm.clone())
            {
                continue;
            }
            if let Some(m) = month_of(&norm) {
                let (full, abbr) = MONTHS[m - 1];
                let mut forms = vec![full.to_string()];
                forms.extend(abbr.iter().map(|a| a.to_string()));
                items.push(Anchor {
                    text: word.to_string(),
                    kind: AnchorKind::Month,
                    forms,
                });
                continue;
            }
            let mut forms = vec![norm.clone()];
            for syn in lexicon.enrich(word) {
                let syn = text::normalize(&syn);
                // A synonym already in the ground truth is context, not
                // evidence for this anchor.
                if !syn.is_empty()
                    && !gt_norm.contains(&format!(" {syn} "))
                    && !forms.contains(&syn)
                {
                    forms.push(syn);
                }
            }
            items.push(Anchor {
                text: word.to_string(),
                kind: AnchorKind::Name,
                forms,
            });
        }
        Anchors { items }
    }

    /// Drops the anchors the question already states: "Bastille" in "When
    /// was the Bastille stormed?" is context, not something the answer must
    /// supply. Names and months are matched up to inflection, numbers by
    /// value.
    pub fn excluding_context(mut self, question: &str, lexicon: &Lexicon) -> Anchors {
        if question.trim().is_empty() {
            return self;
        }
        let norm = text::normalize(question);
        let numbers: HashSet<String> = numbers_in(question).into_iter().collect();
        let mut words: HashSet<String> = HashSet::new();
        for w in text::words(&norm) {
            words.extend(lexicon.lemma_forms(w));
        }
        self.items.retain(|a| match a.kind {
            AnchorKind::Number => !numbers.contains(&a.forms[0]),
            AnchorKind::Month | AnchorKind::Name => !lexicon
                .lemma_forms(&a.forms[0])
                .iter()
                .any(|f| words.contains(f)),
        });
        self
    }

    /// The anchors, numbers first, then names and months in text order.
    pub fn iter(&self) -> impl Iterator<Item = &Anchor> {
        self.items.iter()
    }

    /// Number of anchors.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// True when the ground truth has no anchor.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// `Ok` when `answer` contains every anchor, else the anchors it lacks
    /// (as they read in the ground truth).
    pub fn satisfied_by(&self, answer: &str, lexicon: &Lexicon) -> Result<(), Vec<String>> {
        if self.items.is_empty() {
            return Ok(());
        }
        let date_months = months_of_numeric_dates(answer);
        let answer = &*dates_in_words(answer);
        let norm = text::normalize(answer);
        let padded = format!(" {norm} ");
        let numbers: HashSet<String> = numbers_in(answer).into_iter().collect();
        let mut words: HashSet<String> = HashSet::new();
        for w in text::words(&norm) {
            words.extend(lexicon.lemma_forms(w));
        }
        let missing: Vec<String> = self
            .items
            .iter()
            .filter(|a| {
                let ok = match a.kind {
                    AnchorKind::Number => a.forms.iter().any(|f| numbers.contains(f)),
                    AnchorKind::Month => {
                        a.forms.iter().any(|f| words.contains(f))
                            || month_of(&a.forms[0]).is_some_and(|m| date_months.contains(&m))
                    }
                    AnchorKind::Name => a.forms.iter().any(|f| {
                        if f.contains(' ') {
                            padded.contains(&format!(" {f} "))
                        } else {
                            words.contains(f)
                                || lexicon.lemma_forms(f).iter().any(|l| words.contains(l))
                        }
                    }),
                };
                !ok
            })
            .map(|a| a.text.clone())
            .collect();
        if missing.is_empty() {
            Ok(())
        } else {
            Err(missing)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lex() -> &'static Lexicon {
        static LEX: std::sync::OnceLock<Lexicon> = std::sync::OnceLock::new();
        LEX.get_or_init(|| Lexicon::embedded().unwrap())
    }

    fn texts(gt: &str) -> Vec<String> {
        Anchors::of(gt, lex())
            .iter()
            .map(|a| a.text.clone())
            .collect()
    }

    fn check(gt: &str, answer: &str) -> Result<(), Vec<String>> {
        Anchors::of(gt, lex()).satisfied_by(answer, lex())
    }

    #[test]
    fn extracts_names_numbers_and_months() {
        assert_eq!(texts("The capital of France is Paris"), ["France", "Paris"]);
        assert_eq!(
            texts("There were twenty-one of them in 2019."),
            ["21", "2019"]
        );
        assert_eq!(texts("It ended on 14 July 1789"), ["14", "1789", "July"]);
        assert_eq!(texts("It was I, and yes, the one"), Vec::<String>::new());
        assert_eq!(texts("one in 1 million"), ["1", "1000000"]);
        assert!(texts("no names here").is_empty());
    }

    #[test]
    fn capital_of_france() {
        let gt = "The capital of France is Paris";
        assert!(check(gt, "Paris is France's capital city").is_ok());
        assert!(check(gt, "the capital of france is paris").is_ok());
        assert_eq!(
            check(gt, "The capital of France is London"),
            Err(vec!["Paris".into()])
        );
        assert_eq!(
            check(gt, "The capital of France is Lyon"),
            Err(vec!["Paris".into()])
        );
        assert_eq!(
            check(gt, "I don't know"),
            Err(vec!["France".into(), "Paris".into()])
        );
    }

    #[test]
    fn the_question_is_context() {
        let a = Anchors::of("The Bastille was stormed on 14 July 1789", lex())
            .excluding_context("When was the Bastille stormed?", lex());
        let texts: Vec<&str> = a.iter().map(|a| a.text.as_str()).collect();
        assert_eq!(texts, ["14", "1789", "July"]);
        let a = Anchors::of("21 participants took part in 2019", lex())
            .excluding_context("How many participants took part in the 2019 study?", lex());
        assert_eq!(
            a.iter().map(|a| a.text.as_str()).collect::<Vec<_>>(),
            ["21"]
        );
        let a = Anchors::of("Paris", lex()).excluding_context("", lex());
        assert_eq!(a.len(), 1);
    }

    #[test]
    fn numbers_in_any_form() {
        assert!(check("21 participants", "twenty-one people took part").is_ok());
        assert!(check("twenty-one participants", "21 people").is_ok());
        assert!(check("It cost 3.50 euros", "3.5 euros").is_ok());
        assert!(check("1,000 people", "one thousand people").is_ok());
        assert!(check("the 14th", "on the 14 of the month").is_ok());
        assert_eq!(
            check("21 participants", "22 participants"),
            Err(vec!["21".into()])
        );
    }

    #[test]
    fn dates_and_months() {
        let gt = "14 July 1789";
        assert!(check(gt, "on July 14th, 1789").is_ok());
        assert!(check(gt, "on 1789-07-14").is_ok());
        assert!(check(gt, "14 Jul. 1789").is_ok());
        assert!(check(gt, "on 14/07/1789").is_ok());
        assert_eq!(check(gt, "on 1789-08-14"), Err(vec!["July".into()]));
        // Numeric dates in the ground truth read as the same date in words.
        assert_eq!(texts("stormed on 1789-07-14."), ["14", "1789", "July"]);
        assert!(check("on 1789-07-14", "on 14 July 1789").is_ok());
        assert!(check("on 14.07.1789", "July 14, 1789").is_ok());
        assert!(check("14.07.1789", "1789-07-14").is_ok());
        assert_eq!(
            check("on 14.07.1789", "July 14, 1790"),
            Err(vec!["1789".into()])
        );
        // An order a day above 12 cannot settle keeps the three numbers.
        assert_eq!(texts("07/04/1789"), ["7", "4", "1789"]);
        assert!(check("07/04/1789", "7 4 1789").is_ok());
        assert_eq!(
            dates_in_words("(on 07/14/1789), then"),
            "(on 14 July 1789), then"
        );
        assert_eq!(dates_in_words("no dates 3.5 here"), "no dates 3.5 here");
        assert_eq!(dates_in_words("2019-13-45 99/99/99"), "2019 13 45 99 99 99");
    }

    #[test]
    fn diacritics_inflection_and_synonyms() {
        assert!(check("São Paulo", "sao paulo").is_ok());
        assert!(check("Potatoes", "a potato").is_ok());
        assert!(check("Potatoes", "mostly spuds").is_ok());
        assert!(check("The USA", "the United States").is_ok());
    }
}
