//! Grounding metrics of a RAG response (`corpus-eval grounding`), after the
//! pipeline-metrics design: relevance to the query (TF-IDF cosine and
//! Jaccard), completeness (query keywords answered) and hallucination
//! (anchors unsupported by the context, or topic drift).

pub(crate) mod claims;
pub(crate) mod input;
pub use input::*;
pub(crate) mod quantities;
pub(crate) mod summary;
pub(crate) mod text;

use crate::lexicon::Lexicon;
use crate::text::tfidf::{is_word_char, Tfidf};
use quantities::{Found, Quantity};
use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;
use std::collections::HashSet;
use std::ops::Range;

/// One input row.
#[derive(Debug, Clone, PartialEq)]
pub struct GroundingRow {
    /// The row's id.
    pub id: String,
    /// The user's query.
    pub query: String,
    /// The response to check.
    pub response: String,
    /// The retrieved context passages.
    pub context: Vec<String>,
}

/// An anchor of the response and its verdict.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct AnchorResult {
    /// number, money, date, time or claim.
    pub kind: String,
    /// The anchor as written in the response.
    pub text: String,
    /// Character offsets `{start, end}` (end exclusive) in the response.
    pub span: crate::citations::attribution::Span,
    /// The normalized value ("1000", "2021-03-03", "17:00",
    /// "paris|be|capital").
    pub value: String,
    /// True when the context supports it.
    pub supported: bool,
    /// The context sentence that supports it.
    pub evidence: Option<String>,
}

/// The metrics of one row.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct GroundingResult {
    /// The row's id.
    pub id: String,
    /// (TF-IDF cosine + Jaccard) / 2.
    pub relevance: f64,
    /// Share of query keywords found in the response.
    pub completeness: f64,
    /// max(claim error, drift penalty); lower is better.
    pub hallucination: f64,
    /// Unsupported anchors over all anchors (0 when there are none).
    pub claim_error: f64,
    /// 0.2 when the response's bigram overlap with the context is < 0.2.
    pub drift_penalty: f64,
    /// TF-IDF cosine of query and response (fitted on the two).
    pub tfidf_cosine: f64,
    /// Jaccard similarity of their word sets.
    pub jaccard: f64,
    /// Share of the response's word bigrams found in the context.
    pub bigram_overlap: f64,
    /// Query keywords, and those not found in the response.
    pub keywords: Vec<String>,
    /// Query keywords missing from the response.
    pub missing_keywords: Vec<String>,
    /// Every anchor with its verdict.
    pub anchors: Vec<AnchorResult>,
    /// Set when the response has no anchor ("no anchors: claim error is 0").
    pub note: Option<String>,
}

/// The metric configuration (see [`signature`]).
pub const SIGNATURE: &str = "grounding:v1|relevance:(sklearn-tfidf-english-smooth-l2-fit[q,r]+jaccard-lower-w+)/2|completeness:alnum-lower-minus-nltk179+lemmas|anchors:number,money,date,time,svo-rules+hedges|drift:bigram<0.2->0.2|span:chars";

/// The metric signature: [`SIGNATURE`] with the crate version.
pub fn signature() -> String {
    crate::signature::Signature::new(SIGNATURE).long()
}

/// Lower-cased `\w+` tokens.
fn w_tokens(text: &str) -> Vec<String> {
    text.to_lowercase()
        .split(|c: char| !is_word_char(c))
        .filter(|t| !t.is_empty())
        .map(str::to_string)
        .collect()
}

/// Relevance parts: (TF-IDF cosine fitted on [query, response], Jaccard of
/// the lower-cased `\w+` sets; 0 when both are empty).
pub fn relevance_parts(query: &str, response: &str) -> (f64, f64) {
    let tfidf = Tfidf::fit(&[query, response], true);
    let cos = tfidf.cosine(query, response);
    let q: HashSet<String> = w_tokens(query).into_iter().collect();
    let r: HashSet<String> = w_tokens(response).into_iter().collect();
    let union = q.union(&r).count();
    let jaccard = if union == 0 {
        0.0
    } else {
        q.intersection(&r).count() as f64 / union as f64
    };
    (cos, jaccard)
}

/// Tokens as `nltk.word_tokenize` then an `isalnum()` filter keep them:
/// white-space separated, leading and trailing punctuation split off, a
/// trailing "'s" split off, and a token that still holds a non-alphanumeric
/// character ("COVID-19", "U.S.", "3.5", "don't") dropped; lower-cased.
pub fn word_tokens(text: &str) -> Vec<String> {
    text.split_whitespace()
        .filter_map(|raw| {
            let t = raw.trim_matches(|c: char| !c.is_alphanumeric());
            let t = t
                .strip_suffix("'s")
                .or_else(|| t.strip_suffix("’s"))
                .unwrap_or(t);
            (!t.is_empty() && t.chars().all(char::is_alphanumeric)).then(|| t.to_lowercase())
        })
        .collect()
}

