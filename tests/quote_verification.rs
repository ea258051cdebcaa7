//! Quote verification against simple reference implementations, on
//! thousands of generated quotes: exact and normalized lookups against
//! `str::find`, the fuzzy search against the plain table over the same
//! windows (every verdict, similarity and span equal), and against a
//! brute-force search over the whole transcript (never a worse alignment
//! for a quote altered from the transcript, similarity 0.7 or more).

use corpus_eval::citations::fuzzy::{self, qgram, BigramIndex};
use corpus_eval::citations::{SourceText, Verdict};
use corpus_eval::text::aligned::Normalized;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const WORDS: &[&str] = &[
    "we",
    "the",
    "farm",
    "sold",
    "spring",
    "potatoes",
    "bank",
    "loan",
    "water",
    "river",
    "my",
    "father",
    "said",
    "never",
    "always",
    "market",
    "price",
    "seed",
    "school",
    "garden",
    "rain",
    "was",
    "and",
    "of",
    "to",
    "in",
    "it",
    "that",
    "had",
    "not",
    "but",
    "so",
    "they",
    "our",
    "harvest",
    "late",
    "early",
    "cows",
    "milk",
    "tractor",
    "neighbour",
    "village",
    "church",
    "winter",
    "summer",
    "flood",
    "drought",
    "cooperative",
    "union",
    "Hélène",
    "café",
    "naïve",
    "1987",
    "2003",
    "forty",
    "hundred",
    "kilos",
    "hectares",
    "wheat",
    "barley",
    "sugar",
    "beet",
];

fn sentence(rng: &mut Rng, words: usize) -> String {
    let mut s = String::new();
    for k in 0..words {
        if k > 0 {
            s.push_str(match rng.below(12) {
                0 => ", ",
                1 => " — ",
                _ => " ",
            });
        }
        let w = WORDS[rng.below(WORDS.len())];
        if k == 0 || rng.below(15) == 0 {
            let mut c = w.chars();
            if let Some(f) = c.next() {
                s.extend(f.to_uppercase());
                s.push_str(c.as_str());
            }
        } else {
            s.push_str(w);
        }
    }
    s.push_str(if rng.below(4) == 0 { "?" } else { "." });
    s
}

fn transcript(rng: &mut Rng, chars: usize) -> String {
    let mut t = String::new();
    while t.len() < chars {
        let n = 6 + rng.below(20);
        t.push_str(&sentence(rng, n));
        t.push(if rng.below(5) == 0 { '\n' } else { ' ' });
    }
    t
}

/// A quote altered from `source`: words dropped, inserted or replaced,
/// letters mistyped, case and typographic marks changed.
fn alter(rng: &mut Rng, source: &str) -> String {
    let mut words: Vec<String> = source.split(' ').map(str::to_string).collect();
    let edits = 1 + rng.below(3);
    for _ in 0..edits {
        if words.len() < 3 {
            break;
        }
        let k = rng.below(words.len());
        match rng.below(5) {
            0 => {
                words.remove(k);
            }
            1 => words.insert(k, WORDS[rng.below(WORDS.len())].to_string()),
            2 => words[k] = WORDS[rng.below(WORDS.len())].to_string(),
            3 => {
                let mut cs: Vec<char> = words[k].chars().collect();
                if cs.len() > 1 {
                    let i = rng.below(cs.len() - 1);
                    cs.swap(i, i + 1);
                }
                words[k] = cs.into_iter().collect();
            }
            _ => words[k] = words[k].to_uppercase(),
        }
    }
    words.join(" ").replace('\'', "’")
}

