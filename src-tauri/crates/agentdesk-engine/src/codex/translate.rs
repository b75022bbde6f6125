//! Codex notifications of one turn → canonical [`AgentEvent`]s. Pure state machine (no I/O),
//! so it is tested by replaying the real transcripts.
//!
//! Tracks what is open (items started but not completed) so an interrupt or a crash can close
//! them: codex sends no `item/completed` for a partial message after `turn/interrupt`.

use agentdesk_protocol::ui::TokenUsage;
use std::collections::{HashMap, VecDeque};

use agentdesk_protocol::codex::{
    AccountRateLimitsUpdatedNotification, CommandExecutionStatus, ErrorNotification,
    FileUpdateChange, PatchChangeKind, ReasoningSummaryTextDeltaNotification,
    ReasoningTextDeltaNotification, ServerNotification, ThreadItem, TokenUsageBreakdown,
    TurnCompletedNotification, TurnError, TurnPlanUpdatedNotification, TurnStatus,
};
use agentdesk_protocol::events::{
    AgentEvent, ApprovalFile, DiagnosticSource, FailureCode, FileChangeKind, ToolKind, ToolStatus,
};
use agentdesk_protocol::plan::{Plan, PlanEntry, PlanStatus};
use agentdesk_protocol::rate_limits::{window_name, RateLimitWindow, RateLimits};
use serde_json::{json, Value};

/// Recent `fileChange` items kept for approvals (which carry only the item id).
const FILE_CHANGE_INDEX: usize = 256;

/// Notifications that are process or UI chatter for us: not shown, not diagnostics.
const IGNORED_METHODS: &[&str] = &[
    "thread/status/changed",
    "thread/readState/changed",
    "thread/settings/updated",
    "thread/goal/cleared",
    "thread/started",
    "serverRequest/resolved",
    "turn/started",
    "turn/diff/updated",
    "remoteControl/status/changed",
    "item/reasoning/summaryPartAdded",
];

#[derive(Debug, Clone)]
enum Open {
    Message(String),
    Reasoning {
        text: String,
        part: i64,
    },
    Tool {
        kind: ToolKind,
        name: String,
        input: Value,
    },
}

/// How the turn ended, once it has.
#[derive(Debug, Clone, PartialEq)]
pub enum TurnOutcome {
    Completed,
    Interrupted,
    Failed { error: String, code: Option<String> },
}

#[derive(Debug, Default)]
pub struct TurnTranslator {
    /// Known once `turn/start` answered; usage notifications for other turns are replays.
    turn_id: Option<String>,
    open: HashMap<String, Open>,
    /// Order of `open` for deterministic finalisation.
    open_order: Vec<String>,
    file_changes: HashMap<String, Vec<FileUpdateChange>>,
    file_change_order: VecDeque<String>,
    /// Reasoning items that streamed summary text (raw text deltas are then not shown).
    reasoning_with_summary: std::collections::HashSet<String>,
    usage_baseline: Option<TokenUsageBreakdown>,
    usage_latest: Option<TokenUsageBreakdown>,
    last_error: Option<(String, Option<String>)>,
    outcome: Option<TurnOutcome>,
    subagents: super::subagents::SubAgents,
    /// The run's own turn completed while a sub-agent works: the run ends with it.
    awaiting_subagents: bool,
}

impl TurnTranslator {
    /// `baseline`: the thread's token totals before this turn, when known.
    pub fn new(baseline: Option<TokenUsageBreakdown>) -> Self {
        Self {
            usage_baseline: baseline,
            ..Self::default()
        }
    }

    pub fn set_turn_id(&mut self, turn_id: String) {
        self.turn_id = Some(turn_id);
    }

    pub fn turn_id(&self) -> Option<&str> {
        self.turn_id.as_deref()
    }

    pub fn outcome(&self) -> Option<&TurnOutcome> {
        self.outcome.as_ref()
    }

    /// Whether `thread_id` is a sub-agent this run spawned.
    pub fn is_subagent_thread(&self, thread_id: &str) -> bool {
        self.subagents.is_child(thread_id)
    }

    /// The sub-agent of `thread_id` in words, for its approvals.
    pub fn subagent_name(&self, thread_id: &str) -> Option<String> {
        self.subagents.name(thread_id)
    }

    /// The run's own turn is over and only sub-agents work: an interrupt stops those.
    pub fn awaiting_subagents(&self) -> bool {
        self.outcome.is_none() && self.awaiting_subagents
    }

