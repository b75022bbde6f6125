//! The account's rate limits per engine (issue 24): the latest each engine reported during a
//! run, kept in the settings (so the status bar shows them after a restart) and watched by
//! the window. A run that fails while a limit is reached says when that limit resets.

use std::sync::Arc;

use agentdesk_protocol::events::AgentEvent;
use agentdesk_protocol::rate_limits::{EngineRateLimits, RateLimits};
use agentdesk_protocol::ui::Engine;
use tokio::sync::watch;

use crate::Desk;

/// The settings key of the last limits seen.
const SETTING: &str = "rate_limits";

/// One board per core: the latest limits of each engine.
#[derive(Debug, Clone)]
pub(crate) struct RateLimitBoard {
    tx: Arc<watch::Sender<Vec<EngineRateLimits>>>,
    loaded: Arc<tokio::sync::OnceCell<()>>,
}

impl Default for RateLimitBoard {
    fn default() -> Self {
        Self {
            tx: Arc::new(watch::channel(Vec::new()).0),
            loaded: Arc::default(),
        }
    }
}

impl Desk {
    /// The stored limits, read once per process before the first look at the board.
    async fn rate_limit_board(&self) -> &RateLimitBoard {
        let board = &self.rate_limits;
        board
            .loaded
            .get_or_init(|| async {
                let stored: Vec<EngineRateLimits> = self
                    .store
                    .get_setting(SETTING)
                    .await
                    .ok()
                    .flatten()
                    .unwrap_or_default();
                board.tx.send_if_modified(|now| {
                    if now.is_empty() && !stored.is_empty() {
                        *now = stored;
                        true
                    } else {
                        false
                    }
                });
            })
            .await;
        board
    }

    /// Every engine's latest limits, now and on every change.
    pub async fn watch_rate_limits(&self) -> watch::Receiver<Vec<EngineRateLimits>> {
        self.rate_limit_board().await.tx.subscribe()
    }

    /// What `engine` said last.
    pub async fn rate_limits_of(&self, engine: Engine) -> Option<EngineRateLimits> {
        let board = self.rate_limit_board().await;
        let now = board.tx.borrow();
        now.iter().find(|l| l.engine == engine).cloned()
    }

    /// A run's event, on its way to the recorder: limits are recorded; a failure while a
    /// limit is reached gets when it resets.
    pub(crate) async fn rate_limit_event(&self, engine: Engine, ev: AgentEvent) -> AgentEvent {
        match ev {
            AgentEvent::RateLimits(limits) => {
                self.record_rate_limits(engine, limits.clone()).await;
                AgentEvent::RateLimits(limits)
            }
            AgentEvent::RunFailed { error, code } => {
                let limits = self.rate_limits_of(engine).await.map(|l| l.limits);
                let error = match limits.and_then(|l| limit_note(&l, &error, code.as_deref())) {
                    Some(note) => format!("{error} ({note})"),
                    None => error,
                };
                AgentEvent::RunFailed { error, code }
            }
            other => other,
        }
    }

    async fn record_rate_limits(&self, engine: Engine, limits: RateLimits) {
        let board = self.rate_limit_board().await;
        let entry = EngineRateLimits {
            engine,
            limits,
            updated_at: agentdesk_store::now_ms(),
        };
        let mut all = board.tx.borrow().clone();
        all.retain(|l| l.engine != engine);
        all.push(entry);
        all.sort_by_key(|l| l.engine.as_str());
        if let Err(e) = self.store.set_setting(SETTING, &all).await {
            tracing::warn!(error = %e, "the rate limits could not be kept");
        }
        board.tx.send_replace(all);
    }
}

/// What to add to a failure about the account's limits: when the reached limit resets; for
/// a failure that names a limit (HTTP 429, a usage limit) when the fullest window resets.
fn limit_note(limits: &RateLimits, error: &str, code: Option<&str>) -> Option<String> {
    if error.contains("resets at") {
        return None;
    }
    if let Some(at) = limits.blocked_until() {
        return Some(format!("the limit resets at {}", reset_time(at)));
    }
    let said = format!(
        "{} {}",
        code.unwrap_or_default(),
        error.to_ascii_lowercase()
    );
    let about_limits = [
        "429",
        "rate_limit",
        "rate limit",
        "usage_limit",
        "usage limit",
        "quota",
    ]
    .iter()
    .any(|k| said.contains(k));
    let w = limits.tightest()?;
    let at = w.resets_at?;
    about_limits.then(|| {
        format!(
            "the {} limit was last at {:.0} % and resets at {}",
            w.name,
            w.used_percent,
            reset_time(at)
        )
    })
}

/// `at` (Unix ms) in the user's time zone, with its name ("2026-12-03 01:34 CET").
fn reset_time(at: i64) -> String {
    match jiff::Timestamp::from_millisecond(at) {
        Ok(t) => t
            .to_zoned_datetime(jiff::tz::TimeZone::system())
            .strftime("%Y-%m-%d %H:%M %Z")
            .to_string(),
        Err(_) => format!("{at} ms after 1970"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_says_when_the_limit_resets() {
        use agentdesk_protocol::rate_limits::RateLimitWindow;
        let mut l = RateLimits {
            windows: vec![RateLimitWindow {
                name: "5-hour".into(),
                used_percent: 85.0,
                resets_at: Some(1_796_255_665_000),
                window_minutes: Some(300),
            }],
            reached: None,
        };
        // Not about limits: nothing added.
        assert_eq!(
            limit_note(&l, "the engine crashed", Some("engine_crashed")),
            None
        );
        let note = limit_note(&l, "last status: 429 Too Many Requests", Some("http_429")).unwrap();
        assert!(
            note.starts_with("the 5-hour limit was last at 85 % and resets at 2026-12-0"),
            "{note}"
        );
        l.windows[0].used_percent = 100.0;
        let note = limit_note(&l, "the engine crashed", None).unwrap();
        assert!(note.starts_with("the limit resets at 2026-12-0"), "{note}");
        assert_eq!(
            limit_note(&l, "... resets at 5pm", None),
            None,
            "said already"
        );
    }

    #[test]
    fn reset_times_read_as_dates_in_the_time_zone() {
        let t = reset_time(1_796_255_665_000);
        assert!(t.starts_with("2026-12-0"), "{t}");
        assert!(t.len() >= "2026-12-03 00:34 UTC".len(), "{t}");
    }
}
