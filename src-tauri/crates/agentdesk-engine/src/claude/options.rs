//! Profile options → the `claude` command line and environment.
//!
//! Every value goes as `--flag=value`: a value starting with `-` (a prompt, a path) can then
//! never be read as a flag of its own.

use std::path::PathBuf;

use crate::error::EngineError;
use crate::vocab::Engine;
pub use agentdesk_protocol::engine_options::{ClaudeOptions, WORKSPACE_SETTING_SOURCES};

/// `--permission-mode` values, for [`crate::claude::RunControl::set_permission_mode`]. A run
/// always *starts* in [`PermissionMode::Default`] (see [`ClaudeProfile::args`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PermissionMode {
    /// Ask for everything that is not read-only.
    Default,
    /// File edits in the workspace run without asking.
    AcceptEdits,
    /// Read-only planning; every tool asks.
    Plan,
    /// Nothing asks (refused as root unless `IS_SANDBOX=1`).
    BypassPermissions,
}

impl PermissionMode {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Default => "default",
            Self::AcceptEdits => "acceptEdits",
            Self::Plan => "plan",
            Self::BypassPermissions => "bypassPermissions",
        }
    }
}

/// What a profile says about running Claude Code.
///
/// There is deliberately no permission mode and no allowed-tools list here: the CLI runs
/// whatever those cover without a `can_use_tool` request, so the app's approval queue (its
/// deny rules, its record) would never see it. A profile's auto-edit, full-auto, read-only
/// and allowed tools are the queue's policy instead (`agentdesk-core`'s `approval_rules`),
/// which decides each request the CLI asks about and records the decision.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClaudeProfile {
    pub model: Option<String>,
    /// Tools removed from the model's tool list (`--disallowedTools`). It only narrows: a
    /// removed tool cannot be called at all, which is also the only way to deny what the CLI
    /// runs without asking (reads inside the workspace, read-only Bash).
    pub disallowed_tools: Vec<String>,
    /// Appended to Claude Code's own system prompt (never replaces it).
    pub append_system_prompt: Option<String>,
    /// Extra directories the agent may read (`--add-dir`). In the default permission mode
    /// the CLI reads there without asking (Read, `cat`, `ls`) and still asks for every write
    /// (Write, Edit, `touch`, `mkdir`, redirections, `cp`, `sed -i`: verified with 2.1.328),
    /// so a write there reaches the queue, whose auto-edit rule only covers the workspace.
    /// Never `/` or the home folder: the core drops those (and profile validation refuses
    /// them).
    pub add_dirs: Vec<PathBuf>,
    /// An Anthropic-compatible endpoint instead of api.anthropic.com (`ANTHROPIC_BASE_URL`).
    pub base_url: Option<String>,
    /// Name of the environment variable holding the API key for that endpoint; its value is
    /// passed as `ANTHROPIC_API_KEY` (the key itself never sits in the profile).
    pub api_key_env: Option<String>,
    /// `--setting-sources` (`user`, `project`, `local`); `None` is [`DEFAULT_SETTING_SOURCES`]
    /// (the user's own settings only), `Some(vec![])` loads no settings files.
    pub setting_sources: Option<Vec<String>>,
    pub max_turns: Option<u32>,
    /// `--effort` (`low` ... `max`); `None`: the model's default.
    pub effort: Option<String>,
    /// Extra environment (applied last).
    pub env: Vec<(String, String)>,
    /// Removed from the built environment (secrets this profile does not pass on).
    pub env_remove: Vec<String>,
    /// The profile's MCP servers (`--mcp-config`).
    pub mcp_servers: Vec<agentdesk_protocol::ui::McpServer>,
}

/// Settings files loaded unless a profile says otherwise: the user's own, never the
/// workspace's (`project`, `local`), which a repository controls.
pub const DEFAULT_SETTING_SOURCES: &[&str] = &["user"];

/// How a run attaches to its conversation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionArg {
    /// A new session with an id we chose (so it is known before the CLI says it).
    New(String),
    Resume(String),
}

