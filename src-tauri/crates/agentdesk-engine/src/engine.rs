//! The engine-neutral interface the core drives runs through: [`AgentEngine`] (Codex or
//! Claude) → [`AgentEngine::start_run`] → [`AgentRun`] { canonical events, [`RunHandle`] }.
//!
//! Deliberate differences that stay visible through this interface (the conformance suite
//! documents them too):
//! - Codex keeps one resident app-server per home; Claude starts one process per run.
//! - What each engine can do is declared in [`EngineCapabilities`] ([`AgentEngine::capabilities`],
//!   [`RunHandle::capabilities`]): e.g. "approve with an edited input" exists only for Claude
//!   (codex has no way to run a different command than the one it asked about), and the
//!   handle refuses it for Codex with [`EngineError::Unsupported`] before it reaches the run.
//! - "Deny and stop" is one wire decision for Claude (`interrupt: true`); for Codex the
//!   adapter sends a decline followed by `turn/interrupt`.

use std::path::PathBuf;
use std::time::Duration;

use agentdesk_protocol::codex::UserInput;
use agentdesk_protocol::events::AgentEvent;
use agentdesk_protocol::plan::Plan;
use tokio::sync::mpsc;

use crate::acp::{AcpEngine, AcpProfile};
use crate::claude::{ClaudeEngine, ClaudeProfile};
use crate::codex::{CodexEngine, CodexProfile, RunRequest};
pub use crate::control::RunHandle;
use crate::error::EngineError;
use crate::limits::RunLimits;
pub use crate::vocab::{ApprovalDecision, Engine, EngineCapabilities, InputPart};

/// Which engine, with its per-profile options.
#[derive(Debug, Clone)]
pub enum EngineOptions {
    Codex {
        /// CODEX_HOME; `None` = the user's default.
        codex_home: Option<PathBuf>,
        profile: CodexProfile,
    },
    Claude(ClaudeProfile),
    Acp(AcpProfile),
}

impl EngineOptions {
    /// Options for a session the engine's own terminal continues too (an imported one): the
    /// run holds nothing of the session once it ends (Codex: an app-server of its own).
    pub fn for_terminal_session(mut self) -> Self {
        if let EngineOptions::Codex { profile, .. } = &mut self {
            profile.own_server = true;
        }
        self
    }
}

/// One message of a session, engine-neutral.
#[derive(Debug, Clone)]
pub struct NeutralRunRequest {
    pub cwd: PathBuf,
    /// The engine's session id from the session's previous run.
    pub resume_session_id: Option<String>,
    /// The session's plan as last shown: Claude's task tools name the steps of earlier runs
    /// by id (the other engines send the whole list each time and ignore it).
    pub plan: Option<Plan>,
    pub input: Vec<InputPart>,
    pub options: EngineOptions,
    /// This run's inactivity watchdog: `None` keeps the engine's (10 min by default), zero
    /// turns it off.
    pub inactivity_timeout: Option<Duration>,
}

/// An engine the core can run sessions on.
#[derive(Debug, Clone)]
pub enum AgentEngine {
    Codex(CodexEngine),
    Claude(ClaudeEngine),
    Acp(AcpEngine),
}

impl AgentEngine {
    pub fn kind(&self) -> Engine {
        match self {
            Self::Codex(_) => Engine::Codex,
            Self::Claude(_) => Engine::Claude,
            Self::Acp(_) => Engine::Acp,
        }
    }

    /// What this engine can do (edited input, questions, cost, ...).
    pub fn capabilities(&self) -> EngineCapabilities {
        crate::registry::descriptor(self.kind()).capabilities()
    }

    /// Start one run. `Err` = the run never started; later failures are `run.failed` events.
    pub async fn start_run(&self, req: NeutralRunRequest) -> Result<AgentRun, EngineError> {
        match self {
            Self::Codex(engine) => start_codex(engine, req).await,
            Self::Claude(engine) => start_claude(engine, req).await,
            Self::Acp(engine) => start_acp(engine, req).await,
        }
    }

