//! Profile options → `codex app-server` command line, environment and thread parameters.

use std::path::PathBuf;

use agentdesk_protocol::codex::{AskForApproval, SandboxMode};
use agentdesk_protocol::ui::PermissionMode;

pub use agentdesk_protocol::engine_options::CodexOptions;

/// How Codex asks and sandboxes for a profile's permission mode. Codex is asked about
/// everything the profile might want to see (`untrusted`) and Agent Desk's queue rules then
/// decide, so every decision is recorded in one place. Full-auto is codex's own
/// `--full-auto`; read-only never asks and cannot write.
pub fn permission_policy(mode: PermissionMode) -> (AskForApproval, SandboxMode) {
    match mode {
        PermissionMode::Ask | PermissionMode::AutoEdit => {
            (AskForApproval::Untrusted, SandboxMode::WorkspaceWrite)
        }
        PermissionMode::FullAuto => (AskForApproval::OnRequest, SandboxMode::WorkspaceWrite),
        PermissionMode::ReadOnly => (AskForApproval::Never, SandboxMode::ReadOnly),
    }
}

/// An OpenAI-compatible Responses endpoint used instead of OpenAI (a proxy, a local model
/// server, the tests' fake). Becomes `-c model_providers.<id>={...}` + `-c model_provider=<id>`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CustomProvider {
    /// Key under `model_providers` (letters, digits, `_`, `-`).
    pub id: String,
    pub name: String,
    /// e.g. `http://127.0.0.1:8080/v1`; codex POSTs `{base_url}/responses`.
    pub base_url: String,
    /// Name of the environment variable holding the API key (the key itself never goes on
    /// the command line).
    pub env_key: String,
    /// `Some(0)` for tests: fail fast instead of retrying.
    pub request_max_retries: Option<u32>,
    pub stream_max_retries: Option<u32>,
}

/// What a profile says about running Codex.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CodexProfile {
    pub model: Option<String>,
    pub approval_policy: Option<AskForApproval>,
    pub sandbox: Option<SandboxMode>,
    pub provider: Option<CustomProvider>,
    /// Extra `-c key=value` overrides (value in TOML syntax), applied last.
    pub config_overrides: Vec<(String, String)>,
    /// Plugins reach github.com and chatgpt.com at start-up: off unless asked for.
    pub enable_plugins: bool,
    pub developer_instructions: Option<String>,
    /// Plan collaboration mode (experimental API): codex plans instead of acting and may ask
    /// the user questions (`item/tool/requestUserInput` → `question.asked`).
    pub plan_mode: bool,
    /// The turn's reasoning effort (`turn/start` `effort`); `None`: the model's default.
    pub reasoning_effort: Option<String>,
    /// Extra environment for the app-server (e.g. the provider's key variable).
    pub env: Vec<(String, String)>,
    /// Removed from the built environment (secrets this profile does not pass on).
    pub env_remove: Vec<String>,
    /// Let codex load the workspace's own `.codex/config.toml` (MCP servers it starts,
    /// instructions, ...), as codex itself would. Off: the workspace is marked untrusted for
    /// each thread, so a repository cannot start programs or instruct the agent by itself.
    pub trust_project_config: bool,
    /// The run gets an app-server of its own, stopped when it ends: the session is also
    /// continued from the Codex CLI, and codex 0.169 keeps a thread's rollout locked ("already
    /// has an active writer") as long as the app-server that loaded it runs
    /// (`thread/unsubscribe` does not release it).
    pub own_server: bool,
    /// The profile's MCP servers (`-c mcp_servers.<name>=...`, before its own overrides).
    pub mcp_servers: Vec<agentdesk_protocol::ui::McpServer>,
}

/// Identifies one resident app-server: same home, same command line, same environment.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ServerKey {
    pub codex_home: Option<PathBuf>,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
    pub env_remove: Vec<String>,
    /// Variables of the app's environment passed on besides codex's own (the custom
    /// provider's key variable).
    pub pass_env: Vec<String>,
    /// Set for a run with a server of its own (see [`CodexProfile::own_server`]): the thread.
    pub own: Option<String>,
}

impl ServerKey {
    /// What codex takes from the app's environment besides the allow-listed basics: its own
    /// variables and the provider's key variable ([`crate::child_env::engine_env`]).
    pub fn inherited_env(&self, parent: &[(String, String)]) -> Vec<(String, String)> {
        crate::child_env::engine_env(
            crate::vocab::Engine::Codex,
            parent,
            &self.env,
            &self.pass_env,
            &self.env_remove,
        )
    }
}

fn toml_string(s: &str) -> String {
    // TOML basic string: JSON string escaping is a valid subset for what we emit.
    serde_json::Value::String(s.to_owned()).to_string()
}

