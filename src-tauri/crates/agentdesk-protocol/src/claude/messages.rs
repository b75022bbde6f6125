//! The stream-json messages: what the CLI prints on stdout (system, stream_event, assistant,
//! user tool results, result) and the `user` message the host writes on stdin.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{ControlCancelRequest, ControlRequest, ControlResponse};

/// Fields we do not read, kept so a message re-serialises as received.
pub type Extra = Map<String, Value>;

tagged_union! {
    /// One line of stream-json, either direction (the SDK's `SDKMessage` plus the control
    /// envelope).
    SdkMessage, tag = "type" {
        System(SystemMessage) = "system",
        /// A raw Messages API streaming event (`--include-partial-messages`).
        StreamEvent(StreamEvent) = "stream_event",
        /// One content block of an assistant message (several share `message.id`).
        Assistant(AssistantMessage) = "assistant",
        /// Host → CLI: the prompt. CLI → host: tool results and interrupt markers.
        User(UserMessage) = "user",
        Result(ResultMessage) = "result",
        ControlRequest(ControlRequest) = "control_request",
        ControlResponse(ControlResponse) = "control_response",
        ControlCancelRequest(ControlCancelRequest) = "control_cancel_request",
        /// The account's limits changed (a subscription login: the API's
        /// `anthropic-ratelimit-unified-*` headers).
        RateLimitEvent(RateLimitEvent) = "rate_limit_event",
    }
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RateLimitEvent {
    pub rate_limit_info: RateLimitInfo,
    #[serde(default)]
    pub session_id: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// 2.1.328: `{status: allowed|allowed_warning|rejected, resetsAt (s), rateLimitType,
/// utilization?, unifiedWindows: {five_hour|seven_day|seven_day_overage_included:
/// {utilization 0–1, resetsAt (s), status}}}`.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RateLimitInfo {
    pub status: String,
    #[serde(default)]
    pub resets_at: Option<i64>,
    #[serde(default)]
    pub rate_limit_type: Option<String>,
    #[serde(default)]
    pub utilization: Option<f64>,
    #[serde(default)]
    pub unified_windows: Option<std::collections::BTreeMap<String, UnifiedWindow>>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UnifiedWindow {
    pub utilization: f64,
    #[serde(default)]
    pub resets_at: Option<i64>,
    #[serde(default)]
    pub status: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

tagged_union! {
    /// `type: "system"`, by `subtype`.
    SystemMessage, tag = "subtype" {
        /// Once per turn, after the user message.
        Init(SystemInit) = "init",
        Status(SystemStatus) = "status",
        ApiRetry(ApiRetry) = "api_retry",
        /// A tool use was denied without asking (rule, mode, no prompt tool).
        PermissionDenied(PermissionDenied) = "permission_denied",
        ThinkingTokens(ThinkingTokens) = "thinking_tokens",
        /// The set of background tasks (subagents, shells) changed: the whole set.
        BackgroundTasksChanged(BackgroundTasksChanged) = "background_tasks_changed",
        /// A subagent (the `Agent` tool) started, in the background on 2.1.328.
        TaskStarted(TaskStarted) = "task_started",
        TaskProgress(TaskProgress) = "task_progress",
        TaskUpdated(Empty) = "task_updated",
        /// A background task ended; the CLI then runs a turn of its own to report it.
        TaskNotification(TaskNotification) = "task_notification",
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BackgroundTasksChanged {
    #[serde(default)]
    pub tasks: Vec<BackgroundTask>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BackgroundTask {
    pub task_id: String,
    #[serde(default)]
    pub task_type: Option<String>,
    #[serde(default)]
    pub subagent_type: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `task_started`: `task_id` is the `agent_id` its messages and permission requests carry;
/// `tool_use_id` the `Agent` call that started it.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskStarted {
    pub task_id: String,
    #[serde(default)]
    pub tool_use_id: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub subagent_type: Option<String>,
    #[serde(default)]
    pub is_backgrounded: Option<bool>,
    #[serde(default)]
    pub task_type: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskProgress {
    pub task_id: String,
    #[serde(default)]
    pub tool_use_id: Option<String>,
    /// What it is doing now ("Running say hi").
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub last_tool_name: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `task_notification`: `status` is `completed`, `failed` or `killed`/`stopped`.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskNotification {
    pub task_id: String,
    #[serde(default)]
    pub tool_use_id: Option<String>,
    pub status: String,
    #[serde(default)]
    pub summary: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SystemInit {
    pub session_id: String,
    #[serde(default)]
    pub cwd: Option<String>,
    #[serde(default)]
    pub tools: Option<Vec<String>>,
    #[serde(default)]
    pub mcp_servers: Option<Vec<Value>>,
    #[serde(default)]
    pub model: Option<String>,
    #[serde(rename = "permissionMode", default)]
    pub permission_mode: Option<String>,
    #[serde(rename = "apiKeySource", default)]
    pub api_key_source: Option<String>,
    #[serde(default)]
    pub claude_code_version: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SystemStatus {
    /// `"requesting"`, or null when only the permission mode changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    #[serde(
        rename = "permissionMode",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub permission_mode: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// A failed model request that the CLI will retry (401 is retried 10×).
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ApiRetry {
    pub attempt: u32,
    pub max_retries: u32,
    #[serde(default)]
    pub retry_delay_ms: Option<u64>,
    #[serde(default)]
    pub error_status: Option<u16>,
    #[serde(default)]
    pub error: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PermissionDenied {
    pub tool_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_use_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThinkingTokens {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimated_tokens: Option<u64>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `type: "stream_event"`: a raw Messages API SSE event, re-emitted by the CLI.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StreamEvent {
    pub event: RawStreamEvent,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_tool_use_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

tagged_union! {
    /// Messages API streaming events, by `type`.
    RawStreamEvent, tag = "type" {
        MessageStart(MessageStart) = "message_start",
        ContentBlockStart(ContentBlockStart) = "content_block_start",
        ContentBlockDelta(ContentBlockDelta) = "content_block_delta",
        ContentBlockStop(ContentBlockStop) = "content_block_stop",
        MessageDelta(MessageDelta) = "message_delta",
        MessageStop(Empty) = "message_stop",
        Ping(Empty) = "ping",
        Error(StreamError) = "error",
    }
}

/// A body without fields we read.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Empty {
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MessageStart {
    /// The message shell (id, model, usage); content arrives in blocks.
    pub message: Value,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ContentBlockStart {
    pub index: u32,
    pub content_block: ContentBlock,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ContentBlockDelta {
    pub index: u32,
    pub delta: ContentDelta,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ContentBlockStop {
    pub index: u32,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MessageDelta {
    /// `stop_reason`, `stop_sequence`, ...
    pub delta: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Value>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StreamError {
    pub error: Value,
    #[serde(flatten)]
    pub extra: Extra,
}

tagged_union! {
    ContentDelta, tag = "type" {
        TextDelta(TextDelta) = "text_delta",
        ThinkingDelta(ThinkingDelta) = "thinking_delta",
        InputJsonDelta(InputJsonDelta) = "input_json_delta",
        SignatureDelta(SignatureDelta) = "signature_delta",
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TextDelta {
    pub text: String,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThinkingDelta {
    pub thinking: String,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InputJsonDelta {
    pub partial_json: String,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SignatureDelta {
    pub signature: String,
    #[serde(flatten)]
    pub extra: Extra,
}

tagged_union! {
    /// A Messages API content block (assistant output, tool results, user input).
    ContentBlock, tag = "type" {
        Text(TextBlock) = "text",
        Thinking(ThinkingBlock) = "thinking",
        RedactedThinking(RedactedThinkingBlock) = "redacted_thinking",
        ToolUse(ToolUseBlock) = "tool_use",
        ToolResult(ToolResultBlock) = "tool_result",
        Image(ImageBlock) = "image",
    }
}

impl ContentBlock {
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text(TextBlock {
            text: text.into(),
            extra: Extra::new(),
        })
    }

    /// An inline image: `media_type` like `image/png`, `data` base64 without a data-URL prefix.
    pub fn base64_image(media_type: impl Into<String>, data: impl Into<String>) -> Self {
        Self::Image(ImageBlock {
            source: ImageSource::Base64(Base64Source {
                media_type: media_type.into(),
                data: data.into(),
                extra: Extra::new(),
            }),
            extra: Extra::new(),
        })
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TextBlock {
    pub text: String,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThinkingBlock {
    pub thinking: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RedactedThinkingBlock {
    pub data: String,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolUseBlock {
    pub id: String,
    pub name: String,
    pub input: Value,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolResultBlock {
    pub tool_use_id: String,
    /// A string or a list of content blocks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    #[serde(flatten)]
    pub extra: Extra,
}

impl ToolResultBlock {
    /// The result as text (text parts joined by newlines).
    pub fn text(&self) -> String {
        match &self.content {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Array(parts)) => parts
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n"),
            Some(other) => other.to_string(),
            None => String::new(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImageBlock {
    pub source: ImageSource,
    #[serde(flatten)]
    pub extra: Extra,
}

tagged_union! {
    ImageSource, tag = "type" {
        Base64(Base64Source) = "base64",
        Url(UrlSource) = "url",
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Base64Source {
    pub media_type: String,
    pub data: String,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UrlSource {
    pub url: String,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `type: "assistant"`.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AssistantMessage {
    pub message: ApiMessage,
    #[serde(default)]
    pub parent_tool_use_id: Option<String>,
    #[serde(default)]
    pub session_id: Option<String>,
    /// Set on synthetic API-error messages (`authentication_failed`, ...).
    #[serde(default)]
    pub error: Option<String>,
    /// The block was cut short by an interrupt.
    #[serde(default)]
    pub aborted: Option<bool>,
    #[serde(flatten)]
    pub extra: Extra,
}

impl AssistantMessage {
    /// API errors come back as a fake assistant message from model `<synthetic>`.
    pub fn is_synthetic(&self) -> bool {
        self.error.is_some() || self.message.model.as_deref() == Some("<synthetic>")
    }
}

/// A Messages API message as the CLI echoes it.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ApiMessage {
    pub id: String,
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub role: Option<String>,
    pub content: Vec<ContentBlock>,
    #[serde(default)]
    pub stop_reason: Option<String>,
    #[serde(default)]
    pub usage: Option<Usage>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// Token counts (Messages API names).
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Usage {
    #[serde(default)]
    pub input_tokens: Option<u64>,
    #[serde(default)]
    pub output_tokens: Option<u64>,
    #[serde(default)]
    pub cache_creation_input_tokens: Option<u64>,
    #[serde(default)]
    pub cache_read_input_tokens: Option<u64>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `type: "user"`. Written by the host as the prompt; printed by the CLI for tool results.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UserMessage {
    pub message: UserMessageParam,
    #[serde(default)]
    pub parent_tool_use_id: Option<String>,
    #[serde(default)]
    pub session_id: Option<String>,
    /// The tool's structured result (Bash: `{stdout, stderr, interrupted}`), CLI → host.
    #[serde(default)]
    pub tool_use_result: Option<Value>,
    #[serde(flatten)]
    pub extra: Extra,
}

impl UserMessage {
    /// The prompt the host writes on stdin.
    pub fn prompt(content: Vec<ContentBlock>) -> Self {
        Self {
            message: UserMessageParam {
                role: "user".to_owned(),
                content: UserContent::Blocks(content),
                extra: Extra::new(),
            },
            parent_tool_use_id: None,
            session_id: Some(String::new()),
            tool_use_result: None,
            extra: Extra::new(),
        }
    }

    /// The content blocks (a plain string counts as one text block).
    pub fn blocks(&self) -> Vec<ContentBlock> {
        match &self.message.content {
            UserContent::Text(t) => vec![ContentBlock::text(t.clone())],
            UserContent::Blocks(b) => b.clone(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UserMessageParam {
    pub role: String,
    pub content: UserContent,
    #[serde(flatten)]
    pub extra: Extra,
}

/// A user message's content: a plain string or content blocks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum UserContent {
    Text(String),
    Blocks(Vec<ContentBlock>),
}

string_enum! {
    /// `result.subtype`.
    ResultSubtype {
        /// Also for API errors: then `is_error` is true.
        Success = "success",
        ErrorDuringExecution = "error_during_execution",
        ErrorMaxTurns = "error_max_turns",
        ErrorMaxBudgetUsd = "error_max_budget_usd",
        ErrorMaxStructuredOutputRetries = "error_max_structured_output_retries",
    }
}

string_enum! {
    /// `result.terminal_reason`: why the turn ended.
    TerminalReason {
        Completed = "completed",
        AbortedStreaming = "aborted_streaming",
        AbortedTools = "aborted_tools",
        MaxTurns = "max_turns",
        ApiError = "api_error",
    }
}

/// `type: "result"`: the end of a turn.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResultMessage {
    pub subtype: ResultSubtype,
    pub is_error: bool,
    #[serde(default)]
    pub result: Option<String>,
    #[serde(default)]
    pub errors: Option<Vec<String>>,
    pub session_id: String,
    #[serde(default)]
    pub num_turns: Option<u32>,
    #[serde(default)]
    pub duration_ms: Option<u64>,
    #[serde(default)]
    pub duration_api_ms: Option<u64>,
    /// Cumulative over the whole session, *including* earlier processes when resumed.
    #[serde(default)]
    pub total_cost_usd: Option<f64>,
    /// This turn's tokens.
    #[serde(default)]
    pub usage: Option<ResultUsage>,
    /// Per model, cumulative like `total_cost_usd`.
    #[serde(rename = "modelUsage", default)]
    pub model_usage: Option<Map<String, Value>>,
    /// Per model, since the previous `result`: this turn's cost.
    #[serde(default)]
    pub model_usage_since_last_result: Option<Map<String, Value>>,
    #[serde(default)]
    pub permission_denials: Option<Vec<Value>>,
    #[serde(default)]
    pub terminal_reason: Option<TerminalReason>,
    #[serde(default)]
    pub api_error_status: Option<u16>,
    #[serde(default)]
    pub stop_reason: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

impl ResultMessage {
    /// The cost of this turn: the sum of `model_usage_since_last_result[*].costUSD`, else
    /// `total_cost_usd` (which on a resumed session also counts earlier processes).
    pub fn turn_cost_usd(&self) -> Option<f64> {
        if let Some(per_model) = &self.model_usage_since_last_result {
            let costs: Vec<f64> = per_model
                .values()
                .filter_map(|m| m.get("costUSD").and_then(Value::as_f64))
                .collect();
            if !costs.is_empty() {
                return Some(costs.iter().sum());
            }
        }
        self.total_cost_usd
    }

    /// A sentence for the user when the turn failed.
    pub fn error_text(&self) -> String {
        let mut parts: Vec<&str> = Vec::new();
        if let Some(r) = self.result.as_deref().filter(|r| !r.trim().is_empty()) {
            parts.push(r);
        }
        for e in self.errors.iter().flatten() {
            // Internal diagnostics of the CLI, not for users.
            if !e.starts_with("[ede_diagnostic]") {
                parts.push(e);
            }
        }
        if parts.is_empty() {
            format!(
                "Claude Code ended the turn with `{}`",
                self.subtype.as_str()
            )
        } else {
            parts.join("\n")
        }
    }
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ResultUsage {
    #[serde(default)]
    pub input_tokens: Option<u64>,
    #[serde(default)]
    pub output_tokens: Option<u64>,
    #[serde(default)]
    pub cache_creation_input_tokens: Option<u64>,
    #[serde(default)]
    pub cache_read_input_tokens: Option<u64>,
    /// `{thinking_tokens}`.
    #[serde(default)]
    pub output_tokens_details: Option<Value>,
    #[serde(flatten)]
    pub extra: Extra,
}
