//! One run (= one codex turn): a task that owns the translator, the held approval requests
//! and the interrupt timer. Everything about the run arrives on one channel (notifications,
//! server requests, the server's death, user commands), so there are no locks and no races
//! between e.g. a decision and the app-server dying.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use agentdesk_protocol::approval_detail::{
    ApprovalDetail, CodexCommandDetail, CodexElicitationDetail, CodexFileChangeDetail,
    CodexPermissionsDetail,
};
use agentdesk_protocol::codex::requests::TurnInterrupt;
use agentdesk_protocol::codex::{
    CommandExecutionApprovalDecision, McpServerElicitationAction,
    McpServerElicitationRequestResponse, PermissionGrantScope, PermissionsRequestApprovalResponse,
    ServerRequest, ToolRequestUserInputAnswer, ToolRequestUserInputResponse, TurnInterruptParams,
};
use agentdesk_protocol::events::{
    AgentEvent, ApprovalKind, DiagnosticSource, FailureCode, Question, QuestionOption, UserDecision,
};
use serde_json::{json, Value};
use tokio::sync::mpsc;

use super::server::{Route, RunMsg, Server};
use super::translate::{diagnostic, TurnOutcome, TurnTranslator};
use crate::coalesce::coalesce_deltas;
use crate::control::{crash_message, resolved, sleep_until, Command, PendingRequests};
use crate::diagnostic::DiagnosticSource as RawSource;
use crate::error::EngineError;
use crate::limits::{DiagnosticBudget, RunLimits, Watchdog};
use crate::rpc::{InboundRequest, RpcPeer};
use crate::vocab::ApprovalDecision as Decision;

#[derive(Debug)]
enum PendingKind {
    Command,
    FileChange,
    /// The permissions asked for, granted back as-is on approval.
    Permissions(Value),
    Question,
    Elicitation,
}

/// A held server request: answered on the connection that asked.
struct Pending {
    kind: PendingKind,
    req: InboundRequest,
}

type Held = PendingRequests<Pending>;

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

impl RunTask {
    pub(crate) async fn run(mut self, mut rx: mpsc::UnboundedReceiver<RunMsg>) {
        let mut pending = Held::default();
        let mut interrupt_deadline: Option<tokio::time::Instant> = None;
        let mut watchdog = Watchdog::new(self.limits.inactivity_timeout);
        let mut budget = DiagnosticBudget::new(self.limits.max_diagnostics);
        let mut out = Vec::new();
        loop {
            // An interrupt has its own (shorter) bound; a pending request pauses the clock.
            let silence = match interrupt_deadline {
                Some(_) => None,
                None => watchdog.deadline(!pending.is_empty()),
            };
            let wake = tokio::select! {
                msg = rx.recv() => Wake::Msg(msg),
                _ = sleep_until(interrupt_deadline) => Wake::InterruptTimeout,
                _ = sleep_until(silence) => Wake::Silent,
                _ = self.events.closed() => Wake::Abandoned,
            };
            let msg = match wake {
                Wake::Msg(msg) => msg,
                Wake::InterruptTimeout => {
                    // Codex did not confirm the interrupt in time: end the run anyway.
                    out.push(diagnostic(
                        DiagnosticSource::Notice,
                        "Codex did not confirm the interrupt in time".into(),
                        None,
                    ));
                    self.translator.interrupted(&mut out);
                    None
                }
                Wake::Silent => {
                    // Failed, not interrupted: nobody asked for it. The turn is told to stop
                    // (the app-server is shared: other sessions keep it).
                    self.send_interrupt();
                    pending.expire_all(&mut out);
                    self.translator.fail(
                        watchdog.message("Codex"),
                        FailureCode::EngineSilent,
                        &mut out,
                    );
                    None
                }
                Wake::Abandoned => {
                    // A turn nobody records must not run on: stop it and release what it
                    // holds (dropped requests answer codex with an error).
                    self.send_interrupt();
                    pending.expire_all(&mut out);
                    self.server.remove_route(&self.thread_id, &self.route);
                    return;
                }
            };
            // Anything routed to this turn (even a status or unknown message) proves codex is
            // alive; the user's answer restarts the clock after a wait.
            if matches!(
                msg,
                Some(RunMsg::Notification(_) | RunMsg::Request(..) | RunMsg::Diagnostic(_))
            ) || matches!(&msg, Some(RunMsg::Control(c)) if c.is_answer())
            {
                watchdog.activity();
            }
            match msg {
                Some(RunMsg::Notification(n)) => self.translator.on_notification(n, &mut out),
                Some(RunMsg::Request(r, req)) => self.on_request(r, req, &mut pending, &mut out),
                Some(RunMsg::Diagnostic(d)) => {
                    let source = match d.source {
                        RawSource::Stderr => DiagnosticSource::Stderr,
                        _ => DiagnosticSource::UnknownMessage,
                    };
                    let raw = d.excerpt.map(Value::String);
                    out.push(diagnostic(source, d.detail, raw));
                }
                Some(RunMsg::ServerDied(exit)) => {
                    pending.expire_all(&mut out);
                    let msg = format!(
                        "{}. It will be restarted for the next message.",
                        crash_message("The Codex app-server", exit.as_ref(), "")
                    );
                    self.translator
                        .fail(msg, FailureCode::EngineCrashed, &mut out);
                }
                Some(RunMsg::Control(Command::Interrupt)) => {
                    self.interrupt(&mut interrupt_deadline);
                }
                Some(RunMsg::Control(Command::Resolve {
                    request_id,
                    decision,
                    reply,
                })) => {
                    let stop = decision.stop && decision.decision == UserDecision::Deny;
                    let r = resolve(&mut pending, &request_id, decision, &mut out);
                    if r.is_ok() && stop {
                        // Deny-and-stop is two steps for codex: the decline, then the interrupt.
                        self.interrupt(&mut interrupt_deadline);
                    }
                    let _ = reply.send(r);
                }
                Some(RunMsg::Control(Command::Answer {
                    request_id,
                    answers,
                    reply,
                })) => {
                    let _ = reply.send(answer(&mut pending, &request_id, answers, &mut out));
                }
                None => {}
            }
            if self.translator.outcome().is_some() {
                // Whatever is still held can no longer be answered usefully.
                pending.expire_all(&mut out);
            } else if !rx.is_empty() {
                // More is already routed to us (codex is ahead): keep the events, so that
                // consecutive deltas leave merged (see `coalesce`). Nothing waits for it.
                continue;
            }
            coalesce_deltas(&mut out);
            budget.apply(&mut out);
            for ev in out.drain(..) {
                let _ = self.events.send(ev);
            }
            if let Some(outcome) = self.translator.outcome() {
                if *outcome == TurnOutcome::Completed {
                    self.server.note_healthy().await;
                }
                self.server.remove_route(&self.thread_id, &self.route);
                return;
            }
        }
    }

