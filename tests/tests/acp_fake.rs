//! Protocol suite for the ACP adapter against the scripted fake agent (`src/bin/fake-acp.rs`):
//! what the real agents will not do on demand (a crash mid-prompt, garbage, a refusal, a
//! withdrawn permission, a silent hang, a failing `session/load`, files outside the
//! workspace). Fast; no network.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use agentdesk_protocol::ui::TokenUsage;
use std::path::PathBuf;
use std::time::Duration;

use agentdesk_engine::acp::{
    AcpEngine, AcpEngineConfig, AcpOptions, AcpPreset, AcpProfile, AcpRun, AcpRunRequest,
};
use agentdesk_engine::{
    AgentEngine, ApprovalDecision, EngineError, EngineOptions, InputPart, NeutralRunRequest,
    RunLimits,
};
use agentdesk_protocol::events::{
    AgentEvent, ApprovalKind, ApprovalState, DiagnosticSource, FileChangeKind, ToolStatus,
    UserDecision,
};
use agentdesk_tests::process::exited;

const STEP: Duration = Duration::from_secs(20);

fn engine() -> AcpEngine {
    AcpEngine::new(AcpEngineConfig {
        init_timeout: Duration::from_secs(5),
        session_timeout: Duration::from_secs(5),
        interrupt_grace: Duration::from_secs(2),
        start_retry_pause: Duration::from_millis(100),
        ..AcpEngineConfig::default()
    })
}

fn fake() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_fake-acp"))
}

fn workspace(name: &str) -> PathBuf {
    let cwd = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("acp-fake/{name}"));
    let _ = std::fs::remove_dir_all(&cwd);
    std::fs::create_dir_all(&cwd).unwrap();
    cwd
}

fn request(name: &str, script: &str, env: &[(&str, &str)]) -> AcpRunRequest {
    let mut all = vec![("FAKE_ACP_SCRIPT".to_owned(), script.to_owned())];
    all.extend(env.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())));
    AcpRunRequest {
        cwd: workspace(name),
        profile: AcpProfile {
            command: fake(),
            env: all,
            ..AcpProfile::default()
        },
        resume_session_id: None,
        input: vec![InputPart::text("hi")],
    }
}

async fn start_req(req: AcpRunRequest, limits: RunLimits) -> AcpRun {
    tokio::time::timeout(STEP, engine().start_run_with(req, limits))
        .await
        .expect("start_run timed out")
        .expect("start_run failed")
}

async fn start(name: &str, script: &str) -> AcpRun {
    start_req(request(name, script, &[]), RunLimits::default()).await
}

/// Events up to the terminal one; asserts nothing follows it.
async fn until_end(run: &mut AcpRun) -> Vec<AgentEvent> {
    let mut seen = Vec::new();
    loop {
        let ev = tokio::time::timeout(STEP, run.next_event())
            .await
            .expect("no event in time")
            .expect("events ended before a terminal event");
        let end = ev.is_terminal();
        seen.push(ev);
        if end {
            let after = tokio::time::timeout(Duration::from_secs(2), run.next_event()).await;
            assert!(matches!(after, Ok(None)), "after the end: {after:?}");
            return seen;
        }
    }
}

/// Events up to the first `approval.requested`; returns them and its request id.
async fn until_approval(run: &mut AcpRun) -> (Vec<AgentEvent>, String) {
    let mut seen = Vec::new();
    loop {
        let ev = tokio::time::timeout(STEP, run.next_event())
            .await
            .expect("no approval in time")
            .expect("ended before an approval");
        if let AgentEvent::ApprovalRequested { request_id, .. } = &ev {
            let id = request_id.clone();
            seen.push(ev);
            return (seen, id);
        }
        assert!(!ev.is_terminal(), "{seen:#?} {ev:?}");
        seen.push(ev);
    }
}

