//! The chat window, end to end: the real app under Xvfb (tauri-driver + WebKitWebDriver), the
//! real pinned `codex` against the fake Responses API on 127.0.0.1, the real SQLite file.
//! A user opens a workspace, starts a session, sends a message, watches the answer stream,
//! approves a file change from its card, sees the diff, and finds the history after a restart
//! (in the light and the dark look). Screenshots of every step land in
//! `target/test-artifacts/chat_codex/`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::time::Duration;

use agentdesk_tests::bench::{find_watchdog, memory_kb, private_kb};
use agentdesk_tests::e2e::{
    app_with_engine, artifacts_dir, prepare_codex_workspace, AppEnv, AppSession, BoxError, Desktop,
    Prerequisites, APPROVAL_CARD,
};
use agentdesk_tests::fake_responses::{FakeResponses, Reply};

const TEST: &str = "chat_codex";
const STREAM: Duration = Duration::from_secs(60);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_session_streams_asks_shows_the_diff_and_keeps_its_history() {
    let Some((_turn, pre, bin)) = app_with_engine(TEST, "CODEX_BIN", "chat window E2E").await
    else {
        return;
    };
    scenario(pre, bin).await.unwrap();
}

/// A workspace with a default Codex profile pointed at the fake model, as a user who set up
/// a profile would have it.
async fn prepare(env: &AppEnv, bin: PathBuf, fake: &FakeResponses) -> Result<PathBuf, BoxError> {
    let ws = prepare_codex_workspace(env, bin, fake.base_url(), |_| {}).await?;
    ws.desk.close().await;
    Ok(ws.work)
}

async fn timeline_text(app: &AppSession, contains: &str) -> Result<String, BoxError> {
    app.wait_for_timeline(contains, STREAM).await
}

async fn scenario(pre: Prerequisites, bin: PathBuf) -> Result<(), BoxError> {
    let artifacts = artifacts_dir(TEST);
    let app_bin = pre.app.clone();
    let desktop = Desktop::start(pre)?;
    let mut env = AppEnv::new(TEST)?;
    let fake = FakeResponses::start().await?;
    let work = prepare(&env, bin, &fake).await?;

    fake.push(Reply::apply_patch(
        "call_patch",
        "*** Begin Patch\n*** Add File: added.txt\n+hello from the chat window\n*** End Patch\n",
    ));
    let answer = [
        "I added **added.txt** ",
        "with a greeting.\n\n",
        "| file | lines |\n|---|---|\n| added.txt | 1 |\n\n",
        "```sh\ncat added.txt\n```\n",
    ];
    fake.push(Reply::text(&answer));

    // Light: open the workspace's new session and send.
    let app = desktop.launch(&env, "first-run", &artifacts).await?;
    app.collect_js_errors().await?;
    let listed = app.find("[data-testid=workspace-item]").await;
    app.screenshot(&artifacts.join("00-start.png")).await?;
    listed?;
    app.button("New session").await?.click().await?;
    let message = app.find("textarea[aria-label=Message]").await;
    let message = app.on_error(&artifacts, message).await?;
    message.send_keys("Add a file that says hello").await?;
    app.screenshot(&artifacts.join("01-composer.png")).await?;
    app.button("Send").await?.click().await?;

    // The file change is asked on a card that shows the path and the diff.
    let card_text = app.xpath_text(APPROVAL_CARD).await;
    let card_text = app.on_error(&artifacts, card_text).await?;
    assert!(card_text.contains("added.txt"), "card: {card_text}");
    assert!(
        !work.join("added.txt").exists(),
        "nothing is written before the approval"
    );
    app.screenshot(&artifacts.join("02-approval-card.png"))
        .await?;
    app.button("Approve once").await?.click().await?;

    // The answer streams in, rendered as Markdown, and the run completes.
    let text = timeline_text(&app, "Completed").await;
    let text = app.on_error(&artifacts, text).await?;
    assert!(
        text.contains("I added added.txt with a greeting."),
        "{text}"
    );
    assert!(
        text.contains("hello from the chat window"),
        "the diff: {text}"
    );
    // The GFM table is a real table (the diff is one too: look for the one with the header).
    app.wait_for_text_containing("[role=log] table", "lines", STREAM)
        .await?;
    app.find("[role=log] pre code").await?;
    assert_eq!(
        std::fs::read_to_string(work.join("added.txt"))?,
        "hello from the chat window\n"
    );
    // The decided card says so.
    let decided = app.xpath_text(APPROVAL_CARD).await?;
    assert!(
        decided.to_lowercase().contains("approved"),
        "card: {decided}"
    );
    app.screenshot(&artifacts.join("03-completed-light.png"))
        .await?;
    // The orphan watchdog is forked first thing at start, before the app has grown: it holds
    // little of the app's memory (forked at the first engine spawn it held the whole heap of
    // that time, 38 MB, a growing share of it private).
    let watchdog = find_watchdog(&app_bin, &env.data_dir).ok_or("no orphan watchdog")?;
    let (pss_kb, anon_kb) = memory_kb(watchdog);
    let private = private_kb(watchdog);
    println!("orphan watchdog: PSS {pss_kb} kB, anonymous {anon_kb} kB, private {private} kB");
    assert!(
        private < 4 * 1024,
        "the watchdog holds {private} kB of its own (PSS {pss_kb} kB)"
    );
    assert_eq!(
        fake.requests().len(),
        2,
        "one turn: the patch, then the answer"
    );

    // A second turn in the same session: a command, approved from its card, which shows the
    // exact command.
    fake.push(Reply::exec_command("call_exec", "touch from-command.txt"));
    fake.push(Reply::text(&["Touched it."]));
    app.send_message("Now touch a file").await?;
    let card_text = app
        .xpath_text(
            "//*[@role='group' and @aria-label='Approval' and contains(., 'from-command.txt')]",
        )
        .await;
    let card_text = app.on_error(&artifacts, card_text).await?;
    assert!(
        card_text.contains("touch from-command.txt"),
        "card: {card_text}"
    );
    app.screenshot(&artifacts.join("03b-command-card.png"))
        .await?;
    app.button("Approve once").await?.click().await?;
    let text = timeline_text(&app, "Touched it.").await;
    app.on_error(&artifacts, text).await?;
    let deadline = std::time::Instant::now() + STREAM;
    while !work.join("from-command.txt").exists() {
        assert!(
            std::time::Instant::now() < deadline,
            "the approved command did not run"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    app.quit().await?;

    // Restart, in the dark look: the session and its history are there.
    env.extra
        .push(("GTK_THEME".to_string(), "Adwaita:dark".to_string()));
    let app = desktop.launch(&env, "second-run", &artifacts).await?;
    app.find("[data-testid=session-item]")
        .await?
        .click()
        .await?;
    let text = timeline_text(&app, "I added added.txt").await?;
    assert!(text.contains("Completed"), "{text}");
    app.screenshot(&artifacts.join("04-history-dark.png"))
        .await?;
    app.quit().await?;
    env.passed();
    Ok(())
}
