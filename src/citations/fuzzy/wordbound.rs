//! The word-piece lower bound: the lossless filter of the fuzzy search for
//! quotes whose pieces are tabled, the q-gram filter ([`super::qgram`])
//! serving the rest.
//!
//! **Pieces.** A normalized quote is cut before each space: `P1 = w1`,
//! `Pi = ␣wi`, and a piece over [`PIECE`] chars into chunks of at most
//! [`PIECE`]; each piece `P` starts at char `o` of the quote. The first
//! word is read as `␣w1` starting at `o = -1`, one less: for any text,
//! `lev(␣w, T[x-1..y)) <= 1 + lev(w, T[x..y))`.
//!
//! **Why it cannot miss.** Let `g_P(x) = min_y lev(P, T[x..y))`, the least
//! cost of the piece read from text char `x`. An alignment of the quote
//! with `T[a..b)` at `d` edits maps the pieces to consecutive stretches
//! `T[x_i..x_{i+1})`, so `d = Σ lev(P_i, ·) >= Σ g_{P_i}(x_i)`; and the
//! drift `x_i - a - o_i` is the alignment's insertions minus deletions
//! before `P_i`, at most `d` in size, and 0 for the first piece (`x_1 = a`,
//! or `a - 1` for its `␣w1` reading: nothing comes before it). Hence every
//! start `a` of an alignment within `k` edits has
//! `LB(a) = Σ_i min{ g_{P_i}(x) : |x - a - o_i| <= k_i } <= k`, with
//! `k_1 = 0` and `k_i = k` for the rest (the first piece read at its own
//! offset kept a fifth fewer blocks than within `k` of it, on
//! `scripts/gen-evaluate.py`'s scale 1: 0.83 M against 1.04 M). A piece
//! with no table counts 0; a minimum over more positions (the
//! [`BLOCK`]-char blocks the tables keep, positions before the text's start
//! or past its end) is no greater, so the bound `LB16` of a block of starts
//! is at most `LB(a)` for each start `a` in it. The search keeps the blocks
//! of starts whose `LB16` is at most `k` and verifies
//! `[16β, 16β + 16 + m + k)` for each kept block `β` (merged): an end `j`
//! within `k` edits lies at most `m + k` chars after its start, so its
//! window holds the alignment whole, and the verifier gives it exactly; an
//! end outside every alignment within `k` edits cannot reach the floor in
//! any window. (A second, 8-char level cut the kept blocks by half but
//! cost more in scattered reads and memory than the verification it
//! spared: measured on `scripts/bench-evaluate 1`.)
//!
//! **Tables.** For a batch of quotes expected in one transcript, the pieces
//! that two or more of them share (at most [`MAX_TABLED`], the most shared
//! first; a last group of lanes less than an eighth full left out) are tabled
//! once: `g_P` for every text position, by Myers's
//! bit-parallel edit distance with the piece reversed against the text read
//! backwards, [`LANES`] pieces at once in 8-bit lanes (the carries of one
//! lane never reach the next; a group of half the lanes or fewer in
//! half-width registers, for half the work: 3% less CPU in all on
//! `scripts/gen-evaluate.py --scale 2`, whose second group holds 25
//! pieces), the text in chunks that overlap by twice a
//! piece's length (a piece's best stretch is no longer) so that they build
//! in parallel. Characters of no tabled piece read as one id; more than 255
//! distinct characters share ids by a hash: a char read as equal to another
//! can only lower a distance.
//!
//! **The pass over the tables.** A quote's bound sums its pieces' window
//! minima over every block. The quotes announced together
//! (`Tables::prepare`) are summed together, a slice of `PASS` (1,024) blocks of
//! starts at a time for all of them, the slices in parallel, each for the
//! edits its search allows (a match at the floor, or a better one than its
//! word pairs found: on `scripts/gen-evaluate.py --scale 2`, the pass took
//! 12% less time than with every quote summed for the floor's edits). The
//! tables hold two blocks a byte (a least
//! is at most [`PIECE`]); each slice unpacks the blocks its windows read
//! from every table and makes, for each width a window of that table
//! has, the table's least over that width from each block (through its
//! leasts over four blocks), into a buffer that stays in cache while every
//! quote reads it: a piece's window is one read (from one to three reads
//! of the blocks and their four-block leasts, the pass took 0.70 s of CPU
//! on `scripts/gen-evaluate.py --scale 2` against 0.46 s, the slices'
//! making 0.16 s against 0.14 s with the next slice's bytes asked for
//! ahead). Made once a slice for all the quotes, these leasts need not be
//! kept for the whole text: bytes beside their four-block minima, the tables
//! weighed four times as much (issue 55: at most 3 MB per transcript in
//! flight at scale 1, 128 pieces, against 12 MB), in the same time; a
//! search for fewer edits (a better match already found) keeps those of
//! the blocks whose sum is within them: the sum for more edits reads each
//! piece over more blocks, so it is no greater, and still a bound. A quote
//! that keeps more than an eighth of the blocks is not kept prepared (its
//! list would outweigh its tables' share): it takes its own pass.
//!
//! **The kernel** (`within`) sums 64 or 128 blocks of starts at a time in
//! registers (AVX-512BW, else AVX2, else portable code; the same blocks
//! and sums from each, tested), a piece's window read as one least of its
//! slot in the slice (windows of up to 12 blocks; a piece of a wider
//! window, in quotes of some 350 chars or more, counts 0, a lower bound
//! still). The pieces go in the order of their tables' means, greatest
//! first, and a run stops once every block's sum is past the edits
//! (looked at every 16 pieces: every 2, the branch's wrong guesses at a
//! run's end made the pass 0.48-0.51 s of CPU on
//! `scripts/gen-evaluate.py --scale 2` against 0.37-0.38 s): sums only
//! grow, so the pieces left cannot bring one back. Issue 55, on
//! `scripts/gen-evaluate.py --scale 2` (the default search): the pass took
//! 0.76 G cycles against 1.20 G for one piece over a whole slice at a time
//! through memory, and the table build 0.60 G against 0.66 G with 32 lanes.

use rayon::prelude::*;
use std::ops::Range;

/// Most chars of a piece (one 8-bit lane holds its rows).
pub const PIECE: usize = 8;
/// Pieces tabled at once (8-bit lanes of a 512-bit register, or of two of
/// 256 bits).
pub const LANES: usize = 64;
/// Most pieces tabled per transcript (the most shared first).
pub const MAX_TABLED: usize = 128;
/// Chars per block of start positions.
pub const BLOCK: usize = 16;
/// Blocks of padding on each side of a table: positions outside the text
/// read 0 (no alignment starts there, so any value keeps the bound; 0 is
/// the lowest). Enough for a drift of up to 254 chars.
const PAD: usize = 256 / BLOCK + 2;
/// Chars per chunk of the table build.
const CHUNK: usize = 1 << 16;
/// Pairs of blocks per tile of the tables' packing (a tile of every lane
/// in cache).
const TILE: usize = 64;
/// Chars between char-to-byte checkpoints.
const STRIDE: usize = 64;
/// Most edits the u8 sums can tell from saturation.
const MAX_K: usize = 254;
/// Blocks per slice of [`Tables::prepare`]'s pass (a slice of every table
/// in L2: some 300 KB at `scripts/gen-evaluate.py --scale 2`, where slices
/// of 1,024 blocks took the pass and the slices' making about 65 samples of
/// `perf record` fewer than slices of 256, each job's loop run more times
/// in a row and less of each slice's reach past its blocks made twice;
/// 0.99x the whole run's CPU).
const PASS: usize = 1024;

type FxMap<K, V> = std::collections::HashMap<K, V, rustc_hash::FxBuildHasher>;

/// The pieces of a normalized quote: (chars, offset in the quote's chars,
/// 1 for the first word's `␣w` reading else 0).
pub(crate) fn pieces_of(quote: &[char]) -> Vec<(Vec<char>, isize, u8)> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < quote.len() {
        let mut end = start + 1;
        while end < quote.len() && quote[end] != ' ' {
            end += 1;
        }
        // The first word read with a space before it, from char -1.
        let (mut word, mut at, bonus): (Vec<char>, isize, u8) = if start == 0 && quote[0] != ' ' {
            let mut w = vec![' '];
            w.extend_from_slice(&quote[..end]);
            (w, -1, 1)
        } else {
            (quote[start..end].to_vec(), start as isize, 0)
        };
        let mut first = true;
        while !word.is_empty() {
            let take = word.len().min(PIECE);
            let rest = word.split_off(take);
            out.push((word, at, if first { bonus } else { 0 }));
            at += take as isize;
            word = rest;
            first = false;
        }
        start = end;
    }
    out
}

/// The tabled pieces of one transcript: for each piece, the least `g_P`
/// over each [`BLOCK`]-char block of text positions.
#[derive(Debug, Default)]
pub struct Tables {
    /// Table index of each tabled piece.
    index: FxMap<Vec<char>, u32>,
    /// Blocks per table (padding included).
    stride: usize,
    /// Piece-major, two blocks a byte (a least is at most [`PIECE`]: four
    /// bits hold it): block `β` of table `p` is the low half of byte
    /// `p * stride.div_ceil(2) + (PAD + β) / 2` for an even `PAD + β`, the
    /// high half for an odd one. The slices a pass reads are unpacked, and
    /// their leasts over each window's width made, a slice at a time
    /// ([`Layout::fill`]): kept whole as bytes beside their four-block
    /// leasts, the tables weighed four times as much.
    blocks: Vec<u8>,
    /// Each table's sum of its block minima: the pieces of the greatest
    /// are summed first (they pass a quote's edits soonest).
    means: Vec<u64>,
    /// Chars of the text.
    chars: usize,
    /// The byte offset of every [`STRIDE`]-th char (empty when the text
    /// is ASCII: chars are bytes).
    checkpoints: Vec<u32>,
    /// The bound of quotes announced beforehand ([`Tables::prepare`]),
    /// computed for all of them in one pass: per quote, the edits it was
    /// computed for and its blocks within them (block, sum).
    prepared: FxMap<Vec<char>, Prepared>,
}

/// Blocks of starts and their sums.
type Blocks = Vec<(u32, u8)>;

/// A prepared quote's bound: the edits it was computed for, and its
/// blocks within them.
type Prepared = (usize, Blocks);

/// A quote's part of [`Tables::prepare`]: its pieces' reads and its edits.
type Job = (Vec<Read>, usize);

/// One group of up to [`LANES`] pieces, ready for the kernel.
struct Group {
    /// Per char id (per byte, for an ASCII text), the lanes' match masks (bit `i`: the reversed
    /// piece's char `i` has that id).
    eq: Vec<[u8; LANES]>,
    /// Each lane's last row (0 for an empty lane).
    last: [u8; LANES],
    /// Each lane's piece length.
    len: [u8; LANES],
    /// Lanes in use.
    lanes: usize,
}

