//! Claude stream-json messages of one run → canonical [`AgentEvent`]s. Pure state machine (no
//! I/O except reading a file to diff against), tested by replaying the real transcripts.
//!
//! - Streaming: `stream_event` text/thinking deltas → `message.delta` / `reasoning.delta`; item
//!   ids are `<message id>:<block index>`, since one API message holds several blocks.
//! - Completion: the CLI prints one `assistant` message per content block *before* the block's
//!   `content_block_stop`; it completes the open streamed block of the same kind.
//! - Tools: `tool_use` → `tool.started`; the `user` message with the `tool_result` →
//!   `tool.completed` (and `file.changed` for a successful edit tool).
//! - `result` → `usage` + the terminal event. API errors arrive as `subtype: success` with
//!   `is_error: true`; the synthetic assistant message that precedes them is not chat text.

use agentdesk_protocol::ui::TokenUsage;
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

use agentdesk_protocol::claude::{
    AssistantMessage, ContentBlock, ContentDelta, RawStreamEvent, ResultMessage, SdkMessage,
    StreamEvent, SystemMessage, TaskNotification, TerminalReason, UserMessage,
};
use agentdesk_protocol::events::{AgentEvent, DiagnosticSource, FailureCode, ToolKind, ToolStatus};
use serde_json::Value;

use agentdesk_protocol::plan::Plan;

use super::diff::{planned_change_from, target_path, PlannedChange};
use super::subagents::Subagents;
use super::tasks::{Applied, PlanCall, Tasks};
use super::wire::ClaudeLine;

/// How the run ended, once it has.
#[derive(Debug, Clone, PartialEq)]
pub enum RunOutcome {
    Completed,
    Interrupted,
    Failed { error: String, code: Option<String> },
}

#[derive(Debug, Clone)]
enum OpenBlock {
    Text { item_id: String, text: String },
    Thinking { item_id: String, text: String },
    Tool,
}

#[derive(Debug, Clone)]
struct OpenTool {
    kind: ToolKind,
    name: String,
    input: Value,
    change: Option<PlannedChange>,
}

/// How a tool's calls are named in the timeline: an MCP tool (`mcp__<server>__<tool>`) as
/// `<server>/<tool>`, the server first, as Codex names its MCP calls; others as they are.
pub fn shown_name(name: &str) -> String {
    name.strip_prefix("mcp__")
        .and_then(|rest| rest.split_once("__"))
        .filter(|(server, tool)| !server.is_empty() && !tool.is_empty())
        .map_or_else(
            || name.to_owned(),
            |(server, tool)| format!("{server}/{tool}"),
        )
}

/// The canonical kind of a Claude tool.
pub fn tool_kind(name: &str) -> ToolKind {
    match name {
        "Bash" | "BashOutput" | "KillShell" => ToolKind::Command,
        "Write" | "Edit" | "MultiEdit" | "NotebookEdit" => ToolKind::FileChange,
        "WebFetch" | "WebSearch" => ToolKind::Web,
        // `Task` is the name older CLIs gave it.
        "Agent" | "Task" => ToolKind::Agent,
        n if n.starts_with("mcp__") => ToolKind::Mcp,
        _ => ToolKind::Other,
    }
}

#[derive(Debug)]
pub struct ClaudeTranslator {
    cwd: PathBuf,
    /// From the profile, for `run.started` when the CLI never said `system/init`.
    model_hint: Option<String>,
    session_id: Option<String>,
    started: bool,
    /// Events produced before `run.started` (notices), emitted right after it.
    prelude: Vec<AgentEvent>,
    message_id: String,
    open: Vec<(u32, OpenBlock)>,
    minted: u64,
    tools: HashMap<String, OpenTool>,
    declined: HashSet<String>,
    synthetic_error: Option<String>,
    /// The user asked to stop (interrupt, deny-and-stop): an aborted result is not a failure.
    stopping: bool,
    outcome: Option<RunOutcome>,
    /// File contents read ahead by the run loop (off the async threads) for the diffs of
    /// file tools, by path; `None` = no such file.
    files: HashMap<PathBuf, Option<String>>,
    /// The plan the task tools keep (no tool cards for them).
    tasks: Tasks,
    subagents: Subagents,
}

