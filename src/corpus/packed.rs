//! Texts kept compressed in memory and read back a range at a time.
//!
//! A question file's pairs are needed as written only when the results are
//! written, long after they are parsed; meanwhile they are held as LZ4
//! blocks of [`BLOCK`] consecutive texts (a question file's JSON packs ~4x),
//! each block compressed (and read back) whole.
//!
//! Example: the unit test `the_module_example_packs_and_reads_back_a_range`.

use rayon::prelude::*;
use std::ops::Range;

/// Texts per compressed block.
pub(crate) const BLOCK: usize = 256;

/// Texts held as compressed blocks.
#[derive(Debug, Clone, Default)]
pub(crate) struct PackedTexts {
    /// Each block: the concatenation of up to [`BLOCK`] consecutive texts,
    /// compressed (its size prepended).
    blocks: Vec<Vec<u8>>,
    /// Each text's byte range in its block's concatenation.
    ranges: Vec<(usize, usize)>,
}

impl PackedTexts {
    /// Packs `texts` (in parallel, a block per task).
    pub(crate) fn pack<S: AsRef<str> + Sync>(texts: &[S]) -> PackedTexts {
        let mut ranges = Vec::with_capacity(texts.len());
        for chunk in texts.chunks(BLOCK) {
            let mut at = 0;
            for t in chunk {
                let end = at + t.as_ref().len();
                ranges.push((at, end));
                at = end;
            }
        }
        let blocks = texts
            .par_chunks(BLOCK)
            .map(|chunk| {
                let mut joined: Vec<u8> =
                    Vec::with_capacity(chunk.iter().map(|t| t.as_ref().len()).sum());
                for t in chunk {
                    joined.extend_from_slice(t.as_ref().as_bytes());
                }
                lz4_flex::block::compress_prepend_size(&joined)
            })
            .collect();
        PackedTexts { blocks, ranges }
    }

    /// Number of texts.
    pub(crate) fn len(&self) -> usize {
        self.ranges.len()
    }

    /// Whether there are none.
    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// Bytes held (the compressed blocks).
    #[cfg(test)]
    pub(crate) fn packed_bytes(&self) -> usize {
        self.blocks.iter().map(Vec::len).sum()
    }

    /// Texts `ks` read back (the blocks that hold them decompressed once);
    /// a range past the end is cut to it.
    pub(crate) fn unpack(&self, ks: Range<usize>) -> Unpacked<'_> {
        let end = ks.end.min(self.len());
        if ks.start >= end {
            return Unpacked {
                ranges: &self.ranges,
                first_block: 0,
                blocks: Vec::new(),
                ks: 0..0,
            };
        }
        let first_block = ks.start / BLOCK;
        let blocks = self.blocks[first_block..=(end - 1) / BLOCK]
            .par_iter()
            .map(|b| {
                // Blocks are this module's own output: a failure here is
                // memory corruption, and leaves the texts unreadable
                // (`get` gives None) rather than wrong.
                lz4_flex::block::decompress_size_prepended(b)
                    .ok()
                    .and_then(|bytes| String::from_utf8(bytes).ok())
            })
            .collect();
        Unpacked {
            ranges: &self.ranges,
            first_block,
            blocks,
            ks: ks.start..end,
        }
    }

    /// Keeps the texts whose flag is true (packed again).
    pub(crate) fn retain(&mut self, keep: &[bool]) {
        let all = self.unpack(0..self.len());
        let kept: Vec<&str> = (0..self.len())
            .filter(|&k| keep.get(k).copied().unwrap_or(false))
            .map(|k| all.get(k).unwrap_or(""))
            .collect();
        let packed = PackedTexts::pack(&kept);
        drop(all);
        *self = packed;
    }
}

/// One text held compressed (a transcript between the phases that read
/// it): one LZ4 block, read back whole.
///
/// Example: the unit test `one_text_packs_and_unpacks`.
#[derive(Debug, Clone, Default)]
pub(crate) struct PackedText {
    /// The compressed bytes.
    block: Box<[u8]>,
    /// The text's length in bytes.
    len: usize,
}

impl PackedText {
    /// Compresses `text`.
    pub(crate) fn pack(text: &str) -> PackedText {
        PackedText::pack_with(text, &mut Vec::new())
    }

    /// [`PackedText::pack`] compressing into `scratch` first (kept for the
    /// next text: one allocation per text, of its packed size).
    pub(crate) fn pack_with(text: &str, scratch: &mut Vec<u8>) -> PackedText {
        let bytes = text.as_bytes();
        scratch.clear();
        scratch.resize(lz4_flex::block::get_maximum_output_size(bytes.len()), 0);
        let block = match lz4_flex::block::compress_into(bytes, scratch) {
            Ok(n) => scratch[..n].into(),
            // The scratch is sized for the worst case: not reached.
            Err(_) => lz4_flex::block::compress(bytes).into_boxed_slice(),
        };
        PackedText {
            block,
            len: bytes.len(),
        }
    }

    /// The text's length in bytes.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Whether the text is empty.
    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes held.
    #[cfg(test)]
    pub(crate) fn packed_bytes(&self) -> usize {
        self.block.len()
    }

    /// Damages the block (for tests of what a failed decode does).
    #[cfg(test)]
    pub(crate) fn damage(&mut self) {
        let keep = self.block.len() / 2;
        self.block = self.block[..keep].into();
    }

    /// The text back; None only when the block was damaged in memory (it is
    /// this type's own output).
    #[cfg(test)]
    pub(crate) fn unpack(&self) -> Option<String> {
        self.unpack_into(String::new())
    }

