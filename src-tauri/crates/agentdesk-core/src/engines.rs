//! The engines a `Desk` drives: where their executables are, one [`AgentEngine`] per engine
//! (created on first use), and how a profile becomes adapter options. Everything about an
//! engine comes from its descriptor in the engine crate's registry; nothing here knows which
//! engines exist.
//!
//! A run takes a snapshot of its profile when it starts (`engine_options`), so editing a
//! profile changes the next run and never the running one.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use agentdesk_engine::registry::{self, EngineDescriptor};
use agentdesk_engine::Executable;
use agentdesk_engine::{probe_version, AgentEngine, EngineOptions, EngineProgram, EngineVersion};
pub use agentdesk_engine::{EngineSettings, ProgramSettings};
use agentdesk_protocol::sync::lock;
use agentdesk_protocol::ui::{Engine, EngineInfo, EngineLimits, ProfileSpec};
use tokio::sync::Mutex;

use crate::{CoreError, Desk, Result};

/// Settings key of [`EngineSettings`].
pub const ENGINE_SETTINGS_KEY: &str = "engines";

/// The lazily created engines. An engine is created with the executable found at first use;
/// changing the settings drops it (after its runs) so the next run uses the new path.
pub(crate) struct Engines {
    slots: BTreeMap<Engine, Mutex<Option<AgentEngine>>>,
    /// Every engine ever created, for shutdown (a replaced Codex engine keeps its app-server
    /// until its runs end).
    pub(crate) created: std::sync::Mutex<Vec<AgentEngine>>,
}

impl Default for Engines {
    fn default() -> Self {
        Self {
            slots: Engine::ALL.iter().map(|&e| (e, Mutex::new(None))).collect(),
            created: std::sync::Mutex::default(),
        }
    }
}

impl std::fmt::Debug for Engines {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engines").finish_non_exhaustive()
    }
}

impl Engines {
    fn slot(&self, engine: Engine) -> Result<&Mutex<Option<AgentEngine>>> {
        self.slots.get(&engine).ok_or_else(|| {
            CoreError::InvalidInput(format!("the engine {} is not known", engine.as_str()))
        })
    }

    pub(crate) async fn reset(&self) {
        for slot in self.slots.values() {
            *slot.lock().await = None;
        }
    }

    pub(crate) async fn shutdown(&self) {
        let all: Vec<AgentEngine> = std::mem::take(&mut *lock(&self.created));
        for e in all {
            e.shutdown().await;
        }
        self.reset().await;
    }
}

/// The engine's descriptor: its name, capabilities, programs, options.
pub fn descriptor(engine: Engine) -> &'static dyn EngineDescriptor {
    registry::descriptor(engine)
}

/// Every engine as the window lists it.
pub fn engine_infos() -> Vec<EngineInfo> {
    registry::all().map(registry::info).collect()
}

/// The program an engine is found and version-checked by (`None`: its command comes from
/// the profile).
pub fn engine_program(engine: Engine) -> Option<EngineProgram> {
    descriptor(engine).programs().first().copied()
}

/// What a user should know before using a profile: settings that let the workspace (a
/// repository) configure its own agent, an agent that acts without asking. Shown by
/// `profile list/show` and the app.
pub fn profile_warnings(spec: &ProfileSpec) -> Vec<String> {
    descriptor(spec.engine).profile_warnings(spec)
}

/// The program an engine is found by, or why it has none.
fn first_program(engine: Engine) -> Result<EngineProgram> {
    engine_program(engine).ok_or_else(|| {
        CoreError::InvalidInput(format!(
            "{} runs the command its profile names",
            descriptor(engine).display_name()
        ))
    })
}

/// Whether an engine has a program named `name`.
pub fn is_program(name: &str) -> bool {
    registry::program(name).is_some()
}

/// The program named `name` (`codex`, `opencode`...).
fn named_program(name: &str) -> Result<EngineProgram> {
    registry::program(name)
        .map(|(_, p)| *p)
        .ok_or_else(|| CoreError::InvalidInput(format!("no engine has a program named {name:?}")))
}

impl Desk {
    pub async fn engine_settings(&self) -> Result<EngineSettings> {
        Ok(self
            .store
            .get_setting(ENGINE_SETTINGS_KEY)
            .await?
            .unwrap_or_default())
    }

    /// The engines' memory limit as set, and its default.
    pub async fn engine_limits(&self) -> Result<EngineLimits> {
        Ok(EngineLimits {
            memory_limit_mb: self.engine_settings().await?.memory_limit_mb(),
            default_memory_limit_mb: agentdesk_engine::limits::DEFAULT_MEMORY_LIMIT_MB,
        })
    }

    /// Stop an engine whose memory passes `mb` MB (`None`: the default; `0`: never). Engines
    /// are re-created with it at their next run (one running now keeps its limit).
    pub async fn set_engine_memory_limit(&self, mb: Option<u32>) -> Result<EngineLimits> {
        let mut settings = self.engine_settings().await?;
        settings.set_memory_limit_mb(mb);
        self.set_engine_settings(&settings).await?;
        self.engine_limits().await
    }

    /// Store new engine settings; engines are re-created (with the new paths) at the next run.
    pub async fn set_engine_settings(&self, settings: &EngineSettings) -> Result<()> {
        self.store
            .set_setting(ENGINE_SETTINGS_KEY, settings)
            .await?;
        self.runs.engines.reset().await;
        Ok(())
    }

    /// Where a program's executable is: the Settings path, then `AGENTDESK_<NAME>_BIN`, then
    /// PATH and the usual install dirs.
    pub async fn locate_program(&self, name: &str) -> Result<Executable> {
        let program = named_program(name)?;
        let settings = self.engine_settings().await?;
        Ok(registry::locate(&program, &settings)?)
    }

