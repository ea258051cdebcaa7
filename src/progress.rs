//! Progress of long work: jobs say which stage runs and how many items of
//! it are done; a front end (the command line's progress bars) listens.
//! Without a listener a report costs one relaxed atomic load.
//!
//! ```
//! use corpus_eval::progress::{self, Observer};
//! use std::sync::atomic::{AtomicU64, Ordering};
//! use std::sync::Arc;
//!
//! #[derive(Default)]
//! struct Count(AtomicU64);
//! impl Observer for Count {
//!     fn start(&self, _stage: &str, _len: u64) {}
//!     fn advance(&self, n: u64) { self.0.fetch_add(n, Ordering::Relaxed); }
//!     fn finish(&self) {}
//! }
//! let count = Arc::new(Count::default());
//! progress::observe(count.clone(), || {
//!     progress::start("items", 3);
//!     for _ in 0..3 { progress::advance(1); }
//!     progress::finish();
//! });
//! assert_eq!(count.0.load(Ordering::Relaxed), 3);
//! progress::advance(1); // nobody listens: nothing happens
//! assert_eq!(count.0.load(Ordering::Relaxed), 3);
//! ```

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};

/// Listens to the progress of a job.
pub trait Observer: Send + Sync {
    /// A stage begins: `len` items to do (0 when unknown).
    fn start(&self, stage: &str, len: u64);
    /// `n` more items of the current stage are done.
    fn advance(&self, n: u64);
    /// The current stage is over.
    fn finish(&self);
    /// What the current stage shows besides its counts (`asking, 2
    /// failed`); nothing by default.
    fn note(&self, _text: &str) {}
}

static LISTENING: AtomicBool = AtomicBool::new(false);
static OBSERVER: RwLock<Option<Arc<dyn Observer>>> = RwLock::new(None);

fn with(f: impl FnOnce(&dyn Observer)) {
    if !LISTENING.load(Ordering::Relaxed) {
        return;
    }
    if let Ok(guard) = OBSERVER.read() {
        if let Some(o) = guard.as_ref() {
            f(o.as_ref());
        }
    }
}

/// Runs `job` with `observer` listening to its progress (one listener per
/// process; the previous one is restored afterwards).
pub fn observe<R>(observer: Arc<dyn Observer>, job: impl FnOnce() -> R) -> R {
    let previous = match OBSERVER.write() {
        Ok(mut slot) => slot.replace(observer),
        Err(_) => None,
    };
    LISTENING.store(true, Ordering::Relaxed);
    let result = job();
    if let Ok(mut slot) = OBSERVER.write() {
        let had = previous.is_some();
        *slot = previous;
        LISTENING.store(had, Ordering::Relaxed);
    }
    result
}

/// A stage of `len` items begins.
pub fn start(stage: &str, len: u64) {
    with(|o| o.start(stage, len));
}

/// `n` more items are done.
pub fn advance(n: u64) {
    with(|o| o.advance(n));
}

/// The stage is over.
pub fn finish() {
    with(|o| o.finish());
}

/// What the current stage shows besides its counts.
pub fn note(text: &str) {
    with(|o| o.note(text));
}
