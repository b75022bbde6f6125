//! The Codex adapter against the scripted `fake-app-server`, for requests real codex will not
//! make on demand (a permissions request) and behaviour it will not show on demand (a turn
//! that goes silent, a heartbeat-only turn, a consumer that goes away mid-turn).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use agentdesk_engine::codex::{CodexEngine, CodexEngineConfig, CodexProfile, CodexRun, RunRequest};
use agentdesk_engine::{ApprovalDecision, EngineError, RunLimits};
use agentdesk_protocol::approval_detail::ApprovalDetail;
use agentdesk_protocol::codex::UserInput;
use agentdesk_protocol::events::{AgentEvent, ApprovalKind, ApprovalState, UserDecision};
use agentdesk_tests::events::{
    assert_completed, assert_merged_stream, decide, deltas, diagnostics, failed_with, is_approval,
    request_id, resolved, started, until, until_end, until_end_deciding,
};
use agentdesk_tests::real::mock_provider;
use serde_json::{json, Value};

const FAKE: &str = env!("CARGO_BIN_EXE_fake-app-server");
const STEP: Duration = Duration::from_secs(20);

/// An engine on the fake app-server, in a temp folder (its CODEX_HOME and workspace), the
/// fake logging what it receives to `log`.
struct Scripted {
    engine: CodexEngine,
    dir: tempfile::TempDir,
    log: PathBuf,
}

impl Scripted {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("received.log");
        Self {
            engine: CodexEngine::new(CodexEngineConfig::new(FAKE)),
            dir,
            log,
        }
    }

    /// A run request on `script`.
    fn request(&self, script: &str) -> RunRequest {
        let profile = CodexProfile {
            env: vec![
                ("FAKE_SCRIPT".into(), script.into()),
                ("FAKE_LOG".into(), self.log.display().to_string()),
            ],
            // A provider keeps the adapter from checking the (fake's) login first.
            provider: Some(mock_provider(
                "http://127.0.0.1:9/v1".into(),
                "MOCK_API_KEY",
            )),
            ..Default::default()
        };
        RunRequest {
            codex_home: Some(self.dir.path().to_path_buf()),
            cwd: self.dir.path().to_path_buf(),
            profile,
            resume_thread_id: None,
            input: vec![UserInput::text("go")],
        }
    }

    /// A new engine's run of `script`, under a watchdog of `watch` seconds when given.
    async fn start(script: &str, watch: Option<u64>) -> (Self, CodexRun) {
        let fake = Self::new();
        let run = fake.start_req(fake.request(script), watch).await;
        (fake, run)
    }

    async fn start_req(&self, req: RunRequest, watch: Option<u64>) -> CodexRun {
        let limits = RunLimits {
            inactivity_timeout: watch.map(Duration::from_secs),
            ..RunLimits::default()
        };
        match watch {
            Some(_) => started(STEP, self.engine.start_run_with(req, limits)).await,
            None => started(STEP, self.engine.start_run(req)).await,
        }
    }

    /// The fake logs `method` (a bounded wait); `what` failed otherwise.
    async fn expect_logged(&self, method: &str, what: &str) {
        assert!(received(&self.log, method).await, "{what}");
    }
}

/// Runs one turn on the `permissions` script, answers the request with `decision`, and
/// returns the events plus what the adapter sent back on the wire.
async fn permissions_turn(decision: UserDecision) -> (Vec<AgentEvent>, Value) {
    let fake = Scripted::new();
    let mut req = fake.request("permissions");
    req.input = vec![UserInput::text("fetch the docs")];
    let mut run = fake.start_req(req, None).await;
    let events = until_end_deciding(&mut run, decision).await;
    let wire = deltas(&events);
    fake.engine.shutdown().await;
    let sent = serde_json::from_str(&wire).unwrap_or_else(|e| panic!("{e}: {events:#?}"));
    (events, sent)
}

#[tokio::test]
async fn permissions_request_becomes_an_approval_with_what_is_asked() {
    let (events, _) = permissions_turn(UserDecision::ApproveOnce).await;
    let asked = events.iter().find(|e| is_approval(e)).unwrap();
    assert!(
        matches!(asked, AgentEvent::ApprovalRequested { kind: ApprovalKind::Permission, cwd: Some(cwd), reason: Some(reason), .. }
            if cwd == "/work/repo" && reason == "fetch the docs"),
        "{asked:?}"
    );
    let AgentEvent::ApprovalRequested { detail, .. } = asked else {
        unreachable!()
    };
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
    assert!(resolved(&events, None, ApprovalState::ApprovedOnce));

    let (_, wire) = permissions_turn(UserDecision::ApproveForSession).await;
    assert_eq!(
        wire,
        json!({"permissions": {"network": {"enabled": true}}, "scope": "session"})
    );

    // Deny grants nothing: the turn goes on without the permission.
    let (events, wire) = permissions_turn(UserDecision::Deny).await;
    assert_eq!(wire, json!({"permissions": {}, "scope": "turn"}));
    assert!(resolved(&events, None, ApprovalState::Denied));
    assert!(matches!(
        events.last(),
        Some(AgentEvent::RunCompleted { .. })
    ));
}

