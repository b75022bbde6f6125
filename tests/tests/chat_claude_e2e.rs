//! A Claude session in the real window: the real app under Xvfb (tauri-driver +
//! WebKitWebDriver), the real pinned `claude` against the fake Messages API on 127.0.0.1, the
//! real SQLite file. A user denies a command from its card (with a message), answers the
//! agent's question from the question card, and interrupts a slowly streamed answer with the
//! Interrupt button — once in the light look and once in the dark one. Screenshots of every
//! step land in `target/test-artifacts/chat_claude_{light,dark}/`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use agentdesk_tests::e2e::{
    prepare_claude_workspace, wait_no_processes, BoxError, WindowTest, APPROVAL_CARD,
};
use agentdesk_tests::fake_messages::{FakeMessages, Reply};
use agentdesk_tests::light_and_dark;
use serde_json::json;

const STREAM: Duration = Duration::from_secs(40);

light_and_dark!(
    claude_session_deny_question_interrupt_light,
    claude_session_deny_question_interrupt_dark,
    "chat_claude",
    ("CLAUDE_BIN", "chat window E2E (claude)", 120),
    scenario
);

async fn scenario(mut w: WindowTest<'_>) -> Result<(), BoxError> {
    let fake = FakeMessages::start().await?;
    let p = prepare_claude_workspace(&w.env, w.bin.clone(), fake.base_url()).await?;
    let artifacts = &w.artifacts;
    let shot = |name: &str| artifacts.join(format!("{name}.png"));

    let app = w.desktop.launch(&w.env, "app", artifacts).await?;
    app.collect_js_errors().await?;
    let message = app.open_new_session(artifacts).await?;
    app.screenshot(&shot("00-new-session")).await?;

    // 1. The agent wants to run a command: the card shows it and where; the user says no.
    fake.push(Reply::bash("toolu_e2e_bash", "touch denied.txt"));
    fake.push(Reply::text(&["Understood, ", "I left the files alone."]));
    message.send_keys("Create denied.txt").await?;
    app.button("Send").await?.click().await?;
    let card = app.xpath_text(APPROVAL_CARD).await;
    let text = app.on_error(artifacts, card).await?;
    assert!(text.contains("touch denied.txt"), "card: {text}");
    assert!(
        text.contains(&format!("in {}", p.work.display())),
        "card: {text}"
    );
    app.screenshot(&shot("01-approval-card")).await?;
    app.find("input[aria-label='Reason for denying (optional)']")
        .await?
        .send_keys("not in this repo")
        .await?;
    app.button("Deny").await?.click().await?;
    app.run_ends(artifacts, "Completed", STREAM).await?;
    app.wait_for_timeline("I left the files alone.", STREAM)
        .await?;
    let decided = app.xpath_text(APPROVAL_CARD).await?;
    assert!(
        decided.to_lowercase().contains("denied by you"),
        "card: {decided}"
    );
    assert!(decided.contains("not in this repo"), "card: {decided}");
    assert!(!p.work.join("denied.txt").exists(), "a denied command ran");
    // The model was told no, with the user's words.
    let told = fake.model_requests().pop().ok_or("no model request")?;
    let result = told.blocks_of("tool_result");
    assert!(
        result
            .iter()
            .any(|r| r.to_string().contains("not in this repo")),
        "{result:?}"
    );
    app.screenshot(&shot("02-denied")).await?;

    // 2. The agent asks a question: pick an option and submit; the model gets the answer.
    fake.push(Reply::tool(
        "toolu_e2e_q",
        "AskUserQuestion",
        json!({"questions": [{"question": "Which color do you prefer?", "header": "Color",
            "multiSelect": false, "options": [{"label": "Red", "description": "warm"},
            {"label": "Blue", "description": "calm"}]}]}),
    ));
    fake.push(Reply::text(&["Blue ", "it is."]));
    app.send_message("Ask me which color").await?;
    let question = app
        .xpath_text("//form[@role='group' and @aria-label='Question']")
        .await;
    let qtext = app.on_error(artifacts, question).await?;
    assert!(qtext.contains("Which color do you prefer?"), "{qtext}");
    app.screenshot(&shot("03-question-card")).await?;
    app.find_xpath("//form[@aria-label='Question']//input[@value='Blue']")
        .await?
        .click()
        .await?;
    app.button("Submit answer").await?.click().await?;
    app.run_ends(artifacts, "Completed", STREAM).await?;
    app.wait_for_timeline("Blue it is.", STREAM).await?;
    let last = fake.model_requests().pop().ok_or("no model request")?;
    let answer = last.blocks_of("tool_result");
    assert!(
        answer.iter().any(|r| {
            let r = r.to_string();
            r.contains("Which color do you prefer?") && r.contains("Blue")
        }),
        "{answer:?}"
    );
    let answered = app.css_text("[data-testid=question-card]").await?;
    assert!(answered.contains("Blue"), "answered card: {answered}");
    app.screenshot(&shot("04-answered")).await?;

    // 3. A long answer streams slowly; the user interrupts it with the button.
    fake.push(Reply::slow_text(400, Duration::from_millis(100)));
    app.send_message("Tell me a long story").await?;
    let streaming = app.wait_for_timeline("chunk05", STREAM).await;
    app.on_error(artifacts, streaming).await?;
    // Bounded wait, not a snapshot: the run line sits below the growing answer, and on a
    // loaded machine the text can be drawn a frame before the list has placed that line
    // (CI once read the previous run's "Completed" here).
    app.run_ends(artifacts, "Running", Duration::from_secs(10))
        .await?;
    assert!(!p.processes().is_empty(), "the engine runs while streaming");
    // One frame, not a settled picture: the stream keeps changing it.
    std::fs::write(shot("05-streaming"), app.x_screenshot().await?)?;
    app.button("Interrupt").await?.click().await?;
    app.run_ends(artifacts, "Interrupted", STREAM).await?;
    // The stream stopped: the model's connection was dropped and nothing more arrives.
    assert!(fake.disconnects() >= 1, "the model stream was not cut");
    let before = app.wait_for_timeline("chunk", STREAM).await?;
    tokio::time::sleep(Duration::from_millis(800)).await;
    let after = app.wait_for_timeline("chunk", STREAM).await?;
    assert_eq!(before, after, "text kept arriving after the interrupt");
    assert!(!after.contains("chunk399"), "the stream was not cut");
    // No engine process is left after the interrupt.
    wait_no_processes(
        "CLAUDE_CONFIG_DIR",
        &p.claude_config,
        Duration::from_secs(15),
    )
    .await?;
    app.screenshot(&shot("06-interrupted")).await?;
    app.quit().await?;
    w.env.passed();
    Ok(())
}
