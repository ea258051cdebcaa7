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
use rustc_hash::FxHashMap as HashMap;
use std::sync::Arc;

/// A token and its lemma forms, the token first.
pub(crate) type Forms = Arc<[String]>;

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

/// One phrase: the canonical tokens of a value or of an enrichment,
/// `sources[value][k]` of its [`PhraseSet`].
#[derive(Debug, Clone, Copy)]
struct Phrase {
    /// Index of the value the phrase stands for.
    value: usize,
    /// Index of the phrase among its value's.
    k: u32,
}

/// The phrases of a question's values, indexed by first token.
#[derive(Debug, Clone, Default)]
pub struct PhraseSet {
    /// Each value's phrases (shared with the cache they came from).
    sources: Vec<Arc<[Vec<String>]>>,
    phrases: Vec<Phrase>,
    by_first: HashMap<String, Vec<usize>>,
    values: usize,
}

impl PhraseSet {
    /// Compiles `values` (each with the phrases that stand for it).
    pub fn new(values: &[Vec<String>]) -> PhraseSet {
        let tokenized: Vec<Arc<[Vec<String>]>> = values
            .iter()
            .map(|texts| texts.iter().map(|t| canonical_tokens(t)).collect())
            .collect();
        PhraseSet::from_shared(&tokenized)
    }

    /// Compiles values given as their phrases' canonical tokens (what
    /// [`PhraseSet::new`] makes of their texts).
    pub fn from_phrases<P: AsRef<[Vec<String>]>>(values: &[P]) -> PhraseSet {
        let shared: Vec<Arc<[Vec<String>]>> =
            values.iter().map(|v| Arc::from(v.as_ref())).collect();
        PhraseSet::from_shared(&shared)
    }

    /// [`PhraseSet::from_phrases`] with the token lists shared (a cache's),
    /// not copied.
    pub fn from_shared(values: &[Arc<[Vec<String>]>]) -> PhraseSet {
        let mut set = PhraseSet {
            sources: values.to_vec(),
            values: values.len(),
            ..PhraseSet::default()
        };
        for (vi, texts) in values.iter().enumerate() {
            // A value's phrases stand together at the end: a repeat of one
            // of them is looked for there only.
            let own = set.phrases.len();
            for (k, tokens) in texts.iter().enumerate() {
                let Some(first) = tokens.first() else {
                    continue;
                };
                if set.phrases[own..]
                    .iter()
                    .any(|p| texts[p.k as usize] == *tokens)
                {
                    continue;
                }
                match set.by_first.get_mut(first) {
                    Some(list) => list.push(set.phrases.len()),
                    None => {
                        set.by_first.insert(first.clone(), vec![set.phrases.len()]);
                    }
                }
                set.phrases.push(Phrase {
                    value: vi,
                    k: k as u32,
                });
            }
        }
        set
    }

    /// A phrase's tokens.
    fn tokens(&self, p: &Phrase) -> &[String] {
        &self.sources[p.value][p.k as usize]
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
                    let tokens = self.tokens(phrase);
                    if hit[phrase.value] || i + tokens.len() > answer.len() {
                        continue;
                    }
                    let rest_ok = tokens[1..]
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
            let tokens = self.tokens(phrase);
            if tokens.len() == part.len()
                && tokens
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