impl ClaudeTranslator {
    pub fn new(cwd: PathBuf, model_hint: Option<String>) -> Self {
        Self {
            cwd,
            model_hint,
            session_id: None,
            started: false,
            prelude: Vec::new(),
            message_id: String::new(),
            open: Vec::new(),
            minted: 0,
            tools: HashMap::new(),
            declined: HashSet::new(),
            synthetic_error: None,
            stopping: false,
            outcome: None,
            files: HashMap::new(),
            tasks: Tasks::default(),
            subagents: Subagents::default(),
        }
    }

    /// Continuing the session's plan as last shown (its tasks are named by id).
    pub fn continuing_plan(mut self, plan: Option<Plan>) -> Self {
        self.tasks = Tasks::continuing(plan);
        self
    }

    pub fn outcome(&self) -> Option<&RunOutcome> {
        self.outcome.as_ref()
    }

    /// The session id the CLI reported (`system/init`, `result`).
    pub fn session_id(&self) -> Option<&str> {
        self.session_id.as_deref()
    }

    /// The user asked to end the turn: an aborted result becomes `run.interrupted`.
    pub fn set_stopping(&mut self) {
        self.stopping = true;
    }

    pub fn stopping(&self) -> bool {
        self.stopping
    }

    /// The subagent `agent_id` in words (`general-purpose: Count files`), for its approvals.
    pub fn subagent_name(&self, agent_id: &str) -> String {
        self.subagents.name(agent_id)
    }

    /// A turn ended and the run goes on for its subagents (see [`Subagents`]): an interrupt
    /// then has no turn to stop.
    pub fn between_turns(&self) -> bool {
        self.outcome.is_none() && self.subagents.between_turns()
    }

    /// Between turns with no subagent working: only the CLI's report turn is awaited.
    pub fn awaiting_report(&self) -> bool {
        self.outcome.is_none() && self.subagents.awaiting_report()
    }

    /// The report turn never came: the run ends as completed.
    pub fn completed_without_report(&mut self, out: &mut Vec<AgentEvent>) {
        if self.outcome.is_none() {
            self.finish(RunOutcome::Completed, "end_turn".to_owned(), out);
        }
    }

    /// A tool use the user (or a rule) denied: its result is `declined`, not `failed`.
    pub fn mark_declined(&mut self, tool_use_id: &str) {
        self.declined.insert(tool_use_id.to_owned());
    }

    /// The files `msg` needs read for its diffs (the file tools it starts).
    pub fn files_to_read(&self, msg: &SdkMessage) -> Vec<PathBuf> {
        let SdkMessage::Assistant(a) = msg else {
            return Vec::new();
        };
        a.message
            .content
            .iter()
            .filter_map(|b| match b {
                ContentBlock::ToolUse(t) => target_path(&t.name, &t.input, &self.cwd),
                _ => None,
            })
            .collect()
    }

    /// A file's content as read ahead by the run loop (`None` = it does not exist).
    pub fn provide_file(&mut self, path: PathBuf, content: Option<String>) {
        self.files.insert(path, content);
    }

    /// The planned change of a started file tool (for the approval card).
    pub fn planned_change(&self, tool_use_id: &str) -> Option<PlannedChange> {
        self.tools.get(tool_use_id).and_then(|t| t.change.clone())
    }

    /// A notice for the timeline (kept until `run.started` if that has not happened yet).
    pub fn notice(
        &mut self,
        source: DiagnosticSource,
        message: String,
        raw: Option<Value>,
        out: &mut Vec<AgentEvent>,
    ) {
        let ev = AgentEvent::EngineDiagnostic {
            source,
            message,
            raw,
        };
        if self.started {
            out.push(ev);
        } else {
            self.prelude.push(ev);
        }
    }

