//! Codex's server → client requests while a turn runs: each becomes the event the app shows
//! and is held until the user decides or answers, then answered with codex's own typed
//! response (never hand-built JSON), on the connection that asked.

use std::collections::BTreeMap;

use agentdesk_protocol::approval_detail::{
    ApprovalDetail, CodexCommandDetail, CodexElicitationDetail, CodexFileChangeDetail,
    CodexPermissionsDetail,
};
use agentdesk_protocol::codex::{
    CommandExecutionApprovalDecision as ApprovalDecision, CommandExecutionRequestApprovalParams,
    CommandExecutionRequestApprovalResponse, FileChangeRequestApprovalParams,
    FileChangeRequestApprovalResponse, McpServerElicitationAction,
    McpServerElicitationRequestParams, McpServerElicitationRequestResponse, PermissionGrantScope,
    PermissionsRequestApprovalParams, PermissionsRequestApprovalResponse, ServerRequest,
    ToolRequestUserInputAnswer, ToolRequestUserInputParams, ToolRequestUserInputResponse,
};
use agentdesk_protocol::events::{
    AgentEvent, ApprovalFile, ApprovalKind, Question, QuestionOption, UserDecision,
};
use serde_json::Value;

use crate::control::{resolved, PendingRequests};
use crate::error::EngineError;
use crate::rpc::InboundRequest;
use crate::vocab::ApprovalDecision as Decision;

#[derive(Debug)]
pub(super) enum PendingKind {
    Command,
    FileChange,
    /// The permissions asked for, granted back as-is on approval.
    Permissions(Value),
    Question,
    Elicitation,
}

/// A held server request: answered on the connection that asked.
pub(super) struct Pending {
    kind: PendingKind,
    req: InboundRequest,
}

pub(super) type Held = PendingRequests<Pending>;

