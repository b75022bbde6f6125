//! Each engine's typed profile options (`engineOptions` of a profile: one JSON object,
//! camelCase keys), ts-rs exported so the profile editor reads the same shapes:
//! [`CodexOptions`], [`ClaudeOptions`] here, `acp::options::AcpOptions` with the ACP types.
//!
//! Read leniently (`from_json`), like the stored shape always was: a key of the wrong type is
//! ignored as if it were missing (the engine's descriptor reports it when a profile is saved),
//! and keys of other engines are none of the engine's business.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

/// The `engineOptions` keys Codex reads.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CodexOptions {
    /// CODEX_HOME for this profile (else the settings', else `$CODEX_HOME`).
    #[serde(default)]
    #[ts(type = "string | null")]
    pub codex_home: Option<PathBuf>,
    /// Retries of the custom provider (`0` in tests: fail fast).
    #[serde(default)]
    pub request_max_retries: Option<u32>,
    #[serde(default)]
    pub stream_max_retries: Option<u32>,
    /// Extra `-c key=value` (the value in TOML syntax).
    #[serde(default)]
    pub config_overrides: BTreeMap<String, String>,
    /// Codex plans (and may ask questions) instead of acting.
    #[serde(default)]
    pub plan_mode: bool,
    /// Load the workspace's `.codex/config.toml`.
    #[serde(default)]
    pub trust_project_config: bool,
    /// The turn's `effort` (`low`, `medium`, `high`, ... as the model lists them); `None`:
    /// the model's default.
    #[serde(default)]
    pub reasoning_effort: Option<String>,
}

impl CodexOptions {
    pub fn from_json(opts: &Value) -> Self {
        Self {
            codex_home: string_key(opts, "codexHome").map(PathBuf::from),
            request_max_retries: u32_key(opts, "requestMaxRetries"),
            stream_max_retries: u32_key(opts, "streamMaxRetries"),
            config_overrides: string_map_key(opts, "configOverrides"),
            plan_mode: bool_key(opts, "planMode"),
            trust_project_config: bool_key(opts, "trustProjectConfig"),
            reasoning_effort: string_key(opts, "reasoningEffort"),
        }
    }
}

/// Claude Code's setting sources that belong to the workspace (the repository).
pub const WORKSPACE_SETTING_SOURCES: &[&str] = &["project", "local"];

/// The `engineOptions` keys Claude Code reads.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ClaudeOptions {
    /// `--setting-sources`; `None` = the user's own settings only.
    #[serde(default)]
    pub setting_sources: Option<Vec<String>>,
    /// `--max-turns`.
    #[serde(default)]
    pub max_turns: Option<u32>,
    /// `--effort` (`low` ... `max`, as the model lists them); `None`: the model's default.
    #[serde(default)]
    pub reasoning_effort: Option<String>,
}

impl ClaudeOptions {
    pub fn from_json(opts: &Value) -> Self {
        Self {
            setting_sources: strings_key(opts, "settingSources"),
            max_turns: u32_key(opts, "maxTurns"),
            reasoning_effort: string_key(opts, "reasoningEffort"),
        }
    }

    /// The workspace-controlled setting sources this loads (`project`, `local`).
    pub fn workspace_setting_sources(&self) -> Vec<String> {
        self.setting_sources
            .iter()
            .flatten()
            .filter(|s| WORKSPACE_SETTING_SOURCES.contains(&s.as_str()))
            .cloned()
            .collect()
    }
}

/// The common key that forwards the user's SSH agent to a remote workspace's engines
/// (`ssh -A`): off unless the profile sets it `true`.
pub const SSH_FORWARD_AGENT: &str = "sshForwardAgent";

/// Whether a profile's options forward the SSH agent ([`SSH_FORWARD_AGENT`]).
pub fn ssh_forward_agent(opts: &Value) -> bool {
    opts.get(SSH_FORWARD_AGENT).and_then(Value::as_bool) == Some(true)
}

pub fn u32_key(opts: &Value, key: &str) -> Option<u32> {
    opts.get(key)
        .and_then(Value::as_u64)
        .and_then(|n| u32::try_from(n).ok())
}

/// A string; an empty or blank one counts as missing.
pub fn string_key(opts: &Value, key: &str) -> Option<String> {
    opts.get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.trim().is_empty())
        .map(str::to_owned)
}

pub fn bool_key(opts: &Value, key: &str) -> bool {
    opts.get(key).and_then(Value::as_bool).unwrap_or(false)
}

/// An array of strings (non-strings in it skipped); `None` when the key is absent or not an
/// array.
pub fn strings_key(opts: &Value, key: &str) -> Option<Vec<String>> {
    opts.get(key).and_then(Value::as_array).map(|a| {
        a.iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect()
    })
}

/// An object of `key: value` pairs, values as strings (a non-string value in its JSON text).
pub fn string_map_key(opts: &Value, key: &str) -> BTreeMap<String, String> {
    opts.get(key)
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| {
                    let v = v.as_str().map_or_else(|| v.to_string(), str::to_owned);
                    (k.clone(), v)
                })
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    #[test]
    fn read_leniently_and_written_in_the_stored_shape() {
        let stored = json!({"codexHome": "/h", "requestMaxRetries": "x", "configOverrides": {"a.b": 1, "c": "\"d\""},
            "planMode": true, "maxTurns": 3, "settingSources": ["user", 5, "project"]});
        let codex = CodexOptions::from_json(&stored);
        assert_eq!(codex.codex_home, Some(PathBuf::from("/h")));
        assert_eq!(
            codex.request_max_retries, None,
            "a wrong type counts as missing"
        );
        assert_eq!(codex.config_overrides["a.b"], "1");
        assert!(codex.plan_mode && !codex.trust_project_config);
        let claude = ClaudeOptions::from_json(&stored);
        assert_eq!(claude.max_turns, Some(3));
        assert_eq!(claude.workspace_setting_sources(), ["project"]);
        // What the editor writes reads back the same.
        let written = serde_json::to_value(&codex).unwrap();
        assert_eq!(CodexOptions::from_json(&written), codex);
        let written = serde_json::to_value(&claude).unwrap();
        assert_eq!(ClaudeOptions::from_json(&written), claude);
    }
}
