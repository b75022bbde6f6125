//! OS notifications for approvals and questions, with the decision on the notification.
//!
//! One task follows the approval queue (`ApprovalQueue::subscribe`), asks the core's
//! [`Planner`] what to show (preferences, dedupe, burst folding) and carries its steps out on
//! the platform's service. Which path each platform takes:
//!
//! - **Linux / BSDs** (`freedesktop.rs`): straight over the session bus to
//!   `org.freedesktop.Notifications`. `GetCapabilities` is read at start: with "actions",
//!   a request gets Approve / Deny buttons (a question with at most 3 options: the options)
//!   and `ActionInvoked` decides it; without, a plain notification. A decision made
//!   anywhere else withdraws it with `CloseNotification`.
//! - **macOS / Windows** (`plugin.rs`): notify-rust, the library tauri-plugin-notification
//!   uses there, called directly: the same buttons (an "Open" button first), each
//!   notification's press waited for on a thread of its own, at most `MAX_WAITING` at once;
//!   a request on Windows is a reminder toast that stays on screen. Neither can withdraw a
//!   notification nor report a dismissal.
//!   Linux takes this path through tauri-plugin-notification when
//!   `AGENTDESK_NOTIFICATIONS=plugin` is set: a fallback for a desktop where the direct path
//!   misbehaves (the plugin speaks to the same service, without reading its capabilities),
//!   and how the press mapping of this path is tested.
//!
//! The backend is chosen when the app starts ([`Choice`]); both are compiled wherever the
//! freedesktop one can be, so the plugin backend is type-checked and tested on Linux.
//!
//! The pending count goes on the dock / taskbar badge: on Linux as the Unity launcher
//! signal (`com.canonical.Unity.LauncherEntry.Update`, read by GNOME docks, Plank, KDE)
//! addressed to the installed `.desktop` file (`<productName>.desktop`, as the bundler
//! names it),
//! on macOS on the dock icon; Windows has no count badge.
//!
//! A run that finished or failed after at least the preference's minimum (30 s by default)
//! gets a notification too, while the preference allows it (by default: window unfocused).
//!
//! A press decides through `Desk::decide_approval` / `answer_question` with
//! `DecidedBy::Notification` only while the request is still pending (the queue's
//! compare-and-set refuses anything else); a dismissal or a timeout decides nothing. A click
//! on the body brings the window up on the request's card (the UI's
//! `watch_notification_clicks` channel).
//!
//! Who can press: on Linux only the notification server itself (`freedesktop.rs` takes
//! signals from the unique name that owns `org.freedesktop.Notifications`, about ids it gave
//! this process). And on every path a button's key is sealed with a fresh random nonce per
//! notification (`approve.<nonce>`, [`Content::sealed`]): a press counts only with the key
//! issued for that very notification, so a constant `approve`, a guessed id or another
//! notification's key decides nothing. The nonce is no secret from a same-user process that
//! eavesdrops on the session bus; it guards the plugin path (whose presses come without a
//! sender) and a server that relays what others send.
//!
//! A request's notification carries the buttons that decide only when its body shows the
//! whole request (`approval_content`); otherwise it only opens the card.

/// The freedesktop sound-theme name a notification with sound asks for, on both paths.
const FREEDESKTOP_SOUND: &str = "message-new-instant";

#[cfg(freedesktop)]
mod freedesktop;
mod plugin;

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;
use std::time::Instant;

use agentdesk_core::notify::{
    approval_content, new_nonce, run_end_content, summary_content, Content, Folding, Key, Origin,
    Planner, Press, PressAnswer, Step, Target,
};
use agentdesk_core::{Desk, RunUpdate};
use agentdesk_protocol::ids::{RunId, SessionId};
use agentdesk_protocol::sync::lock;
use agentdesk_protocol::ui::{Approval, ApprovalChange, DecidedBy, Run};
use tauri::ipc::Channel;
use tauri::{AppHandle, Manager, Wry};
use tokio::sync::broadcast::error::RecvError;

/// What the notification service reported. (`Closed`: only the freedesktop path hears a
/// dismissal.)
#[cfg_attr(not(freedesktop), allow(dead_code))]
pub enum Signal {
    Action { id: u32, action: String },
    Closed { id: u32 },
}

