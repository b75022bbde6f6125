//! The Codex adapter: drives `codex app-server` (JSON-RPC over stdio) and turns its traffic
//! into canonical [`AgentEvent`]s.
//!
//! - One resident app-server per Codex home (strictly: per [`options::ServerKey`], i.e. home +
//!   command line + env), shared by all sessions and multiplexed by threadId.
//! - First turn of a session: `thread/start`; later turns: `thread/resume` (works in a new
//!   process with the same CODEX_HOME). A failed resume falls back to a fresh thread and says
//!   so on the timeline (an `engine.diagnostic` notice).
//! - Per-run usage = difference of the thread's token totals before and after the turn.
//! - When the app-server dies: pending approvals expire, the run fails with the stderr tail,
//!   and the next run restarts the process (after an exponential backoff).
//!
//! ```ignore
//! let engine = CodexEngine::new(CodexEngineConfig::new(codex_path));
//! let mut run = engine.start_run(RunRequest { codex_home, cwd, profile, resume_thread_id: None,
//!     input: vec![UserInput::text("hi")] }).await?;
//! while let Some(ev) = run.next_event().await { /* AgentEvent */ }
//! ```

pub mod descriptor;
mod held;
pub mod history;
mod login;
pub mod options;
mod prompts;
mod run;
mod server;
mod subagents;
pub mod translate;
mod wire;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agentdesk_protocol::codex::requests::{
    AccountRead, McpServerStatusList, ModelList, SkillsList, ThreadResume, ThreadStart, TurnStart,
};
use agentdesk_protocol::codex::{
    GetAccountParams, GetAccountResponse, ListMcpServerStatusParams, ListMcpServerStatusResponse,
    ModelListParams, ModelListResponse, SkillMetadata, SkillsListParams, ThreadResumeParams,
    ThreadStartParams, ThreadStartResponse, TurnStartParams, UserInput,
};
use agentdesk_protocol::events::{AgentEvent, DiagnosticSource};
use agentdesk_protocol::sync::lock;
use tokio::sync::mpsc;

pub use options::{permission_policy, CodexOptions, CodexProfile, CustomProvider, ServerKey};
pub use translate::TurnTranslator;
pub use wire::CodexLines;

use crate::control::{Command, CommandSink};
use crate::error::EngineError;
use crate::limits::RunLimits;
use crate::process::StopConfig;
use crate::vocab::Engine;
use run::RunTask;
use server::{RunMsg, Server};

/// Engine-wide settings (not per profile).
#[derive(Debug, Clone)]
pub struct CodexEngineConfig {
    /// The codex executable (from discovery or the user's override).
    pub program: PathBuf,
    pub client_name: String,
    pub client_version: String,
    /// Bound on every request we send (initialize, thread/start, turn/start, ...).
    pub request_timeout: Duration,
    /// After `turn/interrupt`, how long to wait for codex's `turn/completed` before ending
    /// the run ourselves.
    pub interrupt_grace: Duration,
    /// Backoff before restarting after the n-th consecutive crash: base · 2ⁿ⁻¹, capped.
    pub restart_backoff_base: Duration,
    pub restart_backoff_max: Duration,
    pub stop: StopConfig,
    /// Inactivity watchdog and diagnostic budget of every run (a run may override the
    /// watchdog: [`CodexEngine::start_run_with`]).
    pub limits: RunLimits,
    /// Set for a remote workspace's engine: it runs on that host over SSH (`program` is
    /// then the name its login shell finds).
    pub remote: Option<crate::ssh::RemoteHost>,
}

impl CodexEngineConfig {
    pub fn new(program: impl Into<PathBuf>) -> Self {
        Self {
            program: program.into(),
            client_name: "agent_desk".to_owned(),
            client_version: env!("CARGO_PKG_VERSION").to_owned(),
            request_timeout: Duration::from_secs(30),
            interrupt_grace: Duration::from_secs(10),
            restart_backoff_base: Duration::from_millis(250),
            restart_backoff_max: Duration::from_secs(15),
            stop: StopConfig::default(),
            limits: RunLimits::default(),
            remote: None,
        }
    }
}

/// One message of a session, to run as one codex turn.
#[derive(Debug, Clone)]
pub struct RunRequest {
    /// CODEX_HOME for the app-server; `None` inherits the user's default (~/.codex).
    pub codex_home: Option<PathBuf>,
    /// The workspace folder.
    pub cwd: PathBuf,
    pub profile: CodexProfile,
    /// The session's codex thread id from its previous run (`None` on the first run).
    pub resume_thread_id: Option<String>,
    /// Text, local images (`UserInput::local_image`), image URLs.
    pub input: Vec<UserInput>,
}

