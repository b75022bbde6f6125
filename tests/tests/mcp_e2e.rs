//! The profile editor's MCP servers (issue 24, item 6): the real app under Xvfb, the real
//! pinned `codex` against the fake Responses API, a real stdio MCP server (`fake-mcp`). A
//! Codex profile stored with three servers — `notes` (fake-mcp, its variable named), `web`
//! (HTTP, disabled, a token variable named) and `broken` (a program that is not there) —
//! shows one row each in the editor, as stored. "Check MCP servers" starts codex to ask it:
//! `notes` connected with its tool `note`, `web` disabled, `broken` failed; codex and the
//! server are gone once the answer is in. A server added in the form and not saved cannot be
//! checked (the editor says to save first); removed again, it can. After a restart in the
//! dark look the check reads the same. Screenshots in `target/test-artifacts/mcp/`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use agentdesk_protocol::ui::McpServer;
use agentdesk_tests::e2e::{
    app_with_engine, artifacts_dir, bounded, prepare_codex_workspace, wait_no_processes, AppEnv,
    AppSession, BoxError, Desktop, Prerequisites,
};
use agentdesk_tests::fake_responses::FakeResponses;

const TEST: &str = "mcp";
const STREAM: Duration = Duration::from_secs(90);
const FAKE_MCP: &str = env!("CARGO_BIN_EXE_fake-mcp");
const PROFILE: &str = "codex (fake model)";
/// The section, the check's report, and the inputs of its rows.
const SECTION: &str = "fieldset.mcp-servers";
const RESULT: &str = "fieldset.mcp-servers .mcp-check-result";
const REPORT: &str = "ul[aria-label='MCP server status']";
const NAMES: &str = "input[aria-label='MCP server name']";
const COMMANDS: &str = "input[aria-label='MCP server command']";
const CHECK: &str = "Check MCP servers";
const SAVE_FIRST: &str = "Save the profile to check its servers.";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_servers_in_the_profile_editor() {
    let Some((_turn, pre, codex)) = app_with_engine(TEST, "CODEX_BIN", "MCP E2E").await else {
        return;
    };
    bounded(Duration::from_secs(420), scenario(pre, codex)).await;
}

/// The demo workspace with a default Codex profile on the fake model, holding the three
/// servers. Stored through the core: no confirmation asked.
async fn prepare(env: &AppEnv, codex: PathBuf, responses: &FakeResponses) -> Result<(), BoxError> {
    let log = env.root.join("notes.log");
    let ws = prepare_codex_workspace(env, codex, responses.base_url(), |spec| {
        spec.env
            .insert("FAKE_MCP_LOG".into(), log.to_string_lossy().into_owned());
        let mut notes = McpServer::stdio("notes", FAKE_MCP);
        notes.env_vars = vec!["FAKE_MCP_LOG".into()];
        let mut web = McpServer::http("web", "http://127.0.0.1:9/mcp");
        web.enabled = false;
        web.bearer_token_env = Some("WEB_TOKEN".into());
        let broken = McpServer::stdio("broken", "/nonexistent/agentdesk-mcp");
        spec.mcp_servers = vec![notes, web, broken];
    })
    .await?;
    ws.desk.close().await;
    Ok(())
}

async fn scenario(pre: Prerequisites, codex: PathBuf) -> Result<(), BoxError> {
    let artifacts = artifacts_dir(TEST);
    let desktop = Desktop::start(pre)?;
    let mut env = AppEnv::new(TEST)?;
    let responses = FakeResponses::start().await?;
    prepare(&env, codex, &responses).await?;
    let log = env.root.join("notes.log");

    let app = desktop.launch(&env, "first-run", &artifacts).await?;
    app.collect_js_errors().await?;
    let r = light(&app, &artifacts, &log).await;
    app.on_error(&artifacts, r).await?;
    app.quit().await?;

    env.extra.push(("GTK_THEME".into(), "Adwaita:dark".into()));
    let app = desktop.launch(&env, "second-run", &artifacts).await?;
    app.collect_js_errors().await?;
    let r = async {
        open_profile(&app).await?;
        check(&app).await?;
        app.screenshot(&artifacts.join("02-mcp-status-dark.png"))
            .await
    }
    .await;
    app.on_error(&artifacts, r).await?;
    app.quit().await?;
    env.passed();
    Ok(())
}

