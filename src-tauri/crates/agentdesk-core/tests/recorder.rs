//! The persistence policy of a run, against a real database.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use agentdesk_core::approvals::{ApprovalAsk, Requested};
use agentdesk_core::{ApprovalPolicy, RunInput};
use agentdesk_protocol::events::{AgentEvent, ApprovalKind};
use agentdesk_protocol::ui::{ApprovalState, ItemBody, ItemStatus, RunStatus, TokenUsage};
use common::delta;
use tokio::sync::mpsc;

/// Real time, with the interval scaled down (1 s → 200 ms) so the test is quick. Paused
/// tokio time cannot be used here: while SQLite works on its own thread the runtime looks
/// idle, and auto-advance fires sqlx's pool timeouts.
#[tokio::test]
async fn streaming_text_is_written_at_least_once_an_interval_and_at_the_end() {
    let (_d, _f, desk, session, run) = common::claude_run("tell me a story").await;
    let interval = Duration::from_millis(200);
    let (tx, rx) = mpsc::channel(64);
    let (rep_tx, mut reports) = mpsc::unbounded_channel();
    let rec = common::recorder(&desk, &session, &run)
        .flush_interval(interval)
        .on_flush(rep_tx);
    let task = tokio::spawn(rec.run(rx));
    let mut expected = String::new();
    let started = tokio::time::Instant::now();
    // A delta every 20 ms for 1 s: 50 deltas, five intervals.
    for i in 0..50 {
        let piece = format!("w{i} ");
        expected.push_str(&piece);
        tx.send(delta(&piece)).await.unwrap();
        tokio::time::sleep(Duration::from_millis(20)).await;
        // Mid-stream, what was sent more than two intervals ago is in the database.
        if i == 30 {
            let stored = desk.store().run_items(&run).await.unwrap();
            let ItemBody::AgentMessage { text } =
                &stored.iter().find(|i| i.id.ends_with(":m")).unwrap().body
            else {
                panic!()
            };
            assert!(text.len() >= "w0 ".len() * 10, "{text}");
        }
    }
    let streamed_for = started.elapsed();
    tx.send(RunInput::Event(AgentEvent::RunCompleted {
        stop_reason: "end_turn".into(),
    }))
    .await
    .unwrap();
    let ended = task.await.unwrap().unwrap();
    assert_eq!(ended.status, RunStatus::Completed);

    let mut all = Vec::new();
    while let Ok(r) = reports.try_recv() {
        all.push(r);
    }
    let (last, timed) = all.split_last().unwrap();
    assert!(last.last, "the end is written at once");
    // One write per interval, not one per delta.
    let intervals = (streamed_for.as_millis() / interval.as_millis()) as usize;
    assert!(
        timed.len() >= 3 && timed.len() <= intervals + 1,
        "{} writes in {streamed_for:?}: {all:?}",
        timed.len()
    );
    for r in timed {
        assert_eq!(r.items, 1, "the deltas of an interval are one item write");
        let waited = r.at - r.since.unwrap();
        assert!(
            waited >= interval && waited < interval * 2,
            "written {waited:?} after the first unwritten change"
        );
    }
    let items = desk.store().run_items(&run).await.unwrap();
    let msg = items.iter().find(|i| i.id.ends_with(":m")).unwrap();
    assert_eq!(msg.status, ItemStatus::Completed);
    assert_eq!(msg.body, ItemBody::AgentMessage { text: expected });
}

#[tokio::test]
async fn an_engine_that_goes_away_fails_the_run_and_keeps_the_text() {
    let (_d, _f, desk, session, run) = common::claude_run("tell me a story").await;
    let (tx, rx) = mpsc::channel(64);
    let rec = common::recorder(&desk, &session, &run).flush_interval(Duration::from_millis(20));
    let task = tokio::spawn(rec.run(rx));
    tx.send(RunInput::Event(AgentEvent::RunStarted {
        model: Some("claude-sonnet-4-5".into()),
        tools: vec![],
        engine_session_id: Some("claude-sess-1".into()),
    }))
    .await
    .unwrap();
    tx.send(delta("partial answ")).await.unwrap();
    tx.send(RunInput::Event(AgentEvent::Usage(TokenUsage {
        input: 5,
        cached: 1,
        output: 2,
        reasoning: 0,
        cost_usd: Some(0.01),
    })))
    .await
    .unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    // Mid-stream, the text is already in the database.
    let items = desk.store().run_items(&run).await.unwrap();
    assert!(items.iter().any(|i| i.body
        == ItemBody::AgentMessage {
            text: "partial answ".into()
        }));
    drop(tx);
    let ended = task.await.unwrap().unwrap();
    assert_eq!(ended.status, RunStatus::Failed);
    assert_eq!(ended.model.as_deref(), Some("claude-sonnet-4-5"));
    assert!(ended
        .error
        .unwrap()
        .contains("stopped without ending the run"));
    assert_eq!(
        desk.get_session(&session)
            .await
            .unwrap()
            .engine_session_id
            .as_deref(),
        Some("claude-sess-1")
    );
    let items = desk.store().run_items(&run).await.unwrap();
    let msg = items.iter().find(|i| i.id.ends_with(":m")).unwrap();
    assert_eq!(msg.status, ItemStatus::Interrupted);
    assert_eq!(
        desk.run_usage(&run).await.unwrap().unwrap().tokens.cost_usd,
        Some(0.01)
    );
}

#[tokio::test]
async fn an_interrupt_cancels_the_runs_pending_approvals_inside_their_tool_cards() {
    let (_d, _f, desk, session, run) = common::claude_run("tell me a story").await;
    let (tx, rx) = mpsc::channel(64);
    let rec = common::recorder(&desk, &session, &run).approvals(desk.approvals().clone());
    let task = tokio::spawn(rec.run(rx));
    let asked = AgentEvent::ApprovalRequested {
        request_id: "eng-1".into(),
        kind: ApprovalKind::Command,
        item_id: Some("call".into()),
        command: Some("rm -rf target".into()),
        cwd: None,
        files: vec![],
        reason: None,
        detail: None,
        subagent: None,
    };
    let ask = ApprovalAsk::from_event(&session, &run, &asked).unwrap();
    let answered = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = answered.clone();
    let policy = ApprovalPolicy::default();
    let requested = desk
        .approvals()
        .request(
            ask,
            &policy,
            Box::new(move |_| flag.store(true, std::sync::atomic::Ordering::SeqCst)),
        )
        .await
        .unwrap();
    let Requested::Pending(a) = requested else {
        panic!()
    };
    tx.send(RunInput::Linked {
        request_id: "eng-1".into(),
        approval_id: a.id.clone(),
    })
    .await
    .unwrap();
    tx.send(RunInput::Event(asked)).await.unwrap();
    tx.send(RunInput::Event(AgentEvent::RunInterrupted {}))
        .await
        .unwrap();
    let ended = task.await.unwrap().unwrap();
    assert_eq!(ended.status, RunStatus::Interrupted);
    assert_eq!(
        desk.store().get_approval(&a.id).await.unwrap().state,
        ApprovalState::Cancelled
    );
    assert!(
        !answered.load(std::sync::atomic::Ordering::SeqCst),
        "a cancel is not an answer"
    );
    assert!(desk.approvals().pending().is_empty());
    let items = desk.store().run_items(&run).await.unwrap();
    let tool = items.iter().find(|i| i.id.ends_with(":call")).unwrap();
    match &tool.body {
        // The item names the approval; the record says how it ended.
        ItemBody::Tool { approval_id, .. } => assert_eq!(approval_id.as_ref(), Some(&a.id)),
        other => panic!("{other:?}"),
    }
}
