//! Protocol suite for the Claude adapter against the scripted fake CLI (`src/bin/fake-claude.rs`):
//! every edge case the real CLI will not produce on demand (crash mid-turn, garbage lines, an
//! unknown control request, a withdrawn permission, a silent hang, no login). Fast; no network.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use agentdesk_protocol::ui::TokenUsage;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use agentdesk_engine::claude::{
    ClaudeEngine, ClaudeEngineConfig, ClaudeProfile, ClaudeRun, ClaudeRunRequest,
};
use agentdesk_engine::{
    AgentEngine, ApprovalDecision, EngineError, EngineOptions, InputPart, NeutralRunRequest,
    RunLimits,
};
use agentdesk_protocol::events::{
    AgentEvent, ApprovalKind, ApprovalState, DiagnosticSource, ToolStatus, UserDecision,
};
use agentdesk_tests::events::{
    all_events, assert_completed, assert_failed, assert_interrupted, assert_merged_stream,
    assert_no_longer_pending, completed_messages, decide, delta_pieces, deltas, diagnostics,
    failed_with, has_message, is_ask, notices, request_id, resolved, started, tool_completed,
    until, until_closed,
};
use agentdesk_tests::process::{alive, rss};

const STEP: Duration = Duration::from_secs(20);

fn engine() -> ClaudeEngine {
    let mut config = ClaudeEngineConfig::new(env!("CARGO_BIN_EXE_fake-claude"));
    config.init_timeout = Duration::from_secs(3);
    config.interrupt_grace = Duration::from_secs(1);
    ClaudeEngine::new(config)
}

fn request(name: &str, script: &str, resume: Option<&str>) -> ClaudeRunRequest {
    let cwd = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("claude-fake/{name}"));
    std::fs::create_dir_all(&cwd).unwrap();
    ClaudeRunRequest {
        cwd,
        profile: ClaudeProfile {
            env: vec![("FAKE_CLAUDE_SCRIPT".into(), script.into())],
            ..Default::default()
        },
        resume_session_id: resume.map(str::to_owned),
        plan: None,
        input: vec![InputPart::text("hi")],
    }
}

async fn start(name: &str, script: &str) -> ClaudeRun {
    started(STEP, engine().start_run(request(name, script, None))).await
}

/// Like [`start`], with a short inactivity watchdog.
async fn start_watched(name: &str, script: &str, silence: Duration) -> ClaudeRun {
    let limits = RunLimits {
        inactivity_timeout: Some(silence),
        ..RunLimits::default()
    };
    let req = request(name, script, None);
    started(STEP, engine().start_run_with(req, limits)).await
}

/// Events up to the terminal one; asserts nothing follows it.
async fn until_end(run: &mut ClaudeRun) -> Vec<AgentEvent> {
    until_closed(run, Duration::from_secs(1)).await
}

/// The first approval request or question.
async fn until_request(run: &mut ClaudeRun) -> AgentEvent {
    until(run, is_ask).await
}

fn all_text(ev: &[AgentEvent]) -> String {
    completed_messages(ev).join("\n")
}

#[tokio::test]
async fn text_turn_argv_entrypoint_usage_and_nothing_left_running() {
    let mut run = start("text", "text").await;
    assert_eq!(run.version.as_deref(), Some("9.9.9-fake"));
    assert!(!run.resumed);
    let ev = until_end(&mut run).await;
    assert!(
        matches!(&ev[0], AgentEvent::RunStarted { engine_session_id: Some(s), .. } if *s == run.session_id)
    );
    let deltas = deltas(&ev);
    assert!(deltas.starts_with("Hello from fake"), "{deltas}");
    let text = all_text(&ev);
    for want in [
        "\"--output-format\",\"stream-json\",\"--verbose\",\"--input-format\",\"stream-json\",\"--permission-prompt-tool\",\"stdio\",\"--include-partial-messages\"",
        &format!("\"--session-id={}\"", run.session_id),
        "\"entrypoint\":\"agent-desk\"",
    ] {
        assert!(text.contains(want), "{want} not in {text}");
    }
    assert!(ev.iter().any(|e| matches!(e, AgentEvent::Usage(TokenUsage { input: 9, cached: 2, output: 3, cost_usd: Some(c), .. }) if *c == 0.5)), "{ev:#?}");
    assert_completed(&ev);
    assert!(
        !alive(run.pid.unwrap()),
        "the CLI is still running after the run ended"
    );
}

