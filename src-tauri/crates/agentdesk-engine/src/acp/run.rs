//! One ACP run = one agent process and one `session/prompt`: a task that owns the process,
//! the translator and the requests held for the user. Everything about the run arrives on one
//! `select!` (the agent's messages, its stderr, the prompt's answer, user commands, the
//! timers), so there are no locks and no races between a decision and the agent dying.
//! Nothing in the loop waits on the agent: requests are answered by queued writes.

use std::collections::HashSet;
use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::time::Duration;

use agentdesk_protocol::acp::{
    PromptRequest, PromptResponse, ReadTextFileRequest, RequestPermissionOutcome,
    RequestPermissionRequest, SessionNotification, WriteTextFileRequest,
};
use agentdesk_protocol::events::{AgentEvent, DiagnosticSource, FailureCode, UserDecision};
use serde_json::{json, Value};
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::permission::{
    choose_option, fs_event, permission_event, FsAsk, FsOp, Held, Pending, PermissionReply,
};
use super::session::{describe, Agent};
use super::translate::AcpTranslator;
use super::workspace::{planned_write, read_text, write_text, Workspace};
use crate::coalesce::{send_out, send_out_but_terminal};
use crate::control::{crash_message, resolved, sleep_until, Command};
use crate::diagnostic::Diagnostic;
use crate::error::EngineError;
use crate::limits::{DiagnosticBudget, RunLimits, Watchdog};
use crate::rpc::{InboundRequest, PeerEvent, INTERNAL_ERROR};
use crate::vocab::ApprovalDecision;

/// JSON-RPC: invalid params.
const INVALID_PARAMS: i64 = -32602;

type PromptFuture = Pin<Box<dyn Future<Output = Result<Value, EngineError>> + Send>>;

pub(crate) struct RunTask {
    pub agent: Agent,
    pub session_id: String,
    /// The agent's name, for messages.
    pub name: String,
    pub translator: AcpTranslator,
    pub workspace: Workspace,
    pub cwd: PathBuf,
    /// "Approve for the session" may choose the agent's `allow_always`.
    pub allow_always: bool,
    pub interrupt_grace: Duration,
    pub limits: RunLimits,
    pub events: mpsc::UnboundedSender<AgentEvent>,
    pub control: mpsc::UnboundedReceiver<Command>,
    pub prompt: PromptRequest,
    /// `run.started` and the set-up's notices.
    pub early: Vec<AgentEvent>,
}

/// What the loop carries from one step to the next.
struct LoopState {
    pending: Held,
    interrupt_deadline: Option<Instant>,
    watchdog: Watchdog,
    budget: DiagnosticBudget,
    /// The prompt's answer, while it is awaited.
    prompt: Option<PromptFuture>,
    /// Paths outside the workspace the user approved at a permission request: the `fs/*`
    /// requests for them that follow are not asked again.
    approved_outside: HashSet<PathBuf>,
    /// Events not yet sent.
    out: Vec<AgentEvent>,
}

enum Step {
    Peer(Option<PeerEvent>),
    Stderr(Diagnostic),
    Control(Command),
    Prompt(Result<Value, EngineError>),
    InterruptTimeout,
    /// The agent said nothing for the inactivity limit while not waiting for the user.
    Silent,
    Abandoned,
}

async fn answer(prompt: &mut Option<PromptFuture>) -> Result<Value, EngineError> {
    match prompt {
        Some(f) => f.await,
        None => std::future::pending().await,
    }
}

impl RunTask {
    pub(crate) async fn run(mut self) {
        let peer = self.agent.peer.clone();
        let params = serde_json::to_value(&self.prompt).unwrap_or(Value::Null);
        let prompt: PromptFuture = Box::pin(async move {
            peer.request_with_timeout("session/prompt", params, None)
                .await
        });
        let mut st = LoopState {
            pending: Held::default(),
            interrupt_deadline: None,
            watchdog: Watchdog::new(self.limits.inactivity_timeout),
            budget: DiagnosticBudget::new(self.limits.max_diagnostics),
            prompt: Some(prompt),
            approved_outside: HashSet::new(),
            out: std::mem::take(&mut self.early),
        };
        for ev in std::mem::take(&mut self.agent.backlog) {
            self.on_peer(Some(ev), &mut st).await;
        }
        loop {
            if self.translator.outcome().is_none() {
                match self.next_step(&mut st).await {
                    Step::Abandoned => {
                        // Nobody records this run: stop the agent, leave nothing running
                        // (held permission requests answer `cancelled` as they drop).
                        let _ = self.cancel_notification();
                        st.pending.expire_all(&mut Vec::new());
                        self.agent.child.stop().await;
                        return;
                    }
                    step => self.on_step(step, &mut st).await,
                }
            }
            if self.translator.outcome().is_some() {
                self.finish(st).await;
                return;
            }
            if !self.agent.events.has_buffered() {
                self.flush(&mut st);
            }
        }
    }

