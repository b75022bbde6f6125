//! The Claude Code adapter: drives the `claude` CLI over stream-json plus the control protocol
//! (what the Agent SDKs do) and turns its output into canonical [`AgentEvent`]s.
//!
//! - One process per run: `--session-id=<new uuid>` on a session's first run, `--resume=<id>`
//!   after; the process exits when we close stdin after the `result`. stdin stays open until
//!   then (closing it earlier fails pending permission requests).
//! - `initialize` first; hook callbacks and MCP messages may arrive before its reply and are
//!   answered at once, as is any control request of an unknown subtype (with an error).
//! - `can_use_tool` → `approval.requested` (AskUserQuestion → `question.asked`), held until the
//!   user decides; `control_cancel_request` → the approval is `cancelled`.
//! - A stale resume id (the CLI exits with "No conversation found") → a fresh session, said on
//!   the timeline. The process dying → `run.failed` with the stderr tail, approvals expired.
//!
//! ```ignore
//! let engine = ClaudeEngine::new(ClaudeEngineConfig::new(claude_path));
//! let mut run = engine.start_run(ClaudeRunRequest { cwd, profile, resume_session_id: None, plan: None,
//!     input: vec![InputPart::text("hi")] }).await?;
//! while let Some(ev) = run.next_event().await { /* AgentEvent */ }
//! ```

pub mod descriptor;
mod diff;
pub mod history;
pub mod options;
mod prompt_file;
mod run;
mod run_loop;
mod subagents;
mod tasks;
pub mod translate;
mod wire;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use agentdesk_protocol::claude::{
    AccountInfo, ContentBlock, ControlRequestBody, ControlResponseBody, InitializeResponse,
    SdkMessage, SetModelRequest, SetPermissionModeRequest, UserMessage,
};
use agentdesk_protocol::events::{AgentEvent, DiagnosticSource};
use tokio::sync::mpsc;

pub use diff::{planned_change, unified_diff, PlannedChange};
pub use options::{ClaudeOptions, ClaudeProfile, PermissionMode, SessionArg};
pub use translate::{ClaudeTranslator, RunOutcome};
pub use wire::{ClaudeLine, ClaudeLines};

use crate::control::{Command, CommandSink, RunHandle};
use crate::discovery::{probe_version, EngineVersion, Executable, FoundVia};
use crate::engine::SessionRunRequest;
use crate::error::EngineError;
use crate::limits::RunLimits;
use crate::process::StopConfig;
use crate::vocab::{Engine, InputPart};
use run::{initialize, Control, InitFailure, RunTask, Session};

/// The `CLAUDE_CODE_ENTRYPOINT` this app's runs say they come from.
pub const ENTRYPOINT: &str = "agent-desk";

/// Engine-wide settings (not per profile).
#[derive(Debug, Clone)]
pub struct ClaudeEngineConfig {
    /// The claude executable (from discovery or the user's override).
    pub program: PathBuf,
    /// `CLAUDE_CODE_ENTRYPOINT`: who drives the CLI (shows up in its user agent).
    pub entrypoint: String,
    /// Bound on the `initialize` reply (0.3–0.55 s normally; first start after an update is slower).
    pub init_timeout: Duration,
    /// After an interrupt (or deny-and-stop), how long to wait for the CLI's `result` before
    /// stopping the process ourselves.
    pub interrupt_grace: Duration,
    pub stop: StopConfig,
    /// Inactivity watchdog and diagnostic budget of every run (a run may override the
    /// watchdog: [`ClaudeEngine::start_run_with`]).
    pub limits: RunLimits,
    /// Set for a remote workspace's engine: it runs on that host over SSH (`program` is
    /// then the name its login shell finds).
    pub remote: Option<crate::ssh::RemoteHost>,
}

impl ClaudeEngineConfig {
    pub fn new(program: impl Into<PathBuf>) -> Self {
        Self {
            program: program.into(),
            entrypoint: ENTRYPOINT.to_owned(),
            init_timeout: Duration::from_secs(60),
            interrupt_grace: Duration::from_secs(10),
            stop: StopConfig::default(),
            limits: RunLimits::default(),
            remote: None,
        }
    }
}