/// Completeness: (score, keywords, missing). Keywords are the query's
/// lower-cased alphanumeric tokens minus NLTK's English stop words; one is
/// found when it or a lemma of it is among the response's tokens or their
/// lemmas. 1.0 when the query has no keyword.
pub fn completeness(
    lexicon: &Lexicon,
    query: &str,
    response: &str,
) -> (f64, Vec<String>, Vec<String>) {
    let alnum = word_tokens;
    let mut keywords: Vec<String> = Vec::new();
    for w in alnum(query) {
        if !crate::text::stopwords::is_stop_word(&w) && !keywords.contains(&w) {
            keywords.push(w);
        }
    }
    if keywords.is_empty() {
        return (1.0, keywords, Vec::new());
    }
    let mut tokens: Vec<String> = alnum(response);
    tokens.sort_unstable();
    tokens.dedup();
    // A response word can be a form of a keyword only when it is one of the
    // keyword's forms or shares its first letter (then its own forms are
    // looked up): most words never reach WordNet.
    let mut token_forms: FxHashMap<&str, Vec<String>> = FxHashMap::default();
    let missing: Vec<String> = keywords
        .iter()
        .filter(|k| {
            let kf = word_forms(lexicon, k);
            let first = k.chars().next();
            !tokens.iter().any(|t| {
                kf.contains(t)
                    || (t.chars().next() == first
                        && token_forms
                            .entry(t.as_str())
                            .or_insert_with(|| lexicon.lemma_forms(t))
                            .iter()
                            .any(|f| kf.contains(f)))
            })
        })
        .cloned()
        .collect();
    let score = (keywords.len() - missing.len()) as f64 / keywords.len() as f64;
    (score, keywords, missing)
}

/// Share of the response's word bigrams (as a set) that occur in a context
/// sentence (words as `text::words` splits them); a one-word response is
/// compared by its word; 1.0 for an empty response (it drifts nowhere).
pub fn bigram_overlap<R: AsRef<str>, C: AsRef<str>>(response: &[R], sentences: &[&[C]]) -> f64 {
    if response.is_empty() {
        return 1.0;
    }
    // Response words get small ids; context words are looked up once each.
    let mut ids: FxHashMap<&str, u32> = FxHashMap::default();
    let seq: Vec<u32> = response
        .iter()
        .map(|w| {
            let n = ids.len() as u32;
            *ids.entry(w.as_ref()).or_insert(n)
        })
        .collect();
    if seq.len() == 1 {
        let only = response[0].as_ref();
        let found = sentences
            .iter()
            .any(|s| s.iter().any(|w| w.as_ref() == only));
        return if found { 1.0 } else { 0.0 };
    }
    let pair = |a: u32, b: u32| (u64::from(a) << 32) | u64::from(b);
    let mine: FxHashSet<u64> = seq.windows(2).map(|w| pair(w[0], w[1])).collect();
    let mut found: FxHashSet<u64> = FxHashSet::default();
    for s in sentences {
        let mut prev: Option<u32> = None;
        for w in s.iter() {
            let id = ids.get(w.as_ref()).copied();
            if let (Some(a), Some(b)) = (prev, id) {
                let p = pair(a, b);
                if mine.contains(&p) {
                    found.insert(p);
                }
            }
            prev = id;
        }
    }
    found.len() as f64 / mine.len() as f64
}

/// One context sentence, prepared for evidence search.
struct Evidence<'c> {
    text: &'c str,
    words: Vec<std::borrow::Cow<'c, str>>,
    amounts: Vec<f64>,
    quantities: Vec<Found>,
}

fn prepare_context(context: &[String]) -> Vec<Evidence<'_>> {
    let mut out = Vec::new();
    for passage in context {
        for r in text::sentences(passage) {
            let s = &passage[r];
            let words = text::words(s);
            let scan = quantities::scan(s, &words);
            out.push(Evidence {
                text: s,
                words: words.into_iter().map(|w| w.text).collect(),
                amounts: scan.amounts,
                quantities: scan.found,
            });
        }
    }
    out
}

fn quantity_supported(q: &Quantity, e: &Evidence) -> bool {
    match q {
        Quantity::Number(v) | Quantity::Money(v) => {
            e.amounts.iter().any(|a| quantities::same_amount(*a, *v))
        }
        Quantity::Date(d) => e.quantities.iter().any(|f| match f.quantity {
            Quantity::Date(c) => d.is_supported_by(&c),
            // A bare year in the context ("1987 was ...") supports a year.
            Quantity::Number(v) => {
                d.month.is_none() && d.day.is_none() && d.year.is_some_and(|y| y as f64 == v)
            }
            _ => false,
        }),
        Quantity::Time(h, m) => e
            .quantities
            .iter()
            .any(|f| f.quantity == Quantity::Time(*h, *m)),
    }
}

