//! What a quote changes in what was said: `meaning`, the differences
//! between a quote and the passage it was matched to that turn its sense
//! (a dropped `not`, another number, `always` for `sometimes`, an added
//! `maybe`, `we` for `I`), as opposed to `differences`, what a faithful
//! quote may set aside.
//!
//! Both texts are read as words (lower case, typographic apostrophes
//! folded, number words as their value: `ten` and `10`, `1,000` and
//! `1000` are the same number), aligned by their longest common
//! subsequence, and each run of words that differs (a hunk) is looked at
//! class by class. An ellipsis in the quote stands for the source words
//! its hunk holds: only a negator among them counts (`I would ... improve
//! it` for `I would not improve it`), and only within the sentences the
//! quote's words around the ellipsis belong to. A bracketed insertion
//! stands for source words and is not compared; `[sic]` is dropped.
//!
//! A word replaced by its antonym in the bundled WordNet (`increase`
//! for `decrease`, `easier` for `more difficult`'s `difficult`), by the
//! antonym pointers of any sense of either word's base forms, is an
//! `antonym` change; words of the other classes are left to them.
//!
//! The word lists are English and named by [`SIGNATURE`]; a file can
//! replace any of them ([`MeaningWords::from_file`]), and the signature
//! then names the file's SHA-256.
//!
//! ```
//! use corpus_eval::citations::{meaning, MeaningClass};
//! let changes = meaning("I would improve it", "I would not improve it");
//! assert_eq!(changes[0].class, MeaningClass::Negation);
//! assert_eq!((changes[0].quote.as_str(), changes[0].source.as_str()), ("", "not"));
//! assert!(meaning("ten people came", "10 people came").is_empty());
//! assert!(meaning("we sometimes checked, um", "we sometimes checked").is_empty());
//! ```

use serde::{Deserialize, Serialize};

/// The word lists' version: the `meaning` field of every signature that
/// checks quotes.
pub const SIGNATURE: &str = "en.2";

/// Words that deny (a word ending in `n't` is one too).
pub const NEGATORS: &[&str] = &[
    "not", "no", "never", "nobody", "nothing", "none", "nowhere", "neither", "nor", "without",
    "cannot",
];
/// Words of quantity or frequency.
pub const QUANTIFIERS: &[&str] = &[
    "all",
    "every",
    "each",
    "some",
    "most",
    "many",
    "few",
    "several",
    "always",
    "usually",
    "often",
    "sometimes",
    "rarely",
    "only",
    "more",
    "less",
];
/// Hedges: one word, or two (`i think`).
pub const HEDGES: &[&str] = &[
    "maybe", "perhaps", "probably", "possibly", "might", "may", "could", "likely", "seems",
    "i think", "i guess", "sort of", "kind of",
];
/// Personal pronouns by person and number (`1s`, `1p`, `2`, `3s`, `3p`).
pub const PRONOUNS: &[(&str, &str)] = &[
    ("i", "1s"),
    ("me", "1s"),
    ("my", "1s"),
    ("mine", "1s"),
    ("myself", "1s"),
    ("we", "1p"),
    ("us", "1p"),
    ("our", "1p"),
    ("ours", "1p"),
    ("ourselves", "1p"),
    ("you", "2"),
    ("your", "2"),
    ("yours", "2"),
    ("yourself", "2"),
    ("he", "3s"),
    ("him", "3s"),
    ("his", "3s"),
    ("she", "3s"),
    ("her", "3s"),
    ("hers", "3s"),
    ("they", "3p"),
    ("them", "3p"),
    ("their", "3p"),
    ("theirs", "3p"),
    ("themselves", "3p"),
];
/// Ordinal words and their numbers.
const ORDINALS: &[(&str, u64)] = &[
    ("first", 1),
    ("second", 2),
    ("third", 3),
    ("fourth", 4),
    ("fifth", 5),
    ("sixth", 6),
    ("seventh", 7),
    ("eighth", 8),
    ("ninth", 9),
    ("tenth", 10),
    ("eleventh", 11),
    ("twelfth", 12),
    ("twentieth", 20),
    ("hundredth", 100),
];

/// The word lists [`meaning`] reads: the English ones ([`SIGNATURE`]) or
/// those of a file, and whether WordNet's antonyms are looked up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MeaningWords {
    negators: Vec<String>,
    quantifiers: Vec<String>,
    hedges: Vec<String>,
    pronouns: Vec<(String, String)>,
    antonyms: bool,
    signature: String,
}

/// A word list file as written: each key replaces that list.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WordsFile {
    negators: Option<Vec<String>>,
    quantifiers: Option<Vec<String>>,
    hedges: Option<Vec<String>>,
    pronouns: Option<std::collections::BTreeMap<String, String>>,
    antonyms: Option<bool>,
}

/// A word list file that cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WordsError {
    /// The file could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: std::path::PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The file is not a valid word list.
    #[error("{path}: {message}")]
    Format {
        /// The file.
        path: std::path::PathBuf,
        /// What is wrong, with the line and column or the key.
        message: String,
    },
}

