//! The ACP adapter: drives any agent that speaks the Agent Client Protocol (JSON-RPC 2.0 over
//! stdio: opencode, Gemini CLI, custom ones) and turns its traffic into canonical
//! [`AgentEvent`]s.
//!
//! - One process per run (like Claude Code): spawn, `initialize` (we read and write text
//!   files for the agent, no terminal), then `session/load` of the session's previous id when
//!   the agent can (its replayed history is dropped: the timeline has it), else
//!   `session/new {cwd, mcpServers: []}`; a load that fails or is not possible falls back to a
//!   new session and says so on the timeline. Then the model (when the profile names one the
//!   agent offers) and `session/prompt`, whose answer ends the run.
//! - `session/request_permission` → `approval.requested`, held until the user decides; the
//!   decision goes back as one of the agent's offered options, chosen by kind.
//! - `fs/read_text_file` / `fs/write_text_file` are served inside the workspace and the
//!   profile's extra folders (symlinks and `..` resolved); outside, the user is asked first.
//! - Interrupt → `session/cancel` (held requests answered `cancelled`) → the prompt answers
//!   `stopReason: cancelled` → `run.interrupted`. The process dying → `run.failed` with the
//!   stderr tail. Wire types: hand-written, see `agentdesk_protocol::acp`.
//!
//! ```ignore
//! let engine = AcpEngine::new(AcpEngineConfig::default());
//! let profile = AcpProfile::from_options(&options, discovered_path);
//! let run = engine.start_run(AcpRunRequest { cwd, profile, resume_session_id: None, plan: None,
//!     input: vec![InputPart::text("hi")] }).await?;
//! let (control, mut events) = run.into_parts();
//! while let Some(ev) = events.recv().await { /* AgentEvent */ }
//! ```

pub mod descriptor;
pub mod options;
mod permission;
mod run;
mod session;
pub mod translate;
pub mod workspace;

use std::sync::Arc;
use std::time::Duration;

use agentdesk_protocol::acp::{ContentBlock, PromptRequest};
use agentdesk_protocol::events::{AgentEvent, DiagnosticSource};
use tokio::sync::mpsc;

pub use options::{
    asks_before_acting, AcpOptions, AcpPreset, AcpProfile, PresetSpec, GEMINI, OPENCODE,
};
pub use permission::choose_option;
pub use translate::{AcpTranslator, RunOutcome};

use crate::control::{Command, CommandSink, RunHandle};
use crate::engine::SessionRunRequest;
use crate::error::EngineError;
use crate::limits::RunLimits;
use crate::process::StopConfig;
use crate::vocab::Engine;
use run::RunTask;
use session::{prompt_blocks, Agent};
use workspace::Workspace;

/// A set-up session: the session, the model it runs, notices for the timeline.
type Prepared = (session::Opened, Option<String>, Vec<String>);

/// Engine-wide settings (not per profile).
#[derive(Debug, Clone)]
pub struct AcpEngineConfig {
    /// `clientInfo` of `initialize`.
    pub client_name: String,
    pub client_version: String,
    /// Bound on the `initialize` reply (opencode ~2 s, Gemini CLI up to 3.3 s; a first start
    /// after an install is slower).
    pub init_timeout: Duration,
    /// Bound on `session/new`, `session/load` and the model switch.
    pub session_timeout: Duration,
    /// After `session/cancel`, how long to wait for the prompt's answer before stopping the
    /// agent ourselves.
    pub interrupt_grace: Duration,
    /// Before the one retry of an agent that exited while starting.
    pub start_retry_pause: Duration,
    pub stop: StopConfig,
    /// Inactivity watchdog and diagnostic budget of every run (a run may override them:
    /// [`AcpEngine::start_run_with`]).
    pub limits: RunLimits,
    /// Set for a remote workspace's engine: it runs on that host over SSH (`program` is
    /// then the name its login shell finds).
    pub remote: Option<crate::ssh::RemoteHost>,
}

