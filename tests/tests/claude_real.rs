//! Real-engine suite: the pinned `claude` binary (env `CLAUDE_BIN`, 2.1.328) driven through the
//! Claude adapter against the fake Messages API on 127.0.0.1. No key, no network.
//!
//! Without `CLAUDE_BIN` every test prints a loud SKIP and passes — except under `CI=true`,
//! where a missing binary is a failure. Every wait is bounded; no test can hang.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use agentdesk_protocol::ui::TokenUsage;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use agentdesk_engine::claude::{
    ClaudeEngine, ClaudeEngineConfig, ClaudeProfile, ClaudeRun, ClaudeRunRequest,
};
use agentdesk_engine::{ApprovalDecision, EngineError, InputPart};
use agentdesk_protocol::events::{
    AgentEvent, ApprovalKind, ApprovalState, FileChangeKind, ToolKind, ToolStatus, UserDecision,
};
use agentdesk_tests::events::{
    assert_completed, assert_failed, assert_interrupted, assert_no_longer_pending,
    completed_messages, decide, deltas, interrupted_mid_stream, is_ask, notices, request_id,
    resolved, started, tool_completed, tools_ended, until, until_end, until_end_after, until_into,
    STEP,
};
use agentdesk_tests::fake_messages::{FakeMessages, Reply, Step, FAKE_MODEL};
use agentdesk_tests::process::{alive, kill9};
use agentdesk_tests::real::{claude_dirs, claude_profile, RED_PNG, RED_PNG_B64};
use agentdesk_tests::real_test;
use agentdesk_tests::world::fresh_root;
use serde_json::json;

const SUITE: &str = "real claude suite";
const BIN_VAR: &str = "CLAUDE_BIN";

const TEST: Duration = Duration::from_secs(120);

/// The model calls the tool `name` (call `id`) with `input`.
fn tool_use((id, name): (&str, &str), input: serde_json::Value) -> Step {
    Step::ToolUse {
        id: id.into(),
        name: name.into(),
        input,
    }
}

fn completed_text(ev: &[AgentEvent]) -> String {
    completed_messages(ev).join("\n")
}

struct Env {
    fake: FakeMessages,
    work: PathBuf,
    engine: ClaudeEngine,
    profile: ClaudeProfile,
}

impl Env {
    /// A fresh fake server; config, home and tmp dirs under `target/` (not $TMPDIR).
    async fn new(name: &str, bin: &Path) -> Self {
        let fake = FakeMessages::start().await.unwrap();
        let dirs = claude_dirs(&fresh_root(
            env!("CARGO_TARGET_TMPDIR"),
            "claude-real",
            name,
        ));
        // The CLI puts a unix socket under CLAUDE_CODE_TMPDIR: sun_path holds 108 bytes.
        assert!(
            dirs.tmp.as_os_str().len() + 30 <= 103,
            "{:?} too long for a socket path",
            dirs.tmp
        );
        let mut profile = claude_profile(fake.base_url(), &dirs);
        for k in ["DISABLE_TELEMETRY", "DISABLE_ERROR_REPORTING"] {
            profile.env.push((k.into(), "1".into()));
        }
        profile
            .env_remove
            .extend(["HTTPS_PROXY".into(), "HTTP_PROXY".into()]);
        let mut config = ClaudeEngineConfig::new(bin);
        config.interrupt_grace = Duration::from_secs(10);
        Self {
            fake,
            work: dirs.work,
            engine: ClaudeEngine::new(config),
            profile,
        }
    }

    fn request(&self, input: Vec<InputPart>, resume: Option<String>) -> ClaudeRunRequest {
        ClaudeRunRequest {
            cwd: self.work.clone(),
            profile: self.profile.clone(),
            resume_session_id: resume,
            plan: None,
            input,
        }
    }

    async fn start(&self, req: ClaudeRunRequest) -> ClaudeRun {
        started(STEP, self.engine.start_run(req)).await
    }

    async fn run(&self, text: &str, resume: Option<String>) -> ClaudeRun {
        self.start(self.request(vec![InputPart::text(text)], resume))
            .await
    }

