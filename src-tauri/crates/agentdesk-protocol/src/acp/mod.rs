//! Agent Client Protocol (ACP) wire types: the subset Agent Desk speaks as an ACP *client*
//! (JSON-RPC 2.0 over an agent's stdio), named like the protocol names them.
//!
//! Hand-written rather than taken from the `agent-client-protocol` crate (5.x) or its
//! schema-only crate: neither is in the offline dependency set this workspace builds from, and
//! we need every update and content kind to be forward compatible: an agent newer than this
//! build may send a `sessionUpdate` kind, a content block type or a stop reason we do not know,
//! and that must be kept (shown as a diagnostic), never fail the whole notification. Each
//! tagged enum here therefore has an `Unknown(Value)` arm that keeps the message whole, and
//! every struct ignores fields it does not name. Verified against opencode 1.18.33 and
//! Gemini CLI 0.61.0 transcripts (see the engine crate's `tests/fixtures/acp/`).

pub mod options;

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;
use ts_rs::TS;

/// The protocol version this client speaks.
pub const PROTOCOL_VERSION: u16 = 1;

/// Parse `v` as the known form, or keep it whole as `unknown` (never an error on content).
fn known_or<K: serde::de::DeserializeOwned, T>(
    v: Value,
    known: impl FnOnce(K) -> T,
    unknown: impl FnOnce(Value) -> T,
) -> T {
    match serde_json::from_value::<K>(v.clone()) {
        Ok(k) => known(k),
        Err(_) => unknown(v),
    }
}

// ---------------------------------------------------------------------------------------
// initialize

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileSystemCapability {
    #[serde(default)]
    pub read_text_file: bool,
    #[serde(default)]
    pub write_text_file: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientCapabilities {
    #[serde(default)]
    pub fs: FileSystemCapability,
    #[serde(default)]
    pub terminal: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Implementation {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default)]
    pub version: String,
}

/// `initialize` (client → agent).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeRequest {
    pub protocol_version: u16,
    pub client_capabilities: ClientCapabilities,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_info: Option<Implementation>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptCapabilities {
    #[serde(default)]
    pub image: bool,
    #[serde(default)]
    pub audio: bool,
    #[serde(default)]
    pub embedded_context: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentCapabilities {
    #[serde(default)]
    pub load_session: bool,
    #[serde(default)]
    pub prompt_capabilities: PromptCapabilities,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeResponse {
    #[serde(default)]
    pub protocol_version: u16,
    #[serde(default)]
    pub agent_capabilities: AgentCapabilities,
    #[serde(default)]
    pub auth_methods: Vec<Value>,
    #[serde(default)]
    pub agent_info: Option<Implementation>,
}

// ---------------------------------------------------------------------------------------
// sessions

/// `session/new`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NewSessionRequest {
    pub cwd: String,
    /// MCP servers for the agent to connect to (we pass none).
    pub mcp_servers: Vec<Value>,
}

/// `session/load`: the agent replays the history as `session/update`s, then answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LoadSessionRequest {
    pub session_id: String,
    pub cwd: String,
    pub mcp_servers: Vec<Value>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelInfo {
    pub model_id: String,
    #[serde(default)]
    pub name: String,
}

/// The models an agent offers (`session/set_model`; Gemini CLI).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionModelState {
    #[serde(default)]
    pub available_models: Vec<ModelInfo>,
    #[serde(default)]
    pub current_model_id: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConfigOptionValue {
    pub value: Value,
    #[serde(default)]
    pub name: String,
}

/// A session setting an agent offers (`session/set_config_option`; opencode's model and
/// mode selects).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionConfigOption {
    pub id: String,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub category: Option<String>,
    #[serde(default)]
    pub current_value: Value,
    #[serde(default)]
    pub options: Vec<ConfigOptionValue>,
}

