//! Remote workspaces from the terminal (issue 25): `ssh://host/path` wherever a workspace
//! folder is taken. A real `sshd` on 127.0.0.1 (`agentdesk_tests::sshd`) with the pinned
//! codex on its login shell's PATH; the profile carries the variables the remote engine
//! gets (this machine's are never sent).

use super::*;
use agentdesk_tests::sshd::{self, Sshd};

#[tokio::test]
async fn codex_on_a_host_from_the_terminal() {
    if let Some(why) = sshd::unavailable() {
        agentdesk_tests::real::skip_or_fail(SUITE, &why);
        return;
    }
    let Some(bin) = cli_bin() else { return };
    let Some(codex) = engine_bin("CODEX_BIN", SUITE) else {
        return;
    };
    let env = Env::new(bin, "remote");
    let server = Sshd::start(
        env!("CARGO_TARGET_TMPDIR"),
        &env.root,
        "cli-devbox",
        &[("codex", &codex)],
    );
    let home = env.root.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let _ = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(&env.work)
        .status();
    let f = fake_responses::FakeResponses::start().await.unwrap();
    let ws = server.url(&env.work);
    env.ok(&[
        "profile",
        "add",
        "--workspace",
        &ws,
        "test",
        "--engine",
        "codex",
        "--model",
        "gpt-5.5",
        "--base-url",
        &f.base_url(),
        "--api-key-env",
        "REMOTE_MODEL_KEY",
        "--secret-env",
        "REMOTE_MODEL_KEY=dummy",
        "--env",
        &format!("HOME={}", s(&home)),
        "--env",
        &format!("CODEX_HOME={}", s(&home)),
        "--env",
        "NO_PROXY=127.0.0.1,localhost",
        "--engine-options",
        r#"{"requestMaxRetries":0,"streamMaxRetries":0}"#,
    ])
    .await;

    f.push(fake_responses::Reply::exec_command(
        "call_remote_cli",
        "touch made-over-ssh.txt",
    ));
    f.push(fake_responses::Reply::text(&["Made ", "on the host."]));
    let out = env
        .call_with_stdin(&["run", "--workspace", &ws, "Make the file there"], "y\n")
        .await;
    let (stdout, err) = (String::from_utf8_lossy(&out.stdout), stderr(&out));
    assert!(out.status.success(), "run failed: {err}\n{stdout}");
    assert!(err.contains("approve? [y]es once"), "{err}");
    assert!(stdout.contains("Made on the host."), "{stdout}");
    assert!(env.work.join("made-over-ssh.txt").exists());

    let sessions = env.ok(&["sessions", "--workspace", &ws, "--json"]).await;
    let sessions: Value = serde_json::from_str(&sessions).unwrap();
    assert_eq!(sessions.as_array().unwrap().len(), 1, "{sessions}");

    let doctor = env.ok(&["doctor", "--workspace", &ws, "--no-login"]).await;
    assert!(doctor.contains("host:      cli-devbox"), "{doctor}");
    assert!(
        doctor.contains(&format!("0.169.0 at {}", s(&server.home.join("bin/codex")))),
        "{doctor}"
    );
    assert!(doctor.contains("claude     not found"), "{doctor}");
    assert!(
        doctor.contains("run: ssh -t cli-devbox npm install -g @anthropic-ai/claude-code"),
        "{doctor}"
    );

    // A folder that is not there, and a host that is not either: clear errors, exit codes.
    let missing = server.url(&env.root.join("nowhere"));
    let out = env.call(&["run", "--workspace", &missing, "Hello"]).await;
    assert_eq!(out.status.code(), Some(6), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("does not exist on"),
        "{}",
        stderr(&out)
    );
    let out = env
        .call(&["sessions", "--workspace", "ssh://no-such-host.invalid/srv"])
        .await;
    assert_eq!(out.status.code(), Some(6), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("name lookup failed"),
        "{}",
        stderr(&out)
    );
}
