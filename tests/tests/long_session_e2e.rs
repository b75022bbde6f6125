//! A long session in the real window (issue 26 item 5): the real app under Xvfb (tauri-driver +
//! WebKitWebDriver) opens a session of 6,000 stored items — three times the pages the timeline
//! keeps at once — and the user scrolls from its newest item to its first (older pages come in,
//! the newest go), presses "Jump to latest" (the live stream opened again), goes back to the
//! start and then scrolls down to the newest item again (newer pages come in, the oldest go, and
//! the live end is reached). The page's rows stay bounded all the way. Screenshots land in
//! `target/test-artifacts/long_session/`. The memory of a 200,000-item session scrolled end to
//! end is a bench (`startup_bench`, `STARTUP_BENCH_SCROLL=1`; BENCHMARKS.md).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use agentdesk_tests::bench::{seed_workspace, seeded_text, TIMELINE_SCROLL};
use agentdesk_tests::e2e::{
    artifacts_dir, prerequisites, AppEnv, AppSession, BoxError, Desktop, TIMELINE,
};

const TEST: &str = "long_session";
const ITEMS: usize = 6_000;
const TITLE: &str = "a long session";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_session_scrolls_end_to_end_and_back_with_bounded_rows() {
    let Some(pre) = prerequisites(TEST) else {
        return;
    };
    tokio::time::timeout(Duration::from_secs(420), scenario(pre))
        .await
        .expect("E2E timed out")
        .unwrap();
}

/// Scrolls the timeline `way` ("up" or "down") until `text` is in the page: (steps, the most
/// timeline rows the page held at once).
async fn scroll(app: &AppSession, way: &str, text: String) -> Result<(f64, f64), BoxError> {
    let v = app
        .client
        .execute_async(TIMELINE_SCROLL, vec![text.into(), way.into()])
        .await?;
    let got: Option<[f64; 4]> = serde_json::from_value(v)?;
    let [_ms, steps, _nodes, rows] = got.ok_or("the item was not reached")?;
    Ok((steps, rows))
}

async fn scenario(pre: agentdesk_tests::e2e::Prerequisites) -> Result<(), BoxError> {
    let artifacts = artifacts_dir(TEST);
    let desktop = Desktop::start(pre)?;
    let mut env = AppEnv::new(TEST)?;
    seed_workspace(&env.root, &env.data_dir, &[("long", TITLE, ITEMS, 1)]).await?;

    let app = desktop.launch(&env, "app", &artifacts).await?;
    app.collect_js_errors().await?;
    app.set_script_timeout(Duration::from_secs(300)).await?;
    let newest = seeded_text(ITEMS - 1);
    let first = seeded_text(0);
    app.find("[data-testid=session-item]")
        .await?
        .click()
        .await?;
    app.wait_for_timeline(&newest, Duration::from_secs(30))
        .await?;

    // Up to the first item: thirty pages come in at the top, the newest leave the bottom.
    let (steps, rows) = scroll(&app, "up", first.clone()).await?;
    assert!(
        steps > 5.0,
        "the first item needed scrolling: {steps} steps"
    );
    assert!(rows < 150.0, "the page held {rows} timeline rows at once");
    app.screenshot(&artifacts.join("01-first-item.png")).await?;

    // Back to the newest at once: the live stream is opened again.
    app.press("Jump to latest").await?;
    app.wait_for_timeline(&newest, Duration::from_secs(30))
        .await?;
    app.screenshot(&artifacts.join("02-latest-again.png"))
        .await?;

    // Up again, then down the whole way: newer pages come in, the oldest leave the top.
    scroll(&app, "up", first).await?;
    let (steps, rows) = scroll(&app, "down", newest.clone()).await?;
    assert!(
        steps > 5.0,
        "the newest item needed scrolling: {steps} steps"
    );
    assert!(rows < 150.0, "the page held {rows} timeline rows at once");
    app.screenshot(&artifacts.join("03-newest-again.png"))
        .await?;
    let log = app.css_text(TIMELINE).await?;
    assert!(log.contains(&newest), "the newest item is shown");
    let errs = app
        .client
        .execute("return window.__errs || []", vec![])
        .await?;
    assert_eq!(errs, serde_json::json!([]), "errors in the window");
    app.quit().await?;
    env.passed();
    Ok(())
}
