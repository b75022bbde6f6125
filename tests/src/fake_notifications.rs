//! A freedesktop notification server for tests (`org.freedesktop.Notifications` on a
//! private session bus): records every call, advertises the "actions" capability or not,
//! and emits `ActionInvoked` / `NotificationClosed` when a test presses or dismisses.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use zbus::object_server::SignalEmitter;
use zbus::zvariant::OwnedValue;

use crate::e2e::BoxError;

const PATH: &str = "/org/freedesktop/Notifications";
const IFACE: &str = "org.freedesktop.Notifications";

/// One `Notify` the server got.
#[derive(Debug, Clone)]
pub struct Notified {
    /// The id the server answered with.
    pub id: u32,
    pub app_name: String,
    pub summary: String,
    pub body: String,
    /// `(key, label)` pairs, as sent.
    pub actions: Vec<(String, String)>,
    pub hints: Vec<String>,
    /// The `desktop-entry` hint: the `.desktop` file (without `.desktop`) the server
    /// attributes the notification to.
    pub desktop_entry: Option<String>,
}

impl Notified {
    pub fn action_keys(&self) -> Vec<&str> {
        self.actions.iter().map(|(k, _)| k.as_str()).collect()
    }

    /// The key of the button that means `meaning` (`approve`, `deny`, `option:1`): sealed
    /// with the notification's own nonce, `<meaning>.<32 hex digits>`. Panics without one.
    pub fn key(&self, meaning: &str) -> &str {
        let Some((k, _)) = self
            .actions
            .iter()
            .find(|(k, _)| k.rsplit_once('.').is_some_and(|(m, _)| m == meaning))
        else {
            panic!("no {meaning} button: {self:?}");
        };
        let nonce = k.rsplit_once('.').map(|(_, n)| n).unwrap_or_default();
        assert!(
            nonce.len() == 32 && nonce.chars().all(|c| c.is_ascii_hexdigit()),
            "an unguessable key: {k}"
        );
        k
    }

    /// What the buttons mean, in order: each sealed key without its nonce (one nonce for all
    /// of a notification's buttons), unsealed keys (the server's `default`) as they are.
    pub fn meanings(&self) -> Vec<&str> {
        let keys = self.action_keys();
        let nonces: std::collections::HashSet<&str> = keys
            .iter()
            .filter_map(|k| k.rsplit_once('.').map(|(_, nonce)| nonce))
            .collect();
        assert!(nonces.len() <= 1, "one nonce per notification: {self:?}");
        keys.into_iter()
            .map(|k| k.rsplit_once('.').map_or(k, |(m, _)| m))
            .collect()
    }
}

#[derive(Debug, Clone)]
pub enum Call {
    GetCapabilities,
    GetServerInformation,
    Notify(Notified),
    Close(u32),
}

#[derive(Default)]
struct Log {
    calls: Vec<Call>,
    next_id: u32,
}

fn lock(m: &Mutex<Log>) -> MutexGuard<'_, Log> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

struct Server {
    log: Arc<Mutex<Log>>,
    actions: bool,
}

#[zbus::interface(name = "org.freedesktop.Notifications")]
impl Server {
    #[allow(clippy::too_many_arguments)]
    async fn notify(
        &self,
        app_name: String,
        _replaces_id: u32,
        _app_icon: String,
        summary: String,
        body: String,
        actions: Vec<String>,
        hints: HashMap<String, OwnedValue>,
        _expire_timeout: i32,
    ) -> u32 {
        let mut log = lock(&self.log);
        // Ids are the server's: start somewhere other than 1, as real servers may.
        log.next_id += 1;
        let id = 40 + log.next_id;
        let pairs = actions
            .chunks(2)
            .map(|c| (c[0].clone(), c.get(1).cloned().unwrap_or_default()))
            .collect();
        let desktop_entry = hints
            .get("desktop-entry")
            .and_then(|v| String::try_from(v.try_clone().ok()?).ok());
        let mut hints: Vec<String> = hints.into_keys().collect();
        hints.sort();
        log.calls.push(Call::Notify(Notified {
            id,
            app_name,
            summary,
            body,
            actions: pairs,
            hints,
            desktop_entry,
        }));
        id
    }