impl Default for AcpEngineConfig {
    fn default() -> Self {
        Self {
            client_name: "agent-desk".to_owned(),
            client_version: env!("CARGO_PKG_VERSION").to_owned(),
            init_timeout: Duration::from_secs(60),
            session_timeout: Duration::from_secs(120),
            interrupt_grace: Duration::from_secs(10),
            start_retry_pause: Duration::from_secs(1),
            stop: StopConfig::default(),
            limits: RunLimits::default(),
            remote: None,
        }
    }
}

/// One message of a session, run as one agent process. Images are sent inline as base64
/// when the agent takes images.
pub type AcpRunRequest = SessionRunRequest<AcpProfile>;

/// Delivers [`RunHandle`]'s commands to the run task.
struct Sink(mpsc::UnboundedSender<Command>);

impl CommandSink for Sink {
    fn deliver(&self, command: Command) -> bool {
        self.0.send(command).is_ok()
    }
}

/// A started run: its events (ending with exactly one terminal event) and its controls.
#[derive(Debug)]
pub struct AcpRun {
    /// Keep it with the session: the next run loads it (when the agent can).
    pub session_id: String,
    /// `true` when the previous session was loaded (false on a new one, including after a
    /// failed load).
    pub resumed: bool,
    /// The agent's pid (tests, diagnostics).
    pub pid: Option<u32>,
    /// `agentInfo` of the `initialize` reply (name, version), when the agent sent it.
    pub agent_info: Option<agentdesk_protocol::acp::Implementation>,
    events: mpsc::UnboundedReceiver<AgentEvent>,
    control: RunHandle,
}

impl AcpRun {
    /// The next event; `None` after the terminal event.
    pub async fn next_event(&mut self) -> Option<AgentEvent> {
        self.events.recv().await
    }

    pub fn control(&self) -> RunHandle {
        self.control.clone()
    }

    pub fn into_parts(self) -> (RunHandle, mpsc::UnboundedReceiver<AgentEvent>) {
        (self.control, self.events)
    }
}

/// The ACP engine. Holds no processes between runs.
#[derive(Debug, Clone, Default)]
pub struct AcpEngine {
    config: Arc<AcpEngineConfig>,
}

impl AcpEngine {
    pub fn new(config: AcpEngineConfig) -> Self {
        Self {
            config: Arc::new(config),
        }
    }

    pub fn config(&self) -> &AcpEngineConfig {
        &self.config
    }

    /// Start one run. Errors here mean the run never started (the agent could not be
    /// started, no `initialize` reply, no session, an image it cannot take); once it has,
    /// failures arrive as `run.failed`.
    pub async fn start_run(&self, req: AcpRunRequest) -> Result<AcpRun, EngineError> {
        self.start_run_with(req, self.config.limits).await
    }