/// The lemma forms of context words, computed once per row.
struct FormsCache<'a> {
    lexicon: &'a Lexicon,
    map: std::cell::RefCell<FxHashMap<&'a str, Vec<String>>>,
}

/// A claim word's forms: its lemma forms and every irregular form of them
/// ("mouse" -> mouse, mice; "go" -> go, went, gone).
fn word_forms(lexicon: &Lexicon, word: &str) -> Vec<String> {
    let mut forms = lexicon.lemma_forms(word);
    let bases = forms.clone();
    for b in &bases {
        for f in lexicon.irregular_forms(b) {
            if !forms.contains(f) {
                forms.push(f.clone());
            }
        }
    }
    forms
}

impl<'a> FormsCache<'a> {
    /// True when the context word `token` is `word` (whose forms, irregular
    /// ones included, are `forms`) up to inflection: one of the forms, or a
    /// regular inflection sharing the word's first letter.
    fn same_word(&self, word: &str, forms: &[String], token: &'a str) -> bool {
        if token == word || forms.iter().any(|f| f == token) {
            return true;
        }
        if word.as_bytes().first() != token.as_bytes().first() {
            return false;
        }
        let mut map = self.map.borrow_mut();
        let token_forms = map
            .entry(token)
            .or_insert_with(|| self.lexicon.lemma_forms(token));
        token_forms.iter().any(|f| forms.contains(f))
    }
}

/// A claim with its subject's and object's forms, computed once.
struct ClaimForms<'c> {
    claim: &'c claims::Claim,
    subject: Vec<String>,
    object: Vec<String>,
}

fn claim_supported<'a>(cache: &FormsCache<'a>, c: &ClaimForms, e: &'a Evidence) -> bool {
    let claim = c.claim;
    e.words
        .iter()
        .any(|t| cache.same_word(&claim.subject, &c.subject, t))
        && e.words
            .iter()
            .any(|t| cache.same_word(&claim.object, &c.object, t))
        && e.words
            .iter()
            .any(|t| claims::is_verb_form(cache.lexicon, &claim.verb, t))
}

fn char_span(text: &str, r: &Range<usize>) -> crate::citations::attribution::Span {
    crate::text::aligned::byte_to_char_range(text, r.clone()).into()
}

