//! Client → server requests and their responses.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::items::{Thread, Turn};

// ---------------------------------------------------------------------------------------------
// initialize

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientInfo {
    pub name: String,
    /// Sent as `null` when absent: codex accepts both, and the transcripts show `null`.
    pub title: Option<String>,
    pub version: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeCapabilities {
    /// Unlocks the experimental methods (plan collaboration mode, `item/tool/requestUserInput`).
    #[serde(default)]
    pub experimental_api: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_attestation: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeParams {
    pub client_info: ClientInfo,
    pub capabilities: Option<InitializeCapabilities>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeResponse {
    pub user_agent: String,
    #[serde(default)]
    pub codex_home: Option<String>,
    #[serde(default)]
    pub platform_family: Option<String>,
    #[serde(default)]
    pub platform_os: Option<String>,
}

// ---------------------------------------------------------------------------------------------
// shared settings

/// `approvalPolicy`. The granular object form is kept raw in `Other`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum AskForApproval {
    #[serde(rename = "untrusted")]
    Untrusted,
    #[serde(rename = "on-request")]
    OnRequest,
    #[serde(rename = "never")]
    Never,
    #[serde(untagged)]
    Other(Value),
}

/// `sandbox` on thread/start and thread/resume (the per-turn `sandboxPolicy` is an object and
/// stays raw JSON).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum SandboxMode {
    #[serde(rename = "read-only")]
    ReadOnly,
    #[serde(rename = "workspace-write")]
    WorkspaceWrite,
    #[serde(rename = "danger-full-access")]
    DangerFullAccess,
    #[serde(untagged)]
    Other(Value),
}

// ---------------------------------------------------------------------------------------------
// thread/start, thread/resume

#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ThreadStartParams {
    #[serde(default)]
    pub cwd: Option<String>,
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub model_provider: Option<String>,
    #[serde(default)]
    pub approval_policy: Option<AskForApproval>,
    #[serde(default)]
    pub sandbox: Option<SandboxMode>,
    /// Dotted config overrides, like `-c` on the command line.
    #[serde(default)]
    pub config: Option<Map<String, Value>>,
    #[serde(default)]
    pub base_instructions: Option<String>,
    #[serde(default)]
    pub developer_instructions: Option<String>,
    #[serde(default)]
    pub ephemeral: Option<bool>,
}

/// thread/start and thread/resume answer with the same shape.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ThreadStartResponse {
    pub thread: Thread,
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub model_provider: Option<String>,
    #[serde(default)]
    pub cwd: Option<String>,
    #[serde(default)]
    pub approval_policy: Option<AskForApproval>,
    /// The effective sandbox policy object (`{type:"workspaceWrite",...}`), kept raw.
    #[serde(default)]
    pub sandbox: Option<Value>,
    #[serde(default)]
    pub reasoning_effort: Option<String>,
}

pub type ThreadResumeResponse = ThreadStartResponse;

#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ThreadResumeParams {
    pub thread_id: String,
    #[serde(default)]
    pub cwd: Option<String>,
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub model_provider: Option<String>,
    #[serde(default)]
    pub approval_policy: Option<AskForApproval>,
    #[serde(default)]
    pub sandbox: Option<SandboxMode>,
    #[serde(default)]
    pub config: Option<Map<String, Value>>,
    #[serde(default)]
    pub base_instructions: Option<String>,
    #[serde(default)]
    pub developer_instructions: Option<String>,
    /// `true` skips the full-history hydration that 0.169 calls deprecated (a
    /// `deprecationNotice` follows a resume without it); we keep history in our own store.
    #[serde(default)]
    pub exclude_turns: Option<bool>,
}

// ---------------------------------------------------------------------------------------------
// turn/start, turn/interrupt

/// One piece of user input on `turn/start` (also echoed in the `userMessage` item).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum UserInput {
    #[serde(rename = "text")]
    Text {
        text: String,
        /// Always sent (codex's own clients send `[]`); UI spans we do not use.
        #[serde(default)]
        text_elements: Vec<Value>,
    },
    /// A file on disk; codex reads it and sends it to the model as a data-URL `input_image`.
    #[serde(rename = "localImage")]
    LocalImage {
        path: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        detail: Option<Value>,
    },
    /// A URL (a `data:` URL works).
    #[serde(rename = "image")]
    Image {
        url: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        detail: Option<Value>,
    },
    /// A skill the message invokes (`$name`): codex loads its instructions into the turn.
    #[serde(rename = "skill")]
    Skill { name: String, path: String },
    #[serde(untagged)]
    Unknown(Value),
}

