//! Engine health: what `agentdesk-cli doctor`, the Settings screen and the first-run screen
//! show for each engine (found where, version, logged in, what to install or run). One
//! implementation for both faces, so the window never disagrees with the CLI.

use std::path::PathBuf;
use std::time::Duration;

use agentdesk_engine::{registry, FoundVia};
use agentdesk_protocol::ui::{Engine, EngineHealth, ErrorCode, IpcError};

use crate::engines::{check_program_path, descriptor};
use crate::{CoreError, Desk, Result};

/// Bound on each login probe (an engine start plus one request).
const PROBE_TIMEOUT: Duration = Duration::from_secs(30);
/// Bound on `--version`.
const VERSION_TIMEOUT: Duration = Duration::from_secs(10);

/// The result of checking one engine program.
#[derive(Debug)]
pub struct EngineCheck {
    pub health: EngineHealth,
    /// Installed, but a version runs are refused with: the error runs fail with (the CLI's
    /// `doctor` exits with it).
    pub unsupported: Option<CoreError>,
}

fn found_via(via: FoundVia, from_settings: bool) -> &'static str {
    match via {
        FoundVia::Override if from_settings => "settings",
        FoundVia::Override => "environment",
        FoundVia::Path => "path",
        FoundVia::InstallDir => "install_dir",
    }
}

impl Desk {
    /// Check one program of an engine: locate it, probe its version, and (when
    /// `check_login`) start it once to ask who is logged in.
    pub async fn check_program_health(&self, name: &str, check_login: bool) -> Result<EngineCheck> {
        let settings = self.engine_settings().await.unwrap_or_default();
        let (engine, program) = registry::program(name).ok_or_else(|| unknown_program(name))?;
        let override_path = settings.program(name).bin;
        let mut health = EngineHealth {
            engine,
            program: program.name.to_owned(),
            display_name: program.display_name.to_owned(),
            path: None,
            found_via: None,
            override_path: override_path.as_ref().map(|p| p.display().to_string()),
            version: None,
            logged_in: None,
            problem: None,
            fix_commands: Vec::new(),
        };
        let exe = match self.locate_program(name).await {
            Ok(exe) => exe,
            Err(e) => {
                health.problem = Some(e.to_ipc());
                health.fix_commands = vec![program.install_command.to_owned()];
                return Ok(EngineCheck {
                    health,
                    unsupported: None,
                });
            }
        };
        health.path = Some(exe.path.display().to_string());
        health.found_via = Some(found_via(exe.via, override_path.is_some()).to_owned());
        let version = match agentdesk_engine::probe_version(&exe, VERSION_TIMEOUT).await {
            Ok(v) => v,
            Err(e) => {
                health.problem = Some(CoreError::from(e).to_ipc());
                health.fix_commands = vec![program.install_supported_command.to_owned()];
                return Ok(EngineCheck {
                    health,
                    unsupported: None,
                });
            }
        };
        health.version = Some(version.raw.clone());
        // Installed but outside the supported range: runs are refused, so say what to install.
        if let Err(e) = program.check_version(&exe.path, &version) {
            let e = CoreError::from(e);
            health.problem = Some(e.to_ipc());
            health.fix_commands = vec![program.install_supported_command.to_owned()];
            return Ok(EngineCheck {
                health,
                unsupported: Some(e),
            });
        }
        if check_login {
            self.check_login(engine, &exe.path, &settings, &mut health)
                .await;
        }
        Ok(EngineCheck {
            health,
            unsupported: None,
        })
    }

    /// Start the engine once and record whether it is logged in (and how to log in).
    async fn check_login(
        &self,
        engine: Engine,
        exe: &std::path::Path,
        settings: &agentdesk_engine::EngineSettings,
        health: &mut EngineHealth,
    ) {
        let d = descriptor(engine);
        let probe = d.login_state(exe, self.data_dir(), settings);
        match tokio::time::timeout(PROBE_TIMEOUT, probe).await {
            Ok(Ok(logged_in)) => {
                health.logged_in = logged_in;
                if logged_in == Some(false) {
                    health.fix_commands =
                        d.login_commands().iter().map(|c| c.to_string()).collect();
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

    /// [`Self::check_program_health`] for an engine's first program.
    pub async fn check_engine_health(
        &self,
        engine: Engine,
        check_login: bool,
    ) -> Result<EngineCheck> {
        let program = crate::engines::engine_program(engine)
            .ok_or_else(|| unknown_program(engine.as_str()))?;
        self.check_program_health(program.name, check_login).await
    }

    /// Every program of every engine, checked at the same time (each login probe starts an
    /// engine).
    pub async fn engines_health(&self, check_login: bool) -> Vec<EngineCheck> {
        let checks =
            registry::programs().map(|(_, p)| self.check_program_health(p.name, check_login));
        futures_util::future::join_all(checks)
            .await
            .into_iter()
            // Every name comes from the registry: none is unknown.
            .filter_map(Result::ok)
            .collect()
    }

    /// Set (or clear, with `None` or an empty path) the executable Settings points a
    /// program at. A path that is not an executable file is refused with the same message a
    /// run would fail with, so the mistake shows next to the field, not at the next run.
    pub async fn set_engine_path(&self, name: &str, path: Option<&str>) -> Result<()> {
        let path = path
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(PathBuf::from);
        if let Some(p) = &path {
            if !p.is_absolute() {
                let shown = registry::program(name).map_or(name, |(_, p)| p.display_name);
                return Err(CoreError::InvalidInput(format!(
                    "{} is not an absolute path: choose the {shown} executable with “Choose…”",
                    p.display(),
                )));
            }
            check_program_path(name, p)?;
        }
        let mut settings = self.engine_settings().await?;
        settings.set_bin(name, path);
        tracing::info!(program = name, "engine path changed in settings");
        self.set_engine_settings(&settings).await
    }
}

/// A program no engine has (a stale name from the window).
fn unknown_program(name: &str) -> CoreError {
    CoreError::InvalidInput(format!("no engine has a program named {name:?}"))
}
