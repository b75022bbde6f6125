//! The real app under Xvfb (tauri-driver + WebKitWebDriver), with its page treated as hostile:
//! a script in the window (what an XSS in rendered agent output would run) can neither take
//! the window off the app's page nor make Rust read a file the user did not hand over.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use agentdesk_tests::e2e::{artifacts_dir, prerequisites, AppEnv, AppSession, BoxError, Desktop};

const TEST: &str = "window_guard";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hostile_page_cannot_leave_the_app_or_read_files() {
    let Some(pre) = prerequisites(TEST) else {
        return;
    };
    tokio::time::timeout(Duration::from_secs(180), scenario(pre))
        .await
        .expect("E2E timed out")
        .unwrap();
}

/// Call a command the way the page's script can (`withGlobalTauri` is off, the internals
/// are not); the error (`{code, message}`) or the value comes back as JSON.
async fn invoke(
    app: &AppSession,
    cmd: &str,
    args: serde_json::Value,
) -> Result<Result<serde_json::Value, serde_json::Value>, BoxError> {
    let v = app
        .client
        .execute_async(
            "const [cmd, args, done] = arguments; \
             window.__TAURI_INTERNALS__.invoke(cmd, args).then( \
               (ok) => done({ ok: ok === undefined ? null : ok }), \
               (err) => done({ err: err === undefined ? null : err }))",
            vec![cmd.into(), args],
        )
        .await?;
    Ok(match v.get("err") {
        Some(e) => Err(e.clone()),
        None => Ok(v.get("ok").cloned().unwrap_or_default()),
    })
}

async fn on_the_app(app: &AppSession) -> Result<String, BoxError> {
    let url = app.client.current_url().await?.to_string();
    let alive = app
        .client
        .execute(
            "return typeof window.__TAURI_INTERNALS__ === 'object' && !!document.querySelector('[data-testid=no-workspaces]')",
            vec![],
        )
        .await?;
    assert_eq!(
        alive,
        serde_json::Value::Bool(true),
        "the app page is gone (at {url})"
    );
    Ok(url)
}

async fn scenario(pre: agentdesk_tests::e2e::Prerequisites) -> Result<(), BoxError> {
    let artifacts = artifacts_dir(TEST);
    let desktop = Desktop::start(pre)?;
    let mut env = AppEnv::new(TEST)?;
    let app = desktop.launch(&env, "app", &artifacts).await?;
    app.find("[data-testid=no-workspaces]").await?;
    let home = on_the_app(&app).await?;
    assert!(home.starts_with("tauri://localhost"), "{home}");

    // Item 7: no command reads a path the page names.
    let old = invoke(
        &app,
        "import_attachment_path",
        serde_json::json!({ "path": "/proc/self/environ" }),
    )
    .await?;
    assert!(old.is_err(), "import by path is gone: {old:?}");
    let forged = invoke(
        &app,
        "import_attachment_token",
        serde_json::json!({ "token": "/proc/self/environ" }),
    )
    .await?;
    let err = forged.expect_err("a path is not a token");
    assert_eq!(err["code"], "invalid_input", "{err}");
    let unknown = invoke(
        &app,
        "read_attachment",
        serde_json::json!({ "sha256": "a".repeat(64) }),
    )
    .await?;
    assert!(unknown.is_err(), "{unknown:?}");

    // Item 6: a script (or WebKit's "Open Link") cannot take the window elsewhere.
    for away in [
        "https://example.com/",
        "about:blank",
        "data:text/html,<p>gone</p>",
    ] {
        app.client
            .execute(
                "const [u] = arguments; setTimeout(() => { window.location.href = u; }, 0); return null",
                vec![away.into()],
            )
            .await?;
        tokio::time::sleep(Duration::from_millis(1500)).await;
        let now = on_the_app(&app).await?;
        assert!(
            now.starts_with("tauri://localhost"),
            "went to {now} ({away})"
        );
    }
    // A link the page opens in a new window goes nowhere either.
    app.client
        .execute("window.open('https://example.com/'); return null", vec![])
        .await?;
    tokio::time::sleep(Duration::from_millis(500)).await;
    on_the_app(&app).await?;
    app.screenshot(&artifacts.join("after.png")).await?;
    app.quit().await?;
    env.passed();
    Ok(())
}
