//! WordNet: the compact embedded lexicon, synonyms and the morphy lemmatizer.
//!
//! The lexicon is built from the real WordNet database (`build`) and
//! shipped gzipped in `datasets/wordnet-lexicon.txt.gz`, compiled into the
//! binary so the tool works offline. `--wordnet DIR` loads a standard dict
//! folder instead ([`Lexicon::from_wordnet_dir`]).
//!
//! ```
//! let lex = corpus_eval::lexicon::Lexicon::embedded().unwrap();
//! assert!(lex.synonyms("automobile").contains(&"car".to_string()));
//! assert!(lex.lemma_forms("potatoes").contains(&"potato".to_string()));
//! ```

mod antonyms;
pub(crate) mod build;

pub use antonyms::Antonyms;
pub use build::*;
mod table;

use crate::text::numbers::number_forms;
use rustc_hash::FxHashMap as HashMap;
use std::borrow::Cow;
use std::ops::Range;
use std::path::{Path, PathBuf};
use table::KeyTable;

/// The compact lexicon text compiled into the binary (build.rs decompresses
/// `datasets/wordnet-lexicon.txt.gz` at build time).
pub static EMBEDDED_LEXICON: &str = include_str!(concat!(env!("OUT_DIR"), "/wordnet-lexicon.txt"));

/// Errors from loading or building a lexicon.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LexiconError {
    /// A file could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A WordNet file or the compact lexicon is malformed.
    #[error("{path}:{line}: {message}")]
    Format {
        /// The file (or `"<embedded lexicon>"`).
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        message: String,
    },
}

/// One lemma of the lexicon, as ranges into the lexicon text.
#[derive(Debug, Clone)]
struct LemmaEntry {
    key: Range<u32>,
    pos_mask: u8,
    synsets: Range<u32>,
}

/// A lexicon's identity as a run's manifest records it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct LexiconInfo {
    /// Where it came from ([`Lexicon::source`]).
    pub source: String,
    /// SHA-256 of its compact text ([`Lexicon::digest`]).
    pub sha256: String,
    /// Number of lemmas.
    pub lemmas: usize,
    /// Number of synsets.
    pub synsets: usize,
}

/// A WordNet lexicon: synsets, lemmas with their parts of speech, and the
/// morphological exception lists.
#[derive(Debug, Clone)]
pub struct Lexicon {
    text: Cow<'static, str>,
    synsets: Vec<Range<u32>>,
    lemmas: Vec<LemmaEntry>,
    table: KeyTable,
    /// Exceptions: inflected form -> (pos letter, base forms).
    exceptions: HashMap<String, Vec<(char, Vec<String>)>>,
    source: String,
    /// The bytes the digest is computed from, hashed on first use.
    digest_input: DigestInput,
    digest: std::sync::OnceLock<String>,
    /// Base form -> its irregular forms (the exception lists reversed),
    /// built on first use.
    irregular: std::sync::OnceLock<HashMap<String, Vec<String>>>,
}

/// What a lexicon's SHA-256 covers.
#[derive(Debug, Clone)]
enum DigestInput {
    /// The compact text itself.
    Text,
    /// A digest given by the caller.
    Given(String),
}

/// Morphy's detachment rules per part of speech: (suffix, replacement).
const NOUN_RULES: &[(&str, &str)] = &[
    ("s", ""),
    ("ses", "s"),
    ("xes", "x"),
    ("zes", "z"),
    ("ches", "ch"),
    ("shes", "sh"),
    ("men", "man"),
    ("ies", "y"),
];
const VERB_RULES: &[(&str, &str)] = &[
    ("s", ""),
    ("ies", "y"),
    ("es", "e"),
    ("es", ""),
    ("ed", "e"),
    ("ed", ""),
    ("ing", "e"),
    ("ing", ""),
];
const ADJ_RULES: &[(&str, &str)] = &[("er", ""), ("est", ""), ("er", "e"), ("est", "e")];

fn rules(pos: char) -> &'static [(&'static str, &'static str)] {
    match pos {
        'n' => NOUN_RULES,
        'v' => VERB_RULES,
        'a' => ADJ_RULES,
        _ => &[],
    }
}

