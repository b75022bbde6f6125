//! What an engine said about an approval beyond the engine-neutral fields (command, cwd,
//! files, reason): one typed variant per engine request, so the core, the store and the UI
//! read fields instead of looking keys up in a `json!` object.
//!
//! Serialized as `{"source": "claudeTool", ...camelCase fields}`. Forward compatible both
//! ways: a `source` this build does not know (or a malformed known one) is kept whole as
//! [`ApprovalDetail::Unknown`], and rows written before the tag existed (the same objects
//! without `source`) are recognised by their keys when read back.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;
use ts_rs::TS;

/// A Claude `can_use_tool` request: the tool, its whole input, and Claude's own suggestions.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ClaudeToolDetail {
    pub tool_name: String,
    #[serde(default)]
    pub display_name: Option<String>,
    /// The tool's input as Claude sent it (`{"command": …}`, `{"file_path": …}`, …).
    #[serde(default)]
    #[ts(type = "unknown")]
    pub input: Value,
    /// Claude's `permission_suggestions` (rules it would add), kept for display only.
    #[serde(default)]
    #[ts(type = "unknown")]
    pub permission_suggestions: Value,
    #[serde(default)]
    pub blocked_path: Option<String>,
    #[serde(default)]
    pub decision_reason_type: Option<String>,
}

/// Codex `item/commandExecution/requestApproval`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CodexCommandDetail {
    #[serde(default)]
    pub proposed_execpolicy_amendment: Option<Vec<String>>,
    #[serde(default)]
    #[ts(type = "Array<unknown> | null")]
    pub command_actions: Option<Vec<Value>>,
}

/// Codex `item/fileChange/requestApproval`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CodexFileChangeDetail {
    #[serde(default)]
    pub grant_root: Option<String>,
}

/// Codex `item/permissions/requestApproval`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CodexPermissionsDetail {
    #[serde(default)]
    #[ts(type = "unknown")]
    pub permissions: Value,
}

/// Codex `mcpServer/elicitation/request`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CodexElicitationDetail {
    pub server_name: String,
    #[serde(default)]
    pub mode: Option<String>,
    #[serde(default)]
    pub url: Option<String>,
    #[serde(default)]
    #[ts(type = "unknown")]
    pub requested_schema: Option<Value>,
}

/// The engine-specific detail of an approval request. A new engine request is one variant
/// here (and one arm in its adapter); nothing else reads engine keys.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(tag = "source", rename_all = "camelCase")]
pub enum ApprovalDetail {
    ClaudeTool(ClaudeToolDetail),
    CodexCommand(CodexCommandDetail),
    CodexFileChange(CodexFileChangeDetail),
    CodexPermissions(CodexPermissionsDetail),
    CodexElicitation(CodexElicitationDetail),
    /// An ACP agent's `session/request_permission` (the tool call it is about).
    AcpToolCall(crate::acp::AcpToolCallDetail),
    /// Written by a newer build (or not understood): kept as it was, shown as raw JSON.
    #[serde(untagged)]
    Unknown(#[ts(type = "unknown")] Value),
}

impl ApprovalDetail {
    /// The tool's name, when the engine names one (Claude's tools).
    pub fn tool_name(&self) -> Option<&str> {
        match self {
            Self::ClaudeTool(c) => Some(&c.tool_name),
            _ => None,
        }
    }

    /// The tool's own input, when the engine sends one (Claude's tools).
    pub fn tool_input(&self) -> Option<&Value> {
        match self {
            Self::ClaudeTool(c) => Some(&c.input),
            _ => None,
        }
    }

    /// The engine's rule suggestions (Claude), an empty array for everything else.
    pub fn permission_suggestions(&self) -> Value {
        match self {
            Self::ClaudeTool(c) if !c.permission_suggestions.is_null() => {
                c.permission_suggestions.clone()
            }
            _ => Value::Array(Vec::new()),
        }
    }