/// Hold a server request and announce it (`ApprovalRequested` / `QuestionAsked`); one this
/// build does not know is answered -32601 at once. `files` gives a file change's paths (its
/// request carries none: they are in the `fileChange` item of the same id).
pub(super) fn hold(
    r: ServerRequest,
    req: InboundRequest,
    files: impl FnOnce(&str) -> Vec<ApprovalFile>,
    pending: &mut Held,
    out: &mut Vec<AgentEvent>,
) {
    let request_id = Held::new_id();
    let id = request_id.clone();
    let (kind, event) = match r {
        ServerRequest::CommandExecutionRequestApproval(p) => command(id, p),
        ServerRequest::FileChangeRequestApproval(p) => {
            let files = files(&p.item_id);
            file_change(id, p, files)
        }
        ServerRequest::PermissionsRequestApproval(p) => permissions(id, p),
        ServerRequest::ToolRequestUserInput(p) => (PendingKind::Question, questions(id, p)),
        ServerRequest::McpServerElicitationRequest(p) => elicitation(id, p),
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

fn command(
    request_id: String,
    p: CommandExecutionRequestApprovalParams,
) -> (PendingKind, AgentEvent) {
    (
        PendingKind::Command,
        AgentEvent::ApprovalRequested {
            request_id,
            kind: ApprovalKind::Command,
            item_id: Some(p.item_id),
            command: p.command,
            cwd: p.cwd,
            files: Vec::new(),
            reason: p.reason,
            subagent: None,
            detail: Some(Box::new(ApprovalDetail::CodexCommand(CodexCommandDetail {
                proposed_execpolicy_amendment: p.proposed_execpolicy_amendment,
                command_actions: p.command_actions,
            }))),
        },
    )
}

fn file_change(
    request_id: String,
    p: FileChangeRequestApprovalParams,
    files: Vec<ApprovalFile>,
) -> (PendingKind, AgentEvent) {
    (
        PendingKind::FileChange,
        AgentEvent::ApprovalRequested {
            request_id,
            kind: ApprovalKind::FileChange,
            item_id: Some(p.item_id),
            command: None,
            cwd: None,
            files,
            reason: p.reason,
            subagent: None,
            detail: Some(Box::new(ApprovalDetail::CodexFileChange(
                CodexFileChangeDetail {
                    grant_root: p.grant_root,
                },
            ))),
        },
    )
}

fn permissions(
    request_id: String,
    p: PermissionsRequestApprovalParams,
) -> (PendingKind, AgentEvent) {
    (
        PendingKind::Permissions(p.permissions.clone()),
        AgentEvent::ApprovalRequested {
            request_id,
            kind: ApprovalKind::Permission,
            item_id: Some(p.item_id),
            command: None,
            cwd: p.cwd,
            files: Vec::new(),
            reason: p.reason,
            subagent: None,
            detail: Some(Box::new(ApprovalDetail::CodexPermissions(
                CodexPermissionsDetail {
                    permissions: p.permissions,
                },
            ))),
        },
    )
}

fn questions(request_id: String, p: ToolRequestUserInputParams) -> AgentEvent {
    AgentEvent::QuestionAsked {
        request_id,
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
    }
}

fn elicitation(
    request_id: String,
    p: McpServerElicitationRequestParams,
) -> (PendingKind, AgentEvent) {
    (
        PendingKind::Elicitation,
        AgentEvent::ApprovalRequested {
            request_id,
            kind: ApprovalKind::Tool,
            item_id: None,
            command: None,
            cwd: None,
            files: Vec::new(),
            reason: p.message.clone(),
            subagent: None,
            detail: Some(Box::new(ApprovalDetail::CodexElicitation(
                CodexElicitationDetail {
                    server_name: p.server_name,
                    mode: p.mode,
                    url: p.url,
                    requested_schema: p.requested_schema,
                },
            ))),
        },
    )
}

pub(super) fn resolve(
    pending: &mut Held,
    request_id: &str,
    d: Decision,
    out: &mut Vec<AgentEvent>,
) -> Result<(), EngineError> {
    let Pending { kind, req } = pending.take_approval(request_id)?;
    req.respond_json(&approval_response(kind, d.decision)?)?;
    out.push(resolved(request_id, d.decision));
    Ok(())
}

/// The `result` answering a held approval: codex's own response type for each request, each
/// serialised bare (untagged), so the wire is exactly that type's JSON.
#[derive(Debug, PartialEq, serde::Serialize)]
#[serde(untagged)]
enum ApprovalResponse {
    Command(CommandExecutionRequestApprovalResponse),
    FileChange(FileChangeRequestApprovalResponse),
    Permissions(PermissionsRequestApprovalResponse),
    Elicitation(McpServerElicitationRequestResponse),
}

fn approval_response(
    kind: PendingKind,
    decision: UserDecision,
) -> Result<ApprovalResponse, EngineError> {
    let wire = match decision {
        UserDecision::ApproveOnce => ApprovalDecision::Accept,
        UserDecision::ApproveForSession => ApprovalDecision::AcceptForSession,
        // `decline`, never `cancel`: a plain "no" must let the turn go on.
        UserDecision::Deny => ApprovalDecision::Decline,
    };
    Ok(match kind {
        PendingKind::Command => {
            ApprovalResponse::Command(CommandExecutionRequestApprovalResponse { decision: wire })
        }
        PendingKind::FileChange => {
            ApprovalResponse::FileChange(FileChangeRequestApprovalResponse { decision: wire })
        }
        PendingKind::Permissions(asked) => {
            let (permissions, scope) = match decision {
                UserDecision::ApproveOnce => (asked, PermissionGrantScope::Turn),
                UserDecision::ApproveForSession => (asked, PermissionGrantScope::Session),
                // Granting nothing is how codex is told no.
                UserDecision::Deny => (
                    Value::Object(Default::default()),
                    PermissionGrantScope::Turn,
                ),
            };
            ApprovalResponse::Permissions(PermissionsRequestApprovalResponse { permissions, scope })
        }
        PendingKind::Elicitation => {
            let action = match decision {
                UserDecision::Deny => McpServerElicitationAction::Decline,
                _ => McpServerElicitationAction::Accept,
            };
            ApprovalResponse::Elicitation(McpServerElicitationRequestResponse {
                action,
                content: None,
            })
        }
        // Held as a question: `take_approval` never hands one out.
        PendingKind::Question => {
            return Err(EngineError::Unsupported(
                "this request is a question: answer it instead".into(),
            ))
        }
    })
}

pub(super) fn answer(
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

#[cfg(test)]
mod response_tests {
    #![allow(clippy::unwrap_used)]
    use serde_json::json;

    use super::*;

    fn wire(kind: PendingKind, decision: UserDecision) -> Value {
        serde_json::to_value(approval_response(kind, decision).unwrap()).unwrap()
    }

    /// The typed responses send exactly what the adapter sent when it built them with
    /// `json!` (the literals below are those), for every kind and decision.
    #[test]
    fn typed_answers_keep_the_wire() {
        use UserDecision::{ApproveForSession, ApproveOnce, Deny};
        let kinds: [fn() -> PendingKind; 2] = [|| PendingKind::Command, || PendingKind::FileChange];
        for kind in kinds {
            assert_eq!(wire(kind(), ApproveOnce), json!({ "decision": "accept" }));
            assert_eq!(
                wire(kind(), ApproveForSession),
                json!({ "decision": "acceptForSession" })
            );
            assert_eq!(wire(kind(), Deny), json!({ "decision": "decline" }));
        }
        let asked =
            json!({ "fileSystem": { "write": ["/tmp/x"] }, "network": { "enabled": true } });
        let perms = || PendingKind::Permissions(asked.clone());
        assert_eq!(
            wire(perms(), ApproveOnce),
            json!({ "permissions": asked, "scope": "turn" })
        );
        assert_eq!(
            wire(perms(), ApproveForSession),
            json!({ "permissions": asked, "scope": "session" })
        );
        assert_eq!(
            wire(perms(), Deny),
            json!({ "permissions": {}, "scope": "turn" })
        );
        let elicit = || PendingKind::Elicitation;
        assert_eq!(wire(elicit(), ApproveOnce), json!({ "action": "accept" }));
        assert_eq!(
            wire(elicit(), ApproveForSession),
            json!({ "action": "accept" })
        );
        assert_eq!(wire(elicit(), Deny), json!({ "action": "decline" }));
        assert!(approval_response(PendingKind::Question, ApproveOnce).is_err());
    }
}