impl Lexicon {
    /// Loads the lexicon compiled into the binary.
    pub fn embedded() -> Result<Lexicon, LexiconError> {
        Lexicon::from_compact(
            Cow::Borrowed(EMBEDDED_LEXICON),
            "embedded compact lexicon",
            "",
        )
    }

    /// Builds the lexicon from a WordNet dict folder in the standard format.
    pub fn from_wordnet_dir(dir: &Path) -> Result<Lexicon, LexiconError> {
        let text = build::build_compact(dir)?;
        let origin = format!("dict folder {}", dir.display());
        Lexicon::from_compact(Cow::Owned(text), &origin, "")
    }

    /// Parses compact lexicon text (see `build` for the format); `digest`
    /// identifies it in signatures (empty: the SHA-256 of the text).
    pub fn from_compact(
        text: impl Into<Cow<'static, str>>,
        origin: &str,
        digest: &str,
    ) -> Result<Lexicon, LexiconError> {
        let text: Cow<'static, str> = text.into();
        let fail = |line: usize, message: &str| LexiconError::Format {
            path: PathBuf::from(origin),
            line,
            message: message.to_string(),
        };
        let mut lines = LineCursor::new(&text);
        if lines.next().map(|(_, l)| l) != Some("corpus-eval-lexicon 1") {
            return Err(fail(1, "not a corpus-eval lexicon (version 1)"));
        }
        let source = match lines.next() {
            Some((_, l)) => l.strip_prefix("source\t").unwrap_or(l).to_string(),
            None => return Err(fail(2, "missing source line")),
        };
        let count = |lines: &mut LineCursor, name: &str| -> Result<usize, LexiconError> {
            let (no, l) = lines.next().ok_or_else(|| fail(lines.line, "truncated"))?;
            l.strip_prefix(name)
                .and_then(|r| r.strip_prefix('\t'))
                .and_then(|r| r.parse().ok())
                // Every entry takes a line: no count exceeds the text.
                .filter(|&c: &usize| c <= text.len())
                .ok_or_else(|| fail(no, &format!("expected the {name} header")))
        };
        let n_synsets = count(&mut lines, "synsets")?;
        let mut synsets = Vec::with_capacity(n_synsets);
        for _ in 0..n_synsets {
            let line_no = lines.line + 1;
            let range = lines
                .next_range()
                .ok_or_else(|| fail(line_no, "truncated synsets"))?;
            synsets.push(range);
        }
        let n_lemmas = count(&mut lines, "lemmas")?;
        let mut lemmas = Vec::with_capacity(n_lemmas);
        let mut table = KeyTable::with_capacity(n_lemmas);
        let bytes = text.as_bytes();
        for i in 0..n_lemmas {
            let line_no = lines.line + 1;
            let r = lines
                .next_range()
                .ok_or_else(|| fail(line_no, "truncated lemmas"))?;
            let line = &bytes[r.start as usize..r.end as usize];
            let t1 = memchr::memchr(b'\t', line).ok_or_else(|| fail(line_no, "lemma line"))?;
            let t2 = memchr::memchr(b'\t', &line[t1 + 1..])
                .map(|p| p + t1 + 1)
                .ok_or_else(|| fail(line_no, "lemma line"))?;
            let pos_mask = std::str::from_utf8(&line[t1 + 1..t2])
                .ok()
                .and_then(|s| s.parse().ok())
                .ok_or_else(|| fail(line_no, "pos mask"))?;
            let entry = LemmaEntry {
                key: r.start..r.start + t1 as u32,
                pos_mask,
                synsets: r.start + t2 as u32 + 1..r.end,
            };
            let key = &bytes[entry.key.start as usize..entry.key.end as usize];
            lemmas.push(entry);
            table.insert(key, i as u32, |e| {
                let k = &lemmas[e as usize].key;
                &bytes[k.start as usize..k.end as usize]
            });
        }
        let n_exc = count(&mut lines, "exceptions")?;
        let mut exceptions: HashMap<String, Vec<(char, Vec<String>)>> =
            HashMap::with_capacity_and_hasher(n_exc, Default::default());
        for _ in 0..n_exc {
            let (no, l) = lines
                .next()
                .ok_or_else(|| fail(lines.line, "truncated exceptions"))?;
            let mut f = l.split('\t');
            let pos = f
                .next()
                .and_then(|p| p.chars().next())
                .ok_or_else(|| fail(no, "exception pos"))?;
            let inflected = f.next().ok_or_else(|| fail(no, "exception form"))?;
            let bases: Vec<String> = f.map(str::to_string).collect();
            exceptions
                .entry(inflected.to_string())
                .or_default()
                .push((pos, bases));
        }
        // Optional (lexicons built before it end above); checked here,
        // read by [`Antonyms`].
        if lines.peek_nonempty() {
            let n_ant = count(&mut lines, "antonyms")?;
            for _ in 0..n_ant {
                let (no, l) = lines
                    .next()
                    .ok_or_else(|| fail(lines.line, "truncated antonyms"))?;
                l.split_once('\t')
                    .filter(|(a, b)| !a.is_empty() && !b.is_empty() && !b.contains('\t'))
                    .ok_or_else(|| fail(no, "an antonym line is two lemmas"))?;
            }
        }
        Ok(Lexicon {
            synsets,
            lemmas,
            table,
            exceptions,
            source: format!("{source}; {origin}"),
            digest_input: if digest.is_empty() {
                DigestInput::Text
            } else {
                DigestInput::Given(digest.to_string())
            },
            digest: std::sync::OnceLock::new(),
            irregular: std::sync::OnceLock::new(),
            text,
        })
    }

