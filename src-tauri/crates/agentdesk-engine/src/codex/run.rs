//! One run (= one codex turn): a task that owns the translator, the held approval requests
//! and the interrupt timer. Everything about the run arrives on one channel (notifications,
//! server requests, the server's death, user commands), so there are no locks and no races
//! between e.g. a decision and the app-server dying.

use std::sync::Arc;
use std::time::Duration;

use agentdesk_protocol::codex::requests::TurnInterrupt;
use agentdesk_protocol::codex::TurnInterruptParams;
use agentdesk_protocol::events::{AgentEvent, DiagnosticSource, FailureCode, UserDecision};
use serde_json::Value;
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::held::{answer, hold, resolve, Held};
use super::options::ServerKey;
use super::server::{Route, RunMsg, Server};
use super::translate::{diagnostic, TurnOutcome, TurnTranslator};
use crate::coalesce::send_out;
use crate::control::{crash_message, sleep_until, Command};
use crate::diagnostic::DiagnosticSource as RawSource;
use crate::limits::{DiagnosticBudget, RunLimits, Watchdog};
use crate::rpc::RpcPeer;
use agentdesk_protocol::sync::lock;
use std::collections::HashMap;
use std::sync::Mutex;

/// A run's own app-server (see `CodexProfile::own_server`), stopped when the run ends.
pub(crate) struct Release {
    pub servers: Arc<Mutex<HashMap<ServerKey, Arc<Server>>>>,
    pub key: ServerKey,
}

pub(crate) struct RunTask {
    pub server: Arc<Server>,
    pub peer: RpcPeer,
    pub thread_id: String,
    pub turn_id: String,
    pub route: Route,
    pub translator: TurnTranslator,
    pub interrupt_grace: Duration,
    pub limits: RunLimits,
    pub events: mpsc::UnboundedSender<AgentEvent>,
    pub release: Option<Release>,
}

/// What woke the run task up besides a message.
// Lives for one loop iteration on the stack; boxing the message would allocate per message.
#[allow(clippy::large_enum_variant)]
enum Wake {
    Msg(Option<RunMsg>),
    InterruptTimeout,
    /// Codex said nothing for the inactivity limit while not waiting for the user.
    Silent,
    /// The events receiver is gone: nobody records this run any more.
    Abandoned,
}

/// What the run loop keeps between messages.
struct Turn {
    pending: Held,
    /// Set by the interrupt: the run ends by then even if codex never confirms it.
    interrupt_deadline: Option<Instant>,
    watchdog: Watchdog,
    budget: DiagnosticBudget,
    /// Events not sent yet (kept while codex is ahead, so deltas merge).
    out: Vec<AgentEvent>,
}

impl RunTask {
    pub(crate) async fn run(mut self, mut rx: mpsc::UnboundedReceiver<RunMsg>) {
        let mut t = Turn {
            pending: Held::default(),
            interrupt_deadline: None,
            watchdog: Watchdog::new(self.limits.inactivity_timeout),
            budget: DiagnosticBudget::new(self.limits.max_diagnostics),
            out: Vec::new(),
        };
        loop {
            let msg = match self.next_wake(&mut rx, &t).await {
                Wake::Msg(msg) => msg,
                Wake::InterruptTimeout => {
                    // Codex did not confirm the interrupt in time: end the run anyway.
                    t.out.push(diagnostic(
                        DiagnosticSource::Notice,
                        "Codex did not confirm the interrupt in time".into(),
                        None,
                    ));
                    self.translator.interrupted(&mut t.out);
                    None
                }
                Wake::Silent => {
                    // Failed, not interrupted: nobody asked for it. The turn is told to stop
                    // (the app-server is shared: other sessions keep it).
                    self.send_interrupt();
                    t.pending.expire_all(&mut t.out);
                    let message = t.watchdog.message("Codex");
                    self.translator
                        .fail(message, FailureCode::EngineSilent, &mut t.out);
                    None
                }
                Wake::Abandoned => {
                    // A turn nobody records must not run on: stop it and release what it
                    // holds (dropped requests answer codex with an error).
                    self.send_interrupt();
                    t.pending.expire_all(&mut t.out);
                    self.server.remove_route(&self.thread_id, &self.route);
                    return;
                }
            };
            if let Some(msg) = msg {
                self.on_msg(msg, &mut t);
            }
            if self.translator.outcome().is_some() {
                // Whatever is still held can no longer be answered usefully.
                t.pending.expire_all(&mut t.out);
            } else if !rx.is_empty() {
                // More is already routed to us (codex is ahead): keep the events, so that
                // consecutive deltas leave merged (see `coalesce`). Nothing waits for it.
                continue;
            }
            if self.flush(&mut t).await {
                return;
            }
        }
    }

    /// Wait for the next message or deadline. An interrupt has its own (shorter) bound; a
    /// pending request pauses the inactivity clock.
    async fn next_wake(&self, rx: &mut mpsc::UnboundedReceiver<RunMsg>, t: &Turn) -> Wake {
        let silence = match t.interrupt_deadline {
            Some(_) => None,
            None => t.watchdog.deadline(!t.pending.is_empty()),
        };
        tokio::select! {
            msg = rx.recv() => Wake::Msg(msg),
            _ = sleep_until(t.interrupt_deadline) => Wake::InterruptTimeout,
            _ = sleep_until(silence) => Wake::Silent,
            _ = self.events.closed() => Wake::Abandoned,
        }
    }