#[tokio::test]
async fn hook_and_mcp_requests_before_the_initialize_reply_are_answered() {
    let mut run = start("hooks", "hooks_first").await;
    let text = all_text(&until_end(&mut run).await);
    assert!(text.contains("\"continue\":true"), "{text}");
    assert!(text.contains("-32601"), "{text}");
}

#[tokio::test]
async fn an_unknown_control_request_gets_an_error_at_once() {
    let mut run = start("unknown-control", "unknown_control").await;
    let ev = until_end(&mut run).await;
    let text = all_text(&ev);
    assert!(
        text.contains("\"subtype\":\"error\"")
            && text.contains("Unsupported control request subtype: bogus_subtype"),
        "{text}"
    );
    assert_completed(&ev);
}

#[tokio::test]
async fn garbage_lines_and_unknown_messages_are_diagnostics() {
    let mut run = start("garbage", "garbage").await;
    let ev = until_end(&mut run).await;
    let diags: Vec<_> = ev
        .iter()
        .filter_map(|e| match e {
            AgentEvent::EngineDiagnostic {
                source: DiagnosticSource::UnknownMessage,
                message,
                raw,
            } => Some((message, raw)),
            _ => None,
        })
        .collect();
    assert!(
        diags.iter().any(|(_, raw)| raw
            .as_ref()
            .is_some_and(|r| r.to_string().contains("not json"))),
        "{diags:?}"
    );
    assert!(
        diags.iter().any(|(m, _)| m.contains("totally_new_message")),
        "{diags:?}"
    );
    assert_eq!(all_text(&ev), "still fine");
    assert_completed(&ev);
}

#[tokio::test]
async fn crash_mid_turn_fails_the_run_with_the_stderr_tail() {
    let mut run = start("crash", "crash_mid_turn").await;
    let ev = until_end(&mut run).await;
    assert_failed(&ev, "engine_crashed", &["exit code 3", "simulated crash"]);
    // The partial answer is closed, not left streaming.
    assert!(has_message(&ev, "partial answer"), "{ev:#?}");
}

#[tokio::test]
async fn crash_with_a_pending_permission_expires_it() {
    let mut run = start("crash-pending", "crash_pending").await;
    let ask = until_request(&mut run).await;
    let ev = until_end(&mut run).await;
    let id = request_id(&ask);
    assert!(resolved(&ev, Some(&id), ApprovalState::Expired), "{ev:#?}");
    assert!(
        tool_completed(&ev, None, ToolStatus::Interrupted),
        "{ev:#?}"
    );
    assert!(matches!(ev.last(), Some(AgentEvent::RunFailed { .. })));
    assert_no_longer_pending(&run, &id).await;
}

/// Runs the `approval` script with `decision`; returns the events and the decision the fake saw.
async fn approval_decided(name: &str, decision: ApprovalDecision) -> (Vec<AgentEvent>, String) {
    let mut run = start(name, "approval").await;
    let ask = until_request(&mut run).await;
    assert!(
        matches!(&ask, AgentEvent::ApprovalRequested { kind: ApprovalKind::Command, command: Some(c), .. } if c == "echo asked"),
        "{ask:?}"
    );
    decide(&run, &request_id(&ask), decision).await;
    assert_no_longer_pending(&run, &request_id(&ask)).await;
    let ev = until_end(&mut run).await;
    let text = all_text(&ev);
    (ev, text)
}

