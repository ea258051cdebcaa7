//! Number words <-> digits.
//!
//! [`canonicalize`] rewrites runs of English number words in a token list as
//! digits, so that "five", "twenty-one" and "one hundred and five" compare
//! equal to "5", "21" and "105". [`spellings`] goes the other way for
//! enrichment, through the `num2words` crate, with and without the British
//! "and".
//!
//! ```
//! use corpus_eval::text::{parse_words, spellings};
//! assert_eq!(parse_words(&["one", "thousand", "and", "three"]), Some(1003));
//! assert!(spellings(21).contains(&"twenty-one".to_string()));
//! ```

/// The kind of a number word.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Word {
    /// zero..nineteen
    Small(u64),
    /// twenty, thirty, ... ninety
    Tens(u64),
    /// hundred
    Hundred,
    /// thousand, million, billion, trillion
    Scale(u64),
}

fn classify(token: &str) -> Option<Word> {
    // Every number word is 3-9 ASCII letters starting with one of these:
    // most tokens are rejected without a comparison.
    let b = token.as_bytes();
    if !(3..=9).contains(&b.len())
        || !matches!(
            b[0],
            b'z' | b'o' | b't' | b'f' | b's' | b'e' | b'n' | b'h' | b'm' | b'b'
        )
    {
        return None;
    }
    const SMALL: [&str; 20] = [
        "zero",
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "eleven",
        "twelve",
        "thirteen",
        "fourteen",
        "fifteen",
        "sixteen",
        "seventeen",
        "eighteen",
        "nineteen",
    ];
    const TENS: [&str; 8] = [
        "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
    ];
    if let Some(i) = SMALL.iter().position(|w| *w == token) {
        return Some(Word::Small(i as u64));
    }
    if let Some(i) = TENS.iter().position(|w| *w == token) {
        return Some(Word::Tens(20 + 10 * i as u64));
    }
    match token {
        "hundred" => Some(Word::Hundred),
        "thousand" => Some(Word::Scale(1_000)),
        "million" => Some(Word::Scale(1_000_000)),
        "billion" => Some(Word::Scale(1_000_000_000)),
        "trillion" => Some(Word::Scale(1_000_000_000_000)),
        _ => None,
    }
}

/// Accumulates one number while its words are read.
#[derive(Default)]
struct Acc {
    total: u64,
    current: u64,
    last: Option<Word>,
    /// Scale of the last scale word, so "thousand million" style runs stop.
    last_scale: u64,
}

impl Acc {
    /// Tries to add a word; false when the word cannot continue this number.
    fn push(&mut self, w: Word) -> bool {
        let ok = match (self.last, w) {
            (None, _) => true,
            (Some(Word::Small(_)), Word::Small(_) | Word::Tens(_)) => false,
            (Some(Word::Tens(_)), Word::Small(v)) => (1..=9).contains(&v),
            (Some(Word::Tens(_)), Word::Tens(_)) => false,
            (Some(Word::Hundred), Word::Hundred) => false,
            (Some(Word::Scale(_)), Word::Hundred) => false,
            (Some(_), Word::Scale(s)) => self.last_scale == 0 || s < self.last_scale,
            (Some(_), Word::Hundred) => self.current > 0 && self.current < 100,
            (Some(Word::Hundred | Word::Scale(_)), Word::Small(_) | Word::Tens(_)) => {
                self.current.is_multiple_of(100)
            }
        };
        if !ok {
            return false;
        }
        match w {
            Word::Small(v) | Word::Tens(v) => self.current += v,
            Word::Hundred => self.current = self.current.max(1) * 100,
            Word::Scale(s) => {
                self.total += self.current.max(1) * s;
                self.current = 0;
                self.last_scale = s;
            }
        }
        self.last = Some(w);
        true
    }

    fn value(&self) -> u64 {
        self.total + self.current
    }
}

/// Parses a whole token list as one English number ("one hundred and five").
/// Returns `None` unless every token takes part in a single number.
pub fn parse_words(tokens: &[&str]) -> Option<u64> {
    let (value, used) = parse_prefix(tokens)?;
    (used == tokens.len()).then_some(value)
}

/// Parses the longest number at the start of `tokens`; returns its value and
/// the number of tokens it used.
pub fn parse_prefix(tokens: &[&str]) -> Option<(u64, usize)> {
    let mut acc = Acc::default();
    let mut used = 0;
    let mut i = 0;
    while i < tokens.len() {
        let tok = tokens[i];
        if tok == "and" {
            // "and" joins only after hundred/thousand and before a small number.
            let after_big = matches!(acc.last, Some(Word::Hundred | Word::Scale(_)));
            let next = tokens.get(i + 1).and_then(|t| classify(t));
            if after_big && matches!(next, Some(Word::Small(_) | Word::Tens(_))) {
                i += 1;
                continue;
            }
            break;
        }
        match classify(tok) {
            Some(w) if acc.push(w) => {
                i += 1;
                used = i;
            }
            _ => break,
        }
    }
    (used > 0).then(|| (acc.value(), used))
}

