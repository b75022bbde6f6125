//! The tray, end to end: the real app under Xvfb with a private session bus where a
//! StatusNotifierWatcher double (`fake_tray`) plays the desktop's panel, the real pinned
//! `codex` against the fake Responses API, the real SQLite file.
//!
//! The tray's menu (read over dbusmenu, as a panel does) lists every pending request and
//! "Open Agent Desk"; a click on a request brings the window up on its card. Closing the
//! window (`WM_DELETE_WINDOW`, the title bar's close button) while a run is active asks once
//! whether to keep running in the tray; the answer is remembered. Screenshots of the question
//! in the light and the dark look land in `target/test-artifacts/tray_*/`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::time::Duration;

use agentdesk_tests::e2e::{
    artifacts_dir, prepare_codex_workspace, prerequisites, AppEnv, AppSession, BoxError, Desktop,
    SessionBus,
};
use agentdesk_tests::fake_responses::{FakeResponses, Reply};
use agentdesk_tests::fake_tray::{FakeTray, Item, MenuEntry};
use agentdesk_tests::real::engine_bin;
use agentdesk_tests::xwindow;

const STREAM: Duration = Duration::from_secs(60);
const TRAY: Duration = Duration::from_secs(30);
const ASK: &str = "Keep Agent Desk running in the tray?";

struct World {
    // Field order is drop order: the app goes before its bus and display.
    app: Option<AppSession>,
    tray: FakeTray,
    item: Item,
    fake: FakeResponses,
    work: PathBuf,
    artifacts: PathBuf,
    env: AppEnv,
    _bus: SessionBus,
    desktop: Desktop,
}

async fn start(test: &str, theme: Option<&str>) -> Result<Option<World>, BoxError> {
    let Some(pre) = prerequisites(test) else {
        return Ok(None);
    };
    let Some(bin) = engine_bin("CODEX_BIN", "tray E2E") else {
        return Ok(None);
    };
    let artifacts = artifacts_dir(test);
    let bus = SessionBus::start(&pre.dbus_daemon)?;
    let desktop = Desktop::start(pre)?;
    // The panel is there before the app: appindicator looks for it when the icon is made.
    let tray = FakeTray::start(&bus.address).await?;
    let mut env = AppEnv::new(test)?;
    env.extra
        .push(("DBUS_SESSION_BUS_ADDRESS".into(), bus.address.clone()));
    if let Some(theme) = theme {
        env.extra.push(("GTK_THEME".into(), theme.into()));
    }
    let fake = FakeResponses::start().await?;
    let ws = prepare_codex_workspace(&env, bin, fake.base_url(), |_| {}).await?;
    ws.desk.close().await;
    let app = desktop.launch(&env, "app", &artifacts).await?;
    app.collect_js_errors().await?;
    app.find("[data-testid=workspace-item]").await?;
    let item = tray.wait_for_item(TRAY).await?;
    Ok(Some(World {
        app: Some(app),
        tray,
        item,
        fake,
        work: ws.work,
        artifacts,
        env,
        _bus: bus,
        desktop,
    }))
}

impl World {
    fn app(&self) -> &AppSession {
        self.app.as_ref().expect("the app is running")
    }

    fn display(&self) -> &str {
        self.desktop.display_name()
    }

    async fn send(&self, text: &str) -> Result<(), BoxError> {
        let message = self.app().find("textarea[aria-label=Message]").await?;
        message.send_keys(text).await?;
        self.app().button("Send").await?.click().await?;
        Ok(())
    }

    /// The menu once an entry's label contains `text`, and that entry.
    async fn menu_with(&self, text: &str) -> Result<(Vec<MenuEntry>, MenuEntry), BoxError> {
        let menu = self
            .tray
            .wait_for_menu(&self.item, &format!("listing {text:?}"), TRAY, |m| {
                m.iter().any(|e| e.label.contains(text))
            })
            .await?;
        let entry = menu
            .iter()
            .find(|e| e.label.contains(text))
            .cloned()
            .ok_or("gone")?;
        Ok((menu, entry))
    }

