//! Driving the real app: Xvfb, a private D-Bus session, tauri-driver + WebKitWebDriver, and a
//! fantoccini WebDriver client. Every process started here is stopped on drop.
//!
//! Prerequisites (installed by `src-tauri/scripts/setup-linux.sh --test`): `Xvfb`,
//! `dbus-daemon`, `WebKitWebDriver`, `tauri-driver`, and the app binary built with
//! `cargo build -p agentdesk` (or `AGENTDESK_APP_BIN`). When one is missing the tests say
//! SKIP loudly — and fail under `CI=true`, where a skipped suite is a defect.

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder, Locator};

pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Repository root (the parent of this crate).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

pub fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("target"))
}

/// Where a test leaves screenshots and logs.
pub fn artifacts_dir(test: &str) -> PathBuf {
    let base = std::env::var_os("AGENTDESK_TEST_ARTIFACTS")
        .map(PathBuf::from)
        .unwrap_or_else(|| target_dir().join("test-artifacts"));
    let dir = base.join(test);
    let _ = std::fs::create_dir_all(&dir);
    dir
}

/// `name`'s path in `PATH` (or `~/.cargo/bin`), if it is there.
pub fn find_on_path(name: &str) -> Option<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default();
    if let Some(home) = std::env::var_os("HOME") {
        dirs.push(PathBuf::from(home).join(".cargo/bin"));
    }
    dirs.into_iter().map(|d| d.join(name)).find(|p| p.is_file())
}

pub struct Prerequisites {
    pub app: PathBuf,
    pub tauri_driver: PathBuf,
    pub webkit_driver: PathBuf,
    pub xvfb: PathBuf,
    pub dbus_daemon: PathBuf,
}

/// Find everything the E2E tests need. `None` (after a loud SKIP line) when something is
/// missing outside CI; a panic under `CI=true`.
pub fn prerequisites(test: &str) -> Option<Prerequisites> {
    let app = std::env::var_os("AGENTDESK_APP_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| target_dir().join("debug").join("agentdesk"));
    let found = [
        (
            "app binary (cargo build -p agentdesk)",
            app.is_file().then_some(app.clone()),
        ),
        ("tauri-driver", find_on_path("tauri-driver")),
        ("WebKitWebDriver", find_on_path("WebKitWebDriver")),
        ("Xvfb", find_on_path("Xvfb")),
        ("dbus-daemon", find_on_path("dbus-daemon")),
    ];
    let missing: Vec<&str> = found
        .iter()
        .filter(|(_, p)| p.is_none())
        .map(|(n, _)| *n)
        .collect();
    if !nothing_missing(test, &missing) {
        return None;
    }
    let [a, t, w, x, d] = found.map(|(_, p)| p.unwrap_or_default());
    Some(Prerequisites {
        app: a,
        tauri_driver: t,
        webkit_driver: w,
        xvfb: x,
        dbus_daemon: d,
    })
}

/// Whether `missing` is empty; otherwise a loud SKIP of `test` that names it — a panic under
/// `CI=true`, where the E2E tests must run.
pub fn nothing_missing(test: &str, missing: &[&str]) -> bool {
    if missing.is_empty() {
        return true;
    }
    let msg = format!("SKIP {test}: missing {}", missing.join(", "));
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{msg} — under CI=true the E2E tests must run");
    }
    eprintln!("\n!!!!!!!! {msg} !!!!!!!!\n");
    false
}

/// A child process that is terminated (SIGTERM, then SIGKILL) when dropped.
pub struct Guarded {
    name: &'static str,
    child: Child,
}

impl Guarded {
    pub fn new(name: &'static str, child: Child) -> Self {
        Guarded { name, child }
    }
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// `cmd` started (no input) with its output piped to the caller, who reads it from the
    /// returned `stdout`.
    pub fn spawn_reading(
        name: &'static str,
        mut cmd: Command,
    ) -> Result<(Guarded, std::process::ChildStdout), BoxError> {
        let mut child = cmd.stdin(Stdio::null()).stdout(Stdio::piped()).spawn()?;
        let stdout = child.stdout.take().ok_or(format!("{name} has no stdout"))?;
        Ok((Guarded::new(name, child), stdout))
    }
}

impl Drop for Guarded {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(Some(_))) {
            return;
        }
        // SIGTERM first: tauri-driver only stops WebKitWebDriver (and so the app) on SIGTERM.
        let _ = Command::new("kill")
            .arg("-TERM")
            .arg(self.child.id().to_string())
            .status();
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        eprintln!("{} did not stop on SIGTERM; killing", self.name);
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn free_port() -> Result<u16, BoxError> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// A private X server on a free display number.
pub struct Display {
    pub name: String,
    _server: Guarded,
}

