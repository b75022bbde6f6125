//! Sessions, runs and the timeline they are made of.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use super::Engine;
use crate::events::{ApprovalFile, DiagnosticSource, FileChangeKind, ToolKind};
use crate::ids::{ApprovalId, ProfileId, RunId, SessionId, WorkspaceId};

/// A conversation with one engine, in one workspace, under one profile.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Session {
    pub id: SessionId,
    pub workspace_id: WorkspaceId,
    pub profile_id: Option<ProfileId>,
    pub title: String,
    pub engine: Engine,
    /// Codex thread id or Claude session id, once the engine has given one.
    pub engine_session_id: Option<String>,
    /// Where the session began: here, or in an engine's own terminal app (imported).
    pub origin: SessionOrigin,
    /// The git worktree the session runs in (its own folder and branch), when it has one.
    pub worktree: Option<String>,
    /// The worktree's branch (`agentdesk/<title>-<id>`).
    pub branch: Option<String>,
    /// The branch the worktree left and merges back into.
    pub base_branch: Option<String>,
    /// The model the session runs instead of its profile's (chosen in the composer).
    #[serde(default)]
    pub model: Option<String>,
    /// The reasoning effort instead of the profile's.
    #[serde(default)]
    pub effort: Option<String>,
    #[ts(type = "number")]
    pub created_at: i64,
    #[ts(type = "number")]
    pub updated_at: i64,
    #[ts(type = "number | null")]
    pub archived_at: Option<i64>,
}

impl Session {
    /// A session begun here at `at`, under no profile, with no engine session yet. Set the
    /// rest with `Session { profile_id, ..Session::begun(..) }`.
    pub fn begun(
        id: SessionId,
        workspace_id: WorkspaceId,
        engine: Engine,
        title: impl Into<String>,
        at: i64,
    ) -> Session {
        Session {
            id,
            workspace_id,
            profile_id: None,
            title: title.into(),
            engine,
            engine_session_id: None,
            origin: SessionOrigin::App,
            worktree: None,
            branch: None,
            base_branch: None,
            model: None,
            effort: None,
            created_at: at,
            updated_at: at,
            archived_at: None,
        }
    }
}

stored_enum! {
    case "kebab-case";
    /// Where a session began. Imported sessions come from the engines' own histories on this
    /// machine and are continued here like any other.
    #[derive(Default)]
    pub enum SessionOrigin {
        /// Started in Agent Desk.
        #[default]
        App,
        /// A thread of the Codex CLI (`codex`, `codex resume`).
        CodexCli,
        /// A Claude Code session (`claude`, `claude --resume`).
        ClaudeCode,
    }
}

impl SessionOrigin {
    /// How the window names the origin ("from Claude Code").
    pub fn display_name(self) -> &'static str {
        match self {
            Self::App => "Agent Desk",
            Self::CodexCli => "the Codex CLI",
            Self::ClaudeCode => "Claude Code",
        }
    }
}

stored_enum! {
    pub enum RunStatus {
        /// Waiting for the session's active run to end.
        Queued,
        Running,
        Completed,
        Failed,
        Interrupted,
    }
}

impl RunStatus {
    pub fn is_terminal(self) -> bool {
        matches!(self, Self::Completed | Self::Failed | Self::Interrupted)
    }
}

/// One user turn: a message (plus attachments) and what the engine did with it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Run {
    pub id: RunId,
    pub session_id: SessionId,
    /// 1-based position in the session.
    #[ts(type = "number")]
    pub seq: i64,
    pub status: RunStatus,
    pub prompt: String,
    pub profile_id: Option<ProfileId>,
    pub model: Option<String>,
    pub stop_reason: Option<String>,
    /// Why it failed, for the user.
    pub error: Option<String>,
    #[ts(type = "number")]
    pub created_at: i64,
    #[ts(type = "number | null")]
    pub started_at: Option<i64>,
    #[ts(type = "number | null")]
    pub ended_at: Option<i64>,
}

stored_enum! {
    /// Where an item is in its life.
    pub enum ItemStatus {
        /// Streaming or running.
        Running,
        Completed,
        Failed,
        /// The user (or a rule) said no.
        Declined,
        /// The run ended before the item did.
        Interrupted,
    }
}