impl Group {
    /// The group of `pieces` (at most [`LANES`]), their chars read through
    /// `ids`; by byte through `ascii` (each ASCII byte's id) for an ASCII
    /// text.
    fn of(pieces: &[Vec<char>], ids: &FxMap<char, u8>, ascii: Option<&[u8]>) -> Group {
        let mut eq = vec![[0u8; LANES]; 256];
        let mut last = [0u8; LANES];
        let mut len = [0u8; LANES];
        for (lane, p) in pieces.iter().enumerate().take(LANES) {
            let l = p.len().min(PIECE);
            for (i, c) in p[..l].iter().rev().enumerate() {
                let id = ids.get(c).copied().unwrap_or(0);
                eq[id as usize][lane] |= 1 << i;
            }
            if l > 0 {
                last[lane] = 1 << (l - 1);
            }
            len[lane] = l as u8;
        }
        if let Some(ascii) = ascii {
            // By byte: a byte's masks are its char's id's.
            let by_id = std::mem::replace(&mut eq, vec![[0u8; LANES]; 256]);
            for (b, &id) in ascii.iter().enumerate() {
                eq[b] = by_id[usize::from(id)];
            }
        }
        Group {
            eq,
            last,
            len,
            lanes: pieces.len().min(LANES),
        }
    }
}

impl Tables {
    /// Tables for the pieces that two or more of `quotes` (normalized, as
    /// chars) share, over `text` (normalized); None when no piece is
    /// shared.
    pub fn new(text: &str, quotes: &[Vec<char>]) -> Option<Tables> {
        Tables::new_in(text, quotes, Vec::new())
    }

    /// [`Tables::new`] built into `buffer` (its contents dropped): the
    /// buffer of an earlier transcript's tables ([`Tables::into_buffer`]).
    pub(crate) fn new_in(text: &str, quotes: &[Vec<char>], buffer: Vec<u8>) -> Option<Tables> {
        let mut uses: FxMap<Vec<char>, usize> = FxMap::default();
        for q in quotes {
            let mut seen: Vec<&[char]> = Vec::new();
            let ps = pieces_of(q);
            for (p, _, _) in &ps {
                if !seen.contains(&p.as_slice()) {
                    seen.push(p);
                    *uses.entry(p.clone()).or_default() += 1;
                }
            }
        }
        let mut shared: Vec<(usize, Vec<char>)> = uses
            .into_iter()
            .filter(|&(_, n)| n >= 2)
            .map(|(p, n)| (n, p))
            .collect();
        if shared.is_empty() {
            return None;
        }
        shared.sort_unstable_by(|a, b| b.cmp(a));
        shared.truncate(MAX_TABLED);
        // A last group of lanes less than an eighth full costs a whole
        // group's scan for its few (least shared) pieces: left untabled.
        let tail = shared.len() % LANES;
        if shared.len() > LANES && tail > 0 && tail < LANES / 8 {
            shared.truncate(shared.len() - tail);
        }
        let pieces: Vec<Vec<char>> = shared.into_iter().map(|(_, p)| p).collect();
        Some(Tables::of_pieces_in(text, &pieces, buffer))
    }

    /// Tables of exactly `pieces` (each 1 to [`PIECE`] chars) over `text`.
    pub fn of_pieces(text: &str, pieces: &[Vec<char>]) -> Tables {
        Tables::of_pieces_in(text, pieces, Vec::new())
    }

    /// The tables' buffer, to build the next transcript's into.
    pub(crate) fn into_buffer(self) -> Vec<u8> {
        self.blocks
    }

    /// [`Tables::of_pieces`] built into `buffer`.
    fn of_pieces_in(text: &str, pieces: &[Vec<char>], mut buffer: Vec<u8>) -> Tables {
        // Char ids: 1..=255 for the pieces' chars (shared by a hash past
        // 255), 0 for every other char.
        let mut ids: FxMap<char, u8> = FxMap::default();
        for p in pieces {
            for &c in p {
                let next = ids.len();
                ids.entry(c).or_insert_with(|| {
                    if next < 255 {
                        next as u8 + 1
                    } else {
                        (u32::from(c) % 255) as u8 + 1
                    }
                });
            }
        }
        let ascii: Vec<u8> = (0u8..128)
            .map(|b| ids.get(&char::from(b)).copied().unwrap_or(0))
            .collect();
        let id_of = |c: char| {
            if c.is_ascii() {
                ascii[c as usize]
            } else {
                ids.get(&c).copied().unwrap_or(0)
            }
        };
        // An ASCII text is read as it is (its bytes index the lanes' masks
        // through their chars' ids, below) and needs no checkpoints: chars
        // are bytes. Any other is read as char ids.
        let ascii_text = text.is_ascii();
        let (t, checkpoints): (std::borrow::Cow<'_, [u8]>, Vec<u32>) = if ascii_text {
            (text.as_bytes().into(), Vec::new())
        } else {
            (
                text.chars().map(id_of).collect::<Vec<u8>>().into(),
                super::char_checkpoints(text, STRIDE),
            )
        };
        let n = t.len();
        let groups: Vec<Group> = pieces
            .chunks(LANES)
            .map(|g| Group::of(g, &ids, ascii_text.then_some(ascii.as_slice())))
            .collect();
        // Positions 0..=n: blocks 0..=n / BLOCK.
        let count = n / BLOCK + 1;
        let stride = count + 2 * PAD;
        buffer.clear();
        let bytes = stride.div_ceil(2);
        buffer.resize(pieces.len() * bytes, 0);
        let mut blocks = buffer;
        let chunks = n.div_ceil(CHUNK).max(1);
        // A wave of chunks at a time, each (group, chunk) in parallel: the
        // lanes' block minima, block-major, then moved lane by lane into
        // the piece-major tables (a wave's minima are all that is held
        // beside them).
        let wave = rayon::current_num_threads()
            .div_ceil(groups.len().max(1))
            .max(1);
        // Each table's sum of its leasts.
        let mut means = vec![0u64; pieces.len()];
        for first in (0..chunks).step_by(wave) {
            let cs = first..(first + wave).min(chunks);
            let built: Vec<(usize, usize, Vec<[u8; LANES]>)> = (0..groups.len() * cs.len())
                .into_par_iter()
                .map(|job| {
                    let (g, c) = (job / cs.len(), cs.start + job % cs.len());
                    let lo = c * CHUNK;
                    let hi = ((c + 1) * CHUNK).min(n);
                    (g, c, build(&groups[g], &t, lo, hi, c + 1 == chunks))
                })
                .collect();
            for (g, c, minima) in built {
                // PAD and a chunk's blocks are even: the chunk's first
                // block is a low half.
                let first = (PAD + c * CHUNK / BLOCK) / 2;
                let lanes = LANES.min(pieces.len().saturating_sub(g * LANES));
                let group = &mut blocks[g * LANES * bytes..];
                let sums = pack(&minima, lanes, bytes, first, group);
                for (mean, s) in means[g * LANES..].iter_mut().zip(&sums[..lanes]) {
                    *mean += s;
                }
            }
        }
        let index = pieces
            .iter()
            .enumerate()
            .map(|(i, p)| (p.clone(), i as u32))
            .collect();
        Tables {
            index,
            stride,
            blocks,
            means,
            chars: n,
            checkpoints,
            prepared: FxMap::default(),
        }
    }

    /// Block `b` of table `t` (padding counted).
    #[cfg(test)]
    fn block(&self, t: usize, b: usize) -> u8 {
        let byte = self.blocks[t * self.stride.div_ceil(2) + b / 2];
        if b.is_multiple_of(2) {
            byte & 15
        } else {
            byte >> 4
        }
    }

    /// The blocks of starts of the text: one per [`BLOCK`] chars, and the
    /// one its end falls in (or past it).
    fn blocks_of_starts(&self) -> usize {
        self.chars / BLOCK + 1
    }

    /// Tabled pieces.
    pub fn len(&self) -> usize {
        self.index.len()
    }

    /// True when no piece is tabled.
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// The byte offset in `text` (the text tabled) of char `c`.
    fn byte_of(&self, text: &str, c: usize) -> usize {
        if self.checkpoints.is_empty() {
            // An ASCII text: chars are bytes.
            return c.min(self.chars);
        }
        super::byte_at(&self.checkpoints, STRIDE, self.chars, text, c)
    }

    /// The tabled pieces of `quote`: (table, offset, bonus), and the most
    /// the bound can reach with them.
    fn plan(&self, quote: &[char]) -> (Vec<(usize, isize, u8)>, usize) {
        let mut out = Vec::new();
        let mut reach = 0;
        for (p, at, bonus) in pieces_of(quote) {
            if let Some(&t) = self.index.get(&p) {
                reach += p.len() - usize::from(bonus);
                out.push((t as usize, at, bonus));
            }
        }
        (out, reach)
    }

    /// The windows (byte ranges of `text`, sorted, disjoint) that hold
    /// every alignment of `quote` (normalized, as chars) within `k` edits;
    /// None when the tables cannot tell (too few of its pieces tabled, or
    /// `k` past what the sums hold): another filter must serve it.
    pub fn candidates(&self, quote: &[char], text: &str, k: usize) -> Option<Vec<Range<usize>>> {
        if k > MAX_K || self.is_empty() {
            return None;
        }
        // A quote prepared for as many edits or more (its pieces then reach
        // past those, and so past `k`): its blocks within `k` (a sum for
        // more edits reads each piece over at least the blocks it reads for
        // fewer, so it is no greater: still a bound).
        let kept: Vec<usize> = match self.prepared.get(quote) {
            Some((most, blocks)) if *most >= k => blocks
                .iter()
                .filter(|&&(_, s)| usize::from(s) <= k)
                .map(|&(b, _)| b as usize)
                .collect(),
            _ => {
                let (plan, reach) = self.plan(quote);
                if reach <= k {
                    return None;
                }
                self.survivors(&plan, k)
            }
        };
        let m = quote.len();
        let n = self.chars;
        let mut windows: Vec<Range<usize>> = Vec::new();
        for b in kept {
            let lo = (b * BLOCK).min(n);
            let hi = (b * BLOCK + BLOCK + m + k).min(n);
            if lo >= hi {
                continue;
            }
            match windows.last_mut() {
                Some(w) if lo <= w.end => w.end = w.end.max(hi),
                _ => windows.push(lo..hi),
            }
        }
        Some(
            windows
                .into_iter()
                .map(|w| self.byte_of(text, w.start)..self.byte_of(text, w.end))
                .collect(),
        )
    }

    fn survivors(&self, plan: &[(usize, isize, u8)], k: usize) -> Vec<usize> {
        let count = self.blocks_of_starts();
        let windows = self.windows(plan, k);
        let layout = Layout::new(self, [windows.as_slice()], PASS);
        let reads = layout.reads(&windows);
        let mut out = Vec::new();
        layout.each_slice(self, 0..count.div_ceil(PASS), |slice, first, len| {
            within(slice, &reads, 0..len, k as u8, |b, _| out.push(first + b))
        });
        out
    }

