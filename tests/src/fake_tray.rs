//! A system tray for tests: the StatusNotifierWatcher (`org.kde.StatusNotifierWatcher`) a
//! desktop's panel runs, on a private session bus. libayatana-appindicator (the app's tray on
//! Linux) registers its StatusNotifierItem with it and exports the item's menu over
//! `com.canonical.dbusmenu`; the double reads that menu (`GetLayout`) and clicks an entry
//! (`Event(id, "clicked")`) exactly as a panel does, so the real tray code is exercised.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use zbus::object_server::SignalEmitter;
use zbus::zvariant::{OwnedObjectPath, OwnedValue, Value};

use crate::e2e::BoxError;

const WATCHER_PATH: &str = "/StatusNotifierWatcher";
const ITEM_IFACE: &str = "org.kde.StatusNotifierItem";
const MENU_IFACE: &str = "com.canonical.dbusmenu";

/// One registered item: the bus name it lives on and its object path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    pub bus_name: String,
    pub path: String,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

struct Watcher {
    items: Arc<Mutex<Vec<Item>>>,
}

#[zbus::interface(name = "org.kde.StatusNotifierWatcher")]
impl Watcher {
    /// `service` is a bus name, or (as appindicator sends it) the item's object path on
    /// the caller's own connection.
    async fn register_status_notifier_item(
        &self,
        service: &str,
        #[zbus(header)] header: zbus::message::Header<'_>,
        #[zbus(signal_emitter)] emitter: SignalEmitter<'_>,
    ) -> zbus::fdo::Result<()> {
        let sender = header.sender().map(|s| s.to_string()).unwrap_or_default();
        let item = if service.starts_with('/') {
            Item {
                bus_name: sender,
                path: service.to_string(),
            }
        } else {
            Item {
                bus_name: service.to_string(),
                path: "/StatusNotifierItem".to_string(),
            }
        };
        let full = format!("{}{}", item.bus_name, item.path);
        lock(&self.items).push(item);
        Self::status_notifier_item_registered(&emitter, &full).await?;
        Ok(())
    }

    fn register_status_notifier_host(&self, _service: &str) {}

    #[zbus(property)]
    fn registered_status_notifier_items(&self) -> Vec<String> {
        lock(&self.items)
            .iter()
            .map(|i| format!("{}{}", i.bus_name, i.path))
            .collect()
    }

    /// A panel is showing items (without one, appindicator falls back to an XEmbed icon).
    #[zbus(property)]
    fn is_status_notifier_host_registered(&self) -> bool {
        true
    }

    #[zbus(property)]
    fn protocol_version(&self) -> i32 {
        0
    }

    #[zbus(signal)]
    async fn status_notifier_item_registered(
        emitter: &SignalEmitter<'_>,
        service: &str,
    ) -> zbus::Result<()>;
}

/// One menu entry, as a panel would draw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MenuEntry {
    pub id: i32,
    /// Without the mnemonic markers (`_`), as shown.
    pub label: String,
    pub enabled: bool,
    pub separator: bool,
}

/// The running watcher; dropping it leaves the bus.
pub struct FakeTray {
    conn: zbus::Connection,
    items: Arc<Mutex<Vec<Item>>>,
}

impl FakeTray {
    /// Serve the watcher on the bus at `address` (before the app starts: appindicator looks
    /// for it when the icon is created).
    pub async fn start(address: &str) -> Result<FakeTray, BoxError> {
        let items = Arc::new(Mutex::new(Vec::new()));
        let conn = zbus::connection::Builder::address(address)?
            .name("org.kde.StatusNotifierWatcher")?
            .serve_at(
                WATCHER_PATH,
                Watcher {
                    items: items.clone(),
                },
            )?
            .build()
            .await?;
        Ok(FakeTray { conn, items })
    }

    pub fn items(&self) -> Vec<Item> {
        lock(&self.items).clone()
    }

