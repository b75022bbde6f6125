//! Any ACP agent as the registry knows it: the profile names the agent (a preset or a
//! command), one agent process per run.

use std::path::{Path, PathBuf};

use agentdesk_protocol::ui::ProfileSpec;
use serde_json::Value;

use super::options::{asks_before_acting, AcpOptions, AcpPreset, AcpProfile, PresetSpec};
use super::options::{GEMINI, OPENCODE};
use super::{AcpEngine, AcpEngineConfig};
use crate::discovery::{EngineProgram, Executable};
use crate::engine::{AgentEngine, EngineOptions};
use crate::error::EngineError;
use crate::profile_options::{check_common, present_keys, profile_env};
use crate::registry::{locate, BoxFuture, Engine, EngineDescriptor, EngineSettings};
use crate::vocab::EngineCapabilities;

pub struct AcpDescriptor;

pub static ACP: AcpDescriptor = AcpDescriptor;

impl EngineDescriptor for AcpDescriptor {
    fn engine(&self) -> Engine {
        Engine::Acp
    }

    fn display_name(&self) -> &'static str {
        "ACP agent"
    }

    /// An ACP agent names its commands inside a session (`available_commands_update`), not
    /// before: the core keeps what a run announced; until one has, this says so.
    fn commands<'a>(
        &'a self,
        _exe: &'a Path,
        _cwd: &'a Path,
        _spec: &'a ProfileSpec,
        _settings: &'a EngineSettings,
    ) -> BoxFuture<'a, Result<agentdesk_protocol::ui::CommandCatalog, EngineError>> {
        Box::pin(async move {
            Ok(agentdesk_protocol::ui::CommandCatalog {
                commands: Vec::new(),
                unavailable: Some(
                    "The agent names its commands during a session: they are offered after its first answer here.".to_owned(),
                ),
            })
        })
    }

    fn capabilities(&self) -> EngineCapabilities {
        EngineCapabilities {
            // A permission answer is one of the agent's options: no edited input and no
            // message reach the agent.
            edited_input: false,
            deny_message: false,
            // The rejection, then `session/cancel` (two wire steps, done by the adapter).
            deny_and_stop: true,
            questions: false,
            // Some agents report a cost (opencode's `usage_update`), the protocol does not
            // promise one.
            cost: false,
            // `allow_always` is offered per request by some agents only (and refused by
            // Gemini CLI for edits): Agent Desk's queue answers exact repeats instead.
            session_grants: false,
            resident_server: false,
            mid_run_settings: false,
        }
    }

    fn programs(&self) -> &'static [EngineProgram] {
        &[OPENCODE, GEMINI]
    }

    fn command_from_profile(&self) -> bool {
        true
    }

    fn login_checkable(&self) -> bool {
        false
    }

    fn login_commands(&self) -> &'static [&'static str] {
        &[
            "opencode auth login   (opencode)",
            "gemini   (Gemini CLI: choose a login inside)",
        ]
    }

    fn profile_warnings(&self, spec: &ProfileSpec) -> Vec<String> {
        let o = AcpOptions::from_json(&spec.engine_options);
        match asks_before_acting(&o) {
            Some(true) => Vec::new(),
            _ => vec![
                "runs a custom ACP agent: Agent Desk cannot make it ask before acting, so which of its edits and commands reach the approval queue depends on the agent's own settings"
                    .to_owned(),
            ],
        }
    }

    fn routing_options(&self, opts: &Value) -> Vec<(String, String)> {
        // The agent itself decides where requests and keys go.
        present_keys(opts, &["preset", "command", "args"])
    }

    fn check_options(&self, opts: &Value) -> Vec<(String, String)> {
        let (map, mut out) = match check_common(opts) {
            Ok(checked) => checked,
            Err(problems) => return problems,
        };
        let names: Vec<&str> = AcpPreset::ALL.iter().map(|p| p.as_str()).collect();
        match map.get("preset") {
            Some(Value::String(p)) if AcpPreset::parse(p).is_some() => {}
            Some(Value::Null) | None => {}
            Some(_) => out.push((
                "preset".to_owned(),
                format!("preset must be one of {}", names.join(", ")),
            )),
        }
        match map.get("command") {
            Some(Value::String(c)) if !c.trim().is_empty() => {}
            Some(Value::Null) | None => {
                if map.get("preset").and_then(Value::as_str).is_none() {
                    out.push((
                        "command".to_owned(),
                        format!(
                            "an ACP profile runs an agent: choose a preset ({}) or give its command",
                            names.join(", ")
                        ),
                    ));
                }
            }
            Some(_) => out.push((
                "command".to_owned(),
                "command must be the agent's executable (a path or a name on PATH)".to_owned(),
            )),
        }
        let args_ok = map
            .get("args")
            .is_none_or(|a| a.as_array().is_some_and(|a| a.iter().all(Value::is_string)));
        if !args_ok {
            out.push((
                "args".to_owned(),
                "args must be a list of strings".to_owned(),
            ));
        }
        out
    }

    fn create(&self, _exe: Option<&Executable>, settings: &EngineSettings) -> AgentEngine {
        let mut config = AcpEngineConfig::default();
        config.limits = settings.limits(config.limits);
        AgentEngine::Acp(AcpEngine::new(config))
    }

    fn run_options(
        &self,
        spec: &ProfileSpec,
        settings: &EngineSettings,
    ) -> Result<EngineOptions, EngineError> {
        let o = AcpOptions::from_json(&spec.engine_options);
        let command = match (&o.command, o.preset) {
            (Some(c), _) => PathBuf::from(c),
            (None, Some(p)) => locate(&PresetSpec::of(p).program, settings)?.path,
            (None, None) => {
                return Err(EngineError::Preflight(
                    "the profile names no ACP agent: choose a preset or give its command"
                        .to_owned(),
                ))
            }
        };
        let mut profile = AcpProfile::from_options(&o, command);
        let (env, env_remove) = profile_env(spec);
        // The preset's asking environment first, the profile's own after it (it wins).
        profile.env.extend(env);
        profile.env_remove = env_remove;
        profile.model = spec.model.clone();
        profile.permission_mode = spec.permission_mode;
        profile.extra_dirs = spec.extra_dirs.iter().map(PathBuf::from).collect();
        Ok(EngineOptions::Acp(profile))
    }

    fn login_state<'a>(
        &'a self,
        _exe: &'a Path,
        _cwd: &'a Path,
        _settings: &'a EngineSettings,
    ) -> BoxFuture<'a, Result<Option<bool>, EngineError>> {
        // An ACP agent's login is its own (a provider in its config, an API key, its own
        // login command): nothing in the protocol says whether it has one before a session
        // fails, so it is not reported rather than guessed.
        Box::pin(async { Ok(None) })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    fn spec(opts: Value) -> ProfileSpec {
        let mut s = ProfileSpec::new("a", Engine::Acp);
        s.engine_options = opts;
        s.env.insert("K".into(), "V".into());
        s.model = Some("m".into());
        s.extra_dirs = vec!["/data/x".into()];
        s
    }

    #[test]
    fn a_profile_names_its_agent_by_preset_or_command() {
        let problems = ACP.check_options(&json!({}));
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].0, "command");
        assert!(ACP.check_options(&json!({"preset": "opencode"})).is_empty());
        assert!(ACP
            .check_options(&json!({"command": "/opt/agent", "args": ["--acp"]}))
            .is_empty());
        let bad = ACP.check_options(&json!({"preset": "nope", "command": 3, "args": "x"}));
        let fields: Vec<&str> = bad.iter().map(|(f, _)| f.as_str()).collect();
        assert_eq!(fields, ["preset", "command", "args"]);
    }

    #[test]
    fn a_custom_command_runs_as_given_after_the_presets_environment() {
        let s = spec(json!({"command": "/opt/agent", "args": ["--stdio"]}));
        let EngineOptions::Acp(p) = ACP.run_options(&s, &EngineSettings::default()).unwrap() else {
            panic!("not acp")
        };
        assert_eq!(p.command, PathBuf::from("/opt/agent"));
        assert_eq!(p.args, ["--stdio"]);
        assert_eq!(p.env, [("K".to_owned(), "V".to_owned())]);
        assert_eq!(p.model.as_deref(), Some("m"));
        assert_eq!(p.extra_dirs, [PathBuf::from("/data/x")]);
        assert_eq!(
            ACP.profile_warnings(&s).len(),
            1,
            "a custom agent may not ask"
        );
    }

    #[test]
    fn a_preset_is_found_by_discovery_and_started_asking() {
        let dir = std::env::temp_dir();
        let exe = dir.join(if cfg!(windows) { "cmd.exe" } else { "sh" });
        let exe = if exe.exists() {
            exe
        } else {
            PathBuf::from("/bin/sh")
        };
        let settings = EngineSettings::default().with_bin("opencode", &exe);
        let s = spec(json!({"preset": "opencode"}));
        let EngineOptions::Acp(p) = ACP.run_options(&s, &settings).unwrap() else {
            panic!("not acp")
        };
        assert_eq!(p.args, ["acp"]);
        assert!(p
            .env
            .iter()
            .any(|(k, v)| k == "OPENCODE_PERMISSION" && v.contains("\"ask\"")));
        assert_eq!(p.env.last(), Some(&("K".to_owned(), "V".to_owned())));
        assert!(ACP.profile_warnings(&s).is_empty());
        assert_eq!(
            ACP.routing_options(&s.engine_options),
            [("preset".to_owned(), "\"opencode\"".to_owned())]
        );
    }
}
