//! Fuzzy quote search: the best approximate substring of a transcript.
//!
//! **Definition.** For a quote `q` (normalized, `m` characters) and a
//! window `W` of the normalized transcript, every end position `j` in `W`
//! has a least edit distance `d(j)` of `q` to a substring of `W` ending at
//! `j`, and a start `s(j)`: the earliest start in `W` reaching `d(j)` (the
//! longest such substring). Its similarity is
//! `1 - d(j) / max(m, j - s(j))`, in characters. The match is the end with
//! the highest similarity over all windows; among equal similarities, the
//! earliest end. [`reference_match`] computes exactly this with the
//! textbook table, and [`best_match`] must return the same.
//!
//! **Windows.** A [`BigramIndex`] lists where each pair of consecutive
//! words of the transcript occurs (compact 32-bit postings). The quote's
//! bigrams, rarest first, until 2,048 postings are spent (at least four
//! bigrams vote), each vote for the alignment it implies (transcript word minus
//! quote word, a diagonal), counted in dense per-thread counters. A
//! diagonal's support is the votes within `r` diagonals of it (so that an
//! inserted or dropped word, which splits the votes of one location over
//! neighbouring diagonals, still counts as one location); the best
//! [`CANDIDATES`] locations (3 when none has more than two votes) with
//! more than half the best support, each at
//! least `r` diagonals from the others, give windows around the diagonals
//! they cover, and overlapping windows are merged. Quotes with no bigram in the transcript vote by words; with
//! no word either, a transcript of at most [`FULL_SCAN_CHARS`] characters is
//! one window.
//!
//! **Lossless filters.** [`search`] and [`search_in`] then look, for what
//! could beat the best voted window and reach a floor, in the windows of a
//! filter that keeps every alignment at or above it: the word-piece lower
//! bound of [`wordbound`] for the quotes whose pieces a transcript's batch
//! tabled, else the q-gram filter of [`qgram`].
//!
//! **Verification.** A bit-parallel edit distance (`myers`) gives `d(j)`
//! for every end of a window at 64 quote characters per machine word.
//! Ends are visited by increasing distance; since `j - s(j) <= m + d(j)`,
//! an end's similarity is at most `m / (m + d(j))`, so the visit stops as
//! soon as that bound falls below the best found. Each visited end's start
//! comes from a second bit-parallel scan backwards from it; when too many
//! ends need one (quotes that match nowhere well), the table with start
//! tracking is cheaper and is computed instead: the same numbers either way.

#[cfg(feature = "bench-internals")]
pub mod lanes;
// Public to the benchmarks alone (feature `bench-internals`).
#[cfg(not(feature = "bench-internals"))]
#[allow(unreachable_pub)]
pub(crate) mod lanes;
pub(crate) mod myers;
pub mod qgram;
pub mod wordbound;

use myers::Pattern;
use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::Range;

/// How similarity is computed, for signatures.
pub const SIMILARITY_SIGNATURE: &str = "1-levenshtein/maxlen(chars,semi-global)";

/// Locations verified per quote.
pub const CANDIDATES: usize = 8;
/// Support (votes near a location) at or below which no location stands
/// out: one or two word pairs in common, what chance gives any quote.
const WEAK_SUPPORT: u32 = 2;
/// Locations verified when the best has weak support.
const WEAK_CANDIDATES: usize = 3;
/// Bigrams more frequent than this are skipped when voting (stop-word pairs).
const MAX_POSTINGS: usize = 20_000;
/// Postings a quote's word pairs may cast votes from, rarest pairs first.
const VOTE_BUDGET: usize = 2048;
/// Word pairs that vote whatever the budget.
const MIN_VOTERS: usize = 4;
/// Transcripts up to this many chars are scanned whole when no bigram or
/// word of the quote occurs in them.
pub const FULL_SCAN_CHARS: usize = 200_000;

type FxMap<K, V> = HashMap<K, V, rustc_hash::FxBuildHasher>;

/// The word index of a normalized transcript: each word's position and id,
/// where each word occurs, and where each pair of consecutive words occurs
/// (hashed into buckets; a bucket's positions are checked against the
/// words by their pair key). About 28 bytes per word (and no more while it
/// is built: the keys are computed again rather than held beside it).
#[derive(Debug, Default)]
pub struct BigramIndex {
    /// First byte of each word in the normalized text (its end is where
    /// its run of alphanumeric chars ends: [`BigramIndex::word`]).
    starts: Vec<u32>,
    /// Word id of each word.
    ids: Vec<u32>,
    /// Word id of each distinct word, by its hash.
    vocab: FxMap<u64, u32>,
    /// Positions of each word id: `.1[.0[id]...0[id + 1]]`, built on
    /// first use (only quotes that share no word pair with the text vote
    /// by single words).
    unigrams: std::sync::OnceLock<(Vec<u32>, Vec<u32>)>,
    /// Positions `p` of bigrams `(ids[p], ids[p + 1])` by bucket.
    bi_off: Vec<u32>,
    bi_pos: Vec<u32>,
    /// The pair key ([`pair_key`], one per pair of ids) of each position
    /// in `bi_pos`: a bucket's positions of one bigram are picked out by a
    /// scan of its keys, without reading the words.
    bi_key: Vec<u64>,
    /// Characters of the text.
    chars: usize,
}

/// A word's 64-bit hash: eight bytes at a time, each mixed by a multiply,
/// the length folded in, then a final avalanche.
#[inline(always)]
fn word_hash(b: &[u8]) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut h = b.len() as u64;
    let mut chunks = b.chunks_exact(8);
    for c in &mut chunks {
        let mut a = [0u8; 8];
        a.copy_from_slice(c);
        h = (h.rotate_left(23) ^ u64::from_le_bytes(a)).wrapping_mul(K);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut a = [0u8; 8];
        a[..rest.len()].copy_from_slice(rest);
        h = (h.rotate_left(23) ^ u64::from_le_bytes(a)).wrapping_mul(K);
    }
    h ^= h >> 32;
    h = h.wrapping_mul(0xD6E8_FEB8_6659_FD93);
    h ^ (h >> 29)
}

