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
use agentdesk_tests::events::{
    all_events, assert_failed, assert_no_longer_pending, decide, deltas as text, has_message,
    is_approval, notices, request_id, started, until_closed, until_into,
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
        plan: None,
        input: vec![InputPart::text("hi")],
    }
}

async fn start_req(req: AcpRunRequest, limits: RunLimits) -> AcpRun {
    started(STEP, engine().start_run_with(req, limits)).await
}

/// A run of `script` (with the fake's `env`) in the workspace `name`.
async fn start_with(name: &str, script: &str, env: &[(&str, &str)]) -> AcpRun {
    start_req(request(name, script, env), RunLimits::default()).await
}

async fn start(name: &str, script: &str) -> AcpRun {
    start_with(name, script, &[]).await
}

/// Events up to the terminal one; asserts nothing follows it.
async fn until_end(run: &mut AcpRun) -> Vec<AgentEvent> {
    until_closed(run, Duration::from_secs(2)).await
}

/// Events up to the first `approval.requested`; returns them and its request id.
async fn until_approval(run: &mut AcpRun) -> (Vec<AgentEvent>, String) {
    let mut seen = Vec::new();
    let ask = until_into(run, is_approval, &mut seen).await;
    let id = request_id(&ask);
    seen.push(ask);
    (seen, id)
}

