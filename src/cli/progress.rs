//! Progress bars on a terminal (indicatif): items done, items/s and ETA of
//! each stage a job reports through [`crate::progress`]. Quiet when
//! stderr is not a terminal or with `--no-progress`.

use crate::progress::Observer;
use std::io::IsTerminal;
use std::sync::{Arc, Mutex};

/// `--no-progress`, shared by every command that can run for long.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ProgressArgs {
    /// No progress bar (there is none anyway when stderr is not a terminal).
    #[arg(long)]
    pub no_progress: bool,
}

impl ProgressArgs {
    /// Whether bars are drawn: stderr is a terminal and `--no-progress`
    /// was not given.
    pub fn enabled(&self) -> bool {
        !self.no_progress && std::io::stderr().is_terminal()
    }

    /// Runs `job` with bars on stderr when they are enabled.
    pub fn run<R>(&self, job: impl FnOnce() -> R) -> R {
        if self.enabled() {
            let bars = Arc::new(Bars::default());
            let result = crate::progress::observe(bars.clone(), job);
            bars.finish();
            result
        } else {
            job()
        }
    }
}

/// A bar of `len` items on stderr, named `stage`.
fn bar(len: u64, stage: &str) -> indicatif::ProgressBar {
    let target = indicatif::ProgressDrawTarget::stderr();
    let bar = indicatif::ProgressBar::with_draw_target(Some(len), target);
    let template = "{msg:>17} {bar:30} {pos}/{len} {rate:>10} ETA {eta} [{elapsed}]";
    if let Ok(style) = indicatif::ProgressStyle::with_template(template) {
        bar.set_style(style.with_key(
            "rate",
            |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(w, "{:.0}/s", state.per_sec());
            },
        ));
    }
    bar.set_message(stage.to_string());
    bar
}

/// One bar per stage, replaced when the next stage starts.
#[derive(Default)]
struct Bars {
    current: Mutex<Option<indicatif::ProgressBar>>,
}

impl Bars {
    /// `f` on the current bar, if any (nothing once the lock is poisoned).
    fn slot(&self, f: impl FnOnce(&mut Option<indicatif::ProgressBar>)) {
        if let Ok(mut slot) = self.current.lock() {
            f(&mut slot)
        }
    }
}

impl Observer for Bars {
    fn start(&self, stage: &str, len: u64) {
        self.finish();
        self.slot(|s| *s = Some(bar(len, stage)));
    }

    fn advance(&self, n: u64) {
        self.slot(|s| s.iter().for_each(|b| b.inc(n)));
    }

    fn finish(&self) {
        self.slot(|s| s.take().iter().for_each(|b| b.finish_and_clear()));
    }

    fn note(&self, text: &str) {
        self.slot(|s| s.iter().for_each(|b| b.set_message(text.to_string())));
    }
}
