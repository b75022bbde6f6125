//! Real-engine suite: the pinned `codex` binary (env `CODEX_BIN`) driven through the Codex
//! adapter against the fake Responses API on 127.0.0.1. No key, no network.
//!
//! Without `CODEX_BIN` every test prints a loud SKIP and passes — except under `CI=true`,
//! where a missing binary is a failure. Every wait is bounded; no test can hang.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use agentdesk_protocol::ui::TokenUsage;
use std::path::{Path, PathBuf};
use std::time::Duration;

use agentdesk_engine::codex::{CodexEngine, CodexEngineConfig, CodexProfile, CodexRun, RunRequest};
use agentdesk_engine::EngineError;
use agentdesk_protocol::codex::{AskForApproval, UserInput};
use agentdesk_protocol::events::{
    AgentEvent, ApprovalKind, ApprovalState, FileChangeKind, ToolKind, ToolStatus, UserDecision,
};
use agentdesk_tests::events::{
    assert_completed, assert_failed, assert_no_longer_pending, decide, deltas, diagnostics,
    has_message, interrupted_mid_stream, is_approval, request_id, resolved, started,
    tool_completed, until, until_end, STEP,
};
use agentdesk_tests::fake_responses::{FakeResponses, Reply, Step};
use agentdesk_tests::process::kill9;
use agentdesk_tests::real::{codex_dirs, codex_profile, RED_PNG};
use agentdesk_tests::real_test;
use agentdesk_tests::world::fresh_root;

const SUITE: &str = "real codex suite";
const BIN_VAR: &str = "CODEX_BIN";

const TEST: Duration = Duration::from_secs(120);

/// The model calls the function `name` (call `call_id`) with `arguments`.
fn function_call(call_id: &str, name: &str, arguments: &serde_json::Value) -> Reply {
    let call = Step::FunctionCall {
        call_id: call_id.into(),
        name: name.into(),
        arguments: arguments.to_string(),
    };
    Reply::Stream(vec![call])
}

/// The run ended completed with per-run usage (not the thread's total).
fn assert_completed_with_usage(ev: &[AgentEvent]) {
    assert!(
        ev.iter().any(|e| matches!(
            e,
            AgentEvent::Usage(TokenUsage {
                input: 10,
                output: 5,
                ..
            })
        )),
        "{ev:#?}"
    );
    assert_completed(ev);
}

struct Env {
    fake: FakeResponses,
    home: PathBuf,
    repo: PathBuf,
    engine: CodexEngine,
    profile: CodexProfile,
}

impl Env {
    /// A fresh fake server and a CODEX_HOME under `target/` (NOT under $TMPDIR: the Linux
    /// sandbox refuses helper binaries there).
    async fn new(name: &str, bin: &Path, approval: AskForApproval) -> Self {
        let fake = FakeResponses::start().await.unwrap();
        let root = fresh_root(env!("CARGO_TARGET_TMPDIR"), "codex-real", name);
        let (home, repo) = codex_dirs(&root);
        std::fs::write(repo.join("README.md"), "test repo\n").unwrap();
        let profile = codex_profile(fake.base_url(), &home, approval);
        let mut config = CodexEngineConfig::new(bin);
        config.interrupt_grace = Duration::from_secs(10);
        Self {
            fake,
            home,
            repo,
            engine: CodexEngine::new(config),
            profile,
        }
    }

    fn request(&self, input: Vec<UserInput>, resume: Option<String>) -> RunRequest {
        RunRequest {
            codex_home: Some(self.home.clone()),
            cwd: self.repo.clone(),
            profile: self.profile.clone(),
            resume_thread_id: resume,
            input,
        }
    }

    /// The model asks to run `touch hello.txt`, then answers `then` (if any); the run and
    /// its approval request.
    async fn asked_to_touch(&self, then: Option<&str>) -> (CodexRun, AgentEvent) {
        self.fake
            .push(Reply::exec_command("call_exec_1", "touch hello.txt"));
        if let Some(then) = then {
            self.fake.push(Reply::text(&[then]));
        }
        let mut run = self.run("Please run: touch hello.txt", None).await;
        let ask = until(&mut run, is_approval).await;
        (run, ask)
    }

    /// A run of `engine` (this one's, or a new process's) on `text`.
    async fn run_on(&self, engine: &CodexEngine, text: &str, resume: Option<String>) -> CodexRun {
        let req = self.request(vec![UserInput::text(text)], resume);
        started(STEP, engine.start_run(req)).await
    }

    async fn run(&self, text: &str, resume: Option<String>) -> CodexRun {
        self.run_on(&self.engine, text, resume).await
    }
}

