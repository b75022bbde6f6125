#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use agentdesk_protocol::events::{AgentEvent, ToolKind};
use agentdesk_protocol::ui::{Run, RunStatus};

use super::*;
use crate::fanout::*;

fn delta(run: &str, item: &str, text: &str) -> RunUpdate {
    RunUpdate::Event {
        session_id: "s".into(),
        run_id: run.into(),
        event: AgentEvent::MessageDelta {
            item_id: item.into(),
            text: text.into(),
        },
    }
}

fn append(run: &str, seq: u64, item: &str, text: &str) -> RunUpdate {
    RunUpdate::Live {
        session_id: "s".into(),
        run_id: run.into(),
        seq,
        ops: vec![LiveOp::Append {
            item_id: item.into(),
            text: text.into(),
        }],
    }
}

fn status(id: &str, status: RunStatus) -> RunUpdate {
    RunUpdate::Status {
        run: Run {
            id: id.into(),
            session_id: "s".into(),
            seq: 1,
            status,
            prompt: "hi".into(),
            profile_id: None,
            model: None,
            stop_reason: None,
            error: None,
            created_at: 0,
            started_at: None,
            ended_at: None,
        },
    }
}

/// Every update waiting, in order.
fn drain(sub: &mut Subscription<RunUpdate>) -> Vec<RunUpdate> {
    let mut out = Vec::new();
    while let Ok(u) = sub.try_recv() {
        out.push(u);
    }
    out
}

