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

fn find_on_path(name: &str) -> Option<PathBuf> {
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

    /// A button by its accessible name: `aria-label`, else its text without the parts
    /// hidden from assistive technology (`aria-hidden`). Waits for an enabled one.
    pub async fn button(&self, name: &str) -> Result<fantoccini::elements::Element, BoxError> {
        // Names are computed the way a screen reader would, which an XPath over the text
        // cannot do; the script hands the element itself back.
        const FIND: &str = r#"
            const [name] = arguments;
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
        "#;
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

    /// Wait until the text content of the first element matching `css` contains `text`.
    pub async fn wait_for_text_containing(
        &self,
        css: &str,
        text: &str,
        limit: Duration,
    ) -> Result<String, BoxError> {
        let deadline = Instant::now() + limit;
        loop {
            let mut last = String::new();
            for el in self.client.find_all(Locator::Css(css)).await? {
                let t = el.prop("textContent").await?.unwrap_or_default();
                if t.contains(text) {
                    return Ok(t);
                }
                last = t;
            }
            if Instant::now() > deadline {
                return Err(format!("no {css} containing {text:?}; last seen: {last:?}").into());
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    pub async fn find(&self, css: &str) -> Result<fantoccini::elements::Element, BoxError> {
        self.wait_for(Locator::Css(css), Duration::from_secs(20))
            .await
    }

    /// Wait until the text content of some element matching `css` equals `text`.
    pub async fn wait_for_text(&self, css: &str, text: &str) -> Result<(), BoxError> {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let mut seen = Vec::new();
            for el in self.client.find_all(Locator::Css(css)).await? {
                // textContent, not the rendered text: WebKitWebDriver reports "" for text
                // clipped with text-overflow inside a button.
                let t = el.prop("textContent").await?.unwrap_or_default();
                if t.trim() == text {
                    return Ok(());
                }
                seen.push(t);
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

/// Helpers for the chat E2E suites (run status lines, JS errors, bounded script waits).
impl AppSession {
    /// Collect uncaught errors and `console.error` calls into `window.__errs`, so a failing
    /// step can say what went wrong inside the webview.
    pub async fn collect_js_errors(&self) -> Result<(), BoxError> {
        self.client
            .execute(
                "window.__errs = []; \
                 window.addEventListener('error', (e) => window.__errs.push(e.message + ' @ ' + String(e.error && e.error.stack))); \
                 const ce = console.error; console.error = (...a) => { window.__errs.push(a.map(String).join(' ')); ce(...a); };",
                vec![],
            )
            .await?;
        Ok(())
    }

    /// The status words of every run line in the timeline, in order (`Completed`, ...).
    pub async fn run_statuses(&self) -> Result<Vec<String>, BoxError> {
        self.script_strings(
            "return [...document.querySelectorAll('[data-testid=run-status] .run-status-text')].map((e) => e.textContent.trim())",
        )
        .await
    }

    /// Wait (bounded) until the newest run line reads `want` (`Completed`, ...). Only the
    /// newest: the timeline is virtualised, so older run lines may not be in the page.
    pub async fn wait_for_last_run_status(
        &self,
        want: &str,
        limit: Duration,
    ) -> Result<(), BoxError> {
        let deadline = Instant::now() + limit;
        loop {
            let seen = self.run_statuses().await?;
            if seen.last().map(String::as_str) == Some(want) {
                return Ok(());
            }
            if Instant::now() > deadline {
                return Err(format!("run statuses {seen:?}, want the last {want:?}").into());
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// A picture of the window and the webview's collected errors when a step failed.
    pub async fn on_error<T>(
        &self,
        artifacts: &Path,
        r: Result<T, BoxError>,
    ) -> Result<T, BoxError> {
        if r.is_err() {
            let _ = self.screenshot(&artifacts.join("failure.png")).await;
            if let Ok(errs) = self
                .client
                .execute("return window.__errs || []", vec![])
                .await
            {
                eprintln!("errors in the window: {errs:#}");
            }
        }
        r
    }
}

/// The approval cards (`role=group`, named "Approval").
pub const APPROVAL_CARD: &str = "//*[@role='group' and @aria-label='Approval']";

/// The timeline.
pub const TIMELINE: &str = "[role=log][aria-label=Timeline]";

/// Helpers for the chat E2E suites: opening a session, sending, approval cards.
impl AppSession {
    /// Open a new session in the listed workspace (a picture and the webview's errors when
    /// that fails, see [`AppSession::on_error`]); its message box.
    pub async fn open_new_session(
        &self,
        artifacts: &Path,
    ) -> Result<fantoccini::elements::Element, BoxError> {
        let listed = self.find("[data-testid=workspace-item]").await;
        self.on_error(artifacts, listed).await?;
        self.button("New session").await?.click().await?;
        let message = self.find("textarea[aria-label=Message]").await;
        self.on_error(artifacts, message).await
    }

    /// Type `text` in the message box and press Send.
    pub async fn send_message(&self, text: &str) -> Result<(), BoxError> {
        let message = self.find("textarea[aria-label=Message]").await?;
        message.send_keys(text).await?;
        self.button("Send").await?.click().await?;
        Ok(())
    }

    /// Wait (bounded by `limit`) until the timeline contains `text`; its text.
    pub async fn wait_for_timeline(&self, text: &str, limit: Duration) -> Result<String, BoxError> {
        self.wait_for_text_containing(TIMELINE, text, limit).await
    }

    /// The text content of the first element matching an XPath (waiting for it).
    pub async fn xpath_text(&self, xpath: &str) -> Result<String, BoxError> {
        let el = self.find_xpath(xpath).await?;
        Ok(el.prop("textContent").await?.unwrap_or_default())
    }

    /// The text content of the first element matching `css` (waiting for it).
    pub async fn css_text(&self, css: &str) -> Result<String, BoxError> {
        let el = self.find(css).await?;
        Ok(el.prop("textContent").await?.unwrap_or_default())
    }

    /// Wait (bounded by `limit`) until the newest run line reads `want`; a picture and the
    /// webview's errors when it does not (see [`AppSession::on_error`]).
    pub async fn run_ends(
        &self,
        artifacts: &Path,
        want: &str,
        limit: Duration,
    ) -> Result<(), BoxError> {
        let seen = self.wait_for_last_run_status(want, limit).await;
        self.on_error(artifacts, seen).await
    }

    /// The text of every approval card, in order.
    pub async fn approval_cards(&self) -> Result<Vec<String>, BoxError> {
        let mut out = Vec::new();
        for c in self.client.find_all(Locator::XPath(APPROVAL_CARD)).await? {
            out.push(c.prop("textContent").await?.unwrap_or_default());
        }
        Ok(out)
    }

    /// Click the button `name`, retried when it was re-rendered under the click (a card
    /// redrawn as its request arrives).
    pub async fn click_retrying(&self, name: &str) -> Result<(), BoxError> {
        let mut attempt = 0;
        loop {
            attempt += 1;
            match self.button(name).await?.click().await {
                Ok(_) => return Ok(()),
                Err(e) if attempt < 5 => {
                    eprintln!("click on {name:?} retried: {e}");
                    tokio::time::sleep(Duration::from_millis(300)).await;
                }
                Err(e) => return Err(e.into()),
            }
        }
    }
}

/// One app at a time: two windows and two engines at once starve a 2-core machine.
static ONE_APP: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// What a window test with a real engine needs: the suite's turn (one app at a time: hold
/// the guard), the desktop's programs ([`prerequisites`]) and the engine binary named by
/// `engine_var` (`crate::real::engine_bin`, `suite` its name in a skip). `None` after a loud
/// SKIP when something is missing.
pub async fn app_with_engine(
    test: &str,
    engine_var: &str,
    suite: &str,
) -> Option<(tokio::sync::MutexGuard<'static, ()>, Prerequisites, PathBuf)> {
    let turn = ONE_APP.lock().await;
    let pre = prerequisites(test)?;
    let bin = crate::real::engine_bin(engine_var, suite)?;
    Some((turn, pre, bin))
}

/// What a window test's scenario starts from.
pub struct WindowTest<'a> {
    /// The test's name.
    pub test: &'a str,
    /// Where its screenshots and logs go.
    pub artifacts: PathBuf,
    pub desktop: Desktop,
    /// The app's environment, in the look the test asked for.
    pub env: AppEnv,
    /// The engine binary.
    pub bin: PathBuf,
}

/// A window test with the engine named by `engine_var` (`suite` its name in a skip): once
/// [`app_with_engine`] has all it needs, `scenario` (on a desktop of its own, the app's
/// environment in the look `theme`) must succeed within `limit`.
pub async fn themed_run<'a, F>(
    test: &'a str,
    theme: Option<&'a str>,
    (engine_var, suite, limit): (&str, &str, Duration),
    scenario: impl FnOnce(WindowTest<'a>) -> F,
) where
    F: std::future::Future<Output = Result<(), BoxError>> + 'a,
{
    let Some((_turn, pre, bin)) = app_with_engine(test, engine_var, suite).await else {
        return;
    };
    bounded(limit, async move {
        let (artifacts, desktop, env) = themed_desktop(test, pre, theme)?;
        let window = WindowTest {
            test,
            artifacts,
            desktop,
            env,
            bin,
        };
        scenario(window).await
    })
    .await;
}

/// The two `#[tokio::test]`s of a window suite, `$light` (the test `"<$test>_light"`, the
/// default look) and `$dark` (`"<$test>_dark"`, `Adwaita:dark`): each a [`e2e::themed_run`]
/// of `$scenario` with the engine `$engine` (`(env var, suite name, seconds)`).
///
/// [`e2e::themed_run`]: crate::e2e::themed_run
#[macro_export]
macro_rules! light_and_dark {
    ($light:ident, $dark:ident, $test:literal, ($var:expr, $suite:literal, $secs:literal), $scenario:path) => {
        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn $light() {
            let engine = ($var, $suite, std::time::Duration::from_secs($secs));
            $crate::e2e::themed_run(concat!($test, "_light"), None, engine, $scenario).await;
        }

        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn $dark() {
            let engine = ($var, $suite, std::time::Duration::from_secs($secs));
            let dark = Some("Adwaita:dark");
            $crate::e2e::themed_run(concat!($test, "_dark"), dark, engine, $scenario).await;
        }
    };
}

/// Run `scenario`, which must succeed within `limit`.
pub async fn bounded(
    limit: Duration,
    scenario: impl std::future::Future<Output = Result<(), BoxError>>,
) {
    match tokio::time::timeout(limit, scenario).await {
        Ok(Ok(())) => {}
        Ok(Err(e)) => panic!("{e}"),
        Err(_) => panic!("scenario timed out"),
    }
}

/// The artifacts folder of `test`, its desktop, and the app's environment in the look
/// `theme` (`GTK_THEME`, e.g. `Adwaita:dark`; the default look without).
fn themed_desktop(
    test: &str,
    pre: Prerequisites,
    theme: Option<&str>,
) -> Result<(PathBuf, Desktop, AppEnv), BoxError> {
    let artifacts = artifacts_dir(test);
    let desktop = Desktop::start(pre)?;
    let mut env = AppEnv::new(test)?;
    if let Some(theme) = theme {
        env.extra.push(("GTK_THEME".into(), theme.into()));
    }
    Ok((artifacts, desktop, env))
}

/// Pids of live processes whose environment holds `var=value` (a test's engine and anything
/// it started); zombies do not count.
pub fn processes_with_env(var: &str, value: &Path) -> Vec<u32> {
    let needle = format!("{var}={}", value.display());
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(environ) = std::fs::read(entry.path().join("environ")) else {
            continue;
        };
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        let zombie = stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z'));
        if !zombie && environ.split(|b| *b == 0).any(|kv| kv == needle.as_bytes()) {
            found.push(pid);
        }
    }
    found
}

/// Wait (bounded by `limit`) until no process with `var=value` is left; the pids left
/// otherwise.
pub async fn wait_no_processes(var: &str, value: &Path, limit: Duration) -> Result<(), BoxError> {
    let deadline = Instant::now() + limit;
    loop {
        let left = processes_with_env(var, value);
        if left.is_empty() {
            return Ok(());
        }
        if Instant::now() > deadline {
            return Err(format!("{var} processes left: {left:?}").into());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn s(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

/// The workspace `demo` (the folder `work`, created, with a README) in the app's database,
/// with `spec` its default profile and `bin` the engine settings' `program` path — as a user
/// who set up a profile would have it. The database stays open.
pub async fn demo_workspace(
    env: &AppEnv,
    work: &Path,
    (program, bin): (&str, PathBuf),
    spec: &agentdesk_protocol::ui::ProfileSpec,
) -> Result<(agentdesk_core::Desk, agentdesk_protocol::ids::WorkspaceId), BoxError> {
    std::fs::create_dir_all(work)?;
    std::fs::write(work.join("README.md"), "demo repo\n")?;
    let desk = agentdesk_core::Desk::open(&env.data_dir).await?;
    desk.set_engine_settings(&agentdesk_core::EngineSettings::default().with_bin(program, bin))
        .await?;
    let ws = desk.add_workspace(&s(work), Some("demo")).await?;
    let profile = desk.create_profile(&ws.id, spec).await?;
    desk.set_default_profile(&profile.id).await?;
    Ok((desk, ws.id))
}

/// A workspace set up for the chat E2E suites with a default Claude profile.
pub struct ClaudeWorkspace {
    /// The workspace folder (canonical, as the app shows it).
    pub work: PathBuf,
    /// The engine's config dir: identifies this test's `claude` processes.
    pub claude_config: PathBuf,
}

impl ClaudeWorkspace {
    /// Pids of this test's `claude` processes (and anything they started).
    pub fn processes(&self) -> Vec<u32> {
        processes_with_env("CLAUDE_CONFIG_DIR", &self.claude_config)
    }
}

/// A workspace with a default Claude profile (asks before acting) pointed at a fake Messages
/// API at `base_url`, written into the app's database before the app starts — as a user who
/// set up a profile would have it.
pub async fn prepare_claude_workspace(
    env: &AppEnv,
    bin: PathBuf,
    base_url: String,
) -> Result<ClaudeWorkspace, BoxError> {
    use agentdesk_protocol::ui::{Engine, ProfileSpec};
    let work = env.root.join("work");
    let home = env.root.join("home");
    let claude_config = home.join(".claude");
    // Short: the CLI puts a unix socket under its tmp dir (≤ 103 bytes).
    let tmp = PathBuf::from("/tmp").join(format!("adg-{}", uuid::Uuid::new_v4().simple()));
    for d in [&claude_config, &tmp] {
        std::fs::create_dir_all(d)?;
    }
    let mut spec = ProfileSpec::new("claude (fake model)", Engine::Claude);
    spec.model = Some(crate::fake_messages::FAKE_MODEL.into());
    spec.base_url = Some(base_url);
    spec.api_key_env = Some(crate::real::CLAUDE_KEY_ENV.into());
    spec.env.extend(crate::real::claude_env(&home, &tmp));
    spec.env
        .insert(crate::real::CLAUDE_KEY_ENV.into(), "dummy".into());
    spec.engine_options = serde_json::json!({});
    let (desk, _) = demo_workspace(env, &work, ("claude", bin), &spec).await?;
    desk.close().await;
    Ok(ClaudeWorkspace {
        work: std::fs::canonicalize(&work)?,
        claude_config,
    })
}

impl Desktop {
    /// The X display the app runs on (`:N`), for tools that act on it (xdotool, a drag source).
    pub fn display_name(&self) -> &str {
        &self.display.name
    }
}

/// A workspace set up with a default Codex profile, the database still open so a suite can
/// add what it needs (settings, seeded sessions) before closing it and starting the app.
pub struct CodexWorkspace {
    /// The workspace folder (a git repository, as codex expects).
    pub work: PathBuf,
    pub workspace_id: agentdesk_protocol::ids::WorkspaceId,
    pub desk: agentdesk_core::Desk,
}

/// A workspace with a default Codex profile (asks before acting) pointed at a fake Responses
/// API at `base_url` — as a user who set up a profile would have it. `customise` adjusts the
/// profile (rules, engine options) before it is stored.
pub async fn prepare_codex_workspace(
    env: &AppEnv,
    bin: PathBuf,
    base_url: String,
    customise: impl FnOnce(&mut agentdesk_protocol::ui::ProfileSpec),
) -> Result<CodexWorkspace, BoxError> {
    use agentdesk_protocol::ui::{Engine, ProfileSpec};
    let work = env.root.join("work");
    let home = env.root.join("home");
    std::fs::create_dir_all(&work)?;
    std::fs::create_dir_all(&home)?;
    Command::new("git")
        .args(["init", "-q"])
        .current_dir(&work)
        .status()?;
    let mut spec = ProfileSpec::new("codex (fake model)", Engine::Codex);
    // A catalog slug: codex then offers `apply_patch` (file-change approvals).
    spec.model = Some("gpt-5.5".into());
    spec.base_url = Some(base_url);
    spec.api_key_env = Some("MOCK_API_KEY".into());
    for (k, v) in [
        ("MOCK_API_KEY", "dummy".to_string()),
        ("HOME", s(&home)),
        ("NO_PROXY", "127.0.0.1,localhost".to_string()),
    ] {
        spec.env.insert(k.to_string(), v);
    }
    spec.engine_options = serde_json::json!({
        "codexHome": s(&home),
        "requestMaxRetries": 0,
        "streamMaxRetries": 0,
    });
    customise(&mut spec);
    let (desk, workspace_id) = demo_workspace(env, &work, ("codex", bin), &spec).await?;
    Ok(CodexWorkspace {
        work,
        workspace_id,
        desk,
    })
}
