//! The engine registry: everything the rest of the app knows about an engine comes from its
//! [`EngineDescriptor`] (name, capabilities, executables, typed profile options, login check,
//! how to start it). The core, the store, the CLI, the shell and the window learn the list of
//! engines from here ([`all`]) and never `match` on an engine themselves.
//!
//! Adding an engine: a folder under `src/` with its adapter and a `descriptor.rs`, a variant
//! of [`Engine`] (its stored name), and its line in [`descriptor`].

use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;

pub use agentdesk_protocol::ui::Engine;
use agentdesk_protocol::ui::{
    CommandCatalog, EngineAccount, EngineInfo, EngineProgramInfo, LoginKind, LoginRequest,
    McpServerStatus, ModelCatalog, ProfileSpec,
};
use serde_json::Value;

use crate::discovery::{Discovery, EngineProgram, Executable};
use crate::engine::{AgentEngine, EngineOptions};
use crate::error::EngineError;
pub use crate::settings::{EngineSettings, ProgramSettings};
use crate::vocab::EngineCapabilities;

/// A boxed future, for the descriptor's async steps (the trait is used as `dyn`).
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A login started and waiting for the user (a browser page, a code typed elsewhere). Its
/// engine process lives until it ends, is cancelled, or this is dropped.
pub trait PendingLogin: Send {
    /// Until the engine says the login ended (an error when it failed).
    fn wait(&mut self) -> BoxFuture<'_, Result<(), EngineError>>;
    /// Give up the login and stop the engine.
    fn cancel(self: Box<Self>) -> BoxFuture<'static, ()>;
}

/// What starting a login gave: where the user goes next, and the flow to wait for (`None`:
/// logged in already).
#[derive(Default)]
pub struct LoginStarted {
    pub auth_url: Option<String>,
    pub verification_url: Option<String>,
    pub user_code: Option<String>,
    pub pending: Option<Box<dyn PendingLogin>>,
}