/// The key of a pair of word ids: one to one (a multiplication by an odd
/// number is invertible modulo 2^64), so equal keys are equal pairs.
fn pair_key(a: u32, b: u32) -> u64 {
    (u64::from(a) << 32 | u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// Whether the char at byte `i` of `text` is alphanumeric, and its length
/// (ASCII by byte; other chars decoded).
#[inline(always)]
fn alnum_at(text: &str, i: usize) -> (bool, usize) {
    let c = text.as_bytes()[i];
    if c < 0x80 {
        (c.is_ascii_alphanumeric(), 1)
    } else {
        match text[i..].chars().next() {
            Some(ch) => (ch.is_alphanumeric(), ch.len_utf8()),
            None => (false, 1),
        }
    }
}

/// Where the run of chars from byte `i` of `text` whose alphanumeric-ness
/// is `alnum` ends.
#[inline(always)]
fn run_end(text: &str, mut i: usize, alnum: bool) -> usize {
    while i < text.len() {
        let (a, len) = alnum_at(text, i);
        if a != alnum {
            break;
        }
        i += len;
    }
    i
}

/// Calls `f(start, end)` for each word (run of alphanumeric chars) of
/// `text`, in order.
#[inline(always)]
fn each_word(text: &str, mut f: impl FnMut(usize, usize)) {
    let mut i = run_end(text, 0, false);
    while i < text.len() {
        let end = run_end(text, i, true);
        f(i, end);
        i = run_end(text, end, false);
    }
}

/// Byte ranges of the words (runs of alphanumeric chars) of `text`.
fn word_ranges(text: &str) -> Vec<Range<u32>> {
    let mut out = Vec::new();
    each_word(text, |s, e| out.push(s as u32..e as u32));
    out
}

/// Where the word starting at byte `start` of `text` ends.
fn word_end(text: &str, start: usize) -> usize {
    run_end(text, start, true)
}

/// Counting sort of positions by key: (offsets, positions), each key's
/// positions in order. (Filled from the end, each key's end offset moved
/// down to its start as it goes: no second array of offsets.)
fn buckets<I>(n_keys: usize, keys: I) -> (Vec<u32>, Vec<u32>)
where
    I: DoubleEndedIterator<Item = usize> + ExactSizeIterator + Clone,
{
    buckets_in(n_keys, keys, (Vec::new(), Vec::new()))
}

/// [`buckets`] into the buffers `(off, pos)` (their contents dropped).
fn buckets_in<I>(
    n_keys: usize,
    keys: I,
    (mut off, mut pos): (Vec<u32>, Vec<u32>),
) -> (Vec<u32>, Vec<u32>)
where
    I: DoubleEndedIterator<Item = usize> + ExactSizeIterator + Clone,
{
    let n = keys.len();
    off.clear();
    off.resize(n_keys + 1, 0);
    for k in keys.clone() {
        off[k + 1] += 1;
    }
    for i in 0..n_keys {
        off[i + 1] += off[i];
    }
    // off[k + 1] is the end of key k's positions, then (moved down by one
    // per position) their start.
    pos.clear();
    pos.resize(n, 0);
    for (p, k) in keys.enumerate().rev() {
        off[k + 1] -= 1;
        pos[off[k + 1] as usize] = p as u32;
    }
    off.rotate_left(1);
    off[n_keys] = n as u32;
    (off, pos)
}

/// The buffers of a dropped [`BigramIndex`], kept to build the next one
/// into ([`BigramIndex::into_spare`], [`BigramIndex::new_in`]).
#[derive(Debug, Default)]
pub(crate) struct IndexSpare {
    starts: Vec<u32>,
    ids: Vec<u32>,
    vocab: FxMap<u64, u32>,
    bi_off: Vec<u32>,
    bi_pos: Vec<u32>,
    bi_key: Vec<u64>,
}

impl BigramIndex {
    /// Indexes a normalized transcript.
    pub fn new(text: &str) -> BigramIndex {
        BigramIndex::new_in(text, IndexSpare::default())
    }

    /// [`BigramIndex::new`] built into the buffers of `spare`.
    pub(crate) fn new_in(text: &str, spare: IndexSpare) -> BigramIndex {
        let IndexSpare {
            mut starts,
            mut ids,
            mut vocab,
            bi_off,
            bi_pos,
            mut bi_key,
        } = spare;
        vocab.clear();
        starts.clear();
        starts.reserve(text.len() / 6);
        ids.clear();
        ids.reserve(text.len() / 6);
        let bytes = text.as_bytes();
        each_word(text, |s, e| {
            let h = word_hash(&bytes[s..e]);
            let next = vocab.len() as u32;
            starts.push(s as u32);
            ids.push(*vocab.entry(h).or_insert(next));
        });
        let n_buckets = (ids.len() / 2).max(1).next_power_of_two();
        let mask = n_buckets as u64 - 1;
        let (bi_off, bi_pos) = buckets_in(
            n_buckets,
            ids.windows(2)
                .map(move |w| (pair_key(w[0], w[1]) >> 20 & mask) as usize),
            (bi_off, bi_pos),
        );
        // Keys computed again from the ids (no array of them beside the
        // buckets while they are sorted).
        bi_key.clear();
        bi_key.extend(
            bi_pos
                .iter()
                .map(|&p| pair_key(ids[p as usize], ids[p as usize + 1])),
        );
        BigramIndex {
            starts,
            ids,
            vocab,
            unigrams: std::sync::OnceLock::new(),
            bi_off,
            bi_pos,
            bi_key,
            chars: text.chars().count(),
        }
    }

    /// Its buffers, for [`BigramIndex::new_in`].
    pub(crate) fn into_spare(self) -> IndexSpare {
        IndexSpare {
            starts: self.starts,
            ids: self.ids,
            vocab: self.vocab,
            bi_off: self.bi_off,
            bi_pos: self.bi_pos,
            bi_key: self.bi_key,
        }
    }

    /// The id of a word, when the transcript has it.
    fn id(&self, word: &str) -> Option<u32> {
        self.vocab.get(&word_hash(word.as_bytes())).copied()
    }

    /// Positions of a word id.
    fn unigram(&self, id: u32) -> &[u32] {
        let (off, pos) = self
            .unigrams
            .get_or_init(|| buckets(self.vocab.len(), self.ids.iter().map(|&i| i as usize)));
        let i = id as usize;
        &pos[off[i] as usize..off[i + 1] as usize]
    }

    /// Number of words.
    fn len(&self) -> usize {
        self.starts.len()
    }

    /// Byte range of word `k` in `text` (the text indexed).
    fn word(&self, text: &str, k: usize) -> Range<usize> {
        let s = self.starts[k] as usize;
        s..word_end(text, s)
    }

    /// Positions in the bucket of the bigram `(a, b)`: at least its
    /// number of occurrences.
    fn bigram_bucket_len(&self, a: u32, b: u32) -> usize {
        let mask = (self.bi_off.len() - 2) as u64;
        let k = (pair_key(a, b) >> 20 & mask) as usize;
        (self.bi_off[k + 1] - self.bi_off[k]) as usize
    }

    /// Positions `p` of the bigram `(a, b)`, in order.
    fn bigram(&self, a: u32, b: u32) -> impl Iterator<Item = u32> + '_ {
        let mask = (self.bi_off.len() - 2) as u64;
        let key = pair_key(a, b);
        let k = (key >> 20 & mask) as usize;
        let r = self.bi_off[k] as usize..self.bi_off[k + 1] as usize;
        self.bi_pos[r.clone()]
            .iter()
            .zip(&self.bi_key[r])
            .filter(move |&(_, &kk)| kk == key)
            .map(|(&p, _)| p)
    }
}

/// A run of consecutive quote words found verbatim (normalized) in the
/// transcript.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Piece {
    /// Quote word indices.
    pub quote_words: Range<usize>,
    /// Transcript word indices.
    pub text_words: Range<usize>,
    /// Byte range in the normalized transcript.
    pub range: Range<usize>,
}

