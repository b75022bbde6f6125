//! One reducer per run: canonical [`AgentEvent`]s in, timeline items out. Items are keyed
//! `<run id>:<engine item id>` and updated in place (deltas append to the item), so what is
//! persisted and sent is the latest state of each changed item, not every delta. An approval
//! is shown inside the tool item it is about (one card), like Zed's acp_thread; the item
//! holds only the approval's id (the queue's record is the approval: see
//! [`crate::approvals`]), linked with [`RunReducer::link_approval`].
//!
//! The reducer keeps two sets of changed items: `dirty` (since the recorder's last write) and
//! `changed` (since the live view's last op), so one reducer feeds both (see
//! [`crate::pipeline`]).

use std::collections::{BTreeSet, HashMap};

use agentdesk_protocol::events::{
    AgentEvent, ApprovalKind, DiagnosticSource, FileChangeKind, ToolKind, ToolStatus,
};
use agentdesk_protocol::ids::{ApprovalId, RunId, SessionId};
use agentdesk_protocol::ui::{ItemBody, ItemStatus, NoticeLevel, RunStatus, TimelineItem};
use serde_json::Value;

/// How the run ended, as the reducer saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunOutcome {
    pub status: RunStatus,
    pub stop_reason: Option<String>,
    pub error: Option<String>,
}

type Clock = Box<dyn Fn() -> i64 + Send + Sync>;

/// The timeline state of one run.
pub struct RunReducer {
    session_id: SessionId,
    run_id: RunId,
    items: Vec<TimelineItem>,
    by_id: HashMap<String, usize>,
    /// Changed since the recorder last took them.
    dirty: BTreeSet<usize>,
    /// Changed since the live view last took them.
    changed: BTreeSet<usize>,
    /// Engine request id → item index holding that approval or question.
    requests: HashMap<String, usize>,
    /// Engine request id → the queue's approval id, for requests whose item is not made yet.
    links: HashMap<String, ApprovalId>,
    /// Item key → the key of the tool call it is nested under (a subagent's work), told by
    /// `item.parent` before the item's first event.
    parents: HashMap<String, String>,
    diagnostics: u64,
    outcome: Option<RunOutcome>,
    clock: Clock,
    /// Tool outputs past the timeline's limit (head and tail here, the whole in a file).
    outputs: crate::tool_output::ToolOutputs,
}

impl std::fmt::Debug for RunReducer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunReducer")
            .field("run_id", &self.run_id)
            .field("items", &self.items.len())
            .finish_non_exhaustive()
    }
}

fn tool_status(s: ToolStatus) -> ItemStatus {
    match s {
        ToolStatus::Running => ItemStatus::Running,
        ToolStatus::Completed => ItemStatus::Completed,
        ToolStatus::Failed => ItemStatus::Failed,
        ToolStatus::Declined => ItemStatus::Declined,
        ToolStatus::Interrupted => ItemStatus::Interrupted,
    }
}

impl RunReducer {
    pub fn new(session_id: &SessionId, run_id: &RunId) -> RunReducer {
        Self::with_clock(session_id, run_id, Box::new(agentdesk_store::now_ms))
    }

    /// With a clock of its own (tests use a fixed one for stable snapshots).
    pub fn with_clock(session_id: &SessionId, run_id: &RunId, clock: Clock) -> RunReducer {
        RunReducer {
            session_id: session_id.clone(),
            run_id: run_id.clone(),
            items: Vec::new(),
            by_id: HashMap::new(),
            dirty: BTreeSet::new(),
            changed: BTreeSet::new(),
            requests: HashMap::new(),
            links: HashMap::new(),
            parents: HashMap::new(),
            diagnostics: 0,
            outcome: None,
            clock,
            outputs: crate::tool_output::ToolOutputs::default(),
        }
    }

    pub fn run_id(&self) -> &RunId {
        &self.run_id
    }

    pub fn items(&self) -> &[TimelineItem] {
        &self.items
    }

    pub fn outcome(&self) -> Option<&RunOutcome> {
        self.outcome.as_ref()
    }