    /// The user's interrupt: `turn/interrupt` once, bounded by the grace period.
    fn interrupt(&self, deadline: &mut Option<tokio::time::Instant>) {
        // Already interrupting (or over): nothing more to do.
        if deadline.is_none() && self.translator.outcome().is_none() {
            *deadline = Some(tokio::time::Instant::now() + self.interrupt_grace);
            self.send_interrupt();
        }
    }

    /// `turn/interrupt`, answered in the background (the loop never awaits codex).
    fn send_interrupt(&self) {
        let peer = self.peer.clone();
        let params = TurnInterruptParams {
            thread_id: self.thread_id.clone(),
            turn_id: self.turn_id.clone(),
        };
        tokio::spawn(async move {
            if let Err(e) = peer.call::<TurnInterrupt>(&params).await {
                tracing::warn!(error = %e, "turn/interrupt failed");
            }
        });
    }

    fn on_request(
        &self,
        r: ServerRequest,
        req: InboundRequest,
        pending: &mut Held,
        out: &mut Vec<AgentEvent>,
    ) {
        let request_id = Held::new_id();
        let (kind, event) = match r {
            ServerRequest::CommandExecutionRequestApproval(p) => (
                PendingKind::Command,
                AgentEvent::ApprovalRequested {
                    request_id: request_id.clone(),
                    kind: ApprovalKind::Command,
                    item_id: Some(p.item_id),
                    command: p.command,
                    cwd: p.cwd,
                    files: Vec::new(),
                    reason: p.reason,
                    detail: Some(Box::new(ApprovalDetail::CodexCommand(CodexCommandDetail {
                        proposed_execpolicy_amendment: p.proposed_execpolicy_amendment,
                        command_actions: p.command_actions,
                    }))),
                },
            ),
            ServerRequest::FileChangeRequestApproval(p) => {
                // The request has no paths: they come from the fileChange item of that id.
                let files = self.translator.file_change_files(&p.item_id);
                (
                    PendingKind::FileChange,
                    AgentEvent::ApprovalRequested {
                        request_id: request_id.clone(),
                        kind: ApprovalKind::FileChange,
                        item_id: Some(p.item_id),
                        command: None,
                        cwd: None,
                        files,
                        reason: p.reason,
                        detail: Some(Box::new(ApprovalDetail::CodexFileChange(
                            CodexFileChangeDetail {
                                grant_root: p.grant_root,
                            },
                        ))),
                    },
                )
            }
            ServerRequest::PermissionsRequestApproval(p) => (
                PendingKind::Permissions(p.permissions.clone()),
                AgentEvent::ApprovalRequested {
                    request_id: request_id.clone(),
                    kind: ApprovalKind::Permission,
                    item_id: Some(p.item_id),
                    command: None,
                    cwd: p.cwd,
                    files: Vec::new(),
                    reason: p.reason,
                    detail: Some(Box::new(ApprovalDetail::CodexPermissions(
                        CodexPermissionsDetail {
                            permissions: p.permissions,
                        },
                    ))),
                },
            ),
            ServerRequest::ToolRequestUserInput(p) => (
                PendingKind::Question,
                AgentEvent::QuestionAsked {
                    request_id: request_id.clone(),
                    item_id: Some(p.item_id),
                    questions: p
                        .questions
                        .into_iter()
                        .map(|q| Question {
                            id: q.id,
                            header: q.header,
                            question: q.question,
                            options: q
                                .options
                                .unwrap_or_default()
                                .into_iter()
                                .map(|o| QuestionOption {
                                    label: o.label,
                                    description: o.description,
                                })
                                .collect(),
                            allow_other: q.is_other,
                            secret: q.is_secret,
                        })
                        .collect(),
                },
            ),
            ServerRequest::McpServerElicitationRequest(p) => (
                PendingKind::Elicitation,
                AgentEvent::ApprovalRequested {
                    request_id: request_id.clone(),
                    kind: ApprovalKind::Tool,
                    item_id: None,
                    command: None,
                    cwd: None,
                    files: Vec::new(),
                    reason: p.message.clone(),
                    detail: Some(Box::new(ApprovalDetail::CodexElicitation(
                        CodexElicitationDetail {
                            server_name: p.server_name,
                            mode: p.mode,
                            url: p.url,
                            requested_schema: p.requested_schema,
                        },
                    ))),
                },
            ),
            ServerRequest::Unknown { .. } => {
                let _ = req.decline();
                return;
            }
        };
        let held = Pending { kind, req };
        if matches!(held.kind, PendingKind::Question) {
            pending.hold_question(request_id, held);
        } else {
            pending.hold_approval(request_id, held);
        }
        out.push(event);
    }
}