impl Default for MeaningWords {
    fn default() -> Self {
        let own = |l: &[&str]| l.iter().map(|w| w.to_string()).collect();
        MeaningWords {
            negators: own(NEGATORS),
            quantifiers: own(QUANTIFIERS),
            hedges: own(HEDGES),
            pronouns: PRONOUNS
                .iter()
                .map(|(w, p)| (w.to_string(), p.to_string()))
                .collect(),
            antonyms: true,
            signature: SIGNATURE.to_string(),
        }
    }
}

impl MeaningWords {
    /// The English lists, shared.
    pub fn english() -> std::sync::Arc<MeaningWords> {
        static ENGLISH: std::sync::OnceLock<std::sync::Arc<MeaningWords>> =
            std::sync::OnceLock::new();
        ENGLISH
            .get_or_init(|| std::sync::Arc::new(MeaningWords::default()))
            .clone()
    }

    /// The lists of a TOML file (`.json`: a JSON one) with any of the keys
    /// `negators`, `quantifiers`, `hedges` (lists of words; a hedge may be
    /// two), `pronouns` (a table word = person, e.g. `i = "1s"`) and
    /// `antonyms` (true or false); a key left out keeps the English list.
    /// The signature is `file.` and the first 12 hex digits of the
    /// file's SHA-256.
    pub fn from_file(path: &std::path::Path) -> Result<MeaningWords, WordsError> {
        let bytes = std::fs::read(path).map_err(|source| WordsError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let bad = |message: String| WordsError::Format {
            path: path.to_path_buf(),
            message,
        };
        let text = std::str::from_utf8(&bytes).map_err(|e| bad(format!("not UTF-8: {e}")))?;
        let json = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("json"));
        let file: WordsFile = if json {
            serde_json::from_str(text).map_err(|e| {
                bad(format!(
                    "{}:{}: {}",
                    e.line(),
                    e.column(),
                    strip_position(&e.to_string())
                ))
            })?
        } else {
            toml::from_str(text).map_err(|e| bad(e.to_string().trim_end().to_string()))?
        };
        let digest = crate::text::hash::sha256_hex(&bytes);
        let mut words = MeaningWords::default();
        let list =
            |key: &str, given: Vec<String>, most: usize| -> Result<Vec<String>, WordsError> {
                given
                    .into_iter()
                    .enumerate()
                    .map(|(i, w)| {
                        let w = w
                            .split_whitespace()
                            .collect::<Vec<_>>()
                            .join(" ")
                            .to_lowercase();
                        let n = w.split(' ').count();
                        if w.is_empty() || n > most {
                            Err(bad(format!(
                                "{key}[{i}]: a word list entry is {} (got {w:?})",
                                if most == 1 {
                                    "one word"
                                } else {
                                    "one or two words"
                                }
                            )))
                        } else {
                            Ok(w.replace('\u{2019}', "'"))
                        }
                    })
                    .collect()
            };
        if let Some(l) = file.negators {
            words.negators = list("negators", l, 1)?;
        }
        if let Some(l) = file.quantifiers {
            words.quantifiers = list("quantifiers", l, 1)?;
        }
        if let Some(l) = file.hedges {
            words.hedges = list("hedges", l, 2)?;
        }
        if let Some(map) = file.pronouns {
            let keys = list("pronouns", map.keys().cloned().collect(), 1)?;
            words.pronouns = keys
                .into_iter()
                .zip(map.into_values())
                .map(|(w, p)| {
                    let p = p.trim().to_string();
                    if p.is_empty() {
                        Err(bad(format!("pronouns.{w}: the person is empty")))
                    } else {
                        Ok((w, p))
                    }
                })
                .collect::<Result<_, _>>()?;
        }
        if let Some(a) = file.antonyms {
            words.antonyms = a;
        }
        words.signature = format!("file.{}", &digest[..12]);
        Ok(words)
    }

    /// The lists' name in signatures: [`SIGNATURE`], or `file.` and the
    /// file's digest.
    pub fn signature(&self) -> &str {
        &self.signature
    }

    /// The changes of meaning between `quote` and `source[span]` read
    /// with the context around it ([`meaning_in`] with these lists).
    pub fn changes(
        &self,
        quote: &str,
        source: &str,
        span: std::ops::Range<usize>,
    ) -> Vec<MeaningChange> {
        changes(self, quote, source, span)
    }

    fn is_negator(&self, t: &Token) -> bool {
        t.mark == Mark::Word && (self.negators.contains(&t.key) || t.key.ends_with("n't"))
    }

    fn person(&self, key: &str) -> Option<&str> {
        self.pronouns
            .iter()
            .find(|(w, _)| w == key)
            .map(|(_, p)| p.as_str())
    }

    /// True for a word another class reads.
    fn is_listed(&self, t: &Token) -> bool {
        t.number
            || self.is_negator(t)
            || self.quantifiers.contains(&t.key)
            || self.hedges.iter().any(|h| h.split(' ').any(|w| w == t.key))
            || self.person(&t.key).is_some()
    }
}

/// serde_json's message without its " at line L column C" tail.
fn strip_position(message: &str) -> &str {
    message.split(" at line ").next().unwrap_or(message)
}

/// Hunks of more words a side than this are not searched for antonyms.
const MAX_ANTONYM_WORDS: usize = 16;

/// Words of context read around a matched passage each side (within its
/// line): a negator just outside the span a fuzzy match chose
/// (`We went back` matched in `We never went back`) is inside the
/// quote's alignment.
pub const CONTEXT_WORDS: usize = 3;

