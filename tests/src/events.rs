//! Reading a run's events in the engine suites (the real and the fake engines' suites,
//! conformance, engine_env): the same `next / until / until_end` for a Claude, a Codex, an ACP
//! or an engine-neutral run, each step bounded so a stuck engine fails the test instead of
//! hanging it; deciding its approvals; and what the suites look for in the events.

// Test support: a missing event is a failed test, reported by the panic.
#![allow(clippy::expect_used)]

use std::fmt::Debug;
use std::future::Future;
use std::time::Duration;

use agentdesk_engine::acp::AcpRun;
use agentdesk_engine::claude::ClaudeRun;
use agentdesk_engine::codex::CodexRun;
use agentdesk_engine::{AgentRun, ApprovalDecision, EngineError, RunHandle};
use agentdesk_protocol::events::{
    AgentEvent, ApprovalState, DiagnosticSource, ToolKind, ToolStatus, UserDecision,
};

/// The longest wait for one event.
pub const STEP: Duration = Duration::from_secs(30);

/// A run whose events can be read one by one, and whose requests can be decided.
pub trait EventSource {
    fn recv_event(&mut self) -> impl Future<Output = Option<AgentEvent>>;
    /// Interrupt, decide, answer.
    fn handle(&self) -> RunHandle;
}

impl EventSource for ClaudeRun {
    fn recv_event(&mut self) -> impl Future<Output = Option<AgentEvent>> {
        self.next_event()
    }
    fn handle(&self) -> RunHandle {
        self.control().handle()
    }
}

impl EventSource for CodexRun {
    fn recv_event(&mut self) -> impl Future<Output = Option<AgentEvent>> {
        self.next_event()
    }
    fn handle(&self) -> RunHandle {
        self.control()
    }
}

impl EventSource for AcpRun {
    fn recv_event(&mut self) -> impl Future<Output = Option<AgentEvent>> {
        self.next_event()
    }
    fn handle(&self) -> RunHandle {
        self.control()
    }
}

impl EventSource for AgentRun {
    fn recv_event(&mut self) -> impl Future<Output = Option<AgentEvent>> {
        self.next_event()
    }
    fn handle(&self) -> RunHandle {
        self.control()
    }
}

/// The run an engine's `start_run…` future gives, within `limit`; panics when it fails or
/// hangs.
pub async fn started<R, E: Debug>(limit: Duration, start: impl Future<Output = Result<R, E>>) -> R {
    tokio::time::timeout(limit, start)
        .await
        .expect("start_run timed out")
        .expect("start_run failed")
}

/// The next event; panics when none comes within [`STEP`] or the events ended.
pub async fn next(run: &mut impl EventSource) -> AgentEvent {
    tokio::time::timeout(STEP, run.recv_event())
        .await
        .expect("no event in time")
        .expect("events ended before a terminal event")
}

/// Events until (and including) the terminal one; then the stream must close within `wait`
/// (nothing follows the end).
pub async fn until_closed(run: &mut impl EventSource, wait: Duration) -> Vec<AgentEvent> {
    let seen = until_end(run).await;
    let after = tokio::time::timeout(wait, run.recv_event()).await;
    assert!(matches!(after, Ok(None)), "after the end: {after:?}");
    seen
}

/// Every event until the stream closes (each within [`STEP`]).
pub async fn all_events(run: &mut impl EventSource) -> Vec<AgentEvent> {
    let mut seen = Vec::new();
    while let Some(ev) = tokio::time::timeout(STEP, run.recv_event())
        .await
        .expect("no event in time")
    {
        seen.push(ev);
    }
    seen
}

/// Events until (and including) the terminal one, every approval decided with `decision`
/// as it comes (the decision must be accepted).
pub async fn until_end_deciding(
    run: &mut impl EventSource,
    decision: impl Into<ApprovalDecision> + Copy,
) -> Vec<AgentEvent> {
    let mut seen = Vec::new();
    loop {
        let ev = next(run).await;
        if let AgentEvent::ApprovalRequested { request_id, .. } = &ev {
            decide(run, request_id, decision).await;
        }
        let end = ev.is_terminal();
        seen.push(ev);
        if end {
            return seen;
        }
    }
}

/// Events until (and including) the terminal one.
pub async fn until_end(run: &mut impl EventSource) -> Vec<AgentEvent> {
    until_end_after(run, Vec::new()).await
}

