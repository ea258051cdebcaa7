//! A TF-IDF vectorizer with scikit-learn's `TfidfVectorizer` defaults:
//! lower case, tokens are runs of two or more word characters (the token
//! pattern `\b\w\w+\b`), optional English stop words (scikit-learn's list),
//! raw term counts, smooth idf `ln((1 + n) / (1 + df)) + 1`, and l2-normalized
//! rows. Vectors are sparse and sorted by term index.
//!
//! ```
//! use corpus_eval::text::Tfidf;
//! let v = Tfidf::fit(&["the cat sat", "the dog sat"], true);
//! let (a, b) = (v.transform("cat sat"), v.transform("dog sat"));
//! let cos = corpus_eval::text::dot(&a, &b);
//! assert!(cos > 0.0 && cos < 1.0);
//! ```

use rustc_hash::FxHashMap as HashMap;

/// A sparse, l2-normalized TF-IDF vector: (term index, weight), by index.
pub type SparseVec = Vec<(u32, f64)>;

/// A Python `\w` character: alphanumeric (letters and numbers of any
/// script, but not combining marks, which Python's `str.isalnum` rejects) or
/// the underscore.
pub fn is_word_char(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric() || c == '_';
    }
    c.is_alphanumeric() && !unicode_normalization::char::is_combining_mark(c)
}

/// Python's `str.split()` separators: Unicode white space and the
/// information separators U+001C..U+001F.
pub fn is_py_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// scikit-learn's default analyzer: the lower-cased text's runs of two or
/// more word characters, without stop words when `stop_words` is set.
pub fn analyze(text: &str, stop_words: bool) -> Vec<String> {
    let lower = text.to_lowercase();
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    let mut chars = 0usize;
    let push = |s: usize, e: usize, n: usize, out: &mut Vec<String>| {
        let tok = &lower[s..e];
        if n >= 2 && !(stop_words && super::sklearn_stopwords::is_stop_word(tok)) {
            out.push(tok.to_string());
        }
    };
    for (i, c) in lower.char_indices() {
        if is_word_char(c) {
            if start.is_none() {
                start = Some(i);
                chars = 0;
            }
            chars += 1;
        } else if let Some(s) = start.take() {
            push(s, i, chars, &mut out);
        }
    }
    if let Some(s) = start {
        push(s, lower.len(), chars, &mut out);
    }
    out
}

/// A fitted vectorizer: the vocabulary and each term's idf.
#[derive(Debug, Clone)]
pub struct Tfidf {
    vocabulary: HashMap<String, u32>,
    idf: Vec<f64>,
    stop_words: bool,
    documents: usize,
}

impl Tfidf {
    /// Fits the vocabulary and idf on `docs`.
    pub fn fit<S: AsRef<str>>(docs: &[S], stop_words: bool) -> Tfidf {
        let mut df: HashMap<String, usize> = HashMap::default();
        for d in docs {
            let mut terms = analyze(d.as_ref(), stop_words);
            terms.sort_unstable();
            terms.dedup();
            for t in terms {
                *df.entry(t).or_insert(0) += 1;
            }
        }
        // scikit-learn numbers the vocabulary in sorted term order; the
        // order does not change any cosine, but keeps vectors comparable.
        let mut terms: Vec<(String, usize)> = df.into_iter().collect();
        terms.sort_unstable();
        let n = docs.len() as f64;
        let mut vocabulary = HashMap::with_capacity_and_hasher(terms.len(), Default::default());
        let mut idf = Vec::with_capacity(terms.len());
        for (i, (term, df)) in terms.into_iter().enumerate() {
            idf.push(((1.0 + n) / (1.0 + df as f64)).ln() + 1.0);
            vocabulary.insert(term, i as u32);
        }
        Tfidf {
            vocabulary,
            idf,
            stop_words,
            documents: docs.len(),
        }
    }

    /// Number of terms in the vocabulary.
    pub fn vocabulary_len(&self) -> usize {
        self.idf.len()
    }

    /// Number of documents fitted on.
    pub fn documents(&self) -> usize {
        self.documents
    }

    /// The idf of a term, if it is in the vocabulary.
    pub fn idf(&self, term: &str) -> Option<f64> {
        self.vocabulary.get(term).map(|&i| self.idf[i as usize])
    }

    /// The l2-normalized TF-IDF vector of `doc` (empty when no term of it is
    /// in the vocabulary).
    pub fn transform(&self, doc: &str) -> SparseVec {
        let mut counts: HashMap<u32, f64> = HashMap::default();
        for t in analyze(doc, self.stop_words) {
            if let Some(&i) = self.vocabulary.get(&t) {
                *counts.entry(i).or_insert(0.0) += 1.0;
            }
        }
        let mut v: SparseVec = counts
            .into_iter()
            .map(|(i, c)| (i, c * self.idf[i as usize]))
            .collect();
        v.sort_unstable_by_key(|&(i, _)| i);
        let norm = v.iter().map(|(_, w)| w * w).sum::<f64>().sqrt();
        if norm > 0.0 {
            for (_, w) in &mut v {
                *w /= norm;
            }
        }
        v
    }

    /// Cosine similarity of two documents in this space (0 when either has
    /// no known term).
    pub fn cosine(&self, a: &str, b: &str) -> f64 {
        dot(&self.transform(a), &self.transform(b))
    }
}

/// Dot product of two sorted sparse vectors (the cosine when both are
/// l2-normalized).
pub fn dot(a: &[(u32, f64)], b: &[(u32, f64)]) -> f64 {
    let (mut i, mut j, mut sum) = (0, 0, 0.0);
    while i < a.len() && j < b.len() {
        match a[i].0.cmp(&b[j].0) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                sum += a[i].1 * b[j].1;
                i += 1;
                j += 1;
            }
        }
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn analyzer_follows_the_token_pattern() {
        assert_eq!(
            analyze("The Cat's a 3-D Île_x, ok!", false),
            vec!["the", "cat", "île_x", "ok"]
        );
        assert_eq!(analyze("The cat and I", true), vec!["cat"]);
    }

    #[test]
    fn two_documents_match_scikit_learn() {
        // TfidfVectorizer(stop_words='english').fit(["the cat sits on the
        // mat", "the cat is on the mat"]): cat and mat in both (idf 1),
        // sits in one (idf ln(3/2)+1); cosine 0.7093 (scikit-learn 1.x).
        let v = Tfidf::fit(&["the cat sits on the mat", "the cat is on the mat"], true);
        assert_eq!(v.vocabulary_len(), 3);
        let idf = (3.0f64 / 2.0).ln() + 1.0;
        assert!((v.idf("sits").unwrap() - idf).abs() < 1e-12);
        let expected = 2.0 / (2.0 + idf * idf).sqrt() / 2f64.sqrt();
        let got = v.cosine("the cat sits on the mat", "the cat is on the mat");
        assert!((got - expected).abs() < 1e-12, "{got} vs {expected}");
        assert!((got - 0.7093).abs() < 1e-4, "{got}");
        assert_eq!(v.cosine("zebra", "cat"), 0.0);
    }
}
