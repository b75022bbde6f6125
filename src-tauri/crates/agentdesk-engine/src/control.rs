//! What both adapters share about a running turn: the user's commands ([`Command`]), the
//! handle that sends them ([`RunHandle`]), the engine requests held for the user
//! ([`PendingRequests`]) and the crash message. One implementation, so the engines cannot
//! drift apart (a question answered with a decision is the same error in both, a pending
//! request expires the same way).

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use agentdesk_protocol::events::{AgentEvent, ApprovalState, UserDecision};
use tokio::sync::oneshot;

use crate::error::EngineError;
use crate::process::ChildExit;
use crate::vocab::{ApprovalDecision, Engine, EngineCapabilities};

type Reply = oneshot::Sender<Result<(), EngineError>>;

/// A user command for a running turn, handled inside the adapter's run task.
#[derive(Debug)]
pub(crate) enum Command {
    Interrupt,
    Resolve {
        request_id: String,
        decision: ApprovalDecision,
        reply: Reply,
    },
    Answer {
        request_id: String,
        answers: BTreeMap<String, Vec<String>>,
        reply: Reply,
    },
}

impl Command {
    /// The user answered something: the inactivity clock restarts after a wait.
    pub(crate) fn is_answer(&self) -> bool {
        matches!(self, Self::Resolve { .. } | Self::Answer { .. })
    }
}

/// Where a [`RunHandle`] delivers commands: the adapter's run-task channel. `false` = the
/// run task is gone.
pub(crate) trait CommandSink: Send + Sync {
    fn deliver(&self, command: Command) -> bool;
}

/// Interrupt / decide / answer a running turn, whatever the engine. Cheap to clone; outlives
/// the run harmlessly (then every call fails with [`EngineError::NotPending`]).
#[derive(Clone)]
pub struct RunHandle {
    kind: Engine,
    sink: Arc<dyn CommandSink>,
}

impl std::fmt::Debug for RunHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunHandle")
            .field("kind", &self.kind)
            .finish_non_exhaustive()
    }
}

impl RunHandle {
    pub(crate) fn new(kind: Engine, sink: impl CommandSink + 'static) -> Self {
        Self {
            kind,
            sink: Arc::new(sink),
        }
    }

    pub fn kind(&self) -> Engine {
        self.kind
    }

    pub fn capabilities(&self) -> EngineCapabilities {
        crate::registry::descriptor(self.kind).capabilities()
    }

    /// Ask the engine to stop the turn; the run then ends with `run.interrupted` (bounded:
    /// the adapter ends it itself if the engine does not confirm in time).
    pub fn interrupt(&self) {
        let _ = self.sink.deliver(Command::Interrupt);
    }

    /// Decide an approval (`approval.requested.requestId`): allow (possibly with an edited
    /// input), allow for the session, deny with a message, or deny and stop the turn.
    /// [`EngineError::Unsupported`] when the engine cannot do what `decision` asks (see
    /// [`EngineCapabilities`]) or the request is a question; [`EngineError::NotPending`]
    /// when it is no longer pending.
    pub async fn resolve_approval(
        &self,
        request_id: &str,
        decision: impl Into<ApprovalDecision>,
    ) -> Result<(), EngineError> {
        let decision = decision.into();
        decision
            .check(self.kind)
            .map_err(EngineError::Unsupported)?;
        let (reply, rx) = oneshot::channel();
        let command = Command::Resolve {
            request_id: request_id.to_owned(),
            decision,
            reply,
        };
        self.call(request_id, command, rx).await
    }

    /// Answer a question (`question.asked.requestId`): question id → chosen labels or text.
    pub async fn answer_question(
        &self,
        request_id: &str,
        answers: BTreeMap<String, Vec<String>>,
    ) -> Result<(), EngineError> {
        let (reply, rx) = oneshot::channel();
        let command = Command::Answer {
            request_id: request_id.to_owned(),
            answers,
            reply,
        };
        self.call(request_id, command, rx).await
    }

    /// Skip a question (the user declined to answer): the engine gets no answers and the
    /// agent goes on without them.
    pub async fn skip_question(&self, request_id: &str) -> Result<(), EngineError> {
        self.answer_question(request_id, BTreeMap::new()).await
    }

    async fn call(
        &self,
        request_id: &str,
        command: Command,
        rx: oneshot::Receiver<Result<(), EngineError>>,
    ) -> Result<(), EngineError> {
        let not_pending = || EngineError::NotPending {
            request_id: request_id.to_owned(),
        };
        if !self.sink.deliver(command) {
            return Err(not_pending());
        }
        rx.await.unwrap_or_else(|_| Err(not_pending()))
    }
}

/// An engine request held until the user answers; `T` is what the adapter needs to answer
/// it on the wire.
struct Held<T> {
    question: bool,
    request: T,
}

/// The engine requests of one run waiting for the user, by our request id (the one in
/// `approval.requested` / `question.asked`).
pub(crate) struct PendingRequests<T> {
    held: HashMap<String, Held<T>>,
}

