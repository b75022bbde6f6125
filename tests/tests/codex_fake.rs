//! The Codex adapter against the scripted `fake-app-server`, for requests real codex will not
//! make on demand (a permissions request) and behaviour it will not show on demand (a turn
//! that goes silent, a heartbeat-only turn, a consumer that goes away mid-turn).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use std::path::{Path, PathBuf};

use agentdesk_engine::codex::{CodexEngine, CodexEngineConfig, CodexProfile, RunRequest};
use agentdesk_engine::RunLimits;
use agentdesk_protocol::approval_detail::ApprovalDetail;
use agentdesk_protocol::codex::UserInput;
use agentdesk_protocol::events::{AgentEvent, ApprovalKind, ApprovalState, UserDecision};
use serde_json::{json, Value};

const FAKE: &str = env!("CARGO_BIN_EXE_fake-app-server");
const STEP: Duration = Duration::from_secs(20);

/// Runs one turn on the `permissions` script, answers the request with `decision`, and
/// returns the events plus what the adapter sent back on the wire.
async fn permissions_turn(decision: UserDecision) -> (Vec<AgentEvent>, Value) {
    let engine = CodexEngine::new(CodexEngineConfig::new(FAKE));
    let dir = tempfile::tempdir().unwrap();
    let profile = CodexProfile {
        env: vec![("FAKE_SCRIPT".into(), "permissions".into())],
        // A provider keeps the adapter from checking the (fake's) login first.
        provider: Some(agentdesk_engine::codex::CustomProvider {
            id: "mock".into(),
            name: "mock".into(),
            base_url: "http://127.0.0.1:9/v1".into(),
            env_key: "MOCK_API_KEY".into(),
            request_max_retries: Some(0),
            stream_max_retries: Some(0),
        }),
        ..Default::default()
    };
    let req = RunRequest {
        codex_home: Some(dir.path().to_path_buf()),
        cwd: dir.path().to_path_buf(),
        profile,
        resume_thread_id: None,
        input: vec![UserInput::text("fetch the docs")],
    };
    let mut run = tokio::time::timeout(STEP, engine.start_run(req))
        .await
        .unwrap()
        .unwrap();
    let mut events = Vec::new();
    loop {
        let ev = tokio::time::timeout(STEP, run.next_event())
            .await
            .expect("no event in time")
            .expect("events ended early");
        if let AgentEvent::ApprovalRequested { request_id, .. } = &ev {
            run.control()
                .resolve_approval(request_id, decision)
                .await
                .unwrap();
        }
        let end = ev.is_terminal();
        events.push(ev);
        if end {
            break;
        }
    }
    let wire: String = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::MessageDelta { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    engine.shutdown().await;
    let sent = serde_json::from_str(&wire).unwrap_or_else(|e| panic!("{e}: {events:#?}"));
    (events, sent)
}

#[tokio::test]
async fn permissions_request_becomes_an_approval_with_what_is_asked() {
    let (events, _) = permissions_turn(UserDecision::ApproveOnce).await;
    let asked = events
        .iter()
        .find(|e| matches!(e, AgentEvent::ApprovalRequested { .. }))
        .unwrap();
    let AgentEvent::ApprovalRequested {
        kind,
        cwd,
        reason,
        detail,
        ..
    } = asked
    else {
        unreachable!()
    };
    assert_eq!(*kind, ApprovalKind::Permission);
    assert_eq!(cwd.as_deref(), Some("/work/repo"));
    assert_eq!(reason.as_deref(), Some("fetch the docs"));
    let Some(ApprovalDetail::CodexPermissions(p)) = detail.as_deref() else {
        panic!("not a Codex permissions detail: {detail:?}")
    };
    assert_eq!(p.permissions, json!({"network": {"enabled": true}}));
    assert!(matches!(
        events.last(),
        Some(AgentEvent::RunCompleted { .. })
    ));
}

#[tokio::test]
async fn permissions_decisions_go_back_as_grants() {
    let (events, wire) = permissions_turn(UserDecision::ApproveOnce).await;
    assert_eq!(
        wire,
        json!({"permissions": {"network": {"enabled": true}}, "scope": "turn"})
    );
    assert!(events.iter().any(|e| matches!(
        e,
        AgentEvent::ApprovalResolved {
            outcome: ApprovalState::ApprovedOnce,
            ..
        }
    )));

    let (_, wire) = permissions_turn(UserDecision::ApproveForSession).await;
    assert_eq!(
        wire,
        json!({"permissions": {"network": {"enabled": true}}, "scope": "session"})
    );

    // Deny grants nothing: the turn goes on without the permission.
    let (events, wire) = permissions_turn(UserDecision::Deny).await;
    assert_eq!(wire, json!({"permissions": {}, "scope": "turn"}));
    assert!(events.iter().any(|e| matches!(
        e,
        AgentEvent::ApprovalResolved {
            outcome: ApprovalState::Denied,
            ..
        }
    )));
    assert!(matches!(
        events.last(),
        Some(AgentEvent::RunCompleted { .. })
    ));
}

/// A run request on `script`, with the fake logging what it receives to `log`.
fn scripted(dir: &Path, script: &str, log: &Path) -> RunRequest {
    let profile = CodexProfile {
        env: vec![
            ("FAKE_SCRIPT".into(), script.into()),
            ("FAKE_LOG".into(), log.display().to_string()),
        ],
        provider: Some(agentdesk_engine::codex::CustomProvider {
            id: "mock".into(),
            name: "mock".into(),
            base_url: "http://127.0.0.1:9/v1".into(),
            env_key: "MOCK_API_KEY".into(),
            request_max_retries: Some(0),
            stream_max_retries: Some(0),
        }),
        ..Default::default()
    };
    RunRequest {
        codex_home: Some(dir.to_path_buf()),
        cwd: dir.to_path_buf(),
        profile,
        resume_thread_id: None,
        input: vec![UserInput::text("go")],
    }
}

fn watched(secs: u64) -> RunLimits {
    RunLimits {
        inactivity_timeout: Some(Duration::from_secs(secs)),
        ..RunLimits::default()
    }
}

async fn events_until_end(run: &mut agentdesk_engine::codex::CodexRun) -> Vec<AgentEvent> {
    let mut events = Vec::new();
    loop {
        let ev = tokio::time::timeout(STEP, run.next_event())
            .await
            .expect("no event in time")
            .expect("events ended early");
        let end = ev.is_terminal();
        events.push(ev);
        if end {
            return events;
        }
    }
}

/// Waits (bounded) until the fake has logged `method`.
async fn received(log: &PathBuf, method: &str) -> bool {
    for _ in 0..100 {
        let seen = std::fs::read_to_string(log).unwrap_or_default();
        if seen.lines().any(|l| l == method) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}

#[tokio::test]
async fn a_silent_turn_is_failed_by_the_watchdog_and_interrupted() {
    let engine = CodexEngine::new(CodexEngineConfig::new(FAKE));
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("received.log");
    let t0 = std::time::Instant::now();
    let mut run = tokio::time::timeout(
        STEP,
        engine.start_run_with(scripted(dir.path(), "silent_turn", &log), watched(1)),
    )
    .await
    .unwrap()
    .unwrap();
    let events = events_until_end(&mut run).await;
    match events.last() {
        Some(AgentEvent::RunFailed { error, code }) => {
            assert_eq!(code.as_deref(), Some("engine_silent"));
            assert!(
                error.starts_with("Codex said nothing for 1 s; the run was stopped"),
                "{error}"
            );
        }
        other => panic!("{other:?}\n{events:#?}"),
    }
    assert!(t0.elapsed() < Duration::from_secs(10), "{:?}", t0.elapsed());
    assert!(
        received(&log, "turn/interrupt").await,
        "the silent turn was not interrupted"
    );
    engine.shutdown().await;
}

#[tokio::test]
async fn a_heartbeat_only_turn_is_not_failed() {
    // thread/status/changed every 200 ms for 3 s, nothing else, under a 1 s watchdog.
    let engine = CodexEngine::new(CodexEngineConfig::new(FAKE));
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("received.log");
    let mut run = tokio::time::timeout(
        STEP,
        engine.start_run_with(scripted(dir.path(), "heartbeat", &log), watched(1)),
    )
    .await
    .unwrap()
    .unwrap();
    let events = events_until_end(&mut run).await;
    assert!(
        matches!(events.last(), Some(AgentEvent::RunCompleted { .. })),
        "{events:#?}"
    );
    engine.shutdown().await;
}

#[tokio::test]
async fn a_pending_approval_pauses_the_codex_watchdog() {
    let engine = CodexEngine::new(CodexEngineConfig::new(FAKE));
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("received.log");
    let mut run = tokio::time::timeout(
        STEP,
        engine.start_run_with(scripted(dir.path(), "permissions", &log), watched(1)),
    )
    .await
    .unwrap()
    .unwrap();
    let mut events = Vec::new();
    loop {
        let ev = tokio::time::timeout(STEP, run.next_event())
            .await
            .unwrap()
            .unwrap();
        if let AgentEvent::ApprovalRequested { request_id, .. } = &ev {
            // The user takes 2.5 watchdog periods to decide.
            tokio::time::sleep(Duration::from_millis(2500)).await;
            run.control()
                .resolve_approval(request_id, UserDecision::ApproveOnce)
                .await
                .expect("the approval should still be pending");
        }
        let end = ev.is_terminal();
        events.push(ev);
        if end {
            break;
        }
    }
    assert!(
        matches!(events.last(), Some(AgentEvent::RunCompleted { .. })),
        "{events:#?}"
    );
    engine.shutdown().await;
}

#[tokio::test]
async fn a_turn_whose_consumer_went_away_is_interrupted() {
    let engine = CodexEngine::new(CodexEngineConfig::new(FAKE));
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("received.log");
    let mut run = tokio::time::timeout(
        STEP,
        engine.start_run(scripted(dir.path(), "silent_turn", &log)),
    )
    .await
    .unwrap()
    .unwrap();
    // Mid-turn: the first delta arrived.
    loop {
        let ev = tokio::time::timeout(STEP, run.next_event())
            .await
            .unwrap()
            .unwrap();
        assert!(!ev.is_terminal(), "{ev:?}");
        if matches!(ev, AgentEvent::MessageDelta { .. }) {
            break;
        }
    }
    let before = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(!before.contains("turn/interrupt"), "interrupted too early");
    let (control, events) = run.into_parts();
    drop(events);
    assert!(
        received(&log, "turn/interrupt").await,
        "the turn ran on after its consumer went away"
    );
    // The run is over for the adapter: nothing is pending any more.
    let err = control
        .resolve_approval("anything", UserDecision::ApproveOnce)
        .await
        .unwrap_err();
    assert!(
        matches!(err, agentdesk_engine::EngineError::NotPending { .. }),
        "{err}"
    );
    engine.shutdown().await;
}

#[tokio::test]
async fn a_consumer_gone_during_an_approval_releases_it_and_interrupts() {
    let engine = CodexEngine::new(CodexEngineConfig::new(FAKE));
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("received.log");
    let mut run = tokio::time::timeout(
        STEP,
        engine.start_run(scripted(dir.path(), "permissions", &log)),
    )
    .await
    .unwrap()
    .unwrap();
    loop {
        let ev = tokio::time::timeout(STEP, run.next_event())
            .await
            .unwrap()
            .unwrap();
        assert!(!ev.is_terminal(), "{ev:?}");
        if matches!(ev, AgentEvent::ApprovalRequested { .. }) {
            break;
        }
    }
    drop(run);
    // The held request is answered (with an error: nobody can decide it) and the turn stopped.
    assert!(
        received(&log, "response:error").await,
        "the pending approval was never released"
    );
    assert!(
        received(&log, "turn/interrupt").await,
        "the turn was not interrupted"
    );
    engine.shutdown().await;
}

#[tokio::test]
async fn a_codex_garbage_flood_is_capped_at_the_diagnostic_budget() {
    let engine = CodexEngine::new(CodexEngineConfig::new(FAKE));
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("received.log");
    let mut run = tokio::time::timeout(
        STEP,
        engine.start_run(scripted(dir.path(), "garbage_flood", &log)),
    )
    .await
    .unwrap()
    .unwrap();
    let events = events_until_end(&mut run).await;
    assert!(
        matches!(events.last(), Some(AgentEvent::RunCompleted { .. })),
        "{events:#?}"
    );
    let diagnostics: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::EngineDiagnostic { message, .. } => Some(message.as_str()),
            _ => None,
        })
        .collect();
    let max = RunLimits::default().max_diagnostics;
    assert!(
        diagnostics.len() <= max + 2,
        "{} diagnostics",
        diagnostics.len()
    );
    let last = diagnostics.last().unwrap();
    assert!(
        last.ends_with("more engine diagnostics were suppressed in this run (limit 100 per run)"),
        "{last}"
    );
    engine.shutdown().await;
}