    /// The model asks to run `echo hi > out.txt` (call `call_id`), then answers `then` (if
    /// any); the run and its approval request.
    async fn asked_to_run(&self, call_id: &str, then: Option<&str>) -> (ClaudeRun, AgentEvent) {
        self.fake.push(Reply::bash(call_id, "echo hi > out.txt"));
        if let Some(then) = then {
            self.fake.push(Reply::text(&[then]));
        }
        let mut run = self.run("RUN_BASH", None).await;
        let ask = until(&mut run, is_ask).await;
        (run, ask)
    }
}

real_test!(streamed_text_and_thinking, |bin| {
    let env = Env::new("text", &bin).await;
    env.fake.push(Reply::thinking_then_text(
        &["Let me ", "think"],
        &["Hello ", "from ", "fake!"],
    ));
    let mut run = env.run("Say hello", None).await;
    assert_eq!(run.version.as_deref(), Some("2.1.328"));
    assert!(run.account.as_ref().unwrap().is_logged_in());
    let ev = until_end(&mut run).await;
    assert!(
        matches!(&ev[0], AgentEvent::RunStarted { engine_session_id: Some(s), model: Some(m), tools }
            if *s == run.session_id && m == FAKE_MODEL && tools.iter().any(|t| t == "Bash")),
        "{ev:#?}"
    );
    assert_eq!(deltas(&ev), "Hello from fake!");
    assert!(ev
        .iter()
        .any(|e| matches!(e, AgentEvent::ReasoningDelta { .. })));
    assert!(ev.iter().any(
        |e| matches!(e, AgentEvent::ReasoningCompleted { text, .. } if text == "Let me think")
    ));
    assert_eq!(completed_text(&ev), "Hello from fake!");
    assert!(
        ev.iter().any(|e| matches!(e, AgentEvent::Usage(TokenUsage { input: 10, output: 5, cost_usd: Some(c), .. }) if *c > 0.0)),
        "{ev:#?}"
    );
    assert_completed(&ev);
    assert!(
        !alive(run.pid.unwrap()),
        "claude still running after the run ended"
    );
    let req = &env.fake.model_requests()[0];
    assert!(req
        .header("user-agent")
        .unwrap_or("")
        .contains("agent-desk"));
});

real_test!(bash_approval_allowed_runs_the_command, |bin| {
    let env = Env::new("bash-allow", &bin).await;
    let (mut run, ask) = env
        .asked_to_run("toolu_allow", Some("done (allowed)"))
        .await;
    let AgentEvent::ApprovalRequested {
        kind,
        command,
        cwd,
        item_id,
        ..
    } = &ask
    else {
        panic!("{ask:?}")
    };
    assert_eq!(*kind, ApprovalKind::Command);
    assert_eq!(command.as_deref(), Some("echo hi > out.txt"));
    assert_eq!(cwd.as_deref(), Some(env.work.to_str().unwrap()));
    assert_eq!(item_id.as_deref(), Some("toolu_allow"));
    decide(&run, &request_id(&ask), UserDecision::ApproveOnce).await;
    let ev = until_end(&mut run).await;
    assert!(
        tool_completed(&ev, Some(ToolKind::Command), ToolStatus::Completed),
        "{ev:#?}"
    );
    assert_completed(&ev);
    assert_eq!(
        std::fs::read_to_string(env.work.join("out.txt")).unwrap(),
        "hi\n"
    );
    assert_no_longer_pending(&run, &request_id(&ask)).await;
});

real_test!(bash_approval_denied_skips_it_and_the_turn_goes_on, |bin| {
    let env = Env::new("bash-deny", &bin).await;
    let (mut run, ask) = env.asked_to_run("toolu_deny", Some("done (denied)")).await;
    let deny = ApprovalDecision::deny("Not in this repo.");
    decide(&run, &request_id(&ask), deny).await;
    let ev = until_end(&mut run).await;
    assert!(resolved(&ev, None, ApprovalState::Denied));
    assert!(tool_completed(&ev, None, ToolStatus::Declined), "{ev:#?}");
    assert!(completed_text(&ev).contains("done (denied)"));
    assert_completed(&ev);
    assert!(!env.work.join("out.txt").exists(), "a denied command ran");
    // The model got the denial message as the tool result.
    let last = env.fake.model_requests().pop().unwrap();
    let result = &last.blocks_of("tool_result")[0];
    assert_eq!(result["is_error"], true);
    assert!(result.to_string().contains("Not in this repo."), "{result}");
});

