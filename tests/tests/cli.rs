//! `agentdesk-cli`, run as a user would: the built binary (`target/debug/agentdesk-cli`,
//! built by `tests/run-all.sh` before `cargo test`) over a fresh data directory.
//! - profile add/list/edit/remove with the core's validation errors and exit codes;
//! - doctor (data dir, integrity, schema version, engines);
//! - `run` end to end with the real codex and claude (`CODEX_BIN` / `CLAUDE_BIN`, passed as
//!   `AGENTDESK_CODEX_BIN` / `AGENTDESK_CLAUDE_BIN`) against the fake model servers: an
//!   attached image, a command approved from the terminal (piped "y"), then search, show
//!   and export of the result;
//! - crash recovery: SIGKILL the CLI mid-stream, reopen: the run is interrupted, its text up
//!   to the last second is stored, the database is intact, no engine process is left;
//! - Ctrl-C (SIGINT): the run ends interrupted, exit code 3, no engine process is left;
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

#[path = "cli/safety.rs"]
mod safety;

#[cfg(unix)]
#[path = "cli/login_path.rs"]
mod login_path;

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

    fn ws(&self) -> String {
        s(&self.work)
    }
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[tokio::test]
async fn profile_round_trip_with_validation() {
    let Some(bin) = cli_bin() else { return };
    let env = Env::new(bin, "profiles");
    let ws = env.ws();
    let w = ws.as_str();
    env.ok(&[
        "profile",
        "add",
        "--workspace",
        w,
        "main",
        "--engine",
        "codex",
        "--model",
        "gpt-5.1-codex",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--api-key-env",
        "MY_KEY",
        "--permission-mode",
        "auto-edit",
        "--allow-tool",
        "Read",
        "--deny-tool",
        "Bash",
        "--system-prompt",
        "Be brief.",
        "--extra-dir",
        "/tmp",
        "--env",
        "FOO=bar=baz",
    ])
    .await;
    env.ok(&[
        "profile",
        "add",
        "--workspace",
        w,
        "second",
        "--engine",
        "claude",
    ])
    .await;

    // Validation errors: a clear message with its code, exit 4; nothing stored.
    for (args, msg) in [
        (vec!["--engine", "gemini"], "unknown engine"),
        (vec!["--engine", "codex", "--model", "gpt 5"], "model name"),
        (
            vec!["--engine", "codex", "--base-url", "ftp://x"],
            "base URL",
        ),
        (
            vec!["--engine", "codex", "--extra-dir", "rel/dir"],
            "not an absolute path",
        ),
        (vec!["--engine", "codex", "--env", "NOEQUALS"], "KEY=VALUE"),
        (
            vec!["--engine", "codex", "--api-key-env", "sk-123"],
            "environment variable",
        ),
        (
            vec!["--engine", "codex", "--permission-mode", "yolo"],
            "permission mode",
        ),
    ] {
        let mut full = vec!["profile", "add", "--workspace", w, "bad"];
        full.extend(args);
        let out = env.call(&full).await;
        assert_eq!(out.status.code(), Some(4), "{full:?}");
        let err = stderr(&out);
        assert!(
            err.contains("error: ") && err.contains(msg),
            "{full:?}: {err}"
        );
        assert!(err.contains("[invalid_input]"), "{err}");
    }
    let dup = env
        .call(&[
            "profile",
            "add",
            "--workspace",
            w,
            "main",
            "--engine",
            "codex",
        ])
        .await;
    assert_eq!(dup.status.code(), Some(4), "a duplicate name is a conflict");

    let list: Value = serde_json::from_str(
        &env.ok(&["profile", "list", "--workspace", w, "--json"])
            .await,
    )
    .unwrap();
    let list = list.as_array().unwrap();
    assert_eq!(list.len(), 2);
    let main = &list.iter().find(|p| p["name"] == "main").unwrap();
    assert_eq!(main["isDefault"], true, "the first profile is the default");
    assert_eq!(main["model"], "gpt-5.1-codex");
    assert_eq!(main["baseUrl"], "http://127.0.0.1:9/v1");
    assert_eq!(main["apiKeyEnv"], "MY_KEY");
    assert_eq!(main["permissionMode"], "auto_edit");
    assert_eq!(main["allowedTools"], serde_json::json!(["Read"]));
    assert_eq!(main["deniedTools"], serde_json::json!(["Bash"]));
    assert_eq!(main["systemPrompt"], "Be brief.");
    assert_eq!(main["extraDirs"], serde_json::json!(["/tmp"]));
    assert_eq!(main["env"], serde_json::json!({"FOO": "bar=baz"}));

    env.ok(&[
        "profile",
        "edit",
        "--workspace",
        w,
        "second",
        "--rename",
        "fast",
        "--model",
        "claude-haiku-4-5",
        "--default",
    ])
    .await;
    env.ok(&[
        "profile",
        "edit",
        "--workspace",
        w,
        "main",
        "--clear",
        "base-url",
        "--clear",
        "env",
    ])
    .await;
    let bad_edit = env
        .call(&[
            "profile",
            "edit",
            "--workspace",
            w,
            "fast",
            "--extra-dir",
            "nope",
        ])
        .await;
    assert_eq!(bad_edit.status.code(), Some(4));
    let text = env.ok(&["profile", "list", "--workspace", w]).await;
    assert!(
        text.contains("* fast  engine=claude model=claude-haiku-4-5"),
        "{text}"
    );
    assert!(!text.contains("base url"), "{text}");
    // Env values can be secrets: the table shows names only.
    assert!(!text.contains("bar=baz"), "{text}");

    let missing = env
        .call(&["profile", "remove", "--workspace", w, "nope"])
        .await;
    assert_eq!(missing.status.code(), Some(5));
    assert!(stderr(&missing).contains("[not_found]"));
    env.ok(&["profile", "remove", "--workspace", w, "main"])
        .await;
    let list: Value = serde_json::from_str(
        &env.ok(&["profile", "list", "--workspace", w, "--json"])
            .await,
    )
    .unwrap();
    assert_eq!(list.as_array().unwrap().len(), 1);

    let nows = env
        .call(&["profile", "list", "--workspace", &s(&env.root)])
        .await;
    assert_eq!(nows.status.code(), Some(5), "not a workspace yet");
    let usage = env.call(&["profile", "frobnicate"]).await;
    assert_eq!(usage.status.code(), Some(2));
}