    /// A detail written before the `source` tag existed, recognised by the keys each adapter
    /// wrote then; anything else stays [`ApprovalDetail::Unknown`].
    fn from_legacy(v: Value) -> Self {
        let Some(o) = v.as_object() else {
            return Self::Unknown(v);
        };
        let parsed = if o.contains_key("toolName") {
            serde_json::from_value(v.clone()).map(Self::ClaudeTool)
        } else if o.contains_key("grantRoot") {
            serde_json::from_value(v.clone()).map(Self::CodexFileChange)
        } else if o.contains_key("permissions") {
            serde_json::from_value(v.clone()).map(Self::CodexPermissions)
        } else if o.contains_key("serverName") {
            serde_json::from_value(v.clone()).map(Self::CodexElicitation)
        } else if o.contains_key("commandActions") || o.contains_key("proposedExecpolicyAmendment")
        {
            serde_json::from_value(v.clone()).map(Self::CodexCommand)
        } else {
            return Self::Unknown(v);
        };
        parsed.unwrap_or(Self::Unknown(v))
    }
}

/// The tagged forms this build knows; [`ApprovalDetail`]'s `Deserialize` falls back from it.
#[derive(Deserialize)]
#[serde(tag = "source", rename_all = "camelCase")]
enum Known {
    ClaudeTool(ClaudeToolDetail),
    CodexCommand(CodexCommandDetail),
    CodexFileChange(CodexFileChangeDetail),
    CodexPermissions(CodexPermissionsDetail),
    CodexElicitation(CodexElicitationDetail),
    AcpToolCall(crate::acp::AcpToolCallDetail),
}

impl From<Known> for ApprovalDetail {
    fn from(k: Known) -> Self {
        match k {
            Known::ClaudeTool(d) => Self::ClaudeTool(d),
            Known::CodexCommand(d) => Self::CodexCommand(d),
            Known::CodexFileChange(d) => Self::CodexFileChange(d),
            Known::CodexPermissions(d) => Self::CodexPermissions(d),
            Known::CodexElicitation(d) => Self::CodexElicitation(d),
            Known::AcpToolCall(d) => Self::AcpToolCall(d),
        }
    }
}

/// Never fails on content: a tagged object is its variant (or `Unknown` when this build does
/// not know the tag or cannot read it), an untagged (pre-tag) object is recognised by its keys.
impl<'de> Deserialize<'de> for ApprovalDetail {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        if v.get("source").is_some() {
            return Ok(serde_json::from_value::<Known>(v.clone())
                .map(Self::from)
                .unwrap_or(Self::Unknown(v)));
        }
        Ok(Self::from_legacy(v))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    #[derive(Deserialize)]
    struct Holder {
        #[serde(default)]
        detail: Option<ApprovalDetail>,
    }

    fn read(v: Value) -> Option<ApprovalDetail> {
        serde_json::from_value::<Holder>(json!({ "detail": v }))
            .unwrap()
            .detail
    }

    #[test]
    fn tagged_round_trip() {
        let d = ApprovalDetail::ClaudeTool(ClaudeToolDetail {
            tool_name: "Bash".into(),
            input: json!({"command": "ls"}),
            permission_suggestions: json!([{"type": "addRules"}]),
            ..Default::default()
        });
        let v = serde_json::to_value(&d).unwrap();
        assert_eq!(v["source"], "claudeTool");
        assert_eq!(v["toolName"], "Bash");
        assert_eq!(read(v), Some(d));
    }

    #[test]
    fn rows_written_before_the_tag_are_read_by_their_keys() {
        let claude = read(json!({"toolName": "Write", "displayName": null,
            "input": {"file_path": "a.txt"}, "permissionSuggestions": null,
            "blockedPath": null, "decisionReasonType": null}))
        .unwrap();
        assert_eq!(claude.tool_name(), Some("Write"));
        assert_eq!(claude.tool_input(), Some(&json!({"file_path": "a.txt"})));
        assert_eq!(claude.permission_suggestions(), json!([]));
        assert!(matches!(
            read(json!({"grantRoot": "/w"})),
            Some(ApprovalDetail::CodexFileChange(CodexFileChangeDetail { grant_root: Some(r) })) if r == "/w"
        ));
        assert!(matches!(
            read(json!({"permissions": {"network": {"enabled": true}}})),
            Some(ApprovalDetail::CodexPermissions(_))
        ));
        assert!(matches!(
            read(json!({"serverName": "s", "mode": "form", "url": null, "requestedSchema": {}})),
            Some(ApprovalDetail::CodexElicitation(_))
        ));
        assert!(matches!(
            read(json!({"proposedExecpolicyAmendment": ["touch"], "commandActions": null})),
            Some(ApprovalDetail::CodexCommand(CodexCommandDetail { proposed_execpolicy_amendment: Some(a), .. })) if a == ["touch"]
        ));
        assert_eq!(read(Value::Null), None);
    }

    #[test]
    fn acp_tool_calls_read_back_as_their_variant() {
        let v = json!({"source": "acpToolCall", "toolCallId": "call_1", "title": "write",
            "toolKind": "edit", "rawInput": {"filePath": "/w/a.txt"}, "offered": ["allow_once"]});
        let Some(ApprovalDetail::AcpToolCall(d)) = read(v.clone()) else {
            panic!("not read as acpToolCall")
        };
        assert_eq!(d.tool_kind.as_deref(), Some("edit"));
        assert_eq!(
            serde_json::to_value(ApprovalDetail::AcpToolCall(d)).unwrap(),
            v
        );
    }

    #[test]
    fn unknown_sources_and_shapes_are_kept_whole() {
        let newer = json!({"source": "geminiShell", "argv": ["ls"]});
        assert_eq!(
            read(newer.clone()),
            Some(ApprovalDetail::Unknown(newer.clone()))
        );
        // Written back unchanged, so a newer build reads its own detail again.
        let back = serde_json::to_value(ApprovalDetail::Unknown(newer.clone())).unwrap();
        assert_eq!(back, newer);
        // A known source with a field of the wrong type is not lost either.
        let odd = json!({"source": "claudeTool", "toolName": 5});
        assert_eq!(read(odd.clone()), Some(ApprovalDetail::Unknown(odd)));
        assert_eq!(
            read(json!("text")),
            Some(ApprovalDetail::Unknown(json!("text")))
        );
    }
}
