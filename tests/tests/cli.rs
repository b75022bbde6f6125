//! `agentdesk-cli`, run as a user would: the built binary (`target/debug/agentdesk-cli`,
//! built by `tests/run-all.sh` before `cargo test`) over a fresh data directory.
//! - profile add/list/edit/remove with the core's validation errors and exit codes, and
//!   doctor (data dir, integrity, schema version, engines) (`cli/profiles.rs`);
//! - `run` end to end with the real codex and claude (`CODEX_BIN` / `CLAUDE_BIN`, passed as
//!   `AGENTDESK_CODEX_BIN` / `AGENTDESK_CLAUDE_BIN`) against the fake model servers: an
//!   attached image, a command approved from the terminal (piped "y"), then search, show
//!   and export of the result (here);
//! - crash recovery: SIGKILL the CLI mid-stream, reopen: the run is interrupted, its text up
//!   to the last second is stored, the database is intact, no engine process is left; and
//!   Ctrl-C (SIGINT): the run ends interrupted, exit code 3, no engine process is left
//!   (`cli/stop.rs`);
//! - safety (`cli/safety.rs`, over the scripted fake claude): escapes shown not obeyed, full
//!   tool inputs in prompts, exit codes of engine failures, secret env values.
//!
//! A missing binary or engine is a loud SKIP (a failure under `CI=true`). Every wait is bounded.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::Duration;

use agentdesk_tests::real::{cli_output, engine_bin, RED_PNG};
use agentdesk_tests::{fake_messages, fake_responses};
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::Command;

const SUITE: &str = "CLI suite";

#[path = "cli/profiles.rs"]
mod profiles;

#[path = "cli/safety.rs"]
mod safety;

#[path = "cli/stop.rs"]
mod stop;

#[cfg(unix)]
#[path = "cli/login_path.rs"]
mod login_path;

#[cfg(unix)]
#[path = "cli/worktrees.rs"]
mod worktrees;

#[path = "cli/plans.rs"]
mod plans;

#[path = "cli/models.rs"]
mod models;

#[path = "cli/limits.rs"]
mod limits;

#[path = "cli/mentions.rs"]
mod mentions;

// The engines' accounts (issue 24).
#[path = "cli/accounts.rs"]
mod accounts;

// A profile's MCP servers (issue 24).
#[path = "cli/mcp.rs"]
mod mcp;

// Subagents (issue 24).
#[path = "cli/subagents.rs"]
mod subagents;

// Remote workspaces over SSH (issue 25).
#[cfg(unix)]
#[path = "cli/remote.rs"]
mod remote;

/// Bound on one CLI invocation (a run includes starting the engine).
const CALL: Duration = Duration::from_secs(120);

fn cli_bin() -> Option<PathBuf> {
    agentdesk_tests::real::cli_bin(env!("CARGO_TARGET_TMPDIR"), SUITE)
}