/// What `session/new` and `session/load` answer besides the id.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionSetup {
    #[serde(default)]
    pub models: Option<SessionModelState>,
    #[serde(default)]
    pub config_options: Option<Vec<SessionConfigOption>>,
    #[serde(default)]
    pub modes: Option<Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NewSessionResponse {
    pub session_id: String,
    #[serde(flatten)]
    pub setup: SessionSetup,
}

/// `session/set_model` (unstable in the protocol; Gemini CLI offers it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SetSessionModelRequest {
    pub session_id: String,
    pub model_id: String,
}

/// `session/set_config_option`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SetSessionConfigOptionRequest {
    pub session_id: String,
    pub config_id: String,
    pub value: Value,
}

/// `session/cancel` (a notification).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CancelNotification {
    pub session_id: String,
}

// ---------------------------------------------------------------------------------------
// prompt

/// A piece of content (prompt, message chunk, tool output). Unknown types are kept whole.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentBlock {
    Text {
        text: String,
    },
    #[serde(rename_all = "camelCase")]
    Image {
        data: String,
        mime_type: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        uri: Option<String>,
    },
    #[serde(rename_all = "camelCase")]
    ResourceLink {
        uri: String,
        #[serde(default)]
        name: String,
    },
    #[serde(untagged)]
    Unknown(Value),
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum KnownContentBlock {
    Text {
        text: String,
    },
    #[serde(rename_all = "camelCase")]
    Image {
        data: String,
        mime_type: String,
        #[serde(default)]
        uri: Option<String>,
    },
    #[serde(rename_all = "camelCase")]
    ResourceLink {
        uri: String,
        #[serde(default)]
        name: String,
    },
}

impl<'de> Deserialize<'de> for ContentBlock {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        Ok(known_or(
            v,
            |k: KnownContentBlock| match k {
                KnownContentBlock::Text { text } => Self::Text { text },
                KnownContentBlock::Image {
                    data,
                    mime_type,
                    uri,
                } => Self::Image {
                    data,
                    mime_type,
                    uri,
                },
                KnownContentBlock::ResourceLink { uri, name } => Self::ResourceLink { uri, name },
            },
            Self::Unknown,
        ))
    }
}

impl ContentBlock {
    pub fn text(t: impl Into<String>) -> Self {
        Self::Text { text: t.into() }
    }

    /// The text of a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Self::Text { text } => Some(text),
            _ => None,
        }
    }
}

/// `session/prompt`: answered when the turn ends.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptRequest {
    pub session_id: String,
    pub prompt: Vec<ContentBlock>,
}

/// Why a turn ended; an unknown reason is kept as written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    EndTurn,
    MaxTokens,
    MaxTurnRequests,
    Refusal,
    Cancelled,
    #[serde(untagged)]
    Other(String),
}

impl StopReason {
    pub fn as_str(&self) -> &str {
        match self {
            Self::EndTurn => "end_turn",
            Self::MaxTokens => "max_tokens",
            Self::MaxTurnRequests => "max_turn_requests",
            Self::Refusal => "refusal",
            Self::Cancelled => "cancelled",
            Self::Other(s) => s,
        }
    }
}

/// Token counts of a turn (`usage` of the prompt result; unstable in the protocol, sent by
/// opencode).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptUsage {
    #[serde(default)]
    pub input_tokens: i64,
    #[serde(default)]
    pub output_tokens: i64,
    #[serde(default)]
    pub total_tokens: i64,
    #[serde(default)]
    pub thought_tokens: Option<i64>,
    #[serde(default)]
    pub cached_read_tokens: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptResponse {
    pub stop_reason: StopReason,
    #[serde(default)]
    pub usage: Option<PromptUsage>,
    #[serde(default, rename = "_meta")]
    pub meta: Option<Value>,
}

// ---------------------------------------------------------------------------------------
// session/update

/// `session/update` (agent → client, a notification).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionNotification {
    pub session_id: String,
    pub update: SessionUpdate,
}

/// A chunk of a user / agent message or thought.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContentChunk {
    pub content: ContentBlock,
    /// opencode names the message a chunk belongs to; Gemini CLI does not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_id: Option<String>,
}