/// Commands for a running turn: the engine-neutral handle (see [`crate::control`]).
pub type RunControl = crate::control::RunHandle;

impl CommandSink for mpsc::UnboundedSender<RunMsg> {
    fn deliver(&self, command: Command) -> bool {
        self.send(RunMsg::Control(command)).is_ok()
    }
}

/// A started run: its events (ending with exactly one terminal event) and its controls.
#[derive(Debug)]
pub struct CodexRun {
    /// Keep it with the session: the next run resumes it.
    pub thread_id: String,
    pub turn_id: String,
    /// `true` when an existing thread was resumed (false on a fresh thread, including after a
    /// failed resume).
    pub resumed: bool,
    events: mpsc::UnboundedReceiver<AgentEvent>,
    control: RunControl,
}

impl CodexRun {
    /// The next event; `None` after the terminal event.
    pub async fn next_event(&mut self) -> Option<AgentEvent> {
        self.events.recv().await
    }

    pub fn control(&self) -> RunControl {
        self.control.clone()
    }

    pub fn into_parts(self) -> (RunControl, mpsc::UnboundedReceiver<AgentEvent>) {
        (self.control, self.events)
    }
}

/// The Codex engine: owns the resident app-servers.
#[derive(Clone)]
pub struct CodexEngine {
    config: Arc<CodexEngineConfig>,
    servers: Arc<Mutex<HashMap<ServerKey, Arc<Server>>>>,
}

impl std::fmt::Debug for CodexEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CodexEngine")
            .field("program", &self.config.program)
            .finish_non_exhaustive()
    }
}

impl CodexEngine {
    pub fn new(config: CodexEngineConfig) -> Self {
        Self {
            config: Arc::new(config),
            servers: Arc::new(Mutex::new(HashMap::new())),
        }
    }

    fn server(&self, key: ServerKey) -> Arc<Server> {
        let mut servers = lock(&self.servers);
        Arc::clone(
            servers
                .entry(key.clone())
                .or_insert_with(|| Server::new(key, Arc::clone(&self.config))),
        )
    }

    /// The app-server pid(s) serving this Codex home (for diagnostics and crash tests).
    pub fn app_server_pids(&self, codex_home: Option<&std::path::Path>) -> Vec<u32> {
        let servers = lock(&self.servers);
        servers
            .values()
            .filter(|s| s.key().codex_home.as_deref() == codex_home)
            .filter_map(|s| s.pid())
            .collect()
    }

    /// `account/read` against the app-server for this home/profile.
    pub async fn account(
        &self,
        codex_home: Option<PathBuf>,
        profile: &CodexProfile,
    ) -> Result<GetAccountResponse, EngineError> {
        let peer = self.server(profile.server_key(codex_home)).peer().await?;
        peer.call::<AccountRead>(&GetAccountParams {
            refresh_token: Some(false),
        })
        .await
    }

    /// `model/list` (the bundled catalog; no HTTP call): the first page.
    pub async fn models(
        &self,
        codex_home: Option<PathBuf>,
        profile: &CodexProfile,
    ) -> Result<ModelListResponse, EngineError> {
        self.models_page(codex_home, profile, None).await
    }

    /// The enabled skills turns in `cwd` can use (`skills/list`).
    pub async fn skills(
        &self,
        codex_home: Option<PathBuf>,
        profile: &CodexProfile,
        cwd: &std::path::Path,
    ) -> Result<Vec<SkillMetadata>, EngineError> {
        let peer = self.server(profile.server_key(codex_home)).peer().await?;
        skills_of(&peer, cwd).await
    }

    /// One page of `model/list`, from `cursor` (a previous page's `nextCursor`).
    pub async fn models_page(
        &self,
        codex_home: Option<PathBuf>,
        profile: &CodexProfile,
        cursor: Option<String>,
    ) -> Result<ModelListResponse, EngineError> {
        let peer = self.server(profile.server_key(codex_home)).peer().await?;
        peer.call::<ModelList>(&ModelListParams {
            cursor,
            ..ModelListParams::default()
        })
        .await
    }

    /// The MCP servers of the profile's app-server (`mcpServerStatus/list`, one page: a
    /// profile declares a handful).
    pub async fn mcp_status(
        &self,
        codex_home: Option<PathBuf>,
        profile: &CodexProfile,
    ) -> Result<ListMcpServerStatusResponse, EngineError> {
        let peer = self.server(profile.server_key(codex_home)).peer().await?;
        peer.call::<McpServerStatusList>(&ListMcpServerStatusParams::default())
            .await
    }