/// Like [`until_end`], after the events already `seen`.
pub async fn until_end_after(
    run: &mut impl EventSource,
    mut seen: Vec<AgentEvent>,
) -> Vec<AgentEvent> {
    loop {
        let ev = next(run).await;
        let end = ev.is_terminal();
        seen.push(ev);
        if end {
            return seen;
        }
    }
}

/// The first event `pred` accepts; panics when the run ends before it.
pub async fn until(run: &mut impl EventSource, pred: impl Fn(&AgentEvent) -> bool) -> AgentEvent {
    until_into(run, pred, &mut Vec::new()).await
}

/// Like [`until`], keeping the events before the match in `seen`.
pub async fn until_into(
    run: &mut impl EventSource,
    pred: impl Fn(&AgentEvent) -> bool,
    seen: &mut Vec<AgentEvent>,
) -> AgentEvent {
    loop {
        let ev = next(run).await;
        if pred(&ev) {
            return ev;
        }
        assert!(
            !ev.is_terminal(),
            "run ended early: {ev:?}\nbefore: {seen:#?}"
        );
        seen.push(ev);
    }
}

/// Like [`until`], returning the events before the match too.
pub async fn until_seen(
    run: &mut impl EventSource,
    pred: impl Fn(&AgentEvent) -> bool,
) -> (AgentEvent, Vec<AgentEvent>) {
    let mut seen = Vec::new();
    let ev = until_into(run, pred, &mut seen).await;
    (ev, seen)
}

/// Decide the pending request `id` of `run` with `decision`, which must be accepted.
pub async fn decide(run: &impl EventSource, id: &str, decision: impl Into<ApprovalDecision>) {
    if let Err(e) = run.handle().resolve_approval(id, decision).await {
        panic!("the decision on {id} was refused: {e}");
    }
}

/// A second decision on `id` (already decided, withdrawn or expired) is refused as no longer
/// pending.
pub async fn assert_no_longer_pending(run: &impl EventSource, id: &str) {
    let again = run
        .handle()
        .resolve_approval(id, UserDecision::ApproveOnce)
        .await;
    assert!(
        matches!(again, Err(EngineError::NotPending { .. })),
        "{again:?}"
    );
}

/// A late decision on `id` is refused (however the engine says so).
pub async fn assert_refused(run: &impl EventSource, id: &str, what: &str) {
    let late = run
        .handle()
        .resolve_approval(id, UserDecision::ApproveOnce)
        .await;
    assert!(late.is_err(), "{what} was accepted");
}

/// Interrupt `run` once its answer streams: the events to its end, which must be
/// `run.interrupted` with the partial answer (its text starting `partial`) finalised.
pub async fn interrupted_mid_stream(run: &mut impl EventSource, partial: &str) -> Vec<AgentEvent> {
    until(run, |e| matches!(e, AgentEvent::MessageDelta { .. })).await;
    let t0 = std::time::Instant::now();
    run.handle().interrupt();
    let ev = until_end(run).await;
    eprintln!("interrupt → run.interrupted in {:?}", t0.elapsed());
    assert_interrupted(&ev);
    assert!(
        completed_messages(&ev)
            .iter()
            .any(|t| t.starts_with(partial)),
        "the partial answer was not finalised: {ev:#?}"
    );
    ev
}

/// The streamed text is `want`, whole and in order, in fewer than `fewer_than` delta events
/// of the `sent` deltas (those that arrive together leave the adapter merged).
pub fn assert_merged_stream(ev: &[AgentEvent], want: &str, sent: usize, fewer_than: usize) {
    let deltas = delta_pieces(ev);
    assert_eq!(deltas.concat(), want);
    assert!(
        deltas.len() < fewer_than,
        "{} delta events for {sent} deltas",
        deltas.len()
    );
}

/// An approval request.
pub fn is_approval(e: &AgentEvent) -> bool {
    matches!(e, AgentEvent::ApprovalRequested { .. })
}

/// An approval request or a question.
pub fn is_ask(e: &AgentEvent) -> bool {
    matches!(
        e,
        AgentEvent::ApprovalRequested { .. } | AgentEvent::QuestionAsked { .. }
    )
}