/// Splits a normalized quote, left to right, into the longest runs of at
/// least `min_words` consecutive words that stand (normalized, word for
/// word) in the transcript, through the bigram index (no scan). Words not
/// in any run are skipped.
pub fn pieces(quote: &str, text: &str, index: &BigramIndex, min_words: usize) -> Vec<Piece> {
    let q = word_ranges(quote);
    let qw = |k: usize| &quote[q[k].start as usize..q[k].end as usize];
    let tw = |k: usize| &text[index.word(text, k)];
    let ids: Vec<Option<u32>> = (0..q.len()).map(|k| index.id(qw(k))).collect();
    let mut out = Vec::new();
    let mut i = 0;
    let min_words = min_words.max(1);
    while i + min_words.max(2) <= q.len() {
        let mut best: Option<(usize, usize)> = None;
        // With pieces of three words or more, a place whose third word
        // differs (a run of two) cannot give one: passed over at once (a
        // test with no work depending on it, so that the reads of the
        // places' words overlap). `Some(None)`: the quote's third word is
        // not in the transcript, so no place qualifies.
        let third = (min_words >= 3).then(|| ids.get(i + 2).copied().flatten());
        if let (Some(a), Some(b)) = (ids[i], ids[i + 1]) {
            for p in index.bigram(a, b) {
                let p = p as usize;
                if third.is_some_and(|t| t.is_none() || t != index.ids.get(p + 2).copied()) {
                    continue;
                }
                // Word ids first (equal words have equal ids), then the
                // words themselves, in case two words share a hash.
                let mut m = 0;
                while i + m < q.len() && p + m < index.len() && ids[i + m] == Some(index.ids[p + m])
                {
                    m += 1;
                }
                if best.is_some_and(|(bm, _)| m <= bm) {
                    continue;
                }
                if let Some(k) = (0..m).find(|&k| qw(i + k) != tw(p + k)) {
                    m = k;
                }
                if best.is_none_or(|(bm, _)| m > bm) {
                    best = Some((m, p));
                }
                if i + m == q.len() {
                    break;
                }
            }
        }
        match best {
            Some((m, p)) if m >= min_words => {
                let range = index.word(text, p).start..index.word(text, p + m - 1).end;
                out.push(Piece {
                    quote_words: i..i + m,
                    text_words: p..p + m,
                    range,
                });
                i += m;
            }
            _ => i += 1,
        }
    }
    out
}

/// Asks for every cache line of `bytes` (a hint: nothing on other
/// targets).
#[inline(always)]
pub(crate) fn prefetch(bytes: &[u8]) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        for line in bytes.chunks(64) {
            // SAFETY: a prefetch reads nothing and cannot fault; the
            // pointer is to a live slice.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(line.as_ptr().cast()) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = bytes;
}

/// The byte offset of every `stride`-th char of `text`, and of its end
/// when its length in chars is a multiple of `stride` (for [`byte_at`]).
pub(crate) fn char_checkpoints(text: &str, stride: usize) -> Vec<u32> {
    let mut out = Vec::with_capacity(text.len() / stride + 2);
    let mut chars = 0;
    for (k, (i, _)) in text.char_indices().enumerate() {
        if k % stride == 0 {
            out.push(i as u32);
        }
        chars = k + 1;
    }
    if chars % stride == 0 {
        out.push(text.len() as u32);
    }
    out
}

/// The byte offset in `text` of char `c` (at most `chars`, the text's
/// chars), from `checkpoints`, the byte offset of every `stride`-th char.
pub(crate) fn byte_at(
    checkpoints: &[u32],
    stride: usize,
    chars: usize,
    text: &str,
    c: usize,
) -> usize {
    let c = c.min(chars);
    let k = c / stride;
    let base = checkpoints.get(k).copied().unwrap_or(text.len() as u32) as usize;
    let skip = c - k * stride;
    if skip == 0 {
        return base;
    }
    text[base..]
        .char_indices()
        .nth(skip)
        .map_or(text.len(), |(i, _)| base + i)
}

