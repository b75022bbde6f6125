//! The engine-neutral interface the core drives runs through: [`AgentEngine`] (Codex or
//! Claude) → [`AgentEngine::start_run`] → [`AgentRun`] { canonical events, [`RunHandle`] }.
//!
//! Deliberate differences that stay visible through this interface (the conformance suite
//! documents them too):
//! - Codex keeps one resident app-server per home; Claude starts one process per run.
//! - "Approve with an edited input" exists only for Claude (codex has no way to run a
//!   different command than the one it asked about): Codex returns [`EngineError::Unsupported`].
//! - "Deny and stop" is one wire decision for Claude (`interrupt: true`); for Codex it is a
//!   decline followed by `turn/interrupt`.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use agentdesk_protocol::codex::UserInput;
use agentdesk_protocol::events::{AgentEvent, UserDecision};
use serde_json::Value;
use tokio::sync::mpsc;

use crate::claude::{self, ClaudeEngine, ClaudeProfile, ClaudeRunRequest};
use crate::codex::{self, CodexEngine, CodexProfile, RunRequest};
use crate::error::EngineError;

/// A piece of the user's message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputPart {
    Text(String),
    /// An image file (png, jpeg, gif, webp) on disk.
    LocalImage(PathBuf),
}

impl InputPart {
    pub fn text(t: impl Into<String>) -> Self {
        Self::Text(t.into())
    }

    pub fn image(path: impl Into<PathBuf>) -> Self {
        Self::LocalImage(path.into())
    }
}

/// The answer to an approval, with the options only some engines honour.
#[derive(Debug, Clone, PartialEq)]
pub struct ApprovalDecision {
    pub decision: UserDecision,
    /// Run this input instead of the one asked about (Claude's `updatedInput`).
    pub updated_input: Option<Value>,
    /// Told to the model with a denial.
    pub message: Option<String>,
    /// Deny and end the turn.
    pub stop: bool,
}

impl ApprovalDecision {
    pub fn allow_edited(input: Value) -> Self {
        Self {
            updated_input: Some(input),
            ..UserDecision::ApproveOnce.into()
        }
    }

    pub fn deny(message: impl Into<String>) -> Self {
        Self {
            message: Some(message.into()),
            ..UserDecision::Deny.into()
        }
    }

    pub fn deny_and_stop(message: impl Into<String>) -> Self {
        Self {
            stop: true,
            ..Self::deny(message)
        }
    }
}

impl From<UserDecision> for ApprovalDecision {
    fn from(decision: UserDecision) -> Self {
        Self {
            decision,
            updated_input: None,
            message: None,
            stop: false,
        }
    }
}

/// Which engine, with its per-profile options.
#[derive(Debug, Clone)]
pub enum EngineOptions {
    Codex {
        /// CODEX_HOME; `None` = the user's default.
        codex_home: Option<PathBuf>,
        profile: CodexProfile,
    },
    Claude(ClaudeProfile),
}

/// One message of a session, engine-neutral.
#[derive(Debug, Clone)]
pub struct NeutralRunRequest {
    pub cwd: PathBuf,
    /// The engine's session id from the session's previous run.
    pub resume_session_id: Option<String>,
    pub input: Vec<InputPart>,
    pub options: EngineOptions,
    /// This run's inactivity watchdog: `None` keeps the engine's (10 min by default), zero
    /// turns it off.
    pub inactivity_timeout: Option<Duration>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EngineKind {
    Codex,
    Claude,
}

/// An engine the core can run sessions on.
#[derive(Debug, Clone)]
pub enum AgentEngine {
    Codex(CodexEngine),
    Claude(ClaudeEngine),
}

impl AgentEngine {
    pub fn kind(&self) -> EngineKind {
        match self {
            Self::Codex(_) => EngineKind::Codex,
            Self::Claude(_) => EngineKind::Claude,
        }
    }

    /// Start one run. `Err` = the run never started; later failures are `run.failed` events.
    pub async fn start_run(&self, req: NeutralRunRequest) -> Result<AgentRun, EngineError> {
        match (self, req.options) {
            (
                Self::Codex(engine),
                EngineOptions::Codex {
                    codex_home,
                    profile,
                },
            ) => {
                let input = req
                    .input
                    .into_iter()
                    .map(|p| match p {
                        InputPart::Text(t) => UserInput::text(t),
                        InputPart::LocalImage(path) => {
                            UserInput::local_image(path.to_string_lossy())
                        }
                    })
                    .collect();
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
                let (session_id, resumed) = (run.thread_id.clone(), run.resumed);
                let (control, events) = run.into_parts();
                Ok(AgentRun {
                    session_id,
                    resumed,
                    pid: engine.app_server_pids(home.as_deref()).first().copied(),
                    events,
                    control: RunHandle::Codex(control),
                })
            }
            (Self::Claude(engine), EngineOptions::Claude(profile)) => {
                let limits = engine
                    .config()
                    .limits
                    .with_inactivity_timeout(req.inactivity_timeout);
                let run = engine
                    .start_run_with(
                        ClaudeRunRequest {
                            cwd: req.cwd,
                            profile,
                            resume_session_id: req.resume_session_id,
                            input: req.input,
                        },
                        limits,
                    )
                    .await?;
                let (session_id, resumed, pid) = (run.session_id.clone(), run.resumed, run.pid);
                let (control, events) = run.into_parts();
                Ok(AgentRun {
                    session_id,
                    resumed,
                    pid,
                    events,
                    control: RunHandle::Claude(control),
                })
            }
            (engine, _) => Err(EngineError::Preflight(format!(
                "the profile's options are for another engine than {:?}",
                engine.kind()
            ))),
        }
    }

    /// Stop everything the engine keeps running (app exit).
    pub async fn shutdown(&self) {
        if let Self::Codex(engine) = self {
            engine.shutdown().await;
        }
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
    /// The next event; `None` after the terminal event.
    pub async fn next_event(&mut self) -> Option<AgentEvent> {
        self.events.recv().await
    }

    pub fn control(&self) -> RunHandle {
        self.control.clone()
    }
}

/// Interrupt / decide / answer, whatever the engine.
#[derive(Debug, Clone)]
pub enum RunHandle {
    Codex(codex::RunControl),
    Claude(claude::RunControl),
}

impl RunHandle {
    pub fn interrupt(&self) {
        match self {
            Self::Codex(c) => c.interrupt(),
            Self::Claude(c) => c.interrupt(),
        }
    }

    pub async fn resolve_approval(
        &self,
        request_id: &str,
        decision: impl Into<ApprovalDecision>,
    ) -> Result<(), EngineError> {
        let d = decision.into();
        match self {
            Self::Claude(c) => c.resolve_approval(request_id, d).await,
            Self::Codex(c) => {
                if d.updated_input.is_some() {
                    return Err(EngineError::Unsupported(
                        "Codex cannot run an edited version of a requested action".into(),
                    ));
                }
                c.resolve_approval(request_id, d.decision).await?;
                if d.stop {
                    c.interrupt();
                }
                Ok(())
            }
        }
    }

    pub async fn answer_question(
        &self,
        request_id: &str,
        answers: BTreeMap<String, Vec<String>>,
    ) -> Result<(), EngineError> {
        match self {
            Self::Codex(c) => c.answer_question(request_id, answers).await,
            Self::Claude(c) => c.answer_question(request_id, answers).await,
        }
    }
}
