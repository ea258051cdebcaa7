//! Records made out of order, read back in order, through a scratch file.
//!
//! A writer that must emit records in one order (an audit report's quotes,
//! pair by pair) while the data they need comes in another (transcript by
//! transcript, each transcript's text read back once) makes each group's
//! records into a *section* of one scratch file, groups in parallel, then
//! reads every section back front to back, interleaving them in the
//! order it needs: each section's records must be made in that order. The
//! records wait on disk (in the page cache), not in memory; reading them
//! back costs a few MB of read-ahead shared by the sections' readers.
//!
//! Example: the unit test `the_module_example_writes_sections_and_reads_them_back`.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Bytes a section's writer gathers before writing them out.
const CHUNK: usize = 1 << 20;
/// Most bytes all of a spill's readers read ahead together.
const READ_BUDGET: usize = 4 << 20;
/// A reader's refill size: its share of [`READ_BUDGET`], within these.
const READ_MIN: usize = 4 << 10;
const READ_MAX: usize = 64 << 10;

/// A scratch file of sections, removed when dropped.
#[derive(Debug)]
pub(crate) struct Spill {
    path: PathBuf,
    /// The file and its length so far (writers append under the lock).
    file: Mutex<(File, u64)>,
}

/// One section's place in the scratch file: its extents (offset, length)
/// in order, and each record's length.
#[derive(Debug, Clone, Default)]
pub(crate) struct Section {
    extents: Vec<(u64, usize)>,
    lens: Vec<usize>,
}

impl Section {
    /// Number of records.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.lens.len()
    }

    /// Whether it has no records.
    pub(crate) fn is_empty(&self) -> bool {
        self.lens.is_empty()
    }
}

impl Spill {
    /// Creates (or truncates) the scratch file at `path`.
    pub(crate) fn create(path: &Path) -> std::io::Result<Spill> {
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(path)?;
        Ok(Spill {
            path: path.to_path_buf(),
            file: Mutex::new((file, 0)),
        })
    }

    /// A writer of a new section (any number at once, from any threads).
    #[cfg(test)]
    pub(crate) fn section(&self) -> SectionWriter<'_> {
        self.section_in(Vec::new())
    }

    /// [`Spill::section`] gathering its records in `buf` (its contents
    /// dropped; given back by [`SectionWriter::finish_keeping`]).
    pub(crate) fn section_in(&self, mut buf: Vec<u8>) -> SectionWriter<'_> {
        buf.clear();
        SectionWriter {
            spill: self,
            buf,
            section: Section::default(),
        }
    }

    /// A reader of `section`'s records, front to back, one of `readers`
    /// open at once (they share a read-ahead budget of a few MB: a record
    /// longer than a reader's share is read whole).
    pub(crate) fn reader<'a>(&'a self, section: &'a Section, readers: usize) -> SectionReader<'a> {
        SectionReader {
            spill: self,
            section,
            record: 0,
            extent: 0,
            read_in_extent: 0,
            buf: Vec::new(),
            at: 0,
            refill: (READ_BUDGET / readers.max(1)).clamp(READ_MIN, READ_MAX),
        }
    }

    /// Appends `bytes` to the file; returns where they start.
    fn append(&self, bytes: &[u8]) -> std::io::Result<u64> {
        let mut guard = self
            .file
            .lock()
            .map_err(|_| std::io::Error::other("scratch file lock poisoned"))?;
        let (file, end) = &mut *guard;
        let at = *end;
        file.seek(SeekFrom::Start(at))?;
        file.write_all(bytes)?;
        *end += bytes.len() as u64;
        Ok(at)
    }

    /// Reads `buf.len()` bytes at `offset`.
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<()> {
        let mut guard = self
            .file
            .lock()
            .map_err(|_| std::io::Error::other("scratch file lock poisoned"))?;
        let (file, _) = &mut *guard;
        file.seek(SeekFrom::Start(offset))?;
        file.read_exact(buf)
    }
}

