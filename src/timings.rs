//! Phase timings for benchmarks: with `CORPUS_EVAL_TIMINGS` set in the
//! environment, [`phase`] prints the wall-clock time since the previous
//! phase (or the first call) to stderr, as `timing NAME: 12.3 ms`. Off
//! (one relaxed check) otherwise.

use std::sync::{Mutex, OnceLock};
use std::time::Instant;

fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("CORPUS_EVAL_TIMINGS").is_some_and(|v| !v.is_empty()))
}

static LAST: Mutex<Option<Instant>> = Mutex::new(None);

/// Ends the phase `name`: prints its time when timings are on.
pub fn phase(name: &str) {
    if !enabled() {
        return;
    }
    let now = Instant::now();
    if let Ok(mut last) = LAST.lock() {
        let since = last.map_or(0.0, |t| (now - t).as_secs_f64() * 1e3);
        errln!("timing {name}: {since:.1} ms");
        *last = Some(now);
    }
}