    /// The engine's own history, when it is read through the engine (Codex's threads, in
    /// `codex_home`); `None` for file histories (see `history::sources`) and engines without.
    pub fn history_source(
        &self,
        codex_home: Option<PathBuf>,
    ) -> Option<std::sync::Arc<dyn crate::history::HistorySource>> {
        match self {
            Self::Codex(engine) => codex_home.map(|home| {
                std::sync::Arc::new(crate::codex::history::CodexHistory::new(
                    engine.clone(),
                    home,
                )) as std::sync::Arc<dyn crate::history::HistorySource>
            }),
            Self::Claude(_) | Self::Acp(_) => None,
        }
    }

    /// The same engine run on another machine over SSH: the program is the engine's name
    /// as the host's login shell finds it (a local path or override means nothing there;
    /// an ACP agent's command comes from its profile).
    pub fn on_host(&self, host: crate::ssh::RemoteHost) -> Self {
        match self {
            Self::Codex(e) => {
                let mut config = e.config().clone();
                config.program = PathBuf::from("codex");
                config.remote = Some(host);
                Self::Codex(CodexEngine::new(config))
            }
            Self::Claude(e) => {
                let mut config = e.config().clone();
                config.program = PathBuf::from("claude");
                config.remote = Some(host);
                Self::Claude(ClaudeEngine::new(config))
            }
            Self::Acp(e) => {
                let mut config = e.config().clone();
                config.remote = Some(host);
                Self::Acp(AcpEngine::new(config))
            }
        }
    }

    /// Whether the engine is logged in where it runs (`Some(true)` also when it needs no
    /// login; `None` when it cannot tell before a run): one start of it in `cwd`.
    pub async fn logged_in(&self, cwd: &std::path::Path) -> Result<Option<bool>, EngineError> {
        match self {
            Self::Codex(e) => {
                let read = e
                    .account(None, &crate::codex::CodexProfile::default())
                    .await?;
                Ok(Some(read.account.is_some() || !read.requires_openai_auth))
            }
            Self::Claude(e) => Ok(Some(
                e.status(cwd, &ClaudeProfile::default()).await?.logged_in,
            )),
            Self::Acp(_) => Ok(None),
        }
    }

    /// Stop everything the engine keeps running (app exit).
    pub async fn shutdown(&self) {
        if let Self::Codex(engine) = self {
            engine.shutdown().await;
        }
    }
}

/// `options` were made for another engine than `engine` (a profile edited under a session).
fn options_for_another_engine(engine: Engine) -> EngineError {
    EngineError::Preflight(format!(
        "the profile's options are for another engine than {engine:?}"
    ))
}

async fn start_codex(
    engine: &CodexEngine,
    req: NeutralRunRequest,
) -> Result<AgentRun, EngineError> {
    let EngineOptions::Codex {
        codex_home,
        profile,
    } = req.options
    else {
        return Err(options_for_another_engine(Engine::Codex));
    };
    let mut input = Vec::with_capacity(req.input.len());
    let remote = engine.config().remote.is_some();
    for p in req.input {
        input.push(match p {
            InputPart::Text(t) => UserInput::text(t),
            // A codex on another machine cannot read this one's files: the image goes inline.
            InputPart::LocalImage(path) if remote => {
                UserInput::image_url(crate::mentions::image_data_url(&path).await?)
            }
            InputPart::LocalImage(path) => UserInput::local_image(path.to_string_lossy()),
            InputPart::FileMention { name, path } => {
                UserInput::text(crate::mentions::inline(&name, &path).await)
            }
        });
    }
    let home = codex_home.clone();
    let limits = engine
        .config()
        .limits
        .with_inactivity_timeout(req.inactivity_timeout);
    let run = engine
        .start_run_with(
            RunRequest {
                codex_home,
                cwd: req.cwd,
                profile,
                resume_thread_id: req.resume_session_id,
                input,
            },
            limits,
        )
        .await?;
    let pid = engine.app_server_pids(home.as_deref()).first().copied();
    Ok(AgentRun::new(
        run.thread_id.clone(),
        run.resumed,
        pid,
        run.into_parts(),
    ))
}

