//! One run (= one codex turn): a task that owns the translator, the held approval requests
//! and the interrupt timer. Everything about the run arrives on one channel (notifications,
//! server requests, the server's death, user commands), so there are no locks and no races
//! between e.g. a decision and the app-server dying.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Duration;

use agentdesk_protocol::codex::{
    method, ApprovalDecision, McpServerElicitationAction, McpServerElicitationRequestResponse,
    PermissionGrantScope, PermissionsRequestApprovalResponse, ServerRequest,
    ToolRequestUserInputAnswer, ToolRequestUserInputResponse, TurnInterruptParams,
};
use agentdesk_protocol::events::{
    AgentEvent, ApprovalKind, ApprovalOutcome, DiagnosticSource, Question, QuestionOption,
    UserDecision,
};
use serde_json::{json, Value};
use tokio::sync::{mpsc, oneshot};

use super::server::{Route, RunMsg, Server};
use super::translate::{diagnostic, TurnOutcome, TurnTranslator};
use crate::diagnostic::DiagnosticSource as RawSource;
use crate::error::EngineError;
use crate::limits::{DiagnosticBudget, RunLimits, Watchdog, ENGINE_SILENT};
use crate::process::ChildExit;
use crate::rpc::{InboundRequest, RpcPeer};

/// User commands for a running turn.
#[derive(Debug)]
pub(crate) enum Control {
    Interrupt,
    Resolve {
        request_id: String,
        decision: UserDecision,
        reply: oneshot::Sender<Result<(), EngineError>>,
    },
    Answer {
        request_id: String,
        answers: BTreeMap<String, Vec<String>>,
        reply: oneshot::Sender<Result<(), EngineError>>,
    },
}

#[derive(Debug)]
enum PendingKind {
    Command,
    FileChange,
    /// The permissions asked for, granted back as-is on approval.
    Permissions(Value),
    Question,
    Elicitation,
}

struct Pending {
    kind: PendingKind,
    req: InboundRequest,
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
        let mut pending: HashMap<String, Pending> = HashMap::new();
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
                    expire_all(&mut pending, &mut out);
                    self.translator.fail(
                        watchdog.message("Codex"),
                        Some(ENGINE_SILENT.to_owned()),
                        &mut out,
                    );
                    None
                }
                Wake::Abandoned => {
                    // A turn nobody records must not run on: stop it and release what it
                    // holds (dropped requests answer codex with an error).
                    self.send_interrupt();
                    expire_all(&mut pending, &mut out);
                    self.server.remove_route(&self.thread_id, &self.route);
                    return;
                }
            };
            // Anything routed to this turn (even a status or unknown message) proves codex is
            // alive; the user's answer restarts the clock after a wait.
            if matches!(
                msg,
                Some(
                    RunMsg::Notification(_)
                        | RunMsg::Request(..)
                        | RunMsg::Diagnostic(_)
                        | RunMsg::Control(Control::Resolve { .. } | Control::Answer { .. })
                )
            ) {
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
                    expire_all(&mut pending, &mut out);
                    let (msg, code) = crash_message(exit.as_ref());
                    self.translator.fail(msg, Some(code), &mut out);
                }
                Some(RunMsg::Control(Control::Interrupt))
                    if interrupt_deadline.is_none() && self.translator.outcome().is_none() =>
                {
                    interrupt_deadline = Some(tokio::time::Instant::now() + self.interrupt_grace);
                    self.send_interrupt();
                }
                // Already interrupting (or over): nothing more to do.
                Some(RunMsg::Control(Control::Interrupt)) => {}
                Some(RunMsg::Control(Control::Resolve {
                    request_id,
                    decision,
                    reply,
                })) => {
                    let _ = reply.send(resolve(&mut pending, &request_id, decision, &mut out));
                }
                Some(RunMsg::Control(Control::Answer {
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
                expire_all(&mut pending, &mut out);
            }
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

    /// `turn/interrupt`, answered in the background (the loop never awaits codex).
    fn send_interrupt(&self) {
        let peer = self.peer.clone();
        let params = TurnInterruptParams {
            thread_id: self.thread_id.clone(),
            turn_id: self.turn_id.clone(),
        };
        tokio::spawn(async move {
            let r: Result<Value, _> = peer.request_typed(method::TURN_INTERRUPT, &params).await;
            if let Err(e) = r {
                tracing::warn!(error = %e, "turn/interrupt failed");
            }
        });
    }

    fn on_request(
        &self,
        r: ServerRequest,
        req: InboundRequest,
        pending: &mut HashMap<String, Pending>,
        out: &mut Vec<AgentEvent>,
    ) {
        let request_id = uuid::Uuid::now_v7().to_string();
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
                    detail: json!({
                        "proposedExecpolicyAmendment": p.proposed_execpolicy_amendment,
                        "commandActions": p.command_actions,
                    }),
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
                        detail: json!({ "grantRoot": p.grant_root }),
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
                    detail: json!({ "permissions": p.permissions }),
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
                    detail: json!({ "serverName": p.server_name, "mode": p.mode, "url": p.url,
                                    "requestedSchema": p.requested_schema }),
                },
            ),
            ServerRequest::Unknown { .. } => {
                let _ = req.decline();
                return;
            }
        };
        pending.insert(request_id, Pending { kind, req });
        out.push(event);
    }
}