/// A file attached to a user message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct AttachmentRef {
    pub sha256: String,
    pub name: String,
    pub mime: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum NoticeLevel {
    Info,
    Warning,
    Error,
}

/// What an item is; `kind` on the wire.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(
    tag = "kind",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum ItemBody {
    UserMessage {
        text: String,
        attachments: Vec<AttachmentRef>,
    },
    AgentMessage {
        text: String,
    },
    Reasoning {
        text: String,
    },
    /// A tool call with its approval inside (one card).
    ///
    /// An approval is owned by the queue (its record, [`super::Approval`]): an item names it
    /// by id and holds nothing else of it, so the card always shows the one record. Stored
    /// items of older builds embedded a copy (`approval: {approvalId, state, ...}`); the store
    /// reads them as their id.
    Tool {
        tool_kind: ToolKind,
        name: String,
        #[ts(type = "unknown")]
        input: Value,
        output: String,
        /// Set when `output` is cut (its head and tail): the size of the whole output, which
        /// is in a file ("Open full output", `open_tool_output`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(type = "number | null", optional)]
        output_bytes: Option<u64>,
        exit_code: Option<i32>,
        /// Files the tool changed, with diffs.
        files: Vec<ApprovalFile>,
        /// The approval asked about this call, if any (the queue's id).
        #[serde(default)]
        approval_id: Option<ApprovalId>,
    },
    /// A file change reported without a tool call to hang it on.
    FileChange {
        path: String,
        change_kind: FileChangeKind,
        diff: String,
    },
    /// An approval with no tool call to hang it on. `None` only when the queue could not
    /// record it (the request was denied then).
    Approval {
        #[serde(default)]
        approval_id: Option<ApprovalId>,
    },
    /// A question (asked through the approval queue: its questions and answers are the
    /// record's request and decision).
    Question {
        #[serde(default)]
        approval_id: Option<ApprovalId>,
    },
    Notice {
        level: NoticeLevel,
        text: String,
    },
    /// Engine stderr or an unknown message: shown in diagnostics, never as chat text.
    Diagnostic {
        source: DiagnosticSource,
        message: String,
        #[ts(type = "unknown")]
        raw: Option<Value>,
    },
    Usage(crate::ui::TokenUsage),
    /// The agent's plan as it last stood in this run (a live checklist).
    Plan(crate::plan::Plan),
}

impl ItemBody {
    /// The stored `kind` column.
    pub fn kind_name(&self) -> &'static str {
        match self {
            Self::UserMessage { .. } => "user_message",
            Self::AgentMessage { .. } => "agent_message",
            Self::Reasoning { .. } => "reasoning",
            Self::Tool { .. } => "tool",
            Self::FileChange { .. } => "file_change",
            Self::Approval { .. } => "approval",
            Self::Question { .. } => "question",
            Self::Notice { .. } => "notice",
            Self::Diagnostic { .. } => "diagnostic",
            Self::Usage(_) => "usage",
            Self::Plan(_) => "plan",
        }
    }
}

/// One timeline item, upserted by id while it streams.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct TimelineItem {
    /// Unique across the database: `<run id>:<engine item id>`.
    pub id: String,
    pub session_id: SessionId,
    pub run_id: RunId,
    /// Order within the run.
    #[ts(type = "number")]
    pub seq: i64,
    pub status: ItemStatus,
    pub body: ItemBody,
    #[ts(type = "number")]
    pub created_at: i64,
    #[ts(type = "number")]
    pub updated_at: i64,
    /// The tool call (a subagent's start) this item is nested under: its `id`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub parent_id: Option<String>,
}

/// A page of a session's timeline, oldest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct TimelinePage {
    pub items: Vec<TimelineItem>,
    /// Pass back to load the items before this page; `None` at the start of the session.
    #[ts(type = "number | null")]
    pub before: Option<i64>,
    /// Pass to `load_timeline_newer` for the items after this page: set on a page loaded
    /// forwards when newer items are stored; absent when it reaches the newest one (and on
    /// pages loaded backwards, which end where the caller's view goes on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "number")]
    pub after: Option<i64>,
}