    /// Where the lexicon came from, e.g. "WordNet 3.0 dict files ...; embedded compact lexicon".
    pub fn source(&self) -> &str {
        &self.source
    }

    /// SHA-256 of the compact lexicon text, hex, computed on first use.
    pub fn digest(&self) -> &str {
        self.digest.get_or_init(|| match &self.digest_input {
            DigestInput::Text => crate::text::hash::sha256_hex(self.text.as_bytes()),
            DigestInput::Given(d) => d.clone(),
        })
    }

    /// What a run's manifest records of the lexicon (kept once the
    /// lexicon itself is dropped).
    pub fn info(&self) -> LexiconInfo {
        LexiconInfo {
            source: self.source.clone(),
            sha256: self.digest().to_string(),
            lemmas: self.lemma_count(),
            synsets: self.synset_count(),
        }
    }

    /// Short signature for metric outputs: `"wordnet:<source>#<digest prefix>"`.
    pub fn signature(&self) -> String {
        let short: String = self.digest().chars().take(12).collect();
        let version = self.source.split(" dict").next().unwrap_or("WordNet");
        format!("{version}#{short}")
    }

    /// Number of lemmas.
    pub fn lemma_count(&self) -> usize {
        self.lemmas.len()
    }

    /// Number of synsets.
    pub fn synset_count(&self) -> usize {
        self.synsets.len()
    }

    fn slice(&self, r: &Range<u32>) -> &str {
        &self.text[r.start as usize..r.end as usize]
    }

    fn entry(&self, lemma: &str) -> Option<&LemmaEntry> {
        let bytes = self.text.as_bytes();
        self.table
            .find(lemma.as_bytes(), |e| {
                let k = &self.lemmas[e as usize].key;
                &bytes[k.start as usize..k.end as usize]
            })
            .map(|i| &self.lemmas[i as usize])
    }

    /// True when `lemma` is in the index for `pos` ('n', 'v', 'a', 'r').
    pub fn has_lemma(&self, lemma: &str, pos: char) -> bool {
        self.entry(lemma)
            .is_some_and(|e| e.pos_mask & build::pos_bit(pos) != 0)
    }

    /// The irregular forms whose base form is `base`, any part of speech
    /// ("go" -> "went", "gone"; "mouse" -> "mice").
    pub fn irregular_forms(&self, base: &str) -> &[String] {
        let map = self.irregular.get_or_init(|| {
            let mut m: HashMap<String, Vec<String>> = HashMap::default();
            for (form, entries) in &self.exceptions {
                for (_, bases) in entries {
                    for b in bases {
                        let list = m.entry(b.clone()).or_default();
                        if !list.contains(form) {
                            list.push(form.clone());
                        }
                    }
                }
            }
            m
        });
        map.get(base).map_or(&[], Vec::as_slice)
    }

