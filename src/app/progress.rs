//! The progress bar.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::output::QUIET;

/// A progress bar on stderr, shown only on a terminal and only once a run takes longer
/// than a moment; never in pipes or CI.
pub(super) struct Bar {
    bar: Option<ProgressBar>,
    started: Instant,
    shown: AtomicBool,
}

impl Bar {
    pub(super) fn new() -> Bar {
        let tty = std::io::stderr().is_terminal()
            && !QUIET.load(Ordering::Relaxed)
            && std::env::var_os("CI").is_none()
            && std::env::var("TERM").map_or(true, |t| t != "dumb");
        Bar {
            bar: tty.then(ProgressBar::hidden),
            started: Instant::now(),
            shown: AtomicBool::new(false),
        }
    }
}

impl Default for Bar {
    fn default() -> Self {
        Bar::new()
    }
}

impl crate::pipeline::Progress for Bar {
    fn start(&self, total: usize) {
        if let Some(b) = &self.bar {
            b.set_length(total as u64);
        }
    }

    fn tick(&self) {
        let Some(b) = &self.bar else { return };
        b.inc(1);
        if !self.shown.load(Ordering::Relaxed)
            && self.started.elapsed() > Duration::from_millis(300)
        {
            self.shown.store(true, Ordering::Relaxed);
            b.set_style(
                ProgressStyle::with_template("{bar:30} {pos}/{len} modules")
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            b.set_draw_target(ProgressDrawTarget::stderr());
        }
    }

    fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}
