//! The engines' own histories in the real window (issue 22): the real app under Xvfb
//! (tauri-driver + WebKitWebDriver) watching the Claude Code config dir the profile's `claude`
//! uses. A session the user runs in a terminal (`claude -p`, the real pinned CLI against the
//! fake Messages API) shows up in the sidebar while the app is open, named as from Claude
//! Code; search finds a word from it; it is continued from the window and the model receives
//! the terminal's turn; Settings lists the source with what its scans found. Once in the light
//! look and once in the dark one; screenshots land in `target/test-artifacts/history_*/`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use agentdesk_tests::e2e::{prepare_claude_workspace, BoxError, WindowTest};
use agentdesk_tests::fake_messages::{FakeMessages, Reply, FAKE_MODEL};
use agentdesk_tests::histories::run_terminal;
use agentdesk_tests::light_and_dark;

const WAIT: Duration = Duration::from_secs(30);
const SESSION: &str = "[data-testid=session-item]";

light_and_dark!(
    terminal_session_appears_is_found_and_continued_light,
    terminal_session_appears_is_found_and_continued_dark,
    "history",
    ("CLAUDE_BIN", "terminal sessions window E2E (claude)", 180),
    scenario
);

async fn scenario(mut w: WindowTest<'_>) -> Result<(), BoxError> {
    let fake = FakeMessages::start().await?;
    let p = prepare_claude_workspace(&w.env, w.bin.clone(), fake.base_url()).await?;
    let home = w.env.root.join("home");
    // The app reads the Claude Code history its profile and the terminal write; no Codex
    // history here (a folder of its own, empty).
    w.env.extra.extend([
        (
            "CLAUDE_CONFIG_DIR".to_owned(),
            p.claude_config.display().to_string(),
        ),
        (
            "CODEX_HOME".to_owned(),
            w.env.root.join("codex-home").display().to_string(),
        ),
    ]);
    let artifacts = &w.artifacts;
    let shot = |name: &str| artifacts.join(format!("{name}.png"));
    let app = w.desktop.launch(&w.env, "app", artifacts).await?;
    app.collect_js_errors().await?;
    let listed = app.find("[data-testid=workspace-item]").await;
    app.on_error(artifacts, listed).await?;
    app.button("Re-scan terminal sessions").await?;

    // 1. In a terminal, with the app open: one question, one answer.
    fake.push(Reply::text(&["The zebra number ", "is forty-two."]));
    let mut terminal = tokio::process::Command::new(&w.bin);
    terminal
        .args(["-p", "--model", FAKE_MODEL, "what is the zebra number?"])
        .current_dir(&p.work)
        .env_clear()
        .envs(agentdesk_tests::real::claude_env(
            &home,
            &w.env.root.join("t"),
        ))
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("ANTHROPIC_BASE_URL", fake.base_url())
        .env("ANTHROPIC_API_KEY", "dummy");
    std::fs::create_dir_all(w.env.root.join("t"))?;
    run_terminal(terminal).await;

    // 2. It shows up in the sidebar by itself, named as from Claude Code.
    let item = app
        .wait_for_text_containing(SESSION, "what is the zebra number?", WAIT)
        .await;
    let item = app.on_error(artifacts, item).await?;
    assert!(item.contains("from Claude Code"), "{item}");
    app.screenshot(&shot("01-appeared")).await?;

    // 3. Search finds a word of its answer and opens it.
    let search = app.find("input[aria-label='Search']").await?;
    search.send_keys("forty").await?;
    let hit = app
        .wait_for_text_containing("[data-testid=search-hit]", "zebra", WAIT)
        .await;
    app.on_error(artifacts, hit).await?;
    app.screenshot(&shot("02-search")).await?;
    app.find("[data-testid=search-hit]").await?.click().await?;
    app.wait_for_timeline("is forty-two.", WAIT).await?;

    // 4. Continued from the window: the model gets the terminal's turn along.
    fake.push(Reply::text(&["Still ", "forty-two."]));
    app.send_message("and the giraffe number?").await?;
    app.run_ends(artifacts, "Completed", WAIT).await?;
    app.wait_for_timeline("Still forty-two.", WAIT).await?;
    let seen = fake
        .model_requests()
        .pop()
        .ok_or("no model request")?
        .transcript();
    assert!(
        seen.contains("what is the zebra number?") && seen.contains("is forty-two."),
        "the model saw the terminal's turn: {seen}"
    );
    app.screenshot(&shot("03-continued")).await?;

    // 5. Settings lists the source, its folder and its last scan.
    app.button("Settings").await?.click().await?;
    let source = app
        .wait_for_text_containing(
            "[data-testid=history-source-claude-code]",
            "Show sessions from Claude Code",
            WAIT,
        )
        .await?;
    assert!(
        source.contains(&p.claude_config.display().to_string()),
        "{source}"
    );
    app.find("[data-testid=history-report-claude-code]").await?;
    let section = app
        .find_xpath("//section[@aria-labelledby='settings-histories']")
        .await?;
    section.click().await.ok();
    app.client
        .execute(
            "document.getElementById('settings-histories').scrollIntoView()",
            vec![],
        )
        .await?;
    app.screenshot(&shot("04-settings")).await?;
    app.quit().await?;
    w.env.passed();
    Ok(())
}
