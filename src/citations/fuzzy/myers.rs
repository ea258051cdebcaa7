//! Bit-parallel edit distance (Myers 1999, in Hyyrö's multi-word form as
//! edlib computes it): one column of the dynamic-programming table per text
//! character, 64 rows per machine word.
//!
//! Two scans over a window of text, both exact:
//! - [`Pattern::end_distances`]: for every end position, the least edit
//!   distance of the quote to any substring ending there (semi-global: the
//!   start is free);
//! - [`Pattern::longest_at`]: for one end position and that distance, the
//!   longest substring ending there at that distance (the quote reversed
//!   against the text read backwards, the start fixed).

/// Windows scanned side by side by [`Pattern::reaches_each`].
const LANES: usize = 4;

/// Windows scanned side by side where the CPU has AVX-512 (the 64-bit
/// lanes of one 512-bit register).
const WIDE_LANES: usize = 8;

/// Whether [`Pattern::reaches_each`] scans eight windows at a time (the
/// CPU has AVX-512F).
#[inline]
fn wide_lanes() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512f")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Longest window (in bytes) scanned in a lane; longer ones are streamed
/// alone (a lane's window is laid out as mask slots first).
const LANE_WINDOW: usize = 1 << 14;

/// Groups of windows between a group's prefetch and its scan.
const AHEAD: usize = 4;

/// A quote's match masks: for each character of the quote, one bit per
/// position where it occurs, in `blocks` words.
#[derive(Debug)]
pub(crate) struct Pattern {
    /// Quote length in characters.
    len: usize,
    /// Words per mask.
    blocks: usize,
    /// Mask slot of each ASCII character (0: not in the quote).
    ascii: [u32; 128],
    /// Mask slot of each other character of the quote, sorted.
    other: Vec<(char, u32)>,
    /// Slot-major masks; slot 0 is all zeros.
    masks: Vec<u64>,
}

/// One column step of one 64-row block. Returns the horizontal deltas of
/// the block's rows (`ph`: +1, `mh`: -1), before the shift.
#[inline(always)]
fn step(pv: &mut u64, mv: &mut u64, eq: u64, hin: i32) -> (u64, u64) {
    let hneg = u64::from(hin < 0);
    let hpos = u64::from(hin > 0);
    let xv = eq | *mv;
    let eq = eq | hneg;
    let xh = ((eq & *pv).wrapping_add(*pv) ^ *pv) | eq;
    let ph = *mv | !(xh | *pv);
    let mh = *pv & xh;
    let phs = (ph << 1) | hpos;
    let mhs = (mh << 1) | hneg;
    *pv = mhs | !(xv | phs);
    *mv = phs & xv;
    (ph, mh)
}

impl Pattern {
    /// Masks of `quote` (read backwards when `reversed`).
    pub(crate) fn new(quote: &[char], reversed: bool) -> Pattern {
        let len = quote.len();
        let blocks = len.div_ceil(64).max(1);
        let mut ascii = [0u32; 128];
        let mut other: Vec<(char, u32)> = Vec::new();
        let mut masks = vec![0u64; blocks];
        for i in 0..len {
            let c = if reversed {
                quote[len - 1 - i]
            } else {
                quote[i]
            };
            let slot = if c.is_ascii() {
                let s = &mut ascii[c as usize];
                if *s == 0 {
                    *s = (masks.len() / blocks) as u32;
                    masks.resize(masks.len() + blocks, 0);
                }
                *s
            } else {
                match other.binary_search_by_key(&c, |&(k, _)| k) {
                    Ok(k) => other[k].1,
                    Err(k) => {
                        let s = (masks.len() / blocks) as u32;
                        masks.resize(masks.len() + blocks, 0);
                        other.insert(k, (c, s));
                        s
                    }
                }
            };
            masks[slot as usize * blocks + i / 64] |= 1u64 << (i % 64);
        }
        Pattern {
            len,
            blocks,
            ascii,
            other,
            masks,
        }
    }

    /// The mask slot of `c` (0: not in the quote).
    #[inline(always)]
    fn slot(&self, c: char) -> usize {
        if c.is_ascii() {
            self.ascii[c as usize] as usize
        } else {
            match self.other.binary_search_by_key(&c, |&(k, _)| k) {
                Ok(k) => self.other[k].1 as usize,
                Err(_) => 0,
            }
        }
    }

    #[inline(always)]
    fn eq(&self, c: char) -> &[u64] {
        let slot = self.slot(c);
        &self.masks[slot * self.blocks..(slot + 1) * self.blocks]
    }

