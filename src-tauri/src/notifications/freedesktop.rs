//! Linux (and the BSDs): the freedesktop notification service, spoken to directly over
//! the session bus (`org.freedesktop.Notifications`).
//!
//! Why not through tauri-plugin-notification here: it never reads the server's
//! capabilities (buttons would go to a server that cannot show them), its `show()` reports no
//! server id and swallows D-Bus errors, and it reports no dismissal. The plugin
//! stays in the app (and serves macOS and Windows, see `plugin.rs`; on Linux when
//! `AGENTDESK_NOTIFICATIONS=plugin` is set).
//!
//! Who may press a button: only the connection that owns `org.freedesktop.Notifications`,
//! and only on a notification it gave this process. Any program of the user can connect to
//! the session bus and emit an `ActionInvoked` with a guessed id (including a command an
//! agent runs), so a signal is taken from the owner's unique name alone: the match rule
//! names it, and every message's sender is compared with it again (a rule is a request to
//! the bus, not a check). The owner is followed through `NameOwnerChanged`; a new owner
//! did not show the old one's notifications, so their ids are forgotten (and reported as
//! closed: the requests stay pending in the window). Notifications go to the owner's unique
//! name, so each id comes from the server whose signals are then believed.

use std::collections::{HashMap, HashSet, VecDeque};

use futures_util::StreamExt;
use zbus::names::{BusName, OwnedUniqueName};
use zbus::zvariant::Value;
use zbus::{Connection, MatchRule, Message, MessageStream};

use agentdesk_core::notify::{
    desktop_entry_id, escape_markup, launcher_app_uri, Content, ACTION_OPEN,
};

use super::Signal;

const DEST: &str = "org.freedesktop.Notifications";
const PATH: &str = "/org/freedesktop/Notifications";
const IFACE: &str = "org.freedesktop.Notifications";
/// The bus itself: the only sender of `NameOwnerChanged` (no client can own this name).
const BUS: &str = "org.freedesktop.DBus";
const BUS_PATH: &str = "/org/freedesktop/DBus";
const LAUNCHER_PATH: &str = "/dev/agentdesk/Launcher";
/// What `Notify` names as the sending application.
const APP_NAME: &str = "Agent Desk";

/// What the bus delivered next.
enum Next {
    Owner(Option<zbus::Result<Message>>),
    Signal(Option<zbus::Result<Message>>),
}

pub struct Server {
    conn: Connection,
    /// `ActionInvoked` / `NotificationClosed` from `owner` (its unique name in the rule);
    /// `None` while there is no owner, or the rule for a new one is still to be added.
    signals: Option<MessageStream>,
    /// `NameOwnerChanged` for `org.freedesktop.Notifications`.
    owners: MessageStream,
    /// The unique name that owns `org.freedesktop.Notifications` now, as far as the bus said.
    owner: Option<OwnedUniqueName>,
    /// Ids `owner` answered `Notify` with and that are still shown.
    given: HashSet<u32>,
    /// Signals to hand out before reading the bus again (the ids an owner change forgot).
    queued: VecDeque<Signal>,
    /// The server draws buttons (capability "actions"); without it notifications are plain
    /// and a decision needs the window.
    actions: bool,
    /// The server renders a markup subset in bodies: text is escaped to show as written.
    markup: bool,
    /// The installed `.desktop` file, without `.desktop` (the `desktop-entry` hint).
    desktop_entry: String,
    /// The launcher entry the badge belongs to (`application://<desktop file>`).
    launcher_uri: String,
}

/// The signals of notification server `owner` (and no one else's), from its object.
async fn subscribe(conn: &Connection, owner: &OwnedUniqueName) -> zbus::Result<MessageStream> {
    let rule = MatchRule::builder()
        .msg_type(zbus::message::Type::Signal)
        .sender(owner.as_str())?
        .interface(IFACE)?
        .path(PATH)?
        .build();
    MessageStream::for_match_rule(rule, conn, None).await
}

