//! Quote normalization that keeps the way back to the original text.
//!
//! [`Normalized`] holds the normalized text and, for every normalized byte,
//! the byte offset in the original of the character it came from, so a match
//! found in normalized text maps back to an exact span of the original
//! ([`Normalized::to_original`]).
//!
//! The quote normalizer ignores case, runs of whitespace, typographic quotes,
//! apostrophes and dashes, and diacritics (NFKD with combining marks removed).
//! Other punctuation is kept: a quote that drops it is a fuzzy match.
//!
//! ```
//! use corpus_eval::text::aligned::Normalized;
//! let original = "He said: “Café  au lait”.";
//! let n = Normalized::new(original);
//! assert_eq!(n.text(), "he said: \"cafe au lait\".");
//! let start = n.text().find("cafe").unwrap();
//! let span = n.to_original(original, start..start + 4).unwrap();
//! assert_eq!(&original[span], "Café");
//! ```

use std::ops::Range;
use unicode_normalization::char::{decompose_compatible, is_combining_mark};

/// Short description of the quote normalizer, used in signatures.
pub const QUOTE_NORMALIZER_SIGNATURE: &str =
    "nfkd+strip-marks+lower+typographic-quotes-dashes+ws-collapse";

/// Normalized text with a byte map back to its original.
#[derive(Debug, Clone)]
pub struct Normalized {
    text: String,
    /// The byte map, as segments sorted by normalized offset (see [`Segment`]).
    segments: Vec<Segment>,
    /// Byte length of the original text.
    original_len: usize,
}

/// Where a stretch of normalized bytes came from. Bytes from `norm` up to
/// the next segment map to `orig + (k - norm)` when `linear` (ASCII text kept
/// byte for byte), else all to `orig` (the bytes one non-ASCII char became).
/// Only breaks in the mapping (collapsed whitespace, non-ASCII chars) start
/// a segment, so the map stays small and normalizing stays fast.
#[derive(Debug, Clone, Copy)]
struct Segment {
    norm: u32,
    orig: u32,
    linear: bool,
}

/// Builds the segment list while normalized bytes are appended.
struct SegmentWriter {
    segments: Vec<Segment>,
}

impl SegmentWriter {
    /// Records that normalized byte `norm` comes from original byte `orig`
    /// (one-to-one).
    #[inline]
    fn linear(&mut self, norm: usize, orig: u32) {
        if let Some(last) = self.segments.last() {
            if last.linear && last.orig as usize + (norm - last.norm as usize) == orig as usize {
                return;
            }
        }
        self.segments.push(Segment {
            norm: norm as u32,
            orig,
            linear: true,
        });
    }

    /// Records that the bytes from `norm` on all come from the char at `orig`.
    fn whole_char(&mut self, norm: usize, orig: u32) {
        self.segments.push(Segment {
            norm: norm as u32,
            orig,
            linear: false,
        });
    }
}

/// ASCII bytes copied as they are (lower-cased): all but whitespace and
/// the backtick (folded to an apostrophe).
const PLAIN: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 128 {
        t[b] = !(b as u8).is_ascii_whitespace() && b != b'`' as usize;
        b += 1;
    }
    t
};

/// Whether eight bytes are all [`PLAIN`] or spaces, no two spaces side by
/// side and the last not a space: each space then stands between two
/// bytes that are output (given one output before the eight), so it is
/// kept as it is. Control bytes other than whitespace are plain but fail
/// this test (the caller then goes byte by byte).
#[inline(always)]
fn plain_or_single_spaces(w: u64) -> bool {
    use super::swar::{bytes_equal, control_bytes, HIGHS};
    let spaces = bytes_equal(w, b' ');
    w & HIGHS == 0
        && control_bytes(w) | bytes_equal(w, b'`') == 0
        && spaces & (spaces << 8) == 0
        && spaces >> 63 == 0
}

/// Folds one typographic character to its plain form.
fn fold_typographic(c: char) -> char {
    match c {
        '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' | '\u{2032}' | '\u{02BC}' | '`'
        | '\u{00B4}' => '\'',
        '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' | '\u{2033}' | '\u{00AB}'
        | '\u{00BB}' => '"',
        '\u{2010}' | '\u{2011}' | '\u{2012}' | '\u{2013}' | '\u{2014}' | '\u{2015}'
        | '\u{2212}' | '\u{FE58}' | '\u{FE63}' | '\u{FF0D}' => '-',
        _ => c,
    }
}

/// The buffers of a dropped [`Normalized`], kept to build the next one
/// into ([`Normalized::into_spare`], [`Normalized::new_in`]): a text
/// normalized after another of about its size then allocates nothing.
#[derive(Debug, Default)]
pub struct NormalizedSpare {
    text: Vec<u8>,
    segments: Vec<Segment>,
}