#[tokio::test]
async fn a_silent_turn_is_failed_by_the_watchdog_and_interrupted() {
    let t0 = std::time::Instant::now();
    let (fake, mut run) = Scripted::start("silent_turn", Some(1)).await;
    let events = until_end(&mut run).await;
    let error = failed_with(&events, "engine_silent");
    assert!(
        error.starts_with("Codex said nothing for 1 s; the run was stopped"),
        "{error}"
    );
    assert!(t0.elapsed() < Duration::from_secs(10), "{:?}", t0.elapsed());
    fake.expect_logged("turn/interrupt", "the silent turn was not interrupted")
        .await;
    fake.engine.shutdown().await;
}

/// Waits (bounded) until the fake has logged `method` to `log`.
async fn received(log: &Path, method: &str) -> bool {
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
async fn a_heartbeat_only_turn_is_not_failed() {
    // thread/status/changed every 200 ms for 3 s, nothing else, under a 1 s watchdog.
    let (fake, mut run) = Scripted::start("heartbeat", Some(1)).await;
    assert_completed(&until_end(&mut run).await);
    fake.engine.shutdown().await;
}

#[tokio::test]
async fn a_pending_approval_pauses_the_codex_watchdog() {
    let (fake, mut run) = Scripted::start("permissions", Some(1)).await;
    let asked = until(&mut run, is_approval).await;
    // The user takes 2.5 watchdog periods to decide.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    decide(&run, &request_id(&asked), UserDecision::ApproveOnce).await;
    assert_completed(&until_end(&mut run).await);
    fake.engine.shutdown().await;
}

#[tokio::test]
async fn a_turn_whose_consumer_went_away_is_interrupted() {
    let (fake, mut run) = Scripted::start("silent_turn", None).await;
    // Mid-turn: the first delta arrived.
    until(&mut run, |e| matches!(e, AgentEvent::MessageDelta { .. })).await;
    let before = std::fs::read_to_string(&fake.log).unwrap_or_default();
    assert!(!before.contains("turn/interrupt"), "interrupted too early");
    let (control, events) = run.into_parts();
    drop(events);
    fake.expect_logged(
        "turn/interrupt",
        "the turn ran on after its consumer went away",
    )
    .await;
    // The run is over for the adapter: nothing is pending any more.
    let err = control
        .resolve_approval("anything", UserDecision::ApproveOnce)
        .await
        .unwrap_err();
    assert!(matches!(err, EngineError::NotPending { .. }), "{err}");
    fake.engine.shutdown().await;
}

#[tokio::test]
async fn a_codex_garbage_flood_is_capped_at_the_diagnostic_budget() {
    let (fake, mut run) = Scripted::start("garbage_flood", None).await;
    let events = until_end(&mut run).await;
    assert_completed(&events);
    let diagnostics = diagnostics(&events);
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
    fake.engine.shutdown().await;
}

#[tokio::test]
async fn a_consumer_gone_during_an_approval_releases_it_and_interrupts() {
    let (fake, mut run) = Scripted::start("permissions", None).await;
    until(&mut run, is_approval).await;
    drop(run);
    // The held request is answered (with an error: nobody can decide it) and the turn stopped.
    fake.expect_logged("response:error", "the pending approval was never released")
        .await;
    fake.expect_logged("turn/interrupt", "the turn was not interrupted")
        .await;
    fake.engine.shutdown().await;
}

/// A fast stream (20,000 deltas written back to back by the `stream` script): every delta's
/// text arrives, in order, and deltas already waiting when the run loop looks leave it merged,
/// so fewer events than deltas reach the consumer.
#[tokio::test]
async fn a_fast_stream_arrives_whole_in_merged_deltas() {
    const DELTAS: usize = 20_000;
    let fake = Scripted::new();
    let mut req = fake.request("stream");
    req.profile
        .env
        .push(("FAKE_DELTAS".into(), DELTAS.to_string()));
    let mut run = fake.start_req(req, None).await;
    let events = until_end(&mut run).await;
    let want: String = (0..DELTAS).map(|i| format!("{i:>19} ")).collect();
    assert_merged_stream(&events, &want, DELTAS, DELTAS / 2);
    assert_completed(&events);
    fake.engine.shutdown().await;
}

/// The decision reaches the adapter whole: "deny and stop" is a decline followed by
/// `turn/interrupt`; an edited input is refused up front (codex cannot run one) and the
/// request stays pending.
#[tokio::test]
async fn deny_and_stop_declines_then_interrupts_and_an_edited_input_is_refused() {
    let (fake, mut run) = Scripted::start("permissions", None).await;
    let id = request_id(&until(&mut run, is_approval).await);
    let edited = ApprovalDecision::allow_edited(json!({"command": "ls"}));
    let err = run
        .control()
        .resolve_approval(&id, edited)
        .await
        .unwrap_err();
    assert!(matches!(err, EngineError::Unsupported(_)), "{err}");
    // Still pending after the refused edit.
    decide(&run, &id, ApprovalDecision::deny_and_stop("no")).await;
    let events = until_end(&mut run).await;
    assert!(
        resolved(&events, None, ApprovalState::Denied),
        "{events:#?}"
    );
    fake.expect_logged("turn/interrupt", "deny-and-stop did not interrupt the turn")
        .await;
    fake.engine.shutdown().await;
}