    /// Start one turn. Errors here mean the turn never started (the app-server could not be
    /// started, not logged in, turn/start refused); once it has, failures arrive as
    /// `run.failed` on the run's events.
    pub async fn start_run(&self, req: RunRequest) -> Result<CodexRun, EngineError> {
        self.start_run_with(req, self.config.limits).await
    }

    pub fn config(&self) -> &CodexEngineConfig {
        &self.config
    }

    /// The app-server a run talks to: the home's resident one, or one of its own that the
    /// run stops when it ends (`CodexProfile::own_server`).
    fn run_server(&self, req: &RunRequest) -> (Arc<Server>, Option<run::Release>) {
        let mut key = req.profile.server_key(req.codex_home.clone());
        if req.profile.own_server {
            key.own = Some(req.resume_thread_id.clone().unwrap_or_default());
        }
        let server = self.server(key.clone());
        let release = req.profile.own_server.then(|| run::Release {
            servers: Arc::clone(&self.servers),
            key,
        });
        (server, release)
    }

    /// [`Self::start_run`] with this run's own limits instead of the engine's.
    pub async fn start_run_with(
        &self,
        req: RunRequest,
        limits: RunLimits,
    ) -> Result<CodexRun, EngineError> {
        let (server, release) = self.run_server(&req);
        let peer = server.peer().await?;
        let (thread, was_resumed, notices) = open_thread(&peer, &req).await?;
        let input = with_skills(&peer, &req.cwd, req.input).await;
        let p = &req.profile;
        let thread_id = thread.thread.id.clone();

        // Route before turn/start: codex streams right after answering it.
        let (tx, rx) = mpsc::unbounded_channel();
        server.add_route(&thread_id, tx.clone());
        let baseline = server.totals(&thread_id);
        // Plan mode is per turn; its settings need the model the thread actually runs.
        let collaboration_mode = p.plan_mode.then(|| {
            serde_json::json!({
                "mode": "plan",
                "settings": {
                    "model": p.model.clone().or_else(|| thread.model.clone()),
                    "reasoning_effort": p.reasoning_effort,
                    "developer_instructions": null,
                },
            })
        });
        let params = TurnStartParams {
            thread_id: thread_id.clone(),
            input,
            approval_policy: p.approval_policy.clone(),
            model: p.model.clone(),
            effort: p.reasoning_effort.clone(),
            collaboration_mode,
            ..Default::default()
        };
        let turn = match peer.call::<TurnStart>(&params).await {
            Ok(t) => t,
            Err(e) => {
                server.remove_route(&thread_id, &tx);
                return Err(e);
            }
        };
        let turn_id = turn.turn.id;

        let (events_tx, events) = mpsc::unbounded_channel();
        let _ = events_tx.send(AgentEvent::RunStarted {
            // The turn runs the profile's model when it names one (a session may switch).
            model: p.model.clone().or_else(|| thread.model.clone()),
            tools: Vec::new(),
            engine_session_id: Some(thread_id.clone()),
        });
        for message in notices {
            let _ = events_tx.send(AgentEvent::EngineDiagnostic {
                source: DiagnosticSource::Notice,
                message,
                raw: None,
            });
        }
        for message in server.take_mcp_failures(&thread_id) {
            let _ = events_tx.send(AgentEvent::EngineDiagnostic {
                source: DiagnosticSource::Warning,
                message,
                raw: None,
            });
        }
        let mut translator = TurnTranslator::new(baseline);
        translator.set_turn_id(turn_id.clone());
        let task = RunTask {
            server,
            peer,
            thread_id: thread_id.clone(),
            turn_id: turn_id.clone(),
            route: tx.clone(),
            translator,
            interrupt_grace: self.config.interrupt_grace,
            limits,
            events: events_tx,
            release,
        };
        tokio::spawn(task.run(rx));
        Ok(CodexRun {
            thread_id,
            turn_id,
            resumed: was_resumed,
            events,
            control: RunControl::new(Engine::Codex, tx),
        })
    }

    /// Stop every app-server (app exit). Runs in flight fail.
    pub async fn shutdown(&self) {
        let servers: Vec<Arc<Server>> = {
            let mut map = lock(&self.servers);
            map.drain().map(|(_, s)| s).collect()
        };
        for s in servers {
            s.shutdown().await;
        }
    }
}

/// Why a thread of the Codex CLI could not be resumed, as the user can act on it.
fn terminal_thread_refused(thread_id: &str, e: &EngineError) -> EngineError {
    let text = e.to_string();
    if text.contains("active writer") {
        return EngineError::Preflight(
            "The Codex CLI has this session open in a terminal right now: finish or close it \
             there, then send again (Agent Desk does not start a second run on it)."
                .into(),
        );
    }
    EngineError::Preflight(format!(
        "Could not resume the Codex CLI's conversation {thread_id} ({text}); it was not \
         continued in a new one, so the terminal's history stays whole."
    ))
}