/// Number of words (runs of alphanumeric chars) of a text.
pub fn word_count(text: &str) -> usize {
    word_ranges(text).len()
}

/// The best approximate match of a quote.
#[derive(Debug, Clone, PartialEq)]
pub struct FuzzyMatch {
    /// Byte range in the normalized transcript.
    pub range: Range<usize>,
    /// 1 - distance / max(len), in chars.
    pub similarity: f64,
}

thread_local! {
    /// Vote counters by diagonal, all zero between calls.
    static VOTES: RefCell<Vec<u32>> = const { RefCell::new(Vec::new()) };
}

/// Finds the best approximate substring of `text` (normalized) for `quote`
/// (normalized), using `index` (built from the same `text`): the best match
/// of [`candidate_windows`] under the definition in the module
/// documentation.
pub fn best_match(quote: &str, text: &str, index: &BigramIndex) -> Option<FuzzyMatch> {
    let windows = candidate_windows(quote, text, index)?;
    let qv: Vec<char> = quote.chars().collect();
    verify(&qv, text, &windows)
}

/// The similarity floor under which the fuzzy search may miss an
/// alignment: at and above it, the search is lossless (see [`qgram`]).
pub const LOSSLESS_FLOOR: f64 = 0.8;

/// How the search finds its windows, for signatures.
pub const SEARCH_SIGNATURE: &str = "lossless>=min(0.8,threshold)(word-pieces16,qgram3)+word-pairs";

/// The best approximate substring of `text` for `quote` (both normalized)
/// under the definition in the module documentation: the best over the
/// windows the quote's word pairs vote for ([`candidate_windows`], which
/// also give a quote with no close passage its closest one), then over
/// the windows of the lossless q-gram filter ([`qgram::candidates`]; see
/// [`search_in`] for the word-piece bound) for
/// what could beat it at or above `floor` (use [`LOSSLESS_FLOOR`], or the
/// threshold when it is lower): equal to the best over the whole text
/// whenever that reaches `floor`; below it, the best the voted windows
/// hold.
pub fn search(
    quote: &str,
    text: &str,
    bigrams: &BigramIndex,
    qgrams: &qgram::QgramIndex,
    floor: f64,
) -> Option<FuzzyMatch> {
    let lossless = Lossless {
        tables: None,
        qgrams: &|| qgrams,
    };
    search_in(quote, text, bigrams, &lossless, floor)
}

/// The lossless filters of one transcript, for [`search_in`]: the word-piece
/// tables of its batch of quotes when there are any, and the q-gram index
/// (built on first use) for the quotes they cannot serve.
pub struct Lossless<'a> {
    /// The word-piece tables ([`wordbound`]).
    pub tables: Option<&'a wordbound::Tables>,
    /// The q-gram index ([`qgram`]), asked for only when needed.
    pub qgrams: &'a dyn Fn() -> &'a qgram::QgramIndex,
}

/// The windows of the lossless filters for `quote` (as chars) within the
/// edits `need` allows: the word-piece bound's where its tables can tell,
/// else the q-gram filter's.
fn lossless_windows(
    qv: &[char],
    text: &str,
    lossless: &Lossless<'_>,
    need: f64,
) -> Vec<Range<usize>> {
    if let Some(w) = lossless
        .tables
        .and_then(|t| t.candidates(qv, text, qgram::max_edits(qv.len(), need)))
    {
        return w;
    }
    match qgram::candidates(qv, text, (lossless.qgrams)(), need) {
        qgram::Candidates::Everywhere => std::iter::once(0..text.len()).collect(),
        qgram::Candidates::Windows(w) => w,
    }
}

/// [`search`] with the filters of `lossless`: the same match.
pub fn search_in(
    quote: &str,
    text: &str,
    bigrams: &BigramIndex,
    lossless: &Lossless<'_>,
    floor: f64,
) -> Option<FuzzyMatch> {
    search_after(
        quote,
        text,
        voted_match(quote, text, bigrams),
        lossless,
        floor,
    )
}

/// The first step of [`search_in`]: the best match in the windows the
/// quote's word pairs vote for, verified whole (also what a quote with no
/// close passage reports as its closest).
pub fn voted_match(quote: &str, text: &str, bigrams: &BigramIndex) -> Option<FuzzyMatch> {
    let qv: Vec<char> = quote.chars().collect();
    if qv.is_empty() || text.is_empty() {
        return None;
    }
    candidate_windows(quote, text, bigrams).and_then(|w| verify(&qv, text, w.as_slice()))
}

/// The similarity a lossless search after `voted` (its [`voted_match`])
/// looks for at `floor`: that of a match better than it, at least the
/// floor (an alignment better than one already found has fewer edits, so
/// the filters need more of the quote); None when `voted` is exact and
/// nothing can beat it.
pub fn lossless_need(voted: Option<&FuzzyMatch>, floor: f64) -> Option<f64> {
    match voted {
        Some(f) if f.similarity >= 1.0 => None,
        Some(f) => Some(f.similarity.max(floor)),
        None => Some(floor),
    }
}

/// [`search_in`] from its first step's match, `voted` ([`voted_match`],
/// computed beforehand): the same match.
pub fn search_after(
    quote: &str,
    text: &str,
    voted: Option<FuzzyMatch>,
    lossless: &Lossless<'_>,
    floor: f64,
) -> Option<FuzzyMatch> {
    let qv: Vec<char> = quote.chars().collect();
    if qv.is_empty() || text.is_empty() {
        return None;
    }
    // Then the lossless filter, for what could beat the first step's match
    // and reach the floor.
    let Some(need) = lossless_need(voted.as_ref(), floor) else {
        return voted;
    };
    let windows = lossless_windows(&qv, text, lossless, need);
    let better = verify_min(&qv, text, &windows, need);
    match (voted, better) {
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
    }
}