    async fn click_menu(&self, text: &str) -> Result<(), BoxError> {
        let (_, entry) = self.menu_with(text).await?;
        self.tray.click(&self.item, entry.id).await
    }

    /// Click a card's button (the card may be re-rendered while it appears: retried).
    async fn click(&self, name: &str) -> Result<(), BoxError> {
        let mut attempt = 0;
        loop {
            attempt += 1;
            match self.app().button(name).await?.click().await {
                Ok(_) => return Ok(()),
                Err(e) if attempt < 5 => {
                    eprintln!("click on {name:?} retried: {e}");
                    tokio::time::sleep(Duration::from_millis(300)).await;
                }
                Err(e) => return Err(e.into()),
            }
        }
    }

    /// Click a button from a script: a WebDriver click waits for the page to paint again,
    /// which a window hidden by that very click never does.
    async fn click_hiding(&self, name: &str) -> Result<(), BoxError> {
        self.app().button(name).await?;
        let clicked = self
            .app()
            .client
            .execute(
                "const [name] = arguments; \
                 const b = [...document.querySelectorAll('button')].find((b) => b.textContent.trim() === name); \
                 if (!b) return false; b.click(); return true;",
                vec![name.into()],
            )
            .await?;
        if clicked.as_bool() != Some(true) {
            return Err(format!("no button {name:?} to click").into());
        }
        Ok(())
    }

