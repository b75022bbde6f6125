//! Claude Code as the registry knows it: one `claude` process per run, stream-json.

use std::path::{Path, PathBuf};

use agentdesk_protocol::ui::{
    CommandCatalog, EngineAccount, McpServerStatus, ModelCatalog, ModelInfo, ProfileSpec,
    SlashCommand,
};
use serde_json::Value;

use super::{ClaudeEngine, ClaudeEngineConfig, ClaudeOptions, ClaudeProfile};
use crate::discovery::{EngineProgram, Executable};
use crate::engine::{AgentEngine, EngineOptions};
use crate::error::EngineError;
use crate::profile_options::{check_common, check_count, check_effort, present_keys, profile_env};
use crate::registry::{BoxFuture, Engine, EngineDescriptor, EngineSettings};
use crate::vocab::EngineCapabilities;

/// Claude Code's `--setting-sources` values.
const SETTING_SOURCES: &[&str] = &["user", "project", "local"];

pub struct ClaudeDescriptor;

pub static CLAUDE: ClaudeDescriptor = ClaudeDescriptor;

impl EngineDescriptor for ClaudeDescriptor {
    fn engine(&self) -> Engine {
        Engine::Claude
    }

    fn display_name(&self) -> &'static str {
        "Claude Code"
    }

    fn capabilities(&self) -> EngineCapabilities {
        EngineCapabilities {
            edited_input: true,
            deny_message: true,
            // One wire decision (`interrupt: true` on the deny).
            deny_and_stop: true,
            questions: true,
            cost: true,
            // Claude's session rules are wider than what the user saw: Agent Desk's own
            // queue answers exact repeats instead (see the adapter's resolve).
            session_grants: false,
            resident_server: false,
            mid_run_settings: true,
        }
    }

    fn programs(&self) -> &'static [EngineProgram] {
        &[EngineProgram::CLAUDE]
    }

    fn login_commands(&self) -> &'static [&'static str] {
        &["claude", "/login   (typed inside claude)"]
    }

    fn profile_warnings(&self, spec: &ProfileSpec) -> Vec<String> {
        let workspace_sources =
            ClaudeOptions::from_json(&spec.engine_options).workspace_setting_sources();
        if workspace_sources.is_empty() {
            return Vec::new();
        }
        vec![format!(
            "loads the workspace's own Claude settings ({}): hooks in the repository run commands without approval and its permission rules can approve tools",
            workspace_sources.join(", ")
        )]
    }

    fn routing_options(&self, opts: &Value) -> Vec<(String, String)> {
        // The workspace's settings can set `env.ANTHROPIC_BASE_URL`.
        present_keys(opts, &["settingSources"])
    }

    fn check_options(&self, opts: &Value) -> Vec<(String, String)> {
        let (map, mut out) = match check_common(opts) {
            Ok(checked) => checked,
            Err(problems) => return problems,
        };
        check_count(map, "maxTurns", &mut out);
        check_effort(map, &mut out);
        if map.get("maxTurns").and_then(Value::as_u64) == Some(0) {
            out.push((
                "maxTurns".to_owned(),
                "maxTurns must be at least 1 (leave it out for no limit)".to_owned(),
            ));
        }
        if let Some(v) = map.get("settingSources") {
            let ok = v.as_array().is_some_and(|a| {
                a.iter()
                    .all(|s| s.as_str().is_some_and(|s| SETTING_SOURCES.contains(&s)))
            });
            if !ok {
                out.push((
                    "settingSources".to_owned(),
                    "settingSources must be a list of \"user\", \"project\" and \"local\""
                        .to_owned(),
                ));
            }
        }
        out
    }

    fn create(&self, exe: Option<&Executable>, settings: &EngineSettings) -> AgentEngine {
        let program = exe.map_or_else(|| PathBuf::from("claude"), |e| e.path.clone());
        let mut config = ClaudeEngineConfig::new(program);
        config.limits = settings.limits(config.limits);
        AgentEngine::Claude(ClaudeEngine::new(config))
    }

    fn run_options(
        &self,
        spec: &ProfileSpec,
        _settings: &EngineSettings,
    ) -> Result<EngineOptions, EngineError> {
        Ok(EngineOptions::Claude(claude_profile(spec)))
    }

    fn login_state<'a>(
        &'a self,
        exe: &'a Path,
        cwd: &'a Path,
        _settings: &'a EngineSettings,
    ) -> BoxFuture<'a, Result<Option<bool>, EngineError>> {
        Box::pin(async move {
            let claude = ClaudeEngine::new(ClaudeEngineConfig::new(exe));
            let status = claude.status(cwd, &ClaudeProfile::default()).await?;
            Ok(Some(status.logged_in))
        })
    }

    fn commands<'a>(
        &'a self,
        exe: &'a Path,
        cwd: &'a Path,
        spec: &'a ProfileSpec,
        _settings: &'a EngineSettings,
    ) -> BoxFuture<'a, Result<CommandCatalog, EngineError>> {
        Box::pin(async move {
            let claude = ClaudeEngine::new(ClaudeEngineConfig::new(exe));
            let status = claude.status(cwd, &claude_profile(spec)).await?;
            Ok(command_catalog(
                status.initialize.commands.as_deref().unwrap_or_default(),
            ))
        })
    }

    fn takes_mcp_servers(&self) -> bool {
        true
    }

    /// Claude Code logs in inside its own terminal UI (`/login`): the app shows the state
    /// its `initialize` reports and the commands.
    fn account<'a>(
        &'a self,
        exe: &'a Path,
        cwd: &'a Path,
        _settings: &'a EngineSettings,
    ) -> BoxFuture<'a, Result<EngineAccount, EngineError>> {
        Box::pin(async move {
            let claude = ClaudeEngine::new(ClaudeEngineConfig::new(exe));
            let status = claude.status(cwd, &ClaudeProfile::default()).await?;
            let mut a = self.blank_account();
            a.logged_in = Some(status.logged_in);
            if let Some(acc) = &status.account {
                let real = |s: &Option<String>| {
                    s.as_deref()
                        .filter(|v| !v.is_empty() && *v != "none")
                        .map(str::to_owned)
                };
                a.email = acc.email.clone();
                a.method = match (real(&acc.api_key_source), real(&acc.token_source)) {
                    (Some(src), _) => Some(format!("API key ({src})")),
                    (None, Some(src)) => Some(format!("Claude account ({src})")),
                    (None, None) => None,
                };
                a.plan = acc
                    .extra
                    .get("subscriptionType")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
            }
            Ok(a)
        })
    }

    fn mcp_status<'a>(
        &'a self,
        exe: &'a Path,
        cwd: &'a Path,
        spec: &'a ProfileSpec,
        _settings: &'a EngineSettings,
    ) -> BoxFuture<'a, Result<Option<Vec<McpServerStatus>>, EngineError>> {
        Box::pin(async move {
            let claude = ClaudeEngine::new(ClaudeEngineConfig::new(exe));
            Ok(Some(claude.mcp_status(cwd, &claude_profile(spec)).await?))
        })
    }

    fn models<'a>(
        &'a self,
        exe: &'a Path,
        cwd: &'a Path,
        spec: &'a ProfileSpec,
        _settings: &'a EngineSettings,
    ) -> BoxFuture<'a, Result<ModelCatalog, EngineError>> {
        Box::pin(async move {
            let claude = ClaudeEngine::new(ClaudeEngineConfig::new(exe));
            let status = claude.status(cwd, &claude_profile(spec)).await?;
            Ok(model_catalog(
                status.initialize.models.as_deref().unwrap_or_default(),
            ))
        })
    }
}

