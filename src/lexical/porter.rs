//! The Porter stemmer as NLTK's `PorterStemmer()` computes it in its default
//! `NLTK_EXTENSIONS` mode (the variant rouge-score uses): Porter's five
//! steps plus NLTK's irregular forms, the `ies`/`ied` rules for four-letter
//! words, `y -> i` only after a consonant, `alli`, `fulli` and `logi` in
//! step 2, and the two-letter cvc case. Input: one lowercase ASCII word.
//!
//! ```
//! use corpus_eval::lexical::stem;
//! assert_eq!(stem("running"), "run");
//! assert_eq!(stem("generalizations"), "gener");
//! assert_eq!(stem("dying"), "die");
//! assert_eq!(stem("happy"), "happi");
//! ```

/// NLTK's irregular forms: word -> stem.
const IRREGULAR: &[(&str, &str)] = &[
    ("sky", "sky"),
    ("skies", "sky"),
    ("dying", "die"),
    ("lying", "lie"),
    ("tying", "tie"),
    ("news", "news"),
    ("innings", "inning"),
    ("inning", "inning"),
    ("outings", "outing"),
    ("outing", "outing"),
    ("cannings", "canning"),
    ("canning", "canning"),
    ("howe", "howe"),
    ("proceed", "proceed"),
    ("exceed", "exceed"),
    ("succeed", "succeed"),
];

fn is_vowel(b: u8) -> bool {
    matches!(b, b'a' | b'e' | b'i' | b'o' | b'u')
}

/// Consonant flags: `y` is a consonant at the start and after a vowel, a
/// vowel after a consonant.
fn consonants(w: &[u8]) -> Vec<bool> {
    let mut flags: Vec<bool> = Vec::with_capacity(w.len());
    for (i, &c) in w.iter().enumerate() {
        let f = if is_vowel(c) {
            false
        } else if c == b'y' {
            i == 0 || !flags[i - 1]
        } else {
            true
        };
        flags.push(f);
    }
    flags
}

fn is_consonant(w: &[u8], i: usize) -> bool {
    consonants(&w[..=i])[i]
}

/// Porter's m: the number of vowel-consonant sequences.
fn measure(w: &[u8]) -> usize {
    let f = consonants(w);
    f.windows(2).filter(|p| !p[0] && p[1]).count()
}

fn contains_vowel(w: &[u8]) -> bool {
    consonants(w).iter().any(|c| !c)
}

fn ends_double_consonant(w: &[u8]) -> bool {
    let n = w.len();
    n >= 2 && w[n - 1] == w[n - 2] && is_consonant(w, n - 1)
}

fn ends_cvc(w: &[u8]) -> bool {
    let n = w.len();
    if n >= 3 {
        let f = consonants(w);
        if f[n - 3] && !f[n - 2] && f[n - 1] && !matches!(w[n - 1], b'w' | b'x' | b'y') {
            return true;
        }
    }
    n == 2 && {
        let f = consonants(w);
        !f[0] && f[1]
    }
}

/// A suffix rule's condition on the stem (the word without the suffix).
#[derive(Clone, Copy)]
enum Cond {
    None,
    /// m > 0.
    Positive,
    /// m > 1.
    AboveOne,
    /// m > 1 and the stem ends in `s` or `t`.
    Ion,
    /// m > 0 of the word without its last three letters (`logi`).
    Logi,
}

fn holds(cond: Cond, word: &[u8], stem: &[u8]) -> bool {
    match cond {
        Cond::None => true,
        Cond::Positive => measure(stem) > 0,
        Cond::AboveOne => measure(stem) > 1,
        Cond::Ion => measure(stem) > 1 && matches!(stem.last(), Some(b's' | b't')),
        Cond::Logi => measure(&word[..word.len() - 3]) > 0,
    }
}

/// The first rule whose suffix ends `word` decides: replaced when its
/// condition holds, otherwise the word is kept.
fn apply(word: Vec<u8>, rules: &[(&str, &str, Cond)]) -> Vec<u8> {
    for &(suffix, replacement, cond) in rules {
        if word.ends_with(suffix.as_bytes()) {
            let stem = &word[..word.len() - suffix.len()];
            if holds(cond, &word, stem) {
                let mut out = stem.to_vec();
                out.extend_from_slice(replacement.as_bytes());
                return out;
            }
            return word;
        }
    }
    word
}

fn replace_suffix(word: &[u8], suffix: usize, replacement: &str) -> Vec<u8> {
    let mut out = word[..word.len() - suffix].to_vec();
    out.extend_from_slice(replacement.as_bytes());
    out
}

fn step1a(word: Vec<u8>) -> Vec<u8> {
    if word.ends_with(b"ies") && word.len() == 4 {
        return replace_suffix(&word, 3, "ie");
    }
    apply(
        word,
        &[
            ("sses", "ss", Cond::None),
            ("ies", "i", Cond::None),
            ("ss", "ss", Cond::None),
            ("s", "", Cond::None),
        ],
    )
}