/// The window's channel for "open this card" (a notification body was clicked); `None`
/// opens the Approvals view (a summary was clicked).
#[derive(Default)]
pub struct Clicks {
    channel: Mutex<Option<Channel<Option<Approval>>>>,
    /// A click that came before the window listened (it was still loading).
    waiting: Mutex<Option<Option<Approval>>>,
}

impl Clicks {
    pub fn watch(&self, channel: Channel<Option<Approval>>) {
        if let Some(target) = lock(&self.waiting).take() {
            let _ = channel.send(target);
        }
        *lock(&self.channel) = Some(channel);
    }

    /// Bring the window's view to `target`'s card (`None`: the Approvals view).
    pub(crate) fn open(&self, target: Option<Approval>) {
        let sent = lock(&self.channel)
            .as_ref()
            .map(|c| c.send(target.clone()).is_ok())
            .unwrap_or(false);
        if !sent {
            *lock(&self.waiting) = Some(target);
        }
    }
}

/// The app's product name (`productName` in tauri.conf.json), which the bundler names the
/// installed `.desktop` file after.
#[cfg(freedesktop)]
fn product_name(app: &AppHandle<Wry>) -> String {
    app.config()
        .product_name
        .clone()
        .unwrap_or_else(|| "Agent Desk".to_string())
}

/// Follow the approval queue for as long as the app runs.
pub fn start(app: AppHandle<Wry>, desk: Desk) {
    tauri::async_runtime::spawn(async move {
        // Subscribed before anything is read, so no change falls between the two.
        let changes = desk.approvals().subscribe();
        // Statuses only, each one (a run's end is never missed; no delta is ever queued).
        let runs = desk.subscribe_runs_where(|u| matches!(u, RunUpdate::Status { .. }));
        let pending = desk.approvals().watch_pending();
        let server = Backend::connect(
            &app,
            Choice::from_env(std::env::var("AGENTDESK_NOTIFICATIONS").ok().as_deref()),
        )
        .await;
        match server {
            Ok(server) => {
                tracing::info!(actions = server.has_actions(), "approval notifications on");
                Service {
                    app,
                    desk,
                    server,
                    planner: Planner::new(Folding::default()),
                    ids: HashMap::new(),
                    keys: HashMap::new(),
                    runs_notified: HashSet::new(),
                }
                .run(changes, runs, pending)
                .await;
            }
            // No session bus or no notification server: the window and its badge still
            // show every request.
            Err(e) => {
                tracing::warn!(error = %e, "no notification service; approvals show in the window only")
            }
        }
    });
}

/// Which backend shows the notifications.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Choice {
    /// `org.freedesktop.Notifications` over the session bus, directly (`freedesktop.rs`).
    Freedesktop,
    /// tauri-plugin-notification (`plugin.rs`).
    Plugin,
}

impl Choice {
    /// Where the freedesktop service exists it is the default (it reads the server's
    /// capabilities and withdraws notifications, the plugin does neither);
    /// `AGENTDESK_NOTIFICATIONS=plugin` picks the plugin there. Everywhere else: the plugin.
    fn from_env(value: Option<&str>) -> Choice {
        Choice::pick(value, cfg!(freedesktop))
    }

    fn pick(value: Option<&str>, freedesktop_here: bool) -> Choice {
        match value.map(str::trim) {
            _ if !freedesktop_here => Choice::Plugin,
            Some(v) if v.eq_ignore_ascii_case("plugin") => Choice::Plugin,
            _ => Choice::Freedesktop,
        }
    }
}

/// Errors of either backend; they are only logged.
type BackendError = Box<dyn std::error::Error + Send + Sync>;

/// The chosen backend; each method is the same method of the backend inside.
enum Backend {
    /// Boxed (both): each holds message streams and tables of its notifications.
    #[cfg(freedesktop)]
    Freedesktop(Box<freedesktop::Server>),
    Plugin(Box<plugin::Server>),
}

