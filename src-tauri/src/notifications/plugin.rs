//! Through tauri-plugin-notification on Linux (the fallback `AGENTDESK_NOTIFICATIONS=plugin`
//! selects, see `mod.rs`), and through notify-rust directly on macOS and Windows — the
//! library the plugin itself uses there, called without the plugin so that this module
//! owns what the plugin hides: the toast's scenario, the waiting threads and the sound name.
//!
//! A request's buttons are the actions of an action type on Linux (`Notify` actions), and
//! notify-rust actions on macOS (NSUserNotification: "Options" menu) and Windows (toast
//! buttons). A press is reported with the id this backend gave the notification (no path
//! reports a server id), so this backend numbers its notifications itself.
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
//! Per platform (issue 20, items 6 and 7):
//! - **Windows**: a request is a *reminder* toast (`Scenario::Reminder`, long duration —
//!   what notify-rust makes of `Urgency::Critical` / `Timeout::Never`; the plugin passes
//!   neither): it stays on screen until acted on or dismissed instead of leaving after 5–7 s
//!   for the Action Center, where a press does not reach a running unpackaged app (no COM
//!   activator: Windows starts the executable again, which single-instance turns into
//!   "show the window", see `lib.rs`). Withdrawing is not possible: tauri-winrt-notification
//!   0.8 shows a toast without a tag or group and offers no `ToastNotificationHistory`
//!   call, and notify-rust's handle has no close on Windows.
//! - **macOS**: the sound is `NSUserNotificationDefaultSoundName`, the one name
//!   mac-notification-sys turns into the system's default sound (`"Default"` is taken as a
//!   sound file name, and nothing plays). A notification whose press is reported holds a
//!   thread blocked in mac-notification-sys until it is acted on, dismissed or cleared from
//!   the Notification Center; at most [`MAX_WAITING`] are outstanding (see [`Waiting`]),
//!   beyond that a notification is shown without buttons and without a thread (the window,
//!   the tray menu and the Dock badge still list every request). A request decided
//!   elsewhere has its notification withdrawn from the Notification Center
//!   (`removeDeliveredNotification`), which also ends its waiting thread (mac-notification-sys
//!   polls for it and takes its disappearance as a dismissal). mac-notification-sys 0.6 gives
//!   the caller no identifier of what it delivered, so the notification is found by its title
//!   and body, and only while no other notification of ours on screen has the same text
//!   ([`Texts`]): two identical ones cannot be told apart, and both stay.
//! - Neither reports a dismissal to the planner; a press on a request decided meanwhile
//!   changes nothing (`mod.rs` decides only what is still pending).

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use agentdesk_core::notify::{Content, ACTION_OPEN};
use tauri::{AppHandle, Manager, Wry};
#[cfg(not(any(target_os = "macos", windows)))]
use tauri_plugin_notification::{Action, ActionType};
use tauri_plugin_notification::{ActionPerformed, NotificationExt};
use tokio::sync::mpsc;

use super::{lock, Signal};

/// The one action type requests are shown with. It is registered again, with that
/// notification's buttons, right before each one is shown: the plugin copies the type's
/// actions when `show()` is called, and question options differ from one request to the
/// next. (Linux only: macOS and Windows do not go through the plugin.)
#[cfg(not(any(target_os = "macos", windows)))]
const ACTION_TYPE: &str = "agentdesk-request";
/// The first button: "Open". macOS puts two or more actions in an "Options" menu and a
/// click on the menu button itself reports the first action, which must never be Approve.
/// Not "default": on Linux the plugin adds that one itself for the body click.
const OPEN_BUTTON: &str = "open";
/// The plugin's name for a click on the notification's body.
const TAP: &str = "tap";

/// Most notifications whose presses are waited for at once on macOS and Windows (a
/// blocked thread each). Enough for every request of a busy session; past it, requests go on
/// arriving as plain notifications.
#[cfg_attr(freedesktop, allow(dead_code))]
const MAX_WAITING: usize = 8;

/// Each notification shown with buttons, by this backend's id: its buttons (id, title).
type Buttons = Arc<Mutex<HashMap<u32, Vec<(String, String)>>>>;