fn s(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

/// A data dir, a workspace folder and the environment every CLI call gets.
struct Env {
    bin: PathBuf,
    root: PathBuf,
    work: PathBuf,
    vars: Vec<(String, String)>,
}

impl Env {
    fn new(bin: PathBuf, name: &str) -> Env {
        // Short: claude puts a unix socket under its tmp dir (≤ 103 bytes).
        let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("cli/{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let work = root.join("work");
        std::fs::create_dir_all(&work).unwrap();
        let vars = vec![("AGENTDESK_DATA_DIR".into(), s(&root.join("data")))];
        Env {
            bin,
            root,
            work,
            vars,
        }
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(&self.bin);
        c.args(args)
            .envs(self.vars.iter().map(|(k, v)| (k, v)))
            .env_remove("CLAUDECODE")
            // Hermetic: no real key or login reaches the engines (or the login report).
            .env_remove("ANTHROPIC_API_KEY")
            .env_remove("ANTHROPIC_AUTH_TOKEN")
            .env_remove("CLAUDE_CODE_OAUTH_TOKEN")
            .env_remove("OPENAI_API_KEY")
            .env_remove("CODEX_API_KEY")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        c
    }

    async fn call_with_stdin(&self, args: &[&str], stdin: &str) -> Output {
        let mut c = self.command(args);
        c.stdin(Stdio::piped());
        let mut child = c.spawn().unwrap();
        let mut input = child.stdin.take().unwrap();
        input.write_all(stdin.as_bytes()).await.unwrap();
        // Kept open: the CLI must not take end-of-input for an answer.
        let out = tokio::time::timeout(CALL, child.wait_with_output())
            .await
            .unwrap_or_else(|_| panic!("agentdesk-cli {args:?} did not finish in time"))
            .unwrap();
        drop(input);
        out
    }

    async fn call(&self, args: &[&str]) -> Output {
        cli_output(self.command(args), args, CALL).await
    }

    async fn ok(&self, args: &[&str]) -> String {
        let out = self.call(args).await;
        assert!(out.status.success(), "agentdesk-cli {args:?} failed");
        String::from_utf8(out.stdout).unwrap()
    }

    /// `profile SUBCOMMAND… --workspace <ws> test REST…` on the test profile, which must
    /// succeed: its stdout.
    async fn on_profile(&self, subcommand: &[&str], rest: &[&str]) -> String {
        let ws = self.ws();
        let mut args = vec!["profile"];
        args.extend_from_slice(subcommand);
        args.extend_from_slice(&["--workspace", &ws, "test"]);
        args.extend_from_slice(rest);
        self.ok(&args).await
    }

    fn ws(&self) -> String {
        s(&self.work)
    }
}

/// The session id from `run --json`'s first line.
fn session_of(out: &Output) -> String {
    let first = String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()
        .unwrap_or_default()
        .to_owned();
    let v: Value = serde_json::from_str(&first).unwrap_or_else(|_| panic!("{first}"));
    v["sessionId"].as_str().unwrap().to_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// One engine's fake model server and the CLI environment and profile pointed at it.
enum Fake {
    Codex(fake_responses::FakeResponses),
    Claude(fake_messages::FakeMessages),
}

impl Fake {
    fn push_command(&self, cmd: &str) {
        match self {
            Fake::Codex(f) => f.push(fake_responses::Reply::exec_command("call_cli_1", cmd)),
            Fake::Claude(f) => f.push(fake_messages::Reply::bash("toolu_cli_1", cmd)),
        }
    }
    fn push_command_as(&self, id: &str, cmd: &str) {
        match self {
            Fake::Codex(f) => f.push(fake_responses::Reply::exec_command(id, cmd)),
            Fake::Claude(f) => f.push(fake_messages::Reply::bash(id, cmd)),
        }
    }
    fn push_text(&self, t: &[&str]) {
        match self {
            Fake::Codex(f) => f.push(fake_responses::Reply::text(t)),
            Fake::Claude(f) => f.push(fake_messages::Reply::text(t)),
        }
    }
    fn push_slow_text(&self) {
        let every = Duration::from_millis(100);
        match self {
            Fake::Codex(f) => f.push(fake_responses::Reply::slow_text(400, every)),
            Fake::Claude(f) => f.push(fake_messages::Reply::slow_text(400, every)),
        }
    }
    fn image_sent(&self) -> bool {
        match self {
            Fake::Codex(f) => f
                .requests()
                .first()
                .is_some_and(|r| r.input_content().iter().any(|c| c["type"] == "input_image")),
            Fake::Claude(f) => f
                .model_requests()
                .first()
                .is_some_and(|r| !r.blocks_of("image").is_empty()),
        }
    }
}

/// Environment and a profile named "test" for `engine`; `None` after a loud skip.
async fn engine_env(engine: &str, name: &str) -> Option<(Env, Fake)> {
    let bin = cli_bin()?;
    let (var, cli_var) = match engine {
        "codex" => ("CODEX_BIN", "AGENTDESK_CODEX_BIN"),
        _ => ("CLAUDE_BIN", "AGENTDESK_CLAUDE_BIN"),
    };
    let engine_path = engine_bin(var, SUITE)?;
    let mut env = Env::new(bin, &format!("{engine}-{name}"));
    let home = env.root.join("home");
    let tmp = env.root.join("t");
    std::fs::create_dir_all(home.join(".claude")).unwrap();
    std::fs::create_dir_all(&tmp).unwrap();
    let _ = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(&env.work)
        .status();
    env.vars.extend(
        [
            (cli_var, s(&engine_path)),
            ("HOME", s(&home)),
            ("CODEX_HOME", s(&home)),
            ("CLAUDE_CONFIG_DIR", s(&home.join(".claude"))),
            ("CLAUDE_CODE_TMPDIR", s(&tmp)),
            ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1".into()),
            ("CLAUDE_CODE_MAX_RETRIES", "0".into()),
            ("DISABLE_AUTOUPDATER", "1".into()),
            ("NO_PROXY", "127.0.0.1,localhost".into()),
            ("AGENTDESK_TEST_MODEL_KEY", "dummy".into()),
        ]
        .map(|(k, v)| (k.to_string(), v)),
    );
    let ws = env.ws();
    let (fake, model, base_url) = if engine == "codex" {
        let f = fake_responses::FakeResponses::start().await.unwrap();
        let url = f.base_url();
        (Fake::Codex(f), "gpt-5.5".to_string(), url)
    } else {
        let f = fake_messages::FakeMessages::start().await.unwrap();
        let url = f.base_url();
        (Fake::Claude(f), fake_messages::FAKE_MODEL.to_string(), url)
    };
    env.ok(&[
        "profile",
        "add",
        "--workspace",
        &ws,
        "test",
        "--engine",
        engine,
        "--model",
        &model,
        "--base-url",
        &base_url,
        "--api-key-env",
        "AGENTDESK_TEST_MODEL_KEY",
        "--engine-options",
        r#"{"requestMaxRetries":0,"streamMaxRetries":0}"#,
    ])
    .await;
    Some((env, fake))
}

async fn end_to_end(engine: &str) {
    let Some((env, fake)) = engine_env(engine, "e2e").await else {
        return;
    };
    let ws = env.ws();
    let image = env.root.join("red.png");
    std::fs::write(&image, RED_PNG).unwrap();
    fake.push_command("touch approved.txt");
    fake.push_text(&["The ", "zebrafish ", "file is there."]);
    let out = env
        .call_with_stdin(
            &[
                "run",
                "--workspace",
                &ws,
                "--attach",
                &s(&image),
                "Make the file, see the picture",
            ],
            "y\n",
        )
        .await;
    let (stdout, err) = (String::from_utf8_lossy(&out.stdout), stderr(&out));
    eprintln!("{stdout}\n{err}");
    assert!(out.status.success(), "run failed: {err}");
    assert!(
        err.contains("approve? [y]es once"),
        "no prompt on stderr: {err}"
    );
    assert!(stdout.contains("The zebrafish file is there."), "{stdout}");
    assert!(
        env.work.join("approved.txt").exists(),
        "the approved command did not run"
    );
    assert!(fake.image_sent(), "the image did not reach the model");

    let hits = env.ok(&["search", "zebrafish", "--json"]).await;
    let hits: Value = serde_json::from_str(&hits).unwrap();
    let session = hits[0]["sessionId"]
        .as_str()
        .expect("no search hit")
        .to_string();
    let md = env.ok(&["export", &session, "--format", "md"]).await;
    assert!(
        md.contains("zebrafish") && md.contains("Make the file"),
        "{md}"
    );
    let json: Value = serde_json::from_str(
        &env.ok(&["export", &session[..13], "--format", "json"])
            .await,
    )
    .unwrap();
    assert!(
        json.to_string().contains("red.png"),
        "the attachment is not in the export"
    );
    let shown = env.ok(&["show", &session]).await;
    assert!(
        shown.contains("approval approved_once") || shown.contains("→ approved_once"),
        "{shown}"
    );
    assert!(shown.contains("-- run completed"), "{shown}");
    let listed = env.ok(&["sessions"]).await;
    assert!(
        listed.contains(&session) && listed.contains("completed"),
        "{listed}"
    );
    assert!(env
        .ok(&["approvals"])
        .await
        .contains("no pending approvals"));

    // A second turn in the same session, denied by flag, events as JSON lines.
    fake.push_command("touch denied.txt");
    fake.push_text(&["Skipped."]);
    let out = env
        .call(&[
            "run",
            "--session",
            &session,
            "--approve",
            "deny",
            "--json",
            "Try again",
        ])
        .await;
    assert!(out.status.success(), "{}", stderr(&out));
    let types: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["type"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert!(
        types.contains(&"approval.requested".to_string()),
        "{types:?}"
    );
    assert_eq!(
        types.last().map(String::as_str),
        Some("run.completed"),
        "{types:?}"
    );
    assert!(!env.work.join("denied.txt").exists());
}

/// "a" at the prompt approves the request and every later one like it in the session: the
/// second command of the turn runs without asking (stdin holds one answer only: a second
/// prompt would wait for an answer that never comes, and the call would time out).
async fn always_for_this_session(engine: &str) {
    let Some((env, fake)) = engine_env(engine, "always").await else {
        return;
    };
    let ws = env.ws();
    fake.push_command_as("call_always_1", "touch always.txt");
    fake.push_command_as("call_always_2", "touch always.txt");
    fake.push_text(&["Both done."]);
    let out = env
        .call_with_stdin(&["run", "--workspace", &ws, "Make the file twice"], "a\n")
        .await;
    let err = stderr(&out);
    assert!(out.status.success(), "run failed: {err}");
    assert_eq!(err.matches("approve? [y]es once").count(), 1, "{err}");
    assert!(env.work.join("always.txt").exists());
    assert!(String::from_utf8_lossy(&out.stdout).contains("Both done."));
}

#[tokio::test(flavor = "multi_thread")]
async fn always_for_this_session_codex() {
    always_for_this_session("codex").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn always_for_this_session_claude() {
    always_for_this_session("claude").await;
}

/// A question card on the terminal: numbered options, the answer typed as a number goes back
/// to the engine as the option's label.
#[tokio::test(flavor = "multi_thread")]
async fn question_answered_at_the_terminal() {
    let Some((env, fake)) = engine_env("claude", "question").await else {
        return;
    };
    let Fake::Claude(f) = &fake else {
        unreachable!()
    };
    f.push(fake_messages::Reply::tool(
        "toolu_cli_q",
        "AskUserQuestion",
        serde_json::json!({"questions": [{
            "question": "Which colour should the button be?",
            "header": "Colour",
            "options": [
                {"label": "Red", "description": "warm"},
                {"label": "Blue", "description": "cool"}
            ],
            "multiSelect": false
        }]}),
    ));
    f.push(fake_messages::Reply::text(&["Blue it is."]));
    let ws = env.ws();
    let out = env
        .call_with_stdin(&["run", "--workspace", &ws, "Ask me first"], "2\n")
        .await;
    let err = stderr(&out);
    assert!(out.status.success(), "run failed: {err}");
    assert!(
        err.contains("[question] Which colour should the button be?"),
        "{err}"
    );
    assert!(err.contains("1. Red") && err.contains("2. Blue"), "{err}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("Blue it is."));
    // The model's next request carries the answer as the tool's result.
    let reqs = f.model_requests();
    let answered = reqs.iter().any(|r| {
        r.blocks_of("tool_result")
            .iter()
            .any(|b| b["tool_use_id"] == "toolu_cli_q" && b.to_string().contains("Blue"))
    });
    assert!(answered, "{:?}", reqs.last().map(|r| r.transcript()));
}

#[tokio::test(flavor = "multi_thread")]
async fn run_end_to_end_codex() {
    end_to_end("codex").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn run_end_to_end_claude() {
    end_to_end("claude").await;
}
