//! Server → client requests (approvals, questions, elicitations) and the responses we send.
//! Every one of them must be answered, or codex waits forever; unknown methods are answered
//! with JSON-RPC -32601 by the adapter.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// `item/commandExecution/requestApproval`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CommandExecutionRequestApprovalParams {
    pub thread_id: String,
    pub turn_id: String,
    pub item_id: String,
    #[serde(default)]
    pub command: Option<String>,
    #[serde(default)]
    pub cwd: Option<String>,
    #[serde(default)]
    pub reason: Option<String>,
    #[serde(default)]
    pub command_actions: Option<Vec<Value>>,
    #[serde(default)]
    pub proposed_execpolicy_amendment: Option<Vec<String>>,
    /// What the UI may offer; 0.169 lists `accept`, the amendment and `cancel`, yet honours
    /// `decline` too (verified): we always offer decline for a plain "no".
    #[serde(default)]
    pub available_decisions: Option<Vec<Value>>,
}

/// `item/fileChange/requestApproval`. Carries **no paths**: they are in the `fileChange` item
/// with the same `itemId`, announced just before.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileChangeRequestApprovalParams {
    pub thread_id: String,
    pub turn_id: String,
    pub item_id: String,
    #[serde(default)]
    pub reason: Option<String>,
    #[serde(default)]
    pub grant_root: Option<String>,
}

/// `item/permissions/requestApproval`: the agent asks for extra filesystem/network access.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PermissionsRequestApprovalParams {
    pub thread_id: String,
    pub turn_id: String,
    pub item_id: String,
    #[serde(default)]
    pub cwd: Option<String>,
    #[serde(default)]
    pub reason: Option<String>,
    /// `{fileSystem?, network?}` as requested; echoed back (or narrowed) on approval.
    #[serde(default)]
    pub permissions: Value,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolRequestUserInputOption {
    pub label: String,
    #[serde(default)]
    pub description: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolRequestUserInputQuestion {
    pub id: String,
    #[serde(default)]
    pub header: Option<String>,
    pub question: String,
    /// The user may type a free answer besides the options.
    #[serde(default)]
    pub is_other: bool,
    #[serde(default)]
    pub is_secret: bool,
    #[serde(default)]
    pub options: Option<Vec<ToolRequestUserInputOption>>,
}

/// `item/tool/requestUserInput` (plan collaboration mode only, experimental).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolRequestUserInputParams {
    pub thread_id: String,
    pub turn_id: String,
    pub item_id: String,
    pub questions: Vec<ToolRequestUserInputQuestion>,
}

/// `mcpServer/elicitation/request`: an MCP server asks the user for structured input.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct McpServerElicitationRequestParams {
    pub server_name: String,
    pub thread_id: String,
    #[serde(default)]
    pub turn_id: Option<String>,
    #[serde(default)]
    pub message: Option<String>,
    /// `form` | `url` | ... (the rest of the variant stays in `requested_schema` / `url`).
    #[serde(default)]
    pub mode: Option<String>,
    #[serde(default)]
    pub requested_schema: Option<Value>,
    #[serde(default)]
    pub url: Option<String>,
}

by_method! {
    /// A server → client request (the JSON-RPC id is held by the RPC peer); an `Unknown` one
    /// is answered -32601.
    pub enum ServerRequest {
        CommandExecutionRequestApproval(CommandExecutionRequestApprovalParams) = "item/commandExecution/requestApproval",
        FileChangeRequestApproval(FileChangeRequestApprovalParams) = "item/fileChange/requestApproval",
        PermissionsRequestApproval(PermissionsRequestApprovalParams) = "item/permissions/requestApproval",
        ToolRequestUserInput(ToolRequestUserInputParams) = "item/tool/requestUserInput",
        McpServerElicitationRequest(McpServerElicitationRequestParams) = "mcpServer/elicitation/request",
    }
}

impl ServerRequest {
    pub fn thread_id(&self) -> Option<&str> {
        match self {
            Self::CommandExecutionRequestApproval(p) => Some(&p.thread_id),
            Self::FileChangeRequestApproval(p) => Some(&p.thread_id),
            Self::PermissionsRequestApproval(p) => Some(&p.thread_id),
            Self::ToolRequestUserInput(p) => Some(&p.thread_id),
            Self::McpServerElicitationRequest(p) => Some(&p.thread_id),
            Self::Unknown { params, .. } => params.get("threadId").and_then(Value::as_str),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// responses

/// Decision for command and file-change approvals. `Decline` lets the turn go on; `Cancel`
/// also ends the turn — never use it for a plain "no".
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum CommandExecutionApprovalDecision {
    #[serde(rename = "accept")]
    Accept,
    #[serde(rename = "acceptForSession")]
    AcceptForSession,
    #[serde(rename = "decline")]
    Decline,
    #[serde(rename = "cancel")]
    Cancel,
    /// Command approvals only: accept and remember the proposed exec-policy rule.
    #[serde(rename = "acceptWithExecpolicyAmendment")]
    AcceptWithExecpolicyAmendment { execpolicy_amendment: Vec<String> },
    #[serde(untagged)]
    Other(Value),
}

/// Codex gives file changes the same decisions (its schema names the type twice).
pub type FileChangeApprovalDecision = CommandExecutionApprovalDecision;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CommandExecutionRequestApprovalResponse {
    pub decision: CommandExecutionApprovalDecision,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileChangeRequestApprovalResponse {
    pub decision: FileChangeApprovalDecision,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum PermissionGrantScope {
    Turn,
    Session,
}

/// Granting nothing (`permissions: {}`) is how a permissions request is declined.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PermissionsRequestApprovalResponse {
    pub permissions: Value,
    pub scope: PermissionGrantScope,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolRequestUserInputAnswer {
    pub answers: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolRequestUserInputResponse {
    /// Keyed by question id.
    pub answers: BTreeMap<String, ToolRequestUserInputAnswer>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum McpServerElicitationAction {
    Accept,
    Decline,
    Cancel,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct McpServerElicitationRequestResponse {
    pub action: McpServerElicitationAction,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Value>,
}
