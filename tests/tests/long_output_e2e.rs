//! A command whose output is too long for the timeline, in the real window: the real app under
//! Xvfb (tauri-driver + WebKitWebDriver), the real pinned `codex` running `seq 1 700000`
//! against the fake Responses API on 127.0.0.1 (codex hands on about 1 MiB of it). The card
//! says the output is cut and how long it is, offers "Open full output", and its expanded
//! output starts with the command's first lines — once in the light look and once in the dark
//! one. Screenshots land in `target/test-artifacts/long_output_{light,dark}/`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use agentdesk_tests::e2e::{prepare_codex_workspace, BoxError, WindowTest};
use agentdesk_tests::fake_responses::{FakeResponses, Reply};
use agentdesk_tests::light_and_dark;

const STREAM: Duration = Duration::from_secs(90);

light_and_dark!(
    long_output_is_cut_with_the_whole_a_click_away_light,
    long_output_is_cut_with_the_whole_a_click_away_dark,
    "long_output",
    ("CODEX_BIN", "long output window E2E", 240),
    scenario
);

async fn scenario(mut w: WindowTest<'_>) -> Result<(), BoxError> {
    let responses = FakeResponses::start().await?;
    let ws = prepare_codex_workspace(&w.env, w.bin.clone(), responses.base_url(), |p| {
        p.permission_mode = agentdesk_protocol::ui::PermissionMode::FullAuto;
    })
    .await?;
    ws.desk.close().await;
    responses.push(Reply::exec_command("call_long_e2e", "seq 1 700000"));
    responses.push(Reply::text(&["Printed the numbers."]));
    let app = w.desktop.launch(&w.env, "app", &w.artifacts).await?;
    app.collect_js_errors().await?;
    app.open_new_session(&w.artifacts).await?;
    app.send_message("Print a lot").await?;
    app.run_ends(&w.artifacts, "Completed", STREAM).await?;
    let note = app
        .wait_for_text_containing(
            ".output-cut",
            "Long output: its start and end are shown (",
            STREAM,
        )
        .await?;
    assert!(note.contains("MB in all)"), "{note}");
    app.button("Open full output").await?;
    app.client
        .execute(
            "document.querySelector('.output-cut').scrollIntoView({block: 'center'})",
            vec![],
        )
        .await?;
    app.screenshot(&w.artifacts.join("01-cut-output.png"))
        .await?;
    // Expanded: the command's first lines, then (far below) the mark of the cut.
    app.click_xpath("//div[contains(@class,'tool-output')]/button[contains(@class,'disclosure')]")
        .await?;
    let output = app.css_text(".tool-output pre.output").await?;
    assert!(
        output.starts_with("1\n2\n3\n"),
        "{}",
        &output[..40.min(output.len())]
    );
    assert!(
        output.contains("not shown: the whole output ("),
        "no mark of the cut"
    );
    app.screenshot(&w.artifacts.join("02-cut-output-expanded.png"))
        .await?;
    app.quit().await?;
    w.env.passed();
    Ok(())
}