    /// Items changed since the last call, in timeline order (what the recorder writes).
    pub fn take_dirty(&mut self) -> Vec<TimelineItem> {
        std::mem::take(&mut self.dirty)
            .into_iter()
            .filter_map(|i| self.items.get(i).cloned())
            .collect()
    }

    /// Items changed since the last call, in timeline order (what the live view sends).
    pub fn take_changed(&mut self) -> Vec<TimelineItem> {
        std::mem::take(&mut self.changed)
            .into_iter()
            .filter_map(|i| self.items.get(i).cloned())
            .collect()
    }

    /// Forget which items the live view has not seen (it sent a delta instead of the item).
    pub fn clear_changed(&mut self) {
        self.changed.clear();
    }

    /// What the files of cut tool outputs owe, by item id (see [`crate::tool_output`]).
    pub fn take_output_spills(&mut self) -> Vec<(String, crate::tool_output::Spill)> {
        self.outputs.take_spills()
    }

    fn touch(&mut self, i: usize) {
        self.dirty.insert(i);
        self.changed.insert(i);
    }

    /// Whether the item this engine item id maps to exists yet.
    pub fn has_item(&self, engine_id: &str) -> bool {
        self.by_id.contains_key(&self.key(engine_id))
    }

    /// The timeline id of an engine item of this run (`<run id>:<engine item id>`).
    pub fn item_key(&self, engine_id: &str) -> String {
        self.key(engine_id)
    }

    pub fn has_dirty(&self) -> bool {
        !self.dirty.is_empty()
    }

    fn key(&self, engine_id: &str) -> String {
        format!("{}:{engine_id}", self.run_id)
    }

    /// The item with this key, created with `make` when new. Marks it changed.
    fn upsert(&mut self, key: String, make: impl FnOnce() -> (ItemStatus, ItemBody)) -> usize {
        let now = (self.clock)();
        let idx = match self.by_id.get(&key) {
            Some(&i) => {
                self.items[i].updated_at = now;
                i
            }
            None => {
                let (status, body) = make();
                let i = self.items.len();
                self.items.push(TimelineItem {
                    id: key.clone(),
                    session_id: self.session_id.clone(),
                    run_id: self.run_id.clone(),
                    // 0 is the user message (see `sessions::user_item_id`).
                    seq: i as i64 + 1,
                    status,
                    body,
                    created_at: now,
                    updated_at: now,
                    parent_id: self.parents.get(&key).cloned(),
                });
                self.by_id.insert(key, i);
                i
            }
        };
        self.touch(idx);
        idx
    }

    fn push_new(&mut self, key: String, status: ItemStatus, body: ItemBody) -> usize {
        self.upsert(key, || (status, body))
    }

    fn append_text(&mut self, engine_id: &str, delta: &str, reasoning: bool) {
        let key = self.key(engine_id);
        let i = self.upsert(key, || {
            let text = String::new();
            let body = if reasoning {
                ItemBody::Reasoning { text }
            } else {
                ItemBody::AgentMessage { text }
            };
            (ItemStatus::Running, body)
        });
        if let ItemBody::AgentMessage { text } | ItemBody::Reasoning { text } =
            &mut self.items[i].body
        {
            text.push_str(delta);
        }
    }

    fn complete_text(&mut self, engine_id: &str, full: &str, reasoning: bool) {
        let key = self.key(engine_id);
        let i = self.upsert(key, || {
            let body = if reasoning {
                ItemBody::Reasoning {
                    text: String::new(),
                }
            } else {
                ItemBody::AgentMessage {
                    text: String::new(),
                }
            };
            (ItemStatus::Running, body)
        });
        let item = &mut self.items[i];
        if let ItemBody::AgentMessage { text } | ItemBody::Reasoning { text } = &mut item.body {
            // The completed text is authoritative over the streamed pieces.
            *text = full.to_string();
        }
        item.status = ItemStatus::Completed;
    }

    fn tool_item(&mut self, engine_id: &str, kind: ToolKind) -> usize {
        let key = self.key(engine_id);
        self.upsert(key, || {
            (
                ItemStatus::Running,
                ItemBody::Tool {
                    tool_kind: kind,
                    name: String::new(),
                    input: Value::Null,
                    output: String::new(),
                    output_bytes: None,
                    exit_code: None,
                    files: Vec::new(),
                    approval_id: None,
                },
            )
        })
    }

