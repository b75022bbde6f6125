//! Reading a run's events in the engine suites (claude_real, codex_real, conformance): the
//! same `next / until / until_end` for a Claude, a Codex or an engine-neutral run, each step
//! bounded so a stuck engine fails the test instead of hanging it.

// Test support: a missing event is a failed test, reported by the panic.
#![allow(clippy::expect_used)]

use std::future::Future;
use std::time::Duration;

use agentdesk_engine::claude::ClaudeRun;
use agentdesk_engine::codex::CodexRun;
use agentdesk_engine::AgentRun;
use agentdesk_protocol::events::AgentEvent;

/// The longest wait for one event.
pub const STEP: Duration = Duration::from_secs(30);

/// A run whose events can be read one by one.
pub trait EventSource {
    fn recv_event(&mut self) -> impl Future<Output = Option<AgentEvent>>;
}

impl EventSource for ClaudeRun {
    fn recv_event(&mut self) -> impl Future<Output = Option<AgentEvent>> {
        self.next_event()
    }
}

impl EventSource for CodexRun {
    fn recv_event(&mut self) -> impl Future<Output = Option<AgentEvent>> {
        self.next_event()
    }
}

impl EventSource for AgentRun {
    fn recv_event(&mut self) -> impl Future<Output = Option<AgentEvent>> {
        self.next_event()
    }
}

/// The next event; panics when none comes within [`STEP`] or the events ended.
pub async fn next(run: &mut impl EventSource) -> AgentEvent {
    tokio::time::timeout(STEP, run.recv_event())
        .await
        .expect("no event in time")
        .expect("events ended before a terminal event")
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
