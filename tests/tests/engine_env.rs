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

use std::path::{Path, PathBuf};
use std::time::Duration;

use agentdesk_core::{EngineSettings, NewSession};
use agentdesk_engine::claude::{ClaudeEngine, ClaudeEngineConfig, ClaudeProfile, ClaudeRunRequest};
use agentdesk_engine::codex::{CodexEngine, CodexEngineConfig, RunRequest};
use agentdesk_engine::InputPart;
use agentdesk_protocol::codex::{AskForApproval, UserInput};
use agentdesk_protocol::events::UserDecision;
use agentdesk_protocol::ui::{Engine, ItemBody};
use agentdesk_tests::events::{assert_completed, started, until_end_deciding};
use agentdesk_tests::real::{claude_dirs, claude_env, codex_dirs, codex_profile, mock_provider};
use agentdesk_tests::real_test;
use agentdesk_tests::world::{
    desk_with_session, desk_with_workspace, fresh_root, profile_spec, wrapper_script,
};
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

/// [`LEAKS`] and `more` set in this process.
fn set_leaks(more: &[(&str, &str)]) {
    for (k, v) in LEAKS.iter().chain(more) {
        std::env::set_var(k, v);
    }
}

fn s(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

fn root(name: &str) -> PathBuf {
    fresh_root(env!("CARGO_TARGET_TMPDIR"), "engine-env", name)
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

/// What the profile passes on its own.
fn profile_passed() -> (String, String) {
    ("PROFILE_PASSED".into(), "yes".into())
}

real_test!(
    real_claude_and_its_commands_see_only_the_built_environment,
    "CLAUDE_BIN",
    |bin| {
        set_leaks(&[
            // Another provider's key: codex's, never claude's.
            ("OPENAI_API_KEY", "sk-openai-leak-000000000000"),
            // The profile's key variable, set only in the app's environment: it must pass.
            ("AGENTDESK_TEST_ENV_CLAUDE_KEY", "dummy"),
        ]);
        let fake = fake_messages::FakeMessages::start().await.unwrap();
        let dirs = claude_dirs(&root("claude"));
        let mut env = claude_env(&dirs.home, &dirs.tmp);
        env.push(profile_passed());
        let profile = ClaudeProfile {
            model: Some(fake_messages::FAKE_MODEL.into()),
            base_url: Some(fake.base_url()),
            api_key_env: Some("AGENTDESK_TEST_ENV_CLAUDE_KEY".into()),
            env,
            env_remove: vec!["HTTPS_PROXY".into(), "HTTP_PROXY".into()],
            ..Default::default()
        };
        let engine = ClaudeEngine::new(ClaudeEngineConfig::new(&bin));
        fake.push(fake_messages::Reply::bash(
            "toolu_env",
            "env | sort > env.txt",
        ));
        fake.push(fake_messages::Reply::text(&["done"]));
        let req = ClaudeRunRequest {
            cwd: dirs.work.clone(),
            profile,
            resume_session_id: None,
            plan: None,
            input: vec![InputPart::text("Print your environment")],
        };
        let mut run = started(STEP, engine.start_run(req)).await;
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
        assert_completed(&until_end_deciding(&mut run, UserDecision::ApproveOnce).await);
        let file = std::fs::read_to_string(dirs.work.join("env.txt")).unwrap();
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
    }
);

real_test!(
    real_codex_and_its_commands_see_only_the_built_environment,
    "CODEX_BIN",
    |bin| {
        set_leaks(&[
            // Another provider's keys: claude's, never codex's.
            ("ANTHROPIC_API_KEY", "sk-ant-leak-0000000000000000"),
            ("CLAUDE_CODE_OAUTH_TOKEN", "claude-oauth-leak-value"),
            // The provider's key variable, set only in the app's environment: it must pass.
            ("AGENTDESK_TEST_ENV_CODEX_KEY", "dummy"),
        ]);
        let fake = fake_responses::FakeResponses::start().await.unwrap();
        let (home, repo) = codex_dirs(&root("codex"));
        let mut profile = codex_profile(fake.base_url(), &home, AskForApproval::Untrusted);
        profile.provider = Some(mock_provider(
            fake.base_url(),
            "AGENTDESK_TEST_ENV_CODEX_KEY",
        ));
        profile.env = vec![
            ("HOME".into(), s(&home)),
            ("NO_PROXY".into(), "127.0.0.1,localhost".into()),
            profile_passed(),
        ];
        fake.push(fake_responses::Reply::exec_command(
            "call_env",
            "env | sort > env.txt",
        ));
        fake.push(fake_responses::Reply::text(&["done"]));
        let req = RunRequest {
            codex_home: Some(home.clone()),
            cwd: repo.clone(),
            profile,
            resume_thread_id: None,
            input: vec![UserInput::text("Print your environment")],
        };
        let engine = CodexEngine::new(CodexEngineConfig::new(&bin));
        let mut run = started(STEP, engine.start_run(req)).await;
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
        assert_completed(&until_end_deciding(&mut run, UserDecision::ApproveOnce).await);
        let file = std::fs::read_to_string(repo.join("env.txt")).unwrap();
        check_env(
            "codex's shell",
            &file,
            &["ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN"],
            &["PATH", "HOME", "PROFILE_PASSED"],
        );
        engine.shutdown().await;
    }
);

/// A fake engine whose stderr carries secrets: a wrapper script around `fake-claude` that
/// prints a key, a bearer token and the profile's secret value before handing over.
fn leaky_claude(dir: &Path) -> PathBuf {
    wrapper_script(
        dir,
        "claude",
        "2.1.328 (Claude Code)",
        "echo \"debug: db at $DB_URL; request with sk-ant-api03-LEAKLEAKLEAKLEAKLEAK00 Authorization: Bearer tok-123456\" >&2\n",
        env!("CARGO_BIN_EXE_fake-claude"),
    )
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
    set_leaks(&[("OPENAI_API_KEY", "sk-openai-leak-000000000000")]);
    let root = root("core-default");
    std::fs::create_dir_all(root.join("work")).unwrap();
    let seen = root.join("env-seen.txt");
    let claude = wrapper_script(
        &root,
        "claude",
        "2.1.328 (Claude Code)",
        &format!("env > '{}'\n", seen.display()),
        env!("CARGO_BIN_EXE_fake-claude"),
    );
    let settings = EngineSettings::default().with_bin("claude", claude);
    let (desk, ws) = desk_with_workspace(&root.join("data"), &root.join("work"), &settings).await;
    // No profile: the engine's defaults, as a first-time user gets them.
    let defaults = NewSession {
        engine: Some(Engine::Claude),
        ..NewSession::new(ws.id)
    };
    let session = desk.create_session(&defaults).await.unwrap();
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