real_test!(streamed_text_and_reasoning, |bin| {
    let env = Env::new("text", &bin, AskForApproval::Never).await;
    env.fake.push(Reply::reasoning_then_text(
        &["Thinking ", "hard"],
        &["Hello ", "from ", "fake!"],
    ));
    let mut run = env.run("Say hello", None).await;
    let ev = until_end(&mut run).await;
    assert!(
        matches!(&ev[0], AgentEvent::RunStarted { engine_session_id: Some(id), .. } if *id == run.thread_id)
    );
    assert_eq!(deltas(&ev), "Hello from fake!");
    assert!(
        ev.iter()
            .any(|e| matches!(e, AgentEvent::ReasoningDelta { .. })),
        "{ev:#?}"
    );
    assert!(ev.iter().any(
        |e| matches!(e, AgentEvent::ReasoningCompleted { text, .. } if text == "Thinking hard")
    ));
    assert!(has_message(&ev, "Hello from fake!"));
    assert_completed_with_usage(&ev);
    env.engine.shutdown().await;
});

real_test!(command_approval_accepted_runs_the_command, |bin| {
    let env = Env::new("cmd-accept", &bin, AskForApproval::Untrusted).await;
    let (mut run, ask) = env.asked_to_touch(Some("Done (accept).")).await;
    let AgentEvent::ApprovalRequested {
        kind, command, cwd, ..
    } = &ask
    else {
        unreachable!()
    };
    assert_eq!(*kind, ApprovalKind::Command);
    assert!(
        command.as_deref().unwrap_or("").contains("touch hello.txt"),
        "{ask:?}"
    );
    assert_eq!(cwd.as_deref(), Some(env.repo.to_str().unwrap()));
    decide(&run, &request_id(&ask), UserDecision::ApproveOnce).await;
    let ev = until_end(&mut run).await;
    assert!(resolved(&ev, None, ApprovalState::ApprovedOnce));
    assert!(
        ev.iter().any(|e| matches!(
            e,
            AgentEvent::ToolCompleted {
                kind: ToolKind::Command,
                status: ToolStatus::Completed,
                exit_code: Some(0),
                ..
            }
        )),
        "{ev:#?}"
    );
    assert_completed(&ev);
    assert!(
        env.repo.join("hello.txt").exists(),
        "the command did not run"
    );
    // A second decision for the same request is refused, not replayed.
    assert_no_longer_pending(&run, &request_id(&ask)).await;
    env.engine.shutdown().await;
});

real_test!(
    command_approval_declined_skips_the_command_and_continues,
    |bin| {
        let env = Env::new("cmd-decline", &bin, AskForApproval::Untrusted).await;
        let (mut run, ask) = env.asked_to_touch(Some("Done (decline).")).await;
        decide(&run, &request_id(&ask), UserDecision::Deny).await;
        let ev = until_end(&mut run).await;
        assert!(resolved(&ev, None, ApprovalState::Denied));
        assert!(tool_completed(&ev, None, ToolStatus::Declined), "{ev:#?}");
        assert!(has_message(&ev, "Done (decline)."));
        assert_completed(&ev);
        assert!(
            !env.repo.join("hello.txt").exists(),
            "a declined command ran"
        );
        env.engine.shutdown().await;
    }
);

real_test!(file_change_approval_names_the_path, |bin| {
    let env = Env::new("file-change", &bin, AskForApproval::Untrusted).await;
    env.fake.push(Reply::apply_patch(
        "call_patch",
        "*** Begin Patch\n*** Add File: added.txt\n+hello from apply_patch\n*** End Patch\n",
    ));
    env.fake.push(Reply::text(&["patched"]));
    let mut run = env.run("add a file", None).await;
    let ask = until(&mut run, is_approval).await;
    let AgentEvent::ApprovalRequested { kind, files, .. } = &ask else {
        unreachable!()
    };
    assert_eq!(*kind, ApprovalKind::FileChange);
    assert_eq!(files.len(), 1, "{ask:?}");
    assert_eq!(Path::new(&files[0].path), env.repo.join("added.txt"));
    assert_eq!(files[0].kind, FileChangeKind::Add);
    decide(&run, &request_id(&ask), UserDecision::ApproveOnce).await;
    let ev = until_end(&mut run).await;
    assert!(
        ev.iter().any(
            |e| matches!(e, AgentEvent::FileChanged { path, kind: FileChangeKind::Add, .. }
        if Path::new(path) == env.repo.join("added.txt"))
        ),
        "{ev:#?}"
    );
    assert_completed(&ev);
    assert_eq!(
        std::fs::read_to_string(env.repo.join("added.txt")).unwrap(),
        "hello from apply_patch\n"
    );
    env.engine.shutdown().await;
});

