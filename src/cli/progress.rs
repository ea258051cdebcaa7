//! Progress bars on a terminal (indicatif): items done, items/s and ETA of
//! each stage a job reports through [`crate::progress`]. Quiet when
//! stderr is not a terminal or with `--no-progress`.

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
            bars.finish_current();
            result
        } else {
            job()
        }
    }
}

/// The style of every bar.
pub fn style() -> Option<indicatif::ProgressStyle> {
    indicatif::ProgressStyle::with_template(
        "{msg:>17} {bar:30} {pos}/{len} {rate:>10} ETA {eta} [{elapsed}]",
    )
    .ok()
    .map(|s| {
        s.with_key(
            "rate",
            |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(w, "{:.0}/s", state.per_sec());
            },
        )
    })
}

/// A bar of `len` items on stderr (hidden when `hidden`).
pub fn bar(len: u64, message: &str, hidden: bool) -> indicatif::ProgressBar {
    if hidden {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::with_draw_target(
        Some(len),
        indicatif::ProgressDrawTarget::stderr(),
    );
    if let Some(style) = style() {
        bar.set_style(style);
    }
    bar.set_message(message.to_string());
    bar
}

/// One bar per stage, replaced when the next stage starts.
#[derive(Default)]
struct Bars {
    current: Mutex<Option<indicatif::ProgressBar>>,
}

impl Bars {
    fn finish_current(&self) {
        if let Ok(mut slot) = self.current.lock() {
            if let Some(b) = slot.take() {
                b.finish_and_clear();
            }
        }
    }
}

impl crate::progress::Observer for Bars {
    fn start(&self, stage: &str, len: u64) {
        self.finish_current();
        if let Ok(mut slot) = self.current.lock() {
            *slot = Some(bar(len, stage, false));
        }
    }

    fn advance(&self, n: u64) {
        if let Ok(slot) = self.current.lock() {
            if let Some(b) = slot.as_ref() {
                b.inc(n);
            }
        }
    }

    fn finish(&self) {
        self.finish_current();
    }

    fn note(&self, text: &str) {
        if let Ok(slot) = self.current.lock() {
            if let Some(b) = slot.as_ref() {
                b.set_message(text.to_string());
            }
        }
    }
}
