//! WordNet's antonyms alone, read from the embedded lexicon's `antonyms`
//! and `exceptions` sections without parsing the rest: the `meaning`
//! check looks antonyms up in every run that checks quotes, and the whole
//! lexicon's parse (147,000 lemmas) cost a checking run 13 MB and a tenth
//! of a second more (measured at `bench-evaluate 1`), for 3,555 pairs.
//!
//! A word's base forms are found as morphy finds them, among the lemmas
//! that have an antonym: the word, its irregular bases (`worse` → `bad`),
//! and the detachment rules of every part of speech (`easier` → `easy`).

use rustc_hash::FxHashMap as HashMap;

/// The antonym pairs, both ways, and the irregular forms of their lemmas.
#[derive(Debug, Clone, Default)]
pub struct Antonyms {
    pairs: HashMap<String, Vec<String>>,
    irregular: HashMap<String, Vec<String>>,
}

impl Antonyms {
    /// The antonyms of the lexicon compiled into the binary, read once.
    pub fn bundled() -> &'static Antonyms {
        static BUNDLED: std::sync::OnceLock<Antonyms> = std::sync::OnceLock::new();
        BUNDLED.get_or_init(|| Antonyms::of_compact(super::EMBEDDED_LEXICON))
    }

    /// The antonyms of compact lexicon text (none when it has no
    /// `antonyms` section; a malformed line is skipped: the text is the
    /// embedded one, checked by the lexicon's own tests).
    pub fn of_compact(text: &str) -> Antonyms {
        let mut out = Antonyms::default();
        let Some(at) = section(text, "antonyms") else {
            return out;
        };
        let n = count(&text[at..]);
        for line in text[at..].lines().skip(1).take(n) {
            if let Some((a, b)) = line.split_once('\t') {
                out.pairs
                    .entry(a.to_string())
                    .or_default()
                    .push(b.to_string());
                out.pairs
                    .entry(b.to_string())
                    .or_default()
                    .push(a.to_string());
            }
        }
        if let Some(at) = section(text, "exceptions") {
            let n = count(&text[at..]);
            for line in text[at..].lines().skip(1).take(n) {
                let mut f = line.split('\t').skip(1);
                let Some(form) = f.next() else { continue };
                for base in f.filter(|b| out.pairs.contains_key(*b)) {
                    out.irregular
                        .entry(form.to_string())
                        .or_default()
                        .push(base.to_string());
                }
            }
        }
        out
    }

    /// Number of pairs.
    pub fn len(&self) -> usize {
        self.pairs.values().map(Vec::len).sum::<usize>() / 2
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// The lemmas with antonyms that `word` is a form of.
    fn forms<'a>(&'a self, word: &'a str) -> Vec<&'a str> {
        let mut out: Vec<&str> = Vec::new();
        let mut keep = |c: &'a str| {
            if !out.contains(&c) {
                out.push(c);
            }
        };
        if let Some((k, _)) = self.pairs.get_key_value(word) {
            keep(k);
        }
        for b in self.irregular.get(word).into_iter().flatten() {
            keep(b);
        }
        for pos in ['n', 'v', 'a'] {
            for (suffix, repl) in super::rules(pos) {
                if let Some(stem) = word.strip_suffix(suffix).filter(|s| !s.is_empty()) {
                    if let Some((k, _)) = self.pairs.get_key_value(&format!("{stem}{repl}")) {
                        keep(k);
                    }
                }
            }
        }
        out
    }

    /// The antonyms of every base form of `word`.
    pub fn of(&self, word: &str) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for f in self.forms(word) {
            for x in self.pairs.get(f).into_iter().flatten() {
                if !out.contains(&x.as_str()) {
                    out.push(x);
                }
            }
        }
        out
    }

    /// True when a base form of `a` and one of `b` are antonyms in any of
    /// their senses (`increased` and `decrease`, `easier` and `difficult`).
    pub fn are(&self, a: &str, b: &str) -> bool {
        if a == b || self.pairs.is_empty() {
            return false;
        }
        let opposite = self.of(a);
        !opposite.is_empty() && self.forms(b).iter().any(|f| opposite.contains(f))
    }
}

/// The count of a section's header line (`name\t<count>`), 0 if unread.
fn count(from_header: &str) -> usize {
    from_header
        .lines()
        .next()
        .and_then(|l| l.split('\t').nth(1))
        .and_then(|c| c.parse().ok())
        .unwrap_or(0)
}

/// The byte offset of a section's header line (`name\t<count>`).
fn section(text: &str, name: &str) -> Option<usize> {
    let needle = format!("\n{name}\t");
    memchr::memmem::find(text.as_bytes(), needle.as_bytes()).map(|k| k + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundled_pairs_by_any_sense_and_base_form() {
        let a = Antonyms::bundled();
        assert_eq!(a.len(), 3555);
        for (x, y) in [
            ("increased", "decrease"),
            ("easier", "difficult"),
            ("closed", "open"),
            ("worse", "good"),
            ("lost", "kept"),
        ] {
            assert!(a.are(x, y) && a.are(y, x), "{x} / {y}");
        }
        for (x, y) in [("big", "large"), ("open", "open"), ("house", "home")] {
            assert!(!a.are(x, y), "{x} / {y}");
        }
    }

    #[test]
    fn a_lexicon_without_the_section_has_none() {
        let a = Antonyms::of_compact(
            "corpus-eval-lexicon 1\nsource\tx\nsynsets\t0\nlemmas\t0\nexceptions\t0\n",
        );
        assert!(a.is_empty() && !a.are("up", "down"));
    }
}