pub struct Server {
    app: AppHandle<Wry>,
    next_id: u32,
    buttons: Buttons,
    signals: mpsc::UnboundedReceiver<Signal>,
    /// Where the threads of the macOS / Windows path report presses.
    #[cfg_attr(freedesktop, allow(dead_code))]
    presses: mpsc::UnboundedSender<Signal>,
    #[cfg_attr(freedesktop, allow(dead_code))]
    waiting: Waiting,
    /// macOS: the text of each request's notification, to withdraw it by.
    #[cfg_attr(not(target_os = "macos"), allow(dead_code))]
    texts: Texts,
}

/// The (title, body) of each request's notification shown, by this backend's id (macOS).
#[derive(Default)]
#[cfg_attr(not(target_os = "macos"), allow(dead_code))]
struct Texts(HashMap<u32, (String, String)>);

#[cfg_attr(not(target_os = "macos"), allow(dead_code))]
impl Texts {
    fn shown(&mut self, id: u32, title: &str, body: &str) {
        self.0.insert(id, (title.to_string(), body.to_string()));
    }

    /// Forget notification `id`; its text, when nothing else of ours shows that same text
    /// (then it can be withdrawn by its text without taking another request's along).
    fn withdrawable(&mut self, id: u32) -> Option<(String, String)> {
        let text = self.0.remove(&id)?;
        (!self.0.values().any(|t| *t == text)).then_some(text)
    }
}

/// Counts the threads waiting for a press, up to a cap: a slot is taken before a thread is
/// started and given back when the thread ends (the [`Slot`] is dropped).
#[derive(Clone)]
#[cfg_attr(freedesktop, allow(dead_code))]
struct Waiting {
    live: Arc<AtomicUsize>,
    cap: usize,
}

#[cfg_attr(freedesktop, allow(dead_code))]
struct Slot(Arc<AtomicUsize>);

#[cfg_attr(freedesktop, allow(dead_code))]
impl Waiting {
    fn new(cap: usize) -> Waiting {
        Waiting {
            live: Arc::default(),
            cap,
        }
    }