    /// Scans `text` column by column; `top` is the horizontal delta of row
    /// 0 (0: the start is free, 1: the start is fixed), `f` gets each
    /// column's distance at the last row (column 1 first).
    #[inline(always)]
    fn scan(&self, text: impl Iterator<Item = char>, top: i32, f: impl FnMut(u32) -> bool) {
        // Quotes of up to four blocks keep their columns in registers.
        match self.blocks {
            1 => self.scan_blocks::<1>(text, top, f),
            2 => self.scan_blocks::<2>(text, top, f),
            3 => self.scan_blocks::<3>(text, top, f),
            4 => self.scan_blocks::<4>(text, top, f),
            _ => self.scan_any(text, top, f),
        }
    }

    /// [`Pattern::scan`] for a pattern of exactly `B` blocks.
    #[inline(always)]
    fn scan_blocks<const B: usize>(
        &self,
        text: impl Iterator<Item = char>,
        top: i32,
        mut f: impl FnMut(u32) -> bool,
    ) {
        let row = (self.len - 1) % 64;
        let mut pv = [!0u64; B];
        let mut mv = [0u64; B];
        let mut score = self.len as i64;
        for c in text {
            let eqs = self.eq(c);
            let mut hin = top;
            for b in 0..B - 1 {
                let (ph, mh) = step(&mut pv[b], &mut mv[b], eqs[b], hin);
                hin = (ph >> 63) as i32 - (mh >> 63) as i32;
            }
            let (ph, mh) = step(&mut pv[B - 1], &mut mv[B - 1], eqs[B - 1], hin);
            score += ((ph >> row) & 1) as i64 - ((mh >> row) & 1) as i64;
            if !f(score as u32) {
                break;
            }
        }
    }

    /// [`Pattern::scan`] for any number of blocks.
    fn scan_any(&self, text: impl Iterator<Item = char>, top: i32, mut f: impl FnMut(u32) -> bool) {
        let blocks = self.blocks;
        let last = blocks - 1;
        let row = (self.len - 1) % 64;
        let mut pv = vec![!0u64; blocks];
        let mut mv = vec![0u64; blocks];
        let mut score = self.len as i64;
        for c in text {
            let eqs = self.eq(c);
            let mut hin = top;
            for b in 0..last {
                let (ph, mh) = step(&mut pv[b], &mut mv[b], eqs[b], hin);
                hin = (ph >> 63) as i32 - (mh >> 63) as i32;
            }
            let (ph, mh) = step(&mut pv[last], &mut mv[last], eqs[last], hin);
            score += ((ph >> row) & 1) as i64 - ((mh >> row) & 1) as i64;
            if !f(score as u32) {
                break;
            }
        }
    }

    /// Appends to `out`, for each end `j` in 1..=text.len(), the least edit
    /// distance of the quote to a substring `text[s..j]` (any `s`).
    pub(crate) fn end_distances(&self, text: &[char], out: &mut Vec<u32>) {
        out.clear();
        out.reserve(text.len());
        if self.len == 0 {
            out.extend(std::iter::repeat_n(0, text.len()));
            return;
        }
        self.scan(text.iter().copied(), 0, |d| {
            out.push(d);
            true
        });
    }

    /// True when some substring of `text` lies within `k` edits of the
    /// quote (a streamed scan, stopped at the first end that does: nothing
    /// is stored).
    pub(crate) fn reaches(&self, text: &str, k: u32) -> bool {
        if self.len == 0 {
            return true;
        }
        let mut found = false;
        self.scan(text.chars(), 0, |d| {
            found = d <= k;
            !found
        });
        found
    }