    async fn close_notification(
        &self,
        id: u32,
        #[zbus(signal_emitter)] emitter: SignalEmitter<'_>,
    ) -> zbus::fdo::Result<()> {
        lock(&self.log).calls.push(Call::Close(id));
        // Reason 3: closed by a call to CloseNotification.
        Self::notification_closed(&emitter, id, 3).await?;
        Ok(())
    }

    fn get_capabilities(&self) -> Vec<String> {
        lock(&self.log).calls.push(Call::GetCapabilities);
        let mut caps = vec!["body".to_string()];
        if self.actions {
            caps.push("actions".to_string());
        }
        caps
    }

    fn get_server_information(&self) -> (String, String, String, String) {
        lock(&self.log).calls.push(Call::GetServerInformation);
        (
            "fake-notifications".into(),
            "agentdesk-tests".into(),
            "1.0".into(),
            "1.2".into(),
        )
    }

    #[zbus(signal)]
    async fn action_invoked(
        emitter: &SignalEmitter<'_>,
        id: u32,
        action_key: &str,
    ) -> zbus::Result<()>;

    #[zbus(signal)]
    async fn notification_closed(
        emitter: &SignalEmitter<'_>,
        id: u32,
        reason: u32,
    ) -> zbus::Result<()>;
}

/// The running double; dropping it leaves the bus.
pub struct FakeNotifications {
    conn: zbus::Connection,
    log: Arc<Mutex<Log>>,
}

impl FakeNotifications {
    /// The server's unique name: the owner of `org.freedesktop.Notifications`.
    pub fn unique_name(&self) -> String {
        self.conn
            .unique_name()
            .map(|n| n.to_string())
            .unwrap_or_default()
    }
}

impl FakeNotifications {
    /// Serve on the bus at `address`, with or without the "actions" capability.
    pub async fn start(address: &str, actions: bool) -> Result<FakeNotifications, BoxError> {
        let log = Arc::new(Mutex::new(Log::default()));
        let server = Server {
            log: log.clone(),
            actions,
        };
        let conn = zbus::connection::Builder::address(address)?
            .name("org.freedesktop.Notifications")?
            .serve_at(PATH, server)?
            .build()
            .await?;
        Ok(FakeNotifications { conn, log })
    }

    pub fn calls(&self) -> Vec<Call> {
        lock(&self.log).calls.clone()
    }

    pub fn notified(&self) -> Vec<Notified> {
        self.calls()
            .into_iter()
            .filter_map(|c| match c {
                Call::Notify(n) => Some(n),
                _ => None,
            })
            .collect()
    }

    pub fn closed(&self) -> Vec<u32> {
        self.calls()
            .into_iter()
            .filter_map(|c| match c {
                Call::Close(id) => Some(id),
                _ => None,
            })
            .collect()
    }

