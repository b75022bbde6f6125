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