    /// The window of each planned piece (the blocks its positions can fall
    /// in, from each block of starts: within `k` of its offset, the first
    /// piece at its offset), the pieces of the greatest mean first: their
    /// sums pass `k` soonest.
    fn windows(&self, plan: &[(usize, isize, u8)], k: usize) -> Vec<Window> {
        let mut out: Vec<(u64, Window)> = Vec::with_capacity(plan.len());
        for &(table, o, bonus) in plan {
            // The quote's first piece (the only one from char 0 or -1) is
            // read where the alignment starts: no edit comes before it.
            let drift = if o <= 0 { 0 } else { k as isize };
            let dl = (o - drift).div_euclid(BLOCK as isize);
            let dh = (BLOCK as isize - 1 + o + drift).div_euclid(BLOCK as isize);
            let from = (PAD as isize + dl) as usize;
            let width = (dh - dl) as usize + 1;
            // Wider windows (quotes of some 350 chars or more): the piece
            // counts 0, a lower bound still. A window past the table's end
            // from the first block of starts on (the late pieces of a long
            // quote, past the text's end) adds nothing.
            if width > WIDEST || from + width > self.stride {
                continue;
            }
            out.push((
                self.means[table],
                Window {
                    table,
                    from,
                    width,
                    bonus,
                },
            ));
        }
        // The one window with a bonus (the first word's) first, so that
        // the AVX-512 kernel subtracts it once, from the first read only.
        out.sort_by_key(|&(mean, w)| (w.bonus == 0, std::cmp::Reverse(mean)));
        out.into_iter().map(|(_, w)| w).collect()
    }

    /// Computes the bound of every quote of `quotes` (normalized, as
    /// chars, each with the edits its search will allow: those of a match
    /// at the floor, or fewer when a better match is already known), in
    /// one pass over the tables: a [`PASS`]-block slice of every table at
    /// a time (held in cache) for all the quotes, rather than every table
    /// once per quote. [`Tables::candidates`] then reads a prepared
    /// quote's blocks (the same windows for those edits, a superset for
    /// fewer). `edits[i]` is the edits of `quotes[i]`; a quote given twice
    /// counts once, with its first edits.
    pub(crate) fn prepare(&mut self, quotes: &[Vec<char>], edits: &[usize]) {
        let mut names: Vec<&Vec<char>> = Vec::new();
        let mut planned: Vec<(Vec<Window>, usize)> = Vec::new();
        let mut seen: FxMap<&[char], ()> = FxMap::default();
        for (q, &k) in quotes.iter().zip(edits) {
            if seen.insert(q.as_slice(), ()).is_some() {
                continue;
            }
            if k > MAX_K {
                continue;
            }
            let (plan, reach) = self.plan(q);
            if reach > k {
                names.push(q);
                planned.push((self.windows(&plan, k), k));
            }
        }
        if planned.is_empty() {
            return;
        }
        let layout = Layout::new(self, planned.iter().map(|(w, _)| w.as_slice()), PASS);
        let jobs: Vec<Job> = planned.iter().map(|(w, k)| (layout.reads(w), *k)).collect();
        let count = self.blocks_of_starts();
        let slices = count.div_ceil(PASS);
        // A few tasks per thread, each a run of slices.
        let run = slices
            .div_ceil(rayon::current_num_threads().max(1) * 4)
            .max(1);
        let this = &*self;
        let parts: Vec<Vec<Option<Blocks>>> = (0..slices.div_ceil(run))
            .into_par_iter()
            .map(|r| this.prepare_run(&layout, &jobs, r * run..((r + 1) * run).min(slices)))
            .collect();
        for (j, q) in names.into_iter().enumerate() {
            let blocks: Option<Vec<(u32, u8)>> = parts.iter().try_fold(Vec::new(), |mut all, p| {
                all.extend_from_slice(p[j].as_deref()?);
                Some(all)
            });
            if let Some(blocks) = blocks {
                self.prepared.insert(q.clone(), (jobs[j].1, blocks));
            }
        }
    }

    /// Each job's blocks within its edits, over the slices `run` (None for
    /// a job that keeps more than an eighth of them).
    fn prepare_run(&self, layout: &Layout, jobs: &[Job], run: Range<usize>) -> Vec<Option<Blocks>> {
        let mut out: Vec<Option<Blocks>> = vec![Some(Vec::new()); jobs.len()];
        // An eighth of the run's blocks (those of the text: the last
        // slice may hold fewer): a quote past it is dropped.
        let count = self.blocks_of_starts();
        let blocks = (run.end * PASS).min(count).saturating_sub(run.start * PASS);
        let most = (blocks / 8).max(LANES);
        layout.each_slice(self, run, |slice, first, len| {
            for ((reads, k), slot) in jobs.iter().zip(out.iter_mut()) {
                let Some(kept) = slot else { continue };
                within(slice, reads, 0..len, *k as u8, |b, s| {
                    kept.push(((first + b) as u32, s))
                });
                if kept.len() > most {
                    *slot = None;
                }
            }
        });
        out
    }
}

/// A planned piece's window of blocks: block `g` of starts reads the
/// least of its table's blocks `from + g..from + g + width` (padding
/// counted), less `bonus`.
#[derive(Clone, Copy, Debug)]
struct Window {
    table: usize,
    from: usize,
    width: usize,
    bonus: u8,
}

/// Where a pass copies its slice of the tables it reads: for each pair of
/// a table and a window width read (a slot each), the least of the
/// table's blocks over that width from each block, `first + base` on,
/// `span` of them, the slots one after another. A read is then one load
/// (the least of up to three of the table's blocks and four-block
/// leasts instead, the pass took 0.70 s of CPU on
/// `scripts/gen-evaluate.py --scale 2` against 0.46 s: the loads were its
/// cost). The slice is small enough to stay in cache while every job reads
/// it; its leasts are made once a slice for all the jobs.
struct Layout {
    /// The (table, width) of each slot.
    slots: Vec<(usize, usize)>,
    /// The slot of each (table, width) read, at [`Layout::key`].
    slot: Vec<usize>,
    /// The tables read, each with its slots.
    tables: Vec<(usize, Vec<usize>)>,
    /// The least `from` of the windows.
    base: usize,
    /// Blocks of starts per slice.
    starts: usize,
    /// Blocks per slot: a slice's blocks of starts and the widest reach of
    /// a window past them.
    span: usize,
}

/// The widest window of blocks a piece is read over: a wider one counts 0
/// ([`Tables::windows`]); a slice holds a slot per (table, width) up to it.
const WIDEST: usize = 12;

impl Layout {
    /// The layout for `windows` (every job's), over slices of `starts`
    /// blocks of starts.
    fn new<'w>(
        tables: &Tables,
        windows: impl IntoIterator<Item = &'w [Window]>,
        starts: usize,
    ) -> Layout {
        let mut slot = vec![usize::MAX; tables.len() * (WIDEST + 1)];
        let mut slots = Vec::new();
        let mut read: Vec<(usize, Vec<usize>)> = Vec::new();
        let mut of_table = vec![usize::MAX; tables.len()];
        let (mut base, mut top) = (usize::MAX, 0);
        for w in windows.into_iter().flatten() {
            let key = Layout::key(w);
            if slot[key] == usize::MAX {
                slot[key] = slots.len();
                slots.push((w.table, w.width));
                if of_table[w.table] == usize::MAX {
                    of_table[w.table] = read.len();
                    read.push((w.table, Vec::new()));
                }
                read[of_table[w.table]].1.push(slot[key]);
            }
            base = base.min(w.from);
            top = top.max(w.from + w.width);
        }
        let base = base.min(top);
        Layout {
            slots,
            slot,
            tables: read,
            base,
            starts,
            span: starts + top - base,
        }
    }

    /// Where the slot of `w`'s table and width is found in `slot`.
    fn key(w: &Window) -> usize {
        w.table * (WIDEST + 1) + w.width
    }

    /// The buffer's length: the slots, and a last run's worth of zeros
    /// (two with AVX-512) so that every read of the slice's runs stays in
    /// it.
    fn len(&self) -> usize {
        self.slots.len() * self.span + 2 * RUN
    }

    /// The kernel's reads of `windows` in this layout.
    fn reads(&self, windows: &[Window]) -> Vec<Read> {
        let len = self.len();
        windows
            .iter()
            .map(|w| {
                let at = self.slot[Layout::key(w)] * self.span + w.from - self.base;
                Read {
                    at,
                    // Every read of blocks 0..len stays in the buffer (what
                    // lets the kernels read a run unchecked).
                    len: len.saturating_sub(at),
                    bonus: w.bonus,
                }
            })
            .collect()
    }

    /// Copies into `out` the slice from block `first` of starts: each
    /// slot's leasts of its table over its width, from block
    /// `first + base` (the table read as 0 past its end: a window that
    /// runs past it adds nothing).
    fn fill(&self, tables: &Tables, first: usize, out: &mut Vec<u8>) {
        // The slots are written whole below; the zeros after them stay.
        if out.len() != self.len() {
            out.clear();
            out.resize(self.len(), 0);
        }
        let from = first + self.base;
        let bytes = tables.stride.div_ceil(2);
        let span = self.span;
        let (mut raw, mut four) = (vec![0u8; span], vec![0u8; span]);
        // The next slice's bytes of each table are asked for as this one's
        // are unpacked: 89 tables read a few lines each are not a stream
        // the CPU's prefetcher follows (their first loads were 44% of the
        // fill's time on `scripts/gen-evaluate.py --scale 2`).
        let next = (from + self.starts) / 2..((from + self.starts + span) / 2 + 1).min(bytes);
        for (t, slots) in &self.tables {
            let table = &tables.blocks[t * bytes..][..bytes];
            if let Some(ahead) = table.get(next.clone()) {
                super::prefetch(ahead);
            }
            let have = tables.stride.saturating_sub(from).min(span);
            unpack(table, from, &mut raw[..have]);
            raw[have..].fill(0);
            least_of_four(&raw, &mut four);
            for &s in slots {
                let width = self.slots[s].1;
                let slot = &mut out[s * span..][..span];
                // Blocks i..i + width (those the slot holds): at most
                // three of the four-block leasts from i, or the blocks
                // themselves for a width under 4.
                match width {
                    1 => slot.copy_from_slice(&raw),
                    2 | 3 => least_over(&raw, 1..width, slot),
                    4 => slot.copy_from_slice(&four),
                    5..=8 => least_over(&four, width - 4..width - 3, slot),
                    _ => least_over(&four, 4..width - 3, slot),
                }
            }
        }
    }

    /// Fills each slice of `slices` (numbered by its first block of
    /// starts over `starts`) in turn and hands `f` the buffer, the slice's
    /// first block of starts and its blocks of starts.
    fn each_slice(
        &self,
        tables: &Tables,
        slices: Range<usize>,
        mut f: impl FnMut(&[u8], usize, usize),
    ) {
        let count = tables.blocks_of_starts();
        let mut slice = Vec::new();
        for at in slices {
            let first = at * self.starts;
            self.fill(tables, first, &mut slice);
            f(&slice, first, self.starts.min(count - first));
        }
    }
}

/// `out[i]` = the least of `v[i]`, `v[i + steps.start]` and
/// `v[i + steps.end - 1]` (those within `v`): for `steps` of one or two
/// offsets past 0.
fn least_over(v: &[u8], steps: Range<usize>, out: &mut [u8]) {
    let (d1, d2) = (steps.start, steps.end - 1);
    let n = v.len();
    let body = n.saturating_sub(d2);
    let from = |d: usize| v.get(d..).unwrap_or(&[]);
    for (((o, a), b), c) in out[..body].iter_mut().zip(v).zip(from(d1)).zip(from(d2)) {
        *o = (*a).min(*b).min(*c);
    }
    for (i, o) in out.iter_mut().enumerate().take(n).skip(body) {
        *o = v[i..(i + d2 + 1).min(n)].iter().copied().min().unwrap_or(0);
    }
}

