//! One conformance suite for every engine: each scenario is written once against the
//! engine-neutral interface (`AgentEngine` → `AgentRun` { canonical events, `RunHandle` }) and
//! instantiated for the real Codex (`CODEX_BIN`), the real Claude Code (`CLAUDE_BIN`) and an
//! ACP agent, the real opencode (`OPENCODE_BIN`), each against its fake model server on
//! 127.0.0.1 (Responses, Messages, Chat Completions). A missing binary is a loud SKIP (a
//! failure under `CI=true`). Every wait is bounded.
//!
//! Where the engines differ on purpose (asserted per engine, not papered over):
//! - Cost: Claude reports `costUsd` per run (from `model_usage_since_last_result`); Codex has
//!   no prices, so `costUsd` is `None`.
//! - The command in an approval: Codex shows its own shell invocation (`/bin/bash -lc '…'`
//!   around the model's command), Claude the model's command verbatim. Scenarios check
//!   "contains".
//! - Processes: Codex serves all sessions of a home from one resident app-server (a crash
//!   fails every run on it; the next run restarts it); Claude runs one CLI per run (a crash
//!   fails that run only; nothing stays running between runs).
//! - Resume: Codex resumes a thread inside the running app-server (`thread/resume`); Claude
//!   starts a new process with `--resume=<id>`. Both report `resumed: true` and the same id.
//! - Approval modes: Codex asks for a command only under `approval_policy: untrusted`; Claude
//!   asks for any non-read-only Bash command in its default permission mode; opencode asks
//!   for every edit and shell command when started with `OPENCODE_PERMISSION` asking (the
//!   preset's environment; it allows everything by default).
//! - ACP (opencode):
//!   - Cost: opencode reports a cost per session (`usage_update.cost`), 0 for a model it has
//!     no price for (the fake): `costUsd` is `Some(0.0)`.
//!   - A declined command ends the turn at once (opencode stops after a rejected
//!     permission): no final answer from the model, one model call in the turn.
//!   - Processes: one agent per run (like Claude); resume is `session/load` in a new process,
//!     whose replayed history is dropped by the adapter.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use agentdesk_protocol::ui::TokenUsage;
use std::path::{Path, PathBuf};
use std::time::Duration;

use agentdesk_engine::acp::{AcpEngine, AcpEngineConfig};
use agentdesk_engine::claude::{ClaudeEngine, ClaudeEngineConfig};
use agentdesk_engine::codex::{CodexEngine, CodexEngineConfig};
use agentdesk_engine::{
    AgentEngine, AgentRun, ApprovalDecision, Engine, EngineOptions, InputPart, NeutralRunRequest,
};
use agentdesk_protocol::codex::AskForApproval;
use agentdesk_protocol::events::{
    AgentEvent, ApprovalKind, ApprovalState, ToolKind, ToolStatus, UserDecision,
};
use agentdesk_tests::events::{
    assert_completed, assert_failed, assert_refused, decide, deltas, has_message,
    interrupted_mid_stream, is_approval, request_id, resolved, started, tool_completed, until,
    until_end, STEP,
};
use agentdesk_tests::process::kill9;
use agentdesk_tests::real::{
    claude_dirs, claude_profile, codex_dirs, codex_profile, opencode_env, opencode_profile,
    RED_PNG, RED_PNG_B64,
};
use agentdesk_tests::scenarios;
use agentdesk_tests::world::{fresh_root, Fake};

const SUITE: &str = "conformance suite";

const TEST: Duration = Duration::from_secs(150);

/// An engine and its fake model server, in a folder of its own.
struct Harness {
    fake: Fake,
    engine: AgentEngine,
    /// What every run starts from (its input and resumed session left out).
    request: NeutralRunRequest,
}