/// Who owns `org.freedesktop.Notifications`. A call to the name first: a server the bus
/// starts on demand (D-Bus activation) owns it only once something asked for it.
async fn current_owner(conn: &Connection) -> zbus::Result<(OwnedUniqueName, Vec<String>)> {
    let reply = conn
        .call_method(Some(DEST), PATH, Some(IFACE), "GetCapabilities", &())
        .await?;
    let caps: Vec<String> = reply.body().deserialize()?;
    let owner = zbus::fdo::DBusProxy::new(conn)
        .await?
        .get_name_owner(BusName::try_from(DEST)?)
        .await?;
    Ok((owner, caps))
}

/// Whether a signal from `sender` about notification `id` is the server's word on a
/// notification of ours: from the current owner, about an id that owner gave us.
fn admits(owner: Option<&str>, sender: Option<&str>, id: u32, given: &HashSet<u32>) -> bool {
    matches!((owner, sender), (Some(o), Some(s)) if o == s) && given.contains(&id)
}

/// What `NameOwnerChanged(old → new)` means when the owner this process knows is
/// `current`: the new owner (`None`: nobody), or `None` when the change is not news (it
/// was queued before `GetNameOwner` answered, which already counted it).
fn owner_after(current: Option<&str>, old: &str, new: &str) -> Option<Option<String>> {
    let old = (!old.is_empty()).then_some(old);
    (old == current).then(|| (!new.is_empty()).then(|| new.to_string()))
}

impl Server {
    /// `product_name` names the installed `.desktop` file (see `desktop_entry_id`).
    pub async fn connect(product_name: String) -> zbus::Result<Server> {
        Server::connect_on(Connection::session().await?, product_name).await
    }

    /// [`Server::connect`] on the bus `conn` is connected to.
    async fn connect_on(conn: Connection, product_name: String) -> zbus::Result<Server> {
        // Owner changes are followed from before the owner is read, so none falls between.
        let rule = MatchRule::builder()
            .msg_type(zbus::message::Type::Signal)
            .sender(BUS)?
            .path(BUS_PATH)?
            .interface(BUS)?
            .member("NameOwnerChanged")?
            .arg(0, DEST)?
            .build();
        let owners = MessageStream::for_match_rule(rule, &conn, None).await?;
        let (owner, caps) = current_owner(&conn).await?;
        // Listen before the first Notify, so no signal about it can be missed.
        let signals = subscribe(&conn, &owner).await?;
        tracing::info!(capabilities = ?caps, owner = %owner, "notification server");
        Ok(Server {
            conn,
            signals: Some(signals),
            owners,
            owner: Some(owner),
            given: HashSet::new(),
            queued: VecDeque::new(),
            actions: caps.iter().any(|c| c == "actions"),
            markup: caps.iter().any(|c| c == "body-markup"),
            desktop_entry: desktop_entry_id(&product_name),
            launcher_uri: launcher_app_uri(&product_name),
        })
    }

    /// The server's unique name, asking the bus again (and starting a server it can start)
    /// when the last one went away.
    async fn owner(&mut self) -> zbus::Result<OwnedUniqueName> {
        if let Some(owner) = &self.owner {
            return Ok(owner.clone());
        }
        let (owner, _) = current_owner(&self.conn).await?;
        self.signals = Some(subscribe(&self.conn, &owner).await?);
        self.owner = Some(owner.clone());
        tracing::info!(owner = %owner, "notification server is back");
        Ok(owner)
    }

    /// A new owner (or none): nothing the old one showed is on screen any more.
    fn owner_changed(&mut self, owner: Option<String>) {
        tracing::info!(owner = ?owner, "the notification server changed");
        self.owner = owner.and_then(|o| OwnedUniqueName::try_from(o).ok());
        self.signals = None;
        self.queued
            .extend(self.given.drain().map(|id| Signal::Closed { id }));
    }

    pub fn has_actions(&self) -> bool {
        self.actions
    }

