//! Approvals decided from the OS notification, end to end: the real app under Xvfb with a
//! private session bus, the notification-server double (`fake_notifications`) on it, the
//! real pinned `codex` against the fake Responses API, the real SQLite file.
//!
//! With a server that has "actions": a command approval is notified with Approve / Deny,
//! a press decides it (the command runs, the card says "from a notification"), a second
//! press changes nothing, a dismissal leaves the request pending, a decision in the window
//! withdraws the notification, and a request a profile rule decides is never notified.
//! Without "actions": a plain notification. Issue 19 (`notifications_e2e/forged.rs`): a
//! press forged by another connection on the bus decides nothing, and a request the bubble
//! cannot show whole only opens its card. Screenshots land in
//! `target/test-artifacts/notifications_*/`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::time::Duration;

use agentdesk_core::notify::{NotificationPrefs, NotifyWhen};
use agentdesk_protocol::ui::{ApprovalKindName, ApprovalRule, RuleAction};
use agentdesk_tests::e2e::{
    artifacts_dir, prepare_codex_workspace, prerequisites, repo_root, target_dir, AppEnv,
    AppSession, BoxError, Desktop, Guarded, SessionBus,
};
use agentdesk_tests::fake_notifications::{Call, FakeNotifications, LauncherWatch, Notified};
use agentdesk_tests::fake_responses::{FakeResponses, Reply, Step};
use agentdesk_tests::real::engine_bin;
use agentdesk_tests::xwindow;
use fantoccini::Locator;
use serde_json::json;

#[path = "notifications_e2e/forged.rs"]
mod forged;
#[path = "notifications_e2e/restart.rs"]
mod restart;

const STREAM: Duration = Duration::from_secs(60);
const NOTIFY: Duration = Duration::from_secs(30);

/// A workspace with a Codex profile on the fake model that asks before commands, except
/// `mkdir` (a profile rule allows it; codex itself would ask), and notifications set to "always" (the window under
/// Xvfb may or may not have the focus; the preference makes the test independent of it).
async fn prepare(
    env: &AppEnv,
    bin: PathBuf,
    fake: &FakeResponses,
    plan_mode: bool,
    settings: &NotificationPrefs,
) -> Result<PathBuf, BoxError> {
    let ws = prepare_codex_workspace(env, bin, fake.base_url(), |spec| {
        spec.approval_rules = vec![ApprovalRule {
            kind: Some(ApprovalKindName::Command),
            tool: None,
            command_prefix: Some("mkdir".into()),
            action: RuleAction::Allow,
        }];
        spec.engine_options["planMode"] = json!(plan_mode);
    })
    .await?;
    ws.desk.set_notification_prefs(settings).await?;
    ws.desk.close().await;
    Ok(ws.work)
}

/// Requests notified whatever the focus, no sound.
fn always() -> NotificationPrefs {
    NotificationPrefs {
        approvals: NotifyWhen::Always,
        questions: NotifyWhen::Always,
        sound: false,
        ..Default::default()
    }
}

/// The `.desktop` file the Tauri bundler installs: named after `productName`
/// (tauri-bundler `linux/freedesktop`: `usr/share/applications/<productName>.desktop`).
fn bundled_desktop_entry() -> String {
    let conf: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(repo_root().join("src-tauri/tauri.conf.json")).unwrap(),
    )
    .unwrap();
    conf["productName"].as_str().unwrap().to_string()
}

struct World {
    // Field order is drop order: the app goes before its bus and display.
    app: AppSession,
    notes: FakeNotifications,
    badge: LauncherWatch,
    fake: FakeResponses,
    work: PathBuf,
    artifacts: PathBuf,
    env: AppEnv,
    /// Another process on the same data (an `agentdesk-cli run`).
    _held: Option<Guarded>,
    bus: SessionBus,
    desktop: Desktop,
}

/// The app on a bus of its own, where the notification double is already serving (the app
/// reads the server's capabilities at start).
async fn start(test: &str, actions: bool, plan_mode: bool) -> Result<Option<World>, BoxError> {
    start_with(test, actions, plan_mode, &always(), &[], async |_, _, _| {
        Ok(None)
    })
    .await
}

