//! One Claude run = one `claude` process: the handshake (`initialize`, answered while hook and
//! MCP requests may already arrive) and the run task that owns the process, the translator and
//! the held permission requests. Everything about the run arrives on one `select!` (stdout,
//! stderr, user commands, the interrupt timer), so there are no locks and no races between a
//! decision and the process dying. Nothing in the loop awaits the CLI: writes are queued, so
//! control requests are answered while approvals stay pending.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use agentdesk_protocol::approval_detail::{ApprovalDetail, ClaudeToolDetail};
use agentdesk_protocol::claude::{
    CanUseToolRequest, ControlRequest, ControlRequestBody, ControlResponse, ControlResponseBody,
    HookJsonOutput, InitializeRequest, InitializeResponse, McpMessageResponse, PermissionAllow,
    PermissionDeny, PermissionResult, SdkMessage,
};
use agentdesk_protocol::events::{
    AgentEvent, ApprovalFile, ApprovalKind, Question, QuestionOption, ToolKind, UserDecision,
};
use serde::Serialize;
use serde_json::{Map, Value};
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::diff::{planned_change_async, read_before};
use super::options::{ClaudeProfile, SessionArg};
use super::prompt_file::PromptFile;
use super::translate::{tool_kind, ClaudeTranslator};
use super::wire::{ClaudeLine, ClaudeLines};
use super::ClaudeEngineConfig;
use crate::control::{resolved, Command, PendingRequests};
use crate::diagnostic::Diagnostic;
use crate::error::EngineError;
use crate::limits::RunLimits;
use crate::process::{ChildExit, ChildProcess, ProcessSpec};
use crate::transport::{AbortOnDrop, Inbound, InboundRx, LineWriter, TransportConfig};
use crate::vocab::ApprovalDecision;

/// How long to wait for the exit status once stdout closed (the process is ending).
const EXIT_AFTER_EOF: Duration = Duration::from_secs(3);

/// A running `claude` process and its pipes.
pub(crate) struct Session {
    pub child: ChildProcess,
    pub(super) writer: LineWriter,
    pub(super) inbound: InboundRx<ClaudeLine>,
    _reader: AbortOnDrop,
    pub(super) stderr: mpsc::UnboundedReceiver<Diagnostic>,
    next_id: u64,
    /// Read during the handshake, replayed by the run task.
    pub(super) backlog: Vec<ClaudeLine>,
    /// The system prompt the CLI read at start; removed with the session.
    _prompt_file: Option<PromptFile>,
}

impl Session {
    pub fn spawn(
        config: &ClaudeEngineConfig,
        cwd: &Path,
        profile: &ClaudeProfile,
        session: &SessionArg,
    ) -> Result<Self, EngineError> {
        let (tx, stderr) = mpsc::unbounded_channel();
        // The system prompt goes in a file here; on a remote host (where that file is not)
        // it is an argument.
        let remote = config.remote.as_ref();
        let inline_prompt: Vec<String> = match (remote, profile.system_prompt()) {
            (Some(_), Some(p)) => vec!["--append-system-prompt".to_owned(), p.to_owned()],
            _ => Vec::new(),
        };
        let prompt_file =
            match profile.system_prompt().filter(|_| remote.is_none()) {
                Some(p) => Some(PromptFile::create_in(&std::env::temp_dir(), p).map_err(
                    |source| EngineError::Spawn {
                        program: config.program.clone(),
                        source,
                    },
                )?),
                None => None,
            };
        let mut spec = ProcessSpec::for_engine(&config.program)
            .args(profile.args(session))
            .args(prompt_file.iter().flat_map(PromptFile::args))
            .args(inline_prompt)
            .cwd(cwd)
            .stop_config(config.stop)
            .diagnostics(tx);
        spec.label = "claude".to_owned();
        spec.memory_limit = config.limits.memory_limit;
        for key in &profile.env_remove {
            spec = spec.env_remove(key);
        }
        spec.remote = remote.cloned();
        let parent = crate::ssh::desktop_env(remote);
        for (key, value) in profile.env_vars_from(&config.entrypoint, &parent)? {
            spec = spec.env(key, value);
        }
        let mut child = ChildProcess::spawn(spec)?;
        let (writer, inbound, reader) = child
            .transport_with(&TransportConfig::default(), ClaudeLines)?
            .into_parts();
        Ok(Self {
            child,
            writer,
            inbound,
            _reader: reader,
            stderr,
            next_id: 0,
            backlog: Vec::new(),
            _prompt_file: prompt_file,
        })
    }

    pub fn send(&self, msg: &SdkMessage) -> Result<(), EngineError> {
        self.writer.send_json(msg)
    }

