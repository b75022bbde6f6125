//! Claude's plan → the run's one plan item ([`AgentEvent::PlanUpdated`]).
//!
//! Claude Code 2.1 keeps its checklist with task tools, each call changing one task that the
//! CLI names by id (verified with the pinned 2.1.328 against the fake model server):
//! - `TaskCreate{subject, description, activeForm}` → `tool_use_result.task{id, subject}`;
//! - `TaskUpdate{taskId, status?, subject?, activeForm?}` → `{success, taskId, statusChange}`
//!   (`status: "deleted"` removes it);
//! - `TaskList{}` → `tool_use_result.tasks[{id, subject, status, blockedBy}]`: the whole list.
//!
//! Older versions (and the Agent SDK's default) use `TodoWrite{todos[{content, status,
//! activeForm}]}`, the whole list each time; 2.1.328 answers it "No such tool available".
//! Every call waits for its result: a call the CLI refused changes nothing and is shown as
//! the failed tool call it is. The tasks of earlier runs of the session come in as the
//! session's last plan ([`Tasks::continuing`]), so an update naming one keeps its subject.

use std::collections::HashMap;

use agentdesk_protocol::events::{AgentEvent, DiagnosticSource};
use agentdesk_protocol::plan::{Plan, PlanEntry, PlanStatus};
use serde_json::{json, Value};

/// The run's plan item (items are keyed by run, so one name serves every run).
pub(super) const PLAN_ITEM: &str = "plan";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Todos,
    Create,
    Update,
    List,
}

impl Kind {
    fn of(tool: &str) -> Option<Self> {
        match tool {
            "TodoWrite" => Some(Self::Todos),
            "TaskCreate" => Some(Self::Create),
            "TaskUpdate" => Some(Self::Update),
            "TaskList" => Some(Self::List),
            _ => None,
        }
    }
}

/// A plan tool call waiting for its result.
#[derive(Debug, Clone)]
pub(super) struct PlanCall {
    kind: Kind,
    pub name: String,
    pub input: Value,
}

/// What became of a plan tool call's result.
#[derive(Debug)]
pub(super) enum Applied {
    /// The plan changed (or was confirmed): the item shows it, no tool card.
    Plan,
    /// Refused or unreadable: show the call as the tool call it was.
    Tool(PlanCall),
}

#[derive(Debug, Default)]
pub(super) struct Tasks {
    plan: Plan,
    calls: HashMap<String, PlanCall>,
}

impl Tasks {
    /// Continuing the session's plan as last shown: its entries with ids are the CLI's
    /// tasks (a `TodoWrite` list has none and is replaced whole anyway).
    pub fn continuing(plan: Option<Plan>) -> Self {
        let entries = plan
            .map(|p| p.entries)
            .unwrap_or_default()
            .into_iter()
            .filter(|e| e.id.is_some())
            .collect();
        Self {
            plan: Plan {
                explanation: None,
                entries,
            },
            ..Self::default()
        }
    }

    /// A tool use: `true` when it is a plan tool (no tool card; its result decides).
    pub fn on_tool_use(&mut self, id: &str, name: &str, input: &Value) -> bool {
        let Some(kind) = Kind::of(name) else {
            return false;
        };
        self.calls.insert(
            id.to_owned(),
            PlanCall {
                kind,
                name: name.to_owned(),
                input: input.clone(),
            },
        );
        true
    }

    /// The result of tool use `id`, if it was a plan tool's. `structured` is the CLI's
    /// `tool_use_result`.
    pub fn on_result(
        &mut self,
        id: &str,
        is_error: bool,
        structured: Option<&Value>,
        out: &mut Vec<AgentEvent>,
    ) -> Option<Applied> {
        let call = self.calls.remove(id)?;
        if is_error {
            return Some(Applied::Tool(call));
        }
        let applied = match call.kind {
            Kind::Todos => self.todos(&call.input, out),
            Kind::Create => self.create(&call.input, structured),
            Kind::Update => self.update(&call.input, out),
            Kind::List => self.list(structured, out),
        };
        if !applied {
            out.push(AgentEvent::EngineDiagnostic {
                source: DiagnosticSource::UnknownMessage,
                message: format!(
                    "unreadable claude `{}` call (shown as a tool call)",
                    call.name
                ),
                raw: Some(json!({"input": call.input, "result": structured})),
            });
            return Some(Applied::Tool(call));
        }
        out.push(AgentEvent::PlanUpdated {
            item_id: PLAN_ITEM.into(),
            plan: self.plan.clone(),
        });
        Some(Applied::Plan)
    }

