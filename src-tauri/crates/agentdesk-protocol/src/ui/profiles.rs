//! Profiles: named, per-workspace sets of engine, model, endpoint, permissions and rules.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use super::ApprovalKindName;
use crate::ids::{ProfileId, WorkspaceId};

stored_enum! {
    /// Which engine a profile (and a session) drives. The variants are the engine crate's
    /// registered engines (`agentdesk_engine::registry`): everything else about an engine (its
    /// name, capabilities, executables, options) is declared there, never matched on here.
    #[derive(PartialOrd, Ord)]
    pub enum Engine {
        Codex,
        Claude,
        /// Any Agent Client Protocol agent (opencode, Gemini CLI, ...), started with the profile's
        /// command.
        Acp,
    }
}

impl Engine {
    /// Every engine, in the order the window lists them (declaration order). The stored and
    /// wire names (`codex`, `claude`, `acp`) are `as_str` / `parse` (`crate::stored`).
    pub const ALL: &'static [Engine] = <Engine as strum::VariantArray>::VARIANTS;
}

stored_enum! {
    /// How much the agent may do without asking.
    #[derive(Default)]
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
    /// The command's leading words are exactly these: `git status` matches `git status -s`,
    /// not `git statusx`. An allow rule only matches one plain command (anything compound,
    /// `;`, `&&`, pipes, `$(…)`..., is asked); a deny rule matches any part of a command.
    #[serde(default)]
    pub command_prefix: Option<String>,
    pub action: RuleAction,
}

/// What a secret environment value shows as wherever a profile is displayed or exported.
pub const SECRET_MASK: &str = "••••";

/// What the profile editor sends: every field of a profile a user chooses.
///
/// `Debug` masks the values of secret environment variables, so a profile that ends up in a
/// log line does not carry them.
#[derive(Clone, PartialEq, Serialize, Deserialize, TS)]
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
    /// Names of `env` entries whose values are secrets (tokens, passwords): never displayed,
    /// exported or logged. A separate list (not a flag inside `env`) so profiles stored before
    /// it existed load unchanged and `env` stays a plain name → value map for the engines.
    #[serde(default)]
    pub secret_env: Vec<String>,
    #[serde(default)]
    pub approval_rules: Vec<ApprovalRule>,
    /// Seconds before a pending approval is safely denied (recorded as timed out).
    #[serde(default)]
    pub approval_timeout_secs: Option<u32>,
    /// Engine-specific extras (codex `-c` overrides, claude setting sources...).
    #[serde(default)]
    #[ts(type = "Record<string, unknown>")]
    pub engine_options: Value,
    /// MCP servers the profile's runs connect to.
    #[serde(default)]
    pub mcp_servers: Vec<super::McpServer>,
}

impl ProfileSpec {
    /// A profile named `name` for `engine` with nothing else set: the engine's model, no
    /// endpoint or environment, every write and command asked (what a run without a profile
    /// uses too).
    pub fn new(name: impl Into<String>, engine: Engine) -> Self {
        Self {
            name: name.into(),
            engine,
            model: None,
            base_url: None,
            api_key_env: None,
            permission_mode: PermissionMode::Ask,
            allowed_tools: Vec::new(),
            denied_tools: Vec::new(),
            system_prompt: None,
            extra_dirs: Vec::new(),
            env: BTreeMap::new(),
            secret_env: Vec::new(),
            approval_rules: Vec::new(),
            approval_timeout_secs: None,
            engine_options: Value::Null,
            mcp_servers: Vec::new(),
        }
    }

    /// True when `name` is an env var whose value is secret.
    pub fn is_secret(&self, name: &str) -> bool {
        self.secret_env.iter().any(|n| n == name)
    }

    /// The values of the secret env vars (non-empty ones), to redact wherever they appear.
    pub fn secret_values(&self) -> Vec<&str> {
        self.env
            .iter()
            .filter(|(k, v)| self.is_secret(k) && !v.is_empty())
            .map(|(_, v)| v.as_str())
            .collect()
    }

    /// The spec with every secret env value replaced by [`SECRET_MASK`]: what may be shown.
    pub fn masked(&self) -> ProfileSpec {
        let mut s = self.clone();
        for (k, v) in &mut s.env {
            if self.is_secret(k) {
                *v = SECRET_MASK.to_string();
            }
        }
        s
    }
}

