//! Phase timings for benchmarks: with `CORPUS_EVAL_TIMINGS` set in the
//! environment, [`phase`] prints the wall-clock time since the previous
//! phase (or the first call) to stderr, as `timing NAME: 12.3 ms, cpu
//! 20.1 ms (peak RSS ...)`: the CPU time is the process's over the phase,
//! all threads (Linux only; left out elsewhere). With
//! `CORPUS_EVAL_TIMINGS=phase`, the peak RSS of each line is the phase's
//! own (the kernel's high-water mark reset after each phase). Off (one
//! relaxed check) otherwise.

use std::sync::{Mutex, OnceLock};
use std::time::Instant;

fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("CORPUS_EVAL_TIMINGS").is_some_and(|v| !v.is_empty()))
}

static LAST: Mutex<Option<(Instant, Option<f64>)>> = Mutex::new(None);

/// CPU time of the process so far (user and system, all threads), in ms
/// (Linux; None elsewhere).
fn cpu_ms() -> Option<f64> {
    #[cfg(target_os = "linux")]
    {
        let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
        // SAFETY: getrusage writes the struct it is given; RUSAGE_SELF is
        // always valid.
        let usage = unsafe {
            if libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr()) != 0 {
                return None;
            }
            usage.assume_init()
        };
        let ms = |t: libc::timeval| t.tv_sec as f64 * 1e3 + t.tv_usec as f64 / 1e3;
        Some(ms(usage.ru_utime) + ms(usage.ru_stime))
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

/// Ends the phase `name`: prints its time when timings are on.
pub(crate) fn phase(name: &str) {
    if !enabled() {
        return;
    }
    let now = Instant::now();
    let cpu = cpu_ms();
    if let Ok(mut last) = LAST.lock() {
        let since = last.map_or(0.0, |(t, _)| (now - t).as_secs_f64() * 1e3);
        // The process's CPU time over the phase, where it can be read.
        let cpu_since = match (cpu, *last) {
            (Some(c), Some((_, Some(before)))) => format!(", cpu {:.1} ms", c - before),
            (Some(_), None) => ", cpu 0.0 ms".to_string(),
            _ => String::new(),
        };
        match rss_mb() {
            Some((peak, now)) => {
                errln!("timing {name}: {since:.1} ms{cpu_since} (peak RSS {peak} MB, now {now} MB)")
            }
            None => errln!("timing {name}: {since:.1} ms{cpu_since}"),
        }
        *last = Some((now, cpu));
    }
    print_totals();
    // With CORPUS_EVAL_TIMINGS=phase, each phase's peak is its own: the
    // kernel's high-water mark is reset (Linux).
    if std::env::var_os("CORPUS_EVAL_TIMINGS").is_some_and(|v| v == "phase") {
        let _ = std::fs::write("/proc/self/clear_refs", "5");
    }
}

static TOTALS: Mutex<Vec<(&'static str, f64)>> = Mutex::new(Vec::new());

/// Runs `f`, adding its wall-clock time to the running total of `name`
/// (summed over threads) when timings are on; [`phase`] prints and clears
/// the totals.
pub(crate) fn measure<R>(name: &'static str, f: impl FnOnce() -> R) -> R {
    if !enabled() {
        return f();
    }
    let t0 = Instant::now();
    let r = f();
    let ms = t0.elapsed().as_secs_f64() * 1e3;
    if let Ok(mut totals) = TOTALS.lock() {
        match totals.iter_mut().find(|(n, _)| *n == name) {
            Some((_, t)) => *t += ms,
            None => totals.push((name, ms)),
        }
    }
    r
}

fn print_totals() {
    if let Ok(mut totals) = TOTALS.lock() {
        for (name, ms) in totals.drain(..) {
            errln!("timing   {name} (all threads): {ms:.1} ms");
        }
    }
}

/// The process's peak resident set so far and its resident set now, in
/// MB (Linux: `VmHWM` and `VmRSS` of /proc/self/status; None elsewhere).
fn rss_mb() -> Option<(u64, u64)> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let field = |name: &str| -> Option<u64> {
        let line = status.lines().find(|l| l.starts_with(name))?;
        let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kb / 1024)
    };
    Some((field("VmHWM:")?, field("VmRSS:")?))
}