real_test!(deny_and_stop_ends_the_turn, |bin| {
    let env = Env::new("deny-stop", &bin).await;
    let (mut run, ask) = env
        .asked_to_run("toolu_stop", Some("should not be asked"))
        .await;
    let stop = ApprovalDecision::deny_and_stop("Stop here.");
    decide(&run, &request_id(&ask), stop).await;
    let ev = until_end(&mut run).await;
    assert_interrupted(&ev);
    assert!(!env.work.join("out.txt").exists());
    assert_eq!(
        env.fake.model_requests().len(),
        1,
        "the turn went on after deny-and-stop"
    );
});

real_test!(allow_with_an_edited_input_runs_the_edited_command, |bin| {
    let env = Env::new("edited", &bin).await;
    let (mut run, ask) = env.asked_to_run("toolu_edit", Some("done (edited)")).await;
    let edited =
        json!({"command": "echo edited > edited.txt", "description": "edited by the user"});
    decide(
        &run,
        &request_id(&ask),
        ApprovalDecision::allow_edited(edited),
    )
    .await;
    assert_completed(&until_end(&mut run).await);
    assert_eq!(
        std::fs::read_to_string(env.work.join("edited.txt")).unwrap(),
        "edited\n"
    );
    assert!(
        !env.work.join("out.txt").exists(),
        "the original command ran"
    );
});

real_test!(two_tool_calls_in_one_turn, |bin| {
    let env = Env::new("two-tools", &bin).await;
    let two = env.work.join("two.txt");
    env.fake.push(Reply::Stream(vec![
        tool_use(
            ("toolu_m1", "Bash"),
            json!({"command": "echo one > one.txt", "description": "one"}),
        ),
        tool_use(
            ("toolu_m2", "Write"),
            json!({"file_path": two, "content": "two\n"}),
        ),
    ]));
    env.fake.push(Reply::text(&["both done"]));
    let mut run = env.run("MULTI_TOOL", None).await;
    let first = until(&mut run, is_ask).await;
    assert!(
        matches!(
            &first,
            AgentEvent::ApprovalRequested {
                kind: ApprovalKind::Command,
                ..
            }
        ),
        "{first:?}"
    );
    decide(&run, &request_id(&first), UserDecision::ApproveOnce).await;
    let mut seen = Vec::new();
    let second = until_into(&mut run, is_ask, &mut seen).await;
    let AgentEvent::ApprovalRequested { kind, files, .. } = &second else {
        panic!("{second:?}")
    };
    assert_eq!(*kind, ApprovalKind::FileChange);
    assert_eq!(Path::new(&files[0].path), two);
    assert_eq!(files[0].kind, FileChangeKind::Add);
    assert!(files[0].diff.contains("+two"), "{}", files[0].diff);
    decide(&run, &request_id(&second), UserDecision::ApproveOnce).await;
    seen.extend(until_end(&mut run).await);
    let ev = seen;
    assert_completed(&ev);
    let done = tools_ended(&ev, None, ToolStatus::Completed);
    assert_eq!(done, 2, "{ev:#?}");
    assert!(ev.iter().any(|e| matches!(e, AgentEvent::FileChanged { path, kind: FileChangeKind::Add, .. } if Path::new(path) == two)));
    assert_eq!(
        std::fs::read_to_string(env.work.join("one.txt")).unwrap(),
        "one\n"
    );
    assert_eq!(std::fs::read_to_string(&two).unwrap(), "two\n");
});