/// One piece's read for [`within`]: block `g` of starts adds
/// `blocks[at + g] - bonus` (the piece's least over its window of blocks)
/// for `g < len`, and nothing from `len` on.
#[derive(Clone, Copy, Debug)]
struct Read {
    at: usize,
    len: usize,
    bonus: u8,
}

/// Blocks of starts summed at once by [`within`] (a 512-bit register of
/// 8-bit lanes, or two of 256).
const RUN: usize = 64;

/// Pieces summed between two checks of whether a run's blocks are all
/// past the edits. The check is a branch that the run's end makes hard to
/// foresee, and a wrong guess cost more than the reads it spared: on
/// `scripts/gen-evaluate.py --scale 2`, the AVX-512 pass took 0.37-0.38 s
/// of CPU checking every 16 pieces, 0.48-0.51 s every 2, 0.44 s every 4,
/// 0.42 s every 8, 0.37 s every 32 and 0.40-0.41 s never (every piece
/// read).
const CHECK: usize = 16;

/// Whether the kernels look at their sums after piece `i` (every
/// [`CHECK`] pieces).
#[inline(always)]
fn looked_after(i: usize) -> bool {
    i % CHECK == CHECK - 1
}

/// Hands `keep` each block of `range` whose sum of `reads` over `blocks`
/// is within `k8`, with its sum, in order. [`RUN`] blocks at a time (two
/// runs with AVX-512), their sums held in registers, the reads added in
/// turn until every block of the run is past `k8` (looked at every
/// [`CHECK`] pieces): sums only grow, so the rest cannot bring one back
/// (on `scripts/gen-evaluate.py`'s scale 1, the greatest-mean pieces
/// first, a run of 32 blocks read 70% of its pieces, against 84% in the
/// quote's order, when it was looked at every 2).
#[inline]
fn within(
    blocks: &[u8],
    reads: &[Read],
    range: Range<usize>,
    k8: u8,
    mut keep: impl FnMut(usize, u8),
) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512bw") {
            // SAFETY: the CPU has AVX-512BW (checked above).
            return unsafe { within_avx512(blocks, reads, range, k8, &mut keep) };
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2 (checked above).
            return unsafe { within_avx2(blocks, reads, range, k8, &mut keep) };
        }
    }
    within_portable(blocks, reads, range, k8, &mut keep)
}

/// Hands `keep` each block of the run from `from` that `mask` marks (bit
/// `l`: block `from + l`), those before `end` only, with its sum.
#[inline(always)]
fn keep_marked(
    sum: &[u8; RUN],
    mut mask: u64,
    from: usize,
    end: usize,
    keep: &mut impl FnMut(usize, u8),
) {
    let len = RUN.min(end - from);
    if len < RUN {
        mask &= (1u64 << len) - 1;
    }
    while mask != 0 {
        let l = mask.trailing_zeros() as usize;
        keep(from + l, sum[l]);
        mask &= mask - 1;
    }
}

/// The read of `r` at blocks `start..start + RUN`: the slot's own bytes
/// when the run lies before `r.len`, else a copy holding 0 from `r.len`
/// on (a least of 0 adds nothing).
#[inline(always)]
fn run_of<'b>(blocks: &'b [u8], r: &Read, start: usize, pad: &'b mut [u8; RUN]) -> &'b [u8; RUN] {
    let at = r.at + start;
    if start + RUN <= r.len {
        return match blocks[at..at + RUN].try_into() {
            Ok(run) => run,
            Err(_) => unreachable!("a slice of RUN bytes"),
        };
    }
    let upto = r.len.saturating_sub(start);
    pad.fill(0);
    if upto > 0 {
        pad[..upto].copy_from_slice(&blocks[at..at + upto]);
    }
    pad
}

/// Whether every read's blocks of starts up to `end` lie before its `len`
/// and within `blocks`: the vector kernels' condition for loading every
/// run of a call unchecked.
#[inline]
fn reads_lie_within(reads: &[Read], blocks: &[u8], end: usize) -> bool {
    reads
        .iter()
        .all(|r| end <= r.len && r.at + end <= blocks.len())
}

fn within_portable(
    blocks: &[u8],
    reads: &[Read],
    range: Range<usize>,
    k8: u8,
    keep: &mut impl FnMut(usize, u8),
) {
    let mut pad = [0u8; RUN];
    let mut start = range.start;
    while start < range.end {
        let mut sum = [0u8; RUN];
        let mut alive = true;
        for (i, r) in reads.iter().enumerate() {
            let run = run_of(blocks, r, start, &mut pad);
            for l in 0..RUN {
                sum[l] = sum[l].saturating_add(run[l].saturating_sub(r.bonus));
            }
            if looked_after(i) && sum.iter().all(|&x| x > k8) {
                alive = false;
                break;
            }
        }
        if alive {
            let mask = (0..RUN).fold(0u64, |m, l| m | (u64::from(sum[l] <= k8) << l));
            keep_marked(&sum, mask, start, range.end, keep);
        }
        start += RUN;
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn within_avx2(
    blocks: &[u8],
    reads: &[Read],
    range: Range<usize>,
    k8: u8,
    keep: &mut impl FnMut(usize, u8),
) {
    use std::arch::x86_64::*;
    let kv = _mm256_set1_epi8(k8 as i8);
    let past = _mm256_set1_epi8(k8.wrapping_add(1) as i8);
    let zero = _mm256_setzero_si256();
    let mut pad = [0u8; RUN];
    // The pass with `$run` (a read's RUN bytes from a block of starts, as
    // a pointer).
    macro_rules! pass {
        ($run:expr) => {{
            let mut start = range.start;
            while start < range.end {
                let (mut s0, mut s1) = (zero, zero);
                let mut alive = true;
                for (i, r) in reads.iter().enumerate() {
                    let at: *const u8 = $run(r, start);
                    let bonus = _mm256_set1_epi8(r.bonus as i8);
                    // SAFETY: `at` holds RUN = 64 bytes: two unaligned
                    // 32-byte loads from it.
                    let (v0, v1) = unsafe {
                        let at = at.cast::<__m256i>();
                        (_mm256_loadu_si256(at), _mm256_loadu_si256(at.add(1)))
                    };
                    s0 = _mm256_adds_epu8(s0, _mm256_subs_epu8(v0, bonus));
                    s1 = _mm256_adds_epu8(s1, _mm256_subs_epu8(v1, bonus));
                    if looked_after(i) {
                        // Zero in every lane when every sum is past k8.
                        let short = _mm256_subs_epu8(past, _mm256_min_epu8(s0, s1));
                        if _mm256_testz_si256(short, short) == 1 {
                            alive = false;
                            break;
                        }
                    }
                }
                if alive {
                    let mut sum = [0u8; RUN];
                    // SAFETY: `sum` holds 64 bytes: two unaligned 32-byte
                    // stores.
                    unsafe {
                        let at = sum.as_mut_ptr().cast::<__m256i>();
                        _mm256_storeu_si256(at, s0);
                        _mm256_storeu_si256(at.add(1), s1);
                    }
                    let within0 =
                        _mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_subs_epu8(s0, kv), zero))
                            as u32;
                    let within1 =
                        _mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_subs_epu8(s1, kv), zero))
                            as u32;
                    let mask = u64::from(within0) | (u64::from(within1) << 32);
                    keep_marked(&sum, mask, start, range.end, keep);
                }
                start += RUN;
            }
        }};
    }
    // As in `within_avx512`: no check of each load where every run of
    // the call lies within every read's `len`.
    let end = range.start + range.len().div_ceil(RUN) * RUN;
    if reads_lie_within(reads, blocks, end) {
        let base = blocks.as_ptr();
        // SAFETY (of the offset): start + RUN <= end <= r.len: blocks
        // start..start + RUN of the read lie in `blocks`.
        pass!(|r: &Read, start: usize| unsafe { base.add(r.at + start) });
    } else {
        pass!(|r: &Read, start: usize| run_of(blocks, r, start, &mut pad).as_ptr());
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512bw")]
fn within_avx512(
    blocks: &[u8],
    reads: &[Read],
    range: Range<usize>,
    k8: u8,
    keep: &mut impl FnMut(usize, u8),
) {
    use std::arch::x86_64::*;
    let kv = _mm512_set1_epi8(k8 as i8);
    let mut pad = [0u8; RUN];
    // The read of `r` at blocks start..start + RUN, in one register.
    let mut load = |r: &Read, start: usize| -> __m512i {
        let v = if start + RUN <= r.len {
            // SAFETY: blocks start..start + RUN of the read lie in
            // `blocks` (`Layout::reads` keeps `len` so).
            unsafe { _mm512_loadu_si512(blocks.as_ptr().add(r.at + start).cast()) }
        } else {
            let run = run_of(blocks, r, start, &mut pad);
            // SAFETY: the run holds RUN = 64 bytes: one unaligned 64-byte
            // load from its start.
            unsafe { _mm512_loadu_si512(run.as_ptr().cast()) }
        };
        v
    };
    // Only the first read has a bonus (`Tables::windows` puts it first):
    // the sums start from it, less its bonus, and the rest are added as
    // they are (every read's bonus subtracted, the pass took 370-387
    // samples of `perf record` on `scripts/gen-evaluate.py --scale 2`
    // against 338-354).
    let Some((head, rest)) = reads.split_first() else {
        // No read: every block's sum is 0, within any edits.
        return within_portable(blocks, reads, range, k8, keep);
    };
    debug_assert!(
        rest.iter().all(|r| r.bonus == 0),
        "a bonus past the first read"
    );
    let bonus = _mm512_set1_epi8(head.bonus as i8);
    // Two runs at a time (the reads' setup shared), with `$load` (a read
    // and the first block of a run).
    macro_rules! pass {
        ($load:expr) => {{
            let mut start = range.start;
            while start < range.end {
                let mut s0 = _mm512_subs_epu8($load(head, start), bonus);
                let mut s1 = _mm512_subs_epu8($load(head, start + RUN), bonus);
                let mut alive = true;
                for (i, r) in rest.iter().enumerate() {
                    s0 = _mm512_adds_epu8(s0, $load(r, start));
                    s1 = _mm512_adds_epu8(s1, $load(r, start + RUN));
                    if looked_after(i + 1)
                        && _mm512_cmple_epu8_mask(_mm512_min_epu8(s0, s1), kv) == 0
                    {
                        alive = false;
                        break;
                    }
                }
                if alive {
                    for (half, s) in [s0, s1].into_iter().enumerate() {
                        let from = start + half * RUN;
                        if from >= range.end {
                            break;
                        }
                        let mask = _mm512_cmple_epu8_mask(s, kv);
                        if mask != 0 {
                            let mut sum = [0u8; RUN];
                            // SAFETY: `sum` holds 64 bytes: one unaligned
                            // store.
                            unsafe { _mm512_storeu_si512(sum.as_mut_ptr().cast(), s) };
                            keep_marked(&sum, mask, from, range.end, keep);
                        }
                    }
                }
                start += 2 * RUN;
            }
        }};
    }
    // Where every read of every run lies within its `len` (the usual case:
    // `Layout::len` pads the buffer), the loads need no check (with a
    // check of each load's end, and a copy past it, the pass took 315-336
    // samples of `perf record` on `scripts/gen-evaluate.py --scale 2`
    // against 232-245).
    let end = range.start + range.len().div_ceil(2 * RUN) * 2 * RUN;
    if reads_lie_within(reads, blocks, end) {
        let at = blocks.as_ptr();
        pass!(|r: &Read, start: usize| {
            // SAFETY: start + RUN <= end <= r.len: blocks start..start +
            // RUN of the read lie in `blocks` (`Layout::reads` keeps `len`
            // so).
            unsafe { _mm512_loadu_si512(at.add(r.at + start).cast()) }
        });
    } else {
        pass!(load);
    }
}

/// Packs one chunk's block minima of a group's `lanes` lanes into their
/// tables (`tables`: the group's first table on, `bytes` a table, the
/// chunk's pairs of blocks from byte `first` of each), two blocks a byte;
/// each lane's sum of its minima.
fn pack(
    minima: &[[u8; LANES]],
    lanes: usize,
    bytes: usize,
    first: usize,
    tables: &mut [u8],
) -> [u64; LANES] {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512bw") {
            // SAFETY: the CPU has AVX-512BW (checked above).
            return unsafe { pack_avx512(minima, lanes, bytes, first, tables) };
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2 (checked above).
            return unsafe { pack_avx2(minima, lanes, bytes, first, tables) };
        }
    }
    pack_portable(minima, lanes, bytes, first, tables)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512bw")]