    fn start(&mut self, model: Option<String>, tools: Vec<String>, out: &mut Vec<AgentEvent>) {
        if self.started {
            return;
        }
        self.started = true;
        out.push(AgentEvent::RunStarted {
            model: model.or_else(|| self.model_hint.clone()),
            tools,
            engine_session_id: self.session_id.clone(),
        });
        out.append(&mut self.prelude);
    }

    /// One stdout message (control messages are the run's business, not ours).
    pub fn on_message(&mut self, msg: SdkMessage, out: &mut Vec<AgentEvent>) {
        if self.outcome.is_some() {
            return;
        }
        match msg {
            SdkMessage::System(s) => self.on_system(s, out),
            SdkMessage::StreamEvent(e) => self.on_stream(e, out),
            SdkMessage::Assistant(a) => self.on_assistant(a, out),
            SdkMessage::User(u) => self.on_user(u, out),
            SdkMessage::Result(r) => self.on_result(r, out),
            SdkMessage::RateLimitEvent(e) => out.push(rate_limits(e.rate_limit_info)),
            SdkMessage::ControlRequest(_)
            | SdkMessage::ControlResponse(_)
            | SdkMessage::ControlCancelRequest(_) => {}
            SdkMessage::Unknown(raw) => {
                let what = raw
                    .get("type")
                    .and_then(Value::as_str)
                    .unwrap_or("?")
                    .to_owned();
                self.notice(
                    DiagnosticSource::UnknownMessage,
                    format!("unknown Claude Code message `{what}`"),
                    Some(raw),
                    out,
                );
            }
        }
    }

    fn on_system(&mut self, s: SystemMessage, out: &mut Vec<AgentEvent>) {
        match s {
            SystemMessage::Init(init) => {
                self.subagents.turn_began();
                self.session_id = Some(init.session_id.clone());
                self.start(init.model, init.tools.unwrap_or_default(), out);
                // An MCP server that could not start: its tools are missing from the run.
                let text = |v: &serde_json::Value, k: &str| {
                    v.get(k)
                        .and_then(serde_json::Value::as_str)
                        .map(str::to_owned)
                };
                for m in init.mcp_servers.iter().flatten() {
                    if text(m, "status").as_deref() == Some("failed") {
                        out.push(AgentEvent::EngineDiagnostic {
                            source: DiagnosticSource::Warning,
                            message: format!(
                                "The MCP server {} could not start{}",
                                text(m, "name").unwrap_or_default(),
                                text(m, "error")
                                    .map(|e| format!(": {e}"))
                                    .unwrap_or_default()
                            ),
                            raw: None,
                        });
                    }
                }
            }
            SystemMessage::ApiRetry(r) => {
                let status = r
                    .error_status
                    .map_or_else(|| "error".to_owned(), |s| format!("HTTP {s}"));
                let mut msg = format!(
                    "Model request failed ({status}{}); retry {}/{}",
                    r.error
                        .as_deref()
                        .map(|e| format!(", {e}"))
                        .unwrap_or_default(),
                    r.attempt,
                    r.max_retries
                );
                if let Some(ms) = r.retry_delay_ms {
                    msg.push_str(&format!(" in {ms} ms"));
                }
                self.notice(DiagnosticSource::Warning, msg, None, out);
            }
            SystemMessage::PermissionDenied(p) => {
                if let Some(id) = &p.tool_use_id {
                    self.declined.insert(id.clone());
                }
                let msg = format!(
                    "{} was denied without asking: {}",
                    p.tool_name,
                    p.message.as_deref().unwrap_or("a permission rule")
                );
                self.notice(DiagnosticSource::Warning, msg, None, out);
            }
            SystemMessage::TaskStarted(t) => self.subagents.started(t),
            SystemMessage::BackgroundTasksChanged(c) => self.subagents.tasks_changed(&c),
            SystemMessage::TaskNotification(n) => self.on_task_notification(n, out),
            SystemMessage::Status(_)
            | SystemMessage::ThinkingTokens(_)
            | SystemMessage::TaskProgress(_)
            | SystemMessage::TaskUpdated(_) => {}
            SystemMessage::Unknown(raw) => {
                let what = raw
                    .get("subtype")
                    .and_then(Value::as_str)
                    .unwrap_or("?")
                    .to_owned();
                self.notice(
                    DiagnosticSource::UnknownMessage,
                    format!("unknown Claude Code system message `{what}`"),
                    Some(raw),
                    out,
                );
            }
        }
    }