real_test!(interrupt_mid_stream, |bin| {
    let env = Env::new("interrupt", &bin, AskForApproval::Never).await;
    env.fake
        .push(Reply::slow_text(200, Duration::from_millis(100)));
    let mut run = env.run("Stream a long answer", None).await;
    // The partial message is finalised although codex sends no item/completed for it.
    interrupted_mid_stream(&mut run, "chunk0").await;
    assert!(
        agentdesk_tests::http::wait_until(Duration::from_secs(10), || env.fake.disconnects() >= 1)
            .await,
        "codex kept the model stream open"
    );
    // The thread is usable again.
    env.fake.push(Reply::text(&["after interrupt ok"]));
    let mut run2 = env.run("again", Some(run.thread_id.clone())).await;
    assert_completed(&until_end(&mut run2).await);
    env.engine.shutdown().await;
});

real_test!(local_image_reaches_the_model_as_an_image, |bin| {
    let env = Env::new("image", &bin, AskForApproval::Never).await;
    let png = env.repo.join("red.png");
    std::fs::write(&png, RED_PNG).unwrap();
    env.fake.push(Reply::text(&["I see a red square."]));
    let input = vec![
        UserInput::text("What is in this image?"),
        UserInput::local_image(png.to_string_lossy()),
    ];
    let mut run = started(STEP, env.engine.start_run(env.request(input, None))).await;
    assert_completed(&until_end(&mut run).await);
    let reqs = env.fake.requests();
    let content = reqs[0].input_content();
    let image = content
        .iter()
        .find(|c| c["type"] == "input_image")
        .unwrap_or_else(|| panic!("no input_image in {content:#?}"));
    assert!(
        image["image_url"]
            .as_str()
            .unwrap()
            .starts_with("data:image/png;base64,"),
        "{image}"
    );
    env.engine.shutdown().await;
});

real_test!(resume_in_a_new_app_server_process, |bin| {
    let env = Env::new("resume", &bin, AskForApproval::Never).await;
    env.fake.push(Reply::text(&["first answer"]));
    let mut run = env.run("first question", None).await;
    assert_completed(&until_end(&mut run).await);
    let thread_id = run.thread_id.clone();
    let first_pid = env.engine.app_server_pids(Some(&env.home));
    env.engine.shutdown().await;

    // A new engine = a new app-server process, same CODEX_HOME.
    let engine2 = CodexEngine::new(CodexEngineConfig::new(&bin));
    env.fake.push(Reply::text(&["second answer"]));
    let mut run2 = env
        .run_on(&engine2, "second question", Some(thread_id.clone()))
        .await;
    assert!(run2.resumed);
    assert_eq!(run2.thread_id, thread_id);
    assert_ne!(engine2.app_server_pids(Some(&env.home)), first_pid);
    // Per-run usage, not the thread total.
    assert_completed_with_usage(&until_end(&mut run2).await);
    // The model saw the earlier exchange.
    let body = env.fake.requests().last().unwrap().body.to_string();
    assert!(
        body.contains("first question") && body.contains("first answer"),
        "history missing"
    );

    // A stale thread id: a fresh thread, and the timeline says so.
    env.fake.push(Reply::text(&["fresh"]));
    let stale = "01a22882-0000-7000-8000-000000000000".to_owned();
    let mut run3 = env.run_on(&engine2, "hi", Some(stale.clone())).await;
    assert!(!run3.resumed);
    assert_ne!(run3.thread_id, stale);
    let ev = until_end(&mut run3).await;
    let said = diagnostics(&ev);
    assert!(
        said.iter().any(|m| m.contains("Could not resume")),
        "{ev:#?}"
    );
    assert_completed(&ev);
    engine2.shutdown().await;
});

real_test!(model_http_401_and_500_fail_the_run_clearly, |bin| {
    let env = Env::new("http-errors", &bin, AskForApproval::Never).await;
    env.fake.push(Reply::status(401, "bad key"));
    let mut run = env.run("hi", None).await;
    let ev = until_end(&mut run).await;
    assert_failed(&ev, "http_401", &["401"]);
    env.fake.push(Reply::status(500, "exploded"));
    let mut run = env.run("hi again", Some(run.thread_id.clone())).await;
    let ev = until_end(&mut run).await;
    assert_failed(&ev, "http_500", &["500"]);
    env.engine.shutdown().await;
});

