//! Engine health: what `agentdesk-cli doctor`, the Settings screen and the first-run screen
//! show for each engine (found where, version, logged in, what to install or run). One
//! implementation for both faces, so the window never disagrees with the CLI.

use std::path::{Path, PathBuf};
use std::time::Duration;

use agentdesk_engine::claude::{ClaudeEngine, ClaudeEngineConfig, ClaudeProfile};
use agentdesk_engine::codex::{CodexEngine, CodexEngineConfig, CodexProfile};
use agentdesk_engine::{Discovery, FoundVia};
use agentdesk_protocol::ui::{Engine, EngineHealth, ErrorCode, IpcError};

use crate::engines::engine_program;
use crate::{CoreError, Desk, Result};

/// Bound on each login probe (an engine start plus one request).
const PROBE_TIMEOUT: Duration = Duration::from_secs(30);

/// The result of checking one engine.
#[derive(Debug)]
pub struct EngineCheck {
    pub health: EngineHealth,
    /// Installed, but a version runs are refused with: the error runs fail with (the CLI's
    /// `doctor` exits with it).
    pub unsupported: Option<CoreError>,
}

/// How to install an engine, as a terminal command.
pub fn install_command(engine: Engine) -> &'static str {
    match engine {
        Engine::Codex => "npm install -g @openai/codex",
        Engine::Claude => "npm install -g @anthropic-ai/claude-code",
    }
}

/// How to install the version the adapters were verified with.
pub fn install_supported_command(engine: Engine) -> &'static str {
    match engine {
        Engine::Codex => "npm install -g @openai/codex@0.169.0",
        Engine::Claude => "npm install -g @anthropic-ai/claude-code@2.1.328",
    }
}

/// How to log in, as terminal commands (Claude logs in from inside its own prompt).
pub fn login_commands(engine: Engine) -> &'static [&'static str] {
    match engine {
        Engine::Codex => &["codex login"],
        Engine::Claude => &["claude", "/login   (typed inside claude)"],
    }
}

impl Desk {
    /// Check one engine: locate it, probe its version, and (when `check_login`) start it once
    /// to ask who is logged in.
    pub async fn check_engine_health(&self, engine: Engine, check_login: bool) -> EngineCheck {
        let settings = self.engine_settings().await.unwrap_or_default();
        let override_path = match engine {
            Engine::Codex => settings.codex_bin.clone(),
            Engine::Claude => settings.claude_bin.clone(),
        };
        let mut health = EngineHealth {
            engine,
            path: None,
            found_via: None,
            override_path: override_path.as_ref().map(|p| p.display().to_string()),
            version: None,
            logged_in: None,
            problem: None,
            fix_commands: Vec::new(),
        };
        let check = |health: EngineHealth| EngineCheck {
            health,
            unsupported: None,
        };
        let exe = match self.locate_engine(engine).await {
            Ok(exe) => exe,
            Err(e) => {
                health.problem = Some(e.to_ipc());
                health.fix_commands = vec![install_command(engine).to_owned()];
                return check(health);
            }
        };
        health.path = Some(exe.path.display().to_string());
        health.found_via = Some(
            match exe.via {
                FoundVia::Override if override_path.is_some() => "settings",
                FoundVia::Override => "environment",
                FoundVia::Path => "path",
                FoundVia::InstallDir => "install_dir",
            }
            .to_owned(),
        );
        let version = match self.engine_version(engine).await {
            Ok(v) => v,
            Err(e) => {
                health.problem = Some(e.to_ipc());
                health.fix_commands = vec![install_supported_command(engine).to_owned()];
                return check(health);
            }
        };
        health.version = Some(version.raw.clone());
        // Installed but outside the supported range: runs are refused, so say what to install.
        if let Err(e) = engine_program(engine).check_version(&exe.path, &version) {
            let e = CoreError::from(e);
            health.problem = Some(e.to_ipc());
            health.fix_commands = vec![install_supported_command(engine).to_owned()];
            return EngineCheck {
                health,
                unsupported: Some(e),
            };
        }
        if check_login {
            let home = self.codex_home(None).await.unwrap_or(None);
            let probe = login_state(engine, &exe.path, self.data_dir(), home);
            match tokio::time::timeout(PROBE_TIMEOUT, probe).await {
                Ok(Ok(logged_in)) => {
                    health.logged_in = Some(logged_in);
                    if !logged_in {
                        health.fix_commands = login_commands(engine)
                            .iter()
                            .map(|c| c.to_string())
                            .collect();
                    }
                }
                Ok(Err(e)) => {
                    health.problem = Some(IpcError {
                        code: ErrorCode::EngineFailed,
                        message: format!("login check failed: {e}"),
                    })
                }
                Err(_) => {
                    health.problem = Some(IpcError {
                        code: ErrorCode::TimedOut,
                        message: "login check timed out".to_owned(),
                    })
                }
            }
        }
        check(health)
    }

    /// Both engines, checked at the same time (each login probe starts an engine).
    pub async fn engines_health(&self, check_login: bool) -> Vec<EngineCheck> {
        let (codex, claude) = tokio::join!(
            self.check_engine_health(Engine::Codex, check_login),
            self.check_engine_health(Engine::Claude, check_login)
        );
        vec![codex, claude]
    }

    /// Set (or clear, with `None` or an empty path) the executable Settings points an engine
    /// at. A path that is not an executable file is refused with the same message a run
    /// would fail with, so the mistake shows next to the field, not at the next run.
    pub async fn set_engine_path(&self, engine: Engine, path: Option<&str>) -> Result<()> {
        let path = path
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(PathBuf::from);
        if let Some(p) = &path {
            if !p.is_absolute() {
                return Err(CoreError::InvalidInput(format!(
                    "{} is not an absolute path: choose the {} executable with “Choose…”",
                    p.display(),
                    engine_program(engine).display_name
                )));
            }
            Discovery::new(engine_program(engine))
                .override_path(Some(p.clone()))
                .find()?;
        }
        let mut settings = self.engine_settings().await?;
        match engine {
            Engine::Codex => settings.codex_bin = path,
            Engine::Claude => settings.claude_bin = path,
        }
        tracing::info!(engine = engine.as_str(), "engine path changed in settings");
        self.set_engine_settings(&settings).await
    }
}

/// Start the engine once with default options and ask who is logged in.
async fn login_state(
    engine: Engine,
    program: &Path,
    cwd: &Path,
    codex_home: Option<PathBuf>,
) -> std::result::Result<bool, agentdesk_engine::EngineError> {
    match engine {
        Engine::Claude => {
            let claude = ClaudeEngine::new(ClaudeEngineConfig::new(program));
            let status = claude.status(cwd, &ClaudeProfile::default()).await?;
            Ok(status.logged_in)
        }
        Engine::Codex => {
            let codex = CodexEngine::new(CodexEngineConfig::new(program));
            let account = codex.account(codex_home, &CodexProfile::default()).await;
            // The app-server is resident; stop it before returning (no orphans).
            codex.shutdown().await;
            let account = account?;
            Ok(account.account.is_some() || !account.requires_openai_auth)
        }
    }
}