fn claude_profile(spec: &ProfileSpec) -> ClaudeProfile {
    let (env, env_remove) = profile_env(spec);
    let o = ClaudeOptions::from_json(&spec.engine_options);
    // The permission mode and the allowed tools are not passed on: the CLI always starts in
    // its default mode and asks, and the queue applies them (`approval_rules`), after the
    // profile's deny rules and with a record. Denied tools are: removing a tool only narrows.
    // The extra folders arrive checked (the core drops `/`, the home folder and what holds
    // it from the run's snapshot of the profile).
    ClaudeProfile {
        model: spec.model.clone(),
        disallowed_tools: spec.denied_tools.clone(),
        append_system_prompt: spec.system_prompt.clone().filter(|s| !s.is_empty()),
        add_dirs: spec.extra_dirs.iter().map(PathBuf::from).collect(),
        base_url: spec.base_url.clone(),
        api_key_env: spec.api_key_env.clone(),
        // `None`: the adapter's default, the user's own settings only (never the workspace's).
        setting_sources: o.setting_sources,
        max_turns: o.max_turns,
        effort: o.reasoning_effort,
        env,
        env_remove,
        mcp_servers: spec.mcp_servers.clone(),
    }
}

/// The `initialize` reply's commands (`name`, `description`, `argumentHint`): typed as
/// `/name`, the CLI runs them (verified with 2.1.328: `/init` sends its prompt).
pub(crate) fn command_catalog(commands: &[Value]) -> CommandCatalog {
    let text = |m: &Value, k: &str| {
        m.get(k)
            .and_then(Value::as_str)
            .unwrap_or("")
            .trim()
            .to_owned()
    };
    let mut commands: Vec<SlashCommand> = commands
        .iter()
        .filter_map(|c| {
            let name = text(c, "name");
            // A name is one word: anything else could not be typed back.
            if name.is_empty() || name.contains(char::is_whitespace) {
                return None;
            }
            Some(SlashCommand {
                insert: format!("/{name} "),
                description: text(c, "description"),
                argument_hint: Some(text(c, "argumentHint")).filter(|h| !h.is_empty()),
                name,
            })
        })
        .collect();
    commands.sort_by(|a, b| a.name.cmp(&b.name));
    commands.dedup_by(|a, b| a.name == b.name);
    CommandCatalog {
        commands,
        unavailable: None,
    }
}