/// One message of a session, run as one `claude` process. Images are read and sent inline
/// as base64.
pub type ClaudeRunRequest = SessionRunRequest<ClaudeProfile>;

/// What `claude --version` and an `initialize` handshake tell about the installation.
#[derive(Debug, Clone)]
pub struct ClaudeStatus {
    pub version: EngineVersion,
    pub account: Option<AccountInfo>,
    pub logged_in: bool,
    /// The full `initialize` reply (models, commands, ...).
    pub initialize: InitializeResponse,
}

/// Commands for a running turn: the engine-neutral [`RunHandle`] (interrupt, decide, answer;
/// reached through `Deref`) plus Claude's mid-run settings. Cheap to clone; outlives the run
/// harmlessly.
#[derive(Debug, Clone)]
pub struct RunControl {
    handle: RunHandle,
    tx: mpsc::UnboundedSender<Control>,
}

impl CommandSink for mpsc::UnboundedSender<Control> {
    fn deliver(&self, command: Command) -> bool {
        self.send(Control::Command(command)).is_ok()
    }
}

impl std::ops::Deref for RunControl {
    type Target = RunHandle;

    fn deref(&self) -> &RunHandle {
        &self.handle
    }
}

impl RunControl {
    fn new(tx: mpsc::UnboundedSender<Control>) -> Self {
        Self {
            handle: RunHandle::new(Engine::Claude, tx.clone()),
            tx,
        }
    }

    /// The engine-neutral part.
    pub fn handle(&self) -> RunHandle {
        self.handle.clone()
    }

    /// Switch the permission mode for the rest of the run (`set_permission_mode`), e.g. to
    /// `AcceptEdits` after the user said "allow all edits".
    pub fn set_permission_mode(&self, mode: PermissionMode) {
        let body = ControlRequestBody::SetPermissionMode(SetPermissionModeRequest {
            mode: mode.as_str().to_owned(),
            extra: Default::default(),
        });
        let _ = self.tx.send(Control::Request(body));
    }

    /// Switch the model for the rest of the run (`set_model`; `None` = the default model).
    pub fn set_model(&self, model: Option<String>) {
        let body = ControlRequestBody::SetModel(SetModelRequest {
            model,
            extra: Default::default(),
        });
        let _ = self.tx.send(Control::Request(body));
    }
}

/// A started run: its events (ending with exactly one terminal event) and its controls.
#[derive(Debug)]
pub struct ClaudeRun {
    /// Keep it with the session: the next run resumes it.
    pub session_id: String,
    /// `true` when an existing session was resumed (false on a fresh one, including after a
    /// failed resume).
    pub resumed: bool,
    /// `claude_code_version` from the `initialize` reply.
    pub version: Option<String>,
    pub account: Option<AccountInfo>,
    /// The CLI's pid (tests, diagnostics).
    pub pid: Option<u32>,
    events: mpsc::UnboundedReceiver<AgentEvent>,
    control: RunControl,
}

impl ClaudeRun {
    /// The next event; `None` after the terminal event.
    pub async fn next_event(&mut self) -> Option<AgentEvent> {
        self.events.recv().await
    }

    pub fn control(&self) -> RunControl {
        self.control.clone()
    }

    pub fn into_parts(self) -> (RunHandle, mpsc::UnboundedReceiver<AgentEvent>) {
        (self.control.handle, self.events)
    }
}

/// The Claude engine. Holds no processes between runs.
#[derive(Debug, Clone)]
pub struct ClaudeEngine {
    config: Arc<ClaudeEngineConfig>,
}

impl ClaudeEngine {
    pub fn new(config: ClaudeEngineConfig) -> Self {
        Self {
            config: Arc::new(config),
        }
    }

    pub fn config(&self) -> &ClaudeEngineConfig {
        &self.config
    }