impl ClaudeProfile {
    /// The full argument list (without the program).
    pub fn args(&self, session: &SessionArg) -> Vec<String> {
        let mut args: Vec<String> = [
            "--output-format",
            "stream-json",
            "--verbose",
            "--input-format",
            "stream-json",
            // Without it the CLI never asks: prompts are auto-denied.
            "--permission-prompt-tool",
            "stdio",
            "--include-partial-messages",
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
        match session {
            SessionArg::New(id) => args.push(format!("--session-id={id}")),
            SessionArg::Resume(id) => args.push(format!("--resume={id}")),
        }
        if let Some(m) = &self.model {
            args.push(format!("--model={m}"));
        }
        // Always the default mode, and explicitly: without the flag the user's settings
        // (`permissions.defaultMode`) could start the CLI in acceptEdits or bypassPermissions,
        // where edits (or everything) run without a `can_use_tool` request. In the default
        // mode every write and every command that is not read-only is asked, so it goes
        // through the queue. No `--allowedTools` for the same reason.
        args.push(format!(
            "--permission-mode={}",
            PermissionMode::Default.as_str()
        ));
        if !self.disallowed_tools.is_empty() {
            args.push(format!(
                "--disallowedTools={}",
                self.disallowed_tools.join(",")
            ));
        }
        // The system-prompt addition is not an argument: the run hands it over as a file
        // (`prompt_file.rs`, `--append-system-prompt-file`; see [`Self::system_prompt`]).
        for d in &self.add_dirs {
            args.push(format!("--add-dir={}", d.display()));
        }
        // Always explicit: without the flag the CLI loads the workspace's `.claude/settings*.json`
        // too, whose hooks run commands unasked and whose `permissions.allow` bypasses the
        // approval queue. A repository must not configure its own agent.
        let sources = self
            .setting_sources
            .as_ref()
            .map_or_else(|| DEFAULT_SETTING_SOURCES.join(","), |s| s.join(","));
        args.push(format!("--setting-sources={sources}"));
        if let Some(n) = self.max_turns {
            args.push(format!("--max-turns={n}"));
        }
        if let Some(e) = &self.effort {
            args.push(format!("--effort={e}"));
        }
        // One argument (`=`): the flag takes several values, and a later argument must not
        // be read as a second config.
        if let Some(c) = crate::mcp::claude_config(&self.mcp_servers) {
            args.push(format!("--mcp-config={c}"));
        }
        args
    }

    /// The system-prompt addition, if any: written to a file for the run
    /// (`--append-system-prompt-file`), never put on the command line.
    pub fn system_prompt(&self) -> Option<&str> {
        self.append_system_prompt
            .as_deref()
            .filter(|p| !p.is_empty())
    }

    /// Environment additions on top of the allow-listed basics
    /// ([`crate::process::BaseEnv::Allowlisted`]): Claude's own variables from `parent`, the
    /// app's environment ([`crate::ssh::desktop_env`]: none for a CLI on a host; see
    /// [`crate::child_env::engine_env`]), our entrypoint, the custom endpoint and its key, the
    /// profile's own variables. Fails when the key variable is named but not set.
    pub fn env_vars_from(
        &self,
        entrypoint: &str,
        parent: &[(String, String)],
    ) -> Result<Vec<(String, String)>, EngineError> {
        // The key variable, and the variables the MCP servers get by name (Claude Code
        // expands `${VAR}` in `--mcp-config` from its own environment).
        let mut pass: Vec<String> = self.api_key_env.iter().cloned().collect();
        pass.extend(crate::mcp::env_names(&self.mcp_servers));
        let mut env = crate::child_env::engine_env(
            Engine::Claude,
            parent,
            &self.env,
            &pass,
            &self.env_remove,
        );
        env.push(("CLAUDE_CODE_ENTRYPOINT".to_owned(), entrypoint.to_owned()));
        if let Some(url) = &self.base_url {
            env.push(("ANTHROPIC_BASE_URL".to_owned(), url.clone()));
        }
        if let Some(var) = &self.api_key_env {
            let value = self
                .env
                .iter()
                .rev()
                .find(|(k, _)| k == var)
                .map(|(_, v)| v.clone())
                .or_else(|| {
                    parent
                        .iter()
                        .rev()
                        .find(|(k, _)| k == var)
                        .map(|(_, v)| v.clone())
                })
                .filter(|v| !v.is_empty())
                .ok_or_else(|| {
                    EngineError::Preflight(format!(
                        "The profile takes its API key from the environment variable `{var}`, which is not set: set it before starting Agent Desk, or change the profile"
                    ))
                })?;
            env.push(("ANTHROPIC_API_KEY".to_owned(), value));
        }
        env.extend(self.env.iter().cloned());
        Ok(env)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn argv_follows_the_sdk_and_never_splits_values() {
        let p = ClaudeProfile {
            model: Some("claude-sonnet-4-5".into()),
            disallowed_tools: vec!["WebFetch".into()],
            append_system_prompt: Some("-be brief".into()),
            add_dirs: vec![PathBuf::from("/data/x")],
            setting_sources: Some(vec![]),
            max_turns: Some(3),
            ..Default::default()
        };
        let args = p.args(&SessionArg::Resume("abc".into()));
        // The prompt goes to the run as a file, never on the command line (issue 20 item 3).
        assert!(!args.iter().any(|a| a.contains("be brief")), "{args:?}");
        assert_eq!(p.system_prompt(), Some("-be brief"));
        assert_eq!(
            &args[..8],
            [
                "--output-format",
                "stream-json",
                "--verbose",
                "--input-format",
                "stream-json",
                "--permission-prompt-tool",
                "stdio",
                "--include-partial-messages"
            ]
        );
        for want in [
            "--resume=abc",
            "--model=claude-sonnet-4-5",
            "--permission-mode=default",
            "--disallowedTools=WebFetch",
            "--add-dir=/data/x",
            "--setting-sources=",
            "--max-turns=3",
        ] {
            assert!(args.iter().any(|a| a == want), "{want} missing in {args:?}");
        }
        let args = ClaudeProfile::default().args(&SessionArg::New("u".into()));
        assert_eq!(args.len(), 11);
        assert_eq!(args[8], "--session-id=u");
        assert_eq!(args[9], "--permission-mode=default");
        // Workspace settings (hooks, allow rules) are never loaded unless asked for.
        assert_eq!(args[10], "--setting-sources=user");
    }

    /// Issue 19 item 2: whatever the profile, the CLI starts in its default mode (stated, so
    /// the user's `defaultMode` setting cannot change it) and is handed no list of tools to
    /// run unasked: every write and command reaches `can_use_tool`, i.e. the queue.
    #[test]
    fn the_cli_never_runs_anything_unasked_on_the_profiles_behalf() {
        let p = ClaudeProfile {
            disallowed_tools: vec!["WebFetch".into()],
            add_dirs: vec![PathBuf::from("/data/x")],
            ..Default::default()
        };
        for session in [SessionArg::New("n".into()), SessionArg::Resume("r".into())] {
            let args = p.args(&session);
            let modes: Vec<&String> = args
                .iter()
                .filter(|a| a.starts_with("--permission-mode"))
                .collect();
            assert_eq!(modes, ["--permission-mode=default"], "{args:?}");
            for never in [
                "--allowedTools",
                "--allowed-tools",
                "--dangerously-skip-permissions",
                "acceptEdits",
                "bypassPermissions",
            ] {
                assert!(!args.iter().any(|a| a.contains(never)), "{never}: {args:?}");
            }
            // What only narrows (or only lets it read) stays.
            assert!(args.contains(&"--disallowedTools=WebFetch".to_string()));
            assert!(args.contains(&"--add-dir=/data/x".to_string()));
        }
    }

    #[test]
    fn custom_endpoint_takes_the_key_from_the_named_variable() {
        let p = ClaudeProfile {
            base_url: Some("http://127.0.0.1:9".into()),
            api_key_env: Some("AGENTDESK_TEST_KEY_VAR".into()),
            env: vec![("AGENTDESK_TEST_KEY_VAR".into(), "sk-1".into())],
            ..Default::default()
        };
        let env = p.env_vars_from("agent-desk", &[]).unwrap();
        assert!(env.contains(&("CLAUDE_CODE_ENTRYPOINT".into(), "agent-desk".into())));
        assert!(env.contains(&("ANTHROPIC_BASE_URL".into(), "http://127.0.0.1:9".into())));
        assert!(env.contains(&("ANTHROPIC_API_KEY".into(), "sk-1".into())));
        let missing = ClaudeProfile {
            api_key_env: Some("AGENTDESK_SURELY_UNSET_VAR".into()),
            ..Default::default()
        };
        let err = missing.env_vars_from("x", &[]).unwrap_err();
        assert!(
            err.to_string().contains("AGENTDESK_SURELY_UNSET_VAR"),
            "{err}"
        );
    }

    #[test]
    fn only_claude_variables_and_the_named_key_come_from_the_app() {
        let parent: Vec<(String, String)> = [
            ("ANTHROPIC_AUTH_TOKEN", "t"),
            ("CLAUDE_CONFIG_DIR", "/c"),
            ("OPENAI_API_KEY", "sk-o"),
            ("MY_KEY", "k"),
            ("GITHUB_TOKEN", "g"),
            ("RUST_LOG", "debug"),
        ]
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
        let p = ClaudeProfile {
            api_key_env: Some("MY_KEY".into()),
            env_remove: vec!["ANTHROPIC_AUTH_TOKEN".into()],
            ..Default::default()
        };
        let env = p.env_vars_from("x", &parent).unwrap();
        let names: Vec<&str> = env.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            names,
            [
                "CLAUDE_CONFIG_DIR",
                "MY_KEY",
                "CLAUDE_CODE_ENTRYPOINT",
                "ANTHROPIC_API_KEY"
            ]
        );
        assert!(env.contains(&("ANTHROPIC_API_KEY".into(), "k".into())));
    }
}