/// The request id of an approval request or a question.
pub fn request_id(e: &AgentEvent) -> String {
    match e {
        AgentEvent::ApprovalRequested { request_id, .. }
        | AgentEvent::QuestionAsked { request_id, .. } => request_id.clone(),
        other => panic!("not a request: {other:?}"),
    }
}

/// The streamed text pieces, in order.
pub fn delta_pieces(ev: &[AgentEvent]) -> Vec<&str> {
    ev.iter()
        .filter_map(|e| match e {
            AgentEvent::MessageDelta { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

/// The streamed text, joined.
pub fn deltas(ev: &[AgentEvent]) -> String {
    delta_pieces(ev).concat()
}

/// The streamed reasoning, joined.
pub fn reasoning(ev: &[AgentEvent]) -> String {
    ev.iter()
        .filter_map(|e| match e {
            AgentEvent::ReasoningDelta { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

/// The texts of the completed messages, in order.
pub fn completed_messages(ev: &[AgentEvent]) -> Vec<String> {
    ev.iter()
        .filter_map(|e| match e {
            AgentEvent::MessageCompleted { text, .. } => Some(text.clone()),
            _ => None,
        })
        .collect()
}

/// Whether a message completed with exactly `text`.
pub fn has_message(ev: &[AgentEvent], text: &str) -> bool {
    completed_messages(ev).iter().any(|t| t == text)
}

/// The messages of every engine diagnostic, in order.
pub fn diagnostics(ev: &[AgentEvent]) -> Vec<&str> {
    diagnostics_from(ev, None)
}

/// The messages of the notices (diagnostics the user is shown), in order.
pub fn notices(ev: &[AgentEvent]) -> Vec<&str> {
    diagnostics_from(ev, Some(DiagnosticSource::Notice))
}

fn diagnostics_from(ev: &[AgentEvent], from: Option<DiagnosticSource>) -> Vec<&str> {
    ev.iter()
        .filter_map(|e| match e {
            AgentEvent::EngineDiagnostic {
                source, message, ..
            } if from.is_none_or(|f| f == *source) => Some(message.as_str()),
            _ => None,
        })
        .collect()
}

/// Whether an approval was resolved with `outcome` (and, given `id`, that one).
pub fn resolved(ev: &[AgentEvent], id: Option<&str>, outcome: ApprovalState) -> bool {
    ev.iter().any(|e| {
        matches!(e, AgentEvent::ApprovalResolved { request_id, outcome: o }
            if *o == outcome && id.is_none_or(|id| id == request_id))
    })
}

/// How many tool calls (of `kind`, when given) ended with `status`.
pub fn tools_ended(ev: &[AgentEvent], kind: Option<ToolKind>, status: ToolStatus) -> usize {
    ev.iter()
        .filter(|e| {
            matches!(e, AgentEvent::ToolCompleted { kind: k, status: s, .. }
                if *s == status && kind.is_none_or(|kind| kind == *k))
        })
        .count()
}

/// Whether a tool call (of `kind`, when given) ended with `status`.
pub fn tool_completed(ev: &[AgentEvent], kind: Option<ToolKind>, status: ToolStatus) -> bool {
    tools_ended(ev, kind, status) > 0
}

/// The run ended completed.
pub fn assert_completed(ev: &[AgentEvent]) {
    assert!(
        matches!(ev.last(), Some(AgentEvent::RunCompleted { .. })),
        "{ev:#?}"
    );
}

/// The run ended interrupted.
pub fn assert_interrupted(ev: &[AgentEvent]) {
    assert!(
        matches!(ev.last(), Some(AgentEvent::RunInterrupted {})),
        "{ev:#?}"
    );
}

/// The run ended failed with the error code `code` and an error message containing each of
/// `parts`.
pub fn assert_failed(ev: &[AgentEvent], code: &str, parts: &[&str]) {
    let error = failed_with(ev, code);
    for part in parts {
        assert!(error.contains(part), "{error}");
    }
}

/// The run ended failed with the error code `code`; its error message.
pub fn failed_with<'a>(ev: &'a [AgentEvent], code: &str) -> &'a str {
    match ev.last() {
        Some(AgentEvent::RunFailed { error, code: c }) => {
            assert_eq!(c.as_deref(), Some(code), "{error}");
            error
        }
        other => panic!("{other:?}\n{ev:#?}"),
    }
}
