//! Sessions, their live views and runs.

use agentdesk_core::NewSession;
use agentdesk_protocol::ipc::{
    CloseSessionArgs, CreateSessionArgs, FindFilesArgs, InterruptRunArgs, ListCommandsArgs,
    ListSessionsArgs, LiveAckArgs, LoadTimelineArgs, LoadTimelineNewerArgs, OpenSessionArgs,
    SendMessageArgs, SessionPlanArgs, SessionUsageArgs, SetSessionModelArgs, SetSessionProfileArgs,
    WatchActivityArgs, WatchRateLimitsArgs,
};
use tauri::State;

use super::{Args, Reply};
use crate::feeds::Feeds;
use crate::state::AppState;

desk_commands! {
    /// A workspace's sessions, newest first.
    fn list_sessions(desk, args: ListSessionsArgs) {
        desk.shown_sessions(&args.workspace_id, args.archived).await?
    }

    /// A new session; with no profile, the workspace's default one; with neither, the engine
    /// the user picked (a workspace without profiles runs the engine's own defaults).
    fn create_session(desk, args: CreateSessionArgs) {
        let CreateSessionArgs { workspace_id, profile_id, engine, worktree } = args;
        let new = NewSession { profile_id, engine, worktree, ..NewSession::new(workspace_id) };
        desk.create_session(&new).await?
    }

    /// Older items: the page before `before` (from a reset or a previous page).
    fn load_timeline(desk, args: LoadTimelineArgs) {
        let limit = args.limit.clamp(1, 1000);
        desk.load_timeline(&args.session_id, args.before, Some(limit)).await?
    }

    /// Newer items: the page from `after` on (the timeline scrolled down a window of pages).
    fn load_timeline_newer(desk, args: LoadTimelineNewerArgs) {
        let limit = args.limit.clamp(1, 1000);
        desk.load_timeline_newer(&args.session_id, args.after, Some(limit)).await?
    }

    /// The plan the session's agent last reported.
    fn session_plan(desk, args: SessionPlanArgs) {
        desk.session_plan(&args.session_id).await?
    }

    /// The session folder's files best matching the query (the composer's `@`).
    fn find_files(desk, args: FindFilesArgs) {
        desk.find_files(&args.session_id, &args.query).await?
    }

    /// The model and effort the session runs instead of its profile's.
    fn set_session_model(desk, args: SetSessionModelArgs) {
        desk.set_session_model(&args.session_id, args.model.as_deref(), args.effort.as_deref()).await?
    }

    /// The session's tokens and cost over all its runs.
    fn session_usage(desk, args: SessionUsageArgs) {
        desk.session_usage(&args.session_id).await?
    }

    /// The commands the composer's `/` offers.
    fn list_commands(desk, args: ListCommandsArgs) {
        desk.list_commands(&args.session_id).await?
    }

    /// Send a message; the run is queued while another one of the session is active.
    fn send_message(desk, args: SendMessageArgs) {
        let refs: Vec<(String, String)> =
            args.attachments.into_iter().map(|a| (a.sha256, a.name)).collect();
        desk.send_message(&args.session_id, &args.text, &refs).await?
    }

    /// Running → interrupted; queued → cancelled.
    fn interrupt_run(desk, args: InterruptRunArgs) {
        desk.interrupt(&args.run_id).await?
    }

    /// The profile the session's next run uses.
    fn set_session_profile(desk, args: SetSessionProfileArgs) {
        desk.set_session_profile(&args.session_id, &args.profile_id).await?
    }
}

/// Start streaming a session to the window: a reset first, then at most a batch a frame.
#[tauri::command]
pub async fn open_session(
    state: State<'_, AppState>,
    feeds: State<'_, Feeds>,
    args: Args<OpenSessionArgs>,
) -> Reply<OpenSessionArgs> {
    let on_batch = args.channel(&args.on_batch)?;
    let feed = state.desk()?.open_session_feed(&args.session_id).await?;
    feeds.open(feed, on_batch);
    Ok(())
}

/// The page applied and drew batch `seq` of the session's view on `channel` (its id): the
/// shell sends the next batch only after this (or after a second without it).
#[tauri::command]
pub async fn live_ack(feeds: State<'_, Feeds>, args: Args<LiveAckArgs>) -> Reply<LiveAckArgs> {
    feeds.ack(&args.session_id, args.channel, args.seq);
    Ok(())
}

/// Stop streaming a session (the window closed its view).
#[tauri::command]
pub fn close_session(
    feeds: State<'_, Feeds>,
    args: Args<CloseSessionArgs>,
) -> Reply<CloseSessionArgs> {
    feeds.close(&args.session_id);
    Ok(())
}

/// Sidebar badges for every session: a snapshot each time a run starts or ends or an
/// approval is asked or decided.
#[tauri::command]
pub async fn watch_activity(
    state: State<'_, AppState>,
    feeds: State<'_, Feeds>,
    args: Args<WatchActivityArgs>,
) -> Reply<WatchActivityArgs> {
    let on_activity = args.channel(&args.on_activity)?;
    let watch = state.desk()?.watch_activity().await;
    feeds.watch_activity(watch, on_activity);
    Ok(())
}

/// Each engine's latest rate limits, now and on every change (the status bar).
#[tauri::command]
pub async fn watch_rate_limits(
    state: State<'_, AppState>,
    feeds: State<'_, Feeds>,
    args: Args<WatchRateLimitsArgs>,
) -> Reply<WatchRateLimitsArgs> {
    let on_limits = args.channel(&args.on_limits)?;
    feeds.watch_rate_limits(state.desk()?.watch_rate_limits().await, on_limits);
    Ok(())
}
