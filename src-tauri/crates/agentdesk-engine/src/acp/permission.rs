//! What the run holds for the user and how a decision reaches the agent:
//! `session/request_permission` → `approval.requested` (and back to one of the options the
//! agent offered, chosen by its `kind`), and `fs/*` requests for paths outside the workspace
//! (asked as a file change, reason "outside the workspace").
//!
//! A held permission request that ends without a decision (the run ends, the user
//! interrupts) answers `{outcome: {outcome: "cancelled"}}` by itself when dropped, as ACP
//! requires of a client; a held `fs/*` request answers with an error (the agent sees a failed
//! read or write).

use std::path::{Path, PathBuf};

use agentdesk_protocol::acp::{
    AcpToolCallDetail, PermissionOption, PermissionOptionKind, RequestPermissionOutcome,
    RequestPermissionRequest, RequestPermissionResponse, ToolCallContent, ToolCallUpdate,
    ToolKind as AcpToolKind,
};
use agentdesk_protocol::approval_detail::ApprovalDetail;
use agentdesk_protocol::events::{
    AgentEvent, ApprovalFile, ApprovalKind, FileChangeKind, UserDecision,
};
use serde_json::Value;

use super::translate::{acp_kind_name, diff_kind, diff_text};
use super::workspace::{resolve, Workspace};
use crate::control::PendingRequests;
use crate::error::EngineError;
use crate::rpc::InboundRequest;

/// A held `session/request_permission`: answered `cancelled` when dropped unanswered.
pub(crate) struct PermissionReply {
    req: Option<InboundRequest>,
    pub options: Vec<PermissionOption>,
    pub tool_call_id: String,
    /// The paths outside the workspace the request showed (resolved): approving it covers
    /// the `fs/*` requests for them.
    pub outside: Vec<PathBuf>,
}

impl PermissionReply {
    pub fn new(req: InboundRequest, p: &RequestPermissionRequest, outside: Vec<PathBuf>) -> Self {
        Self {
            req: Some(req),
            options: p.options.clone(),
            tool_call_id: p.tool_call.tool_call_id.clone(),
            outside,
        }
    }

    /// Answer with `outcome`.
    pub fn answer(mut self, outcome: RequestPermissionOutcome) -> Result<(), EngineError> {
        match self.req.take() {
            Some(req) => req.respond_json(&RequestPermissionResponse { outcome }),
            None => Ok(()),
        }
    }
}

impl Drop for PermissionReply {
    fn drop(&mut self) {
        if let Some(req) = self.req.take() {
            let cancelled = RequestPermissionResponse {
                outcome: RequestPermissionOutcome::Cancelled,
            };
            if let Err(e) = req.respond_json(&cancelled) {
                tracing::debug!(error = %e, "could not cancel a permission request");
            }
        }
    }
}

/// A file operation outside the workspace, waiting for the user.
#[derive(Debug)]
pub(crate) enum FsOp {
    Read {
        line: Option<u32>,
        limit: Option<u32>,
    },
    Write {
        content: String,
    },
}

pub(crate) struct FsAsk {
    pub req: InboundRequest,
    /// Where the path really points (as written when that cannot be told).
    pub path: PathBuf,
    pub op: FsOp,
}

pub(crate) enum Pending {
    Permission(PermissionReply),
    Fs(FsAsk),
}

pub(crate) type Held = PendingRequests<Pending>;

/// The option answering `decision`, by the kinds the agent offered: approve once →
/// `allow_once`; approve for the session → `allow_always` when offered and `always_ok` (the
/// preset's quirk), else `allow_once` (Agent Desk's queue then answers exact repeats); deny
/// → `reject_once` (else `reject_always`, else `cancelled`: the tool does not run either way).
pub fn choose_option(
    options: &[PermissionOption],
    decision: UserDecision,
    always_ok: bool,
) -> Result<RequestPermissionOutcome, EngineError> {
    let find = |kind: PermissionOptionKind| {
        options
            .iter()
            .find(|o| o.kind == kind)
            .map(|o| RequestPermissionOutcome::Selected {
                option_id: o.option_id.clone(),
            })
    };
    let chosen = match decision {
        UserDecision::ApproveOnce => find(PermissionOptionKind::AllowOnce),
        UserDecision::ApproveForSession => always_ok
            .then(|| find(PermissionOptionKind::AllowAlways))
            .flatten()
            .or_else(|| find(PermissionOptionKind::AllowOnce)),
        UserDecision::Deny => find(PermissionOptionKind::RejectOnce)
            .or_else(|| find(PermissionOptionKind::RejectAlways))
            .or(Some(RequestPermissionOutcome::Cancelled)),
    };
    chosen.ok_or_else(|| {
        let offered: Vec<&str> = options.iter().map(|o| o.name.as_str()).collect();
        EngineError::Unsupported(format!(
            "the agent offers no way to allow this only once (its options: {}); deny it, or approve it for the session",
            offered.join(", ")
        ))
    })
}