async fn sleep_until(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}

fn resolve(
    pending: &mut HashMap<String, Pending>,
    request_id: &str,
    decision: UserDecision,
    out: &mut Vec<AgentEvent>,
) -> Result<(), EngineError> {
    let not_pending = || EngineError::NotPending {
        request_id: request_id.to_owned(),
    };
    let Some(p) = pending.get(request_id) else {
        return Err(not_pending());
    };
    if matches!(p.kind, PendingKind::Question) {
        return Err(EngineError::Preflight(
            "this request is a question: answer it instead".into(),
        ));
    }
    let Some(Pending { kind, req }) = pending.remove(request_id) else {
        return Err(not_pending());
    };
    let wire = match decision {
        UserDecision::ApproveOnce => ApprovalDecision::Accept,
        UserDecision::ApproveForSession => ApprovalDecision::AcceptForSession,
        // `decline`, never `cancel`: a plain "no" must let the turn go on.
        UserDecision::Deny => ApprovalDecision::Decline,
    };
    let result = match kind {
        PendingKind::Command | PendingKind::FileChange => json!({ "decision": wire }),
        PendingKind::Permissions(asked) => {
            let (permissions, scope) = match decision {
                UserDecision::ApproveOnce => (asked, PermissionGrantScope::Turn),
                UserDecision::ApproveForSession => (asked, PermissionGrantScope::Session),
                UserDecision::Deny => (json!({}), PermissionGrantScope::Turn),
            };
            serde_json::to_value(PermissionsRequestApprovalResponse { permissions, scope })
                .unwrap_or(Value::Null)
        }
        PendingKind::Elicitation => {
            let action = match decision {
                UserDecision::Deny => McpServerElicitationAction::Decline,
                _ => McpServerElicitationAction::Accept,
            };
            serde_json::to_value(McpServerElicitationRequestResponse {
                action,
                content: None,
            })
            .unwrap_or(Value::Null)
        }
        PendingKind::Question => Value::Null,
    };
    req.respond(result)?;
    let outcome = match decision {
        UserDecision::ApproveOnce => ApprovalOutcome::ApprovedOnce,
        UserDecision::ApproveForSession => ApprovalOutcome::ApprovedForSession,
        UserDecision::Deny => ApprovalOutcome::Denied,
    };
    out.push(AgentEvent::ApprovalResolved {
        request_id: request_id.to_owned(),
        outcome,
    });
    Ok(())
}

fn answer(
    pending: &mut HashMap<String, Pending>,
    request_id: &str,
    answers: BTreeMap<String, Vec<String>>,
    out: &mut Vec<AgentEvent>,
) -> Result<(), EngineError> {
    match pending.get(request_id) {
        Some(Pending {
            kind: PendingKind::Question,
            ..
        }) => {}
        Some(_) => {
            return Err(EngineError::Preflight(
                "this request is an approval: decide it instead".into(),
            ))
        }
        None => {
            return Err(EngineError::NotPending {
                request_id: request_id.to_owned(),
            })
        }
    }
    let Some(p) = pending.remove(request_id) else {
        return Err(EngineError::NotPending {
            request_id: request_id.to_owned(),
        });
    };
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

/// Pending approvals expire (not "denied"): nobody answered.
fn expire_all(pending: &mut HashMap<String, Pending>, out: &mut Vec<AgentEvent>) {
    let mut ids: Vec<String> = pending.keys().cloned().collect();
    ids.sort();
    for id in ids {
        if let Some(p) = pending.remove(&id) {
            out.push(match p.kind {
                PendingKind::Question => AgentEvent::QuestionAnswered {
                    request_id: id,
                    answers: None,
                },
                _ => AgentEvent::ApprovalResolved {
                    request_id: id,
                    outcome: ApprovalOutcome::Expired,
                },
            });
            // Dropping the request answers -32603 if the connection still lives.
            drop(p.req);
        }
    }
}

fn crash_message(exit: Option<&ChildExit>) -> (String, String) {
    let mut msg = String::from("The Codex app-server stopped unexpectedly");
    if let Some(exit) = exit {
        msg.push_str(&format!(" ({})", exit.status));
        let tail = exit.stderr_tail.trim();
        if !tail.is_empty() {
            let tail: Vec<&str> = tail
                .lines()
                .rev()
                .take(10)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            msg.push_str(&format!(". Last output:\n{}", tail.join("\n")));
        }
    }
    msg.push_str(". It will be restarted for the next message.");
    (msg, "engine_crashed".to_owned())
}