    /// Wait (bounded) for the `n`-th `Notify` (1-based).
    pub async fn wait_for_notify(&self, n: usize, limit: Duration) -> Result<Notified, BoxError> {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(x) = self.notified().get(n - 1) {
                return Ok(x.clone());
            }
            if Instant::now() > deadline {
                return Err(
                    format!("no Notify #{n} within {limit:?}; calls: {:?}", self.calls()).into(),
                );
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    pub async fn wait_for_close(&self, id: u32, limit: Duration) -> Result<(), BoxError> {
        let deadline = Instant::now() + limit;
        loop {
            if self.closed().contains(&id) {
                return Ok(());
            }
            if Instant::now() > deadline {
                return Err(format!(
                    "no CloseNotification({id}) within {limit:?}; calls: {:?}",
                    self.calls()
                )
                .into());
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    async fn iface(&self) -> Result<zbus::object_server::InterfaceRef<Server>, BoxError> {
        Ok(self
            .conn
            .object_server()
            .interface::<_, Server>(PATH)
            .await?)
    }

    /// The user pressed `action` on notification `id`.
    pub async fn invoke(&self, id: u32, action: &str) -> Result<(), BoxError> {
        let iface = self.iface().await?;
        Server::action_invoked(iface.signal_emitter(), id, action).await?;
        Ok(())
    }

    /// The user dismissed notification `id` (reason 2), or it expired (reason 1).
    pub async fn dismiss(&self, id: u32, reason: u32) -> Result<(), BoxError> {
        let iface = self.iface().await?;
        Server::notification_closed(iface.signal_emitter(), id, reason).await?;
        Ok(())
    }
}

/// A dock listening for badge counts (the Unity launcher API:
/// `com.canonical.Unity.LauncherEntry.Update(app_uri, {"count", "count-visible", ...})`).
pub struct LauncherWatch {
    seen: Arc<Mutex<Vec<(String, i64, bool)>>>,
}

impl LauncherWatch {
    pub fn start(address: &str) -> Result<LauncherWatch, BoxError> {
        let conn = zbus::blocking::connection::Builder::address(address)?.build()?;
        let rule = zbus::MatchRule::builder()
            .msg_type(zbus::message::Type::Signal)
            .interface("com.canonical.Unity.LauncherEntry")?
            .member("Update")?
            .build();
        let messages = zbus::blocking::MessageIterator::for_match_rule(rule, &conn, None)?;
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = seen.clone();
        // Ends with the bus (the daemon goes at the end of the test).
        std::thread::spawn(move || {
            let _conn = conn;
            for msg in messages.flatten() {
                let Ok((uri, props)) = msg
                    .body()
                    .deserialize::<(String, HashMap<String, OwnedValue>)>()
                else {
                    continue;
                };
                let count = props
                    .get("count")
                    .and_then(|v| i64::try_from(v).ok())
                    .unwrap_or(-1);
                let visible = props
                    .get("count-visible")
                    .and_then(|v| bool::try_from(v).ok())
                    .unwrap_or(false);
                sink.lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push((uri, count, visible));
            }
        });
        Ok(LauncherWatch { seen })
    }

    /// Every `(app_uri, count, count-visible)` seen, in order.
    pub fn seen(&self) -> Vec<(String, i64, bool)> {
        self.seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Wait (bounded) until the latest badge shows `count`.
    pub async fn wait_for(&self, count: i64, limit: Duration) -> Result<(), BoxError> {
        let deadline = Instant::now() + limit;
        loop {
            if self.seen().last().map(|s| s.1) == Some(count) {
                return Ok(());
            }
            if Instant::now() > deadline {
                return Err(format!("badge never {count}; seen {:?}", self.seen()).into());
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

/// Another program of the user on the same session bus (issue 19: a command an agent runs
/// could be one): it emits the notification server's signals from a connection of its own,
/// as `gdbus emit --session --object-path /org/freedesktop/Notifications --signal
/// org.freedesktop.Notifications.ActionInvoked …` does.
pub struct Forger {
    conn: zbus::Connection,
}

impl Forger {
    pub async fn connect(address: &str) -> Result<Forger, BoxError> {
        let conn = zbus::connection::Builder::address(address)?.build().await?;
        Ok(Forger { conn })
    }

    /// This connection's unique name (never the server's).
    pub fn unique_name(&self) -> String {
        self.conn
            .unique_name()
            .map(|n| n.to_string())
            .unwrap_or_default()
    }

    /// A broadcast `ActionInvoked(id, action)`, and the same sent to `to` (a unique name)
    /// directly when given.
    pub async fn action_invoked(
        &self,
        to: Option<&str>,
        id: u32,
        action: &str,
    ) -> Result<(), BoxError> {
        self.conn
            .emit_signal(to, PATH, IFACE, "ActionInvoked", &(id, action))
            .await?;
        Ok(())
    }

    /// A `NotificationClosed(id, reason)` (2: dismissed by the user), broadcast or sent to `to`.
    pub async fn notification_closed(
        &self,
        to: Option<&str>,
        id: u32,
        reason: u32,
    ) -> Result<(), BoxError> {
        self.conn
            .emit_signal(to, PATH, IFACE, "NotificationClosed", &(id, reason))
            .await?;
        Ok(())
    }

    /// The unique names of every connection on the bus but the bus itself, this one and
    /// `except` (the app's connections, for a signal sent to them directly).
    pub async fn peers(&self, except: &[String]) -> Result<Vec<String>, BoxError> {
        let names = zbus::fdo::DBusProxy::new(&self.conn)
            .await?
            .list_names()
            .await?;
        let me = self.unique_name();
        Ok(names
            .into_iter()
            .map(|n| n.to_string())
            .filter(|n| n.starts_with(':') && *n != me && !except.contains(n))
            .collect())
    }
}