    /// Apply one event. Returns true when it ended the run. A flat mapping: each kind of
    /// event has its own method below.
    pub fn apply(&mut self, ev: &AgentEvent) -> bool {
        if self.outcome.is_some() {
            // Nothing follows a terminal event; stragglers are ignored, not appended.
            return false;
        }
        match ev {
            // The account's, not the run's: the core keeps the latest (`rate_limits`).
            // The core keeps the latest commands for the composer (`models::list_commands`).
            AgentEvent::RunStarted { .. }
            | AgentEvent::RateLimits(_)
            | AgentEvent::CommandsAvailable { .. } => {}
            AgentEvent::ItemParent {
                item_id,
                parent_item_id,
            } => self.on_item_parent(item_id, parent_item_id),
            AgentEvent::MessageDelta { item_id, text } => self.append_text(item_id, text, false),
            AgentEvent::MessageCompleted { item_id, text } => {
                self.complete_text(item_id, text, false)
            }
            AgentEvent::ReasoningDelta { item_id, text } => self.append_text(item_id, text, true),
            AgentEvent::ReasoningCompleted { item_id, text } => {
                self.complete_text(item_id, text, true)
            }
            AgentEvent::ToolStarted {
                item_id,
                kind,
                name,
                input,
            } => self.on_tool_started(item_id, *kind, name, input),
            AgentEvent::ToolUpdated {
                item_id,
                kind,
                output,
            } => self.on_tool_updated(item_id, *kind, output),
            AgentEvent::ToolCompleted { .. } => self.on_tool_completed(ev),
            AgentEvent::FileChanged {
                item_id,
                path,
                kind,
                diff,
            } => self.on_file_changed(item_id, path, *kind, diff),
            AgentEvent::ApprovalRequested {
                request_id,
                kind,
                item_id,
                ..
            } => self.on_approval_requested(request_id, *kind, item_id.as_deref()),
            // How a request ended is the queue's record, not the item's.
            AgentEvent::ApprovalResolved { .. } | AgentEvent::QuestionAnswered { .. } => {}
            AgentEvent::QuestionAsked {
                request_id,
                item_id,
                ..
            } => self.on_question_asked(request_id, item_id.as_deref()),
            AgentEvent::Usage(_) => self.on_usage(ev),
            AgentEvent::PlanUpdated { item_id, plan } => self.on_plan(item_id, plan),
            AgentEvent::EngineDiagnostic {
                source,
                message,
                raw,
            } => self.on_diagnostic(*source, message, raw.as_ref()),
            AgentEvent::RunCompleted { .. }
            | AgentEvent::RunFailed { .. }
            | AgentEvent::RunInterrupted {} => {
                self.on_run_end(ev);
                return true;
            }
        }
        false
    }

    /// Nest `item_id` under `parent_item_id` (an item already made is moved there). A parent
    /// this run never showed (a malformed record) nests nothing: the item stays in the run's
    /// own list rather than hidden under a card that does not exist.
    fn on_item_parent(&mut self, item_id: &str, parent_item_id: &str) {
        let (key, parent) = (self.key(item_id), self.key(parent_item_id));
        if key == parent || !self.by_id.contains_key(&parent) {
            return;
        }
        if let Some(&i) = self.by_id.get(&key) {
            self.items[i].parent_id = Some(parent.clone());
            self.touch(i);
        }
        self.parents.insert(key, parent);
    }

    fn on_tool_updated(&mut self, item_id: &str, kind: ToolKind, output: &str) {
        let i = self.tool_item(item_id, kind);
        let key = self.items[i].id.clone();
        if let ItemBody::Tool {
            output: o,
            output_bytes,
            ..
        } = &mut self.items[i].body
        {
            *output_bytes = self.outputs.append(&key, o, output);
        }
    }

    fn on_usage(&mut self, ev: &AgentEvent) {
        let AgentEvent::Usage(tokens) = ev else {
            return;
        };
        let body = ItemBody::Usage(*tokens);
        let key = self.key("usage");
        let i = self.push_new(key, ItemStatus::Completed, body.clone());
        self.items[i].body = body;
    }