/// Aligned word lists longer than this (the product of both lengths) are
/// compared as one hunk between their equal ends.
const MAX_ALIGN_CELLS: usize = 250_000;

/// A kind of change of meaning.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MeaningClass {
    /// A negator on one side and not the other.
    Negation,
    /// A number differs.
    Number,
    /// A word of quantity or frequency added, dropped or replaced.
    Quantifier,
    /// A hedge added or dropped.
    Hedge,
    /// A pronoun of another person or number.
    Person,
    /// A word replaced by its antonym in WordNet.
    Antonym,
}

impl MeaningClass {
    /// Every class, in the order outputs list them.
    pub const ALL: [MeaningClass; 6] = [
        MeaningClass::Negation,
        MeaningClass::Number,
        MeaningClass::Quantifier,
        MeaningClass::Hedge,
        MeaningClass::Person,
        MeaningClass::Antonym,
    ];

    /// The name in outputs.
    pub fn as_str(self) -> &'static str {
        match self {
            MeaningClass::Negation => "negation",
            MeaningClass::Number => "number",
            MeaningClass::Quantifier => "quantifier",
            MeaningClass::Hedge => "hedge",
            MeaningClass::Person => "person",
            MeaningClass::Antonym => "antonym",
        }
    }
}

/// One change of meaning: its class and the words on each side (as
/// written; empty where a side has none).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MeaningChange {
    /// What kind of change.
    pub class: MeaningClass,
    /// The quote's words of the change.
    pub quote: String,
    /// The source's words of the change.
    pub source: String,
}

/// Quotes whose match changes what was said: how many, and how many per
/// class (every class listed, 0 included). summary.json's
/// `meaning_changed`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeaningCounts {
    /// Quotes with one change or more.
    pub total: usize,
    /// Quotes per class (a quote counted once per class it shows).
    pub by_class: std::collections::BTreeMap<String, usize>,
}

impl MeaningCounts {
    /// The counts of quotes whose changes are `changes` (one slice per
    /// quote, empty for an unchanged one).
    pub fn of<'a>(changes: impl IntoIterator<Item = &'a [MeaningChange]>) -> MeaningCounts {
        let mut counts = MeaningCounts::default();
        for c in changes {
            counts.add(c);
        }
        counts.listed()
    }

    /// Counts one quote's changes.
    pub fn add(&mut self, changes: &[MeaningChange]) {
        if changes.is_empty() {
            return;
        }
        self.total += 1;
        let mut seen: Vec<MeaningClass> = changes.iter().map(|c| c.class).collect();
        seen.sort();
        seen.dedup();
        for class in seen {
            *self.by_class.entry(class.as_str().to_string()).or_default() += 1;
        }
    }

    /// Adds another part's counts.
    pub fn merge(&mut self, other: &MeaningCounts) {
        self.total += other.total;
        for (k, n) in &other.by_class {
            *self.by_class.entry(k.clone()).or_default() += n;
        }
    }

    /// With every class listed (0 for those not met).
    pub fn listed(mut self) -> MeaningCounts {
        for class in MeaningClass::ALL {
            self.by_class.entry(class.as_str().to_string()).or_default();
        }
        self
    }
}

/// A quote's changes as a table cell: their classes, each once in the
/// order of [`MeaningClass::ALL`], joined with `;` (quotes.csv's and the
/// DataFrames' `meaning` column; empty for none).
pub fn meaning_classes(changes: &[MeaningChange]) -> String {
    let mut classes: Vec<MeaningClass> = changes.iter().map(|c| c.class).collect();
    classes.sort();
    classes.dedup();
    classes
        .iter()
        .map(|c| c.as_str())
        .collect::<Vec<_>>()
        .join(";")
}

/// What a token is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mark {
    /// A word (or a number, as its value).
    Word,
    /// An ellipsis of the quote.
    Ellipsis,
    /// A bracketed insertion of the quote.
    Insertion,
    /// The end of a sentence (`.`, `!`, `?`).
    Stop,
}

/// A token: its compared form and where it stands in the text.
#[derive(Debug, Clone)]
struct Token {
    key: String,
    mark: Mark,
    number: bool,
    at: std::ops::Range<usize>,
}

/// The changes of meaning between `quote` and `source` (the passage it was
/// matched to), in the order they stand.
pub fn meaning(quote: &str, source: &str) -> Vec<MeaningChange> {
    meaning_in(quote, source, 0..source.len())
}

/// [`meaning`] against a passage read with context: `source[span]` is
/// the matched passage, what lies around it context. Context words the
/// quote does not hold, at either end of the alignment, are left out: a
/// quote may begin or end anywhere.
pub fn meaning_in(quote: &str, source: &str, span: std::ops::Range<usize>) -> Vec<MeaningChange> {
    changes(&MeaningWords::english(), quote, source, span)
}