    /// A slot, or `None` when `cap` threads are waiting already.
    fn take(&self) -> Option<Slot> {
        self.live
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                (n < self.cap).then_some(n + 1)
            })
            .ok()
            .map(|_| Slot(Arc::clone(&self.live)))
    }

    fn live(&self) -> usize {
        self.live.load(Ordering::SeqCst)
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Server {
    /// Installs the press handler. The plugin sends buttons only while a handler exists, so
    /// this comes before the first notification.
    pub async fn connect(app: AppHandle<Wry>) -> Result<Server, tauri_plugin_notification::Error> {
        let (tx, signals) = mpsc::unbounded_channel();
        let buttons = Buttons::default();
        let seen = Arc::clone(&buttons);
        let presses = tx.clone();
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
            presses,
            waiting: Waiting::new(MAX_WAITING),
            texts: Texts::default(),
        })
    }

    pub fn has_actions(&self) -> bool {
        true
    }

    /// Show `content`; returns this backend's id for it. With `sound`, the system's default
    /// notification sound ([`sound_name`]); without, none is asked for. `persistent`: a
    /// request (or a summary of requests), which should stay until acted on where the
    /// platform allows it (Windows).
    pub async fn show(
        &mut self,
        content: &Content,
        sound: bool,
        persistent: bool,
    ) -> Result<u32, tauri_plugin_notification::Error> {
        // Positive i32 ids only: that is what the plugin's notification id holds.
        self.next_id = self.next_id % (i32::MAX as u32) + 1;
        let id = self.next_id;
        self.deliver(id, content, sound, persistent)?;
        Ok(id)
    }

    /// Linux: through the plugin. A freedesktop notification stays until acted on or
    /// closed anyway, so `persistent` changes nothing.
    #[cfg(not(any(target_os = "macos", windows)))]
    fn deliver(
        &mut self,
        id: u32,
        content: &Content,
        sound: bool,
        _persistent: bool,
    ) -> Result<(), tauri_plugin_notification::Error> {
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
        let buttons = buttons_of(content, false);
        if !buttons.is_empty() {
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
        Ok(())
    }

    /// macOS and Windows: notify-rust on a thread of its own that waits for the press (both
    /// block until the user acts: mac-notification-sys on its run-loop callbacks, the toast
    /// on its activation channel), while a [`Waiting`] slot is free; otherwise shown
    /// without buttons and forgotten.
    #[cfg(any(target_os = "macos", windows))]
    fn deliver(
        &mut self,
        id: u32,
        content: &Content,
        sound: bool,
        persistent: bool,
    ) -> Result<(), tauri_plugin_notification::Error> {
        let mut n = notify_rust::Notification::new();
        n.summary(&content.title).body(&content.body);
        if let Some(name) = sound_name(sound) {
            n.sound_name(name);
        }
        #[cfg(target_os = "macos")]
        mac_application(&self.app);
        #[cfg(windows)]
        if installed_exe() {
            // The toast is the app's (name, icon, Start-menu shortcut) only for an installed
            // app; a dev build shows as PowerShell, as the plugin does.
            n.app_id(&self.app.config().identifier);
        }
        // Only a request's (or summary's) press leads anywhere (`mod.rs` knows no other
        // notification): a run's end is shown and forgotten, holding no thread.
        let slot = if persistent {
            self.waiting.take()
        } else {
            None
        };
        if persistent && slot.is_none() {
            tracing::info!(
                waiting = self.waiting.live(),
                "notification shown without buttons: too many are waiting for a press"
            );
        }
        let buttons = if slot.is_some() {
            buttons_of(content, persistent)
        } else {
            Vec::new()
        };
        for (key, title) in &buttons {
            n.action(key, title);
        }
        #[cfg(windows)]
        if persistent && !buttons.is_empty() {
            // notify-rust maps these to `Scenario::Reminder` and `Duration::Long`; Windows
            // keeps a reminder on screen only when it has a button.
            n.urgency(notify_rust::Urgency::Critical);
            n.timeout(notify_rust::Timeout::Never);
        }
        let waits = slot.is_some();
        if waits {
            lock(&self.buttons).insert(id, buttons);
        }
        #[cfg(target_os = "macos")]
        if persistent {
            self.texts.shown(id, &content.title, &content.body);
        }
        let seen = Arc::clone(&self.buttons);
        let tx = self.presses.clone();
        let spawned = std::thread::Builder::new()
            .name("notification".into())
            .spawn(move || show_and_wait(n, slot, id, &seen, &tx));
        if let Err(e) = spawned {
            lock(&self.buttons).remove(&id);
            return Err(e.into());
        }
        Ok(())
    }

    /// Withdraw notification `id` (Linux through the plugin, macOS by its text; nothing can
    /// on Windows, see the module comment). Its buttons are forgotten either way: a later
    /// press on it is not ours any more.
    pub async fn close(&mut self, id: u32) -> Result<(), tauri_plugin_notification::Error> {
        lock(&self.buttons).remove(&id);
        #[cfg(target_os = "macos")]
        if let Some((title, body)) = self.texts.withdrawable(id) {
            withdraw_delivered(&self.app, title, body);
        }
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

/// The notification stacks the sound names are for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Desktop {
    Freedesktop,
    MacOs,
    Windows,
}

impl Desktop {
    const HERE: Desktop = if cfg!(target_os = "macos") {
        Desktop::MacOs
    } else if cfg!(windows) {
        Desktop::Windows
    } else {
        Desktop::Freedesktop
    };
}

/// The body of a macOS / Windows notification's thread: shows `n` and, when it holds a
/// [`Waiting`] slot, blocks until the user acts, sending the press to `tx`; the
/// notification's buttons are forgotten when it is acted on or gone.
#[cfg(any(target_os = "macos", windows))]
fn show_and_wait(
    n: notify_rust::Notification,
    slot: Option<Slot>,
    id: u32,
    seen: &Buttons,
    tx: &mpsc::UnboundedSender<Signal>,
) {
    let waits = slot.is_some();
    // Held until the wait ends: the slot counts this thread.
    let _slot = slot;
    let handle = match n.show() {
        Ok(h) => h,
        Err(e) => {
            tracing::warn!(error = %e, "cannot show a notification");
            lock(seen).remove(&id);
            return;
        }
    };
    if !waits {
        // Dropping the handle sends it without waiting (macOS); the toast is
        // already up (Windows).
        drop(handle);
        return;
    }
    let _ = handle.wait_for_response(|r: &notify_rust::NotificationResponse| {
        let pressed = match r {
            notify_rust::NotificationResponse::Default => TAP,
            notify_rust::NotificationResponse::Action(a) => a.as_str(),
            _ => return,
        };
        if let Some(signal) = signal_of(pressed, Some(id as i32), seen) {
            let _ = tx.send(signal);
        }
    });
    // Acted on or gone: a later press cannot come from it.
    lock(seen).remove(&id);
}

/// The sound name notify-rust passes on. `None` when the user turned sounds off.
fn sound_name(sound: bool) -> Option<&'static str> {
    sound_name_on(Desktop::HERE, sound)
}