impl CodexProfile {
    /// The app-server arguments. `--strict-config` always: an invalid config otherwise falls
    /// back silently to the real OpenAI provider (and hangs offline).
    pub fn app_server_args(&self) -> Vec<String> {
        let mut args = vec!["app-server".to_owned(), "--strict-config".to_owned()];
        let mut c = |kv: String| {
            args.push("-c".to_owned());
            args.push(kv);
        };
        c(format!("features.plugins={}", self.enable_plugins));
        c("analytics.enabled=false".to_owned());
        // The plan checklist (`update_plan` → `turn/plan/updated`) is what the window shows
        // as the run's plan; codex 0.169 leaves the tool out unless this is on. The profile's
        // own overrides come later and win (`tools.update_plan.enabled=false` turns it off).
        c("tools.update_plan.enabled=true".to_owned());
        if let Some(p) = &self.provider {
            let mut fields = vec![
                format!("name={}", toml_string(&p.name)),
                format!("base_url={}", toml_string(&p.base_url)),
                "wire_api=\"responses\"".to_owned(),
                format!("env_key={}", toml_string(&p.env_key)),
                "requires_openai_auth=false".to_owned(),
                "supports_websockets=false".to_owned(),
            ];
            if let Some(n) = p.request_max_retries {
                fields.push(format!("request_max_retries={n}"));
            }
            if let Some(n) = p.stream_max_retries {
                fields.push(format!("stream_max_retries={n}"));
            }
            c(format!("model_providers.{}={{{}}}", p.id, fields.join(",")));
            c(format!("model_provider={}", toml_string(&p.id)));
        }
        // No `-c model=`: the model goes with every thread and turn instead, so one resident
        // server serves a session whatever model it picks next (a server keyed by the model
        // would be a second writer of the session's thread, which codex refuses).
        for (k, v) in crate::mcp::codex_overrides(&self.mcp_servers)
            .iter()
            .chain(&self.config_overrides)
        {
            c(format!("{k}={v}"));
        }
        args
    }

    /// The per-thread config overrides (`thread/start`/`thread/resume` `config`). Codex 0.169
    /// loads `<cwd>/.codex/config.toml` unless the project is marked untrusted — measured: an
    /// MCP server declared there was started at thread start, with no approval, for a project
    /// absent from the user's config. Marking it untrusted for this thread turns that off.
    pub fn thread_config(&self, cwd: &str) -> Option<serde_json::Map<String, serde_json::Value>> {
        if self.trust_project_config {
            return None;
        }
        let mut config = serde_json::Map::new();
        config.insert(
            "projects".to_owned(),
            serde_json::json!({ cwd: { "trust_level": "untrusted" } }),
        );
        Some(config)
    }

    pub fn server_key(&self, codex_home: Option<PathBuf>) -> ServerKey {
        let mut env = self.env.clone();
        env.sort();
        let mut env_remove = self.env_remove.clone();
        env_remove.sort();
        // The provider's key, and what the MCP servers are handed by name.
        let mut pass_env: Vec<String> = self.provider.iter().map(|p| p.env_key.clone()).collect();
        pass_env.extend(crate::mcp::env_names(&self.mcp_servers));
        pass_env.sort();
        pass_env.dedup();
        ServerKey {
            codex_home,
            args: self.app_server_args(),
            env,
            env_remove,
            pass_env,
            own: None,
        }
    }
}

#[cfg(test)]
mod options_json_tests {
    use super::*;

    #[test]
    fn engine_options_read_the_stored_json_and_ignore_wrong_types() {
        let o = CodexOptions::from_json(&serde_json::json!({
            "codexHome": "/h", "requestMaxRetries": 0, "streamMaxRetries": "3",
            "configOverrides": {"a.b": "x", "n": 2}, "planMode": true,
            "trustProjectConfig": "yes", "maxTurns": 4, "reasoningEffort": "high"
        }));
        assert_eq!(
            o,
            CodexOptions {
                codex_home: Some(PathBuf::from("/h")),
                request_max_retries: Some(0),
                stream_max_retries: None,
                config_overrides: [("a.b".into(), "x".into()), ("n".into(), "2".into())].into(),
                plan_mode: true,
                trust_project_config: false,
                reasoning_effort: Some("high".into()),
            }
        );
        assert_eq!(
            CodexOptions::from_json(&serde_json::Value::Null),
            CodexOptions::default()
        );
        let claude = crate::claude::ClaudeOptions::from_json(&serde_json::json!({
            "settingSources": ["user", "project", 3], "maxTurns": 4, "reasoningEffort": " "
        }));
        assert_eq!(claude.max_turns, Some(4));
        assert_eq!(
            claude.reasoning_effort, None,
            "blank is the model's default"
        );
        assert_eq!(claude.workspace_setting_sources(), ["project"]);
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn offline_recipe_args() {
        let p = CodexProfile {
            model: Some("gpt-5.5".into()),
            provider: Some(CustomProvider {
                id: "mock".into(),
                name: "mock".into(),
                base_url: "http://127.0.0.1:9/v1".into(),
                env_key: "MOCK_API_KEY".into(),
                request_max_retries: Some(0),
                stream_max_retries: Some(0),
            }),
            config_overrides: vec![("x.y".into(), "1".into())],
            ..Default::default()
        };
        let a = p.app_server_args();
        assert_eq!(&a[..2], ["app-server", "--strict-config"]);
        let joined = a.join(" ");
        assert!(joined.contains("-c features.plugins=false -c analytics.enabled=false"));
        assert!(joined.contains(
            r#"-c model_providers.mock={name="mock",base_url="http://127.0.0.1:9/v1",wire_api="responses",env_key="MOCK_API_KEY",requires_openai_auth=false,supports_websockets=false,request_max_retries=0,stream_max_retries=0}"#
        ));
        assert!(
            joined.contains(r#"-c model_provider="mock" -c x.y=1"#),
            "{joined}"
        );
        assert!(
            !joined.contains("gpt-5.5"),
            "the model is per thread: {joined}"
        );
        // The plan tool is on, before the profile's overrides (which can turn it off).
        let plan = joined.find("-c tools.update_plan.enabled=true").unwrap();
        assert!(plan < joined.find("-c x.y=1").unwrap(), "{joined}");
    }
}