    /// The plan's item keeps its place in the timeline (where the plan was first made) and
    /// shows the latest list.
    fn on_plan(&mut self, item_id: &str, plan: &agentdesk_protocol::plan::Plan) {
        let key = self.key(item_id);
        let body = ItemBody::Plan(plan.clone());
        let i = self.push_new(key, ItemStatus::Completed, body.clone());
        self.items[i].body = body;
    }

    /// A terminal event: the run's end row and outcome.
    fn on_run_end(&mut self, ev: &AgentEvent) {
        match ev {
            AgentEvent::RunCompleted { stop_reason } => self.finish(RunOutcome {
                status: RunStatus::Completed,
                stop_reason: Some(stop_reason.clone()),
                error: None,
            }),
            AgentEvent::RunFailed { error, code } => self.on_run_failed(error, code.as_deref()),
            AgentEvent::RunInterrupted {} => {
                self.end_notice(NoticeLevel::Info, "Interrupted".into());
                self.finish(RunOutcome {
                    status: RunStatus::Interrupted,
                    stop_reason: None,
                    error: None,
                });
            }
            _ => {}
        }
    }

    fn on_tool_started(&mut self, item_id: &str, kind: ToolKind, name: &str, input: &Value) {
        let i = self.tool_item(item_id, kind);
        if let ItemBody::Tool {
            tool_kind,
            name: n,
            input: inp,
            ..
        } = &mut self.items[i].body
        {
            *tool_kind = kind;
            *n = name.to_owned();
            *inp = input.clone();
        }
    }

    fn on_tool_completed(&mut self, ev: &AgentEvent) {
        let AgentEvent::ToolCompleted {
            item_id,
            kind,
            name,
            input,
            output,
            status,
            exit_code,
        } = ev
        else {
            return;
        };
        let i = self.tool_item(item_id, *kind);
        let key = self.items[i].id.clone();
        let item = &mut self.items[i];
        item.status = tool_status(*status);
        if let ItemBody::Tool {
            tool_kind,
            name: n,
            input: inp,
            output: o,
            output_bytes,
            exit_code: x,
            ..
        } = &mut item.body
        {
            *tool_kind = *kind;
            if !name.is_empty() {
                *n = name.clone();
            }
            if !input.is_null() {
                *inp = input.clone();
            }
            *x = *exit_code;
            *output_bytes = match output {
                Some(full) => self.outputs.complete(&key, o, full),
                None => self.outputs.finish(&key, o),
            };
        }
    }

    /// A file change joins its tool's card when there is one, else it is a row of its own.
    fn on_file_changed(&mut self, item_id: &str, path: &str, kind: FileChangeKind, diff: &str) {
        let file = agentdesk_protocol::events::ApprovalFile {
            path: path.to_owned(),
            kind,
            diff: diff.to_owned(),
        };
        match self.by_id.get(&self.key(item_id)).copied() {
            Some(i) if matches!(self.items[i].body, ItemBody::Tool { .. }) => {
                self.touch(i);
                if let ItemBody::Tool { files, .. } = &mut self.items[i].body {
                    match files.iter_mut().find(|f| f.path == path) {
                        Some(f) => *f = file,
                        None => files.push(file),
                    }
                }
            }
            _ => {
                let key = self.key(&format!("{item_id}:file:{path}"));
                let i = self.push_new(
                    key,
                    ItemStatus::Completed,
                    ItemBody::FileChange {
                        path: path.to_owned(),
                        change_kind: kind,
                        diff: diff.to_owned(),
                    },
                );
                if let ItemBody::FileChange {
                    change_kind,
                    diff: d,
                    ..
                } = &mut self.items[i].body
                {
                    *change_kind = kind;
                    diff.clone_into(d);
                }
            }
        }
    }

