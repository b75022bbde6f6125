//! Canonical, engine-neutral events: the timeline of a run is made of these, whichever engine
//! produced it. Adapters translate engine-native messages into [`AgentEvent`]s; the core's run
//! reducer, the store and the UI only ever see these.
//!
//! Serialized as `{"type": "message.delta", ...camelCase fields}`. Derives `TS`; the lead
//! exports the bindings centrally (no `#[ts(export)]` here).

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use crate::approval_detail::ApprovalDetail;

/// What kind of tool an item is, for the card the UI draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ToolKind {
    Command,
    FileChange,
    Mcp,
    Web,
    /// A subagent the agent started: its own items are nested under this call.
    Agent,
    Other,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ToolStatus {
    Running,
    Completed,
    Failed,
    /// The user (or a rule) said no; the run went on.
    Declined,
    /// The run ended (interrupt, crash) before the tool finished.
    Interrupted,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum FileChangeKind {
    Add,
    Delete,
    Update,
    Move,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalKind {
    Command,
    FileChange,
    Permission,
    Tool,
}

/// A file an approval is about, with the change when known.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalFile {
    pub path: String,
    pub kind: FileChangeKind,
    pub diff: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct QuestionOption {
    pub label: String,
    pub description: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Question {
    pub id: String,
    pub header: Option<String>,
    pub question: String,
    pub options: Vec<QuestionOption>,
    /// A free-text answer is allowed besides the options.
    pub allow_other: bool,
    pub secret: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum DiagnosticSource {
    /// A line the engine wrote on stderr.
    Stderr,
    /// An engine message the adapter does not understand (kept, never dropped).
    UnknownMessage,
    /// Something the adapter did on the user's behalf (restart, fresh session after a failed
    /// resume, ...): shown on the timeline as a notice.
    Notice,
    /// A warning the engine sent.
    Warning,
}

/// What was decided on an approval, whoever decided it (the user in the app, the CLI or a
/// notification; a profile rule; the deadline, which always denies): the one decision
/// vocabulary from the engine adapters to the window. Adapters map it to the engine's wire
/// decision (codex: accept / acceptForSession / decline — never `cancel`, which would also
/// end the turn). Who decided is [`crate::ui::DecidedBy`]; what became of the approval is
/// [`ApprovalState`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum UserDecision {
    ApproveOnce,
    ApproveForSession,
    Deny,
}

stored_enum! {
    /// Where an approval (or a question) is in its life: `pending` → one of the others, exactly
    /// once. The one state vocabulary: the queue's record, the store, the engine's
    /// `approval.resolved` and the window all say it with this.
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
}

impl ApprovalState {
    pub fn is_pending(self) -> bool {
        self == Self::Pending
    }
}

impl From<UserDecision> for ApprovalState {
    fn from(d: UserDecision) -> Self {
        match d {
            UserDecision::ApproveOnce => Self::ApprovedOnce,
            UserDecision::ApproveForSession => Self::ApprovedSession,
            UserDecision::Deny => Self::Denied,
        }
    }
}

/// One canonical event. `itemId`s are the engine's item ids, stable within a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "type")]
pub enum AgentEvent {
    #[serde(rename = "run.started", rename_all = "camelCase")]
    RunStarted {
        model: Option<String>,
        tools: Vec<String>,
        /// The engine's own id for the conversation (codex thread id, claude session id).
        engine_session_id: Option<String>,
    },
    #[serde(rename = "message.delta", rename_all = "camelCase")]
    MessageDelta { item_id: String, text: String },
    #[serde(rename = "message.completed", rename_all = "camelCase")]
    MessageCompleted { item_id: String, text: String },
    #[serde(rename = "reasoning.delta", rename_all = "camelCase")]
    ReasoningDelta { item_id: String, text: String },
    #[serde(rename = "reasoning.completed", rename_all = "camelCase")]
    ReasoningCompleted { item_id: String, text: String },
    #[serde(rename = "tool.started", rename_all = "camelCase")]
    ToolStarted {
        item_id: String,
        kind: ToolKind,
        name: String,
        #[ts(type = "unknown")]
        input: Value,
    },
    /// Streaming output of a running tool (appended).
    #[serde(rename = "tool.updated", rename_all = "camelCase")]
    ToolUpdated {
        item_id: String,
        kind: ToolKind,
        output: String,
    },
    #[serde(rename = "tool.completed", rename_all = "camelCase")]
    ToolCompleted {
        item_id: String,
        kind: ToolKind,
        name: String,
        #[ts(type = "unknown")]
        input: Value,
        /// The full output (not a delta): authoritative over the streamed pieces.
        output: Option<String>,
        status: ToolStatus,
        exit_code: Option<i32>,
    },
    /// The item `item_id` is the work of a subagent started by the tool call
    /// `parent_item_id`: sent before the item's first event, so it is drawn nested there.
    #[serde(rename = "item.parent", rename_all = "camelCase")]
    ItemParent {
        item_id: String,
        parent_item_id: String,
    },
    #[serde(rename = "file.changed", rename_all = "camelCase")]
    FileChanged {
        item_id: String,
        path: String,
        kind: FileChangeKind,
        diff: String,
    },
    #[serde(rename = "approval.requested", rename_all = "camelCase")]
    ApprovalRequested {
        /// Adapter-minted key (uuid v7) to resolve it with; unique for the adapter's lifetime.
        request_id: String,
        kind: ApprovalKind,
        item_id: Option<String>,
        command: Option<String>,
        cwd: Option<String>,
        files: Vec<ApprovalFile>,
        reason: Option<String>,
        /// Engine-specific detail (the tool and its input, the permissions asked for...).
        #[serde(default)]
        detail: Option<Box<ApprovalDetail>>,
        /// The subagent that asks, in words (`general-purpose: Count files`), when not the
        /// run's own agent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        subagent: Option<String>,
    },
    /// How the request ended as far as the engine side knows (decided, expired, cancelled).
    #[serde(rename = "approval.resolved", rename_all = "camelCase")]
    ApprovalResolved {
        request_id: String,
        outcome: ApprovalState,
    },
    #[serde(rename = "question.asked", rename_all = "camelCase")]
    QuestionAsked {
        request_id: String,
        item_id: Option<String>,
        questions: Vec<Question>,
    },
    /// `answers` is `None` when the question expired unanswered.
    #[serde(rename = "question.answered", rename_all = "camelCase")]
    QuestionAnswered {
        request_id: String,
        answers: Option<std::collections::BTreeMap<String, Vec<String>>>,
    },
    /// The agent's plan changed: the whole checklist as it now stands. One item per run
    /// (`item_id` is the same for every update of a run's plan), replaced in place.
    #[serde(rename = "plan.updated", rename_all = "camelCase")]
    PlanUpdated {
        item_id: String,
        plan: crate::plan::Plan,
    },
    /// The account's rate limits as the engine now reports them (not a timeline item: the
    /// status bar shows the latest).
    #[serde(rename = "rate_limits.updated")]
    RateLimits(crate::rate_limits::RateLimits),
    /// The commands the agent offers for `/` (an ACP agent's `available_commands_update`):
    /// not a timeline item; the core keeps the latest for the composer.
    #[serde(rename = "commands.available", rename_all = "camelCase")]
    CommandsAvailable {
        commands: Vec<crate::ui::SlashCommand>,
    },
    /// Token usage of this run (not of the whole session).
    #[serde(rename = "usage")]
    Usage(crate::ui::TokenUsage),
    #[serde(rename = "run.completed", rename_all = "camelCase")]
    RunCompleted { stop_reason: String },
    #[serde(rename = "run.failed", rename_all = "camelCase")]
    RunFailed {
        /// A sentence for the user.
        error: String,
        /// Machine-readable cause when known (`http_401`, `engine_crashed`, ...).
        code: Option<String>,
    },
    #[serde(rename = "run.interrupted")]
    RunInterrupted {},
    #[serde(rename = "engine.diagnostic", rename_all = "camelCase")]
    EngineDiagnostic {
        source: DiagnosticSource,
        message: String,
        #[ts(type = "unknown")]
        raw: Option<Value>,
    },
}

impl AgentEvent {
    /// The wire name (`"message.delta"`, ...), handy for logs and tests.
    pub fn type_name(&self) -> &'static str {
        match self {
            Self::RunStarted { .. } => "run.started",
            Self::MessageDelta { .. } => "message.delta",
            Self::MessageCompleted { .. } => "message.completed",
            Self::ReasoningDelta { .. } => "reasoning.delta",
            Self::ReasoningCompleted { .. } => "reasoning.completed",
            Self::ToolStarted { .. } => "tool.started",
            Self::ToolUpdated { .. } => "tool.updated",
            Self::ToolCompleted { .. } => "tool.completed",
            Self::ItemParent { .. } => "item.parent",
            Self::FileChanged { .. } => "file.changed",
            Self::ApprovalRequested { .. } => "approval.requested",
            Self::ApprovalResolved { .. } => "approval.resolved",
            Self::QuestionAsked { .. } => "question.asked",
            Self::QuestionAnswered { .. } => "question.answered",
            Self::PlanUpdated { .. } => "plan.updated",
            Self::RateLimits(_) => "rate_limits.updated",
            Self::CommandsAvailable { .. } => "commands.available",
            Self::Usage(_) => "usage",
            Self::RunCompleted { .. } => "run.completed",
            Self::RunFailed { .. } => "run.failed",
            Self::RunInterrupted {} => "run.interrupted",
            Self::EngineDiagnostic { .. } => "engine.diagnostic",
        }
    }

    /// Ends the run: nothing follows for this run.
    pub fn is_terminal(&self) -> bool {
        matches!(
            self,
            Self::RunCompleted { .. } | Self::RunFailed { .. } | Self::RunInterrupted {}
        )
    }
}

stored_enum! {
    /// The `run.failed` codes Agent Desk itself gives. Engines add their own (`http_401`, the
    /// CLI's error subtypes) and a run that never reached its engine carries the core's error
    /// code (`engine_missing`, ...), so the event keeps a string; these are the ones our code
    /// produces and matches on.
    pub enum FailureCode {
        /// The engine process died mid-run.
        EngineCrashed,
        /// The engine said nothing for the inactivity limit (the watchdog stopped it).
        EngineSilent,
        /// The engine's final result was over the line size limit.
        OversizedResult,
        /// The adapter went away without a terminal event.
        NoEnd,
    }
}

impl FailureCode {
    /// Every code (the names come from strum: no list kept by hand).
    pub const ALL: &'static [FailureCode] = <Self as strum::VariantArray>::VARIANTS;
}

impl std::fmt::Display for FailureCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl AgentEvent {
    /// `run.failed` with one of Agent Desk's own codes.
    pub fn run_failed(error: impl Into<String>, code: FailureCode) -> Self {
        Self::RunFailed {
            error: error.into(),
            code: Some(code.as_str().to_owned()),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn tagged_with_dotted_names_and_camel_case_fields() {
        let e = AgentEvent::MessageDelta {
            item_id: "m1".into(),
            text: "hi".into(),
        };
        let v = serde_json::to_value(&e).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"type": "message.delta", "itemId": "m1", "text": "hi"})
        );
        assert_eq!(serde_json::from_value::<AgentEvent>(v).unwrap(), e);
        let v = serde_json::to_value(AgentEvent::RunInterrupted {}).unwrap();
        assert_eq!(v, serde_json::json!({"type": "run.interrupted"}));
        let e = AgentEvent::ToolStarted {
            item_id: "c".into(),
            kind: ToolKind::FileChange,
            name: "apply_patch".into(),
            input: Value::Null,
        };
        assert_eq!(serde_json::to_value(&e).unwrap()["kind"], "file_change");
        assert_eq!(e.type_name(), "tool.started");
    }

    #[test]
    fn failure_codes_read_back_and_others_stay_strings() {
        for &c in FailureCode::ALL {
            assert_eq!(FailureCode::parse(c.as_str()), Some(c));
        }
        assert_eq!(FailureCode::parse("http_401"), None);
        let v = serde_json::to_value(AgentEvent::run_failed("gone", FailureCode::EngineCrashed))
            .unwrap();
        assert_eq!(
            v,
            serde_json::json!({"type": "run.failed", "error": "gone", "code": "engine_crashed"})
        );
    }

    #[test]
    fn ts_declaration_builds() {
        let decl = AgentEvent::decl(&ts_rs::Config::default());
        assert!(decl.contains("\"message.delta\""), "{decl}");
    }
}