fn changes(
    words: &MeaningWords,
    quote: &str,
    source: &str,
    span: std::ops::Range<usize>,
) -> Vec<MeaningChange> {
    if quote == source {
        return Vec::new();
    }
    let (q, s) = (tokens(quote, true), tokens(source, false));
    let mut out = Vec::new();
    let all = hunks(&q, &s);
    let last = all.len().saturating_sub(1);
    let context = span != (0..source.len());
    for (k, (qr, mut sr)) in all.into_iter().enumerate() {
        // At an end of the alignment, the context words are not the
        // passage's: left out (and a run of source words no quote word
        // faces there is where the quote begins or ends).
        if context && k == 0 && qr.start == 0 {
            while sr.start < sr.end && s[sr.start].at.end <= span.start {
                sr.start += 1;
            }
        }
        if context && k == last && qr.end == q.len() {
            while sr.end > sr.start && s[sr.end - 1].at.start >= span.end {
                sr.end -= 1;
            }
        }
        let at_end = (k == 0 && qr.start == 0) || (k == last && qr.end == q.len());
        if at_end && qr.is_empty() && context {
            continue;
        }
        let sh = &s[sr.clone()];
        let qh = &respelled(words, &q[qr.clone()], sh);
        let text = |toks: &[Token], from: &str| -> String {
            let words: Vec<&Token> = toks.iter().filter(|t| t.mark == Mark::Word).collect();
            match (words.first(), words.last()) {
                (Some(a), Some(b)) => from[a.at.start..b.at.end].to_string(),
                _ => String::new(),
            }
        };
        let mut push = |class: MeaningClass, qt: &[Token], st: &[Token]| {
            out.push(MeaningChange {
                class,
                quote: text(qt, quote),
                source: text(st, source),
            });
        };
        if qh.iter().any(|t| t.mark == Mark::Insertion) {
            continue;
        }
        if qh.iter().any(|t| t.mark == Mark::Ellipsis) {
            // Only the source words of the sentences the ellipsis joins.
            let first_stop = sh.iter().position(|t| t.mark == Mark::Stop);
            let last_stop = sh.iter().rposition(|t| t.mark == Mark::Stop);
            let near: Vec<Token> = match (first_stop, last_stop) {
                (Some(a), Some(b)) => sh[..a].iter().chain(&sh[b + 1..]).cloned().collect(),
                _ => sh.to_vec(),
            };
            if negators(words, &near) > 0 {
                let shown: Vec<Token> = near.into_iter().filter(|t| words.is_negator(t)).collect();
                push(MeaningClass::Negation, &[], &shown);
            }
            continue;
        }
        if negators(words, qh) != negators(words, sh) {
            push(MeaningClass::Negation, qh, sh);
        }
        let numbers = |h: &[Token]| sorted(h.iter().filter(|t| t.number).map(|t| t.key.clone()));
        let (nq, ns) = (numbers(qh), numbers(sh));
        if nq != ns {
            push(MeaningClass::Number, qh, sh);
        }
        let quantifiers = |h: &[Token]| {
            sorted(
                h.iter()
                    .filter(|t| words.quantifiers.contains(&t.key))
                    .map(|t| t.key.clone()),
            )
        };
        if quantifiers(qh) != quantifiers(sh) {
            push(MeaningClass::Quantifier, qh, sh);
        }
        // Hedges of two words may straddle the hunk's edge: one word of
        // context each side.
        let widen = |toks: &[Token], r: &std::ops::Range<usize>, middle: &[Token]| -> Vec<Token> {
            let before = toks[..r.start].last().into_iter();
            let after = toks[r.end..].first().into_iter();
            before.chain(middle).chain(after).cloned().collect()
        };
        if hedges(words, &widen(&q, &qr, qh)) != hedges(words, &widen(&s, &sr, sh)) {
            push(MeaningClass::Hedge, qh, sh);
        }
        let persons = |h: &[Token]| {
            sorted(
                h.iter()
                    .filter_map(|t| words.person(&t.key).map(str::to_string)),
            )
        };
        let (pq, ps) = (persons(qh), persons(sh));
        if !pq.is_empty() && !ps.is_empty() && pq != ps {
            push(MeaningClass::Person, qh, sh);
        }
        if words.antonyms {
            for (a, b) in antonyms(words, qh, sh) {
                push(MeaningClass::Antonym, &[a], &[b]);
            }
        }
    }
    out
}

/// The quote's words of a hunk, each misspelling of a source word of the
/// hunk read as that word (a word of 4 letters or more, one edit away;
/// of 8 or more, two): `nevr` is `never`, a typo and not a dropped
/// negator. Numbers are compared as they are.
fn respelled(words: &MeaningWords, qh: &[Token], sh: &[Token]) -> Vec<Token> {
    qh.iter()
        .map(|t| {
            let n = t.key.chars().count();
            if t.mark != Mark::Word || t.number || n < 4 {
                return t.clone();
            }
            let most = if n >= 8 { 2 } else { 1 };
            let near = sh.iter().find(|s| {
                s.mark == Mark::Word
                    && !s.number
                    && s.key != t.key
                    && edits(&t.key, &s.key) <= most
                    && !is_antonym(words, &t.key, &s.key)
            });
            match near {
                Some(s) => Token {
                    key: s.key.clone(),
                    ..t.clone()
                },
                None => t.clone(),
            }
        })
        .collect()
}

/// The edit distance of two short words (Levenshtein, in chars).
fn edits(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut diag = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let up = row[j + 1];
            row[j + 1] = (diag + usize::from(ca != cb)).min(row[j] + 1).min(up + 1);
            diag = up;
        }
    }
    row[b.len()]
}

fn sorted(items: impl Iterator<Item = String>) -> Vec<String> {
    let mut v: Vec<String> = items.collect();
    v.sort();
    v
}

