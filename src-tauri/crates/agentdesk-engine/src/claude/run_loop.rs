//! The Claude run task's loop: one `select!` over stdout, stderr, user commands and the
//! timers (see `run`), one method per kind of step, and the batching of what goes out.
//!
//! Events leave in batches: while lines of the current read are still waiting
//! ([`InboundRx::has_buffered`]), the events they produce are kept, and consecutive deltas of
//! one item merge into one ([`send_out`]). Nothing waits for it: the lines are already
//! here, the engine is ahead of us. A fast stream then costs everything downstream (the
//! recorder, the live views, the terminal) one event per read instead of one per line, and a
//! slow one (a delta per read) is passed on exactly as it came.

use agentdesk_protocol::claude::{ControlRequestBody, InterruptRequest};
use agentdesk_protocol::events::{AgentEvent, DiagnosticSource, FailureCode};
use serde_json::Value;
use tokio::time::Instant;

use super::run::{Control, Held, RunTask};
use super::wire::ClaudeLine;
use crate::coalesce::{send_out, send_out_but_terminal};
use crate::control::{crash_message, sleep_until, Command};
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::limits::{DiagnosticBudget, RunLimits, Watchdog};
use crate::transport::Inbound;

/// What the loop carries from one step to the next.
struct LoopState {
    pending: Held,
    interrupt_deadline: Option<Instant>,
    watchdog: Watchdog,
    budget: DiagnosticBudget,
    /// While only the CLI's report turn is awaited (see `REPORT_GRACE`).
    report_deadline: Option<Instant>,
    /// Events not yet sent.
    out: Vec<AgentEvent>,
}

impl LoopState {
    fn new(limits: &RunLimits) -> Self {
        Self {
            pending: Held::default(),
            interrupt_deadline: None,
            watchdog: Watchdog::new(limits.inactivity_timeout),
            budget: DiagnosticBudget::new(limits.max_diagnostics),
            report_deadline: None,
            out: Vec::new(),
        }
    }
}

/// How long a run waits, after its last turn with no subagent working, for the turn in which
/// the CLI reports the subagents that ended (it starts one at once on 2.1.328).
const REPORT_GRACE: std::time::Duration = std::time::Duration::from_secs(30);

enum Step {
    Stdout(Option<Inbound<ClaudeLine>>),
    Stderr(Diagnostic),
    // Boxed: a control request (with its tool input) is far larger than the other steps.
    Control(Box<Control>),
    InterruptTimeout,
    /// The report turn did not begin in time: the run is complete.
    NoReport,
    /// The CLI said nothing for the inactivity limit while not waiting for the user.
    Silent,
    Abandoned,
}

