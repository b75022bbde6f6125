//! The tray icon and what closing the window does while a run is active.
//!
//! The tray's menu lists every pending approval and question (a click brings the window up
//! on that card, like a notification's body) and "Open Agent Desk" / "Quit Agent Desk". It
//! follows `ApprovalQueue::watch_pending`, so it is never out of date with the window.
//! On Linux the tray is libayatana-appindicator (a StatusNotifierItem with a dbusmenu, over
//! the session bus), on macOS the menu bar, on Windows the notification area — all through
//! Tauri's `tray-icon` feature.
//!
//! Closing the window while a run this process drives is active would stop the run (the
//! engines are children of the app). The first time, the window asks whether to keep
//! running in the tray; the answer is stored (`TraySettings`) and followed from then on.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use agentdesk_core::notify::{close_action, tray_label, CloseAction, TraySettings};
use agentdesk_core::Desk;
use agentdesk_protocol::sync::lock;
use agentdesk_protocol::ui::{Approval, IpcError};
use tauri::ipc::Channel;
use tauri::menu::{Menu, MenuBuilder, MenuEvent};
use tauri::tray::{TrayIcon, TrayIconBuilder};
use tauri::{AppHandle, Manager, Window, WindowEvent, Wry};

use crate::commands::internal;
use crate::notifications::Clicks;
use crate::state::AppState;

const MENU_OPEN: &str = "tray-open";
const MENU_QUIT: &str = "tray-quit";
const MENU_NONE: &str = "tray-none";
/// "Install command-line tool" (macOS and Windows: see `cli_path`).
const MENU_INSTALL_CLI: &str = "tray-install-cli";
const MENU_APPROVAL: &str = "tray-approval:";
/// Longest list in the menu: more than this many requests end with "N more…" (the
/// Approvals view has them all).
const LISTED: usize = 10;

/// What the tray and the close handling share.
#[derive(Default)]
pub struct Tray {
    /// The stored answer, read at start so a close request is decided without waiting.
    keep_running: Mutex<Option<bool>>,
    /// The window's channel for "ask whether to keep running in the tray".
    asks: Mutex<Option<Channel<()>>>,
    /// Set once the user chose to quit: the close that follows is let through.
    quitting: AtomicBool,
    icon: Mutex<Option<TrayIcon<Wry>>>,
}

/// Put the icon in the tray and keep its menu in step with the pending requests. Called on the
/// main thread once the store is open (`keep_running` is the stored answer); the [`Tray`]
/// itself is managed from the start, so a close request before this is decided as before.
pub fn start(app: &AppHandle<Wry>, desk: Option<Desk>, keep_running: Option<bool>) {
    let Some(tray) = app.try_state::<Tray>() else {
        return;
    };
    // An answer given meanwhile (the page's commands ran first) is newer than the stored one.
    {
        let mut stored = lock(&tray.keep_running);
        if stored.is_none() {
            *stored = keep_running;
        }
    }
    let pending = desk
        .as_ref()
        .map(|d| d.approvals().pending())
        .unwrap_or_default();
    let built = menu(app, &pending).and_then(|menu| {
        let mut builder = TrayIconBuilder::with_id("main")
            .tooltip("Agent Desk")
            .menu(&menu)
            .show_menu_on_left_click(true);
        // The macOS menu bar draws a template image in the bar's own colour (light or dark,
        // highlighted when open); the coloured app icon would be a blob there.
        #[cfg(target_os = "macos")]
        {
            builder = builder.icon(template_icon()).icon_as_template(true);
        }
        #[cfg(not(target_os = "macos"))]
        if let Some(icon) = app.default_window_icon() {
            builder = builder.icon(icon.clone());
        }
        let desk = desk.clone();
        builder
            .on_menu_event(move |app, event| on_menu(app, desk.as_ref(), event))
            .build(app)
    });
    match built {
        Ok(icon) => *lock(&tray.icon) = Some(icon),
        // No tray on this desktop: the window and notifications still work.
        Err(e) => tracing::warn!(error = %e, "no tray icon"),
    }
    if let Some(desk) = desk {
        follow(app.clone(), desk);
    }
}

fn menu(app: &AppHandle<Wry>, pending: &[Approval]) -> tauri::Result<Menu<Wry>> {
    let mut b = MenuBuilder::new(app);
    if pending.is_empty() {
        b = b.item(
            &tauri::menu::MenuItemBuilder::with_id(MENU_NONE, "No approvals waiting")
                .enabled(false)
                .build(app)?,
        );
    }
    for a in pending.iter().take(LISTED) {
        b = b.text(format!("{MENU_APPROVAL}{}", a.id), tray_label(a));
    }
    if pending.len() > LISTED {
        b = b.text(
            format!("{MENU_APPROVAL}more"),
            format!("{} more…", pending.len() - LISTED),
        );
    }
    b = b.separator().text(MENU_OPEN, "Open Agent Desk");
    // Linux packages put `agentdesk-cli` in /usr/bin already; the macOS app bundle and the
    // Windows install folder are not on PATH.
    if crate::cli_path::OFFERED {
        b = b.text(MENU_INSTALL_CLI, "Install command-line tool…");
    }
    b.text(MENU_QUIT, "Quit Agent Desk").build()
}

