//! Profiles: named, per-workspace sets of engine, model, endpoint, permissions and rules.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use super::ApprovalKindName;

/// Which agent CLI a profile (and a session) drives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum Engine {
    Codex,
    Claude,
}

impl Engine {
    pub fn as_str(self) -> &'static str {
        match self {
            Engine::Codex => "codex",
            Engine::Claude => "claude",
        }
    }

    pub fn parse(s: &str) -> Option<Engine> {
        match s {
            "codex" => Some(Engine::Codex),
            "claude" => Some(Engine::Claude),
            _ => None,
        }
    }
}

/// How much the agent may do without asking.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum PermissionMode {
    /// Every write and command is asked (read-only tools are not).
    #[default]
    Ask,
    /// File changes inside the workspace are approved; commands are asked.
    AutoEdit,
    /// Everything is approved.
    FullAuto,
    /// Nothing that writes or runs is allowed: such requests are denied by rule.
    ReadOnly,
}

impl PermissionMode {
    pub fn as_str(self) -> &'static str {
        match self {
            PermissionMode::Ask => "ask",
            PermissionMode::AutoEdit => "auto_edit",
            PermissionMode::FullAuto => "full_auto",
            PermissionMode::ReadOnly => "read_only",
        }
    }

    pub fn parse(s: &str) -> Option<PermissionMode> {
        match s {
            "ask" => Some(PermissionMode::Ask),
            "auto_edit" => Some(PermissionMode::AutoEdit),
            "full_auto" => Some(PermissionMode::FullAuto),
            "read_only" => Some(PermissionMode::ReadOnly),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum RuleAction {
    Allow,
    Deny,
}

/// A profile rule that decides an approval without asking. Every set field must match;
/// a rule with no field set matches nothing (a catch-all is the permission mode's job).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalRule {
    /// Only requests of this kind.
    #[serde(default)]
    pub kind: Option<ApprovalKindName>,
    /// The tool name (Claude `Bash`, `Write`, an MCP tool...), exact.
    #[serde(default)]
    pub tool: Option<String>,
    /// The command starts with this (after trimming), e.g. `git status`.
    #[serde(default)]
    pub command_prefix: Option<String>,
    pub action: RuleAction,
}

/// What the profile editor sends: every field of a profile a user chooses.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ProfileSpec {
    pub name: String,
    pub engine: Engine,
    /// `None`: the engine's own default model.
    #[serde(default)]
    pub model: Option<String>,
    /// A custom OpenAI- or Anthropic-compatible endpoint (http or https URL).
    #[serde(default)]
    pub base_url: Option<String>,
    /// The environment variable holding the endpoint's key (its name, never the key).
    #[serde(default)]
    pub api_key_env: Option<String>,
    #[serde(default)]
    pub permission_mode: PermissionMode,
    #[serde(default)]
    pub allowed_tools: Vec<String>,
    #[serde(default)]
    pub denied_tools: Vec<String>,
    /// Appended to the engine's system prompt.
    #[serde(default)]
    pub system_prompt: Option<String>,
    /// Extra absolute directories the agent may read.
    #[serde(default)]
    pub extra_dirs: Vec<String>,
    /// Extra environment variables for the engine process.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    #[serde(default)]
    pub approval_rules: Vec<ApprovalRule>,
    /// Seconds before a pending approval is safely denied (recorded as timed out).
    #[serde(default)]
    pub approval_timeout_secs: Option<u32>,
    /// Engine-specific extras (codex `-c` overrides, claude setting sources...).
    #[serde(default)]
    #[ts(type = "Record<string, unknown>")]
    pub engine_options: Value,
}

/// A stored profile.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Profile {
    pub id: String,
    pub workspace_id: String,
    pub is_default: bool,
    #[serde(flatten)]
    pub spec: ProfileSpec,
    #[ts(type = "number")]
    pub created_at: i64,
    #[ts(type = "number")]
    pub updated_at: i64,
}
