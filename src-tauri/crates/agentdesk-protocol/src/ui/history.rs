//! What an import of the engines' own histories found (`agentdesk-cli import --json`, the
//! window's import progress).

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::SessionOrigin;

/// One history source (an engine's history folder) after a scan.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SourceReport {
    pub origin: SessionOrigin,
    /// The folder read, as the engine resolves it (`~/.claude`, `$CODEX_HOME`).
    pub folder: String,
    /// History files found.
    #[ts(type = "number")]
    pub files: u64,
    /// Files unchanged since the last scan (not read again).
    #[ts(type = "number")]
    pub unchanged: u64,
    #[ts(type = "number")]
    pub sessions_added: u64,
    #[ts(type = "number")]
    pub sessions_updated: u64,
    /// Turns written (new, or an unfinished one read again).
    #[ts(type = "number")]
    pub turns: u64,
    /// Lines or records that could not be read (damaged, too long), over the files read now.
    #[ts(type = "number")]
    pub skipped: u64,
    /// Files or folders that could not be opened (permissions, deleted mid-scan).
    #[ts(type = "number")]
    pub unreadable: u64,
    /// Folders with sessions that are not workspaces (add one to import them), with how many
    /// sessions each holds.
    pub without_workspace: Vec<FolderCount>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct FolderCount {
    pub folder: String,
    #[ts(type = "number")]
    pub sessions: u64,
}

/// An import: one report per source scanned.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ImportReport {
    /// Nothing was written (`--dry-run`): the counts say what an import would do.
    pub dry_run: bool,
    pub sources: Vec<SourceReport>,
}

/// How far an import is (files done of files found, over all sources).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ImportProgress {
    #[ts(type = "number")]
    pub done: u64,
    #[ts(type = "number")]
    pub total: u64,
}

/// Which history sources the app reads (Settings → Terminal sessions).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase", default)]
pub struct HistorySettings {
    /// Sources neither scanned, watched nor shown in the sidebar (every one is on by default).
    pub hidden: Vec<SessionOrigin>,
}

/// One history source as Settings lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct HistorySourceInfo {
    pub origin: SessionOrigin,
    /// The engine's folder as the engine resolves it (`$CLAUDE_CONFIG_DIR` or `~/.claude`,
    /// `$CODEX_HOME` or `~/.codex`).
    pub folder: String,
    /// Scanned, watched and shown.
    pub enabled: bool,
    /// Its folder is watched for changes now (else it is re-scanned every half minute).
    pub watching: bool,
}

/// Where the app's view of the engines' histories stands: sent at once and on every change.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct HistoryStatus {
    pub sources: Vec<HistorySourceInfo>,
    /// A scan is running: how far it is.
    pub importing: Option<ImportProgress>,
    /// The last scan that ended (per source: found, added, skipped, unreadable).
    pub last: Option<ImportReport>,
    /// When it ended (milliseconds since the epoch).
    #[ts(type = "number | null")]
    pub last_at: Option<i64>,
    /// Why the last scan failed as a whole (the database could not be written...).
    pub error: Option<String>,
    /// Goes up whenever a scan added or changed sessions: the sidebar re-reads its list.
    #[ts(type = "number")]
    pub generation: u64,
}