#[tokio::test]
async fn approval_decisions_go_back_as_the_sdk_sends_them() {
    let (ev, text) = approval_decided("allow", UserDecision::ApproveOnce.into()).await;
    assert!(
        text.contains(r#""behavior":"allow""#)
            && text.contains(r#""updatedInput":{"command":"echo asked""#),
        "{text}"
    );
    assert!(!text.contains("updatedPermissions"), "{text}");
    assert!(resolved(&ev, None, ApprovalState::ApprovedOnce));

    let edited = ApprovalDecision::allow_edited(serde_json::json!({"command": "echo edited"}));
    let (_, text) = approval_decided("edited", edited).await;
    assert!(
        text.contains(r#""updatedInput":{"command":"echo edited"}"#),
        "{text}"
    );

    // "For this session" hands Claude no rule of its own (its suggestion here would be the
    // wider `Bash(echo *)`): Claude keeps asking and Agent Desk answers exact repeats.
    let (ev, text) = approval_decided("session", UserDecision::ApproveForSession.into()).await;
    assert!(
        text.contains(r#""behavior":"allow""#)
            && !text.contains("updatedPermissions")
            && !text.contains("echo *"),
        "{text}"
    );
    assert!(resolved(&ev, None, ApprovalState::ApprovedSession));

    let (ev, text) = approval_decided("deny", ApprovalDecision::deny("not today")).await;
    assert!(
        text.contains(r#""behavior":"deny""#)
            && text.contains("not today")
            && !text.contains("interrupt"),
        "{text}"
    );
    assert!(tool_completed(&ev, None, ToolStatus::Declined));
    assert_completed(&ev);

    let (ev, _) = approval_decided("deny-stop", ApprovalDecision::deny_and_stop("stop")).await;
    assert_interrupted(&ev);
}

#[tokio::test]
async fn question_answers_are_keyed_by_question_text() {
    let mut run = start("question", "question").await;
    let ask = until_request(&mut run).await;
    let AgentEvent::QuestionAsked { questions, .. } = &ask else {
        panic!("{ask:?}")
    };
    assert_eq!(questions[0].id, "Which color?");
    assert_eq!(questions[0].options.len(), 2);
    let wrong = run
        .control()
        .resolve_approval(&request_id(&ask), UserDecision::ApproveOnce)
        .await;
    assert!(
        matches!(wrong, Err(EngineError::Unsupported(_))),
        "{wrong:?}"
    );
    let answers = BTreeMap::from([(
        "Which color?".to_owned(),
        vec!["Red".to_owned(), "Blue".to_owned()],
    )]);
    run.control()
        .answer_question(&request_id(&ask), answers)
        .await
        .unwrap();
    let ev = until_end(&mut run).await;
    let text = all_text(&ev);
    assert!(
        text.contains(r#""answers":{"Which color?":"Red, Blue"}"#),
        "{text}"
    );
    assert!(ev.iter().any(|e| matches!(
        e,
        AgentEvent::QuestionAnswered {
            answers: Some(_),
            ..
        }
    )));
}

#[tokio::test]
async fn a_withdrawn_permission_is_cancelled_not_denied() {
    let mut run = start("cancel", "cancel_permission").await;
    let ask = until_request(&mut run).await;
    let id = request_id(&ask);
    let ev = until_end(&mut run).await;
    assert!(
        resolved(&ev, Some(&id), ApprovalState::Cancelled),
        "{ev:#?}"
    );
    assert_completed(&ev);
    assert_no_longer_pending(&run, &id).await;
}

#[tokio::test]
async fn a_silent_hang_is_ended_by_interrupt_within_the_grace() {
    let mut run = start("hang", "hang").await;
    until(&mut run, |e| matches!(e, AgentEvent::MessageDelta { .. })).await;
    let t0 = std::time::Instant::now();
    run.control().interrupt();
    let ev = until_end(&mut run).await;
    assert_interrupted(&ev);
    assert!(ev.iter().any(|e| matches!(e, AgentEvent::EngineDiagnostic { message, .. } if message.contains("did not confirm the interrupt"))));
    assert!(t0.elapsed() < Duration::from_secs(10), "{:?}", t0.elapsed());
    assert!(!alive(run.pid.unwrap()), "the hung CLI is still running");
}

#[tokio::test]
async fn start_errors_are_actionable() {
    let t0 = std::time::Instant::now();
    let err = engine()
        .start_run(request("hang-init", "hang_init", None))
        .await
        .unwrap_err();
    assert!(matches!(err, EngineError::Timeout { .. }), "{err}");
    assert!(t0.elapsed() < Duration::from_secs(10));

    let err = engine()
        .start_run(request("nologin", "not_logged_in", None))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, EngineError::NotLoggedIn(m) if m.contains("not logged in") && m.contains("/login")),
        "{err}"
    );

    let missing = ClaudeEngine::new(ClaudeEngineConfig::new("/nonexistent/claude"));
    let err = missing
        .start_run(request("missing", "text", None))
        .await
        .unwrap_err();
    assert!(matches!(err, EngineError::NotFound { .. }), "{err}");
}

#[tokio::test]
async fn an_unknown_resume_id_starts_a_new_session_and_says_so() {
    let stale = "missing-0000";
    let req = request("resume", "text", Some(stale));
    let mut run = started(STEP, engine().start_run(req)).await;
    assert!(!run.resumed);
    assert_ne!(run.session_id, stale);
    let ev = until_end(&mut run).await;
    assert!(matches!(ev[0], AgentEvent::RunStarted { .. }));
    assert!(
        notices(&ev)
            .iter()
            .any(|m| m.contains("Could not resume") && m.contains(stale)),
        "{ev:#?}"
    );
    assert_completed(&ev);
}

#[tokio::test]
async fn a_silent_cli_is_stopped_by_the_per_run_watchdog() {
    // Through the engine-neutral interface: the per-run override is what the core sets.
    let req = request("watchdog-hang", "hang", None);
    let engine = AgentEngine::Claude(engine());
    let t0 = std::time::Instant::now();
    let neutral = NeutralRunRequest {
        cwd: req.cwd,
        resume_session_id: None,
        plan: None,
        input: req.input,
        options: EngineOptions::Claude(req.profile),
        inactivity_timeout: Some(Duration::from_secs(1)),
    };
    let mut run = started(STEP, engine.start_run(neutral)).await;
    let ev = all_events(&mut run).await;
    let error = failed_with(&ev, "engine_silent");
    assert!(
        error.starts_with("Claude Code said nothing for 1 s; the run was stopped"),
        "{error}"
    );
    // The delta came before the silence: it stays on the timeline.
    assert!(delta_pieces(&ev).contains(&"thinking about it"));
    assert!(t0.elapsed() < Duration::from_secs(10), "{:?}", t0.elapsed());
    assert!(!alive(run.pid.unwrap()), "the silent CLI is still running");
}

#[tokio::test]
async fn a_heartbeat_only_cli_is_not_stopped() {
    // A status line every 200 ms for 3 s, nothing else, under a 1 s watchdog.
    let mut run = start_watched("heartbeat", "heartbeat", Duration::from_secs(1)).await;
    let ev = until_end(&mut run).await;
    assert_completed(&ev);
    assert_eq!(all_text(&ev), "alive");
}

#[tokio::test]
async fn a_pending_approval_pauses_the_watchdog() {
    let mut run = start_watched("watchdog-approval", "approval", Duration::from_secs(1)).await;
    let asked = until_request(&mut run).await;
    // The user takes 2.5 watchdog periods to decide.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    decide(&run, &request_id(&asked), UserDecision::ApproveOnce).await;
    assert_completed(&until_end(&mut run).await);
}

/// The two tests with lines over the cap run one at a time: each may buffer up to the cap
/// before it knows the line is too long, and the memory test measures the whole process.
static BIG_LINES: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

#[tokio::test]
async fn a_60_mb_line_is_skipped_with_bounded_memory_and_the_run_goes_on() {
    let _one_at_a_time = BIG_LINES.lock().await;
    // Reset the peak (VmHWM) to the current RSS so the peak below is this test's.
    std::fs::write("/proc/self/clear_refs", "5").unwrap();
    let (before, _) = rss();
    let mut run = start("huge-line", "huge_line").await;
    let ev = until_end(&mut run).await;
    let (_, peak) = rss();
    let growth = peak.saturating_sub(before);
    eprintln!(
        "60 MB line: peak RSS grew by {:.1} MiB (from {:.1} MiB)",
        growth as f64 / 1048576.0,
        before as f64 / 1048576.0
    );
    assert_completed(&ev);
    assert_eq!(all_text(&ev), "after the big line");
    let d = diagnostics(&ev);
    assert!(
        d.iter()
            .any(|m| m
                .starts_with("line of 60000000 bytes (57.2 MiB) over the 32.0 MiB limit skipped")),
        "{d:#?}"
    );
    // At most the 32 MiB cap is buffered before the line is known to be too long (measured:
    // ~35 MiB). Held whole, as under the old 64 MiB cap, it cost ~232 MiB here alone.
    assert!(growth < 64 * 1024 * 1024, "peak RSS grew by {growth} bytes");
}

#[tokio::test]
async fn a_result_over_the_line_cap_fails_the_run_instead_of_hanging() {
    let _one_at_a_time = BIG_LINES.lock().await;
    let t0 = std::time::Instant::now();
    let mut run = start("huge-result", "huge_result").await;
    let ev = until_end(&mut run).await;
    assert_failed(&ev, "oversized_result", &["40000000 bytes"]);
    // The text before it is kept.
    assert_eq!(all_text(&ev), "almost done");
    assert!(t0.elapsed() < Duration::from_secs(15), "{:?}", t0.elapsed());
    assert!(!alive(run.pid.unwrap()), "the CLI is still running");
}

#[tokio::test]
async fn a_garbage_flood_is_capped_at_the_diagnostic_budget() {
    let mut run = start("garbage-flood", "garbage_flood").await;
    let ev = until_end(&mut run).await;
    assert_completed(&ev);
    assert_eq!(all_text(&ev), "survived");
    let d = diagnostics(&ev);
    let max = RunLimits::default().max_diagnostics;
    assert!(d.len() <= max + 2, "{} diagnostics", d.len());
    assert!(
        d[max].contains("more engine diagnostics suppressed"),
        "{}",
        d[max]
    );
    // The count comes once, last before the end, and covers (at least) the rest of the 2,000.
    let last = d.last().unwrap();
    let n: usize = last
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{last}"));
    assert!(n >= 2000 - max, "{last}");
    assert!(last.contains("more engine diagnostics were suppressed in this run"));
    assert_eq!(
        d.iter().filter(|m| m.contains("were suppressed")).count(),
        1
    );
}

/// A fast stream (20,000 deltas written as fast as the pipe takes them, by the benchmark's
/// fake): every delta's text arrives, in order, and deltas that arrived in one read leave the
/// adapter merged, so far fewer events than deltas reach the consumer.
#[tokio::test]
async fn a_fast_stream_arrives_whole_in_merged_deltas() {
    const DELTAS: usize = 20_000;
    let mut config = ClaudeEngineConfig::new(env!("CARGO_BIN_EXE_fake-claude-stream"));
    config.init_timeout = Duration::from_secs(3);
    let mut req = request("fast-stream", "text", None);
    req.profile.env = vec![("FAKE_STREAM_DELTAS".into(), DELTAS.to_string())];
    let mut run = started(STEP, ClaudeEngine::new(config).start_run(req)).await;
    let ev = until_end(&mut run).await;
    let want: String = (0..DELTAS).map(|i| format!("w{i:09} lorem ip ")).collect();
    assert_merged_stream(&ev, &want, DELTAS, DELTAS / 10);
    assert!(completed_messages(&ev)
        .iter()
        .any(|text| text.len() == want.len()));
    assert_completed(&ev);
}