fn negators(words: &MeaningWords, h: &[Token]) -> usize {
    h.iter().filter(|t| words.is_negator(t)).count()
}

/// True when WordNet names the two words antonyms (and the lists look
/// them up): `decreased` is no misspelling of `increased`.
fn is_antonym(words: &MeaningWords, a: &str, b: &str) -> bool {
    words.antonyms && crate::lexicon::Antonyms::bundled().are(a, b)
}

/// The pairs of a hunk's words, one each side, that WordNet names
/// antonyms (words of the other classes left out), each once.
fn antonyms(words: &MeaningWords, qh: &[Token], sh: &[Token]) -> Vec<(Token, Token)> {
    let plain = |t: &&Token| t.mark == Mark::Word && !words.is_listed(t);
    let (qw, sw): (Vec<&Token>, Vec<&Token>) = (
        qh.iter().filter(plain).collect(),
        sh.iter().filter(plain).collect(),
    );
    if qw.is_empty()
        || sw.is_empty()
        || qw.len() > MAX_ANTONYM_WORDS
        || sw.len() > MAX_ANTONYM_WORDS
    {
        return Vec::new();
    }
    let antonyms = crate::lexicon::Antonyms::bundled();
    // The words a hunk replaces face each other in order when both sides
    // have as many; otherwise only a short hunk (two words a side) pairs
    // each with each: a word is not read against one it merely stands near.
    let pairs: Vec<(&Token, &Token)> = if qw.len() == sw.len() {
        qw.iter().copied().zip(sw.iter().copied()).collect()
    } else if qw.len() <= 2 && sw.len() <= 2 {
        qw.iter()
            .flat_map(|a| sw.iter().map(move |b| (*a, *b)))
            .collect()
    } else {
        Vec::new()
    };
    let mut out: Vec<(Token, Token)> = Vec::new();
    for (a, b) in pairs {
        if a.key != b.key
            && !out.iter().any(|(x, y)| x.key == a.key && y.key == b.key)
            && antonyms.are(&a.key, &b.key)
        {
            out.push((a.clone(), b.clone()));
        }
    }
    out
}

/// The hedges of a run of tokens: one-word ones, and two-word ones read
/// across adjacent words.
fn hedges(list: &MeaningWords, h: &[Token]) -> usize {
    let words: Vec<&str> = h
        .iter()
        .filter(|t| t.mark == Mark::Word)
        .map(|t| t.key.as_str())
        .collect();
    let mut n = 0;
    for (i, w) in words.iter().enumerate() {
        if list.hedges.iter().any(|h| h == w) {
            n += 1;
        }
        if let Some(next) = words.get(i + 1) {
            let two = format!("{w} {next}");
            if list.hedges.contains(&two) {
                n += 1;
            }
        }
    }
    n
}

/// The text's tokens; in a quote (`is_quote`), ellipses and bracketed
/// insertions are marked and `[sic]` dropped.
fn tokens(text: &str, is_quote: bool) -> Vec<Token> {
    let mut raw: Vec<Token> = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if is_quote && c == '[' {
            let close = text[i..].find(']').map(|k| i + k + 1);
            if let Some(end) = close {
                let inner = text[i + 1..end - 1].trim().to_lowercase();
                let mark = match inner.as_str() {
                    "sic" => None,
                    "..." | "\u{2026}" | ". . ." => Some(Mark::Ellipsis),
                    _ => Some(Mark::Insertion),
                };
                if let Some(mark) = mark {
                    raw.push(Token {
                        key: String::new(),
                        mark,
                        number: false,
                        at: i..end,
                    });
                }
                while chars.peek().is_some_and(|&(k, _)| k < end) {
                    chars.next();
                }
                continue;
            }
        }
        if c == '\u{2026}' || (c == '.' && text[i..].starts_with("...")) {
            let end = if c == '.' {
                let mut e = i;
                while text[e..].starts_with('.') {
                    e += 1;
                }
                e
            } else {
                i + c.len_utf8()
            };
            while chars.peek().is_some_and(|&(k, _)| k < end) {
                chars.next();
            }
            raw.push(Token {
                key: String::new(),
                mark: if is_quote { Mark::Ellipsis } else { Mark::Stop },
                number: false,
                at: i..end,
            });
            continue;
        }
        if matches!(c, '.' | '!' | '?') {
            raw.push(Token {
                key: String::new(),
                mark: Mark::Stop,
                number: false,
                at: i..i + 1,
            });
            continue;
        }
        if c == '%' {
            raw.push(word("percent", i..i + 1));
            continue;
        }
        if c.is_alphanumeric() {
            let mut end = i + c.len_utf8();
            while let Some(&(k, d)) = chars.peek() {
                let inner_mark = matches!(d, '\'' | '\u{2019}' | ',' | '.')
                    && text[k + d.len_utf8()..].chars().next().is_some_and(|n| {
                        if d == ',' || d == '.' {
                            c.is_ascii_digit() && n.is_ascii_digit()
                        } else {
                            n.is_alphanumeric()
                        }
                    });
                if d.is_alphanumeric() || inner_mark {
                    end = k + d.len_utf8();
                    chars.next();
                } else {
                    break;
                }
            }
            let key = text[i..end].to_lowercase().replace('\u{2019}', "'");
            raw.push(word(&key, i..end));
        }
    }
    numbers(raw)
}

