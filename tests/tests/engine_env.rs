//! The environment of a REAL engine child is built, not inherited: with other providers' keys,
//! AWS and GitHub credentials, the app's own variables and `RUST_LOG` in this (the app's)
//! process, the agent runs `env | sort > env.txt` (approved) and the file — and the engine
//! process's own environment in /proc — holds none of them, while PATH, HOME and what the
//! profile passes are there. Real `claude` and `codex` (`CLAUDE_BIN`, `CODEX_BIN`) against
//! the fake model servers; a missing binary is a loud SKIP (a failure under `CI=true`).
//!
//! Also: an engine's stderr line carrying a key is stored redacted (fake engine through the
//! core, real SQLite file).
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use agentdesk_core::{Desk, EngineSettings, NewSession};
use agentdesk_engine::claude::{ClaudeEngine, ClaudeEngineConfig, ClaudeProfile, ClaudeRun};
use agentdesk_engine::codex::{
    CodexEngine, CodexEngineConfig, CodexProfile, CodexRun, CustomProvider, RunRequest,
};
use agentdesk_engine::InputPart;
use agentdesk_protocol::codex::{AskForApproval, SandboxMode, UserInput};
use agentdesk_protocol::events::{AgentEvent, UserDecision};
use agentdesk_protocol::ui::{Engine, ItemBody};
use agentdesk_tests::real::engine_bin;
use agentdesk_tests::world::{desk_with_session, profile_spec};
use agentdesk_tests::{fake_messages, fake_responses};

const SUITE: &str = "engine environment suite";
const STEP: Duration = Duration::from_secs(30);
const TEST: Duration = Duration::from_secs(120);

/// Set in this process (standing in for the app's environment); none may reach an engine.
const LEAKS: &[(&str, &str)] = &[
    ("AWS_SECRET_ACCESS_KEY", "aws-secret-value-0001"),
    ("GITHUB_TOKEN", "ghp_leak0000000000000000000000"),
    ("AGENTDESK_SECRET", "agentdesk-secret-value"),
    ("RUST_LOG", "trace"),
    ("RUST_BACKTRACE", "full"),
];

fn set_leaks() {
    for (k, v) in LEAKS {
        std::env::set_var(k, v);
    }
}

