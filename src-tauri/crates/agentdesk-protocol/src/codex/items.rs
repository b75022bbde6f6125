//! Threads, turns and thread items (the things `item/started` / `item/completed` carry).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::client::UserInput;

// ---------------------------------------------------------------------------------------------
// threads and turns

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Thread {
    pub id: String,
    #[serde(default)]
    pub preview: Option<String>,
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub model_provider: Option<String>,
    #[serde(default)]
    pub cwd: Option<String>,
    /// The rollout file under CODEX_HOME/sessions.
    #[serde(default)]
    pub path: Option<String>,
    #[serde(default)]
    pub cli_version: Option<String>,
    /// The user's title for it (`/rename`), if any.
    #[serde(default)]
    pub name: Option<String>,
    /// `{type:"idle"}`, `{type:"active",activeFlags:[]}`, `{type:"systemError"}`, ...
    #[serde(default)]
    pub status: Option<Value>,
    #[serde(default)]
    pub created_at: Option<i64>,
    #[serde(default)]
    pub updated_at: Option<i64>,
    #[serde(default)]
    pub turns: Vec<Turn>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum TurnStatus {
    #[serde(rename = "inProgress")]
    InProgress,
    #[serde(rename = "completed")]
    Completed,
    #[serde(rename = "interrupted")]
    Interrupted,
    #[serde(rename = "failed")]
    Failed,
    #[serde(untagged)]
    Unknown(String),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnError {
    pub message: String,
    /// `"internalServerError"`, `"other"`, `{httpConnectionFailed:{httpStatusCode:401}}`, ...
    /// Kept raw: the set grows with every release.
    #[serde(default)]
    pub codex_error_info: Option<Value>,
    #[serde(default)]
    pub additional_details: Option<String>,
}

impl TurnError {
    /// The HTTP status of the model request, when codex says which (401 does; 500 arrives as
    /// `"internalServerError"` without a number).
    pub fn http_status(&self) -> Option<u16> {
        let info = self.codex_error_info.as_ref()?;
        for key in [
            "httpConnectionFailed",
            "responseStreamConnectionFailed",
            "responseStreamDisconnected",
        ] {
            if let Some(code) = info
                .get(key)
                .and_then(|v| v.get("httpStatusCode"))
                .and_then(Value::as_u64)
            {
                return u16::try_from(code).ok();
            }
        }
        match info.as_str() {
            Some("internalServerError") => Some(500),
            Some("unauthorized") => Some(401),
            _ => None,
        }
    }

    /// A short machine-readable code: the string form of `codexErrorInfo`, or its single key.
    pub fn code(&self) -> Option<String> {
        match self.codex_error_info.as_ref()? {
            Value::String(s) => Some(s.clone()),
            Value::Object(map) => map.keys().next().cloned(),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Turn {
    pub id: String,
    #[serde(default)]
    pub items: Vec<ThreadItem>,
    pub status: TurnStatus,
    #[serde(default)]
    pub error: Option<TurnError>,
    #[serde(default)]
    pub started_at: Option<i64>,
    #[serde(default)]
    pub completed_at: Option<i64>,
    #[serde(default)]
    pub duration_ms: Option<i64>,
}

// ---------------------------------------------------------------------------------------------
// items

/// A thread item. Unknown item types (codex adds them often: `hookPrompt`, `sleep`, ...) are
/// kept whole in `Unknown` and surface as diagnostics, never as errors.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum ThreadItem {
    #[serde(rename = "userMessage")]
    UserMessage(UserMessageItem),
    #[serde(rename = "agentMessage")]
    AgentMessage(AgentMessageItem),
    #[serde(rename = "reasoning")]
    Reasoning(ReasoningItem),
    #[serde(rename = "plan")]
    Plan(PlanItem),
    #[serde(rename = "commandExecution")]
    CommandExecution(CommandExecutionItem),
    #[serde(rename = "fileChange")]
    FileChange(FileChangeItem),
    #[serde(rename = "mcpToolCall")]
    McpToolCall(McpToolCallItem),
    #[serde(rename = "dynamicToolCall")]
    DynamicToolCall(DynamicToolCallItem),
    #[serde(rename = "webSearch")]
    WebSearch(WebSearchItem),
    #[serde(rename = "imageView")]
    ImageView(ImageViewItem),
    #[serde(rename = "contextCompaction")]
    ContextCompaction(ContextCompactionItem),
    /// A call of the multi-agent tools (`features.multi_agent`): spawn a sub-agent (a thread
    /// of its own), send it input, wait for it, close it.
    #[serde(rename = "collabAgentToolCall")]
    CollabAgentToolCall(CollabAgentToolCallItem),
    #[serde(untagged)]
    Unknown(Value),
}

impl ThreadItem {
    pub fn id(&self) -> Option<&str> {
        Some(match self {
            Self::UserMessage(i) => &i.id,
            Self::AgentMessage(i) => &i.id,
            Self::Reasoning(i) => &i.id,
            Self::Plan(i) => &i.id,
            Self::CommandExecution(i) => &i.id,
            Self::FileChange(i) => &i.id,
            Self::McpToolCall(i) => &i.id,
            Self::DynamicToolCall(i) => &i.id,
            Self::WebSearch(i) => &i.id,
            Self::ImageView(i) => &i.id,
            Self::ContextCompaction(i) => &i.id,
            Self::CollabAgentToolCall(i) => &i.id,
            Self::Unknown(v) => return v.get("id").and_then(Value::as_str),
        })
    }

    /// The wire `type` tag.
    pub fn type_name(&self) -> &str {
        match self {
            Self::UserMessage(_) => "userMessage",
            Self::AgentMessage(_) => "agentMessage",
            Self::Reasoning(_) => "reasoning",
            Self::Plan(_) => "plan",
            Self::CommandExecution(_) => "commandExecution",
            Self::FileChange(_) => "fileChange",
            Self::McpToolCall(_) => "mcpToolCall",
            Self::DynamicToolCall(_) => "dynamicToolCall",
            Self::WebSearch(_) => "webSearch",
            Self::ImageView(_) => "imageView",
            Self::ContextCompaction(_) => "contextCompaction",
            Self::CollabAgentToolCall(_) => "collabAgentToolCall",
            Self::Unknown(v) => v.get("type").and_then(Value::as_str).unwrap_or("unknown"),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UserMessageItem {
    pub id: String,
    #[serde(default)]
    pub content: Vec<UserInput>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentMessageItem {
    pub id: String,
    /// Empty on `item/started`; complete on `item/completed`.
    #[serde(default)]
    pub text: String,
    #[serde(default)]
    pub phase: Option<Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReasoningItem {
    pub id: String,
    #[serde(default)]
    pub summary: Vec<String>,
    /// Raw reasoning text, only when the provider sends it.
    #[serde(default)]
    pub content: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PlanItem {
    pub id: String,
    #[serde(default)]
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum CommandExecutionStatus {
    #[serde(rename = "inProgress")]
    InProgress,
    #[serde(rename = "completed")]
    Completed,
    #[serde(rename = "failed")]
    Failed,
    #[serde(rename = "declined")]
    Declined,
    #[serde(untagged)]
    Unknown(String),
}

/// `fileChange` items use the same four states.
pub type PatchApplyStatus = CommandExecutionStatus;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CommandExecutionItem {
    pub id: String,
    pub command: String,
    #[serde(default)]
    pub cwd: Option<String>,
    pub status: CommandExecutionStatus,
    #[serde(default)]
    pub command_actions: Vec<Value>,
    /// The first output chunk may never arrive as a delta: trust this on completion.
    #[serde(default)]
    pub aggregated_output: Option<String>,
    #[serde(default)]
    pub exit_code: Option<i32>,
    #[serde(default)]
    pub duration_ms: Option<i64>,
    #[serde(default)]
    pub process_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum PatchChangeKind {
    #[serde(rename = "add")]
    Add,
    #[serde(rename = "delete")]
    Delete,
    #[serde(rename = "update")]
    Update {
        #[serde(default)]
        move_path: Option<String>,
    },
    #[serde(untagged)]
    Unknown(Value),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileUpdateChange {
    pub path: String,
    pub kind: PatchChangeKind,
    #[serde(default)]
    pub diff: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileChangeItem {
    pub id: String,
    #[serde(default)]
    pub changes: Vec<FileUpdateChange>,
    pub status: PatchApplyStatus,
}

/// `collabAgentToolCall` (codex 0.169): `tool` is `spawnAgent | sendInput | resumeAgent |
/// wait | closeAgent | …`, `receiverThreadIds` the sub-agents' threads (known once spawned),
/// `agentsStates` their state by thread (`pendingInit | running | completed | …`, with their
/// last message once done).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CollabAgentToolCallItem {
    pub id: String,
    pub tool: String,
    /// `inProgress` | `completed` | `failed`.
    pub status: String,
    #[serde(default)]
    pub sender_thread_id: Option<String>,
    #[serde(default)]
    pub receiver_thread_ids: Vec<String>,
    #[serde(default)]
    pub prompt: Option<String>,
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub reasoning_effort: Option<String>,
    #[serde(default)]
    pub agents_states: std::collections::BTreeMap<String, CollabAgentState>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CollabAgentState {
    pub status: String,
    #[serde(default)]
    pub message: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct McpToolCallItem {
    pub id: String,
    pub server: String,
    pub tool: String,
    /// `inProgress` | `completed` | `failed`.
    pub status: String,
    #[serde(default)]
    pub arguments: Value,
    #[serde(default)]
    pub result: Option<Value>,
    #[serde(default)]
    pub error: Option<Value>,
    #[serde(default)]
    pub duration_ms: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DynamicToolCallItem {
    pub id: String,
    pub tool: String,
    pub status: String,
    #[serde(default)]
    pub arguments: Value,
    #[serde(default)]
    pub content_items: Option<Vec<Value>>,
    #[serde(default)]
    pub success: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WebSearchItem {
    pub id: String,
    #[serde(default)]
    pub query: String,
    #[serde(default)]
    pub action: Option<Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageViewItem {
    pub id: String,
    pub path: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContextCompactionItem {
    pub id: String,
}

// ---------------------------------------------------------------------------------------------
// usage

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TokenUsageBreakdown {
    #[serde(default)]
    pub total_tokens: i64,
    #[serde(default)]
    pub input_tokens: i64,
    #[serde(default)]
    pub cached_input_tokens: i64,
    #[serde(default)]
    pub output_tokens: i64,
    #[serde(default)]
    pub reasoning_output_tokens: i64,
}

impl TokenUsageBreakdown {
    /// `self - earlier`, clamped at zero (a new process may report smaller totals).
    pub fn saturating_sub(&self, earlier: &Self) -> Self {
        let d = |a: i64, b: i64| (a - b).max(0);
        Self {
            total_tokens: d(self.total_tokens, earlier.total_tokens),
            input_tokens: d(self.input_tokens, earlier.input_tokens),
            cached_input_tokens: d(self.cached_input_tokens, earlier.cached_input_tokens),
            output_tokens: d(self.output_tokens, earlier.output_tokens),
            reasoning_output_tokens: d(
                self.reasoning_output_tokens,
                earlier.reasoning_output_tokens,
            ),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ThreadTokenUsage {
    /// Thread totals: per-run usage is the difference of totals before and after the turn.
    pub total: TokenUsageBreakdown,
    pub last: TokenUsageBreakdown,
    #[serde(default)]
    pub model_context_window: Option<i64>,
}