#[tokio::test]
async fn doctor_reports_data_dir_database_and_engines() {
    let Some(bin) = cli_bin() else { return };
    let mut env = Env::new(bin, "doctor");
    let missing = s(&env.root.join("no-such-codex"));
    env.vars
        .push(("AGENTDESK_CODEX_BIN".into(), missing.clone()));
    env.vars
        .push(("AGENTDESK_CLAUDE_BIN".into(), "/bin/true".into()));
    let out = env.ok(&["doctor", "--no-login"]).await;
    assert!(out.contains(&s(&env.root.join("data"))), "{out}");
    assert!(out.contains("integrity: ok"), "{out}");
    assert!(out.contains("schema:    version"), "{out}");
    let json: Value =
        serde_json::from_str(&env.ok(&["doctor", "--no-login", "--json"]).await).unwrap();
    assert_eq!(json["integrity"], "ok");
    assert_eq!(json["schemaVersion"], json["knownSchemaVersion"]);
    let codex = &json["engines"][0];
    assert_eq!(codex["engine"], "codex");
    assert!(codex["path"].is_null(), "{codex}");
    assert!(
        codex["problem"].as_str().unwrap().contains("no-such-codex"),
        "{codex}"
    );
    let claude = &json["engines"][1];
    // `/bin/true --version` prints nothing: found, but no version.
    assert_eq!(claude["path"], "/bin/true");
    assert!(
        claude["version"].is_null() && claude["problem"].is_string(),
        "{claude}"
    );
    let help = env.ok(&["run", "--help"]).await;
    assert!(
        help.contains("EXIT CODES") && help.contains("interrupted"),
        "{help}"
    );
}

