//! The history suites' shared steps (`history_claude`, `history_codex`): import what the desk's
//! history sources hold, and find the session one of them became.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use agentdesk_core::history::ImportOptions;
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
