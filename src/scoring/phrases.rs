//! Whole-word phrase matching over normalized, lemmatized text.
//!
//! A [`PhraseSet`] is compiled once per question from its values and their
//! enrichments. An [`Analyzer`] turns an answer into tokens, each with its
//! lemma forms (the token and its WordNet base forms), memoized per worker.
//! A phrase occurs in an answer when each of its tokens is one of the forms
//! of consecutive answer tokens ("cars" has the form "car", so the phrase
//! "car" occurs in "two cars").

use crate::lexicon::Lexicon;
use crate::text::canonical_tokens;
use crate::text::fxhash::FxHashMap as HashMap;
use std::sync::Arc;

/// A token and its lemma forms, the token first.
pub type Forms = Arc<[String]>;

/// Tokenizes and lemmatizes text, memoizing the forms of each token.
#[derive(Debug)]
pub struct Analyzer<'l> {
    lexicon: &'l Lexicon,
    cache: HashMap<String, Forms>,
}

/// Cap on memoized tokens, so a worker's memory stays bounded.
const CACHE_LIMIT: usize = 200_000;

impl<'l> Analyzer<'l> {
    /// A new analyzer over a lexicon.
    pub fn new(lexicon: &'l Lexicon) -> Self {
        Analyzer {
            lexicon,
            cache: HashMap::default(),
        }
    }

    /// The lexicon in use.
    pub fn lexicon(&self) -> &'l Lexicon {
        self.lexicon
    }

    /// The forms of one canonical token.
    pub fn forms(&mut self, token: &str) -> Forms {
        if let Some(f) = self.cache.get(token) {
            return f.clone();
        }
        let forms: Forms = self.lexicon.lemma_forms(token).into();
        if self.cache.len() >= CACHE_LIMIT {
            self.cache.clear();
        }
        self.cache.insert(token.to_string(), forms.clone());
        forms
    }

    /// Normalized tokens of `text` with number words as digits, each with its forms.
    pub fn analyze(&mut self, text: &str) -> Vec<Forms> {
        canonical_tokens(text)
            .iter()
            .map(|t| self.forms(t))
            .collect()
    }
}

/// One phrase: the canonical tokens of a value or of an enrichment.
#[derive(Debug, Clone)]
struct Phrase {
    /// Index of the value the phrase stands for.
    value: usize,
    tokens: Vec<String>,
}

/// The phrases of a question's values, indexed by first token.
#[derive(Debug, Clone, Default)]
pub struct PhraseSet {
    phrases: Vec<Phrase>,
    by_first: HashMap<String, Vec<usize>>,
    values: usize,
}

impl PhraseSet {
    /// Compiles `values` (each with the phrases that stand for it).
    pub fn new(values: &[Vec<String>]) -> PhraseSet {
        let tokenized: Vec<Vec<Vec<String>>> = values
            .iter()
            .map(|texts| texts.iter().map(|t| canonical_tokens(t)).collect())
            .collect();
        PhraseSet::from_phrases(&tokenized)
    }

    /// Compiles values given as their phrases' canonical tokens (what
    /// [`PhraseSet::new`] makes of their texts).
    pub fn from_phrases<P: AsRef<[Vec<String>]>>(values: &[P]) -> PhraseSet {
        let mut set = PhraseSet {
            values: values.len(),
            ..PhraseSet::default()
        };
        for (vi, texts) in values.iter().enumerate() {
            for tokens in texts.as_ref() {
                let tokens = tokens.clone();
                if tokens.is_empty()
                    || set
                        .phrases
                        .iter()
                        .any(|p| p.value == vi && p.tokens == tokens)
                {
                    continue;
                }
                set.by_first
                    .entry(tokens[0].clone())
                    .or_default()
                    .push(set.phrases.len());
                set.phrases.push(Phrase { value: vi, tokens });
            }
        }
        set
    }

    /// Number of values.
    pub fn value_count(&self) -> usize {
        self.values
    }

    /// Which values have a phrase occurring in `answer` (analyzed tokens).
    pub fn matches(&self, answer: &[Forms]) -> Vec<bool> {
        let mut hit = vec![false; self.values];
        for i in 0..answer.len() {
            for form in answer[i].iter() {
                let Some(cands) = self.by_first.get(form) else {
                    continue;
                };
                for &p in cands {
                    let phrase = &self.phrases[p];
                    if hit[phrase.value] || i + phrase.tokens.len() > answer.len() {
                        continue;
                    }
                    let rest_ok = phrase.tokens[1..]
                        .iter()
                        .zip(&answer[i + 1..])
                        .all(|(t, forms)| forms.iter().any(|f| f == t));
                    if rest_ok {
                        hit[phrase.value] = true;
                    }
                }
            }
        }
        hit
    }

    /// Which values have a phrase equal to the whole of `part` (analyzed).
    pub fn equals(&self, part: &[Forms]) -> Vec<bool> {
        let mut hit = vec![false; self.values];
        for phrase in &self.phrases {
            if phrase.tokens.len() == part.len()
                && phrase
                    .tokens
                    .iter()
                    .zip(part)
                    .all(|(t, forms)| forms.iter().any(|f| f == t))
            {
                hit[phrase.value] = true;
            }
        }
        hit
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phrases_match_whole_words_up_to_inflection() {
        let lex = Lexicon::embedded().unwrap();
        let mut an = Analyzer::new(&lex);
        let set = PhraseSet::new(&[
            vec!["car".into(), "automobile".into()],
            vec!["ice cream".into()],
            vec!["21".into()],
        ]);
        assert_eq!(
            set.matches(&an.analyze("Two CARS.")),
            vec![true, false, false]
        );
        assert_eq!(set.matches(&an.analyze("scar")), vec![false, false, false]);
        assert_eq!(
            set.matches(&an.analyze("ice-cream cones")),
            vec![false, true, false]
        );
        assert_eq!(
            set.matches(&an.analyze("ice and cream")),
            vec![false, false, false]
        );
        assert_eq!(
            set.matches(&an.analyze("twenty-one of them")),
            vec![false, false, true]
        );
        assert_eq!(
            set.equals(&an.analyze("Automobiles")),
            vec![true, false, false]
        );
        assert_eq!(set.equals(&an.analyze("a car")), vec![false, false, false]);
    }
}
