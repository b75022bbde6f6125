//! Claude Code's own session files: `<config dir>/projects/<folder>/<session id>.jsonl`, one
//! JSON record a line, appended as the session goes (claude 2.1.328; see the history tests,
//! which have the real CLI write them). Most lines are bookkeeping (`attachment`,
//! `api-request`, `queue-operation`, `cost-state`, …); the conversation is in `user` and
//! `assistant` records, one content block per assistant line. Titles come from `summary`,
//! `custom-title` and `ai-title` records.
//!
//! A reader first looks at a line's [`RecordHead`] (cheap: the rest is skipped, not built),
//! and parses a [`TranscriptRecord`] only for the kinds it uses.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{ApiMessage, Extra, UserMessageParam};

/// The fields every record is looked at for, before deciding to parse it whole.
#[derive(Debug, Clone, Deserialize)]
pub struct RecordHead {
    #[serde(rename = "type", default)]
    pub kind: Option<String>,
    /// Subagent (Task) activity, kept in the same file.
    #[serde(rename = "isSidechain", default)]
    pub is_sidechain: bool,
}

impl RecordHead {
    /// The record kinds a conversation is made of.
    pub fn is_conversation(&self) -> bool {
        matches!(
            self.kind.as_deref(),
            Some("user" | "assistant" | "summary" | "custom-title" | "ai-title")
        )
    }
}

tagged_union!(
    /// One record of a transcript, for the kinds the conversation is made of.
    TranscriptRecord, tag = "type" {
        User(UserRecord) = "user",
        Assistant(AssistantRecord) = "assistant",
        Summary(SummaryRecord) = "summary",
        CustomTitle(TitleRecord) = "custom-title",
        AiTitle(TitleRecord) = "ai-title",
    }
);

/// Where and when a record was written (the fields `user` and `assistant` records share).
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RecordMeta {
    #[serde(default)]
    pub uuid: Option<String>,
    /// RFC 3339, UTC (`2026-12-02T04:54:14.811Z`).
    #[serde(default)]
    pub timestamp: Option<String>,
    #[serde(default)]
    pub cwd: Option<String>,
    #[serde(default)]
    pub session_id: Option<String>,
    #[serde(default)]
    pub is_sidechain: bool,
    /// Written by the CLI itself (command caveats, hook output), not by the user.
    #[serde(default)]
    pub is_meta: bool,
    /// The claude version that wrote the record.
    #[serde(default)]
    pub version: Option<String>,
}

/// `type: "user"`: a prompt, or the results of tool calls.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UserRecord {
    pub message: UserMessageParam,
    #[serde(flatten)]
    pub meta: RecordMeta,
    /// The tool's structured result (Bash: `{stdout, stderr, interrupted}`; Edit/Write: the
    /// file's path and patch).
    #[serde(default)]
    pub tool_use_result: Option<Value>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `type: "assistant"`: one content block of a model message (the message id repeats).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AssistantRecord {
    pub message: ApiMessage,
    #[serde(flatten)]
    pub meta: RecordMeta,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `type: "summary"`: a title the CLI made for the conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SummaryRecord {
    pub summary: String,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `type: "custom-title"` (the user's `/rename`) or `"ai-title"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TitleRecord {
    #[serde(default, alias = "customTitle", alias = "aiTitle")]
    pub title: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}
