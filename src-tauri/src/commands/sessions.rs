//! Sessions, their live views and runs.

use agentdesk_core::NewSession;
use agentdesk_protocol::ids::{ProfileId, RunId, SessionId, WorkspaceId};
use agentdesk_protocol::ui::{
    Engine, LiveBatch, Profile, Run, Session, SessionActivity, TimelinePage,
};
use tauri::ipc::Channel;
use tauri::State;

use super::CmdResult;
use crate::feeds::Feeds;
use crate::state::AppState;

/// A workspace's sessions, newest first.
#[tauri::command]
pub async fn list_sessions(
    state: State<'_, AppState>,
    workspace_id: WorkspaceId,
    archived: bool,
) -> CmdResult<Vec<Session>> {
    Ok(state.desk()?.list_sessions(&workspace_id, archived).await?)
}

/// A new session; with no profile, the workspace's default one; with neither, the engine
/// the user picked (a workspace without profiles runs the engine's own defaults).
#[tauri::command]
pub async fn create_session(
    state: State<'_, AppState>,
    workspace_id: WorkspaceId,
    profile_id: Option<ProfileId>,
    engine: Option<Engine>,
) -> CmdResult<Session> {
    Ok(state
        .desk()?
        .create_session(&NewSession {
            workspace_id,
            profile_id,
            engine,
            title: None,
        })
        .await?)
}

/// Start streaming a session to the window: a reset first, then at most a batch a frame.
#[tauri::command]
pub async fn open_session(
    state: State<'_, AppState>,
    feeds: State<'_, Feeds>,
    session_id: SessionId,
    on_batch: Channel<LiveBatch>,
) -> CmdResult<()> {
    let feed = state.desk()?.open_session_feed(&session_id).await?;
    feeds.open(feed, on_batch);
    Ok(())
}

/// The page applied and drew batch `seq` of the session's view on `channel` (its id): the
/// shell sends the next batch only after this (or after a second without it).
#[tauri::command]
pub async fn live_ack(
    feeds: State<'_, Feeds>,
    session_id: SessionId,
    channel: u32,
    seq: u64,
) -> CmdResult<()> {
    feeds.ack(&session_id, channel, seq);
    Ok(())
}

/// Stop streaming a session (the window closed its view).
#[tauri::command]
pub fn close_session(feeds: State<'_, Feeds>, session_id: SessionId) {
    feeds.close(&session_id);
}

/// Sidebar badges for every session: a snapshot each time a run starts or ends or an
/// approval is asked or decided.
#[tauri::command]
pub async fn watch_activity(
    state: State<'_, AppState>,
    feeds: State<'_, Feeds>,
    on_activity: Channel<Vec<SessionActivity>>,
) -> CmdResult<()> {
    let watch = state.desk()?.watch_activity().await;
    feeds.watch_activity(watch, on_activity);
    Ok(())
}

/// Older items: the page before `before` (from a reset or a previous page).
#[tauri::command]
pub async fn load_timeline(
    state: State<'_, AppState>,
    session_id: SessionId,
    before: Option<i64>,
    limit: u32,
) -> CmdResult<TimelinePage> {
    Ok(state
        .desk()?
        .load_timeline(&session_id, before, Some(limit.clamp(1, 1000)))
        .await?)
}

/// Send a message; the run is queued while another one of the session is active.
#[tauri::command]
pub async fn send_message(
    state: State<'_, AppState>,
    session_id: SessionId,
    text: String,
    attachments: Vec<agentdesk_protocol::ui::AttachmentRef>,
) -> CmdResult<Run> {
    let refs: Vec<(String, String)> = attachments
        .into_iter()
        .map(|a| (a.sha256, a.name))
        .collect();
    Ok(state
        .desk()?
        .send_message(&session_id, &text, &refs)
        .await?)
}

/// Running → interrupted; queued → cancelled.
#[tauri::command]
pub async fn interrupt_run(state: State<'_, AppState>, run_id: RunId) -> CmdResult<()> {
    Ok(state.desk()?.interrupt(&run_id).await?)
}

#[tauri::command]
pub async fn list_profiles(
    state: State<'_, AppState>,
    workspace_id: WorkspaceId,
) -> CmdResult<Vec<Profile>> {
    // Masked: the window never receives a secret env value in clear.
    Ok(state.desk()?.list_profiles_masked(&workspace_id).await?)
}

/// The profile the session's next run uses.
#[tauri::command]
pub async fn set_session_profile(
    state: State<'_, AppState>,
    session_id: SessionId,
    profile_id: ProfileId,
) -> CmdResult<Session> {
    Ok(state
        .desk()?
        .set_session_profile(&session_id, &profile_id)
        .await?)
}
