//! Remote workspaces over SSH with the REAL engines: a real `sshd` on 127.0.0.1 (its own
//! host key, config, authorized key and "remote" home, see `agentdesk_tests::sshd`), the
//! pinned `codex` and `claude` on the remote login shell's `PATH`, the fake model servers
//! reachable from there. The core drives the runs exactly as for a local folder; what is
//! checked is what the issue promises: the engine runs on the host in the remote folder
//! with only the profile's variables, approvals work, images reach the model, attached
//! files are copied there and removed, a dropped connection fails the run with its reason
//! and leaves no engine there, a changed host key is refused, and bad hosts and folders
//! are clear errors.
// The suite's sshd and its process checks are Unix's.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::time::{Duration, Instant};

use agentdesk_core::Desk;
use agentdesk_protocol::events::UserDecision;
use agentdesk_protocol::ui::{Engine, ErrorCode, RunStatus};
use agentdesk_tests::real::{engine_bin, skip_or_fail, RED_PNG, RED_PNG_B64};
use agentdesk_tests::sshd::{self, Sshd};
use agentdesk_tests::world::{fresh_root, World};

const SUITE: &str = "remote workspace suite";
const TEST: Duration = Duration::from_secs(240);
/// A value of this machine's environment that must never reach a remote engine.
const DESKTOP_SECRET: &str = "desktop-secret-never-sent";

/// The binaries and a server, or a loud skip (a failure under `CI=true`).
fn setup(engine: Engine, name: &str) -> Option<(std::path::PathBuf, std::path::PathBuf, Sshd)> {
    if let Some(why) = sshd::unavailable() {
        skip_or_fail(SUITE, &why);
        return None;
    }
    let var = match engine {
        Engine::Codex => "CODEX_BIN",
        _ => "CLAUDE_BIN",
    };
    let bin = engine_bin(var, SUITE)?;
    // What a developer's shell may hold: the remote engine must not get it.
    std::env::set_var("OPENAI_API_KEY", DESKTOP_SECRET);
    std::env::set_var("ANTHROPIC_API_KEY", DESKTOP_SECRET);
    let root = fresh_root(
        env!("CARGO_TARGET_TMPDIR"),
        "remote",
        &format!("{}-{name}", engine.as_str()),
    );
    let program = match engine {
        Engine::Codex => "codex",
        _ => "claude",
    };
    let alias = format!("{}-{name}", engine.as_str());
    let server = Sshd::start(
        env!("CARGO_TARGET_TMPDIR"),
        &root,
        &alias,
        &[(program, &bin)],
    );
    Some((root, bin, server))
}