    /// Send a host → CLI control request; returns its id (`req_<n>_<8 hex>`, like the SDKs).
    pub(super) fn request(&mut self, body: ControlRequestBody) -> Result<String, EngineError> {
        self.next_id += 1;
        let id = format!(
            "req_{}_{}",
            self.next_id,
            &uuid::Uuid::new_v4().simple().to_string()[..8]
        );
        self.send(&SdkMessage::ControlRequest(ControlRequest::new(
            id.clone(),
            body,
        )))?;
        Ok(id)
    }

    /// Answer the CLI's request `request_id` with a typed response (`what` names it in an
    /// encoding error).
    fn respond<T: Serialize>(
        &self,
        request_id: &str,
        what: &str,
        response: &T,
    ) -> Result<(), EngineError> {
        let response = serde_json::to_value(response).map_err(|source| EngineError::Encode {
            context: what.into(),
            source,
        })?;
        self.send(&SdkMessage::ControlResponse(ControlResponse::success(
            request_id, response,
        )))
    }

    fn respond_error(&self, request_id: &str, error: String) -> Result<(), EngineError> {
        self.send(&SdkMessage::ControlResponse(ControlResponse::error(
            request_id, error,
        )))
    }

    /// Answer what needs no user (hooks, MCP, unknown subtypes) at once; hand back the rest.
    fn answer_simple(&self, req: ControlRequest) -> Option<ControlRequest> {
        let id = req.request_id.clone();
        let result = match &req.request {
            ControlRequestBody::CanUseTool(_) => return Some(req),
            // We register no hooks; answering keeps the CLI from waiting on one.
            ControlRequestBody::HookCallback(_) => {
                self.respond(&id, "hook output", &HookJsonOutput::CONTINUE)
            }
            ControlRequestBody::McpMessage(m) => self.respond(
                &id,
                "MCP reply",
                &McpMessageResponse::no_such_server(&m.server_name, &m.message),
            ),
            other => {
                let subtype = other.tag().unwrap_or("?");
                self.respond_error(
                    &id,
                    format!("Unsupported control request subtype: {subtype}"),
                )
            }
        };
        if let Err(e) = result {
            tracing::debug!(error = %e, "could not answer a control request");
        }
        None
    }

    pub(super) async fn exit_after_eof(&self) -> Option<ChildExit> {
        let mut watch = self.child.exit_watch();
        tokio::time::timeout(EXIT_AFTER_EOF, watch.wait())
            .await
            .ok()
            .flatten()
    }
}

/// Why the handshake failed.
pub(crate) enum InitFailure {
    /// `--resume` named a session the CLI does not have.
    NoConversation(String),
    Other(EngineError),
}

fn no_conversation(text: &str) -> Option<String> {
    text.lines()
        .find(|l| l.contains("No conversation found"))
        .map(|l| l.trim().to_owned())
}

/// Send `initialize` and wait (bounded) for its reply, answering CLI requests meanwhile.
pub(crate) async fn initialize(
    s: &mut Session,
    timeout: Duration,
) -> Result<InitializeResponse, InitFailure> {
    let id = s
        .request(ControlRequestBody::Initialize(InitializeRequest::default()))
        .map_err(InitFailure::Other)?;
    init_reply(reply(s, &id, timeout, "Claude Code's reply to `initialize`").await?)
}

/// Wait (bounded) for the reply to the control request `id`, answering CLI requests and
/// keeping what else arrives for the run task meanwhile.
pub(crate) async fn reply(
    s: &mut Session,
    id: &str,
    timeout: Duration,
    what: &str,
) -> Result<ControlResponseBody, InitFailure> {
    let deadline = Instant::now() + timeout;
    loop {
        let item = tokio::select! {
            item = s.inbound.recv() => item,
            _ = tokio::time::sleep_until(deadline) => {
                return Err(InitFailure::Other(EngineError::Timeout {
                    what: what.to_owned(),
                    after: timeout,
                }));
            }
        };
        let msg = match item {
            Some(Inbound::Message(ClaudeLine::Message(m))) => *m,
            // A delta before the reply: the run task replays it.
            Some(Inbound::Message(delta)) => {
                s.backlog.push(delta);
                continue;
            }
            // Garbage on stdout during start-up: keep it for the timeline's diagnostics.
            Some(Inbound::Diagnostic(_)) => continue,
            None => return Err(exited_during_init(s).await),
        };
        match msg {
            SdkMessage::ControlResponse(r) if r.request_id() == Some(id) => {
                return Ok(r.response);
            }
            SdkMessage::ControlRequest(req) => {
                if let Some(req) = s.answer_simple(req) {
                    s.backlog
                        .push(ClaudeLine::Message(Box::new(SdkMessage::ControlRequest(
                            req,
                        ))));
                }
            }
            // A result before the initialize reply: the session could not be set up.
            SdkMessage::Result(r) => {
                let text = r.error_text();
                return Err(match no_conversation(&text) {
                    Some(m) => InitFailure::NoConversation(m),
                    None => InitFailure::Other(EngineError::Preflight(format!(
                        "Claude Code could not start the session: {text}"
                    ))),
                });
            }
            other => s.backlog.push(ClaudeLine::Message(Box::new(other))),
        }
    }
}