    /// [`Self::start_run`] with this run's own limits instead of the engine's.
    pub async fn start_run_with(
        &self,
        req: AcpRunRequest,
        limits: RunLimits,
    ) -> Result<AcpRun, EngineError> {
        let blocks = prompt_blocks(&req.input).await?;
        let (agent, (opened, model, notices)) = match self.start_agent(&req, &blocks).await {
            // The agent died while starting: once more after a pause. Two opencode agents
            // starting at once on a fresh install both migrate its database, and one exits
            // ("Failed query: CREATE TABLE ..."); by the second try the other one is done.
            Err(EngineError::ChildExited {
                status,
                stderr_tail,
            }) => {
                tokio::time::sleep(self.config.start_retry_pause).await;
                let (agent, (opened, model, mut notices)) = self.start_agent(&req, &blocks).await?;
                let status = status.map_or_else(|| "status unknown".to_owned(), |s| s.to_string());
                let last = stderr_tail
                    .trim()
                    .lines()
                    .last()
                    .unwrap_or_default()
                    .to_owned();
                notices.insert(
                    0,
                    format!(
                        "{} exited while starting ({status}; {last}); it was started again.",
                        agent.name()
                    ),
                );
                (agent, (opened, model, notices))
            }
            other => other?,
        };
        let name = agent.name();
        let mut translator = AcpTranslator::new();
        let mut early = Vec::new();
        translator.start(model, opened.session_id.clone(), &mut early);
        for message in notices {
            translator.notice(DiagnosticSource::Notice, message, None, &mut early);
        }
        let (events_tx, events) = mpsc::unbounded_channel();
        let (tx, rx) = mpsc::unbounded_channel();
        let pid = agent.child.pid();
        let agent_info = agent.init.agent_info.clone();
        let task = RunTask {
            session_id: opened.session_id.clone(),
            name,
            translator,
            workspace: Workspace::new(&req.cwd, &req.profile.extra_dirs),
            cwd: req.cwd.clone(),
            allow_always: req.profile.allow_always_allowed(),
            interrupt_grace: self.config.interrupt_grace,
            limits,
            events: events_tx,
            control: rx,
            prompt: PromptRequest {
                session_id: opened.session_id.clone(),
                prompt: blocks,
            },
            early,
            agent,
        };
        tokio::spawn(task.run());
        Ok(AcpRun {
            session_id: opened.session_id,
            resumed: opened.resumed,
            pid,
            agent_info,
            events,
            control: RunHandle::new(Engine::Acp, Sink(tx)),
        })
    }

    /// Spawn the agent and set its session up; the agent is stopped when that fails.
    async fn start_agent(
        &self,
        req: &AcpRunRequest,
        blocks: &[ContentBlock],
    ) -> Result<(Agent, Prepared), EngineError> {
        let mut agent = Agent::spawn(&self.config, &req.cwd, &req.profile)?;
        match self.prepare(&mut agent, req, blocks).await {
            Ok(p) => Ok((agent, p)),
            Err(e) => {
                agent.child.stop().await;
                Err(e)
            }
        }
    }

    /// `initialize`, the image check, the session and its model.
    async fn prepare(
        &self,
        agent: &mut Agent,
        req: &AcpRunRequest,
        blocks: &[ContentBlock],
    ) -> Result<Prepared, EngineError> {
        agent.initialize(&self.config).await?;
        check_preset_version(agent, &req.profile)?;
        let has_image = blocks
            .iter()
            .any(|b| matches!(b, ContentBlock::Image { .. }));
        if has_image && !agent.init.agent_capabilities.prompt_capabilities.image {
            return Err(EngineError::Preflight(format!(
                "{} does not take images (it does not declare `promptCapabilities.image`): remove the image from the message, or use another agent",
                agent.name()
            )));
        }
        let mut opened = agent
            .open_session(
                &self.config,
                &req.cwd,
                &req.profile,
                req.resume_session_id.as_deref(),
            )
            .await?;
        let (model, model_notices) = agent
            .choose_model(
                &self.config,
                &opened.session_id,
                &opened.setup,
                req.profile.model.as_deref(),
            )
            .await;
        let mut notices = std::mem::take(&mut opened.notices);
        notices.extend(model_notices);
        Ok((opened, model, notices))
    }
}

/// A preset's agent of a version it was not verified with is refused before any session, as
/// Codex and Claude Code are: its quirks (how it asks, what `allow_always` grants) may have
/// changed. The version is the one `initialize` reports (`agentInfo.version`); a custom
/// agent, or one that does not say, is not checked.
fn check_preset_version(agent: &Agent, profile: &AcpProfile) -> Result<(), EngineError> {
    let Some(preset) = profile.preset else {
        return Ok(());
    };
    let reported = agent.init.agent_info.as_ref().map(|i| i.version.as_str());
    match reported.and_then(crate::discovery::EngineVersion::parse) {
        Some(version) => PresetSpec::of(preset)
            .program
            .check_version(&profile.command, &version),
        None => Ok(()),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests;