impl Backend {
    async fn connect(app: &AppHandle<Wry>, choice: Choice) -> Result<Backend, BackendError> {
        tracing::info!(backend = ?choice, "notification backend");
        match choice {
            #[cfg(freedesktop)]
            Choice::Freedesktop => Ok(Backend::Freedesktop(Box::new(
                freedesktop::Server::connect(product_name(app)).await?,
            ))),
            // `Choice::from_env` never picks it where it does not exist.
            #[cfg(not(freedesktop))]
            Choice::Freedesktop => Ok(Backend::Plugin(Box::new(
                plugin::Server::connect(app.clone()).await?,
            ))),
            Choice::Plugin => Ok(Backend::Plugin(Box::new(
                plugin::Server::connect(app.clone()).await?,
            ))),
        }
    }

    fn has_actions(&self) -> bool {
        match self {
            #[cfg(freedesktop)]
            Backend::Freedesktop(s) => s.has_actions(),
            Backend::Plugin(s) => s.has_actions(),
        }
    }

    /// `persistent`: a request or a summary of requests, kept on screen until acted on where
    /// only the backend decides (Windows reminder toasts); a freedesktop server keeps every
    /// notification with actions anyway.
    async fn show(
        &mut self,
        content: &Content,
        sound: bool,
        persistent: bool,
    ) -> Result<u32, BackendError> {
        Ok(match self {
            #[cfg(freedesktop)]
            Backend::Freedesktop(s) => {
                let _ = persistent;
                s.show(content, sound).await?
            }
            Backend::Plugin(s) => s.show(content, sound, persistent).await?,
        })
    }

    async fn close(&mut self, id: u32) -> Result<(), BackendError> {
        match self {
            #[cfg(freedesktop)]
            Backend::Freedesktop(s) => s.close(id).await?,
            Backend::Plugin(s) => s.close(id).await?,
        }
        Ok(())
    }

    async fn badge(&self, count: usize) -> Result<(), BackendError> {
        match self {
            #[cfg(freedesktop)]
            Backend::Freedesktop(s) => s.badge(count).await?,
            Backend::Plugin(s) => s.badge(count).await?,
        }
        Ok(())
    }

    async fn next_signal(&mut self) -> Option<Signal> {
        match self {
            #[cfg(freedesktop)]
            Backend::Freedesktop(s) => s.next_signal().await,
            Backend::Plugin(s) => s.next_signal().await,
        }
    }
}

/// A notification of a request (or a summary) on screen.
struct Shown {
    key: Key,
    /// What its buttons' keys end with ([`Content::sealed`]).
    nonce: String,
}

struct Service {
    app: AppHandle<Wry>,
    desk: Desk,
    server: Backend,
    planner: Planner,
    /// Planner key → the server's id, and back (with the nonce its buttons were sealed with).
    ids: HashMap<Key, u32>,
    keys: HashMap<u32, Shown>,
    /// Runs whose end was notified (a status can be published more than once).
    runs_notified: HashSet<RunId>,
}

impl Service {
    async fn run(
        mut self,
        mut changes: tokio::sync::broadcast::Receiver<ApprovalChange>,
        mut runs: agentdesk_core::RunUpdates,
        mut pending: tokio::sync::watch::Receiver<Vec<Approval>>,
    ) {
        let mut badge = None;
        // The watch's borrow must end before any await (it is not Send).
        let count = pending.borrow_and_update().len();
        self.badge(&mut badge, count).await;
        // Requests another process (an `agentdesk-cli run`) left waiting: one summary.
        match self.desk.store().pending_approvals().await {
            Ok(pending) => {
                let steps = self.planner.start(&pending);
                self.apply(steps).await;
            }
            Err(e) => tracing::warn!(error = %e, "cannot read pending approvals"),
        }
        loop {
            let due = self.planner.due();
            tokio::select! {
                change = changes.recv() => match change {
                    Ok(ApprovalChange::Added { approval }) => self.added(approval).await,
                    Ok(ApprovalChange::Resolved { approval }) => {
                        let steps = self.planner.resolved(&approval.id);
                        self.apply(steps).await;
                    }
                    Err(RecvError::Lagged(_)) => self.catch_up().await,
                    Err(RecvError::Closed) => break,
                },
                changed = pending.changed() => match changed {
                    Ok(()) => {
                        let count = pending.borrow_and_update().len();
                        self.badge(&mut badge, count).await;
                    }
                    Err(_) => break,
                },
                update = runs.recv() => match update {
                    Ok(RunUpdate::Status { run }) => self.run_status(run).await,
                    Ok(_) => {}
                    // Only past tens of thousands of waiting statuses: a missed end is a
                    // missed notification, nothing worse.
                    Err(agentdesk_core::fanout::RecvError::Overflowed(n)) => {
                        tracing::warn!(missed = n, "run statuses overflowed; some run-end notifications were not shown");
                    }
                    Err(agentdesk_core::fanout::RecvError::Closed) => break,
                },
                signal = self.server.next_signal() => match signal {
                    Some(Signal::Action { id, action }) => self.pressed(id, &action).await,
                    Some(Signal::Closed { id }) => {
                        if let Some(shown) = self.keys.remove(&id) {
                            self.ids.remove(&shown.key);
                            self.planner.closed(shown.key);
                        }
                    }
                    None => {
                        tracing::warn!("the notification service connection ended");
                        break;
                    }
                },
                _ = sleep_until(due), if due.is_some() => {
                    let steps = self.planner.flush(Instant::now());
                    self.apply(steps).await;
                }
            }
        }
    }

