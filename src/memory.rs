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

/// Buffers done with, kept for the next task of a parallel loop: each
/// task takes a set ([`Pool::take`]: a kept one, else a new one) and puts
/// it back when done ([`Pool::put`]), so that tasks run one after another
/// reuse the same large buffers instead of each allocating, faulting in
/// and freeing its own. It holds as many sets as tasks ran at once; they
/// are freed when the pool is dropped or [`Pool::clear`]ed.
///
/// ```
/// use corpus_eval::memory::Pool;
/// let pool: Pool<Vec<u8>> = Pool::default();
/// let mut buf = pool.take();
/// buf.extend_from_slice(&[0; 4096]);
/// pool.put(buf);
/// // The next task gets the same buffer, its room kept.
/// assert!(pool.take().capacity() >= 4096);
/// ```
#[derive(Debug, Default)]
pub struct Pool<T>(std::sync::Mutex<Vec<T>>);

impl<T: Default> Pool<T> {
    /// A kept set, else a new (default) one.
    pub fn take(&self) -> T {
        self.0
            .lock()
            .ok()
            .and_then(|mut kept| kept.pop())
            .unwrap_or_default()
    }

    /// Keeps a set for the next task.
    pub fn put(&self, set: T) {
        if let Ok(mut kept) = self.0.lock() {
            kept.push(set);
        }
    }

    /// Frees every set kept.
    pub fn clear(&self) {
        if let Ok(mut kept) = self.0.lock() {
            *kept = Vec::new();
        }
    }
}

/// Gives back the resident pages of `bytes`, data of the program's own
/// file (an embedded table such as [`crate::lexicon::EMBEDDED_LEXICON`])
/// once it is no longer read often: whole pages inside it leave the
/// resident set, and a later read maps them from the file again, the same
/// bytes. Nothing happens unless the pages lie in a read-only mapping of a
/// file with no private page, in memory or swapped out: a copy-on-write
/// page written at load time (relocations) or a program unpacked into
/// anonymous memory would lose its contents. Linux only; elsewhere it does
/// nothing. Returns the bytes given back.
pub fn release_static(bytes: &'static [u8]) -> usize {
    #[cfg(target_os = "linux")]
    {
        release_file_backed(bytes)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = bytes;
        0
    }
}

#[cfg(target_os = "linux")]
fn release_file_backed(bytes: &'static [u8]) -> usize {
    // SAFETY: sysconf has no preconditions.
    let page = match usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }) {
        Ok(p) if p.is_power_of_two() => p,
        _ => return 0,
    };
    let at = bytes.as_ptr() as usize;
    let start = at.div_ceil(page) * page;
    let end = (at + bytes.len()) / page * page;
    if start >= end {
        return 0;
    }
    let Ok(smaps) = std::fs::read_to_string("/proc/self/smaps") else {
        return 0;
    };
    if !file_backed_clean(&smaps, start, end) {
        return 0;
    }
    // SAFETY: [start, end) is whole pages inside `bytes`, in a read-only
    // private mapping of a file none of whose pages was ever written
    // (checked just above: no anonymous pages): dropping them loses
    // nothing, the next read maps the file's same bytes again. No
    // reference is invalidated (the memory stays mapped).
    let rc = unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_DONTNEED) };
    if rc == 0 {
        end - start
    } else {
        0
    }
}

/// The address range `lo..hi` of an smaps mapping's header line
/// ("lo-hi perms offset dev inode [path]"); None for its other lines.
fn mapping_range(line: &str) -> Option<(usize, usize)> {
    let (lo, hi) = line.split_ascii_whitespace().next()?.split_once('-')?;
    Some((
        usize::from_str_radix(lo, 16).ok()?,
        usize::from_str_radix(hi, 16).ok()?,
    ))
}

