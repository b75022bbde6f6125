//! The window suites' shared steps: chat (status lines, JS errors, sending, approval cards),
//! the one-app-at-a-time turn, a scenario's light and dark runs, leftover processes, and the
//! workspace a suite starts from.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use fantoccini::Locator;

use super::*;

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

/// Codex and Claude Code at `codex` and `claude` (Settings), and a second profile, "claude
/// (fake model)", on the fake Messages API at `base_url` (its config and temporary folders
/// under the app's test root) — the workspace of a test that runs both engines. `customise`
/// adjusts the profile (rules) before it is stored; its id is returned.
pub async fn add_claude_profile(
    env: &AppEnv,
    ws: &CodexWorkspace,
    (codex, claude): (PathBuf, PathBuf),
    base_url: &str,
    customise: impl FnOnce(&mut agentdesk_protocol::ui::ProfileSpec),
) -> Result<agentdesk_protocol::ids::ProfileId, BoxError> {
    use agentdesk_protocol::ui::{Engine, ProfileSpec};
    ws.desk
        .set_engine_settings(
            &agentdesk_core::EngineSettings::default()
                .with_bin("codex", codex)
                .with_bin("claude", claude),
        )
        .await?;
    let dirs = crate::real::claude_dirs(&env.root.join("claude"));
    let mut spec = ProfileSpec::new("claude (fake model)", Engine::Claude);
    spec.model = Some(crate::fake_messages::FAKE_MODEL.into());
    spec.base_url = Some(base_url.to_owned());
    spec.api_key_env = Some(crate::real::CLAUDE_KEY_ENV.into());
    spec.env
        .extend(crate::real::claude_env(&dirs.home, &dirs.tmp));
    spec.env
        .insert(crate::real::CLAUDE_KEY_ENV.into(), "dummy".into());
    customise(&mut spec);
    Ok(ws.desk.create_profile(&ws.workspace_id, &spec).await?.id)
}