impl Normalized {
    /// Normalizes `original`, recording where each output byte came from.
    pub fn new(original: &str) -> Normalized {
        Normalized::new_in(original, NormalizedSpare::default())
    }

    /// [`Normalized::new`] built into the buffers of `spare`.
    pub fn new_in(original: &str, spare: NormalizedSpare) -> Normalized {
        let bytes = original.as_bytes();
        // Built as bytes (ASCII fast path) and checked as UTF-8 at the end.
        let NormalizedSpare {
            mut text,
            mut segments,
        } = spare;
        text.clear();
        text.reserve(original.len());
        segments.clear();
        let mut map = SegmentWriter { segments };
        let mut pending_space: Option<u32> = None;
        // Chars one non-ASCII char decomposes into, reused across chars.
        let mut produced: Vec<char> = Vec::with_capacity(4);
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            if b.is_ascii() {
                let at = i as u32;
                i += 1;
                if b.is_ascii_whitespace() {
                    if !text.is_empty() && pending_space.is_none() {
                        pending_space = Some(at);
                    }
                    continue;
                }
                if let Some(sp) = pending_space.take() {
                    map.linear(text.len(), sp);
                    text.push(b' ');
                }
                map.linear(text.len(), at);
                text.push(if b == b'`' {
                    b'\''
                } else {
                    b.to_ascii_lowercase()
                });
                // The rest of the run of plain ASCII maps one to one, single
                // spaces between plain bytes included (they are kept as they
                // are, so the run's map stays one segment).
                let mut end = i;
                loop {
                    // Eight bytes at a time while they are all plain or
                    // single spaces, the eighth not a space (the byte
                    // before `end` is not whitespace: it was output).
                    while let Some(w) = super::swar::word_at(bytes, end) {
                        if !plain_or_single_spaces(w) {
                            break;
                        }
                        end += 8;
                    }
                    match bytes.get(end) {
                        Some(&c) if PLAIN[c as usize] => end += 1,
                        Some(b' ') if bytes.get(end + 1).is_some_and(|&c| PLAIN[c as usize]) => {
                            end += 2
                        }
                        _ => break,
                    }
                }
                let from = text.len();
                text.extend_from_slice(&bytes[i..end]);
                text[from..].make_ascii_lowercase();
                i = end;
                continue;
            }
            let Some(ch) = original[i..].chars().next() else {
                break;
            };
            let at = i as u32;
            i += ch.len_utf8();
            if ch.is_whitespace() {
                if !text.is_empty() && pending_space.is_none() {
                    pending_space = Some(at);
                }
                continue;
            }
            produced.clear();
            decompose_compatible(ch, |d| {
                if !is_combining_mark(d) {
                    produced.push(d);
                }
            });
            let mut started = false;
            for &d in &produced {
                let d = fold_typographic(d);
                if d.is_whitespace() {
                    if !text.is_empty() && pending_space.is_none() {
                        pending_space = Some(at);
                    }
                    continue;
                }
                if let Some(sp) = pending_space.take() {
                    map.linear(text.len(), sp);
                    text.push(b' ');
                    started = false;
                }
                if !started {
                    map.whole_char(text.len(), at);
                    started = true;
                }
                for l in d.to_lowercase() {
                    let mut buf = [0u8; 4];
                    text.extend_from_slice(l.encode_utf8(&mut buf).as_bytes());
                }
            }
        }
        // Only whole chars were pushed, so this is valid UTF-8.
        let text = String::from_utf8(text)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
        Normalized {
            text,
            segments: map.segments,
            original_len: original.len(),
        }
    }

    /// The original byte offset of the char that normalized byte `k` came from.
    fn origin_of(&self, k: usize) -> Option<usize> {
        let i = self
            .segments
            .partition_point(|s| s.norm as usize <= k)
            .checked_sub(1)?;
        let s = self.segments[i];
        Some(if s.linear {
            s.orig as usize + (k - s.norm as usize)
        } else {
            s.orig as usize
        })
    }

    /// The normalized text, the map dropped.
    pub fn into_text(self) -> String {
        self.text
    }

    /// Its buffers, for [`Normalized::new_in`].
    pub fn into_spare(self) -> NormalizedSpare {
        NormalizedSpare {
            text: self.text.into_bytes(),
            segments: self.segments,
        }
    }

    /// The normalized text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Maps a byte range of the normalized text to the byte range of
    /// `original` (the text this was built from) that it came from: from the
    /// start of the first source char to the end of the last one. `None` when
    /// the range is empty, out of bounds, or not on char boundaries.
    pub fn to_original(&self, original: &str, range: Range<usize>) -> Option<Range<usize>> {
        if range.start >= range.end
            || range.end > self.text.len()
            || !self.text.is_char_boundary(range.start)
            || !self.text.is_char_boundary(range.end)
        {
            return None;
        }
        // A match covers a source char's whole expansion or none of it
        // (`2` alone is not in `½`, which is `1⁄2`).
        if !self.is_edge(range.start) || !self.is_edge(range.end) {
            return None;
        }
        let start = self.origin_of(range.start)?;
        let last = self.origin_of(range.end - 1)?;
        if original.len() != self.original_len || !original.is_char_boundary(last) {
            return None;
        }
        let end = last + original[last..].chars().next()?.len_utf8();
        Some(start..end)
    }
}

