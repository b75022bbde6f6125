//! ACP `session/update`s of one prompt turn → canonical [`AgentEvent`]s. A pure state machine
//! (no I/O), tested by replaying the real opencode and Gemini CLI transcripts.
//!
//! - `agent_message_chunk` → `message.delta`s of one message item, `agent_thought_chunk` →
//!   `reasoning.delta`s. Item ids are the chunk's `messageId` (opencode) or minted
//!   (`message-<n>`, `thought-<n>`; Gemini CLI sends none): a chunk with another id, or any
//!   tool or plan update, completes the open message (`message.completed` with its text).
//! - `tool_call` / `tool_call_update` → `tool.started` once (Gemini CLI may first mention a
//!   call in its permission request: [`AcpTranslator::note_tool_call`]), then
//!   `tool.completed` when the status is `completed` / `failed` (a call whose permission we
//!   rejected ends `declined`), with a `file.changed` per `diff` content block of a completed
//!   edit. Kind `execute` → command, `edit`/`delete`/`move` → file change, `fetch` → web,
//!   others → other. Streamed tool content is not passed on as `tool.updated`: ACP content
//!   replaces (it does not append), so the final content is the output.
//! - `plan` (sent whole every time) → `plan.updated`: the run's one plan item.
//! - `usage_update` is the session's context window and cost so far: its cost (USD) goes on
//!   the run's `usage`, whose token counts come from the prompt result (`usage`, opencode;
//!   `_meta.quota.token_count`, Gemini CLI).
//! - `available_commands_update` → `commands.available` (for the composer's `/`, not the
//!   timeline).
//! - `user_message_chunk`, mode / config / session-info updates: nothing for the timeline. Unknown kinds → an `engine.diagnostic`, never fatal.
//! - The prompt result's `stopReason` → `run.completed` (`end_turn`), `run.interrupted`
//!   (`cancelled`) or `run.failed` (`refusal`, `max_tokens`, `max_turn_requests`).

use agentdesk_protocol::ui::TokenUsage;
use std::collections::{HashMap, HashSet};

use agentdesk_protocol::acp::{
    ContentBlock, Plan, PromptResponse, SessionUpdate, StopReason, ToolCallContent, ToolCallStatus,
    ToolCallUpdate, ToolKind as AcpToolKind, UsageUpdate,
};
use agentdesk_protocol::events::{
    AgentEvent, DiagnosticSource, FailureCode, FileChangeKind, ToolKind, ToolStatus,
};
use agentdesk_protocol::plan::{PlanEntry, PlanStatus};
use serde_json::{json, Value};

use crate::claude::unified_diff;

/// How the run ended, once it has.
#[derive(Debug, Clone, PartialEq)]
pub enum RunOutcome {
    Completed,
    Interrupted,
    Failed { error: String, code: Option<String> },
}

/// A streamed message or thought not yet completed.
#[derive(Debug, Clone)]
struct Open {
    item_id: String,
    text: String,
}

/// A tool call between `tool.started` and `tool.completed`.
#[derive(Debug, Clone)]
struct OpenTool {
    kind: ToolKind,
    name: String,
    input: Value,
    content: Vec<ToolCallContent>,
    /// Every `diff` block seen for the call (opencode shows it only in the permission
    /// request; its final update carries text), by path, the latest kept.
    diffs: Vec<ToolCallContent>,
    raw_output: Option<Value>,
}

/// One run's translator.
#[derive(Debug, Default)]
pub struct AcpTranslator {
    message: Option<Open>,
    thought: Option<Open>,
    tools: HashMap<String, OpenTool>,
    /// Tool ids in arrival order (open ones are closed in this order at the end).
    order: Vec<String>,
    finished_tools: HashSet<String>,
    declined: HashSet<String>,
    /// Messages whose id was already completed (a late chunk of one gets a fresh item).
    closed_messages: HashSet<String>,
    minted: u32,
    cost_usd: Option<f64>,
    stopping: bool,
    outcome: Option<RunOutcome>,
}

/// Our tool kind for an ACP one.
pub fn tool_kind(kind: Option<&AcpToolKind>) -> ToolKind {
    match kind {
        Some(AcpToolKind::Execute) => ToolKind::Command,
        Some(AcpToolKind::Edit | AcpToolKind::Delete | AcpToolKind::Move) => ToolKind::FileChange,
        Some(AcpToolKind::Fetch) => ToolKind::Web,
        _ => ToolKind::Other,
    }
}