/// Issue 21: an ACP profile names its agent by preset or command (the registry's check, with
/// the field named), the ACP flags are refused for an engine that runs its own executable, and
/// `doctor` lists each ACP agent's program as it does codex and claude.
#[tokio::test]
async fn acp_profiles_and_doctor_rows() {
    let Some(bin) = cli_bin() else { return };
    let mut env = Env::new(bin, "acp-profiles");
    let ws = env.ws();
    let w = ws.as_str();
    let add = |name: &'static str, extra: &[&'static str]| {
        let mut args = vec!["profile", "add", "--workspace", w, name];
        args.extend_from_slice(extra);
        args
    };
    let nameless = env.call(&add("none", &["--engine", "acp"])).await;
    assert_eq!(nameless.status.code(), Some(4));
    let err = stderr(&nameless);
    assert!(
        err.contains("choose a preset (opencode, gemini) or give its command"),
        "{err}"
    );
    let codex = env
        .call(&add("c", &["--engine", "codex", "--command", "/opt/x"]))
        .await;
    assert_eq!(codex.status.code(), Some(4));
    assert!(
        stderr(&codex).contains("Codex runs its own executable"),
        "{}",
        stderr(&codex)
    );
    let preset = env
        .call(&add("bad", &["--engine", "acp", "--preset", "nope"]))
        .await;
    assert_eq!(preset.status.code(), Some(4));
    assert!(stderr(&preset).contains("preset must be one of opencode, gemini"));

    env.ok(&add(
        "oc",
        &[
            "--engine",
            "acp",
            "--preset",
            "opencode",
            "--arg",
            "--print-logs",
            "--env",
            "K=V",
        ],
    ))
    .await;
    env.ok(&add(
        "custom",
        &[
            "--engine",
            "acp",
            "--command",
            "/opt/agent",
            "--arg",
            "--acp",
        ],
    ))
    .await;
    let list: Value = serde_json::from_str(
        &env.ok(&["profile", "list", "--workspace", w, "--json"])
            .await,
    )
    .unwrap();
    let oc = list
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "oc")
        .unwrap();
    assert_eq!(oc["engine"], "acp");
    assert_eq!(
        oc["engineOptions"],
        serde_json::json!({"preset": "opencode", "args": ["--print-logs"]})
    );
    assert_eq!(oc["env"], serde_json::json!({"K": "V"}));
    // A custom agent cannot be made to ask: the profile says so.
    let shown = env
        .ok(&["profile", "show", "--workspace", w, "custom"])
        .await;
    assert!(
        shown.contains("cannot make it ask before acting"),
        "{shown}"
    );

    env.vars
        .push(("AGENTDESK_OPENCODE_BIN".into(), "/bin/true".into()));
    env.vars.push((
        "AGENTDESK_GEMINI_BIN".into(),
        s(&env.root.join("no-such-gemini")),
    ));
    let json: Value =
        serde_json::from_str(&env.ok(&["doctor", "--no-login", "--json"]).await).unwrap();
    let rows = json["engines"].as_array().unwrap();
    let programs: Vec<(&str, &str)> = rows
        .iter()
        .map(|r| {
            (
                r["engine"].as_str().unwrap(),
                r["program"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        programs,
        [
            ("codex", "codex"),
            ("claude", "claude"),
            ("acp", "opencode"),
            ("acp", "gemini")
        ]
    );
    assert_eq!(rows[2]["path"], "/bin/true");
    assert!(
        rows[3]["path"].is_null() && rows[3]["problem"].is_string(),
        "{}",
        rows[3]
    );
    let text = env.ok(&["doctor", "--no-login"]).await;
    assert!(text.contains("opencode   found at /bin/true"), "{text}");
    assert!(text.contains("gemini     not found"), "{text}");
}

#[tokio::test(flavor = "multi_thread")]
async fn doctor_probes_the_real_engines() {
    let Some((mut env, _fake)) = engine_env("codex", "doctor").await else {
        return;
    };
    let Some(claude) = engine_bin("CLAUDE_BIN", SUITE) else {
        return;
    };
    env.vars.push(("AGENTDESK_CLAUDE_BIN".into(), s(&claude)));
    let json: Value = serde_json::from_str(&env.ok(&["doctor", "--json"]).await).unwrap();
    for (i, name) in ["codex", "claude"].iter().enumerate() {
        let e = &json["engines"][i];
        assert_eq!(e["engine"], *name);
        assert!(e["version"].as_str().is_some_and(|v| !v.is_empty()), "{e}");
        // No login in these homes: reported, not an error.
        assert_eq!(e["loggedIn"], false, "{e}");
    }
    let text = env.ok(&["doctor"]).await;
    assert!(text.contains("NOT logged in"), "{text}");
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

/// Every process whose parent chain leads to `root` (Linux /proc).
fn descendants(root: u32) -> Vec<u32> {
    let mut parents = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
            continue;
        };
        // The fields after the parenthesised command name: state, ppid, ...
        let after = stat.rsplit_once(") ").map(|(_, r)| r).unwrap_or("");
        if let Some(ppid) = after.split(' ').nth(1).and_then(|p| p.parse::<u32>().ok()) {
            parents.push((pid, ppid));
        }
    }
    let mut found = vec![root];
    let mut i = 0;
    while i < found.len() {
        let p = found[i];
        found.extend(parents.iter().filter(|(_, pp)| *pp == p).map(|(c, _)| *c));
        i += 1;
    }
    found.remove(0);
    found
}

fn alive(pid: u32) -> bool {
    // A zombie has released everything; only a running process counts as left behind.
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| !s.rsplit_once(") ").is_some_and(|(_, r)| r.starts_with('Z')))
        .unwrap_or(false)
}