impl UserInput {
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text {
            text: text.into(),
            text_elements: Vec::new(),
        }
    }
    pub fn local_image(path: impl Into<String>) -> Self {
        Self::LocalImage {
            path: path.into(),
            detail: None,
        }
    }
    pub fn image_url(url: impl Into<String>) -> Self {
        Self::Image {
            url: url.into(),
            detail: None,
        }
    }
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnStartParams {
    pub thread_id: String,
    pub input: Vec<UserInput>,
    #[serde(default)]
    pub approval_policy: Option<AskForApproval>,
    /// Per-turn sandbox policy object, e.g. `{type:"workspaceWrite", excludeSlashTmp:true,...}`.
    #[serde(default)]
    pub sandbox_policy: Option<Value>,
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub effort: Option<String>,
    #[serde(default)]
    pub cwd: Option<String>,
    /// Experimental (plan mode); kept raw.
    #[serde(default)]
    pub collaboration_mode: Option<Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnStartResponse {
    pub turn: Turn,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnInterruptParams {
    pub thread_id: String,
    pub turn_id: String,
}

/// `turn/interrupt` answers `{}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TurnInterruptResponse {}

// ---------------------------------------------------------------------------------------------
// account/read, model/list

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetAccountParams {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum Account {
    #[serde(rename = "apiKey")]
    ApiKey {},
    #[serde(rename = "chatgpt", rename_all = "camelCase")]
    Chatgpt {
        #[serde(default)]
        email: Option<String>,
        #[serde(default)]
        plan_type: Option<Value>,
    },
    #[serde(untagged)]
    Unknown(Value),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetAccountResponse {
    pub account: Option<Account>,
    /// With the default provider and no account, a turn retries forever offline: the adapter
    /// refuses to start one and says why instead.
    pub requires_openai_auth: bool,
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelListParams {
    #[serde(default)]
    pub cursor: Option<String>,
    #[serde(default)]
    pub limit: Option<u32>,
    #[serde(default)]
    pub include_hidden: Option<bool>,
    #[serde(default)]
    pub model_provider: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Model {
    pub id: String,
    pub model: String,
    pub display_name: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub hidden: bool,
    #[serde(default)]
    pub is_default: bool,
    #[serde(default)]
    pub default_reasoning_effort: Option<String>,
    #[serde(default)]
    pub supported_reasoning_efforts: Vec<ReasoningEffortOption>,
    #[serde(default)]
    pub input_modalities: Option<Vec<String>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReasoningEffortOption {
    pub reasoning_effort: String,
    #[serde(default)]
    pub description: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelListResponse {
    pub data: Vec<Model>,
    #[serde(default)]
    pub next_cursor: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SkillsListParams {
    /// Empty: the server's working directory.
    pub cwds: Vec<String>,
    #[serde(default)]
    pub force_reload: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SkillsListResponse {
    pub data: Vec<SkillsListEntry>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SkillsListEntry {
    pub cwd: String,
    #[serde(default)]
    pub skills: Vec<SkillMetadata>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SkillMetadata {
    pub name: String,
    #[serde(default)]
    pub description: String,
    pub path: String,
    #[serde(default)]
    pub enabled: bool,
    #[serde(default)]
    pub short_description: Option<String>,
}

/// `mcpServerStatus/list`: the MCP servers of the app-server's config, each started and asked
/// for its tools (0.169).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListMcpServerStatusParams {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListMcpServerStatusResponse {
    pub data: Vec<McpServerStatusEntry>,
    #[serde(default)]
    pub next_cursor: Option<String>,
}

/// One server: its tools by name, or why they could not be listed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct McpServerStatusEntry {
    pub name: String,
    #[serde(default)]
    pub tools: std::collections::BTreeMap<String, McpToolEntry>,
    #[serde(default)]
    pub tools_error: Option<String>,
    /// `unsupported`, `notLoggedIn`, `bearerToken`, `oAuth`...
    #[serde(default)]
    pub auth_status: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct McpToolEntry {
    pub name: String,
    #[serde(default)]
    pub description: Option<String>,
}

/// `account/login/start`: an API key (stored by codex in its home), the ChatGPT browser flow
/// (codex listens on 127.0.0.1 for the callback) or a device code.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum LoginAccountParams {
    #[serde(rename = "apiKey", rename_all = "camelCase")]
    ApiKey { api_key: String },
    #[serde(rename = "chatgpt")]
    Chatgpt {},
    #[serde(rename = "chatgptDeviceCode")]
    ChatgptDeviceCode {},
}

/// The start's answer: done (`apiKey`), or a login id with where the user goes next.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum LoginAccountResponse {
    #[serde(rename = "apiKey")]
    ApiKey {},
    #[serde(rename = "chatgpt", rename_all = "camelCase")]
    Chatgpt { login_id: String, auth_url: String },
    #[serde(rename = "chatgptDeviceCode", rename_all = "camelCase")]
    ChatgptDeviceCode {
        login_id: String,
        #[serde(default, alias = "verificationUri")]
        verification_url: Option<String>,
        #[serde(default)]
        user_code: Option<String>,
    },
    #[serde(untagged)]
    Unknown(Value),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CancelLoginAccountParams {
    pub login_id: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CancelLoginAccountResponse {
    #[serde(flatten)]
    pub extra: serde_json::Map<String, Value>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LogoutAccountParams {}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LogoutAccountResponse {}
