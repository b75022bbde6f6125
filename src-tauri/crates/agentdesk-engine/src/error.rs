//! The one error type of the crate.
//!
//! Transport (I/O on the pipes), Server (the peer answered with a JSON-RPC error object) and
//! Decode (the peer sent something we could not read) stay distinct variants because callers
//! react differently: a Server error is a normal answer, a Decode error is a protocol drift,
//! a Transport error means the connection is gone.

use std::path::PathBuf;
use std::time::Duration;

use crate::process::ExitStatusInfo;

#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// Reading from or writing to the child's pipes failed.
    #[error("transport error while {context}: {source}")]
    Transport {
        context: String,
        #[source]
        source: std::io::Error,
    },

    /// We could not serialise an outbound message.
    #[error("could not encode {context}: {source}")]
    Encode {
        context: String,
        #[source]
        source: serde_json::Error,
    },

    /// The peer's message (or a result) did not have the expected shape.
    #[error("could not decode {context}: {source}")]
    Decode {
        context: String,
        #[source]
        source: serde_json::Error,
    },

    /// The peer answered a request with a JSON-RPC error object.
    #[error("engine error {code} in reply to `{method}`: {message}")]
    Server {
        method: String,
        code: i64,
        message: String,
        data: Option<serde_json::Value>,
    },

    /// A bounded wait expired (request, version probe, …).
    #[error("timed out after {after:?} waiting for {what}")]
    Timeout { what: String, after: Duration },

    /// The engine process (or the stream standing in for it) went away while we waited.
    #[error("{}", child_exited_message(.status.as_ref(), .stderr_tail))]
    ChildExited {
        /// `None` when the stream closed without a process (tests) or the status is not known yet.
        status: Option<ExitStatusInfo>,
        /// Last lines the engine wrote to stderr, for the error shown to the user.
        stderr_tail: String,
    },

    /// This app stopped the engine: its memory passed the limit (Settings → Engines).
    #[error("the engine was stopped: {0}")]
    MemoryLimit(crate::process::MemoryOver),

    /// The engine executable could not be found; `hint` says how to install it.
    #[error("{program} not found — {hint} (searched: {})", display_paths(.searched))]
    NotFound {
        program: String,
        hint: String,
        searched: Vec<PathBuf>,
    },

    /// The executable exists but could not be started.
    #[error("could not start {program}: {source}")]
    Spawn {
        program: PathBuf,
        #[source]
        source: std::io::Error,
    },

    /// `--version` ran but its output made no sense, or it failed.
    #[error("version probe of {program} failed: {detail}")]
    VersionProbe { program: PathBuf, detail: String },

    /// The executable answers `--version` with a version the adapter does not support.
    #[error("{engine} {found} ({}) is not supported: Agent Desk needs {supported} — {install}", .program.display())]
    UnsupportedVersion {
        // The adapter's own words: static, which also keeps this variant (and so every
        // `Result<_, EngineError>`) small where `PathBuf` is bigger (Windows).
        engine: &'static str,
        program: PathBuf,
        found: String,
        supported: String,
        install: &'static str,
    },

    /// The local side was shut down (writer closed, peer stopped) before the call.
    #[error("connection closed: {0}")]
    Closed(String),

    /// A decision or answer for an approval/question that is no longer pending (answered,
    /// expired, or never existed): refused, never replayed.
    #[error("request {request_id} is no longer pending")]
    NotPending { request_id: String },

    /// The engine cannot do what was asked (e.g. run an edited command on Codex), or the
    /// request does not fit (deciding a question like an approval).
    #[error("not supported: {0}")]
    Unsupported(String),

    /// A check before starting a run failed (bad profile, stale session); the message says
    /// what to do.
    #[error("{0}")]
    Preflight(String),

    /// The engine has no login (and the profile gives no API key); the message says how to
    /// log in. Its own variant because the fix is the user's, outside Agent Desk.
    #[error("{0}")]
    NotLoggedIn(String),

    /// A remote workspace's host could not be used (unreachable, login or host key refused,
    /// the connection lost, the folder or the engine missing there); `reason` says what to
    /// do.
    #[error("{host}: {reason}")]
    Remote { host: String, reason: String },
}

impl EngineError {
    /// Shorthand for a `Transport` error with context.
    pub fn transport(context: impl Into<String>, source: std::io::Error) -> Self {
        Self::Transport {
            context: context.into(),
            source,
        }
    }

    /// Shorthand for a `Decode` error with context.
    pub fn decode(context: impl Into<String>, source: serde_json::Error) -> Self {
        Self::Decode {
            context: context.into(),
            source,
        }
    }

    /// True when the error means the engine is gone (as opposed to one failed call).
    pub fn is_fatal(&self) -> bool {
        matches!(
            self,
            Self::ChildExited { .. }
                | Self::MemoryLimit(_)
                | Self::Transport { .. }
                | Self::Closed(_)
        )
    }
}

fn child_exited_message(status: Option<&ExitStatusInfo>, tail: &str) -> String {
    let status = status.map_or_else(|| "status unknown".to_owned(), ToString::to_string);
    if tail.trim().is_empty() {
        format!("engine process exited ({status})")
    } else {
        format!("engine process exited ({status}); stderr:\n{tail}")
    }
}

fn display_paths(paths: &[PathBuf]) -> String {
    if paths.is_empty() {
        return "nothing".to_owned();
    }
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}
