//! The control protocol: requests both ways inside one envelope, answered by request id.
//!
//! ```text
//! {"type":"control_request","request_id":ID,"request":{"subtype":…}}
//! {"type":"control_response","response":{"subtype":"success","request_id":ID,"response":{…}}}
//! {"type":"control_response","response":{"subtype":"error","request_id":ID,"error":"msg"}}
//! {"type":"control_cancel_request","request_id":ID}      (the CLI withdrew its request)
//! ```

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::Extra;

/// `type: "control_request"`. Host → CLI ids look like `req_1_ab12cd34`; CLI → host ids are uuids.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ControlRequest {
    pub request_id: String,
    pub request: ControlRequestBody,
    #[serde(flatten)]
    pub extra: Extra,
}

impl ControlRequest {
    pub fn new(request_id: impl Into<String>, request: ControlRequestBody) -> Self {
        Self {
            request_id: request_id.into(),
            request,
            extra: Extra::new(),
        }
    }
}

tagged_union! {
    /// The request, by `subtype`. Host → CLI: initialize, interrupt, set_permission_mode,
    /// set_model. CLI → host: can_use_tool, hook_callback, mcp_message.
    ControlRequestBody, tag = "subtype" {
        Initialize(InitializeRequest) = "initialize",
        Interrupt(InterruptRequest) = "interrupt",
        SetPermissionMode(SetPermissionModeRequest) = "set_permission_mode",
        SetModel(SetModelRequest) = "set_model",
        McpStatus(McpStatusRequest) = "mcp_status",
        CanUseTool(CanUseToolRequest) = "can_use_tool",
        HookCallback(HookCallbackRequest) = "hook_callback",
        McpMessage(McpMessageRequest) = "mcp_message",
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct InitializeRequest {
    /// `{"PreToolUse": [{"matcher": "Bash", "hookCallbackIds": ["hook_0"]}], …}`; `null` for none
    /// (the SDKs send an explicit null).
    #[serde(default)]
    pub hooks: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agents: Option<Value>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `mcp_status`: the session's MCP servers, reply
/// `{"mcpServers": [{"name", "status", "error"?, "serverInfo"?, "config", "tools"?: [{"name"}]}]}`
/// (2.1.328; `config` echoes headers with their variables expanded: never shown or logged).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct McpStatusRequest {
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct InterruptRequest {
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SetPermissionModeRequest {
    /// `default | acceptEdits | plan | bypassPermissions`
    pub mode: String,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SetModelRequest {
    /// `None` = back to the default model.
    #[serde(default)]
    pub model: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// The CLI asks whether a tool may run (with `--permission-prompt-tool stdio`).
/// `AskUserQuestion` arrives here too, with `requires_user_interaction: true`.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CanUseToolRequest {
    pub tool_name: String,
    pub input: Value,
    #[serde(default)]
    pub tool_use_id: Option<String>,
    #[serde(default)]
    pub display_name: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub permission_suggestions: Option<Vec<PermissionUpdate>>,
    #[serde(default)]
    pub blocked_path: Option<String>,
    #[serde(default)]
    pub decision_reason: Option<Value>,
    /// `workingDir | mode | …`
    #[serde(default)]
    pub decision_reason_type: Option<String>,
    #[serde(default)]
    pub requires_user_interaction: Option<bool>,
    /// Set when a subagent asks (its `task_id`).
    #[serde(default)]
    pub agent_id: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HookCallbackRequest {
    pub callback_id: String,
    pub input: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_use_id: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// A JSON-RPC message for an in-process (`type: "sdk"`) MCP server; answered with
/// `{"mcp_response": <JSON-RPC>}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct McpMessageRequest {
    pub server_name: String,
    pub message: Value,
    #[serde(flatten)]
    pub extra: Extra,
}

/// A permission rule change (`addRules`, `setMode`, `addDirectories`, ...), as suggested by
/// the CLI and sent back in an allow decision.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PermissionUpdate {
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default)]
    pub rules: Option<Vec<PermissionRule>>,
    #[serde(default)]
    pub behavior: Option<String>,
    /// `session` (this process only), `localSettings` (writes `.claude/settings.local.json`),
    /// `projectSettings`, `userSettings`.
    #[serde(default)]
    pub destination: Option<String>,
    #[serde(default)]
    pub mode: Option<String>,
    #[serde(default)]
    pub directories: Option<Vec<String>>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PermissionRule {
    pub tool_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule_content: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `type: "control_response"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ControlResponse {
    pub response: ControlResponseBody,
    #[serde(flatten)]
    pub extra: Extra,
}

impl ControlResponse {
    pub fn success(request_id: impl Into<String>, response: Value) -> Self {
        Self {
            response: ControlResponseBody::Success(ControlSuccess {
                request_id: request_id.into(),
                response: Some(response),
                extra: Extra::new(),
            }),
            extra: Extra::new(),
        }
    }

    pub fn error(request_id: impl Into<String>, error: impl Into<String>) -> Self {
        Self {
            response: ControlResponseBody::Error(ControlError {
                request_id: request_id.into(),
                error: error.into(),
                error_code: None,
                extra: Extra::new(),
            }),
            extra: Extra::new(),
        }
    }

    /// The id this answers (`None` for an unknown body without one).
    pub fn request_id(&self) -> Option<&str> {
        match &self.response {
            ControlResponseBody::Success(s) => Some(&s.request_id),
            ControlResponseBody::Error(e) => Some(&e.request_id),
            ControlResponseBody::Unknown(v) => v.get("request_id").and_then(Value::as_str),
        }
    }
}

tagged_union! {
    ControlResponseBody, tag = "subtype" {
        Success(ControlSuccess) = "success",
        Error(ControlError) = "error",
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ControlSuccess {
    pub request_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<Value>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ControlError {
    pub request_id: String,
    pub error: String,
    /// e.g. `unsupported_request`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_code: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `type: "control_cancel_request"`: the CLI withdrew a request of its own (e.g. a pending
/// `can_use_tool` when the turn is interrupted). It must not be answered any more.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ControlCancelRequest {
    pub request_id: String,
    #[serde(flatten)]
    pub extra: Extra,
}

/// The `initialize` reply (the fields we read; the rest is large and changes often).
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct InitializeResponse {
    #[serde(default)]
    pub commands: Option<Vec<Value>>,
    #[serde(default)]
    pub models: Option<Vec<Value>>,
    #[serde(default)]
    pub account: Option<AccountInfo>,
    #[serde(default)]
    pub pid: Option<u32>,
    #[serde(default)]
    pub claude_code_version: Option<String>,
    #[serde(default)]
    pub current_permission_mode: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// How the CLI would authenticate: `tokenSource` (OAuth login) and `apiKeySource`.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AccountInfo {
    #[serde(default)]
    pub token_source: Option<String>,
    #[serde(default)]
    pub api_key_source: Option<String>,
    #[serde(default)]
    pub api_provider: Option<String>,
    #[serde(default)]
    pub email: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

impl AccountInfo {
    /// A login token or an API key is available. With neither, every turn ends with
    /// "Not logged in · Please run /login".
    pub fn is_logged_in(&self) -> bool {
        let real = |s: &Option<String>| s.as_deref().is_some_and(|v| !v.is_empty() && v != "none");
        real(&self.token_source) || real(&self.api_key_source)
    }
}

tagged_union! {
    /// The answer to `can_use_tool`, by `behavior`.
    PermissionResult, tag = "behavior" {
        Allow(PermissionAllow) = "allow",
        Deny(PermissionDeny) = "deny",
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PermissionAllow {
    /// What runs: the original input or an edited one.
    pub updated_input: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_permissions: Option<Vec<PermissionUpdate>>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PermissionDeny {
    /// Becomes the tool result the model sees.
    pub message: String,
    /// `true` also ends the turn (`terminal_reason: aborted_tools`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interrupt: Option<bool>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// The answer to `mcp_message`: `{"mcp_response": <JSON-RPC reply>}` (the SDKs'
/// `mcp_response` field).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct McpMessageResponse {
    pub mcp_response: JsonRpcReply,
}

impl McpMessageResponse {
    /// Agent Desk runs no in-process (`type: "sdk"`) MCP server: a request (it has an `id`)
    /// gets JSON-RPC's "method not found" naming the server; a notification an empty result.
    pub fn no_such_server(server_name: &str, message: &Value) -> Self {
        let mcp_response = match message.get("id") {
            Some(id) => JsonRpcReply {
                jsonrpc: JsonRpcReply::VERSION.to_owned(),
                id: Some(id.clone()),
                result: None,
                error: Some(JsonRpcError {
                    code: JsonRpcError::METHOD_NOT_FOUND,
                    message: format!("Agent Desk has no in-process MCP server `{server_name}`"),
                }),
            },
            None => JsonRpcReply {
                jsonrpc: JsonRpcReply::VERSION.to_owned(),
                id: None,
                result: Some(Value::Object(Extra::new())),
                error: None,
            },
        };
        Self { mcp_response }
    }
}

/// A JSON-RPC 2.0 reply (the MCP SDK's `JSONRPCResponse` / `JSONRPCError`): `result` or
/// `error`, with the request's `id` when it had one.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonRpcReply {
    /// Always `"2.0"`.
    pub jsonrpc: String,
    #[serde(default)]
    pub id: Option<Value>,
    #[serde(default)]
    pub result: Option<Value>,
    #[serde(default)]
    pub error: Option<JsonRpcError>,
}

impl JsonRpcReply {
    pub const VERSION: &'static str = "2.0";
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonRpcError {
    pub code: i64,
    pub message: String,
}

impl JsonRpcError {
    /// JSON-RPC's "Method not found".
    pub const METHOD_NOT_FOUND: i64 = -32601;
}

/// The answer to `hook_callback` (the SDKs' `SyncHookJSONOutput`, the fields we send).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HookJsonOutput {
    /// `false` stops Claude after the hook; `true` lets it go on.
    #[serde(rename = "continue")]
    pub continue_: bool,
}

impl HookJsonOutput {
    /// Go on as if no hook were registered.
    pub const CONTINUE: Self = Self { continue_: true };
}