impl Drop for Spill {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Makes one section: records pushed in the order they will be read.
#[derive(Debug)]
pub(crate) struct SectionWriter<'a> {
    spill: &'a Spill,
    buf: Vec<u8>,
    section: Section,
}

impl SectionWriter<'_> {
    /// Adds a record.
    pub(crate) fn push(&mut self, record: &[u8]) -> std::io::Result<()> {
        self.buf.extend_from_slice(record);
        self.section.lens.push(record.len());
        if self.buf.len() >= CHUNK {
            self.flush()?;
        }
        Ok(())
    }

    /// Writes out what was gathered (whole records: none straddles two
    /// extents).
    fn flush(&mut self) -> std::io::Result<()> {
        if !self.buf.is_empty() {
            let at = self.spill.append(&self.buf)?;
            self.section.extents.push((at, self.buf.len()));
            self.buf.clear();
        }
        Ok(())
    }

    /// Writes out the rest; the section, to read back.
    #[cfg(test)]
    pub(crate) fn finish(self) -> std::io::Result<Section> {
        self.finish_keeping().map(|(section, _)| section)
    }

    /// [`SectionWriter::finish`], also giving back the writer's buffer
    /// (empty, its room kept) for the next section.
    pub(crate) fn finish_keeping(mut self) -> std::io::Result<(Section, Vec<u8>)> {
        self.flush()?;
        Ok((
            std::mem::take(&mut self.section),
            std::mem::take(&mut self.buf),
        ))
    }
}

/// Reads one section's records back, front to back.
#[derive(Debug)]
pub(crate) struct SectionReader<'a> {
    spill: &'a Spill,
    section: &'a Section,
    record: usize,
    extent: usize,
    read_in_extent: usize,
    buf: Vec<u8>,
    at: usize,
    refill: usize,
}

