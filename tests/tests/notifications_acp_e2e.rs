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
    app_with_engine, artifacts_dir, bounded, AppEnv, AppSession, BoxError, Desktop, Prerequisites,
    SessionBus, APPROVAL_CARD,
};
use agentdesk_tests::e2e_acp::{
    prepare_acp_workspace, send_asking_to_write, wait_no_opencode, AcpWorkspace,
};
use agentdesk_tests::fake_chat::FakeChat;
use agentdesk_tests::fake_notifications::FakeNotifications;
use agentdesk_tests::real::OPENCODE_BIN;

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

async fn run(test: &str, decide: Decide) {
    let suite = "notifications E2E (ACP, opencode)";
    let Some((_turn, pre, bin)) = app_with_engine(test, OPENCODE_BIN, suite).await else {
        return;
    };
    bounded(Duration::from_secs(180), scenario(test, decide, pre, bin)).await;
}

async fn scenario(
    test: &str,
    decide: Decide,
    pre: Prerequisites,
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
    app.open_new_session(artifacts).await?;
    let file = p.work.join("notified.txt");
    let write = ("call_n1", file.as_path(), "written after the approval\n");
    send_asking_to_write(app, fake, write, &["Wrote ", "notified.txt."]).await?;

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
            app.find_xpath(APPROVAL_CARD).await?;
            app.click_retrying("Approve once").await?;
            "Approved once by you"
        }
    };
    wait_for_file(&file).await?;
    app.wait_for_timeline("Wrote notified.txt.", STREAM).await?;
    app.wait_for_last_run_status("Completed", STREAM).await?;
    assert_eq!(
        std::fs::read_to_string(&file)?,
        "written after the approval\n"
    );
    notes.wait_for_close(n.id, NOTIFY).await?;
    let decided = app.approval_cards().await?;
    assert!(decided[0].contains(by), "{decided:?}");
    if decide == Decide::FromCard {
        assert!(!decided[0].contains("from a notification"), "{decided:?}");
    }
    app.screenshot(&artifacts.join("02-approved.png")).await?;
    Ok(())
}
