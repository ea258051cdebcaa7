//! Subject-verb-object claims by a rule-based pass over each sentence (no
//! parser): the verb is the first copula, auxiliary + participle, or
//! WordNet verb form that follows a content word; the subject is the
//! nearest content word before it, the object the first content word
//! after it. Sentences with a hedge (may, might, could, possibly,
//! reportedly, ...) make no claim.

use super::text::{words, Word};
use crate::lexicon::Lexicon;
use crate::text::stopwords::is_stop_word;
use std::ops::Range;

/// A claim: subject, verb lemma and object, with the byte range from the
/// subject to the object.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Claim {
    /// The subject word (lower case).
    pub subject: String,
    /// The verb's lemma ("be", "found", "employ").
    pub verb: String,
    /// The object word (lower case).
    pub object: String,
    /// Byte range in the text, subject to object.
    pub range: Range<usize>,
}

/// Words that make a sentence hedged.
pub(crate) const HEDGES: [&str; 16] = [
    "may",
    "might",
    "could",
    "possibly",
    "reportedly",
    "perhaps",
    "allegedly",
    "probably",
    "likely",
    "apparently",
    "seemingly",
    "supposedly",
    "maybe",
    "seems",
    "seem",
    "suggests",
];

const BE: [&str; 8] = ["is", "are", "was", "were", "be", "been", "being", "am"];
const HAVE: [&str; 4] = ["has", "have", "had", "having"];
const AUX: [&str; 9] = [
    "do", "does", "did", "will", "would", "shall", "should", "can", "must",
];
const NOT_BEFORE_VERB: [&str; 22] = [
    "the", "a", "an", "of", "to", "in", "for", "with", "on", "at", "by", "from", "this", "that",
    "these", "those", "my", "your", "his", "her", "its", "our",
];

/// True when `word` is a hedge, except "may" before a number (the month).
fn is_hedge(words: &[Word], i: usize) -> bool {
    let w = words[i].as_str();
    if w == "may" {
        // The month: "May 5", "in May", "since May", "early May".
        let before_number = words
            .get(i + 1)
            .is_some_and(|n| n.text.chars().all(|c| c.is_ascii_digit()));
        let after_preposition = i.checked_sub(1).is_some_and(|p| {
            matches!(
                words[p].as_str(),
                "in" | "of"
                    | "since"
                    | "during"
                    | "until"
                    | "by"
                    | "early"
                    | "late"
                    | "mid"
                    | "from"
            )
        });
        return !(before_number || after_preposition);
    }
    HEDGES.contains(&w)
}

fn is_content(w: &str) -> bool {
    !is_stop_word(w)
        && !BE.contains(&w)
        && !HAVE.contains(&w)
        && !AUX.contains(&w)
        && w.chars().any(char::is_alphanumeric)
}

/// The verb lemma of `w` when WordNet knows it as a verb form, shortest
/// first.
pub(crate) fn verb_lemma(lexicon: &Lexicon, w: &str) -> Option<String> {
    if BE.contains(&w) {
        return Some("be".into());
    }
    if HAVE.contains(&w) {
        return Some("have".into());
    }
    lexicon.morphy(w, 'v').into_iter().min_by_key(|l| l.len())
}

/// An inflected verb form: -ed/-en/-ing, or a form whose lemma differs
/// (irregular past "built", third person "employs").
fn is_inflected_verb(lexicon: &Lexicon, w: &str) -> Option<String> {
    let lemma = verb_lemma(lexicon, w)?;
    let inflected = lemma != w || w.ends_with("ed") || w.ends_with("en") || w.ends_with("ing");
    inflected.then_some(lemma)
}

const PREPOSITIONS: [&str; 18] = [
    "on", "at", "in", "by", "for", "to", "from", "with", "about", "into", "of", "over", "under",
    "after", "before", "during", "through", "near",
];
const CLAUSE_BREAKS: [&str; 7] = ["and", "but", "or", "which", "that", "who", "while"];

/// True for digits and number words (numbers are anchors of their own).
fn is_number(w: &str) -> bool {
    w.chars().all(|c| c.is_ascii_digit()) || crate::text::numbers::parse_words(&[w]).is_some()
}

/// A noun-ish word of a claim: a content word with a letter, not a number,
/// not an -ly adverb, and a noun to WordNet or unknown to it (names).
fn is_claim_word(lexicon: &Lexicon, w: &str) -> bool {
    is_content(w)
        && w.chars().any(char::is_alphabetic)
        && !is_number(w)
        && !w.ends_with("ly")
        && (!lexicon.morphy(w, 'n').is_empty()
            || ['v', 'a', 'r']
                .iter()
                .all(|&p| lexicon.morphy(w, p).is_empty()))
}