    /// [`Pattern::reaches`] for each of `texts` (the same answers), their
    /// scans side by side, [`LANES`] at a time in the lanes of one vector
    /// ([`WIDE_LANES`] with AVX-512) for quotes of up to 128 chars: one
    /// window's scan is a chain of dependent steps, and independent chains
    /// side by side keep the core busy (longer quotes are scanned one
    /// window at a time).
    pub(crate) fn reaches_each(&self, texts: &[&str], k: u32) -> Vec<bool> {
        if self.len == 0 {
            return vec![true; texts.len()];
        }
        let mut out = vec![false; texts.len()];
        // Long windows (a whole text, where no filter could tell) are
        // streamed alone: the lanes lay out their windows' chars first.
        let mut short: Vec<usize> = Vec::with_capacity(texts.len());
        for (i, t) in texts.iter().enumerate() {
            if self.blocks > 2 || t.len() > LANE_WINDOW {
                out[i] = self.reaches(t, k);
            } else {
                short.push(i);
            }
        }
        // Lanes of like lengths side by side: a group runs as long as its
        // longest window (the windows in text order, the verification took
        // 8% more CPU on `scripts/gen-evaluate.py --scale 2`).
        short.sort_by_key(|&i| texts[i].len());
        // Made once for every group (made for each group of four, the
        // lanes took about 4% more CPU on `scripts/gen-evaluate.py --scale
        // 2`: 285-297 samples against 273-285).
        let by_byte = if short.is_empty() {
            Vec::new()
        } else {
            self.byte_masks()
        };
        // Groups of eight where the CPU has AVX-512 (one chain of eight
        // lanes), else of four.
        let size = if wide_lanes() { WIDE_LANES } else { LANES };
        for (g, group) in short.chunks(size).enumerate() {
            // A later group's windows are asked for from memory while this
            // one is scanned (they lie anywhere in the text).
            let ahead = ((g + AHEAD) * size).min(short.len());
            for &i in &short[ahead..(ahead + size).min(short.len())] {
                let t = texts[i].as_bytes();
                super::prefetch(&t[..t.len().min(128)]);
            }
            let windows: Vec<&str> = group.iter().map(|&i| texts[i]).collect();
            let mut found = [false; WIDE_LANES];
            self.reaches_group(&windows, k, &by_byte, &mut found);
            for (&i, f) in group.iter().zip(found) {
                out[i] = f;
            }
        }
        out
    }

    /// Whether each of up to [`WIDE_LANES`] windows reaches within `k`:
    /// eight ASCII windows in the AVX-512 lanes where the CPU has them,
    /// else four at a time.
    fn reaches_group(&self, windows: &[&str], k: u32, by_byte: &[u64], found: &mut [bool]) {
        #[cfg(target_arch = "x86_64")]
        {
            if windows.len() > LANES && wide_lanes() && windows.iter().all(|t| t.is_ascii()) {
                // SAFETY: the CPU has AVX-512F (`wide_lanes`).
                unsafe {
                    match self.blocks {
                        1 => self.lanes_avx512::<1>(windows, k, by_byte, found),
                        _ => self.lanes_avx512::<2>(windows, k, by_byte, found),
                    }
                }
                return;
            }
        }
        self.reaches_group_of_four(windows, k, by_byte, found)
    }

    /// [`Pattern::reaches_group`] four windows at a time.
    fn reaches_group_of_four(&self, windows: &[&str], k: u32, by_byte: &[u64], found: &mut [bool]) {
        for (group, found) in windows.chunks(LANES).zip(found.chunks_mut(LANES)) {
            match self.blocks {
                1 => self.reaches_lanes::<1>(group, k, by_byte, found),
                _ => self.reaches_lanes::<2>(group, k, by_byte, found),
            }
        }
    }

    /// Each ASCII byte's masks, `blocks` words a byte (no slot between),
    /// and zeros after them (at byte 128: past a lane's end).
    fn byte_masks(&self) -> Vec<u64> {
        let b = self.blocks;
        let mut out = vec![0u64; 129 * b];
        for (masks, &slot) in out.chunks_exact_mut(b).zip(&self.ascii) {
            masks.copy_from_slice(&self.masks[slot as usize * b..][..b]);
        }
        out
    }

