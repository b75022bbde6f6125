//! The engines a `Desk` drives: where their executables are, one [`AgentEngine`] per kind
//! (created on first use), and how a profile becomes adapter options.
//!
//! A run takes a snapshot of its profile when it starts (`run_options`), so editing a
//! profile changes the next run and never the running one.

use std::path::{Path, PathBuf};
use std::time::Duration;

use agentdesk_engine::claude::{ClaudeEngine, ClaudeEngineConfig, ClaudeOptions, ClaudeProfile};
use agentdesk_engine::codex::{
    permission_policy, CodexEngine, CodexEngineConfig, CodexOptions, CodexProfile, CustomProvider,
};
use agentdesk_engine::{
    probe_version, AgentEngine, Discovery, EngineKind, EngineOptions, EngineProgram, EngineVersion,
    Executable,
};
use agentdesk_protocol::ui::{Engine, ProfileSpec};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::Mutex;

use crate::{CoreError, Desk, Result};

/// Settings key of [`EngineSettings`].
pub const ENGINE_SETTINGS_KEY: &str = "engines";
/// Environment overrides of the executables (scripts, tests); the settings' paths win.
pub const CODEX_BIN_ENV: &str = "AGENTDESK_CODEX_BIN";
pub const CLAUDE_BIN_ENV: &str = "AGENTDESK_CLAUDE_BIN";

/// Secrets the engines could read from the app's environment (their own logins, see
/// `agentdesk_engine::child_env`). With a custom endpoint they would go to a third party, so
/// they are removed unless the profile names one as its key.
const PROVIDER_SECRETS: &[&str] = &[
    "OPENAI_API_KEY",
    "CODEX_API_KEY",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "CLAUDE_CODE_OAUTH_TOKEN",
];

/// What the user set in Settings → Engines.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EngineSettings {
    #[serde(default)]
    pub codex_bin: Option<PathBuf>,
    #[serde(default)]
    pub claude_bin: Option<PathBuf>,
    /// CODEX_HOME for profiles that do not set one; `None`: `$CODEX_HOME`, else codex's default.
    #[serde(default)]
    pub codex_home: Option<PathBuf>,
}

/// The lazily created engines. An engine is created with the executable found at first use;
/// changing the settings drops it (after its runs) so the next run uses the new path.
#[derive(Default)]
pub(crate) struct Engines {
    codex: Mutex<Option<AgentEngine>>,
    claude: Mutex<Option<AgentEngine>>,
    /// Every engine ever created, for shutdown (a replaced Codex engine keeps its app-server
    /// until its runs end).
    created: std::sync::Mutex<Vec<AgentEngine>>,
}

impl std::fmt::Debug for Engines {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engines").finish_non_exhaustive()
    }
}

impl Engines {
    fn slot(&self, engine: Engine) -> &Mutex<Option<AgentEngine>> {
        match engine {
            Engine::Codex => &self.codex,
            Engine::Claude => &self.claude,
        }
    }

    pub(crate) async fn reset(&self) {
        *self.codex.lock().await = None;
        *self.claude.lock().await = None;
    }

    pub(crate) async fn shutdown(&self) {
        let all: Vec<AgentEngine> = std::mem::take(
            &mut *self
                .created
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        );
        for e in all {
            e.shutdown().await;
        }
        self.reset().await;
    }
}

/// The engine crate's name for a stored engine (its capabilities, its adapter).
pub fn engine_kind(engine: Engine) -> EngineKind {
    match engine {
        Engine::Codex => EngineKind::Codex,
        Engine::Claude => EngineKind::Claude,
    }
}

/// The program description (install hints, supported versions) of an engine.
pub fn engine_program(engine: Engine) -> EngineProgram {
    program(engine).0
}

/// What a user should know before using a profile: settings that let the workspace (a
/// repository) configure its own agent. Shown by `profile list/show` and the app.
pub fn profile_warnings(spec: &ProfileSpec) -> Vec<String> {
    let mut warnings = Vec::new();
    if spec.engine == Engine::Codex
        && CodexOptions::from_json(&spec.engine_options).trust_project_config
    {
        warnings.push(
            "loads the workspace's own Codex config (.codex/config.toml): MCP servers declared in the repository start without approval and its instructions reach the agent"
                .to_owned(),
        );
    }
    if spec.engine == Engine::Claude {
        let workspace_sources =
            ClaudeOptions::from_json(&spec.engine_options).workspace_setting_sources();
        if !workspace_sources.is_empty() {
            warnings.push(format!(
                "loads the workspace's own Claude settings ({}): hooks in the repository run commands without approval and its permission rules can approve tools",
                workspace_sources.join(", ")
            ));
        }
    }
    warnings
}

