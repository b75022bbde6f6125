//! Claude Code's subagents (the `Agent` tool) within one run, as 2.1.328 reports them (see
//! `tests/fixtures/claude/subagent*.jsonl`):
//!
//! - `system/task_started {task_id, tool_use_id, subagent_type, description}` names the `Agent`
//!   call; `task_id` is the `agent_id` the subagent's messages and permission requests carry.
//! - The subagent's `assistant`/`user` lines carry `parent_tool_use_id` (the `Agent` call): its
//!   items are nested under that call.
//! - It works in the background: the `Agent` call's tool result ("Async agent launched") comes
//!   at once, and the main turn's `result` does not wait for it. `system/task_notification
//!   {status, summary}` ends it, and the CLI then runs a turn of its own to report it (a second
//!   `system/init` … `result`).
//!
//! So a run goes on past a `result` while a subagent works or a report turn is due, and the
//! `Agent` call's card stays running until its notification, which completes it with the
//! subagent's summary.

use std::collections::{HashMap, HashSet};

use agentdesk_protocol::claude::{BackgroundTasksChanged, TaskNotification, TaskStarted};
use agentdesk_protocol::events::{AgentEvent, ToolStatus};
use agentdesk_protocol::ui::TokenUsage;

/// A subagent as `task_started` described it.
#[derive(Debug, Clone)]
struct Agent {
    tool_use_id: Option<String>,
    subagent_type: Option<String>,
    description: Option<String>,
}

#[derive(Debug, Default)]
pub(super) struct Subagents {
    /// By `task_id` (= `agent_id`).
    agents: HashMap<String, Agent>,
    /// Subagents working in the background: `task_id` → their `Agent` call.
    open: HashMap<String, String>,
    /// Items already announced as nested (one `item.parent` each).
    nested: HashSet<String>,
    /// A task ended since the last turn began: the CLI runs a turn to report it.
    report_due: bool,
    /// A `result` came and the run goes on: the next `system/init` begins the report turn.
    between_turns: bool,
    /// The tokens of the run's turns so far (each `result` counts its own turn).
    usage: Option<TokenUsage>,
}

impl Subagents {
    pub(super) fn started(&mut self, t: TaskStarted) {
        let is_agent = t.subagent_type.is_some() || t.task_type.as_deref() == Some("local_agent");
        if is_agent && t.is_backgrounded != Some(false) {
            if let Some(call) = &t.tool_use_id {
                self.open.insert(t.task_id.clone(), call.clone());
            }
        }
        self.agents.insert(
            t.task_id,
            Agent {
                tool_use_id: t.tool_use_id,
                subagent_type: t.subagent_type,
                description: t.description,
            },
        );
    }

    /// The whole set of background tasks: a subagent missing from it has ended, whether or
    /// not its notification was read.
    pub(super) fn tasks_changed(&mut self, c: &BackgroundTasksChanged) {
        self.open
            .retain(|task, _| c.tasks.iter().any(|t| &t.task_id == task));
    }

    /// A task ended: the `Agent` call to complete (with its status and the subagent's
    /// summary), if it was a subagent's.
    pub(super) fn notified(&mut self, n: &TaskNotification) -> Option<(String, ToolStatus)> {
        self.report_due = true;
        self.open.remove(&n.task_id);
        let call = n.tool_use_id.clone().or_else(|| {
            self.agents
                .get(&n.task_id)
                .and_then(|a| a.tool_use_id.clone())
        })?;
        let status = match n.status.as_str() {
            "completed" => ToolStatus::Completed,
            "failed" => ToolStatus::Failed,
            _ => ToolStatus::Interrupted,
        };
        Some((call, status))
    }

    /// Whether the `Agent` call works in the background (its tool result is only the
    /// launch receipt, not the end).
    pub(super) fn is_background_call(&self, tool_use_id: &str) -> bool {
        self.open.values().any(|c| c == tool_use_id)
    }

    /// `system/init`: a turn begins; after a `result`, it is the CLI's report turn.
    pub(super) fn turn_began(&mut self) {
        if self.between_turns {
            self.between_turns = false;
            self.report_due = false;
        }
    }

    /// A turn's `result` (completed, not failed): whether the run goes on (a subagent still
    /// works, or the CLI is about to report one that ended).
    pub(super) fn turn_ended(&mut self) -> bool {
        let goes_on = !self.open.is_empty() || self.report_due;
        self.between_turns = goes_on;
        goes_on
    }

    /// Between turns with nothing working: only the CLI's report turn is awaited.
    pub(super) fn awaiting_report(&self) -> bool {
        self.between_turns && self.open.is_empty()
    }

    pub(super) fn between_turns(&self) -> bool {
        self.between_turns
    }

    /// The subagent that asks, in words: `general-purpose: Count files`.
    pub(super) fn name(&self, agent_id: &str) -> String {
        match self.agents.get(agent_id) {
            Some(a) => match (&a.subagent_type, &a.description) {
                (Some(t), Some(d)) => format!("{t}: {d}"),
                (Some(x), None) | (None, Some(x)) => x.clone(),
                (None, None) => agent_id.to_owned(),
            },
            None => agent_id.to_owned(),
        }
    }

    /// `item.parent` for an item of a subagent, the first time it is seen.
    pub(super) fn nest(&mut self, item_id: &str, parent: &str, out: &mut Vec<AgentEvent>) {
        if self.nested.insert(item_id.to_owned()) {
            out.push(AgentEvent::ItemParent {
                item_id: item_id.to_owned(),
                parent_item_id: parent.to_owned(),
            });
        }
    }

    /// This turn's tokens added to the run's: the run's usage so far.
    pub(super) fn add_usage(&mut self, turn: TokenUsage) -> TokenUsage {
        let sum = match self.usage {
            None => turn,
            Some(u) => TokenUsage {
                input: u.input.saturating_add(turn.input),
                cached: u.cached.saturating_add(turn.cached),
                output: u.output.saturating_add(turn.output),
                reasoning: u.reasoning.saturating_add(turn.reasoning),
                cost_usd: match (u.cost_usd, turn.cost_usd) {
                    (Some(a), Some(b)) => Some(a + b),
                    (a, b) => a.or(b),
                },
            },
        };
        self.usage = Some(sum);
        sum
    }
}
