//! The reference profile's text preparation, as the original Python
//! framework did it: `re.sub(r'[^\w\s]', '', text.lower()).split()`, the
//! WordNet noun lemma of a token, keyword sets, and sentence segments.

use crate::lexicon::Lexicon;
use crate::text::sklearn_stopwords;
use crate::text::tfidf::{is_py_space, is_word_char};
use std::collections::HashSet;

/// prep(t): lower case, every character that is neither a word character
/// nor whitespace deleted, split on whitespace.
///
/// ```
/// use corpus_eval::texteval::prep;
/// assert_eq!(prep("Île-de-France: 3/4, I'm"), vec!["îledefrance", "34", "im"]);
/// ```
pub fn prep(text: &str) -> Vec<String> {
    let kept: String = text
        .to_lowercase()
        .chars()
        .filter(|&c| is_word_char(c) || is_py_space(c))
        .collect();
    kept.split(is_py_space)
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// The WordNet noun lemma of a token, as NLTK's `WordNetLemmatizer` gives
/// it: the shortest of morphy's noun forms, or the token itself.
pub fn noun_lemma(lexicon: &Lexicon, token: &str) -> String {
    let mut best: Option<String> = None;
    for form in lexicon.morphy(token, 'n') {
        if best
            .as_ref()
            .is_none_or(|b| form.chars().count() < b.chars().count())
        {
            best = Some(form);
        }
    }
    best.unwrap_or_else(|| token.to_string())
}

/// The keyword set of a text: its prep tokens' noun lemmas, without
/// scikit-learn's English stop words.
pub fn keyword_set(lexicon: &Lexicon, tokens: &[String]) -> HashSet<String> {
    tokens
        .iter()
        .map(|t| noun_lemma(lexicon, t))
        .filter(|l| !sklearn_stopwords::is_stop_word(l))
        .collect()
}

/// Share of `from`'s words found in `to`: a word counts when it is in `to`
/// or one of its WordNet synonyms (any synset, lemma names lower-cased) is;
/// 0 when `from` is empty.
pub fn synonym_coverage(lexicon: &Lexicon, from: &HashSet<String>, to: &HashSet<String>) -> f64 {
    if from.is_empty() {
        return 0.0;
    }
    let found = from
        .iter()
        .filter(|w| {
            to.contains(*w)
                || lexicon
                    .synonyms(w)
                    .iter()
                    .any(|s| to.contains(s) || to.contains(&s.replace(' ', "_")))
        })
        .count();
    found as f64 / from.len() as f64
}

/// The non-empty (after trimming) parts of `text` split on runs of
/// `.`, `!` and `?`, trimmed.
pub fn segments(text: &str) -> Vec<&str> {
    text.split(['.', '!', '?'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prep_deletes_punctuation_inside_words() {
        assert_eq!(prep("Don't  STOP—now"), vec!["dont", "stopnow"]);
        assert_eq!(prep("  "), Vec::<String>::new());
        assert_eq!(prep("a_b c"), vec!["a_b", "c"]);
    }

    #[test]
    fn noun_lemmas_follow_nltk() {
        let lex = Lexicon::embedded().unwrap();
        assert_eq!(noun_lemma(&lex, "cats"), "cat");
        assert_eq!(noun_lemma(&lex, "geese"), "goose");
        assert_eq!(noun_lemma(&lex, "running"), "running");
        // NLTK's noun lemmatizer famously maps "was" to "wa" (Washington).
        assert_eq!(noun_lemma(&lex, "was"), "wa");
        assert_eq!(noun_lemma(&lex, "zzqx"), "zzqx");
    }

    #[test]
    fn coverage_counts_synonyms() {
        let lex = Lexicon::embedded().unwrap();
        let set = |s: &str| keyword_set(&lex, &prep(s));
        let from = set("The car is fast");
        assert!(from.contains("car"));
        // "automobile" is a synonym of "car"; "fast" is not in the response.
        let cov = synonym_coverage(&lex, &from, &set("an automobile"));
        let n = from.len() as f64;
        assert!((cov - 1.0 / n).abs() < 1e-12, "{cov} {from:?}");
        assert_eq!(synonym_coverage(&lex, &HashSet::new(), &from), 0.0);
    }

    #[test]
    fn segments_split_on_terminal_runs() {
        assert_eq!(
            segments("Hi there!! How are you?  ok..."),
            vec!["Hi there", "How are you", "ok"]
        );
        assert!(segments("...").is_empty());
    }
}
