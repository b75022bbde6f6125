//! Reading the threads a terminal ran (`codex`, `codex exec`, the IDE extension): `thread/list`
//! finds them, `thread/turns/list` pages through their turns with every item. Verified on
//! 0.169.0: without `sourceKinds` only "interactive" sources are listed (not `codex exec`),
//! and without `modelProviders: []` only the configured provider's threads.

use serde::{Deserialize, Serialize};

use super::items::{Thread, Turn};

/// Where a thread was started (`ThreadSourceKind`). App-server threads (this app's own, and
/// other apps') are not a terminal's history.
pub const TERMINAL_SOURCES: [&str; 3] = ["cli", "exec", "vscode"];

#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ThreadListParams {
    pub cursor: Option<String>,
    pub limit: Option<u32>,
    /// Empty: every provider (absent: only the configured one).
    pub model_providers: Option<Vec<String>>,
    /// Absent or empty: only interactive sources.
    pub source_kinds: Option<Vec<String>>,
    /// `true`: only archived threads; absent: only the others.
    pub archived: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ThreadListResponse {
    pub data: Vec<Thread>,
    #[serde(default)]
    pub next_cursor: Option<String>,
}

/// `asc`: oldest turn first (the default is newest first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SortDirection {
    Asc,
    Desc,
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ThreadTurnsListParams {
    pub thread_id: String,
    pub cursor: Option<String>,
    pub limit: Option<u32>,
    pub sort_direction: Option<SortDirection>,
    /// `full`: every item of each turn (the default is a display summary).
    pub items_view: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ThreadTurnsListResponse {
    pub data: Vec<Turn>,
    #[serde(default)]
    pub next_cursor: Option<String>,
}