fn s(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

fn root(name: &str) -> PathBuf {
    let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("engine-env/{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    root
}

/// `NAME=value` lines of `/proc/<pid>/environ`.
fn proc_environ(pid: u32) -> String {
    let raw = std::fs::read(format!("/proc/{pid}/environ")).unwrap();
    String::from_utf8_lossy(&raw).replace('\0', "\n")
}

/// The value of `PATH` in `NAME=value` lines.
fn path_of(env: &str) -> &str {
    env.lines()
        .find_map(|l| l.strip_prefix("PATH="))
        .unwrap_or_default()
}

/// None of [`LEAKS`] (nor the extra names) appear in `env`; every name in `present` does.
fn check_env(what: &str, env: &str, absent: &[&str], present: &[&str]) {
    let names: Vec<&str> = env
        .lines()
        .filter_map(|l| l.split_once('=').map(|(k, _)| k))
        .collect();
    for (k, v) in LEAKS {
        assert!(!names.contains(k), "{what}: {k} leaked:\n{env}");
        assert!(!env.contains(v), "{what}: the value of {k} leaked:\n{env}");
    }
    for k in absent {
        assert!(!names.contains(k), "{what}: {k} leaked:\n{env}");
    }
    for k in present {
        assert!(names.contains(k), "{what}: {k} missing:\n{env}");
    }
}

async fn claude_next(run: &mut ClaudeRun) -> AgentEvent {
    tokio::time::timeout(STEP, run.next_event())
        .await
        .expect("no event in time")
        .expect("events ended")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn real_claude_and_its_commands_see_only_the_built_environment() {
    let Some(bin) = engine_bin("CLAUDE_BIN", SUITE) else {
        return;
    };
    set_leaks();
    // Another provider's key: codex's, never claude's.
    std::env::set_var("OPENAI_API_KEY", "sk-openai-leak-000000000000");
    // The profile's key variable, set only in the app's environment: it must pass.
    std::env::set_var("AGENTDESK_TEST_ENV_CLAUDE_KEY", "dummy");
    let fake = fake_messages::FakeMessages::start().await.unwrap();
    let root = root("claude");
    let (home, work, tmp) = (root.join("home"), root.join("work"), root.join("t"));
    for d in [&home.join(".claude"), &work, &tmp] {
        std::fs::create_dir_all(d).unwrap();
    }
    let profile = ClaudeProfile {
        model: Some(fake_messages::FAKE_MODEL.into()),
        base_url: Some(fake.base_url()),
        api_key_env: Some("AGENTDESK_TEST_ENV_CLAUDE_KEY".into()),
        env: vec![
            ("HOME".into(), s(&home)),
            ("CLAUDE_CONFIG_DIR".into(), s(&home.join(".claude"))),
            ("CLAUDE_CODE_TMPDIR".into(), s(&tmp)),
            (
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC".into(),
                "1".into(),
            ),
            ("CLAUDE_CODE_MAX_RETRIES".into(), "0".into()),
            ("DISABLE_AUTOUPDATER".into(), "1".into()),
            ("NO_PROXY".into(), "127.0.0.1,localhost".into()),
            ("PROFILE_PASSED".into(), "yes".into()),
        ],
        env_remove: vec!["HTTPS_PROXY".into(), "HTTP_PROXY".into()],
        ..Default::default()
    };
    let engine = ClaudeEngine::new(ClaudeEngineConfig::new(&bin));
    fake.push(fake_messages::Reply::bash(
        "toolu_env",
        "env | sort > env.txt",
    ));
    fake.push(fake_messages::Reply::text(&["done"]));
    tokio::time::timeout(TEST, async {
        let mut run = tokio::time::timeout(
            STEP,
            engine.start_run(agentdesk_engine::claude::ClaudeRunRequest {
                cwd: work.clone(),
                profile,
                resume_session_id: None,
                input: vec![InputPart::text("Print your environment")],
            }),
        )
        .await
        .unwrap()
        .unwrap();
        let pid = run.pid.expect("claude pid");
        let own = proc_environ(pid);
        check_env(
            "claude process",
            &own,
            &["OPENAI_API_KEY", "AGENTDESK_SECRET"],
            &[
                "PATH",
                "HOME",
                "PROFILE_PASSED",
                "ANTHROPIC_API_KEY",
                "ANTHROPIC_BASE_URL",
                "AGENTDESK_TEST_ENV_CLAUDE_KEY",
            ],
        );
        loop {
            let ev = claude_next(&mut run).await;
            if let AgentEvent::ApprovalRequested { request_id, .. } = &ev {
                run.control()
                    .resolve_approval(request_id, UserDecision::ApproveOnce)
                    .await
                    .unwrap();
            }
            if ev.is_terminal() {
                assert!(matches!(ev, AgentEvent::RunCompleted { .. }), "{ev:?}");
                break;
            }
        }
        let file = std::fs::read_to_string(work.join("env.txt")).unwrap();
        check_env(
            "claude's Bash",
            &file,
            &["OPENAI_API_KEY"],
            &["PATH", "HOME", "PROFILE_PASSED"],
        );
        // The engine's own folder leads its PATH (an npm/nvm claude runs on the node beside
        // it), and the commands it runs inherit that.
        let engine_dir = s(bin.parent().unwrap());
        for (what, env) in [("claude process", &own), ("claude's Bash", &file)] {
            let path = path_of(env);
            assert_eq!(
                path.split(':').next(),
                Some(engine_dir.as_str()),
                "{what}: PATH={path}"
            );
        }
    })
    .await
    .expect("test timed out");
}

async fn codex_next(run: &mut CodexRun) -> AgentEvent {
    tokio::time::timeout(STEP, run.next_event())
        .await
        .expect("no event in time")
        .expect("events ended")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn real_codex_and_its_commands_see_only_the_built_environment() {
    let Some(bin) = engine_bin("CODEX_BIN", SUITE) else {
        return;
    };
    set_leaks();
    // Another provider's keys: claude's, never codex's.
    std::env::set_var("ANTHROPIC_API_KEY", "sk-ant-leak-0000000000000000");
    std::env::set_var("CLAUDE_CODE_OAUTH_TOKEN", "claude-oauth-leak-value");
    // The provider's key variable, set only in the app's environment: it must pass.
    std::env::set_var("AGENTDESK_TEST_ENV_CODEX_KEY", "dummy");
    let fake = fake_responses::FakeResponses::start().await.unwrap();
    let root = root("codex");
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
            env_key: "AGENTDESK_TEST_ENV_CODEX_KEY".into(),
            request_max_retries: Some(0),
            stream_max_retries: Some(0),
        }),
        env: vec![
            ("HOME".into(), s(&home)),
            ("NO_PROXY".into(), "127.0.0.1,localhost".into()),
            ("PROFILE_PASSED".into(), "yes".into()),
        ],
        ..Default::default()
    };
    let engine = CodexEngine::new(CodexEngineConfig::new(&bin));
    fake.push(fake_responses::Reply::exec_command(
        "call_env",
        "env | sort > env.txt",
    ));
    fake.push(fake_responses::Reply::text(&["done"]));
    tokio::time::timeout(TEST, async {
        let mut run = tokio::time::timeout(
            STEP,
            engine.start_run(RunRequest {
                codex_home: Some(home.clone()),
                cwd: repo.clone(),
                profile,
                resume_thread_id: None,
                input: vec![UserInput::text("Print your environment")],
            }),
        )
        .await
        .unwrap()
        .unwrap();
        let pids = engine.app_server_pids(Some(&home));
        assert_eq!(pids.len(), 1);
        check_env(
            "codex app-server",
            &proc_environ(pids[0]),
            &["ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN"],
            &[
                "PATH",
                "HOME",
                "CODEX_HOME",
                "PROFILE_PASSED",
                "AGENTDESK_TEST_ENV_CODEX_KEY",
            ],
        );
        loop {
            let ev = codex_next(&mut run).await;
            if let AgentEvent::ApprovalRequested { request_id, .. } = &ev {
                run.control()
                    .resolve_approval(request_id, UserDecision::ApproveOnce)
                    .await
                    .unwrap();
            }
            if ev.is_terminal() {
                assert!(matches!(ev, AgentEvent::RunCompleted { .. }), "{ev:?}");
                break;
            }
        }
        let file = std::fs::read_to_string(repo.join("env.txt")).unwrap();
        check_env(
            "codex's shell",
            &file,
            &["ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN"],
            &["PATH", "HOME", "PROFILE_PASSED"],
        );
        engine.shutdown().await;
    })
    .await
    .expect("test timed out");
}

/// A fake engine whose stderr carries secrets: a wrapper script around `fake-claude` that
/// prints a key, a bearer token and the profile's secret value before handing over.
fn leaky_claude(dir: &Path) -> PathBuf {
    let path = dir.join("claude");
    std::fs::write(
        &path,
        format!(
            "#!/bin/sh\nif [ \"$1\" = \"--version\" ]; then echo '2.1.328 (Claude Code)'; exit 0; fi\n\
             echo \"debug: db at $DB_URL; request with sk-ant-api03-LEAKLEAKLEAKLEAKLEAK00 Authorization: Bearer tok-123456\" >&2\n\
             exec '{}' \"$@\"\n",
            env!("CARGO_BIN_EXE_fake-claude")
        ),
    )
    .unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn engine_stderr_is_stored_redacted() {
    let root = root("redact");
    std::fs::create_dir_all(root.join("work")).unwrap();
    let settings = EngineSettings::default().with_bin("claude", leaky_claude(&root));
    let secret = "postgres://app:Plain-Words-Secret@db/x";
    let mut spec = profile_spec("leaky", Engine::Claude);
    spec.env = [
        ("DB_URL".to_string(), secret.to_string()),
        ("FAKE_CLAUDE_SCRIPT".to_string(), "text".to_string()),
    ]
    .into();
    spec.secret_env = vec!["DB_URL".into()];
    let (desk, _, session) =
        desk_with_session(&root.join("data"), &root.join("work"), &settings, &spec).await;
    let run = desk.send_message(&session.id, "hi", &[]).await.unwrap();
    desk.wait_run(&run.id, STEP).await.unwrap();
    let page = desk
        .load_timeline(&session.id, None, Some(500))
        .await
        .unwrap();
    let stored = serde_json::to_string(&page.items).unwrap();
    let diagnostics: Vec<String> = page
        .items
        .iter()
        .filter(|i| matches!(i.body, ItemBody::Diagnostic { .. }))
        .map(|i| serde_json::to_string(&i.body).unwrap())
        .collect();
    // One stderr line: the profile's secret (literal), a key (shape), a header.
    assert!(
        diagnostics.iter().any(|d| d.contains(
            "debug: db at [REDACTED]; request with [REDACTED] Authorization: [REDACTED]"
        )),
        "{diagnostics:#?}"
    );
    for leak in ["LEAKLEAKLEAK", "tok-123456", "Plain-Words-Secret"] {
        assert!(!stored.contains(leak), "{leak} stored: {stored}");
    }
    desk.shutdown().await;
    desk.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_default_claude_session_through_the_core_gets_no_foreign_secrets() {
    set_leaks();
    std::env::set_var("OPENAI_API_KEY", "sk-openai-leak-000000000000");
    let root = root("core-default");
    std::fs::create_dir_all(root.join("work")).unwrap();
    let seen = root.join("env-seen.txt");
    let claude = root.join("claude");
    std::fs::write(
        &claude,
        format!(
            "#!/bin/sh\nif [ \"$1\" = \"--version\" ]; then echo '2.1.328 (Claude Code)'; exit 0; fi\n\
             env > '{}'\nexec '{}' \"$@\"\n",
            seen.display(),
            env!("CARGO_BIN_EXE_fake-claude")
        ),
    )
    .unwrap();
    std::fs::set_permissions(&claude, std::fs::Permissions::from_mode(0o755)).unwrap();
    let desk = Desk::open(&root.join("data")).await.unwrap();
    desk.set_engine_settings(&EngineSettings::default().with_bin("claude", claude))
        .await
        .unwrap();
    let ws = desk
        .add_workspace(&s(&root.join("work")), None)
        .await
        .unwrap();
    // No profile: the engine's defaults, as a first-time user gets them.
    let session = desk
        .create_session(&NewSession {
            engine: Some(Engine::Claude),
            ..NewSession::new(ws.id.clone())
        })
        .await
        .unwrap();
    let run = desk.send_message(&session.id, "hi", &[]).await.unwrap();
    desk.wait_run(&run.id, STEP).await.unwrap();
    let env = std::fs::read_to_string(&seen).unwrap();
    check_env(
        "default claude session",
        &env,
        &["OPENAI_API_KEY"],
        &["PATH", "HOME", "CLAUDE_CODE_ENTRYPOINT"],
    );
    desk.shutdown().await;
    desk.close().await;
}
