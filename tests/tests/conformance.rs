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

use agentdesk_engine::acp::{AcpEngine, AcpEngineConfig, AcpOptions, AcpPreset, AcpProfile};
use agentdesk_engine::claude::{ClaudeEngine, ClaudeEngineConfig, ClaudeProfile};
use agentdesk_engine::codex::{CodexEngine, CodexEngineConfig, CodexProfile, CustomProvider};
use agentdesk_engine::{
    AgentEngine, AgentRun, ApprovalDecision, Engine, EngineOptions, InputPart, NeutralRunRequest,
};
use agentdesk_protocol::codex::{AskForApproval, SandboxMode};
use agentdesk_protocol::events::{
    AgentEvent, ApprovalKind, ApprovalState, ToolKind, ToolStatus, UserDecision,
};
use agentdesk_tests::events::{until, until_end};
use agentdesk_tests::real::{engine_bin, opencode_env, RED_PNG, RED_PNG_B64};
use agentdesk_tests::{fake_chat, fake_messages, fake_responses};

const SUITE: &str = "conformance suite";

const STEP: Duration = Duration::from_secs(30);
const TEST: Duration = Duration::from_secs(150);

fn test_root(engine: &str, name: &str) -> PathBuf {
    let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("conf/{engine}-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    root
}

fn s(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

/// What a scenario needs from an engine + its fake model server.
trait Harness: Sized {
    const BIN_VAR: &'static str;
    async fn new(name: &str, bin: &Path) -> Self;
    fn engine(&self) -> &AgentEngine;
    fn options(&self) -> EngineOptions;
    fn cwd(&self) -> &Path;
    fn push_text(&self, pieces: &[&str]);
    /// The model asks to run `cmd` in a shell.
    fn push_command(&self, call_id: &str, cmd: &str);
    /// Streams slowly, then hangs (for interrupts).
    fn push_slow_text(&self);
    /// Model streams the client abandoned.
    fn disconnects(&self) -> usize;
    /// The last model request's body, as text.
    fn last_request(&self) -> String;
    /// The base64 data of the first image the model received.
    fn image_sent(&self) -> Option<String>;

    fn request(&self, input: Vec<InputPart>, resume: Option<String>) -> NeutralRunRequest {
        NeutralRunRequest {
            cwd: self.cwd().to_path_buf(),
            resume_session_id: resume,
            input,
            options: self.options(),
            inactivity_timeout: None,
        }
    }

    async fn start(&self, input: Vec<InputPart>, resume: Option<String>) -> AgentRun {
        tokio::time::timeout(STEP, self.engine().start_run(self.request(input, resume)))
            .await
            .expect("start_run timed out")
            .expect("start_run failed")
    }
}

struct Codex {
    fake: fake_responses::FakeResponses,
    home: PathBuf,
    repo: PathBuf,
    engine: AgentEngine,
    profile: CodexProfile,
}

impl Harness for Codex {
    const BIN_VAR: &'static str = "CODEX_BIN";

    async fn new(name: &str, bin: &Path) -> Self {
        let fake = fake_responses::FakeResponses::start().await.unwrap();
        let root = test_root("codex", name);
        let (home, repo) = (root.join("home"), root.join("repo"));
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&repo).unwrap();
        let _ = std::process::Command::new("git")
            .args(["init", "-q"])
            .current_dir(&repo)
            .status();
        let profile = CodexProfile {
            model: Some("gpt-5.5".into()),
            approval_policy: Some(AskForApproval::Untrusted),
            sandbox: Some(SandboxMode::WorkspaceWrite),
            provider: Some(CustomProvider {
                id: "mock".into(),
                name: "mock".into(),
                base_url: fake.base_url(),
                env_key: "MOCK_API_KEY".into(),
                request_max_retries: Some(0),
                stream_max_retries: Some(0),
            }),
            env: vec![
                ("MOCK_API_KEY".into(), "dummy".into()),
                ("HOME".into(), s(&home)),
                ("NO_PROXY".into(), "127.0.0.1,localhost".into()),
            ],
            ..Default::default()
        };
        let engine = AgentEngine::Codex(CodexEngine::new(CodexEngineConfig::new(bin)));
        Self {
            fake,
            home,
            repo,
            engine,
            profile,
        }
    }
    fn engine(&self) -> &AgentEngine {
        &self.engine
    }
    fn options(&self) -> EngineOptions {
        EngineOptions::Codex {
            codex_home: Some(self.home.clone()),
            profile: self.profile.clone(),
        }
    }
    fn cwd(&self) -> &Path {
        &self.repo
    }
    fn push_text(&self, pieces: &[&str]) {
        self.fake.push(fake_responses::Reply::text(pieces));
    }
    fn push_command(&self, call_id: &str, cmd: &str) {
        self.fake
            .push(fake_responses::Reply::exec_command(call_id, cmd));
    }
    fn push_slow_text(&self) {
        self.fake.push(fake_responses::Reply::slow_text(
            200,
            Duration::from_millis(100),
        ));
    }
    fn disconnects(&self) -> usize {
        self.fake.disconnects()
    }
    fn last_request(&self) -> String {
        self.fake
            .requests()
            .last()
            .map(|r| r.body.to_string())
            .unwrap_or_default()
    }
    fn image_sent(&self) -> Option<String> {
        let reqs = self.fake.requests();
        let content = reqs.first()?.input_content();
        let url = content.iter().find(|c| c["type"] == "input_image")?["image_url"]
            .as_str()?
            .to_owned();
        url.split_once(";base64,").map(|(_, d)| d.to_owned())
    }
}

struct Claude {
    fake: fake_messages::FakeMessages,
    work: PathBuf,
    engine: AgentEngine,
    profile: ClaudeProfile,
}

impl Harness for Claude {
    const BIN_VAR: &'static str = "CLAUDE_BIN";

    async fn new(name: &str, bin: &Path) -> Self {
        let fake = fake_messages::FakeMessages::start().await.unwrap();
        let root = test_root("claude", name);
        let (home, work, tmp) = (root.join("home"), root.join("work"), root.join("t"));
        for d in [&home.join(".claude"), &work, &tmp] {
            std::fs::create_dir_all(d).unwrap();
        }
        let profile = ClaudeProfile {
            model: Some(fake_messages::FAKE_MODEL.into()),
            base_url: Some(fake.base_url()),
            api_key_env: Some("AGENTDESK_TEST_ANTHROPIC_KEY".into()),
            env: vec![
                ("AGENTDESK_TEST_ANTHROPIC_KEY".into(), "dummy".into()),
                ("HOME".into(), s(&home)),
                ("CLAUDE_CONFIG_DIR".into(), s(&home.join(".claude"))),
                // Short: the CLI puts a unix socket under it (≤ 103 bytes).
                ("CLAUDE_CODE_TMPDIR".into(), s(&tmp)),
                (
                    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC".into(),
                    "1".into(),
                ),
                ("CLAUDE_CODE_MAX_RETRIES".into(), "0".into()),
                ("DISABLE_AUTOUPDATER".into(), "1".into()),
                ("NO_PROXY".into(), "127.0.0.1,localhost".into()),
            ],
            env_remove: vec![
                "ANTHROPIC_AUTH_TOKEN".into(),
                "CLAUDE_CODE_OAUTH_TOKEN".into(),
            ],
            ..Default::default()
        };
        let engine = AgentEngine::Claude(ClaudeEngine::new(ClaudeEngineConfig::new(bin)));
        Self {
            fake,
            work,
            engine,
            profile,
        }
    }
    fn engine(&self) -> &AgentEngine {
        &self.engine
    }
    fn options(&self) -> EngineOptions {
        EngineOptions::Claude(self.profile.clone())
    }
    fn cwd(&self) -> &Path {
        &self.work
    }
    fn push_text(&self, pieces: &[&str]) {
        self.fake.push(fake_messages::Reply::text(pieces));
    }
    fn push_command(&self, call_id: &str, cmd: &str) {
        self.fake.push(fake_messages::Reply::bash(call_id, cmd));
    }
    fn push_slow_text(&self) {
        self.fake.push(fake_messages::Reply::slow_text(
            200,
            Duration::from_millis(100),
        ));
    }
    fn disconnects(&self) -> usize {
        self.fake.disconnects()
    }
    fn last_request(&self) -> String {
        self.fake
            .model_requests()
            .last()
            .map(|r| r.body.to_string())
            .unwrap_or_default()
    }
    fn image_sent(&self) -> Option<String> {
        let reqs = self.fake.model_requests();
        let images = reqs.first()?.blocks_of("image");
        Some(images.first()?["source"]["data"].as_str()?.to_owned())
    }
}

struct Acp {
    fake: fake_chat::FakeChat,
    work: PathBuf,
    engine: AgentEngine,
    profile: AcpProfile,
}

impl Harness for Acp {
    const BIN_VAR: &'static str = "OPENCODE_BIN";

    async fn new(name: &str, bin: &Path) -> Self {
        let fake = fake_chat::FakeChat::start().await.unwrap();
        let root = test_root("acp", name);
        let work = root.join("work");
        std::fs::create_dir_all(&work).unwrap();
        let oc = opencode_env(&root.join("oc"), &fake.opencode_config()).unwrap();
        let options = AcpOptions {
            preset: Some(AcpPreset::Opencode),
            ..AcpOptions::default()
        };
        let mut profile = AcpProfile::from_options(&options, bin.to_path_buf());
        profile.env.extend(oc.env);
        profile.env_remove.extend(oc.env_remove);
        let engine = AgentEngine::Acp(AcpEngine::new(AcpEngineConfig::default()));
        Self {
            fake,
            work,
            engine,
            profile,
        }
    }
    fn engine(&self) -> &AgentEngine {
        &self.engine
    }
    fn options(&self) -> EngineOptions {
        EngineOptions::Acp(self.profile.clone())
    }
    fn cwd(&self) -> &Path {
        &self.work
    }
    fn push_text(&self, pieces: &[&str]) {
        self.fake.push(fake_chat::Reply::text(pieces));
    }
    fn push_command(&self, call_id: &str, cmd: &str) {
        self.fake.push(fake_chat::Reply::bash(call_id, cmd));
    }
    fn push_slow_text(&self) {
        self.fake
            .push(fake_chat::Reply::slow_text(200, Duration::from_millis(100)));
    }
    fn disconnects(&self) -> usize {
        self.fake.disconnects()
    }
    fn last_request(&self) -> String {
        self.fake
            .last_request()
            .map(|r| r.body.to_string())
            .unwrap_or_default()
    }
    fn image_sent(&self) -> Option<String> {
        self.fake.image_sent()
    }
}

fn is_approval(e: &AgentEvent) -> bool {
    matches!(e, AgentEvent::ApprovalRequested { .. })
}

fn approval_id(e: &AgentEvent) -> String {
    match e {
        AgentEvent::ApprovalRequested { request_id, .. } => request_id.clone(),
        other => panic!("{other:?}"),
    }
}

fn kind_of(h: &impl Harness) -> Engine {
    h.engine().kind()
}

// ---- the scenarios, written once ----

async fn text<H: Harness>(bin: PathBuf) {
    let h = H::new("text", &bin).await;
    h.push_text(&["Hello ", "from ", "fake!"]);
    let mut run = h.start(vec![InputPart::text("Say hello")], None).await;
    let ev = until_end(&mut run).await;
    assert!(
        matches!(&ev[0], AgentEvent::RunStarted { engine_session_id: Some(s), .. } if *s == run.session_id),
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
    assert!(ev.iter().any(
        |e| matches!(e, AgentEvent::MessageCompleted { text, .. } if text == "Hello from fake!")
    ));
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
    match kind_of(&h) {
        Engine::Claude => assert!(matches!(cost, Some(Some(c)) if c > 0.0), "{cost:?}"),
        Engine::Codex => assert_eq!(cost, Some(None)),
        Engine::Acp => assert_eq!(cost, Some(Some(0.0))),
    }
    assert!(
        matches!(ev.last(), Some(AgentEvent::RunCompleted { .. })),
        "{ev:#?}"
    );
    h.engine().shutdown().await;
}

async fn approval<H: Harness>(bin: PathBuf, accept: bool) {
    let file = if accept {
        "accepted.txt"
    } else {
        "declined.txt"
    };
    let h = H::new(file.trim_end_matches(".txt"), &bin).await;
    h.push_command("call_conf_1", &format!("touch {file}"));
    h.push_text(&["Done."]);
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
    let decision = if accept {
        ApprovalDecision::from(UserDecision::ApproveOnce)
    } else {
        ApprovalDecision::deny("Not now.")
    };
    run.control()
        .resolve_approval(&approval_id(&ask), decision)
        .await
        .unwrap();
    let ev = until_end(&mut run).await;
    let (outcome, status) = if accept {
        (ApprovalState::ApprovedOnce, ToolStatus::Completed)
    } else {
        (ApprovalState::Denied, ToolStatus::Declined)
    };
    assert!(
        ev.iter()
            .any(|e| matches!(e, AgentEvent::ApprovalResolved { outcome: o, .. } if *o == outcome)),
        "{ev:#?}"
    );
    assert!(
        ev.iter().any(|e| matches!(e, AgentEvent::ToolCompleted { kind: ToolKind::Command, status: s, .. } if *s == status)),
        "{ev:#?}"
    );
    let answered = ev
        .iter()
        .any(|e| matches!(e, AgentEvent::MessageCompleted { text, .. } if text == "Done."));
    match kind_of(&h) {
        // opencode ends the turn after a rejected permission: no final answer.
        Engine::Acp if !accept => assert!(!answered, "{ev:#?}"),
        // Declined or not, the turn goes on to the model's final answer.
        _ => assert!(answered, "{ev:#?}"),
    }
    assert!(
        matches!(ev.last(), Some(AgentEvent::RunCompleted { .. })),
        "{ev:#?}"
    );
    assert_eq!(h.cwd().join(file).exists(), accept);
    let again = run
        .control()
        .resolve_approval(&approval_id(&ask), UserDecision::ApproveOnce)
        .await;
    assert!(again.is_err(), "a second decision was accepted");
    h.engine().shutdown().await;
}

async fn approval_accept<H: Harness>(bin: PathBuf) {
    approval::<H>(bin, true).await;
}

async fn approval_decline<H: Harness>(bin: PathBuf) {
    approval::<H>(bin, false).await;
}

async fn interrupt<H: Harness>(bin: PathBuf) {
    let h = H::new("interrupt", &bin).await;
    h.push_slow_text();
    let mut run = h
        .start(vec![InputPart::text("Stream a long answer")], None)
        .await;
    until(&mut run, |e| matches!(e, AgentEvent::MessageDelta { .. })).await;
    run.control().interrupt();
    let ev = until_end(&mut run).await;
    assert!(
        matches!(ev.last(), Some(AgentEvent::RunInterrupted {})),
        "{ev:#?}"
    );
    assert!(
        ev.iter().any(
            |e| matches!(e, AgentEvent::MessageCompleted { text, .. } if text.starts_with("chunk"))
        ),
        "the partial answer was not finalised: {ev:#?}"
    );
    assert!(
        agentdesk_tests::http::wait_until(Duration::from_secs(10), || h.disconnects() >= 1).await,
        "the model stream stayed open"
    );
    h.engine().shutdown().await;
}

async fn image<H: Harness>(bin: PathBuf) {
    let h = H::new("image", &bin).await;
    let png = h.cwd().join("red.png");
    std::fs::write(&png, RED_PNG).unwrap();
    h.push_text(&["A red square."]);
    let input = vec![
        InputPart::text("What is in this image?"),
        InputPart::image(&png),
    ];
    let mut run = h.start(input, None).await;
    let ev = until_end(&mut run).await;
    assert!(
        matches!(ev.last(), Some(AgentEvent::RunCompleted { .. })),
        "{ev:#?}"
    );
    assert_eq!(h.image_sent().as_deref(), Some(RED_PNG_B64));
    h.engine().shutdown().await;
}

async fn resume<H: Harness>(bin: PathBuf) {
    let h = H::new("resume", &bin).await;
    h.push_text(&["first answer"]);
    let mut run = h.start(vec![InputPart::text("first question")], None).await;
    assert!(!run.resumed);
    let ev = until_end(&mut run).await;
    assert!(
        matches!(ev.last(), Some(AgentEvent::RunCompleted { .. })),
        "{ev:#?}"
    );
    h.push_text(&["second answer"]);
    let mut run2 = h
        .start(
            vec![InputPart::text("second question")],
            Some(run.session_id.clone()),
        )
        .await;
    assert!(run2.resumed);
    assert_eq!(run2.session_id, run.session_id);
    let ev = until_end(&mut run2).await;
    assert!(
        matches!(ev.last(), Some(AgentEvent::RunCompleted { .. })),
        "{ev:#?}"
    );
    let body = h.last_request();
    assert!(
        body.contains("first question") && body.contains("first answer"),
        "history missing: {body}"
    );
    h.engine().shutdown().await;
}

async fn engine_crash<H: Harness>(bin: PathBuf) {
    let h = H::new("crash", &bin).await;
    h.push_command("call_conf_crash", "touch crashed.txt");
    let mut run = h
        .start(vec![InputPart::text("Please create the file")], None)
        .await;
    let ask = until(&mut run, is_approval).await;
    let pid = run.pid.expect("no engine pid");
    assert!(std::process::Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .unwrap()
        .success());
    let ev = until_end(&mut run).await;
    let id = approval_id(&ask);
    assert!(
        ev.iter().any(|e| matches!(e, AgentEvent::ApprovalResolved { request_id, outcome: ApprovalState::Expired } if *request_id == id)),
        "{ev:#?}"
    );
    match ev.last() {
        Some(AgentEvent::RunFailed { error, code }) => {
            assert_eq!(code.as_deref(), Some("engine_crashed"));
            assert!(error.contains("stopped unexpectedly"), "{error}");
        }
        other => panic!("{other:?}\n{ev:#?}"),
    }
    let late = run
        .control()
        .resolve_approval(&id, UserDecision::ApproveOnce)
        .await;
    assert!(late.is_err(), "a decision after the crash was accepted");
    assert!(!h.cwd().join("crashed.txt").exists());
    h.engine().shutdown().await;
}

macro_rules! instantiate {
    ($engine:ident, $harness:ty, [$($scenario:ident),+ $(,)?]) => {
        mod $engine {
            use super::*;
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $scenario() {
                    let Some(bin) = engine_bin(<$harness as Harness>::BIN_VAR, SUITE) else { return };
                    tokio::time::timeout(TEST, super::$scenario::<$harness>(bin))
                        .await
                        .expect("scenario timed out");
                }
            )+
        }
    };
}

instantiate!(
    codex,
    Codex,
    [
        text,
        approval_accept,
        approval_decline,
        interrupt,
        image,
        resume,
        engine_crash
    ]
);
instantiate!(
    claude,
    Claude,
    [
        text,
        approval_accept,
        approval_decline,
        interrupt,
        image,
        resume,
        engine_crash
    ]
);
instantiate!(
    acp,
    Acp,
    [
        text,
        approval_accept,
        approval_decline,
        interrupt,
        image,
        resume,
        engine_crash
    ]
);
