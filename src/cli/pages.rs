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
pub(crate) fn small_pages() -> bool {
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

/// Gives the pages the allocator holds free back to the system: mimalloc
/// (the binary's allocator) collects every thread's heap and purges its
/// arenas now, instead of after its purge delay. Installed by `evaluate`
/// as the library's [`crate::memory::give_back`], which the job calls at
/// the end of its phases: measured on `scripts/bench-evaluate`'s input,
/// peak RSS 166-180 MB -> 139-150 MB at scale 1 at the same time (mimalloc's
/// own immediate purging, `MIMALLOC_PURGE_DELAY=0`, reaches ~137 MB but
/// costs 0.3-0.5 s: it purges and faults in each transcript's structures
/// again and again).
pub(crate) fn give_back_freed() {
    // SAFETY: mi_collect walks only mimalloc's own structures, on the
    // thread that calls it; any thread may call it at any time.
    let collect = || unsafe { libmimalloc_sys::mi_collect(true) };
    rayon::broadcast(|_| collect());
    collect();
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