impl<T> Default for PendingRequests<T> {
    fn default() -> Self {
        Self {
            held: HashMap::new(),
        }
    }
}

impl<T> PendingRequests<T> {
    /// A new request id (time-ordered, so expiring in id order is arrival order).
    pub fn new_id() -> String {
        uuid::Uuid::now_v7().to_string()
    }

    pub fn is_empty(&self) -> bool {
        self.held.is_empty()
    }

    pub fn hold_approval(&mut self, request_id: String, request: T) {
        self.held.insert(
            request_id,
            Held {
                question: false,
                request,
            },
        );
    }

    pub fn hold_question(&mut self, request_id: String, request: T) {
        self.held.insert(
            request_id,
            Held {
                question: true,
                request,
            },
        );
    }

    /// The approval to decide; a question stays held (it must be answered instead).
    pub fn take_approval(&mut self, request_id: &str) -> Result<T, EngineError> {
        self.take(request_id, false)
    }

    /// The question to answer; an approval stays held (it must be decided instead).
    pub fn take_question(&mut self, request_id: &str) -> Result<T, EngineError> {
        self.take(request_id, true)
    }

    fn take(&mut self, request_id: &str, question: bool) -> Result<T, EngineError> {
        match self.held.get(request_id) {
            None => Err(EngineError::NotPending {
                request_id: request_id.to_owned(),
            }),
            Some(h) if h.question != question => Err(EngineError::Unsupported(
                if h.question {
                    "this request is a question: answer it instead"
                } else {
                    "this request is an approval: decide it instead"
                }
                .into(),
            )),
            Some(_) => self
                .held
                .remove(request_id)
                .map(|h| h.request)
                .ok_or_else(|| EngineError::NotPending {
                    request_id: request_id.to_owned(),
                }),
        }
    }

    /// The engine withdrew the first request `matches` picks: it ends `cancelled`.
    pub fn withdraw(&mut self, matches: impl Fn(&T) -> bool, out: &mut Vec<AgentEvent>) {
        let found = self
            .held
            .iter()
            .find(|(_, h)| matches(&h.request))
            .map(|(id, _)| id.clone());
        if let Some((id, h)) = found.and_then(|id| self.held.remove_entry(&id)) {
            out.push(ended(id, h.question, ApprovalState::Cancelled));
        }
    }

    /// Everything still held expires (not "denied": nobody answered), in arrival order. The
    /// requests are dropped (an RPC request dropped unanswered tells the engine so).
    pub fn expire_all(&mut self, out: &mut Vec<AgentEvent>) {
        let mut all: Vec<(String, Held<T>)> = self.held.drain().collect();
        all.sort_by(|a, b| a.0.cmp(&b.0));
        for (id, h) in all {
            out.push(ended(id, h.question, ApprovalState::Expired));
        }
    }
}

/// How a held request ended without the user: a question gets no answers, an approval the
/// outcome.
fn ended(request_id: String, question: bool, outcome: ApprovalState) -> AgentEvent {
    if question {
        AgentEvent::QuestionAnswered {
            request_id,
            answers: None,
        }
    } else {
        AgentEvent::ApprovalResolved {
            request_id,
            outcome,
        }
    }
}

/// `approval.resolved` for a user's decision.
pub(crate) fn resolved(request_id: &str, decision: UserDecision) -> AgentEvent {
    AgentEvent::ApprovalResolved {
        request_id: request_id.to_owned(),
        outcome: decision.into(),
    }
}

/// "`who` stopped unexpectedly (status). Last output: <last 10 stderr lines>", from the exit
/// (or, when its status never came, the stderr tail read so far).
pub(crate) fn crash_message(who: &str, exit: Option<&ChildExit>, tail_so_far: &str) -> String {
    // An engine on another machine whose channel ended: the connection's fate, in words.
    if let Some(crate::error::EngineError::Remote { reason, .. }) =
        exit.filter(|e| e.remote.is_some()).map(ChildExit::to_error)
    {
        return format!("{who} stopped: {reason}");
    }
    // Stopped by this app for its memory: that is the reason, not a crash.
    if let Some(over) = exit.and_then(|e| e.over_memory) {
        return format!(
            "{who} was stopped: {over}. The session can be continued: send a message to start it again"
        );
    }
    let mut msg = format!("{who} stopped unexpectedly");
    let tail = match exit {
        Some(exit) => {
            msg.push_str(&format!(" ({})", exit.status));
            exit.stderr_tail.as_str()
        }
        None => tail_so_far,
    };
    let lines: Vec<&str> = tail.trim().lines().collect();
    if !lines.is_empty() {
        let start = lines.len().saturating_sub(10);
        msg.push_str(&format!(". Last output:\n{}", lines[start..].join("\n")));
    }
    msg
}

/// Sleep until `deadline`, or forever without one (a `select!` arm that never fires).
pub(crate) async fn sleep_until(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
#[path = "control_tests.rs"]
mod tests;
