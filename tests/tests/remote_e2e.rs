//! Remote workspaces in the real window (issue 25): the real app under Xvfb (tauri-driver +
//! WebKitWebDriver), a real `sshd` on 127.0.0.1 (`agentdesk_tests::sshd`) with the pinned
//! `codex` and `claude` on its login shell's PATH, the fake model servers, the real SQLite
//! file. Two remote workspaces (one with a Codex profile, one with a Claude profile): the
//! sidebar and the session header name the host; in each, a command the agent runs on the
//! host asks here, is approved from the card, and runs there. Then "Add remote workspace…":
//! the host's folders are browsed over SSH, the home folder is refused in the dialog with
//! the reason, a project folder is added. Settings checks the engines on the host. Light and
//! dark; screenshots in `target/test-artifacts/remote_{light,dark}/`.
// The suite's sshd and its process checks are Unix's.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::time::Duration;

use agentdesk_protocol::ui::{Engine, ProfileSpec};
use agentdesk_tests::e2e::{BoxError, WindowTest};
use agentdesk_tests::fake_messages::{self, FakeMessages};
use agentdesk_tests::fake_responses::{self, FakeResponses};
use agentdesk_tests::light_and_dark;
use agentdesk_tests::real::{engine_bin, skip_or_fail};
use agentdesk_tests::sshd::{self, Sshd};

const STREAM: Duration = Duration::from_secs(90);
const SUITE: &str = "remote window E2E";

light_and_dark!(
    remote_workspaces_run_on_the_host_light,
    remote_workspaces_run_on_the_host_dark,
    "remote",
    ("CODEX_BIN", "remote window E2E (codex)", 240),
    scenario
);