real_test!(
    app_server_killed_mid_turn_fails_the_run_and_restarts,
    |bin| {
        let env = Env::new("killed", &bin, AskForApproval::Untrusted).await;
        let (mut run, ask) = env.asked_to_touch(None).await;
        let pids = env.engine.app_server_pids(Some(&env.home));
        assert_eq!(pids.len(), 1);
        kill9(pids[0]);
        let ev = until_end(&mut run).await;
        let id = request_id(&ask);
        assert!(resolved(&ev, Some(&id), ApprovalState::Expired), "{ev:#?}");
        assert_failed(&ev, "engine_crashed", &["stopped unexpectedly"]);
        assert_no_longer_pending(&run, &id).await;
        assert!(!env.repo.join("hello.txt").exists());

        // The next turn restarts the app-server and resumes the thread.
        env.fake.push(Reply::text(&["back"]));
        let mut run2 = env.run("still there?", Some(run.thread_id.clone())).await;
        assert_completed(&until_end(&mut run2).await);
        assert_ne!(env.engine.app_server_pids(Some(&env.home)), pids);
        env.engine.shutdown().await;
    }
);

// Plan collaboration mode: the model's `request_user_input` tool becomes a question card;
// the user's answer goes back to codex and reaches the model as the tool's output.
real_test!(plan_mode_question_is_answered, |bin| {
    let mut env = Env::new("question", &bin, AskForApproval::OnRequest).await;
    env.profile.plan_mode = true;
    let questions = serde_json::json!({"questions": [{"id": "confirm", "header": "Confirm",
        "question": "Proceed?", "options": [{"label": "Yes (Recommended)", "description": "go"},
            {"label": "No", "description": "stop"}]}]});
    env.fake
        .push(function_call("call_rui", "request_user_input", &questions));
    env.fake.push(Reply::text(&["Proceeding as confirmed."]));
    let mut run = env.run("Ask me before you start", None).await;
    let asked = until(&mut run, |e| matches!(e, AgentEvent::QuestionAsked { .. })).await;
    let AgentEvent::QuestionAsked {
        request_id,
        questions,
        ..
    } = &asked
    else {
        unreachable!()
    };
    assert_eq!(questions.len(), 1, "{asked:?}");
    assert_eq!(questions[0].id, "confirm");
    assert_eq!(questions[0].question, "Proceed?");
    let labels: Vec<&str> = questions[0]
        .options
        .iter()
        .map(|o| o.label.as_str())
        .collect();
    assert_eq!(labels, ["Yes (Recommended)", "No"]);

    let answers = std::collections::BTreeMap::from([("confirm".to_owned(), vec!["No".to_owned()])]);
    run.control()
        .answer_question(request_id, answers.clone())
        .await
        .unwrap();
    // A second answer to the same question is refused, not replayed.
    assert!(run
        .control()
        .answer_question(request_id, answers.clone())
        .await
        .is_err());
    let ev = until_end(&mut run).await;
    assert!(
        ev.iter().any(|e| matches!(
            e,
            AgentEvent::QuestionAnswered { answers: Some(a), .. } if *a == answers
        )),
        "{ev:#?}"
    );
    assert_completed(&ev);

    // The model's next request carries the answer as the tool's output.
    assert!(env.fake.wait_for_requests(2, STEP).await);
    let outputs = env.fake.requests()[1].input_items("function_call_output");
    let output = outputs
        .iter()
        .find(|o| o["call_id"] == "call_rui")
        .unwrap_or_else(|| panic!("no output for call_rui: {outputs:?}"));
    let sent: serde_json::Value =
        serde_json::from_str(output["output"].as_str().unwrap_or_default()).unwrap();
    assert_eq!(
        sent["answers"]["confirm"]["answers"],
        serde_json::json!(["No"]),
        "{output}"
    );
    env.engine.shutdown().await;
});

