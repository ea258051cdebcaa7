//! Quote normalization that keeps the way back to the original text.
//!
//! [`Normalized`] holds the normalized text and, for every normalized byte,
//! the byte offset in the original of the character it came from, so a match
//! found in normalized text maps back to an exact span of the original
//! ([`Normalized::to_original`]).
//!
//! The quote normalizer ignores what a transcriber or a quoting writer
//! changes without changing what was said: case, runs of whitespace,
//! typographic forms (curly quotes, dashes, ligatures, compatibility forms:
//! NFKD), diacritics (combining marks removed), punctuation (Unicode
//! category P: a mark between two words or numbers is a word break, an
//! apostrophe or hyphen inside a word and a comma or period inside a
//! number join: `we’ve` is `weve`, `1,000` is `1000`, `well—I` is
//! `well i`) and filler words standing alone (`um`, `uh`, ... see
//! [`DEFAULT_FILLERS`]; [`NormalizeOptions`] replaces the list).
//!
//! ```
//! use corpus_eval::text::aligned::Normalized;
//! let original = "He said: “Café, um,  au lait”.";
//! let n = Normalized::new(original);
//! assert_eq!(n.text(), "he said cafe au lait");
//! let start = n.text().find("cafe").unwrap();
//! let span = n.to_original(original, start..start + 4).unwrap();
//! assert_eq!(&original[span], "Café");
//! ```

use std::ops::Range;
use unicode_normalization::char::{decompose_compatible, is_combining_mark};

/// Short description of the quote normalizer (without its filler list,
/// which [`NormalizeOptions::signature`] adds), used in signatures.
pub const QUOTE_NORMALIZER_SIGNATURE: &str =
    "nfkd+strip-marks+lower+typographic+drop-punct(P)+ws-collapse";

/// The filler words the quote normalizer drops by default (standing alone
/// as words, any case).
pub const DEFAULT_FILLERS: [&str; 8] = ["um", "uh", "er", "erm", "ah", "hmm", "mm", "mhm"];

/// The quote normalizer's settings: the filler words it drops.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct NormalizeOptions {
    /// Filler words, lower-cased and normalized, sorted.
    fillers: Vec<String>,
}

impl Default for NormalizeOptions {
    fn default() -> Self {
        NormalizeOptions::with_fillers(DEFAULT_FILLERS)
    }
}

impl NormalizeOptions {
    /// Options dropping these filler words (each normalized as a quote is;
    /// an entry that is not one word is ignored).
    pub fn with_fillers<I, S>(fillers: I) -> NormalizeOptions
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let none = NormalizeOptions {
            fillers: Vec::new(),
        };
        let mut fillers: Vec<String> = fillers
            .into_iter()
            .map(|f| Normalized::build(f.as_ref(), NormalizedSpare::default(), &none).text)
            .filter(|f| !f.is_empty() && !f.contains(' '))
            .collect();
        fillers.sort();
        fillers.dedup();
        NormalizeOptions { fillers }
    }

    /// Options that drop no filler word.
    pub fn no_fillers() -> NormalizeOptions {
        NormalizeOptions {
            fillers: Vec::new(),
        }
    }

    /// The filler words dropped.
    pub fn fillers(&self) -> &[String] {
        &self.fillers
    }

    /// The normalizer with its filler list, for signatures.
    pub fn signature(&self) -> String {
        if self.fillers.is_empty() {
            format!("{QUOTE_NORMALIZER_SIGNATURE}+fillers:none")
        } else {
            format!(
                "{QUOTE_NORMALIZER_SIGNATURE}+fillers:{}",
                self.fillers.join(",")
            )
        }
    }

    fn is_filler(&self, word: &[u8]) -> bool {
        word.len() <= 16 && self.fillers.iter().any(|f| f.as_bytes() == word)
    }
}

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