    fn on_stream(&mut self, e: StreamEvent, out: &mut Vec<AgentEvent>) {
        match e.event {
            RawStreamEvent::MessageStart(m) => {
                self.message_id = m
                    .message
                    .get("id")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned();
                self.open.clear();
            }
            RawStreamEvent::ContentBlockStart(b) => {
                let item_id = format!("{}:{}", self.message_id, b.index);
                let block = match b.content_block {
                    ContentBlock::Text(_) => OpenBlock::Text {
                        item_id,
                        text: String::new(),
                    },
                    ContentBlock::Thinking(_) => OpenBlock::Thinking {
                        item_id,
                        text: String::new(),
                    },
                    _ => OpenBlock::Tool,
                };
                self.open.push((b.index, block));
            }
            RawStreamEvent::ContentBlockDelta(d) => match d.delta {
                ContentDelta::TextDelta(t) => self.delta(d.index, false, t.text, out),
                ContentDelta::ThinkingDelta(t) => self.delta(d.index, true, t.thinking, out),
                _ => {}
            },
            // Blocks are completed by the `assistant` message, which comes before the stop.
            _ => {}
        }
    }

    /// One stdout line as the transport decoded it (deltas come pre-decoded; see `wire`).
    pub fn on_line(&mut self, line: ClaudeLine, out: &mut Vec<AgentEvent>) {
        match line {
            ClaudeLine::Delta {
                index,
                thinking,
                text,
            } => {
                if self.outcome.is_none() {
                    self.delta(index, thinking, text, out);
                }
            }
            ClaudeLine::Message(msg) => self.on_message(*msg, out),
        }
    }

    /// A text (`thinking: false`) or thinking delta of the open block `index`; a delta of
    /// the other kind, or of a block that is not open, is ignored.
    fn delta(&mut self, index: u32, thinking: bool, piece: String, out: &mut Vec<AgentEvent>) {
        let Some((_, block)) = self.open.iter_mut().find(|(i, _)| *i == index) else {
            return;
        };
        match block {
            OpenBlock::Text { item_id, text } if !thinking => {
                text.push_str(&piece);
                out.push(AgentEvent::MessageDelta {
                    item_id: item_id.clone(),
                    text: piece,
                });
            }
            OpenBlock::Thinking { item_id, text } if thinking => {
                text.push_str(&piece);
                out.push(AgentEvent::ReasoningDelta {
                    item_id: item_id.clone(),
                    text: piece,
                });
            }
            _ => {}
        }
    }

    /// The open streamed block this completed block belongs to (first of the same kind).
    fn take_open(&mut self, thinking: bool) -> Option<String> {
        let pos = self.open.iter().position(|(_, b)| match b {
            OpenBlock::Text { .. } => !thinking,
            OpenBlock::Thinking { .. } => thinking,
            OpenBlock::Tool => false,
        })?;
        match self.open.remove(pos).1 {
            OpenBlock::Text { item_id, .. } | OpenBlock::Thinking { item_id, .. } => Some(item_id),
            OpenBlock::Tool => None,
        }
    }

    fn mint(&mut self, message_id: &str) -> String {
        self.minted += 1;
        format!("{message_id}:b{}", self.minted)
    }

