//! Positions in a text derived from another (a transcript's text, read
//! from a QDA project's plain text with time stamps and markup left out)
//! carried back to the other: a monotone alignment of the two texts'
//! characters. Lines are aligned first (Myers, the `similar` crate), then
//! the characters of each changed stretch: a stretch of as many lines in
//! both texts line by line (the usual case: each line lost its stamp), any
//! other stretch as a whole.

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
            return CharMap { to };
        }
        let (dl, dstarts) = lines(derived);
        let (ol, ostarts) = lines(original);
        for op in capture_diff_slices(Algorithm::Myers, &dl, &ol) {
            match op {
                DiffOp::Equal {
                    old_index,
                    new_index,
                    len,
                } => {
                    for k in 0..len {
                        let (d, o) = (dstarts[old_index + k], ostarts[new_index + k]);
                        for c in 0..dl[old_index + k].chars().count() {
                            to[d + c] = Some(o + c);
                        }
                    }
                }
                DiffOp::Replace {
                    old_index,
                    old_len,
                    new_index,
                    new_len,
                } if old_len == new_len => {
                    for k in 0..old_len {
                        chars(
                            &mut to,
                            dl[old_index + k],
                            dstarts[old_index + k],
                            ol[new_index + k],
                            ostarts[new_index + k],
                        );
                    }
                }
                DiffOp::Replace {
                    old_index,
                    old_len,
                    new_index,
                    new_len,
                } => chars(
                    &mut to,
                    &dl[old_index..old_index + old_len].concat(),
                    dstarts[old_index],
                    &ol[new_index..new_index + new_len].concat(),
                    ostarts[new_index],
                ),
                DiffOp::Delete { .. } | DiffOp::Insert { .. } => {}
            }
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

/// A text's lines (each with its line break) and the character at which
/// each starts.
fn lines(text: &str) -> (Vec<&str>, Vec<usize>) {
    let (mut out, mut starts, mut at) = (Vec::new(), Vec::new(), 0);
    for line in text.split_inclusive('\n') {
        out.push(line);
        starts.push(at);
        at += line.chars().count();
    }
    (out, starts)
}

/// Aligns the characters of `d` (starting at derived character `d0`) with
/// those of `o` (at original character `o0`).
fn chars(to: &mut [Option<usize>], d: &str, d0: usize, o: &str, o0: usize) {
    let dc: Vec<char> = d.chars().collect();
    let oc: Vec<char> = o.chars().collect();
    for op in capture_diff_slices(Algorithm::Myers, &dc, &oc) {
        if let DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = op
        {
            for k in 0..len {
                to[d0 + old_index + k] = Some(o0 + new_index + k);
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
}