    /// The sub-agents' turns still working, `(thread, turn)`.
    pub fn subagent_turns(&self) -> Vec<(String, String)> {
        self.subagents.working_turns()
    }

    /// A notification of a sub-agent's thread: its items nested under the spawn call, its
    /// turn's end completing that call (and the run, when only it was awaited).
    pub fn on_subagent_notification(
        &mut self,
        thread_id: &str,
        n: ServerNotification,
        out: &mut Vec<AgentEvent>,
    ) {
        use super::subagents::item_of;
        if self.outcome.is_some() {
            return;
        }
        if let Some((call, status, last)) = self.subagents.on_notification(thread_id, &n) {
            if let Some(Open::Tool { kind, name, input }) = self.close_item(&call) {
                out.push(AgentEvent::ToolCompleted {
                    item_id: call,
                    kind,
                    name,
                    input,
                    output: last,
                    status,
                    exit_code: None,
                });
            }
            if self.awaiting_subagents && !self.subagents.working() {
                self.complete(out);
            }
            return;
        }
        let user_message = |i: &ThreadItem| matches!(i, ThreadItem::UserMessage(_));
        match &n {
            ServerNotification::ItemStarted(i) if user_message(&i.item) => {}
            ServerNotification::ItemCompleted(i) if user_message(&i.item) => {}
            ServerNotification::ItemStarted(_)
            | ServerNotification::ItemCompleted(_)
            | ServerNotification::AgentMessageDelta(_)
            | ServerNotification::ReasoningSummaryTextDelta(_)
            | ServerNotification::ReasoningTextDelta(_)
            | ServerNotification::CommandExecutionOutputDelta(_)
            | ServerNotification::FileChangeOutputDelta(_) => {
                if let Some(id) = item_of(&n) {
                    self.subagents.nest(thread_id, &id, out);
                }
                self.dispatch(n, out);
            }
            // Its turn, usage and status are its own bookkeeping, not the run's.
            _ => {}
        }
    }

