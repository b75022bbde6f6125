//! Per-run limits through the whole core, with the scripted fake CLI (`fake-claude`) and a real
//! SQLite file: a flood of garbage lines stores at most the diagnostic budget (it stored one
//! row per line), a profile's `engineOptions.inactivityTimeoutSecs` ends a run whose engine
//! went silent, with the reason on the run row, and the REAL engines over the memory limit of
//! Settings → Engines are stopped with that reason, the session going on after.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use agentdesk_core::{Desk, EngineSettings};
use agentdesk_engine::RunLimits;
use agentdesk_protocol::ids::SessionId;
use agentdesk_protocol::ui::{Engine, ItemBody, RunStatus};
use agentdesk_tests::process::rss;
use agentdesk_tests::world::{desk_with_session, fresh_root, profile_spec, version_wrapper, Fake};
use agentdesk_tests::{fake_messages, fake_responses};

const STEP: Duration = Duration::from_secs(30);

/// A desk whose Claude is `fake-claude` (behind a wrapper that answers `--version` like the
/// supported CLI), and a session on a profile running `script`.
async fn session(name: &str, script: &str, engine_options: serde_json::Value) -> (Desk, SessionId) {
    let root = fresh_root(env!("CARGO_TARGET_TMPDIR"), "run-limits", name);
    let claude = version_wrapper(
        &root,
        "claude",
        "2.1.328 (Claude Code)",
        env!("CARGO_BIN_EXE_fake-claude"),
    );
    let settings = EngineSettings::default().with_bin("claude", claude);
    let mut spec = profile_spec(name, Engine::Claude);
    spec.env = [("FAKE_CLAUDE_SCRIPT".to_string(), script.to_string())].into();
    spec.engine_options = engine_options;
    let (desk, _, session) =
        desk_with_session(&root.join("data"), &root.join("work"), &settings, &spec).await;
    (desk, session.id)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_garbage_flood_stores_at_most_the_diagnostic_budget() {
    let (desk, session) = session("flood", "garbage_flood", serde_json::json!({})).await;
    let run = desk.send_message(&session, "hi", &[]).await.unwrap();
    let run = desk.wait_run(&run.id, STEP).await.unwrap();
    assert_eq!(run.status, RunStatus::Completed, "{run:?}");
    let page = desk
        .load_timeline(&session, None, Some(5000))
        .await
        .unwrap();
    let diagnostics: Vec<&str> = page
        .items
        .iter()
        .filter_map(|i| match &i.body {
            // The adapter's notices (the budget's own two among them) are stored as notices.
            ItemBody::Diagnostic { message, .. } | ItemBody::Notice { text: message, .. } => {
                Some(message.as_str())
            }
            _ => None,
        })
        .collect();
    let max = RunLimits::default().max_diagnostics;
    // 2,000 garbage lines (+ the fake's stderr line) used to be 2,001 rows; now the budget,
    // one "suppressed" notice and the final count.
    assert!(
        diagnostics.len() <= max + 2,
        "{} diagnostics stored",
        diagnostics.len()
    );
    assert!(
        diagnostics
            .iter()
            .any(|m| m.contains("more engine diagnostics were suppressed in this run")),
        "{diagnostics:#?}"
    );
    desk.shutdown().await;
    desk.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_profile_inactivity_limit_fails_a_silent_run() {
    let (desk, session) = session(
        "silent",
        "hang",
        serde_json::json!({"inactivityTimeoutSecs": 1}),
    )
    .await;
    let t0 = std::time::Instant::now();
    let run = desk.send_message(&session, "hi", &[]).await.unwrap();
    let run = desk.wait_run(&run.id, STEP).await.unwrap();
    assert_eq!(run.status, RunStatus::Failed, "{run:?}");
    let error = run.error.unwrap_or_default();
    assert!(
        error.contains("Claude Code said nothing for 1 s; the run was stopped"),
        "{error}"
    );
    assert!(t0.elapsed() < Duration::from_secs(15), "{:?}", t0.elapsed());
    desk.shutdown().await;
    desk.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_60_mb_line_through_the_core_keeps_memory_bounded() {
    let (desk, session) = session("huge", "huge_line", serde_json::json!({})).await;
    // Reset the peak (VmHWM) to the current RSS: the peak below is this run's.
    std::fs::write("/proc/self/clear_refs", "5").unwrap();
    let (before, _) = rss();
    let run = desk.send_message(&session, "hi", &[]).await.unwrap();
    let run = desk.wait_run(&run.id, STEP).await.unwrap();
    let (_, peak) = rss();
    let growth = peak.saturating_sub(before);
    eprintln!(
        "60 MB line through the core: peak RSS grew by {:.1} MiB",
        growth as f64 / 1048576.0
    );
    assert_eq!(run.status, RunStatus::Completed, "{run:?}");
    let page = desk.load_timeline(&session, None, Some(500)).await.unwrap();
    let stored = serde_json::to_string(&page.items).unwrap();
    assert!(
        stored.contains("line of 60000000 bytes (57.2 MiB) over the 32.0 MiB limit skipped"),
        "{stored}"
    );
    assert!(stored.len() < 1024 * 1024, "{} bytes stored", stored.len());
    // The transport buffers at most its 32 MiB cap before it knows the line is too long.
    assert!(growth < 96 * 1024 * 1024, "peak RSS grew by {growth} bytes");
    desk.shutdown().await;
    desk.close().await;
}

/// An engine over the memory limit (Settings → Engines) is stopped and its run fails with
/// that reason, not as a crash; with the limit back to its default the same session goes on.
/// The REAL engines: a limit of 1 MB is passed by any of them at its first measurement.
async fn memory_limit_stops_the_engine(engine: Engine, var: &str) {
    let Some(bin) = agentdesk_tests::real::engine_bin(var, "run limits suite") else {
        return;
    };
    let root = fresh_root(
        env!("CARGO_TARGET_TMPDIR"),
        "run-limits",
        &format!("memory-{}", engine.as_str()),
    );
    let w = agentdesk_tests::world::World::new(root, engine, &bin, None, |_| {}).await;
    let limits = w.desk.set_engine_memory_limit(Some(1)).await.unwrap();
    assert_eq!(limits.memory_limit_mb, Some(1));
    assert_eq!(limits.default_memory_limit_mb, 4096);
    // An answer that takes 6 s, so that the engine is measured (every 2 s) whether it is
    // starting or streaming; only for this message (it may never be asked for).
    let every = Duration::from_millis(100);
    match &w.fake {
        Fake::Codex(f) => f.push_routed(
            "stream slowly",
            fake_responses::Reply::slow_text_then_end(60, every),
        ),
        Fake::Claude(f) => f.push_routed(
            "stream slowly",
            fake_messages::Reply::slow_text_then_end(60, every),
        ),
        Fake::Chat(_) => unreachable!("codex and claude"),
    }
    let first = w
        .desk
        .send_message(&w.session.id, "stream slowly", &[])
        .await
        .unwrap();
    let first = w.desk.wait_run(&first.id, STEP).await.unwrap();
    assert_eq!(first.status, RunStatus::Failed, "{first:?}");
    let error = first.error.unwrap_or_default();
    assert!(
        error.contains("of memory, over its limit of 1 MB (Settings → Engines)"),
        "{error}"
    );
    assert!(!error.contains("unexpectedly"), "{error}");
    // Back to the default (4 GB): the session is continued.
    let limits = w.desk.set_engine_memory_limit(None).await.unwrap();
    assert_eq!(limits.memory_limit_mb, None);
    w.push_text(&["Back within bounds."]);
    let next = w.send("hi again").await;
    w.completed(&next).await;
    assert!(w
        .agent_messages()
        .await
        .join("\n")
        .contains("Back within bounds."));
    w.finish(&[]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_over_its_memory_limit_is_stopped_and_the_session_goes_on() {
    memory_limit_stops_the_engine(Engine::Codex, "CODEX_BIN").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_over_its_memory_limit_is_stopped_and_the_session_goes_on() {
    memory_limit_stops_the_engine(Engine::Claude, "CLAUDE_BIN").await;
}

/// A command printing megabytes (`seq 1 700000`, 4.7 MB, the REAL codex running it; codex
/// hands on at most about 1 MiB of it): the timeline keeps the start and the end of what the
/// engine gave with its whole size, the whole of it is in the session's file byte for byte,
/// and deleting the session removes the file.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_command_output_is_cut_in_the_timeline_and_whole_in_a_file() {
    let Some(bin) = agentdesk_tests::real::engine_bin("CODEX_BIN", "run limits suite") else {
        return;
    };
    let root = fresh_root(env!("CARGO_TARGET_TMPDIR"), "run-limits", "long-output");
    let w = agentdesk_tests::world::World::new(root, Engine::Codex, &bin, None, |p| {
        p.permission_mode = agentdesk_protocol::ui::PermissionMode::FullAuto;
    })
    .await;
    w.push_command("call_long_1", "seq 1 700000");
    w.push_text(&["Printed."]);
    let run = w.send("print a lot").await;
    w.completed(&run).await;
    let page = w
        .desk
        .load_timeline(&w.session.id, None, Some(500))
        .await
        .unwrap();
    let (item_id, output, total) = page
        .items
        .iter()
        .find_map(|i| match &i.body {
            ItemBody::Tool {
                output,
                output_bytes,
                ..
            } if output.starts_with("1\n2\n3\n") => {
                Some((i.id.clone(), output.clone(), *output_bytes))
            }
            _ => None,
        })
        .expect("the command's item");
    let total = total.expect("the output is cut") as usize;
    assert!(total > agentdesk_core::tool_output::KEEP_WHOLE, "{total}");
    assert!(output.len() < 300 * 1024, "{} bytes kept", output.len());
    let file = w
        .desk
        .tool_output_file(&w.session.id, &item_id)
        .await
        .unwrap();
    let whole = std::fs::read_to_string(&file).unwrap();
    assert_eq!(whole.len(), total, "the file holds the whole output");
    let (head, rest) = output.split_once("\n\n[… ").expect("the cut is marked");
    let (marker, tail) = rest.split_once(" …]\n\n").expect("the mark ends");
    assert!(
        marker.contains("not shown: the whole output (1.0 MB) is in a file"),
        "{marker}"
    );
    assert!(
        whole.starts_with(head),
        "the head is the start of the output"
    );
    assert!(whole.ends_with(tail), "the tail is the end of the output");
    assert_eq!(head.len(), agentdesk_core::tool_output::HEAD);
    w.desk.delete_session(&w.session.id).await.unwrap();
    assert!(!file.exists(), "the file went with the session");
    w.finish(&[]).await;
}