/// The menu-bar icon of macOS: black and transparent only, as a template image must be
/// (`icons/tray-template.png`, made from the app icon with ImageMagick: its light panes
/// and tick kept as black, the rest transparent).
#[cfg(any(target_os = "macos", test))]
fn template_icon() -> tauri::image::Image<'static> {
    tauri::include_image!("../icons/tray-template.png")
}

/// Rebuild the menu whenever the pending set changes.
fn follow(app: AppHandle<Wry>, desk: Desk) {
    tauri::async_runtime::spawn(async move {
        let mut pending = desk.approvals().watch_pending();
        loop {
            // The borrow ends before the await below (it is not Send).
            let now = pending.borrow_and_update().clone();
            let icon = app.try_state::<Tray>().and_then(|t| lock(&t.icon).clone());
            if let Some(icon) = icon {
                match menu(&app, &now) {
                    Ok(m) => {
                        if let Err(e) = icon.set_menu(Some(m)) {
                            tracing::warn!(error = %e, "cannot update the tray menu");
                        }
                    }
                    Err(e) => tracing::warn!(error = %e, "cannot build the tray menu"),
                }
            }
            if pending.changed().await.is_err() {
                break;
            }
        }
    });
}

/// Bring the main window back: from the tray, a Dock click (macOS `Reopen`) or a second
/// start of the app (single-instance).
pub(crate) fn show_window(app: &AppHandle<Wry>) {
    if let Some(w) = app.get_webview_window("main") {
        let _ = w.unminimize();
        let _ = w.show();
        let _ = w.set_focus();
    }
}

fn on_menu(app: &AppHandle<Wry>, desk: Option<&Desk>, event: MenuEvent) {
    let id = event.id().as_ref();
    if id == MENU_OPEN {
        show_window(app);
    } else if id == MENU_INSTALL_CLI {
        crate::cli_path::install_from_menu(app);
    } else if id == MENU_QUIT {
        if let Some(t) = app.try_state::<Tray>() {
            t.quitting.store(true, Ordering::SeqCst);
        }
        app.exit(0);
    } else if let Some(approval_id) = id.strip_prefix(MENU_APPROVAL) {
        // Still pending: its card; decided meanwhile (or "N more…"): the Approvals view.
        let approval = desk.and_then(|d| {
            d.approvals()
                .pending()
                .into_iter()
                .find(|a| a.id == approval_id)
        });
        show_window(app);
        if let Some(clicks) = app.try_state::<Clicks>() {
            clicks.open(approval);
        }
    }
}

/// The main window is asked to close: close, hide in the tray, or ask first.
pub fn on_window_event(window: &Window<Wry>, event: &WindowEvent) {
    let WindowEvent::CloseRequested { api, .. } = event else {
        return;
    };
    if window.label() != "main" {
        return;
    }
    let app = window.app_handle();
    let Some(tray) = app.try_state::<Tray>() else {
        return;
    };
    if tray.quitting.load(Ordering::SeqCst) {
        return;
    }
    let active = app
        .try_state::<AppState>()
        .and_then(|s| s.desk().ok().map(|d| !d.active_run_ids().is_empty()))
        .unwrap_or(false);
    let has_icon = lock(&tray.icon).is_some();
    let keep = *lock(&tray.keep_running);
    match close_action(active && has_icon, keep) {
        CloseAction::Close => {}
        CloseAction::Hide => {
            api.prevent_close();
            let _ = window.hide();
            tracing::info!("window hidden; Agent Desk keeps running in the tray");
        }
        CloseAction::Ask => {
            let asked = lock(&tray.asks)
                .as_ref()
                .map(|c| c.send(()).is_ok())
                .unwrap_or(false);
            // A window that cannot ask (still loading) closes as it always did.
            if asked {
                api.prevent_close();
            }
        }
    }
}

/// The window listens for "ask whether to keep running in the tray".
pub fn watch_close_requests(tray: tauri::State<'_, Tray>, on_ask: Channel<()>) {
    *lock(&tray.asks) = Some(on_ask);
}

/// The user's answer: stored, then carried out (hide in the tray, or close and quit).
pub async fn keep_running_in_tray(
    app: AppHandle<Wry>,
    state: tauri::State<'_, AppState>,
    tray: tauri::State<'_, Tray>,
    keep: bool,
) -> Result<(), IpcError> {
    let desk = state.desk()?;
    desk.set_tray_settings(&TraySettings {
        keep_running_in_tray: Some(keep),
    })
    .await?;
    *lock(&tray.keep_running) = Some(keep);
    if let Some(w) = app.get_webview_window("main") {
        if keep {
            w.hide().map_err(|e| internal(e.to_string()))?;
        } else {
            tray.quitting.store(true, Ordering::SeqCst);
            w.close().map_err(|e| internal(e.to_string()))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::template_icon;

    /// A template image is drawn from its alpha alone: every pixel must be black, and the
    /// shape must be there (some opaque, some transparent pixels).
    #[test]
    fn the_menu_bar_icon_is_a_template_image() {
        let icon = template_icon();
        assert_eq!((icon.width(), icon.height()), (44, 44));
        let pixels: Vec<&[u8]> = icon.rgba().chunks(4).collect();
        assert!(pixels.iter().all(|p| p[0] == 0 && p[1] == 0 && p[2] == 0));
        assert!(pixels.iter().any(|p| p[3] == 255));
        assert!(pixels.iter().any(|p| p[3] == 0));
    }
}