// Discovery and preflight against the real binary: the override path is found, its version
// is probed, and without a login (default OpenAI provider, no key) a turn is refused up front
// with what to do — instead of codex retrying forever offline.
real_test!(discovery_version_and_login_preflight, |bin| {
    use agentdesk_engine::{probe_version, Discovery, EngineProgram, FoundVia};
    let exe = Discovery::new(EngineProgram::CODEX)
        .override_path(Some(bin.clone()))
        .find()
        .unwrap();
    assert_eq!(exe.via, FoundVia::Override);
    let version = probe_version(&exe, STEP).await.unwrap();
    assert_eq!(version.to_string(), "0.169.0", "{}", version.raw);

    let env = Env::new("login", &bin, AskForApproval::Never).await;
    let mut profile = env.profile.clone();
    profile.provider = None;
    profile.model = None;
    profile.env_remove = vec!["OPENAI_API_KEY".into(), "CODEX_API_KEY".into()];
    let account = env
        .engine
        .account(Some(env.home.clone()), &profile)
        .await
        .unwrap();
    assert!(account.account.is_none(), "{account:?}");
    assert!(account.requires_openai_auth);
    let mut req = env.request(vec![UserInput::text("hi")], None);
    req.profile = profile;
    let err = tokio::time::timeout(STEP, env.engine.start_run(req))
        .await
        .expect("start_run hung")
        .expect_err("an unauthenticated turn must be refused");
    assert!(matches!(err, EngineError::NotLoggedIn(_)), "{err:?}");
    assert!(err.to_string().contains("codex login"), "{err}");
    assert!(
        env.fake.requests().is_empty(),
        "nothing may reach a model before the login check"
    );
    env.engine.shutdown().await;
});

// One resident app-server per Codex home, multiplexed by threadId: two sessions' turns run at
// the same time on one process, and each run only sees its own thread's events.
real_test!(two_threads_share_one_app_server, |bin| {
    let env = Env::new("multiplex", &bin, AskForApproval::Never).await;
    for _ in 0..2 {
        env.fake
            .push(Reply::slow_text_then_end(4, Duration::from_millis(60)));
    }
    let (mut a, mut b) = tokio::join!(env.run("first", None), env.run("second", None));
    assert_ne!(a.thread_id, b.thread_id);
    assert_eq!(
        env.engine.app_server_pids(Some(&env.home)).len(),
        1,
        "both threads must share one app-server"
    );
    let (ea, eb) = tokio::join!(until_end(&mut a), until_end(&mut b));
    for (run, events) in [(&a, &ea), (&b, &eb)] {
        assert_eq!(
            deltas(events),
            "chunk0 chunk1 chunk2 chunk3 ",
            "{}: {events:#?}",
            run.thread_id
        );
        assert_completed(events);
        assert!(
            matches!(&events[0], AgentEvent::RunStarted { engine_session_id: Some(id), .. } if *id == run.thread_id)
        );
    }
    env.engine.shutdown().await;
});

real_test!(
    a_repository_cannot_start_programs_or_instruct_codex_by_itself,
    |bin| {
        let env = Env::new("repo-config", &bin, AskForApproval::Never).await;
        // Even a project the user trusts in their own config stays untrusted for our threads.
        std::fs::write(
            env.home.join("config.toml"),
            format!(
                "[projects.\"{}\"]\ntrust_level = \"trusted\"\n",
                env.repo.display()
            ),
        )
        .unwrap();
        let marker = env.home.parent().unwrap().join("mcp-started");
        std::fs::create_dir_all(env.repo.join(".codex")).unwrap();
        std::fs::write(
            env.repo.join(".codex/config.toml"),
            format!(
                "developer_instructions = \"REPO_INSTRUCTIONS_MARKER\"\n\
             [mcp_servers.repo]\ncommand = \"sh\"\nargs = [\"-c\", \"touch '{}'; sleep 5\"]\n",
                marker.display()
            ),
        )
        .unwrap();
        let sent_instructions = |env: &Env| {
            env.fake
                .requests()
                .iter()
                .any(|r| r.body.to_string().contains("REPO_INSTRUCTIONS_MARKER"))
        };
        env.fake.push(Reply::text(&["plain"]));
        let mut run = env.run("hello", None).await;
        assert_completed(&until_end(&mut run).await);
        tokio::time::sleep(Duration::from_millis(500)).await;
        assert!(!marker.exists(), "the repository's MCP server was started");
        assert!(
            !sent_instructions(&env),
            "the repository's instructions reached the model"
        );
        env.engine.shutdown().await;

        // Control: a profile that opts in gets codex's own behaviour (the file is effective).
        let mut opted_in = env.request(vec![UserInput::text("hello again")], None);
        opted_in.profile.trust_project_config = true;
        env.fake.push(Reply::text(&["opted in"]));
        let mut run = started(STEP, env.engine.start_run(opted_in)).await;
        until_end(&mut run).await;
        let started =
            agentdesk_tests::http::wait_until(Duration::from_secs(10), || marker.exists()).await;
        assert!(started, "the opted-in MCP server did not start");
        assert!(sent_instructions(&env));
        env.engine.shutdown().await;
    }
);

#[path = "codex_real/subagents.rs"]
mod subagents;
