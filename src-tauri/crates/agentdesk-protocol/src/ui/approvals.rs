//! The durable approval queue as the UI sees it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use crate::approval_detail::ApprovalDetail;
pub use crate::events::ApprovalState;
use crate::events::{ApprovalFile, Question};
use crate::ids::{ApprovalId, RunId, SessionId};

stored_enum! {
    /// What an approval is about. Questions go through the same queue as their own kind.
    pub enum ApprovalKindName {
        Command,
        FileChange,
        Permission,
        Tool,
        Question,
    }
}

stored_enum! {
    /// Who took the decision.
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
    /// The subagent that asks, in words, when not the run's own agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub subagent: Option<String>,
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
    pub id: ApprovalId,
    pub session_id: SessionId,
    pub run_id: RunId,
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
    /// An approval left the pending set (decided, expired, cancelled, timed out), or was
    /// decided by a rule the moment it was asked (it never was pending).
    Resolved { approval: Approval },
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use serde::Serialize;
    use strum::VariantArray;

    use super::*;
    use crate::ui::{ItemStatus, RunStatus};

    /// Every stored name is the serde name (the store writes `as_str`, the UI reads serde), and
    /// parses back; an unknown name is `None`.
    fn names_agree<T>(as_str: fn(T) -> &'static str, parse: fn(&str) -> Option<T>)
    where
        T: VariantArray + Serialize + Copy + PartialEq + std::fmt::Debug,
    {
        for &v in T::VARIANTS {
            assert_eq!(serde_json::to_value(v).unwrap(), as_str(v), "{v:?}");
            assert_eq!(parse(as_str(v)), Some(v));
        }
        assert_eq!(parse("no_such_name"), None);
    }

    #[test]
    fn stored_names_are_the_serde_names() {
        names_agree(ApprovalKindName::as_str, ApprovalKindName::parse);
        names_agree(ApprovalState::as_str, ApprovalState::parse);
        names_agree(DecidedBy::as_str, DecidedBy::parse);
        names_agree(RunStatus::as_str, RunStatus::parse);
        names_agree(ItemStatus::as_str, ItemStatus::parse);
        assert_eq!(ApprovalState::TimedOut.as_str(), "timed_out");
        assert_eq!(ApprovalKindName::FileChange.as_str(), "file_change");
    }
}