/// Rewrites runs of number words as digit tokens; other tokens are kept.
pub fn canonicalize(tokens: &[&str]) -> Vec<String> {
    let mut out = Vec::with_capacity(tokens.len());
    let mut i = 0;
    while i < tokens.len() {
        if classify(tokens[i]).is_some() {
            if let Some((value, used)) = parse_prefix(&tokens[i..]) {
                out.push(value.to_string());
                i += used;
                continue;
            }
        }
        out.push(tokens[i].to_string());
        i += 1;
    }
    out
}

/// Parses a digit string such as "1000" or "1,000" into a number.
pub fn parse_digits(text: &str) -> Option<u64> {
    let t = text.trim();
    if t.is_empty() || !t.chars().all(|c| c.is_ascii_digit() || c == ',') {
        return None;
    }
    let digits: String = t.chars().filter(|c| *c != ',').collect();
    digits.parse().ok()
}

/// The spelled-out forms of `n`: num2words' cardinal (British "and"), the
/// same without "and", and both with spaces instead of hyphens.
pub fn spellings(n: u64) -> Vec<String> {
    let spell = |x: u64| num2words::Num2Words::new(x).to_words().ok();
    let Some(words) = spell(n) else {
        return Vec::new();
    };
    let without_and = words.replace(" and ", " ");
    // num2words writes "and" after thousands but not after hundreds
    // ("one hundred five"); build the British form itself.
    let words = match (
        n > 100 && !n.is_multiple_of(100),
        spell(n - n % 100),
        spell(n % 100),
    ) {
        (true, Some(head), Some(tail)) => format!("{head} and {tail}"),
        _ => words,
    };
    let mut out = Vec::new();
    for form in [
        words.clone(),
        without_and.clone(),
        words.replace('-', " "),
        without_and.replace('-', " "),
    ] {
        if !out.contains(&form) {
            out.push(form);
        }
    }
    out
}

/// The other forms of a number written either way: digits for words
/// ("twenty-one" -> "21") and words for digits ("5" -> "five").
pub fn number_forms(value: &str) -> Vec<String> {
    if let Some(n) = parse_digits(value) {
        return spellings(n);
    }
    let norm = super::normalize(value);
    let toks: Vec<&str> = super::words(&norm).collect();
    match parse_words(&toks) {
        Some(n) => vec![n.to_string()],
        None => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Option<u64> {
        let toks: Vec<&str> = s.split_whitespace().collect();
        parse_words(&toks)
    }

    #[test]
    fn parses_word_numbers() {
        assert_eq!(parse("five"), Some(5));
        assert_eq!(parse("zero"), Some(0));
        assert_eq!(parse("twenty one"), Some(21));
        assert_eq!(parse("one hundred and five"), Some(105));
        assert_eq!(parse("one hundred five"), Some(105));
        assert_eq!(parse("hundred"), Some(100));
        assert_eq!(parse("two thousand and twenty four"), Some(2024));
        assert_eq!(parse("one million two hundred thousand"), Some(1_200_000));
        assert_eq!(parse("nineteen"), Some(19));
        assert_eq!(parse("ninety nine"), Some(99));
        assert_eq!(parse("five six"), None);
        assert_eq!(parse("twenty thirty"), None);
        assert_eq!(parse("and five"), None);
        assert_eq!(parse("banana"), None);
    }

    #[test]
    fn canonicalize_splits_runs() {
        let toks = [
            "we", "had", "five", "six", "cows", "and", "two", "hundred", "and", "one",
        ];
        assert_eq!(
            canonicalize(&toks),
            vec!["we", "had", "5", "6", "cows", "and", "201"]
        );
        assert_eq!(canonicalize(&["one", "and", "two"]), vec!["1", "and", "2"]);
    }

    #[test]
    fn spellings_cover_both_conventions() {
        let s = spellings(105);
        assert!(s.contains(&"one hundred and five".to_string()));
        assert!(s.contains(&"one hundred five".to_string()));
        assert!(spellings(5).contains(&"five".to_string()));
        assert!(spellings(21).contains(&"twenty one".to_string()));
    }

    #[test]
    fn number_forms_both_ways() {
        assert!(number_forms("5").contains(&"five".to_string()));
        assert!(number_forms("1,000").contains(&"one thousand".to_string()));
        assert_eq!(number_forms("twenty-one"), vec!["21".to_string()]);
        assert_eq!(
            number_forms("One Hundred and Five"),
            vec!["105".to_string()]
        );
        assert!(number_forms("potato").is_empty());
    }
}