    /// Paths and diffs of a `fileChange` item seen in this run.
    pub fn file_change_files(&self, item_id: &str) -> Vec<ApprovalFile> {
        self.file_changes
            .get(item_id)
            .map(|changes| {
                changes
                    .iter()
                    .map(|c| ApprovalFile {
                        path: c.path.clone(),
                        kind: change_kind(&c.kind),
                        diff: c.diff.clone(),
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Feed one notification routed to this run's thread.
    pub fn on_notification(&mut self, n: ServerNotification, out: &mut Vec<AgentEvent>) {
        // Notifications of another turn of the same thread (the totals replayed after a
        // resume, stragglers of an earlier turn) must not leak into this run.
        if self.outcome.is_some() || self.of_another_turn(&n) {
            return;
        }
        self.dispatch(n, out);
    }

    fn dispatch(&mut self, n: ServerNotification, out: &mut Vec<AgentEvent>) {
        match n {
            ServerNotification::ItemStarted(n) => self.item_started(n.item, out),
            ServerNotification::ItemCompleted(n) => self.item_completed(n.item, out),
            ServerNotification::AgentMessageDelta(d) => {
                if let Some(Open::Message(text)) = self.open.get_mut(&d.item_id) {
                    text.push_str(&d.delta);
                }
                out.push(AgentEvent::MessageDelta {
                    item_id: d.item_id,
                    text: d.delta,
                });
            }
            ServerNotification::ReasoningSummaryTextDelta(d) => self.summary_delta(d, out),
            ServerNotification::ReasoningTextDelta(d) => self.reasoning_delta(d, out),
            ServerNotification::CommandExecutionOutputDelta(d)
            | ServerNotification::FileChangeOutputDelta(d) => {
                let kind = match self.open.get(&d.item_id) {
                    Some(Open::Tool { kind, .. }) => *kind,
                    _ => ToolKind::Command,
                };
                out.push(AgentEvent::ToolUpdated {
                    item_id: d.item_id,
                    kind,
                    output: d.delta,
                });
            }
            ServerNotification::PlanDelta(_) => {}
            ServerNotification::TurnPlanUpdated(p) => out.extend(plan_updated(p)),
            ServerNotification::AccountRateLimitsUpdated(n) => out.extend(rate_limits(n)),
            ServerNotification::ThreadTokenUsageUpdated(u) => {
                self.usage_latest = Some(u.token_usage.total);
            }
            ServerNotification::Error(e) => self.on_error(e, out),
            ServerNotification::Warning(w) => {
                out.push(diagnostic(DiagnosticSource::Warning, w.message, None))
            }
            ServerNotification::TurnCompleted(c) => self.turn_completed(c, out),
            // A profile's MCP server that could not start: its tools are missing from the
            // run, which the timeline says (starting and ready are routine).
            ServerNotification::McpServerStartupStatusUpdated(m) => {
                if let Some(text) = mcp_failure(&m) {
                    out.push(diagnostic(DiagnosticSource::Warning, text, None))
                }
            }
            ServerNotification::Unknown { ref method, .. }
                if IGNORED_METHODS.contains(&method.as_str()) => {}
            ServerNotification::Unknown {
                method,
                params,
                error,
            } => out.push(unknown_notification(method, params, error)),
            // Known but without timeline meaning for a run.
            ServerNotification::ThreadStarted(_)
            | ServerNotification::ThreadStatusChanged(_)
            | ServerNotification::TurnStarted(_)
            | ServerNotification::TurnDiffUpdated(_)
            | ServerNotification::ReasoningSummaryPartAdded(_)
            | ServerNotification::ServerRequestResolved(_)
            | ServerNotification::DeprecationNotice(_)
            | ServerNotification::AccountLoginCompleted(_) => {}
        }
    }

    /// A notification of another turn of the same thread (the totals replayed after a
    /// resume, stragglers of an earlier turn): it must not leak into this run.
    fn of_another_turn(&mut self, n: &ServerNotification) -> bool {
        let Some(turn) = notification_turn_id(n) else {
            return false;
        };
        if self.turn_id.as_deref() == Some(turn) {
            return false;
        }
        // Before turn/start answered, token totals can only be replays of the past.
        if let ServerNotification::ThreadTokenUsageUpdated(u) = n {
            self.usage_baseline = Some(u.token_usage.total);
        }
        self.turn_id.is_some()
    }

    fn summary_delta(
        &mut self,
        d: ReasoningSummaryTextDeltaNotification,
        out: &mut Vec<AgentEvent>,
    ) {
        self.reasoning_with_summary.insert(d.item_id.clone());
        let mut text = d.delta;
        if let Some(Open::Reasoning { text: acc, part }) = self.open.get_mut(&d.item_id) {
            // A new summary part starts a new paragraph.
            if d.summary_index > *part && !acc.is_empty() {
                text.insert_str(0, "\n\n");
            }
            *part = d.summary_index;
            acc.push_str(&text);
        }
        out.push(AgentEvent::ReasoningDelta {
            item_id: d.item_id,
            text,
        });
    }

    /// Raw reasoning text, shown only for an item without a summary (the summary is what
    /// the user reads when there is one).
    fn reasoning_delta(&mut self, d: ReasoningTextDeltaNotification, out: &mut Vec<AgentEvent>) {
        if self.reasoning_with_summary.contains(&d.item_id) {
            return;
        }
        if let Some(Open::Reasoning { text, .. }) = self.open.get_mut(&d.item_id) {
            text.push_str(&d.delta);
        }
        out.push(AgentEvent::ReasoningDelta {
            item_id: d.item_id,
            text: d.delta,
        });
    }

    /// A retried error is a warning; a final one is kept for the turn's failure.
    fn on_error(&mut self, e: ErrorNotification, out: &mut Vec<AgentEvent>) {
        if e.will_retry {
            out.push(diagnostic(
                DiagnosticSource::Warning,
                e.error.message.clone(),
                None,
            ));
        } else {
            let code = failure_code(&e.error);
            self.last_error = Some((e.error.message, code));
        }
    }

    fn turn_completed(&mut self, c: TurnCompletedNotification, out: &mut Vec<AgentEvent>) {
        match c.turn.status {
            // A sub-agent still works: the run ends with it (see `subagents`).
            TurnStatus::Completed if self.subagents.working() => self.awaiting_subagents = true,
            TurnStatus::Completed => self.complete(out),
            TurnStatus::Interrupted => self.interrupted(out),
            TurnStatus::Failed | TurnStatus::InProgress | TurnStatus::Unknown(_) => {
                let (msg, code) = match (c.turn.error, self.last_error.take()) {
                    (Some(e), _) => {
                        let code = failure_code(&e);
                        (e.message, code)
                    }
                    (None, Some(last)) => last,
                    (None, None) => ("the turn failed without an error message".to_owned(), None),
                };
                self.fail_with(model_error_message(&msg, code.as_deref()), code, out);
            }
        }
    }

    fn complete(&mut self, out: &mut Vec<AgentEvent>) {
        self.finalise_open(ToolStatus::Interrupted, out);
        self.push_usage(out);
        out.push(AgentEvent::RunCompleted {
            stop_reason: "completed".into(),
        });
        self.outcome = Some(TurnOutcome::Completed);
    }

    /// An item read back from the thread's history: shown as completed.
    pub fn replay_item(&mut self, item: ThreadItem, out: &mut Vec<AgentEvent>) {
        self.item_completed(item, out);
    }

    /// The turn ended by interrupt (codex said so, or it did not answer in time).
    pub fn interrupted(&mut self, out: &mut Vec<AgentEvent>) {
        if self.outcome.is_some() {
            return;
        }
        self.finalise_open(ToolStatus::Interrupted, out);
        self.push_usage(out);
        out.push(AgentEvent::RunInterrupted {});
        self.outcome = Some(TurnOutcome::Interrupted);
    }

    /// The run failed (model error, crash): close what is open, then `run.failed`.
    pub fn fail(&mut self, error: String, code: FailureCode, out: &mut Vec<AgentEvent>) {
        self.fail_with(error, Some(code.as_str().to_owned()), out);
    }

    /// [`Self::fail`] with the engine's own code (`http_401`, ...), if it gave one.
    fn fail_with(&mut self, error: String, code: Option<String>, out: &mut Vec<AgentEvent>) {
        if self.outcome.is_some() {
            return;
        }
        self.finalise_open(ToolStatus::Interrupted, out);
        self.push_usage(out);
        out.push(AgentEvent::RunFailed {
            error: error.clone(),
            code: code.clone(),
        });
        self.outcome = Some(TurnOutcome::Failed { error, code });
    }

    fn push_usage(&mut self, out: &mut Vec<AgentEvent>) {
        let Some(latest) = self.usage_latest else {
            return;
        };
        let u = latest.saturating_sub(&self.usage_baseline.unwrap_or_default());
        out.push(AgentEvent::Usage(TokenUsage {
            input: u.input_tokens,
            cached: u.cached_input_tokens,
            output: u.output_tokens,
            reasoning: u.reasoning_output_tokens,
            cost_usd: None,
        }));
    }

    fn finalise_open(&mut self, tool_status: ToolStatus, out: &mut Vec<AgentEvent>) {
        for id in std::mem::take(&mut self.open_order) {
            match self.open.remove(&id) {
                Some(Open::Message(text)) => {
                    out.push(AgentEvent::MessageCompleted { item_id: id, text })
                }
                Some(Open::Reasoning { text, .. }) => {
                    out.push(AgentEvent::ReasoningCompleted { item_id: id, text })
                }
                Some(Open::Tool { kind, name, input }) => out.push(AgentEvent::ToolCompleted {
                    item_id: id,
                    kind,
                    name,
                    input,
                    output: None,
                    status: tool_status,
                    exit_code: None,
                }),
                None => {}
            }
        }
    }

    fn open_item(&mut self, id: &str, open: Open) {
        if self.open.insert(id.to_owned(), open).is_none() {
            self.open_order.push(id.to_owned());
        }
    }

    fn close_item(&mut self, id: &str) -> Option<Open> {
        self.open_order.retain(|o| o != id);
        self.open.remove(id)
    }

    fn remember_file_change(&mut self, id: &str, changes: &[FileUpdateChange]) {
        if self
            .file_changes
            .insert(id.to_owned(), changes.to_vec())
            .is_none()
        {
            self.file_change_order.push_back(id.to_owned());
            while self.file_change_order.len() > FILE_CHANGE_INDEX {
                if let Some(old) = self.file_change_order.pop_front() {
                    self.file_changes.remove(&old);
                }
            }
        }
    }

    fn item_started(&mut self, item: ThreadItem, out: &mut Vec<AgentEvent>) {
        match &item {
            ThreadItem::UserMessage(_) => {}
            ThreadItem::AgentMessage(m) => {
                self.open_item(&m.id, Open::Message(m.text.clone()));
                if !m.text.is_empty() {
                    out.push(AgentEvent::MessageDelta {
                        item_id: m.id.clone(),
                        text: m.text.clone(),
                    });
                }
            }
            ThreadItem::Reasoning(r) => self.open_item(
                &r.id,
                Open::Reasoning {
                    text: String::new(),
                    part: 0,
                },
            ),
            ThreadItem::FileChange(f) => self.remember_file_change(&f.id, &f.changes),
            _ => {}
        }
        if let Some((id, kind, name, input)) = tool_of(&item) {
            self.open_item(
                &id,
                Open::Tool {
                    kind,
                    name: name.clone(),
                    input: input.clone(),
                },
            );
            out.push(AgentEvent::ToolStarted {
                item_id: id,
                kind,
                name,
                input,
            });
        } else if let ThreadItem::Unknown(raw) = &item {
            out.push(unknown_item(raw));
        }
    }

    fn item_completed(&mut self, item: ThreadItem, out: &mut Vec<AgentEvent>) {
        if self.text_item_completed(&item, out) {
            return;
        }
        if let ThreadItem::CollabAgentToolCall(c) = &item {
            // The sub-agent now works: its call stays open until its turn ends.
            if self.open.contains_key(&c.id) && self.subagents.spawned(c) {
                return;
            }
        }
        let Some((id, kind, name, input)) = tool_of(&item) else {
            return;
        };
        let was_open = self.close_item(&id).is_some();
        if !was_open {
            // Completed without a start (e.g. after a resume): still show the card.
            out.push(AgentEvent::ToolStarted {
                item_id: id.clone(),
                kind,
                name: name.clone(),
                input: input.clone(),
            });
        }
        let (output, status, exit_code) = self.tool_result(&item, out);
        out.push(AgentEvent::ToolCompleted {
            item_id: id,
            kind,
            name,
            input,
            output,
            status,
            exit_code,
        });
    }

    /// A completed message, reasoning or notice: shown and done (true); false for the
    /// rest (tools, and items without a card).
    fn text_item_completed(&mut self, item: &ThreadItem, out: &mut Vec<AgentEvent>) -> bool {
        match item {
            ThreadItem::UserMessage(_) => {}
            ThreadItem::AgentMessage(m) => {
                self.close_item(&m.id);
                out.push(AgentEvent::MessageCompleted {
                    item_id: m.id.clone(),
                    text: m.text.clone(),
                });
            }
            ThreadItem::Reasoning(r) => {
                self.close_item(&r.id);
                let text = if r.summary.is_empty() {
                    r.content.join("\n\n")
                } else {
                    r.summary.join("\n\n")
                };
                out.push(AgentEvent::ReasoningCompleted {
                    item_id: r.id.clone(),
                    text,
                });
            }
            ThreadItem::ContextCompaction(_) => {
                out.push(diagnostic(
                    DiagnosticSource::Notice,
                    "Codex compacted the conversation context".into(),
                    None,
                ));
            }
            ThreadItem::Unknown(raw) => {
                out.push(unknown_item(raw));
            }
            _ => return false,
        }
        true
    }

    /// A completed tool's output, status and exit code (a file change also reports its
    /// files, once applied).
    fn tool_result(
        &mut self,
        item: &ThreadItem,
        out: &mut Vec<AgentEvent>,
    ) -> (Option<String>, ToolStatus, Option<i32>) {
        match item {
            ThreadItem::CommandExecution(c) => (
                c.aggregated_output.clone(),
                tool_status(&c.status),
                c.exit_code,
            ),
            ThreadItem::FileChange(f) => {
                self.remember_file_change(&f.id, &f.changes);
                let status = tool_status(&f.status);
                if status == ToolStatus::Completed {
                    for c in &f.changes {
                        out.push(AgentEvent::FileChanged {
                            item_id: f.id.clone(),
                            path: c.path.clone(),
                            kind: change_kind(&c.kind),
                            diff: c.diff.clone(),
                        });
                    }
                }
                (None, status, None)
            }
            ThreadItem::McpToolCall(m) => {
                let failed = m.status == "failed" || m.error.is_some();
                let output = m.error.as_ref().or(m.result.as_ref()).map(value_text);
                (
                    output,
                    if failed {
                        ToolStatus::Failed
                    } else {
                        ToolStatus::Completed
                    },
                    None,
                )
            }
            ThreadItem::DynamicToolCall(d) => {
                let output = d
                    .content_items
                    .as_ref()
                    .map(|c| value_text(&Value::Array(c.clone())));
                let status = if d.success == Some(false) {
                    ToolStatus::Failed
                } else {
                    ToolStatus::Completed
                };
                (output, status, None)
            }
            ThreadItem::Plan(p) => (Some(p.text.clone()), ToolStatus::Completed, None),
            ThreadItem::CollabAgentToolCall(c) => {
                let status = if c.status == "failed" {
                    ToolStatus::Failed
                } else {
                    ToolStatus::Completed
                };
                (super::subagents::output(c), status, None)
            }
            _ => (None, ToolStatus::Completed, None),
        }
    }
}

/// The `run.failed` code of a codex error: `http_<status>` when the model's server answered
/// with one, else codex's own error code.
fn failure_code(e: &TurnError) -> Option<String> {
    e.http_status()
        .map(|s| format!("http_{s}"))
        .or_else(|| e.code())
}

/// `turn/plan/updated` (the model's `update_plan` call): the whole checklist, one item per
/// run. A status this build does not know is kept as pending and reported.
fn plan_updated(n: TurnPlanUpdatedNotification) -> Vec<AgentEvent> {
    let mut out = Vec::new();
    let mut entries = Vec::with_capacity(n.plan.len());
    for s in n.plan {
        let status = PlanStatus::from_wire(&s.status).unwrap_or_else(|| {
            out.push(diagnostic(
                DiagnosticSource::UnknownMessage,
                format!(
                    "unknown codex plan status `{}` (shown as pending)",
                    s.status
                ),
                Some(json!({"step": s.step, "status": s.status})),
            ));
            PlanStatus::Pending
        });
        entries.push(PlanEntry {
            id: None,
            step: s.step,
            active_form: None,
            status,
        });
    }
    out.push(AgentEvent::PlanUpdated {
        item_id: "plan".into(),
        plan: Plan {
            explanation: n.explanation.filter(|e| !e.trim().is_empty()),
            entries,
        },
    });
    out
}

/// `account/rateLimits/updated` → the account's windows; an update that knows none (a
/// provider that sends no limit headers) says nothing.
fn rate_limits(n: AccountRateLimitsUpdatedNotification) -> Option<AgentEvent> {
    let s = n.rate_limits;
    let windows: Vec<RateLimitWindow> = [s.primary, s.secondary]
        .into_iter()
        .flatten()
        .map(|w| RateLimitWindow {
            name: window_name(w.window_duration_mins),
            used_percent: w.used_percent,
            resets_at: w.resets_at.map(|t| t.saturating_mul(1000)),
            window_minutes: w.window_duration_mins,
        })
        .collect();
    if windows.is_empty() && s.rate_limit_reached_type.is_none() {
        return None;
    }
    Some(AgentEvent::RateLimits(RateLimits {
        windows,
        reached: s.rate_limit_reached_type,
    }))
}

/// A notification this build does not know (or cannot read), kept as a diagnostic.
fn unknown_notification(method: String, params: Value, error: Option<String>) -> AgentEvent {
    let message = match error {
        Some(e) => format!("unreadable codex notification `{method}`: {e}"),
        None => format!("unknown codex notification `{method}`"),
    };
    diagnostic(
        DiagnosticSource::UnknownMessage,
        message,
        Some(json!({"method": method, "params": params})),
    )
}

fn notification_turn_id(n: &ServerNotification) -> Option<&str> {
    Some(match n {
        ServerNotification::ItemStarted(n) => &n.turn_id,
        ServerNotification::ItemCompleted(n) => &n.turn_id,
        ServerNotification::AgentMessageDelta(n)
        | ServerNotification::PlanDelta(n)
        | ServerNotification::CommandExecutionOutputDelta(n)
        | ServerNotification::FileChangeOutputDelta(n) => &n.turn_id,
        ServerNotification::ReasoningSummaryTextDelta(n) => &n.turn_id,
        ServerNotification::ReasoningTextDelta(n) => &n.turn_id,
        ServerNotification::ThreadTokenUsageUpdated(n) => &n.turn_id,
        ServerNotification::TurnCompleted(n) => &n.turn.id,
        ServerNotification::Error(n) => &n.turn_id,
        _ => return None,
    })
}

/// `(item id, kind, name, input)` for items shown as tool cards.
fn tool_of(item: &ThreadItem) -> Option<(String, ToolKind, String, Value)> {
    Some(match item {
        ThreadItem::CommandExecution(c) => (
            c.id.clone(),
            ToolKind::Command,
            "shell".into(),
            json!({"command": c.command, "cwd": c.cwd}),
        ),
        ThreadItem::FileChange(f) => {
            let files: Vec<Value> = f
                .changes
                .iter()
                .map(|c| json!({"path": c.path, "kind": change_kind(&c.kind)}))
                .collect();
            (
                f.id.clone(),
                ToolKind::FileChange,
                "apply_patch".into(),
                json!({"changes": files}),
            )
        }
        ThreadItem::McpToolCall(m) => (
            m.id.clone(),
            ToolKind::Mcp,
            format!("{}/{}", m.server, m.tool),
            m.arguments.clone(),
        ),
        ThreadItem::WebSearch(w) => (
            w.id.clone(),
            ToolKind::Web,
            "web_search".into(),
            json!({"query": w.query, "action": w.action}),
        ),
        ThreadItem::DynamicToolCall(d) => (
            d.id.clone(),
            ToolKind::Other,
            d.tool.clone(),
            d.arguments.clone(),
        ),
        ThreadItem::ImageView(i) => (
            i.id.clone(),
            ToolKind::Other,
            "view_image".into(),
            json!({"path": i.path}),
        ),
        ThreadItem::Plan(p) => (p.id.clone(), ToolKind::Other, "plan".into(), Value::Null),
        ThreadItem::CollabAgentToolCall(c) => {
            let (name, input) = super::subagents::card(c);
            let kind = if c.tool == "spawnAgent" {
                ToolKind::Agent
            } else {
                ToolKind::Other
            };
            (c.id.clone(), kind, name, input)
        }
        _ => return None,
    })
}

fn tool_status(s: &CommandExecutionStatus) -> ToolStatus {
    match s {
        CommandExecutionStatus::Completed => ToolStatus::Completed,
        CommandExecutionStatus::Failed => ToolStatus::Failed,
        CommandExecutionStatus::Declined => ToolStatus::Declined,
        CommandExecutionStatus::InProgress => ToolStatus::Running,
        CommandExecutionStatus::Unknown(_) => ToolStatus::Completed,
    }
}

pub(crate) fn change_kind(k: &PatchChangeKind) -> FileChangeKind {
    match k {
        PatchChangeKind::Add => FileChangeKind::Add,
        PatchChangeKind::Delete => FileChangeKind::Delete,
        PatchChangeKind::Update { move_path: Some(_) } => FileChangeKind::Move,
        PatchChangeKind::Update { move_path: None } | PatchChangeKind::Unknown(_) => {
            FileChangeKind::Update
        }
    }
}

fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

pub(crate) fn diagnostic(
    source: DiagnosticSource,
    message: String,
    raw: Option<Value>,
) -> AgentEvent {
    AgentEvent::EngineDiagnostic {
        source,
        message,
        raw,
    }
}

fn unknown_item(raw: &Value) -> AgentEvent {
    let ty = raw.get("type").and_then(Value::as_str).unwrap_or("?");
    diagnostic(
        DiagnosticSource::UnknownMessage,
        format!("unknown codex item type `{ty}`"),
        Some(raw.clone()),
    )
}

/// A sentence for the user from codex's turn error.
pub(crate) fn model_error_message(msg: &str, code: Option<&str>) -> String {
    match code {
        Some("http_401") => {
            format!("The model provider rejected the credentials (HTTP 401): {msg}")
        }
        Some(c) if c.starts_with("http_") => {
            format!(
                "The model request failed (HTTP {}): {msg}",
                c.trim_start_matches("http_")
            )
        }
        _ => format!("The model request failed: {msg}"),
    }
}

/// What the timeline says of an MCP server that could not start (`None`: it is starting or
/// ready, which is routine).
pub(crate) fn mcp_failure(
    m: &agentdesk_protocol::codex::McpServerStartupStatusUpdatedNotification,
) -> Option<String> {
    (m.status == "failed").then(|| {
        let why = m
            .error
            .as_deref()
            .or(m.failure_reason.as_deref())
            .unwrap_or("no reason given");
        format!("The MCP server {} could not start: {why}", m.name)
    })
}