    /// Up to [`LANES`] windows scanned in lockstep by a pattern of `B`
    /// blocks, one lane each: a lane's answer is whether an end within `k`
    /// came before its window's end. Every lane steps at every column (a
    /// lane past its window reads a char of no mask and is not read), so
    /// the columns' words are vectors of the lanes. `by_byte` is
    /// [`Pattern::byte_masks`].
    fn reaches_lanes<const B: usize>(
        &self,
        texts: &[&str],
        k: u32,
        by_byte: &[u64],
        found: &mut [bool],
    ) {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU has AVX2 (checked above).
                return unsafe { self.reaches_lanes_avx2::<B>(texts, k, by_byte, found) };
            }
        }
        self.reaches_lanes_portable::<B>(texts, k, found)
    }

    /// [`Pattern::reaches_lanes`] in AVX2 registers: a block's four lanes
    /// are one vector (assembled from the lanes' masks in registers, never
    /// through memory: a vector read of four scalar stores stalls).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn reaches_lanes_avx2<const B: usize>(
        &self,
        texts: &[&str],
        k: u32,
        by_byte: &[u64],
        found: &mut [bool],
    ) {
        let count = texts.len().min(LANES);
        if count == 0 {
            return;
        }
        // ASCII windows (the usual case) are read where they lie, a byte
        // per lane and column looked up in a table of each byte's masks;
        // others are laid out as mask slots first (every window laid out,
        // the verification took 0.55 s of CPU on `scripts/gen-evaluate.py
        // --scale 2` against 0.42 s).
        if texts.iter().all(|t| t.is_ascii()) {
            // A missing lane reads the last present one's window (its
            // answer is never taken).
            let bytes: [&[u8]; LANES] = std::array::from_fn(|l| texts[l.min(count - 1)].as_bytes());
            let lens: [usize; LANES] = std::array::from_fn(|l| bytes[l].len());
            // The columns every lane holds, read without a check of each
            // lane's end (with the table of each byte's masks: 12% less
            // CPU in the verification on `scripts/gen-evaluate.py --scale
            // 2` than through the slots, the lanes' ends checked at every
            // column).
            let head = lens.iter().copied().min().unwrap_or(0);
            let [h0, h1, h2, h3] = bytes.map(|b| &b[..head]);
            let at = |b: u8| usize::from(b & 127) * B;
            let heads = h0
                .iter()
                .zip(h1)
                .zip(h2)
                .zip(h3)
                .map(|(((&a, &b), &c), &d)| [at(a), at(b), at(c), at(d)]);
            let past = |b: Option<&u8>| b.map_or(128 * B, |&b| at(b));
            self.lanes_avx2::<B>(k, found, count, lens, by_byte, heads, |j| {
                [
                    past(bytes[0].get(j)),
                    past(bytes[1].get(j)),
                    past(bytes[2].get(j)),
                    past(bytes[3].get(j)),
                ]
            })
        } else {
            let (slots, lens) = self.lane_slots(texts);
            self.lanes_avx2::<B>(
                k,
                found,
                count,
                lens,
                &self.masks,
                std::iter::empty(),
                |j| {
                    let col = &slots[j * LANES..(j + 1) * LANES];
                    [
                        col[0] as usize * B,
                        col[1] as usize * B,
                        col[2] as usize * B,
                        col[3] as usize * B,
                    ]
                },
            )
        }
    }

    /// The scan of [`Pattern::reaches_lanes_avx2`] over `count` lanes of
    /// `lens` chars: the first columns from `heads` (columns every lane
    /// holds), the rest from `column(j)`; a column is each lane's offset
    /// of its `B` mask words in `table` (of zeros past a lane's end).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    #[inline]
    #[allow(clippy::too_many_arguments)]
    fn lanes_avx2<const B: usize>(
        &self,
        k: u32,
        found: &mut [bool],
        count: usize,
        lens: [usize; LANES],
        table: &[u64],
        heads: impl Iterator<Item = [usize; LANES]>,
        column: impl Fn(usize) -> [usize; LANES],
    ) {
        use std::arch::x86_64::*;
        const { assert!(LANES == 4) };
        let row = _mm_cvtsi64_si128(((self.len - 1) % 64) as i64);
        let ones = _mm256_set1_epi64x(-1);
        let one = _mm256_set1_epi64x(1);
        let limit = _mm256_set1_epi64x(i64::from(k));
        let mut pv = [ones; B];
        let mut mv = [_mm256_setzero_si256(); B];
        let mut score = _mm256_set1_epi64x(self.len as i64);
        let columns = lens.iter().copied().max().unwrap_or(0);
        // Bit l: lane l still scanning.
        let mut on: i32 = (1 << count.min(LANES)) - 1;
        // One column's step of every lane: the lanes whose score is past k
        // (a macro: as a closure, it was not inlined).
        macro_rules! step {
            ($col:expr) => {{
                let col: [usize; LANES] = $col;
                let (m0, m1, m2, m3) = (
                    &table[col[0]..],
                    &table[col[1]..],
                    &table[col[2]..],
                    &table[col[3]..],
                );
                let mut hneg = _mm256_setzero_si256();
                let mut hpos = _mm256_setzero_si256();
                for b in 0..B {
                    let eq =
                        _mm256_set_epi64x(m3[b] as i64, m2[b] as i64, m1[b] as i64, m0[b] as i64);
                    let (p, m) = (pv[b], mv[b]);
                    let xv = _mm256_or_si256(eq, m);
                    let e = _mm256_or_si256(eq, hneg);
                    let xh = _mm256_or_si256(
                        _mm256_xor_si256(_mm256_add_epi64(_mm256_and_si256(e, p), p), p),
                        e,
                    );
                    let ph = _mm256_or_si256(m, _mm256_andnot_si256(_mm256_or_si256(xh, p), ones));
                    let mh = _mm256_and_si256(p, xh);
                    let phs = _mm256_or_si256(_mm256_slli_epi64::<1>(ph), hpos);
                    let mhs = _mm256_or_si256(_mm256_slli_epi64::<1>(mh), hneg);
                    pv[b] =
                        _mm256_or_si256(mhs, _mm256_andnot_si256(_mm256_or_si256(xv, phs), ones));
                    mv[b] = _mm256_and_si256(phs, xv);
                    if b + 1 < B {
                        hpos = _mm256_srli_epi64::<63>(ph);
                        hneg = _mm256_srli_epi64::<63>(mh);
                    } else {
                        score = _mm256_sub_epi64(
                            _mm256_add_epi64(
                                score,
                                _mm256_and_si256(_mm256_srl_epi64(ph, row), one),
                            ),
                            _mm256_and_si256(_mm256_srl_epi64(mh, row), one),
                        );
                    }
                }
                _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpgt_epi64(score, limit)))
            }};
        }
        let mut mark = |hit: i32, on: &mut i32| {
            for (l, f) in found.iter_mut().enumerate() {
                if hit & (1 << l) != 0 {
                    *f = true;
                }
            }
            *on &= !hit;
        };
        // Every lane inside its window: a lane at an end within k is done.
        let mut head = 0;
        for col in heads {
            head += 1;
            let hit = on & !step!(col);
            if hit != 0 {
                mark(hit, &mut on);
                if on == 0 {
                    return;
                }
            }
        }
        for j in head..columns {
            // Lanes at an end within k, inside their windows.
            let over = step!(column(j));
            let inside = (0..LANES).fold(0, |a, l| a | (i32::from(lens[l] > j) << l));
            let hit = on & !over & inside;
            if hit != 0 {
                mark(hit, &mut on);
            }
            // Every lane still to read has found, or is past its window.
            if on & inside == 0 {
                break;
            }
        }
    }

    /// [`Pattern::reaches_lanes`] for up to [`WIDE_LANES`] ASCII windows
    /// in the 64-bit lanes of one AVX-512 register: one chain of steps
    /// for eight windows (the chain's latency, more than its work, bounds
    /// a column's step), each step's logic in fewer instructions
    /// (three-input logic), the table read unchecked. On
    /// `scripts/gen-evaluate.py --scale 2` the verification took 194-211
    /// samples of `perf record` against 287-378 with AVX2's four lanes
    /// (three interleaved pairs; 1.4x the CPU with the table's reads
    /// checked). `by_byte` is [`Pattern::byte_masks`].
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f")]
    fn lanes_avx512<const B: usize>(
        &self,
        texts: &[&str],
        k: u32,
        by_byte: &[u64],
        found: &mut [bool],
    ) {
        use std::arch::x86_64::*;
        let count = texts.len().min(WIDE_LANES).min(found.len());
        if count == 0 {
            return;
        }
        // A missing lane reads the last present one's window (its answer
        // is never taken).
        let bytes: [&[u8]; WIDE_LANES] =
            std::array::from_fn(|l| texts[l.min(count - 1)].as_bytes());
        let lens: [usize; WIDE_LANES] = std::array::from_fn(|l| bytes[l].len());
        let head = lens.iter().copied().min().unwrap_or(0);
        let columns = lens.iter().copied().max().unwrap_or(0);
        // Each lane's masks from the table of each byte's masks (zeros at
        // byte 128: past a lane's end).
        let past = 128 * B;
        if by_byte.len() < 129 * B {
            return self.reaches_group_of_four(texts, k, by_byte, found);
        }
        let at = |b: u8| usize::from(b & 127) * B;
        let row = _mm_cvtsi64_si128(((self.len - 1) % 64) as i64);
        let ones = _mm512_set1_epi64(-1);
        let one = _mm512_set1_epi64(1);
        let limit = _mm512_set1_epi64(i64::from(k));
        let mut pv = [ones; B];
        let mut mv = [_mm512_setzero_si512(); B];
        let mut score = _mm512_set1_epi64(self.len as i64);
        // Bit l: lane l still scanning.
        let mut on: u8 = (((1u16) << count) - 1) as u8;
        // One column's step of every lane, from each lane's offset in
        // `by_byte`: the lanes whose score is past k.
        macro_rules! step {
            ($col:expr) => {{
                let col: [usize; WIDE_LANES] = $col;
                let mut hneg = _mm512_setzero_si512();
                let mut hpos = _mm512_setzero_si512();
                for b in 0..B {
                    // SAFETY: col[l] <= 128 * B and b < B: within the
                    // table's 129 * B words (checked above).
                    let m = |l: usize| unsafe { *by_byte.get_unchecked(col[l] + b) } as i64;
                    let eq = _mm512_set_epi64(m(7), m(6), m(5), m(4), m(3), m(2), m(1), m(0));
                    let (p, m) = (pv[b], mv[b]);
                    let xv = _mm512_or_si512(eq, m);
                    let e = _mm512_or_si512(eq, hneg);
                    let xh = _mm512_or_si512(
                        _mm512_xor_si512(_mm512_add_epi64(_mm512_and_si512(e, p), p), p),
                        e,
                    );
                    let ph = _mm512_or_si512(m, _mm512_andnot_si512(_mm512_or_si512(xh, p), ones));
                    let mh = _mm512_and_si512(p, xh);
                    let phs = _mm512_or_si512(_mm512_slli_epi64::<1>(ph), hpos);
                    let mhs = _mm512_or_si512(_mm512_slli_epi64::<1>(mh), hneg);
                    pv[b] =
                        _mm512_or_si512(mhs, _mm512_andnot_si512(_mm512_or_si512(xv, phs), ones));
                    mv[b] = _mm512_and_si512(phs, xv);
                    if b + 1 < B {
                        hpos = _mm512_srli_epi64::<63>(ph);
                        hneg = _mm512_srli_epi64::<63>(mh);
                    } else {
                        score = _mm512_sub_epi64(
                            _mm512_add_epi64(
                                score,
                                _mm512_and_si512(_mm512_srl_epi64(ph, row), one),
                            ),
                            _mm512_and_si512(_mm512_srl_epi64(mh, row), one),
                        );
                    }
                }
                _mm512_cmpgt_epi64_mask(score, limit)
            }};
        }
        let mut mark = |hit: u8, on: &mut u8| {
            for (l, f) in found.iter_mut().enumerate().take(WIDE_LANES) {
                if hit & (1 << l) != 0 {
                    *f = true;
                }
            }
            *on &= !hit;
        };
        // Every lane inside its window: a lane at an end within k is done.
        let heads: [&[u8]; WIDE_LANES] = bytes.map(|b| &b[..head]);
        for j in 0..head {
            // SAFETY: j < head, the length of every lane's head.
            let hit = on
                & !step!(std::array::from_fn(|l| at(unsafe {
                    *heads[l].get_unchecked(j)
                })));
            if hit != 0 {
                mark(hit, &mut on);
                if on == 0 {
                    return;
                }
            }
        }
        for j in head..columns {
            // Lanes at an end within k, inside their windows.
            let over = step!(std::array::from_fn(|l| bytes[l]
                .get(j)
                .map_or(past, |&b| at(b))));
            let inside = (0..WIDE_LANES).fold(0u8, |a, l| a | (u8::from(lens[l] > j) << l));
            let hit = on & !over & inside;
            if hit != 0 {
                mark(hit, &mut on);
            }
            // Every lane still to read has found, or is past its window.
            if on & inside == 0 {
                break;
            }
        }
    }

    /// The mask slots of up to [`LANES`] windows' chars, column by column
    /// (`LANES` per column, 0 past a window's end or for a missing lane),
    /// and each window's length in chars.
    fn lane_slots(&self, texts: &[&str]) -> (Vec<u32>, [usize; LANES]) {
        let mut lens = [0; LANES];
        for (l, t) in texts.iter().take(LANES).enumerate() {
            lens[l] = if t.is_ascii() {
                t.len()
            } else {
                t.chars().count()
            };
        }
        let columns = lens.iter().copied().max().unwrap_or(0);
        let mut slots = vec![0u32; columns * LANES];
        for (l, t) in texts.iter().take(LANES).enumerate() {
            if t.is_ascii() {
                for (j, &b) in t.as_bytes().iter().enumerate() {
                    slots[j * LANES + l] = self.ascii[usize::from(b)];
                }
            } else {
                for (j, c) in t.chars().enumerate() {
                    slots[j * LANES + l] = self.slot(c) as u32;
                }
            }
        }
        (slots, lens)
    }

    #[inline(always)]
    fn reaches_lanes_portable<const B: usize>(&self, texts: &[&str], k: u32, found: &mut [bool]) {
        let row = (self.len - 1) % 64;
        // Block-major: each block's lanes side by side.
        let mut pv = [[!0u64; LANES]; B];
        let mut mv = [[0u64; LANES]; B];
        let mut score = [self.len as i64; LANES];
        let mut chars: [std::str::Chars<'_>; LANES] =
            std::array::from_fn(|l| texts.get(l).map_or_else(|| "".chars(), |t| t.chars()));
        let mut on = [false; LANES];
        on[..texts.len().min(LANES)].fill(true);
        let none = &self.masks[..self.blocks];
        let k = i64::from(k);
        while on.iter().any(|&o| o) {
            let mut eq = [[0u64; LANES]; B];
            for l in 0..LANES {
                let masks = match chars[l].next() {
                    Some(c) if on[l] => self.eq(c),
                    Some(_) => none,
                    None => {
                        on[l] = false;
                        none
                    }
                };
                for b in 0..B {
                    eq[b][l] = masks[b];
                }
            }
            // The column's step, block by block, every lane at once (the
            // top row's delta is 0: the start is free).
            let mut hneg = [0u64; LANES];
            let mut hpos = [0u64; LANES];
            for b in 0..B {
                let (pv, mv, eq) = (&mut pv[b], &mut mv[b], &eq[b]);
                let mut ph = [0u64; LANES];
                let mut mh = [0u64; LANES];
                for l in 0..LANES {
                    let xv = eq[l] | mv[l];
                    let e = eq[l] | hneg[l];
                    let xh = ((e & pv[l]).wrapping_add(pv[l]) ^ pv[l]) | e;
                    ph[l] = mv[l] | !(xh | pv[l]);
                    mh[l] = pv[l] & xh;
                    let phs = (ph[l] << 1) | hpos[l];
                    let mhs = (mh[l] << 1) | hneg[l];
                    pv[l] = mhs | !(xv | phs);
                    mv[l] = phs & xv;
                }
                if b + 1 < B {
                    for l in 0..LANES {
                        hpos[l] = ph[l] >> 63;
                        hneg[l] = mh[l] >> 63;
                    }
                } else {
                    for l in 0..LANES {
                        score[l] += ((ph[l] >> row) & 1) as i64 - ((mh[l] >> row) & 1) as i64;
                    }
                }
            }
            for l in 0..LANES {
                if on[l] && score[l] <= k {
                    found[l] = true;
                    on[l] = false;
                }
            }
        }
    }

    /// For a pattern built `reversed`: the greatest length `l` (at most
    /// `max_len` and `end`) with `distance(quote, text[end - l..end]) ==
    /// dist`, or None when no non-empty substring has that distance.
    pub(crate) fn longest_at(
        &self,
        text: &[char],
        end: usize,
        dist: u32,
        max_len: usize,
    ) -> Option<usize> {
        let cap = max_len.min(end);
        let mut best = None;
        let mut l = 0;
        self.scan(text[end - cap..end].iter().rev().copied(), 1, |d| {
            l += 1;
            if d == dist {
                best = Some(l);
            }
            true
        });
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The textbook table's last row: `q` against every prefix of `t`,
    /// the start free (`free_start`: semi-global) or fixed (global).
    fn last_row(q: &[char], t: &[char], free_start: bool) -> Vec<u32> {
        let mut prev: Vec<u32> = (0..=t.len() as u32)
            .map(|j| if free_start { 0 } else { j })
            .collect();
        for (i, &qc) in q.iter().enumerate() {
            let mut cur = vec![i as u32 + 1; t.len() + 1];
            for j in 1..=t.len() {
                cur[j] = (prev[j - 1] + u32::from(t[j - 1] != qc))
                    .min(prev[j] + 1)
                    .min(cur[j - 1] + 1);
            }
            prev = cur;
        }
        prev
    }

    /// Semi-global distances at each end 1..=n.
    fn table(q: &[char], t: &[char]) -> Vec<u32> {
        last_row(q, t, true)[1..].to_vec()
    }

    /// Global edit distance.
    fn global(a: &[char], b: &[char]) -> u32 {
        last_row(a, b, false)[b.len()]
    }

    fn random_text(seed: &mut u64, n: usize, alphabet: &[char]) -> Vec<char> {
        (0..n)
            .map(|_| {
                *seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                alphabet[(*seed >> 33) as usize % alphabet.len()]
            })
            .collect()
    }

    #[test]
    fn distances_equal_the_table_across_block_sizes() {
        let alphabet: Vec<char> = "abcdé ".chars().collect();
        let mut seed = 7;
        for m in [1, 2, 5, 63, 64, 65, 127, 128, 129, 200] {
            for _ in 0..4 {
                let q = random_text(&mut seed, m, &alphabet);
                let t = random_text(&mut seed, 300, &alphabet);
                let p = Pattern::new(&q, false);
                let mut got = Vec::new();
                p.end_distances(&t, &mut got);
                assert_eq!(got, table(&q, &t), "m={m}");
            }
        }
    }

    #[test]
    fn reaching_each_window_equals_reaching_it_alone() {
        // ASCII windows (read in place) and others (laid out as slots
        // first), a quote of ASCII chars among them.
        for (alphabet, quote) in [
            ("abcdé ", "abcdé "),
            ("abcd ", "abcd "),
            ("abcdé ", "abcd "),
        ] {
            let alphabet: Vec<char> = alphabet.chars().collect();
            let quote: Vec<char> = quote.chars().collect();
            reaching_each_over(&alphabet, &quote);
        }
    }

    fn reaching_each_over(alphabet: &[char], quote_alphabet: &[char]) {
        let mut seed = 5;
        for m in [1, 3, 20, 64, 65, 100, 128, 129, 200] {
            let q = random_text(&mut seed, m, quote_alphabet);
            let p = Pattern::new(&q, false);
            // Windows of unequal lengths (grouped by length, so out of
            // their order), empty ones, some far fewer than the lanes and
            // some more.
            for count in [0, 1, 3, 4, 5, 9, 17] {
                let texts: Vec<String> = (0..count)
                    .map(|i| {
                        let n = (i * 37 + m) % 180;
                        random_text(&mut seed, n, alphabet).into_iter().collect()
                    })
                    .collect();
                let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
                for k in [0, 1, m as u32 / 4, m as u32 / 2, m as u32] {
                    let alone: Vec<bool> = refs.iter().map(|t| p.reaches(t, k)).collect();
                    assert_eq!(p.reaches_each(&refs, k), alone, "m={m} count={count} k={k}");
                    // Every kernel this CPU runs, each on its own: the
                    // portable lanes, AVX2's four and AVX-512's eight
                    // (`reaches_each` picks one of them).
                    if p.blocks <= 2 {
                        let by_byte = p.byte_masks();
                        for (group, want) in refs.chunks(LANES).zip(alone.chunks(LANES)) {
                            let mut found = [false; LANES];
                            match p.blocks {
                                1 => p.reaches_lanes_portable::<1>(group, k, &mut found),
                                _ => p.reaches_lanes_portable::<2>(group, k, &mut found),
                            }
                            assert_eq!(&found[..group.len()], want, "portable m={m} k={k}");
                            #[cfg(target_arch = "x86_64")]
                            if std::arch::is_x86_feature_detected!("avx2") {
                                let mut found = [false; LANES];
                                // SAFETY: the CPU has AVX2 (checked above).
                                unsafe {
                                    match p.blocks {
                                        1 => p.reaches_lanes_avx2::<1>(
                                            group, k, &by_byte, &mut found,
                                        ),
                                        _ => p.reaches_lanes_avx2::<2>(
                                            group, k, &by_byte, &mut found,
                                        ),
                                    }
                                }
                                assert_eq!(&found[..group.len()], want, "avx2 m={m} k={k}");
                            }
                        }
                        #[cfg(target_arch = "x86_64")]
                        if wide_lanes() {
                            let ascii: Vec<usize> =
                                (0..refs.len()).filter(|&i| refs[i].is_ascii()).collect();
                            for group in ascii.chunks(WIDE_LANES) {
                                let windows: Vec<&str> = group.iter().map(|&i| refs[i]).collect();
                                let mut found = [false; WIDE_LANES];
                                // SAFETY: the CPU has AVX-512F (`wide_lanes`).
                                unsafe {
                                    match p.blocks {
                                        1 => p.lanes_avx512::<1>(&windows, k, &by_byte, &mut found),
                                        _ => p.lanes_avx512::<2>(&windows, k, &by_byte, &mut found),
                                    }
                                }
                                let want: Vec<bool> = group.iter().map(|&i| alone[i]).collect();
                                assert_eq!(&found[..group.len()], want, "avx512 m={m} k={k}");
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn long_windows_are_streamed_alone_with_the_same_answers() {
        let q: Vec<char> = "the leeks we grew".chars().collect();
        let p = Pattern::new(&q, false);
        let far = format!("{}the leaks we grew", "x".repeat(LANE_WINDOW + 10));
        let none = "y".repeat(LANE_WINDOW + 10);
        let near = "so the leeks we grow here";
        let swapped = "we grew the leeks";
        let texts = [far.as_str(), near, none.as_str(), "", swapped, near];
        let got = p.reaches_each(&texts, 2);
        assert_eq!(got, [true, true, false, false, false, true]);
        let alone: Vec<bool> = texts.iter().map(|t| p.reaches(t, 2)).collect();
        assert_eq!(got, alone);
    }

    #[test]
    fn longest_at_equals_the_table() {
        let alphabet: Vec<char> = "abcø".chars().collect();
        let mut seed = 11;
        for m in [1, 3, 64, 70, 130] {
            let q = random_text(&mut seed, m, &alphabet);
            let t = random_text(&mut seed, 400, &alphabet);
            let rev = Pattern::new(&q, true);
            for end in [1, 10, 100, 399, 400] {
                let d = (0..end).map(|s| global(&q, &t[s..end])).min().unwrap_or(0);
                let want = (1..=end)
                    .filter(|&l| global(&q, &t[end - l..end]) == d)
                    .max();
                assert_eq!(rev.longest_at(&t, end, d, end), want, "m={m} end={end}");
            }
        }
    }
}