    /// Version (`claude --version`) and login state (the `initialize` reply's account), for
    /// Settings and the preflight. Starts a short-lived process in `cwd`.
    pub async fn status(
        &self,
        cwd: &Path,
        profile: &ClaudeProfile,
    ) -> Result<ClaudeStatus, EngineError> {
        let version = match &self.config.remote {
            Some(host) => {
                host.probe_version(&self.config.program.to_string_lossy())
                    .await?
                    .1
            }
            None => {
                let exe = Executable::new(self.config.program.clone(), FoundVia::Override);
                probe_version(&exe, Duration::from_secs(15)).await?
            }
        };
        let session = SessionArg::New(uuid::Uuid::new_v4().to_string());
        let mut s = Session::spawn(&self.config, cwd, profile, &session)?;
        let init = initialize(&mut s, self.config.init_timeout).await;
        s.child.stop().await;
        let init = init.map_err(|f| match f {
            InitFailure::NoConversation(m) => EngineError::Preflight(m),
            InitFailure::Other(e) => e,
        })?;
        let logged_in = init.account.as_ref().is_none_or(logged_in);
        Ok(ClaudeStatus {
            version,
            account: init.account.clone(),
            logged_in,
            initialize: init,
        })
    }

    /// The MCP servers a session started with `profile` in `cwd` has (`mcp_status`), once
    /// none is still starting (bounded). Starts a short-lived process, stopped after.
    pub async fn mcp_status(
        &self,
        cwd: &Path,
        profile: &ClaudeProfile,
    ) -> Result<Vec<agentdesk_protocol::ui::McpServerStatus>, EngineError> {
        let session = SessionArg::New(uuid::Uuid::new_v4().to_string());
        let mut s = Session::spawn(&self.config, cwd, profile, &session)?;
        let timeout = self.config.init_timeout;
        let flat = |f: InitFailure| match f {
            InitFailure::NoConversation(m) => EngineError::Preflight(m),
            InitFailure::Other(e) => e,
        };
        let asked = async {
            initialize(&mut s, timeout).await.map_err(flat)?;
            let settle = tokio::time::Instant::now() + timeout;
            loop {
                let id = s.request(ControlRequestBody::McpStatus(Default::default()))?;
                let what = "Claude Code's reply to `mcp_status`";
                let body = match run::reply(&mut s, &id, timeout, what).await.map_err(flat)? {
                    ControlResponseBody::Success(ok) => ok.response.unwrap_or_default(),
                    ControlResponseBody::Error(e) => {
                        return Err(EngineError::Preflight(format!(
                            "Claude Code did not report its MCP servers: {}",
                            e.error
                        )))
                    }
                    ControlResponseBody::Unknown(v) => v,
                };
                let servers = crate::mcp::from_claude(&body);
                let starting = servers
                    .iter()
                    .any(|x| x.state == agentdesk_protocol::ui::McpState::Pending);
                if !starting || tokio::time::Instant::now() >= settle {
                    return Ok(servers);
                }
                tokio::time::sleep(Duration::from_millis(300)).await;
            }
        }
        .await;
        s.child.stop().await;
        asked
    }

    /// Start one run. Errors here mean the run never started (executable missing, not logged
    /// in, no `initialize` reply); once it has, failures arrive as `run.failed`.
    pub async fn start_run(&self, req: ClaudeRunRequest) -> Result<ClaudeRun, EngineError> {
        self.start_run_with(req, self.config.limits).await
    }

    /// [`Self::start_run`] with this run's own limits instead of the engine's.
    pub async fn start_run_with(
        &self,
        req: ClaudeRunRequest,
        limits: RunLimits,
    ) -> Result<ClaudeRun, EngineError> {
        let content = prompt_blocks(&req.input).await?;
        let Opened {
            mut session,
            init,
            session_id,
            resumed,
            notices,
        } = self.open_session(&req).await?;
        if let Some(account) = init.account.as_ref().filter(|a| !logged_in(a)) {
            session.child.stop().await;
            return Err(EngineError::NotLoggedIn(format!(
                "Claude Code is not logged in (token source: {}): run `claude` in a terminal and sign in with /login, or give the profile an API key variable",
                account.token_source.as_deref().unwrap_or("none")
            )));
        }
        session.send(&SdkMessage::User(UserMessage::prompt(content)))?;

        let (events_tx, events) = mpsc::unbounded_channel();
        let mut translator = ClaudeTranslator::new(req.cwd.clone(), req.profile.model.clone())
            .continuing_plan(req.plan.clone());
        let mut early = Vec::new();
        for message in notices {
            translator.notice(DiagnosticSource::Notice, message, None, &mut early);
        }
        let (tx, rx) = mpsc::unbounded_channel();
        let pid = session.child.pid();
        let task = RunTask {
            session,
            translator,
            cwd: req.cwd,
            interrupt_grace: self.config.interrupt_grace,
            limits,
            events: events_tx,
            control: rx,
        };
        tokio::spawn(task.run());
        Ok(ClaudeRun {
            session_id,
            resumed,
            version: init.claude_code_version.clone(),
            account: init.account,
            pid,
            events,
            control: RunControl::new(tx),
        })
    }