/// The decision reaches the adapter whole: "deny and stop" is a decline followed by
/// `turn/interrupt`; an edited input is refused up front (codex cannot run one) and the
/// request stays pending.
#[tokio::test]
async fn deny_and_stop_declines_then_interrupts_and_an_edited_input_is_refused() {
    use agentdesk_engine::{ApprovalDecision, EngineError};
    let engine = CodexEngine::new(CodexEngineConfig::new(FAKE));
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("received.log");
    let mut run = tokio::time::timeout(
        STEP,
        engine.start_run(scripted(dir.path(), "permissions", &log)),
    )
    .await
    .unwrap()
    .unwrap();
    let mut events = Vec::new();
    loop {
        let ev = tokio::time::timeout(STEP, run.next_event())
            .await
            .unwrap()
            .unwrap();
        if let AgentEvent::ApprovalRequested { request_id, .. } = &ev {
            let edited = ApprovalDecision::allow_edited(json!({"command": "ls"}));
            let err = run
                .control()
                .resolve_approval(request_id, edited)
                .await
                .unwrap_err();
            assert!(matches!(err, EngineError::Unsupported(_)), "{err}");
            run.control()
                .resolve_approval(request_id, ApprovalDecision::deny_and_stop("no"))
                .await
                .expect("still pending after the refused edit");
        }
        let end = ev.is_terminal();
        events.push(ev);
        if end {
            break;
        }
    }
    assert!(
        events.iter().any(|e| matches!(
            e,
            AgentEvent::ApprovalResolved {
                outcome: ApprovalState::Denied,
                ..
            }
        )),
        "{events:#?}"
    );
    assert!(
        received(&log, "turn/interrupt").await,
        "deny-and-stop did not interrupt the turn"
    );
    engine.shutdown().await;
}

/// A fast stream (20,000 deltas written back to back by the `stream` script): every delta's
/// text arrives, in order, and deltas already waiting when the run loop looks leave it merged,
/// so fewer events than deltas reach the consumer.
#[tokio::test]
async fn a_fast_stream_arrives_whole_in_merged_deltas() {
    const DELTAS: usize = 20_000;
    let engine = CodexEngine::new(CodexEngineConfig::new(FAKE));
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("received.log");
    let mut req = scripted(dir.path(), "stream", &log);
    req.profile
        .env
        .push(("FAKE_DELTAS".into(), DELTAS.to_string()));
    let mut run = tokio::time::timeout(STEP, engine.start_run(req))
        .await
        .unwrap()
        .unwrap();
    let events = events_until_end(&mut run).await;
    let deltas: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::MessageDelta { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    let want: String = (0..DELTAS).map(|i| format!("{i:>19} ")).collect();
    assert_eq!(deltas.concat(), want);
    assert!(
        deltas.len() < DELTAS / 2,
        "{} delta events for {DELTAS} deltas",
        deltas.len()
    );
    assert!(matches!(
        events.last(),
        Some(AgentEvent::RunCompleted { .. })
    ));
    engine.shutdown().await;
}
