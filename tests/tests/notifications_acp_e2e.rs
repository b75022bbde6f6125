//! An ACP agent's approval decided from the OS notification, end to end: the real app under
//! Xvfb with a private session bus, the notification-server double (`fake_notifications`,
//! with "actions") on it, the real pinned ACP agent `opencode` (the `opencode` preset) against
//! the fake Chat Completions server, the real SQLite file. opencode asks before writing a
//! file: the notification names the request and carries Approve / Deny; a press on Approve
//! writes the file, withdraws the notification, and the card says it was decided from a
//! notification; the second test decides in the window, which withdraws the notification.
//! No opencode process outlives the app. Screenshots land in
//! `target/test-artifacts/notifications_acp/`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use agentdesk_core::notify::{NotificationPrefs, NotifyWhen};
use agentdesk_tests::e2e::{
    artifacts_dir, prerequisites, AppEnv, AppSession, BoxError, Desktop, SessionBus,
};
use agentdesk_tests::e2e_acp::{prepare_acp_workspace, wait_no_opencode, AcpWorkspace};
use agentdesk_tests::fake_chat::{FakeChat, Reply};
use agentdesk_tests::fake_notifications::FakeNotifications;
use agentdesk_tests::real::{engine_bin, OPENCODE_BIN};
use fantoccini::Locator;

const STREAM: Duration = Duration::from_secs(60);
const NOTIFY: Duration = Duration::from_secs(30);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_acp_write_is_approved_from_the_notification() {
    run("notifications_acp", Decide::FromNotification).await;
}

/// The request is notified, and a decision in the window withdraws it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_acp_write_is_notified_and_a_decision_in_the_window_withdraws_it() {
    run("notifications_acp_card", Decide::FromCard).await;
}

/// Where the user approves the write.
#[derive(Clone, Copy, PartialEq)]
enum Decide {
    FromNotification,
    FromCard,
}

/// One app at a time: two windows and two agents at once starve a 2-core machine.
static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

async fn run(test: &str, decide: Decide) {
    let _one = SERIAL.lock().await;
    let Some(pre) = prerequisites(test) else {
        return;
    };
    let Some(bin) = engine_bin(OPENCODE_BIN, "notifications E2E (ACP, opencode)") else {
        return;
    };
    tokio::time::timeout(Duration::from_secs(180), scenario(test, decide, pre, bin))
        .await
        .expect("scenario timed out")
        .unwrap();
}

async fn scenario(
    test: &str,
    decide: Decide,
    pre: agentdesk_tests::e2e::Prerequisites,
    bin: PathBuf,
) -> Result<(), BoxError> {
    let artifacts = artifacts_dir(test);
    // The bus first, the notification double serving on it before the app starts (the app
    // reads the server's capabilities at start).
    let bus = SessionBus::start(&pre.dbus_daemon)?;
    let desktop = Desktop::start(pre)?;
    let notes = FakeNotifications::start(&bus.address, true).await?;
    let mut env = AppEnv::new(test)?;
    // The variables of `AppEnv` are set after the desktop's: the app talks on this bus.
    env.extra
        .push(("DBUS_SESSION_BUS_ADDRESS".into(), bus.address.clone()));
    let fake = FakeChat::start().await?;
    let p = prepare_acp_workspace(&env, bin, &fake).await?;
    // Notified whatever the focus (the window under Xvfb may or may not have it).
    p.desk
        .set_notification_prefs(&NotificationPrefs {
            approvals: NotifyWhen::Always,
            questions: NotifyWhen::Always,
            sound: false,
            ..Default::default()
        })
        .await?;
    p.desk.close().await;
    let app = desktop.launch(&env, "app", &artifacts).await?;
    app.collect_js_errors().await?;
    let r = steps(&app, &notes, &fake, &p, &artifacts, decide).await;
    let r = app.on_error(&artifacts, r).await;
    if r.is_err() {
        eprintln!("notification calls: {:#?}", notes.calls());
    }
    r?;
    app.quit().await?;
    wait_no_opencode(&p.opencode_config, Duration::from_secs(15)).await?;
    env.passed();
    Ok(())
}

/// The text of every approval card, in order.
async fn cards(app: &AppSession) -> Result<Vec<String>, BoxError> {
    let mut out = Vec::new();
    for c in app
        .client
        .find_all(Locator::XPath(
            "//*[@role='group' and @aria-label='Approval']",
        ))
        .await?
    {
        out.push(c.prop("textContent").await?.unwrap_or_default());
    }
    Ok(out)
}

/// Click a card's button, retried when the card was re-rendered under the click (the
/// request arrives as the notification does).
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

async fn wait_for_file(path: &Path) -> Result<(), BoxError> {
    let deadline = Instant::now() + STREAM;
    while !path.exists() {
        if Instant::now() > deadline {
            return Err(format!("{} never appeared", path.display()).into());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    Ok(())
}

async fn steps(
    app: &AppSession,
    notes: &FakeNotifications,
    fake: &FakeChat,
    p: &AcpWorkspace,
    artifacts: &Path,
    decide: Decide,
) -> Result<(), BoxError> {
    app.find("[data-testid=workspace-item]").await?;
    app.button("New session").await?.click().await?;
    let file = p.work.join("notified.txt");
    fake.push(Reply::write(
        "call_n1",
        &file.to_string_lossy(),
        "written after the approval\n",
    ));
    fake.push(Reply::text(&["Wrote ", "notified.txt."]));
    let message = app.find("textarea[aria-label=Message]").await?;
    message.send_keys("Create notified.txt").await?;
    app.button("Send").await?.click().await?;

    // The notification says who asks, where and what, with the buttons that decide.
    let n = notes.wait_for_notify(1, NOTIFY).await?;
    assert!(
        n.summary.contains("ACP agent asks to change files"),
        "{n:?}"
    );
    assert!(n.body.contains("demo · "), "workspace and session: {n:?}");
    assert!(n.body.contains("notified.txt"), "the file: {n:?}");
    // The whole request is in the body (the file; its content is the card's diff), so the
    // notification carries the buttons that decide.
    assert_eq!(n.meanings(), ["default", "approve", "deny"], "{n:?}");
    assert!(!file.exists(), "written before the approval");
    app.screenshot(&artifacts.join("01-asked.png")).await?;

    // Approve (from the notification, or from the card): the file is written, the run
    // completes, the notification is withdrawn and the card says who decided and where.
    let by = match decide {
        Decide::FromNotification => {
            notes.invoke(n.id, n.key("approve")).await?;
            "Approved once by you, from a notification"
        }
        Decide::FromCard => {
            app.find_xpath("//*[@role='group' and @aria-label='Approval']")
                .await?;
            click(app, "Approve once").await?;
            "Approved once by you"
        }
    };
    wait_for_file(&file).await?;
    app.wait_for_text_containing(
        "[role=log][aria-label=Timeline]",
        "Wrote notified.txt.",
        STREAM,
    )
    .await?;
    app.wait_for_last_run_status("Completed", STREAM).await?;
    assert_eq!(
        std::fs::read_to_string(&file)?,
        "written after the approval\n"
    );
    notes.wait_for_close(n.id, NOTIFY).await?;
    let decided = cards(app).await?;
    assert!(decided[0].contains(by), "{decided:?}");
    if decide == Decide::FromCard {
        assert!(!decided[0].contains("from a notification"), "{decided:?}");
    }
    app.screenshot(&artifacts.join("02-approved.png")).await?;
    Ok(())
}