/// The ACP tool kind as written on the wire (`execute`, `edit`, ...).
pub fn acp_kind_name(kind: &AcpToolKind) -> String {
    match serde_json::to_value(kind) {
        Ok(Value::String(s)) => s,
        _ => "other".to_owned(),
    }
}

/// A `diff` block's change kind: the agent's own `_meta.kind` when it gives one (Gemini
/// CLI), else a missing or empty old text is a new file (opencode sends `""`).
pub fn diff_kind(old_text: Option<&str>, meta: Option<&Value>) -> FileChangeKind {
    match meta.and_then(|m| m.get("kind")).and_then(Value::as_str) {
        Some("add") => FileChangeKind::Add,
        Some("delete") => FileChangeKind::Delete,
        Some("move") => FileChangeKind::Move,
        Some(_) => FileChangeKind::Update,
        None if old_text.is_none_or(str::is_empty) => FileChangeKind::Add,
        None => FileChangeKind::Update,
    }
}

/// The unified diff of a `diff` block (a new file diffs against nothing).
pub fn diff_text(
    path: &str,
    old_text: Option<&str>,
    new_text: &str,
    kind: FileChangeKind,
) -> String {
    let old = if kind == FileChangeKind::Add {
        None
    } else {
        old_text
    };
    unified_diff(old, new_text, path)
}

/// The text of a tool call's content blocks, or its raw output's `output` string.
fn output_text(content: &[ToolCallContent], raw_output: Option<&Value>) -> Option<String> {
    let texts: Vec<&str> = content
        .iter()
        .filter_map(|c| match c {
            ToolCallContent::Content { content } => content.as_text(),
            _ => None,
        })
        .collect();
    if !texts.is_empty() {
        return Some(texts.join("\n"));
    }
    raw_output.and_then(|o| match o {
        Value::String(s) => Some(s.clone()),
        o => o.get("output").and_then(Value::as_str).map(str::to_owned),
    })
}

/// An exit code in the raw output (`metadata.exit` from opencode, `exitCode` elsewhere).
fn exit_code(raw_output: Option<&Value>) -> Option<i32> {
    let o = raw_output?;
    [
        o.pointer("/metadata/exit"),
        o.get("exitCode"),
        o.get("exit_code"),
    ]
    .into_iter()
    .flatten()
    .find_map(Value::as_i64)
    .and_then(|c| i32::try_from(c).ok())
}

impl AcpTranslator {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn outcome(&self) -> Option<&RunOutcome> {
        self.outcome.as_ref()
    }

    /// The user asked to stop (interrupt, deny-and-stop).
    pub fn set_stopping(&mut self) {
        self.stopping = true;
    }

    pub fn stopping(&self) -> bool {
        self.stopping
    }

    /// We rejected this call's permission: it ends `declined`, not `failed`.
    pub fn mark_declined(&mut self, tool_call_id: &str) {
        self.declined.insert(tool_call_id.to_owned());
    }

    /// `run.started`, first of every run.
    pub fn start(&mut self, model: Option<String>, session_id: String, out: &mut Vec<AgentEvent>) {
        out.push(AgentEvent::RunStarted {
            model,
            tools: Vec::new(),
            engine_session_id: Some(session_id),
        });
    }

    /// An adapter notice, a stderr line, an unreadable message.
    pub fn notice(
        &self,
        source: DiagnosticSource,
        message: String,
        raw: Option<Value>,
        out: &mut Vec<AgentEvent>,
    ) {
        out.push(AgentEvent::EngineDiagnostic {
            source,
            message,
            raw,
        });
    }

    /// One `session/update`.
    pub fn on_update(&mut self, update: SessionUpdate, out: &mut Vec<AgentEvent>) {
        match update {
            SessionUpdate::AgentMessageChunk(c) => self.chunk(false, c.message_id, c.content, out),
            SessionUpdate::AgentThoughtChunk(c) => self.chunk(true, c.message_id, c.content, out),
            SessionUpdate::ToolCall(t) | SessionUpdate::ToolCallUpdate(t) => {
                self.close_message(out);
                self.on_tool(t, out);
            }
            SessionUpdate::Plan(p) => {
                self.close_message(out);
                self.on_plan(p, out);
            }
            SessionUpdate::UsageUpdate(u) => self.on_usage(u),
            SessionUpdate::AvailableCommandsUpdate(v) => out.push(available_commands(&v)),
            SessionUpdate::UserMessageChunk(_)
            | SessionUpdate::CurrentModeUpdate(_)
            | SessionUpdate::ConfigOptionUpdate(_)
            | SessionUpdate::SessionInfoUpdate(_) => {}
            SessionUpdate::Unknown(v) => {
                let kind = v
                    .get("sessionUpdate")
                    .and_then(Value::as_str)
                    .unwrap_or("?")
                    .to_owned();
                out.push(AgentEvent::EngineDiagnostic {
                    source: DiagnosticSource::UnknownMessage,
                    message: format!("session update `{kind}` not understood; ignored"),
                    raw: Some(v),
                });
            }
        }
    }

