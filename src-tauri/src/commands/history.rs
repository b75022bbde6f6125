//! The engines' own histories: the sessions a terminal ran, imported and kept current by the
//! core's watch (started on the window's first ask); this carries its status to the window.

use agentdesk_protocol::ipc::{RescanHistoriesArgs, SetHistorySettingsArgs, WatchHistoriesArgs};
use tauri::State;

use super::{Args, Reply};
use crate::feeds::Feeds;
use crate::state::AppState;

/// The status now and on every change (the watch starts here the first time).
#[tauri::command]
pub async fn watch_histories(
    state: State<'_, AppState>,
    feeds: State<'_, Feeds>,
    args: Args<WatchHistoriesArgs>,
) -> Reply<WatchHistoriesArgs> {
    let on_status = args.channel(&args.on_status)?;
    feeds.watch_histories(state.histories()?.status(), on_status);
    Ok(())
}

#[tauri::command]
pub async fn rescan_histories(
    state: State<'_, AppState>,
    _args: Args<RescanHistoriesArgs>,
) -> Reply<RescanHistoriesArgs> {
    state.histories()?.rescan();
    Ok(())
}

/// Which sources are on; the watch lists them again (a source turned on is scanned at once).
#[tauri::command]
pub async fn set_history_settings(
    state: State<'_, AppState>,
    args: Args<SetHistorySettingsArgs>,
) -> Reply<SetHistorySettingsArgs> {
    state.desk()?.set_history_settings(&args.settings).await?;
    state.histories()?.sources_changed();
    Ok(())
}
