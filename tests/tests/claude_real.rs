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
    AgentEvent, ApprovalKind, ApprovalState, DiagnosticSource, FileChangeKind, ToolKind,
    ToolStatus, UserDecision,
};
use agentdesk_tests::events::{until, until_end, until_into};
use agentdesk_tests::fake_messages::{FakeMessages, Reply, Step, FAKE_MODEL};
use agentdesk_tests::real::{engine_bin, RED_PNG, RED_PNG_B64};
use serde_json::json;

const SUITE: &str = "real claude suite";

const STEP: Duration = Duration::from_secs(30);
const TEST: Duration = Duration::from_secs(120);

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
        let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("claude-real/{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let (home, work, tmp) = (root.join("home"), root.join("work"), root.join("t"));
        for d in [&home.join(".claude"), &work, &tmp] {
            std::fs::create_dir_all(d).unwrap();
        }
        // The CLI puts a unix socket under CLAUDE_CODE_TMPDIR: sun_path holds 108 bytes.
        assert!(
            tmp.as_os_str().len() + 30 <= 103,
            "{tmp:?} too long for a socket path"
        );
        let s = |p: &Path| p.to_string_lossy().into_owned();
        let profile = ClaudeProfile {
            model: Some(FAKE_MODEL.into()),
            base_url: Some(fake.base_url()),
            api_key_env: Some("AGENTDESK_TEST_ANTHROPIC_KEY".into()),
            env: vec![
                ("AGENTDESK_TEST_ANTHROPIC_KEY".into(), "dummy".into()),
                ("HOME".into(), s(&home)),
                ("CLAUDE_CONFIG_DIR".into(), s(&home.join(".claude"))),
                ("CLAUDE_CODE_TMPDIR".into(), s(&tmp)),
                (
                    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC".into(),
                    "1".into(),
                ),
                ("CLAUDE_CODE_MAX_RETRIES".into(), "0".into()),
                ("DISABLE_AUTOUPDATER".into(), "1".into()),
                ("DISABLE_TELEMETRY".into(), "1".into()),
                ("DISABLE_ERROR_REPORTING".into(), "1".into()),
                ("NO_PROXY".into(), "127.0.0.1,localhost".into()),
            ],
            env_remove: vec![
                "ANTHROPIC_AUTH_TOKEN".into(),
                "CLAUDE_CODE_OAUTH_TOKEN".into(),
                "HTTPS_PROXY".into(),
                "HTTP_PROXY".into(),
            ],
            ..Default::default()
        };
        let mut config = ClaudeEngineConfig::new(bin);
        config.interrupt_grace = Duration::from_secs(10);
        Self {
            fake,
            work,
            engine: ClaudeEngine::new(config),
            profile,
        }
    }

    fn request(&self, input: Vec<InputPart>, resume: Option<String>) -> ClaudeRunRequest {
        ClaudeRunRequest {
            cwd: self.work.clone(),
            profile: self.profile.clone(),
            resume_session_id: resume,
            input,
        }
    }

    async fn run(&self, text: &str, resume: Option<String>) -> ClaudeRun {
        tokio::time::timeout(
            STEP,
            self.engine
                .start_run(self.request(vec![InputPart::text(text)], resume)),
        )
        .await
        .expect("start_run timed out")
        .expect("start_run failed")
    }
}

fn is_ask(e: &AgentEvent) -> bool {
    matches!(
        e,
        AgentEvent::ApprovalRequested { .. } | AgentEvent::QuestionAsked { .. }
    )
}

fn id_of(ev: &AgentEvent) -> String {
    match ev {
        AgentEvent::ApprovalRequested { request_id, .. }
        | AgentEvent::QuestionAsked { request_id, .. } => request_id.clone(),
        other => panic!("not a request: {other:?}"),
    }
}

