//! One reducer per run: canonical [`AgentEvent`]s in, timeline items out. Items are keyed
//! `<run id>:<engine item id>` and updated in place (deltas append to the item), so what is
//! persisted and sent is the latest state of each changed item, not every delta. An approval
//! lives inside the tool item it is about (one card), like Zed's acp_thread.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use agentdesk_protocol::events::{
    AgentEvent, ApprovalKind, ApprovalOutcome, DiagnosticSource, FileChangeKind, Question,
    ToolKind, ToolStatus,
};
use agentdesk_protocol::ids::{RunId, SessionId};
use agentdesk_protocol::ui::{
    Approval, ApprovalKindName, ApprovalState, ItemApproval, ItemBody, ItemStatus, NoticeLevel,
    RunStatus, TimelineItem,
};
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
    dirty: BTreeSet<usize>,
    /// Engine request id → item index holding that approval or question.
    requests: HashMap<String, usize>,
    diagnostics: u64,
    outcome: Option<RunOutcome>,
    clock: Clock,
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

fn kind_name(k: ApprovalKind) -> ApprovalKindName {
    match k {
        ApprovalKind::Command => ApprovalKindName::Command,
        ApprovalKind::FileChange => ApprovalKindName::FileChange,
        ApprovalKind::Permission => ApprovalKindName::Permission,
        ApprovalKind::Tool => ApprovalKindName::Tool,
    }
}

