//! The account's rate limits, as the engines report them (issue 24): Codex's
//! `account/rateLimits/updated` (primary and secondary windows, from its provider's
//! `x-codex-*` headers), Claude Code's `rate_limit_event` (the 5-hour and weekly windows of a
//! subscription login). Account-wide, not a run's: the window's status bar shows the latest.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::ui::Engine;

/// One window of the limit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct RateLimitWindow {
    /// "5-hour", "weekly", or the window's length when the engine gives no name.
    pub name: String,
    /// 0–100 (may pass 100 when the engine counts overage).
    pub used_percent: f64,
    /// When the window resets (Unix time, ms).
    #[ts(type = "number | null")]
    pub resets_at: Option<i64>,
    #[ts(type = "number | null")]
    pub window_minutes: Option<i64>,
}

/// What an engine last said about the account's limits.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct RateLimits {
    pub windows: Vec<RateLimitWindow>,
    /// The engine says the limit is reached (Codex's `rateLimitReachedType`, Claude's
    /// `rejected` status): why, in its words.
    pub reached: Option<String>,
}

impl RateLimits {
    /// The window that blocks (reached or at 100 %), else the fullest one.
    pub fn tightest(&self) -> Option<&RateLimitWindow> {
        self.windows
            .iter()
            .max_by(|a, b| a.used_percent.total_cmp(&b.used_percent))
    }

    /// When the limit that stops runs resets, if one does: the fullest window's reset
    /// when the limit is reached or a window is full.
    pub fn blocked_until(&self) -> Option<i64> {
        let w = self.tightest()?;
        (self.reached.is_some() || w.used_percent >= 100.0)
            .then_some(w.resets_at)
            .flatten()
    }
}

/// The name of a window of `minutes` ("5-hour", "weekly", "30-minute").
pub fn window_name(minutes: Option<i64>) -> String {
    match minutes {
        Some(10080) => "weekly".to_owned(),
        Some(1440) => "daily".to_owned(),
        Some(m) if m > 0 && m % 60 == 0 => format!("{}-hour", m / 60),
        Some(m) if m > 0 => format!("{m}-minute"),
        _ => "limit".to_owned(),
    }
}

/// An engine's latest limits, as the status bar shows them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct EngineRateLimits {
    pub engine: Engine,
    pub limits: RateLimits,
    /// When the engine said so (Unix time, ms).
    #[ts(type = "number")]
    pub updated_at: i64,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(used: f64, resets: i64) -> RateLimitWindow {
        RateLimitWindow {
            name: "x".into(),
            used_percent: used,
            resets_at: Some(resets),
            window_minutes: None,
        }
    }

    #[test]
    fn names_and_the_window_that_blocks() {
        assert_eq!(window_name(Some(300)), "5-hour");
        assert_eq!(window_name(Some(10080)), "weekly");
        assert_eq!(window_name(Some(45)), "45-minute");
        assert_eq!(window_name(None), "limit");
        let mut l = RateLimits {
            windows: vec![w(40.0, 1), w(85.0, 2)],
            reached: None,
        };
        assert_eq!(l.tightest().map(|w| w.resets_at), Some(Some(2)));
        assert_eq!(l.blocked_until(), None);
        l.windows[0].used_percent = 100.0;
        assert_eq!(l.blocked_until(), Some(1));
        l.windows[0].used_percent = 10.0;
        l.reached = Some("rate_limit_reached".into());
        assert_eq!(l.blocked_until(), Some(2));
    }
}