fn text(ev: &[AgentEvent]) -> String {
    ev.iter()
        .filter_map(|e| match e {
            AgentEvent::MessageDelta { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

fn notices(ev: &[AgentEvent]) -> Vec<&str> {
    ev.iter()
        .filter_map(|e| match e {
            AgentEvent::EngineDiagnostic {
                source: DiagnosticSource::Notice,
                message,
                ..
            } => Some(message.as_str()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_text_turn_through_the_facade() {
    let engine = AgentEngine::Acp(engine());
    let req = request("text", "text", &[]);
    let mut run = engine
        .start_run(NeutralRunRequest {
            cwd: req.cwd,
            resume_session_id: None,
            input: req.input,
            options: EngineOptions::Acp(req.profile),
            inactivity_timeout: None,
        })
        .await
        .unwrap();
    assert!(run.session_id.starts_with("fake-session-"));
    assert!(!run.resumed && run.pid.is_some());
    let mut ev = Vec::new();
    while let Some(e) = tokio::time::timeout(STEP, run.next_event()).await.unwrap() {
        ev.push(e);
    }
    assert!(
        matches!(&ev[0], AgentEvent::RunStarted { model: Some(m), engine_session_id: Some(s), .. }
        if m == "fake/a" && *s == run.session_id)
    );
    let t = text(&ev);
    assert!(t.starts_with("Hello from fake."), "{t}");
    assert!(t.contains("blocks=text"), "{t}");
    assert!(ev.iter().any(|e| e.type_name() == "reasoning.completed"));
    assert!(ev.contains(&AgentEvent::Usage(TokenUsage {
        input: 10,
        cached: 0,
        output: 5,
        reasoning: 0,
        cost_usd: Some(0.25),
    })));
    assert_eq!(ev.iter().filter(|e| e.is_terminal()).count(), 1);
    assert!(
        matches!(ev.last(), Some(AgentEvent::RunCompleted { stop_reason }) if stop_reason == "end_turn")
    );
    // The run ends only once the agent is gone.
    assert!(exited(run.pid.unwrap()));
}

#[tokio::test]
async fn the_opencode_preset_brings_its_args_asking_env_and_a_server_password() {
    let opts = AcpOptions {
        preset: Some(AcpPreset::Opencode),
        ..AcpOptions::default()
    };
    let mut req = request("preset", "text", &[]);
    let env = std::mem::take(&mut req.profile.env);
    req.profile = AcpProfile::from_options(&opts, fake());
    req.profile.env.extend(env);
    let mut run = start_req(req, RunLimits::default()).await;
    let t = text(&until_end(&mut run).await);
    assert!(t.contains(r#"args=["acp"]"#), "{t}");
    assert!(
        t.contains(r#"permission={"edit":"ask","bash":"ask","webfetch":"ask"}"#),
        "{t}"
    );
    assert!(t.contains("password_len=32"), "{t}");
}

#[tokio::test]
async fn the_model_is_switched_when_offered_and_ignored_with_a_notice_otherwise() {
    let mut req = request("model", "text", &[]);
    req.profile.model = Some("fake/b".into());
    let mut run = start_req(req, RunLimits::default()).await;
    let ev = until_end(&mut run).await;
    assert!(matches!(&ev[0], AgentEvent::RunStarted { model: Some(m), .. } if m == "fake/b"));
    assert!(text(&ev).contains("model=fake/b"));

    // Gemini CLI's way: a model list and `session/set_model`.
    let mut req = request("model-list", "text", &[("FAKE_ACP_MODELS", "1")]);
    req.profile.model = Some("fake/b".into());
    let mut run = start_req(req, RunLimits::default()).await;
    let ev = until_end(&mut run).await;
    assert!(matches!(&ev[0], AgentEvent::RunStarted { model: Some(m), .. } if m == "fake/b"));
    assert!(text(&ev).contains("model=fake/b"), "{}", text(&ev));

    let mut req = request("model-missing", "text", &[]);
    req.profile.model = Some("other/model".into());
    let mut run = start_req(req, RunLimits::default()).await;
    let ev = until_end(&mut run).await;
    assert!(text(&ev).contains("model=fake/a"));
    let n = notices(&ev);
    assert!(
        n.iter()
            .any(|m| m.contains("does not offer the model `other/model`")),
        "{n:?}"
    );
}

async fn decide(name: &str, decision: ApprovalDecision, env: &[(&str, &str)]) -> Vec<AgentEvent> {
    let mut run = start_req(request(name, "permission", env), RunLimits::default()).await;
    let (mut ev, id) = until_approval(&mut run).await;
    let AgentEvent::ApprovalRequested {
        kind,
        command,
        item_id,
        cwd,
        ..
    } = ev.last().unwrap()
    else {
        unreachable!()
    };
    assert_eq!(*kind, ApprovalKind::Command);
    assert_eq!(command.as_deref(), Some("touch x.txt"));
    assert_eq!(item_id.as_deref(), Some("call_p"));
    assert!(cwd.is_some());
    // The tool was announced before it was asked about.
    assert!(ev.iter().any(|e| e.type_name() == "tool.started"));
    run.control().resolve_approval(&id, decision).await.unwrap();
    // Decided once: a second decision is refused.
    let again = run
        .control()
        .resolve_approval(&id, UserDecision::ApproveOnce)
        .await;
    assert!(
        matches!(again, Err(EngineError::NotPending { .. })),
        "{again:?}"
    );
    ev.extend(until_end(&mut run).await);
    ev
}

fn tool_status(ev: &[AgentEvent]) -> Option<ToolStatus> {
    ev.iter().find_map(|e| match e {
        AgentEvent::ToolCompleted { status, .. } => Some(*status),
        _ => None,
    })
}

fn outcome(ev: &[AgentEvent]) -> Option<ApprovalState> {
    ev.iter().find_map(|e| match e {
        AgentEvent::ApprovalResolved { outcome, .. } => Some(*outcome),
        _ => None,
    })
}

#[tokio::test]
async fn decisions_reach_the_agent_as_its_offered_options() {
    let ev = decide("approve-once", UserDecision::ApproveOnce.into(), &[]).await;
    assert!(text(&ev).contains("decision: once"), "{}", text(&ev));
    assert_eq!(tool_status(&ev), Some(ToolStatus::Completed));
    assert_eq!(outcome(&ev), Some(ApprovalState::ApprovedOnce));

    let ev = decide(
        "approve-session",
        UserDecision::ApproveForSession.into(),
        &[],
    )
    .await;
    // An agent's "always" may grant more than the user saw (opencode's does): "for the
    // session" is answered once, and Agent Desk's queue answers the exact repeats.
    assert!(text(&ev).contains("decision: once"), "{}", text(&ev));
    assert_eq!(outcome(&ev), Some(ApprovalState::ApprovedSession));

    let ev = decide("deny", UserDecision::Deny.into(), &[]).await;
    assert!(text(&ev).contains("decision: reject"), "{}", text(&ev));
    assert_eq!(tool_status(&ev), Some(ToolStatus::Declined));
    assert!(matches!(ev.last(), Some(AgentEvent::RunCompleted { .. })));
}

#[tokio::test]
async fn deny_and_stop_rejects_then_cancels_the_turn() {
    let ev = decide(
        "deny-stop",
        ApprovalDecision::deny_and_stop("no"),
        &[("FAKE_ACP_WAIT_CANCEL", "1")],
    )
    .await;
    assert!(text(&ev).contains("decision: reject"), "{}", text(&ev));
    assert_eq!(outcome(&ev), Some(ApprovalState::Denied));
    assert_eq!(ev.last(), Some(&AgentEvent::RunInterrupted {}));
    // An edited input cannot reach an ACP agent: refused before the run sees it.
    let run = start("edited", "permission").await;
    let r = run
        .control()
        .resolve_approval("x", ApprovalDecision::allow_edited(serde_json::json!({})))
        .await;
    assert!(matches!(r, Err(EngineError::Unsupported(_))), "{r:?}");
}

#[tokio::test]
async fn an_interrupt_cancels_the_pending_permission_and_the_turn() {
    let mut run = start("cancel-pending", "cancel_pending").await;
    let (_, id) = until_approval(&mut run).await;
    run.control().interrupt();
    let ev = until_end(&mut run).await;
    assert!(ev.contains(&AgentEvent::ApprovalResolved {
        request_id: id.clone(),
        outcome: ApprovalState::Cancelled,
    }));
    assert!(
        text(&ev).contains("permission answered: cancelled"),
        "{}",
        text(&ev)
    );
    assert_eq!(ev.last(), Some(&AgentEvent::RunInterrupted {}));
    let late = run
        .control()
        .resolve_approval(&id, UserDecision::ApproveOnce)
        .await;
    assert!(
        matches!(late, Err(EngineError::NotPending { .. })),
        "{late:?}"
    );

    let mut run = start("slow", "slow").await;
    let first = tokio::time::timeout(STEP, run.next_event()).await.unwrap();
    assert!(matches!(first, Some(AgentEvent::RunStarted { .. })));
    run.control().interrupt();
    let ev = until_end(&mut run).await;
    assert_eq!(ev.last(), Some(&AgentEvent::RunInterrupted {}));
}

#[tokio::test]
async fn files_are_served_inside_the_workspace_and_asked_outside() {
    let outside_dir = workspace("fs-outside-target");
    let outside = outside_dir.join("x.txt");
    let outside_s = outside.display().to_string();
    let req = request("fs", "fs", &[("FAKE_ACP_OUTSIDE", &outside_s)]);
    let cwd = req.cwd.clone();
    let mut run = start_req(req, RunLimits::default()).await;
    let (_, id) = until_approval(&mut run).await;
    run.control()
        .resolve_approval(&id, UserDecision::ApproveOnce)
        .await
        .unwrap();
    let ev = until_end(&mut run).await;
    let t = text(&ev);
    assert!(t.contains("write inside: null"), "{t}");
    assert!(t.contains(r#"read inside: {"content":"two\n"}"#), "{t}");
    assert!(t.contains(r#"read missing: {"content":""}"#), "{t}");
    assert!(t.contains("write outside: null"), "{t}");
    let inside = std::fs::read_to_string(cwd.join("sub/dir/new.txt")).unwrap();
    assert_eq!(inside, "one\ntwo\nthree\n");
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "outside\n");

    // Denied: nothing written, the agent gets an error.
    let _ = std::fs::remove_file(&outside);
    let mut run = start_req(
        request("fs-deny", "fs", &[("FAKE_ACP_OUTSIDE", &outside_s)]),
        RunLimits::default(),
    )
    .await;
    let (ev, id) = until_approval(&mut run).await;
    let AgentEvent::ApprovalRequested {
        kind,
        files,
        reason,
        ..
    } = ev.last().unwrap()
    else {
        unreachable!()
    };
    assert_eq!(*kind, ApprovalKind::FileChange);
    assert!(reason.as_deref().unwrap().contains("outside the workspace"));
    assert!(files[0].path.ends_with("x.txt"));
    assert_eq!(files[0].kind, FileChangeKind::Add);
    assert!(files[0].diff.contains("+outside"), "{}", files[0].diff);
    run.control()
        .resolve_approval(&id, UserDecision::Deny)
        .await
        .unwrap();
    let t = text(&until_end(&mut run).await);
    assert!(
        t.contains("write outside: error: the user did not allow"),
        "{t}"
    );
    assert!(!outside.exists());
}

/// opencode writes a file itself when its `fs/write_text_file` is refused: the permission
/// request is the gate, so it names the path outside the workspace, and once approved there
/// the write that follows is not asked again.
#[tokio::test]
async fn an_edit_outside_the_workspace_is_decided_at_the_permission() {
    let outside_dir = workspace("outside-edit-target");
    let outside = outside_dir.join("y.txt");
    let outside_s = outside.display().to_string();
    let env = [("FAKE_ACP_OUTSIDE", outside_s.as_str())];
    let mut run = start_req(
        request("outside-edit", "outside_edit", &env),
        RunLimits::default(),
    )
    .await;
    let (ev, id) = until_approval(&mut run).await;
    let AgentEvent::ApprovalRequested {
        kind,
        files,
        reason,
        ..
    } = ev.last().unwrap()
    else {
        unreachable!()
    };
    assert_eq!(*kind, ApprovalKind::FileChange);
    let reason = reason.as_deref().unwrap();
    assert!(reason.starts_with("outside the workspace: "), "{reason}");
    assert!(reason.contains("y.txt"), "{reason}");
    assert_eq!(files.len(), 1, "{files:?}");
    assert_eq!(files[0].path, outside_s);
    assert!(files[0].diff.contains("+edited"));
    run.control()
        .resolve_approval(&id, UserDecision::ApproveOnce)
        .await
        .unwrap();
    let ev = until_end(&mut run).await;
    assert!(
        !ev.iter().any(|e| e.type_name() == "approval.requested"),
        "asked twice: {ev:#?}"
    );
    assert!(
        text(&ev).contains("decision: once; write outside: null"),
        "{}",
        text(&ev)
    );
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "edited\n");

    let _ = std::fs::remove_file(&outside);
    let mut run = start_req(
        request("outside-edit-deny", "outside_edit", &env),
        RunLimits::default(),
    )
    .await;
    let (_, id) = until_approval(&mut run).await;
    run.control()
        .resolve_approval(&id, UserDecision::Deny)
        .await
        .unwrap();
    let ev = until_end(&mut run).await;
    assert!(text(&ev).contains("decision: reject"), "{}", text(&ev));
    assert!(!outside.exists());
}

#[tokio::test]
async fn an_agent_that_dies_while_starting_is_started_once_more() {
    let marker = workspace("start-marker").join("started");
    let marker_s = marker.display().to_string();
    let req = request(
        "crash-start-once",
        "crash_start_once",
        &[("FAKE_ACP_MARKER", &marker_s)],
    );
    let mut run = start_req(req, RunLimits::default()).await;
    let ev = until_end(&mut run).await;
    let n = notices(&ev);
    assert!(
        n.iter()
            .any(|m| m.contains("exited while starting") && m.contains("CREATE TABLE")),
        "{n:?}"
    );
    assert!(text(&ev).starts_with("Hello from fake."));

    let r = engine()
        .start_run(request("crash-start", "crash_start", &[]))
        .await;
    assert!(
        matches!(&r, Err(EngineError::ChildExited { stderr_tail, .. }) if stderr_tail.contains("CREATE TABLE")),
        "{r:?}"
    );
}

#[tokio::test]
async fn a_crash_mid_prompt_fails_the_run_with_the_stderr_tail() {
    let mut run = start("crash", "crash").await;
    let ev = until_end(&mut run).await;
    let Some(AgentEvent::RunFailed { error, code }) = ev.last() else {
        panic!("{ev:#?}")
    };
    assert_eq!(code.as_deref(), Some("engine_crashed"));
    assert!(error.contains("stopped unexpectedly"), "{error}");
    assert!(error.contains("fake-acp: something broke"), "{error}");
    assert!(text(&ev).contains("about to fail"));
}

#[tokio::test]
async fn garbage_is_diagnosed_never_fatal() {
    let mut run = start("garbage", "garbage").await;
    let ev = until_end(&mut run).await;
    let diags: Vec<&str> = ev
        .iter()
        .filter_map(|e| match e {
            AgentEvent::EngineDiagnostic {
                source: DiagnosticSource::UnknownMessage,
                message,
                ..
            } => Some(message.as_str()),
            _ => None,
        })
        .collect();
    assert!(
        diags.iter().any(|m| m.contains("brand_new_kind")),
        "{diags:?}"
    );
    assert!(
        diags.iter().any(|m| m.contains("fake/unknown")),
        "{diags:?}"
    );
    assert!(diags.len() >= 4, "{diags:?}");
    // `terminal/*` is not ours: declined, the turn goes on.
    assert!(text(&ev).contains("terminal/create answered error: true"));
    assert!(matches!(ev.last(), Some(AgentEvent::RunCompleted { .. })));
}

#[tokio::test]
async fn a_refusal_fails_the_run_with_its_reason() {
    let mut run = start("refusal", "refusal").await;
    let ev = until_end(&mut run).await;
    assert!(
        matches!(ev.last(), Some(AgentEvent::RunFailed { code: Some(c), .. }) if c == "refusal")
    );
    assert!(ev.iter().any(
        |e| matches!(e, AgentEvent::MessageCompleted { text, .. } if text == "I would rather not.")
    ));
}

#[tokio::test]
async fn a_silent_agent_is_stopped_by_the_watchdog() {
    let limits = RunLimits {
        inactivity_timeout: Some(Duration::from_millis(800)),
        ..RunLimits::default()
    };
    let mut run = start_req(request("hang", "hang", &[]), limits).await;
    let pid = run.pid.unwrap();
    let ev = until_end(&mut run).await;
    assert!(
        matches!(ev.last(), Some(AgentEvent::RunFailed { code: Some(c), .. }) if c == "engine_silent")
    );
    assert!(exited(pid));
}

#[tokio::test]
async fn a_dropped_run_stops_its_agent() {
    let mut run = start("abandoned", "slow").await;
    let pid = run.pid.unwrap();
    let _ = tokio::time::timeout(STEP, run.next_event()).await.unwrap();
    drop(run);
    let deadline = tokio::time::Instant::now() + STEP;
    while !exited(pid) {
        assert!(
            tokio::time::Instant::now() < deadline,
            "agent {pid} still running"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn images_go_inline_or_fail_before_the_prompt() {
    let dir = workspace("image-file");
    let png = dir.join("dot.png");
    std::fs::write(&png, [0x89, b'P', b'N', b'G']).unwrap();
    let mut req = request("image", "text", &[]);
    req.input.push(InputPart::image(&png));
    let mut run = start_req(req, RunLimits::default()).await;
    assert!(text(&until_end(&mut run).await).contains("blocks=text,image"));

    let mut req = request("no-image", "no_image", &[]);
    req.input.push(InputPart::image(&png));
    let r = engine().start_run(req).await;
    assert!(
        matches!(&r, Err(EngineError::Preflight(m)) if m.contains("does not take images")),
        "{r:?}"
    );
}

#[tokio::test]
async fn a_loaded_session_does_not_replay_its_history_and_a_failed_load_starts_over() {
    let mut req = request("load", "text", &[]);
    req.resume_session_id = Some("prev-1".into());
    let mut run = start_req(req, RunLimits::default()).await;
    assert!(run.resumed);
    assert_eq!(run.session_id, "prev-1");
    let ev = until_end(&mut run).await;
    let all = serde_json::to_string(&ev).unwrap();
    assert!(!all.contains("OLD HISTORY"), "{ev:#?}");
    assert!(text(&ev).starts_with("Hello from fake."));

    let mut req = request("load-fails", "text", &[]);
    req.resume_session_id = Some("missing-1".into());
    let mut run = start_req(req, RunLimits::default()).await;
    assert!(!run.resumed);
    assert_ne!(run.session_id, "missing-1");
    let ev = until_end(&mut run).await;
    let n = notices(&ev);
    assert!(
        n.iter()
            .any(|m| m.contains("Could not load the session missing-1")
                && m.contains("Invalid session identifier")),
        "{n:?}"
    );

    let mut req = request("no-load", "no_load", &[]);
    req.resume_session_id = Some("prev-2".into());
    let mut run = start_req(req, RunLimits::default()).await;
    assert!(!run.resumed);
    let ev = until_end(&mut run).await;
    let n = notices(&ev);
    assert!(
        n.iter().any(|m| m.contains("cannot load earlier sessions")),
        "{n:?}"
    );
}