fn sound_name_on(desktop: Desktop, sound: bool) -> Option<&'static str> {
    if !sound {
        return None;
    }
    Some(match desktop {
        // A freedesktop sound-theme name, the one the direct D-Bus path asks for too.
        Desktop::Freedesktop => super::FREEDESKTOP_SOUND,
        // mac-notification-sys plays the default sound only for this exact name; any other
        // is looked up as a sound file ("Default" finds none: silence).
        Desktop::MacOs => "NSUserNotificationDefaultSoundName",
        // tauri-winrt-notification's `Sound::Default` (no name is a silent toast).
        Desktop::Windows => "Default",
    })
}

/// The buttons a notification gets: "Open" first, then the sealed keys; none for a
/// notification without keys unless `always` (a Windows reminder needs a button, and on
/// macOS a request's notification offers "Open" even when it cannot offer Approve).
fn buttons_of(content: &Content, always: bool) -> Vec<(String, String)> {
    if content.actions.is_empty() && !always {
        return Vec::new();
    }
    let mut buttons = vec![(OPEN_BUTTON.to_string(), "Open".to_string())];
    buttons.extend(content.actions.iter().cloned());
    buttons
}

/// Windows: whether `exe_dir` is an installed app's folder, not cargo's `target/debug` or
/// `target/release` (the same test the plugin makes before giving a toast the app's id).
#[cfg_attr(not(windows), allow(dead_code))]
fn installed_dir(exe_dir: &str, sep: char) -> bool {
    !["debug", "release"]
        .iter()
        .any(|p| exe_dir.ends_with(&format!("{sep}target{sep}{p}")))
}

#[cfg(windows)]
fn installed_exe() -> bool {
    std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(|d| d.display().to_string()))
        .is_some_and(|d| installed_dir(&d, std::path::MAIN_SEPARATOR))
}

/// macOS: name the app whose notifications these are, once (mac-notification-sys allows it
/// once, before the first notification). A dev build is not a registered bundle: it shows as
/// Terminal, as the plugin does.
#[cfg(target_os = "macos")]
fn mac_application(app: &AppHandle<Wry>) {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let id = if tauri::is_dev() {
            "com.apple.Terminal".to_string()
        } else {
            app.config().identifier.clone()
        };
        if let Err(e) = notify_rust::set_application(&id) {
            tracing::warn!(error = %e, "notifications: cannot name the application");
        }
    });
}