/// The engine process a run started on the host (under the SSH server).
async fn remote_engine(server: &Sshd, program: &str) -> u32 {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Some(pid) = server.running(program).first() {
            return *pid;
        }
        assert!(
            Instant::now() < deadline,
            "no {program} started on the host"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Nothing this app started is left running on the host (bounded wait): no engine, no
/// session of the server.
async fn nothing_left_on(server: &Sshd) {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let left = server.descendants();
        if left.is_empty() {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "processes left on the host: {:?}",
            left.iter()
                .map(|p| std::fs::read_to_string(format!("/proc/{p}/cmdline")).unwrap_or_default())
                .collect::<Vec<_>>()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn environ(pid: u32) -> String {
    String::from_utf8_lossy(&std::fs::read(format!("/proc/{pid}/environ")).unwrap())
        .replace('\0', "\n")
}

/// A run on the host asks to run a command; approved, it runs there; the engine was the
/// remote one, in the remote folder, with the profile's variables and none of this
/// machine's; nothing is left there after the shutdown.
async fn approval_on_the_host(engine: Engine) {
    let Some((root, bin, server)) = setup(engine, "approve") else {
        return;
    };
    let program = if engine == Engine::Codex {
        "codex"
    } else {
        "claude"
    };
    let w = World::new_remote(root, engine, &bin, &server, |spec| {
        spec.env.insert("PROFILE_PASSED".into(), "yes".into());
    })
    .await;
    let ws = w.desk.list_workspaces().await.unwrap().remove(0);
    assert_eq!(ws.host.as_deref(), Some(server.alias.as_str()));
    w.push_command("call-remote-1", "touch made-on-host.txt");
    w.push_text(&["Done on the host."]);
    let run_id = w.send("Please create the file").await;
    let approval = w.pending(&run_id).await;
    let pid = remote_engine(&server, program).await;
    let env = environ(pid);
    assert!(env.contains("PROFILE_PASSED=yes"), "{env}");
    assert!(
        !env.contains(DESKTOP_SECRET),
        "a desktop secret reached the host: {env}"
    );
    w.decide(&approval, UserDecision::ApproveOnce.into()).await;
    w.completed(&run_id).await;
    assert!(w.work.join("made-on-host.txt").exists());
    assert!(w
        .agent_messages()
        .await
        .join("\n")
        .contains("Done on the host."));
    w.finish(&[]).await;
    nothing_left_on(&server).await;
}

/// The local `ssh` processes of engines on `alias` (their command lines, NUL → space).
fn engine_channels(alias: &str, program: &str) -> Vec<String> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let pid = entry.file_name().to_string_lossy().into_owned();
        if !pid.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
        let cmd = std::fs::read(format!("/proc/{pid}/cmdline"))
            .map(|b| String::from_utf8_lossy(&b).replace('\0', " "))
            .unwrap_or_default();
        if comm.trim() == "ssh" && cmd.contains(&format!(" {alias} ")) && cmd.contains(program) {
            out.push(cmd);
        }
    }
    out
}

/// A profile that turns agent forwarding on gets it (`ssh -A` on its engine's channel); one
/// that does not, does not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn agent_forwarding_only_when_the_profile_says() {
    let Some((root, bin, server)) = setup(Engine::Codex, "agent") else {
        return;
    };
    let w = World::new_remote(root.clone(), Engine::Codex, &bin, &server, |spec| {
        spec.engine_options["sshForwardAgent"] = serde_json::json!(true);
    })
    .await;
    w.push_text(&["Forwarded."]);
    let run = w.send("hello").await;
    w.completed(&run).await;
    let channels = engine_channels(&server.alias, "app-server");
    assert_eq!(channels.len(), 1, "{channels:?}");
    assert!(channels[0].contains("ForwardAgent=yes"), "{}", channels[0]);
    w.finish(&[]).await;

    let off = World::new_remote(root.join("off"), Engine::Codex, &bin, &server, |_| {}).await;
    off.push_text(&["Not forwarded."]);
    let run = off.send("hello").await;
    off.completed(&run).await;
    let channels = engine_channels(&server.alias, "app-server");
    assert_eq!(channels.len(), 1, "{channels:?}");
    assert!(channels[0].contains("ForwardAgent=no"), "{}", channels[0]);
    off.finish(&[]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_runs_on_the_host_and_asks_here() {
    tokio::time::timeout(TEST, approval_on_the_host(Engine::Codex))
        .await
        .expect("scenario timed out");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_runs_on_the_host_and_asks_here() {
    tokio::time::timeout(TEST, approval_on_the_host(Engine::Claude))
        .await
        .expect("scenario timed out");
}

/// Auto-edit on a host: "inside the workspace" is where the host says a path leads. A
/// write inside is approved by the rule (before, every write there was asked); one through
/// `work/link`, a link on the host to a folder outside, is asked; a write by Claude inside
/// is approved by the same rule.
async fn auto_edit_on_the_host(engine: Engine) {
    use agentdesk_protocol::ui::{DecidedBy, PermissionMode};
    use agentdesk_tests::world::Fake;
    let Some((root, bin, server)) = setup(engine, "autoedit") else {
        return;
    };
    let outside = root.join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    let w = World::new_remote(root.clone(), engine, &bin, &server, |spec| {
        spec.permission_mode = PermissionMode::AutoEdit;
    })
    .await;
    std::os::unix::fs::symlink(&outside, w.work.join("link")).unwrap();
    match &w.fake {
        Fake::Codex(fake) => {
            fake.push(agentdesk_tests::fake_responses::Reply::apply_patch(
                "call_remote_in",
                "*** Begin Patch\n*** Add File: inside.txt\n+fine\n*** End Patch\n",
            ));
            fake.push(agentdesk_tests::fake_responses::Reply::apply_patch(
                "call_remote_out",
                "*** Begin Patch\n*** Add File: link/authorized_keys\n+ssh-ed25519 AAAA attacker\n*** End Patch\n",
            ));
        }
        Fake::Claude(fake) => {
            for (id, file) in [
                ("toolu_remote_in", "inside.txt"),
                ("toolu_remote_out", "link/authorized_keys"),
            ] {
                fake.push(agentdesk_tests::fake_messages::Reply::tool(
                    id,
                    "Write",
                    serde_json::json!({"file_path": w.work.join(file), "content": "fine\n"}),
                ));
            }
        }
        Fake::Chat(_) => unreachable!("codex and claude"),
    }
    w.push_text(&["Done."]);
    let run_id = w.send("Write the files").await;
    let asked = w.pending_after(&run_id, &[]).await;
    let names = |a: &agentdesk_protocol::ui::Approval, name: &str| {
        a.request.files.iter().any(|f| f.path.ends_with(name))
            || format!("{:?}", a.request.detail).contains(name)
    };
    assert!(names(&asked, "authorized_keys"), "{asked:?}");
    w.decide(
        &asked,
        agentdesk_engine::ApprovalDecision::deny("outside the workspace"),
    )
    .await;
    w.completed(&run_id).await;
    assert!(w.work.join("inside.txt").exists(), "the inside write ran");
    assert!(!outside.join("authorized_keys").exists());
    let recorded = w.recorded(&run_id).await;
    let inside = recorded
        .iter()
        .find(|a| names(a, "inside.txt"))
        .expect("the inside write was recorded");
    assert_eq!(inside.decided_by, Some(DecidedBy::Rule), "{inside:?}");
    assert_eq!(
        inside.decision.as_ref().and_then(|d| d.rule.as_deref()),
        Some("write inside the workspace")
    );
    w.finish(&[]).await;
    nothing_left_on(&server).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_auto_edit_follows_the_hosts_paths() {
    tokio::time::timeout(TEST, auto_edit_on_the_host(Engine::Codex))
        .await
        .expect("scenario timed out");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_auto_edit_follows_the_hosts_paths() {
    tokio::time::timeout(TEST, auto_edit_on_the_host(Engine::Claude))
        .await
        .expect("scenario timed out");
}

/// An image reaches the model from the host's engine (inline: it cannot read this
/// machine's files); an attached file is copied to a private folder there, named in the
/// message at its path there, and removed after the run.
async fn attachments_travel(engine: Engine) {
    let Some((root, bin, server)) = setup(engine, "attach") else {
        return;
    };
    let w = World::new_remote(root.clone(), engine, &bin, &server, |_| {}).await;
    let image = root.join("red.png");
    std::fs::write(&image, RED_PNG).unwrap();
    let notes = root.join("notes.txt");
    std::fs::write(&notes, "remote notes\n").unwrap();
    w.push_text(&["I see red."]);
    let run_id = w.send_attached("What is this?", &[&image, &notes]).await;
    w.completed(&run_id).await;
    assert_eq!(w.fake.image_sent().as_deref(), Some(RED_PNG_B64));
    let body = w.fake.last_body();
    // "- notes.txt (text/plain, 13 bytes): <path there>"
    let listed = "13 bytes): ";
    let at = body
        .find(listed)
        .expect("the file's path on the host in the message")
        + listed.len();
    let end = at + body[at..].find("notes.txt").unwrap() + "notes.txt".len();
    let copied = body[at..end].to_owned();
    assert!(copied.contains("/agentdesk-"), "{copied}");
    let folder = Path::new(&copied)
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .to_path_buf();
    assert!(folder.starts_with("/tmp"), "{copied}");
    // Removed once the run ended (in the background: bounded wait).
    let deadline = Instant::now() + Duration::from_secs(15);
    while folder.exists() {
        assert!(
            Instant::now() < deadline,
            "{} left on the host",
            folder.display()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    w.finish(&[]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_attachments_reach_the_host() {
    tokio::time::timeout(TEST, attachments_travel(Engine::Codex))
        .await
        .expect("scenario timed out");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_attachments_reach_the_host() {
    tokio::time::timeout(TEST, attachments_travel(Engine::Claude))
        .await
        .expect("scenario timed out");
}

/// The connection drops mid-answer (the server's session process killed): the run fails
/// with the reason within 30 s, what streamed before is kept, the engine on the host ends
/// with its channel; the next message connects again and completes.
async fn dropped_connection(engine: Engine) {
    let Some((root, bin, server)) = setup(engine, "drop") else {
        return;
    };
    let program = if engine == Engine::Codex {
        "codex"
    } else {
        "claude"
    };
    let w = World::new_remote(root, engine, &bin, &server, |_| {}).await;
    w.push_slow_text(100_000, Duration::from_millis(20));
    let run_id = w.send("Talk for a long time").await;
    remote_engine(&server, program).await;
    // Some of the answer is on screen first.
    let deadline = Instant::now() + Duration::from_secs(60);
    while w.agent_messages().await.join("").len() < 20 {
        assert!(Instant::now() < deadline, "nothing streamed");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let before = w.agent_messages().await.join("");
    let sessions = server.connection_pids();
    assert!(
        !sessions.is_empty(),
        "no connection on the server: {}",
        server.log()
    );
    let dropped = Instant::now();
    for pid in sessions {
        agentdesk_tests::process::kill9(pid);
    }
    let run = w.wait_run(&run_id).await;
    let took = dropped.elapsed();
    assert_eq!(run.status, RunStatus::Failed, "{run:?}");
    assert!(
        took < Duration::from_secs(30),
        "the run failed after {took:?}"
    );
    let error = run.error.clone().unwrap_or_default();
    assert!(
        error.contains(&server.alias) && error.contains("connection"),
        "the reason names the host and the connection: {error}"
    );
    let kept = w.agent_messages().await.join("");
    assert!(
        kept.starts_with(&before[..20]),
        "streamed text lost: {before:?} → {kept:?}"
    );
    let deadline = Instant::now() + Duration::from_secs(15);
    while !server.running(program).is_empty() {
        assert!(
            Instant::now() < deadline,
            "{program} left running on the host"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // The next message opens the connection again.
    w.push_text(&["Back again."]);
    let again = w.send("Are you there?").await;
    w.completed(&again).await;
    w.finish(&[]).await;
}

/// The host stops answering without closing anything (a laptop asleep, a network gone:
/// the server's session process is frozen with SIGSTOP): the keepalives notice, the run
/// fails with the connection's reason within 30 s; once the host side goes away the engine
/// there ends too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn silent_host_fails_the_run_within_30_s() {
    let Some((root, bin, server)) = setup(Engine::Codex, "silent") else {
        return;
    };
    let w = World::new_remote(root, Engine::Codex, &bin, &server, |_| {}).await;
    w.push_slow_text(100_000, Duration::from_millis(20));
    let run_id = w.send("Talk for a long time").await;
    remote_engine(&server, "codex").await;
    let deadline = Instant::now() + Duration::from_secs(60);
    while w.agent_messages().await.join("").len() < 20 {
        assert!(Instant::now() < deadline, "nothing streamed");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let sessions = server.connection_pids();
    assert!(!sessions.is_empty());
    let frozen = Instant::now();
    for pid in &sessions {
        let ok = std::process::Command::new("kill")
            .args(["-STOP", &pid.to_string()])
            .status()
            .unwrap();
        assert!(ok.success());
    }
    let run = w.wait_run(&run_id).await;
    let took = frozen.elapsed();
    assert_eq!(run.status, RunStatus::Failed, "{run:?}");
    assert!(
        took < Duration::from_secs(30),
        "the run failed after {took:?}"
    );
    let error = run.error.clone().unwrap_or_default();
    assert!(error.contains("connection"), "{error}");
    eprintln!("frozen host: the run failed after {took:?}: {error}");
    // The host side goes away (the frozen session is ended): nothing is left there.
    for pid in sessions {
        agentdesk_tests::process::kill9(pid);
    }
    let deadline = Instant::now() + Duration::from_secs(15);
    while !server.running("codex").is_empty() {
        assert!(Instant::now() < deadline, "codex left running on the host");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    w.finish(&[]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_dropped_connection_fails_the_run_and_ends_the_engine() {
    tokio::time::timeout(TEST, dropped_connection(Engine::Codex))
        .await
        .expect("scenario timed out");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_dropped_connection_fails_the_run_and_ends_the_engine() {
    tokio::time::timeout(TEST, dropped_connection(Engine::Claude))
        .await
        .expect("scenario timed out");
}

/// A changed host key is refused with how to fix it; nothing is added. An unknown host
/// name, a closed port, a missing folder and the home folder are clear errors, each within
/// the connect timeout.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_hosts_and_folders_are_refused_clearly() {
    let Some((root, _bin, mut server)) = setup(Engine::Codex, "refused") else {
        return;
    };
    let work = root.join("work");
    std::fs::create_dir_all(&work).unwrap();
    let desk = Desk::open(&root.join("data")).await.unwrap();

    let added = desk.add_workspace(&server.url(&work), None).await.unwrap();
    assert_eq!(added.host.as_deref(), Some(server.alias.as_str()));
    desk.remove_workspace(&added.id).await.unwrap();
    desk.shutdown().await;
    desk.close().await;

    let cases: Vec<(String, &str)> = vec![
        (server.url(&root.join("missing")), "does not exist"),
        (server.url(&server.home), "home folder"),
        (format!("ssh://{}/", server.alias), "root of the host"),
        (
            "ssh://no-such-host.invalid/srv".into(),
            "name lookup failed",
        ),
        (
            // A port nothing listens on.
            format!("ssh://root@127.0.0.1:{}/srv", {
                let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
                l.local_addr().unwrap().port()
            }),
            "refused the connection",
        ),
    ];
    let desk = Desk::open(&root.join("data2")).await.unwrap();
    for (location, want) in &cases {
        let started = Instant::now();
        let err = desk.add_workspace(location, None).await.unwrap_err();
        assert!(
            started.elapsed() < Duration::from_secs(12),
            "{location}: {:?}",
            started.elapsed()
        );
        assert!(err.to_string().contains(want), "{location}: {err}");
    }

    // A key the server does not know: the login is refused, with what to check.
    let stranger = root.join("stranger_key");
    assert!(std::process::Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", ""])
        .arg("-f")
        .arg(&stranger)
        .status()
        .unwrap()
        .success());
    let intruder = format!("{}-intruder", server.alias);
    server.add_alias(&intruder, &stranger);
    let started = Instant::now();
    let err = desk
        .add_workspace(&format!("ssh://{intruder}{}", work.display()), None)
        .await
        .unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(12));
    assert_eq!(err.code(), ErrorCode::Remote, "{err}");
    assert!(err.to_string().contains("refused the login"), "{err}");

    server.change_host_key();
    let err = desk
        .add_workspace(&server.url(&work), None)
        .await
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::Remote, "{err}");
    let message = err.to_string();
    assert!(message.contains("has changed"), "{message}");
    assert!(message.contains("ssh-keygen -R"), "{message}");
    assert!(desk.list_workspaces().await.unwrap().is_empty());
    desk.shutdown().await;
    desk.close().await;
}

/// An engine too old on the host: the run is refused before it starts, saying what to
/// install there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn engine_too_old_on_the_host() {
    let Some((root, bin, _server)) = setup(Engine::Codex, "old") else {
        return;
    };
    let wrappers = root.join("old-bin");
    std::fs::create_dir_all(&wrappers).unwrap();
    let old = agentdesk_tests::world::version_wrapper(
        &wrappers,
        "codex",
        "codex-cli 0.100.0",
        &bin.to_string_lossy(),
    );
    let dated = Sshd::start(
        env!("CARGO_TARGET_TMPDIR"),
        &root,
        "codex-dated",
        &[("codex", &old)],
    );
    let w = World::new_remote(root, Engine::Codex, &bin, &dated, |_| {}).await;
    let run_id = w.send("hello").await;
    let run = w.wait_run(&run_id).await;
    assert_eq!(run.status, RunStatus::Failed);
    let error = run.error.unwrap_or_default();
    assert!(
        error.contains("0.100.0") && error.contains("not supported"),
        "{error}"
    );
    assert!(error.contains("on the host, install"), "{error}");
    w.finish(&[]).await;
}

/// An engine missing on the host fails the run before it starts, saying what to install
/// there; the remote doctor says the same per engine.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn engine_missing_on_the_host() {
    let Some((root, bin, _server)) = setup(Engine::Codex, "missing") else {
        return;
    };
    // A second server whose home has no engines.
    let bare = Sshd::start(env!("CARGO_TARGET_TMPDIR"), &root, "codex-bare", &[]);
    let w = World::new_remote(root, Engine::Codex, &bin, &bare, |_| {}).await;
    let run_id = w.send("hello").await;
    let run = w.wait_run(&run_id).await;
    assert_eq!(run.status, RunStatus::Failed);
    let error = run.error.unwrap_or_default();
    assert!(error.contains("codex is not installed on"), "{error}");
    let health = w
        .desk
        .remote_engines_health(&bare.alias, Some(&w.work.to_string_lossy()), false)
        .await
        .unwrap();
    assert_eq!(health.len(), 2);
    for h in &health {
        assert!(h.path.is_none(), "{h:?}");
        let problem = h.problem.as_ref().unwrap();
        assert_eq!(problem.code, ErrorCode::EngineMissing, "{h:?}");
        assert!(
            h.fix_commands[0].starts_with(&format!("ssh -t {} npm install -g", bare.alias)),
            "{h:?}"
        );
    }
    w.finish(&[]).await;
}

/// The remote doctor finds the engines on the login shell's PATH with their versions and
/// asks them whether they are logged in; the folder browser lists the host's folders.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn doctor_and_folder_browser_on_the_host() {
    let Some((root, bin, server)) = setup(Engine::Codex, "doctor") else {
        return;
    };
    let w = World::new_remote(root, Engine::Codex, &bin, &server, |_| {}).await;
    let health = w
        .desk
        .remote_engines_health(&server.alias, Some(&w.work.to_string_lossy()), false)
        .await
        .unwrap();
    let codex = health.iter().find(|h| h.engine == Engine::Codex).unwrap();
    assert_eq!(
        codex.path.as_deref(),
        Some(server.home.join("bin/codex").to_str().unwrap())
    );
    assert!(
        codex.version.as_deref().unwrap().contains("0.169"),
        "{codex:?}"
    );
    assert!(codex.problem.is_none(), "{codex:?}");
    std::fs::create_dir_all(w.work.join("src/deep")).unwrap();
    std::fs::create_dir_all(w.work.join(".hidden")).unwrap();
    std::fs::write(w.work.join("file.txt"), "x").unwrap();
    let listed = w
        .desk
        .list_remote_folders(&server.alias, Some(&w.work.to_string_lossy()))
        .await
        .unwrap();
    assert_eq!(listed.path, w.work.to_string_lossy());
    assert!(listed.folders.contains(&"src".to_owned()), "{listed:?}");
    assert!(listed.folders.contains(&".hidden".to_owned()), "{listed:?}");
    assert!(
        !listed.folders.contains(&"file.txt".to_owned()),
        "{listed:?}"
    );
    assert_eq!(listed.parent.as_deref(), w.work.parent().unwrap().to_str());
    assert!(
        listed.repository,
        "the workspace is a git repository: {listed:?}"
    );
    let home = w
        .desk
        .list_remote_folders(&server.alias, None)
        .await
        .unwrap();
    assert_eq!(
        home.path,
        server.home.to_string_lossy(),
        "the home folder by default"
    );
    assert!(home.folders.contains(&"bin".to_owned()), "{home:?}");
    w.finish(&[]).await;
}