/// The windows (byte ranges of `text`, sorted, disjoint) where
/// [`best_match`] looks for `quote`; None when it does not look at all
/// (an empty quote or text, or no word of the quote in a long text).
pub fn candidate_windows(
    quote: &str,
    text: &str,
    index: &BigramIndex,
) -> Option<Vec<Range<usize>>> {
    let qwords = word_ranges(quote);
    let qchars = quote.chars().count();
    if qchars == 0 || text.is_empty() {
        return None;
    }
    let ids: Vec<Option<u32>> = qwords
        .iter()
        .map(|r| index.id(&quote[r.start as usize..r.end as usize]))
        .collect();
    let nq = qwords.len();
    let nw = index.len();
    let radius = (nq / 4).max(3);
    let slack_bytes = qchars / 4 + 8;
    let located = VOTES.with(|cell| {
        let mut votes = cell.borrow_mut();
        if votes.len() < nw + nq + 1 {
            votes.resize(nw + nq + 1, 0);
        }
        let mut touched: Vec<u32> = Vec::new();
        let vote = |votes: &mut Vec<u32>, touched: &mut Vec<u32>, p: u32, qi: usize| {
            // Diagonal p - qi, shifted by nq to stay positive.
            let d = p as usize + nq - qi;
            if votes[d] == 0 {
                touched.push(d as u32);
            }
            votes[d] += 1;
        };
        // The quote's word pairs, rarest first, vote until a budget of
        // postings is spent (at least MIN_VOTERS pairs vote): frequent
        // pairs say little about where a quote stands, and the budget keeps
        // the work per quote from growing with the transcript.
        let mut pairs: Vec<(usize, usize, u32, u32)> = ids
            .windows(2)
            .enumerate()
            .filter_map(|(qi, w)| match *w {
                [Some(a), Some(b)] => Some((index.bigram_bucket_len(a, b), qi, a, b)),
                _ => None,
            })
            .collect();
        pairs.sort_unstable();
        let mut spent = 0;
        for (k, &(bucket, qi, a, b)) in pairs.iter().enumerate() {
            if k >= MIN_VOTERS && spent + bucket > VOTE_BUDGET {
                break;
            }
            // A bucket holds at least the bigram's postings: counted only
            // when the bucket is over the cap.
            if bucket > MAX_POSTINGS && index.bigram(a, b).nth(MAX_POSTINGS).is_some() {
                continue;
            }
            spent += bucket;
            for p in index.bigram(a, b) {
                vote(&mut votes, &mut touched, p, qi);
            }
        }
        if touched.is_empty() {
            for (qi, id) in ids.iter().enumerate() {
                if let Some(id) = *id {
                    let post = index.unigram(id);
                    if post.len() > MAX_POSTINGS {
                        continue;
                    }
                    for &p in post {
                        vote(&mut votes, &mut touched, p, qi);
                    }
                }
            }
        }
        let picked = locations(&votes, &touched, radius);
        for &d in &touched {
            votes[d as usize] = 0;
        }
        picked
    });
    if located.is_empty() {
        if index.chars > FULL_SCAN_CHARS {
            return None;
        }
        return Some(std::iter::once(0..text.len()).collect());
    }
    let mut windows: Vec<Range<usize>> = located
        .into_iter()
        .map(|(lo, hi)| {
            // Diagonals lo..=hi (shifted by nq): the quote's words there
            // span transcript words lo - nq .. hi - nq + nq, padded.
            let first = (lo as i64 - nq as i64 - radius as i64).clamp(0, nw as i64 - 1) as usize;
            let last = (hi as i64 + radius as i64).clamp(0, nw as i64 - 1) as usize;
            let start = floor_boundary(
                text,
                index.word(text, first).start.saturating_sub(slack_bytes),
            );
            let end = ceil_boundary(
                text,
                (index.word(text, last).end + slack_bytes).min(text.len()),
            );
            start..end
        })
        .filter(|r| r.start < r.end)
        .collect();
    windows.sort_unstable_by_key(|r| r.start);
    let mut merged: Vec<Range<usize>> = Vec::with_capacity(windows.len());
    for w in windows {
        match merged.last_mut() {
            Some(last) if w.start <= last.end => last.end = last.end.max(w.end),
            _ => merged.push(w),
        }
    }
    Some(merged)
}

/// The best [`CANDIDATES`] locations among the voted diagonals: each
/// diagonal's support is the votes within `radius` of it; locations are
/// taken by support (then peak votes, then position), each at least
/// `radius` from those taken before, while their support is more than half
/// the best one's (a location with half the votes of another is a chance
/// coincidence of common word pairs, not where the quote comes from); only
/// [`WEAK_CANDIDATES`] when the best support is [`WEAK_SUPPORT`] or less. Returns each location's extent: the
/// first and last voted diagonal within `radius` of it.
fn locations(votes: &[u32], touched: &[u32], radius: usize) -> Vec<(u32, u32)> {
    if touched.is_empty() {
        return Vec::new();
    }
    let n = votes.len();
    // (support, peak, diagonal, extent)
    let mut scored: Vec<(u32, u32, u32, u32, u32)> = touched
        .iter()
        .map(|&d| {
            let lo = (d as usize).saturating_sub(radius);
            let hi = (d as usize + radius).min(n - 1);
            let mut support = 0;
            let (mut first, mut last) = (d, d);
            for (k, &v) in votes[lo..=hi].iter().enumerate() {
                if v > 0 {
                    support += v;
                    let k = (lo + k) as u32;
                    first = first.min(k);
                    last = last.max(k);
                }
            }
            (support, votes[d as usize], d, first, last)
        })
        .collect();
    let order = |a: &(u32, u32, u32, u32, u32), b: &(u32, u32, u32, u32, u32)| {
        b.0.cmp(&a.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2))
    };
    let keep = (CANDIDATES * 8).min(scored.len());
    if keep < scored.len() {
        scored.select_nth_unstable_by(keep - 1, order);
        scored.truncate(keep);
    }
    scored.sort_unstable_by(order);
    let top = scored.first().map_or(0, |s| s.0);
    let wanted = if top <= WEAK_SUPPORT {
        WEAK_CANDIDATES
    } else {
        CANDIDATES
    };
    let mut picked: Vec<(u32, u32, u32)> = Vec::with_capacity(CANDIDATES);
    for (support, _, d, first, last) in scored {
        if picked.len() == wanted || support * 2 <= top {
            break;
        }
        if picked
            .iter()
            .all(|&(c, _, _)| (c as usize).abs_diff(d as usize) > radius)
        {
            picked.push((d, first, last));
        }
    }
    picked.into_iter().map(|(_, f, l)| (f, l)).collect()
}