impl Display {
    pub fn start(xvfb: &Path) -> Result<Display, BoxError> {
        for _ in 0..20 {
            let n = 100 + (uuid::Uuid::new_v4().as_u128() % 800) as u32;
            if Path::new(&format!("/tmp/.X{n}-lock")).exists() {
                continue;
            }
            let child = Command::new(xvfb)
                .args([
                    format!(":{n}"),
                    "-screen".into(),
                    "0".into(),
                    "1280x800x24".into(),
                    "-nolisten".into(),
                    "tcp".into(),
                ])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()?;
            let server = Guarded::new("Xvfb", child);
            let socket = PathBuf::from(format!("/tmp/.X11-unix/X{n}"));
            let deadline = Instant::now() + Duration::from_secs(10);
            while Instant::now() < deadline && !socket.exists() {
                std::thread::sleep(Duration::from_millis(50));
            }
            if socket.exists() {
                return Ok(Display {
                    name: format!(":{n}"),
                    _server: server,
                });
            }
        }
        Err("could not start Xvfb on any display".into())
    }
}

/// A private session bus, so notifications never reach (or depend on) the developer's desktop.
pub struct SessionBus {
    pub address: String,
    _daemon: Guarded,
}

impl SessionBus {
    pub fn start(dbus_daemon: &Path) -> Result<SessionBus, BoxError> {
        let mut cmd = Command::new(dbus_daemon);
        cmd.args(["--session", "--nofork", "--print-address=1"])
            .stderr(Stdio::null());
        let (daemon, stdout) = Guarded::spawn_reading("dbus-daemon", cmd)?;
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line)?;
        let address = line.trim().to_string();
        if address.is_empty() {
            return Err("dbus-daemon printed no address".into());
        }
        Ok(SessionBus {
            address,
            _daemon: daemon,
        })
    }
}

/// Everything one app instance needs: its own data, config and cache dirs.
pub struct AppEnv {
    pub root: PathBuf,
    pub data_dir: PathBuf,
    /// More variables for the app (e.g. `GTK_THEME=Adwaita:dark` for the dark look).
    pub extra: Vec<(String, String)>,
    passed: bool,
}

impl AppEnv {
    pub fn new(test: &str) -> Result<AppEnv, BoxError> {
        let root = target_dir()
            .join("e2e-homes")
            .join(format!("{test}-{}", uuid::Uuid::new_v4()));
        let data_dir = root.join("data");
        std::fs::create_dir_all(&data_dir)?;
        Ok(AppEnv {
            root,
            data_dir,
            extra: Vec::new(),
            passed: false,
        })
    }

    /// The scenario succeeded: its files may go.
    pub fn passed(&mut self) {
        self.passed = true;
    }

    fn vars(&self) -> Vec<(String, std::ffi::OsString)> {
        let mut vars: Vec<(String, std::ffi::OsString)> = vec![
            ("AGENTDESK_DATA_DIR".into(), self.data_dir.clone().into()),
            // Tauri plugins (window state) write into the XDG dirs: keep instances apart.
            ("XDG_DATA_HOME".into(), self.root.join("xdg-data").into()),
            (
                "XDG_CONFIG_HOME".into(),
                self.root.join("xdg-config").into(),
            ),
            ("XDG_CACHE_HOME".into(), self.root.join("xdg-cache").into()),
        ];
        vars.extend(self.extra.iter().map(|(k, v)| (k.clone(), v.into())));
        vars
    }
}

impl Drop for AppEnv {
    fn drop(&mut self) {
        // Keep the data of a failed test for inspection; a passing one leaves nothing behind.
        if self.passed {
            let _ = std::fs::remove_dir_all(&self.root);
        }
    }
}

/// A page-script function `named(name)`: the enabled button (or `role=button`) whose
/// accessible name is `name` (`aria-label`, else its text without `aria-hidden` parts), or
/// `null`.
macro_rules! named_button_js {
    () => {
        r#"
        function named(name) {
          for (const b of document.querySelectorAll('button, [role=button]')) {
            let label = b.getAttribute('aria-label');
            if (label === null) {
              const c = b.cloneNode(true);
              c.querySelectorAll('[aria-hidden=true]').forEach((h) => h.remove());
              label = c.textContent;
            }
            if (label.replace(/\s+/g, ' ').trim() === name && !b.disabled) return b;
          }
          return null;
        }
        "#
    };
}

/// Why [`AppSession::click_in_page`] clicked nothing.
enum ClickMissed {
    /// Nothing to click appeared in time.
    Nothing,
    /// The driver failed.
    Driver(BoxError),
}

