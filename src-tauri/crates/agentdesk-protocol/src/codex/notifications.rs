//! Server → client notifications, parsed from the `(method, params)` pair the RPC peer hands
//! over. A notification whose method is unknown, or whose params do not fit the known shape,
//! becomes [`ServerNotification::Unknown`] with the raw params: kept, never dropped.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::items::{Thread, ThreadItem, ThreadTokenUsage, Turn, TurnError};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ThreadStartedNotification {
    pub thread: Thread,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ThreadStatusChangedNotification {
    pub thread_id: String,
    /// `{type:"idle"|"active"|"systemError"|..., activeFlags?}`
    pub status: Value,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ThreadTokenUsageUpdatedNotification {
    pub thread_id: String,
    /// After a resume codex replays the last totals with the *previous* turn's id.
    pub turn_id: String,
    pub token_usage: ThreadTokenUsage,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnStartedNotification {
    pub thread_id: String,
    pub turn: Turn,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnCompletedNotification {
    pub thread_id: String,
    pub turn: Turn,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ItemStartedNotification {
    pub item: ThreadItem,
    pub thread_id: String,
    pub turn_id: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ItemCompletedNotification {
    pub item: ThreadItem,
    pub thread_id: String,
    pub turn_id: String,
}

/// The shape shared by the text deltas: `item/agentMessage/delta`,
/// `item/commandExecution/outputDelta`, `item/fileChange/outputDelta`, `item/plan/delta`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentMessageDeltaNotification {
    pub thread_id: String,
    pub turn_id: String,
    pub item_id: String,
    pub delta: String,
}

pub type CommandExecutionOutputDeltaNotification = AgentMessageDeltaNotification;
pub type FileChangeOutputDeltaNotification = AgentMessageDeltaNotification;
pub type PlanDeltaNotification = AgentMessageDeltaNotification;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReasoningSummaryTextDeltaNotification {
    pub thread_id: String,
    pub turn_id: String,
    pub item_id: String,
    pub delta: String,
    #[serde(default)]
    pub summary_index: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReasoningSummaryPartAddedNotification {
    pub thread_id: String,
    pub turn_id: String,
    pub item_id: String,
    #[serde(default)]
    pub summary_index: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReasoningTextDeltaNotification {
    pub thread_id: String,
    pub turn_id: String,
    pub item_id: String,
    pub delta: String,
    #[serde(default)]
    pub content_index: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnDiffUpdatedNotification {
    pub thread_id: String,
    pub turn_id: String,
    pub diff: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnPlanUpdatedNotification {
    pub thread_id: String,
    pub turn_id: String,
    #[serde(default)]
    pub explanation: Option<String>,
    pub plan: Vec<TurnPlanStep>,
}

/// One step of `update_plan`'s checklist. `status` is `pending | inProgress | completed` in
/// 0.169; kept a string so a status a later codex adds is reported, not a failed parse.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnPlanStep {
    pub step: String,
    pub status: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ErrorNotification {
    pub error: TurnError,
    /// `true` while codex is still retrying ("Reconnecting... 2/5"): not yet a failure.
    pub will_retry: bool,
    pub thread_id: String,
    pub turn_id: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WarningNotification {
    #[serde(default)]
    pub thread_id: Option<String>,
    pub message: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerRequestResolvedNotification {
    #[serde(default)]
    pub thread_id: Option<String>,
    /// The id of the server request that was answered (an integer in 0.169).
    pub request_id: Value,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeprecationNoticeNotification {
    pub summary: String,
    #[serde(default)]
    pub details: Option<String>,
}

/// `account/rateLimits/updated`: a sparse rolling update of the account's limits (a `null`
/// field is "not known now", not "cleared").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AccountRateLimitsUpdatedNotification {
    pub rate_limits: RateLimitSnapshot,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RateLimitSnapshot {
    #[serde(default)]
    pub limit_id: Option<String>,
    #[serde(default)]
    pub primary: Option<RateLimitWindowSnapshot>,
    #[serde(default)]
    pub secondary: Option<RateLimitWindowSnapshot>,
    /// `rate_limit_reached`, `workspace_member_usage_limit_reached`, ...
    #[serde(default)]
    pub rate_limit_reached_type: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RateLimitWindowSnapshot {
    pub used_percent: f64,
    #[serde(default)]
    pub window_duration_mins: Option<i64>,
    /// Unix time, seconds.
    #[serde(default)]
    pub resets_at: Option<i64>,
}

/// `mcpServer/startupStatus/updated`: one of the thread's MCP servers is `starting`, `ready`
/// or `failed` (0.169; `error`/`failureReason` say why).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct McpServerStartupStatusUpdatedNotification {
    pub name: String,
    pub status: String,
    #[serde(default)]
    pub error: Option<String>,
    #[serde(default)]
    pub failure_reason: Option<String>,
    #[serde(default)]
    pub thread_id: Option<String>,
}

/// `account/login/completed`: a login flow ended (`loginId` null for an API key).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AccountLoginCompletedNotification {
    #[serde(default)]
    pub login_id: Option<String>,
    pub success: bool,
    #[serde(default)]
    pub error: Option<String>,
}

by_method! {
    /// A server → client notification.
    pub enum ServerNotification {
        ThreadStarted(ThreadStartedNotification) = "thread/started",
        ThreadStatusChanged(ThreadStatusChangedNotification) = "thread/status/changed",
        ThreadTokenUsageUpdated(ThreadTokenUsageUpdatedNotification) = "thread/tokenUsage/updated",
        TurnStarted(TurnStartedNotification) = "turn/started",
        TurnCompleted(TurnCompletedNotification) = "turn/completed",
        TurnDiffUpdated(TurnDiffUpdatedNotification) = "turn/diff/updated",
        TurnPlanUpdated(TurnPlanUpdatedNotification) = "turn/plan/updated",
        ItemStarted(ItemStartedNotification) = "item/started",
        ItemCompleted(ItemCompletedNotification) = "item/completed",
        AgentMessageDelta(AgentMessageDeltaNotification) = "item/agentMessage/delta",
        PlanDelta(PlanDeltaNotification) = "item/plan/delta",
        ReasoningSummaryTextDelta(ReasoningSummaryTextDeltaNotification) = "item/reasoning/summaryTextDelta",
        ReasoningSummaryPartAdded(ReasoningSummaryPartAddedNotification) = "item/reasoning/summaryPartAdded",
        ReasoningTextDelta(ReasoningTextDeltaNotification) = "item/reasoning/textDelta",
        CommandExecutionOutputDelta(CommandExecutionOutputDeltaNotification) = "item/commandExecution/outputDelta",
        FileChangeOutputDelta(FileChangeOutputDeltaNotification) = "item/fileChange/outputDelta",
        Error(ErrorNotification) = "error",
        Warning(WarningNotification) = "warning",
        ServerRequestResolved(ServerRequestResolvedNotification) = "serverRequest/resolved",
        DeprecationNotice(DeprecationNoticeNotification) = "deprecationNotice",
        AccountRateLimitsUpdated(AccountRateLimitsUpdatedNotification) = "account/rateLimits/updated",
        McpServerStartupStatusUpdated(McpServerStartupStatusUpdatedNotification) = "mcpServer/startupStatus/updated",
        AccountLoginCompleted(AccountLoginCompletedNotification) = "account/login/completed",
    }
}

impl ServerNotification {
    /// The thread this notification belongs to, for multiplexing one app-server over many
    /// sessions. `None` for process-wide notifications.
    pub fn thread_id(&self) -> Option<&str> {
        match self {
            Self::ThreadStarted(n) => Some(&n.thread.id),
            Self::ThreadStatusChanged(n) => Some(&n.thread_id),
            Self::ThreadTokenUsageUpdated(n) => Some(&n.thread_id),
            Self::TurnStarted(n) => Some(&n.thread_id),
            Self::TurnCompleted(n) => Some(&n.thread_id),
            Self::TurnDiffUpdated(n) => Some(&n.thread_id),
            Self::TurnPlanUpdated(n) => Some(&n.thread_id),
            Self::ItemStarted(n) => Some(&n.thread_id),
            Self::ItemCompleted(n) => Some(&n.thread_id),
            Self::AgentMessageDelta(n)
            | Self::PlanDelta(n)
            | Self::CommandExecutionOutputDelta(n)
            | Self::FileChangeOutputDelta(n) => Some(&n.thread_id),
            Self::ReasoningSummaryTextDelta(n) => Some(&n.thread_id),
            Self::ReasoningSummaryPartAdded(n) => Some(&n.thread_id),
            Self::ReasoningTextDelta(n) => Some(&n.thread_id),
            Self::Error(n) => Some(&n.thread_id),
            Self::Warning(n) => n.thread_id.as_deref(),
            Self::ServerRequestResolved(n) => n.thread_id.as_deref(),
            Self::McpServerStartupStatusUpdated(n) => n.thread_id.as_deref(),
            Self::DeprecationNotice(_)
            | Self::AccountRateLimitsUpdated(_)
            | Self::AccountLoginCompleted(_) => None,
            Self::Unknown { params, .. } => params.get("threadId").and_then(Value::as_str),
        }
    }
}