/// A quote taken from `text`: `words` words from a random word start.
fn excerpt(rng: &mut Rng, text: &str, words: usize) -> String {
    let starts: Vec<usize> = std::iter::once(0)
        .chain(text.match_indices(' ').map(|(i, _)| i + 1))
        .filter(|&i| i < text.len())
        .collect();
    let s = starts[rng.below(starts.len())];
    text[s..]
        .split(' ')
        .take(words)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The quote's leading and trailing marks (not letters, digits or
/// whitespace) taken into a span where the text has the same ones.
fn covered(text: &str, quote: &str, b: std::ops::Range<usize>) -> std::ops::Range<usize> {
    let mark = |c: char| !c.is_alphanumeric() && !c.is_whitespace();
    let lead: String = quote.chars().take_while(|&c| mark(c)).collect();
    let trail: String = {
        let mut t: Vec<char> = quote.chars().rev().take_while(|&c| mark(c)).collect();
        t.reverse();
        t.into_iter().collect()
    };
    let mut r = b;
    if !lead.is_empty() && lead.len() < quote.len() && text[..r.start].ends_with(&lead) {
        r.start -= lead.len();
    }
    if !trail.is_empty() && trail.len() < quote.len() && text[r.end..].starts_with(&trail) {
        r.end += trail.len();
    }
    r
}

/// The reference: `str::find` for exact lookups, the first occurrence on
/// whole chars for normalized ones (the quote's edge marks covered), the
/// plain table over the same windows for fuzzy ones.
fn reference(
    text: &str,
    index: &BigramIndex,
    qgrams: &qgram::QgramIndex,
    quote: &str,
    threshold: f64,
) -> (Verdict, f64, Option<std::ops::Range<usize>>) {
    let chars =
        |b: std::ops::Range<usize>| text[..b.start].chars().count()..text[..b.end].chars().count();
    let q = quote.trim();
    if q.is_empty() {
        return (Verdict::NotFound, 0.0, None);
    }
    if let Some(at) = text.find(q) {
        return (Verdict::Exact, 1.0, Some(chars(at..at + q.len())));
    }
    let nt = Normalized::new(text);
    let nq = Normalized::new(q);
    if nq.text().is_empty() {
        return (Verdict::NotFound, 0.0, None);
    }
    if let Some(r) = nt.find_aligned(nq.text()).next() {
        let orig = nt.to_original(text, r).unwrap();
        return (
            Verdict::Normalized,
            1.0,
            Some(chars(covered(text, q, orig))),
        );
    }
    // The word pairs' windows, then the lossless filter's for what could
    // beat them and reach the floor (the plain table in both).
    let qv: Vec<char> = nq.text().chars().collect();
    let floor = threshold.min(fuzzy::LOSSLESS_FLOOR);
    let found = fuzzy::candidate_windows(nq.text(), nt.text(), index)
        .and_then(|w| fuzzy::reference_match(nq.text(), nt.text(), &w));
    let need = found.as_ref().map_or(floor, |f| f.similarity.max(floor));
    let better = if found.as_ref().is_some_and(|f| f.similarity >= 1.0) {
        None
    } else {
        let windows = match qgram::candidates(&qv, nt.text(), qgrams, need) {
            qgram::Candidates::Everywhere => std::iter::once(0..nt.text().len()).collect(),
            qgram::Candidates::Windows(w) => w,
        };
        fuzzy::reference_match(nq.text(), nt.text(), &windows).filter(|b| b.similarity >= need)
    };
    let best = match (found, better) {
        (Some(f), Some(b)) => Some(
            if b.similarity > f.similarity
                || (b.similarity == f.similarity && b.range.end < f.range.end)
            {
                b
            } else {
                f
            },
        ),
        (f, b) => f.or(b),
    };
    match best {
        Some(m) if m.similarity >= threshold => {
            let orig = nt.to_original(text, m.range).unwrap();
            (Verdict::Fuzzy, m.similarity, Some(chars(orig)))
        }
        Some(m) => (Verdict::NotFound, m.similarity, None),
        None => (Verdict::NotFound, 0.0, None),
    }
}

#[test]
fn every_verdict_similarity_and_span_equal_the_reference() {
    let mut rng = Rng(2026);
    let texts: Vec<String> = (0..8).map(|_| transcript(&mut rng, 3000)).collect();
    let sources: Vec<SourceText> = texts.iter().map(|t| SourceText::new(t.clone())).collect();
    let norm: Vec<Normalized> = texts.iter().map(|t| Normalized::new(t)).collect();
    let indexes: Vec<BigramIndex> = norm.iter().map(|n| BigramIndex::new(n.text())).collect();
    let qgrams: Vec<qgram::QgramIndex> = norm
        .iter()
        .map(|n| qgram::QgramIndex::new(n.text()))
        .collect();
    let mut counts = std::collections::BTreeMap::new();
    for k in 0..4000 {
        let t = rng.below(texts.len());
        let words = 3 + rng.below(30);
        let quote = match k % 4 {
            0 => excerpt(&mut rng, &texts[t], words),
            1 => excerpt(&mut rng, &texts[t], words)
                .to_lowercase()
                .replace('—', "-"),
            2 => {
                let e = excerpt(&mut rng, &texts[t], words);
                alter(&mut rng, &e)
            }
            _ => sentence(&mut rng, words),
        };
        let threshold = [0.8, 0.9][k % 2];
        let got = sources[t].check(&quote, threshold);
        let want = reference(&texts[t], &indexes[t], &qgrams[t], &quote, threshold);
        assert_eq!(
            (got.verdict, got.similarity, got.span.clone()),
            want,
            "quote {k} {quote:?} in transcript {t}"
        );
        *counts.entry(got.verdict).or_insert(0) += 1;
    }
    // The generator covers every verdict the lookups can give.
    for v in [
        Verdict::Exact,
        Verdict::Normalized,
        Verdict::Fuzzy,
        Verdict::NotFound,
    ] {
        assert!(counts.get(&v).copied().unwrap_or(0) >= 100, "{counts:?}");
    }
}

#[test]
fn fuzzy_search_is_never_worse_than_brute_force_over_the_transcript() {
    let mut rng = Rng(7);
    let texts: Vec<String> = (0..6).map(|_| transcript(&mut rng, 2500)).collect();
    let norm: Vec<String> = texts
        .iter()
        .map(|t| Normalized::new(t).text().to_string())
        .collect();
    let indexes: Vec<BigramIndex> = norm.iter().map(|n| BigramIndex::new(n)).collect();
    let mut close = 0;
    for k in 0..1500 {
        let t = rng.below(texts.len());
        let words = 8 + rng.below(25);
        let e = excerpt(&mut rng, &norm[t], words);
        if e.split(' ').count() < 8 {
            continue; // an excerpt cut short by the transcript's end
        }
        let quote = alter(&mut rng, &e);
        let nq = Normalized::new(&quote);
        let got = fuzzy::best_match(nq.text(), &norm[t], &indexes[t]).unwrap();
        let all: Vec<std::ops::Range<usize>> = std::iter::once(0..norm[t].len()).collect();
        let brute = fuzzy::reference_match(nq.text(), &norm[t], &all).unwrap();
        // Where a verdict can depend on it (a similarity a threshold can
        // ask for), the search reaches what the whole transcript allows.
        if brute.similarity < 0.7 {
            continue;
        }
        close += 1;
        assert!(
            got.similarity >= brute.similarity,
            "quote {k} {quote:?}: {got:?} < brute force {brute:?}"
        );
    }
    assert!(close >= 1000, "{close}");
}
