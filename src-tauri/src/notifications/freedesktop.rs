//! Linux (and the BSDs): the freedesktop notification service, spoken to directly over
//! the session bus (`org.freedesktop.Notifications`).
//!
//! Why not through tauri-plugin-notification here: it never reads the server's
//! capabilities (buttons would go to a server that cannot show them), its `show()` reports no
//! server id and swallows D-Bus errors, and it reports no dismissal. The plugin
//! stays in the app (and serves macOS and Windows, see `plugin.rs`; on Linux when
//! `AGENTDESK_NOTIFICATIONS=plugin` is set).

use std::collections::HashMap;

use futures_util::StreamExt;
use zbus::zvariant::Value;
use zbus::{Connection, MatchRule, MessageStream};

use agentdesk_core::notify::{
    desktop_entry_id, escape_markup, launcher_app_uri, Content, ACTION_OPEN,
};

use super::Signal;

const DEST: &str = "org.freedesktop.Notifications";
const PATH: &str = "/org/freedesktop/Notifications";
const IFACE: &str = "org.freedesktop.Notifications";
const LAUNCHER_PATH: &str = "/dev/agentdesk/Launcher";
/// What `Notify` names as the sending application.
const APP_NAME: &str = "Agent Desk";

pub struct Server {
    conn: Connection,
    signals: MessageStream,
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

impl Server {
    /// `product_name` names the installed `.desktop` file (see `desktop_entry_id`).
    pub async fn connect(product_name: String) -> zbus::Result<Server> {
        let conn = Connection::session().await?;
        // Listen before the first Notify, so no signal about it can be missed.
        let rule = MatchRule::builder()
            .msg_type(zbus::message::Type::Signal)
            .interface(IFACE)?
            .path(PATH)?
            .build();
        let signals = MessageStream::for_match_rule(rule, &conn, None).await?;
        let reply = conn
            .call_method(Some(DEST), PATH, Some(IFACE), "GetCapabilities", &())
            .await?;
        let caps: Vec<String> = reply.body().deserialize()?;
        tracing::info!(capabilities = ?caps, "notification server");
        Ok(Server {
            conn,
            signals,
            actions: caps.iter().any(|c| c == "actions"),
            markup: caps.iter().any(|c| c == "body-markup"),
            desktop_entry: desktop_entry_id(&product_name),
            launcher_uri: launcher_app_uri(&product_name),
        })
    }

    pub fn has_actions(&self) -> bool {
        self.actions
    }

    /// Show `content`; returns the server's id for it.
    pub async fn show(&self, content: &Content, sound: bool) -> zbus::Result<u32> {
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
                Some(DEST),
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
        reply.body().deserialize::<u32>()
    }

    pub async fn close(&self, id: u32) -> zbus::Result<()> {
        self.conn
            .call_method(Some(DEST), PATH, Some(IFACE), "CloseNotification", &(id,))
            .await?;
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

    /// The next `ActionInvoked` / `NotificationClosed`; `None` when the bus connection ended.
    pub async fn next_signal(&mut self) -> Option<Signal> {
        while let Some(msg) = self.signals.next().await {
            let Ok(msg) = msg else { continue };
            let header = msg.header();
            let member = header.member().map(|m| m.as_str().to_string());
            match member.as_deref() {
                Some("ActionInvoked") => {
                    if let Ok((id, action)) = msg.body().deserialize::<(u32, String)>() {
                        return Some(Signal::Action { id, action });
                    }
                }
                Some("NotificationClosed") => {
                    if let Ok((id, _reason)) = msg.body().deserialize::<(u32, u32)>() {
                        return Some(Signal::Closed { id });
                    }
                }
                _ => {}
            }
        }
        None
    }
}