fn text_of(updates: &[RunUpdate], item: &str) -> String {
    updates
        .iter()
        .filter_map(|u| match u {
            RunUpdate::Event {
                event: AgentEvent::MessageDelta { item_id, text },
                ..
            } if item_id == item => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

#[test]
fn deltas_merge_while_the_subscriber_is_behind_and_keep_the_text() {
    let fan = Fanout::default();
    let mut sub = fan.subscribe();
    let mut expected = String::new();
    for i in 0..10_000 {
        let piece = format!("{i},");
        expected.push_str(&piece);
        fan.publish(delta("r1", "m1", &piece));
    }
    assert_eq!(
        sub.len(),
        1,
        "10,000 waiting deltas of one item are one update"
    );
    let got = drain(&mut sub);
    assert_eq!(text_of(&got, "m1"), expected);
    // Keeping up: nothing waits, nothing merges.
    fan.publish(delta("r1", "m1", "a"));
    assert_eq!(drain(&mut sub).len(), 1);
    fan.publish(delta("r1", "m1", "b"));
    assert_eq!(text_of(&drain(&mut sub), "m1"), "b");
}

#[test]
fn an_unmerged_subscriber_gets_each_update_as_published() {
    let fan = Fanout::default();
    let mut exact = fan.subscribe_unmerged();
    for piece in ["a", "b", "c"] {
        fan.publish(delta("r1", "m1", piece));
    }
    assert_eq!(drain(&mut exact).len(), 3);
}

#[test]
fn a_runs_events_and_live_ops_merge_past_each_other_but_keep_their_own_order() {
    let fan = Fanout::default();
    let mut sub = fan.subscribe();
    // What the pump publishes per delta: the event, then the live op.
    for (i, piece) in ["he", "ll", "o"].iter().enumerate() {
        fan.publish(delta("r1", "m1", piece));
        fan.publish(append("r1", i as u64 + 1, "m1", piece));
    }
    let got = drain(&mut sub);
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!(text_of(&got, "m1"), "hello");
    match &got[1] {
        RunUpdate::Live { seq, ops, .. } => {
            assert_eq!(*seq, 3, "the merged change stands for the newest number");
            assert_eq!(
                ops,
                &vec![LiveOp::Append {
                    item_id: "m1".into(),
                    text: "hello".into()
                }]
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn non_mergeable_updates_keep_their_order_and_deltas_never_merge_across_them() {
    let fan = Fanout::default();
    let mut sub = fan.subscribe();
    fan.publish(status("r1", RunStatus::Running));
    fan.publish(delta("r1", "m1", "a"));
    fan.publish(delta("r1", "m2", "x"));
    // Another item of the same view: a barrier for m1 (order between items is kept).
    fan.publish(delta("r1", "m1", "b"));
    fan.publish(RunUpdate::Event {
        session_id: "s".into(),
        run_id: "r1".into(),
        event: AgentEvent::MessageCompleted {
            item_id: "m1".into(),
            text: "ab".into(),
        },
    });
    fan.publish(delta("r1", "m1", "c"));
    fan.publish(status("r1", RunStatus::Completed));
    let got = drain(&mut sub);
    let shape: Vec<String> = got
        .iter()
        .map(|u| match u {
            RunUpdate::Status { run } => format!("status:{}", run.status.as_str()),
            RunUpdate::Event { event, .. } => match event {
                AgentEvent::MessageDelta { item_id, text } => format!("{item_id}+{text}"),
                AgentEvent::MessageCompleted { item_id, .. } => format!("{item_id} done"),
                other => format!("{other:?}"),
            },
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(
        shape,
        [
            "status:running",
            "m1+a",
            "m2+x",
            "m1+b",
            "m1 done",
            "m1+c",
            "status:completed"
        ]
    );
}

#[test]
fn tool_output_merges_and_a_newer_whole_item_replaces_the_waiting_one() {
    let mut a = RunUpdate::Event {
        session_id: "s".into(),
        run_id: "r".into(),
        event: AgentEvent::ToolUpdated {
            item_id: "t".into(),
            kind: ToolKind::Command,
            output: "line1\n".into(),
        },
    };
    let b = RunUpdate::Event {
        session_id: "s".into(),
        run_id: "r".into(),
        event: AgentEvent::ToolUpdated {
            item_id: "t".into(),
            kind: ToolKind::Command,
            output: "line2\n".into(),
        },
    };
    assert!(a.merge(b).is_none());
    assert!(
        matches!(&a, RunUpdate::Event { event: AgentEvent::ToolUpdated { output, .. }, .. } if output == "line1\nline2\n")
    );
    // Another run's piece never merges in.
    assert!(a.merge(delta("other", "t", "x")).is_some());
}

#[test]
fn a_filtered_subscriber_never_holds_what_it_does_not_want() {
    let fan = Fanout::default();
    let mut statuses = fan.subscribe_where(|u| matches!(u, RunUpdate::Status { .. }));
    let mut all = fan.subscribe();
    for _ in 0..100 {
        fan.publish(delta("r1", "m1", "x"));
    }
    fan.publish(status("r1", RunStatus::Completed));
    assert_eq!(statuses.len(), 1);
    assert!(matches!(statuses.try_recv(), Ok(RunUpdate::Status { .. })));
    assert_eq!(drain(&mut all).len(), 2);
}

#[test]
fn a_dropped_subscriber_is_removed_and_its_queue_freed() {
    let fan = Fanout::default();
    let kept = fan.subscribe();
    let gone = fan.subscribe();
    fan.publish(status("r1", RunStatus::Running));
    assert_eq!(fan.subscriber_count(), 2);
    drop(gone);
    fan.publish(status("r1", RunStatus::Completed));
    assert_eq!(fan.subscriber_count(), 1);
    assert_eq!(kept.len(), 2);
}

#[test]
fn past_its_cap_a_subscriber_is_told_it_overflowed_then_continues() {
    let fan = Fanout::default();
    let mut small = fan.subscribe_with_cap(100);
    let mut big = fan.subscribe();
    for i in 0..150 {
        fan.publish(status(&format!("r{i}"), RunStatus::Running));
    }
    // 101 waiting overflowed the small one (emptied, memory freed); 49 came after.
    assert_eq!(small.len(), 49);
    assert_eq!(small.try_recv().err(), Some(TryRecvError::Overflowed(101)));
    let rest = drain(&mut small);
    assert_eq!(rest.len(), 49);
    assert!(matches!(&rest[0], RunUpdate::Status { run } if run.id == "r101"));
    // Reported once; the other subscriber lost nothing.
    fan.publish(status("last", RunStatus::Running));
    assert!(small.try_recv().is_ok());
    assert_eq!(drain(&mut big).len(), 151);
}

#[tokio::test]
async fn the_publisher_never_waits_for_a_subscriber_that_does_not_read() {
    let fan = std::sync::Arc::new(Fanout::default());
    let _asleep = fan.subscribe();
    let mut reader = fan.subscribe();
    let publisher = {
        let fan = fan.clone();
        tokio::task::spawn_blocking(move || {
            let mut expected = String::new();
            for i in 0..200_000 {
                let piece = format!("{i} ");
                expected.push_str(&piece);
                fan.publish(delta("r1", "m1", &piece));
            }
            fan.publish(status("r1", RunStatus::Completed));
            expected
        })
    };
    // The publisher finishes although one subscriber never reads (bounded: the test's
    // timeout fails it otherwise).
    let expected = tokio::time::timeout(Duration::from_secs(30), publisher)
        .await
        .expect("the publisher never blocks")
        .unwrap();
    assert_eq!(_asleep.len(), 2, "its 200,000 deltas are one merged update");
    let mut text = String::new();
    loop {
        match reader.recv().await.unwrap() {
            RunUpdate::Event {
                event: AgentEvent::MessageDelta { text: t, .. },
                ..
            } => text.push_str(&t),
            RunUpdate::Status { .. } => break,
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(text, expected);
}

#[tokio::test]
async fn recv_wakes_on_publish_and_ends_when_the_publisher_is_gone() {
    let fan = Fanout::default();
    let mut sub = fan.subscribe();
    let fan = std::sync::Arc::new(fan);
    let f = fan.clone();
    let waiter = tokio::spawn(async move {
        let first = sub.recv().await;
        let second = sub.recv().await;
        (first, second)
    });
    tokio::time::sleep(Duration::from_millis(20)).await;
    f.publish(status("r1", RunStatus::Running));
    drop(f);
    let fan = std::sync::Arc::try_unwrap(fan).unwrap_or_else(|_| panic!("one owner"));
    drop(fan);
    let (first, second) = tokio::time::timeout(Duration::from_secs(5), waiter)
        .await
        .unwrap()
        .unwrap();
    assert!(matches!(first, Ok(RunUpdate::Status { .. })));
    assert_eq!(second.err(), Some(RecvError::Closed));
}

/// The fan-out's cost per publish (BENCHMARKS.md "Live fan-out"): 200,000 deltas published
/// as the pump does (a canonical event and a live op each), against `tokio::sync::broadcast`
/// in the same run. `cargo test --release -p agentdesk-core --lib fanout_cost -- --ignored
/// --nocapture`.
#[test]
#[ignore = "a measurement, not a check"]
fn fanout_cost() {
    use std::time::Instant;
    const N: usize = 200_000;
    let pieces: Vec<String> = (0..N).map(|i| format!("w{i:09} lorem ip ")).collect();
    let publish_all = |publish: &dyn Fn(RunUpdate)| {
        let t = Instant::now();
        for (i, p) in pieces.iter().enumerate() {
            publish(delta("r1", "m1", p));
            publish(append("r1", i as u64 + 1, "m1", p));
        }
        t.elapsed()
    };
    let per = |d: Duration| d.as_nanos() as f64 / (2 * N) as f64;

    // Warm-up, then what making the updates costs alone.
    publish_all(&drop);
    let build = publish_all(&drop);
    let fan = Fanout::default();
    let none = publish_all(&|u| fan.publish(u));
    let statuses = fan.subscribe_where(|u| matches!(u, RunUpdate::Status { .. }));
    let filtered = publish_all(&|u| fan.publish(u));
    drop(statuses);
    let mut behind = fan.subscribe();
    let merged = publish_all(&|u| fan.publish(u));
    let waiting = behind.len();
    drop(drain(&mut behind));
    drop(behind);

    // A reader on its own thread, keeping up as well as it can.
    let fan = std::sync::Arc::new(Fanout::default());
    let mut sub = fan.subscribe();
    let reader = std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        rt.block_on(async {
            let mut n = 0usize;
            while sub.recv().await.is_ok() {
                n += 1;
            }
            n
        })
    });
    let f = fan.clone();
    let live_reader = publish_all(&|u| f.publish(u));
    drop(f);
    let fan = std::sync::Arc::try_unwrap(fan).unwrap_or_else(|_| panic!("one owner"));
    drop(fan);
    let received = reader.join().unwrap();

    let (tx, rx) = tokio::sync::broadcast::channel::<RunUpdate>(4096);
    let lagging = publish_all(&|u| {
        let _ = tx.send(u);
    });
    drop(rx);

    println!(
        "fan-out, ns per publish ({N} deltas = {} publishes):",
        2 * N
    );
    println!("  making the update only        {:>6.0}", per(build));
    println!("  no subscriber                 {:>6.0}", per(none));
    println!("  one filtered-out subscriber   {:>6.0}", per(filtered));
    println!(
        "  one subscriber not reading    {:>6.0}  ({waiting} updates waiting after merging)",
        per(merged)
    );
    println!(
        "  one reader thread             {:>6.0}  ({received} updates received)",
        per(live_reader)
    );
    println!(
        "  tokio broadcast, not reading  {:>6.0}  (drops all but 4,096)",
        per(lagging)
    );
}
