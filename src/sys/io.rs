//! The two file primitives that need the operating system directly: a
//! read-only map of an input, and a hint to start writing a file's data to
//! disk. Unlike the rest of [`crate::sys`], the layers that read inputs
//! and write run folders (the jobs, `report`) may call them.

use std::fs::File;

/// Maps `file` read-only (no copy; the page cache serves it).
///
/// The input is expected not to change while the command runs: as with
/// any tool that maps its inputs, a concurrent truncation could fault.
pub(crate) fn map_readonly(file: &File) -> std::io::Result<memmap2::Mmap> {
    // SAFETY: the map is read-only (shared with the page cache, never
    // written through); see above for a file changed underneath.
    unsafe { memmap2::MmapOptions::new().map(file) }
}

/// Hands back to the kernel the pages of `map` that lie wholly inside
/// `part` (a slice of it; anything else is ignored): they leave the
/// process's resident set, and a later read faults them in again from the
/// page cache (Linux `madvise(MADV_DONTNEED)`, the map being read-only;
/// nothing elsewhere). For a map read once, front to back.
pub(crate) fn release_pages(map: &memmap2::Mmap, part: &[u8]) {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: sysconf reads a constant of the system.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        let Ok(page) = usize::try_from(page) else {
            return;
        };
        if page == 0 {
            return;
        }
        let base = map.as_ptr() as usize;
        let (start, end) = (part.as_ptr() as usize, part.as_ptr() as usize + part.len());
        if start < base || end > base + map.len() {
            return;
        }
        // The map starts on a page: whole pages from its start.
        let lo = (start - base).next_multiple_of(page);
        let hi = (end - base) / page * page;
        if lo < hi {
            // SAFETY: the map is read-only and private to nothing written
            // (MADV_DONTNEED only drops clean file pages, read again on
            // the next access); the range lies in it.
            let _ = unsafe {
                map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, lo, hi - lo)
            };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (map, part);
}

/// Starts writing `len` bytes of `file`'s data from `offset` (0: to the
/// end) to disk without waiting (Linux: `sync_file_range(SYNC_FILE_RANGE_WRITE)`;
/// nothing elsewhere), so that the fsync a run folder makes of every file
/// before it is renamed into place finds most of it done. Best effort: that
/// fsync is what makes the file durable, and it reports any error.
pub(crate) fn start_writeback(file: &File, offset: u64, len: u64) {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        let (Ok(offset), Ok(len)) = (i64::try_from(offset), i64::try_from(len)) else {
            return;
        };
        // SAFETY: a valid open descriptor; the call only starts I/O.
        let _ = unsafe {
            libc::sync_file_range(file.as_raw_fd(), offset, len, libc::SYNC_FILE_RANGE_WRITE)
        };
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (file, offset, len);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pages handed back read the same again (faulted in from the page
    /// cache); a slice outside the map is ignored.
    #[test]
    fn released_pages_read_the_same() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.bin");
        let bytes: Vec<u8> = (0..3_000_000u32).map(|i| (i % 251) as u8).collect();
        std::fs::write(&path, &bytes).unwrap();
        let map = map_readonly(&File::open(&path).unwrap()).unwrap();
        assert_eq!(&map[..], &bytes[..]);
        release_pages(&map, &map[12_345..2_500_000]);
        release_pages(&map, &map[..]);
        release_pages(&map, &bytes[..100_000]);
        assert_eq!(&map[..], &bytes[..]);
    }
}