/// Stop a streaming `run` with `signal`: KILL (a crash: the next process recovers) or INT
/// (Ctrl-C: the CLI interrupts the run itself and exits with 3).
async fn stop_mid_stream(engine: &str, signal: &str) {
    let Some((env, fake)) = engine_env(engine, &signal.to_lowercase()).await else {
        return;
    };
    if !cfg!(target_os = "linux") {
        return;
    }
    fake.push_slow_text();
    let ws = env.ws();
    let mut child = env
        .command(&["run", "--workspace", &ws, "Count slowly"])
        .spawn()
        .unwrap();
    let pid = child.id().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut seen = String::new();
    let mut buf = [0u8; 4096];
    tokio::time::timeout(CALL, async {
        while !seen.contains("chunk15 ") {
            let n = stdout.read(&mut buf).await.unwrap();
            assert!(n > 0, "the CLI ended early: {seen}");
            seen.push_str(&String::from_utf8_lossy(&buf[..n]));
        }
    })
    .await
    .expect("the run did not stream in time");
    // Streaming text reaches the database at least once a second.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let engines = descendants(pid);
    assert!(!engines.is_empty(), "no engine process under the CLI");
    let _ = std::process::Command::new("kill")
        .args([format!("-{signal}"), pid.to_string()])
        .status();
    // An interrupt waits for the engine to confirm (bounded by the adapters).
    let status = tokio::time::timeout(Duration::from_secs(45), child.wait())
        .await
        .expect("the CLI did not exit after the signal")
        .unwrap();
    if signal == "INT" {
        let mut err = String::new();
        let _ = child.stderr.take().unwrap().read_to_string(&mut err).await;
        assert_eq!(status.code(), Some(3), "Ctrl-C must exit with 3: {err}");
        assert!(err.contains("interrupting the run"), "{err}");
    }

    let deadline = tokio::time::Instant::now() + Duration::from_secs(15);
    while engines.iter().any(|p| alive(*p)) && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let left: Vec<u32> = engines.iter().copied().filter(|p| alive(*p)).collect();
    for p in &left {
        let _ = std::process::Command::new("kill")
            .args(["-KILL", &p.to_string()])
            .status();
    }
    assert!(left.is_empty(), "engine processes left behind: {left:?}");

    // Reopen: doctor recovers what the dead process left and checks the database.
    let doctor: Value =
        serde_json::from_str(&env.ok(&["doctor", "--no-login", "--json"]).await).unwrap();
    assert_eq!(doctor["integrity"], "ok");
    let sessions: Value = serde_json::from_str(&env.ok(&["sessions", "--json"]).await).unwrap();
    let session = sessions[0]["id"].as_str().unwrap().to_string();
    let shown = env.ok(&["show", &session]).await;
    assert!(shown.contains("-- run interrupted"), "{shown}");
    // What was on screen a second and a half before the kill is stored.
    // (Each piece of the fake's slow stream is its own message item.)
    let chunks = shown.lines().filter(|l| l.starts_with("chunk")).count();
    assert!(chunks >= 16, "only {chunks} pieces stored: {shown}");
}

#[tokio::test(flavor = "multi_thread")]
async fn crash_recovery_codex() {
    stop_mid_stream("codex", "KILL").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn ctrl_c_interrupts_codex() {
    stop_mid_stream("codex", "INT").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn ctrl_c_interrupts_claude() {
    stop_mid_stream("claude", "INT").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn crash_recovery_claude() {
    stop_mid_stream("claude", "KILL").await;
}
