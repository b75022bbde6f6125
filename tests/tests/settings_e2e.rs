//! Settings, the first-run screen and the keyboard sheet (issue 13 items 4–6), end to end:
//! the real app under Xvfb with no engine on PATH, the real pinned `codex` chosen in
//! Settings with the native file picker (a GTK dialog driven with xdotool: the only way to
//! choose an executable, issue 19 item 7; the page naming a path is refused), and a run
//! against the fake Responses API on 127.0.0.1. Screenshots of every screen, light and dark,
//! land in `target/test-artifacts/settings/`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use agentdesk_tests::e2e::{
    artifacts_dir, prepare_codex_workspace, prerequisites, AppEnv, AppSession, BoxError, Desktop,
};
use agentdesk_tests::fake_responses::{FakeResponses, Reply};
use agentdesk_tests::real::engine_bin;

const TEST: &str = "settings";
const WAIT: Duration = Duration::from_secs(60);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn first_run_then_settings_points_at_codex_and_a_session_runs() {
    let Some(pre) = prerequisites(TEST) else {
        return;
    };
    let Some(bin) = engine_bin("CODEX_BIN", "settings E2E") else {
        return;
    };
    // Without a display it fails, but it runs: that is all this checks.
    let xdotool = Command::new("xdotool").arg("version").output();
    if xdotool.is_err() {
        panic!("settings E2E needs xdotool (src-tauri/scripts/setup-linux.sh --test installs it)");
    }
    // A WebDriver call that never answers must fail the test, not hang the suite.
    tokio::time::timeout(Duration::from_secs(420), scenario(pre, bin))
        .await
        .expect("the settings scenario took over 7 minutes")
        .unwrap();
}

/// The text of the first element matching `css` (waits for it).
async fn text_of(app: &AppSession, css: &str) -> Result<String, BoxError> {
    Ok(app
        .find(css)
        .await?
        .prop("textContent")
        .await?
        .unwrap_or_default())
}