    fn chunk(
        &mut self,
        thought: bool,
        message_id: Option<String>,
        content: ContentBlock,
        out: &mut Vec<AgentEvent>,
    ) {
        let text = match content {
            ContentBlock::Text { text } => text,
            // An image or resource in a message: nothing to stream as text; keep a trace.
            other => {
                out.push(AgentEvent::EngineDiagnostic {
                    source: DiagnosticSource::UnknownMessage,
                    message: "non-text content in a message chunk; not shown".to_owned(),
                    raw: serde_json::to_value(other).ok(),
                });
                return;
            }
        };
        let same = |open: &Option<Open>| match (open, &message_id) {
            (Some(o), Some(id)) => &o.item_id == id,
            (Some(_), None) => true,
            (None, _) => false,
        };
        // The answer starting ends the thinking before it, and the other way round.
        if thought {
            self.close_text(out);
        } else {
            self.close_thought(out);
        }
        let is_open = if thought {
            same(&self.thought)
        } else {
            same(&self.message)
        };
        if !is_open {
            if thought {
                self.close_thought(out);
            } else {
                self.close_text(out);
            }
            let item_id = match message_id.filter(|id| !self.closed_messages.contains(id)) {
                Some(id) => id,
                None => self.mint(if thought { "thought" } else { "message" }),
            };
            let open = Some(Open {
                item_id,
                text: String::new(),
            });
            if thought {
                self.thought = open;
            } else {
                self.message = open;
            }
        }
        let open = if thought {
            self.thought.as_mut()
        } else {
            self.message.as_mut()
        };
        if let Some(o) = open {
            o.text.push_str(&text);
            let item_id = o.item_id.clone();
            out.push(if thought {
                AgentEvent::ReasoningDelta { item_id, text }
            } else {
                AgentEvent::MessageDelta { item_id, text }
            });
        }
    }

    fn mint(&mut self, what: &str) -> String {
        self.minted += 1;
        format!("{what}-{}", self.minted)
    }

    /// Completes the open message and thought (a tool or plan came between).
    fn close_message(&mut self, out: &mut Vec<AgentEvent>) {
        self.close_thought(out);
        self.close_text(out);
    }

    fn close_text(&mut self, out: &mut Vec<AgentEvent>) {
        if let Some(Open { item_id, text }) = self.message.take() {
            self.closed_messages.insert(item_id.clone());
            out.push(AgentEvent::MessageCompleted { item_id, text });
        }
    }

    fn close_thought(&mut self, out: &mut Vec<AgentEvent>) {
        if let Some(Open { item_id, text }) = self.thought.take() {
            self.closed_messages.insert(item_id.clone());
            out.push(AgentEvent::ReasoningCompleted { item_id, text });
        }
    }

    /// A tool call mentioned outside `session/update` (a permission request): started if
    /// new, its fields merged, never completed from here.
    pub fn note_tool_call(&mut self, t: &ToolCallUpdate, out: &mut Vec<AgentEvent>) {
        self.close_message(out);
        let mut t = t.clone();
        // The request's status is about the permission, not the call; and its `rawInput` is
        // what the permission shows (opencode: `{filepath, diff}`), not the call's own input
        // when that is known already.
        t.status = None;
        let known_input = self
            .tools
            .get(&t.tool_call_id)
            .is_some_and(|tool| tool.input.as_object().is_none_or(|o| !o.is_empty()));
        if known_input {
            t.raw_input = None;
        }
        self.on_tool(t, out);
    }