    fn on_assistant(&mut self, a: AssistantMessage, out: &mut Vec<AgentEvent>) {
        if a.is_synthetic() {
            // "API Error: 500 …" / "Not logged in": the result carries it as the failure.
            self.synthetic_error = Some(a.error.clone().unwrap_or_else(|| "api_error".to_owned()));
            return;
        }
        let message_id = a.message.id.clone();
        // A subagent's message: never streamed, so never one of the open blocks (those are
        // the main agent's), and nested under the call that started it.
        let parent = a.parent_tool_use_id.clone();
        for block in a.message.content {
            match block {
                ContentBlock::Text(t) => {
                    let item_id = match &parent {
                        Some(p) => {
                            let id = self.mint(&message_id);
                            self.subagents.nest(&id, p, out);
                            id
                        }
                        None => self
                            .take_open(false)
                            .unwrap_or_else(|| self.mint(&message_id)),
                    };
                    out.push(AgentEvent::MessageCompleted {
                        item_id,
                        text: t.text,
                    });
                }
                ContentBlock::Thinking(t) => {
                    let item_id = match &parent {
                        Some(p) => {
                            let id = self.mint(&message_id);
                            self.subagents.nest(&id, p, out);
                            id
                        }
                        None => self
                            .take_open(true)
                            .unwrap_or_else(|| self.mint(&message_id)),
                    };
                    out.push(AgentEvent::ReasoningCompleted {
                        item_id,
                        text: t.thinking,
                    });
                }
                ContentBlock::ToolUse(t) => {
                    if self.tasks.on_tool_use(&t.id, &t.name, &t.input) {
                        continue;
                    }
                    let kind = tool_kind(&t.name);
                    let change = target_path(&t.name, &t.input, &self.cwd).and_then(|path| {
                        // Read ahead by the run loop; read here only when used on its own.
                        let before = match self.files.remove(&path) {
                            Some(before) => before,
                            None => std::fs::read_to_string(&path).ok(),
                        };
                        planned_change_from(&t.name, &t.input, &path, before)
                    });
                    let name = shown_name(&t.name);
                    if let Some(p) = &parent {
                        self.subagents.nest(&t.id, p, out);
                    }
                    out.push(AgentEvent::ToolStarted {
                        item_id: t.id.clone(),
                        kind,
                        name: name.clone(),
                        input: t.input.clone(),
                    });
                    self.tools.insert(
                        t.id,
                        OpenTool {
                            kind,
                            name,
                            input: t.input,
                            change,
                        },
                    );
                }
                _ => {}
            }
        }
    }

    fn on_user(&mut self, u: UserMessage, out: &mut Vec<AgentEvent>) {
        let interrupted = u
            .tool_use_result
            .as_ref()
            .and_then(|r| r.get("interrupted"))
            .and_then(Value::as_bool)
            == Some(true);
        for block in u.blocks() {
            let ContentBlock::ToolResult(r) = block else {
                // "[Request interrupted by user]" markers and the like: not conversation.
                continue;
            };
            let status = if self.declined.contains(&r.tool_use_id) {
                ToolStatus::Declined
            } else if interrupted {
                ToolStatus::Interrupted
            } else if r.is_error == Some(true) {
                ToolStatus::Failed
            } else {
                ToolStatus::Completed
            };
            let plan = self.tasks.on_result(
                &r.tool_use_id,
                status != ToolStatus::Completed,
                u.tool_use_result.as_ref(),
                out,
            );
            if let Some(applied) = plan {
                if let Applied::Tool(call) = applied {
                    out.push(plan_call_ended(
                        r.tool_use_id.clone(),
                        call,
                        Some(r.text()),
                        status,
                    ));
                }
                continue;
            }
            if status == ToolStatus::Completed && self.subagents.is_background_call(&r.tool_use_id)
            {
                // Only the launch receipt ("Async agent launched…", internal to the model):
                // the call goes on until the subagent's notification.
                continue;
            }
            let Some(tool) = self.tools.remove(&r.tool_use_id) else {
                continue;
            };
            if status == ToolStatus::Completed {
                if let Some(c) = &tool.change {
                    out.push(AgentEvent::FileChanged {
                        item_id: r.tool_use_id.clone(),
                        path: c.path.clone(),
                        kind: c.kind,
                        diff: c.diff.clone(),
                    });
                }
            }
            out.push(AgentEvent::ToolCompleted {
                item_id: r.tool_use_id.clone(),
                kind: tool.kind,
                name: tool.name,
                input: tool.input,
                output: Some(r.text()),
                status,
                exit_code: None,
            });
        }
    }

