//! The command line's allocator, mimalloc: how soon it gives freed pages
//! back, and giving them back now. The program that makes mimalloc its
//! global allocator (src/main.rs) calls these; with another allocator
//! they touch nothing that allocator holds.

include!(concat!(env!("OUT_DIR"), "/mimalloc_options.rs"));

/// For `evaluate`: makes mimalloc give freed pages back 5 ms after they
/// are freed instead of its default second (unless `MIMALLOC_PURGE_DELAY`
/// or its older name `MIMALLOC_RESET_DELAY` says otherwise, in any case):
/// `evaluate` builds and frees each transcript's lookup structures in turn,
/// and pages freed by one transcript and not yet reused otherwise stay
/// resident. Measured on `scripts/bench-evaluate`'s scale-1 input, 12
/// alternating runs each: peak RSS 84-93 MB with the default, 80-83 MB with
/// 5 ms, median time 2.11 and 2.21 s (min 1.97 and 1.94; this VM's runs
/// vary by ±10%); 1 ms gave 78-79 MB at 2.28 s, 0 ms 77 MB at 2.46 s. The
/// cost is the pages of each transcript's structures faulted in again
/// (about 190 MB of allocations of 256 KiB or more during the quote checks
/// at scale 1): phase by phase, 4 runs each, +43 ms in the checks, +41 ms
/// in the other-transcript search, +29 ms in report.html; at scale 4, 3
/// alternating runs each, 11.69 and 11.67 s (5 ms and 1 s). Since each
/// transcript is built into the buffers of the one before
/// (`citations::Workspace`), fewer pages churn: at scale 1, 10
/// alternating runs each, page faults 98k before and 60k after, median
/// 1.81 and 1.70 s, peak RSS 78-82 and 75-81 MB; with those buffers kept,
/// a 100 ms or 1 s delay gave 79-85 MB for no time measurably saved.
/// Other commands keep the default, so that the embedding model's large
/// buffers are reused. Measured again without it (issue 42), 2 runs each
/// at scales 1 and 2: peak RSS 128-140 MB and 236-238 MB instead of 104
/// and 176 MB (2.8-3.1x and 2.6x the input), in the same time.
pub fn purge_soon() {
    let given = std::env::vars_os().any(|(k, _)| {
        k.to_str().is_some_and(|k| {
            k.eq_ignore_ascii_case("MIMALLOC_PURGE_DELAY")
                || k.eq_ignore_ascii_case("MIMALLOC_RESET_DELAY")
        })
    });
    if !given {
        // SAFETY: mi_option_set only stores an option's value (read by
        // mimalloc at each purge); the option's number is read from the
        // header the allocator is compiled from (build.rs).
        unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, 5) };
    }
}

/// Gives the pages mimalloc holds free back to the system: every thread's
/// heap collected and its arenas purged now, instead of after its purge
/// delay. `evaluate` calls it (through `corpus_eval::sys::give_back`)
/// at the end of its phases, 2-5 ms a call: measured on
/// `scripts/bench-evaluate`'s input, 8 alternating runs each at scale 1,
/// peak RSS 163-173 MB without it and 138-141 MB with it, median time 1.71
/// and 1.80 s (within this VM's noise); at scale 4, 490-502 and 443-459 MB.
/// mimalloc's own immediate purging (`MIMALLOC_PURGE_DELAY=0`)
/// reaches ~137 MB but costs 0.3-0.5 s: it purges and faults in each
/// transcript's structures again and again. The program's jobs run on the
/// main thread and rayon's global pool, whose threads never block outside
/// rayon, so the broadcast cannot wait forever.
pub fn give_back_freed() {
    // SAFETY: mi_collect only frees and purges memory mimalloc holds
    // unused (the calling thread's heap, shared arenas and abandoned
    // segments, all thread-safe); no live allocation is touched.
    let collect = || unsafe { libmimalloc_sys::mi_collect(true) };
    rayon::broadcast(|_| collect());
    collect();
}
