//! Giving freed memory back to the system between the phases of a long
//! job.
//!
//! An allocator that keeps freed pages for reuse (mimalloc, the command
//! line's) holds them resident: the structures a phase frees (the
//! documents' parse tapes after loading, each transcript's lookup
//! structures after the quote checks) then still count in the process's
//! resident memory while the next phase touches fresh pages. The library
//! does not choose the allocator, so it does not know how to give pages
//! back: the program that chose it installs a way with [`set_give_back`],
//! and the jobs call [`give_back`] where a phase has freed a lot (nothing
//! happens when none is installed).

use std::sync::OnceLock;

static GIVE_BACK: OnceLock<fn()> = OnceLock::new();

/// Installs `f` as the way freed memory is given back (once per process;
/// false, and nothing changed, when one is installed already). `f` may be
/// called from any thread, a rayon worker included: one that waits on all
/// of a thread pool's threads (as the command line's does) must be
/// installed only by a program whose jobs never block a pool thread outside
/// rayon.
pub fn set_give_back(f: fn()) -> bool {
    GIVE_BACK.set(f).is_ok()
}

/// Gives the memory freed so far back to the system, where the program
/// installed a way to (see [`set_give_back`]); otherwise does nothing.
pub fn give_back() {
    if let Some(f) = GIVE_BACK.get() {
        f();
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    thread_local! {
        // Per thread: other tests of this binary may call `give_back`
        // (through `evaluate`) on their own threads meanwhile.
        static CALLS: Cell<usize> = const { Cell::new(0) };
    }

    fn count() {
        CALLS.with(|c| c.set(c.get() + 1));
    }

    #[test]
    fn give_back_calls_what_was_installed_once() {
        assert!(super::set_give_back(count));
        assert!(!super::set_give_back(|| panic!("a second hook is refused")));
        let before = CALLS.with(Cell::get);
        super::give_back();
        super::give_back();
        assert_eq!(CALLS.with(Cell::get), before + 2);
    }
}
