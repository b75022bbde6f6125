#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use agentdesk_protocol::events::AgentEvent;
use agentdesk_protocol::ids::{RunId, SessionId};
use agentdesk_protocol::ui::{Engine, ItemBody, LiveBatch, LiveOp, TimelineItem};

use super::*;
use crate::sessions::NewSession;

async fn desk_with_session() -> (tempfile::TempDir, Desk, SessionId) {
    let dir = tempfile::tempdir().unwrap();
    let desk = Desk::open(&dir.path().join("data")).await.unwrap();
    let ws_dir = dir.path().join("ws");
    std::fs::create_dir_all(&ws_dir).unwrap();
    let ws = desk
        .add_workspace(ws_dir.to_str().unwrap(), None)
        .await
        .unwrap();
    let session = desk
        .create_session(&NewSession {
            workspace_id: ws.id,
            profile_id: None,
            engine: Some(Engine::Claude),
            title: Some("live".into()),
            worktree: None,
        })
        .await
        .unwrap();
    (dir, desk, session.id)
}

fn delta(text: &str) -> AgentEvent {
    AgentEvent::MessageDelta {
        item_id: "m1".into(),
        text: text.into(),
    }
}

/// What the window would show for item `id` after applying the batches in order.
fn replay(batches: &[LiveBatch], id: &str) -> Option<String> {
    let mut items: HashMap<String, TimelineItem> = HashMap::new();
    for b in batches {
        for op in &b.ops {
            match op {
                LiveOp::Reset { items: all, .. } => {
                    items = all.iter().map(|i| (i.id.clone(), i.clone())).collect();
                }
                LiveOp::Upsert { item } => {
                    items.insert(item.id.clone(), item.clone());
                }
                LiveOp::Append { item_id, text } => {
                    let item = items.get_mut(item_id).expect("append to a sent item");
                    match &mut item.body {
                        ItemBody::AgentMessage { text: t } | ItemBody::Reasoning { text: t } => {
                            t.push_str(text)
                        }
                        other => panic!("append to {other:?}"),
                    }
                }
                LiveOp::Run { .. } | LiveOp::Approval { .. } => {}
            }
        }
    }
    items.get(id).map(|i| match &i.body {
        ItemBody::AgentMessage { text } => text.clone(),
        other => panic!("{other:?}"),
    })
}

fn publish(desk: &Desk, session_id: &SessionId, run_id: &RunId, ev: &AgentEvent) {
    let _ = session_id;
    desk.pipeline.apply_event(run_id, ev);
}

async fn next(feed: &mut SessionFeed) -> LiveBatch {
    tokio::time::timeout(Duration::from_secs(5), feed.next_batch())
        .await
        .expect("a batch in time")
        .expect("the core is there")
}

#[test]
fn a_frame_merges_appends_and_lets_a_whole_item_replace_older_ops() {
    let mut f = Frame::default();
    f.push(LiveOp::Append {
        item_id: "a".into(),
        text: "he".into(),
    });
    f.push(LiveOp::Append {
        item_id: "b".into(),
        text: "x".into(),
    });
    f.push(LiveOp::Append {
        item_id: "a".into(),
        text: "llo".into(),
    });
    let ops = f.take();
    assert_eq!(
        ops,
        vec![
            LiveOp::Append {
                item_id: "a".into(),
                text: "hello".into()
            },
            LiveOp::Append {
                item_id: "b".into(),
                text: "x".into()
            },
        ]
    );

    // A whole item drops the appends before it; appends after it fold into it.
    let item = |text: &str| TimelineItem {
        id: "a".into(),
        session_id: "s".into(),
        run_id: "r".into(),
        seq: 1,
        status: agentdesk_protocol::ui::ItemStatus::Running,
        body: ItemBody::AgentMessage { text: text.into() },
        created_at: 0,
        updated_at: 0,
        parent_id: None,
    };
    f.push(LiveOp::Append {
        item_id: "a".into(),
        text: "stale".into(),
    });
    f.push(LiveOp::Upsert { item: item("hel") });
    f.push(LiveOp::Append {
        item_id: "a".into(),
        text: "lo".into(),
    });
    assert_eq!(
        f.take(),
        vec![LiveOp::Upsert {
            item: item("hello")
        }]
    );
    assert!(f.is_empty());
}