fn s(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

async fn scenario(mut w: WindowTest<'_>) -> Result<(), BoxError> {
    if let Some(why) = sshd::unavailable() {
        skip_or_fail(SUITE, &why);
        w.env.passed();
        return Ok(());
    }
    let Some(claude) = engine_bin("CLAUDE_BIN", SUITE) else {
        w.env.passed();
        return Ok(());
    };
    let codex = w.bin.clone();
    let root = w.env.root.clone();
    let alias = format!("devbox-{}", std::process::id() % 10_000);
    let server = Sshd::start(
        env!("CARGO_TARGET_TMPDIR"),
        &root,
        &alias,
        &[("codex", &codex), ("claude", &claude)],
    );
    let responses = FakeResponses::start().await?;
    let messages = FakeMessages::start().await?;

    // Two folders on the host, each a workspace with its engine's profile.
    let (codex_work, claude_work) = (root.join("1-codex"), root.join("2-claude"));
    let home = root.join("home");
    let tmp =
        std::path::PathBuf::from("/tmp").join(format!("adr-{}", uuid::Uuid::new_v4().simple()));
    for d in [&codex_work, &claude_work, &home.join(".claude"), &tmp] {
        std::fs::create_dir_all(d)?;
    }
    std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(&codex_work)
        .status()?;
    let desk = agentdesk_core::Desk::open(&w.env.data_dir).await?;
    desk.set_engine_settings(
        &agentdesk_core::EngineSettings::default()
            .with_bin("codex", codex.clone())
            .with_bin("claude", claude.clone()),
    )
    .await?;
    let mut codex_spec = ProfileSpec::new("codex on the host", Engine::Codex);
    codex_spec.model = Some("gpt-5.5".into());
    codex_spec.base_url = Some(responses.base_url());
    codex_spec.api_key_env = Some("MOCK_API_KEY".into());
    for (k, v) in [
        ("MOCK_API_KEY", "dummy".to_string()),
        ("HOME", s(&home)),
        ("NO_PROXY", "127.0.0.1,localhost".to_string()),
    ] {
        codex_spec.env.insert(k.into(), v);
    }
    codex_spec.engine_options = serde_json::json!({
        "codexHome": s(&home), "requestMaxRetries": 0, "streamMaxRetries": 0,
    });
    let mut claude_spec = ProfileSpec::new("claude on the host", Engine::Claude);
    claude_spec.model = Some(fake_messages::FAKE_MODEL.into());
    claude_spec.base_url = Some(messages.base_url());
    claude_spec.api_key_env = Some(agentdesk_tests::real::CLAUDE_KEY_ENV.into());
    claude_spec
        .env
        .extend(agentdesk_tests::real::claude_env(&home, &tmp));
    claude_spec
        .env
        .insert(agentdesk_tests::real::CLAUDE_KEY_ENV.into(), "dummy".into());
    for (work, spec) in [(&codex_work, &codex_spec), (&claude_work, &claude_spec)] {
        let ws = desk.add_workspace(&server.url(work), None).await?;
        let profile = desk.create_profile(&ws.id, spec).await?;
        desk.set_default_profile(&profile.id).await?;
    }
    desk.shutdown().await;
    desk.close().await;

    let artifacts = &w.artifacts;
    let shot = |name: &str| artifacts.join(format!("{name}.png"));
    let app = w.desktop.launch(&w.env, "app", artifacts).await?;
    app.collect_js_errors().await?;

    // The sidebar names the host.
    let listed = app
        .wait_for_text_containing("[data-testid=workspace-list]", "2-claude", STREAM)
        .await;
    app.on_error(artifacts, listed).await?;
    let paths = app
        .script_strings("return [...document.querySelectorAll('[data-testid=workspace-path]')].map(e => e.textContent)")
        .await?;
    assert_eq!(
        paths,
        vec![
            format!("{alias}:{}", s(&codex_work)),
            format!("{alias}:{}", s(&claude_work))
        ]
    );

    // Codex on the host: the command asks here, approved from the card, runs there.
    responses.push(fake_responses::Reply::exec_command(
        "call_remote_e2e",
        "touch codex-was-here.txt",
    ));
    responses.push(fake_responses::Reply::text(&["Codex made it on the host."]));
    app.open_new_session(artifacts).await?;
    let header = app.css_text(".session-header .host-tag").await?;
    assert!(header.contains(&alias), "{header}");
    app.send_message("Make the file on the host").await?;
    let card = app
        .wait_for_text_containing("[role=log]", "touch codex-was-here.txt", STREAM)
        .await;
    app.on_error(artifacts, card).await?;
    app.screenshot(&shot("01-codex-asks")).await?;
    app.press("Approve once").await?;
    app.run_ends(artifacts, "Completed", STREAM).await?;
    app.wait_for_timeline("Codex made it on the host.", STREAM)
        .await?;
    assert!(
        codex_work.join("codex-was-here.txt").exists(),
        "the approved command did not run on the host"
    );

    // Claude Code on the host, in the second workspace.
    messages.push(fake_messages::Reply::bash(
        "toolu_remote_e2e",
        "touch claude-was-here.txt",
    ));
    messages.push(fake_messages::Reply::text(&["Claude made it on the host."]));
    // Clicked in the page: the sidebar redraws as the first run's session updates, so an
    // element found first could be replaced before a WebDriver click reaches it.
    app.find("[data-testid=workspace-item]:nth-child(2) [data-testid=new-session]")
        .await?;
    app.client
        .execute(
            "document.querySelector(arguments[0]).click(); return true",
            vec!["[data-testid=workspace-item]:nth-child(2) [data-testid=new-session]".into()],
        )
        .await?;
    // The new session's view settles (its engine's capabilities, its profile) before the
    // message box keeps its node: typing is retried on a replaced one.
    let mut tries = 0;
    loop {
        tries += 1;
        let typed = async {
            let message = app.find("textarea[aria-label=Message]").await?;
            message.clear().await?;
            message.send_keys("Make the file on the host too").await?;
            Ok::<_, BoxError>(())
        }
        .await;
        match typed {
            Ok(()) => break,
            Err(e) if tries < 5 => {
                eprintln!("typing retried: {e}");
                tokio::time::sleep(Duration::from_millis(300)).await;
            }
            Err(e) => return Err(e),
        }
    }
    app.press("Send").await?;
    let card = app
        .wait_for_text_containing("[role=log]", "touch claude-was-here.txt", STREAM)
        .await;
    app.on_error(artifacts, card).await?;
    app.press("Approve once").await?;
    app.run_ends(artifacts, "Completed", STREAM).await?;
    app.wait_for_timeline("Claude made it on the host.", STREAM)
        .await?;
    assert!(
        claude_work.join("claude-was-here.txt").exists(),
        "the approved command did not run on the host"
    );
    app.screenshot(&shot("02-claude-done")).await?;

    // Add remote workspace…: browse the host, the home folder refused, a project added.
    let project = server.home.join("project");
    std::fs::create_dir_all(project.join("src"))?;
    app.press("Add remote workspace…").await?;
    let host_box = app
        .find("[role=dialog] input[placeholder^='user@host']")
        .await?;
    host_box.send_keys(&alias).await?;
    app.press("Browse").await?;
    let listed = app
        .wait_for_text_containing("[role=dialog] ul", "project", STREAM)
        .await;
    let listed = app.on_error(artifacts, listed).await?;
    assert!(listed.contains("bin"), "{listed}");
    app.screenshot(&shot("03-browse-host")).await?;
    app.press("Add workspace").await?;
    let refused = app
        .wait_for_text_containing("[role=dialog] [role=alert]", "home folder", STREAM)
        .await;
    app.on_error(artifacts, refused).await?;
    app.press("project").await?;
    app.wait_for_text_containing("[role=dialog] .remote-browser-path", "/project", STREAM)
        .await?;
    app.press("Add workspace").await?;
    // In the list (the dialog itself shows the path too, while the add is under way).
    let added = app
        .wait_for_text_containing(
            "[data-testid=workspace-path]",
            &format!("{alias}:{}", s(&project)),
            STREAM,
        )
        .await;
    app.on_error(artifacts, added).await?;

    // Settings: the engines on the host.
    app.press("Settings").await?;
    let host_section = format!("[aria-label='Engines on {alias}']");
    let shown = app
        .wait_for_text_containing(&host_section, &alias, STREAM)
        .await;
    app.on_error(artifacts, shown).await?;
    let check = app.press("Check engines").await;
    app.on_error(artifacts, check).await?;
    let checked = app
        .wait_for_text_containing(
            &format!("[aria-label='Engines on {alias}']"),
            "logged in",
            STREAM,
        )
        .await;
    let checked = app.on_error(artifacts, checked).await?;
    assert!(checked.contains("0.169.0"), "{checked}");
    assert!(
        checked.contains(&s(&server.home.join("bin/claude"))),
        "{checked}"
    );
    app.client
        .execute(
            "document.querySelector(arguments[0]).scrollIntoView({block: 'start'}); return true",
            vec![format!("[aria-label='Engines on {alias}']").into()],
        )
        .await?;
    app.screenshot(&shot("04-settings-host")).await?;
    app.quit().await?;
    drop(server);
    w.env.passed();
    Ok(())
}
