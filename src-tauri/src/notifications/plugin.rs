//! Through tauri-plugin-notification: the path of macOS and Windows, and on Linux the
//! fallback `AGENTDESK_NOTIFICATIONS=plugin` selects (see `mod.rs`).
//!
//! The plugin carries a request's buttons as the actions of an action type (a notification
//! category on macOS, toast actions on Windows, `Notify` actions on Linux) and reports a
//! press to an `on_action` handler with the notification it came from. That notification
//! is told apart by the id given to the builder (the plugin reports no server id), so this
//! backend numbers its notifications itself.
//!
//! The keys of a request's buttons arrive sealed with that notification's nonce (`mod.rs`):
//! a press names its notification by id, and its key must be the one issued for that id.
//! macOS reports some presses by the button's title; the title is mapped back to the key
//! of that notification's own button. Presses come from the OS inside this process on macOS
//! and Windows; on Linux the plugin (notify-rust) takes `ActionInvoked` from any sender on
//! the session bus, so there the sealed key is the only check — one a same-user process
//! that eavesdrops on the bus can read — and the direct path (`freedesktop.rs`, which
//! checks the sender) is the default.
//!
//! What the plugin cannot do, and so this path does not either: withdraw a shown
//! notification on macOS / Windows (`remove_active` closes it on Linux only), report a
//! press on Windows once the toast moved to the Action Center, or report a dismissal.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use agentdesk_core::notify::{Content, ACTION_OPEN};
use tauri::{AppHandle, Manager, Wry};
use tauri_plugin_notification::{Action, ActionPerformed, ActionType, NotificationExt};
use tokio::sync::mpsc;

use super::{lock, Signal};

/// The one action type requests are shown with. It is registered again, with that
/// notification's buttons, right before each one is shown: the plugin copies the type's
/// actions when `show()` is called, and question options differ from one request to the
/// next.
const ACTION_TYPE: &str = "agentdesk-request";
/// The first button: "Open". macOS puts two or more actions in an "Options" menu and a
/// click on the menu button itself reports the first action, which must never be Approve.
/// Not "default": on Linux the plugin adds that one itself for the body click.
const OPEN_BUTTON: &str = "open";
/// The plugin's name for a click on the notification's body.
const TAP: &str = "tap";

/// Each notification shown with buttons, by this backend's id: its buttons (id, title).
type Buttons = Arc<Mutex<HashMap<u32, Vec<(String, String)>>>>;

pub struct Server {
    app: AppHandle<Wry>,
    next_id: u32,
    buttons: Buttons,
    signals: mpsc::UnboundedReceiver<Signal>,
}

impl Server {
    /// Installs the press handler. The plugin sends buttons only while a handler exists, so
    /// this comes before the first notification.
    pub async fn connect(app: AppHandle<Wry>) -> Result<Server, tauri_plugin_notification::Error> {
        let (tx, signals) = mpsc::unbounded_channel();
        let buttons = Buttons::default();
        let seen = Arc::clone(&buttons);
        app.notification().on_action(move |p: &ActionPerformed| {
            let id = p.notification().map(|n| n.id());
            if let Some(signal) = signal_of(p.action_id(), id, &seen) {
                // The receiver is gone only when the service ended: nothing left to decide.
                let _ = tx.send(signal);
            }
        })?;
        Ok(Server {
            app,
            next_id: 0,
            buttons,
            signals,
        })
    }

    pub fn has_actions(&self) -> bool {
        true
    }

    /// Show `content`; returns this backend's id for it. With `sound`, the system's default
    /// notification sound ([`sound_name`]); without, none is asked for.
    pub async fn show(
        &mut self,
        content: &Content,
        sound: bool,
    ) -> Result<u32, tauri_plugin_notification::Error> {
        // Positive i32 ids only: that is what the plugin's notification id holds.
        self.next_id = self.next_id % (i32::MAX as u32) + 1;
        let id = self.next_id;
        let mut builder = self
            .app
            .notification()
            .builder()
            .id(id as i32)
            .title(&content.title)
            .body(&content.body);
        if let Some(name) = sound_name(sound) {
            builder = builder.sound(name);
        }
        if !content.actions.is_empty() {
            let mut buttons = vec![(OPEN_BUTTON.to_string(), "Open".to_string())];
            buttons.extend(content.actions.iter().cloned());
            let actions = buttons
                .iter()
                .map(|(id, title)| Action::builder(id, title).build())
                .collect();
            self.app
                .notification()
                .register_action_types(vec![ActionType::builder(ACTION_TYPE)
                    .actions(actions)
                    .build()])?;
            lock(&self.buttons).insert(id, buttons);
            builder = builder.action_type_id(ACTION_TYPE);
        }
        if let Err(e) = builder.show() {
            lock(&self.buttons).remove(&id);
            return Err(e);
        }
        Ok(id)
    }