/// `before_launch` runs with the prepared data dir, workspace and model, before the app
/// starts; a process it returns lives as long as the test. `app_env`: more variables for the
/// app.
async fn start_with(
    test: &str,
    actions: bool,
    plan_mode: bool,
    settings: &NotificationPrefs,
    app_env: &[(&str, &str)],
    before_launch: impl AsyncFnOnce(
        &AppEnv,
        &PathBuf,
        &FakeResponses,
    ) -> Result<Option<Guarded>, BoxError>,
) -> Result<Option<World>, BoxError> {
    let Some(pre) = prerequisites(test) else {
        return Ok(None);
    };
    let Some(bin) = engine_bin("CODEX_BIN", "notifications E2E") else {
        return Ok(None);
    };
    let artifacts = artifacts_dir(test);
    let bus = SessionBus::start(&pre.dbus_daemon)?;
    let desktop = Desktop::start(pre)?;
    let notes = FakeNotifications::start(&bus.address, actions).await?;
    let badge = LauncherWatch::start(&bus.address)?;
    let mut env = AppEnv::new(test)?;
    // The variables of `AppEnv` are set after the desktop's: the app talks on this bus.
    env.extra
        .push(("DBUS_SESSION_BUS_ADDRESS".into(), bus.address.clone()));
    env.extra
        .extend(app_env.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    let fake = FakeResponses::start().await?;
    let work = prepare(&env, bin, &fake, plan_mode, settings).await?;
    let held = before_launch(&env, &work, &fake).await?;
    let app = desktop.launch(&env, "app", &artifacts).await?;
    app.client
        .execute(
            "window.__errs = []; \
             window.addEventListener('error', (e) => window.__errs.push(e.message + ' @ ' + String(e.error && e.error.stack)));",
            vec![],
        )
        .await?;
    app.find("[data-testid=workspace-item]").await?;
    app.button("New session").await?.click().await?;
    Ok(Some(World {
        app,
        notes,
        badge,
        fake,
        work,
        artifacts,
        env,
        _held: held,
        bus,
        desktop,
    }))
}

impl World {
    async fn send(&self, text: &str) -> Result<(), BoxError> {
        let message = self.app.find("textarea[aria-label=Message]").await?;
        message.send_keys(text).await?;
        self.app.button("Send").await?.click().await?;
        Ok(())
    }

    async fn timeline(&self, contains: &str) -> Result<String, BoxError> {
        self.app
            .wait_for_text_containing("[role=log][aria-label=Timeline]", contains, STREAM)
            .await
    }

    /// The text of every approval card, in order.
    async fn cards(&self) -> Result<Vec<String>, BoxError> {
        self.groups("Approval").await
    }

    /// The text of every `role=group` element named `label`, in order.
    async fn groups(&self, label: &str) -> Result<Vec<String>, BoxError> {
        let mut out = Vec::new();
        for c in self
            .app
            .client
            .find_all(Locator::XPath(&format!(
                "//*[@role='group' and @aria-label='{label}']"
            )))
            .await?
        {
            out.push(c.prop("textContent").await?.unwrap_or_default());
        }
        Ok(out)
    }

    /// Run `script` until it returns a string (bounded); that string.
    async fn poll(&self, script: &str) -> Result<String, BoxError> {
        let deadline = std::time::Instant::now() + STREAM;
        loop {
            if let Some(t) = self.app.client.execute(script, vec![]).await?.as_str() {
                return Ok(t.to_string());
            }
            if std::time::Instant::now() > deadline {
                return Err(format!("never true: {script}").into());
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Click a card's button. The card may be re-rendered while it appears (the request
    /// arrives as the notification does), so a click on a replaced element is retried.
    async fn click(&self, name: &str) -> Result<(), BoxError> {
        let mut attempt = 0;
        loop {
            attempt += 1;
            match self.app.button(name).await?.click().await {
                Ok(_) => return Ok(()),
                Err(e) if attempt < 5 => {
                    eprintln!("click on {name:?} retried: {e}");
                    tokio::time::sleep(Duration::from_millis(300)).await;
                }
                Err(e) => return Err(e.into()),
            }
        }
    }

    async fn wait_for_file(&self, name: &str) -> Result<(), BoxError> {
        let deadline = std::time::Instant::now() + STREAM;
        while !self.work.join(name).exists() {
            if std::time::Instant::now() > deadline {
                return Err(format!("{name} never appeared").into());
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        Ok(())
    }

    async fn shot(&self, name: &str) -> Result<(), BoxError> {
        self.app.screenshot(&self.artifacts.join(name)).await
    }
}

/// A picture of the window, the webview's errors and the bus calls when a step failed.
/// The end of every test here: diagnostics and a failing assertion if the scenario failed,
/// otherwise quit the app and mark the test's artifacts as passed.
async fn finish(w: World, r: Result<(), BoxError>) {
    on_error(&w, r).await.unwrap();
    let World { app, mut env, .. } = w;
    app.quit().await.unwrap();
    env.passed();
}

async fn on_error<T>(w: &World, r: Result<T, BoxError>) -> Result<T, BoxError> {
    if r.is_err() {
        let _ = w.shot("failure.png").await;
        if let Ok(errs) = w
            .app
            .client
            .execute("return window.__errs || []", vec![])
            .await
        {
            eprintln!("errors in the window: {errs:#}");
        }
        eprintln!("notification calls: {:#?}", w.notes.calls());
    }
    r
}

fn assert_names_command(n: &Notified, file: &str) {
    assert!(n.summary.contains("Codex asks to run a command"), "{n:?}");
    assert!(n.body.contains("demo · "), "workspace and session: {n:?}");
    assert!(
        n.body.contains(&format!("touch {file}")),
        "the command: {n:?}"
    );
    assert!(n.body.contains("in /"), "the cwd: {n:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn approve_deny_dismiss_and_decide_elsewhere_from_notifications() {
    let Some(w) = start("notifications_actions", true, false).await.unwrap() else {
        return;
    };
    let r = actions_scenario(&w).await;
    finish(w, r).await;
}

async fn actions_scenario(w: &World) -> Result<(), BoxError> {
    // 1. Approve from the notification: the command runs; the card says so.
    w.fake
        .push(Reply::exec_command("call_1", "touch approved.txt"));
    w.fake.push(Reply::text(&["Done one."]));
    w.send("Make approved.txt").await?;
    let n1 = w.notes.wait_for_notify(1, NOTIFY).await?;
    assert_names_command(&n1, "approved.txt");
    assert_eq!(n1.meanings(), ["default", "approve", "deny"], "{n1:?}");
    assert_eq!(n1.actions[1].1, "Approve");
    assert_eq!(n1.actions[2].1, "Deny");
    assert!(!w.work.join("approved.txt").exists());
    // The dock badge counts it.
    w.badge.wait_for(1, NOTIFY).await?;
    // Addressed to the installed .desktop file, or no dock would show it.
    let entry = bundled_desktop_entry();
    let (uri, _, visible) = w.badge.seen().last().cloned().unwrap_or_default();
    assert_eq!(uri, format!("application://{entry}.desktop"));
    assert!(visible);
    assert_eq!(n1.desktop_entry.as_deref(), Some(entry.as_str()), "{n1:?}");
    w.shot("01-asked.png").await?;
    w.notes.invoke(n1.id, n1.key("approve")).await?;
    w.wait_for_file("approved.txt").await?;
    w.timeline("Done one.").await?;
    // Decided: the notification is withdrawn, the badge goes.
    w.notes.wait_for_close(n1.id, NOTIFY).await?;
    w.badge.wait_for(0, NOTIFY).await?;
    assert!(!w.badge.seen().last().map(|s| s.2).unwrap_or(true));
    let cards = w.cards().await?;
    assert!(
        cards[0].contains("Approved once by you, from a notification"),
        "{cards:?}"
    );
    w.shot("02-approved-from-notification.png").await?;

    // 2. A press on a request that is no longer pending changes nothing.
    w.notes.invoke(n1.id, n1.key("deny")).await?;
    tokio::time::sleep(Duration::from_millis(800)).await;
    let cards = w.cards().await?;
    assert!(
        cards[0].contains("Approved once by you, from a notification"),
        "{cards:?}"
    );

    // 3. Deny from the notification: nothing is written.
    w.fake
        .push(Reply::exec_command("call_2", "touch denied.txt"));
    w.fake.push(Reply::text(&["Done two."]));
    w.send("Make denied.txt").await?;
    let n2 = w.notes.wait_for_notify(2, NOTIFY).await?;
    assert_names_command(&n2, "denied.txt");
    w.notes.invoke(n2.id, n2.key("deny")).await?;
    w.timeline("Done two.").await?;
    assert!(!w.work.join("denied.txt").exists());
    let cards = w.cards().await?;
    assert!(
        cards[1].contains("Denied by you, from a notification"),
        "{cards:?}"
    );

    // 4. Dismissed: still pending, decided later in the window; nothing more is sent to
    //    the server about it (its notification is already gone).
    w.fake
        .push(Reply::exec_command("call_3", "touch later.txt"));
    w.fake.push(Reply::text(&["Done three."]));
    w.send("Make later.txt").await?;
    let n3 = w.notes.wait_for_notify(3, NOTIFY).await?;
    w.notes.dismiss(n3.id, 2).await?;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert!(
        !w.work.join("later.txt").exists(),
        "a dismissal never approves"
    );
    let cards = w.cards().await?;
    assert!(
        cards[2].contains("Approve once"),
        "still pending: {cards:?}"
    );
    w.shot("03-dismissed-still-pending.png").await?;
    w.click("Approve once").await?;
    w.wait_for_file("later.txt").await?;
    w.timeline("Done three.").await?;

    // 5. Decided in the window: the notification is withdrawn.
    w.fake
        .push(Reply::exec_command("call_4", "touch window.txt"));
    w.fake.push(Reply::text(&["Done four."]));
    w.send("Make window.txt").await?;
    let n4 = w.notes.wait_for_notify(4, NOTIFY).await?;
    // A click on the body brings the window back to the request's card, from elsewhere.
    w.app
        .find("[data-testid=approvals-entry]")
        .await?
        .click()
        .await?;
    w.app.find("section.approvals-view").await?;
    w.notes.invoke(n4.id, "default").await?;
    // Read in one script: the list re-renders while the view changes (stale elements).
    let card = w
        .poll(
            "if (document.querySelector('section.approvals-view')) return null; \
             const cards = [...document.querySelectorAll('[role=log][aria-label=Timeline] [role=group][aria-label=Approval]')]; \
             const c = cards.find((c) => c.textContent.includes('touch window.txt')); \
             return c ? c.textContent : null;",
        )
        .await?;
    assert!(card.contains("Approve once"), "{card}");
    w.shot("04-opened-from-notification.png").await?;
    assert!(
        !w.notes.closed().contains(&n4.id),
        "opening the card decides nothing"
    );
    w.click("Approve once").await?;
    w.notes.wait_for_close(n4.id, NOTIFY).await?;
    w.wait_for_file("window.txt").await?;
    w.timeline("Done four.").await?;
    assert!(
        !w.notes.closed().contains(&n3.id),
        "a dismissed notification is not closed again"
    );

    // 6. A request a profile rule decides is never notified.
    w.fake.push(Reply::exec_command("call_5", "mkdir ruled"));
    w.fake.push(Reply::text(&["Done five."]));
    w.send("Make the ruled dir").await?;
    w.timeline("Done five.").await?;
    assert!(w.work.join("ruled").is_dir());
    let cards = w.cards().await?;
    assert!(
        cards.iter().any(|c| c.contains("by a profile rule")),
        "the rule decided a real request: {cards:?}"
    );
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(
        w.notes.notified().len(),
        4,
        "no Notify for a rule-decided request: {:?}",
        w.notes.calls()
    );
    w.shot("05-end.png").await?;
    Ok(())
}

/// `AGENTDESK_NOTIFICATIONS=plugin`: the path macOS and Windows take (tauri-plugin-notification
/// and its action types), here over the plugin's own session-bus connection.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_plugin_backend_carries_approve_and_deny() {
    // With sound: the plugin path passes the preference on too.
    let settings = NotificationPrefs {
        sound: true,
        ..always()
    };
    let Some(w) = start_with(
        "notifications_plugin",
        true,
        false,
        &settings,
        &[("AGENTDESK_NOTIFICATIONS", "plugin")],
        async |_, _, _| Ok(None),
    )
    .await
    .unwrap() else {
        return;
    };
    let r = plugin_scenario(&w).await;
    finish(w, r).await;
}

async fn plugin_scenario(w: &World) -> Result<(), BoxError> {
    // 1. Approve: the buttons come from the plugin's action type ("Open" first, so a
    //    click on macOS's "Options" menu button opens the card instead of approving), then
    //    the body click the plugin adds itself.
    w.fake
        .push(Reply::exec_command("call_1", "touch plugin.txt"));
    w.fake.push(Reply::text(&["Done one."]));
    w.send("Make plugin.txt").await?;
    let n1 = w.notes.wait_for_notify(1, NOTIFY).await?;
    assert_names_command(&n1, "plugin.txt");
    assert_eq!(
        n1.meanings(),
        ["open", "approve", "deny", "default"],
        "{n1:?}"
    );
    assert_eq!(n1.actions[1].1, "Approve");
    assert_eq!(n1.actions[2].1, "Deny");
    assert!(n1.hints.iter().any(|h| h == "sound-name"), "{n1:?}");
    // The direct path was not taken: it reads the capabilities first.
    let calls = w.notes.calls();
    assert!(
        !calls.iter().any(|c| matches!(c, Call::GetCapabilities)),
        "{calls:?}"
    );
    assert!(!w.work.join("plugin.txt").exists());
    // The constant key of old decides nothing on this path either.
    w.notes.invoke(n1.id, "approve").await?;
    tokio::time::sleep(Duration::from_millis(800)).await;
    assert!(
        !w.work.join("plugin.txt").exists(),
        "a constant key approved"
    );
    w.notes.invoke(n1.id, n1.key("approve")).await?;
    w.wait_for_file("plugin.txt").await?;
    w.timeline("Done one.").await?;
    // Decided: withdrawn (the plugin can on Linux).
    w.notes.wait_for_close(n1.id, NOTIFY).await?;
    let cards = w.cards().await?;
    assert!(
        cards[0].contains("Approved once by you, from a notification"),
        "{cards:?}"
    );
    w.shot("01-approved-through-the-plugin.png").await?;

    // 2. Deny: nothing is written.
    w.fake
        .push(Reply::exec_command("call_2", "touch denied.txt"));
    w.fake.push(Reply::text(&["Done two."]));
    w.send("Make denied.txt").await?;
    let n2 = w.notes.wait_for_notify(2, NOTIFY).await?;
    assert_names_command(&n2, "denied.txt");
    w.notes.invoke(n2.id, n2.key("deny")).await?;
    w.timeline("Done two.").await?;
    assert!(!w.work.join("denied.txt").exists());
    let cards = w.cards().await?;
    assert!(
        cards[1].contains("Denied by you, from a notification"),
        "{cards:?}"
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_without_actions_gets_a_plain_notification() {
    let Some(w) = start("notifications_plain", false, false).await.unwrap() else {
        return;
    };
    let r = plain_scenario(&w).await;
    finish(w, r).await;
}

async fn plain_scenario(w: &World) -> Result<(), BoxError> {
    w.fake
        .push(Reply::exec_command("call_1", "touch plain.txt"));
    w.fake.push(Reply::text(&["Done plain."]));
    w.send("Make plain.txt").await?;
    let n = w.notes.wait_for_notify(1, NOTIFY).await?;
    assert_names_command(&n, "plain.txt");
    assert!(n.actions.is_empty(), "no buttons: {n:?}");
    // Decided in the window, the plain notification is withdrawn too.
    w.click("Approve once").await?;
    w.notes.wait_for_close(n.id, NOTIFY).await?;
    w.wait_for_file("plain.txt").await?;
    w.timeline("Done plain.").await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_question_is_answered_with_an_option_button() {
    let Some(w) = start("notifications_question", true, true).await.unwrap() else {
        return;
    };
    let r = question_scenario(&w).await;
    finish(w, r).await;
}

async fn question_scenario(w: &World) -> Result<(), BoxError> {
    let questions = json!({"questions": [{
        "id": "colour",
        "header": "Colour",
        "question": "Which colour?",
        "options": [
            {"label": "Red", "description": "warm"},
            {"label": "Blue", "description": "cold"}
        ]
    }]});
    w.fake.push(Reply::Stream(vec![Step::FunctionCall {
        call_id: "call_q".into(),
        name: "request_user_input".into(),
        arguments: questions.to_string(),
    }]));
    w.fake.push(Reply::text(&["Blue it is."]));
    w.send("Pick a colour with me").await?;
    let n = w.notes.wait_for_notify(1, NOTIFY).await?;
    assert!(n.summary.contains("Codex asks a question"), "{n:?}");
    assert!(n.body.contains("Which colour?"), "{n:?}");
    assert_eq!(n.meanings(), ["default", "option:0", "option:1"], "{n:?}");
    assert_eq!(n.actions[1].1, "Red");
    assert_eq!(n.actions[2].1, "Blue");
    // Each option's description is shown with it: the whole question is on the bubble.
    assert!(n.body.contains("Red: warm"), "{n:?}");
    w.notes.invoke(n.id, n.key("option:1")).await?;
    w.timeline("Blue it is.").await?;
    w.notes.wait_for_close(n.id, NOTIFY).await?;
    let cards = w.groups("Question").await?;
    assert!(
        cards[0].contains("Answered by you, from a notification"),
        "{cards:?}"
    );
    // The answer reached the model as the tool's output.
    let requests = w.fake.requests();
    let output = requests
        .last()
        .map(|r| serde_json::to_string(&r.input_items("function_call_output")).unwrap_or_default())
        .unwrap_or_default();
    assert!(output.contains("Blue"), "{output}");
    w.shot("question-answered.png").await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_burst_of_requests_makes_one_summary() {
    let Some(w) = start("notifications_burst", true, false).await.unwrap() else {
        return;
    };
    let r = burst_scenario(&w).await;
    finish(w, r).await;
}

async fn burst_scenario(w: &World) -> Result<(), BoxError> {
    // One model turn asking for three commands at once: codex asks all three together.
    let calls = (1..=3)
        .map(|i| Step::FunctionCall {
            call_id: format!("call_b{i}"),
            name: "exec_command".into(),
            arguments: json!({ "cmd": format!("touch burst{i}.txt") }).to_string(),
        })
        .collect();
    w.fake.push(Reply::Stream(calls));
    w.fake.push(Reply::text(&["Done burst."]));
    w.send("Make three files").await?;
    let n = w.notes.wait_for_notify(1, NOTIFY).await?;
    assert_eq!(n.summary, "3 approvals waiting", "{n:?}");
    assert_eq!(
        n.action_keys(),
        ["default"],
        "a summary has no buttons: {n:?}"
    );
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(w.notes.notified().len(), 1, "{:?}", w.notes.calls());
    // Deciding them all withdraws the summary.
    for _ in 0..3 {
        w.click("Approve once").await?;
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    w.notes.wait_for_close(n.id, NOTIFY).await?;
    w.timeline("Done burst.").await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn by_default_only_an_unfocused_window_gets_notifications_and_run_ends() {
    // The defaults ("when unfocused" for requests and run ends), every run long enough.
    let settings = NotificationPrefs {
        sound: false,
        run_min_secs: 0,
        ..Default::default()
    };
    assert_eq!(settings.approvals, NotifyWhen::WhenUnfocused);
    assert_eq!(settings.runs, NotifyWhen::WhenUnfocused);
    let Some(w) = start_with(
        "notifications_focus",
        true,
        false,
        &settings,
        &[],
        async |_, _, _| Ok(None),
    )
    .await
    .unwrap() else {
        return;
    };
    let r = focus_scenario(&w).await;
    finish(w, r).await;
}

async fn focus_scenario(w: &World) -> Result<(), BoxError> {
    let display = w.desktop.display_name();
    let window = xwindow::shown_app_window(display, NOTIFY).await?;
    // 1. The user is in the window: a request and the run's end show there only.
    xwindow::focus(display, window)?;
    w.fake
        .push(Reply::exec_command("call_f1", "touch focused.txt"));
    w.fake.push(Reply::text(&["Done focused."]));
    w.send("Make focused.txt").await?;
    w.app.button("Approve once").await?;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert!(
        w.notes.notified().is_empty(),
        "focused: no Notify: {:?}",
        w.notes.calls()
    );
    w.click("Approve once").await?;
    w.wait_for_file("focused.txt").await?;
    w.timeline("Done focused.").await?;
    tokio::time::sleep(Duration::from_millis(1000)).await;
    assert!(
        w.notes.notified().is_empty(),
        "a run that ended in front of the user is not notified: {:?}",
        w.notes.calls()
    );

    // 2. The user went to another app: the request is notified, and so is the run's end.
    xwindow::unfocus(display)?;
    w.fake
        .push(Reply::exec_command("call_f2", "touch unfocused.txt"));
    w.fake.push(Reply::text(&["Done unfocused."]));
    w.send("Make unfocused.txt").await?;
    let n = w.notes.wait_for_notify(1, NOTIFY).await?;
    assert_names_command(&n, "unfocused.txt");
    w.notes.invoke(n.id, n.key("approve")).await?;
    w.wait_for_file("unfocused.txt").await?;
    w.timeline("Done unfocused.").await?;
    let end = w.notes.wait_for_notify(2, NOTIFY).await?;
    assert_eq!(end.summary, "Codex finished", "{end:?}");
    assert!(end.body.contains("demo · "), "{end:?}");
    assert!(end.body.contains("after "), "{end:?}");
    assert!(end.actions.iter().all(|(k, _)| k == "default"), "{end:?}");

    // 3. A run that fails says so.
    w.fake.push(Reply::Status(
        400,
        json!({"error": {"message": "the model is gone", "type": "invalid_request_error"}})
            .to_string(),
    ));
    w.send("Try once more").await?;
    let failed = w.notes.wait_for_notify(3, NOTIFY).await?;
    assert_eq!(failed.summary, "Codex failed", "{failed:?}");
    w.shot("focus-end.png").await?;
    Ok(())
}