async fn light(app: &AppSession, artifacts: &Path, log: &Path) -> Result<(), BoxError> {
    eprintln!("step: the stored servers");
    open_profile(app).await?;
    // One row per stored server, as stored.
    let names = values(app, NAMES).await?;
    assert_eq!(names, ["notes", "web", "broken"]);
    let transports = values(app, "select[aria-label='MCP server transport']").await?;
    assert_eq!(transports, ["stdio", "http", "stdio"]);
    let enabled = app
        .script_strings(
            "return [...document.querySelectorAll(\"input[aria-label^='Enable MCP server']\")]\
               .map(e => e.getAttribute('aria-label') + '=' + e.checked)",
        )
        .await?;
    assert_eq!(
        enabled,
        [
            "Enable MCP server notes=true",
            "Enable MCP server web=false",
            "Enable MCP server broken=true"
        ]
    );
    assert_eq!(
        values(app, "input[aria-label='MCP server URL']").await?,
        ["http://127.0.0.1:9/mcp"]
    );
    assert_eq!(
        values(app, "input[aria-label='MCP server token variable']").await?,
        ["WEB_TOKEN"]
    );
    assert_eq!(
        values(app, COMMANDS).await?,
        [FAKE_MCP, "/nonexistent/agentdesk-mcp"]
    );
    assert_eq!(
        values(app, "input[aria-label='MCP server environment variables']").await?[0],
        "FAKE_MCP_LOG"
    );
    assert!(!app.css_text(SECTION).await?.contains(SAVE_FIRST));
    scroll_to(app, "fieldset.mcp-servers .mcp-server.off").await?;
    app.screenshot(&artifacts.join("00-mcp-rows-light.png"))
        .await?;

    eprintln!("step: check");
    check(app).await?;
    // Asked once: codex (and the servers it started) stopped after answering.
    wait_no_processes("FAKE_MCP_LOG", log, Duration::from_secs(30)).await?;
    app.screenshot(&artifacts.join("00-mcp-status-light.png"))
        .await?;

    eprintln!("step: a new server");
    // A server added in the form, not saved: nothing to ask the engine about yet.
    click(app, "Add MCP server").await?;
    let rows = app.client.find_all(fantoccini::Locator::Css(NAMES)).await?;
    assert_eq!(rows.len(), 4, "no new row");
    let new = rows.last().ok_or("no new row")?;
    assert_eq!(new.prop("value").await?.as_deref(), Some(""));
    new.send_keys("docs").await?;
    let commands = app
        .client
        .find_all(fantoccini::Locator::Css(COMMANDS))
        .await?;
    let command = commands.last().ok_or("no command input")?;
    assert_eq!(command.prop("value").await?.as_deref(), Some(""));
    command.send_keys("docs-mcp").await?;
    app.wait_for_text_containing(SECTION, SAVE_FIRST, Duration::from_secs(20))
        .await?;
    assert!(
        check_disabled(app).await?,
        "{CHECK} enabled with unsaved servers"
    );
    // The report was about other servers: gone.
    assert!(app
        .client
        .find_all(fantoccini::Locator::Css(REPORT))
        .await?
        .is_empty());
    scroll_to(app, "fieldset.mcp-servers .mcp-check").await?;
    app.screenshot(&artifacts.join("01-mcp-edit-light.png"))
        .await?;

    eprintln!("step: removed again");
    // Removed again: the servers are the stored ones, and can be checked.
    click(app, "Remove MCP server docs").await?;
    assert_eq!(values(app, NAMES).await?, ["notes", "web", "broken"]);
    app.button(CHECK).await?;
    assert!(!app.css_text(SECTION).await?.contains(SAVE_FIRST));
    Ok(())
}

/// The Profiles view of the demo workspace with the Codex profile selected, its MCP section
/// in view.
async fn open_profile(app: &AppSession) -> Result<(), BoxError> {
    app.button("Profiles for demo").await?.click().await?;
    app.find_xpath(&format!(
        "//button[contains(@class,'profile-item') and contains(., '{PROFILE}')]"
    ))
    .await?
    .click()
    .await?;
    app.wait_for_text_containing(SECTION, "MCP servers", STREAM)
        .await?;
    app.find(NAMES).await?;
    Ok(())
}

/// Check the servers and wait for codex's report; each server's line as shown.
async fn check(app: &AppSession) -> Result<(), BoxError> {
    click(app, CHECK).await?;
    app.wait_for_text_containing(RESULT, "Starting the engine to ask…", STREAM)
        .await?;
    app.wait_for_text_containing(REPORT, "broken", STREAM)
        .await?;
    let lines = app
        .script_strings(&format!(
            "return [...document.querySelectorAll(\"{REPORT} li\")].map(li => li.textContent)"
        ))
        .await?;
    let line = |name: &str| {
        lines
            .iter()
            .find(|l| l.starts_with(&format!("{name}: ")))
            .cloned()
            .unwrap_or_else(|| panic!("no line for {name}: {lines:?}"))
    };
    let notes = line("notes");
    assert!(
        notes.contains("notes: connected") && notes.contains("tools: note"),
        "{notes}"
    );
    let web = line("web");
    assert!(
        web.contains("web: disabled") && web.contains("no tools"),
        "{web}"
    );
    let broken = line("broken");
    assert!(broken.contains("broken: failed — "), "{broken}");
    assert_eq!(lines.len(), 3, "{lines:?}");
    // Not checking any more: the button is back.
    app.button(CHECK).await?;
    scroll_to(app, "fieldset.mcp-servers .mcp-check").await?;
    Ok(())
}

/// The `value` of every element matching `css`, in order.
async fn values(app: &AppSession, css: &str) -> Result<Vec<String>, BoxError> {
    let v = app
        .client
        .execute(
            "return [...document.querySelectorAll(arguments[0])].map(e => e.value)",
            vec![css.into()],
        )
        .await?;
    Ok(serde_json::from_value(v)?)
}

async fn check_disabled(app: &AppSession) -> Result<bool, BoxError> {
    let v = app
        .client
        .execute(
            "const b = [...document.querySelectorAll('fieldset.mcp-servers button')]\
               .find(b => b.textContent.trim() === arguments[0]); \
             return b ? b.disabled : null",
            vec![CHECK.into()],
        )
        .await?;
    v.as_bool()
        .ok_or_else(|| format!("no {CHECK} button").into())
}

/// Click the button `name` once it is in the middle of the editor: scrolled only just into
/// view, it would be under the editor's sticky actions bar (ElementClickIntercepted).
async fn click(app: &AppSession, name: &str) -> Result<(), BoxError> {
    let button = app.button(name).await?;
    app.client
        .execute(
            "arguments[0].scrollIntoView({block: 'center'})",
            vec![serde_json::to_value(&button)?],
        )
        .await?;
    button.click().await?;
    Ok(())
}

/// Scroll the editor so the element at `css` is in the middle of the view (the section's
/// rows above it, clear of the actions bar).
async fn scroll_to(app: &AppSession, css: &str) -> Result<(), BoxError> {
    app.client
        .execute(
            "document.querySelector(arguments[0]).scrollIntoView({block: 'center'})",
            vec![css.into()],
        )
        .await?;
    Ok(())
}
