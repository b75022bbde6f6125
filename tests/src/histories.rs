//! The history suites' shared steps (`history_claude`, `history_codex`): import what the desk's
//! history sources hold, and find the session one of them became.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Stdio;
use std::time::Duration;

use agentdesk_core::history::ImportOptions;
use agentdesk_protocol::ids::SessionId;
use agentdesk_protocol::ui::{ImportReport, Run, RunStatus, Session, SessionOrigin};

use crate::world::World;

/// Import every source the desk reads (see `Desk::use_history_sources`).
pub async fn import(w: &World) -> ImportReport {
    let opts = ImportOptions {
        sources: w.desk.history_sources().await,
        dry_run: false,
    };
    w.desk.import_histories(&opts, &|_| {}).await.unwrap()
}

/// The session imported from `origin` into the world's workspace.
pub async fn imported(w: &World, origin: SessionOrigin) -> Session {
    let ws = w.session.workspace_id.clone();
    w.desk
        .list_sessions(&ws, true)
        .await
        .unwrap()
        .into_iter()
        .find(|s| s.origin == origin)
        .expect("the imported session")
}

/// Each run's number, prompt and status, in order.
pub fn prompts(runs: &[Run]) -> Vec<(i64, &str, RunStatus)> {
    runs.iter()
        .map(|r| (r.seq, r.prompt.as_str(), r.status))
        .collect()
}

/// Run an engine's command as a terminal user would (no stdin), within 90 s; it must succeed.
pub async fn run_terminal(mut cmd: tokio::process::Command) {
    cmd.stdin(Stdio::null()).kill_on_drop(true);
    let shown = format!("{:?}", cmd.as_std().get_program());
    let out = tokio::time::timeout(Duration::from_secs(90), cmd.output())
        .await
        .unwrap_or_else(|_| panic!("{shown} in time"))
        .unwrap();
    assert!(
        out.status.success(),
        "{shown} failed: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The session's runs once the watch has imported its one turn as finished (within 30 s).
pub async fn one_finished_turn(w: &World, session: &SessionId) -> Vec<Run> {
    let finished = tokio::time::timeout(Duration::from_secs(30), async {
        loop {
            let runs = w.desk.list_runs(session).await.unwrap();
            if runs.len() == 1 && runs[0].status == RunStatus::Completed {
                return runs;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    });
    finished.await.expect("the finished turn imported")
}