/// One engine, declared once.
pub trait EngineDescriptor: Sync {
    fn engine(&self) -> Engine;
    /// The engine as users know it ("Codex", "Claude Code", "ACP agent").
    fn display_name(&self) -> &'static str;
    /// What the engine can do through Agent Desk.
    fn capabilities(&self) -> EngineCapabilities;
    /// The executables discovery looks for (one row each in Settings and `doctor`).
    fn programs(&self) -> &'static [EngineProgram];
    /// The executable is the profile's own command (ACP agents): runs do not need one of
    /// [`Self::programs`] to be installed.
    fn command_from_profile(&self) -> bool {
        false
    }
    /// Whether [`Self::login_state`] can tell (an ACP agent's login is its own).
    fn login_checkable(&self) -> bool {
        true
    }
    /// How to log in, as terminal commands (empty: nothing to log in to).
    fn login_commands(&self) -> &'static [&'static str];
    /// What a user should know before using a profile (settings that let the workspace
    /// configure its own agent, an agent that does not ask...).
    fn profile_warnings(&self, spec: &ProfileSpec) -> Vec<String>;
    /// The `engineOptions` that decide where the engine's requests and keys go (a config
    /// that can define a provider, the agent's command): `(key, value as JSON text)`. A
    /// change of any of them is confirmed like a change of the endpoint.
    fn routing_options(&self, opts: &Value) -> Vec<(String, String)>;
    /// The profile's `engineOptions` checked key by key: `(field, message)`, the field
    /// relative to `engineOptions` (`maxTurns`, `configOverrides.x`).
    fn check_options(&self, opts: &Value) -> Vec<(String, String)>;
    /// The engine, started lazily; `exe` is the first of [`Self::programs`] as found (`None`
    /// for engines whose command comes from the profile).
    /// `settings` give the engine-wide limits (memory).
    fn create(&self, exe: Option<&Executable>, settings: &EngineSettings) -> AgentEngine;
    /// A profile (a snapshot taken when the run starts) as the adapter's typed options.
    fn run_options(
        &self,
        spec: &ProfileSpec,
        settings: &EngineSettings,
    ) -> Result<EngineOptions, EngineError>;
    /// Start the engine once and ask whether it is logged in (`Some(true)` when it needs no
    /// login, `None` when the engine cannot tell before a run fails).
    fn login_state<'a>(
        &'a self,
        exe: &'a Path,
        cwd: &'a Path,
        settings: &'a EngineSettings,
    ) -> BoxFuture<'a, Result<Option<bool>, EngineError>>;
    /// The commands the composer's `/` offers in `cwd` (started once with the profile's
    /// environment). Engines without any say why.
    fn commands<'a>(
        &'a self,
        exe: &'a Path,
        cwd: &'a Path,
        spec: &'a ProfileSpec,
        settings: &'a EngineSettings,
    ) -> BoxFuture<'a, Result<CommandCatalog, EngineError>> {
        let _ = (exe, cwd, spec, settings);
        Box::pin(async move {
            Ok(CommandCatalog {
                commands: Vec::new(),
                unavailable: Some(format!("{} lists no commands.", self.display_name())),
            })
        })
    }
    /// The logins the app can start for this engine (empty: from a terminal only).
    fn login_kinds(&self) -> &'static [LoginKind] {
        &[]
    }
    /// The account with nothing known yet: the engine, its logins and login commands.
    fn blank_account(&self) -> EngineAccount {
        EngineAccount {
            engine: self.engine(),
            logged_in: None,
            method: None,
            email: None,
            plan: None,
            login_methods: self.login_kinds().to_vec(),
            can_log_out: false,
            login_commands: self
                .login_commands()
                .iter()
                .map(|c| (*c).to_owned())
                .collect(),
            unavailable: None,
        }
    }
    /// The engine's account as it reports it (started once in `cwd`); engines that cannot
    /// tell say so in `unavailable`.
    fn account<'a>(
        &'a self,
        exe: &'a Path,
        cwd: &'a Path,
        settings: &'a EngineSettings,
    ) -> BoxFuture<'a, Result<EngineAccount, EngineError>> {
        let _ = (exe, cwd, settings);
        Box::pin(async move {
            let mut a = self.blank_account();
            a.unavailable = Some(format!(
                "{} does not tell Agent Desk its account.",
                self.display_name()
            ));
            Ok(a)
        })
    }
    /// Start a login of a kind in [`Self::login_kinds`].
    fn login<'a>(
        &'a self,
        exe: &'a Path,
        settings: &'a EngineSettings,
        request: LoginRequest,
    ) -> BoxFuture<'a, Result<LoginStarted, EngineError>> {
        let _ = (exe, settings, request);
        Box::pin(async move {
            Err(EngineError::Unsupported(format!(
                "{} is logged in from a terminal, not from Agent Desk",
                self.display_name()
            )))
        })
    }
    /// Log out (the engine forgets its stored login).
    fn logout<'a>(
        &'a self,
        exe: &'a Path,
        settings: &'a EngineSettings,
    ) -> BoxFuture<'a, Result<(), EngineError>> {
        let _ = (exe, settings);
        Box::pin(async move {
            Err(EngineError::Unsupported(format!(
                "{} is logged out from a terminal, not from Agent Desk",
                self.display_name()
            )))
        })
    }
    /// Whether a profile's MCP servers are passed to this engine.
    fn takes_mcp_servers(&self) -> bool {
        false
    }
    /// The profile `spec`'s MCP servers as the engine reports them once started with them
    /// in `cwd` (`None`: this engine does not report its MCP servers).
    fn mcp_status<'a>(
        &'a self,
        exe: &'a Path,
        cwd: &'a Path,
        spec: &'a ProfileSpec,
        settings: &'a EngineSettings,
    ) -> BoxFuture<'a, Result<Option<Vec<McpServerStatus>>, EngineError>> {
        let _ = (exe, cwd, spec, settings);
        Box::pin(async { Ok(None) })
    }
    /// The models a profile `spec` can pick, asked of the engine itself (`exe`, started once
    /// in `cwd` with the profile's environment). Engines that cannot list theirs say why.
    fn models<'a>(
        &'a self,
        exe: &'a Path,
        cwd: &'a Path,
        spec: &'a ProfileSpec,
        settings: &'a EngineSettings,
    ) -> BoxFuture<'a, Result<ModelCatalog, EngineError>> {
        let _ = (exe, cwd, spec, settings);
        Box::pin(async move {
            Ok(ModelCatalog {
                models: Vec::new(),
                unavailable: Some(format!(
                    "{} does not list its models: type the model's name.",
                    self.display_name()
                )),
            })
        })
    }
}