fn completed_text(ev: &[AgentEvent]) -> String {
    ev.iter()
        .filter_map(|e| match e {
            AgentEvent::MessageCompleted { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn alive(pid: Option<u32>) -> bool {
    std::process::Command::new("kill")
        .args(["-0", &pid.unwrap().to_string()])
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap()
        .success()
}

macro_rules! real_test {
    ($name:ident, |$bin:ident| $body:block) => {
        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn $name() {
            let Some($bin) = engine_bin("CLAUDE_BIN", SUITE) else {
                return;
            };
            tokio::time::timeout(TEST, async move { $body })
                .await
                .expect("test timed out");
        }
    };
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
    let deltas: String = ev
        .iter()
        .filter_map(|e| match e {
            AgentEvent::MessageDelta { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(deltas, "Hello from fake!");
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
    assert!(matches!(ev.last(), Some(AgentEvent::RunCompleted { .. })));
    assert!(!alive(run.pid), "claude still running after the run ended");
    let req = &env.fake.model_requests()[0];
    assert!(req
        .header("user-agent")
        .unwrap_or("")
        .contains("agent-desk"));
});

real_test!(bash_approval_allowed_runs_the_command, |bin| {
    let env = Env::new("bash-allow", &bin).await;
    env.fake
        .push(Reply::bash("toolu_allow", "echo hi > out.txt"));
    env.fake.push(Reply::text(&["done (allowed)"]));
    let mut run = env.run("RUN_BASH", None).await;
    let ask = until(&mut run, is_ask).await;
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
    run.control()
        .resolve_approval(&id_of(&ask), UserDecision::ApproveOnce)
        .await
        .unwrap();
    let ev = until_end(&mut run).await;
    assert!(
        ev.iter().any(|e| matches!(
            e,
            AgentEvent::ToolCompleted {
                kind: ToolKind::Command,
                status: ToolStatus::Completed,
                ..
            }
        )),
        "{ev:#?}"
    );
    assert!(
        matches!(ev.last(), Some(AgentEvent::RunCompleted { .. })),
        "{ev:#?}"
    );
    assert_eq!(
        std::fs::read_to_string(env.work.join("out.txt")).unwrap(),
        "hi\n"
    );
    let again = run
        .control()
        .resolve_approval(&id_of(&ask), UserDecision::ApproveOnce)
        .await;
    assert!(
        matches!(again, Err(EngineError::NotPending { .. })),
        "{again:?}"
    );
});

real_test!(bash_approval_denied_skips_it_and_the_turn_goes_on, |bin| {
    let env = Env::new("bash-deny", &bin).await;
    env.fake
        .push(Reply::bash("toolu_deny", "echo hi > out.txt"));
    env.fake.push(Reply::text(&["done (denied)"]));
    let mut run = env.run("RUN_BASH", None).await;
    let ask = until(&mut run, is_ask).await;
    run.control()
        .resolve_approval(&id_of(&ask), ApprovalDecision::deny("Not in this repo."))
        .await
        .unwrap();
    let ev = until_end(&mut run).await;
    assert!(ev.iter().any(|e| matches!(
        e,
        AgentEvent::ApprovalResolved {
            outcome: ApprovalState::Denied,
            ..
        }
    )));
    assert!(
        ev.iter().any(|e| matches!(
            e,
            AgentEvent::ToolCompleted {
                status: ToolStatus::Declined,
                ..
            }
        )),
        "{ev:#?}"
    );
    assert!(completed_text(&ev).contains("done (denied)"));
    assert!(
        matches!(ev.last(), Some(AgentEvent::RunCompleted { .. })),
        "{ev:#?}"
    );
    assert!(!env.work.join("out.txt").exists(), "a denied command ran");
    // The model got the denial message as the tool result.
    let last = env.fake.model_requests().pop().unwrap();
    let result = &last.blocks_of("tool_result")[0];
    assert_eq!(result["is_error"], true);
    assert!(result.to_string().contains("Not in this repo."), "{result}");
});

real_test!(deny_and_stop_ends_the_turn, |bin| {
    let env = Env::new("deny-stop", &bin).await;
    env.fake
        .push(Reply::bash("toolu_stop", "echo hi > out.txt"));
    env.fake.push(Reply::text(&["should not be asked"]));
    let mut run = env.run("RUN_BASH", None).await;
    let ask = until(&mut run, is_ask).await;
    run.control()
        .resolve_approval(&id_of(&ask), ApprovalDecision::deny_and_stop("Stop here."))
        .await
        .unwrap();
    let ev = until_end(&mut run).await;
    assert!(
        matches!(ev.last(), Some(AgentEvent::RunInterrupted {})),
        "{ev:#?}"
    );
    assert!(!env.work.join("out.txt").exists());
    assert_eq!(
        env.fake.model_requests().len(),
        1,
        "the turn went on after deny-and-stop"
    );
});

real_test!(allow_with_an_edited_input_runs_the_edited_command, |bin| {
    let env = Env::new("edited", &bin).await;
    env.fake
        .push(Reply::bash("toolu_edit", "echo hi > out.txt"));
    env.fake.push(Reply::text(&["done (edited)"]));
    let mut run = env.run("RUN_BASH", None).await;
    let ask = until(&mut run, is_ask).await;
    let edited =
        json!({"command": "echo edited > edited.txt", "description": "edited by the user"});
    run.control()
        .resolve_approval(&id_of(&ask), ApprovalDecision::allow_edited(edited))
        .await
        .unwrap();
    let ev = until_end(&mut run).await;
    assert!(
        matches!(ev.last(), Some(AgentEvent::RunCompleted { .. })),
        "{ev:#?}"
    );
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
        Step::ToolUse {
            id: "toolu_m1".into(),
            name: "Bash".into(),
            input: json!({"command": "echo one > one.txt", "description": "one"}),
        },
        Step::ToolUse {
            id: "toolu_m2".into(),
            name: "Write".into(),
            input: json!({"file_path": two, "content": "two\n"}),
        },
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
    run.control()
        .resolve_approval(&id_of(&first), UserDecision::ApproveOnce)
        .await
        .unwrap();
    let mut seen = Vec::new();
    let second = until_into(&mut run, is_ask, &mut seen).await;
    let AgentEvent::ApprovalRequested { kind, files, .. } = &second else {
        panic!("{second:?}")
    };
    assert_eq!(*kind, ApprovalKind::FileChange);
    assert_eq!(Path::new(&files[0].path), two);
    assert_eq!(files[0].kind, FileChangeKind::Add);
    assert!(files[0].diff.contains("+two"), "{}", files[0].diff);
    run.control()
        .resolve_approval(&id_of(&second), UserDecision::ApproveOnce)
        .await
        .unwrap();
    seen.extend(until_end(&mut run).await);
    let ev = seen;
    assert!(
        matches!(ev.last(), Some(AgentEvent::RunCompleted { .. })),
        "{ev:#?}"
    );
    let done = ev
        .iter()
        .filter(|e| {
            matches!(
                e,
                AgentEvent::ToolCompleted {
                    status: ToolStatus::Completed,
                    ..
                }
            )
        })
        .count();
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
        .answer_question(&id_of(&ask), answers)
        .await
        .unwrap();
    let ev = until_end(&mut run).await;
    assert!(
        matches!(ev.last(), Some(AgentEvent::RunCompleted { .. })),
        "{ev:#?}"
    );
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
    until(&mut run, |e| matches!(e, AgentEvent::MessageDelta { .. })).await;
    run.control().interrupt();
    let ev = until_end(&mut run).await;
    assert!(
        matches!(ev.last(), Some(AgentEvent::RunInterrupted {})),
        "{ev:#?}"
    );
    assert!(
        ev.iter().any(|e| matches!(e, AgentEvent::MessageCompleted { text, .. } if text.starts_with("chunk00"))),
        "{ev:#?}"
    );
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
    let mut run = tokio::time::timeout(STEP, env.engine.start_run(env.request(input, None)))
        .await
        .unwrap()
        .unwrap();
    let ev = until_end(&mut run).await;
    assert!(
        matches!(ev.last(), Some(AgentEvent::RunCompleted { .. })),
        "{ev:#?}"
    );
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
    let ev = until_end(&mut run).await;
    assert!(
        matches!(ev.last(), Some(AgentEvent::RunCompleted { .. })),
        "{ev:#?}"
    );
    let sid = run.session_id.clone();

    env.fake.push(Reply::text(&["second answer"]));
    let mut run2 = env.run("second question", Some(sid.clone())).await;
    assert!(run2.resumed);
    assert_eq!(run2.session_id, sid);
    assert_ne!(run2.pid, run.pid);
    let ev = until_end(&mut run2).await;
    assert!(
        matches!(ev.last(), Some(AgentEvent::RunCompleted { .. })),
        "{ev:#?}"
    );
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
        ev.iter().any(|e| matches!(e, AgentEvent::EngineDiagnostic { source: DiagnosticSource::Notice, message, .. }
            if message.contains("Could not resume") && message.contains(&stale))),
        "{ev:#?}"
    );
    assert!(
        matches!(ev.last(), Some(AgentEvent::RunCompleted { .. })),
        "{ev:#?}"
    );
    assert_eq!(completed_text(&ev), "fresh");
});

real_test!(model_http_500_fails_the_run_with_the_message, |bin| {
    let env = Env::new("http500", &bin).await;
    env.fake.push(Reply::status(500, "fake 500 exploded"));
    let mut run = env.run("ERR_500", None).await;
    let ev = until_end(&mut run).await;
    match ev.last() {
        Some(AgentEvent::RunFailed { error, code }) => {
            assert_eq!(code.as_deref(), Some("http_500"), "{error}");
            assert!(
                error.contains("500") && error.contains("fake 500 exploded"),
                "{error}"
            );
        }
        other => panic!("{other:?}\n{ev:#?}"),
    }
    assert!(
        !ev.iter()
            .any(|e| matches!(e, AgentEvent::MessageCompleted { .. })),
        "API error shown as chat text: {ev:#?}"
    );
    assert!(!alive(run.pid));
});

real_test!(
    cli_killed_mid_turn_fails_the_run_and_expires_the_approval,
    |bin| {
        let env = Env::new("killed", &bin).await;
        env.fake
            .push(Reply::bash("toolu_kill", "echo hi > out.txt"));
        let mut run = env.run("RUN_BASH", None).await;
        let ask = until(&mut run, is_ask).await;
        let status = std::process::Command::new("kill")
            .args(["-9", &run.pid.unwrap().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
        let ev = until_end(&mut run).await;
        let id = id_of(&ask);
        assert!(
        ev.iter().any(|e| matches!(e, AgentEvent::ApprovalResolved { request_id, outcome: ApprovalState::Expired } if *request_id == id)),
        "{ev:#?}"
    );
        match ev.last() {
            Some(AgentEvent::RunFailed { error, code }) => {
                assert_eq!(code.as_deref(), Some("engine_crashed"));
                assert!(
                    error.contains("stopped unexpectedly") && error.contains("SIGKILL"),
                    "{error}"
                );
            }
            other => panic!("{other:?}\n{ev:#?}"),
        }
        let late = run
            .control()
            .resolve_approval(&id, UserDecision::ApproveOnce)
            .await;
        assert!(
            matches!(late, Err(EngineError::NotPending { .. })),
            "{late:?}"
        );
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
            Step::ToolUse {
                id: "toolu_auto".into(),
                name: "Write".into(),
                input: json!({"file_path": file, "content": "auto\n"}),
            },
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
        assert!(
            matches!(ev.last(), Some(AgentEvent::RunCompleted { .. })),
            "{ev:#?}"
        );
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "auto\n");
    }
);

#[path = "claude_real/isolation.rs"]
mod isolation;
