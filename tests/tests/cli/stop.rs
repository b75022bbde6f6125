//! A streaming `run` stopped from outside: SIGKILL (a crash, recovered by the next process)
//! and SIGINT (Ctrl-C: the run ends interrupted, exit code 3); no engine process is left.

use super::*;

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
