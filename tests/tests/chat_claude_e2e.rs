//! A Claude session in the real window: the real app under Xvfb (tauri-driver +
//! WebKitWebDriver), the real pinned `claude` against the fake Messages API on 127.0.0.1, the
//! real SQLite file. A user denies a command from its card (with a message), answers the
//! agent's question from the question card, and interrupts a slowly streamed answer with the
//! Interrupt button — once in the light look and once in the dark one. Screenshots of every
//! step land in `target/test-artifacts/chat_claude_{light,dark}/`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use agentdesk_tests::e2e::{
    artifacts_dir, prepare_claude_workspace, prerequisites, AppEnv, BoxError, Desktop,
};
use agentdesk_tests::fake_messages::{FakeMessages, Reply};
use agentdesk_tests::real::engine_bin;
use serde_json::json;

const STREAM: Duration = Duration::from_secs(40);

/// One app at a time: two windows and two engines at once starve a 2-core machine.
static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_session_deny_question_interrupt_light() {
    run("chat_claude_light", None).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_session_deny_question_interrupt_dark() {
    run("chat_claude_dark", Some("Adwaita:dark")).await;
}

async fn run(test: &str, theme: Option<&str>) {
    let _one = SERIAL.lock().await;
    let Some(pre) = prerequisites(test) else {
        return;
    };
    let Some(bin) = engine_bin("CLAUDE_BIN", "chat window E2E (claude)") else {
        return;
    };
    tokio::time::timeout(Duration::from_secs(120), scenario(test, theme, pre, bin))
        .await
        .expect("scenario timed out")
        .unwrap();
}

/// Pids of live processes whose environment names this test's Claude config dir (the engine
/// and anything it started); zombies do not count.
fn claude_processes(config: &Path) -> Vec<u32> {
    let needle = format!("CLAUDE_CONFIG_DIR={}", config.display());
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
    let fake = FakeMessages::start().await?;
    let p = prepare_claude_workspace(&env, bin, fake.base_url()).await?;
    let shot = |name: &str| artifacts.join(format!("{name}.png"));

    let app = desktop.launch(&env, "app", &artifacts).await?;
    app.collect_js_errors().await?;
    let listed = app.find("[data-testid=workspace-item]").await;
    app.on_error(&artifacts, listed).await?;
    app.button("New session").await?.click().await?;
    let message = app.find("textarea[aria-label=Message]").await;
    let message = app.on_error(&artifacts, message).await?;
    app.screenshot(&shot("00-new-session")).await?;

    // 1. The agent wants to run a command: the card shows it and where; the user says no.
    fake.push(Reply::bash("toolu_e2e_bash", "touch denied.txt"));
    fake.push(Reply::text(&["Understood, ", "I left the files alone."]));
    message.send_keys("Create denied.txt").await?;
    app.button("Send").await?.click().await?;
    let card = app
        .find_xpath("//*[@role='group' and @aria-label='Approval']")
        .await;
    let card = app.on_error(&artifacts, card).await?;
    let text = card.prop("textContent").await?.unwrap_or_default();
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
    let done = app.wait_for_last_run_status("Completed", STREAM).await;
    app.on_error(&artifacts, done).await?;
    app.wait_for_text_containing(
        "[role=log][aria-label=Timeline]",
        "I left the files alone.",
        STREAM,
    )
    .await?;
    let decided = app
        .find_xpath("//*[@role='group' and @aria-label='Approval']")
        .await?
        .prop("textContent")
        .await?
        .unwrap_or_default();
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
    let message = app.find("textarea[aria-label=Message]").await?;
    message.send_keys("Ask me which color").await?;
    app.button("Send").await?.click().await?;
    let question = app
        .find_xpath("//form[@role='group' and @aria-label='Question']")
        .await;
    let question = app.on_error(&artifacts, question).await?;
    let qtext = question.prop("textContent").await?.unwrap_or_default();
    assert!(qtext.contains("Which color do you prefer?"), "{qtext}");
    app.screenshot(&shot("03-question-card")).await?;
    app.find_xpath("//form[@aria-label='Question']//input[@value='Blue']")
        .await?
        .click()
        .await?;
    app.button("Submit answer").await?.click().await?;
    let done = app.wait_for_last_run_status("Completed", STREAM).await;
    app.on_error(&artifacts, done).await?;
    app.wait_for_text_containing("[role=log][aria-label=Timeline]", "Blue it is.", STREAM)
        .await?;
    let last = fake.model_requests().pop().ok_or("no model request")?;
    let answer = last.blocks_of("tool_result");
    assert!(
        answer.iter().any(|r| {
            let r = r.to_string();
            r.contains("Which color do you prefer?") && r.contains("Blue")
        }),
        "{answer:?}"
    );
    let answered = app
        .find("[data-testid=question-card]")
        .await?
        .prop("textContent")
        .await?
        .unwrap_or_default();
    assert!(answered.contains("Blue"), "answered card: {answered}");
    app.screenshot(&shot("04-answered")).await?;

    // 3. A long answer streams slowly; the user interrupts it with the button.
    fake.push(Reply::slow_text(400, Duration::from_millis(100)));
    let message = app.find("textarea[aria-label=Message]").await?;
    message.send_keys("Tell me a long story").await?;
    app.button("Send").await?.click().await?;
    let streaming = app
        .wait_for_text_containing("[role=log][aria-label=Timeline]", "chunk05", STREAM)
        .await;
    app.on_error(&artifacts, streaming).await?;
    // Bounded wait, not a snapshot: the run line sits below the growing answer, and on a
    // loaded machine the text can be drawn a frame before the list has placed that line
    // (CI once read the previous run's "Completed" here).
    let running = app
        .wait_for_last_run_status("Running", Duration::from_secs(10))
        .await;
    app.on_error(&artifacts, running).await?;
    assert!(
        !claude_processes(&p.claude_config).is_empty(),
        "the engine runs while streaming"
    );
    // One frame, not a settled picture: the stream keeps changing it.
    std::fs::write(shot("05-streaming"), app.x_screenshot().await?)?;
    app.button("Interrupt").await?.click().await?;
    let stopped = app.wait_for_last_run_status("Interrupted", STREAM).await;
    app.on_error(&artifacts, stopped).await?;
    // The stream stopped: the model's connection was dropped and nothing more arrives.
    assert!(fake.disconnects() >= 1, "the model stream was not cut");
    let timeline = "[role=log][aria-label=Timeline]";
    let before = app
        .wait_for_text_containing(timeline, "chunk", STREAM)
        .await?;
    tokio::time::sleep(Duration::from_millis(800)).await;
    let after = app
        .wait_for_text_containing(timeline, "chunk", STREAM)
        .await?;
    assert_eq!(before, after, "text kept arriving after the interrupt");
    assert!(!after.contains("chunk399"), "the stream was not cut");
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let left = claude_processes(&p.claude_config);
        if left.is_empty() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "engine processes left after the interrupt: {left:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    app.screenshot(&shot("06-interrupted")).await?;
    app.quit().await?;
    env.passed();
    Ok(())
}
