//! What the core crate's integration suites share (each is its own test target, so they cannot
//! reach the crate's `cfg(test)` helper `src/test_desk.rs`): the recorded event fixtures, a
//! `Desk` on temporary folders with a workspace, a profile, a session and a run, and the
//! recorder's message delta. Included by each suite with `mod common;`.
// Each suite uses only part of this module: what one suite leaves unused is not dead.
#![allow(dead_code)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use agentdesk_core::{Desk, NewSession, RunInput, RunRecorder, RunReducer};
use agentdesk_protocol::events::AgentEvent;
use agentdesk_protocol::ids::{RunId, SessionId};
use agentdesk_protocol::ui::{ProfileSpec, Session, Workspace};

/// The recorded engine events `tests/fixtures/events/<name>.jsonl` (see its README).
pub fn events(name: &str) -> Vec<AgentEvent> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/events")
        .join(format!("{name}.jsonl"));
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// A `Desk` over `data` with one workspace on a fresh temporary folder (kept alive by the
/// returned `TempDir`).
pub async fn open_with_workspace(data: &Path) -> (Desk, Workspace, tempfile::TempDir) {
    let folder = tempfile::tempdir().unwrap();
    let desk = Desk::open(data).await.unwrap();
    let ws = desk
        .add_workspace(folder.path().to_str().unwrap(), None)
        .await
        .unwrap();
    (desk, ws, folder)
}

/// A profile from `profile` (JSON: every field not named takes its default) on `ws`, and a
/// session in `ws` (on the workspace's default profile, which is this one when it is the
/// first).
pub async fn session_with_profile(
    desk: &Desk,
    ws: &Workspace,
    profile: serde_json::Value,
) -> Session {
    let spec: ProfileSpec = serde_json::from_value(profile).unwrap();
    desk.create_profile(&ws.id, &spec).await.unwrap();
    desk.create_session(&NewSession::new(ws.id.clone()))
        .await
        .unwrap()
}

/// A run asked with `prompt` in a Claude session of a desk over `data` (its workspace folder
/// is kept alive by the returned `TempDir`).
pub async fn claude_run_at(
    data: &Path,
    prompt: &str,
) -> (tempfile::TempDir, Desk, SessionId, RunId) {
    let (desk, ws, folder) = open_with_workspace(data).await;
    let s = session_with_profile(
        &desk,
        &ws,
        serde_json::json!({"name": "p", "engine": "claude"}),
    )
    .await;
    let run = desk.create_run(&s.id, prompt, &[]).await.unwrap();
    (folder, desk, s.id, run.id)
}

/// Like [`claude_run_at`], over a fresh temporary data dir: (data dir, workspace folder,
/// desk, session, run).
pub async fn claude_run(
    prompt: &str,
) -> (tempfile::TempDir, tempfile::TempDir, Desk, SessionId, RunId) {
    let data = tempfile::tempdir().unwrap();
    let (folder, desk, session, run) = claude_run_at(data.path(), prompt).await;
    (data, folder, desk, session, run)
}

/// The recorder of `run` (in `session`), writing to `desk`'s store.
pub fn recorder(desk: &Desk, session: &SessionId, run: &RunId) -> RunRecorder {
    RunRecorder::new(desk.store().clone(), session, RunReducer::new(session, run))
}

/// A piece of the agent message `m`, as the engine streams it to the recorder.
pub fn delta(text: &str) -> RunInput {
    RunInput::Event(AgentEvent::MessageDelta {
        item_id: "m".into(),
        text: text.into(),
    })
}
