//! The window itself: its live feeds of notification clicks and close questions, the answer
//! to "keep running in the tray?", and its first-paint figures. The work is done where the
//! tray, the notifications and the start-up live (`crate::tray`, `crate::notifications`,
//! `crate::startup`); these are the table's entry points for them.

use agentdesk_protocol::ipc::{
    KeepRunningInTrayArgs, WatchCloseRequestsArgs, WatchNotificationClicksArgs, WindowPaintedArgs,
};
use tauri::{AppHandle, State, Wry};

use super::{Args, Reply};
use crate::notifications::Clicks;
use crate::startup::Started;
use crate::state::AppState;
use crate::tray::Tray;

/// A notification's body was clicked: that request's card (`None`: the Approvals view).
#[tauri::command]
pub fn watch_notification_clicks(
    clicks: State<'_, Clicks>,
    args: Args<WatchNotificationClicksArgs>,
) -> Reply<WatchNotificationClicksArgs> {
    let on_open = args.channel(&args.on_open)?;
    crate::notifications::watch_notification_clicks(clicks, on_open);
    Ok(())
}

/// The window listens for "ask whether to keep running in the tray".
#[tauri::command]
pub fn watch_close_requests(
    tray: State<'_, Tray>,
    args: Args<WatchCloseRequestsArgs>,
) -> Reply<WatchCloseRequestsArgs> {
    let on_ask = args.channel(&args.on_ask)?;
    crate::tray::watch_close_requests(tray, on_ask);
    Ok(())
}

/// The user's answer: stored, then carried out (hide in the tray, or close and quit).
#[tauri::command]
pub async fn keep_running_in_tray(
    app: AppHandle<Wry>,
    state: State<'_, AppState>,
    tray: State<'_, Tray>,
    args: Args<KeepRunningInTrayArgs>,
) -> Reply<KeepRunningInTrayArgs> {
    crate::tray::keep_running_in_tray(app, state, tray, args.keep).await
}

/// The window's first paint: the shell logs the start-up figures.
#[tauri::command]
pub fn window_painted(
    started: State<'_, Started>,
    args: Args<WindowPaintedArgs>,
) -> Reply<WindowPaintedArgs> {
    crate::startup::window_painted(
        started,
        args.navigation_start,
        args.script_start,
        args.first_paint,
    );
    Ok(())
}