#[tokio::test]
async fn a_view_starts_with_a_reset_and_then_gets_deltas_as_appends_in_one_batch_per_frame() {
    let (_dir, desk, sid) = desk_with_session().await;
    let mut feed = desk.open_session_feed(&sid).await.unwrap();
    let first = next(&mut feed).await;
    assert_eq!(first.seq, 1);
    assert!(matches!(first.ops.as_slice(), [LiveOp::Reset { items, .. }] if items.is_empty()));

    let _ = desk.pipeline.start(&sid, &"r1".into());
    let mut expected = String::new();
    for i in 0..2_000 {
        let piece = format!("word{i} ");
        expected.push_str(&piece);
        publish(&desk, &sid, &"r1".into(), &delta(&piece));
    }
    // Everything was published before the view asked: one frame carries all of it, as one
    // item (created whole) and one merged append.
    let batch = next(&mut feed).await;
    assert_eq!(batch.seq, 2);
    assert_eq!(batch.ops.len(), 1, "{:?}", batch.ops.len());
    assert_eq!(replay(&[first, batch], "r1:m1").unwrap(), expected);
}

#[tokio::test]
async fn a_view_opened_mid_run_sees_the_text_so_far_once() {
    let (_dir, desk, sid) = desk_with_session().await;
    let _ = desk.pipeline.start(&sid, &"r1".into());
    publish(&desk, &sid, &"r1".into(), &delta("abc"));
    publish(&desk, &sid, &"r1".into(), &delta("def"));
    let mut feed = desk.open_session_feed(&sid).await.unwrap();
    // A change already in the view's snapshot, arriving again after it subscribed (the
    // pipeline publishes under the snapshot's lock, so only a repeat can): the number says
    // it is in the snapshot.
    desk.pipeline.publish(RunUpdate::Live {
        session_id: sid.clone(),
        run_id: "r1".into(),
        seq: 2,
        ops: vec![LiveOp::Append {
            item_id: "r1:m1".into(),
            text: "def".into(),
        }],
    });
    let first = next(&mut feed).await;
    assert!(matches!(first.ops.first(), Some(LiveOp::Reset { .. })));
    assert_eq!(
        replay(std::slice::from_ref(&first), "r1:m1").unwrap(),
        "abcdef"
    );
    publish(&desk, &sid, &"r1".into(), &delta("ghi"));
    publish(&desk, &sid, &"r1".into(), &delta("jkl"));
    // Both were published before the view asked: one frame with the new text.
    let batch = next(&mut feed).await;
    assert_eq!(replay(&[first, batch], "r1:m1").unwrap(), "abcdefghijkl");
}

#[tokio::test]
async fn a_view_that_falls_behind_gets_every_delta_merged_without_a_reset() {
    let (_dir, desk, sid) = desk_with_session().await;
    let mut feed = desk.open_session_feed(&sid).await.unwrap();
    let mut batches = vec![next(&mut feed).await];
    let _ = desk.pipeline.start(&sid, &"r1".into());
    let mut expected = String::new();
    // Far more than the old broadcast held (4,096): the view reads nothing meanwhile.
    for i in 0..20_000 {
        let piece = format!("{i},");
        expected.push_str(&piece);
        publish(&desk, &sid, &"r1".into(), &delta(&piece));
    }
    // The first creates the item (a whole upsert), the rest merged into one append.
    assert!(feed.runs_rx.len() <= 2, "{} waiting", feed.runs_rx.len());
    let batch = next(&mut feed).await;
    assert!(
        !batch
            .ops
            .iter()
            .any(|op| matches!(op, LiveOp::Reset { .. })),
        "nothing was lost, so no reset"
    );
    batches.push(batch);
    for piece in ["tail1,", "tail2"] {
        expected.push_str(piece);
        publish(&desk, &sid, &"r1".into(), &delta(piece));
    }
    batches.push(next(&mut feed).await);
    assert_eq!(replay(&batches, "r1:m1").unwrap(), expected);
}

