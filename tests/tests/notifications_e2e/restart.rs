//! Requests an `agentdesk-cli run` left waiting when the app starts: one summary
//! notification, whose body opens the Approvals view.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_found_waiting_at_start_make_one_summary() {
    let cli = target_dir().join("debug").join("agentdesk-cli");
    if !cli.is_file() {
        assert!(
            std::env::var("CI").map(|v| v != "true").unwrap_or(true),
            "{} missing: cargo build -p agentdesk-cli",
            cli.display()
        );
        eprintln!("SKIP: {} missing", cli.display());
        return;
    }
    // An `agentdesk-cli run` on the same data waits for two answers when the app starts.
    let Some(w) = start_with(
        "notifications_restart",
        true,
        false,
        &always(),
        &[],
        async |env, work, fake| {
            let calls = (1..=2)
                .map(|i| Step::FunctionCall {
                    call_id: format!("call_r{i}"),
                    name: "exec_command".into(),
                    arguments: json!({ "cmd": format!("touch waiting{i}.txt") }).to_string(),
                })
                .collect();
            fake.push(Reply::Stream(calls));
            fake.push(Reply::text(&["Done waiting."]));
            let log = std::fs::File::create(env.root.join("cli.log"))?;
            let child = std::process::Command::new(&cli)
                .args([
                    "run",
                    "--workspace",
                    &work.to_string_lossy(),
                    "Make two files",
                ])
                .env("AGENTDESK_DATA_DIR", &env.data_dir)
                // Held open and never written: the CLI waits for its answers.
                .stdin(std::process::Stdio::piped())
                .stdout(log.try_clone()?)
                .stderr(log)
                .spawn()?;
            let held = Guarded::new("agentdesk-cli", child);
            let deadline = std::time::Instant::now() + STREAM;
            loop {
                let desk = agentdesk_core::Desk::open(&env.data_dir).await?;
                let pending = desk.store().pending_approvals().await?;
                desk.close().await;
                if pending.len() == 2 {
                    break;
                }
                if std::time::Instant::now() > deadline {
                    return Err(format!("the CLI run never waited for two: {pending:?}").into());
                }
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            Ok(Some(held))
        },
    )
    .await
    .unwrap() else {
        return;
    };
    let r = restart_scenario(&w).await;
    finish(w, r).await;
}

async fn restart_scenario(w: &World) -> Result<(), BoxError> {
    // Two requests (fewer than a burst folds): one summary, not one notification each.
    let n = w.notes.wait_for_notify(1, NOTIFY).await?;
    assert_eq!(n.summary, "2 approvals waiting", "{n:?}");
    // The CLI asks for the answers itself: the summary says where.
    assert!(n.body.contains("agentdesk-cli"), "{n:?}");
    tokio::time::sleep(Duration::from_millis(2000)).await;
    assert_eq!(w.notes.notified().len(), 1, "{:?}", w.notes.calls());
    // Its body still brings the window up (on the Approvals view).
    w.notes.invoke(n.id, "default").await?;
    w.app.find("section.approvals-view").await?;
    w.shot("restart-summary.png").await?;
    assert!(!w.work.join("waiting1.txt").exists());
    Ok(())
}