    fn on_result(&mut self, r: ResultMessage, out: &mut Vec<AgentEvent>) {
        self.session_id = Some(r.session_id.clone());
        let model = self.model_hint.clone();
        self.start(model, Vec::new(), out);
        if let Some(u) = &r.usage {
            // Saturating: these are the engine's numbers, and garbage must not panic.
            let input = u
                .input_tokens
                .unwrap_or(0)
                .saturating_add(u.cache_creation_input_tokens.unwrap_or(0))
                .saturating_add(u.cache_read_input_tokens.unwrap_or(0));
            let reasoning = u
                .output_tokens_details
                .as_ref()
                .and_then(|d| d.get("thinking_tokens"))
                .and_then(Value::as_i64)
                .unwrap_or(0);
            let turn = TokenUsage {
                input: i64::try_from(input).unwrap_or(i64::MAX),
                cached: i64::try_from(u.cache_read_input_tokens.unwrap_or(0)).unwrap_or(i64::MAX),
                output: i64::try_from(u.output_tokens.unwrap_or(0)).unwrap_or(i64::MAX),
                reasoning,
                cost_usd: r.turn_cost_usd(),
            };
            out.push(AgentEvent::Usage(self.subagents.add_usage(turn)));
        }
        let aborted = matches!(
            r.terminal_reason,
            Some(TerminalReason::AbortedStreaming | TerminalReason::AbortedTools)
        );
        let outcome = if self.stopping && (aborted || r.is_error) {
            RunOutcome::Interrupted
        } else if !r.is_error {
            RunOutcome::Completed
        } else {
            let code = r
                .api_error_status
                .map(|s| format!("http_{s}"))
                .or_else(|| self.synthetic_error.clone())
                .or_else(|| r.terminal_reason.as_ref().map(|t| t.as_str().to_owned()))
                .unwrap_or_else(|| r.subtype.as_str().to_owned());
            RunOutcome::Failed {
                error: r.error_text(),
                code: Some(code),
            }
        };
        let goes_on = outcome == RunOutcome::Completed && self.subagents.turn_ended();
        if goes_on && !self.stopping {
            // A subagent still works, or the CLI reports one in a turn of its own: the run
            // (and the CLI with it) goes on.
            return;
        }
        // Asked to stop while a subagent works: the run ends here, interrupted (stopping
        // the CLI stops the subagent).
        let outcome = if goes_on {
            RunOutcome::Interrupted
        } else {
            outcome
        };
        let stop_reason = r
            .terminal_reason
            .as_ref()
            .map(|t| t.as_str().to_owned())
            .or(r.stop_reason.clone())
            .unwrap_or_else(|| "completed".to_owned());
        self.finish(outcome, stop_reason, out);
    }

    /// A background task ended: a subagent's `Agent` call completes with its summary.
    fn on_task_notification(&mut self, n: TaskNotification, out: &mut Vec<AgentEvent>) {
        let Some((call, status)) = self.subagents.notified(&n) else {
            return;
        };
        let Some(tool) = self.tools.remove(&call) else {
            return;
        };
        out.push(AgentEvent::ToolCompleted {
            item_id: call,
            kind: tool.kind,
            name: tool.name,
            input: tool.input,
            output: n.summary,
            status,
            exit_code: None,
        });
    }

    /// The engine went away (or was stopped) without a `result`.
    pub fn fail(&mut self, error: String, code: FailureCode, out: &mut Vec<AgentEvent>) {
        let code = Some(code.as_str().to_owned());
        if self.outcome.is_none() {
            self.finish(RunOutcome::Failed { error, code }, String::new(), out);
        }
    }

    /// The user's interrupt was not confirmed in time and the CLI was stopped.
    pub fn interrupted(&mut self, out: &mut Vec<AgentEvent>) {
        if self.outcome.is_none() {
            self.finish(RunOutcome::Interrupted, String::new(), out);
        }
    }