/// What a tool does (`kind`); unknown kinds are kept as written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolKind {
    Read,
    Edit,
    Delete,
    Move,
    Search,
    Execute,
    Think,
    Fetch,
    SwitchMode,
    Other,
    #[serde(untagged)]
    Unknown(String),
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolCallStatus {
    Pending,
    InProgress,
    Completed,
    Failed,
    #[serde(untagged)]
    Unknown(String),
}

/// What a tool call shows: content, a file diff, a terminal. Unknown types are kept whole.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToolCallContent {
    Content {
        content: ContentBlock,
    },
    #[serde(rename_all = "camelCase")]
    Diff {
        path: String,
        /// `None` (or, from opencode, `""`) for a new file.
        #[serde(default)]
        old_text: Option<String>,
        new_text: String,
        #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
        meta: Option<Value>,
    },
    #[serde(untagged)]
    Unknown(Value),
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum KnownToolCallContent {
    Content {
        content: ContentBlock,
    },
    #[serde(rename_all = "camelCase")]
    Diff {
        path: String,
        #[serde(default)]
        old_text: Option<String>,
        new_text: String,
        #[serde(default, rename = "_meta")]
        meta: Option<Value>,
    },
}

impl<'de> Deserialize<'de> for ToolCallContent {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        Ok(known_or(
            v,
            |k: KnownToolCallContent| match k {
                KnownToolCallContent::Content { content } => Self::Content { content },
                KnownToolCallContent::Diff {
                    path,
                    old_text,
                    new_text,
                    meta,
                } => Self::Diff {
                    path,
                    old_text,
                    new_text,
                    meta,
                },
            },
            Self::Unknown,
        ))
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallLocation {
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
}

/// `tool_call`, `tool_call_update` and the `toolCall` of a permission request: every field
/// but the id is optional (an update carries only what changed; Gemini CLI asks about a
/// call it never announced).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallUpdate {
    pub tool_call_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<ToolKind>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<ToolCallStatus>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Vec<ToolCallContent>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locations: Option<Vec<ToolCallLocation>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_input: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_output: Option<Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PlanEntry {
    pub content: String,
    #[serde(default)]
    pub priority: Option<String>,
    #[serde(default)]
    pub status: Option<String>,
}

/// The agent's plan, whole (each `plan` update replaces the previous one).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Plan {
    #[serde(default)]
    pub entries: Vec<PlanEntry>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Cost {
    pub amount: f64,
    pub currency: String,
}

/// `usage_update`: the session's context window (`used` of `size` tokens) and its cost so
/// far; not the turn's token counts.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UsageUpdate {
    #[serde(default)]
    pub used: Option<i64>,
    #[serde(default)]
    pub size: Option<i64>,
    #[serde(default)]
    pub cost: Option<Cost>,
}

/// One `session/update`, tagged by `sessionUpdate`. Kinds this build does not know (or
/// cannot read) are kept whole as [`SessionUpdate::Unknown`].
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "sessionUpdate", rename_all = "snake_case")]
pub enum SessionUpdate {
    UserMessageChunk(ContentChunk),
    AgentMessageChunk(ContentChunk),
    AgentThoughtChunk(ContentChunk),
    ToolCall(ToolCallUpdate),
    ToolCallUpdate(ToolCallUpdate),
    Plan(Plan),
    UsageUpdate(UsageUpdate),
    /// Slash commands, mode and config changes, session info: nothing for the timeline.
    AvailableCommandsUpdate(Value),
    CurrentModeUpdate(Value),
    ConfigOptionUpdate(Value),
    SessionInfoUpdate(Value),
    #[serde(untagged)]
    Unknown(Value),
}