impl std::fmt::Debug for ProfileSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let m = self.masked();
        f.debug_struct("ProfileSpec")
            .field("name", &m.name)
            .field("engine", &m.engine)
            .field("model", &m.model)
            .field("base_url", &m.base_url)
            .field("api_key_env", &m.api_key_env)
            .field("permission_mode", &m.permission_mode)
            .field("allowed_tools", &m.allowed_tools)
            .field("denied_tools", &m.denied_tools)
            .field("system_prompt", &m.system_prompt)
            .field("extra_dirs", &m.extra_dirs)
            .field("env", &m.env)
            .field("secret_env", &m.secret_env)
            .field("approval_rules", &m.approval_rules)
            .field("approval_timeout_secs", &m.approval_timeout_secs)
            .field("engine_options", &m.engine_options)
            .field("mcp_servers", &m.mcp_servers)
            .finish()
    }
}

/// A stored profile.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Profile {
    pub id: ProfileId,
    pub workspace_id: WorkspaceId,
    pub is_default: bool,
    #[serde(flatten)]
    pub spec: ProfileSpec,
    #[ts(type = "number")]
    pub created_at: i64,
    #[ts(type = "number")]
    pub updated_at: i64,
}

/// One validation error of a profile, addressed to the editor's field: the spec's JSON key
/// (`baseUrl`, `model`), with the entry for lists and maps (`extraDirs.1`, `approvalRules.0`,
/// `env.TOKEN`, `engineOptions.maxTurns`), so the window shows the core's message next to the
/// input it is about instead of re-validating in TypeScript.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ProfileFieldError {
    pub field: String,
    pub message: String,
}

/// What a failed profile command returns: the usual `{code, message}` plus, for a rejected
/// spec, every field error (`fields` is empty for any other failure).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ProfileError {
    pub code: super::ErrorCode,
    pub message: String,
    pub fields: Vec<ProfileFieldError>,
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn spec_with_secret() -> ProfileSpec {
        serde_json::from_value(serde_json::json!({
            "name": "p", "engine": "claude",
            "env": {"PLAIN": "visible-value", "TOKEN": "s3cret-token-value"},
            "secretEnv": ["TOKEN"]
        }))
        .unwrap()
    }

    #[test]
    fn a_spec_stored_before_secret_env_loads_with_none() {
        let s: ProfileSpec = serde_json::from_value(serde_json::json!({
            "name": "old", "engine": "codex", "env": {"A": "1"}
        }))
        .unwrap();
        assert!(s.secret_env.is_empty());
        assert_eq!(s.env["A"], "1");
    }

    #[test]
    fn masked_and_debug_hide_only_secret_values() {
        let s = spec_with_secret();
        let m = s.masked();
        assert_eq!(m.env["TOKEN"], SECRET_MASK);
        assert_eq!(m.env["PLAIN"], "visible-value");
        assert_eq!(s.secret_values(), vec!["s3cret-token-value"]);
        let debug = format!("{s:?}");
        assert!(!debug.contains("s3cret-token-value"), "{debug}");
        assert!(debug.contains("visible-value") && debug.contains(SECRET_MASK));
    }
}

/// A model an engine offers, as the profile editor lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ModelInfo {
    /// What the profile stores and the engine takes (`gpt-5.5`, Claude's `opus` alias).
    pub id: String,
    pub display_name: String,
    pub description: String,
    /// The engine's default model.
    pub is_default: bool,
    /// Reasoning efforts it takes, in the engine's order (empty: none to choose).
    pub efforts: Vec<String>,
    pub default_effort: Option<String>,
}

/// The models a profile can pick from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ModelCatalog {
    pub models: Vec<ModelInfo>,
    /// Why there is no list (a custom endpoint, an engine that lists none, the engine could
    /// not be started): the model is typed instead.
    pub unavailable: Option<String>,
}

/// A command the composer's `/` offers: the engine's own (Claude Code's slash commands and
/// skills, as its `initialize` lists them) or a Codex skill (`$name`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SlashCommand {
    pub name: String,
    pub description: String,
    /// What it takes after its name ("[instructions]"), when the engine says.
    pub argument_hint: Option<String>,
    /// What picking it puts in the message (`/init `, `$pdf-tools `).
    pub insert: String,
}

/// The commands a session's engine offers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CommandCatalog {
    pub commands: Vec<SlashCommand>,
    /// Why there are none to offer (an engine that lists none, one that could not start).
    pub unavailable: Option<String>,
}