fn pack_avx512(
    minima: &[[u8; LANES]],
    lanes: usize,
    bytes: usize,
    first: usize,
    tables: &mut [u8],
) -> [u64; LANES] {
    pack_portable(minima, lanes, bytes, first, tables)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn pack_avx2(
    minima: &[[u8; LANES]],
    lanes: usize,
    bytes: usize,
    first: usize,
    tables: &mut [u8],
) -> [u64; LANES] {
    pack_portable(minima, lanes, bytes, first, tables)
}

/// [`pack`], a tile of pairs of blocks at a time: packed two a byte for
/// every lane at once (with each lane's sum), then turned lane-major eight
/// pairs at a time in registers ([`transpose_eights`]) and stored a lane's
/// eight bytes at once. (Each lane read across the whole chunk's minima
/// instead, and the sums made over the tables after, the packing took
/// 0.25 s of CPU on `scripts/gen-evaluate.py --scale 2`; moved byte by
/// byte from the tile, 0.11 s.)
#[inline(always)]
fn pack_portable(
    minima: &[[u8; LANES]],
    lanes: usize,
    bytes: usize,
    first: usize,
    tables: &mut [u8],
) -> [u64; LANES] {
    let mut tile = [[0u8; LANES]; TILE];
    let mut sums = [0u64; LANES];
    let pairs = minima.len().div_ceil(2);
    for t0 in (0..pairs).step_by(TILE) {
        let n = TILE.min(pairs - t0);
        let mut sum = [0u16; LANES];
        for (i, row) in tile[..n].iter_mut().enumerate() {
            let lo = &minima[2 * (t0 + i)];
            let hi = minima.get(2 * (t0 + i) + 1).unwrap_or(&[0; LANES]);
            for l in 0..LANES {
                // A least is at most PIECE (15 bounds any other).
                let (a, b) = (lo[l].min(15), hi[l].min(15));
                row[l] = a | b << 4;
                sum[l] += u16::from(a + b);
            }
        }
        for (all, &s) in sums.iter_mut().zip(&sum) {
            *all += u64::from(s);
        }
        let whole = n / 8 * 8;
        for i in (0..whole).step_by(8) {
            let rows: &[[u8; LANES]; 8] = match tile[i..i + 8].try_into() {
                Ok(rows) => rows,
                Err(_) => unreachable!("a slice of eight rows"),
            };
            let columns = transpose_eights(rows);
            for (l, column) in columns.iter().enumerate().take(lanes) {
                let at = l * bytes + first + t0 + i;
                tables[at..at + 8].copy_from_slice(&column.to_le_bytes());
            }
        }
        for l in 0..lanes {
            let at = l * bytes + first + t0;
            let out = &mut tables[at + whole..at + n];
            for (o, row) in out.iter_mut().zip(&tile[whole..n]) {
                *o = row[l];
            }
        }
    }
    sums
}

/// Eight rows of [`LANES`] bytes turned lane-major: word `l` holds lane
/// `l` of rows 0 to 7 as its bytes 0 to 7 (little-endian). Each row is
/// read as eight words of eight lanes, and the eight rows' words at one
/// place are an 8x8 matrix of bytes, transposed by swapping its 1x1, then
/// 2x2, then 4x4 blocks across the diagonal (the eight places side by side
/// in vector registers). Byte by byte, the tables' packing took 0.11 s of
/// CPU on `scripts/gen-evaluate.py --scale 2`.
#[inline(always)]
fn transpose_eights(rows: &[[u8; LANES]; 8]) -> [u64; LANES] {
    const W: usize = LANES / 8;
    let mut m: [[u64; W]; 8] = [[0; W]; 8];
    for (words, row) in m.iter_mut().zip(rows) {
        for (w, lanes) in words.iter_mut().zip(row.chunks_exact(8)) {
            let mut b = [0u8; 8];
            b.copy_from_slice(lanes);
            *w = u64::from_le_bytes(b);
        }
    }
    // Rows r and r + D swap the D-byte units that lie across the
    // diagonal: unit j of row r + D (j even) with unit j + 1 of row r.
    #[inline(always)]
    fn swap<const D: usize>(m: &mut [[u64; W]; 8], mask: u64) {
        let shift = 8 * D as u32;
        for r in (0..8).filter(|r| r & D == 0) {
            let (top, bottom) = m.split_at_mut(r + D);
            for (a, b) in top[r].iter_mut().zip(bottom[0].iter_mut()) {
                let t = ((*a >> shift) ^ *b) & mask;
                *b ^= t;
                *a ^= t << shift;
            }
        }
    }
    swap::<1>(&mut m, 0x00ff_00ff_00ff_00ff);
    swap::<2>(&mut m, 0x0000_ffff_0000_ffff);
    swap::<4>(&mut m, 0x0000_0000_ffff_ffff);
    let mut out = [0u64; LANES];
    for (w, eight) in out.chunks_exact_mut(8).enumerate() {
        for (j, o) in eight.iter_mut().enumerate() {
            *o = m[j][w];
        }
    }
    out
}

/// `out[i]` = block `from + i` of a table packed two blocks a byte (low
/// half first); `out` ends within the table.
fn unpack(table: &[u8], from: usize, out: &mut [u8]) {
    let mut out = out;
    let mut byte = from / 2;
    if from % 2 == 1 {
        let Some((first, rest)) = out.split_first_mut() else {
            return;
        };
        *first = table[byte] >> 4;
        out = rest;
        byte += 1;
    }
    let done = out.len() / 2 * 2;
    for (o, &b) in out[..done].chunks_exact_mut(2).zip(&table[byte..]) {
        o[0] = b & 15;
        o[1] = b >> 4;
    }
    if let Some(last) = out.get_mut(done) {
        *last = table[byte + done / 2] & 15;
    }
}

/// `out[i]` = least of `table[i..i + 4]` (of what the table holds past
/// `i`, near its end).
fn least_of_four(table: &[u8], out: &mut [u8]) {
    let n = table.len();
    let body = n.saturating_sub(3);
    let from = |i: usize| table.get(i..).unwrap_or(&[]);
    let four = table[..body].iter().zip(from(1)).zip(from(2)).zip(from(3));
    for (o, (((a, b), c), d)) in out[..body].iter_mut().zip(four) {
        *o = (*a).min(*b).min((*c).min(*d));
    }
    for i in body..n {
        out[i] = table[i..].iter().copied().min().unwrap_or(0);
    }
}

/// The block minima of `g` for one group's lanes over text positions
/// `lo..hi` (and `hi` itself when `last`: the empty rest of the text), by
/// block from `lo / BLOCK`: the piece reversed against the text read
/// backwards from `hi` plus a lead-in of twice a piece's length.
fn build(group: &Group, text: &[u8], lo: usize, hi: usize, last: bool) -> Vec<[u8; LANES]> {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512vl")
        {
            return if group.lanes <= LANES / 2 {
                // SAFETY: the CPU has AVX-512BW and VL (checked above).
                unsafe { build_masked_256(group, text, lo, hi, last) }
            } else {
                // SAFETY: the CPU has AVX-512BW and VL (checked above).
                unsafe { build_masked_512(group, text, lo, hi, last) }
            };
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2 (checked above).
            return unsafe { build_avx2(group, text, lo, hi, last) };
        }
    }
    build_lanes(group, text, lo, hi, last)
}

/// [`build_portable`] over as many lanes as the group needs: a group of
/// half the lanes or fewer (the last one, of the least shared pieces) is
/// scanned in half-width registers, for half the work.
#[inline(always)]
fn build_lanes(group: &Group, text: &[u8], lo: usize, hi: usize, last: bool) -> Vec<[u8; LANES]> {
    if group.lanes <= LANES / 2 {
        build_portable::<{ LANES / 2 }>(group, text, lo, hi, last)
    } else {
        build_portable::<LANES>(group, text, lo, hi, last)
    }
}