/// Whether `[start, end)` lies within one mapping of `smaps` (the text of
/// `/proc/self/smaps`) that maps a file read-only and holds no private
/// (copy-on-write) page, resident or swapped out.
fn file_backed_clean(smaps: &str, start: usize, end: usize) -> bool {
    let mut lines = smaps.lines().peekable();
    while let Some(line) = lines.next() {
        let Some((lo, hi)) = mapping_range(line) else {
            continue;
        };
        if !(lo <= start && end <= hi) {
            continue;
        }
        // Past the range: "perms offset dev inode [path]".
        let mut fields = line.split_ascii_whitespace().skip(1);
        let perms = fields.next().unwrap_or("");
        let inode = fields.nth(2).unwrap_or("0");
        let path = fields.next().unwrap_or("");
        if !perms.starts_with("r-") || inode == "0" || !path.starts_with('/') {
            return false;
        }
        // Its fields, up to the next header: no private (copy-on-write)
        // page, resident ("Anonymous") or swapped out ("Swap"), both fields
        // present. ("Private_Dirty" is no sign: it also counts the file's
        // own pages while the page cache has not yet written them.)
        let mut clean = [false; 2];
        while let Some(field) = lines.peek() {
            let Some((key, value)) = field.split_once(':') else {
                break;
            };
            if key.contains('-') || key.contains(' ') {
                break;
            }
            let known = ["Anonymous", "Swap"].iter().position(|k| *k == key);
            if let Some(i) = known {
                if value.trim() != "0 kB" {
                    return false;
                }
                clean[i] = true;
            }
            lines.next();
        }
        return clean.iter().all(|&c| c);
    }
    false
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

    const SMAPS: &str = "\
5591f609d000-5591f6d07000 r--p 00000000 fd:01 1234 /usr/bin/prog
Size:              12712 kB
Rss:                7420 kB
Private_Dirty:         0 kB
Anonymous:             0 kB
Swap:                  0 kB
VmFlags: rd mr mw me dw sd
5591f6d07000-5591f7b45000 r-xp 00c6a000 fd:01 1234 /usr/bin/prog
Size:              14584 kB
Private_Dirty:         0 kB
Anonymous:             0 kB
Swap:                  0 kB
5591f7c00000-5591f7c10000 r--p 01000000 fd:01 1234 /usr/bin/prog
Size:                 64 kB
Private_Dirty:         8 kB
Anonymous:             8 kB
Swap:                  0 kB
5591f7d00000-5591f7d10000 r--p 01100000 fd:01 1234 /usr/bin/prog
Private_Dirty:         0 kB
Anonymous:             0 kB
Swap:                  8 kB
5591f7e00000-5591f7e10000 r--p 01200000 fd:01 1234 /usr/bin/prog
Anonymous:             0 kB
7fb9de000000-7fb9de100000 rw-p 00000000 00:00 0
Private_Dirty:         0 kB
Anonymous:             0 kB
Swap:                  0 kB
7fb9df000000-7fb9df100000 r--p 00000000 00:00 0 [anon:x]
Private_Dirty:         0 kB
Anonymous:             0 kB
Swap:                  0 kB
";

    #[test]
    fn only_clean_read_only_file_mappings_are_released() {
        let at = |s: &str| usize::from_str_radix(s, 16).unwrap();
        // Inside the first mapping: file-backed, read-only, no private pages.
        assert!(super::file_backed_clean(
            SMAPS,
            at("5591f609e000"),
            at("5591f6100000")
        ));
        // Straddling two mappings.
        assert!(!super::file_backed_clean(
            SMAPS,
            at("5591f6d00000"),
            at("5591f6d10000")
        ));
        // A mapping with copy-on-write pages (relocated at load), in memory
        // or swapped out, or whose private pages are not listed.
        for (lo, hi) in [
            ("5591f7c01000", "5591f7c02000"),
            ("5591f7d01000", "5591f7d02000"),
            ("5591f7e01000", "5591f7e02000"),
        ] {
            assert!(!super::file_backed_clean(SMAPS, at(lo), at(hi)));
        }
        // Anonymous memory, writable or not.
        assert!(!super::file_backed_clean(
            SMAPS,
            at("7fb9de001000"),
            at("7fb9de002000")
        ));
        assert!(!super::file_backed_clean(
            SMAPS,
            at("7fb9df001000"),
            at("7fb9df002000")
        ));
        // Nowhere.
        assert!(!super::file_backed_clean(SMAPS, 0x1000, 0x2000));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn released_embedded_text_reads_back_the_same() {
        let text = crate::lexicon::EMBEDDED_LEXICON;
        let digest = crate::text::hash::sha256_hex(text.as_bytes());
        let released = super::release_static(text.as_bytes());
        // A test binary's embedded text is in its file's read-only data.
        let at = text.as_ptr() as usize;
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let mapping: String = smaps
            .lines()
            .skip_while(|l| !super::mapping_range(l).is_some_and(|(lo, hi)| lo <= at && at < hi))
            .take(24)
            .collect::<Vec<_>>()
            .join("\n");
        assert!(released > 0 && released <= text.len(), "{mapping}");
        assert_eq!(crate::text::hash::sha256_hex(text.as_bytes()), digest);
        // Heap memory is never released.
        let heap: &'static [u8] = Box::leak(vec![7u8; 1 << 20].into_boxed_slice());
        assert_eq!(super::release_static(heap), 0);
        assert!(heap.iter().all(|&b| b == 7));
    }
}