/// ASCII punctuation (Unicode category P) and the backtick (a grave
/// accent used as an apostrophe, folded to one).
const PUNCT: [bool; 256] = {
    let mut t = [false; 256];
    let set = b"!\"#%&'()*,-./:;?@[\\]_{}`";
    let mut k = 0;
    while k < set.len() {
        t[set[k] as usize] = true;
        k += 1;
    }
    t
};

/// ASCII bytes copied as they are (lower-cased): all but whitespace and
/// punctuation.
const PLAIN: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 128 {
        t[b] = !(b as u8).is_ascii_whitespace() && !PUNCT[b];
        b += 1;
    }
    t
};

/// Whether eight bytes are all ASCII letters, digits or spaces, no two
/// spaces side by side and the last not a space: each space then stands
/// between two bytes that are output (given one output before the eight),
/// so it is kept as it is. Other plain bytes (symbols, control bytes) fail
/// this test (the caller then goes byte by byte).
#[inline(always)]
fn plain_or_single_spaces(w: u64) -> bool {
    use super::swar::{alnum_bytes, bytes_equal, HIGHS};
    let spaces = bytes_equal(w, b' ');
    (alnum_bytes(w) | spaces) == HIGHS && spaces & (spaces << 8) == 0 && spaces >> 63 == 0
}

/// Unicode category P, as sorted ranges (from the regex engine's Unicode
/// tables, built once).
fn punct_ranges() -> &'static [(char, char)] {
    static RANGES: std::sync::OnceLock<Vec<(char, char)>> = std::sync::OnceLock::new();
    RANGES.get_or_init(|| {
        let hir = regex_syntax::Parser::new().parse(r"\p{P}");
        match hir.as_ref().map(|h| h.kind()) {
            Ok(regex_syntax::hir::HirKind::Class(regex_syntax::hir::Class::Unicode(c))) => {
                c.ranges().iter().map(|r| (r.start(), r.end())).collect()
            }
            _ => Vec::new(),
        }
    })
}

/// True for punctuation (Unicode category P, the backtick included).
pub fn is_punctuation(c: char) -> bool {
    if c.is_ascii() {
        return PUNCT[c as usize];
    }
    let ranges = punct_ranges();
    let i = ranges.partition_point(|&(_, end)| end < c);
    ranges.get(i).is_some_and(|&(start, _)| start <= c)
}

/// A punctuation mark that joins two letters or digits into one word
/// (`we’ve`, `co-op`), or two digits into one number (`1,000`, `3.5`),
/// rather than breaking them apart.
fn joins(c: char, digits: bool) -> bool {
    matches!(
        c,
        '\'' | '`' | '\u{2019}' | '\u{2018}' | '\u{02BC}' | '-' | '\u{2010}' | '\u{2011}'
    ) || (digits && matches!(c, '.' | ','))
}

/// The last char of UTF-8 bytes (all whole chars), if any.
fn last_char(text: &[u8]) -> Option<char> {
    let start = text.iter().rposition(|&b| (b as i8) >= -0x40)?;
    std::str::from_utf8(&text[start..]).ok()?.chars().next()
}

