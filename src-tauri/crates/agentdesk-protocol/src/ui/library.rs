//! Attachments, usage, search results.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::ids::{RunId, SessionId, WorkspaceId};

stored_enum! {
    pub enum AttachmentKind {
        /// Passed to the engine as an image (codex localImage, claude image block).
        Image,
        /// Passed as a path the agent can read, mentioned in the prompt.
        File,
    }
}

/// A content-addressed blob in `<data dir>/attachments/<sha256>`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Attachment {
    pub sha256: String,
    /// Sniffed from the bytes, not the file name.
    pub mime: String,
    pub kind: AttachmentKind,
    #[ts(type = "number")]
    pub size: i64,
    /// The name the user gave it (the original file name).
    pub name: String,
    /// Absolute path of the stored blob (what the engines are given).
    pub path: String,
}

/// Token counts and cost of one run: the one shape the engines' usage
/// reports are translated into, the timeline's usage item and the sums share.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct TokenUsage {
    #[ts(type = "number")]
    pub input: i64,
    #[ts(type = "number")]
    pub cached: i64,
    #[ts(type = "number")]
    pub output: i64,
    #[ts(type = "number")]
    pub reasoning: i64,
    /// `None` when the engine (or no run of a sum) reported a cost.
    pub cost_usd: Option<f64>,
}

/// Token counts and cost summed over runs (a session's, a workspace's).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    #[serde(flatten)]
    pub tokens: TokenUsage,
    /// How many runs the sum covers (1 for a run's own usage).
    #[ts(type = "number")]
    pub runs: i64,
}

impl From<TokenUsage> for Usage {
    /// One run's usage as a sum of one.
    fn from(tokens: TokenUsage) -> Self {
        Self { tokens, runs: 1 }
    }
}

/// A piece of a search snippet; `highlight` pieces matched the query.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SnippetPart {
    pub text: String,
    pub highlight: bool,
}

/// One message that matched a full-text search, best first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SearchHit {
    pub item_id: String,
    pub session_id: SessionId,
    pub session_title: String,
    pub workspace_id: WorkspaceId,
    pub run_id: RunId,
    /// `user_message` or `agent_message`.
    pub kind: String,
    /// Plain text pieces (never HTML), with the matches marked.
    pub snippet: Vec<SnippetPart>,
    /// bm25: lower is better.
    pub rank: f64,
    #[ts(type = "number")]
    pub created_at: i64,
}

/// What deleting a session removes: the window's confirm names it before anything goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SessionFootprint {
    /// User and agent messages (the searchable conversation).
    pub messages: u32,
    pub runs: u32,
    /// Distinct attached files; those no other session uses are deleted with it.
    pub attachments: u32,
}

/// The two export formats: Markdown to read, JSON with every stored item to process.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ExportFormat {
    Markdown,
    Json,
}

impl ExportFormat {
    /// The file extension a saved export gets.
    pub fn extension(self) -> &'static str {
        match self {
            Self::Markdown => "md",
            Self::Json => "json",
        }
    }
}