impl RunTask {
    pub(crate) async fn run(mut self) {
        let mut st = LoopState::new(&self.limits);
        for line in std::mem::take(&mut self.session.backlog) {
            self.on_line(line, &mut st).await;
        }
        loop {
            if self.translator.outcome().is_none() {
                match self.next_step(&mut st).await {
                    Step::Abandoned => {
                        // Nobody listens any more: stop the CLI, leave nothing running.
                        self.session.child.stop().await;
                        return;
                    }
                    step => self.on_step(step, &mut st).await,
                }
            }
            if self.translator.outcome().is_some() {
                self.finish(st).await;
                return;
            }
            if !self.session.inbound.has_buffered() {
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
        st.report_deadline = match (self.translator.awaiting_report(), st.report_deadline) {
            (false, _) => None,
            (true, Some(d)) => Some(d),
            (true, None) => Some(Instant::now() + REPORT_GRACE),
        };
        let step = tokio::select! {
            item = self.session.inbound.recv() => Step::Stdout(item),
            Some(d) = self.session.stderr.recv() => Step::Stderr(d),
            Some(c) = self.control.recv() => Step::Control(Box::new(c)),
            _ = sleep_until(st.interrupt_deadline) => Step::InterruptTimeout,
            _ = sleep_until(st.report_deadline) => Step::NoReport,
            _ = sleep_until(silence) => Step::Silent,
            _ = self.events.closed() => Step::Abandoned,
        };
        // Any line (even a keep-alive or garbage) proves the CLI is alive; the user's answer
        // restarts the clock after a wait.
        if matches!(step, Step::Stdout(_) | Step::Stderr(_))
            || matches!(&step, Step::Control(c) if matches!(c.as_ref(), Control::Command(c) if c.is_answer()))
        {
            st.watchdog.activity();
        }
        step
    }

    async fn on_step(&mut self, step: Step, st: &mut LoopState) {
        match step {
            Step::Stdout(Some(Inbound::Message(line))) => self.on_line(line, st).await,
            Step::Stdout(Some(Inbound::Diagnostic(d))) => self.on_bad_line(d, st),
            Step::Stdout(None) => {
                let exit = self.session.exit_after_eof().await;
                st.pending.expire_all(&mut st.out);
                let msg = crash_message(
                    "Claude Code",
                    exit.as_ref(),
                    &self.session.child.stderr_tail(),
                );
                self.translator
                    .fail(msg, FailureCode::EngineCrashed, &mut st.out);
            }
            Step::Stderr(d) => {
                self.translator
                    .notice(DiagnosticSource::Stderr, d.detail, None, &mut st.out)
            }
            Step::Control(c) => self.on_control(*c, st),
            Step::InterruptTimeout => {
                self.translator.notice(
                    DiagnosticSource::Notice,
                    "Claude Code did not confirm the interrupt in time; it was stopped".to_owned(),
                    None,
                    &mut st.out,
                );
                st.pending.expire_all(&mut st.out);
                self.translator.interrupted(&mut st.out);
            }
            Step::NoReport => self.translator.completed_without_report(&mut st.out),
            Step::Silent => {
                // Failed, not interrupted: nobody asked for it. The stop ladder in `finish`
                // ends the process (a hung CLI ignores an interrupt anyway).
                st.pending.expire_all(&mut st.out);
                self.translator.fail(
                    st.watchdog.message("Claude Code"),
                    FailureCode::EngineSilent,
                    &mut st.out,
                );
            }
            // Handled by the loop itself (it ends the task).
            Step::Abandoned => {}
        }
    }

    /// A stdout line: deltas straight to the translator, full messages through `on_message`
    /// (control requests, approvals, diffs).
    async fn on_line(&mut self, line: ClaudeLine, st: &mut LoopState) {
        match line {
            ClaudeLine::Message(msg) => self.on_message(*msg, &mut st.pending, &mut st.out).await,
            delta @ ClaudeLine::Delta { .. } => self.translator.on_line(delta, &mut st.out),
        }
    }

    /// A stdout line the transport could not use.
    fn on_bad_line(&mut self, d: Diagnostic, st: &mut LoopState) {
        let lost_result = skipped_result(&d);
        self.translator.notice(
            DiagnosticSource::UnknownMessage,
            d.detail,
            d.excerpt.map(Value::String),
            &mut st.out,
        );
        if let Some(len) = lost_result {
            // Without its result the CLI would wait for more input forever.
            st.pending.expire_all(&mut st.out);
            self.translator.fail(
                format!("Claude Code's final result ({len} bytes) was over the line size limit and could not be read; the run was ended"),
                FailureCode::OversizedResult,
                &mut st.out,
            );
        }
    }

    fn on_control(&mut self, control: Control, st: &mut LoopState) {
        match control {
            Control::Command(Command::Interrupt) => {
                if self.translator.between_turns() {
                    // No turn to interrupt: only subagents work. The run ends now, and
                    // stopping the CLI (in `finish`) stops them.
                    self.translator.set_stopping();
                    st.pending.expire_all(&mut st.out);
                    self.translator.interrupted(&mut st.out);
                } else if st.interrupt_deadline.is_none() {
                    self.translator.set_stopping();
                    let sent = self
                        .session
                        .request(ControlRequestBody::Interrupt(InterruptRequest::default()));
                    let grace = if sent.is_ok() {
                        self.interrupt_grace
                    } else {
                        std::time::Duration::ZERO
                    };
                    st.interrupt_deadline = Some(Instant::now() + grace);
                }
            }
            Control::Request(body) => {
                if let Err(e) = self.session.request(body) {
                    tracing::debug!(error = %e, "could not send a control request");
                }
            }
            Control::Command(Command::Resolve {
                request_id,
                decision,
                reply,
            }) => {
                let r = self.resolve(&mut st.pending, &request_id, decision, &mut st.out);
                if r.is_ok() && self.translator.stopping() && st.interrupt_deadline.is_none() {
                    // Deny-and-stop: the CLI ends the turn itself; bound the wait anyway.
                    st.interrupt_deadline = Some(Instant::now() + self.interrupt_grace);
                }
                let _ = reply.send(r);
            }
            Control::Command(Command::Answer {
                request_id,
                answers,
                reply,
            }) => {
                let r = self.answer(&mut st.pending, &request_id, answers, &mut st.out);
                let _ = reply.send(r);
            }
        }
    }

    /// Send what is waiting, consecutive deltas of one item merged.
    fn flush(&mut self, st: &mut LoopState) {
        if !st.out.is_empty() {
            send_out(&mut st.out, &mut st.budget, &self.events);
        }
    }

    /// The run has its outcome: send everything, stop the CLI, then the terminal event.
    async fn finish(mut self, mut st: LoopState) {
        st.pending.expire_all(&mut st.out);
        let terminal = send_out_but_terminal(&mut st.out, &mut st.budget, &self.events);
        // stdin closes only now (closing it earlier fails pending permissions).
        self.session.writer.close();
        self.session.child.stop().await;
        if let Some(ev) = terminal {
            let _ = self.events.send(ev);
        }
    }
}

/// The size of a skipped oversized line that was the CLI's `result` (recognised by its head:
/// the CLI writes `type` first), the one message a run cannot end without.
fn skipped_result(d: &Diagnostic) -> Option<usize> {
    let DiagnosticKind::OversizedLine { len, .. } = d.kind else {
        return None;
    };
    let head = d.excerpt.as_deref()?.trim_start();
    let head: String = head
        .chars()
        .filter(|c| !c.is_whitespace())
        .take(20)
        .collect();
    head.starts_with(r#"{"type":"result""#).then_some(len)
}