/// Claude Code's stdout ended before its `initialize` reply: why (from its stderr).
async fn exited_during_init(s: &Session) -> InitFailure {
    let exit = s.exit_after_eof().await;
    // Stopped by this app (its memory): that reason, not its last words.
    if let Some(stopped) = exit.as_ref().filter(|e| e.over_memory.is_some()) {
        return InitFailure::Other(stopped.to_error());
    }
    let tail = exit
        .as_ref()
        .map_or_else(|| s.child.stderr_tail(), |e| e.stderr_tail.clone());
    if let Some(m) = no_conversation(&tail) {
        return InitFailure::NoConversation(m);
    }
    InitFailure::Other(EngineError::ChildExited {
        status: exit.map(|e| e.status),
        stderr_tail: tail,
    })
}

/// The `initialize` reply (its unread or mistyped fields are defaults), or why it failed.
fn init_reply(response: ControlResponseBody) -> Result<InitializeResponse, InitFailure> {
    match response {
        ControlResponseBody::Success(ok) => Ok(ok
            .response
            .and_then(|v| serde_json::from_value(v).ok())
            .unwrap_or_default()),
        ControlResponseBody::Error(e) => Err(InitFailure::Other(EngineError::Preflight(format!(
            "Claude Code refused to start: {}",
            e.error
        )))),
        ControlResponseBody::Unknown(v) => Err(InitFailure::Other(EngineError::Preflight(
            format!("Claude Code answered `initialize` with {v}"),
        ))),
    }
}

/// What the run task is told from outside.
#[derive(Debug)]
pub(crate) enum Control {
    /// Interrupt / decide / answer (the engine-neutral commands).
    Command(Command),
    /// Mid-run changes (`set_permission_mode`, `set_model`): fire and forget.
    Request(ControlRequestBody),
}

/// A `can_use_tool` held until the user decides.
pub(super) struct Pending {
    engine_id: String,
    req: CanUseToolRequest,
}

pub(super) type Held = PendingRequests<Pending>;

pub(crate) struct RunTask {
    pub session: Session,
    pub translator: ClaudeTranslator,
    pub cwd: PathBuf,
    pub interrupt_grace: Duration,
    pub limits: RunLimits,
    pub events: mpsc::UnboundedSender<AgentEvent>,
    pub control: mpsc::UnboundedReceiver<Control>,
}

impl RunTask {
    /// One full message (deltas never come here: see `run_loop`).
    pub(super) async fn on_message(
        &mut self,
        msg: SdkMessage,
        pending: &mut Held,
        out: &mut Vec<AgentEvent>,
    ) {
        match msg {
            SdkMessage::ControlRequest(req) => {
                if let Some(req) = self.session.answer_simple(req) {
                    let ControlRequestBody::CanUseTool(c) = req.request else {
                        return;
                    };
                    self.on_can_use_tool(req.request_id, c, pending, out).await;
                }
            }
            SdkMessage::ControlCancelRequest(c) => {
                pending.withdraw(|p| p.engine_id == c.request_id, out);
            }
            // Replies to our interrupt / set_* requests: nothing to do.
            SdkMessage::ControlResponse(_) => {}
            other => {
                // The diffs' "before" files are read here, with tokio's fs: the translator
                // itself never touches the disk on this thread.
                for path in self.translator.files_to_read(&other) {
                    let before = read_before(&path).await;
                    self.translator.provide_file(path, before);
                }
                self.translator.on_message(other, out)
            }
        }
    }

