//! Diagnostics: everything an engine says that is not part of the conversation.
//!
//! Stderr lines, unparseable stdout lines and messages nobody understood are kept (and shown in
//! a diagnostics view) instead of crashing the session or vanishing. They are values, not errors:
//! producing one never stops a reader.
//!
//! Engines print tokens, keys and auth headers to stderr (debug output, a failed request
//! echoed back). Every diagnostic is therefore passed through [`redact`] when it is created,
//! before it is stored, exported, shown or logged.

use serde::Serialize;

/// How many bytes of an offending line are kept for display. Large enough to recognise the
/// line, small enough that a 10 MB garbage line does not end up in the database.
pub const EXCERPT_BYTES: usize = 512;

/// Where the diagnostic came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum DiagnosticSource {
    Stdout,
    Stderr,
    /// Produced by the RPC layer (unknown message shape, late response, …).
    Rpc,
}

/// What went wrong (or, for stderr, simply that something was logged).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "type")]
pub enum DiagnosticKind {
    /// A line longer than the configured cap; it was skipped without being buffered whole.
    OversizedLine { len: usize, max: usize },
    /// A line that is not valid UTF-8.
    InvalidUtf8,
    /// A line that is not JSON.
    InvalidJson,
    /// Valid JSON that fits no known message shape.
    UnknownMessage,
    /// A response whose id matches no pending request (e.g. it arrived after a timeout).
    UnmatchedResponse,
    /// A line the engine wrote to stderr.
    StderrLine,
    /// The stream failed with an I/O error (the reader then stops).
    ReadError,
}

/// One diagnostic event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    pub source: DiagnosticSource,
    pub kind: DiagnosticKind,
    /// Human-readable explanation (for stderr: the line itself).
    pub detail: String,
    /// The start of the offending input, lossily decoded, at most [`EXCERPT_BYTES`].
    pub excerpt: Option<String>,
}

impl Diagnostic {
    /// A diagnostic; `detail` is redacted of obvious secrets ([`redact`]).
    pub fn new(source: DiagnosticSource, kind: DiagnosticKind, detail: impl Into<String>) -> Self {
        Self {
            source,
            kind,
            detail: redact(&detail.into(), &[]),
            excerpt: None,
        }
    }

    /// Attach the beginning of the offending bytes (redacted like the detail).
    pub fn with_excerpt(mut self, bytes: &[u8]) -> Self {
        self.excerpt = Some(redact(&excerpt(bytes), &[]));
        self
    }
}

pub use crate::redact::{looks_like_secret_name, redact, register_secret, REDACTED};

/// The first [`EXCERPT_BYTES`] of `bytes`, decoded lossily, with a marker when cut.
pub fn excerpt(bytes: &[u8]) -> String {
    let cut = bytes.len() > EXCERPT_BYTES;
    let head = &bytes[..bytes.len().min(EXCERPT_BYTES)];
    let mut s = String::from_utf8_lossy(head).into_owned();
    if cut {
        s.push('…');
    }
    s
}
