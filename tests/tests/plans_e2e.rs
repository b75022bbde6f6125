//! The agent's plan in the real window (issue 24): the real app under Xvfb, the real pinned
//! `codex` and `claude` against the fake model servers. Codex's model calls `update_plan`,
//! then asks to run a command: while the run waits on the approval, the timeline shows the
//! checklist (done / in progress / to do) and the session header the current step; approved,
//! the next update replaces the list in the same card. Claude's model keeps its tasks with
//! `TaskCreate`/`TaskUpdate`; after a restart in the dark look, the next message's updates
//! name the tasks only by id and the card still shows their subjects. Codex's answers carry
//! the provider's rate-limit headers: the status bar warns at 85 %, and still does after
//! the restart. The composer's `@` offers the folder's files as git sees them (an ignored
//! one never) and inserts the one chosen. Screenshots in
//! `target/test-artifacts/plans/`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::time::Duration;

use agentdesk_tests::e2e::{
    add_claude_profile, app_with_engine, artifacts_dir, bounded, prepare_codex_workspace, AppEnv,
    AppSession, BoxError, Desktop, Prerequisites, APPROVAL_CARD,
};
use agentdesk_tests::{fake_messages, fake_responses, real};
use serde_json::{json, Value};

const TEST: &str = "plans";
const STREAM: Duration = Duration::from_secs(90);
/// The plan card and the header's current step.
const PLAN: &str = "section.plan-card";
const NOW: &str = ".session-header .plan-now";
/// Ctrl+A, then Backspace: empties the message box as a user would (WebDriver's clear
/// leaves the page's own state behind).
const CLEAR: &str = "\u{E009}a\u{E000}\u{E003}";
/// The status bar's rate limits.
const LIMITS: &str = "[data-testid=status-bar] ul[aria-label='Rate limits']";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_and_claude_plans_are_live_checklists() {
    let Some((_turn, pre, codex)) = app_with_engine(TEST, "CODEX_BIN", "plans E2E").await else {
        return;
    };
    let Some(claude) = real::engine_bin("CLAUDE_BIN", "plans E2E") else {
        return;
    };
    bounded(Duration::from_secs(360), scenario(pre, codex, claude)).await;
}

fn update_plan(id: &str, statuses: [&str; 3]) -> fake_responses::Reply {
    let steps = ["Read the code", "Write the fix", "Run the tests"];
    let plan: Vec<Value> = steps
        .iter()
        .zip(statuses)
        .map(|(s, st)| json!({"step": s, "status": st}))
        .collect();
    fake_responses::Reply::Stream(vec![fake_responses::Step::FunctionCall {
        call_id: id.into(),
        name: "update_plan".into(),
        arguments: json!({"explanation": "Reading first", "plan": plan}).to_string(),
    }])
}

fn task(id: &str, name: &str, input: Value) -> fake_messages::Reply {
    fake_messages::Reply::Stream(vec![fake_messages::Step::ToolUse {
        id: id.into(),
        name: name.into(),
        input,
    }])
}

/// A default Codex profile and a Claude one, both on the fake models.
async fn prepare(
    env: &AppEnv,
    codex: PathBuf,
    claude: PathBuf,
    responses: &fake_responses::FakeResponses,
    messages: &fake_messages::FakeMessages,
) -> Result<(), BoxError> {
    let ws = prepare_codex_workspace(env, codex.clone(), responses.base_url(), |_| {}).await?;
    // Files for the composer's `@` (one ignored by git, never offered).
    std::fs::create_dir_all(ws.work.join("docs"))?;
    std::fs::write(ws.work.join("docs/NOTES.md"), "notes\n")?;
    std::fs::write(ws.work.join("NOTES-draft.log"), "draft\n")?;
    std::fs::write(ws.work.join(".gitignore"), "*.log\n")?;
    // A skill of the repository, for Codex's `$` in the composer.
    std::fs::create_dir_all(ws.work.join(".agents/skills/release-notes"))?;
    std::fs::write(
        ws.work.join(".agents/skills/release-notes/SKILL.md"),
        "---\nname: release-notes\ndescription: Write release notes from the git log\n---\nList the changes.\n",
    )?;
    add_claude_profile(env, &ws, (codex, claude), &messages.base_url(), |_| {}).await?;
    ws.desk.close().await;
    Ok(())
}