#[tokio::test]
async fn a_text_turn_through_the_facade() {
    let engine = AgentEngine::Acp(engine());
    let req = request("text", "text", &[]);
    let mut run = engine
        .start_run(NeutralRunRequest {
            cwd: req.cwd,
            resume_session_id: None,
            plan: None,
            input: req.input,
            options: EngineOptions::Acp(req.profile),
            inactivity_timeout: None,
        })
        .await
        .unwrap();
    assert!(run.session_id.starts_with("fake-session-"));
    assert!(!run.resumed && run.pid.is_some());
    let ev = all_events(&mut run).await;
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

/// A run of the fake as the opencode preset, reporting `version` in `initialize`.
fn opencode_request(name: &str, version: &str) -> AcpRunRequest {
    let opts = AcpOptions {
        preset: Some(AcpPreset::Opencode),
        ..AcpOptions::default()
    };
    let mut req = request(name, "text", &[("FAKE_ACP_VERSION", version)]);
    let env = std::mem::take(&mut req.profile.env);
    req.profile = AcpProfile::from_options(&opts, fake());
    req.profile.env.extend(env);
    req
}

#[tokio::test]
async fn the_opencode_preset_brings_its_args_asking_env_and_a_server_password() {
    let req = opencode_request("preset", "1.18.33");
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
async fn a_preset_agent_of_an_unverified_version_is_refused_before_any_session() {
    let req = opencode_request("preset-old", "0.9.1");
    let err = engine()
        .start_run_with(req, RunLimits::default())
        .await
        .expect_err("refused");
    assert!(
        matches!(err, EngineError::UnsupportedVersion { ref found, .. } if found == "0.9.1"),
        "{err:?}"
    );
    let message = err.to_string();
    assert!(
        message.contains("opencode-ai@1.18.33"),
        "names what to install: {message}"
    );
}

/// The events of a `text` run in the workspace `name` (the fake's `env`) whose profile asks
/// for `model`.
async fn with_model(name: &str, env: &[(&str, &str)], model: &str) -> Vec<AgentEvent> {
    let mut req = request(name, "text", env);
    req.profile.model = Some(model.into());
    let mut run = start_req(req, RunLimits::default()).await;
    until_end(&mut run).await
}

#[tokio::test]
async fn the_model_is_switched_when_offered_and_ignored_with_a_notice_otherwise() {
    let ev = with_model("model", &[], "fake/b").await;
    assert!(matches!(&ev[0], AgentEvent::RunStarted { model: Some(m), .. } if m == "fake/b"));
    assert!(text(&ev).contains("model=fake/b"));

    // Gemini CLI's way: a model list and `session/set_model`.
    let ev = with_model("model-list", &[("FAKE_ACP_MODELS", "1")], "fake/b").await;
    assert!(matches!(&ev[0], AgentEvent::RunStarted { model: Some(m), .. } if m == "fake/b"));
    assert!(text(&ev).contains("model=fake/b"), "{}", text(&ev));

    let ev = with_model("model-missing", &[], "other/model").await;
    assert!(text(&ev).contains("model=fake/a"));
    let n = notices(&ev);
    assert!(
        n.iter()
            .any(|m| m.contains("does not offer the model `other/model`")),
        "{n:?}"
    );
}

async fn permission_decided(
    name: &str,
    decision: ApprovalDecision,
    env: &[(&str, &str)],
) -> Vec<AgentEvent> {
    let mut run = start_with(name, "permission", env).await;
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
    decide(&run, &id, decision).await;
    // Decided once: a second decision is refused.
    assert_no_longer_pending(&run, &id).await;
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
    let ev = permission_decided("approve-once", UserDecision::ApproveOnce.into(), &[]).await;
    assert!(text(&ev).contains("decision: once"), "{}", text(&ev));
    assert_eq!(tool_status(&ev), Some(ToolStatus::Completed));
    assert_eq!(outcome(&ev), Some(ApprovalState::ApprovedOnce));

    let session = UserDecision::ApproveForSession.into();
    let ev = permission_decided("approve-session", session, &[]).await;
    // An agent's "always" may grant more than the user saw (opencode's does): "for the
    // session" is answered once, and Agent Desk's queue answers the exact repeats.
    assert!(text(&ev).contains("decision: once"), "{}", text(&ev));
    assert_eq!(outcome(&ev), Some(ApprovalState::ApprovedSession));

    let ev = permission_decided("deny", UserDecision::Deny.into(), &[]).await;
    assert!(text(&ev).contains("decision: reject"), "{}", text(&ev));
    assert_eq!(tool_status(&ev), Some(ToolStatus::Declined));
    assert!(matches!(ev.last(), Some(AgentEvent::RunCompleted { .. })));
}

#[tokio::test]
async fn deny_and_stop_rejects_then_cancels_the_turn() {
    let stop = ApprovalDecision::deny_and_stop("no");
    let ev = permission_decided("deny-stop", stop, &[("FAKE_ACP_WAIT_CANCEL", "1")]).await;
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
    assert_no_longer_pending(&run, &id).await;

    let mut run = start("slow", "slow").await;
    let first = tokio::time::timeout(STEP, run.next_event()).await.unwrap();
    assert!(matches!(first, Some(AgentEvent::RunStarted { .. })));
    run.control().interrupt();
    let ev = until_end(&mut run).await;
    assert_eq!(ev.last(), Some(&AgentEvent::RunInterrupted {}));
}

/// A file `name` in a folder `dir` of its own (outside every run's workspace), and its path.
fn outside(dir: &str, name: &str) -> (PathBuf, String) {
    let file = workspace(dir).join(name);
    let shown = file.display().to_string();
    (file, shown)
}

/// The run's first approval: a file change outside the workspace, of `file` (`+{content}`
/// in its diff); its request id, and the request.
async fn asked_outside(run: &mut AcpRun, file: &str, content: &str) -> (String, AgentEvent) {
    let (mut ev, id) = until_approval(run).await;
    let ask = ev.pop().unwrap();
    let AgentEvent::ApprovalRequested {
        kind,
        files,
        reason,
        ..
    } = &ask
    else {
        unreachable!()
    };
    assert_eq!(*kind, ApprovalKind::FileChange);
    assert!(reason.as_deref().unwrap().contains("outside the workspace"));
    assert!(files[0].path.ends_with(file));
    assert!(
        files[0].diff.contains(&format!("+{content}")),
        "{}",
        files[0].diff
    );
    (id, ask)
}

#[tokio::test]
async fn files_are_served_inside_the_workspace_and_asked_outside() {
    let (outside, outside_s) = outside("fs-outside-target", "x.txt");
    let env = [("FAKE_ACP_OUTSIDE", outside_s.as_str())];
    let req = request("fs", "fs", &env);
    let cwd = req.cwd.clone();
    let mut run = start_req(req, RunLimits::default()).await;
    let (_, id) = until_approval(&mut run).await;
    decide(&run, &id, UserDecision::ApproveOnce).await;
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
    let mut run = start_with("fs-deny", "fs", &env).await;
    let (id, ask) = asked_outside(&mut run, "x.txt", "outside").await;
    let AgentEvent::ApprovalRequested { files, .. } = &ask else {
        unreachable!()
    };
    assert_eq!(files[0].kind, FileChangeKind::Add);
    decide(&run, &id, UserDecision::Deny).await;
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
    let (outside, outside_s) = outside("outside-edit-target", "y.txt");
    let env = [("FAKE_ACP_OUTSIDE", outside_s.as_str())];
    let mut run = start_with("outside-edit", "outside_edit", &env).await;
    let (id, ask) = asked_outside(&mut run, "y.txt", "edited").await;
    let AgentEvent::ApprovalRequested { files, reason, .. } = &ask else {
        unreachable!()
    };
    let reason = reason.as_deref().unwrap();
    assert!(reason.starts_with("outside the workspace: "), "{reason}");
    assert!(reason.contains("y.txt"), "{reason}");
    assert_eq!(files.len(), 1, "{files:?}");
    assert_eq!(files[0].path, outside_s);
    decide(&run, &id, UserDecision::ApproveOnce).await;
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
    let mut run = start_with("outside-edit-deny", "outside_edit", &env).await;
    let (_, id) = until_approval(&mut run).await;
    decide(&run, &id, UserDecision::Deny).await;
    let ev = until_end(&mut run).await;
    assert!(text(&ev).contains("decision: reject"), "{}", text(&ev));
    assert!(!outside.exists());
}

#[tokio::test]
async fn an_agent_that_dies_while_starting_is_started_once_more() {
    let marker = workspace("start-marker").join("started");
    let marker_s = marker.display().to_string();
    let env = [("FAKE_ACP_MARKER", marker_s.as_str())];
    let mut run = start_with("crash-start-once", "crash_start_once", &env).await;
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
    assert_failed(
        &ev,
        "engine_crashed",
        &["stopped unexpectedly", "fake-acp: something broke"],
    );
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
    assert!(has_message(&ev, "I would rather not."));
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

/// A run of `script` in the workspace `name` resuming `session`: the run and its events.
async fn resuming(name: &str, script: &str, session: &str) -> (AcpRun, Vec<AgentEvent>) {
    let mut req = request(name, script, &[]);
    req.resume_session_id = Some(session.into());
    let mut run = start_req(req, RunLimits::default()).await;
    let ev = until_end(&mut run).await;
    (run, ev)
}

#[tokio::test]
async fn a_loaded_session_does_not_replay_its_history_and_a_failed_load_starts_over() {
    let (run, ev) = resuming("load", "text", "prev-1").await;
    assert!(run.resumed);
    assert_eq!(run.session_id, "prev-1");
    let all = serde_json::to_string(&ev).unwrap();
    assert!(!all.contains("OLD HISTORY"), "{ev:#?}");
    assert!(text(&ev).starts_with("Hello from fake."));

    let (run, ev) = resuming("load-fails", "text", "missing-1").await;
    assert!(!run.resumed);
    assert_ne!(run.session_id, "missing-1");
    let n = notices(&ev);
    assert!(
        n.iter()
            .any(|m| m.contains("Could not load the session missing-1")
                && m.contains("Invalid session identifier")),
        "{n:?}"
    );

    let (run, ev) = resuming("no-load", "no_load", "prev-2").await;
    assert!(!run.resumed);
    let n = notices(&ev);
    assert!(
        n.iter().any(|m| m.contains("cannot load earlier sessions")),
        "{n:?}"
    );
}