fn step1b(word: Vec<u8>) -> Vec<u8> {
    if word.ends_with(b"ied") {
        return if word.len() == 4 {
            replace_suffix(&word, 3, "ie")
        } else {
            replace_suffix(&word, 3, "i")
        };
    }
    if word.ends_with(b"eed") {
        let stem = &word[..word.len() - 3];
        return if measure(stem) > 0 {
            replace_suffix(&word, 3, "ee")
        } else {
            word
        };
    }
    let mut inter: Option<Vec<u8>> = None;
    for suffix in ["ed", "ing"] {
        if word.ends_with(suffix.as_bytes()) {
            let stem = &word[..word.len() - suffix.len()];
            if contains_vowel(stem) {
                inter = Some(stem.to_vec());
                break;
            }
        }
    }
    let Some(stem) = inter else {
        return word;
    };
    for (suffix, replacement) in [("at", "ate"), ("bl", "ble"), ("iz", "ize")] {
        if stem.ends_with(suffix.as_bytes()) {
            return replace_suffix(&stem, suffix.len(), replacement);
        }
    }
    if ends_double_consonant(&stem) {
        let last = stem[stem.len() - 1];
        return if matches!(last, b'l' | b's' | b'z') {
            stem
        } else {
            stem[..stem.len() - 1].to_vec()
        };
    }
    if measure(&stem) == 1 && ends_cvc(&stem) {
        let mut out = stem;
        out.push(b'e');
        return out;
    }
    stem
}

fn step1c(word: Vec<u8>) -> Vec<u8> {
    if word.ends_with(b"y") {
        let stem = &word[..word.len() - 1];
        if stem.len() > 1 && is_consonant(stem, stem.len() - 1) {
            return replace_suffix(&word, 1, "i");
        }
    }
    word
}

fn step2(word: Vec<u8>) -> Vec<u8> {
    if word.ends_with(b"alli") && measure(&word[..word.len() - 4]) > 0 {
        return step2(replace_suffix(&word, 4, "al"));
    }
    use Cond::Positive as P;
    apply(
        word,
        &[
            ("ational", "ate", P),
            ("tional", "tion", P),
            ("enci", "ence", P),
            ("anci", "ance", P),
            ("izer", "ize", P),
            ("bli", "ble", P),
            ("alli", "al", P),
            ("entli", "ent", P),
            ("eli", "e", P),
            ("ousli", "ous", P),
            ("ization", "ize", P),
            ("ation", "ate", P),
            ("ator", "ate", P),
            ("alism", "al", P),
            ("iveness", "ive", P),
            ("fulness", "ful", P),
            ("ousness", "ous", P),
            ("aliti", "al", P),
            ("iviti", "ive", P),
            ("biliti", "ble", P),
            ("fulli", "ful", P),
            ("logi", "log", Cond::Logi),
        ],
    )
}

fn step3(word: Vec<u8>) -> Vec<u8> {
    use Cond::Positive as P;
    apply(
        word,
        &[
            ("icate", "ic", P),
            ("ative", "", P),
            ("alize", "al", P),
            ("iciti", "ic", P),
            ("ical", "ic", P),
            ("ful", "", P),
            ("ness", "", P),
        ],
    )
}

fn step4(word: Vec<u8>) -> Vec<u8> {
    use Cond::AboveOne as A;
    apply(
        word,
        &[
            ("al", "", A),
            ("ance", "", A),
            ("ence", "", A),
            ("er", "", A),
            ("ic", "", A),
            ("able", "", A),
            ("ible", "", A),
            ("ant", "", A),
            ("ement", "", A),
            ("ment", "", A),
            ("ent", "", A),
            ("ion", "", Cond::Ion),
            ("ou", "", A),
            ("ism", "", A),
            ("ate", "", A),
            ("iti", "", A),
            ("ous", "", A),
            ("ive", "", A),
            ("ize", "", A),
        ],
    )
}

fn step5a(word: Vec<u8>) -> Vec<u8> {
    if word.ends_with(b"e") {
        let stem = &word[..word.len() - 1];
        let m = measure(stem);
        if m > 1 || (m == 1 && !ends_cvc(stem)) {
            return stem.to_vec();
        }
    }
    word
}

fn step5b(word: Vec<u8>) -> Vec<u8> {
    if word.ends_with(b"ll") && measure(&word[..word.len() - 1]) > 1 {
        return word[..word.len() - 1].to_vec();
    }
    word
}

/// The stem of a lowercase ASCII word (other input is returned as it is:
/// rouge-score only stems `[a-z0-9]+` tokens).
pub fn stem(word: &str) -> String {
    if !word.is_ascii() || word.bytes().any(|b| b.is_ascii_uppercase()) {
        return word.to_string();
    }
    if let Some((_, s)) = IRREGULAR.iter().find(|(w, _)| *w == word) {
        return (*s).to_string();
    }
    if word.len() <= 2 {
        return word.to_string();
    }
    let mut w = word.as_bytes().to_vec();
    w = step1a(w);
    w = step1b(w);
    w = step1c(w);
    w = step2(w);
    w = step3(w);
    w = step4(w);
    w = step5a(w);
    w = step5b(w);
    // Only ASCII bytes were ever added or removed.
    String::from_utf8(w).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

#[cfg(test)]
mod tests {
    use super::stem;

    #[test]
    fn classic_examples() {
        for (w, s) in [
            ("caresses", "caress"),
            ("ponies", "poni"),
            ("ties", "tie"),
            ("cats", "cat"),
            ("feed", "feed"),
            ("agreed", "agre"),
            ("plastered", "plaster"),
            ("motoring", "motor"),
            ("sing", "sing"),
            ("conflated", "conflat"),
            ("troubled", "troubl"),
            ("sized", "size"),
            ("hopping", "hop"),
            ("falling", "fall"),
            ("failing", "fail"),
            ("filing", "file"),
            ("relational", "relat"),
            ("conditional", "condit"),
            ("triplicate", "triplic"),
            ("electrical", "electr"),
            ("adoption", "adopt"),
            ("controll", "control"),
            ("roll", "roll"),
            ("skies", "sky"),
            ("cried", "cri"),
            ("died", "die"),
        ] {
            assert_eq!(stem(w), s, "{w}");
        }
    }
}