    fn on_tool(&mut self, t: ToolCallUpdate, out: &mut Vec<AgentEvent>) {
        let id = t.tool_call_id.clone();
        if self.finished_tools.contains(&id) {
            return;
        }
        if !self.tools.contains_key(&id) {
            let kind = tool_kind(t.kind.as_ref());
            let name = t
                .title
                .clone()
                .filter(|s| !s.is_empty())
                .or_else(|| t.kind.as_ref().map(acp_kind_name))
                .unwrap_or_else(|| "tool".to_owned());
            let input = t.raw_input.clone().unwrap_or_else(|| json!({}));
            out.push(AgentEvent::ToolStarted {
                item_id: id.clone(),
                kind,
                name: name.clone(),
                input: input.clone(),
            });
            self.order.push(id.clone());
            self.tools.insert(
                id.clone(),
                OpenTool {
                    kind,
                    name,
                    input,
                    content: Vec::new(),
                    diffs: Vec::new(),
                    raw_output: None,
                },
            );
        }
        let Some(tool) = self.tools.get_mut(&id) else {
            return;
        };
        if let Some(input) = t
            .raw_input
            .filter(|v| v.as_object().is_none_or(|o| !o.is_empty()))
        {
            tool.input = input;
        }
        if let Some(k) = &t.kind {
            tool.kind = tool_kind(Some(k));
        }
        if let Some(c) = t.content {
            for d in c
                .iter()
                .filter(|c| matches!(c, ToolCallContent::Diff { .. }))
            {
                let same_path = |old: &ToolCallContent| match (old, d) {
                    (
                        ToolCallContent::Diff { path: a, .. },
                        ToolCallContent::Diff { path: b, .. },
                    ) => a == b,
                    _ => false,
                };
                tool.diffs.retain(|old| !same_path(old));
                tool.diffs.push(d.clone());
            }
            tool.content = c;
        }
        if t.raw_output.is_some() {
            tool.raw_output = t.raw_output;
        }
        let status = match t.status {
            Some(ToolCallStatus::Completed) => ToolStatus::Completed,
            Some(ToolCallStatus::Failed) => ToolStatus::Failed,
            _ => return,
        };
        self.complete_tool(&id, status, out);
    }

    fn complete_tool(&mut self, id: &str, status: ToolStatus, out: &mut Vec<AgentEvent>) {
        let Some(tool) = self.tools.remove(id) else {
            return;
        };
        self.finished_tools.insert(id.to_owned());
        let status = match status {
            ToolStatus::Failed | ToolStatus::Interrupted if self.declined.contains(id) => {
                ToolStatus::Declined
            }
            s => s,
        };
        if status == ToolStatus::Completed && tool.kind == ToolKind::FileChange {
            for c in &tool.diffs {
                if let ToolCallContent::Diff {
                    path,
                    old_text,
                    new_text,
                    meta,
                } = c
                {
                    let kind = diff_kind(old_text.as_deref(), meta.as_ref());
                    out.push(AgentEvent::FileChanged {
                        item_id: id.to_owned(),
                        path: path.clone(),
                        kind,
                        diff: diff_text(path, old_text.as_deref(), new_text, kind),
                    });
                }
            }
        }
        let output = match status {
            ToolStatus::Interrupted | ToolStatus::Declined => None,
            _ => output_text(&tool.content, tool.raw_output.as_ref()),
        };
        out.push(AgentEvent::ToolCompleted {
            item_id: id.to_owned(),
            kind: tool.kind,
            name: tool.name,
            input: tool.input,
            output,
            status,
            exit_code: exit_code(tool.raw_output.as_ref()),
        });
    }

    /// The whole plan each time: the run's one plan item. A status this build does not know
    /// is shown as pending and reported; the priority is not shown.
    fn on_plan(&mut self, p: Plan, out: &mut Vec<AgentEvent>) {
        let mut entries = Vec::with_capacity(p.entries.len());
        for e in p.entries {
            let wire = e.status.as_deref().unwrap_or("pending");
            let status = PlanStatus::from_wire(wire).unwrap_or_else(|| {
                out.push(AgentEvent::EngineDiagnostic {
                    source: DiagnosticSource::UnknownMessage,
                    message: format!("unknown ACP plan status `{wire}` (shown as pending)"),
                    raw: Some(json!({"content": e.content, "status": wire})),
                });
                PlanStatus::Pending
            });
            entries.push(PlanEntry {
                id: None,
                step: e.content,
                active_form: None,
                status,
            });
        }
        out.push(AgentEvent::PlanUpdated {
            item_id: "plan".into(),
            plan: agentdesk_protocol::plan::Plan {
                explanation: None,
                entries,
            },
        });
    }

    fn on_usage(&mut self, u: UsageUpdate) {
        if let Some(c) = u.cost.filter(|c| c.currency.eq_ignore_ascii_case("USD")) {
            self.cost_usd = Some(c.amount);
        }
    }

