//! An ACP session in the real window: the real app under Xvfb (tauri-driver +
//! WebKitWebDriver), the real pinned ACP agent `opencode` (the `opencode` preset of an ACP
//! profile, its binary set in the engine settings) against the fake Chat Completions server
//! on 127.0.0.1, the real SQLite file. A user chats (the streamed answer is shown), approves a
//! file write from its card (the tool call is in the timeline, the file is written, the run
//! completes) and denies a second one (no file, the run ends cleanly) — once in the light look
//! and once in the dark one. No opencode process outlives the app. Screenshots of every step
//! land in `target/test-artifacts/chat_acp_{light,dark}/`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use agentdesk_tests::e2e::{AppSession, BoxError, WindowTest};
use agentdesk_tests::e2e_acp::{
    opencode_processes, prepare_acp_workspace, send_asking_to_write, wait_no_opencode, AcpWorkspace,
};
use agentdesk_tests::fake_chat::{FakeChat, Reply};
use agentdesk_tests::light_and_dark;
use agentdesk_tests::real::OPENCODE_BIN;

const STREAM: Duration = Duration::from_secs(60);
/// The head line of a file-change tool call (its tool's name and status badge).
const WRITE_CALL: &str = ".tool-card.tool-file_change .tool-head";

light_and_dark!(
    acp_session_chat_approve_deny_light,
    acp_session_chat_approve_deny_dark,
    "chat_acp",
    (OPENCODE_BIN, "chat window E2E (ACP, opencode)", 240),
    scenario
);

/// Wait (bounded) until there are `n` approval cards; their texts.
async fn wait_cards(app: &AppSession, n: usize) -> Result<Vec<String>, BoxError> {
    let deadline = std::time::Instant::now() + STREAM;
    loop {
        let seen = app.approval_cards().await?;
        if seen.len() >= n {
            return Ok(seen);
        }
        if std::time::Instant::now() > deadline {
            return Err(format!("{} approval cards, want {n}: {seen:?}", seen.len()).into());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn scenario(mut w: WindowTest<'_>) -> Result<(), BoxError> {
    let fake = FakeChat::start().await?;
    let p = prepare_acp_workspace(&w.env, w.bin.clone(), &fake).await?;
    p.desk.close().await;
    let app = w.desktop.launch(&w.env, "app", &w.artifacts).await?;
    app.collect_js_errors().await?;
    let r = steps(&app, &fake, &p, &w.artifacts).await;
    let r = app.on_error(&w.artifacts, r).await;
    if r.is_err() {
        eprintln!(
            "model requests: {:#?}",
            fake.requests()
                .iter()
                .map(|q| q.transcript())
                .collect::<Vec<_>>()
        );
    }
    r?;
    app.quit().await?;
    // The app is gone: so is its agent (and anything the agent started).
    wait_no_opencode(&p.opencode_config, Duration::from_secs(15)).await?;
    w.env.passed();
    Ok(())
}

async fn steps(
    app: &AppSession,
    fake: &FakeChat,
    p: &AcpWorkspace,
    artifacts: &std::path::Path,
) -> Result<(), BoxError> {
    let work = &p.work;
    let shot = |name: &str| artifacts.join(format!("{name}.png"));
    app.open_new_session(artifacts).await?;
    app.screenshot(&shot("00-new-session")).await?;

    // 1. A chat: the streamed answer is shown, the run completes.
    fake.push(Reply::text(&["Hello ", "from the ", "ACP agent."]));
    app.send_message("Say hello").await?;
    app.wait_for_timeline("Hello from the ACP agent.", STREAM)
        .await?;
    app.wait_for_last_run_status("Completed", STREAM).await?;
    app.screenshot(&shot("01-answered")).await?;

    // 2. The model writes a file with opencode's `write` tool: the call is in the timeline,
    // the card asks; approved from the card, the file is written and the run completes.
    let approved = work.join("approved.txt");
    let write = ("call_w1", approved.as_path(), "hello from fake model\n");
    send_asking_to_write(app, fake, write, &["Wrote ", "approved.txt."]).await?;
    let asked = wait_cards(app, 1).await?;
    assert!(asked[0].contains("approved.txt"), "card: {asked:?}");
    assert!(
        asked[0].contains("hello from fake model"),
        "the card shows the change: {asked:?}"
    );
    // The tool call is in the timeline: opencode's `write`, running while it asks.
    let call = app
        .wait_for_text_containing(WRITE_CALL, "write", STREAM)
        .await?;
    assert!(call.contains("running"), "tool call: {call:?}");
    let timeline = app.wait_for_timeline("I will use a tool.", STREAM).await?;
    assert!(!approved.exists(), "written before the approval");
    assert!(
        !opencode_processes(&p.opencode_config).is_empty(),
        "the agent runs while it asks"
    );
    eprintln!("timeline while asking: {timeline}");
    app.screenshot(&shot("02-approval-card")).await?;
    app.click_retrying("Approve once").await?;
    app.wait_for_timeline("Wrote approved.txt.", STREAM).await?;
    app.wait_for_last_run_status("Completed", STREAM).await?;
    app.wait_for_text_containing(WRITE_CALL, "done", STREAM)
        .await?;
    assert_eq!(
        std::fs::read_to_string(&approved)?,
        "hello from fake model\n"
    );
    let decided = app.approval_cards().await?;
    assert!(
        decided[0].to_lowercase().contains("approved once by you"),
        "card: {decided:?}"
    );
    app.screenshot(&shot("03-approved")).await?;

    // 3. A second write, denied from the card: no file, the run ends cleanly (opencode ends
    // the turn after a rejection).
    let denied = work.join("denied.txt");
    let write = ("call_w2", denied.as_path(), "nope\n");
    send_asking_to_write(app, fake, write, &["Not used."]).await?;
    let asked = wait_cards(app, 2).await?;
    assert!(asked[1].contains("denied.txt"), "card: {asked:?}");
    app.screenshot(&shot("04-second-card")).await?;
    app.click_retrying("Deny").await?;
    app.wait_for_last_run_status("Completed", STREAM).await?;
    let decided = app.approval_cards().await?;
    assert!(
        decided[1].to_lowercase().contains("denied by you"),
        "card: {decided:?}"
    );
    assert!(!denied.exists(), "written although denied");
    app.wait_for_text_containing(WRITE_CALL, "denied", STREAM)
        .await?;
    let timeline = app.wait_for_timeline("denied.txt", STREAM).await?;
    assert!(!timeline.contains("Not used."), "{timeline}");
    app.screenshot(&shot("05-denied")).await?;
    Ok(())
}