    fn finish(&mut self, outcome: RunOutcome, stop_reason: String, out: &mut Vec<AgentEvent>) {
        let model = self.model_hint.clone();
        self.start(model, Vec::new(), out);
        // Close what is still open so nothing stays "running" on the timeline.
        for (_, block) in std::mem::take(&mut self.open) {
            match block {
                OpenBlock::Text { item_id, text } => {
                    out.push(AgentEvent::MessageCompleted { item_id, text })
                }
                OpenBlock::Thinking { item_id, text } => {
                    out.push(AgentEvent::ReasoningCompleted { item_id, text })
                }
                OpenBlock::Tool => {}
            }
        }
        for (item_id, call) in self.tasks.unanswered() {
            let status = if self.declined.contains(&item_id) {
                ToolStatus::Declined
            } else {
                ToolStatus::Interrupted
            };
            out.push(plan_call_ended(item_id, call, None, status));
        }
        let mut open: Vec<(String, OpenTool)> = self.tools.drain().collect();
        open.sort_by(|a, b| a.0.cmp(&b.0));
        for (item_id, tool) in open {
            let status = if self.declined.contains(&item_id) {
                ToolStatus::Declined
            } else {
                ToolStatus::Interrupted
            };
            out.push(AgentEvent::ToolCompleted {
                item_id,
                kind: tool.kind,
                name: tool.name,
                input: tool.input,
                output: None,
                status,
                exit_code: None,
            });
        }
        out.push(match &outcome {
            RunOutcome::Completed => AgentEvent::RunCompleted { stop_reason },
            RunOutcome::Interrupted => AgentEvent::RunInterrupted {},
            RunOutcome::Failed { error, code } => AgentEvent::RunFailed {
                error: error.clone(),
                code: code.clone(),
            },
        });
        self.outcome = Some(outcome);
    }
}

/// A plan tool call that changed no plan (refused, unreadable, cut off), as the tool call it
/// was: the timeline makes its card from this one event.
fn plan_call_ended(
    item_id: String,
    call: PlanCall,
    output: Option<String>,
    status: ToolStatus,
) -> AgentEvent {
    AgentEvent::ToolCompleted {
        item_id,
        kind: ToolKind::Other,
        name: call.name,
        input: call.input,
        output,
        status,
        exit_code: None,
    }
}

/// `rate_limit_event` → the account's windows (utilization 0–1 → percent, seconds → ms);
/// without per-window detail, the one limit the event names.
fn rate_limits(info: agentdesk_protocol::claude::RateLimitInfo) -> AgentEvent {
    use agentdesk_protocol::rate_limits::{RateLimitWindow, RateLimits};
    let name = |kind: &str| match kind {
        "five_hour" => ("5-hour".to_owned(), Some(300)),
        "seven_day" => ("weekly".to_owned(), Some(10080)),
        "seven_day_opus" => ("weekly (Opus)".to_owned(), Some(10080)),
        "seven_day_sonnet" => ("weekly (Sonnet)".to_owned(), Some(10080)),
        "seven_day_overage_included" => ("weekly with overage".to_owned(), Some(10080)),
        other => (other.replace('_', " "), None),
    };
    let window = |kind: &str, utilization: f64, resets_at: Option<i64>| {
        let (name, minutes) = name(kind);
        RateLimitWindow {
            name,
            used_percent: utilization * 100.0,
            resets_at: resets_at.map(|t| t.saturating_mul(1000)),
            window_minutes: minutes,
        }
    };
    let mut windows: Vec<RateLimitWindow> = info
        .unified_windows
        .iter()
        .flatten()
        .map(|(kind, w)| window(kind, w.utilization, w.resets_at))
        .collect();
    if windows.is_empty() {
        if let (Some(kind), Some(u)) = (&info.rate_limit_type, info.utilization) {
            windows.push(window(kind, u, info.resets_at));
        }
    }
    // The shortest window first, as the status bar reads them.
    windows.sort_by_key(|w| w.window_minutes.unwrap_or(i64::MAX));
    let reached = (info.status == "rejected").then(|| {
        format!(
            "{} limit reached",
            info.rate_limit_type
                .as_deref()
                .map_or("usage".to_owned(), |k| name(k).0)
        )
    });
    AgentEvent::RateLimits(RateLimits { windows, reached })
}