real_test!(ask_user_question_is_answered, |bin| {
    let env = Env::new("ask", &bin).await;
    env.fake.push(Reply::tool(
        "toolu_ask",
        "AskUserQuestion",
        json!({"questions": [{"question": "Which color do you prefer?", "header": "Color", "multiSelect": false,
            "options": [{"label": "Red", "description": "The red option"}, {"label": "Blue", "description": "The blue option"}]}]}),
    ));
    env.fake.push(Reply::text(&["Blue it is"]));
    let mut run = env.run("ASK_Q", None).await;
    let ask = until(&mut run, is_ask).await;
    let AgentEvent::QuestionAsked { questions, .. } = &ask else {
        panic!("{ask:?}")
    };
    assert_eq!(questions[0].question, "Which color do you prefer?");
    assert_eq!(questions[0].options[1].label, "Blue");
    let answers = BTreeMap::from([(questions[0].id.clone(), vec!["Blue".to_owned()])]);
    run.control()
        .answer_question(&request_id(&ask), answers)
        .await
        .unwrap();
    assert_completed(&until_end(&mut run).await);
    let last = env.fake.model_requests().pop().unwrap();
    let result = last.blocks_of("tool_result")[0].to_string();
    assert!(
        result.contains("Which color do you prefer?") && result.contains("Blue"),
        "{result}"
    );
});

real_test!(interrupt_mid_stream, |bin| {
    let env = Env::new("interrupt", &bin).await;
    env.fake
        .push(Reply::slow_text(200, Duration::from_millis(100)));
    let mut run = env.run("SLOW", None).await;
    let ev = interrupted_mid_stream(&mut run, "chunk00").await;
    assert!(
        agentdesk_tests::http::wait_until(Duration::from_secs(10), || env.fake.disconnects() >= 1)
            .await,
        "claude kept the model stream open"
    );
    assert!(!ev.iter().any(|e| matches!(e, AgentEvent::EngineDiagnostic { message, .. } if message.contains("did not confirm"))), "the CLI did not confirm the interrupt itself");
});

real_test!(image_input_reaches_the_model, |bin| {
    let env = Env::new("image", &bin).await;
    let png = env.work.join("red.png");
    std::fs::write(&png, RED_PNG).unwrap();
    env.fake.push(Reply::text(&["A red square."]));
    let input = vec![
        InputPart::text("What is in this picture?"),
        InputPart::image(&png),
    ];
    let mut run = env.start(env.request(input, None)).await;
    assert_completed(&until_end(&mut run).await);
    let images = env.fake.model_requests()[0].blocks_of("image");
    assert_eq!(images.len(), 1, "{:#?}", env.fake.model_requests()[0].body);
    assert_eq!(images[0]["source"]["type"], "base64");
    assert_eq!(images[0]["source"]["media_type"], "image/png");
    assert_eq!(images[0]["source"]["data"], RED_PNG_B64);
});

real_test!(resume_in_a_new_process_and_unknown_resume_id, |bin| {
    let env = Env::new("resume", &bin).await;
    env.fake.push(Reply::text(&["first answer"]));
    let mut run = env.run("first question", None).await;
    assert_completed(&until_end(&mut run).await);
    let sid = run.session_id.clone();

    env.fake.push(Reply::text(&["second answer"]));
    let mut run2 = env.run("second question", Some(sid.clone())).await;
    assert!(run2.resumed);
    assert_eq!(run2.session_id, sid);
    assert_ne!(run2.pid, run.pid);
    let ev = until_end(&mut run2).await;
    assert_completed(&ev);
    assert!(
        matches!(&ev[0], AgentEvent::RunStarted { engine_session_id: Some(s), .. } if *s == sid)
    );
    // Per-run cost, although the CLI's total_cost_usd is cumulative over the session.
    let first_cost = 0.000105;
    assert!(
        ev.iter().any(|e| matches!(e, AgentEvent::Usage(TokenUsage { cost_usd: Some(c), .. }) if (*c - first_cost).abs() < 1e-9)),
        "{ev:#?}"
    );
    let t = env.fake.model_requests().pop().unwrap().transcript();
    assert!(
        t.contains("first question") && t.contains("first answer"),
        "history missing: {t}"
    );

    // An unknown id: a fresh session, and the timeline says so.
    let stale = "11111111-2222-3333-4444-555555555555".to_owned();
    env.fake.push(Reply::text(&["fresh"]));
    let mut run3 = env.run("hi", Some(stale.clone())).await;
    assert!(!run3.resumed);
    assert_ne!(run3.session_id, stale);
    let ev = until_end(&mut run3).await;
    assert!(
        notices(&ev)
            .iter()
            .any(|m| m.contains("Could not resume") && m.contains(&stale)),
        "{ev:#?}"
    );
    assert_completed(&ev);
    assert_eq!(completed_text(&ev), "fresh");
});

