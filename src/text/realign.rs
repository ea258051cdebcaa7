//! Positions in a text derived from another (a transcript's text, read
//! from a QDA project's plain text with time stamps and markup left out)
//! carried back to the other: a monotone alignment of the two texts'
//! characters. The texts' words (runs of whitespace and runs of the rest)
//! are aligned first (patience diff, the `similar` crate: the words both
//! texts hold once anchor the rest), then the characters of each changed
//! run of words (200 KB whose every line lost a stamp: 0.3 s in a debug
//! build, where aligning lines first took 2.3 s, no line being equal).
//! Two texts that share too little to anchor cannot run away: the word
//! diff stops at a deadline of two seconds (what it has not aligned by
//! then is one changed run, so only such texts can align differently on a
//! slower machine), and a changed run over [`CHARS`] bytes is aligned
//! greedily (each char to the next equal one a few chars on) instead of
//! by a diff.

use similar::{capture_diff_slices, Algorithm, DiffOp};

/// For each character of the derived text, the position of the equal
/// character of the original it was aligned with, if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CharMap {
    to: Vec<Option<usize>>,
}

impl CharMap {
    /// Aligns `derived`'s characters with `original`'s.
    pub(crate) fn new(derived: &str, original: &str) -> CharMap {
        let mut to = vec![None; derived.chars().count()];
        if derived == original {
            for (i, t) in to.iter_mut().enumerate() {
                *t = Some(i);
            }
        } else {
            align(&mut to, (derived, 0), (original, 0));
        }
        CharMap { to }
    }

    /// The original's characters `start..end` that the derived text's
    /// `start..end` aligns with: from its first aligned character to past
    /// its last; None when none of them is aligned.
    pub(crate) fn span(&self, start: usize, end: usize) -> Option<(usize, usize)> {
        let part = self.to.get(start..end.min(self.to.len()))?;
        let first = part.iter().flatten().next()?;
        let last = part.iter().rev().flatten().next()?;
        Some((*first, last + 1))
    }
}

/// A stretch shorter than this (in bytes, both texts) is aligned by its
/// characters at once.
const SMALL: usize = 512;
/// A changed run longer than this (in bytes, both texts) is aligned
/// greedily, not by a diff of its characters.
const CHARS: usize = 16 << 10;
/// How far ahead the greedy alignment looks for a char.
const AHEAD: usize = 64;
/// How long the word diff may run.
const DEADLINE: std::time::Duration = std::time::Duration::from_secs(2);

/// Aligns the stretch `d` of the derived text (starting at its character
/// `d.1`) with the stretch `o` of the original (at character `o.1`): by
/// words, then the characters of each changed run of words.
fn align(to: &mut [Option<usize>], d: (&str, usize), o: (&str, usize)) {
    if d.0.len() + o.0.len() < SMALL {
        return chars(to, d, o);
    }
    let (dt, ds) = words(d.0);
    let (ot, os) = words(o.0);
    // Tokens `from..from + len` of a stretch, as a stretch (they are
    // contiguous).
    fn part<'a>(
        s: (&'a str, usize),
        tokens: &[&str],
        starts: &[(usize, usize)],
        from: usize,
        len: usize,
    ) -> (&'a str, usize) {
        let (b, c) = starts[from];
        let end = starts[from + len - 1].0 + tokens[from + len - 1].len();
        (&s.0[b..end], s.1 + c)
    }
    let deadline = std::time::Instant::now() + DEADLINE;
    for op in similar::capture_diff_slices_deadline(Algorithm::Patience, &dt, &ot, Some(deadline)) {
        match op {
            DiffOp::Equal {
                old_index,
                new_index,
                len,
            } => {
                for k in 0..len {
                    let (a, b) = (d.1 + ds[old_index + k].1, o.1 + os[new_index + k].1);
                    for c in 0..dt[old_index + k].chars().count() {
                        to[a + c] = Some(b + c);
                    }
                }
            }
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => chars(
                to,
                part(d, &dt, &ds, old_index, old_len),
                part(o, &ot, &os, new_index, new_len),
            ),
            DiffOp::Delete { .. } | DiffOp::Insert { .. } => {}
        }
    }
}

