//! An ACP session in the real window: the real app under Xvfb (tauri-driver +
//! WebKitWebDriver), the real pinned ACP agent `opencode` (the `opencode` preset of an ACP
//! profile, its binary set in the engine settings) against the fake Chat Completions server
//! on 127.0.0.1, the real SQLite file. A user chats (the streamed answer is shown), approves a
//! file write from its card (the tool call is in the timeline, the file is written, the run
//! completes) and denies a second one (no file, the run ends cleanly) — once in the light look
//! and once in the dark one. No opencode process outlives the app. Screenshots of every step
//! land in `target/test-artifacts/chat_acp_{light,dark}/`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::time::Duration;

use agentdesk_tests::e2e::{artifacts_dir, prerequisites, AppEnv, AppSession, BoxError, Desktop};
use agentdesk_tests::e2e_acp::{
    opencode_processes, prepare_acp_workspace, wait_no_opencode, AcpWorkspace,
};
use agentdesk_tests::fake_chat::{FakeChat, Reply};
use agentdesk_tests::real::{engine_bin, OPENCODE_BIN};

const STREAM: Duration = Duration::from_secs(60);
const TIMELINE: &str = "[role=log][aria-label=Timeline]";
/// The head line of a file-change tool call (its tool's name and status badge).
const WRITE_CALL: &str = ".tool-card.tool-file_change .tool-head";
const CARD: &str = "//*[@role='group' and @aria-label='Approval']";

