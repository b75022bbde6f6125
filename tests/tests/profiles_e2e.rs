//! The profiles editor, end to end: the real app under Xvfb (tauri-driver + WebKitWebDriver),
//! the real pinned `codex` against the fake Responses API on 127.0.0.1, the real SQLite file.
//! A user opens a workspace's profiles, sees its secret masked (and the window never gets
//! it in clear), saves a bad base URL and reads the core's error next to the field, then
//! changes the model and the system prompt: the next run sends exactly those to the model,
//! and the secret is still the stored one. A new base URL needs the user's confirmation in a
//! native dialog (dismissed here: not saved, from the form or from a script in the page). Then duplicate, set default and delete (with its
//! confirmation), in the dark look. Screenshots land in `target/test-artifacts/profiles/`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::time::Duration;

use agentdesk_protocol::ui::SECRET_MASK;
use agentdesk_tests::e2e::{
    artifacts_dir, prepare_codex_workspace, prerequisites, AppEnv, AppSession, BoxError, Desktop,
    Prerequisites,
};
use agentdesk_tests::fake_responses::{FakeResponses, Reply};
use agentdesk_tests::real::engine_bin;
use agentdesk_tests::xwindow::dismiss_native_dialog;

const TEST: &str = "profiles";
const STREAM: Duration = Duration::from_secs(90);
const SECRET: &str = "s3cret-e2e-token-value";
const NEW_MODEL: &str = "gpt-5.5-profile-edit";
const PROMPT: &str = "Answer like a ship's log. PROFILE-E2E-PROMPT";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_profile_edited_in_the_window_is_the_one_the_next_run_uses() {
    let Some(pre) = prerequisites(TEST) else {
        return;
    };
    let Some(bin) = engine_bin("CODEX_BIN", "profiles E2E") else {
        return;
    };
    scenario(pre, bin).await.unwrap();
}

