//! The engines' own histories: the sessions a terminal ran (Claude Code's transcripts, the
//! Codex CLI's threads), read into the same canonical events a run here produces, so the core
//! records them with the one timeline reducer and they render, search and continue like any
//! other session. Nothing here writes to an engine's files.
//!
//! A history is read in turns (a user prompt and everything the engine did with it), from
//! where the last read stopped; see [`HistoryRead`] for what a read hands back.

pub mod lines;
mod time;

use std::path::PathBuf;

use agentdesk_protocol::events::AgentEvent;
use agentdesk_protocol::ui::SessionOrigin;

pub use time::rfc3339_ms;

/// One user turn of a history: the prompt and what the engine did with it.
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryTurn {
    /// Byte offset of the record that began the turn (a re-read of an unfinished turn starts
    /// there).
    pub at: u64,
    pub prompt: String,
    /// Milliseconds since the epoch, when the file says.
    pub started_at: Option<i64>,
    pub ended_at: Option<i64>,
    /// The engine said the turn is over (its last message ended it, or a next prompt came).
    pub complete: bool,
    /// Canonical events, in order; no terminal event (the core ends the run from `complete`).
    pub events: Vec<AgentEvent>,
}

/// What one read of a history file found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HistoryRead {
    pub origin: SessionOrigin,
    /// The engine's session id (what `--resume` / `thread/resume` take).
    pub session_id: Option<String>,
    /// The folder the session ran in.
    pub cwd: Option<PathBuf>,
    /// The engine's own title for it, if it made one.
    pub title: Option<String>,
    /// Turns from the read's start; the last one may be unfinished.
    pub turns: Vec<HistoryTurn>,
    /// The end of the last complete line read.
    pub read_to: u64,
    /// Lines that could not be read: not JSON, a known kind that did not fit, too long.
    pub skipped: u64,
    /// The version of the engine that wrote the last record read, when it says.
    pub version: Option<String>,
}

/// A history file found on this machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoryFile {
    pub origin: SessionOrigin,
    pub path: PathBuf,
}

/// One engine's history on this machine: where it is, what files it has, how one is read.
pub trait HistorySource: Send + Sync + std::fmt::Debug {
    fn origin(&self) -> SessionOrigin;
    /// The engine that continues these sessions.
    fn engine(&self) -> agentdesk_protocol::ui::Engine;
    /// The folder read, as the engine resolves it.
    fn folder(&self) -> &std::path::Path;
    /// The history files, and how many folders could not be listed.
    fn discover(&self) -> (Vec<HistoryFile>, u64);
    /// Read `path` from byte `from` (blocking: call it off the async threads).
    fn read(&self, path: &std::path::Path, from: u64) -> std::io::Result<HistoryRead>;
}

/// The history sources of this machine as the engines resolve their folders from `env`
/// (`CLAUDE_CONFIG_DIR`, `HOME`/`USERPROFILE`). A source whose folder does not exist is still
/// listed (it simply has no files).
pub fn sources_from_env(
    env: &dyn Fn(&str) -> Option<std::ffi::OsString>,
) -> Vec<std::sync::Arc<dyn HistorySource>> {
    let home = env("HOME")
        .or_else(|| env("USERPROFILE"))
        .map(PathBuf::from);
    let mut out: Vec<std::sync::Arc<dyn HistorySource>> = Vec::new();
    if let Some(dir) =
        crate::claude::history::config_dir(env("CLAUDE_CONFIG_DIR").map(PathBuf::from), home)
    {
        out.push(std::sync::Arc::new(
            crate::claude::history::ClaudeHistory::new(dir),
        ));
    }
    out
}