/// The `initialize` reply's models (`value`, `displayName`, `description`,
/// `supportedEffortLevels`). Its `default` entry is "no model chosen" (the profile's empty
/// model): it marks the model it resolves to as the default instead of being listed.
pub(crate) fn model_catalog(models: &[Value]) -> ModelCatalog {
    let text = |m: &Value, k: &str| m.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
    let default_resolves = models
        .iter()
        .find(|m| m.get("value").and_then(Value::as_str) == Some("default"))
        .map(|m| text(m, "resolvedModel"));
    let models = models
        .iter()
        .filter_map(|m| {
            let id = text(m, "value");
            if id.is_empty() || id == "default" {
                return None;
            }
            let efforts: Vec<String> = m
                .get("supportedEffortLevels")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default();
            Some(ModelInfo {
                is_default: default_resolves
                    .as_deref()
                    .is_some_and(|d| !d.is_empty() && d == text(m, "resolvedModel")),
                display_name: Some(text(m, "displayName"))
                    .filter(|n| !n.is_empty())
                    .unwrap_or_else(|| id.clone()),
                description: text(m, "description"),
                id,
                efforts,
                default_effort: None,
            })
        })
        .collect();
    ModelCatalog {
        models,
        unavailable: None,
    }
}

#[cfg(test)]
mod model_tests {
    use super::*;

    #[test]
    fn the_default_entry_marks_the_model_it_resolves_to() {
        // As 2.1.328's `initialize` reply lists them (trimmed).
        let models = serde_json::json!([
            {"value": "default", "resolvedModel": "claude-opus-5-5", "displayName": "Default (recommended)",
             "supportedEffortLevels": ["low", "high"]},
            {"value": "opus", "resolvedModel": "claude-opus-5-5", "displayName": "Opus",
             "description": "Opus 5.5", "supportedEffortLevels": ["low", "medium", "high", "xhigh", "max"]},
            {"value": "haiku", "resolvedModel": "claude-haiku-4-5", "displayName": "Haiku"},
            {"displayName": "no value"}
        ]);
        let c = model_catalog(models.as_array().unwrap());
        let ids: Vec<_> = c
            .models
            .iter()
            .map(|m| (m.id.as_str(), m.is_default))
            .collect();
        assert_eq!(ids, [("opus", true), ("haiku", false)]);
        assert_eq!(c.models[0].efforts.len(), 5);
        assert!(c.models[1].efforts.is_empty());
        assert_eq!(c.unavailable, None);
    }
}