fn resolve(
    pending: &mut Held,
    request_id: &str,
    d: Decision,
    out: &mut Vec<AgentEvent>,
) -> Result<(), EngineError> {
    let Pending { kind, req } = pending.take_approval(request_id)?;
    let decision = d.decision;
    let wire = match decision {
        UserDecision::ApproveOnce => CommandExecutionApprovalDecision::Accept,
        UserDecision::ApproveForSession => CommandExecutionApprovalDecision::AcceptForSession,
        // `decline`, never `cancel`: a plain "no" must let the turn go on.
        UserDecision::Deny => CommandExecutionApprovalDecision::Decline,
    };
    let result = match kind {
        PendingKind::Command | PendingKind::FileChange => json!({ "decision": wire }),
        PendingKind::Permissions(asked) => {
            let (permissions, scope) = match decision {
                UserDecision::ApproveOnce => (asked, PermissionGrantScope::Turn),
                UserDecision::ApproveForSession => (asked, PermissionGrantScope::Session),
                UserDecision::Deny => (json!({}), PermissionGrantScope::Turn),
            };
            encode(&PermissionsRequestApprovalResponse { permissions, scope })?
        }
        PendingKind::Elicitation => {
            let action = match decision {
                UserDecision::Deny => McpServerElicitationAction::Decline,
                _ => McpServerElicitationAction::Accept,
            };
            encode(&McpServerElicitationRequestResponse {
                action,
                content: None,
            })?
        }
        // Held as a question: `take_approval` never hands one out.
        PendingKind::Question => Value::Null,
    };
    req.respond(result)?;
    out.push(resolved(request_id, decision));
    Ok(())
}

/// A response as JSON; a failure is an error, never a `null` sent to codex.
fn encode<T: serde::Serialize>(response: &T) -> Result<Value, EngineError> {
    serde_json::to_value(response).map_err(|source| EngineError::Encode {
        context: "approval response".into(),
        source,
    })
}

fn answer(
    pending: &mut Held,
    request_id: &str,
    answers: BTreeMap<String, Vec<String>>,
    out: &mut Vec<AgentEvent>,
) -> Result<(), EngineError> {
    let p = pending.take_question(request_id)?;
    let response = ToolRequestUserInputResponse {
        answers: answers
            .iter()
            .map(|(k, v)| (k.clone(), ToolRequestUserInputAnswer { answers: v.clone() }))
            .collect(),
    };
    p.req.respond_json(&response)?;
    out.push(AgentEvent::QuestionAnswered {
        request_id: request_id.to_owned(),
        answers: Some(answers),
    });
    Ok(())
}