impl Harness {
    /// `engine` (run from `bin`) against its fake, its files under `conf/<engine>-<name>-<pid>`.
    async fn new(engine: Engine, name: &str, bin: &Path) -> Self {
        let name = format!("{}-{name}", engine.as_str());
        let root = fresh_root(env!("CARGO_TARGET_TMPDIR"), "conf", &name);
        let fake = Fake::start(engine).await;
        let (engine, options, cwd) = match &fake {
            Fake::Codex(f) => {
                let (home, repo) = codex_dirs(&root);
                let profile = codex_profile(f.base_url(), &home, AskForApproval::Untrusted);
                let engine = CodexEngine::new(CodexEngineConfig::new(bin));
                let options = EngineOptions::Codex {
                    codex_home: Some(home),
                    profile,
                };
                (AgentEngine::Codex(engine), options, repo)
            }
            Fake::Claude(f) => {
                let dirs = claude_dirs(&root);
                let options = EngineOptions::Claude(claude_profile(f.base_url(), &dirs));
                let engine = ClaudeEngine::new(ClaudeEngineConfig::new(bin));
                (AgentEngine::Claude(engine), options, dirs.work)
            }
            Fake::Chat(f) => {
                let work = root.join("work");
                std::fs::create_dir_all(&work).unwrap();
                let oc = opencode_env(&root.join("oc"), &f.opencode_config()).unwrap();
                let options = EngineOptions::Acp(opencode_profile(bin, &oc));
                let engine = AcpEngine::new(AcpEngineConfig::default());
                (AgentEngine::Acp(engine), options, work)
            }
        };
        let request = NeutralRunRequest {
            cwd,
            resume_session_id: None,
            plan: None,
            input: Vec::new(),
            options,
            inactivity_timeout: None,
        };
        Self {
            fake,
            engine,
            request,
        }
    }

    fn kind(&self) -> Engine {
        self.engine.kind()
    }

    fn cwd(&self) -> &Path {
        &self.request.cwd
    }

    async fn start(&self, input: Vec<InputPart>, resume: Option<String>) -> AgentRun {
        let req = NeutralRunRequest {
            resume_session_id: resume,
            plan: None,
            input,
            ..self.request.clone()
        };
        started(STEP, self.engine.start_run(req)).await
    }

    /// The model streams slowly, then hangs (for interrupts).
    fn push_slow_text(&self) {
        self.fake.push_slow_text(200, Duration::from_millis(100));
    }
}

// ---- the scenarios, written once ----

async fn text(engine: Engine, bin: PathBuf) {
    let h = Harness::new(engine, "text", &bin).await;
    h.fake.push_text(&["Hello ", "from ", "fake!"]);
    let mut run = h.start(vec![InputPart::text("Say hello")], None).await;
    let ev = until_end(&mut run).await;
    assert!(
        matches!(&ev[0], AgentEvent::RunStarted { engine_session_id: Some(s), .. } if *s == run.session_id),
        "{ev:#?}"
    );
    assert_eq!(deltas(&ev), "Hello from fake!");
    assert!(has_message(&ev, "Hello from fake!"));
    let cost = ev.iter().find_map(|e| match e {
        AgentEvent::Usage(TokenUsage {
            input,
            output,
            cost_usd,
            ..
        }) => {
            assert!(*input >= 10 && *output >= 5, "{e:?}");
            Some(*cost_usd)
        }
        _ => None,
    });
    // Differs on purpose: only Claude prices a run (opencode says 0 for an unpriced model).
    match h.kind() {
        Engine::Claude => assert!(matches!(cost, Some(Some(c)) if c > 0.0), "{cost:?}"),
        Engine::Codex => assert_eq!(cost, Some(None)),
        Engine::Acp => assert_eq!(cost, Some(Some(0.0))),
    }
    assert_completed(&ev);
    h.engine.shutdown().await;
}