fn word(key: &str, at: std::ops::Range<usize>) -> Token {
    Token {
        key: key.to_string(),
        mark: Mark::Word,
        number: false,
        at,
    }
}

/// Number words, digits (`1,000`), ordinals (`3rd`, `third`) as their
/// value; a run of number words as one token.
fn numbers(raw: Vec<Token>) -> Vec<Token> {
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        let t = &raw[i];
        if t.mark == Mark::Word {
            let run: Vec<&str> = raw[i..]
                .iter()
                .take_while(|t| t.mark == Mark::Word)
                .map(|t| t.key.as_str())
                .collect();
            if let Some((value, used)) = crate::text::numbers::parse_prefix(&run) {
                out.push(Token {
                    key: value.to_string(),
                    mark: Mark::Word,
                    number: true,
                    at: t.at.start..raw[i + used - 1].at.end,
                });
                i += used;
                continue;
            }
            if let Some(value) = digits(&t.key) {
                out.push(Token {
                    key: value,
                    number: true,
                    ..t.clone()
                });
                i += 1;
                continue;
            }
        }
        out.push(t.clone());
        i += 1;
    }
    out
}

/// A digit token's value: `1,000` is `1000`, `2.50` is `2.5`, `3rd` is 3
/// (a number word or an ordinal word too).
fn digits(key: &str) -> Option<String> {
    if let Some(&(_, n)) = ORDINALS.iter().find(|(w, _)| *w == key) {
        return Some(n.to_string());
    }
    let stem = ["st", "nd", "rd", "th"]
        .iter()
        .find_map(|s| {
            key.strip_suffix(s)
                .filter(|d| !d.is_empty() && d.chars().all(|c| c.is_ascii_digit()))
        })
        .unwrap_or(key);
    if !stem.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let plain: String = stem.chars().filter(|&c| c != ',').collect();
    if let Some(n) = crate::text::numbers::parse_digits(&plain) {
        return Some(n.to_string());
    }
    let x: f64 = plain.parse().ok()?;
    x.is_finite().then(|| format!("{x}"))
}