    /// Spawn Claude Code and wait for its `initialize` reply. A session to resume that
    /// Claude Code does not have is replaced by a new one, with a notice saying so.
    async fn open_session(&self, req: &ClaudeRunRequest) -> Result<Opened, EngineError> {
        let mut notices = Vec::new();
        let (mut session_id, mut resumed) = match &req.resume_session_id {
            Some(id) => (id.clone(), true),
            None => (uuid::Uuid::new_v4().to_string(), false),
        };
        let arg = if resumed {
            SessionArg::Resume(session_id.clone())
        } else {
            SessionArg::New(session_id.clone())
        };
        let mut session = Session::spawn(&self.config, &req.cwd, &req.profile, &arg)?;
        let init = match initialize(&mut session, self.config.init_timeout).await {
            Ok(init) => init,
            Err(InitFailure::NoConversation(why)) if resumed => {
                session.child.stop().await;
                notices.push(format!(
                    "Could not resume the Claude Code session {session_id} ({why}); continuing in a new session without its history."
                ));
                session_id = uuid::Uuid::new_v4().to_string();
                resumed = false;
                session = Session::spawn(
                    &self.config,
                    &req.cwd,
                    &req.profile,
                    &SessionArg::New(session_id.clone()),
                )?;
                initialize(&mut session, self.config.init_timeout)
                    .await
                    .map_err(|f| match f {
                        InitFailure::NoConversation(m) => EngineError::Preflight(m),
                        InitFailure::Other(e) => e,
                    })?
            }
            Err(InitFailure::NoConversation(m)) => {
                session.child.stop().await;
                return Err(EngineError::Preflight(m));
            }
            Err(InitFailure::Other(e)) => {
                session.child.stop().await;
                return Err(e);
            }
        };
        Ok(Opened {
            session,
            init,
            session_id,
            resumed,
            notices,
        })
    }
}

/// A Claude Code process past its `initialize` reply.
struct Opened {
    session: Session,
    init: InitializeResponse,
    session_id: String,
    /// `false` when the session asked for could not be resumed (see `notices`).
    resumed: bool,
    notices: Vec<String>,
}

/// Logged in, or authenticating through a provider we cannot judge (Bedrock, Vertex, ...).
fn logged_in(a: &AccountInfo) -> bool {
    a.is_logged_in() || a.api_provider.as_deref().is_some_and(|p| p != "firstParty")
}

/// The prompt's content blocks; images are read (off the async threads: tokio's fs) and
/// inlined as base64.
async fn prompt_blocks(input: &[InputPart]) -> Result<Vec<ContentBlock>, EngineError> {
    let mut blocks = Vec::with_capacity(input.len());
    for part in input {
        blocks.push(match part {
            // The CLI reads `@name` in the text itself (a Read the model sees).
            InputPart::FileMention { .. } => continue,
            InputPart::Text(t) => ContentBlock::text(t.clone()),
            InputPart::LocalImage(path) => {
                let bytes = tokio::fs::read(path).await.map_err(|e| {
                    EngineError::transport(format!("reading image {}", path.display()), e)
                })?;
                ContentBlock::base64_image(
                    crate::mentions::image_media_type(path),
                    diff::base64(&bytes),
                )
            }
        });
    }
    Ok(blocks)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests;