    /// Show `content`; returns the server's id for it.
    pub async fn show(&mut self, content: &Content, sound: bool) -> zbus::Result<u32> {
        let owner = self.owner().await?;
        let body = if self.markup {
            escape_markup(&content.body)
        } else {
            content.body.clone()
        };
        let mut actions: Vec<&str> = Vec::new();
        if self.actions {
            // "default" is the body click (open the card), not a button.
            actions.extend([ACTION_OPEN, "Open"]);
            for (id, label) in &content.actions {
                actions.extend([id.as_str(), label.as_str()]);
            }
        }
        let mut hints: HashMap<&str, Value<'_>> = HashMap::new();
        hints.insert("category", Value::from("im.received"));
        hints.insert("desktop-entry", Value::from(self.desktop_entry.as_str()));
        if sound {
            hints.insert("sound-name", Value::from(super::FREEDESKTOP_SOUND));
        } else {
            hints.insert("suppress-sound", Value::from(true));
        }
        // Stay until acted on where the server honours it: a request waits for an answer.
        hints.insert("resident", Value::from(true));
        let reply = self
            .conn
            .call_method(
                Some(owner.as_str()),
                PATH,
                Some(IFACE),
                "Notify",
                &(
                    APP_NAME,
                    0u32,
                    "",
                    content.title.as_str(),
                    body.as_str(),
                    actions,
                    hints,
                    -1i32,
                ),
            )
            .await?;
        let id = reply.body().deserialize::<u32>()?;
        // Only while that server still owns the name: otherwise its id is already void.
        if self.owner.as_ref() == Some(&owner) {
            self.given.insert(id);
        }
        Ok(id)
    }

    /// Withdraw notification `id`; a later signal about it is not ours any more.
    pub async fn close(&mut self, id: u32) -> zbus::Result<()> {
        if !self.given.remove(&id) {
            return Ok(());
        }
        if let Some(owner) = &self.owner {
            self.conn
                .call_method(
                    Some(owner.as_str()),
                    PATH,
                    Some(IFACE),
                    "CloseNotification",
                    &(id,),
                )
                .await?;
        }
        Ok(())
    }

    /// The pending count on the dock / taskbar entry: the Unity launcher API (a signal on the
    /// session bus that GNOME docks, Plank and KDE's task manager read). Nobody listening
    /// is fine: then there is no badge to show.
    pub async fn badge(&self, count: usize) -> zbus::Result<()> {
        let mut props: HashMap<&str, Value<'_>> = HashMap::new();
        props.insert("count", Value::from(count as i64));
        props.insert("count-visible", Value::from(count > 0));
        self.conn
            .emit_signal(
                None::<&str>,
                LAUNCHER_PATH,
                "com.canonical.Unity.LauncherEntry",
                "Update",
                &(self.launcher_uri.as_str(), props),
            )
            .await
    }

    /// The next `ActionInvoked` / `NotificationClosed` from the server about one of ours;
    /// `None` when the bus connection ended. Cancel-safe (it runs in a `select!`): state
    /// changes happen between awaits, and a subscription still due is retried next call.
    pub async fn next_signal(&mut self) -> Option<Signal> {
        loop {
            if let Some(signal) = self.queued.pop_front() {
                return Some(signal);
            }
            if self.signals.is_none() {
                if let Some(owner) = self.owner.clone() {
                    match subscribe(&self.conn, &owner).await {
                        Ok(s) => self.signals = Some(s),
                        Err(e) => {
                            tracing::warn!(error = %e, "cannot follow the notification server");
                            return None;
                        }
                    }
                }
            }
            let next = match &mut self.signals {
                Some(signals) => tokio::select! {
                    // An owner change first: it voids the ids a stale press would name.
                    biased;
                    change = self.owners.next() => Next::Owner(change),
                    msg = signals.next() => Next::Signal(msg),
                },
                None => Next::Owner(self.owners.next().await),
            };
            match next {
                // Either stream ends only with the connection.
                Next::Owner(None) | Next::Signal(None) => return None,
                Next::Owner(Some(change)) => self.on_owner_message(change),
                Next::Signal(Some(Ok(msg))) => {
                    if let Some(signal) = self.read_signal(&msg) {
                        return Some(signal);
                    }
                }
                Next::Signal(Some(Err(_))) => {}
            }
        }
    }