    async fn on_can_use_tool(
        &mut self,
        engine_id: String,
        c: CanUseToolRequest,
        pending: &mut Held,
        out: &mut Vec<AgentEvent>,
    ) {
        let request_id = Held::new_id();
        let question = c.tool_name == "AskUserQuestion";
        if question {
            let questions = ask_user_questions(&c.input);
            out.push(AgentEvent::QuestionAsked {
                request_id: request_id.clone(),
                item_id: c.tool_use_id.clone(),
                questions,
            });
        } else {
            let kind = match tool_kind(&c.tool_name) {
                ToolKind::Command => ApprovalKind::Command,
                ToolKind::FileChange => ApprovalKind::FileChange,
                _ => ApprovalKind::Tool,
            };
            let files = planned_change_async(&c.tool_name, &c.input, &self.cwd)
                .await
                .map(|p| ApprovalFile {
                    path: p.path,
                    kind: p.kind,
                    diff: p.diff,
                })
                .into_iter()
                .collect();
            let reason = c.description.clone().or_else(|| {
                c.decision_reason
                    .as_ref()
                    .map(|r| r.as_str().map_or_else(|| r.to_string(), str::to_owned))
            });
            out.push(AgentEvent::ApprovalRequested {
                request_id: request_id.clone(),
                kind,
                item_id: c.tool_use_id.clone(),
                command: c
                    .input
                    .get("command")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
                cwd: Some(self.cwd.display().to_string()),
                files,
                reason,
                subagent: c
                    .agent_id
                    .as_deref()
                    .map(|a| self.translator.subagent_name(a)),
                detail: Some(Box::new(ApprovalDetail::ClaudeTool(ClaudeToolDetail {
                    tool_name: c.tool_name.clone(),
                    display_name: c.display_name.clone(),
                    input: c.input.clone(),
                    permission_suggestions: c
                        .permission_suggestions
                        .as_ref()
                        .and_then(|s| serde_json::to_value(s).ok())
                        .unwrap_or(Value::Null),
                    blocked_path: c.blocked_path.clone(),
                    decision_reason_type: c.decision_reason_type.clone(),
                }))),
            });
        }
        let held = Pending { engine_id, req: c };
        if question {
            pending.hold_question(request_id, held);
        } else {
            pending.hold_approval(request_id, held);
        }
    }

    pub(super) fn resolve(
        &mut self,
        pending: &mut Held,
        request_id: &str,
        d: ApprovalDecision,
        out: &mut Vec<AgentEvent>,
    ) -> Result<(), EngineError> {
        let p = pending.take_approval(request_id)?;
        let tool_use_id = p.req.tool_use_id.clone().unwrap_or_default();
        let result = match d.decision {
            // "For this session" hands Claude no rule: its suggestions (`Bash(ls *)`...) are
            // wider than what the user saw, and Claude would then allow those without ever
            // asking. Claude keeps asking; Agent Desk's queue answers exact repeats itself.
            UserDecision::ApproveOnce | UserDecision::ApproveForSession => {
                PermissionResult::Allow(PermissionAllow {
                    updated_input: d.updated_input.unwrap_or(p.req.input),
                    updated_permissions: None,
                    extra: Map::new(),
                })
            }
            UserDecision::Deny => {
                self.translator.mark_declined(&tool_use_id);
                if d.stop {
                    self.translator.set_stopping();
                }
                PermissionResult::Deny(PermissionDeny {
                    message: d
                        .message
                        .unwrap_or_else(|| "The user denied this tool use.".to_owned()),
                    interrupt: d.stop.then_some(true),
                    extra: Map::new(),
                })
            }
        };
        self.session
            .respond(&p.engine_id, "permission result", &result)?;
        out.push(resolved(request_id, d.decision));
        Ok(())
    }

    pub(super) fn answer(
        &mut self,
        pending: &mut Held,
        request_id: &str,
        answers: BTreeMap<String, Vec<String>>,
        out: &mut Vec<AgentEvent>,
    ) -> Result<(), EngineError> {
        let p = pending.take_question(request_id)?;
        let mut input = p.req.input;
        // Keyed by the question's text; several choices joined like Claude Code's own UI.
        let keyed: Map<String, Value> = answers
            .iter()
            .map(|(q, a)| (q.clone(), Value::String(a.join(", "))))
            .collect();
        if let Some(obj) = input.as_object_mut() {
            obj.insert("answers".to_owned(), Value::Object(keyed));
        }
        let result = PermissionResult::Allow(PermissionAllow {
            updated_input: input,
            updated_permissions: None,
            extra: Map::new(),
        });
        self.session
            .respond(&p.engine_id, "question answer", &result)?;
        out.push(AgentEvent::QuestionAnswered {
            request_id: request_id.to_owned(),
            answers: Some(answers),
        });
        Ok(())
    }
}

/// The questions of an `AskUserQuestion` input, keyed by their text (Claude takes the answers
/// back that way).
fn ask_user_questions(input: &Value) -> Vec<Question> {
    input
        .get("questions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|q| {
            let text = q
                .get("question")
                .and_then(Value::as_str)
                .unwrap_or_default();
            Question {
                // The answer goes back keyed by the question's text.
                id: text.to_owned(),
                header: q.get("header").and_then(Value::as_str).map(str::to_owned),
                question: text.to_owned(),
                options: q
                    .get("options")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .map(|o| QuestionOption {
                        label: o
                            .get("label")
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_owned(),
                        description: o
                            .get("description")
                            .and_then(Value::as_str)
                            .map(str::to_owned),
                    })
                    .collect(),
                // Claude Code's own UI always offers "Other".
                allow_other: true,
                secret: false,
            }
        })
        .collect()
}