fn outcome_state(o: ApprovalOutcome) -> ApprovalState {
    match o {
        ApprovalOutcome::ApprovedOnce => ApprovalState::ApprovedOnce,
        ApprovalOutcome::ApprovedForSession => ApprovalState::ApprovedSession,
        ApprovalOutcome::Denied => ApprovalState::Denied,
        ApprovalOutcome::Expired => ApprovalState::Expired,
        ApprovalOutcome::Cancelled => ApprovalState::Cancelled,
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
            requests: HashMap::new(),
            diagnostics: 0,
            outcome: None,
            clock,
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

    /// Items changed since the last call, in timeline order.
    pub fn take_dirty(&mut self) -> Vec<TimelineItem> {
        std::mem::take(&mut self.dirty)
            .into_iter()
            .filter_map(|i| self.items.get(i).cloned())
            .collect()
    }

    /// Forget which items changed (the live view sent a delta instead of the item).
    pub fn clear_dirty(&mut self) {
        self.dirty.clear();
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
                });
                self.by_id.insert(key, i);
                i
            }
        };
        self.dirty.insert(idx);
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
                    exit_code: None,
                    files: Vec::new(),
                    approval: None,
                },
            )
        })
    }

    fn approval_mut(&mut self, idx: usize) -> Option<&mut ItemApproval> {
        match &mut self.items.get_mut(idx)?.body {
            ItemBody::Tool { approval, .. } => approval.as_mut(),
            ItemBody::Approval { approval } => Some(approval),
            _ => None,
        }
    }

    /// Apply one event. Returns true when it ended the run. A flat mapping: each kind of
    /// event has its own method below.
    pub fn apply(&mut self, ev: &AgentEvent) -> bool {
        if self.outcome.is_some() {
            // Nothing follows a terminal event; stragglers are ignored, not appended.
            return false;
        }
        match ev {
            AgentEvent::RunStarted { .. } => {}
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
            } => {
                let i = self.tool_item(item_id, *kind);
                if let ItemBody::Tool { output: o, .. } = &mut self.items[i].body {
                    o.push_str(output);
                }
            }
            AgentEvent::ToolCompleted { .. } => self.on_tool_completed(ev),
            AgentEvent::FileChanged {
                item_id,
                path,
                kind,
                diff,
            } => self.on_file_changed(item_id, path, *kind, diff),
            AgentEvent::ApprovalRequested { .. } => self.on_approval_requested(ev),
            AgentEvent::ApprovalResolved {
                request_id,
                outcome,
            } => self.on_approval_resolved(request_id, *outcome),
            AgentEvent::QuestionAsked {
                request_id,
                item_id,
                questions,
            } => self.on_question_asked(request_id, item_id.as_deref(), questions),
            AgentEvent::QuestionAnswered {
                request_id,
                answers,
            } => self.on_question_answered(request_id, answers.as_ref()),
            AgentEvent::Usage {
                input,
                cached,
                output,
                reasoning,
                cost_usd,
            } => {
                let body = ItemBody::Usage {
                    input: *input,
                    cached: *cached,
                    output: *output,
                    reasoning: *reasoning,
                    cost_usd: *cost_usd,
                };
                let key = self.key("usage");
                let i = self.push_new(key, ItemStatus::Completed, body.clone());
                self.items[i].body = body;
            }
            AgentEvent::EngineDiagnostic {
                source,
                message,
                raw,
            } => self.on_diagnostic(*source, message, raw.as_ref()),
            AgentEvent::RunCompleted { stop_reason } => {
                self.finish(RunOutcome {
                    status: RunStatus::Completed,
                    stop_reason: Some(stop_reason.clone()),
                    error: None,
                });
                return true;
            }
            AgentEvent::RunFailed { error, code } => {
                self.on_run_failed(error, code.as_deref());
                return true;
            }
            AgentEvent::RunInterrupted {} => {
                self.end_notice(NoticeLevel::Info, "Interrupted".into());
                self.finish(RunOutcome {
                    status: RunStatus::Interrupted,
                    stop_reason: None,
                    error: None,
                });
                return true;
            }
        }
        false
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
        let item = &mut self.items[i];
        item.status = tool_status(*status);
        if let ItemBody::Tool {
            tool_kind,
            name: n,
            input: inp,
            output: o,
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
            if let Some(full) = output {
                *o = full.clone();
            }
            *x = *exit_code;
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
                self.dirty.insert(i);
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

    /// On its tool's card when it names one, else a row of its own.
    fn on_approval_requested(&mut self, ev: &AgentEvent) {
        let AgentEvent::ApprovalRequested {
            request_id,
            kind,
            item_id,
            command,
            cwd,
            files,
            reason,
            ..
        } = ev
        else {
            return;
        };
        let approval = ItemApproval {
            approval_id: None,
            request_id: request_id.clone(),
            kind: kind_name(*kind),
            command: command.clone(),
            cwd: cwd.clone(),
            files: files.clone(),
            reason: reason.clone(),
            state: ApprovalState::Pending,
            decided_by: None,
        };
        let i = match item_id {
            Some(tool_id) => {
                let tk = match kind {
                    ApprovalKind::Command => ToolKind::Command,
                    ApprovalKind::FileChange => ToolKind::FileChange,
                    _ => ToolKind::Other,
                };
                let i = self.tool_item(tool_id, tk);
                if let ItemBody::Tool { approval: a, .. } = &mut self.items[i].body {
                    *a = Some(approval);
                }
                i
            }
            None => {
                let key = self.key(&format!("approval:{request_id}"));
                self.push_new(key, ItemStatus::Running, ItemBody::Approval { approval })
            }
        };
        self.requests.insert(request_id.clone(), i);
    }

    fn on_approval_resolved(&mut self, request_id: &str, outcome: ApprovalOutcome) {
        let Some(&i) = self.requests.get(request_id) else {
            return;
        };
        self.dirty.insert(i);
        let standalone = matches!(self.items[i].body, ItemBody::Approval { .. });
        if let Some(a) = self.approval_mut(i) {
            // The queue's record (set_approval) is authoritative: it knows a timeout from a
            // deny. The engine's word only fills a gap.
            if a.state == ApprovalState::Pending {
                a.state = outcome_state(outcome);
            }
        }
        if standalone {
            self.items[i].status = ItemStatus::Completed;
        }
    }

    fn on_question_asked(
        &mut self,
        request_id: &str,
        item_id: Option<&str>,
        questions: &[Question],
    ) {
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
        let i = self.push_new(
            key,
            ItemStatus::Running,
            ItemBody::Question {
                request_id: request_id.to_owned(),
                approval_id: None,
                questions: questions.to_vec(),
                answers: None,
                state: ApprovalState::Pending,
            },
        );
        self.requests.insert(request_id.to_owned(), i);
    }

    fn on_question_answered(
        &mut self,
        request_id: &str,
        answers: Option<&BTreeMap<String, Vec<String>>>,
    ) {
        let Some(&i) = self.requests.get(request_id) else {
            return;
        };
        self.dirty.insert(i);
        let item = &mut self.items[i];
        item.status = ItemStatus::Completed;
        if let ItemBody::Question {
            questions,
            answers: a,
            state,
            ..
        } = &mut item.body
        {
            // The engine has the answer now; what is kept (the store, the window, exports)
            // never holds a secret one (issue 19, item 8).
            *a = answers.map(|x| crate::approvals::mask_secret_answers(questions, x));
            if *state == ApprovalState::Pending {
                *state = if answers.is_some() {
                    ApprovalState::Answered
                } else {
                    ApprovalState::Expired
                };
            }
        }
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
    /// other unfinished item was interrupted; approvals still pending expired.
    fn finish(&mut self, outcome: RunOutcome) {
        let completed = outcome.status == RunStatus::Completed;
        for i in 0..self.items.len() {
            let item = &mut self.items[i];
            let mut changed = false;
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
                changed = true;
            }
            match &mut item.body {
                ItemBody::Tool {
                    approval: Some(a), ..
                }
                | ItemBody::Approval { approval: a }
                    if a.state == ApprovalState::Pending =>
                {
                    a.state = ApprovalState::Expired;
                    changed = true;
                }
                ItemBody::Question { state, .. } if *state == ApprovalState::Pending => {
                    *state = ApprovalState::Expired;
                    changed = true;
                }
                _ => {}
            }
            if changed {
                self.dirty.insert(i);
            }
        }
        self.outcome = Some(outcome);
    }

    /// Reflect the queue's record of an approval (its durable id, state, who decided).
    pub fn set_approval(&mut self, approval: &Approval) {
        let Some(&i) = self.requests.get(&approval.engine_request_id) else {
            return;
        };
        self.dirty.insert(i);
        let decided = !approval.state.is_pending();
        match &mut self.items[i].body {
            ItemBody::Tool {
                approval: Some(a), ..
            }
            | ItemBody::Approval { approval: a } => {
                a.approval_id = Some(approval.id.clone());
                a.state = approval.state;
                a.decided_by = approval.decided_by;
            }
            ItemBody::Question {
                approval_id,
                state,
                answers,
                ..
            } => {
                *approval_id = Some(approval.id.clone());
                *state = approval.state;
                if let Some(a) = approval.decision.as_ref().and_then(|d| d.answers.clone()) {
                    *answers = Some(a);
                }
            }
            _ => {}
        }
        if decided
            && matches!(
                self.items[i].body,
                ItemBody::Approval { .. } | ItemBody::Question { .. }
            )
        {
            self.items[i].status = ItemStatus::Completed;
        }
    }
}