    /// Wait (bounded) for an item to register.
    pub async fn wait_for_item(&self, limit: Duration) -> Result<Item, BoxError> {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(i) = self.items().last() {
                return Ok(i.clone());
            }
            if Instant::now() > deadline {
                return Err(format!("no tray item registered within {limit:?}").into());
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    async fn menu_path(&self, item: &Item) -> Result<OwnedObjectPath, BoxError> {
        let reply = self
            .conn
            .call_method(
                Some(item.bus_name.as_str()),
                item.path.as_str(),
                Some("org.freedesktop.DBus.Properties"),
                "Get",
                &(ITEM_IFACE, "Menu"),
            )
            .await?;
        let v: OwnedValue = reply.body().deserialize()?;
        Ok(OwnedObjectPath::try_from(v)?)
    }

    /// The item's menu now (top level), read with `GetLayout` like a panel does.
    pub async fn menu(&self, item: &Item) -> Result<Vec<MenuEntry>, BoxError> {
        let path = self.menu_path(item).await?;
        let reply = self
            .conn
            .call_method(
                Some(item.bus_name.as_str()),
                path.as_str(),
                Some(MENU_IFACE),
                "GetLayout",
                &(0i32, -1i32, Vec::<&str>::new()),
            )
            .await?;
        type Layout = (i32, HashMap<String, OwnedValue>, Vec<OwnedValue>);
        let (_revision, (_root, _props, children)): (u32, Layout) = reply.body().deserialize()?;
        children.iter().map(|c| entry(c)).collect()
    }

    /// Wait (bounded) until the menu satisfies `ok`; the menu then.
    pub async fn wait_for_menu(
        &self,
        item: &Item,
        what: &str,
        limit: Duration,
        ok: impl Fn(&[MenuEntry]) -> bool,
    ) -> Result<Vec<MenuEntry>, BoxError> {
        let deadline = Instant::now() + limit;
        loop {
            // The menu may be mid-rebuild (its path or layout not exported yet): retry.
            let menu = self.menu(item).await;
            if let Ok(m) = &menu {
                if ok(m) {
                    return Ok(m.clone());
                }
            }
            if Instant::now() > deadline {
                return Err(format!("tray menu never {what}; last: {menu:?}").into());
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Click the entry `id`, as a panel does when the user picks it.
    pub async fn click(&self, item: &Item, id: i32) -> Result<(), BoxError> {
        let path = self.menu_path(item).await?;
        let stamp = u32::try_from(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)?
                .as_secs()
                % u64::from(u32::MAX),
        )?;
        self.conn
            .call_method(
                Some(item.bus_name.as_str()),
                path.as_str(),
                Some(MENU_IFACE),
                "Event",
                &(id, "clicked", Value::from(0i32), stamp),
            )
            .await?;
        Ok(())
    }
}

/// One `(ia{sv}av)` node, as a menu entry.
fn entry(node: &OwnedValue) -> Result<MenuEntry, BoxError> {
    let mut v: &Value<'_> = node;
    // Children of an `av` arrive wrapped in a variant.
    while let Value::Value(inner) = v {
        v = inner;
    }
    let Value::Structure(s) = v else {
        return Err(format!("not a menu node: {v:?}").into());
    };
    let fields = s.fields();
    let id = match fields.first() {
        Some(Value::I32(id)) => *id,
        other => return Err(format!("no id in a menu node: {other:?}").into()),
    };
    let props: HashMap<String, OwnedValue> = match fields.get(1) {
        Some(d) => HashMap::try_from(d.try_clone()?)?,
        None => HashMap::new(),
    };
    let text = |k: &str| {
        props
            .get(k)
            .and_then(|v| String::try_from(v.try_clone().ok()?).ok())
    };
    let flag = |k: &str| props.get(k).and_then(|v| bool::try_from(v).ok());
    Ok(MenuEntry {
        id,
        label: unmnemonic(&text("label").unwrap_or_default()),
        // dbusmenu leaves out properties at their default (enabled, standard).
        enabled: flag("enabled").unwrap_or(true),
        separator: text("type").as_deref() == Some("separator"),
    })
}

/// GTK mnemonics: `__` is an underscore, a single `_` marks the access key.
fn unmnemonic(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '_' {
            if chars.peek() == Some(&'_') {
                chars.next();
                out.push('_');
            }
        } else {
            out.push(c);
        }
    }
    out
}

impl MenuEntry {
    /// The visible, clickable entries' labels, in order (separators left out).
    pub fn labels(menu: &[MenuEntry]) -> Vec<String> {
        menu.iter()
            .filter(|e| !e.separator)
            .map(|e| e.label.clone())
            .collect()
    }

    pub fn find<'a>(menu: &'a [MenuEntry], label: &str) -> Option<&'a MenuEntry> {
        menu.iter().find(|e| e.label == label)
    }
}