/// The descriptor of an engine: the one registration line per engine.
pub fn descriptor(engine: Engine) -> &'static dyn EngineDescriptor {
    match engine {
        Engine::Codex => &crate::codex::descriptor::CODEX,
        Engine::Claude => &crate::claude::descriptor::CLAUDE,
        Engine::Acp => &crate::acp::descriptor::ACP,
    }
}

/// Every engine, in the order the window lists them.
pub fn all() -> impl Iterator<Item = &'static dyn EngineDescriptor> {
    Engine::ALL.iter().copied().map(descriptor)
}

/// What the window shows of an engine.
pub fn info(d: &dyn EngineDescriptor) -> EngineInfo {
    EngineInfo {
        engine: d.engine(),
        display_name: d.display_name().to_owned(),
        capabilities: d.capabilities(),
        programs: d
            .programs()
            .iter()
            .map(|p| EngineProgramInfo {
                name: p.name.to_owned(),
                display_name: p.display_name.to_owned(),
                install_command: p.install_command.to_owned(),
            })
            .collect(),
        command_from_profile: d.command_from_profile(),
    }
}

/// Every program of every engine, with its engine (Settings rows, `doctor`).
pub fn programs() -> impl Iterator<Item = (Engine, &'static EngineProgram)> {
    all().flat_map(|d| d.programs().iter().map(move |p| (d.engine(), p)))
}

/// The program named `name` (`codex`, `opencode`...), with its engine.
pub fn program(name: &str) -> Option<(Engine, &'static EngineProgram)> {
    programs().find(|(_, p)| p.name == name)
}

/// The environment variable that points at a program's executable (scripts, tests):
/// `AGENTDESK_<NAME>_BIN`. The path in Settings wins over it.
pub fn bin_env_var(program: &EngineProgram) -> String {
    format!("AGENTDESK_{}_BIN", program.name.to_ascii_uppercase())
}

/// Where a program's executable is: the Settings path, then `AGENTDESK_<NAME>_BIN`, then
/// `PATH` (the login shell's too) and the usual install folders.
pub fn locate(
    program: &EngineProgram,
    settings: &EngineSettings,
) -> Result<Executable, EngineError> {
    let configured = settings
        .program(program.name)
        .bin
        .clone()
        .or_else(|| env_path(&bin_env_var(program)));
    Discovery::new(*program).override_path(configured).find()
}

fn env_path(var: &str) -> Option<PathBuf> {
    std::env::var_os(var)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_engine_is_registered_under_its_own_name() {
        for &engine in Engine::ALL {
            let d = descriptor(engine);
            assert_eq!(d.engine(), engine);
            assert_eq!(Engine::parse(engine.as_str()), Some(engine));
            assert!(!d.display_name().is_empty());
        }
    }

    #[test]
    fn program_names_are_unique_and_found_by_name() {
        let names: Vec<&str> = programs().map(|(_, p)| p.name).collect();
        let mut unique = names.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(names.len(), unique.len(), "{names:?}");
        for (engine, p) in programs() {
            assert_eq!(program(p.name).map(|(e, _)| e), Some(engine));
        }
        assert_eq!(
            bin_env_var(&EngineProgram::CODEX),
            "AGENTDESK_CODEX_BIN".to_owned()
        );
    }

    #[test]
    fn only_engines_without_a_command_need_a_program() {
        for d in all() {
            assert!(
                d.command_from_profile() || !d.programs().is_empty(),
                "{} has nothing to start",
                d.display_name()
            );
        }
    }
}