/// `approval.requested` for a permission request, and the paths it touches outside the
/// workspace (resolved). The permission is the gate that counts: opencode writes a file
/// itself when its `fs/write_text_file` is refused, so a request touching a path outside the
/// workspace says so in its `reason`, with every path in `files` (absolute) for the queue's
/// rules, and an approval here covers the `fs/*` requests for those paths that follow.
pub fn permission_event(
    request_id: &str,
    p: &RequestPermissionRequest,
    cwd: &Path,
    workspace: &Workspace,
) -> (AgentEvent, Vec<PathBuf>) {
    let t = &p.tool_call;
    let kind = match t.kind {
        Some(AcpToolKind::Execute) => ApprovalKind::Command,
        Some(AcpToolKind::Edit | AcpToolKind::Delete | AcpToolKind::Move) => {
            ApprovalKind::FileChange
        }
        _ => ApprovalKind::Tool,
    };
    let raw_input = t.raw_input.clone().unwrap_or(Value::Null);
    let command = (kind == ApprovalKind::Command)
        .then(|| {
            raw_input
                .get("command")
                .and_then(Value::as_str)
                .map(str::to_owned)
                .or_else(|| t.title.clone())
        })
        .flatten();
    // A command's locations are where it runs, not files it changes: the queue judges the
    // command itself.
    let files = if kind == ApprovalKind::Command {
        Vec::new()
    } else {
        request_files(t, &raw_input, cwd)
    };
    let outside: Vec<PathBuf> = files
        .iter()
        .filter(|f| workspace.inside(&f.path).is_none())
        .map(|f| resolve(Path::new(&f.path), cwd).unwrap_or_else(|| PathBuf::from(&f.path)))
        .collect();
    let reason = if outside.is_empty() {
        t.title.clone()
    } else {
        let paths: Vec<String> = outside.iter().map(|p| p.display().to_string()).collect();
        let title = t
            .title
            .as_deref()
            .map(|t| format!(" ({t})"))
            .unwrap_or_default();
        Some(format!(
            "outside the workspace: {}{title}",
            paths.join(", ")
        ))
    };
    let detail = AcpToolCallDetail {
        tool_call_id: t.tool_call_id.clone(),
        title: t.title.clone(),
        tool_kind: t.kind.as_ref().map(acp_kind_name),
        raw_input,
        offered: p
            .options
            .iter()
            .map(|o| match serde_json::to_value(&o.kind) {
                Ok(Value::String(s)) => s,
                _ => String::new(),
            })
            .collect(),
    };
    let event = AgentEvent::ApprovalRequested {
        request_id: request_id.to_owned(),
        kind,
        item_id: Some(t.tool_call_id.clone()),
        command,
        cwd: Some(cwd.display().to_string()),
        files,
        reason,
        subagent: None,
        detail: Some(Box::new(ApprovalDetail::AcpToolCall(detail))),
    };
    (event, outside)
}

/// Every path a request touches, absolute: its `diff` blocks (with the change), then its
/// locations and the path keys of its raw input (`filePath`, `filepath`, `path`, `file_path`).
fn request_files(t: &ToolCallUpdate, raw_input: &Value, cwd: &Path) -> Vec<ApprovalFile> {
    let mut files: Vec<ApprovalFile> = t
        .content
        .iter()
        .flatten()
        .filter_map(|c| match c {
            ToolCallContent::Diff {
                path,
                old_text,
                new_text,
                meta,
            } => {
                let kind = diff_kind(old_text.as_deref(), meta.as_ref());
                Some(ApprovalFile {
                    path: absolute(path, cwd),
                    kind,
                    diff: diff_text(path, old_text.as_deref(), new_text, kind),
                })
            }
            _ => None,
        })
        .collect();
    let located = t.locations.iter().flatten().map(|l| l.path.as_str());
    let keyed = ["filePath", "filepath", "path", "file_path"]
        .into_iter()
        .filter_map(|k| raw_input.get(k).and_then(Value::as_str));
    for path in located.chain(keyed) {
        let path = absolute(path, cwd);
        if !files.iter().any(|f| f.path == path) {
            files.push(ApprovalFile {
                path,
                kind: FileChangeKind::Update,
                diff: String::new(),
            });
        }
    }
    files
}

/// `path` as an absolute path (a relative one is taken from the workspace).
fn absolute(path: &str, cwd: &Path) -> String {
    if Path::new(path).is_absolute() {
        path.to_owned()
    } else {
        cwd.join(path).display().to_string()
    }
}

/// `approval.requested` for a file operation outside the workspace.
pub fn fs_event(
    request_id: &str,
    path: &Path,
    op: &FsOp,
    planned: Option<(FileChangeKind, String)>,
    cwd: &Path,
) -> AgentEvent {
    let (verb, (kind, diff)) = match op {
        FsOp::Read { .. } => ("read", (FileChangeKind::Update, String::new())),
        FsOp::Write { .. } => (
            "write",
            planned.unwrap_or((FileChangeKind::Update, String::new())),
        ),
    };
    AgentEvent::ApprovalRequested {
        request_id: request_id.to_owned(),
        kind: ApprovalKind::FileChange,
        item_id: None,
        command: None,
        cwd: Some(cwd.display().to_string()),
        files: vec![ApprovalFile {
            path: path.display().to_string(),
            kind,
            diff,
        }],
        reason: Some(format!(
            "The agent wants to {verb} a file outside the workspace"
        )),
        subagent: None,
        detail: None,
    }
}
