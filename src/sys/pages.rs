//! The memory pages of a command's process.

/// Turns transparent huge pages off for the rest of this process (Linux;
/// elsewhere nothing happens). Returns whether they are off.
///
/// The allocator (mimalloc) asks the kernel for 2 MiB pages on its
/// segments, and a huge page is resident whole as soon as one byte of it
/// is touched. `evaluate` holds many mid-sized structures for a while
/// (each transcript's lookup structures, the questions, the lexicon) and
/// leaves huge pages partly used: measured on `scripts/bench-evaluate`'s
/// input, 20 runs side by side, its peak RSS fell from 230-262 MB to
/// 198-211 MB at scale 1 (380-400 to 350-355 MB at scale 2) and its median
/// time stayed the same (1.91 s with huge pages, 1.89 s without). Commands
/// whose time goes to page faults on large fresh buffers (`hotpot`:
/// 16-24% slower without them) keep them.
pub fn small_pages() -> bool {
    #[cfg(target_os = "linux")]
    {
        // prctl reads its arguments as unsigned longs.
        let (on, zero): (libc::c_ulong, libc::c_ulong) = (1, 0);
        // SAFETY: PR_SET_THP_DISABLE takes plain integer arguments and
        // changes only which page size later faults get.
        unsafe { libc::prctl(libc::PR_SET_THP_DISABLE, on, zero, zero, zero) == 0 }
    }
    #[cfg(not(target_os = "linux"))]
    {
        false
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_os = "linux")]
    #[test]
    fn huge_pages_are_off_after_small_pages() {
        assert!(super::small_pages());
        let zero: libc::c_ulong = 0;
        // SAFETY: PR_GET_THP_DISABLE only reads the process's flag.
        let flag = unsafe { libc::prctl(libc::PR_GET_THP_DISABLE, zero, zero, zero, zero) };
        assert_eq!(flag, 1);
    }
}