/// Folds one typographic character to its plain form.
pub(crate) fn fold_typographic(c: char) -> char {
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
/// into ([`Normalized::into_spare`], [`Normalized::build`]): a text
/// normalized after another of about its size then allocates nothing.
#[derive(Debug, Default)]
pub(crate) struct NormalizedSpare {
    text: Vec<u8>,
    segments: Vec<Segment>,
}

impl Normalized {
    /// Normalizes `original` with the default options (the default
    /// fillers), recording where each output byte came from.
    pub fn new(original: &str) -> Normalized {
        Normalized::build(
            original,
            NormalizedSpare::default(),
            &NormalizeOptions::default(),
        )
    }

    /// Normalizes `original` with `options`.
    pub fn with_options(original: &str, options: &NormalizeOptions) -> Normalized {
        Normalized::build(original, NormalizedSpare::default(), options)
    }

    /// [`Normalized::with_options`] built into the buffers of `spare`.
    pub(crate) fn build(
        original: &str,
        spare: NormalizedSpare,
        options: &NormalizeOptions,
    ) -> Normalized {
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
        // A punctuation mark at `at`: nothing when it joins the output's
        // last char to the next source char (from byte `next`), else a
        // word break (a pending space).
        let punct = |text: &[u8], pending: &mut Option<u32>, c: char, at: u32, next: usize| {
            let before = if pending.is_some() {
                None
            } else {
                last_char(text)
            };
            let after = original[next..].chars().next();
            let joined = match (before, after) {
                (Some(a), Some(b)) if a.is_alphanumeric() && b.is_alphanumeric() => {
                    joins(c, a.is_numeric() && b.is_numeric())
                }
                _ => false,
            };
            if !joined && !text.is_empty() && pending.is_none() {
                *pending = Some(at);
            }
        };
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
                if PUNCT[b as usize] {
                    punct(&text, &mut pending_space, b as char, at, i);
                    continue;
                }
                if let Some(sp) = pending_space.take() {
                    map.linear(text.len(), sp);
                    text.push(b' ');
                }
                map.linear(text.len(), at);
                text.push(b.to_ascii_lowercase());
                // The rest of the run of plain ASCII maps one to one, single
                // spaces between plain bytes included (they are kept as they
                // are, so the run's map stays one segment).
                let mut end = i;
                loop {
                    // Eight bytes at a time while they are all letters,
                    // digits or single spaces, the eighth not a space (the
                    // byte before `end` is not whitespace: it was output).
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
                let folded = fold_typographic(d);
                if folded.is_whitespace() {
                    if !text.is_empty() && pending_space.is_none() {
                        pending_space = Some(at);
                    }
                    continue;
                }
                if is_punctuation(folded) || is_punctuation(d) {
                    // Judged by the char as written (an apostrophe joins,
                    // a dash breaks, though both fold to ASCII marks).
                    punct(&text, &mut pending_space, d, at, i);
                    started = false;
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
                for l in folded.to_lowercase() {
                    let mut buf = [0u8; 4];
                    text.extend_from_slice(l.encode_utf8(&mut buf).as_bytes());
                }
            }
        }
        // Only whole chars were pushed, so this is valid UTF-8.
        let text = String::from_utf8(text)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
        let mut n = Normalized {
            text,
            segments: map.segments,
            original_len: original.len(),
        };
        if !options.fillers.is_empty() {
            n.drop_fillers(options);
        }
        n
    }

    /// Drops every filler word standing alone (between spaces or the
    /// text's ends) with one space beside it, keeping the byte map.
    fn drop_fillers(&mut self, options: &NormalizeOptions) {
        let bytes = self.text.as_bytes();
        let mut cut: Vec<Range<usize>> = Vec::new();
        let mut start = 0;
        while start < bytes.len() {
            let end = memchr::memchr(b' ', &bytes[start..]).map_or(bytes.len(), |k| start + k);
            if options.is_filler(&bytes[start..end]) {
                // The word and the space after it (or, last, before it).
                if end < bytes.len() {
                    cut.push(start..end + 1);
                } else if start > 0 {
                    cut.push(start - 1..end);
                } else {
                    cut.push(start..end);
                }
            }
            start = end + 1;
        }
        if cut.is_empty() {
            return;
        }
        // Cuts that touch (`um uh`) merge; one left before the last word
        // may overlap the one before it.
        let mut merged: Vec<Range<usize>> = Vec::with_capacity(cut.len());
        for c in cut {
            match merged.last_mut() {
                Some(last) if c.start <= last.end => last.end = last.end.max(c.end),
                _ => merged.push(c),
            }
        }
        let mut text = String::with_capacity(self.text.len());
        let mut segments: Vec<Segment> = Vec::with_capacity(self.segments.len() + merged.len());
        let mut kept_from = 0;
        let keep = |from: usize, to: usize, text: &mut String, segments: &mut Vec<Segment>| {
            if from >= to {
                return;
            }
            // The segments over old bytes from..to, moved to the new text.
            let first = self
                .segments
                .partition_point(|s| s.norm as usize <= from)
                .saturating_sub(1);
            for (k, seg) in self.segments.iter().enumerate().skip(first) {
                let seg_start = seg.norm as usize;
                if seg_start >= to {
                    break;
                }
                let seg_end = self
                    .segments
                    .get(k + 1)
                    .map_or(self.text.len(), |s| s.norm as usize);
                let lo = seg_start.max(from);
                if lo >= seg_end.min(to) {
                    continue;
                }
                segments.push(Segment {
                    norm: (text.len() + lo - from) as u32,
                    orig: if seg.linear {
                        seg.orig + (lo - seg_start) as u32
                    } else {
                        seg.orig
                    },
                    linear: seg.linear,
                });
            }
            text.push_str(&self.text[from..to]);
        };
        for c in &merged {
            keep(kept_from, c.start, &mut text, &mut segments);
            kept_from = c.end;
        }
        keep(kept_from, self.text.len(), &mut text, &mut segments);
        // A space left at either end (a filler first or last) goes too.
        while text.ends_with(' ') {
            text.pop();
        }
        if text.starts_with(' ') {
            text.remove(0);
            for s in segments.iter_mut() {
                s.norm = s.norm.saturating_sub(1);
            }
            // The first segment of the space, now empty, starts where the
            // next one does.
            while segments.len() > 1 && segments[0].norm == segments[1].norm {
                segments.remove(0);
            }
        }
        self.text = text;
        self.segments = segments;
    }

    /// The original byte offset of the char that normalized byte `k` came
    /// from.
    pub fn origin(&self, k: usize) -> Option<usize> {
        self.origin_of(k)
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
    pub(crate) fn into_spare(self) -> NormalizedSpare {
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
        self.find_aligned_from(pattern, 0)
    }

    /// [`Normalized::find_aligned`] from normalized byte `from` on (a char
    /// boundary).
    pub fn find_aligned_from<'p>(
        &'p self,
        pattern: &'p str,
        from: usize,
    ) -> impl Iterator<Item = Range<usize>> + 'p {
        let finder = memchr::memmem::Finder::new(pattern.as_bytes());
        let text = self.text.as_str();
        let mut at = from.min(text.len());
        while !text.is_char_boundary(at) {
            at += 1;
        }
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
        let mut next = crate::test_rng::seeded(0x5ba2_e0f1);
        let mut spare = NormalizedSpare::default();
        for _ in 0..500 {
            let text = crate::test_rng::text_of(&mut next, &pieces, 64);
            let fresh = Normalized::new(&text);
            let reused = Normalized::build(&text, spare, &NormalizeOptions::default());
            assert_eq!(format!("{reused:?}"), format!("{fresh:?}"), "{text:?}");
            spare = reused.into_spare();
        }
    }

    #[test]
    fn folds_quotes_dashes_case_and_space() {
        // Issue 40: punctuation is dropped (it was kept, folded, before).
        let n = Normalized::new("  It’s  “GREAT” — really\n\tgreat ");
        assert_eq!(n.text(), "its great really great");
    }

    #[test]
    fn issue_40_punctuation_and_fillers() {
        let n = Normalized::new("She hated it, honestly, but she never said so to my grandmother.");
        assert_eq!(
            n.text(),
            "she hated it honestly but she never said so to my grandmother"
        );
        for (original, want) in [
            ("well—I left", "well i left"),
            ("well - I left", "well i left"),
            ("we’ve a co-op", "weve a coop"),
            ("1,000 or 3.5", "1000 or 35"),
            ("and/or", "and or"),
            ("Um, I think, uh, we left.", "i think we left"),
            ("UM... I think", "i think"),
            ("an umbrella, umm, erm", "an umbrella umm"),
            ("hmm", ""),
            ("it's… [sic] (sic)", "its sic sic"),
            ("“Yes,” she said.", "yes she said"),
            ("#1 @home", "1 home"),
            ("$5 + 3 = 8", "$5 + 3 = 8"),
        ] {
            assert_eq!(Normalized::new(original).text(), want, "{original}");
        }
        let none = NormalizeOptions::no_fillers();
        assert_eq!(
            Normalized::with_options("um, I think", &none).text(),
            "um i think"
        );
        let custom = NormalizeOptions::with_fillers(["Like", "you know"]);
        assert_eq!(custom.fillers(), &["like".to_string()]);
        assert_eq!(
            Normalized::with_options("I, like, um left", &custom).text(),
            "i um left"
        );
        // Spans still slice the original.
        check(
            "Um, she hated it, honestly, but",
            "she hated it honestly but",
            "she hated it, honestly, but",
        );
        check(
            "I think, uh, we left",
            "i think we left",
            "I think, uh, we left",
        );
    }

    #[test]
    fn spans_slice_the_original() {
        check("Élodie said “yes”", "elodie", "Élodie");
        check("a   b", "a b", "a   b");
        check("x ﬁne y", "fine", "ﬁne");
        check("the Straße ends", "straße", "Straße");
        check("he’s here", "hes", "he’s");
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
        let chars: Vec<(usize, char)> = original.char_indices().collect();
        let mut out: Vec<(char, usize)> = Vec::new();
        let mut pending: Option<usize> = None;
        for (k, &(at, ch)) in chars.iter().enumerate() {
            let mut produced = Vec::new();
            decompose_compatible(ch, |d| {
                if !is_combining_mark(d) {
                    produced.push(d);
                }
            });
            for d in produced {
                let f = fold_typographic(d);
                let space = if ch.is_ascii() {
                    f.is_ascii_whitespace()
                } else {
                    f.is_whitespace()
                };
                if space {
                    if !out.is_empty() && pending.is_none() {
                        pending = Some(at);
                    }
                    continue;
                }
                if is_punctuation(f) || is_punctuation(d) {
                    let before = if pending.is_some() {
                        None
                    } else {
                        out.last().map(|c| c.0)
                    };
                    let after = chars.get(k + 1).map(|c| c.1);
                    let joined = match (before, after) {
                        (Some(a), Some(b)) if a.is_alphanumeric() && b.is_alphanumeric() => {
                            joins(d, a.is_numeric() && b.is_numeric())
                        }
                        _ => false,
                    };
                    if !joined && !out.is_empty() && pending.is_none() {
                        pending = Some(at);
                    }
                    continue;
                }
                if let Some(sp) = pending.take() {
                    out.push((' ', sp));
                }
                out.extend(f.to_lowercase().map(|l| (l, at)));
            }
        }
        // Filler words (the default list) dropped with a space beside.
        let words: Vec<Vec<(char, usize)>> =
            out.split(|c| c.0 == ' ').map(|w| w.to_vec()).collect();
        let spaces: Vec<(char, usize)> = out.iter().copied().filter(|c| c.0 == ' ').collect();
        let filler = |w: &[(char, usize)]| {
            let t: String = w.iter().map(|c| c.0).collect();
            DEFAULT_FILLERS.contains(&t.as_str())
        };
        let kept: Vec<usize> = (0..words.len()).filter(|&k| !filler(&words[k])).collect();
        let mut result: Vec<(char, usize)> = Vec::new();
        for (j, &k) in kept.iter().enumerate() {
            if j > 0 {
                // A filler goes with the space after it: the space kept is
                // the one after the previous kept word.
                result.push(spaces[kept[j - 1]]);
            }
            result.extend(&words[k]);
        }
        result
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
            // Punctuation, joiners, fillers (issue 40).
            "um",
            "Uh,",
            "hmm",
            " um ",
            "-",
            "'",
            "’",
            "…",
            ",",
            "1",
            "—",
            "(",
            "»",
        ];
        let mut next = crate::test_rng::seeded(0x5eed_1234);
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