    /// WordNet's morphy for one part of speech: the base forms of `word`
    /// that are in the index (the word itself included when it is).
    pub fn morphy(&self, word: &str, pos: char) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let keep = |cand: &str, out: &mut Vec<String>| {
            if self.has_lemma(cand, pos) && !out.iter().any(|o| o == cand) {
                out.push(cand.to_string());
            }
        };
        keep(word, &mut out);
        if let Some(list) = self.exceptions.get(word) {
            let mut hit = false;
            for (p, bases) in list {
                if *p == pos {
                    hit = true;
                    for b in bases {
                        keep(b, &mut out);
                    }
                }
            }
            if hit {
                return out;
            }
        }
        for (suffix, repl) in rules(pos) {
            if let Some(stem) = word.strip_suffix(suffix) {
                if stem.is_empty() {
                    continue;
                }
                let cand = format!("{stem}{repl}");
                keep(&cand, &mut out);
            }
        }
        out
    }

    /// The word and its base forms over every part of speech, the word first.
    /// Used to compare tokens up to inflection ("cars" -> ["cars", "car"]).
    pub fn lemma_forms(&self, word: &str) -> Vec<String> {
        let mut out = vec![word.to_string()];
        if word.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
            return out;
        }
        for pos in ['n', 'v', 'a', 'r'] {
            for f in self.morphy(word, pos) {
                if !out.contains(&f) {
                    out.push(f);
                }
            }
        }
        out
    }

    /// Every lemma of every synset (all parts of speech) of `value` or of its
    /// base forms, lower case with spaces, without `value` itself; in
    /// WordNet's sense order.
    pub fn synonyms(&self, value: &str) -> Vec<String> {
        let key = value
            .split(|c: char| c.is_whitespace() || c == '_')
            .filter(|w| !w.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase();
        let mut keys = vec![key.clone()];
        let normalized = crate::text::normalize(&key);
        if normalized != key && !normalized.is_empty() {
            keys.push(normalized);
        }
        let mut lemmas: Vec<String> = Vec::new();
        for k in &keys {
            for pos in ['n', 'v', 'a', 'r'] {
                for f in self.morphy(k, pos) {
                    if !lemmas.contains(&f) {
                        lemmas.push(f);
                    }
                }
            }
        }
        let mut out: Vec<String> = Vec::new();
        for lemma in &lemmas {
            let Some(entry) = self.entry(lemma) else {
                continue;
            };
            for id in self.slice(&entry.synsets).split(' ') {
                let Some(range) = id.parse::<usize>().ok().and_then(|i| self.synsets.get(i)) else {
                    continue;
                };
                for w in self.slice(range).split('\t').skip(1) {
                    if w != key && !out.iter().any(|o| o == w) {
                        out.push(w.to_string());
                    }
                }
            }
        }
        out
    }

    /// The enrichment of a metric value: its WordNet synonyms followed by its
    /// number forms ("5" -> "five", "twenty-one" -> "21").
    ///
    /// Synonyms that would match almost any text are left out: one-letter
    /// forms ("I" for "one", "C" for "hundred") and English stop words
    /// ("be" for "exist"), unless the value itself is one.
    pub fn enrich(&self, value: &str) -> Vec<String> {
        let own = crate::text::normalize(value);
        let mut out: Vec<String> = self
            .synonyms(value)
            .into_iter()
            .filter(|syn| {
                let n = crate::text::normalize(syn);
                n != own && n.chars().count() > 1 && !crate::text::stopwords::is_stop_word(&n)
            })
            .collect();
        for f in number_forms(value) {
            if !out.contains(&f) && f != value {
                out.push(f);
            }
        }
        out
    }
}

/// Walks the lines of a text, keeping their byte ranges.
struct LineCursor<'a> {
    text: &'a str,
    at: usize,
    /// Number of lines consumed so far.
    line: usize,
}