fn program(engine: Engine) -> (EngineProgram, &'static str) {
    match engine {
        Engine::Codex => (EngineProgram::CODEX, CODEX_BIN_ENV),
        Engine::Claude => (EngineProgram::CLAUDE, CLAUDE_BIN_ENV),
    }
}

fn env_path(var: &str) -> Option<PathBuf> {
    std::env::var_os(var)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

impl Desk {
    pub async fn engine_settings(&self) -> Result<EngineSettings> {
        Ok(self
            .store
            .get_setting(ENGINE_SETTINGS_KEY)
            .await?
            .unwrap_or_default())
    }

    /// Store new engine settings; engines are re-created (with the new paths) at the next run.
    pub async fn set_engine_settings(&self, settings: &EngineSettings) -> Result<()> {
        self.store
            .set_setting(ENGINE_SETTINGS_KEY, settings)
            .await?;
        self.runs.engines.reset().await;
        Ok(())
    }

    /// Where an engine's executable is: settings override, then `AGENTDESK_*_BIN`, then PATH
    /// and the usual install dirs.
    pub async fn locate_engine(&self, engine: Engine) -> Result<Executable> {
        let settings = self.engine_settings().await?;
        let (prog, var) = program(engine);
        let configured = match engine {
            Engine::Codex => settings.codex_bin,
            Engine::Claude => settings.claude_bin,
        };
        Ok(Discovery::new(prog)
            .override_path(configured.or_else(|| env_path(var)))
            .find()?)
    }

    pub async fn engine_version(&self, engine: Engine) -> Result<EngineVersion> {
        let exe = self.locate_engine(engine).await?;
        Ok(probe_version(&exe, Duration::from_secs(10)).await?)
    }

    /// The engine's executable and version, refused with
    /// [`agentdesk_engine::EngineError::UnsupportedVersion`] (what to install) when outside
    /// the supported range, or when it does not answer `--version` at all.
    pub async fn check_engine(&self, engine: Engine) -> Result<(Executable, EngineVersion)> {
        let exe = self.locate_engine(engine).await?;
        let version = probe_version(&exe, Duration::from_secs(10)).await?;
        engine_program(engine).check_version(&exe.path, &version)?;
        Ok((exe, version))
    }

    /// The engine for a kind, created on first use.
    pub(crate) async fn engine(&self, engine: Engine) -> Result<AgentEngine> {
        let mut slot = self.runs.engines.slot(engine).lock().await;
        if let Some(e) = slot.as_ref() {
            return Ok(e.clone());
        }
        // Checked once per engine (again after the settings change): a codex without
        // `app-server` or a future major would otherwise fail later with a cryptic error.
        let (exe, version) = self.check_engine(engine).await?;
        let created = match engine {
            Engine::Codex => {
                AgentEngine::Codex(CodexEngine::new(CodexEngineConfig::new(exe.path.clone())))
            }
            Engine::Claude => {
                AgentEngine::Claude(ClaudeEngine::new(ClaudeEngineConfig::new(exe.path.clone())))
            }
        };
        tracing::info!(engine = engine.as_str(), path = %exe.path.display(), %version, "engine ready");
        self.runs
            .engines
            .created
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(created.clone());
        *slot = Some(created.clone());
        Ok(created)
    }

    /// CODEX_HOME for a profile: `engineOptions.codexHome`, else the settings, else `$CODEX_HOME`.
    pub(crate) async fn codex_home(&self, spec: Option<&ProfileSpec>) -> Result<Option<PathBuf>> {
        if let Some(h) = spec.and_then(|s| CodexOptions::from_json(&s.engine_options).codex_home) {
            return Ok(Some(h));
        }
        Ok(self
            .engine_settings()
            .await?
            .codex_home
            .or_else(|| env_path("CODEX_HOME")))
    }
}

/// The adapter options for one run of a profile (`None`: the engine's defaults, asking for
/// everything that is not read-only).
pub(crate) fn engine_options(
    engine: Engine,
    spec: Option<&ProfileSpec>,
    codex_home: Option<PathBuf>,
) -> Result<EngineOptions> {
    let default_spec;
    let spec = match spec {
        Some(s) => s,
        None => {
            default_spec = ProfileSpec::new("", engine);
            &default_spec
        }
    };
    if spec.engine != engine {
        return Err(CoreError::InvalidInput(format!(
            "the profile {:?} is for {}, but the session runs on {}",
            spec.name,
            spec.engine.as_str(),
            engine.as_str()
        )));
    }
    let env: Vec<(String, String)> = spec
        .env
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let env_remove: Vec<String> = if spec.base_url.is_some() {
        PROVIDER_SECRETS
            .iter()
            .filter(|s| spec.api_key_env.as_deref() != Some(**s) && !spec.env.contains_key(**s))
            .map(|s| (*s).to_string())
            .collect()
    } else {
        Vec::new()
    };
    // The profile's secret values are redacted from every engine diagnostic from now on.
    for value in spec.secret_values() {
        agentdesk_engine::diagnostic::register_secret(value);
    }
    let opts = &spec.engine_options;
    Ok(match engine {
        Engine::Codex => EngineOptions::Codex {
            codex_home,
            profile: codex_profile(spec, env, env_remove, opts),
        },
        Engine::Claude => EngineOptions::Claude(claude_profile(spec, env, env_remove, opts)),
    })
}

/// The profile's inactivity watchdog, `engineOptions.inactivityTimeoutSecs` (0 turns it off);
/// `None`: the engine's default (10 min).
pub(crate) fn inactivity_timeout(spec: Option<&ProfileSpec>) -> Option<Duration> {
    let secs = spec?
        .engine_options
        .get("inactivityTimeoutSecs")?
        .as_u64()?;
    Some(Duration::from_secs(secs))
}

fn codex_profile(
    spec: &ProfileSpec,
    env: Vec<(String, String)>,
    env_remove: Vec<String>,
    opts: &Value,
) -> CodexProfile {
    let (approval, sandbox) = permission_policy(spec.permission_mode);
    let o = CodexOptions::from_json(opts);
    let provider = spec.base_url.as_ref().map(|url| CustomProvider {
        id: "agentdesk".into(),
        name: "Agent Desk profile endpoint".into(),
        base_url: url.clone(),
        env_key: spec
            .api_key_env
            .clone()
            .unwrap_or_else(|| "OPENAI_API_KEY".into()),
        request_max_retries: o.request_max_retries,
        stream_max_retries: o.stream_max_retries,
    });
    // Extra dirs: codex's sandboxes already let the agent read the whole disk, so there is
    // nothing to add for reading.
    CodexProfile {
        model: spec.model.clone(),
        approval_policy: Some(approval),
        sandbox: Some(sandbox),
        provider,
        config_overrides: o.config_overrides,
        enable_plugins: false,
        developer_instructions: spec.system_prompt.clone().filter(|s| !s.is_empty()),
        plan_mode: o.plan_mode,
        env,
        env_remove,
        trust_project_config: o.trust_project_config,
    }
}

fn claude_profile(
    spec: &ProfileSpec,
    env: Vec<(String, String)>,
    env_remove: Vec<String>,
    opts: &Value,
) -> ClaudeProfile {
    let o = ClaudeOptions::from_json(opts);
    // The permission mode and the allowed tools are not passed on: the CLI always starts in
    // its default mode and asks, and the queue applies them (`approval_rules`), after the
    // profile's deny rules and with a record. Denied tools are: removing a tool only narrows.
    ClaudeProfile {
        model: spec.model.clone(),
        disallowed_tools: spec.denied_tools.clone(),
        append_system_prompt: spec.system_prompt.clone().filter(|s| !s.is_empty()),
        // A profile stored before validation refused them may still name `/` or the home
        // folder: reading all of it unasked is not what "also read" means, so it is dropped
        // here too (reads there are then asked, and the queue decides).
        add_dirs: spec
            .extra_dirs
            .iter()
            .filter(|d| crate::profiles::extra_dir_problem(d).is_none())
            .map(PathBuf::from)
            .collect(),
        base_url: spec.base_url.clone(),
        api_key_env: spec.api_key_env.clone(),
        // `None`: the adapter's default, the user's own settings only (never the workspace's).
        setting_sources: o.setting_sources,
        max_turns: o.max_turns,
        env,
        env_remove,
    }
}

/// Extensions of the typed image links next to the blobs.
pub(crate) const IMAGE_EXTENSIONS: &[&str] = &["png", "jpg", "gif", "webp"];

/// The path an engine is given for an image blob: a hard link (or copy) named with the
/// sniffed type's extension, since engines tell the image type from the file name.
pub(crate) async fn typed_image_path(blob: &Path, mime: &str) -> Result<PathBuf> {
    let ext = match mime {
        "image/jpeg" => "jpg",
        "image/gif" => "gif",
        "image/webp" => "webp",
        _ => "png",
    };
    let typed = blob.with_extension(ext);
    if tokio::fs::try_exists(&typed).await.unwrap_or(false) {
        return Ok(typed);
    }
    // A link costs nothing; a copy (another file system, no links) can take a while: both
    // off the async threads.
    if tokio::fs::hard_link(blob, &typed).await.is_err() {
        tokio::fs::copy(blob, &typed)
            .await
            .map_err(|source| CoreError::Io {
                what: format!("preparing the image {}", blob.display()),
                source,
            })?;
    }
    Ok(typed)
}

/// Read the user's login-shell `PATH` in the background (issue 20 item 1): an app started
/// from the Dock, Finder or a desktop launcher has only `/usr/bin:/bin:…`, where npm- and
/// Homebrew-installed engines (and the tools their commands run) cannot start. The engine
/// crate merges it into discovery and every child's PATH; this only starts the probe early.
pub fn warm_up_login_path() {
    agentdesk_engine::login_path::warm_up();
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentdesk_protocol::codex::{AskForApproval, SandboxMode};
    use agentdesk_protocol::ui::PermissionMode;

    #[test]
    fn inactivity_timeout_comes_from_the_profile_engine_options() {
        let mut s = spec(Engine::Codex, PermissionMode::Ask);
        assert_eq!(inactivity_timeout(Some(&s)), None);
        assert_eq!(inactivity_timeout(None), None);
        s.engine_options = serde_json::json!({"inactivityTimeoutSecs": 90});
        assert_eq!(inactivity_timeout(Some(&s)), Some(Duration::from_secs(90)));
        s.engine_options = serde_json::json!({"inactivityTimeoutSecs": 0});
        assert_eq!(inactivity_timeout(Some(&s)), Some(Duration::ZERO));
    }

    /// An absolute extra folder, and the file-system root, on this platform (`/data/x` is
    /// not absolute on Windows, where validation would drop it).
    const DATA_X: &str = if cfg!(windows) {
        "C:/data/x"
    } else {
        "/data/x"
    };
    const ROOT: &str = if cfg!(windows) { "C:/" } else { "/" };

    fn spec(engine: Engine, mode: PermissionMode) -> ProfileSpec {
        ProfileSpec {
            name: "p".into(),
            engine,
            model: Some("m-1".into()),
            base_url: Some("http://127.0.0.1:9/v1".into()),
            api_key_env: Some("ANTHROPIC_API_KEY".into()),
            permission_mode: mode,
            allowed_tools: vec!["Read".into()],
            denied_tools: vec!["WebFetch".into()],
            system_prompt: Some("be brief".into()),
            extra_dirs: vec![DATA_X.into()],
            env: [("A".to_string(), "1".to_string())].into(),
            secret_env: Vec::new(),
            approval_rules: Vec::new(),
            approval_timeout_secs: None,
            engine_options: serde_json::json!({"maxTurns": 3, "configOverrides": {"x.y": 1}}),
        }
    }

    #[test]
    fn claude_options_follow_the_profile_and_keep_only_the_named_secret() {
        let s = spec(Engine::Claude, PermissionMode::AutoEdit);
        let EngineOptions::Claude(p) = engine_options(Engine::Claude, Some(&s), None).unwrap()
        else {
            panic!("not claude")
        };
        assert_eq!(p.model.as_deref(), Some("m-1"));
        assert_eq!(p.disallowed_tools, vec!["WebFetch".to_string()]);
        assert_eq!(p.append_system_prompt.as_deref(), Some("be brief"));
        assert_eq!(p.add_dirs, vec![PathBuf::from(DATA_X)]);
        assert_eq!(p.max_turns, Some(3));
        assert_eq!(p.env, vec![("A".to_string(), "1".to_string())]);
        // The profile's own key variable is passed on; the other provider secrets are not.
        assert!(!p.env_remove.contains(&"ANTHROPIC_API_KEY".to_string()));
        assert!(p.env_remove.contains(&"OPENAI_API_KEY".to_string()));
    }

    /// Issue 19 item 2: Claude starts in its default mode whatever the profile's mode, and
    /// is not handed the allowed tools (the CLI would run those unasked, behind the queue);
    /// the denied tools and the extra folders (reads only) are, minus `/` and the home
    /// folder a stored profile may still name.
    #[test]
    fn claude_keeps_every_decision_in_the_queue_whatever_the_mode() {
        use agentdesk_engine::claude::SessionArg;
        for mode in [
            PermissionMode::Ask,
            PermissionMode::AutoEdit,
            PermissionMode::FullAuto,
            PermissionMode::ReadOnly,
        ] {
            let mut s = spec(Engine::Claude, mode);
            s.allowed_tools = vec!["Write".into(), "Bash".into()];
            s.extra_dirs = vec![DATA_X.into(), ROOT.into(), format!("{ROOT}data/../")];
            if let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty()) {
                s.extra_dirs.push(home.to_string_lossy().into_owned());
            }
            let EngineOptions::Claude(p) = engine_options(Engine::Claude, Some(&s), None).unwrap()
            else {
                panic!("not claude")
            };
            assert_eq!(p.add_dirs, vec![PathBuf::from(DATA_X)], "{mode:?}");
            let args = p.args(&SessionArg::New("x".into()));
            let modes: Vec<&String> = args
                .iter()
                .filter(|a| a.starts_with("--permission-mode"))
                .collect();
            assert_eq!(modes, ["--permission-mode=default"], "{mode:?}: {args:?}");
            assert!(
                !args.iter().any(|a| a.starts_with("--allowedTools")),
                "{mode:?}: {args:?}"
            );
            assert!(args.contains(&"--disallowedTools=WebFetch".to_string()));
            let dirs: Vec<&String> = args.iter().filter(|a| a.starts_with("--add-dir")).collect();
            assert_eq!(dirs, ["--add-dir=/data/x"], "{mode:?}: {args:?}");
        }
    }

    #[test]
    fn codex_options_map_permission_modes() {
        for (mode, approval, sandbox) in [
            (
                PermissionMode::Ask,
                AskForApproval::Untrusted,
                SandboxMode::WorkspaceWrite,
            ),
            (
                PermissionMode::FullAuto,
                AskForApproval::OnRequest,
                SandboxMode::WorkspaceWrite,
            ),
            (
                PermissionMode::ReadOnly,
                AskForApproval::Never,
                SandboxMode::ReadOnly,
            ),
        ] {
            let s = spec(Engine::Codex, mode);
            let home = Some(PathBuf::from("/h"));
            let EngineOptions::Codex {
                codex_home,
                profile,
            } = engine_options(Engine::Codex, Some(&s), home.clone()).unwrap()
            else {
                panic!("not codex")
            };
            assert_eq!(codex_home, home);
            assert_eq!(profile.approval_policy, Some(approval));
            assert_eq!(profile.sandbox, Some(sandbox));
            let provider = profile.provider.unwrap();
            assert_eq!(provider.base_url, "http://127.0.0.1:9/v1");
            assert_eq!(provider.env_key, "ANTHROPIC_API_KEY");
            assert_eq!(profile.developer_instructions.as_deref(), Some("be brief"));
            assert_eq!(
                profile.config_overrides,
                vec![("x.y".to_string(), "1".to_string())]
            );
        }
    }

    #[test]
    fn workspace_settings_are_opt_in_and_the_profile_warns() {
        use agentdesk_engine::claude::SessionArg;
        let mut s = spec(Engine::Claude, PermissionMode::ReadOnly);
        let claude = |s: &ProfileSpec| match engine_options(Engine::Claude, Some(s), None).unwrap()
        {
            EngineOptions::Claude(p) => p,
            _ => panic!("not claude"),
        };
        let args = claude(&s).args(&SessionArg::New("x".into()));
        assert!(
            args.contains(&"--setting-sources=user".to_string()),
            "{args:?}"
        );
        assert!(profile_warnings(&s).is_empty());
        s.engine_options = serde_json::json!({"settingSources": ["user", "project"]});
        let args = claude(&s).args(&SessionArg::New("x".into()));
        assert!(
            args.contains(&"--setting-sources=user,project".to_string()),
            "{args:?}"
        );
        let warnings = profile_warnings(&s);
        assert_eq!(warnings.len(), 1);
        assert!(
            warnings[0].contains("(project)") && warnings[0].contains("hooks"),
            "{warnings:?}"
        );
        // Codex: the workspace's `.codex/config.toml` likewise, only when asked for.
        let mut codex = spec(Engine::Codex, PermissionMode::Ask);
        let trusts = |s: &ProfileSpec| match engine_options(Engine::Codex, Some(s), None).unwrap() {
            EngineOptions::Codex { profile, .. } => profile.trust_project_config,
            _ => panic!("not codex"),
        };
        assert!(profile_warnings(&codex).is_empty());
        assert!(!trusts(&codex));
        codex.engine_options = serde_json::json!({"trustProjectConfig": true});
        assert!(trusts(&codex));
        assert!(profile_warnings(&codex)[0].contains(".codex/config.toml"));
    }

    #[test]
    fn a_profile_for_another_engine_is_refused() {
        let s = spec(Engine::Claude, PermissionMode::Ask);
        let err = engine_options(Engine::Codex, Some(&s), None).unwrap_err();
        assert!(err.to_string().contains("is for claude"), "{err}");
    }
}
