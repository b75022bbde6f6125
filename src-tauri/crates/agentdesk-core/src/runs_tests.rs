#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::Ordering;
use std::time::Duration;

use agentdesk_protocol::ui::{Engine, RunStatus};
use agentdesk_store::RunEnd;

use super::{lock, ActiveRun};
use crate::NewSession;

/// A run's final status is published while it is still driven (so subscribers have it before
/// `wait_run` returns); a waiter woken by that status finds it driven and waits again. Leaving
/// the active set must wake it: before, it slept out a 250 ms tick, a quarter of a second
/// added to the end of every CLI run. The tick is made an hour here, so only the wake-up can
/// end the wait.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wait_run_returns_when_the_run_leaves_the_active_set() {
    let (desk, ws, _dirs) = crate::test_desk::desk_with_workspace().await;
    let session = desk
        .create_session(&NewSession {
            engine: Some(Engine::Codex),
            ..NewSession::new(ws.id.clone())
        })
        .await
        .unwrap();
    let run = desk.create_run(&session.id, "hi", &[]).await.unwrap();
    desk.runs.wait_tick_ms.store(3_600_000, Ordering::Relaxed);
    // Driven by this process, as while its recorder writes the last batch.
    lock(&desk.runs.active).insert(run.id.clone(), ActiveRun::default());
    desk.store()
        .finish_run(
            &run.id,
            &RunEnd {
                status: RunStatus::Completed,
                stop_reason: None,
                error: None,
                at: 2,
            },
        )
        .await
        .unwrap();
    let waiter = tokio::spawn({
        let desk = desk.clone();
        let id = run.id.clone();
        async move { desk.wait_run(&id, Duration::from_secs(3_600)).await }
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(
        !waiter.is_finished(),
        "returned while the run was still driven"
    );
    desk.runs.leave_active(&run.id);
    let ended = tokio::time::timeout(Duration::from_secs(30), waiter)
        .await
        .expect("wait_run slept through the run leaving the active set")
        .unwrap()
        .unwrap();
    assert_eq!(ended.status, RunStatus::Completed);
}