impl Normalized {
    /// True when normalized byte `k` is an edge between the outputs of two
    /// source chars (or the text's start or end): a match may begin or end
    /// there. Inside the expansion of one char (`ﬂ` is `fl`, `½` is `1⁄2`)
    /// it may not.
    pub fn is_edge(&self, k: usize) -> bool {
        if k == 0 || k >= self.text.len() {
            return k <= self.text.len();
        }
        self.text.is_char_boundary(k) && self.origin_of(k - 1) != self.origin_of(k)
    }

    /// `range` (normalized bytes) widened to the nearest edges
    /// ([`Normalized::is_edge`]) around it: it then covers the whole
    /// expansion of every source char it touches.
    pub fn widen_to_edges(&self, range: Range<usize>) -> Range<usize> {
        let mut start = range.start.min(self.text.len());
        while !self.is_edge(start) {
            start -= 1;
        }
        let mut end = range.end.clamp(start, self.text.len());
        while !self.is_edge(end) {
            end += 1;
        }
        start..end
    }

    /// Every occurrence of `pattern` in the normalized text that begins and
    /// ends on edges ([`Normalized::is_edge`]), non-overlapping from the
    /// left, as normalized byte ranges. An occurrence cut inside a char's
    /// expansion is passed over and the search goes on from the next char,
    /// so an aligned occurrence that overlaps it is still found.
    pub fn find_aligned<'p>(&'p self, pattern: &'p str) -> impl Iterator<Item = Range<usize>> + 'p {
        let finder = memchr::memmem::Finder::new(pattern.as_bytes());
        let text = self.text.as_str();
        let mut at = 0;
        std::iter::from_fn(move || {
            if pattern.is_empty() {
                return None;
            }
            while at <= text.len() {
                let hit = at + finder.find(&text.as_bytes()[at..])?;
                let r = hit..hit + pattern.len();
                if self.is_edge(r.start) && self.is_edge(r.end) {
                    at = r.end;
                    return Some(r);
                }
                at = hit + text[hit..].chars().next().map_or(1, char::len_utf8);
            }
            None
        })
    }
}

