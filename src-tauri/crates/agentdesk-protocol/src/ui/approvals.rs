//! The durable approval queue as the UI sees it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use crate::approval_detail::ApprovalDetail;
use crate::events::{ApprovalFile, Question};

/// What an approval is about. Questions go through the same queue as their own kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalKindName {
    Command,
    FileChange,
    Permission,
    Tool,
    Question,
}

impl ApprovalKindName {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Command => "command",
            Self::FileChange => "file_change",
            Self::Permission => "permission",
            Self::Tool => "tool",
            Self::Question => "question",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "command" => Self::Command,
            "file_change" => Self::FileChange,
            "permission" => Self::Permission,
            "tool" => Self::Tool,
            "question" => Self::Question,
            _ => return None,
        })
    }
}

/// `pending` → one of the others, exactly once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalState {
    Pending,
    ApprovedOnce,
    ApprovedSession,
    Denied,
    /// The engine or the app went away before anyone answered. Not a denial.
    Expired,
    /// Withdrawn on purpose (the run was interrupted or the engine withdrew it).
    Cancelled,
    /// The profile's deadline passed: the engine got a safe deny, recorded as this.
    TimedOut,
    /// A question that got its answers.
    Answered,
}

impl ApprovalState {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::ApprovedOnce => "approved_once",
            Self::ApprovedSession => "approved_session",
            Self::Denied => "denied",
            Self::Expired => "expired",
            Self::Cancelled => "cancelled",
            Self::TimedOut => "timed_out",
            Self::Answered => "answered",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "pending" => Self::Pending,
            "approved_once" => Self::ApprovedOnce,
            "approved_session" => Self::ApprovedSession,
            "denied" => Self::Denied,
            "expired" => Self::Expired,
            "cancelled" => Self::Cancelled,
            "timed_out" => Self::TimedOut,
            "answered" => Self::Answered,
            _ => return None,
        })
    }

    pub fn is_pending(self) -> bool {
        self == Self::Pending
    }
}

/// Who took the decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum DecidedBy {
    /// The user, in the app (or the CLI).
    User,
    /// The user, from an OS notification's action button.
    Notification,
    /// A profile rule or an "always for this session" choice.
    Rule,
    /// The profile's deadline passed.
    Deadline,
}

impl DecidedBy {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::User => "user",
            Self::Notification => "notification",
            Self::Rule => "rule",
            Self::Deadline => "deadline",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "user" => Self::User,
            "notification" => Self::Notification,
            "rule" => Self::Rule,
            "deadline" => Self::Deadline,
            _ => return None,
        })
    }
}

/// What exactly is asked.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalRequest {
    /// The tool asking (Claude `Bash`, `Write`, an MCP tool...), when known.
    #[serde(default)]
    pub tool: Option<String>,
    #[serde(default)]
    pub command: Option<String>,
    #[serde(default)]
    pub cwd: Option<String>,
    #[serde(default)]
    pub files: Vec<ApprovalFile>,
    #[serde(default)]
    pub reason: Option<String>,
    /// For questions.
    #[serde(default)]
    pub questions: Vec<Question>,
    /// Engine-specific detail: the tool's input, the permissions asked for...
    #[serde(default)]
    pub detail: Option<Box<ApprovalDetail>>,
}

/// The details of a decision: a deny message, or a question's answers.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalDecisionDetail {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answers: Option<BTreeMap<String, Vec<String>>>,
    /// Which rule decided, in words, when a rule did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
}

/// A durable approval record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Approval {
    /// Stable id (uuid v7).
    pub id: String,
    pub session_id: String,
    pub run_id: String,
    /// The timeline item (tool call) it belongs to.
    pub item_id: Option<String>,
    /// The engine-side request id (adapter-minted), as text.
    pub engine_request_id: String,
    pub kind: ApprovalKindName,
    pub request: ApprovalRequest,
    #[ts(type = "unknown")]
    pub suggestions: Value,
    pub state: ApprovalState,
    pub decided_by: Option<DecidedBy>,
    pub decision: Option<ApprovalDecisionDetail>,
    #[ts(type = "number")]
    pub created_at: i64,
    #[ts(type = "number | null")]
    pub deadline_at: Option<i64>,
    #[ts(type = "number | null")]
    pub decided_at: Option<i64>,
}

/// One change of the approval queue, pushed to subscribers (notifications, badge, cards).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ApprovalChange {
    /// A new approval waits for the user.
    Added { approval: Approval },
    /// An approval left the pending set (decided, expired, cancelled, timed out).
    Resolved { approval: Approval },
}