    /// Where an engine's (first) executable is.
    pub async fn locate_engine(&self, engine: Engine) -> Result<Executable> {
        self.locate_program(first_program(engine)?.name).await
    }

    /// The program's executable and version, refused with
    /// [`agentdesk_engine::EngineError::UnsupportedVersion`] (what to install) when outside
    /// the supported range, or when it does not answer `--version` at all.
    pub async fn check_program(&self, name: &str) -> Result<(Executable, EngineVersion)> {
        let program = named_program(name)?;
        let exe = self.locate_program(name).await?;
        let version = probe_version(&exe, Duration::from_secs(10)).await?;
        program.check_version(&exe.path, &version)?;
        Ok((exe, version))
    }

    /// [`Self::check_program`] for an engine's (first) program.
    pub async fn check_engine(&self, engine: Engine) -> Result<(Executable, EngineVersion)> {
        self.check_program(first_program(engine)?.name).await
    }

    /// The engine, created on first use.
    pub(crate) async fn engine(&self, engine: Engine) -> Result<AgentEngine> {
        let mut slot = self.runs.engines.slot(engine)?.lock().await;
        if let Some(e) = slot.as_ref() {
            return Ok(e.clone());
        }
        let d = descriptor(engine);
        // Checked once per engine (again after the settings change): a codex without
        // `app-server` or a future major would otherwise fail later with a cryptic error.
        let settings = self.engine_settings().await?;
        let created = match engine_program(engine).filter(|_| !d.command_from_profile()) {
            Some(_) => {
                let (exe, version) = self.check_engine(engine).await?;
                tracing::info!(engine = engine.as_str(), path = %exe.path.display(), %version, "engine ready");
                d.create(Some(&exe), &settings)
            }
            None => d.create(None, &settings),
        };
        lock(&self.runs.engines.created).push(created.clone());
        *slot = Some(created.clone());
        Ok(created)
    }

    /// The adapter options for one run of a profile (`None`: the engine's defaults, asking
    /// for everything that is not read-only).
    pub(crate) async fn engine_options(
        &self,
        engine: Engine,
        spec: Option<&ProfileSpec>,
    ) -> Result<EngineOptions> {
        let settings = self.engine_settings().await?;
        engine_options(engine, spec, &settings)
    }
}

/// [`Desk::engine_options`] with the settings given.
pub(crate) fn engine_options(
    engine: Engine,
    spec: Option<&ProfileSpec>,
    settings: &EngineSettings,
) -> Result<EngineOptions> {
    let mut spec = spec
        .cloned()
        .unwrap_or_else(|| ProfileSpec::new("", engine));
    if spec.engine != engine {
        return Err(CoreError::InvalidInput(format!(
            "the profile {:?} is for {}, but the session runs on {}",
            spec.name,
            spec.engine.as_str(),
            engine.as_str()
        )));
    }
    // A profile stored before validation refused them may still name `/` or the home
    // folder: reading all of it unasked is not what "also read" means, so it is dropped
    // here too (reads there are then asked, and the queue decides).
    spec.extra_dirs
        .retain(|d| crate::profiles::extra_dir_problem(d).is_none());
    Ok(descriptor(engine).run_options(&spec, settings)?)
}

/// The profile's inactivity watchdog, `engineOptions.inactivityTimeoutSecs` (0 turns it off);
/// `None`: the engine's default (10 min).
pub(crate) fn inactivity_timeout(spec: Option<&ProfileSpec>) -> Option<Duration> {
    agentdesk_engine::profile_options::inactivity_timeout(&spec?.engine_options)
}

/// Whether `path` is a program's executable (for Settings' path check).
pub(crate) fn check_program_path(name: &str, path: &Path) -> Result<()> {
    let program = named_program(name)?;
    agentdesk_engine::Discovery::new(program)
        .override_path(Some(PathBuf::from(path)))
        .find()?;
    Ok(())
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

/// Start the orphan watchdog (Unix; nothing elsewhere) while the process is still small and
/// single-threaded: the app and the CLI call this first thing (see `agentdesk_engine::watchdog`).
pub fn start_orphan_watchdog() {
    #[cfg(unix)]
    agentdesk_engine::watchdog::start();
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
            mcp_servers: Vec::new(),
        }
    }

    #[test]
    fn claude_options_follow_the_profile_and_keep_only_the_named_secret() {
        let s = spec(Engine::Claude, PermissionMode::AutoEdit);
        let EngineOptions::Claude(p) =
            engine_options(Engine::Claude, Some(&s), &EngineSettings::default()).unwrap()
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
            let EngineOptions::Claude(p) =
                engine_options(Engine::Claude, Some(&s), &EngineSettings::default()).unwrap()
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
            let mut settings = EngineSettings::default();
            settings.set_home("codex", home.clone());
            let EngineOptions::Codex {
                codex_home,
                profile,
            } = engine_options(Engine::Codex, Some(&s), &settings).unwrap()
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
        let claude = |s: &ProfileSpec| match engine_options(
            Engine::Claude,
            Some(s),
            &EngineSettings::default(),
        )
        .unwrap()
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
        let trusts = |s: &ProfileSpec| match engine_options(
            Engine::Codex,
            Some(s),
            &EngineSettings::default(),
        )
        .unwrap()
        {
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
        let err = engine_options(Engine::Codex, Some(&s), &EngineSettings::default()).unwrap_err();
        assert!(err.to_string().contains("is for claude"), "{err}");
    }
}