async fn start_claude(
    engine: &ClaudeEngine,
    req: NeutralRunRequest,
) -> Result<AgentRun, EngineError> {
    let (limits, req) = req.for_session(Engine::Claude, engine.config().limits, |o| match o {
        EngineOptions::Claude(profile) => Some(profile),
        _ => None,
    })?;
    let run = engine.start_run_with(req, limits).await?;
    Ok(AgentRun::new(
        run.session_id.clone(),
        run.resumed,
        run.pid,
        run.into_parts(),
    ))
}

async fn start_acp(engine: &AcpEngine, req: NeutralRunRequest) -> Result<AgentRun, EngineError> {
    let (limits, req) = req.for_session(Engine::Acp, engine.config().limits, |o| match o {
        EngineOptions::Acp(profile) => Some(profile),
        _ => None,
    })?;
    let run = engine.start_run_with(req, limits).await?;
    Ok(AgentRun::new(
        run.session_id.clone(),
        run.resumed,
        run.pid,
        run.into_parts(),
    ))
}

/// One message of a session for an engine that keeps a session per process run (Claude,
/// ACP agents), with that engine's profile `P`.
#[derive(Debug, Clone)]
pub struct SessionRunRequest<P> {
    /// The workspace folder.
    pub cwd: PathBuf,
    pub profile: P,
    /// The engine's session id from the previous run (`None` on the first run).
    pub resume_session_id: Option<String>,
    /// The session's plan as last shown (see [`NeutralRunRequest::plan`]).
    pub plan: Option<Plan>,
    /// Text and images.
    pub input: Vec<InputPart>,
}

impl NeutralRunRequest {
    /// The run's limits (the engine's, with this run's inactivity limit) and its request for
    /// `engine`, whose profile `profile` takes out of the options (`None`: they are another
    /// engine's, a profile edited under a session).
    fn for_session<P>(
        self,
        engine: Engine,
        limits: RunLimits,
        profile: impl FnOnce(EngineOptions) -> Option<P>,
    ) -> Result<(RunLimits, SessionRunRequest<P>), EngineError> {
        let limits = limits.with_inactivity_timeout(self.inactivity_timeout);
        let req = SessionRunRequest {
            profile: profile(self.options).ok_or_else(|| options_for_another_engine(engine))?,
            cwd: self.cwd,
            resume_session_id: self.resume_session_id,
            plan: self.plan,
            input: self.input,
        };
        Ok((limits, req))
    }
}

/// A started run, engine-neutral.
#[derive(Debug)]
pub struct AgentRun {
    /// Keep it with the session (codex thread id / claude session id).
    pub session_id: String,
    pub resumed: bool,
    /// The engine process serving the run (Codex: the shared app-server; Claude: the run's
    /// own CLI process), for diagnostics and crash tests.
    pub pid: Option<u32>,
    /// Canonical events, ending with exactly one terminal event.
    pub events: mpsc::UnboundedReceiver<AgentEvent>,
    pub control: RunHandle,
}

impl AgentRun {
    fn new(
        session_id: String,
        resumed: bool,
        pid: Option<u32>,
        (control, events): (RunHandle, mpsc::UnboundedReceiver<AgentEvent>),
    ) -> Self {
        AgentRun {
            session_id,
            resumed,
            pid,
            events,
            control,
        }
    }

    /// The next event; `None` after the terminal event.
    pub async fn next_event(&mut self) -> Option<AgentEvent> {
        self.events.recv().await
    }

    pub fn control(&self) -> RunHandle {
        self.control.clone()
    }
}