/// macOS: remove this app's delivered notifications with this title and body from the
/// Notification Center, on the main thread (AppKit's). The NSUserNotification API is
/// deprecated, but it is the one mac-notification-sys delivers them with.
#[cfg(target_os = "macos")]
#[allow(deprecated)]
fn withdraw_delivered(app: &AppHandle<Wry>, title: String, body: String) {
    let queued = app.run_on_main_thread(move || {
        use objc2_foundation::NSUserNotificationCenter;
        let center = NSUserNotificationCenter::defaultUserNotificationCenter();
        for n in center.deliveredNotifications().to_vec() {
            let same = n.title().is_some_and(|t| t.to_string() == title)
                && n.informativeText().is_some_and(|b| b.to_string() == body);
            if same {
                center.removeDeliveredNotification(&n);
            }
        }
    });
    if let Err(e) = queued {
        tracing::debug!(error = %e, "cannot withdraw a notification");
    }
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
        assert_eq!(Desktop::HERE, Desktop::Freedesktop);
        assert_eq!(sound_name(true), Some("message-new-instant"));
        // The names each platform's library turns into the system's default sound.
        assert_eq!(
            sound_name_on(Desktop::MacOs, true),
            Some("NSUserNotificationDefaultSoundName")
        );
        assert_eq!(sound_name_on(Desktop::Windows, true), Some("Default"));
        assert_eq!(sound_name_on(Desktop::MacOs, false), None);
    }

    #[test]
    fn the_waiting_threads_are_capped() {
        let w = Waiting::new(MAX_WAITING);
        let mut slots: Vec<Slot> = (0..MAX_WAITING).filter_map(|_| w.take()).collect();
        assert_eq!(slots.len(), MAX_WAITING);
        assert_eq!(w.live(), MAX_WAITING);
        // Full: the next notification gets no thread (and so no buttons).
        assert!(w.take().is_none());
        assert_eq!(w.live(), MAX_WAITING);
        // A thread that ends (acted on, dismissed) frees its slot.
        slots.pop();
        assert_eq!(w.live(), MAX_WAITING - 1);
        assert!(w.take().is_some_and(|s| {
            drop(s);
            true
        }));
        drop(slots);
        assert_eq!(w.live(), 0);
        // From several threads at once, never more than the cap.
        let taken: Vec<Option<Slot>> = std::thread::scope(|s| {
            let hs: Vec<_> = (0..32).map(|_| s.spawn(|| w.take())).collect();
            hs.into_iter().filter_map(|h| h.join().ok()).collect()
        });
        assert_eq!(taken.iter().filter(|t| t.is_some()).count(), MAX_WAITING);
    }

    #[test]
    fn a_request_gets_open_first_and_a_reminder_always_has_a_button() {
        let with_keys = Content {
            title: "t".into(),
            body: "b".into(),
            actions: vec![("approve.n7".into(), "Approve".into())],
        };
        let open_only = Content {
            actions: Vec::new(),
            ..with_keys.clone()
        };
        let ids = |b: Vec<(String, String)>| b.into_iter().map(|(id, _)| id).collect::<Vec<_>>();
        assert_eq!(ids(buttons_of(&with_keys, false)), ["open", "approve.n7"]);
        assert_eq!(ids(buttons_of(&open_only, false)), Vec::<String>::new());
        assert_eq!(ids(buttons_of(&open_only, true)), ["open"]);
    }

    #[test]
    fn a_notification_is_withdrawn_by_its_text_only_when_no_other_shows_it() {
        let mut t = Texts::default();
        t.shown(1, "Run: ls", "in ~/a");
        t.shown(2, "Run: ls", "in ~/a");
        t.shown(3, "Run: rm x", "in ~/a");
        // Another notification of ours has the same text: it cannot be told apart, none goes.
        assert_eq!(t.withdrawable(1), None);
        // Now it is the only one with that text.
        assert_eq!(
            t.withdrawable(2),
            Some(("Run: ls".to_string(), "in ~/a".to_string()))
        );
        assert_eq!(
            t.withdrawable(3),
            Some(("Run: rm x".to_string(), "in ~/a".to_string()))
        );
        // Forgotten: closing it again withdraws nothing.
        assert_eq!(t.withdrawable(3), None);
    }

    #[test]
    fn only_an_installed_windows_app_names_its_toasts() {
        assert!(installed_dir(r"C:\Program Files\Agent Desk", '\\'));
        assert!(!installed_dir(r"C:\src\agentdesk\target\debug", '\\'));
        assert!(!installed_dir(r"C:\src\agentdesk\target\release", '\\'));
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