impl SectionReader<'_> {
    /// The next record, or None after the last.
    pub(crate) fn next_record(&mut self) -> std::io::Result<Option<&[u8]>> {
        let Some(&len) = self.section.lens.get(self.record) else {
            // Done: the buffer is not kept.
            self.buf = Vec::new();
            self.at = 0;
            return Ok(None);
        };
        self.record += 1;
        if self.buf.len() - self.at < len {
            self.buf.drain(..self.at);
            self.at = 0;
            // Room grown for a long record is not kept for short ones.
            self.buf.shrink_to(self.refill.max(len));
            while self.buf.len() < len {
                let &(offset, size) = self.section.extents.get(self.extent).ok_or_else(|| {
                    std::io::Error::new(
                        std::io::ErrorKind::UnexpectedEof,
                        "scratch file section ends early",
                    )
                })?;
                let left = size - self.read_in_extent;
                if left == 0 {
                    self.extent += 1;
                    self.read_in_extent = 0;
                    continue;
                }
                let want = self.refill.max(len - self.buf.len()).min(left);
                let old = self.buf.len();
                self.buf.resize(old + want, 0);
                self.spill
                    .read_at(offset + self.read_in_extent as u64, &mut self.buf[old..])?;
                self.read_in_extent += want;
            }
        }
        let record = &self.buf[self.at..self.at + len];
        self.at += len;
        Ok(Some(record))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_module_example_writes_sections_and_reads_them_back() {
        let dir = std::env::temp_dir().join(format!("spill-doc-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let spill = Spill::create(&dir.join("records.spill")).unwrap();
        // Two groups, each section written whole (in parallel, in practice).
        let mut odd = spill.section();
        odd.push(b"one").unwrap();
        odd.push(b"three").unwrap();
        let odd = odd.finish().unwrap();
        let mut even = spill.section();
        even.push(b"two").unwrap();
        let even = even.finish().unwrap();
        // Read back in the order wanted.
        let (mut a, mut b) = (spill.reader(&odd, 2), spill.reader(&even, 2));
        let mut out = Vec::new();
        out.extend_from_slice(a.next_record().unwrap().unwrap());
        out.extend_from_slice(b.next_record().unwrap().unwrap());
        out.extend_from_slice(a.next_record().unwrap().unwrap());
        assert_eq!(out, b"onetwothree");
        assert!(a.next_record().unwrap().is_none());
        drop(spill); // the scratch file is removed
        assert!(!dir.join("records.spill").exists());
        std::fs::remove_dir(&dir).unwrap();
    }

    use super::*;
    use rayon::prelude::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("ce-spill-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join("s.spill")
    }

    #[test]
    fn sections_gathered_in_kept_buffers_read_back() {
        let path = scratch("kept");
        let spill = Spill::create(&path).unwrap();
        // The second section gathers in the first one's buffer, left dirty.
        let mut first = spill.section_in(b"left over".to_vec());
        first.push(b"one").unwrap();
        first.push(&vec![b'x'; CHUNK + 5]).unwrap();
        first.push(b"three").unwrap();
        let (first, buf) = first.finish_keeping().unwrap();
        assert!(buf.is_empty() && buf.capacity() > 0);
        let mut second = spill.section_in(buf);
        second.push(b"two").unwrap();
        let (second, _) = second.finish_keeping().unwrap();
        let mut a = spill.reader(&first, 2);
        assert_eq!(a.next_record().unwrap(), Some(&b"one"[..]));
        assert_eq!(a.next_record().unwrap().map(<[u8]>::len), Some(CHUNK + 5));
        assert_eq!(a.next_record().unwrap(), Some(&b"three"[..]));
        assert_eq!(a.next_record().unwrap(), None);
        let mut b = spill.reader(&second, 2);
        assert_eq!(b.next_record().unwrap(), Some(&b"two"[..]));
        assert_eq!(b.next_record().unwrap(), None);
        drop(spill);
        std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
    }

    #[test]
    fn sections_written_in_parallel_read_back_interleaved() {
        let path = scratch("interleaved");
        let spill = Spill::create(&path).unwrap();
        // Record g of group g % 7: sizes from empty to past two chunks.
        // Only a few records are chunk-sized (the file stays a few MB): they
        // make their sections flush early, so the small records after them
        // start new extents, and the readers refill across extents.
        let record = |g: usize| -> Vec<u8> {
            let size = match g {
                8 | 1501 => CHUNK + 17,
                22 => 2 * CHUNK + 3,
                _ if g.is_multiple_of(11) => 0,
                _ => (g * 37) % 1500,
            };
            (0..size).map(|i| ((g * 31 + i) % 251) as u8).collect()
        };
        let n = 3000;
        let sections: Vec<Section> = (0..7)
            .into_par_iter()
            .map(|group| {
                let mut w = spill.section();
                for g in (group..n).step_by(7) {
                    w.push(&record(g)).unwrap();
                }
                w.finish().unwrap()
            })
            .collect();
        assert_eq!(sections.iter().map(Section::len).sum::<usize>(), n);
        // Groups 1 (records 8, 22) and 3 (record 1501) span several extents.
        assert!(sections[1].extents.len() >= 3 && sections[3].extents.len() >= 2);
        let mut readers: Vec<SectionReader> = sections.iter().map(|s| spill.reader(s, 7)).collect();
        for g in 0..n {
            let got = readers[g % 7].next_record().unwrap().unwrap().to_vec();
            assert_eq!(got, record(g), "record {g}");
        }
        for r in &mut readers {
            assert!(r.next_record().unwrap().is_none());
        }
        drop(readers);
        drop(spill);
        assert!(!path.exists());
        let _ = std::fs::remove_dir(path.parent().unwrap());
    }

    #[test]
    fn a_damaged_section_is_an_error_not_a_panic() {
        let path = scratch("damaged");
        let spill = Spill::create(&path).unwrap();
        let mut w = spill.section();
        w.push(b"abc").unwrap();
        let mut s = w.finish().unwrap();
        s.lens.push(10);
        let mut r = spill.reader(&s, 1);
        assert_eq!(r.next_record().unwrap(), Some(&b"abc"[..]));
        assert!(r.next_record().is_err());
        drop(spill);
        assert!(!path.exists());
        let _ = std::fs::remove_dir(path.parent().unwrap());
    }
}
