//! The engines' own histories: the sessions a terminal ran (Claude Code's transcripts, the
//! Codex CLI's threads), read into the same canonical events a run here produces, so the core
//! records them with the one timeline reducer and they render, search and continue like any
//! other session. Nothing here writes to an engine's files.
//!
//! A history is read in turns (a user prompt and everything the engine did with it), from
//! where the last read stopped; see [`HistoryRead`] for what a read hands back.

pub mod lines;
mod time;

use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;

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
    /// The read stopped at the start of a turn, having read [`TURNS_PER_READ`] turns or
    /// [`BYTES_PER_READ`] bytes: the rest is read from `read_to` (a 2 GB transcript is read
    /// and written a part at a time, never held whole).
    pub more: bool,
}

/// Most turns one read hands back (see [`HistoryRead::more`]).
pub const TURNS_PER_READ: usize = 1_000;
/// Most bytes of a transcript one read goes through before it stops at the next turn.
pub const BYTES_PER_READ: u64 = 32 << 20;

/// Where a history entry stands now: an entry whose stamp is the last scan's is not read
/// again.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stamp {
    /// Stays the same while it is the same entry (a file's device and inode; a thread's id).
    pub id: String,
    pub size: i64,
    pub mtime_ms: i64,
}

impl Stamp {
    /// A file's identity, size and modification time.
    pub fn of_file(path: &Path) -> std::io::Result<Stamp> {
        let meta = std::fs::metadata(path)?;
        let mtime_ms = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
        #[cfg(unix)]
        let id = {
            use std::os::unix::fs::MetadataExt;
            format!("{}:{}", meta.dev(), meta.ino())
        };
        // No stable file id without opening the file: its creation time stands in.
        #[cfg(not(unix))]
        let id = meta
            .created()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or_else(String::new, |d| d.as_nanos().to_string());
        Ok(Stamp {
            id,
            size: i64::try_from(meta.len()).unwrap_or(i64::MAX),
            mtime_ms,
        })
    }
}

/// A history entry found on this machine: a transcript file, or a thread the engine lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoryFile {
    pub origin: SessionOrigin,
    /// Where it is kept: the key its last read is remembered by.
    pub path: PathBuf,
    /// The engine's session id, when the listing says it.
    pub session_id: Option<String>,
    /// The folder it ran in and its title, when the listing says them (a transcript says
    /// them inside).
    pub cwd: Option<PathBuf>,
    pub title: Option<String>,
    pub stamp: Stamp,
}

/// A boxed future: the sources are trait objects, and Codex's answer comes from a process.
pub type HistoryFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// One engine's history on this machine: where it is, what it has, how an entry is read.
/// Positions (`from`, `read_to`, a turn's `at`) are the source's own: a byte offset in a
/// transcript, a turn's index in a thread.
pub trait HistorySource: Send + Sync + std::fmt::Debug {
    fn origin(&self) -> SessionOrigin;
    /// The engine that continues these sessions.
    fn engine(&self) -> agentdesk_protocol::ui::Engine;
    /// The folder read, as the engine resolves it.
    fn folder(&self) -> &Path;
    /// The folder whose changes mean the history changed (watched recursively while the app
    /// is open): where the engine writes its sessions.
    fn watched(&self) -> PathBuf {
        self.folder().to_path_buf()
    }
    /// The entries, and how many places could not be listed.
    fn discover(&self) -> HistoryFuture<'_, std::io::Result<(Vec<HistoryFile>, u64)>>;
    /// Read `entry` from position `from` (0, or where a previous read's last turn began).
    fn read<'a>(
        &'a self,
        entry: &'a HistoryFile,
        from: u64,
    ) -> HistoryFuture<'a, std::io::Result<HistoryRead>>;
    /// The process of the engine that has session `session_id` open now (a terminal, or a
    /// run of this app's), when the engine says so; `None` when none does or it cannot tell.
    fn opened_by<'a>(&'a self, session_id: &'a str) -> HistoryFuture<'a, Option<u32>> {
        let _ = session_id;
        Box::pin(async { None })
    }
    /// The entry at `path` now, and the position of its end: a run of the app on its session
    /// wrote a turn there, which a scan must not import again.
    fn end_of<'a>(&'a self, path: &'a Path) -> HistoryFuture<'a, std::io::Result<(Stamp, u64)>>;
}

/// Run blocking file work off the async threads.
pub(crate) async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> std::io::Result<T> + Send + 'static,
) -> std::io::Result<T> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(std::io::Error::other)?
}

/// An engine's folder as it resolves it: its variable's folder (`CLAUDE_CONFIG_DIR`,
/// `CODEX_HOME`) when set and not empty, else `dot` in the home folder.
pub fn engine_dir(env_dir: Option<PathBuf>, home: Option<PathBuf>, dot: &str) -> Option<PathBuf> {
    env_dir
        .filter(|d| !d.as_os_str().is_empty())
        .or_else(|| home.map(|h| h.join(dot)))
}

/// The history sources of this machine as the engines resolve their folders from `env`
/// (`CLAUDE_CONFIG_DIR`, `CODEX_HOME`, `HOME`/`USERPROFILE`): Claude Code's transcripts
/// (files: always listed, even when the folder does not exist), and the history of each of
/// `engines` that reads its own through the engine (Codex's threads, through its
/// app-server).
pub fn sources(
    env: &dyn Fn(&str) -> Option<std::ffi::OsString>,
    engines: &[crate::AgentEngine],
) -> Vec<Arc<dyn HistorySource>> {
    let home = env("HOME")
        .or_else(|| env("USERPROFILE"))
        .map(PathBuf::from);
    let mut out: Vec<Arc<dyn HistorySource>> = Vec::new();
    if let Some(dir) = crate::claude::history::config_dir(
        env("CLAUDE_CONFIG_DIR").map(PathBuf::from),
        home.clone(),
    ) {
        out.push(Arc::new(crate::claude::history::ClaudeHistory::new(dir)));
    }
    // `$CODEX_HOME`, else `~/.codex`.
    let codex_home = engine_dir(env("CODEX_HOME").map(PathBuf::from), home, ".codex");
    for engine in engines {
        if let Some(source) = engine.history_source(codex_home.clone()) {
            out.push(source);
        }
    }
    out
}