impl<'a> LineCursor<'a> {
    fn new(text: &'a str) -> Self {
        LineCursor {
            text,
            at: 0,
            line: 0,
        }
    }

    fn next_range(&mut self) -> Option<Range<u32>> {
        if self.at >= self.text.len() {
            return None;
        }
        let rest = &self.text.as_bytes()[self.at..];
        let len = memchr::memchr(b'\n', rest).unwrap_or(rest.len());
        let r = self.at as u32..(self.at + len) as u32;
        self.at += len + 1;
        self.line += 1;
        Some(r)
    }

    /// True when a line with text follows.
    fn peek_nonempty(&self) -> bool {
        self.text
            .get(self.at..)
            .is_some_and(|r| !r.trim().is_empty())
    }

    fn next(&mut self) -> Option<(usize, &'a str)> {
        let r = self.next_range()?;
        Some((self.line, &self.text[r.start as usize..r.end as usize]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lex() -> Lexicon {
        Lexicon::embedded().expect("embedded lexicon loads")
    }

    #[test]
    fn morphy_uses_rules_and_exceptions() {
        let l = lex();
        assert_eq!(l.morphy("potatoes", 'n'), vec!["potato"]);
        assert_eq!(l.morphy("cars", 'n'), vec!["car"]);
        assert!(l.morphy("geese", 'n').contains(&"goose".to_string()));
        assert!(l.morphy("ran", 'v').contains(&"run".to_string()));
        assert!(l.morphy("better", 'a').contains(&"good".to_string()));
        assert!(l.morphy("xyzzyq", 'n').is_empty());
    }

    #[test]
    fn synonyms_cover_all_parts_of_speech() {
        let l = lex();
        let car = l.synonyms("automobile");
        assert!(car.contains(&"car".to_string()));
        assert!(car.contains(&"motorcar".to_string()));
        let potato = l.synonyms("potatoes");
        assert!(potato.contains(&"spud".to_string()));
        assert!(potato.contains(&"white potato".to_string()));
        // "fast" is an adjective, adverb, verb and noun
        let fast = l.synonyms("fast");
        assert!(fast.contains(&"quick".to_string()));
        assert!(fast.contains(&"firm".to_string()));
        assert!(l.synonyms("qwertyuiop").is_empty());
        assert!(l
            .synonyms("climate change")
            .contains(&"global climate change".to_string()));
    }

    #[test]
    fn enrich_adds_number_forms() {
        let l = lex();
        assert!(l.enrich("5").contains(&"five".to_string()));
        assert!(l.enrich("twenty-one").contains(&"21".to_string()));
    }

    #[test]
    fn rejects_garbage() {
        assert!(Lexicon::from_compact("nope", "x", "0").is_err());
        assert!(
            Lexicon::from_compact("corpus-eval-lexicon 1\nsource\tx\nsynsets\t5\n", "x", "0")
                .is_err()
        );
    }

    #[test]
    fn the_antonym_section_is_optional_and_checked() {
        let head = "corpus-eval-lexicon 1\nsource\tx\nsynsets\t1\na\tup\tdown\nlemmas\t2\ndown\t4\t0\nup\t4\t0\nexceptions\t0\n";
        Lexicon::from_compact(head.to_string(), "x", "0").unwrap();
        assert!(Antonyms::of_compact(head).is_empty());
        let text = format!("{head}antonyms\t1\ndown\tup\n");
        Lexicon::from_compact(text.clone(), "x", "0").unwrap();
        let a = Antonyms::of_compact(&text);
        assert!(a.are("up", "down") && a.are("down", "up") && a.len() == 1);
        let e = Lexicon::from_compact(format!("{head}antonyms\t2\ndown\tup\n"), "x", "0")
            .unwrap_err()
            .to_string();
        assert!(e.contains("truncated antonyms"), "{e}");
        let e = Lexicon::from_compact(format!("{head}antonyms\t1\ndown\n"), "x", "0")
            .unwrap_err()
            .to_string();
        assert!(e.contains(":10:") && e.contains("two lemmas"), "{e}");
    }
}