/// The run's thread: the session's own resumed (`thread/resume`), else a new one. Refuses
/// early when OpenAI is the provider and nobody is logged in (a turn would retry forever
/// offline). Returns the thread, whether it was resumed, and notices for the timeline.
async fn open_thread(
    peer: &crate::rpc::RpcPeer,
    req: &RunRequest,
) -> Result<(ThreadStartResponse, bool, Vec<String>), EngineError> {
    let mut notices = Vec::new();
    // With OpenAI as provider and no login, a turn retries forever offline: refuse early.
    if req.profile.provider.is_none() {
        let account = peer
            .call::<AccountRead>(&GetAccountParams {
                refresh_token: Some(false),
            })
            .await?;
        if account.account.is_none() && account.requires_openai_auth {
            return Err(EngineError::NotLoggedIn(
                "Codex is not logged in: run `codex login` in a terminal (or set a custom provider in the profile)".into(),
            ));
        }
    }

    let cwd = req.cwd.to_string_lossy().into_owned();
    let p = &req.profile;
    let mut resumed = None;
    if let Some(thread_id) = &req.resume_thread_id {
        let params = ThreadResumeParams {
            thread_id: thread_id.clone(),
            cwd: Some(cwd.clone()),
            model: p.model.clone(),
            approval_policy: p.approval_policy.clone(),
            sandbox: p.sandbox.clone(),
            developer_instructions: p.developer_instructions.clone(),
            config: p.thread_config(&cwd),
            // We keep the history ourselves; skip codex's deprecated full hydration.
            exclude_turns: Some(true),
            ..Default::default()
        };
        match peer.call::<ThreadResume>(&params).await {
            Ok(r) => resumed = Some(r),
            // A terminal's thread is never continued in a new one: that would split the
            // history the terminal's `codex resume` sees.
            Err(e) if p.own_server => return Err(terminal_thread_refused(thread_id, &e)),
            Err(e) if !e.is_fatal() => notices.push(format!(
                "Could not resume the Codex conversation {thread_id} ({e}); continuing in a new conversation without its history."
            )),
            Err(e) => return Err(e),
        }
    }
    let was_resumed = resumed.is_some();
    let thread = match resumed {
        Some(r) => r,
        None => {
            let params = ThreadStartParams {
                config: p.thread_config(&cwd),
                cwd: Some(cwd),
                model: p.model.clone(),
                approval_policy: p.approval_policy.clone(),
                sandbox: p.sandbox.clone(),
                developer_instructions: p.developer_instructions.clone(),
                ..Default::default()
            };
            peer.call::<ThreadStart>(&params).await?
        }
    };
    Ok((thread, was_resumed, notices))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests;

/// The enabled skills of `cwd`.
async fn skills_of(
    peer: &crate::rpc::RpcPeer,
    cwd: &std::path::Path,
) -> Result<Vec<SkillMetadata>, EngineError> {
    let listed = peer
        .call::<SkillsList>(&SkillsListParams {
            cwds: vec![cwd.to_string_lossy().into_owned()],
            force_reload: false,
        })
        .await?;
    Ok(listed
        .data
        .into_iter()
        .flat_map(|e| e.skills)
        .filter(|s| s.enabled)
        .collect())
}

/// The skills the message invokes (`$name`, as codex's own composer writes them) go with it
/// as `skill` inputs, so codex loads their instructions. A listing that fails leaves the
/// message as typed.
async fn with_skills(
    peer: &crate::rpc::RpcPeer,
    cwd: &std::path::Path,
    mut input: Vec<UserInput>,
) -> Vec<UserInput> {
    let named: Vec<String> = input
        .iter()
        .filter_map(|i| match i {
            UserInput::Text { text, .. } => Some(skill_names(text)),
            _ => None,
        })
        .flatten()
        .collect();
    if named.is_empty() {
        return input;
    }
    let Ok(skills) = skills_of(peer, cwd).await else {
        return input;
    };
    for skill in skills {
        if named.contains(&skill.name) {
            input.push(UserInput::Skill {
                name: skill.name,
                path: skill.path,
            });
        }
    }
    input
}

/// `$name` words (letters, digits, `-`, `_`, `.`, `:`) of a message.
fn skill_names(text: &str) -> Vec<String> {
    text.split_whitespace()
        .filter_map(|w| w.strip_prefix('$'))
        .map(|w| w.trim_end_matches(['.', ',', ';', ':', '!', '?', ')']))
        .filter(|w| !w.is_empty() && w.chars().all(|c| c.is_alphanumeric() || "-_.:".contains(c)))
        .map(str::to_owned)
        .collect()
}