impl ClickMissed {
    /// The error, with `nothing` saying what was not found.
    fn or(self, nothing: String) -> BoxError {
        match self {
            ClickMissed::Nothing => nothing.into(),
            ClickMissed::Driver(e) => e,
        }
    }
}

/// One running tauri-driver with a WebDriver session on the app.
pub struct AppSession {
    pub client: Client,
    /// The X display the app is on (screenshots are taken from the X server).
    display: String,
    _driver: Guarded,
}

pub struct Desktop {
    pre: Prerequisites,
    display: Display,
    bus: SessionBus,
}

impl Desktop {
    pub fn start(pre: Prerequisites) -> Result<Desktop, BoxError> {
        let display = Display::start(&pre.xvfb)?;
        let bus = SessionBus::start(&pre.dbus_daemon)?;
        Ok(Desktop { pre, display, bus })
    }

    /// Start the app (through tauri-driver) and open a WebDriver session on it.
    pub async fn launch(
        &self,
        env: &AppEnv,
        log_name: &str,
        artifacts: &Path,
    ) -> Result<AppSession, BoxError> {
        let port = free_port()?;
        let native_port = free_port()?;
        let log = std::fs::File::create(artifacts.join(format!("{log_name}.log")))?;
        let mut cmd = Command::new(&self.pre.tauri_driver);
        cmd.args([
            "--port",
            &port.to_string(),
            "--native-port",
            &native_port.to_string(),
        ])
        .arg("--native-driver")
        .arg(&self.pre.webkit_driver)
        .env("DISPLAY", &self.display.name)
        .env("DBUS_SESSION_BUS_ADDRESS", &self.bus.address)
        .env("NO_AT_BRIDGE", "1")
        .env("RUST_LOG", "info")
        .stdin(Stdio::null())
        .stdout(log.try_clone()?)
        .stderr(log);
        for (k, v) in env.vars() {
            cmd.env(k, v);
        }
        let driver = Guarded::new("tauri-driver", cmd.spawn()?);
        wait_for_port(port, Duration::from_secs(20)).await?;
        // tauri-driver only proxies: WebKitWebDriver (on the native port) must be up too, or
        // the first request fails with "connection refused" (seen under load in CI).
        wait_for_port(native_port, Duration::from_secs(20)).await?;

        let mut caps = serde_json::Map::new();
        caps.insert("browserName".into(), serde_json::json!("wry"));
        caps.insert(
            "tauri:options".into(),
            serde_json::json!({ "application": self.pre.app.display().to_string() }),
        );
        let url = format!("http://127.0.0.1:{port}");
        let mut attempt = 0;
        let client = loop {
            attempt += 1;
            let mut builder = ClientBuilder::native();
            builder.capabilities(caps.clone());
            let connecting = builder.connect(&url);
            match tokio::time::timeout(Duration::from_secs(60), connecting).await {
                Ok(Ok(client)) => break client,
                // A refused or cut connection before the session exists: the drivers were
                // still starting. Bounded retries; anything else is a real failure.
                Ok(Err(fantoccini::error::NewSessionError::Lost(_)))
                | Ok(Err(fantoccini::error::NewSessionError::FailedC(_)))
                    if attempt < 3 =>
                {
                    tokio::time::sleep(Duration::from_millis(500)).await;
                }
                Ok(Err(e)) => return Err(e.into()),
                Err(_) => return Err("timed out opening a WebDriver session on the app".into()),
            }
        };
        Ok(AppSession {
            client,
            display: self.display.name.clone(),
            _driver: driver,
        })
    }
}