/// [`build_portable`] in AVX-512 registers (one for full groups in 512-bit
/// registers, one for half groups in 256-bit ones), for two measured
/// savings on `scripts/gen-evaluate.py --scale 2` (the build's CPU, in
/// samples of `perf record`):
/// - the blocks of both halves are scanned sixteen chars at a time, their
///   leasts stored after each block: no check of the position at every
///   char, no bounds check of the text or of the masks' table (371-381
///   samples against 336-350);
/// - a lane's score moves by one with a masked subtract or add where its
///   last row's delta is set, written in assembly: the compiler turns the
///   masked forms of its intrinsics back into a mask widened to a vector
///   and added, two more operations a char (the full groups took 195-198
///   samples against 230-240).
macro_rules! masked_build {
    ($name:ident, $n:literal, $vec:ty, $load:ident, $store:ident, $and:ident, $or:ident,
     $andnot:ident, $xor:ident, $add:ident, $test:ident, $min:ident,
     $set1:ident, $zero:ident, $reg:literal) => {
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx512bw,avx512vl")]
        fn $name(group: &Group, text: &[u8], lo: usize, hi: usize, last: bool) -> Vec<[u8; LANES]> {
            use std::arch::x86_64::*;
            const N: usize = $n;
            const { assert!(N <= LANES) };
            let n = text.len();
            let first_block = lo / BLOCK;
            let end_block = if last {
                hi / BLOCK
            } else {
                (hi.max(1) - 1) / BLOCK
            };
            let mut out = vec![[u8::MAX; LANES]; end_block + 1 - first_block];
            let eq: &[[u8; LANES]; 256] = match group.eq.as_slice().try_into() {
                Ok(eq) => eq,
                Err(_) => unreachable!("a row of masks per byte"),
            };
            // SAFETY (every load and store below): a row holds LANES >= N
            // bytes; the first N are read or written.
            macro_rules! load {
                ($row:expr) => {{
                    let row: &[u8; LANES] = $row;
                    unsafe { $load(row.as_ptr().cast()) }
                }};
            }
            macro_rules! store {
                ($block:expr, $v:expr) => {{
                    let row: &mut [u8; LANES] = &mut out[$block - first_block];
                    unsafe { $store(row.as_mut_ptr().cast(), $v) }
                }};
            }
            let ones: $vec = $set1(-1);
            let last_row = load!(&group.last);
            // A stream: (pv, mv, score, least of its block so far).
            let fresh = (ones, $zero(), load!(&group.len), ones);
            macro_rules! step {
                ($s:ident, $byte:expr) => {{
                    let e = load!(&eq[usize::from($byte)]);
                    let (pv, mv) = ($s.0, $s.1);
                    let xv = $or(e, mv);
                    let xh = $or($xor($add($and(e, pv), pv), pv), e);
                    let ph = $or(mv, $andnot($or(xh, pv), ones));
                    let mh = $and(pv, xh);
                    // +1 (less -1) where the last row's delta is up, -1
                    // where it is down.
                    let up = $test(ph, last_row);
                    let down = $test(mh, last_row);
                    masked_step!($s.2, up, down, ones);
                    let phs = $add(ph, ph);
                    let mhs = $add(mh, mh);
                    $s.0 = $or(mhs, $andnot($or(xv, phs), ones));
                    $s.1 = $and(phs, xv);
                }};
            }
            macro_rules! record {
                ($s:ident, $x:expr) => {{
                    let x: usize = $x;
                    $s.3 = $min($s.3, $s.2);
                    if x.is_multiple_of(BLOCK) {
                        store!(x / BLOCK, $s.3);
                        $s.3 = ones;
                    }
                }};
            }
            // score += 1 where `up`, score -= 1 where `down` (`ones`: -1
            // in every lane).
            macro_rules! masked_step {
                ($sc:expr, $up:expr, $down:expr, $ones:expr) => {{
                    unsafe {
                        std::arch::asm!(
                            concat!("vpsubb {s", $reg, "}{{{u}}}, {s", $reg, "}, {o", $reg, "}"),
                            concat!("vpaddb {s", $reg, "}{{{d}}}, {s", $reg, "}, {o", $reg, "}"),
                            s = inout(zmm_reg) $sc,
                            u = in(kreg) $up,
                            d = in(kreg) $down,
                            o = in(zmm_reg) $ones,
                            options(pure, nomem, nostack),
                        );
                    }
                }};
            }
            // The block loop below takes lo (a chunk's start) on a block's
            // start.
            debug_assert!(lo.is_multiple_of(BLOCK), "a chunk from {lo}");
            let mid = lo + (hi - lo) / 2 / BLOCK * BLOCK;
            let (mut upper, mut lower) = (fresh, fresh);
            if last {
                // Position n: the empty rest, the whole piece deleted.
                upper.3 = upper.2;
                if n.is_multiple_of(BLOCK) {
                    store!(n / BLOCK, upper.3);
                    upper.3 = ones;
                }
            }
            for x in (hi..(hi + 2 * PIECE).min(n)).rev() {
                step!(upper, text[x]);
            }
            for x in (mid..(mid + 2 * PIECE).min(n)).rev() {
                step!(lower, text[x]);
            }
            let below = mid - lo;
            for x in (mid + below..hi).rev() {
                step!(upper, text[x]);
                record!(upper, x);
            }
            // Whole blocks from here on (lo, mid and mid + below are
            // blocks' starts): block j of each half, its chars from the
            // last.
            let (low_text, high_text) = (&text[lo..mid], &text[mid..mid + below]);
            for j in (0..below / BLOCK).rev() {
                let bytes = |half: &[u8]| -> [u8; BLOCK] {
                    match half[j * BLOCK..(j + 1) * BLOCK].try_into() {
                        Ok(b) => b,
                        Err(_) => unreachable!("a block of chars"),
                    }
                };
                let (bl, bu) = (bytes(low_text), bytes(high_text));
                for i in (0..BLOCK).rev() {
                    step!(lower, bl[i]);
                    step!(upper, bu[i]);
                    lower.3 = $min(lower.3, lower.2);
                    upper.3 = $min(upper.3, upper.2);
                }
                store!(lo / BLOCK + j, lower.3);
                store!(mid / BLOCK + j, upper.3);
                lower.3 = ones;
                upper.3 = ones;
            }
            out
        }
    };
}

masked_build!(
    build_masked_512,
    64,
    __m512i,
    _mm512_loadu_si512,
    _mm512_storeu_si512,
    _mm512_and_si512,
    _mm512_or_si512,
    _mm512_andnot_si512,
    _mm512_xor_si512,
    _mm512_add_epi8,
    _mm512_test_epi8_mask,
    _mm512_min_epu8,
    _mm512_set1_epi8,
    _mm512_setzero_si512,
    ""
);

masked_build!(
    build_masked_256,
    32,
    __m256i,
    _mm256_loadu_si256,
    _mm256_storeu_si256,
    _mm256_and_si256,
    _mm256_or_si256,
    _mm256_andnot_si256,
    _mm256_xor_si256,
    _mm256_add_epi8,
    _mm256_test_epi8_mask,
    _mm256_min_epu8,
    _mm256_set1_epi8,
    _mm256_setzero_si256,
    ":y"
);

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn build_avx2(group: &Group, text: &[u8], lo: usize, hi: usize, last: bool) -> Vec<[u8; LANES]> {
    build_lanes(group, text, lo, hi, last)
}

/// The scan's state over one stretch of text for the first `N` lanes:
/// each lane's vertical deltas (Myers's `pv`, `mv`), its score (the
/// distance at its last row) and the least score of the block being read.
struct Stream<const N: usize> {
    pv: [u8; N],
    mv: [u8; N],
    score: [u8; N],
    least: [u8; N],
}

/// The first `N` of a group's lanes.
#[inline(always)]
fn first<const N: usize>(lanes: &[u8; LANES]) -> &[u8; N] {
    match lanes.first_chunk::<N>() {
        Some(a) => a,
        None => unreachable!("N is at most LANES"),
    }
}

impl<const N: usize> Stream<N> {
    fn new(group: &Group) -> Stream<N> {
        Stream {
            pv: [u8::MAX; N],
            mv: [0; N],
            score: *first(&group.len),
            least: [u8::MAX; N],
        }
    }

    /// One Myers step of every lane for a text char whose match masks are
    /// `eq` (the semi-global scan: nothing enters row 0), the lanes' scores
    /// moved by their last rows' deltas.
    #[inline(always)]
    fn step(&mut self, eq: &[u8; LANES], last: &[u8; LANES]) {
        let (eq, last) = (first::<N>(eq), first::<N>(last));
        for l in 0..N {
            let (pv, mv, e) = (self.pv[l], self.mv[l], eq[l]);
            let xv = e | mv;
            let xh = ((e & pv).wrapping_add(pv) ^ pv) | e;
            let ph = mv | !(xh | pv);
            let mh = pv & xh;
            let up = u8::from(ph & last[l] != 0);
            let down = u8::from(mh & last[l] != 0);
            self.score[l] = self.score[l].wrapping_add(up).wrapping_sub(down);
            let phs = ph << 1;
            let mhs = mh << 1;
            self.pv[l] = mhs | !(xv | phs);
            self.mv[l] = phs & xv;
        }
    }

    /// Takes the score at position `x` into its block's least, stored
    /// (in the first `N` lanes of its row) when `x` is the block's first
    /// position.
    #[inline(always)]
    fn record(&mut self, x: usize, out: &mut [[u8; LANES]], first_block: usize) {
        for l in 0..N {
            self.least[l] = self.least[l].min(self.score[l]);
        }
        if x.is_multiple_of(BLOCK) {
            out[x / BLOCK - first_block][..N].copy_from_slice(&self.least);
            self.least = [u8::MAX; N];
        }
    }
}