    /// The queue recorded the engine request `request_id` as approval `id`: the item showing
    /// it names it (now, or when the request's event makes the item).
    pub fn link_approval(&mut self, request_id: &str, id: ApprovalId) {
        match self.requests.get(request_id).copied() {
            Some(i) => {
                if let ItemBody::Tool { approval_id, .. }
                | ItemBody::Approval { approval_id }
                | ItemBody::Question { approval_id } = &mut self.items[i].body
                {
                    *approval_id = Some(id);
                }
                self.touch(i);
            }
            None => {
                self.links.insert(request_id.to_owned(), id);
            }
        }
    }

    /// On its tool's card when it names one, else a row of its own (done at once: the row
    /// only points at the record, which says how the request is doing).
    fn on_approval_requested(
        &mut self,
        request_id: &str,
        kind: ApprovalKind,
        item_id: Option<&str>,
    ) {
        let id = self.links.remove(request_id);
        let i = match item_id {
            Some(tool_id) => {
                let tk = match kind {
                    ApprovalKind::Command => ToolKind::Command,
                    ApprovalKind::FileChange => ToolKind::FileChange,
                    _ => ToolKind::Other,
                };
                let i = self.tool_item(tool_id, tk);
                if let ItemBody::Tool { approval_id, .. } = &mut self.items[i].body {
                    *approval_id = id;
                }
                i
            }
            None => {
                let key = self.key(&format!("approval:{request_id}"));
                self.push_new(
                    key,
                    ItemStatus::Completed,
                    ItemBody::Approval { approval_id: id },
                )
            }
        };
        self.requests.insert(request_id.to_owned(), i);
    }

    fn on_question_asked(&mut self, request_id: &str, item_id: Option<&str>) {
        let mut key = self.key(item_id.unwrap_or(request_id));
        // Claude asks through a tool call (AskUserQuestion) whose id already names the tool
        // card: reusing that item would keep the tool body and lose the question, so the
        // question gets a row of its own.
        if self
            .by_id
            .get(&key)
            .is_some_and(|&i| !matches!(self.items[i].body, ItemBody::Question { .. }))
        {
            key = self.key(&format!("question:{request_id}"));
        }
        let approval_id = self.links.remove(request_id);
        let i = self.push_new(
            key,
            ItemStatus::Completed,
            ItemBody::Question { approval_id },
        );
        self.requests.insert(request_id.to_owned(), i);
    }

    fn on_diagnostic(&mut self, source: DiagnosticSource, message: &str, raw: Option<&Value>) {
        self.diagnostics += 1;
        let key = self.key(&format!("diag:{}", self.diagnostics));
        let body = match source {
            DiagnosticSource::Notice => ItemBody::Notice {
                level: NoticeLevel::Info,
                text: message.to_owned(),
            },
            _ => ItemBody::Diagnostic {
                source,
                message: message.to_owned(),
                raw: raw.cloned(),
            },
        };
        self.push_new(key, ItemStatus::Completed, body);
    }

    fn on_run_failed(&mut self, error: &str, code: Option<&str>) {
        let text = match code {
            Some(c) => format!("{error} ({c})"),
            None => error.to_owned(),
        };
        self.end_notice(NoticeLevel::Error, text);
        self.finish(RunOutcome {
            status: RunStatus::Failed,
            stop_reason: code.map(str::to_owned),
            error: Some(error.to_owned()),
        });
    }

    /// The row that says how the run ended.
    fn end_notice(&mut self, level: NoticeLevel, text: String) {
        let key = self.key("end");
        self.push_new(key, ItemStatus::Completed, ItemBody::Notice { level, text });
    }

    /// Close what is still open: a completed run's unfinished messages are complete, any
    /// other unfinished item was interrupted. (Approvals still pending are ended by the
    /// queue when the run ends: their record says so, not the item.)
    fn finish(&mut self, outcome: RunOutcome) {
        let completed = outcome.status == RunStatus::Completed;
        for i in 0..self.items.len() {
            let item = &mut self.items[i];
            if item.status == ItemStatus::Running {
                let text_like = matches!(
                    item.body,
                    ItemBody::AgentMessage { .. } | ItemBody::Reasoning { .. }
                );
                item.status = if completed && text_like {
                    ItemStatus::Completed
                } else {
                    ItemStatus::Interrupted
                };
                self.touch(i);
            }
        }
        self.outcome = Some(outcome);
    }
}
