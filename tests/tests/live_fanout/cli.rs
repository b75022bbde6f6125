//! `agentdesk-cli run` as a user runs it (the built binary, `target/debug/agentdesk-cli`,
//! over a fresh data dir, `fake-claude-stream` as its `claude`):
//! - a stdout nobody reads for seconds still gets every delta (the printed answer is the
//!   stored answer, nothing "skipped");
//! - `--json`'s first line names Agent Desk's session and run ids, and a second run
//!   continues that session with `--session`.

use std::process::Stdio;

use serde_json::Value;
use tokio::io::AsyncReadExt;
use tokio::process::Command;

use super::*;

const SUITE: &str = "live fan-out CLI suite";

fn cli_bin() -> Option<PathBuf> {
    agentdesk_tests::real::cli_bin(env!("CARGO_TARGET_TMPDIR"), SUITE)
}

fn cli(bin: &Path, root: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(bin);
    c.args(args)
        .env("AGENTDESK_DATA_DIR", root.join("data"))
        .env(
            "AGENTDESK_CLAUDE_BIN",
            env!("CARGO_BIN_EXE_fake-claude-stream"),
        )
        .env_remove("CLAUDECODE")
        .env_remove("ANTHROPIC_API_KEY")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    c
}

async fn output(mut c: Command) -> std::process::Output {
    tokio::time::timeout(RUN, c.output())
        .await
        .expect("agentdesk-cli finished in time")
        .unwrap()
}

/// The stored agent answer of a run (read after the CLI has exited).
async fn stored_answer(root: &Path, run_id: &str) -> String {
    let desk = Desk::open(&root.join("data")).await.unwrap();
    let text = desk
        .store()
        .run_items(&run_id.into())
        .await
        .unwrap()
        .into_iter()
        .filter_map(|i| match i.body {
            ItemBody::AgentMessage { text } => Some(text),
            _ => None,
        })
        .collect::<String>();
    desk.close().await;
    text
}

#[tokio::test]
async fn a_stdout_nobody_reads_for_seconds_still_gets_every_delta() {
    let Some(bin) = cli_bin() else { return };
    let root = root("cli-slow");
    let work = root.join("work").to_string_lossy().into_owned();
    // Codex (the scripted app-server): it writes line by line, so its 200,000 deltas reach
    // the core as many events (Claude's adapter merges what one read of its stdout holds).
    let codex = fake_codex(&root);
    let add = output(cli(
        &bin,
        &root,
        &[
            "profile",
            "add",
            "--workspace",
            &work,
            "stream",
            "--engine",
            "codex",
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--api-key-env",
            "FAKE_KEY",
            "--env",
            "FAKE_KEY=not-a-secret",
            "--env",
            "FAKE_SCRIPT=stream",
            "--env",
            &format!("FAKE_DELTAS={DELTAS}"),
        ],
    ))
    .await;
    succeeded(&add);
    let mut run = cli(
        &bin,
        &root,
        &[
            "run",
            "--workspace",
            &work,
            "--profile",
            "stream",
            "--approve",
            "deny",
            "Stream",
        ],
    );
    run.env("AGENTDESK_CODEX_BIN", &codex)
        .env("CODEX_HOME", root.join("codex-home"));
    std::fs::create_dir_all(root.join("codex-home")).unwrap();
    let mut child = run.spawn().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let err_task = tokio::spawn(async move {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s).await;
        s
    });
    // Nobody reads: the pipe fills (64 KiB of 4 MB) and the CLI's writes block while the
    // engine streams on. Then everything is read.
    tokio::time::sleep(Duration::from_secs(5)).await;
    let mut printed = String::new();
    tokio::time::timeout(RUN, stdout.read_to_string(&mut printed))
        .await
        .expect("stdout ended in time")
        .unwrap();
    let status = tokio::time::timeout(RUN, child.wait())
        .await
        .unwrap()
        .unwrap();
    let err = err_task.await.unwrap();
    assert!(status.success(), "{status:?}: {err}");
    assert!(!err.contains("skipped") && !err.contains("behind"), "{err}");
    let run_id = err
        .lines()
        .find_map(|l| l.split(" · run ").nth(1))
        .unwrap_or_else(|| panic!("no run id in {err}"))
        .trim()
        .to_string();
    let stored = stored_answer(&root, &run_id).await;
    assert_eq!(stored.len(), DELTAS * 20);
    let at = printed.find(&stored).unwrap_or_else(|| {
        panic!(
            "the printed answer ({} bytes) is not the stored one",
            printed.len()
        )
    });
    // Around it only the run's own lines ("-- run started", usage), no second copy.
    assert!(
        printed.len() - stored.len() < 1_000,
        "{} extra bytes",
        printed.len() - stored.len()
    );
    assert!(at < 500);
}

/// `out` is a success (else fail with what the CLI said).
fn succeeded(out: &std::process::Output) {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `--json`'s first line, parsed.
fn ids_line(out: &std::process::Output) -> Value {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let first = stdout.lines().next().unwrap_or_default();
    serde_json::from_str(first).unwrap_or_else(|e| panic!("{e}: {first:?}"))
}

fn streamed_text(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .skip(1)
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["type"] == "message.delta")
        .filter_map(|v| v["text"].as_str().map(str::to_string))
        .collect()
}

#[tokio::test]
async fn json_names_the_session_and_run_so_a_script_continues_the_session() {
    let Some(bin) = cli_bin() else { return };
    let root = root("cli-json");
    let work = root.join("work").to_string_lossy().into_owned();
    let add = output(cli(
        &bin,
        &root,
        &[
            "profile",
            "add",
            "--workspace",
            &work,
            "short",
            "--engine",
            "claude",
            "--env",
            "FAKE_STREAM_DELTAS=50",
        ],
    ))
    .await;
    succeeded(&add);

    let run = |extra: Vec<String>| {
        let mut args: Vec<String> = ["run", "--approve", "deny", "--json"]
            .map(String::from)
            .to_vec();
        args.extend(extra);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        output(cli(&bin, &root, &args))
    };
    let first = run(vec![
        "--workspace".into(),
        work.clone(),
        "--profile".into(),
        "short".into(),
        "First".into(),
    ])
    .await;
    succeeded(&first);
    let ids = ids_line(&first);
    assert_eq!(ids["type"], "agentdesk.run", "{ids}");
    assert_eq!(ids["engine"], "claude");
    assert_eq!(ids["newSession"], true);
    let session_id = ids["sessionId"].as_str().expect("a session id").to_string();
    let first_run = ids["runId"].as_str().expect("a run id").to_string();
    assert_eq!(
        streamed_text(&first),
        stored_answer(&root, &first_run).await
    );

    // A script continues with the printed id, not the engine's.
    let second = run(vec![
        "--session".into(),
        session_id.clone(),
        "Second".into(),
    ])
    .await;
    succeeded(&second);
    let again = ids_line(&second);
    assert_eq!(again["sessionId"], session_id.as_str());
    assert_eq!(again["newSession"], false);
    let second_run = again["runId"].as_str().unwrap().to_string();
    assert_ne!(second_run, first_run);

    let desk = Desk::open(&root.join("data")).await.unwrap();
    let runs: Vec<String> = desk
        .list_runs(&session_id.as_str().into())
        .await
        .unwrap()
        .into_iter()
        .map(|r| r.id.into_string())
        .collect();
    desk.close().await;
    assert_eq!(runs, vec![first_run, second_run]);
}