    async fn next_step(&mut self, st: &mut LoopState) -> Step {
        // An interrupt has its own (shorter) bound; a pending request pauses the clock.
        let silence = match st.interrupt_deadline {
            Some(_) => None,
            None => st.watchdog.deadline(!st.pending.is_empty()),
        };
        // Biased: what the agent sent before the prompt's answer is handled before it.
        let step = tokio::select! {
            biased;
            ev = self.agent.events.recv() => Step::Peer(ev),
            Some(d) = self.agent.stderr.recv() => Step::Stderr(d),
            Some(c) = self.control.recv() => Step::Control(c),
            r = answer(&mut st.prompt) => Step::Prompt(r),
            _ = sleep_until(st.interrupt_deadline) => Step::InterruptTimeout,
            _ = sleep_until(silence) => Step::Silent,
            _ = self.events.closed() => Step::Abandoned,
        };
        if matches!(step, Step::Peer(_) | Step::Stderr(_) | Step::Prompt(_))
            || matches!(&step, Step::Control(c) if c.is_answer())
        {
            st.watchdog.activity();
        }
        step
    }

    async fn on_step(&mut self, step: Step, st: &mut LoopState) {
        match step {
            Step::Peer(ev) => self.on_peer(ev, st).await,
            Step::Stderr(d) => {
                self.translator
                    .notice(DiagnosticSource::Stderr, d.detail, None, &mut st.out)
            }
            Step::Control(c) => self.on_control(c, st).await,
            Step::Prompt(r) => {
                st.prompt = None;
                self.on_prompt_answer(r, st);
            }
            Step::InterruptTimeout => {
                self.translator.notice(
                    DiagnosticSource::Notice,
                    format!(
                        "{} did not confirm the interrupt in time; it was stopped",
                        self.name
                    ),
                    None,
                    &mut st.out,
                );
                st.pending.expire_all(&mut st.out);
                self.translator.interrupted(&mut st.out);
            }
            Step::Silent => {
                // Failed, not interrupted: nobody asked for it. `finish` stops the process.
                st.pending.expire_all(&mut st.out);
                let msg = st.watchdog.message(&self.name);
                self.translator
                    .fail_with(msg, FailureCode::EngineSilent, &mut st.out);
            }
            Step::Abandoned => {}
        }
    }

    async fn on_peer(&mut self, ev: Option<PeerEvent>, st: &mut LoopState) {
        match ev {
            Some(PeerEvent::Notification(n)) if n.method == "session/update" => {
                match n.parse_params::<SessionNotification>() {
                    Ok(s) => self.translator.on_update(s.update, &mut st.out),
                    Err(e) => self.translator.notice(
                        DiagnosticSource::UnknownMessage,
                        format!("unreadable session update ({e}); ignored"),
                        Some(n.params),
                        &mut st.out,
                    ),
                }
            }
            Some(PeerEvent::Notification(n)) => self.translator.notice(
                DiagnosticSource::UnknownMessage,
                format!("notification `{}` not understood; ignored", n.method),
                Some(n.params),
                &mut st.out,
            ),
            // Only codex's decoder produces typed notifications.
            Some(PeerEvent::Typed(_)) => {}
            Some(PeerEvent::Request(req)) => self.on_request(req, st).await,
            Some(PeerEvent::Diagnostic(d)) => self.translator.notice(
                DiagnosticSource::UnknownMessage,
                d.detail,
                d.excerpt.map(Value::String),
                &mut st.out,
            ),
            Some(PeerEvent::Closed { exit }) => self.on_closed(exit.as_ref(), st),
            None => self.on_closed(None, st),
        }
    }

    fn on_closed(&mut self, exit: Option<&crate::process::ChildExit>, st: &mut LoopState) {
        st.pending.expire_all(&mut st.out);
        if self.translator.stopping() {
            // Asked to stop, and it did.
            self.translator.interrupted(&mut st.out);
            return;
        }
        let msg = crash_message(&self.name, exit, &self.agent.child.stderr_tail());
        self.translator
            .fail_with(msg, FailureCode::EngineCrashed, &mut st.out);
    }