    fn window_focused(&self) -> bool {
        self.app
            .get_webview_window("main")
            .and_then(|w| w.is_focused().ok())
            .unwrap_or(false)
    }

    async fn added(&mut self, approval: Approval) {
        let settings = self.desk.notification_prefs().await.unwrap_or_default();
        let show = settings.shows_request(approval.kind, self.window_focused());
        self.planner.added(approval, show, Instant::now());
    }

    /// Fell behind the queue: whatever is pending and unseen is new; whatever is shown
    /// and no longer pending was resolved.
    async fn catch_up(&mut self) {
        let pending = self.desk.approvals().pending();
        for a in &pending {
            if !self.planner.has_seen(&a.id) {
                self.added(a.clone()).await;
            }
        }
        let pending_ids: std::collections::HashSet<&str> =
            pending.iter().map(|a| a.id.as_str()).collect();
        for id in self.planner.showing() {
            if !pending_ids.contains(id.as_str()) {
                let steps = self.planner.resolved(&id);
                self.apply(steps).await;
            }
        }
    }

    /// The pending count on the dock / taskbar badge, sent when it changes.
    async fn badge(&self, shown: &mut Option<usize>, count: usize) {
        if *shown == Some(count) {
            return;
        }
        *shown = Some(count);
        if let Err(e) = self.server.badge(count).await {
            tracing::debug!(error = %e, "badge not updated");
        }
    }

    async fn run_status(&mut self, run: Run) {
        if run.ended_at.is_none() || self.runs_notified.contains(&run.id) {
            return;
        }
        let settings = self.desk.notification_prefs().await.unwrap_or_default();
        let origin = self.origin_of_session(&run.session_id).await;
        let focused = self.window_focused();
        if let Some(content) = run_end_content(&run, &origin, &settings, focused) {
            self.runs_notified.insert(run.id.clone());
            // No buttons (`run_end_content` gives none), so nothing to seal.
            if let Err(e) = self.server.show(&content, settings.sound, false).await {
                tracing::warn!(error = %e, "cannot show a notification");
            }
        }
    }

    async fn apply(&mut self, steps: Vec<Step>) {
        let settings = self.desk.notification_prefs().await.unwrap_or_default();
        for step in steps {
            match step {
                Step::Show { key, approval } => {
                    let content = approval_content(&approval, &self.origin(&approval).await);
                    self.show(key, content, settings.sound).await;
                }
                Step::Summary {
                    key,
                    count,
                    held_elsewhere,
                } => {
                    self.show(key, summary_content(count, held_elsewhere), settings.sound)
                        .await;
                }
                Step::Close { key } => {
                    if let Some(id) = self.ids.remove(&key) {
                        self.keys.remove(&id);
                        if let Err(e) = self.server.close(id).await {
                            tracing::debug!(error = %e, "closing a notification");
                        }
                    }
                }
            }
        }
    }