/// One window's characters and their byte offsets in the text.
struct WindowText {
    chars: Vec<char>,
    offsets: Vec<u32>,
    base: usize,
}

impl WindowText {
    fn new(text: &str, window: &Range<usize>) -> WindowText {
        let slice = &text[window.clone()];
        let mut chars = Vec::with_capacity(slice.len());
        let mut offsets = Vec::with_capacity(slice.len() + 1);
        for (i, c) in slice.char_indices() {
            chars.push(c);
            offsets.push(i as u32);
        }
        offsets.push(slice.len() as u32);
        WindowText {
            chars,
            offsets,
            base: window.start,
        }
    }

    /// The byte range of chars `s..j`.
    fn bytes(&self, s: usize, j: usize) -> Range<usize> {
        self.base + self.offsets[s] as usize..self.base + self.offsets[j] as usize
    }
}

/// A similarity and the end and start (chars) it was reached at.
#[derive(Debug, Clone, Copy)]
struct Found {
    similarity: f64,
    /// Window index and end char.
    end: (usize, usize),
    start: usize,
}

impl Found {
    /// True when `self` beats `other` (higher similarity, then earlier end).
    fn beats(&self, other: &Option<Found>) -> bool {
        match other {
            None => true,
            Some(o) => {
                self.similarity > o.similarity
                    || (self.similarity == o.similarity && self.end < o.end)
            }
        }
    }
}

fn similarity(d: u32, m: usize, len: usize) -> f64 {
    1.0 - f64::from(d) / m.max(len) as f64
}

/// The similarity of a quote to one whole text (both normalized):
/// `1 - levenshtein / max(len)`, in chars, as for a match.
pub fn similarity_of(quote: &str, text: &str) -> f64 {
    let (m, n) = (quote.chars().count(), text.chars().count());
    if m.max(n) == 0 {
        return 1.0;
    }
    similarity(strsim::levenshtein(quote, text) as u32, m, n)
}

/// The best match of `quote` over `windows` (sorted, disjoint), exactly as
/// defined in the module documentation.
pub fn verify(quote: &[char], text: &str, windows: &[Range<usize>]) -> Option<FuzzyMatch> {
    verify_min(quote, text, windows, f64::NEG_INFINITY)
}

/// [`verify`] among the alignments of similarity `min_similarity` or more
/// only (None when there is none): ends that cannot reach it are never
/// visited, so a window where the quote stands nowhere near costs one
/// forward scan.
pub fn verify_min(
    quote: &[char],
    text: &str,
    windows: &[Range<usize>],
    min_similarity: f64,
) -> Option<FuzzyMatch> {
    let m = quote.len();
    if m == 0 {
        return None;
    }
    let forward = Pattern::new(quote, false);
    let mut backward: Option<Pattern> = None;
    // With a floor: a window where no end comes within the edits the floor
    // allows is passed over after one streamed scan, never laid out.
    let kept: Vec<Range<usize>>;
    let windows = if min_similarity > 0.0 {
        let k = qgram::max_edits(m, min_similarity) as u32;
        let texts: Vec<&str> = windows.iter().map(|w| &text[w.clone()]).collect();
        kept = windows
            .iter()
            .zip(forward.reaches_each(&texts, k))
            .filter(|(_, reached)| *reached)
            .map(|(w, _)| w.clone())
            .collect();
        kept.as_slice()
    } else {
        windows
    };
    let texts: Vec<WindowText> = windows.iter().map(|w| WindowText::new(text, w)).collect();
    let mut dists: Vec<Vec<u32>> = Vec::with_capacity(texts.len());
    for t in &texts {
        let mut d = Vec::new();
        forward.end_distances(&t.chars, &mut d);
        dists.push(d);
    }
    // Windows by their least distance: the best similarity a window can
    // reach is m / (m + its least distance).
    let mut order: Vec<(u32, usize)> = dists
        .iter()
        .enumerate()
        .filter_map(|(w, d)| d.iter().min().map(|&min| (min, w)))
        .collect();
    order.sort_unstable();
    // The most an end at distance d can reach: the similarity itself at the
    // longest match (m + d), computed the same way so that a tie is never
    // pruned by rounding (m / (m + d) can be one step below it).
    let bound = |d: u32| similarity(d, m, m + d as usize);
    let mut best: Option<Found> = None;
    // A first candidate before any window is verified: the earliest end at
    // the least distance of all, its start by one backward scan. It is an
    // end of the definition, so the result beats or equals it; known
    // beforehand, it spares the first window's ends that cannot reach it
    // (a quote that matches well verifies a few ends, not the whole table).
    if let Some(&(min, w)) = order
        .first()
        .filter(|&&(min, _)| bound(min) >= min_similarity)
    {
        let t = &texts[w];
        if let Some(j) = dists[w].iter().position(|&d| d == min) {
            let j = j + 1;
            let back = backward.get_or_insert_with(|| Pattern::new(quote, true));
            if let Some(len) = back.longest_at(&t.chars, j, min, m + min as usize) {
                let f = Found {
                    similarity: similarity(min, m, len),
                    end: (w, j),
                    start: j - len,
                };
                if f.similarity >= min_similarity {
                    best = Some(f);
                }
            }
        }
    }
    let floor_of =
        |best: &Option<Found>| best.map_or(min_similarity, |b| b.similarity.max(min_similarity));
    for (min, w) in order {
        if bound(min) < floor_of(&best) {
            break;
        }
        let t = &texts[w];
        let dist = &dists[w];
        // Ends that can still win. Finding each one's start by a backward
        // scan costs about (m + d) * blocks word steps; the table with
        // start tracking costs m * n cells for all of them at once.
        let floor = floor_of(&best);
        let words = m.div_ceil(64);
        let budget = m * t.chars.len();
        let mut backward_cost = 0;
        for (j, &d) in dist.iter().enumerate() {
            if bound(d) >= floor {
                backward_cost += (m + d as usize).min(j + 1) * words * 4;
                if backward_cost > budget {
                    break;
                }
            }
        }
        if backward_cost > budget {
            let keys = if quote.len() <= lanes::MAX_QUOTE {
                lanes::table(quote, &t.chars)
            } else {
                table(quote, &t.chars)
            };
            for (j, &k) in keys.iter().enumerate().skip(1) {
                let (d, s) = ((k >> 32) as u32, (k & 0xffff_ffff) as usize);
                if s >= j {
                    continue;
                }
                let f = Found {
                    similarity: similarity(d, m, j - s),
                    end: (w, j),
                    start: s,
                };
                if f.similarity >= min_similarity && f.beats(&best) {
                    best = Some(f);
                }
            }
            continue;
        }
        let mut ends: Vec<(u32, u32)> = dist
            .iter()
            .enumerate()
            .filter(|&(_, &d)| bound(d) >= floor)
            .map(|(j, &d)| (d, j as u32 + 1))
            .collect();
        ends.sort_unstable();
        let back = backward.get_or_insert_with(|| Pattern::new(quote, true));
        for (d, j) in ends {
            let j = j as usize;
            if bound(d) < floor_of(&best) {
                break;
            }
            let Some(len) = back.longest_at(&t.chars, j, d, m + d as usize) else {
                continue;
            };
            let f = Found {
                similarity: similarity(d, m, len),
                end: (w, j),
                start: j - len,
            };
            if f.similarity >= min_similarity && f.beats(&best) {
                best = Some(f);
            }
        }
    }
    let b = best?;
    Some(FuzzyMatch {
        range: texts[b.end.0].bytes(b.start, b.end.1),
        similarity: b.similarity.max(0.0),
    })
}