/// A text cut into words (runs of whitespace and runs of the rest), with
/// each word's (byte, character) start.
fn words(text: &str) -> (Vec<&str>, Vec<(usize, usize)>) {
    let mut pieces = Vec::new();
    let mut from = 0;
    let mut space = None;
    for (i, c) in text.char_indices() {
        let is = c.is_whitespace();
        if space.is_some_and(|s| s != is) {
            pieces.push(&text[from..i]);
            from = i;
        }
        space = Some(is);
    }
    if from < text.len() {
        pieces.push(&text[from..]);
    }
    let mut starts = Vec::with_capacity(pieces.len());
    let (mut byte, mut chars) = (0, 0);
    for p in &pieces {
        starts.push((byte, chars));
        byte += p.len();
        chars += p.chars().count();
    }
    (pieces, starts)
}

/// Aligns the characters of `d` with those of `o`.
fn chars(to: &mut [Option<usize>], d: (&str, usize), o: (&str, usize)) {
    let dc: Vec<char> = d.0.chars().collect();
    let oc: Vec<char> = o.0.chars().collect();
    if d.0.len() + o.0.len() > CHARS {
        // Greedy: each char to the next equal one at most AHEAD on.
        let mut j = 0;
        for (i, c) in dc.iter().enumerate() {
            if let Some(k) = oc[j.min(oc.len())..(j + AHEAD).min(oc.len())]
                .iter()
                .position(|x| x == c)
            {
                to[d.1 + i] = Some(o.1 + j + k);
                j += k + 1;
            }
        }
        return;
    }
    for op in capture_diff_slices(Algorithm::Myers, &dc, &oc) {
        if let DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = op
        {
            for k in 0..len {
                to[d.1 + old_index + k] = Some(o.1 + new_index + k);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps_left_out_are_carried_back() {
        let original = "[00:00:00.0] Interviewer: When?\n[00:00:04.5] Ana López: We left in 1987, [00:00:06.8] after the cannery closed.\n";
        let derived = "Interviewer: When?\nAna López: We left in 1987, after the cannery closed.\n";
        let map = CharMap::new(derived, original);
        let chars: Vec<char> = original.chars().collect();
        let find = |s: &str, needle: &str| {
            let b = s.find(needle).unwrap();
            let start = s[..b].chars().count();
            (start, start + needle.chars().count())
        };
        let (s, e) = find(derived, "1987, after the cannery");
        let (a, b) = map.span(s, e).unwrap();
        let got: String = chars[a..b].iter().collect();
        assert_eq!(got, "1987, [00:00:06.8] after the cannery");
        let (s, e) = find(derived, "Ana López");
        let (a, b) = map.span(s, e).unwrap();
        assert_eq!((a, b), find(original, "Ana López"));
        // Equal texts: the identity.
        let same = CharMap::new(original, original);
        assert_eq!(same.span(3, 9), Some((3, 9)));
        // Nothing aligned: None.
        assert_eq!(CharMap::new("xyz", "abc").span(0, 3), None);
    }

    /// Two long texts with nothing in common end, and what aligns by
    /// chance stays in order.
    #[test]
    fn unrelated_texts_end() {
        let a: String = (0..20_000).map(|i| format!("w{} ", i * 7 % 1000)).collect();
        let b: String = (0..20_000).map(|i| format!("v{} ", i * 13 % 997)).collect();
        let map = CharMap::new(&a, &b);
        let got: Vec<usize> = map.to.iter().flatten().copied().collect();
        assert!(got.windows(2).all(|w| w[0] < w[1]));
    }

    /// A long text where every line lost its stamp and the blank lines
    /// between turns are gone (no line equal, the counts unequal): every
    /// turn is carried to its place.
    #[test]
    fn a_long_text_without_one_equal_line() {
        let (mut original, mut derived) = (String::new(), String::new());
        for i in 0..3000 {
            let words = format!(
                "Sprecher {}: Satz Nummer {i} über den Hafen, Jahr {}.",
                i % 3,
                1900 + i % 97
            );
            original.push_str(&format!(
                "[00:{:02}:{:02}.0] {words}\n\n",
                i / 60 % 60,
                i % 60
            ));
            derived.push_str(&format!("{words}\n"));
        }
        let map = CharMap::new(&derived, &original);
        let chars: Vec<char> = original.chars().collect();
        let lines: Vec<&str> = derived.lines().collect();
        let mut at = 0;
        for (i, line) in lines.iter().enumerate() {
            let n = line.chars().count();
            let (a, b) = map.span(at, at + n).expect("aligned");
            let got: String = chars[a..b].iter().collect();
            assert_eq!(got, *line, "line {i}");
            at += n + 1;
        }
    }
}