    async fn show(&mut self, key: Key, content: Content, sound: bool) {
        let nonce = new_nonce();
        let content = content.sealed(&nonce);
        match self.server.show(&content, sound, true).await {
            Ok(id) => {
                self.ids.insert(key, id);
                self.keys.insert(id, Shown { key, nonce });
            }
            Err(e) => tracing::warn!(error = %e, "cannot show a notification"),
        }
    }

    async fn origin(&self, a: &Approval) -> Origin {
        self.origin_of_session(&a.session_id).await
    }

    async fn origin_of_session(&self, session_id: &SessionId) -> Origin {
        let session = self.desk.get_session(session_id).await.ok();
        let workspace = match &session {
            Some(s) => self
                .desk
                .store()
                .get_workspace(&s.workspace_id)
                .await
                .map(|w| w.name)
                .unwrap_or_default(),
            None => String::new(),
        };
        Origin {
            engine: session.as_ref().map(|s| s.engine),
            workspace,
            session: session.map(|s| s.title).unwrap_or_default(),
        }
    }

    async fn pressed(&mut self, id: u32, action: &str) {
        let Some(shown) = self.keys.get(&id) else {
            // Not ours, or its request already ended (its notification is being withdrawn).
            return;
        };
        let Some(target) = self.planner.target(shown.key) else {
            return;
        };
        let Some(press) = Press::parse(action, &shown.nonce) else {
            // Not a key issued for this notification: a forgery, or another notification's
            // button. It decides nothing, and opens nothing either.
            tracing::warn!(
                id,
                "ignored a press with a key not issued for that notification"
            );
            return;
        };
        let approval_id = match &target {
            Target::Approval(a) => Some(a.clone()),
            Target::Summary => None,
        };
        // Only a request this process still holds as pending is decided: anything else
        // (decided in the window, expired) is left exactly as it is.
        let pending = approval_id.as_ref().and_then(|a| {
            self.desk
                .approvals()
                .pending()
                .into_iter()
                .find(|p| p.id == *a)
        });
        match press {
            Press::Open => {
                crate::tray::show_window(&self.app);
                if let Some(c) = self.app.try_state::<Clicks>() {
                    c.open(pending);
                }
            }
            p => {
                let Some(approval) = pending else { return };
                let Some(answer) = p.answer(&approval) else {
                    return;
                };
                let decided = match answer {
                    PressAnswer::Decide(decision) => {
                        self.desk
                            .decide_approval(&approval.id, decision.into(), DecidedBy::Notification)
                            .await
                    }
                    PressAnswer::Answer(answers) => {
                        self.desk
                            .answer_question(&approval.id, answers, DecidedBy::Notification)
                            .await
                    }
                };
                match decided {
                    Ok(a) => {
                        tracing::info!(approval = %a.id, state = ?a.state, "decided from a notification")
                    }
                    Err(e) => {
                        tracing::info!(approval = %approval.id, error = %e, "a notification press changed nothing")
                    }
                }
            }
        }
    }
}

async fn sleep_until(due: Option<Instant>) {
    if let Some(due) = due {
        tokio::time::sleep_until(due.into()).await;
    }
}

/// The window listens for "open this card" (a notification body was clicked).
pub fn watch_notification_clicks(
    clicks: tauri::State<'_, Clicks>,
    on_open: Channel<Option<Approval>>,
) {
    clicks.watch(on_open);
}

#[cfg(test)]
mod tests {
    use super::Choice;

    #[test]
    fn the_plugin_is_chosen_by_the_setting_or_where_there_is_no_freedesktop_service() {
        assert_eq!(Choice::pick(None, true), Choice::Freedesktop);
        assert_eq!(Choice::pick(Some(""), true), Choice::Freedesktop);
        assert_eq!(Choice::pick(Some("freedesktop"), true), Choice::Freedesktop);
        assert_eq!(Choice::pick(Some("plugin"), true), Choice::Plugin);
        assert_eq!(Choice::pick(Some(" Plugin "), true), Choice::Plugin);
        assert_eq!(Choice::pick(None, false), Choice::Plugin);
        assert_eq!(Choice::pick(Some("freedesktop"), false), Choice::Plugin);
    }
}