    /// Plan calls still waiting when the run ended: shown as the tool calls they were.
    pub fn unanswered(&mut self) -> Vec<(String, PlanCall)> {
        let mut open: Vec<_> = self.calls.drain().collect();
        open.sort_by(|a, b| a.0.cmp(&b.0));
        open
    }

    fn todos(&mut self, input: &Value, out: &mut Vec<AgentEvent>) -> bool {
        let Some(todos) = input.get("todos").and_then(Value::as_array) else {
            return false;
        };
        let mut entries = Vec::with_capacity(todos.len());
        for t in todos {
            let Some(step) = t.get("content").and_then(Value::as_str) else {
                return false;
            };
            entries.push(PlanEntry {
                id: None,
                step: step.to_owned(),
                active_form: text(t, "activeForm"),
                status: status(t.get("status"), out),
            });
        }
        self.plan.entries = entries;
        true
    }

    fn create(&mut self, input: &Value, structured: Option<&Value>) -> bool {
        let task = structured.and_then(|s| s.get("task"));
        let Some(id) = task.and_then(|t| id_of(t.get("id"))) else {
            return false;
        };
        let Some(step) = task
            .and_then(|t| text(t, "subject"))
            .or_else(|| text(input, "subject"))
        else {
            return false;
        };
        let entry = PlanEntry {
            id: Some(id.clone()),
            step,
            active_form: text(input, "activeForm"),
            status: PlanStatus::Pending,
        };
        match self.position(&id) {
            Some(i) => self.plan.entries[i] = entry,
            None => self.plan.entries.push(entry),
        }
        true
    }

    fn update(&mut self, input: &Value, out: &mut Vec<AgentEvent>) -> bool {
        let Some(id) = id_of(input.get("taskId")) else {
            return false;
        };
        if input.get("status").and_then(Value::as_str) == Some("deleted") {
            if let Some(i) = self.position(&id) {
                self.plan.entries.remove(i);
            }
            return true;
        }
        let i = match self.position(&id) {
            Some(i) => i,
            None => {
                // A task of an earlier run this app did not see (made in the terminal).
                self.plan.entries.push(PlanEntry {
                    id: Some(id.clone()),
                    step: format!("Task #{id}"),
                    active_form: None,
                    status: PlanStatus::Pending,
                });
                self.plan.entries.len() - 1
            }
        };
        let new_status = input.get("status").map(|s| status(Some(s), out));
        let e = &mut self.plan.entries[i];
        if let Some(s) = text(input, "subject") {
            e.step = s;
        }
        if let Some(a) = text(input, "activeForm") {
            e.active_form = Some(a);
        }
        if let Some(s) = new_status {
            e.status = s;
        }
        true
    }

    fn list(&mut self, structured: Option<&Value>, out: &mut Vec<AgentEvent>) -> bool {
        let Some(tasks) = structured
            .and_then(|s| s.get("tasks"))
            .and_then(Value::as_array)
        else {
            return false;
        };
        let mut entries = Vec::with_capacity(tasks.len());
        for t in tasks {
            let (Some(id), Some(step)) = (id_of(t.get("id")), text(t, "subject")) else {
                return false;
            };
            let active_form = self
                .position(&id)
                .and_then(|i| self.plan.entries[i].active_form.clone());
            entries.push(PlanEntry {
                id: Some(id),
                step,
                active_form,
                status: status(t.get("status"), out),
            });
        }
        self.plan.entries = entries;
        true
    }

    fn position(&self, id: &str) -> Option<usize> {
        self.plan
            .entries
            .iter()
            .position(|e| e.id.as_deref() == Some(id))
    }
}

fn text(v: &Value, key: &str) -> Option<String> {
    v.get(key)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

/// Task ids are strings ("1") on the wire; a number is taken too.
fn id_of(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// A status this build does not know is shown as pending and reported.
fn status(v: Option<&Value>, out: &mut Vec<AgentEvent>) -> PlanStatus {
    let s = v.and_then(Value::as_str).unwrap_or("pending");
    PlanStatus::from_wire(s).unwrap_or_else(|| {
        out.push(AgentEvent::EngineDiagnostic {
            source: DiagnosticSource::UnknownMessage,
            message: format!("unknown claude task status `{s}` (shown as pending)"),
            raw: v.cloned(),
        });
        PlanStatus::Pending
    })
}
