//! A Claude subagent in the real window: the real app under Xvfb (tauri-driver +
//! WebKitWebDriver), the real pinned `claude` against the fake Messages API on 127.0.0.1 (its
//! replies routed by what each agent last sent, since the main agent and its subagent ask at
//! once), the real SQLite file. The model starts a `general-purpose` subagent; its work shows
//! nested in the `Agent` call's card, open while it works; the subagent's command asks for
//! approval inside that card, naming the subagent; the user approves it there; the run ends
//! only after the subagent and the CLI's report turn, the card done with the subagent's
//! result and its activity folded; unfolded, it lists the subagent's message, command and
//! answer. The nesting is stored (each nested item names its parent). Light and dark;
//! screenshots in `target/test-artifacts/subagents_{light,dark}/`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use agentdesk_tests::e2e::{prepare_claude_workspace, BoxError, WindowTest};
use agentdesk_tests::fake_messages::{push_subagent_script, FakeMessages, Reply};
use agentdesk_tests::light_and_dark;

const STREAM: Duration = Duration::from_secs(60);
const CARD: &str = "[role=group][aria-label='Subagent: Count files']";

light_and_dark!(
    subagent_work_nests_and_asks_by_name_light,
    subagent_work_nests_and_asks_by_name_dark,
    "subagents",
    ("CLAUDE_BIN", "subagents window E2E (claude)", 150),
    scenario
);

async fn scenario(mut w: WindowTest<'_>) -> Result<(), BoxError> {
    let fake = FakeMessages::start().await?;
    let p = prepare_claude_workspace(&w.env, w.bin.clone(), fake.base_url()).await?;
    let artifacts = &w.artifacts;
    let shot = |name: &str| artifacts.join(format!("{name}.png"));
    push_subagent_script(
        &fake,
        "SUB-DONE: **3** files",
        "Started a subagent; waiting.",
    );
    fake.push(Reply::text(&["The subagent counted 3 files."]));

    let app = w.desktop.launch(&w.env, "app", artifacts).await?;
    app.collect_js_errors().await?;
    app.open_new_session(artifacts).await?;
    app.send_message("MAIN-PROMPT count the files with a subagent")
        .await?;

    // The subagent asks inside its card, by name; its work so far is listed there, open.
    let asking = app
        .wait_for_text_containing(
            CARD,
            "Asked by the subagent general-purpose: Count files",
            STREAM,
        )
        .await;
    let asking = app.on_error(artifacts, asking).await?;
    assert!(asking.contains("touch sub-made.txt"), "{asking}");
    assert!(asking.contains("running"), "{asking}");
    let toggle = format!("{CARD} .subagent-activity > button");
    let expanded = app.find(&toggle).await?.attr("aria-expanded").await?;
    assert_eq!(expanded.as_deref(), Some("true"));
    // Not a row of its own: the command shows once in the whole timeline.
    let commands = app
        .script_strings("return [...document.querySelectorAll('[role=log] .tool-head .tool-command')].map(e => e.textContent)")
        .await?;
    assert_eq!(commands, vec!["touch sub-made.txt".to_string()]);
    // The card's head in view (the timeline follows the end, where the approval is).
    app.client
        .execute(
            "document.querySelector(arguments[0]).scrollIntoView({block: 'start'}); return true",
            vec![CARD.into()],
        )
        .await?;
    app.screenshot(&shot("01-subagent-asks")).await?;

    app.click_retrying("Approve once").await?;
    app.run_ends(artifacts, "Completed", STREAM).await?;
    app.wait_for_timeline("The subagent counted 3 files.", STREAM)
        .await?;
    assert!(
        p.work.join("sub-made.txt").exists(),
        "the approved command did not run"
    );
    let done = app
        .wait_for_text_containing(CARD, "done", Duration::from_secs(20))
        .await?;
    assert!(done.contains("Result"), "{done}");
    assert!(done.contains("SUB-DONE: 3 files"), "{done}");
    let folded = app.find(&toggle).await?;
    assert_eq!(
        folded.attr("aria-expanded").await?.as_deref(),
        Some("false")
    );
    assert_eq!(
        folded.prop("textContent").await?.as_deref().map(str::trim),
        Some("▸Subagent activity (3 items)")
    );
    app.screenshot(&shot("02-subagent-done")).await?;

    folded.click().await?;
    let listed = app
        .script_strings(&format!(
            "return [...document.querySelectorAll(\"{CARD} .subagent-items > li\")].map(li => li.textContent.slice(0, 24))"
        ))
        .await?;
    assert_eq!(listed.len(), 3, "{listed:?}");
    assert!(listed[1].contains("touch sub-made.txt"), "{listed:?}");
    assert!(listed[2].starts_with("SUB-DONE: 3 files"), "{listed:?}");
    app.screenshot(&shot("03-subagent-unfolded")).await?;
    app.quit().await?;

    // Stored nested: each of the subagent's items names the Agent call as its parent.
    let desk = agentdesk_core::Desk::open(&w.env.data_dir).await?;
    let ws = desk.list_workspaces().await?;
    let sessions = desk.list_sessions(&ws[0].id, false).await?;
    let page = desk.load_timeline(&sessions[0].id, None, None).await?;
    desk.close().await;
    let parent = page
        .items
        .iter()
        .find(|i| i.id.ends_with(":toolu_agent1"))
        .ok_or("no Agent call stored")?;
    let nested = page
        .items
        .iter()
        .filter(|i| i.parent_id.as_deref() == Some(parent.id.as_str()))
        .count();
    assert_eq!(nested, 3, "{:#?}", page.items);
    w.env.passed();
    Ok(())
}