/// The native file chooser titled `title`: type `path` into its location field and accept,
/// as a user would (Ctrl+L, the path, Enter). There is no window manager under Xvfb, so
/// the dialog gets the focus explicitly.
async fn pick_in_native_dialog(display: &str, title: &str, path: &Path) -> Result<(), BoxError> {
    let deadline = Instant::now() + Duration::from_secs(30);
    let window = loop {
        let out = Command::new("xdotool")
            .env("DISPLAY", display)
            .args(["search", "--onlyvisible", "--name", title])
            .output()?;
        let found = String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| l.trim().parse::<u64>().ok())
            .next_back();
        if let Some(id) = found {
            break id;
        }
        if Instant::now() > deadline {
            return Err(format!("no file chooser titled {title:?} appeared").into());
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    // The dialog builds its widgets after it maps: give it a moment before typing.
    tokio::time::sleep(Duration::from_millis(800)).await;
    let xdo = |args: &[&str]| -> Result<(), BoxError> {
        let status = Command::new("xdotool")
            .env("DISPLAY", display)
            .args(args)
            .status()?;
        if !status.success() {
            return Err(format!("xdotool {args:?}: {status}").into());
        }
        Ok(())
    };
    let id = window.to_string();
    xdo(&["windowfocus", "--sync", &id])?;
    xdo(&["key", "--clearmodifiers", "ctrl+l"])?;
    tokio::time::sleep(Duration::from_millis(300)).await;
    xdo(&["type", "--delay", "15", &path.display().to_string()])?;
    tokio::time::sleep(Duration::from_millis(300)).await;
    xdo(&["key", "Return"])?;
    Ok(())
}

/// Call a shell command from the page, as any script in the window could; the answer as
/// JSON text, or `ERROR <error JSON>`. Started by one script and read by polling, so a slow
/// answer cannot block the WebDriver session.
async fn invoke(
    app: &AppSession,
    command: &str,
    args: serde_json::Value,
) -> Result<String, BoxError> {
    const START: &str = r#"
        const [cmd, args] = arguments;
        window.__invokeAnswer = null;
        window.__TAURI_INTERNALS__.invoke(cmd, args).then(
          (r) => { window.__invokeAnswer = JSON.stringify(r ?? null); },
          (e) => { window.__invokeAnswer = 'ERROR ' + JSON.stringify(e); });
        return true;
    "#;
    app.client
        .execute(START, vec![command.into(), args])
        .await?;
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let v = app
            .client
            .execute("return window.__invokeAnswer", vec![])
            .await?;
        if let Some(text) = v.as_str() {
            return Ok(text.to_string());
        }
        if Instant::now() > deadline {
            return Err(format!("{command} did not answer").into());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Press one key in the page (on whatever has the focus), as the keyboard would.
async fn press(app: &AppSession, key: char) -> Result<(), BoxError> {
    use fantoccini::actions::{InputSource, KeyAction, KeyActions};
    let actions = KeyActions::new("keyboard".into())
        .then(KeyAction::Down { value: key })
        .then(KeyAction::Up { value: key });
    app.client.perform_actions(actions).await?;
    app.client.release_actions().await?;
    Ok(())
}

async fn set_theme(app: &AppSession, theme: &str) -> Result<(), BoxError> {
    app.find_xpath(&format!(
        "//fieldset[legend='Theme']//label[normalize-space(.)='{theme}']/input"
    ))
    .await?
    .click()
    .await?;
    let class = format!("theme-{}", theme.to_lowercase());
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let v = app
            .client
            .execute("return document.documentElement.className", vec![])
            .await?;
        if v.as_str().unwrap_or("").contains(&class) {
            return Ok(());
        }
        if Instant::now() > deadline {
            return Err(format!("the root never got {class}: {v}").into());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn scenario(pre: agentdesk_tests::e2e::Prerequisites, bin: PathBuf) -> Result<(), BoxError> {
    let artifacts = artifacts_dir(TEST);
    let desktop = Desktop::start(pre)?;
    let mut env = AppEnv::new(TEST)?;
    let fake = FakeResponses::start().await?;
    fake.push(Reply::text(&["Hello from ", "the configured codex."]));

    // A workspace with a Codex profile, as a user who set one up, but no engine anywhere:
    // the stored path is cleared, PATH has only the system dirs, HOME is empty, and the
    // variables scripts use to point at an engine are empty.
    let ws = prepare_codex_workspace(&env, bin.clone(), fake.base_url(), |spec| {
        spec.system_prompt = Some("answer briefly".into());
    })
    .await?;
    ws.desk
        .set_engine_settings(&agentdesk_core::EngineSettings::default())
        .await?;
    ws.desk.close().await;
    let home = env.root.join("home");
    for (k, v) in [
        ("PATH", "/usr/sbin:/usr/bin:/sbin:/bin".to_string()),
        ("HOME", home.display().to_string()),
        ("AGENTDESK_CODEX_BIN", String::new()),
        ("AGENTDESK_CLAUDE_BIN", String::new()),
    ] {
        env.extra.push((k.into(), v));
    }
    assert!(
        which("codex").is_none() && which("claude").is_none(),
        "an engine in the system dirs would be found: this scenario needs a machine without"
    );

    // Launch 1, light (the system look): nothing installed.
    let app = desktop.launch(&env, "app-1", &artifacts).await?;
    eprintln!("settings E2E: app up");
    app.collect_js_errors().await?;

    // 1. No engine: the first-run screen says what to install, for each engine.
    let first = app.find("[data-testid=first-run]").await;
    let first = app.on_error(&artifacts, first).await?;
    let text = first.prop("textContent").await?.unwrap_or_default();
    eprintln!("settings E2E: first-run screen shown");
    for want in [
        "npm install -g @openai/codex",
        "npm install -g @anthropic-ai/claude-code",
        "Re-check",
    ] {
        assert!(
            text.contains(want),
            "first-run screen lacks {want:?}: {text}"
        );
    }
    app.screenshot(&artifacts.join("00-first-run-light.png"))
        .await?;

    // 2. The shortcuts sheet (`?`), light.
    press(&app, '?').await?;
    let sheet = app.find("[data-testid=shortcuts-sheet]").await;
    let sheet = app
        .on_error(&artifacts, sheet)
        .await?
        .prop("textContent")
        .await?
        .unwrap_or_default();
    for want in [
        "New session",
        "Next session",
        "Search all sessions",
        "Settings",
    ] {
        assert!(sheet.contains(want), "sheet lacks {want:?}: {sheet}");
    }
    app.screenshot(&artifacts.join("01-shortcuts-light.png"))
        .await?;
    press(&app, '\u{e00c}').await?; // Escape
    wait_gone(&app, "[data-testid=shortcuts-sheet]").await?;

    // 3. Settings (from the first-run screen): nothing found. There is no field to type a
    //    path (issue 19 item 7): only the native picker chooses an executable, and a picked
    //    file that is not one is refused next to the button.
    app.button("Open Settings").await?.click().await?;
    let codex = app.find("[data-testid=engine-codex]").await;
    app.on_error(&artifacts, codex).await?;
    app.wait_for_text("[data-testid=engine-codex-path]", "not found")
        .await?;
    let typed = app
        .client
        .execute(
            "return document.querySelectorAll('[data-testid=settings] input[type=text]').length",
            vec![],
        )
        .await?;
    assert_eq!(typed.as_u64(), Some(0), "Settings has a typed path field");
    let notes = env.root.join("notes.txt");
    std::fs::write(&notes, "not a program\n")?;
    let choose = app.button("Choose the Codex executable").await?;
    choose.click().await?;
    pick_in_native_dialog(
        desktop.display_name(),
        "Choose the codex executable",
        &notes,
    )
    .await?;
    let error = app.find("[data-testid=engine-codex-path-error]").await;
    let error = app
        .on_error(&artifacts, error)
        .await?
        .prop("textContent")
        .await?
        .unwrap_or_default();
    assert!(
        error.contains(&format!("{} is not an executable file", notes.display())),
        "{error}"
    );
    assert_eq!(
        choose.attr("aria-invalid").await?.as_deref(),
        Some("true"),
        "the button is marked invalid"
    );
    // What a compromised page would do: name an executable itself. Refused by the shell.
    let answer = invoke(
        &app,
        "set_engine_path",
        serde_json::json!({"program": "codex", "path": "/bin/sh"}),
    )
    .await?;
    assert!(
        answer.starts_with("ERROR") && answer.contains("file picker"),
        "{answer}"
    );
    app.screenshot(&artifacts.join("02-settings-bad-path-light.png"))
        .await?;

    // 4. Dark, chosen in Settings (a class on the root): the same screens.
    set_theme(&app, "Dark").await?;
    app.screenshot(&artifacts.join("03-settings-bad-path-dark.png"))
        .await?;
    press(&app, '?').await?;
    app.find("[data-testid=shortcuts-sheet]").await?;
    app.screenshot(&artifacts.join("04-shortcuts-dark.png"))
        .await?;
    press(&app, '\u{e00c}').await?;
    wait_gone(&app, "[data-testid=shortcuts-sheet]").await?;

    // 5. A run refused because the engine is missing says so in the session, with a way
    //    to Settings.
    app.button("New session").await?.click().await?;
    let message = app.find("textarea[aria-label=Message]").await;
    app.on_error(&artifacts, message)
        .await?
        .send_keys("hello")
        .await?;
    app.button("Send").await?.click().await?;
    let failed = app.wait_for_last_run_status("Failed", WAIT).await;
    app.on_error(&artifacts, failed).await?;
    let run_line = text_of(&app, "[data-testid=run-status]").await?;
    assert!(
        run_line.contains("codex not found") && run_line.contains("engine_missing"),
        "{run_line}"
    );
    app.screenshot(&artifacts.join("05-run-refused-dark.png"))
        .await?;
    app.button("Open Settings").await?.click().await?;
    app.find("[data-testid=settings]").await?;
    app.quit().await?;

    // Launch 2: the dark theme was stored; point Settings at codex with the native picker.
    let app = desktop.launch(&env, "app-2", &artifacts).await?;
    app.collect_js_errors().await?;
    let first = app.find("[data-testid=first-run]").await;
    app.on_error(&artifacts, first).await?;
    let class = app
        .client
        .execute("return document.documentElement.className", vec![])
        .await?;
    assert!(
        class.as_str().unwrap_or("").contains("theme-dark"),
        "the stored theme applies at start: {class}"
    );
    app.screenshot(&artifacts.join("06-first-run-dark.png"))
        .await?;
    app.button("Open Settings").await?.click().await?;
    app.button("Choose the Codex executable")
        .await?
        .click()
        .await?;
    pick_in_native_dialog(desktop.display_name(), "Choose the codex executable", &bin).await?;
    let version = app
        .wait_for_text_containing("[data-testid=engine-codex-version]", "0.169.0", WAIT)
        .await;
    app.on_error(&artifacts, version).await?;
    let path = text_of(&app, "[data-testid=engine-codex-path]").await?;
    assert!(path.contains(&bin.display().to_string()), "{path}");
    // The login probe ran (this HOME has no codex login): Settings says how to log in.
    app.wait_for_text_containing("[data-testid=engine-codex-login]", "not logged in", WAIT)
        .await?;
    let codex = text_of(&app, "[data-testid=engine-codex]").await?;
    assert!(codex.contains("codex login"), "{codex}");
    // Its account, asked of codex on demand (issue 24): not logged in, the logins the app
    // can start. An API key typed in the window is only used once the user confirms it in a
    // native dialog the page cannot answer: dismissed here, nothing is logged in.
    app.button("Check Codex account").await?.click().await?;
    let account = app
        .wait_for_text_containing("[data-testid=engine-codex-account]", "not logged in", WAIT)
        .await;
    app.on_error(&artifacts, account).await?;

    app.button("Log in to Codex in the browser").await?;
    app.button("Use an API key for Codex")
        .await?
        .click()
        .await?;
    // (Named "Codex API key" by its label.)
    app.find("[data-testid=engine-codex] input[type=password]")
        .await?
        .send_keys("sk-typed-in-the-window")
        .await?;
    app.screenshot(&artifacts.join("07-settings-codex-found-dark.png"))
        .await?;
    app.button("Log in with this key").await?.click().await?;
    agentdesk_tests::xwindow::dismiss_native_dialog(
        desktop.display_name(),
        "Confirm the engine's login",
    )
    .await?;
    app.wait_for_text_containing(
        "[data-testid=engine-codex-account-error]",
        "not confirmed",
        WAIT,
    )
    .await?;
    let auth = std::fs::read_to_string(home.join(".codex/auth.json")).unwrap_or_default();
    assert!(
        !auth.contains("sk-typed"),
        "logged in without a confirmation"
    );
    set_theme(&app, "Light").await?;
    app.screenshot(&artifacts.join("08-settings-codex-found-light.png"))
        .await?;
    app.client
        .execute(
            "document.querySelector('[data-testid=engine-codex]').scrollIntoView({block: 'start'})",
            vec![],
        )
        .await?;
    app.screenshot(&artifacts.join("08b-settings-key-not-confirmed-light.png"))
        .await?;
    // "Compact database" (nothing is running): it says what it gave back.
    app.press("Compact database").await?;
    app.wait_for_text_containing(
        "[aria-labelledby=settings-data] [role=status]",
        "Compacted: ",
        WAIT,
    )
    .await?;
    app.client
        .execute(
            "document.getElementById('settings-data').scrollIntoView({block: 'start'})",
            vec![],
        )
        .await?;
    app.screenshot(&artifacts.join("08c-settings-compacted-light.png"))
        .await?;
    set_theme(&app, "Dark").await?;
    app.client
        .execute(
            "document.getElementById('settings-data').scrollIntoView({block: 'start'})",
            vec![],
        )
        .await?;
    app.screenshot(&artifacts.join("08d-settings-compacted-dark.png"))
        .await?;
    // The engines' memory limit, under the engines: empty (the default), named for what it does.
    let memory = "Stop an engine using more memory than (MB)";
    app.find_xpath(&format!("//label[normalize-space(span)='{memory}']/input"))
        .await?;
    let scroll_to_memory =
        "document.querySelector('.settings-memory').scrollIntoView({block: 'center'})";
    app.client.execute(scroll_to_memory, vec![]).await?;
    app.screenshot(&artifacts.join("08e-settings-memory-limit-dark.png"))
        .await?;
    set_theme(&app, "Light").await?;
    app.client.execute(scroll_to_memory, vec![]).await?;
    app.screenshot(&artifacts.join("08f-settings-memory-limit-light.png"))
        .await?;
    app.quit().await?;

    // Launch 3: an engine is found, so no first-run screen; a session runs with the engine
    // chosen in Settings (this profile has its own endpoint and key: no login needed).
    let app = desktop.launch(&env, "app-3", &artifacts).await?;
    app.collect_js_errors().await?;
    app.find("[data-testid=workspace-item] .workspace-select")
        .await?
        .click()
        .await?;
    app.find("[data-testid=selected-workspace-path]").await?;
    // The start-up check has answered by now (it runs `--version` once per engine).
    tokio::time::sleep(Duration::from_secs(2)).await;
    let first_run = app
        .client
        .execute(
            "return document.querySelectorAll('[data-testid=first-run]').length",
            vec![],
        )
        .await?;
    assert_eq!(first_run.as_u64(), Some(0), "no first-run screen any more");
    app.button("New session").await?.click().await?;
    let message = app.find("textarea[aria-label=Message]").await?;
    message.send_keys("Say hello").await?;
    app.button("Send").await?.click().await?;
    let done = app.wait_for_last_run_status("Completed", WAIT).await;
    app.on_error(&artifacts, done).await?;
    app.wait_for_text_containing(
        "[role=log][aria-label=Timeline]",
        "Hello from the configured codex.",
        WAIT,
    )
    .await?;
    let seen = fake.requests();
    assert!(
        seen.iter()
            .any(|r| r.body.to_string().contains("answer briefly")),
        "the profile's system prompt reached the model"
    );
    app.screenshot(&artifacts.join("09-session-ran-light.png"))
        .await?;

    // 9. The stored choices outlive the window: theme and path are in the database.
    app.quit().await?;
    let desk = agentdesk_core::Desk::open(&env.data_dir).await?;
    // The picked executable, never the path the page named.
    assert_eq!(
        desk.engine_settings().await?.program("codex").bin,
        Some(bin.clone())
    );
    assert_eq!(
        desk.ui_settings().await?.theme,
        agentdesk_protocol::ui::Theme::Light
    );
    desk.close().await;
    env.passed();
    Ok(())
}

async fn wait_gone(app: &AppSession, css: &str) -> Result<(), BoxError> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let n = app
            .client
            .execute(
                "return document.querySelectorAll(arguments[0]).length",
                vec![css.into()],
            )
            .await?;
        if n.as_u64() == Some(0) {
            return Ok(());
        }
        if Instant::now() > deadline {
            return Err(format!("{css} still shown").into());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Whether `name` is an executable in the system dirs the app is given.
fn which(name: &str) -> Option<PathBuf> {
    ["/usr/sbin", "/usr/bin", "/sbin", "/bin"]
        .iter()
        .map(|d| Path::new(d).join(name))
        .find(|p| p.is_file())
}