/// Evaluates one row.
pub fn evaluate(lexicon: &Lexicon, row: &GroundingRow) -> GroundingResult {
    let (tfidf_cosine, jaccard) = relevance_parts(&row.query, &row.response);
    let (completeness, keywords, missing_keywords) =
        completeness(lexicon, &row.query, &row.response);
    let evidence = prepare_context(&row.context);
    let mut anchors: Vec<AnchorResult> = Vec::new();
    // The response's words serve both its quantities and the drift check.
    let response_words = text::words(&row.response);
    for f in quantities::scan(&row.response, &response_words).found {
        let support = evidence.iter().find(|e| quantity_supported(&f.quantity, e));
        anchors.push(AnchorResult {
            kind: f.quantity.kind().to_string(),
            text: row.response[f.range.clone()].to_string(),
            span: char_span(&row.response, &f.range),
            value: f.quantity.value_text(),
            supported: support.is_some(),
            evidence: support.map(|e| e.text.to_string()),
        });
    }
    let cache = FormsCache {
        lexicon,
        map: Default::default(),
    };
    for c in claims::claims(lexicon, &row.response) {
        let forms = ClaimForms {
            claim: &c,
            subject: word_forms(lexicon, &c.subject),
            object: word_forms(lexicon, &c.object),
        };
        let support = evidence.iter().find(|e| claim_supported(&cache, &forms, e));
        anchors.push(AnchorResult {
            kind: "claim".to_string(),
            text: row.response[c.range.clone()].to_string(),
            span: char_span(&row.response, &c.range),
            value: format!("{}|{}|{}", c.subject, c.verb, c.object),
            supported: support.is_some(),
            evidence: support.map(|e| e.text.to_string()),
        });
    }
    anchors.sort_by_key(|a| (a.span.start, a.span.end));
    let unsupported = anchors.iter().filter(|a| !a.supported).count();
    let (claim_error, note) = if anchors.is_empty() {
        (0.0, Some("no anchors: claim error is 0".to_string()))
    } else {
        (unsupported as f64 / anchors.len() as f64, None)
    };
    let response_words: Vec<&str> = response_words.iter().map(|w| w.as_str()).collect();
    let sentence_words: Vec<&[std::borrow::Cow<str>]> =
        evidence.iter().map(|e| e.words.as_slice()).collect();
    let bigram_overlap = bigram_overlap(&response_words, &sentence_words);
    let drift_penalty = if bigram_overlap < 0.2 { 0.2 } else { 0.0 };
    GroundingResult {
        id: row.id.clone(),
        relevance: (tfidf_cosine + jaccard) / 2.0,
        completeness,
        hallucination: claim_error.max(drift_penalty),
        claim_error,
        drift_penalty,
        tfidf_cosine,
        jaccard,
        bigram_overlap,
        keywords,
        missing_keywords,
        anchors,
        note,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(query: &str, response: &str, context: &[&str]) -> GroundingRow {
        GroundingRow {
            id: "r".into(),
            query: query.into(),
            response: response.into(),
            context: context.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn relevance_is_the_mean_of_cosine_and_jaccard() {
        // Fitted on the two texts: "capital" and "france" are in both (idf
        // 1), "paris" only in the response (idf ln(3/2)+1).
        let (cos, jac) = relevance_parts(
            "What is the capital of France?",
            "Paris is the capital of France.",
        );
        let idf = (1.5f64).ln() + 1.0;
        let want_cos = 2.0 / (2f64.sqrt() * (2.0 + idf * idf).sqrt());
        assert!((cos - want_cos).abs() < 1e-12, "{cos} {want_cos}");
        // {what,is,the,capital,of,france} vs {paris,is,the,capital,of,france}: 5/7.
        assert!((jac - 5.0 / 7.0).abs() < 1e-12);
        assert_eq!(relevance_parts("", ""), (0.0, 0.0));
    }

    #[test]
    fn completeness_uses_lemmas() {
        let lex = Lexicon::embedded().unwrap();
        let (s, k, m) = completeness(
            &lex,
            "Which cities host the Olympic games?",
            "Paris hosted the Olympics; the city...",
        );
        assert_eq!(k, ["cities", "host", "olympic", "games"]);
        assert_eq!(m, ["olympic", "games"]);
        assert_eq!(s, 0.5);
        assert_eq!(completeness(&lex, "Is it?", "no").0, 1.0);
        // word_tokenize keeps "COVID-19" and "U.S." whole; isalnum drops them.
        let (_, k, _) = completeness(&lex, "COVID-19 rules in the U.S., Ada's view?", "x");
        assert_eq!(k, ["rules", "ada", "view"]);
        // Irregular forms share no first letter with their lemma.
        assert_eq!(
            completeness(&lex, "Where did they go?", "They went home.").0,
            1.0
        );
        assert_eq!(completeness(&lex, "How many mice?", "One mouse.").0, 0.5);
    }

    #[test]
    fn anchors_are_checked_against_the_context() {
        let lex = Lexicon::embedded().unwrap();
        let ctx = [
            "The museum opened on March 3, 2021. The museum employs 1,000 people and cost $5 million.",
            "Paris is the capital of France.",
        ];
        let response = "The museum employs one thousand people. It opened on 2021-03-03 and cost 6 million dollars.";
        let r = evaluate(&lex, &row("When did it open?", response, &ctx));
        let kinds: Vec<(&str, &str, bool)> = r
            .anchors
            .iter()
            .map(|a| (a.kind.as_str(), a.value.as_str(), a.supported))
            .collect();
        assert_eq!(
            kinds,
            [
                ("claim", "museum|employ|people", true),
                ("number", "1000", true),
                ("date", "2021-03-03", true),
                ("money", "6000000", false)
            ]
        );
        assert_eq!(
            r.anchors[2].evidence.as_deref(),
            Some("The museum opened on March 3, 2021.")
        );
        assert_eq!((r.anchors[2].span.start, r.anchors[2].span.end), (53, 63));
        assert_eq!(&response[53..63], "2021-03-03");
        assert!((r.claim_error - 0.25).abs() < 1e-12);
        // 4 of its 16 bigrams are in the context (the museum, museum
        // employs, opened on, and cost): >= 0.2, no drift.
        assert!((r.bigram_overlap - 4.0 / 16.0).abs() < 1e-12);
        assert_eq!(r.drift_penalty, 0.0);
        assert_eq!(r.hallucination, 0.25);
    }

    #[test]
    fn drift_and_no_anchor_note() {
        let lex = Lexicon::embedded().unwrap();
        let r = evaluate(
            &lex,
            &row(
                "q",
                "bananas grow quickly everywhere",
                &["Paris is the capital of France."],
            ),
        );
        assert!(r.anchors.is_empty());
        assert_eq!(r.note.as_deref(), Some("no anchors: claim error is 0"));
        assert_eq!(r.drift_penalty, 0.2);
        assert_eq!(r.hallucination, 0.2);
    }
}
