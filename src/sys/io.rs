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