    /// The prompt's result: usage, then the terminal event.
    pub fn on_prompt_result(&mut self, r: PromptResponse, out: &mut Vec<AgentEvent>) {
        if self.outcome.is_some() {
            return;
        }
        self.close_message(out);
        self.usage(&r, out);
        let (outcome, stop_reason) = match &r.stop_reason {
            StopReason::EndTurn => (RunOutcome::Completed, "end_turn".to_owned()),
            StopReason::Cancelled => (RunOutcome::Interrupted, String::new()),
            StopReason::MaxTokens => (
                failed(
                    "The agent stopped: the model reached its output token limit",
                    "max_tokens",
                ),
                String::new(),
            ),
            StopReason::MaxTurnRequests => (
                failed(
                    "The agent stopped: it reached its limit of model requests for one turn",
                    "max_turn_requests",
                ),
                String::new(),
            ),
            StopReason::Refusal => (
                failed(
                    "The agent refused to continue (stop reason: refusal)",
                    "refusal",
                ),
                String::new(),
            ),
            // A reason this build does not know: the turn did end normally as far as we know.
            StopReason::Other(s) => (RunOutcome::Completed, s.clone()),
        };
        self.finish(outcome, stop_reason, out);
    }

    fn usage(&self, r: &PromptResponse, out: &mut Vec<AgentEvent>) {
        let quota = r
            .meta
            .as_ref()
            .and_then(|m| m.pointer("/quota/token_count"));
        let tokens = match (&r.usage, quota) {
            (Some(u), _) => Some((
                u.input_tokens,
                u.cached_read_tokens.unwrap_or(0),
                u.output_tokens,
                u.thought_tokens.unwrap_or(0),
            )),
            (None, Some(q)) => {
                let n = |k: &str| q.get(k).and_then(Value::as_i64).unwrap_or(0);
                Some((n("input_tokens"), 0, n("output_tokens"), 0))
            }
            (None, None) => None,
        };
        if tokens.is_none() && self.cost_usd.is_none() {
            return;
        }
        let (input, cached, output, reasoning) = tokens.unwrap_or_default();
        out.push(AgentEvent::Usage(TokenUsage {
            input,
            cached,
            output,
            reasoning,
            cost_usd: self.cost_usd,
        }));
    }

    /// The run failed outside the prompt's result (crash, silence, an error reply).
    pub fn fail(&mut self, error: String, code: Option<String>, out: &mut Vec<AgentEvent>) {
        if self.outcome.is_none() {
            self.finish(RunOutcome::Failed { error, code }, String::new(), out);
        }
    }

    /// [`Self::fail`] with one of Agent Desk's own codes.
    pub fn fail_with(&mut self, error: String, code: FailureCode, out: &mut Vec<AgentEvent>) {
        self.fail(error, Some(code.as_str().to_owned()), out);
    }

    /// The interrupt was not confirmed in time and the agent was stopped.
    pub fn interrupted(&mut self, out: &mut Vec<AgentEvent>) {
        if self.outcome.is_none() {
            self.finish(RunOutcome::Interrupted, String::new(), out);
        }
    }

    fn finish(&mut self, outcome: RunOutcome, stop_reason: String, out: &mut Vec<AgentEvent>) {
        // Close what is still open so nothing stays "running" on the timeline.
        self.close_message(out);
        for id in std::mem::take(&mut self.order) {
            if self.tools.contains_key(&id) {
                self.complete_tool(&id, ToolStatus::Interrupted, out);
            }
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

fn failed(error: &str, code: &str) -> RunOutcome {
    RunOutcome::Failed {
        error: error.to_owned(),
        code: Some(code.to_owned()),
    }
}

/// `available_commands_update {availableCommands: [{name, description, input: {hint}}]}`:
/// each typed as `/name` (the agent reads its commands from the prompt's text); an entry
/// without a name is left out.
fn available_commands(v: &Value) -> AgentEvent {
    let text = |c: &Value, k: &str| c.get(k).and_then(Value::as_str).map(str::to_owned);
    let commands = v
        .get("availableCommands")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|c| {
            let name = text(c, "name").filter(|n| !n.trim().is_empty())?;
            Some(agentdesk_protocol::ui::SlashCommand {
                insert: format!("/{name} "),
                description: text(c, "description").unwrap_or_default(),
                argument_hint: c
                    .get("input")
                    .and_then(|i| text(i, "hint"))
                    .filter(|h| !h.is_empty()),
                name,
            })
        })
        .collect();
    AgentEvent::CommandsAvailable { commands }
}
