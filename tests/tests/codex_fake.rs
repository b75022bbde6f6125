//! The Codex adapter against the scripted `fake-app-server`, for requests real codex will not
//! make on demand (a permissions request).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use agentdesk_engine::codex::{CodexEngine, CodexEngineConfig, CodexProfile, RunRequest};
use agentdesk_protocol::codex::UserInput;
use agentdesk_protocol::events::{AgentEvent, ApprovalKind, ApprovalOutcome, UserDecision};
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
    assert_eq!(detail["permissions"], json!({"network": {"enabled": true}}));
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
            outcome: ApprovalOutcome::ApprovedOnce,
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
            outcome: ApprovalOutcome::Denied,
            ..
        }
    )));
    assert!(matches!(
        events.last(),
        Some(AgentEvent::RunCompleted { .. })
    ));
}
