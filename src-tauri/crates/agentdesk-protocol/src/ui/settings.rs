//! Settings and engine health (issue 13 item 4): what the Settings screen and the first-run
//! screen show, and the window's own preferences.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::{Engine, IpcError};
use crate::capabilities::EngineCapabilities;

/// An engine as the engine crate's registry declares it: what the window lists in the
/// profile editor and Settings, instead of a list of its own.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct EngineInfo {
    pub engine: Engine,
    pub display_name: String,
    pub capabilities: EngineCapabilities,
    /// The executables found by discovery (Settings → Engines shows one row each).
    pub programs: Vec<EngineProgramInfo>,
    /// The executable is the profile's own command (ACP agents), not a discovered one.
    pub command_from_profile: bool,
}

/// One executable of an engine.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct EngineProgramInfo {
    /// Its name without extension, the key of its path in Settings.
    pub name: String,
    pub display_name: String,
    /// How to install it, as a terminal command.
    pub install_command: String,
}

/// One engine as `agentdesk-cli doctor` sees it: where it is, its version, whether it is
/// logged in, and what is wrong (with what to install or run).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct EngineHealth {
    pub engine: Engine,
    /// The executable checked (`codex`, `claude`, `opencode`, `gemini`): an engine may have
    /// several (an ACP engine runs any of its agents), each with its own row and path.
    pub program: String,
    /// The program as users know it ("Codex", "opencode").
    pub display_name: String,
    /// The executable found (`None`: not found).
    pub path: Option<String>,
    /// How it was found: `settings` (the override path), `environment`
    /// (`AGENTDESK_CODEX_BIN` / `AGENTDESK_CLAUDE_BIN`), `path`, `install_dir`.
    pub found_via: Option<String>,
    /// The path set in Settings, if any (it may be the thing that is wrong).
    pub override_path: Option<String>,
    pub version: Option<String>,
    /// `None`: not checked (not found, unsupported, or the check was skipped or failed).
    pub logged_in: Option<bool>,
    /// Whether Agent Desk can tell if it is logged in (an ACP agent's login is its own: it
    /// shows only when a run fails).
    pub login_checkable: bool,
    /// What stops runs (not found, unsupported version, login check failed), with the
    /// error code a run would be refused with.
    pub problem: Option<IpcError>,
    /// The commands that make this engine usable, in order (install, log in).
    pub fix_commands: Vec<String>,
}

impl EngineHealth {
    /// Found, supported and logged in (or the login was not checked).
    pub fn usable(&self) -> bool {
        self.path.is_some() && self.problem.is_none() && self.logged_in != Some(false)
    }
}

/// The window's theme.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum Theme {
    /// Follow the operating system.
    #[default]
    System,
    Light,
    Dark,
}

/// Which key sends a message from the composer (the other one inserts a new line).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum SendKey {
    #[default]
    Enter,
    CtrlEnter,
}

/// The window's preferences (stored in the database, so every window and reinstall keeps
/// them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase", default)]
pub struct UiSettings {
    pub theme: Theme,
    pub send_key: SendKey,
}

/// When a kind of notification is shown (stored by the core, edited by the window).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum NotifyWhen {
    Always,
    /// Only while no Agent Desk window has the focus (the user is looking elsewhere).
    #[default]
    WhenUnfocused,
    Never,
}

impl NotifyWhen {
    pub fn allows(self, window_focused: bool) -> bool {
        match self {
            NotifyWhen::Always => true,
            NotifyWhen::WhenUnfocused => !window_focused,
            NotifyWhen::Never => false,
        }
    }
}

/// Settings → Notifications: what the window edits, the core stores and the notification
/// planner reads (one type; a field missing from a stored value takes its default).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase", default)]
pub struct NotificationPrefs {
    /// Commands, file changes, permissions, tools.
    pub approvals: NotifyWhen,
    pub questions: NotifyWhen,
    /// A run finished or failed.
    pub runs: NotifyWhen,
    /// Runs shorter than this end without a notification (the user just watched them).
    #[ts(type = "number")]
    pub run_min_secs: u64,
    pub sound: bool,
}

impl Default for NotificationPrefs {
    fn default() -> Self {
        NotificationPrefs {
            approvals: NotifyWhen::WhenUnfocused,
            questions: NotifyWhen::WhenUnfocused,
            runs: NotifyWhen::WhenUnfocused,
            run_min_secs: 30,
            sound: true,
        }
    }
}

impl NotificationPrefs {
    pub fn for_kind(&self, kind: super::ApprovalKindName) -> NotifyWhen {
        match kind {
            super::ApprovalKindName::Question => self.questions,
            _ => self.approvals,
        }
    }

    /// Whether a request of `kind` arriving now gets a notification.
    pub fn shows_request(&self, kind: super::ApprovalKindName, window_focused: bool) -> bool {
        self.for_kind(kind).allows(window_focused)
    }

    /// Whether the end of a run that lasted `took` gets a notification.
    pub fn shows_run_end(&self, took: std::time::Duration, window_focused: bool) -> bool {
        self.runs.allows(window_focused) && took.as_secs() >= self.run_min_secs
    }
}

/// Engine-wide limits (Settings → Engines): an engine process whose memory passes the limit
/// is stopped, its run fails with that reason, and the session can be continued.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct EngineLimits {
    /// As set: `None` is the default, `0` turns the limit off.
    pub memory_limit_mb: Option<u32>,
    pub default_memory_limit_mb: u32,
}

/// What "Compact database" did (Settings → Data): the database rewritten without its free
/// pages, and the attachment files no message refers to any more removed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CompactReport {
    /// The database with its WAL, in bytes, before and after.
    #[ts(type = "number")]
    pub before_bytes: u64,
    #[ts(type = "number")]
    pub after_bytes: u64,
    /// Attachment files removed (of deleted sessions and messages).
    pub attachments_removed: u32,
}

/// The data folders and the database size (Settings → Data).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct DataInfo {
    pub data_dir: String,
    pub log_dir: String,
    pub database_path: String,
    /// The database with its WAL, in bytes.
    #[ts(type = "number")]
    pub database_bytes: u64,
}