#[tokio::test]
async fn an_overflowed_view_restarts_from_a_snapshot_without_losing_or_repeating() {
    let (_dir, desk, sid) = desk_with_session().await;
    let run = desk.create_run(&sid, "Go", &[]).await.unwrap();
    let mut feed = desk.open_session_feed(&sid).await.unwrap();
    let mut batches = vec![next(&mut feed).await];
    let _ = desk.pipeline.start(&sid, &run.id);
    let item = format!("{}:m1", run.id);
    publish(&desk, &sid, &run.id, &delta("before,"));
    // More waiting non-mergeable updates than a subscriber may hold: overflowed.
    for _ in 0..=crate::fanout::DEFAULT_CAP {
        desk.pipeline
            .publish(RunUpdate::Status { run: run.clone() });
    }
    publish(&desk, &sid, &run.id, &delta("after,"));
    let batch = next(&mut feed).await;
    assert!(
        matches!(batch.ops.first(), Some(LiveOp::Reset { .. })),
        "an overflowed view starts again from a snapshot"
    );
    batches.push(batch);
    publish(&desk, &sid, &run.id, &delta("tail"));
    batches.push(next(&mut feed).await);
    assert_eq!(replay(&batches, &item).unwrap(), "before,after,tail");
}

#[tokio::test]
async fn a_reset_carries_the_sessions_decided_approvals_with_who_and_when() {
    use agentdesk_protocol::ui::{
        Approval, ApprovalKindName, ApprovalRequest, ApprovalState, DecidedBy,
    };
    let (_dir, desk, sid) = desk_with_session().await;
    let run = desk.create_run(&sid, "Go", &[]).await.unwrap();
    let decided = Approval {
        id: "a1".into(),
        session_id: sid.clone(),
        run_id: run.id.clone(),
        item_id: Some(format!("{}:tool1", run.id)),
        engine_request_id: "req1".into(),
        kind: ApprovalKindName::Command,
        request: ApprovalRequest {
            command: Some("ls".into()),
            ..Default::default()
        },
        suggestions: serde_json::Value::Null,
        state: ApprovalState::Denied,
        decided_by: Some(DecidedBy::Notification),
        decision: None,
        created_at: 10,
        deadline_at: None,
        decided_at: Some(1_700_000_000_000),
    };
    desk.store().insert_approval(&decided).await.unwrap();
    // Left pending by another process (or a crash): not decidable from this view.
    let stale = Approval {
        id: "a2".into(),
        engine_request_id: "req2".into(),
        state: ApprovalState::Pending,
        decided_by: None,
        decided_at: None,
        created_at: 11,
        ..decided.clone()
    };
    desk.store().insert_approval(&stale).await.unwrap();
    // As after a restart: a fresh view of the session.
    let mut feed = desk.open_session_feed(&sid).await.unwrap();
    let reset = next(&mut feed).await;
    let approvals = match reset.ops.first() {
        Some(LiveOp::Reset { approvals, .. }) => approvals.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(approvals, vec![decided]);
}

#[tokio::test]
async fn other_sessions_cost_a_view_nothing() {
    let (_dir, desk, sid) = desk_with_session().await;
    let mut feed = desk.open_session_feed(&sid).await.unwrap();
    next(&mut feed).await;
    let (other, r9) = (SessionId::from("another-session"), RunId::from("r9"));
    let _ = desk.pipeline.start(&other, &r9);
    for _ in 0..100 {
        publish(&desk, &other, &r9, &delta("x"));
    }
    let quiet = tokio::time::timeout(Duration::from_millis(300), feed.next_batch()).await;
    assert!(quiet.is_err(), "no batch for another session's changes");
}

#[tokio::test]
async fn a_finished_run_is_read_from_the_database() {
    let (_dir, desk, sid) = desk_with_session().await;
    let _ = desk.pipeline.start(&sid, &"r1".into());
    publish(&desk, &sid, &"r1".into(), &delta("abc"));
    desk.pipeline.finish(&"r1".into());
    assert!(!desk.pipeline.apply_event(&"r1".into(), &delta("x")));
    let mut feed = desk.open_session_feed(&sid).await.unwrap();
    let reset = next(&mut feed).await;
    // Nothing was stored for this synthetic run: the view has no trace of it.
    assert_eq!(replay(&[reset], "r1:m1"), None);
}

#[tokio::test]
async fn a_new_run_brings_its_user_message_into_an_open_view() {
    let (_dir, desk, sid) = desk_with_session().await;
    let mut feed = desk.open_session_feed(&sid).await.unwrap();
    next(&mut feed).await;
    // What send_message does before the engine starts: the run and its message are stored,
    // then the run's status is published.
    let run = desk.create_run(&sid, "Add a file", &[]).await.unwrap();
    desk.pipeline
        .publish(RunUpdate::Status { run: run.clone() });
    let batch = next(&mut feed).await;
    let user = batch.ops.iter().find_map(|op| match op {
        LiveOp::Upsert { item } => Some(item.clone()),
        _ => None,
    });
    let user = user.expect("the user's message is sent with the new run");
    assert_eq!(user.id, crate::sessions::user_item_id(&run.id));
    assert!(matches!(&user.body, ItemBody::UserMessage { text, .. } if text == "Add a file"));
    // A later status of the same run does not send it again.
    desk.pipeline.publish(RunUpdate::Status { run });
    let again = next(&mut feed).await;
    assert!(again.ops.iter().all(|op| matches!(op, LiveOp::Run { .. })));
}

#[tokio::test]
async fn a_paced_view_sends_nothing_more_until_the_window_acks_then_everything_merged() {
    let (_dir, desk, sid) = desk_with_session().await;
    let feed = desk.open_session_feed(&sid).await.unwrap();
    let (mut feed, acks) = feed.paced(Duration::from_secs(30));
    // The first batch (the reset) needs no ack.
    let mut batches = vec![next(&mut feed).await];
    let _ = desk.pipeline.start(&sid, &"r1".into());
    let mut expected = String::new();
    for piece in ["one,", "two,"] {
        expected.push_str(piece);
        publish(&desk, &sid, &"r1".into(), &delta(piece));
    }
    // The window has not said it applied the reset: nothing is sent meanwhile.
    let quiet = tokio::time::timeout(Duration::from_millis(300), feed.next_batch()).await;
    assert!(
        quiet.is_err(),
        "a batch before the window acked the last one"
    );
    acks.ack(batches[0].seq);
    batches.push(next(&mut feed).await);
    assert_eq!(batches[1].seq, 2);

    // The window is busy with batch 2: text and a whole other item keep coming, and wait.
    for i in 0..5_000 {
        let piece = format!("{i},");
        expected.push_str(&piece);
        publish(&desk, &sid, &"r1".into(), &delta(&piece));
    }
    publish(
        &desk,
        &sid,
        &"r1".into(),
        &AgentEvent::MessageDelta {
            item_id: "m2".into(),
            text: "second".into(),
        },
    );
    let quiet = tokio::time::timeout(Duration::from_millis(300), feed.next_batch()).await;
    assert!(
        quiet.is_err(),
        "a batch before the window acked the last one"
    );
    // It was all taken off the subscription meanwhile (merged in the view, not queued).
    assert!(feed.runs_rx.is_empty(), "{} waiting", feed.runs_rx.len());
    // A stale ack (an earlier batch) does not open the gate.
    acks.ack(1);
    let quiet = tokio::time::timeout(Duration::from_millis(100), feed.next_batch()).await;
    assert!(quiet.is_err(), "an old ack let a batch through");
    acks.ack(2);
    let batch = next(&mut feed).await;
    assert_eq!(batch.seq, 3);
    // One append with all of the first item's new text, and the second item whole.
    assert_eq!(batch.ops.len(), 2, "{:?}", batch.ops);
    assert!(matches!(&batch.ops[0], LiveOp::Append { item_id, .. } if item_id == "r1:m1"));
    batches.push(batch);
    assert_eq!(replay(&batches, "r1:m1").unwrap(), expected);
    assert_eq!(replay(&batches, "r1:m2").unwrap(), "second");
}

#[tokio::test]
async fn a_paced_view_sends_a_runs_end_without_waiting_for_the_windows_ack() {
    let (_dir, desk, sid) = desk_with_session().await;
    let run = desk.create_run(&sid, "go", &[]).await.unwrap();
    let feed = desk.open_session_feed(&sid).await.unwrap();
    let (mut feed, _acks) = feed.paced(Duration::from_secs(30));
    let mut batches = vec![next(&mut feed).await];
    let _ = desk.pipeline.start(&sid, &run.id);
    publish(&desk, &sid, &run.id, &delta("streamed "));
    // Not acked (the window is still drawing at its pace): text waits...
    let quiet = tokio::time::timeout(Duration::from_millis(300), feed.next_batch()).await;
    assert!(quiet.is_err(), "streamed text did not wait for the ack");
    publish(&desk, &sid, &run.id, &delta("text"));
    // ...but the run's end goes at once, with the text that waited, in order.
    let mut ended = run.clone();
    ended.status = agentdesk_protocol::ui::RunStatus::Completed;
    desk.pipeline.publish(RunUpdate::Status { run: ended });
    let batch = tokio::time::timeout(Duration::from_secs(5), feed.next_batch())
        .await
        .expect("the run's end waited for the window's ack")
        .unwrap();
    assert!(
        matches!(batch.ops.last(), Some(LiveOp::Run { run }) if run.status == agentdesk_protocol::ui::RunStatus::Completed),
        "{:?}",
        batch.ops
    );
    batches.push(batch);
    assert_eq!(
        replay(&batches, &format!("{}:m1", run.id)).unwrap(),
        "streamed text"
    );
}

#[tokio::test]
async fn a_paced_view_whose_window_never_acks_still_sends_after_the_ack_wait() {
    let (_dir, desk, sid) = desk_with_session().await;
    let feed = desk.open_session_feed(&sid).await.unwrap();
    let (mut feed, _acks) = feed.paced(Duration::from_millis(400));
    let first = next(&mut feed).await;
    let _ = desk.pipeline.start(&sid, &"r1".into());
    publish(&desk, &sid, &"r1".into(), &delta("late"));
    let started = tokio::time::Instant::now();
    let batch = next(&mut feed).await;
    assert!(started.elapsed() >= Duration::from_millis(300));
    assert_eq!(replay(&[first, batch], "r1:m1").unwrap(), "late");
}

#[tokio::test]
async fn a_long_session_opens_on_its_newest_page_and_the_rest_pages_in_behind_it() {
    let (_dir, desk, sid) = desk_with_session().await;
    let run = desk.create_run(&sid, "count", &[]).await.unwrap();
    let stored = FIRST_PAGE as i64 * 5 / 2;
    let items: Vec<TimelineItem> = (1..=stored)
        .map(|seq| TimelineItem {
            id: format!("{}:{seq}", run.id),
            session_id: sid.clone(),
            run_id: run.id.clone(),
            seq,
            status: agentdesk_protocol::ui::ItemStatus::Completed,
            body: ItemBody::AgentMessage {
                text: format!("item {seq}"),
            },
            created_at: seq,
            updated_at: seq,
            parent_id: None,
        })
        .collect();
    desk.store().upsert_timeline_items(&items).await.unwrap();

    let mut feed = desk.open_session_feed(&sid).await.unwrap();
    let LiveOp::Reset {
        items: first,
        before,
        ..
    } = next(&mut feed).await.ops.remove(0)
    else {
        panic!("a view starts with a reset");
    };
    // Only the newest page travels with the click that opens the session...
    assert_eq!(first.len(), FIRST_PAGE as usize);
    assert_eq!(first.last().unwrap().id, format!("{}:{stored}", run.id));
    // ...and the cursor pages in everything before it, nothing lost or repeated.
    let mut seen: Vec<String> = first.iter().map(|i| i.id.clone()).collect();
    let mut cursor = before;
    while let Some(at) = cursor {
        let page = desk.load_timeline(&sid, Some(at), Some(70)).await.unwrap();
        let mut ids: Vec<String> = page.items.iter().map(|i| i.id.clone()).collect();
        ids.append(&mut seen);
        seen = ids;
        cursor = page.before;
    }
    // The run's user message is stored with the run; every answer item comes back in order.
    let answers: Vec<String> = seen
        .into_iter()
        .filter(|id| !id.ends_with(":user"))
        .collect();
    let expected: Vec<String> = (1..=stored).map(|s| format!("{}:{s}", run.id)).collect();
    assert_eq!(answers, expected);
}

/// Approvals reach a view as one stream of the queue's records: the pending ones in the
/// reset, then each change as an `approval` op (the items only name them).
#[tokio::test]
async fn a_view_gets_each_approval_as_the_queues_record() {
    use agentdesk_protocol::events::UserDecision;
    use agentdesk_protocol::ui::{ApprovalKindName, ApprovalRequest, ApprovalState, DecidedBy};

    use crate::{ApprovalAnswer, ApprovalAsk, ApprovalPolicy};
    let (_dir, desk, sid) = desk_with_session().await;
    let run = desk.create_run(&sid, "go", &[]).await.unwrap();
    let ask = ApprovalAsk {
        session_id: sid.clone(),
        run_id: run.id.clone(),
        item_id: Some("call".into()),
        engine_request_id: "e1".into(),
        kind: ApprovalKindName::Command,
        request: ApprovalRequest {
            command: Some("ls".into()),
            ..Default::default()
        },
        suggestions: serde_json::Value::Null,
    };
    let policy = ApprovalPolicy::default();
    let asked = desk.approvals().request(ask, &policy, Box::new(|_| {}));
    let id = asked.await.unwrap().approval().id.clone();
    let mut feed = desk.open_session_feed(&sid).await.unwrap();
    match &next(&mut feed).await.ops[..] {
        [LiveOp::Reset { approvals, .. }] => {
            assert_eq!(approvals.len(), 1);
            assert_eq!(approvals[0].id, id);
            assert_eq!(approvals[0].state, ApprovalState::Pending);
        }
        other => panic!("{other:?}"),
    }
    let answer = ApprovalAnswer::Decision(UserDecision::Deny.into());
    desk.approvals()
        .decide(&id, answer, DecidedBy::Notification)
        .await
        .unwrap();
    let batch = next(&mut feed).await;
    let decided: Vec<_> = batch
        .ops
        .iter()
        .filter_map(|op| match op {
            LiveOp::Approval { approval } => Some(approval),
            _ => None,
        })
        .collect();
    assert_eq!(decided.len(), 1, "{batch:?}");
    assert_eq!(decided[0].id, id);
    assert_eq!(decided[0].state, ApprovalState::Denied);
    assert_eq!(decided[0].decided_by, Some(DecidedBy::Notification));
}