/// The table of the definition with start tracking: for each end `j` in
/// 0..=n, the least distance and the earliest start reaching it, packed as
/// `distance << 32 | start` so that one `min` orders both.
fn table(quote: &[char], chars: &[char]) -> Vec<u64> {
    const ONE: u64 = 1 << 32;
    let n = chars.len();
    let mut prev: Vec<u64> = (0..=n as u64).collect();
    let mut cur: Vec<u64> = vec![0; n + 1];
    for (i, &qc) in quote.iter().enumerate() {
        let first = (i as u64 + 1) << 32;
        cur[0] = first;
        // v[j] = min(a[j], v[j - 1] + 1) runs as a running minimum of
        // u[j] = v[j] + (n - j), so the only dependency between
        // neighbouring cells is one `min`.
        let mut off = n as u64 * ONE;
        let mut u = first + off;
        for ((&c, w), out) in chars.iter().zip(prev.windows(2)).zip(cur[1..].iter_mut()) {
            off -= ONE;
            let sub = w[0] + if c == qc { 0 } else { ONE };
            let a = sub.min(w[1] + ONE);
            u = u.min(a + off);
            *out = u - off;
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev
}

/// The definition computed plainly: the textbook table with start
/// tracking over each window, every end compared. What [`best_match`] must
/// equal; kept for tests and benchmarks.
pub fn reference_match(quote: &str, text: &str, windows: &[Range<usize>]) -> Option<FuzzyMatch> {
    let q: Vec<char> = quote.chars().collect();
    let m = q.len();
    if m == 0 {
        return None;
    }
    let mut best: Option<(f64, usize, usize)> = None; // similarity, start, end (bytes)
    for w in windows {
        let chars: Vec<(usize, char)> = text[w.clone()]
            .char_indices()
            .map(|(i, c)| (w.start + i, c))
            .collect();
        let n = chars.len();
        // prev[j] / cur[j]: (distance, start) of the best alignment of a
        // quote prefix ending at char j, least distance then earliest
        // start.
        let mut prev: Vec<(u32, usize)> = (0..=n).map(|j| (0, j)).collect();
        for (i, &qc) in q.iter().enumerate() {
            let mut cur = vec![(i as u32 + 1, 0); n + 1];
            for j in 1..=n {
                let (pd, ps) = prev[j - 1];
                let sub = (pd + u32::from(chars[j - 1].1 != qc), ps);
                let del = (prev[j].0 + 1, prev[j].1);
                let ins = (cur[j - 1].0 + 1, cur[j - 1].1);
                cur[j] = sub.min(del).min(ins);
            }
            prev = cur;
        }
        for (j, &(d, s)) in prev.iter().enumerate().skip(1) {
            if s >= j {
                continue;
            }
            let sim = similarity(d, m, j - s);
            if best.is_none_or(|(b, _, _)| sim > b) {
                let last = chars[j - 1];
                best = Some((sim, chars[s].0, last.0 + last.1.len_utf8()));
            }
        }
    }
    let (sim, start, end) = best?;
    Some(FuzzyMatch {
        range: start..end,
        similarity: sim.max(0.0),
    })
}

/// The nearest char boundary at or before byte `i`.
pub(crate) fn floor_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The nearest char boundary at or after byte `i`.
pub(crate) fn ceil_boundary(s: &str, mut i: usize) -> usize {
    while i < s.len() && !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_built_into_a_used_spare_is_the_same() {
        let pieces = ["ab", "cd", "ab", " ", " ", "é", "9", "\n", "-"];
        let mut next = crate::test_rng::seeded(0x1dec_5a7e);
        let mut spare = IndexSpare::default();
        for _ in 0..300 {
            let text = crate::test_rng::text_of(&mut next, &pieces, 400);
            let fresh = BigramIndex::new(&text);
            let reused = BigramIndex::new_in(&text, spare);
            assert_eq!(reused.starts, fresh.starts);
            assert_eq!(reused.ids, fresh.ids);
            assert_eq!(reused.vocab, fresh.vocab);
            assert_eq!(reused.bi_off, fresh.bi_off);
            assert_eq!(reused.bi_pos, fresh.bi_pos);
            assert_eq!(reused.bi_key, fresh.bi_key);
            assert_eq!(reused.chars, fresh.chars);
            spare = reused.into_spare();
        }
    }

    #[test]
    fn words_are_the_runs_of_alphanumeric_chars() {
        let pieces = [
            "ab", "Z9", " ", "'", "-", "é", "ß", "٣", "。", "\u{301}", "x", "\n", "🙂",
        ];
        let mut next = crate::test_rng::seeded(0xa11c_e5ed);
        for _ in 0..3000 {
            let text = crate::test_rng::text_of(&mut next, &pieces, 16);
            // The definition, char by char.
            let mut want: Vec<Range<u32>> = Vec::new();
            let mut start: Option<usize> = None;
            for (i, c) in text.char_indices() {
                match (c.is_alphanumeric(), start) {
                    (true, None) => start = Some(i),
                    (false, Some(s)) => {
                        want.push(s as u32..i as u32);
                        start = None;
                    }
                    _ => {}
                }
            }
            if let Some(s) = start {
                want.push(s as u32..text.len() as u32);
            }
            assert_eq!(word_ranges(&text), want, "{text:?}");
            for w in &want {
                assert_eq!(
                    word_end(&text, w.start as usize),
                    w.end as usize,
                    "{text:?}"
                );
            }
        }
    }

    #[test]
    fn finds_a_reworded_quote() {
        let text = "the weather was awful that spring and the harvest came late so we sold less at the market";
        let idx = BigramIndex::new(text);
        let m = best_match("the harvest came very late so we sold less", text, &idx).unwrap();
        assert_eq!(
            &text[m.range.clone()],
            "the harvest came late so we sold less"
        );
        let expect = 1.0 - 5.0 / 42.0;
        assert!((m.similarity - expect).abs() < 1e-9, "{m:?}");
    }

    #[test]
    fn single_word_typo_found_by_scan() {
        let text = "we talked about irrigation for hours";
        let idx = BigramIndex::new(text);
        let m = best_match("irigation", text, &idx).unwrap();
        assert_eq!(&text[m.range.clone()], "irrigation");
        assert!((m.similarity - 0.9).abs() < 1e-9);
    }

    #[test]
    fn verification_is_exact_for_identical_text() {
        let q: Vec<char> = "abc".chars().collect();
        let whole: Vec<Range<usize>> = std::iter::once(0..7).collect();
        let m = verify(&q, "xxabcxx", &whole).unwrap();
        assert_eq!(m.range, 2..5);
        assert_eq!(m.similarity, 1.0);
    }

    #[test]
    fn an_exact_tie_is_not_pruned_by_rounding() {
        // The later window is visited first (least distance 2: 1 - 2/6);
        // the earlier one reaches 1 - 3/9, the same double, while 6/9 is
        // one step below it: the tie must go to the earlier end.
        let q: Vec<char> = "abcdef".chars().collect();
        let text = "aXbXcXdef abXYef";
        let windows = [0..9, 10..16];
        let got = verify(&q, text, &windows).unwrap();
        assert_eq!(Some(got.clone()), reference_match("abcdef", text, &windows));
        assert_eq!(got.range, 0..9);
    }

    #[test]
    fn packed_table_equals_the_plain_one() {
        let mut seed = 3u64;
        let mut next = |n: usize| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
            (seed >> 33) as usize % n
        };
        let alphabet: Vec<char> = "ab cé".chars().collect();
        for _ in 0..200 {
            let m = 1 + next(40);
            let n = 1 + next(120);
            let q: Vec<char> = (0..m).map(|_| alphabet[next(alphabet.len())]).collect();
            let t: Vec<char> = (0..n).map(|_| alphabet[next(alphabet.len())]).collect();
            let mut prev: Vec<(u32, usize)> = (0..=n).map(|j| (0, j)).collect();
            for (i, &qc) in q.iter().enumerate() {
                let mut cur = vec![(i as u32 + 1, 0); n + 1];
                for j in 1..=n {
                    let sub = (prev[j - 1].0 + u32::from(t[j - 1] != qc), prev[j - 1].1);
                    cur[j] = sub
                        .min((prev[j].0 + 1, prev[j].1))
                        .min((cur[j - 1].0 + 1, cur[j - 1].1));
                }
                prev = cur;
            }
            let packed: Vec<(u32, usize)> = table(&q, &t)
                .into_iter()
                .map(|k| ((k >> 32) as u32, (k & 0xffff_ffff) as usize))
                .collect();
            assert_eq!(packed, prev);
        }
    }

    #[test]
    fn neighbouring_diagonals_are_one_location() {
        // The true location's votes split over two diagonals (a dropped
        // word); a decoy repeats one phrase of the quote many times earlier.
        let decoy = "we sold the farm in spring ".repeat(40);
        let text = format!(
            "{decoy}later on we sold the farm in spring because the bank wanted the loan back and nobody would lend us money at all"
        );
        let quote = "we sold the farm in the spring because the bank wanted the loan back and nobody would lend money at all";
        let idx = BigramIndex::new(&text);
        let windows = candidate_windows(quote, &text, &idx).unwrap();
        let got = best_match(quote, &text, &idx).unwrap();
        assert_eq!(Some(got.clone()), reference_match(quote, &text, &windows));
        let all: Vec<Range<usize>> = std::iter::once(0..text.len()).collect();
        let whole = reference_match(quote, &text, &all).unwrap();
        assert_eq!(got, whole);
        assert!(got.similarity > 0.9, "{got:?}");
    }
}