/// The block minima over positions `lo..hi` (and `hi` itself when `last`:
/// position n, the empty rest of the text), the text's two halves scanned
/// side by side (two independent chains of dependent steps keep the CPU's
/// units busy), each from a lead-in of twice a piece's length.
#[inline(always)]
fn build_portable<const N: usize>(
    group: &Group,
    text: &[u8],
    lo: usize,
    hi: usize,
    last: bool,
) -> Vec<[u8; LANES]> {
    let n = text.len();
    let first_block = lo / BLOCK;
    // Blocks lo / BLOCK ..= (hi - 1) / BLOCK, and hi / BLOCK for the last
    // chunk (position n).
    let end_block = if last {
        hi / BLOCK
    } else {
        (hi.max(1) - 1) / BLOCK
    };
    let mut out = vec![[u8::MAX; LANES]; end_block + 1 - first_block];
    let eq = |x: usize| &group.eq[usize::from(text[x])];
    // The halves [lo, mid) and [mid, hi), mid on a block's start.
    let mid = lo + (hi - lo) / 2 / BLOCK * BLOCK;
    let mut upper = Stream::<N>::new(group);
    let mut lower = Stream::<N>::new(group);
    if last {
        // Position n: the empty rest, the whole piece deleted.
        upper.least = upper.score;
        if n.is_multiple_of(BLOCK) {
            out[n / BLOCK - first_block][..N].copy_from_slice(&upper.least);
            upper.least = [u8::MAX; N];
        }
    }
    // The lead-ins: positions a half's scores need, recorded by the next.
    for x in (hi..(hi + 2 * PIECE).min(n)).rev() {
        upper.step(eq(x), &group.last);
    }
    for x in (mid..(mid + 2 * PIECE).min(n)).rev() {
        lower.step(eq(x), &group.last);
    }
    // The upper half is the longer: its extra positions alone, then both.
    let below = mid - lo;
    for x in (mid + below..hi).rev() {
        upper.step(eq(x), &group.last);
        upper.record(x, &mut out, first_block);
    }
    for i in (0..below).rev() {
        let (xl, xu) = (lo + i, mid + i);
        lower.step(eq(xl), &group.last);
        upper.step(eq(xu), &group.last);
        lower.record(xl, &mut out, first_block);
        upper.record(xu, &mut out, first_block);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lev(a: &[char], b: &[char]) -> usize {
        let mut prev: Vec<usize> = (0..=b.len()).collect();
        for (i, &ca) in a.iter().enumerate() {
            let mut cur = vec![i + 1; b.len() + 1];
            for j in 1..=b.len() {
                cur[j] = (prev[j - 1] + usize::from(ca != b[j - 1]))
                    .min(prev[j] + 1)
                    .min(cur[j - 1] + 1);
            }
            prev = cur;
        }
        prev[b.len()]
    }

    /// g_P(x) by brute force (ends up to 4|P| chars on: a stretch over
    /// 2|P| chars costs more than the empty one).
    fn g(p: &[char], t: &[char], x: usize) -> usize {
        (x..=t.len().min(x + 4 * p.len()))
            .map(|y| lev(p, &t[x..y]))
            .min()
            .unwrap_or(p.len())
    }

    /// A table's block `b` by brute force: the least `g_P` over its
    /// positions (those of the text, `0..=t.len()`).
    fn block_least(p: &[char], t: &[char], b: usize) -> usize {
        (b * BLOCK..((b + 1) * BLOCK).min(t.len() + 1))
            .map(|x| g(p, t, x))
            .min()
            .unwrap_or(0)
    }

    /// A text of `words` words drawn from `size` made-up words (seeded).
    fn made_up_text(words: usize, size: usize, seed: u64) -> String {
        let mut x = seed;
        let mut next = move || {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) as usize
        };
        let vocab: Vec<String> = (0..size)
            .map(|_| {
                let len = 2 + next() % 9;
                (0..len)
                    .map(|_| char::from(b'a' + (next() % 26) as u8))
                    .collect()
            })
            .collect();
        (0..words)
            .map(|_| vocab[next() % size].as_str())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// A text of `words` words drawn from a small vocabulary (seeded).
    fn small_vocabulary_text(words: usize, seed: u64) -> String {
        let vocab = [
            "garden", "leeks", "harvest", "we", "grew", "the", "a", "market", "rain", "sold",
            "council", "kale", "river", "boat",
        ];
        let mut x = seed;
        (0..words)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                vocab[(x >> 33) as usize % vocab.len()]
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// A slice holds, for each slot, its table's leasts over the slot's
    /// width from each of the slice's blocks (the table read as 0 past its
    /// end; a least near the slot's end over the blocks the slot holds).
    #[test]
    fn slices_hold_each_slot_s_leasts_over_its_width() {
        let text = small_vocabulary_text(3_000, 3);
        let quotes: Vec<Vec<char>> = ["we grew the leeks", "the leeks we sold at market"]
            .iter()
            .map(|q| q.chars().collect())
            .collect();
        let tables = Tables::new(&text, &quotes).expect("shared pieces");
        let count = tables.blocks_of_starts();
        // Windows of the second quote only (a table may have no slot),
        // for edits that give widths of 1 to 12.
        let (plan, _) = tables.plan(&quotes[1]);
        let windows: Vec<Vec<Window>> = [0, 5, 20, 40, 60, 85]
            .iter()
            .map(|&k| tables.windows(&plan, k))
            .collect();
        let layout = Layout::new(&tables, windows.iter().map(|w| w.as_slice()), 64);
        let widths: std::collections::BTreeSet<usize> =
            layout.slots.iter().map(|&(_, w)| w).collect();
        assert!(widths.len() >= 6, "widths {widths:?}");
        assert!(!layout.tables.is_empty() && layout.tables.len() <= tables.len());
        let span = layout.span;
        let mut slice = Vec::new();
        for first in [0, 64, count - 40, count] {
            layout.fill(&tables, first, &mut slice);
            assert_eq!(slice.len(), layout.len());
            for (s, &(t, width)) in layout.slots.iter().enumerate() {
                let got = &slice[s * span..][..span];
                for (i, &g) in got.iter().enumerate() {
                    let want = (i..(i + width).min(span))
                        .map(|j| {
                            let at = first + layout.base + j;
                            if at < tables.stride {
                                tables.block(t, at)
                            } else {
                                0
                            }
                        })
                        .min();
                    assert_eq!(Some(g), want, "table {t} width {width} block {i}");
                }
            }
        }
    }

    /// The kernels this CPU runs, by name (the portable one always).
    #[allow(clippy::type_complexity)]
    fn kernels() -> Vec<(
        &'static str,
        fn(&[u8], &[Read], Range<usize>, u8, &mut Vec<(usize, u8)>),
    )> {
        let mut out: Vec<(
            &'static str,
            fn(&[u8], &[Read], Range<usize>, u8, &mut Vec<(usize, u8)>),
        )> = vec![("portable", |b, r, range, k, out| {
            within_portable(b, r, range, k, &mut |x, s| out.push((x, s)))
        })];
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx2") {
                out.push(("avx2", |b, r, range, k, out| {
                    // SAFETY: the CPU has AVX2 (checked above).
                    unsafe { within_avx2(b, r, range, k, &mut |x, s| out.push((x, s))) }
                }));
            }
            if std::arch::is_x86_feature_detected!("avx512bw") {
                out.push(("avx512", |b, r, range, k, out| {
                    // SAFETY: the CPU has AVX-512BW (checked above).
                    unsafe { within_avx512(b, r, range, k, &mut |x, s| out.push((x, s))) }
                }));
            }
        }
        out
    }

    /// Every kernel keeps exactly the blocks whose sum of each planned
    /// piece's least over its window of the raw table (windows of 1 to 12
    /// blocks; wider ones count 0; blocks whose window runs past the
    /// table's end adding 0) is within k, with that sum: over the whole
    /// table and over slices that end anywhere (runs cut short).
    #[test]
    fn every_kernel_keeps_the_blocks_within_the_raw_minima() {
        let text = small_vocabulary_text(3_000, 9);
        let quotes: Vec<Vec<char>> = [12, 40, 90, 200, 400]
            .iter()
            .map(|&w| small_vocabulary_text(w / 5, w as u64).chars().collect())
            .chain(std::iter::once(text.chars().take(300).collect()))
            .collect();
        let tables = Tables::new(&text, &quotes).expect("shared pieces");
        let count = tables.blocks_of_starts();
        let mut widths = std::collections::BTreeSet::new();
        let kernels = kernels();
        for q in &quotes {
            let (plan, _) = tables.plan(q);
            for k in (0..=90).step_by(3) {
                let mut want = vec![0u8; count];
                for &(t, o, bonus) in &plan {
                    // Within k of its offset; the first piece (from char
                    // -1 or 0) at its offset.
                    let drift = if o <= 0 { 0 } else { k as isize };
                    let dl = (o - drift).div_euclid(BLOCK as isize);
                    let dh = (BLOCK as isize - 1 + o + drift).div_euclid(BLOCK as isize);
                    let width = dh - dl + 1;
                    widths.insert(width);
                    if width > 12 {
                        continue;
                    }
                    let raw: Vec<u8> = (0..tables.stride).map(|b| tables.block(t, b)).collect();
                    for (b, w) in want.iter_mut().enumerate() {
                        let lo = (PAD as isize + dl) as usize + b;
                        let hi = (PAD as isize + dh) as usize + b;
                        if hi < raw.len() {
                            let least = raw[lo..=hi].iter().min().copied().unwrap_or(0);
                            *w = w.saturating_add(least.saturating_sub(bonus));
                        }
                    }
                }
                // One slice over every block of starts.
                let windows = tables.windows(&plan, k);
                let layout = Layout::new(&tables, [windows.as_slice()], count);
                let reads = layout.reads(&windows);
                let mut slice = Vec::new();
                layout.fill(&tables, 0, &mut slice);
                for k8 in [k as u8, (k / 2) as u8, 254] {
                    let kept: Vec<(usize, u8)> = want
                        .iter()
                        .enumerate()
                        .filter(|&(_, &s)| s <= k8)
                        .map(|(b, &s)| (b, s))
                        .collect();
                    for (name, kernel) in &kernels {
                        let mut got = Vec::new();
                        kernel(&slice, &reads, 0..count, k8, &mut got);
                        assert_eq!(got, kept, "{name} k={k} k8={k8}");
                        // Slices that start and end anywhere.
                        for (from, to) in
                            [(count / 3, count / 3 + 700), (5, 70), (count - 33, count)]
                        {
                            let to = to.min(count);
                            let mut got = Vec::new();
                            kernel(&slice, &reads, from..to, k8, &mut got);
                            let want: Vec<(usize, u8)> = kept
                                .iter()
                                .copied()
                                .filter(|&(b, _)| (from..to).contains(&b))
                                .collect();
                            assert_eq!(got, want, "{name} k={k} k8={k8} {from}..{to}");
                        }
                    }
                }
            }
        }
        assert!(
            (1..=13).all(|w| widths.contains(&w)),
            "widths covered: {widths:?}"
        );
    }

    /// Reads that run past their `len` (the kernels' checked loads, which
    /// read 0 from `len` on) and past the buffer's end give every kernel
    /// the portable one's blocks and sums.
    #[test]
    fn every_kernel_reads_zeros_past_a_read_s_len() {
        let mut x = 7u64;
        let blocks: Vec<u8> = (0..700)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((x >> 33) % 5) as u8
            })
            .collect();
        let n = blocks.len();
        let reads = [
            Read {
                at: 3,
                len: n - 3,
                bonus: 1,
            },
            Read {
                at: 200,
                len: 150,
                bonus: 0,
            },
            Read {
                at: n - 90,
                len: 90,
                bonus: 0,
            },
            Read {
                at: 410,
                len: 40,
                bonus: 0,
            },
        ];
        for k8 in [0, 2, 5, 9] {
            for range in [0..300, 37..250, 0..64, 100..101] {
                let mut want = Vec::new();
                within_portable(&blocks, &reads, range.clone(), k8, &mut |b, s| {
                    want.push((b, s))
                });
                for (name, kernel) in kernels() {
                    let mut got = Vec::new();
                    kernel(&blocks, &reads, range.clone(), k8, &mut got);
                    assert_eq!(got, want, "{name} {range:?} k8={k8}");
                }
            }
        }
    }

    /// With no read (every window of a quote too wide, its first piece
    /// untabled), every kernel keeps every block of the range, with a sum
    /// of 0: nothing rules a start out.
    #[test]
    fn every_kernel_keeps_every_block_without_reads() {
        let blocks = vec![7u8; 4 * RUN];
        for (name, kernel) in kernels() {
            for range in [0..3 * RUN, 5..70, 0..0] {
                let mut got = Vec::new();
                kernel(&blocks, &[], range.clone(), 3, &mut got);
                let want: Vec<(usize, u8)> = range.clone().map(|b| (b, 0)).collect();
                assert_eq!(got, want, "{name} {range:?}");
            }
        }
    }

    /// A long quote whose first word no other quote has, searched for so
    /// many edits that every window of its tabled pieces is too wide:
    /// its candidates are the whole text, whether prepared or not.
    #[test]
    fn a_quote_with_no_window_keeps_the_whole_text() {
        let text = small_vocabulary_text(2_000, 4);
        let long: Vec<char> = format!("zebra {}", small_vocabulary_text(60, 8))
            .chars()
            .collect();
        let other: Vec<char> = small_vocabulary_text(60, 8).chars().collect();
        let quotes = vec![long.clone(), other];
        let mut tables = Tables::new(&text, &quotes).expect("shared pieces");
        let k = 120;
        let (plan, reach) = tables.plan(&long);
        assert!(reach > k, "reach {reach}");
        assert!(tables.windows(&plan, k).is_empty());
        let whole: Vec<Range<usize>> = std::iter::once(0..text.len()).collect();
        assert_eq!(tables.candidates(&long, &text, k), Some(whole.clone()));
        tables.prepare(&quotes[..1], &[k]);
        assert_eq!(tables.candidates(&long, &text, k), Some(whole));
    }

    /// Issue 55: a batch prepared in one pass gives each quote the windows
    /// it gets alone, for the edits it was prepared for; for fewer, windows
    /// that hold those it gets alone; for more, the same as alone.
    #[test]
    fn prepared_quotes_keep_the_windows_they_get_alone() {
        // Seed 1: 14 words, where most quotes keep more than an eighth of
        // the blocks (none kept prepared); the others: 400 made-up words.
        for seed in 1..6 {
            let text = if seed == 1 {
                small_vocabulary_text(6_000, seed)
            } else {
                made_up_text(6_000 + 1_000 * seed as usize, 400, seed)
            };
            let chars: Vec<char> = text.chars().collect();
            let mut quotes: Vec<Vec<char>> = Vec::new();
            let mut x = seed;
            for i in 0..40 {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let len = 12 + (x >> 40) as usize % 120;
                if i % 2 == 0 {
                    let a = (x >> 20) as usize % (chars.len() - len);
                    quotes.push(chars[a..a + len].to_vec());
                } else {
                    // Invented: the text's words in a fresh order.
                    let words: Vec<&str> = text.split(' ').collect();
                    let mut y = x;
                    let q: Vec<&str> = (0..len / 5 + 2)
                        .map(|_| {
                            y = y
                                .wrapping_mul(6364136223846793005)
                                .wrapping_add(1442695040888963407);
                            words[(y >> 33) as usize % words.len()]
                        })
                        .collect();
                    quotes.push(q.join(" ").chars().collect());
                }
            }
            let floor = 0.8;
            let alone = Tables::new(&text, &quotes).expect("shared pieces");
            let mut batch = Tables::new(&text, &quotes).expect("shared pieces");
            let edits: Vec<usize> = quotes
                .iter()
                .map(|q| crate::citations::fuzzy::qgram::max_edits(q.len(), floor))
                .collect();
            batch.prepare(&quotes, &edits);
            assert!(
                seed == 1 || batch.prepared.len() >= 10,
                "seed {seed}: {} prepared",
                batch.prepared.len()
            );
            for q in &quotes {
                let most = crate::citations::fuzzy::qgram::max_edits(q.len(), floor);
                for k in [0, most / 2, most.saturating_sub(1), most, most + 3] {
                    let a = alone.candidates(q, &text, k);
                    let b = batch.candidates(q, &text, k);
                    if k >= most {
                        assert_eq!(a, b, "k={k} seed={seed}");
                        continue;
                    }
                    assert_eq!(a.is_some(), b.is_some());
                    let (Some(a), Some(b)) = (a, b) else { continue };
                    for w in &a {
                        assert!(
                            b.iter().any(|v| v.start <= w.start && w.end <= v.end),
                            "k={k} seed={seed}: {w:?} outside {b:?}"
                        );
                    }
                }
            }
        }
    }

    /// Blocks unpacked from any block, odd or even, for any length.
    #[test]
    fn unpack_reads_both_halves_from_anywhere() {
        let values: Vec<u8> = (0..37u8).map(|i| (i * 7) % 9).collect();
        let packed: Vec<u8> = values
            .chunks(2)
            .map(|p| p[0] | p.get(1).map_or(0, |h| h << 4))
            .collect();
        for from in 0..values.len() {
            for len in 0..=values.len() - from {
                let mut out = vec![99u8; len];
                unpack(&packed, from, &mut out);
                assert_eq!(out, values[from..from + len], "{from} {len}");
            }
        }
    }

    #[test]
    fn pieces_cover_the_quote() {
        let q: Vec<char> = "we grew extraordinarily big leeks".chars().collect();
        let ps = pieces_of(&q);
        let texts: Vec<String> = ps.iter().map(|(p, _, _)| p.iter().collect()).collect();
        assert_eq!(
            texts,
            [" we", " grew", " extraor", "dinarily", " big", " leeks"]
        );
        assert_eq!(ps[0].1, -1);
        assert_eq!(ps[0].2, 1);
        assert_eq!(ps[2].1, 7);
        assert_eq!(ps[3].1, 15);
    }

    #[test]
    fn tables_hold_block_minima_of_g() {
        let text = "the garden grew the leeks, a gardener grows leeks é garden";
        let t: Vec<char> = text.chars().collect();
        let pieces: Vec<Vec<char>> = [" garden", " leeks", "é", " grows", " zzzzzzz"]
            .iter()
            .map(|p| p.chars().collect())
            .collect();
        let tables = Tables::of_pieces(text, &pieces);
        let n = t.len();
        for (pi, p) in pieces.iter().enumerate() {
            for b in 0..=n / BLOCK {
                let want = block_least(p, &t, b);
                assert_eq!(
                    usize::from(tables.block(pi, PAD + b)),
                    want,
                    "piece {pi} block {b}"
                );
            }
        }
    }

    /// Two groups of lanes (the second part full) over two chunks (the
    /// second part full, an odd number of blocks): every table's blocks
    /// where the lanes and chunks meet and at the text's end equal the
    /// brute force, and each table's sum is the sum of its blocks.
    #[test]
    fn packed_tables_hold_every_lane_of_every_chunk() {
        let mut text = made_up_text(20_000, 200, 11);
        text.truncate(CHUNK + 16 * 300 + 5);
        let tc: Vec<char> = text.chars().collect();
        let mut pieces: Vec<Vec<char>> = Vec::new();
        for w in text.split(' ') {
            let p: Vec<char> = format!(" {w}").chars().take(PIECE).collect();
            if p.len() > 2 && !pieces.contains(&p) {
                pieces.push(p);
            }
            if pieces.len() == LANES + 6 {
                break;
            }
        }
        assert_eq!(pieces.len(), LANES + 6);
        let tables = Tables::of_pieces(&text, &pieces);
        let count = tc.len() / BLOCK + 1;
        assert_eq!(count % 2, 1, "an odd number of blocks");
        for (pi, p) in pieces.iter().enumerate() {
            let sum: u64 = (0..tables.stride)
                .map(|b| u64::from(tables.block(pi, b)))
                .sum();
            assert_eq!(tables.means[pi], sum, "table {pi}");
            if ![0, LANES - 1, LANES, LANES + 5].contains(&pi) {
                continue;
            }
            let near_border = (CHUNK / BLOCK - 70)..(CHUNK / BLOCK + 70);
            for b in near_border.chain(count - 70..count) {
                let want = block_least(p, &tc, b);
                assert_eq!(
                    usize::from(tables.block(pi, PAD + b)),
                    want,
                    "table {pi} block {b}"
                );
            }
        }
    }

    #[test]
    fn masked_builds_equal_the_portable_one() {
        #[cfg(target_arch = "x86_64")]
        {
            if !(std::arch::is_x86_feature_detected!("avx512bw")
                && std::arch::is_x86_feature_detected!("avx512vl"))
            {
                return;
            }
            let text = made_up_text(300, 60, 5);
            let t = text.as_bytes();
            let n = t.len();
            assert!(n > 900, "{n} chars");
            let words: Vec<&str> = text.split(' ').collect();
            let mut pieces: Vec<Vec<char>> = Vec::new();
            for (i, w) in words.iter().enumerate() {
                // Whole words, cut ones and one-char pieces, with and
                // without their space.
                let p: Vec<char> = match i % 3 {
                    0 => format!(" {w}").chars().take(PIECE).collect(),
                    1 => w.chars().take(1 + i % PIECE).collect(),
                    _ => w.chars().rev().take(2).collect(),
                };
                if !p.is_empty() && !pieces.contains(&p) {
                    pieces.push(p);
                }
                if pieces.len() == LANES {
                    break;
                }
            }
            assert!(pieces.len() > LANES / 2, "{} pieces", pieces.len());
            let mut ids: FxMap<char, u8> = FxMap::default();
            for c in pieces.iter().flatten() {
                let next = ids.len() as u8 + 1;
                ids.entry(*c).or_insert(next);
            }
            let ascii: Vec<u8> = (0u8..128)
                .map(|b| ids.get(&char::from(b)).copied().unwrap_or(0))
                .collect();
            let full = Group::of(&pieces, &ids, Some(&ascii));
            let half = Group::of(&pieces[..LANES / 2 - 5], &ids, Some(&ascii));
            let spans = [
                (0, n, true),
                (0, n - 37, false),
                (160, n, true),
                (160, 803, false),
                (BLOCK, 2 * BLOCK + 3, false),
                (n / BLOCK * BLOCK, n, true),
            ];
            for (lo, hi, last) in spans {
                // SAFETY: the CPU has AVX-512BW and VL (checked above).
                let (wide, narrow) = unsafe {
                    (
                        build_masked_512(&full, t, lo, hi, last),
                        build_masked_256(&half, t, lo, hi, last),
                    )
                };
                assert_eq!(
                    wide,
                    build_portable::<LANES>(&full, t, lo, hi, last),
                    "{lo}..{hi}"
                );
                assert_eq!(
                    narrow,
                    build_portable::<{ LANES / 2 }>(&half, t, lo, hi, last),
                    "{lo}..{hi}"
                );
            }
        }
    }

    #[test]
    fn eight_rows_turn_lane_major() {
        let mut rows = [[0u8; LANES]; 8];
        for (r, row) in rows.iter_mut().enumerate() {
            for (l, b) in row.iter_mut().enumerate() {
                *b = (r * 31 + l * 7 + r * l) as u8;
            }
        }
        let columns = transpose_eights(&rows);
        for (l, c) in columns.iter().enumerate() {
            let bytes = c.to_le_bytes();
            for r in 0..8 {
                assert_eq!(bytes[r], rows[r][l], "lane {l} row {r}");
            }
        }
    }

    #[test]
    fn half_and_full_width_groups_hold_the_same_minima() {
        // 32 pieces fill a half-width group exactly; 33 need the full
        // width. Both, and the half-width last group of 64 + 3, equal the
        // brute force.
        let text = made_up_text(400, 3000, 11);
        let tc: Vec<char> = text.chars().collect();
        let mut all: Vec<Vec<char>> = Vec::new();
        for w in text.split(' ') {
            let p: Vec<char> = format!(" {w}").chars().take(PIECE).collect();
            if !all.contains(&p) {
                all.push(p);
            }
        }
        assert!(all.len() >= LANES + 3, "{} distinct words", all.len());
        for n in [LANES / 2, LANES / 2 + 1, LANES + 3] {
            let pieces = &all[..n];
            let tables = Tables::of_pieces(&text, pieces);
            let count = tc.len() / BLOCK + 1;
            for (pi, p) in pieces.iter().enumerate() {
                for b in 0..count {
                    assert_eq!(
                        usize::from(tables.block(pi, PAD + b)),
                        block_least(p, &tc, b),
                        "{n} pieces: table {pi} block {b}"
                    );
                }
            }
        }
    }

    #[test]
    fn chunked_builds_equal_one_pass() {
        // Text longer than a chunk: the chunks' lead-ins make them exact.
        let words = ["garden", "leeks", "river", "boat", "mill"];
        let mut seed = 3u64;
        let mut text = String::new();
        while text.len() < CHUNK * 2 + 100 {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            text.push_str(words[(seed >> 33) as usize % words.len()]);
            text.push(' ');
        }
        let pieces: Vec<Vec<char>> = [" garden", " river", " mil"]
            .iter()
            .map(|p| p.chars().collect())
            .collect();
        let tables = Tables::of_pieces(&text, &pieces);
        // Around each chunk border, the minima equal the brute force.
        let tc: Vec<char> = text.chars().collect();
        for border in [CHUNK, 2 * CHUNK] {
            for b in (border / BLOCK - 3)..(border / BLOCK + 3) {
                for (pi, p) in pieces.iter().enumerate() {
                    let want = block_least(p, &tc, b);
                    assert_eq!(usize::from(tables.block(pi, PAD + b)), want);
                }
            }
        }
    }
}