/// Converts a byte range of `text` into a range of character (Unicode scalar)
/// offsets, the unit the output files use.
pub fn byte_to_char_range(text: &str, range: Range<usize>) -> Range<usize> {
    let start = text[..range.start].chars().count();
    let len = text[range.start..range.end].chars().count();
    start..start + len
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(original: &str, needle: &str, expect: &str) {
        let n = Normalized::new(original);
        let at = n.text().find(needle).expect("needle in normalized text");
        let span = n
            .to_original(original, at..at + needle.len())
            .expect("span");
        assert_eq!(&original[span], expect);
    }

    #[test]
    fn built_into_a_used_spare_is_the_same() {
        let pieces = [
            "Ab", " ", "  ", "\n", "é", "“", "—", "ﬁ", "x", "`", "Ⅻ", "9",
        ];
        let mut next = crate::test_rng::xorshift(0x5ba2_e0f1);
        let mut spare = NormalizedSpare::default();
        for _ in 0..500 {
            let text = crate::test_rng::text_of(&mut next, &pieces, 64);
            let fresh = Normalized::new(&text);
            let reused = Normalized::new_in(&text, spare);
            assert_eq!(format!("{reused:?}"), format!("{fresh:?}"), "{text:?}");
            spare = reused.into_spare();
        }
    }

    #[test]
    fn folds_quotes_dashes_case_and_space() {
        let n = Normalized::new("  It’s  “GREAT” — really\n\tgreat ");
        assert_eq!(n.text(), "it's \"great\" - really great");
    }

    #[test]
    fn spans_slice_the_original() {
        check("Élodie said “yes”", "elodie", "Élodie");
        check("a   b", "a b", "a   b");
        check("x ﬁne y", "fine", "ﬁne");
        check("the Straße ends", "straße", "Straße");
        check("he’s here", "he's", "he’s");
    }

    #[test]
    fn trailing_whitespace_is_not_in_the_span() {
        let original = "word   ";
        let n = Normalized::new(original);
        assert_eq!(n.text(), "word");
        assert_eq!(n.to_original(original, 0..4), Some(0..4));
    }

    #[test]
    fn bad_ranges_give_none() {
        let n = Normalized::new("abc");
        assert_eq!(n.to_original("abc", 2..2), None);
        assert_eq!(n.to_original("abc", 0..9), None);
        assert_eq!(n.to_original("other text", 0..1), None);
    }

    /// The definition, one char at a time: NFKD, marks dropped, typographic
    /// forms folded, lower-cased, whitespace runs collapsed to one space
    /// and trimmed (whitespace: ASCII's five for ASCII chars, so a
    /// vertical tab is kept; Unicode's for what other chars become); each
    /// output char with the original offset of the char it came from (a
    /// collapsed space: the run's first whitespace char).
    fn reference(original: &str) -> Vec<(char, usize)> {
        let mut out: Vec<(char, usize)> = Vec::new();
        let mut pending: Option<usize> = None;
        for (at, ch) in original.char_indices() {
            let mut produced = Vec::new();
            decompose_compatible(ch, |d| {
                if !is_combining_mark(d) {
                    produced.push(fold_typographic(d));
                }
            });
            for d in produced {
                let space = if ch.is_ascii() {
                    d.is_ascii_whitespace()
                } else {
                    d.is_whitespace()
                };
                if space {
                    if !out.is_empty() && pending.is_none() {
                        pending = Some(at);
                    }
                    continue;
                }
                if let Some(sp) = pending.take() {
                    out.push((' ', sp));
                }
                out.extend(d.to_lowercase().map(|l| (l, at)));
            }
        }
        out
    }

    #[test]
    fn generated_texts_match_the_definition_char_by_char() {
        let pieces = [
            "a",
            "B",
            "word",
            "Q",
            " ",
            "  ",
            "\t",
            "\n",
            " \r\n ",
            "`",
            "’",
            "“",
            "—",
            "É",
            "é",
            "e\u{301}",
            "ﬁ",
            "ß",
            "İ",
            "\u{a0}",
            "\u{2003}",
            ".",
            ",",
            "0",
            "x y",
            // Runs long enough for eight bytes at a time, with a space at
            // each offset, and a control byte that is not whitespace.
            "a plain run of words",
            "UPPER lower Mixed",
            "abcdefg ",
            "seven7 ",
            "\u{1}",
            "\u{b}",
        ];
        let mut next = crate::test_rng::xorshift(0x5eed_1234);
        for _ in 0..6000 {
            let original = crate::test_rng::text_of(&mut next, &pieces, 24);
            let n = Normalized::new(&original);
            let want = reference(&original);
            let text: String = want.iter().map(|(c, _)| *c).collect();
            assert_eq!(n.text(), text, "{original:?}");
            // Every char of the normalized text maps back to its source
            // char: alone when it is that char's whole output, widened to
            // that output when the char became several (issue 39: a match
            // never covers part of one char's expansion).
            let outputs = |at: usize| want.iter().filter(|(_, a)| *a == at).count();
            for ((k, c), (_, at)) in n.text().char_indices().zip(&want) {
                let one = k..k + c.len_utf8();
                let end = at + original[*at..].chars().next().map_or(0, char::len_utf8);
                let span = n.to_original(&original, n.widen_to_edges(one.clone()));
                assert_eq!(span, Some(*at..end), "{original:?} at {k}");
                if outputs(*at) == 1 {
                    assert_eq!(n.to_original(&original, one), Some(*at..end));
                } else {
                    assert_eq!(n.to_original(&original, one), None, "{original:?} at {k}");
                }
            }
        }
    }

    #[test]
    fn issue_39_matches_cover_whole_expansions() {
        for (original, needle) in [
            ("½ cups of sugar", "2 cups of sugar"),
            ("ﬂower was", "lower was"),
            ("㎞ away", "m away"),
            ("the Ⅻ century", "i century"),
            ("the Ⅻ century", "the x"),
            ("ﬁne", "f"),
        ] {
            let n = Normalized::new(original);
            let at = n.text().find(needle).expect("in the normalized text");
            assert_eq!(
                n.to_original(original, at..at + needle.len()),
                None,
                "{original}"
            );
            assert_eq!(n.find_aligned(needle).next(), None, "{original} / {needle}");
        }
        // The whole expansion is a match; and an aligned occurrence that
        // overlaps a cut one is found.
        check("½ cups", "1⁄2 cups", "½ cups");
        check("ﬂower", "flower", "ﬂower");
        let original = "fﬀ";
        let n = Normalized::new(original);
        let hits: Vec<_> = n.find_aligned("ff").collect();
        assert_eq!(hits, vec![1..3]);
        assert_eq!(n.to_original(original, 1..3), Some(1..4));
        assert_eq!(n.widen_to_edges(2..3), 1..3);
        assert_eq!(n.widen_to_edges(0..2), 0..3);
    }

    #[test]
    fn char_ranges() {
        assert_eq!(byte_to_char_range("éa b", 2..4), 1..3);
    }
}