/// The plan card's steps as a screen reader reads them, and the header's line.
async fn plan_shown(app: &AppSession) -> Result<(Vec<String>, String), BoxError> {
    let steps = app
        .script_strings(
            "const cards = document.querySelectorAll('section.plan-card'); \
             const last = cards[cards.length - 1]; \
             return last ? [...last.querySelectorAll('li')].map(li => li.textContent) : []",
        )
        .await?;
    let now = app.css_text(NOW).await?;
    Ok((steps, now))
}

async fn scenario(pre: Prerequisites, codex: PathBuf, claude: PathBuf) -> Result<(), BoxError> {
    let artifacts = artifacts_dir(TEST);
    let shot = |name: &str| artifacts.join(format!("{name}.png"));
    let desktop = Desktop::start(pre)?;
    let mut env = AppEnv::new(TEST)?;
    let responses = fake_responses::FakeResponses::start().await?;
    let messages = fake_messages::FakeMessages::start().await?;
    prepare(&env, codex, claude, &responses, &messages).await?;
    // The account's limits ride on every answer (the status bar shows them, issue 24).
    let reset = (std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)?
        .as_secs()
        + 3 * 3600)
        .to_string();
    responses.set_response_headers(&[
        ("x-codex-primary-used-percent", "85.0"),
        ("x-codex-primary-window-minutes", "300"),
        ("x-codex-primary-reset-at", &reset),
        ("x-codex-secondary-used-percent", "20.0"),
        ("x-codex-secondary-window-minutes", "10080"),
    ]);

    // Codex: a plan, then a command it asks about; the run waits on the card.
    responses.push(update_plan(
        "call_plan_1",
        ["completed", "in_progress", "pending"],
    ));
    responses.push(fake_responses::Reply::exec_command(
        "call_fix",
        "touch fixed.txt",
    ));
    responses.push(update_plan(
        "call_plan_2",
        ["completed", "completed", "in_progress"],
    ));
    responses.push(fake_responses::Reply::text(&[
        "Fixed; running the tests next.",
    ]));

    let app = desktop.launch(&env, "first-run", &artifacts).await?;
    app.collect_js_errors().await?;
    app.open_new_session(&artifacts).await?;
    app.send_message("Fix the bug").await?;
    let card = app.xpath_text(APPROVAL_CARD).await;
    app.on_error(&artifacts, card).await?;
    app.wait_for_text_containing(PLAN, "1 of 3 done", STREAM)
        .await?;
    let (steps, now) = plan_shown(&app).await?;
    assert_eq!(
        steps,
        [
            "✓Read the code, done",
            "◐Write the fix, in progress",
            "○Run the tests, to do"
        ]
    );
    assert!(
        now.contains("Current step: Write the fix · step 2 of 3"),
        "{now}"
    );
    app.screenshot(&shot("00-codex-plan-waiting-light")).await?;
    app.click_retrying("Approve once").await?;
    app.run_ends(&artifacts, "Completed", STREAM).await?;
    app.wait_for_text_containing(PLAN, "2 of 3 done", STREAM)
        .await?;
    let cards = app
        .script_strings(
            "return [...document.querySelectorAll('section.plan-card')].map(() => 'card')",
        )
        .await?;
    assert_eq!(cards.len(), 1, "one plan card for the run");
    let (_, now) = plan_shown(&app).await?;
    assert!(
        now.contains("Current step: Run the tests · step 3 of 3"),
        "{now}"
    );
    let limits = app
        .wait_for_text_containing(LIMITS, "Codex: 5-hour 85 % · weekly 20 %", STREAM)
        .await?;
    assert!(limits.contains("near the limit, resets "), "{limits}");
    app.screenshot(&shot("01-codex-plan-updated-light")).await?;
    let message = app.find("textarea[aria-label=Message]").await?;
    message.send_keys("@doc").await?;
    app.wait_for_text_containing("ul[aria-label='Files to mention']", "docs/NOTES.md", STREAM)
        .await?;
    app.screenshot(&shot("01b-mention-light")).await?;
    message.send_keys("\u{E00C}").await?; // Escape: the list closes
    message.send_keys(CLEAR).await?;
    // Codex's `$`: the repository's skills, asked of codex.
    message.send_keys("Use $rel").await?;
    app.wait_for_text_containing("ul[aria-label=Commands]", "$release-notes", STREAM)
        .await?;
    app.screenshot(&shot("01c-codex-skill-light")).await?;
    message.send_keys("\u{E004}").await?; // Tab picks it
    let typed = message.prop("value").await?;
    assert_eq!(typed.as_deref(), Some("Use $release-notes "));
    message.send_keys(CLEAR).await?;

    // The composer's model picker: codex's models, listed when the picker is first used; the
    // session's next run asks the model chosen, at the effort chosen.
    app.client
        .execute(
            "document.querySelector(arguments[0]).focus()",
            vec![PICKER.into()],
        )
        .await?;
    app.wait_for_text_containing(PICKER, "(default)", STREAM)
        .await?;
    let other = app
        .script_strings(&format!(
            "return [...document.querySelector(\"{PICKER}\").options]\
               .filter(o => o.value && !o.disabled && !o.textContent.includes('(default)'))\
               .map(o => o.value)"
        ))
        .await?;
    let other = other.first().ok_or("codex listed one model only")?.clone();
    app.choose(PICKER, &other).await?;
    app.wait_for_text_containing(EFFORT, "low", STREAM).await?;
    app.choose(EFFORT, "low").await?;
    // Codex compacts the thread when its model changes (one request for the summary), then
    // runs the turn on the new model with that summary.
    responses.push(fake_responses::Reply::text(&[
        "Summary of the work so far.",
    ]));
    responses.push(fake_responses::Reply::text(&["On the other model."]));
    app.send_message("Use the other model").await?;
    let answered = app
        .wait_for_text_containing(
            "[role=log][aria-label=Timeline]",
            "On the other model.",
            STREAM,
        )
        .await;
    app.on_error(&artifacts, answered).await?;
    app.run_ends(&artifacts, "Completed", STREAM).await?;
    let asked = responses
        .requests()
        .last()
        .ok_or("no request")?
        .body
        .clone();
    assert_eq!(asked["model"], other.as_str(), "{asked:#}");
    assert_eq!(asked["reasoning"]["effort"], "low", "{asked:#}");
    // Another model, the same conversation: codex continues the thread with its history.
    let input = asked["input"].to_string();
    assert!(
        input.contains("Fix the bug") || input.contains("Summary of the work so far."),
        "history lost: {asked:#}"
    );
    let timeline = app.css_text("[role=log][aria-label=Timeline]").await?;
    assert!(!timeline.contains("Could not resume"), "{timeline}");
    app.screenshot(&shot("01d-model-picker-light")).await?;

    // Claude: two tasks made, the first started.
    let create = |subject: &str, active: &str| json!({"subject": subject, "description": subject, "activeForm": active});
    messages.push(task(
        "toolu_t1",
        "TaskCreate",
        create("Write the tests", "Writing the tests"),
    ));
    messages.push(task(
        "toolu_t2",
        "TaskCreate",
        create("Ship it", "Shipping"),
    ));
    messages.push(task(
        "toolu_t3",
        "TaskUpdate",
        json!({"taskId": "1", "status": "in_progress"}),
    ));
    messages.push(fake_messages::Reply::text(&["Writing the tests now."]));
    app.button("Profiles for demo").await?.click().await?;
    app.find_xpath(
        "//button[contains(@class,'profile-item') and contains(., 'claude (fake model)')]",
    )
    .await?
    .click()
    .await?;
    app.button("Set as default").await?.click().await?;
    app.open_new_session(&artifacts).await?;
    app.send_message("Plan the release").await?;
    app.run_ends(&artifacts, "Completed", STREAM).await?;
    app.wait_for_text_containing(PLAN, "0 of 2 done", STREAM)
        .await?;
    let (steps, now) = plan_shown(&app).await?;
    assert_eq!(steps, ["◐Write the tests, in progress", "○Ship it, to do"]);
    assert!(
        now.contains("Current step: Writing the tests · step 1 of 2"),
        "{now}"
    );
    let timeline = app.css_text("[role=log][aria-label=Timeline]").await?;
    assert!(
        !timeline.contains("TaskCreate"),
        "a tool card for a task tool: {timeline}"
    );
    app.screenshot(&shot("02-claude-tasks-light")).await?;
    app.quit().await?;

    // Dark, after a restart: the next message names the tasks by id only.
    messages.push(task(
        "toolu_t4",
        "TaskUpdate",
        json!({"taskId": "1", "status": "completed"}),
    ));
    messages.push(task(
        "toolu_t5",
        "TaskUpdate",
        json!({"taskId": "2", "status": "in_progress"}),
    ));
    messages.push(fake_messages::Reply::text(&["Tests written; shipping."]));
    env.extra.push(("GTK_THEME".into(), "Adwaita:dark".into()));
    let app = desktop.launch(&env, "second-run", &artifacts).await?;
    // The last limits seen are kept across the restart.
    app.wait_for_text_containing(LIMITS, "Codex: 5-hour 85 %", STREAM)
        .await?;
    open_session(&app, "Plan the release").await?;
    let now = app.css_text(NOW).await?;
    assert!(now.contains("Writing the tests"), "{now}");
    app.send_message("Go on").await?;
    app.wait_for_text_containing(PLAN, "1 of 2 done", STREAM)
        .await?;
    app.run_ends(&artifacts, "Completed", STREAM).await?;
    let (steps, now) = plan_shown(&app).await?;
    assert_eq!(steps, ["✓Write the tests, done", "◐Ship it, in progress"]);
    assert!(
        now.contains("Current step: Shipping · step 2 of 2"),
        "{now}"
    );
    app.screenshot(&shot("03-claude-tasks-continued-dark"))
        .await?;
    // The composer's `@`: the folder's files as git sees them.
    app.find("textarea[aria-label=Message]")
        .await?
        .send_keys("Read @NOTE")
        .await?;
    let offered = app
        .wait_for_text_containing("ul[aria-label='Files to mention']", "docs/NOTES.md", STREAM)
        .await?;
    assert!(
        !offered.contains("NOTES-draft.log"),
        "an ignored file: {offered}"
    );
    app.screenshot(&shot("05-mention-dark")).await?;
    app.find("textarea[aria-label=Message]")
        .await?
        .send_keys("\u{E007}")
        .await?;
    let typed = app
        .find("textarea[aria-label=Message]")
        .await?
        .prop("value")
        .await?;
    assert_eq!(typed.as_deref(), Some("Read @docs/NOTES.md "));
    // Claude Code's `/`: its commands, as its `initialize` lists them.
    let message = app.find("textarea[aria-label=Message]").await?;
    message.send_keys(CLEAR).await?;
    message.send_keys("/ini").await?;
    app.wait_for_text_containing("ul[aria-label=Commands]", "/init", STREAM)
        .await?;
    app.screenshot(&shot("06-claude-commands-dark")).await?;
    message.send_keys(CLEAR).await?;
    open_session(&app, "Fix the bug").await?;
    app.wait_for_text_containing(PLAN, "2 of 3 done", STREAM)
        .await?;
    app.screenshot(&shot("04-codex-plan-dark")).await?;
    app.quit().await?;
    env.passed();
    Ok(())
}

const PICKER: &str = "select[aria-label='Model for this session']";
const EFFORT: &str = "select[aria-label='Reasoning effort for this session']";

async fn open_session(app: &AppSession, title: &str) -> Result<(), BoxError> {
    app.find_xpath(&format!(
        "//*[@data-testid='session-item' and contains(., '{title}')]"
    ))
    .await?
    .click()
    .await?;
    app.wait_for_text_containing("#session-title", title, STREAM)
        .await?;
    Ok(())
}