/// The claim of one sentence (`words` are its words, ranges into `text`),
/// if it makes one.
fn sentence_claim(lexicon: &Lexicon, text: &str, words: &[Word]) -> Option<Claim> {
    if (0..words.len()).any(|i| is_hedge(words, i)) {
        return None;
    }
    let mut verb: Option<(usize, String)> = None;
    for i in 1..words.len() {
        let w = words[i].as_str();
        let prev = words[i - 1].as_str();
        if BE.contains(&w) || HAVE.contains(&w) || AUX.contains(&w) {
            // An auxiliary: the main verb is the participle after it (past
            // "not" and -ly adverbs), else a copula/have is the verb.
            let mut j = i + 1;
            while j < words.len() && (words[j].text == "not" || words[j].text.ends_with("ly")) {
                j += 1;
            }
            if let Some(next) = words.get(j) {
                if let Some(lemma) = is_inflected_verb(lexicon, &next.text) {
                    verb = Some((j, lemma));
                    break;
                }
            }
            if BE.contains(&w) || HAVE.contains(&w) {
                verb = Some((i, verb_lemma(lexicon, w)?));
                break;
            }
            continue;
        }
        if !is_content(w) || NOT_BEFORE_VERB.contains(&prev) {
            continue;
        }
        if let Some(lemma) = is_inflected_verb(lexicon, w) {
            verb = Some((i, lemma));
            break;
        }
        // A base form after a plural subject: "Plants produce oxygen".
        let plural_subject = prev.ends_with('s') && !prev.ends_with("ss") && is_content(prev);
        if plural_subject {
            if let Some(lemma) = verb_lemma(lexicon, w) {
                verb = Some((i, lemma));
                break;
            }
        }
    }
    let (v, lemma) = verb?;
    // The subject: the nearest claim word before the verb, within the
    // clause (no conjunction, relative pronoun or comma in between).
    let mut subject = None;
    for i in (0..v).rev() {
        let w = words[i].as_str();
        let gap = &text[words[i].range.end..words[i + 1].range.start];
        if CLAUSE_BREAKS.contains(&w) || gap.contains([',', ';', ':']) {
            break;
        }
        if is_claim_word(lexicon, w) {
            subject = Some(i);
            break;
        }
    }
    let subject = subject?;
    // The object: the head (last word) of the first run of claim words after
    // the verb, reached past determiners and numbers but not prepositions.
    let mut i = v + 1;
    while i < words.len() && !is_claim_word(lexicon, &words[i].text) {
        let w = words[i].as_str();
        if PREPOSITIONS.contains(&w)
            || CLAUSE_BREAKS.contains(&w)
            || is_inflected_verb(lexicon, w).is_some_and(|_| BE.contains(&w))
        {
            return None;
        }
        i += 1;
    }
    if i >= words.len() {
        return None;
    }
    let mut object = i;
    while object + 1 < words.len()
        && is_claim_word(lexicon, &words[object + 1].text)
        && !text[words[object].range.end..words[object + 1].range.start].contains([',', ';', ':'])
    {
        object += 1;
    }
    Some(Claim {
        subject: words[subject].text.to_string(),
        verb: lemma,
        object: words[object].text.to_string(),
        range: words[subject].range.start..words[object].range.end,
    })
}

/// The claims of `text`, one per sentence at most (sentences as
/// [`super::text::sentences`] splits them).
pub(crate) fn claims(lexicon: &Lexicon, text: &str) -> Vec<Claim> {
    super::text::sentences(text)
        .into_iter()
        .filter_map(|r| {
            let ws: Vec<Word> = words(&text[r.clone()])
                .into_iter()
                .map(|mut w| {
                    w.range = w.range.start + r.start..w.range.end + r.start;
                    w
                })
                .collect();
            sentence_claim(lexicon, text, &ws)
        })
        .collect()
}

/// True when `token` is a form of the verb `lemma`.
pub(crate) fn is_verb_form(lexicon: &Lexicon, lemma: &str, token: &str) -> bool {
    match lemma {
        "be" => BE.contains(&token) || token.ends_with("'s") || token.ends_with("'re"),
        "have" => HAVE.contains(&token),
        _ => token == lemma || lexicon.morphy(token, 'v').iter().any(|l| l == lemma),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn svo(text: &str) -> Vec<(String, String, String)> {
        let lex = Lexicon::embedded().unwrap();
        claims(&lex, text)
            .into_iter()
            .map(|c| (c.subject, c.verb, c.object))
            .collect()
    }

    fn t(s: &str, v: &str, o: &str) -> (String, String, String) {
        (s.into(), v.into(), o.into())
    }

    #[test]
    fn claims_from_simple_sentences() {
        assert_eq!(
            svo("Paris is the capital of France."),
            [t("paris", "be", "capital")]
        );
        assert_eq!(
            svo("The company employs engineers."),
            [t("company", "employ", "engineers")]
        );
        assert_eq!(
            svo("Marie Curie discovered radium in Paris."),
            [t("curie", "discover", "radium")]
        );
        assert_eq!(
            svo("Bananas are a good source of potassium."),
            [t("bananas", "be", "source")]
        );
        assert_eq!(
            svo("The firm hired 500 new engineers."),
            [t("firm", "hire", "engineers")]
        );
        // Prepositional complements and passives with "by" make no claim
        // (no direct object), nor does a subject across a conjunction.
        assert!(svo("The cat sat on the mat.").is_empty());
        assert!(svo("The bridge was built by Roman engineers.").is_empty());
        assert!(svo("The renovation cost $5 million and took 18 months.").is_empty());
        // Base forms after a plural subject.
        assert_eq!(
            svo("Plants produce oxygen."),
            [t("plants", "produce", "oxygen")]
        );
        assert_eq!(svo("Bees make honey."), [t("bees", "make", "honey")]);
    }

    #[test]
    fn hedged_and_subjectless_sentences_make_no_claim() {
        assert!(svo("The drug may cure cancer.").is_empty());
        assert!(svo("It reportedly won the award.").is_empty());
        assert!(svo("It is raining.").is_empty());
        assert!(svo("Hello").is_empty());
        assert_eq!(svo("Born on May 5, Ada wrote programs.").len(), 1);
        assert_eq!(svo("In May the firm hired engineers.").len(), 1);
    }
}
