//! Progress bars on stderr for long work: shown only when stderr is a
//! terminal, `--quiet` is not given, and the work has run for a second
//! (`AGENT_CHECKPOINT_PROGRESS_DELAY_MS` changes that delay).

use std::io::IsTerminal;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use agent_checkpoint::{OnProgress, Progress};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How long work runs before a bar appears, unless the environment says.
const DEFAULT_DELAY: Duration = Duration::from_secs(1);

/// A bar for one command; cleared when dropped.
pub struct Bars {
    state: Arc<Mutex<State>>,
}

struct State {
    started: Instant,
    delay: Duration,
    bar: Option<ProgressBar>,
}

impl Bars {
    /// Bars for this process: `None` when quiet or stderr is not a terminal.
    pub fn for_stderr(quiet: bool) -> Option<Bars> {
        if quiet || !std::io::stderr().is_terminal() {
            return None;
        }
        let delay = std::env::var("AGENT_CHECKPOINT_PROGRESS_DELAY_MS")
            .ok()
            .and_then(|ms| ms.parse().ok())
            .map_or(DEFAULT_DELAY, Duration::from_millis);
        Some(Bars {
            state: Arc::new(Mutex::new(State {
                started: Instant::now(),
                delay,
                bar: None,
            })),
        })
    }

    /// The callback that draws them.
    pub fn callback(&self) -> OnProgress {
        let state = Arc::clone(&self.state);
        OnProgress::new(move |p: Progress| {
            // A poisoned lock only means an earlier draw panicked.
            let mut state = state.lock().unwrap_or_else(|e| e.into_inner());
            state.show(p);
        })
    }
}

impl State {
    fn show(&mut self, p: Progress) {
        if self.bar.is_none() && self.started.elapsed() < self.delay {
            return;
        }
        let bar = self.bar.get_or_insert_with(|| {
            let bar = ProgressBar::with_draw_target(Some(p.total), ProgressDrawTarget::stderr());
            if let Ok(style) =
                ProgressStyle::with_template("{msg:>8} [{bar:30}] {pos}/{len} paths ({elapsed})")
            {
                bar.set_style(style.progress_chars("=> "));
            }
            bar
        });
        bar.set_message(p.stage.as_str());
        bar.set_length(p.total);
        bar.set_position(p.done);
    }
}

impl Drop for Bars {
    fn drop(&mut self) {
        let state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(bar) = &state.bar {
            bar.finish_and_clear();
        }
    }
}
