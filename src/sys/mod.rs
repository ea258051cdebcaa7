//! Process tuning, in one room: how memory is given back to the system
//! between a job's phases (`memory`), the command line's allocator
//! (`allocator`: mimalloc's purge delay, its pages given back now), the
//! page size of the process (`pages`), the phase timings of benchmarks
//! (`timings`) and the process's exit ([`exit`]). Only the program
//! (`main.rs`) and the jobs call these: the stages below them (citations,
//! evaluate, scoring, corpus) read no environment, clock or global of
//! theirs. The file primitives of `io` (an input's map, a writeback
//! hint) are also for the writers of `report`. Every `unsafe` block
//! outside the SIMD kernels (and candle's map of the model's weights)
//! lives here.

#[cfg(feature = "cli")]
pub(crate) mod allocator;
#[cfg(feature = "cli")]
pub use allocator::*;
pub(crate) mod io;
pub(crate) mod memory;
pub use memory::*;
#[cfg(feature = "cli")]
pub(crate) mod pages;
#[cfg(feature = "cli")]
pub use pages::*;
pub(crate) mod timings;

/// Ends the process with `code` once stdout and stderr are flushed.
///
/// Every command has closed, synced or renamed its files by the time it
/// returns, so nothing is left for destructors or exit handlers to do but
/// give memory back. On Linux the process leaves without them: the
/// allocator's exit handler would otherwise hand each of its pages back to
/// the kernel one `madvise` at a time (~270 calls, ~10 ms after a hotpot
/// run), work the kernel does anyway, at once, when the process ends.
pub fn exit(code: u8) -> ! {
    use std::io::Write as _;
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    #[cfg(target_os = "linux")]
    // SAFETY: `_exit` ends the process at once; nothing runs after it.
    unsafe {
        libc::_exit(i32::from(code))
    }
    #[cfg(not(target_os = "linux"))]
    std::process::exit(i32::from(code))
}