    async fn wait_for_file(&self, name: &str) -> Result<(), BoxError> {
        let deadline = std::time::Instant::now() + STREAM;
        while !self.work.join(name).exists() {
            if std::time::Instant::now() > deadline {
                return Err(format!("{name} never appeared").into());
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        Ok(())
    }

    /// The dialog's name, once it is on screen (bounded), or `None` after `limit`.
    async fn dialog(&self, limit: Duration) -> Result<Option<String>, BoxError> {
        let deadline = std::time::Instant::now() + limit;
        loop {
            let v = self
                .app()
                .client
                .execute(
                    "const d = document.querySelector('[role=dialog]'); \
                     if (!d) return null; \
                     return document.getElementById(d.getAttribute('aria-labelledby')).textContent;",
                    vec![],
                )
                .await?;
            if let Some(t) = v.as_str() {
                return Ok(Some(t.to_string()));
            }
            if std::time::Instant::now() > deadline {
                return Ok(None);
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Wait (bounded by `limit`) until no dialog is shown; the one still shown then, if any.
    /// The page of a window shown again may not yet have drawn a dialog closed while it was
    /// hidden (its answer arrived while its timers were held back).
    async fn dialog_gone(&self, limit: Duration) -> Result<Option<String>, BoxError> {
        let deadline = std::time::Instant::now() + limit;
        loop {
            let shown = self.dialog(Duration::ZERO).await?;
            if shown.is_none() || std::time::Instant::now() > deadline {
                return Ok(shown);
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// A run that waits for the user: codex asks to run `touch <file>`.
    async fn ask_command(&self, call: &str, file: &str, done: &str) -> Result<(), BoxError> {
        self.fake
            .push(Reply::exec_command(call, &format!("touch {file}")));
        self.fake.push(Reply::text(&[done]));
        self.send(&format!("Make {file}")).await?;
        self.menu_with(&format!("touch {file}")).await?;
        Ok(())
    }

    async fn shot(&self, name: &str) -> Result<(), BoxError> {
        self.app().screenshot(&self.artifacts.join(name)).await
    }
}

async fn on_error<T>(w: &World, r: Result<T, BoxError>) -> Result<T, BoxError> {
    if let Err(e) = &r {
        eprintln!("failed: {e}");
        let windows = xwindow::app_windows(w.display()).unwrap_or_default();
        let shown: Vec<_> = windows
            .iter()
            .map(|id| (*id, xwindow::is_viewable(w.display(), *id).unwrap_or(false)))
            .collect();
        eprintln!("app windows (id, shown): {shown:?}");
        let menu = tokio::time::timeout(Duration::from_secs(5), w.tray.menu(&w.item)).await;
        eprintln!("tray menu: {menu:?}");
        // Bounded: a hidden window's page never paints, and WebDriver waits for it.
        if let Some(app) = &w.app {
            let bounded = Duration::from_secs(15);
            let _ = tokio::time::timeout(bounded, app.screenshot(&w.artifacts.join("failure.png")))
                .await;
            let errs = app.client.execute("return window.__errs || []", vec![]);
            if let Ok(Ok(errs)) = tokio::time::timeout(bounded, errs).await {
                eprintln!("errors in the window: {errs:#}");
            }
        }
    }
    r
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tray_lists_requests_opens_cards_and_keeps_the_app_running() {
    let Some(mut w) = start("tray_light", None).await.unwrap() else {
        return;
    };
    // Bounded as a whole: a step that hangs (a hidden window's page) fails instead.
    let r = tokio::time::timeout(Duration::from_secs(300), tray_scenario(&w))
        .await
        .unwrap_or_else(|_| Err("the scenario hung".into()));
    on_error(&w, r).await.unwrap();
    // "Quit Agent Desk" in the tray ends the app (its window goes).
    let window = xwindow::app_windows(w.display()).unwrap();
    w.click_menu("Quit Agent Desk").await.unwrap();
    let deadline = std::time::Instant::now() + TRAY;
    while !xwindow::app_windows(w.display()).unwrap().is_empty() {
        assert!(
            std::time::Instant::now() < deadline,
            "the app did not quit: {window:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // The WebDriver session ends with the app.
    drop(w.app.take());
    w.env.passed();
}

async fn tray_scenario(w: &World) -> Result<(), BoxError> {
    // 1. Nothing waits: the menu says so, and opens the app.
    let menu = w
        .tray
        .wait_for_menu(&w.item, "initial", TRAY, |m| !m.is_empty())
        .await?;
    assert_eq!(
        MenuEntry::labels(&menu),
        ["No approvals waiting", "Open Agent Desk", "Quit Agent Desk"],
        "{menu:?}"
    );
    assert!(
        !menu[0].enabled,
        "the placeholder is not clickable: {menu:?}"
    );

    // 2. A request waits: it is listed; a click brings the window to its card, from
    //    elsewhere in the app.
    w.app().button("New session").await?.click().await?;
    w.ask_command("call_1", "tray.txt", "Done one.").await?;
    let (menu, entry) = w.menu_with("touch tray.txt").await?;
    // The exact command, as the card shows it (codex runs it through a shell).
    assert_eq!(
        entry.label, "Run: /bin/bash -lc 'touch tray.txt'",
        "{menu:?}"
    );
    assert_eq!(
        MenuEntry::labels(&menu),
        [entry.label.as_str(), "Open Agent Desk", "Quit Agent Desk"],
        "{menu:?}"
    );
    w.app()
        .find("[data-testid=approvals-entry]")
        .await?
        .click()
        .await?;
    w.app().find("section.approvals-view").await?;
    w.click_menu("touch tray.txt").await?;
    let deadline = std::time::Instant::now() + STREAM;
    let card = loop {
        let v = w
            .app()
            .client
            .execute(
                "if (document.querySelector('section.approvals-view')) return null; \
                 const cards = [...document.querySelectorAll('[role=log][aria-label=Timeline] [role=group][aria-label=Approval]')]; \
                 const c = cards.find((c) => c.textContent.includes('touch tray.txt')); \
                 return c ? c.textContent : null;",
                vec![],
            )
            .await?;
        if let Some(t) = v.as_str() {
            break t.to_string();
        }
        if std::time::Instant::now() > deadline {
            return Err("the tray entry did not open the card".into());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(card.contains("Approve once"), "{card}");
    assert!(
        !w.work.join("tray.txt").exists(),
        "opening the card decides nothing"
    );

    // 3. Closed while the run waits: asked once. Keep running: the window hides, the run
    //    goes on.
    let window = xwindow::shown_app_window(w.display(), TRAY).await?;
    xwindow::request_close(w.display(), window)?;
    let asked = w.dialog(TRAY).await?;
    assert_eq!(asked.as_deref(), Some(ASK));
    w.shot("01-keep-in-tray-question.png").await?;
    w.click_hiding("Keep running in the tray").await?;
    xwindow::wait_viewable(w.display(), window, false, TRAY).await?;
    // The run is still there to decide: from the tray back to the window.
    w.click_menu("Open Agent Desk").await?;
    xwindow::wait_viewable(w.display(), window, true, TRAY).await?;
    assert_eq!(w.dialog_gone(Duration::from_secs(5)).await?, None);
    w.click("Approve once").await?;
    w.wait_for_file("tray.txt").await?;
    w.app()
        .wait_for_text_containing("[role=log][aria-label=Timeline]", "Done one.", STREAM)
        .await?;
    w.tray
        .wait_for_menu(&w.item, "empty again", TRAY, |m| {
            MenuEntry::find(m, "No approvals waiting").is_some()
        })
        .await?;

    // 4. Remembered: the next close while a run is active hides without asking.
    w.ask_command("call_2", "second.txt", "Done two.").await?;
    xwindow::request_close(w.display(), window)?;
    xwindow::wait_viewable(w.display(), window, false, TRAY).await?;
    w.click_menu("Open Agent Desk").await?;
    xwindow::wait_viewable(w.display(), window, true, TRAY).await?;
    assert_eq!(
        w.dialog(Duration::from_millis(500)).await?,
        None,
        "asked only once"
    );
    w.click("Approve once").await?;
    w.wait_for_file("second.txt").await?;
    w.shot("02-back-from-the-tray.png").await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quitting_from_the_close_question_is_remembered() {
    let Some(mut w) = start("tray_dark", Some("Adwaita:dark")).await.unwrap() else {
        return;
    };
    let r = tokio::time::timeout(Duration::from_secs(300), quit_scenario(&w))
        .await
        .unwrap_or_else(|_| Err("the scenario hung".into()));
    on_error(&w, r).await.unwrap();
    drop(w.app.take());
    // The answer is stored (the app is gone: its database can be opened here).
    let desk = agentdesk_core::Desk::open(&w.env.data_dir).await.unwrap();
    assert_eq!(
        desk.tray_settings().await.unwrap().keep_running_in_tray,
        Some(false)
    );
    desk.close().await;
    w.env.passed();
}

async fn quit_scenario(w: &World) -> Result<(), BoxError> {
    w.app().button("New session").await?.click().await?;
    w.ask_command("call_1", "never.txt", "Never.").await?;
    let window = xwindow::shown_app_window(w.display(), TRAY).await?;
    xwindow::request_close(w.display(), window)?;
    assert_eq!(w.dialog(TRAY).await?.as_deref(), Some(ASK));
    w.shot("01-keep-in-tray-question-dark.png").await?;
    // Cancel keeps the window and decides nothing.
    w.click("Cancel").await?;
    assert_eq!(w.dialog(Duration::from_millis(300)).await?, None);
    assert!(xwindow::is_viewable(w.display(), window)?);
    xwindow::request_close(w.display(), window)?;
    assert_eq!(w.dialog(TRAY).await?.as_deref(), Some(ASK));
    w.app().button("Quit Agent Desk").await?;
    // The app may be gone before the click's answer comes back: what counts is that it
    // quits (its window goes), checked below.
    if let Err(e) = w.click_hiding("Quit Agent Desk").await {
        eprintln!("the click on Quit was cut short (the app ended): {e}");
    }
    let deadline = std::time::Instant::now() + TRAY;
    while !xwindow::app_windows(w.display())?.is_empty() {
        if std::time::Instant::now() > deadline {
            return Err("the app did not quit".into());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(!w.work.join("never.txt").exists());
    Ok(())
}