async fn wait_for_port(port: u16, limit: Duration) -> Result<(), BoxError> {
    let deadline = Instant::now() + limit;
    loop {
        if tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
        {
            return Ok(());
        }
        if Instant::now() > deadline {
            return Err(format!("nothing listens on 127.0.0.1:{port}").into());
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

impl AppSession {
    /// The first element matching an XPath, waiting for it (accessible names are matched
    /// this way: visible text or `aria-label`).
    pub async fn find_xpath(&self, xpath: &str) -> Result<fantoccini::elements::Element, BoxError> {
        self.wait_for(Locator::XPath(xpath), Duration::from_secs(40))
            .await
    }

    /// The first element `locator` finds, waiting for it up to `limit`.
    async fn wait_for(
        &self,
        locator: Locator<'_>,
        limit: Duration,
    ) -> Result<fantoccini::elements::Element, BoxError> {
        Ok(self
            .client
            .wait()
            .at_most(limit)
            .for_element(locator)
            .await?)
    }

    /// The strings a script in the page returns (`return [...]`).
    pub async fn script_strings(&self, script: &str) -> Result<Vec<String>, BoxError> {
        let v = self.client.execute(script, vec![]).await?;
        Ok(serde_json::from_value(v)?)
    }

    /// Choose `value` in the `<select>` at `css`. WebKitWebDriver cannot drive a native
    /// select (ElementNotInteractable for clicks and keys alike): the choice is made as the
    /// browser reports one, focus then a change event.
    /// A select disabled while the app saves an earlier choice is waited for first: a change
    /// dispatched to it then would be handled with the state from before that choice.
    pub async fn choose(&self, css: &str, value: &str) -> Result<(), BoxError> {
        self.find(css).await?;
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        while self
            .client
            .execute(
                "return document.querySelector(arguments[0]).disabled",
                vec![css.into()],
            )
            .await?
            == serde_json::Value::Bool(true)
        {
            if std::time::Instant::now() > deadline {
                return Err(format!("{css} stayed disabled").into());
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        self.client
            .execute(
                "const el = document.querySelector(arguments[0]); el.focus(); \
                 Object.getOwnPropertyDescriptor(HTMLSelectElement.prototype, 'value').set.call(el, arguments[1]); \
                 el.dispatchEvent(new Event('change', { bubbles: true }));",
                vec![css.into(), value.into()],
            )
            .await?;
        let chosen = self.find(css).await?.prop("value").await?;
        if chosen.as_deref() != Some(value) {
            return Err(format!("{css}: {chosen:?}, not {value:?}").into());
        }
        Ok(())
    }

    /// Find the enabled button named `name` (see [`Self::button`]) and click it in the same
    /// page script, waiting (bounded) until there is one: where the page redraws under load
    /// (the sidebar and the timeline while runs stream), an element found by one WebDriver
    /// call may be replaced before the next one clicks it.
    pub async fn press(&self, name: &str) -> Result<(), BoxError> {
        const PRESS: &str = concat!(
            named_button_js!(),
            "const b = named(arguments[0]); if (b) { b.click(); return true; } return false;"
        );
        self.click_in_page(PRESS, name)
            .await
            .map_err(|e| e.or(format!("no enabled button named {name:?}")))
    }

    /// Run `script` (which clicks what `arg` names and returns `true`, or returns `false`
    /// when there is nothing to click yet) until it clicks, for up to 40 s.
    async fn click_in_page(&self, script: &str, arg: &str) -> Result<(), ClickMissed> {
        let deadline = Instant::now() + Duration::from_secs(40);
        loop {
            match self.client.execute(script, vec![arg.into()]).await {
                Ok(serde_json::Value::Bool(true)) => return Ok(()),
                Ok(_) => {}
                Err(e) => return Err(ClickMissed::Driver(e.into())),
            }
            if Instant::now() > deadline {
                return Err(ClickMissed::Nothing);
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Find the first element matching `xpath` and click it in the same page script,
    /// waiting (bounded) until there is one. For the same reason as [`Self::press`]: a list
    /// that re-renders under load (search hits, the sidebar's menu) can replace or cover a
    /// found element before a separate WebDriver click (StaleElementReference,
    /// ElementNotInteractable).
    pub async fn click_xpath(&self, xpath: &str) -> Result<(), BoxError> {
        const CLICK: &str = "const el = document.evaluate(arguments[0], document, null, \
             XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue; \
             if (el && !el.disabled) { el.click(); return true; } return false;";
        self.click_in_page(CLICK, xpath)
            .await
            .map_err(|e| e.or(format!("nothing enabled to click at {xpath}")))
    }

    /// A button by its accessible name: `aria-label`, else its text without the parts
    /// hidden from assistive technology (`aria-hidden`). Waits for an enabled one.
    pub async fn button(&self, name: &str) -> Result<fantoccini::elements::Element, BoxError> {
        // Names are computed the way a screen reader would, which an XPath over the text
        // cannot do; the script hands the element itself back.
        const FIND: &str = concat!(named_button_js!(), "return named(arguments[0]);");
        // The W3C key a script's element result is returned under.
        const ELEMENT_KEY: &str = "element-6066-11e4-a52e-4f735466cecf";
        let deadline = Instant::now() + Duration::from_secs(40);
        loop {
            let found = self.client.execute(FIND, vec![name.into()]).await?;
            if let Some(id) = found.get(ELEMENT_KEY).and_then(|v| v.as_str()) {
                return Ok(fantoccini::elements::Element::from_element_id(
                    self.client.clone(),
                    id.to_string().into(),
                ));
            }
            if Instant::now() > deadline {
                return Err(format!("no enabled button named {name:?}").into());
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// The text content of every element matching `css`, read in one page script: the
    /// window may redraw between a WebDriver find and a later read of the found element
    /// (StaleElementReference), never inside one script. textContent, not the rendered
    /// text: WebKitWebDriver reports "" for text clipped with text-overflow inside a button.
    async fn texts_of(&self, css: &str) -> Result<Vec<String>, BoxError> {
        let v = self
            .client
            .execute(
                "return [...document.querySelectorAll(arguments[0])].map(e => e.textContent || '')",
                vec![css.into()],
            )
            .await?;
        Ok(serde_json::from_value(v)?)
    }

    /// Wait until the text content of some element matching `css` contains `text`.
    pub async fn wait_for_text_containing(
        &self,
        css: &str,
        text: &str,
        limit: Duration,
    ) -> Result<String, BoxError> {
        let deadline = Instant::now() + limit;
        loop {
            let texts = self.texts_of(css).await?;
            if let Some(t) = texts.iter().find(|t| t.contains(text)) {
                return Ok(t.clone());
            }
            if Instant::now() > deadline {
                let last = texts.last().cloned().unwrap_or_default();
                return Err(format!("no {css} containing {text:?}; last seen: {last:?}").into());
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// How long a script in the page (`execute_async`) may run before WebDriver gives up (30 s
    /// by default): the benches wait in the page for long turns and scrolls.
    pub async fn set_script_timeout(&self, limit: Duration) -> Result<(), BoxError> {
        self.client
            .update_timeouts(fantoccini::wd::TimeoutConfiguration::new(
                Some(limit),
                None,
                None,
            ))
            .await?;
        Ok(())
    }

    pub async fn find(&self, css: &str) -> Result<fantoccini::elements::Element, BoxError> {
        self.wait_for(Locator::Css(css), Duration::from_secs(20))
            .await
    }

    /// Wait until the text content of some element matching `css` equals `text`.
    pub async fn wait_for_text(&self, css: &str, text: &str) -> Result<(), BoxError> {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let seen = self.texts_of(css).await?;
            if seen.iter().any(|t| t.trim() == text) {
                return Ok(());
            }
            if Instant::now() > deadline {
                return Err(format!("no {css} with text {text:?}; seen: {seen:?}").into());
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// A PNG of the window, as the X server shows it (what a user sees). Not WebDriver's
    /// screenshot: WebKitWebDriver never answers it when the page is not in accelerated
    /// compositing mode, which is how the app runs (src-tauri/src/webkit.rs). A frame may
    /// still be on its way after the last DOM update, so keep taking pictures until two in a
    /// row agree (bounded), after a first pause.
    pub async fn screenshot(&self, path: &Path) -> Result<(), BoxError> {
        let mut last: Option<Vec<u8>> = None;
        for _ in 0..12 {
            tokio::time::sleep(Duration::from_millis(500)).await;
            let shot = self.x_screenshot().await?;
            if last.as_deref() == Some(shot.as_slice()) {
                break;
            }
            last = Some(shot);
        }
        std::fs::write(path, last.unwrap_or_default())?;
        Ok(())
    }

    /// One PNG of the app's window from the X server (ImageMagick's `import`; the window found
    /// by its title with xdotool), or of the whole screen when the window is not found.
    pub async fn x_screenshot(&self) -> Result<Vec<u8>, BoxError> {
        let display = self.display.clone();
        tokio::task::spawn_blocking(move || -> Result<Vec<u8>, BoxError> {
            let found = Command::new("xdotool")
                .args(["search", "--onlyvisible", "--name", "^Agent Desk$"])
                .env("DISPLAY", &display)
                .output()?;
            let window = String::from_utf8_lossy(&found.stdout)
                .lines()
                .next()
                .map(str::to_string)
                .unwrap_or_else(|| "root".into());
            let out = Command::new("import")
                .args(["-display", &display, "-window", &window, "png:-"])
                .output()?;
            if !out.status.success() || out.stdout.is_empty() {
                return Err(format!(
                    "import failed: {}",
                    String::from_utf8_lossy(&out.stderr).trim()
                )
                .into());
            }
            Ok(out.stdout)
        })
        .await?
    }

    /// End the WebDriver session, which closes the app.
    pub async fn quit(self) -> Result<(), BoxError> {
        self.client.close().await?;
        Ok(())
    }
}

// The window suites' shared steps (chat, approvals, the one-app-at-a-time turn, the light
// and dark runs of a scenario): a module of their own, re-exported here.
mod suite;
pub use suite::*;