real_test!(model_http_500_fails_the_run_with_the_message, |bin| {
    let env = Env::new("http500", &bin).await;
    env.fake.push(Reply::status(500, "fake 500 exploded"));
    let mut run = env.run("ERR_500", None).await;
    let ev = until_end(&mut run).await;
    assert_failed(&ev, "http_500", &["500", "fake 500 exploded"]);
    assert!(
        completed_messages(&ev).is_empty(),
        "API error shown as chat text: {ev:#?}"
    );
    assert!(!alive(run.pid.unwrap()));
});

real_test!(
    cli_killed_mid_turn_fails_the_run_and_expires_the_approval,
    |bin| {
        let env = Env::new("killed", &bin).await;
        let (mut run, ask) = env.asked_to_run("toolu_kill", None).await;
        kill9(run.pid.unwrap());
        let ev = until_end(&mut run).await;
        let id = request_id(&ask);
        assert!(resolved(&ev, Some(&id), ApprovalState::Expired), "{ev:#?}");
        assert_failed(&ev, "engine_crashed", &["stopped unexpectedly", "SIGKILL"]);
        assert_no_longer_pending(&run, &id).await;
        assert!(!env.work.join("out.txt").exists());
    }
);

real_test!(status_reports_version_and_login_state, |bin| {
    let env = Env::new("status", &bin).await;
    let status = env.engine.status(&env.work, &env.profile).await.unwrap();
    assert_eq!(
        (
            status.version.major,
            status.version.minor,
            status.version.patch
        ),
        (2, 1, 328)
    );
    assert!(status.logged_in);
    assert_eq!(
        status.account.unwrap().api_key_source.as_deref(),
        Some("ANTHROPIC_API_KEY")
    );
    assert_eq!(
        status.initialize.claude_code_version.as_deref(),
        Some("2.1.328")
    );
    // No key and no login: the status says so, and a run is refused with what to do.
    let mut profile = env.profile.clone();
    profile.api_key_env = None;
    profile.env_remove.push("ANTHROPIC_API_KEY".into());
    let status = env.engine.status(&env.work, &profile).await.unwrap();
    assert!(!status.logged_in, "{:?}", status.account);
    let mut req = env.request(vec![InputPart::text("hi")], None);
    req.profile = profile;
    let err = env.engine.start_run(req).await.unwrap_err();
    assert!(
        matches!(&err, EngineError::NotLoggedIn(m) if m.contains("not logged in") && m.contains("/login")),
        "{err}"
    );
    assert!(env.fake.model_requests().is_empty());
});

real_test!(
    permission_mode_switched_mid_run_skips_the_edit_prompt,
    |bin| {
        let env = Env::new("set-mode", &bin).await;
        let file = env.work.join("auto.txt");
        env.fake.push(Reply::Stream(vec![
            Step::Sleep(Duration::from_millis(800)),
            tool_use(
                ("toolu_auto", "Write"),
                json!({"file_path": file, "content": "auto\n"}),
            ),
        ]));
        env.fake.push(Reply::text(&["written"]));
        let mut run = env.run("WRITE_FILE", None).await;
        run.control()
            .set_permission_mode(agentdesk_engine::claude::PermissionMode::AcceptEdits);
        let ev = until_end(&mut run).await;
        assert!(
            !ev.iter().any(is_ask),
            "asked although acceptEdits: {ev:#?}"
        );
        assert_completed(&ev);
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "auto\n");
    }
);

#[path = "claude_real/isolation.rs"]
mod isolation;

#[path = "claude_real/subagents.rs"]
mod subagents;