async fn approval(engine: Engine, bin: PathBuf, accept: bool) {
    let file = if accept {
        "accepted.txt"
    } else {
        "declined.txt"
    };
    let h = Harness::new(engine, file.trim_end_matches(".txt"), &bin).await;
    h.fake.push_command("call_conf_1", &format!("touch {file}"));
    h.fake.push_text(&["Done."]);
    let mut run = h
        .start(vec![InputPart::text("Please create the file")], None)
        .await;
    let ask = until(&mut run, is_approval).await;
    let AgentEvent::ApprovalRequested { kind, command, .. } = &ask else {
        unreachable!()
    };
    assert_eq!(*kind, ApprovalKind::Command);
    assert!(
        command
            .as_deref()
            .unwrap_or("")
            .contains(&format!("touch {file}")),
        "{ask:?}"
    );
    let (decision, outcome, status) = if accept {
        (
            ApprovalDecision::from(UserDecision::ApproveOnce),
            ApprovalState::ApprovedOnce,
            ToolStatus::Completed,
        )
    } else {
        (
            ApprovalDecision::deny("Not now."),
            ApprovalState::Denied,
            ToolStatus::Declined,
        )
    };
    decide(&run, &request_id(&ask), decision).await;
    let ev = until_end(&mut run).await;
    assert!(resolved(&ev, None, outcome), "{ev:#?}");
    assert!(
        tool_completed(&ev, Some(ToolKind::Command), status),
        "{ev:#?}"
    );
    let answered = has_message(&ev, "Done.");
    match h.kind() {
        // opencode ends the turn after a rejected permission: no final answer.
        Engine::Acp if !accept => assert!(!answered, "{ev:#?}"),
        // Declined or not, the turn goes on to the model's final answer.
        _ => assert!(answered, "{ev:#?}"),
    }
    assert_completed(&ev);
    assert_eq!(h.cwd().join(file).exists(), accept);
    assert_refused(&run, &request_id(&ask), "a second decision").await;
    h.engine.shutdown().await;
}

async fn approval_accept(engine: Engine, bin: PathBuf) {
    approval(engine, bin, true).await;
}

async fn approval_decline(engine: Engine, bin: PathBuf) {
    approval(engine, bin, false).await;
}

async fn interrupt(engine: Engine, bin: PathBuf) {
    let h = Harness::new(engine, "interrupt", &bin).await;
    h.push_slow_text();
    let mut run = h
        .start(vec![InputPart::text("Stream a long answer")], None)
        .await;
    interrupted_mid_stream(&mut run, "chunk").await;
    assert!(
        agentdesk_tests::http::wait_until(Duration::from_secs(10), || h.fake.disconnects() >= 1)
            .await,
        "the model stream stayed open"
    );
    h.engine.shutdown().await;
}

async fn image(engine: Engine, bin: PathBuf) {
    let h = Harness::new(engine, "image", &bin).await;
    let png = h.cwd().join("red.png");
    std::fs::write(&png, RED_PNG).unwrap();
    h.fake.push_text(&["A red square."]);
    let input = vec![
        InputPart::text("What is in this image?"),
        InputPart::image(&png),
    ];
    let mut run = h.start(input, None).await;
    assert_completed(&until_end(&mut run).await);
    assert_eq!(h.fake.image_sent().as_deref(), Some(RED_PNG_B64));
    h.engine.shutdown().await;
}

async fn resume(engine: Engine, bin: PathBuf) {
    let h = Harness::new(engine, "resume", &bin).await;
    h.fake.push_text(&["first answer"]);
    let mut run = h.start(vec![InputPart::text("first question")], None).await;
    assert!(!run.resumed);
    assert_completed(&until_end(&mut run).await);
    h.fake.push_text(&["second answer"]);
    let mut run2 = h
        .start(
            vec![InputPart::text("second question")],
            Some(run.session_id.clone()),
        )
        .await;
    assert!(run2.resumed);
    assert_eq!(run2.session_id, run.session_id);
    assert_completed(&until_end(&mut run2).await);
    let body = h.fake.last_body();
    assert!(
        body.contains("first question") && body.contains("first answer"),
        "history missing: {body}"
    );
    h.engine.shutdown().await;
}

async fn engine_crash(engine: Engine, bin: PathBuf) {
    let h = Harness::new(engine, "crash", &bin).await;
    h.fake.push_command("call_conf_crash", "touch crashed.txt");
    let mut run = h
        .start(vec![InputPart::text("Please create the file")], None)
        .await;
    let ask = until(&mut run, is_approval).await;
    kill9(run.pid.expect("no engine pid"));
    let ev = until_end(&mut run).await;
    let id = request_id(&ask);
    assert!(resolved(&ev, Some(&id), ApprovalState::Expired), "{ev:#?}");
    assert_failed(&ev, "engine_crashed", &["stopped unexpectedly"]);
    assert_refused(&run, &id, "a decision after the crash").await;
    assert!(!h.cwd().join("crashed.txt").exists());
    h.engine.shutdown().await;
}

scenarios! {
    all: [
        text,
        approval_accept,
        approval_decline,
        interrupt,
        image,
        resume,
        engine_crash,
    ],
    codex: [],
    claude: [],
    acp: [],
}
