//! One Agent Desk at a time (issue 20, item 6), end to end on Linux: the real app binary
//! under Xvfb, on a private session bus, with the default data dir (no `AGENTDESK_DATA_DIR`,
//! a private `XDG_DATA_HOME`).
//!
//! A second start hands over to the running app (tauri-plugin-single-instance, a D-Bus name
//! here) and exits at once with success; the first shows its window and says so in its log.
//! A start given its own `AGENTDESK_DATA_DIR` — what every other E2E test does, several apps
//! on one bus — is not part of it and keeps running.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use agentdesk_tests::e2e::{prerequisites, target_dir, BoxError, Display, SessionBus};

/// The plugin's name on the bus: the app's identifier + ".SingleInstance".
const NAME: &str = "dev.agentdesk.desktop.SingleInstance";

/// A started app: SIGTERM (then SIGKILL) when dropped.
struct App(Child);

impl Drop for App {
    fn drop(&mut self) {
        if matches!(self.0.try_wait(), Ok(Some(_))) {
            return;
        }
        let _ = Command::new("kill")
            .arg("-TERM")
            .arg(self.0.id().to_string())
            .status();
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if matches!(self.0.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start(
    app: &Path,
    root: &Path,
    display: &str,
    bus: &str,
    data_dir: Option<&Path>,
    log: &str,
) -> Result<App, BoxError> {
    let out = std::fs::File::create(root.join(format!("{log}.log")))?;
    let mut cmd = Command::new(app);
    cmd.env("DISPLAY", display)
        .env("DBUS_SESSION_BUS_ADDRESS", bus)
        .env("XDG_DATA_HOME", root.join("xdg-data"))
        .env("XDG_CONFIG_HOME", root.join("xdg-config"))
        .env("XDG_CACHE_HOME", root.join("xdg-cache"))
        .env("NO_AT_BRIDGE", "1")
        .env("RUST_LOG", "info")
        .env_remove("AGENTDESK_DATA_DIR")
        .stdin(Stdio::null())
        .stdout(out.try_clone()?)
        .stderr(out);
    if let Some(d) = data_dir {
        cmd.env("AGENTDESK_DATA_DIR", d);
    }
    Ok(App(cmd.spawn()?))
}

async fn name_owned(bus: &str) -> Result<bool, BoxError> {
    let conn = zbus::connection::Builder::address(bus)?.build().await?;
    let dbus = zbus::fdo::DBusProxy::new(&conn).await?;
    Ok(dbus
        .name_has_owner(zbus::names::BusName::try_from(NAME)?)
        .await?)
}

/// Everything the default-data-dir app logged (its daily log files).
fn logged(root: &Path) -> String {
    let dir = root.join("xdg-data/dev.agentdesk.desktop/logs");
    let mut all = String::new();
    for f in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        all.push_str(&std::fs::read_to_string(f.path()).unwrap_or_default());
    }
    all
}

async fn wait_for(what: &str, limit: Duration, mut ok: impl FnMut() -> bool) {
    let deadline = Instant::now() + limit;
    while !ok() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_start_hands_over_to_the_running_app() {
    let Some(pre) = prerequisites("single_instance") else {
        return;
    };
    let root: PathBuf = target_dir()
        .join("e2e-homes")
        .join(format!("single-instance-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&root).unwrap();
    let bus = SessionBus::start(&pre.dbus_daemon).unwrap();
    let display = Display::start(&pre.xvfb).unwrap();

    let mut first = start(&pre.app, &root, &display.name, &bus.address, None, "first").unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while !name_owned(&bus.address).await.unwrap() {
        assert!(
            first.0.try_wait().unwrap().is_none(),
            "the first app exited"
        );
        assert!(Instant::now() < deadline, "the first app never took {NAME}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    // A second start on the same (default) data dir: hands over and exits with success.
    let mut second = start(&pre.app, &root, &display.name, &bus.address, None, "second").unwrap();
    let mut status = None;
    wait_for("the second start to exit", Duration::from_secs(30), || {
        status = second.0.try_wait().unwrap();
        status.is_some()
    })
    .await;
    assert!(status.unwrap().success(), "the second start failed");
    assert!(
        first.0.try_wait().unwrap().is_none(),
        "the first app exited"
    );
    wait_for(
        "the first app to show its window for the second start",
        Duration::from_secs(10),
        || logged(&root).contains("a second start handed over"),
    )
    .await;

    // A start with a data dir of its own shares nothing with it: it keeps running.
    let own = root.join("own-data");
    std::fs::create_dir_all(&own).unwrap();
    let mut other = start(
        &pre.app,
        &root,
        &display.name,
        &bus.address,
        Some(&own),
        "own-data-dir",
    )
    .unwrap();
    tokio::time::sleep(Duration::from_secs(5)).await;
    assert!(
        other.0.try_wait().unwrap().is_none(),
        "an app with its own AGENTDESK_DATA_DIR exited"
    );
    assert!(
        first.0.try_wait().unwrap().is_none(),
        "the first app exited"
    );
    assert!(name_owned(&bus.address).await.unwrap());

    drop(other);
    drop(first);
    drop(display);
    drop(bus);
    let _ = std::fs::remove_dir_all(&root);
}