    fn on_prompt_answer(&mut self, r: Result<Value, EngineError>, st: &mut LoopState) {
        let failure = match r {
            Ok(v) => match serde_json::from_value::<PromptResponse>(v.clone()) {
                Ok(resp) => return self.translator.on_prompt_result(resp, &mut st.out),
                Err(e) => format!(
                    "{} answered the prompt with something unreadable ({e}): {v}",
                    self.name
                ),
            },
            // The connection is gone: the `Closed` event that follows says how.
            Err(e) if e.is_fatal() => return,
            Err(e) => format!("{} could not run the prompt: {}", self.name, describe(&e)),
        };
        st.pending.expire_all(&mut st.out);
        self.translator
            .fail(failure, Some("acp_error".to_owned()), &mut st.out);
    }

    async fn on_request(&mut self, req: InboundRequest, st: &mut LoopState) {
        let r = match req.method.as_str() {
            "session/request_permission" => self.on_permission(req, st),
            "fs/read_text_file" => self.on_read(req, st).await,
            "fs/write_text_file" => self.on_write(req, st).await,
            _ => req.decline(),
        };
        if let Err(e) = r {
            tracing::debug!(error = %e, "could not answer an agent request");
        }
    }

    fn on_permission(
        &mut self,
        req: InboundRequest,
        st: &mut LoopState,
    ) -> Result<(), EngineError> {
        let p = match req.parse_params::<RequestPermissionRequest>() {
            Ok(p) => p,
            Err(e) => return self.refuse(req, e, st),
        };
        let request_id = Held::new_id();
        let (event, outside) = permission_event(&request_id, &p, &self.cwd, &self.workspace);
        let reply = PermissionReply::new(req, &p, outside);
        if self.translator.stopping() {
            // The turn is being cancelled: ACP wants `cancelled` for anything asked now.
            return reply.answer(RequestPermissionOutcome::Cancelled);
        }
        self.translator.note_tool_call(&p.tool_call, &mut st.out);
        st.out.push(event);
        st.pending
            .hold_approval(request_id, Pending::Permission(reply));
        Ok(())
    }

    /// Answer an unreadable request with "invalid params", and keep a trace.
    fn refuse(
        &mut self,
        req: InboundRequest,
        e: EngineError,
        st: &mut LoopState,
    ) -> Result<(), EngineError> {
        self.translator.notice(
            DiagnosticSource::UnknownMessage,
            format!("unreadable `{}` request ({e}); refused", req.method),
            Some(req.params.clone()),
            &mut st.out,
        );
        req.respond_error(INVALID_PARAMS, e.to_string())
    }

    async fn on_read(
        &mut self,
        req: InboundRequest,
        st: &mut LoopState,
    ) -> Result<(), EngineError> {
        let r = match req.parse_params::<ReadTextFileRequest>() {
            Ok(r) => r,
            Err(e) => return self.refuse(req, e, st),
        };
        let op = FsOp::Read {
            line: r.line,
            limit: r.limit,
        };
        match self.allowed(&r.path, st) {
            Some(real) => do_fs(req, &real, op).await,
            None => {
                self.ask_fs(req, &r.path, op, None, st);
                Ok(())
            }
        }
    }

    async fn on_write(
        &mut self,
        req: InboundRequest,
        st: &mut LoopState,
    ) -> Result<(), EngineError> {
        let w = match req.parse_params::<WriteTextFileRequest>() {
            Ok(w) => w,
            Err(e) => return self.refuse(req, e, st),
        };
        match self.allowed(&w.path, st) {
            Some(real) => do_fs(req, &real, FsOp::Write { content: w.content }).await,
            None => {
                let planned = planned_write(std::path::Path::new(&w.path), &w.content).await;
                let op = FsOp::Write { content: w.content };
                self.ask_fs(req, &w.path, op, Some(planned), st);
                Ok(())
            }
        }
    }

    /// Where `path` really points when the agent may use it without asking: inside the
    /// workspace, or a path the user approved at this run's permission step.
    fn allowed(&self, path: &str, st: &LoopState) -> Option<PathBuf> {
        self.workspace.inside(path).or_else(|| {
            let real = super::workspace::resolve(std::path::Path::new(path), &self.cwd)?;
            st.approved_outside.contains(&real).then_some(real)
        })
    }