/// What the window can get from the shell, as JSON text: the profile listing (the editor's
/// and the session switcher's, one command since they were merged). Started by
/// one script and read by polling (a plain `execute`), so a slow answer cannot block the
/// WebDriver session.
async fn listings(app: &AppSession, workspace_id: &str) -> Result<String, BoxError> {
    const START: &str = r#"
        const [id] = arguments;
        window.__profilesListing = null;
        const t = window.__TAURI_INTERNALS__;
        t.invoke('list_profiles', { workspaceId: id }).then(
          (r) => { window.__profilesListing = JSON.stringify(r); },
          (e) => { window.__profilesListing = 'ERROR ' + JSON.stringify(e); });
        return true;
    "#;
    app.client.execute(START, vec![workspace_id.into()]).await?;
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        let v = app
            .client
            .execute("return window.__profilesListing", vec![])
            .await?;
        if let Some(text) = v.as_str() {
            assert!(!text.starts_with("ERROR"), "{text}");
            return Ok(text.to_string());
        }
        if std::time::Instant::now() > deadline {
            return Err("the profile listings did not answer".into());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Replace the text of the input at `css`. The editor may redraw while it loads (the
/// engine's models arrive, the list refreshes after a run): an input replaced under the
/// typing is found again and typed into afresh.
async fn replace_text(app: &AppSession, css: &str, text: &str) -> Result<(), BoxError> {
    let mut attempt = 0;
    loop {
        attempt += 1;
        let typed: Result<Option<String>, BoxError> = async {
            let input = app.find(css).await?;
            input.clear().await?;
            if !text.is_empty() {
                input.send_keys(text).await?;
            }
            Ok(input.prop("value").await?)
        }
        .await;
        match typed {
            Ok(v) if v.as_deref() == Some(text) => return Ok(()),
            Ok(v) if attempt >= 5 => return Err(format!("{css}: {v:?}, not {text:?}").into()),
            Err(e) if attempt >= 5 => return Err(e),
            _ => tokio::time::sleep(Duration::from_millis(300)).await,
        }
    }
}

async fn scenario(pre: Prerequisites, bin: PathBuf) -> Result<(), BoxError> {
    let artifacts = artifacts_dir(TEST);
    let desktop = Desktop::start(pre)?;
    let mut env = AppEnv::new(TEST)?;
    let fake = FakeResponses::start().await?;
    let ws = prepare_codex_workspace(&env, bin, fake.base_url(), |spec| {
        spec.env.insert("SECRET_TOKEN".into(), SECRET.into());
        spec.secret_env = vec!["SECRET_TOKEN".into()];
    })
    .await?;
    let workspace_id = ws.workspace_id.clone();
    ws.desk.close().await;
    fake.push(Reply::text(&["Logged: the profile took effect."]));

    let app = desktop.launch(&env, "light", &artifacts).await?;
    app.collect_js_errors().await?;
    let r = light(
        &app,
        &artifacts,
        workspace_id.as_str(),
        &fake,
        desktop.display_name(),
    )
    .await;
    app.on_error(&artifacts, r).await?;
    app.quit().await?;

    // The masked secret came back untouched: the stored value is the one set up, and the
    // edit is stored.
    let desk = agentdesk_core::Desk::open(&env.data_dir).await?;
    let stored = desk.list_profiles(&workspace_id).await?;
    desk.close().await;
    assert_eq!(stored.len(), 1);
    assert_eq!(stored[0].spec.env["SECRET_TOKEN"], SECRET);
    assert_eq!(stored[0].spec.model.as_deref(), Some(NEW_MODEL));
    // The endpoint change that was not confirmed in the native dialog was not saved.
    assert_eq!(
        stored[0].spec.base_url.as_deref(),
        Some(fake.base_url().as_str())
    );

    env.extra
        .push(("GTK_THEME".to_string(), "Adwaita:dark".to_string()));
    let app = desktop.launch(&env, "dark", &artifacts).await?;
    app.collect_js_errors().await?;
    let r = dark(&app, &artifacts).await;
    app.on_error(&artifacts, r).await?;
    app.quit().await?;
    env.passed();
    Ok(())
}

async fn light(
    app: &AppSession,
    artifacts: &std::path::Path,
    workspace_id: &str,
    fake: &FakeResponses,
    display: &str,
) -> Result<(), BoxError> {
    eprintln!("step: open the profiles");
    app.button("Profiles for demo").await?.click().await?;

    // The secret is masked in the form, as a password field, and nowhere in the page or in
    // what the shell hands the window.
    let secret = app
        .find_xpath("//input[@aria-label='Value of SECRET_TOKEN']")
        .await?;
    assert_eq!(secret.prop("type").await?.as_deref(), Some("password"));
    assert_eq!(secret.prop("value").await?.as_deref(), Some(SECRET_MASK));
    eprintln!("step: the page");
    let page = app
        .client
        .execute("return document.documentElement.outerHTML", vec![])
        .await?;
    let page = page.as_str().unwrap_or_default();
    eprintln!("step: the listings");
    assert!(!page.contains(SECRET), "the page holds the secret");
    let listed = listings(app, workspace_id).await?;
    assert!(listed.contains(SECRET_MASK), "{listed}");
    assert!(
        !listed.contains(SECRET),
        "the shell sent the secret: {listed}"
    );
    // The model is picked from what the real codex lists (`model/list`), with its efforts.
    eprintln!("step: the engine's models");
    app.wait_for_text_containing(".profile-field", "Reasoning effort", STREAM)
        .await?;
    let listed_models = app
        .script_strings("return [...document.querySelectorAll('#profile-modelChoice option')].map(o => o.value)")
        .await?;
    assert!(
        listed_models.iter().any(|m| m == "gpt-5.5"),
        "{listed_models:?}"
    );
    let efforts = app
        .script_strings("return [...document.querySelectorAll('#profile-engineOptions_reasoningEffort option')].map(o => o.value)")
        .await?;
    assert!(efforts.iter().any(|e| e == "high"), "{efforts:?}");
    app.screenshot(&artifacts.join("00-profiles-light.png"))
        .await?;

    eprintln!("step: a bad base URL");
    // A bad base URL: the core's message, next to the field, and nothing saved.
    replace_text(app, "#profile-baseUrl", "htp://127.0.0.1:9/v1").await?;
    app.button("Save profile").await?.click().await?;
    let said = app
        .wait_for_text_containing(
            "[data-field-error=baseUrl]",
            "must start with http:// or https://",
            Duration::from_secs(20),
        )
        .await?;
    assert!(said.contains("htp://127.0.0.1:9/v1"), "{said}");
    let base = app.find("#profile-baseUrl").await?;
    assert_eq!(base.attr("aria-invalid").await?.as_deref(), Some("true"));
    assert_eq!(
        base.attr("aria-describedby").await?.as_deref(),
        Some("profile-baseUrl-error")
    );
    app.screenshot(&artifacts.join("01-bad-base-url-light.png"))
        .await?;

    // Fixed, with a new model and a system prompt.
    replace_text(app, "#profile-baseUrl", &fake.base_url()).await?;
    // A model the engine does not list: "Another model", then its name.
    app.choose("#profile-modelChoice", "\u{0}custom").await?;
    replace_text(app, "#profile-model", NEW_MODEL).await?;
    replace_text(app, "#profile-systemPrompt", PROMPT).await?;
    app.choose("#profile-engineOptions_reasoningEffort", "high")
        .await?;
    let chosen = app.find("#profile-engineOptions_reasoningEffort").await?;
    assert_eq!(chosen.prop("value").await?.as_deref(), Some("high"));
    app.button("Save profile").await?.click().await?;
    app.wait_for_text(".profile-status", "Saved.").await?;
    assert!(app
        .client
        .find_all(fantoccini::Locator::Css("[data-field-error]"))
        .await?
        .is_empty());
    app.screenshot(&artifacts.join("02-saved-light.png"))
        .await?;

    eprintln!("step: the next run");
    // The next run uses it: the model server sees the new model and the prompt.
    app.button("New session").await?.click().await?;
    let message = app.find("textarea[aria-label=Message]").await?;
    message.send_keys("Which profile is this?").await?;
    app.button("Send").await?.click().await?;
    app.wait_for_last_run_status("Completed", STREAM).await?;
    let requests: Vec<_> = fake
        .requests()
        .into_iter()
        .filter(|r| r.path.ends_with("/responses"))
        .collect();
    assert!(!requests.is_empty(), "no model request");
    let body = &requests[0].body;
    assert_eq!(body["model"], NEW_MODEL, "{body:#}");
    assert_eq!(body["reasoning"]["effort"], "high", "{body:#}");
    assert!(
        body.to_string().contains("PROFILE-E2E-PROMPT"),
        "the system prompt is not in the request: {body:#}"
    );
    assert!(
        !body.to_string().contains(SECRET),
        "the secret reached the model"
    );
    app.screenshot(&artifacts.join("03-run-light.png")).await?;

    eprintln!("step: a new endpoint");
    // Issue 19 item 7: another base URL (where the key variable's key would go) is saved
    // only after the user confirms it in a native dialog, which the page cannot answer.
    // Dismissed: not saved, and the editor says why next to the field.
    app.button("Profiles for demo").await?.click().await?;
    app.find("#profile-model").await?;
    // The engine's models arrive after the editor shows: typed into once it has redrawn.
    app.wait_for_text_containing(".profile-field", "Reasoning effort", STREAM)
        .await?;
    replace_text(app, "#profile-baseUrl", COLLECTOR).await?;
    app.button("Save profile").await?.click().await?;
    dismiss_native_dialog(display, CONFIRM_TITLE).await?;
    app.wait_for_text_containing(
        "[data-field-error=baseUrl]",
        "not confirmed",
        Duration::from_secs(20),
    )
    .await?;
    app.screenshot(&artifacts.join("05-endpoint-not-confirmed-light.png"))
        .await?;
    // A script in the page calling the shell itself (what a compromised page would do) gets
    // the same dialog; dismissed again, nothing is saved.
    const START: &str = r#"
        const [id, url] = arguments;
        window.__update = null;
        const t = window.__TAURI_INTERNALS__;
        t.invoke('list_profiles', { workspaceId: id })
          .then((ps) => {
            const { id, workspaceId, isDefault, createdAt, updatedAt, ...spec } = ps[0];
            return t.invoke('update_profile', { id, spec: { ...spec, baseUrl: url } });
          })
          .then(
            () => { window.__update = 'SAVED'; },
            (e) => { window.__update = 'ERROR ' + JSON.stringify(e); });
        return true;
    "#;
    app.client
        .execute(START, vec![workspace_id.into(), COLLECTOR.into()])
        .await?;
    dismiss_native_dialog(display, CONFIRM_TITLE).await?;
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let answer = loop {
        let v = app.client.execute("return window.__update", vec![]).await?;
        if let Some(text) = v.as_str() {
            break text.to_string();
        }
        if std::time::Instant::now() > deadline {
            return Err("update_profile did not answer".into());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(
        answer.starts_with("ERROR") && answer.contains("not confirmed"),
        "{answer}"
    );
    let listed = listings(app, workspace_id).await?;
    assert!(!listed.contains(COLLECTOR), "{listed}");
    Ok(())
}

const COLLECTOR: &str = "http://127.0.0.1:9/collector";
/// The native confirmation's title (`src-tauri/src/commands/profiles.rs`).
const CONFIRM_TITLE: &str = "Confirm the profile's endpoint";

async fn dark(app: &AppSession, artifacts: &std::path::Path) -> Result<(), BoxError> {
    app.button("Profiles for demo").await?.click().await?;
    app.find("#profile-model").await?;
    app.wait_for_text_containing(".profile-field", "Reasoning effort", STREAM)
        .await?;
    app.screenshot(&artifacts.join("10-profiles-dark.png"))
        .await?;

    // Duplicate: the copy is listed, selected, and not the default.
    app.button("Duplicate").await?.click().await?;
    let copy = "codex (fake model) (copy)";
    app.wait_for_text_containing(".profiles-list", copy, Duration::from_secs(20))
        .await?;
    let name = app.find("#profile-name").await?;
    assert_eq!(name.prop("value").await?.as_deref(), Some(copy));
    let secret = app
        .find_xpath("//input[@aria-label='Value of SECRET_TOKEN']")
        .await?;
    assert_eq!(secret.prop("value").await?.as_deref(), Some(SECRET_MASK));

    // Set it as the default: the tag moves to it.
    app.button("Set as default").await?.click().await?;
    app.wait_for_text(".profile-status", "Set as the default.")
        .await?;
    app.wait_for_text_containing(
        ".profile-item[aria-current=true]",
        "default",
        Duration::from_secs(20),
    )
    .await?;

    // A bad deadline shows its error in the dark look too.
    replace_text(app, "#profile-approvalTimeoutSecs", "0").await?;
    app.button("Save profile").await?.click().await?;
    app.wait_for_text_containing(
        "[data-field-error=approvalTimeoutSecs]",
        "approval timeout must be between 1 and",
        Duration::from_secs(20),
    )
    .await?;
    app.screenshot(&artifacts.join("11-error-dark.png")).await?;

    // Delete asks first, naming the profile and what is lost.
    app.button("Delete…").await?.click().await?;
    let dialog = app.find("[role=alertdialog]").await?;
    let text = dialog.text().await?;
    assert!(
        text.contains(&format!("Delete the profile “{copy}”?")) && text.contains("saved secrets"),
        "{text}"
    );
    app.screenshot(&artifacts.join("12-delete-confirm-dark.png"))
        .await?;
    app.button("Delete profile").await?.click().await?;
    app.wait_for_text(".profile-status", "Deleted.").await?;
    // textContent: WebKitWebDriver's rendered text leaves out names clipped with an ellipsis.
    let list = app
        .find(".profiles-list ul")
        .await?
        .prop("textContent")
        .await?
        .unwrap_or_default();
    assert!(!list.contains("(copy)"), "{list}");
    assert!(list.contains("codex (fake model)"), "{list}");
    Ok(())
}