    /// Withdraw notification `id` (Linux; the plugin cannot on macOS and Windows). Its
    /// buttons are forgotten either way: a later press on it is not ours any more.
    pub async fn close(&self, id: u32) -> Result<(), tauri_plugin_notification::Error> {
        lock(&self.buttons).remove(&id);
        self.app.notification().remove_active(vec![id as i32])
    }

    /// The pending count on the window's badge: the dock icon on macOS; Windows has no count
    /// badge.
    pub async fn badge(&self, count: usize) -> Result<(), tauri::Error> {
        if let Some(w) = self.app.get_webview_window("main") {
            w.set_badge_count((count > 0).then_some(count as i64))?;
        }
        Ok(())
    }

    /// The next press. The plugin reports no dismissal, so there is never a `Closed`.
    pub async fn next_signal(&mut self) -> Option<Signal> {
        self.signals.recv().await
    }
}

/// The sound name the plugin passes on (notify-rust): "Default" is the system's default
/// sound for macOS (`mac-notification-sys`) and Windows (`winrt-notification`, where no name
/// means a silent toast); elsewhere it is a freedesktop sound-theme name, the one the direct
/// D-Bus path asks for too. `None` when the user turned sounds off.
fn sound_name(sound: bool) -> Option<&'static str> {
    if !sound {
        return None;
    }
    Some(if cfg!(freedesktop) {
        super::FREEDESKTOP_SOUND
    } else {
        "Default"
    })
}

/// What a press the plugin reported means: `None` when it names no notification of ours.
fn signal_of(pressed: &str, notification: Option<i32>, buttons: &Buttons) -> Option<Signal> {
    let id = u32::try_from(notification?).ok()?;
    let action = action_of(pressed, lock(buttons).get(&id).map(Vec::as_slice));
    Some(Signal::Action { id, action })
}

/// The planner's name for a press: a body click or "Open" opens the card; macOS names a
/// button by its title, which is mapped back to that notification's button (its sealed
/// key). Anything else reported for a notification of ours is a click on it: it opens the
/// card and decides nothing.
fn action_of(pressed: &str, buttons: Option<&[(String, String)]>) -> String {
    if pressed == TAP || pressed == OPEN_BUTTON {
        return ACTION_OPEN.to_string();
    }
    let buttons = buttons.unwrap_or_default();
    if buttons.iter().any(|(id, _)| id == pressed) {
        return pressed.to_string();
    }
    match buttons.iter().find(|(_, title)| title == pressed) {
        Some((id, _)) if id != OPEN_BUTTON => id.clone(),
        _ => ACTION_OPEN.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sound_setting_reaches_the_plugin() {
        assert_eq!(sound_name(false), None);
        let name = sound_name(true);
        if cfg!(freedesktop) {
            assert_eq!(name, Some("message-new-instant"));
        } else {
            assert_eq!(name, Some("Default"));
        }
    }

    /// A notification's buttons as `show` stores them: "Open", then the sealed keys.
    fn buttons() -> Vec<(String, String)> {
        [
            ("open", "Open"),
            ("approve.n7", "Approve"),
            ("deny.n7", "Deny"),
        ]
        .into_iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
    }

    #[test]
    fn a_press_maps_to_the_planner_action() {
        let b = buttons();
        assert_eq!(action_of("tap", Some(&b)), ACTION_OPEN);
        assert_eq!(action_of("open", Some(&b)), ACTION_OPEN);
        assert_eq!(action_of("approve.n7", Some(&b)), "approve.n7");
        // macOS reports the title: that notification's own sealed key.
        assert_eq!(action_of("Deny", Some(&b)), "deny.n7");
        assert_eq!(action_of("Open", Some(&b)), ACTION_OPEN);
        // A notification without buttons: only its body click.
        assert_eq!(action_of("tap", None), ACTION_OPEN);
        // Keys that are not this notification's decide nothing: they open its card.
        assert_eq!(action_of("Approve", None), ACTION_OPEN);
        assert_eq!(action_of("approve", Some(&b)), ACTION_OPEN);
        assert_eq!(action_of("approve.n8", Some(&b)), ACTION_OPEN);
    }

    #[test]
    fn a_press_names_the_notification_it_came_from() {
        let b = Buttons::default();
        lock(&b).insert(7, buttons());
        match signal_of("Approve", Some(7), &b) {
            Some(Signal::Action { id, action }) => {
                assert_eq!((id, action.as_str()), (7, "approve.n7"))
            }
            _ => panic!("no press"),
        }
        assert!(signal_of("tap", None, &b).is_none());
        assert!(signal_of("tap", Some(-1), &b).is_none());
    }
}