/// One app at a time: two windows and two engines at once starve a 2-core machine.
static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn acp_session_chat_approve_deny_light() {
    run("chat_acp_light", None).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn acp_session_chat_approve_deny_dark() {
    run("chat_acp_dark", Some("Adwaita:dark")).await;
}

async fn run(test: &str, theme: Option<&str>) {
    let _one = SERIAL.lock().await;
    let Some(pre) = prerequisites(test) else {
        return;
    };
    let Some(bin) = engine_bin(OPENCODE_BIN, "chat window E2E (ACP, opencode)") else {
        return;
    };
    tokio::time::timeout(Duration::from_secs(240), scenario(test, theme, pre, bin))
        .await
        .expect("scenario timed out")
        .unwrap();
}

/// The text of every approval card, in order.
async fn cards(app: &AppSession) -> Result<Vec<String>, BoxError> {
    let mut out = Vec::new();
    for c in app
        .client
        .find_all(fantoccini::Locator::XPath(CARD))
        .await?
    {
        out.push(c.prop("textContent").await?.unwrap_or_default());
    }
    Ok(out)
}

/// Wait (bounded) until there are `n` approval cards; their texts.
async fn wait_cards(app: &AppSession, n: usize) -> Result<Vec<String>, BoxError> {
    let deadline = std::time::Instant::now() + STREAM;
    loop {
        let seen = cards(app).await?;
        if seen.len() >= n {
            return Ok(seen);
        }
        if std::time::Instant::now() > deadline {
            return Err(format!("{} approval cards, want {n}: {seen:?}", seen.len()).into());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Click a card's button, retried when the card was re-rendered under the click.
async fn click(app: &AppSession, name: &str) -> Result<(), BoxError> {
    let mut attempt = 0;
    loop {
        attempt += 1;
        match app.button(name).await?.click().await {
            Ok(_) => return Ok(()),
            Err(e) if attempt < 5 => {
                eprintln!("click on {name:?} retried: {e}");
                tokio::time::sleep(Duration::from_millis(300)).await;
            }
            Err(e) => return Err(e.into()),
        }
    }
}

async fn send(app: &AppSession, text: &str) -> Result<(), BoxError> {
    let message = app.find("textarea[aria-label=Message]").await?;
    message.send_keys(text).await?;
    app.button("Send").await?.click().await?;
    Ok(())
}

async fn scenario(
    test: &str,
    theme: Option<&str>,
    pre: agentdesk_tests::e2e::Prerequisites,
    bin: PathBuf,
) -> Result<(), BoxError> {
    let artifacts = artifacts_dir(test);
    let desktop = Desktop::start(pre)?;
    let mut env = AppEnv::new(test)?;
    if let Some(theme) = theme {
        env.extra.push(("GTK_THEME".into(), theme.into()));
    }
    let fake = FakeChat::start().await?;
    let p = prepare_acp_workspace(&env, bin, &fake).await?;
    p.desk.close().await;
    let app = desktop.launch(&env, "app", &artifacts).await?;
    app.collect_js_errors().await?;
    let r = steps(&app, &fake, &p, &artifacts).await;
    let r = app.on_error(&artifacts, r).await;
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
    env.passed();
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
    app.find("[data-testid=workspace-item]").await?;
    app.button("New session").await?.click().await?;
    app.find("textarea[aria-label=Message]").await?;
    app.screenshot(&shot("00-new-session")).await?;

    // 1. A chat: the streamed answer is shown, the run completes.
    fake.push(Reply::text(&["Hello ", "from the ", "ACP agent."]));
    send(app, "Say hello").await?;
    app.wait_for_text_containing(TIMELINE, "Hello from the ACP agent.", STREAM)
        .await?;
    app.wait_for_last_run_status("Completed", STREAM).await?;
    app.screenshot(&shot("01-answered")).await?;

    // 2. The model writes a file with opencode's `write` tool: the call is in the timeline,
    // the card asks; approved from the card, the file is written and the run completes.
    let approved = work.join("approved.txt");
    fake.push(Reply::write(
        "call_w1",
        &approved.to_string_lossy(),
        "hello from fake model\n",
    ));
    fake.push(Reply::text(&["Wrote ", "approved.txt."]));
    send(app, "Create approved.txt").await?;
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
    let timeline = app
        .wait_for_text_containing(TIMELINE, "I will use a tool.", STREAM)
        .await?;
    assert!(!approved.exists(), "written before the approval");
    assert!(
        !opencode_processes(&p.opencode_config).is_empty(),
        "the agent runs while it asks"
    );
    eprintln!("timeline while asking: {timeline}");
    app.screenshot(&shot("02-approval-card")).await?;
    click(app, "Approve once").await?;
    app.wait_for_text_containing(TIMELINE, "Wrote approved.txt.", STREAM)
        .await?;
    app.wait_for_last_run_status("Completed", STREAM).await?;
    app.wait_for_text_containing(WRITE_CALL, "done", STREAM)
        .await?;
    assert_eq!(
        std::fs::read_to_string(&approved)?,
        "hello from fake model\n"
    );
    let decided = cards(app).await?;
    assert!(
        decided[0].to_lowercase().contains("approved once by you"),
        "card: {decided:?}"
    );
    app.screenshot(&shot("03-approved")).await?;

    // 3. A second write, denied from the card: no file, the run ends cleanly (opencode ends
    // the turn after a rejection).
    let denied = work.join("denied.txt");
    fake.push(Reply::write("call_w2", &denied.to_string_lossy(), "nope\n"));
    fake.push(Reply::text(&["Not used."]));
    send(app, "Create denied.txt").await?;
    let asked = wait_cards(app, 2).await?;
    assert!(asked[1].contains("denied.txt"), "card: {asked:?}");
    app.screenshot(&shot("04-second-card")).await?;
    click(app, "Deny").await?;
    app.wait_for_last_run_status("Completed", STREAM).await?;
    let decided = cards(app).await?;
    assert!(
        decided[1].to_lowercase().contains("denied by you"),
        "card: {decided:?}"
    );
    assert!(!denied.exists(), "written although denied");
    app.wait_for_text_containing(WRITE_CALL, "denied", STREAM)
        .await?;
    let timeline = app
        .wait_for_text_containing(TIMELINE, "denied.txt", STREAM)
        .await?;
    assert!(!timeline.contains("Not used."), "{timeline}");
    app.screenshot(&shot("05-denied")).await?;
    Ok(())
}