    /// A file operation outside the workspace: asked as a file change.
    fn ask_fs(
        &mut self,
        req: InboundRequest,
        path: &str,
        op: FsOp,
        planned: Option<(agentdesk_protocol::events::FileChangeKind, String)>,
        st: &mut LoopState,
    ) {
        let path = super::workspace::resolve(std::path::Path::new(path), &self.cwd)
            .unwrap_or_else(|| PathBuf::from(path));
        let request_id = Held::new_id();
        st.out
            .push(fs_event(&request_id, &path, &op, planned, &self.cwd));
        st.pending
            .hold_approval(request_id, Pending::Fs(FsAsk { req, path, op }));
    }

    async fn on_control(&mut self, c: Command, st: &mut LoopState) {
        match c {
            Command::Interrupt => self.interrupt(st),
            Command::Resolve {
                request_id,
                decision,
                reply,
            } => {
                let stop = decision.stop && decision.decision == UserDecision::Deny;
                let r = self.resolve(&request_id, decision, st).await;
                if r.is_ok() && stop {
                    // Deny-and-stop: the rejection, then `session/cancel`.
                    self.interrupt(st);
                }
                let _ = reply.send(r);
            }
            // ACP agents ask no questions: whatever this id is, it is not one.
            Command::Answer {
                request_id, reply, ..
            } => {
                let r = st.pending.take_question(&request_id).map(drop);
                let _ = reply.send(r);
            }
        }
    }

    async fn resolve(
        &mut self,
        request_id: &str,
        d: ApprovalDecision,
        st: &mut LoopState,
    ) -> Result<(), EngineError> {
        match st.pending.take_approval(request_id)? {
            Pending::Permission(reply) => {
                let outcome = match choose_option(&reply.options, d.decision, self.allow_always) {
                    Ok(o) => o,
                    Err(e) => {
                        // Still pending: the user can decide otherwise.
                        let held = Pending::Permission(reply);
                        st.pending.hold_approval(request_id.to_owned(), held);
                        return Err(e);
                    }
                };
                if d.decision == UserDecision::Deny {
                    self.translator.mark_declined(&reply.tool_call_id);
                } else {
                    st.approved_outside.extend(reply.outside.iter().cloned());
                }
                reply.answer(outcome)?;
            }
            Pending::Fs(ask) => match d.decision {
                UserDecision::Deny => {
                    let msg = format!("the user did not allow access to {}", ask.path.display());
                    ask.req.respond_error(INTERNAL_ERROR, msg)?;
                }
                _ => do_fs(ask.req, &ask.path, ask.op).await?,
            },
        }
        st.out.push(resolved(request_id, d.decision));
        Ok(())
    }

    /// The user's interrupt: `session/cancel` once, every held request answered `cancelled`,
    /// bounded by the grace period.
    fn interrupt(&mut self, st: &mut LoopState) {
        if st.interrupt_deadline.is_some() || self.translator.outcome().is_some() {
            return;
        }
        self.translator.set_stopping();
        let sent = self.cancel_notification();
        while !st.pending.is_empty() {
            st.pending.withdraw(|_| true, &mut st.out);
        }
        let grace = if sent.is_ok() {
            self.interrupt_grace
        } else {
            Duration::ZERO
        };
        st.interrupt_deadline = Some(Instant::now() + grace);
    }

    fn cancel_notification(&self) -> Result<(), EngineError> {
        self.agent
            .peer
            .notify("session/cancel", json!({ "sessionId": self.session_id }))
    }

    /// Send what is waiting, consecutive deltas of one item merged.
    fn flush(&mut self, st: &mut LoopState) {
        if !st.out.is_empty() {
            send_out(&mut st.out, &mut st.budget, &self.events);
        }
    }

    /// The run has its outcome: send everything, stop the agent, then the terminal event
    /// ("run ended" then means nothing of it is left running).
    async fn finish(mut self, mut st: LoopState) {
        st.pending.expire_all(&mut st.out);
        let terminal = send_out_but_terminal(&mut st.out, &mut st.budget, &self.events);
        self.agent.peer.close();
        self.agent.child.stop().await;
        if let Some(ev) = terminal {
            let _ = self.events.send(ev);
        }
    }
}

/// Carry out a file operation the agent asked for and answer it.
async fn do_fs(req: InboundRequest, real: &std::path::Path, op: FsOp) -> Result<(), EngineError> {
    let result = match op {
        FsOp::Read { line, limit } => read_text(real, line, limit)
            .await
            .map(|content| json!({ "content": content })),
        FsOp::Write { content } => write_text(real, &content).await.map(|()| Value::Null),
    };
    match result {
        Ok(v) => req.respond(v),
        Err(msg) => req.respond_error(INTERNAL_ERROR, msg),
    }
}
