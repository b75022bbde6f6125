//! Per-run limits both adapters apply in their run loops:
//!
//! - the inactivity watchdog: an engine that says nothing for too long (no stdout line, no
//!   stderr line, no notification) is stopped and the run fails with a clear message, instead
//!   of showing "running" forever. Time the run spends waiting for the user (a pending
//!   approval or question) is not the engine's silence, so it never counts.
//! - the diagnostic budget: a flood of garbage (thousands of unparseable lines, a chatty
//!   stderr) cannot fill the timeline or the database; after a fixed number of diagnostics the
//!   rest are only counted, and the count is reported once when the run ends.

use std::time::Duration;

use agentdesk_protocol::events::{AgentEvent, DiagnosticSource};
use tokio::time::Instant;

/// How long an engine may say nothing before its run is stopped. Generous on purpose: a model
/// that thinks for minutes still streams something (reasoning deltas, keep-alives, retries on
/// stderr), so ten silent minutes means the engine is stuck, not slow.
pub const DEFAULT_INACTIVITY_TIMEOUT: Duration = Duration::from_secs(600);

/// Engine diagnostics shown per run before the rest are only counted: enough to debug a
/// misbehaving engine, few enough that 2,000 garbage lines do not become 2,000 rows.
pub const DEFAULT_MAX_DIAGNOSTICS: usize = 100;

/// An engine process using more resident memory than this is stopped (Settings → Engines
/// changes it): far above what a healthy engine uses (tens to hundreds of MB), low enough
/// that a leaking one is stopped before it takes the machine down.
pub const DEFAULT_MEMORY_LIMIT_MB: u32 = 4096;

/// The limits of one run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunLimits {
    /// `None` (or zero): no watchdog.
    pub inactivity_timeout: Option<Duration>,
    /// Engine diagnostics passed on before the rest are only counted.
    pub max_diagnostics: usize,
    /// The engine process is stopped when its resident memory passes this many bytes
    /// (`None`: never).
    pub memory_limit: Option<u64>,
}

impl Default for RunLimits {
    fn default() -> Self {
        Self {
            inactivity_timeout: Some(DEFAULT_INACTIVITY_TIMEOUT),
            max_diagnostics: DEFAULT_MAX_DIAGNOSTICS,
            memory_limit: Some(u64::from(DEFAULT_MEMORY_LIMIT_MB) * 1024 * 1024),
        }
    }
}

impl RunLimits {
    /// These limits with a per-run watchdog override (`None`: keep the engine's; zero: off).
    pub fn with_inactivity_timeout(mut self, timeout: Option<Duration>) -> Self {
        if let Some(t) = timeout {
            self.inactivity_timeout = Some(t);
        }
        self
    }
}

/// The inactivity clock of one run.
#[derive(Debug)]
pub(crate) struct Watchdog {
    limit: Option<Duration>,
    last: Instant,
}

impl Watchdog {
    pub(crate) fn new(limit: Option<Duration>) -> Self {
        Self {
            limit: limit.filter(|l| !l.is_zero()),
            last: Instant::now(),
        }
    }

    /// The engine said something (or the user just answered it): restart the clock.
    pub(crate) fn activity(&mut self) {
        self.last = Instant::now();
    }

    /// When the run counts as silent; `None` while it waits for the user (that time is the
    /// user's, not the engine's) or without a limit.
    pub(crate) fn deadline(&self, waiting_for_user: bool) -> Option<Instant> {
        if waiting_for_user {
            return None;
        }
        self.limit.map(|l| self.last + l)
    }

    /// The `run.failed` message, e.g. "Codex said nothing for 600 s; the run was stopped".
    pub(crate) fn message(&self, engine: &str) -> String {
        let secs = self.limit.unwrap_or_default().as_secs_f64();
        let secs = if secs.fract() == 0.0 {
            format!("{secs:.0}")
        } else {
            format!("{secs:.1}")
        };
        format!(
            "{engine} said nothing for {secs} s; the run was stopped (inactivity limit; \
             the engine may be stuck or waiting on something it cannot get)"
        )
    }
}

/// Counts the engine diagnostics of one run and drops those over the budget.
#[derive(Debug)]
pub(crate) struct DiagnosticBudget {
    max: usize,
    shown: usize,
    suppressed: usize,
    summarised: bool,
}

impl DiagnosticBudget {
    pub(crate) fn new(max: usize) -> Self {
        Self {
            max,
            shown: 0,
            suppressed: 0,
            summarised: false,
        }
    }

    /// Filter a batch of outgoing events in place: engine diagnostics beyond the budget are
    /// counted instead of passed on (one notice says so when it starts), and the count is
    /// reported once, right before the run's terminal event.
    pub(crate) fn apply(&mut self, out: &mut Vec<AgentEvent>) {
        if out.is_empty() {
            return;
        }
        for ev in std::mem::take(out) {
            if ev.is_terminal() {
                out.extend(self.summary());
                out.push(ev);
            } else if !counts(&ev) {
                out.push(ev);
            } else if self.shown < self.max {
                self.shown += 1;
                out.push(ev);
            } else {
                if self.suppressed == 0 {
                    out.push(notice(format!(
                        "… more engine diagnostics suppressed (limit {} per run); their count is reported when the run ends",
                        self.max
                    )));
                }
                self.suppressed += 1;
            }
        }
    }

    /// The one closing count, if anything was suppressed (at most once per run).
    fn summary(&mut self) -> Option<AgentEvent> {
        if self.suppressed == 0 || self.summarised {
            return None;
        }
        self.summarised = true;
        Some(notice(format!(
            "{} more engine diagnostics were suppressed in this run (limit {} per run)",
            self.suppressed, self.max
        )))
    }
}

/// Only what the engine produced counts: the adapter's own notices (a restart, a stop) are few
/// and always shown.
fn counts(ev: &AgentEvent) -> bool {
    matches!(ev, AgentEvent::EngineDiagnostic { source, .. } if *source != DiagnosticSource::Notice)
}

fn notice(message: String) -> AgentEvent {
    AgentEvent::EngineDiagnostic {
        source: DiagnosticSource::Notice,
        message,
        raw: None,
    }
}

/// `62914560` → "60.0 MiB": sizes people can compare at a glance.
pub(crate) fn human_bytes(n: usize) -> String {
    const MIB: f64 = 1024.0 * 1024.0;
    let n = n as f64;
    if n >= MIB {
        format!("{:.1} MiB", n / MIB)
    } else if n >= 1024.0 {
        format!("{:.1} KiB", n / 1024.0)
    } else {
        format!("{n} bytes")
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
#[path = "limits_tests.rs"]
mod tests;