    fn on_owner_message(&mut self, msg: zbus::Result<Message>) {
        let Ok(msg) = msg else { return };
        let header = msg.header();
        if header.sender().map(|s| s.as_str()) != Some(BUS) {
            return;
        }
        let Ok((name, old, new)) = msg.body().deserialize::<(String, String, String)>() else {
            return;
        };
        if name != DEST {
            return;
        }
        if let Some(owner) = owner_after(self.owner.as_ref().map(|o| o.as_str()), &old, &new) {
            self.owner_changed(owner);
        }
    }

    /// A signal of the server's about one of ours, or `None` for anything else.
    fn read_signal(&mut self, msg: &Message) -> Option<Signal> {
        let header = msg.header();
        let sender = header.sender().map(|s| s.as_str());
        let owner = self.owner.as_ref().map(|o| o.as_str());
        let (id, signal) = match header.member().map(|m| m.as_str()) {
            Some("ActionInvoked") => {
                let (id, action) = msg.body().deserialize::<(u32, String)>().ok()?;
                (id, Signal::Action { id, action })
            }
            Some("NotificationClosed") => {
                let (id, _reason) = msg.body().deserialize::<(u32, u32)>().ok()?;
                (id, Signal::Closed { id })
            }
            _ => return None,
        };
        if !admits(owner, sender, id, &self.given) {
            tracing::warn!(
                sender = ?sender,
                owner = ?owner,
                id,
                "ignored a notification signal that is not the server's word on one of ours"
            );
            return None;
        }
        if matches!(signal, Signal::Closed { .. }) {
            self.given.remove(&id);
        }
        Some(signal)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use std::io::BufRead;
    use std::time::Duration;

    /// A private bus: `dbus-daemon --session`, ended when dropped.
    struct Bus {
        daemon: std::process::Child,
        address: String,
    }

    impl Drop for Bus {
        fn drop(&mut self) {
            let _ = self.daemon.kill();
            let _ = self.daemon.wait();
        }
    }

    /// `None` (the test is skipped, and says so) where no `dbus-daemon` is installed.
    fn private_bus() -> Option<Bus> {
        let found = std::env::var_os("PATH").and_then(|p| {
            std::env::split_paths(&p)
                .map(|d| d.join("dbus-daemon"))
                .find(|f| f.is_file())
        });
        let Some(bin) = found else {
            eprintln!("SKIP: no dbus-daemon on PATH");
            return None;
        };
        let mut daemon = std::process::Command::new(bin)
            .args(["--session", "--nofork", "--print-address=1"])
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut address = String::new();
        std::io::BufReader::new(daemon.stdout.take().unwrap())
            .read_line(&mut address)
            .unwrap();
        Some(Bus {
            daemon,
            address: address.trim().to_string(),
        })
    }

    /// A notification server whose ids start at `first + 1`.
    struct Fake {
        next: u32,
    }

    #[zbus::interface(name = "org.freedesktop.Notifications")]
    impl Fake {
        #[allow(clippy::too_many_arguments)]
        fn notify(
            &mut self,
            _app: String,
            _replaces: u32,
            _icon: String,
            _summary: String,
            _body: String,
            _actions: Vec<String>,
            _hints: HashMap<String, zbus::zvariant::OwnedValue>,
            _timeout: i32,
        ) -> u32 {
            self.next += 1;
            self.next
        }

        fn get_capabilities(&self) -> Vec<String> {
            vec!["actions".into(), "body".into()]
        }

        fn close_notification(&self, _id: u32) {}
    }

    async fn serve(address: &str, first: u32) -> Connection {
        zbus::connection::Builder::address(address)
            .unwrap()
            .name(DEST)
            .unwrap()
            .serve_at(PATH, Fake { next: first })
            .unwrap()
            .build()
            .await
            .unwrap()
    }

    async fn connect(address: &str) -> Connection {
        zbus::connection::Builder::address(address)
            .unwrap()
            .build()
            .await
            .unwrap()
    }

    async fn press(from: &Connection, to: Option<&str>, id: u32, key: &str) {
        from.emit_signal(to, PATH, IFACE, "ActionInvoked", &(id, key))
            .await
            .unwrap();
    }

    async fn dismiss(from: &Connection, to: Option<&str>, id: u32) {
        from.emit_signal(to, PATH, IFACE, "NotificationClosed", &(id, 2u32))
            .await
            .unwrap();
    }

    /// What the app hears next, or `None` when nothing came within a moment.
    async fn heard(server: &mut Server) -> Option<(u32, Option<String>)> {
        let signal = tokio::time::timeout(Duration::from_millis(700), server.next_signal())
            .await
            .ok()??;
        Some(match signal {
            Signal::Action { id, action } => (id, Some(action)),
            Signal::Closed { id } => (id, None),
        })
    }

    fn content() -> Content {
        Content {
            title: "Codex asks to run a command".into(),
            body: "$ ls".into(),
            actions: vec![("approve.n1".into(), "Approve".into())],
        }
    }

    /// Issue 19 without the app: another connection's `ActionInvoked` / `NotificationClosed`,
    /// broadcast or sent to the app directly, is not heard; the server's own is; a new server
    /// voids the old one's ids.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn only_the_server_that_owns_the_name_is_heard() {
        let Some(bus) = private_bus() else { return };
        let first = serve(&bus.address, 40).await;
        let app = connect(&bus.address).await;
        let app_name = app.unique_name().unwrap().to_string();
        let mut server = Server::connect_on(app, "Agent Desk".into()).await.unwrap();
        let id = server.show(&content(), false).await.unwrap();
        assert_eq!(id, 41);

        let forger = connect(&bus.address).await;
        for to in [None, Some(app_name.as_str())] {
            press(&forger, to, id, "approve.n1").await;
            dismiss(&forger, to, id).await;
        }
        assert_eq!(heard(&mut server).await, None, "a forged signal was heard");

        // The server, about an id it never gave: nothing; about ours: the press.
        press(&first, None, 99, "approve.n1").await;
        press(&first, None, id, "approve.n1").await;
        assert_eq!(
            heard(&mut server).await,
            Some((41, Some("approve.n1".into())))
        );

        // Another server takes the name: the first one's notification is gone, and neither
        // the old server nor the new one can press it any more.
        first.release_name(DEST).await.unwrap();
        let second = serve(&bus.address, 70).await;
        assert_eq!(heard(&mut server).await, Some((41, None)));
        press(&first, None, id, "approve.n1").await;
        press(&second, None, id, "approve.n1").await;
        assert_eq!(heard(&mut server).await, None);
        // What the new server shows, it can press.
        let id2 = server.show(&content(), false).await.unwrap();
        assert_eq!(id2, 71);
        press(&forger, None, id2, "approve.n1").await;
        press(&second, None, id2, "approve.n1").await;
        assert_eq!(
            heard(&mut server).await,
            Some((71, Some("approve.n1".into())))
        );
    }