    fn on_msg(&mut self, msg: RunMsg, t: &mut Turn) {
        // Anything routed to this turn (even a status or unknown message) proves codex is
        // alive; the user's answer restarts the clock after a wait.
        let alive = match &msg {
            RunMsg::Control(c) => c.is_answer(),
            RunMsg::Notification(_) | RunMsg::Request(..) | RunMsg::Diagnostic(_) => true,
            RunMsg::ServerDied(_) => false,
        };
        if alive {
            t.watchdog.activity();
        }
        match msg {
            RunMsg::Notification(n) => match n.thread_id() {
                Some(thread)
                    if thread != self.thread_id && self.translator.is_subagent_thread(thread) =>
                {
                    let thread = thread.to_owned();
                    self.translator
                        .on_subagent_notification(&thread, n, &mut t.out)
                }
                _ => self.translator.on_notification(n, &mut t.out),
            },
            RunMsg::Request(r, req) => {
                // A sub-agent's request names it.
                let subagent = r
                    .thread_id()
                    .filter(|thread| *thread != self.thread_id)
                    .and_then(|thread| self.translator.subagent_name(thread));
                let from = t.out.len();
                let translator = &self.translator;
                let files = |item_id: &str| translator.file_change_files(item_id);
                hold(r, req, files, &mut t.pending, &mut t.out);
                if let Some(name) = subagent {
                    for ev in &mut t.out[from..] {
                        if let AgentEvent::ApprovalRequested { subagent, .. } = ev {
                            *subagent = Some(name.clone());
                        }
                    }
                }
            }
            RunMsg::Diagnostic(d) => {
                let source = match d.source {
                    RawSource::Stderr => DiagnosticSource::Stderr,
                    _ => DiagnosticSource::UnknownMessage,
                };
                let raw = d.excerpt.map(Value::String);
                t.out.push(diagnostic(source, d.detail, raw));
            }
            RunMsg::ServerDied(exit) => {
                t.pending.expire_all(&mut t.out);
                let msg = format!(
                    "{}. It will be restarted for the next message.",
                    crash_message("The Codex app-server", exit.as_ref(), "")
                );
                self.translator
                    .fail(msg, FailureCode::EngineCrashed, &mut t.out);
            }
            RunMsg::Control(Command::Interrupt) if self.translator.awaiting_subagents() => {
                // Its own turn is over; only sub-agents work: stop them, end the run now.
                self.interrupt_subagents();
                t.pending.expire_all(&mut t.out);
                self.translator.interrupted(&mut t.out);
            }
            RunMsg::Control(Command::Interrupt) => self.interrupt(&mut t.interrupt_deadline),
            RunMsg::Control(Command::Resolve {
                request_id,
                decision,
                reply,
            }) => {
                let stop = decision.stop && decision.decision == UserDecision::Deny;
                let r = resolve(&mut t.pending, &request_id, decision, &mut t.out);
                if r.is_ok() && stop {
                    // Deny-and-stop is two steps for codex: the decline, then the interrupt.
                    self.interrupt(&mut t.interrupt_deadline);
                }
                let _ = reply.send(r);
            }
            RunMsg::Control(Command::Answer {
                request_id,
                answers,
                reply,
            }) => {
                let _ = reply.send(answer(&mut t.pending, &request_id, answers, &mut t.out));
            }
        }
    }

    /// Send what is collected; true when the turn is over (its route is then removed).
    async fn flush(&self, t: &mut Turn) -> bool {
        if let Some(release) = self
            .release
            .as_ref()
            .filter(|_| self.translator.outcome().is_some())
        {
            // Before the end is told: the session's next run (or the terminal) may resume
            // the thread at once, and the lock is held until this process is gone.
            lock(&release.servers).remove(&release.key);
            self.server.shutdown().await;
        }
        send_out(&mut t.out, &mut t.budget, &self.events);
        let Some(outcome) = self.translator.outcome() else {
            return false;
        };
        if *outcome == TurnOutcome::Completed {
            self.server.note_healthy().await;
        }
        self.server.remove_route(&self.thread_id, &self.route);
        true
    }

    /// The user's interrupt: `turn/interrupt` once, bounded by the grace period.
    fn interrupt(&self, deadline: &mut Option<Instant>) {
        // Already interrupting (or over): nothing more to do.
        if deadline.is_none() && self.translator.outcome().is_none() {
            *deadline = Some(Instant::now() + self.interrupt_grace);
            self.send_interrupt();
        }
    }

    /// `turn/interrupt` of the run's turn and of its sub-agents', answered in the background
    /// (the loop never awaits codex).
    fn send_interrupt(&self) {
        self.interrupt_turn(self.thread_id.clone(), self.turn_id.clone());
        self.interrupt_subagents();
    }

    fn interrupt_subagents(&self) {
        for (thread, turn) in self.translator.subagent_turns() {
            self.interrupt_turn(thread, turn);
        }
    }

    fn interrupt_turn(&self, thread_id: String, turn_id: String) {
        let peer = self.peer.clone();
        let params = TurnInterruptParams { thread_id, turn_id };
        tokio::spawn(async move {
            if let Err(e) = peer.call::<TurnInterrupt>(&params).await {
                tracing::warn!(error = %e, "turn/interrupt failed");
            }
        });
    }
}