#[derive(Deserialize)]
#[serde(tag = "sessionUpdate", rename_all = "snake_case")]
enum KnownUpdate {
    UserMessageChunk(ContentChunk),
    AgentMessageChunk(ContentChunk),
    AgentThoughtChunk(ContentChunk),
    ToolCall(ToolCallUpdate),
    ToolCallUpdate(ToolCallUpdate),
    Plan(Plan),
    UsageUpdate(UsageUpdate),
    AvailableCommandsUpdate(Value),
    CurrentModeUpdate(Value),
    ConfigOptionUpdate(Value),
    SessionInfoUpdate(Value),
}

impl From<KnownUpdate> for SessionUpdate {
    fn from(k: KnownUpdate) -> Self {
        match k {
            KnownUpdate::UserMessageChunk(c) => Self::UserMessageChunk(c),
            KnownUpdate::AgentMessageChunk(c) => Self::AgentMessageChunk(c),
            KnownUpdate::AgentThoughtChunk(c) => Self::AgentThoughtChunk(c),
            KnownUpdate::ToolCall(t) => Self::ToolCall(t),
            KnownUpdate::ToolCallUpdate(t) => Self::ToolCallUpdate(t),
            KnownUpdate::Plan(p) => Self::Plan(p),
            KnownUpdate::UsageUpdate(u) => Self::UsageUpdate(u),
            KnownUpdate::AvailableCommandsUpdate(v) => Self::AvailableCommandsUpdate(v),
            KnownUpdate::CurrentModeUpdate(v) => Self::CurrentModeUpdate(v),
            KnownUpdate::ConfigOptionUpdate(v) => Self::ConfigOptionUpdate(v),
            KnownUpdate::SessionInfoUpdate(v) => Self::SessionInfoUpdate(v),
        }
    }
}

impl<'de> Deserialize<'de> for SessionUpdate {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        Ok(known_or(v, |k: KnownUpdate| Self::from(k), Self::Unknown))
    }
}

// ---------------------------------------------------------------------------------------
// permissions

/// What choosing an option means; unknown kinds are kept as written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PermissionOptionKind {
    AllowOnce,
    AllowAlways,
    RejectOnce,
    RejectAlways,
    #[serde(untagged)]
    Unknown(String),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PermissionOption {
    pub option_id: String,
    #[serde(default)]
    pub name: String,
    pub kind: PermissionOptionKind,
}

/// `session/request_permission` (agent → client, a request).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestPermissionRequest {
    pub session_id: String,
    pub tool_call: ToolCallUpdate,
    pub options: Vec<PermissionOption>,
}

/// The client's answer: one option, or `cancelled` (the turn is being cancelled, or nobody
/// will answer).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum RequestPermissionOutcome {
    Cancelled,
    #[serde(rename_all = "camelCase")]
    Selected {
        option_id: String,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RequestPermissionResponse {
    pub outcome: RequestPermissionOutcome,
}

// ---------------------------------------------------------------------------------------
// file system (agent → client)

/// `fs/read_text_file`: `line` is 1-based; `limit` counts lines.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadTextFileRequest {
    #[serde(default)]
    pub session_id: String,
    pub path: String,
    #[serde(default)]
    pub line: Option<u32>,
    #[serde(default)]
    pub limit: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReadTextFileResponse {
    pub content: String,
}

/// `fs/write_text_file` (answered `null`, as both verified agents accept).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WriteTextFileRequest {
    #[serde(default)]
    pub session_id: String,
    pub path: String,
    pub content: String,
}

// ---------------------------------------------------------------------------------------
// what Agent Desk records about a permission request

/// The ACP tool call an approval is about, as `approval.requested.detail`
/// (`{"source": "acpToolCall", ...}`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct AcpToolCallDetail {
    pub tool_call_id: String,
    #[serde(default)]
    pub title: Option<String>,
    /// The ACP tool kind as the agent wrote it (`execute`, `edit`, `fetch`, ...).
    #[serde(default)]
    pub tool_kind: Option<String>,
    #[serde(default)]
    #[ts(type = "unknown")]
    pub raw_input: Value,
    /// The option kinds the agent offered (`allow_once`, `allow_always`, `reject_once`, ...).
    #[serde(default)]
    pub offered: Vec<String>,
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests;