    /// [`PackedText::unpack`] into the buffer of `buf` (its contents
    /// dropped): a buffer kept from an earlier text of about this size is
    /// reused, not allocated again.
    pub(crate) fn unpack_into(&self, buf: String) -> Option<String> {
        let mut bytes = buf.into_bytes();
        bytes.clear();
        bytes.resize(self.len, 0);
        let n = lz4_flex::block::decompress_into(&self.block, &mut bytes).ok()?;
        if n != self.len {
            return None;
        }
        String::from_utf8(bytes).ok()
    }
}

/// Some texts of a [`PackedTexts`], read back.
#[derive(Debug)]
pub struct Unpacked<'a> {
    ranges: &'a [(usize, usize)],
    first_block: usize,
    blocks: Vec<Option<String>>,
    ks: Range<usize>,
}

impl Unpacked<'_> {
    /// Text `k`, when it is among those read back.
    pub fn get(&self, k: usize) -> Option<&str> {
        if !self.ks.contains(&k) {
            return None;
        }
        let block = self.blocks.get(k / BLOCK - self.first_block)?.as_deref()?;
        let &(start, end) = self.ranges.get(k)?;
        block.get(start..end)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_module_example_packs_and_reads_back_a_range() {
        let texts = ["{\"id\": 1}", "", "{\"id\": \"é\"}"];
        let packed = PackedTexts::pack(&texts);
        assert_eq!(packed.len(), 3);
        let some = packed.unpack(1..3);
        assert_eq!(
            (some.get(1), some.get(2)),
            (Some(""), Some("{\"id\": \"é\"}"))
        );
        assert_eq!(some.get(0), None); // not among those read back
    }

    #[test]
    fn one_text_packs_and_unpacks() {
        let p = PackedText::pack("Ana: we sold the farm.\nAna: we sold the farm.");
        assert_eq!(p.len(), 45);
        assert_eq!(
            p.unpack().as_deref(),
            Some("Ana: we sold the farm.\nAna: we sold the farm.")
        );
    }

    use super::*;

    #[test]
    fn unpacked_into_a_used_buffer_is_the_text() {
        let long = "Ana: we sold the farm, “all” of it.\n".repeat(500);
        let short = "Q: ¿y después?";
        let mut buf = String::new();
        for text in [long.as_str(), short, "", long.as_str()] {
            let p = PackedText::pack(text);
            buf = p.unpack_into(buf).unwrap();
            assert_eq!(buf, text);
            assert_eq!(p.unpack().as_deref(), Some(text));
        }
        assert!(buf.capacity() >= long.len());
    }

    #[test]
    fn one_text_packs_and_reads_back_with_a_reused_scratch() {
        let mut scratch = Vec::new();
        let long = "Ana: we sold the farm, é\u{1F600}\n".repeat(40_000);
        for text in ["", "x", long.as_str(), "short after long", &long[..1001]] {
            let p = PackedText::pack_with(text, &mut scratch);
            assert_eq!((p.len(), p.is_empty()), (text.len(), text.is_empty()));
            assert_eq!(p.unpack().as_deref(), Some(text));
            assert_eq!(PackedText::pack(text).unpack().as_deref(), Some(text));
        }
        assert!(PackedText::pack(&long).packed_bytes() < long.len() / 10);
        // A damaged block reads back as None, not as a wrong text.
        let mut p = PackedText::pack(&long);
        p.len += 1;
        assert_eq!(p.unpack(), None);
    }

    #[test]
    fn every_text_reads_back_from_any_range() {
        // Texts of many sizes (empty, multi-byte, larger than a block's
        // share), more than three blocks.
        let texts: Vec<String> = (0..BLOCK * 3 + 17)
            .map(|i| match i % 5 {
                0 => String::new(),
                1 => format!("{{\"id\": {i}, \"q\": \"¿qué? ✓\"}}"),
                2 => "x".repeat(i * 7),
                _ => format!("pair {i} ").repeat(i % 13),
            })
            .collect();
        let packed = PackedTexts::pack(&texts);
        assert_eq!(packed.len(), texts.len());
        let all = packed.unpack(0..texts.len());
        for (k, t) in texts.iter().enumerate() {
            assert_eq!(all.get(k), Some(t.as_str()), "text {k}");
        }
        assert_eq!(all.get(texts.len()), None);
        for ks in [
            0..1,
            BLOCK - 1..BLOCK + 1,
            BLOCK..BLOCK * 2,
            500..texts.len() + 10,
            7..7,
        ] {
            let some = packed.unpack(ks.clone());
            for (k, text) in texts.iter().enumerate() {
                let want = ks.contains(&k).then_some(text.as_str());
                assert_eq!(some.get(k), want, "text {k} of {ks:?}");
            }
        }
        // Compressed: repetitive texts take less room than written.
        let total: usize = texts.iter().map(String::len).sum();
        assert!(
            packed.packed_bytes() < total / 2,
            "{} of {total}",
            packed.packed_bytes()
        );
    }

    #[test]
    fn retain_keeps_the_flagged_texts_in_order() {
        let texts: Vec<String> = (0..BLOCK + 40).map(|i| format!("t{i}")).collect();
        let mut packed = PackedTexts::pack(&texts);
        let keep: Vec<bool> = (0..texts.len()).map(|i| i % 3 == 1).collect();
        packed.retain(&keep);
        let want: Vec<&String> = texts.iter().skip(1).step_by(3).collect();
        assert_eq!(packed.len(), want.len());
        let all = packed.unpack(0..packed.len());
        for (k, t) in want.iter().enumerate() {
            assert_eq!(all.get(k), Some(t.as_str()));
        }
        let empty = PackedTexts::pack::<&str>(&[]);
        assert!(empty.is_empty() && empty.unpack(0..5).get(0).is_none());
    }
}