/// The runs of tokens that differ, as (quote range, source range) pairs,
/// from the longest common subsequence of their keys (stops and
/// punctuation compared as words are).
fn hunks(q: &[Token], s: &[Token]) -> Vec<(std::ops::Range<usize>, std::ops::Range<usize>)> {
    let same =
        |a: &Token, b: &Token| a.mark == b.mark && a.key == b.key && a.mark != Mark::Ellipsis;
    // The equal ends, then the middle aligned (or one hunk when too long).
    let mut head = 0;
    while head < q.len() && head < s.len() && same(&q[head], &s[head]) {
        head += 1;
    }
    let mut tail = 0;
    while tail < q.len() - head
        && tail < s.len() - head
        && same(&q[q.len() - 1 - tail], &s[s.len() - 1 - tail])
    {
        tail += 1;
    }
    let (qm, sm) = (&q[head..q.len() - tail], &s[head..s.len() - tail]);
    let mut out = Vec::new();
    if qm.is_empty() && sm.is_empty() {
        return out;
    }
    if qm.len().saturating_mul(sm.len()) > MAX_ALIGN_CELLS || qm.is_empty() || sm.is_empty() {
        out.push((head..head + qm.len(), head..head + sm.len()));
        return out;
    }
    // lcs[i][j]: the longest common subsequence of qm[i..] and sm[j..].
    let (n, m) = (qm.len(), sm.len());
    let mut lcs = vec![0u32; (n + 1) * (m + 1)];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i * (m + 1) + j] = if same(&qm[i], &sm[j]) {
                lcs[(i + 1) * (m + 1) + j + 1] + 1
            } else {
                lcs[(i + 1) * (m + 1) + j].max(lcs[i * (m + 1) + j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let (mut qs, mut ss) = (0, 0);
    let mut open = false;
    while i < n || j < m {
        if i < n && j < m && same(&qm[i], &sm[j]) {
            if open {
                out.push((head + qs..head + i, head + ss..head + j));
                open = false;
            }
            i += 1;
            j += 1;
            continue;
        }
        if !open {
            (qs, ss, open) = (i, j, true);
        }
        if j < m && (i == n || lcs[i * (m + 1) + j + 1] >= lcs[(i + 1) * (m + 1) + j]) {
            j += 1;
        } else {
            i += 1;
        }
    }
    if open {
        out.push((head + qs..head + n, head + ss..head + m));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn classes(q: &str, s: &str) -> Vec<MeaningClass> {
        meaning(q, s).into_iter().map(|c| c.class).collect()
    }

    #[test]
    fn negation_is_a_negator_on_one_side() {
        use MeaningClass::*;
        assert_eq!(
            classes("I would improve it", "I would not improve it"),
            [Negation]
        );
        assert_eq!(classes("we didn't go", "we did go"), [Negation]);
        assert_eq!(
            classes("there was nothing left", "there was something left"),
            [Negation]
        );
        assert_eq!(classes("I cannot say", "I can say"), [Negation]);
        // Both sides deny: no change.
        assert!(classes("we never went back", "we never went back, um").is_empty());
        assert!(classes("I don't know", "I do not know").is_empty());
        // `know` and `now` hold `no` but are no negators.
        assert!(classes("I know now", "I knew now").is_empty());
        // A short negator is compared as written: `now` is not a typo of
        // `not`.
        assert_eq!(classes("I would now say", "I would not say"), [Negation]);
    }

    #[test]
    fn an_ellipsis_that_drops_a_not_is_a_negation() {
        let c = meaning("I would ... improve it", "I would not improve it");
        assert_eq!(c.len(), 1);
        assert_eq!(
            (c[0].class, c[0].source.as_str()),
            (MeaningClass::Negation, "not")
        );
        assert!(meaning("I would ... improve it", "I would certainly improve it").is_empty());
        // A negator in another sentence the ellipsis passes over is not
        // this quote's.
        assert!(meaning(
            "We went there ... the food was great",
            "We went there. We did not like it. Then the food was great"
        )
        .is_empty());
    }

    #[test]
    fn numbers_compare_by_value() {
        use MeaningClass::*;
        assert_eq!(classes("50 people came", "15 people came"), [Number]);
        assert_eq!(
            classes("fifty people came", "fifteen people came"),
            [Number]
        );
        assert!(classes("ten people came", "10 people came").is_empty());
        assert!(classes("1,000 people", "1000 people").is_empty());
        assert!(classes("one thousand people", "1,000 people").is_empty());
        assert!(classes("the third time", "the 3rd time").is_empty());
        assert_eq!(classes("the third time", "the fourth time"), [Number]);
        assert!(classes("50% of them", "50 percent of them").is_empty());
        assert_eq!(classes("5% of them", "50% of them"), [Number]);
        assert_eq!(classes("it cost 2.5 pounds", "it cost 25 pounds"), [Number]);
    }

    #[test]
    fn quantifiers_hedges_and_persons() {
        use MeaningClass::*;
        assert_eq!(
            classes("we always checked", "we sometimes checked"),
            [Quantifier]
        );
        assert_eq!(classes("all of them came", "they came"), [Quantifier]);
        assert!(classes("some of them came, um", "some of them came").is_empty());
        assert_eq!(classes("it will work", "it might work"), [Hedge]);
        assert_eq!(
            classes("the rent went up", "I think the rent went up"),
            [Hedge]
        );
        assert_eq!(classes("it was bad", "it was sort of bad"), [Hedge]);
        // A hedge on both sides: no change.
        assert!(classes("maybe it will work", "maybe it will work.").is_empty());
        assert_eq!(classes("I sold the farm", "we sold the farm"), [Person]);
        assert_eq!(classes("my house", "their house"), [Person]);
        // Dropping a pronoun is no change of person.
        assert!(classes("sold the farm", "we sold the farm").is_empty());
    }

    #[test]
    fn typos_and_what_differences_cover_change_nothing() {
        for (q, s) in [
            (
                "We had three meetins with the board",
                "We had three meetings with the board",
            ),
            ("She hated it honestly", "she hated it, honestly,"),
            ("the lift breaks down", "The lift, um, breaks down"),
            (
                "[The lift] breaks down every few weeks",
                "It breaks down every few weeks",
            ),
            ("it was wrong [sic] to do", "it was wrong to do"),
            ("the café was open", "the cafe was open"),
            ("don’t go", "don't go"),
            ("she nevr said so", "she never said so"),
            ("it was allways full", "it was always full"),
            ("we probaly left", "we probably left"),
        ] {
            assert!(meaning(q, s).is_empty(), "{q} / {s}: {:?}", meaning(q, s));
        }
    }

    #[test]
    fn the_words_of_each_side_are_shown_as_written() {
        let c = meaning(
            "We ALWAYS checked the boats",
            "we sometimes checked the boats",
        );
        assert_eq!(c.len(), 1);
        assert_eq!(
            (c[0].quote.as_str(), c[0].source.as_str()),
            ("ALWAYS", "sometimes")
        );
        let c = meaning("Fifty people came", "15 people came");
        assert_eq!((c[0].quote.as_str(), c[0].source.as_str()), ("Fifty", "15"));
    }

    #[test]
    fn antonyms_of_any_sense_and_form() {
        use MeaningClass::*;
        assert_eq!(
            classes("prices increased in May", "prices decreased in May"),
            [Antonym]
        );
        assert_eq!(
            classes("it was easier then", "it was difficult then"),
            [Antonym]
        );
        let c = meaning("the road was closed", "the road was open");
        assert_eq!(
            (c[0].quote.as_str(), c[0].source.as_str()),
            ("closed", "open")
        );
        // Synonyms, a typo and the same word in another form are none.
        assert!(classes("a big house", "a large house").is_empty());
        assert!(classes("prices increassed", "prices increased").is_empty());
        assert!(classes("prices increase", "prices increased").is_empty());
        // A pair another class reads is left to it (`more` / `less`).
        assert_eq!(classes("we paid more", "we paid less"), [Quantifier]);
    }

    #[test]
    fn word_lists_from_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let toml = dir.path().join("words.toml");
        std::fs::write(
            &toml,
            "negators = [\"nie\", \"kein\"]\nantonyms = false\n[pronouns]\nich = \"1s\"\nwir = \"1p\"\n",
        )
        .unwrap();
        let words = MeaningWords::from_file(&toml).unwrap();
        assert!(words.signature().starts_with("file."));
        assert_eq!(words.signature().len(), "file.".len() + 12);
        let c = |q: &str, s: &str| -> Vec<MeaningClass> {
            words
                .changes(q, s, 0..s.len())
                .iter()
                .map(|c| c.class)
                .collect()
        };
        assert_eq!(c("ich war da", "ich war nie da"), [MeaningClass::Negation]);
        assert_eq!(c("wir waren da", "ich war da"), [MeaningClass::Person]);
        // English negators are replaced; the quantifiers kept; antonyms off.
        assert!(c("I would improve it", "I would not improve it").is_empty());
        assert_eq!(c("we always went", "we went"), [MeaningClass::Quantifier]);
        assert!(c("prices increased", "prices decreased").is_empty());
        // Errors name the file and where.
        let bad = dir.path().join("bad.json");
        std::fs::write(
            &bad,
            "{\n  \"negators\": [\"not\"],\n  \"negators2\": []\n}",
        )
        .unwrap();
        let e = MeaningWords::from_file(&bad).unwrap_err().to_string();
        assert!(e.contains("bad.json: 3:") && e.contains("negators2"), "{e}");
        std::fs::write(&toml, "hedges = [\"sort of like\"]").unwrap();
        let e = MeaningWords::from_file(&toml).unwrap_err().to_string();
        assert!(
            e.contains("hedges[0]") && e.contains("one or two words"),
            "{e}"
        );
        std::fs::write(&toml, "negators = 3").unwrap();
        let e = MeaningWords::from_file(&toml).unwrap_err().to_string();
        assert!(e.contains("words.toml") && e.contains("line 1"), "{e}");
        assert_eq!(MeaningWords::english().signature(), SIGNATURE);
    }

    #[test]
    fn planted_changes_are_flagged_with_their_class_and_typos_are_not() {
        // Random sentences of neutral words around "I" and a number; one
        // change of each class planted, or one typo.
        const WORDS: &[&str] = &[
            "harbour", "boats", "winter", "market", "fishing", "council", "houses", "village",
            "storm", "family", "money", "school", "summer", "nets", "prices", "ferry", "church",
            "stayed", "sold", "built", "repaired", "moved", "opened", "closed", "the", "a", "to",
            "in", "and", "there", "that", "when",
        ];
        let mut next = crate::test_rng::seeded(57);
        let pick = |n: usize, next: &mut dyn FnMut() -> u64| (next() % n as u64) as usize;
        for round in 0..400 {
            let len = 6 + pick(10, &mut next);
            let mut words: Vec<String> = (0..len)
                .map(|_| WORDS[pick(WORDS.len(), &mut next)].to_string())
                .collect();
            let number = 2 + pick(90, &mut next) as u64;
            let at = pick(words.len(), &mut next);
            words.insert(at, number.to_string());
            words.insert(0, "I".to_string());
            let source = words.join(" ");
            let at = 1 + pick(words.len() - 1, &mut next);
            let with = |w: &[String]| w.join(" ");
            let mut planted: Vec<(MeaningClass, String)> = Vec::new();
            let mut w = words.clone();
            w.insert(at, "not".into());
            planted.push((MeaningClass::Negation, with(&w)));
            let mut w = words.clone();
            for x in w.iter_mut().filter(|x| **x == number.to_string()) {
                *x = (number + 1 + pick(5, &mut next) as u64).to_string();
            }
            planted.push((MeaningClass::Number, with(&w)));
            let mut w = words.clone();
            w.insert(
                at,
                ["always", "only", "several", "rarely"][round % 4].into(),
            );
            planted.push((MeaningClass::Quantifier, with(&w)));
            let mut w = words.clone();
            w.insert(at, ["maybe", "probably", "perhaps"][round % 3].into());
            planted.push((MeaningClass::Hedge, with(&w)));
            let mut w = words.clone();
            w[0] = ["we", "they"][round % 2].into();
            planted.push((MeaningClass::Person, with(&w)));
            for (class, quote) in planted {
                let got: Vec<MeaningClass> =
                    meaning(&quote, &source).iter().map(|c| c.class).collect();
                assert_eq!(got, [class], "{quote:?} / {source:?}");
            }
            // An antonym: one word of a pair said, the other quoted.
            let (said, quoted) = [
                ("increased", "decreased"),
                ("early", "late"),
                ("easy", "difficult"),
                ("happy", "unhappy"),
                ("cheap", "expensive"),
                ("win", "lose"),
            ][round % 6];
            let (mut s2, mut q2) = (words.clone(), words.clone());
            s2.insert(at, said.into());
            q2.insert(at, quoted.into());
            let got: Vec<MeaningClass> = meaning(&with(&q2), &with(&s2))
                .iter()
                .map(|c| c.class)
                .collect();
            assert_eq!(got, [MeaningClass::Antonym], "{q2:?} / {s2:?}");
            // A typo: two letters of a long word swapped.
            let mut w = words.clone();
            if let Some(k) = (1..w.len()).find(|&k| w[k].len() >= 5) {
                let mut chars: Vec<char> = w[k].chars().collect();
                chars.swap(1, 2);
                w[k] = chars.into_iter().collect();
            }
            let typo = with(&w);
            assert!(meaning(&typo, &source).is_empty(), "{typo:?} / {source:?}");
        }
    }
}