    #[test]
    fn only_the_owner_speaks_and_only_about_ids_it_gave() {
        let given: HashSet<u32> = [41, 42].into();
        assert!(admits(Some(":1.5"), Some(":1.5"), 41, &given));
        // Another connection with the right id: issue 19's forged press.
        assert!(!admits(Some(":1.5"), Some(":1.9"), 41, &given));
        // The owner, about an id it never gave us (or that is gone).
        assert!(!admits(Some(":1.5"), Some(":1.5"), 43, &given));
        // No owner now, or no sender on the message.
        assert!(!admits(None, Some(":1.5"), 41, &given));
        assert!(!admits(Some(":1.5"), None, 41, &given));
    }

    #[test]
    fn owner_changes_are_followed_from_the_owner_known() {
        // The server left; a new one came.
        assert_eq!(owner_after(Some(":1.5"), ":1.5", ""), Some(None));
        assert_eq!(owner_after(None, "", ":1.7"), Some(Some(":1.7".into())));
        assert_eq!(
            owner_after(Some(":1.5"), ":1.5", ":1.7"),
            Some(Some(":1.7".into()))
        );
        // Queued before GetNameOwner answered: already counted, never a step back.
        assert_eq!(owner_after(Some(":1.7"), "", ":1.5"), None);
        assert_eq!(owner_after(Some(":1.7"), ":1.5", ""), None);
        assert_eq!(owner_after(None, ":1.5", ""), None);
    }
}
