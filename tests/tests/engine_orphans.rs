//! No orphans when the app dies without cleaning up (crash, force quit, SIGKILL): the app
//! stand-in (`orphan-app`) starts an engine whose shell leaves a background grandchild (what
//! an agent's command or an MCP server is), then is SIGKILLed. Within a bound, the engine
//! and the grandchild are gone:
//! - with Linux's parent-death signal (the default), which alone kills only the engine;
//! - without it (`--no-pdeathsig`), which is what macOS has: the orphan watchdog alone.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Stdio;
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::Command;

const APP: &str = env!("CARGO_BIN_EXE_orphan-app");
const BOUND: Duration = Duration::from_secs(5);

/// `kill -0`: does the process exist (the suite has no libc of its own)?
fn exists(pid: i32) -> bool {
    std::process::Command::new("kill")
        .args(["-0", &pid.to_string()])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn alive(pid: i32) -> bool {
    if !exists(pid) {
        return false;
    }
    // Killed but not reaped yet (no reaping init in a container): a zombie is dead.
    std::fs::read_to_string(format!("/proc/{pid}/stat")).map_or(true, |stat| {
        !stat
            .rsplit(')')
            .next()
            .is_some_and(|s| s.trim_start().starts_with('Z'))
    })
}

async fn gone_within(pid: i32, bound: Duration) -> bool {
    let deadline = Instant::now() + bound;
    while Instant::now() < deadline {
        if !alive(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    false
}

async fn app_killed_leaves_nothing(args: &[&str]) {
    let mut app = Command::new(APP)
        .args(args)
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut line = String::new();
    let stdout = app.stdout.take().unwrap();
    tokio::time::timeout(
        Duration::from_secs(20),
        BufReader::new(stdout).read_line(&mut line),
    )
    .await
    .expect("orphan-app did not start its engine")
    .unwrap();
    let pid = |key: &str| -> i32 {
        line.split_whitespace()
            .find_map(|kv| kv.strip_prefix(key))
            .unwrap_or_else(|| panic!("no {key} in {line:?}"))
            .parse()
            .unwrap()
    };
    let (engine, grandchild) = (pid("engine="), pid("grandchild="));
    assert!(alive(engine) && alive(grandchild), "{line}");
    app.start_kill().unwrap();
    app.wait().await.unwrap();
    let engine_gone = gone_within(engine, BOUND).await;
    let grandchild_gone = gone_within(grandchild, BOUND).await;
    // Never leave them behind, pass or fail.
    for pid in [engine, grandchild] {
        let _ = std::process::Command::new("kill")
            .args(["-9", &pid.to_string()])
            .stderr(Stdio::null())
            .status();
    }
    assert!(engine_gone, "{args:?}: engine {engine} outlived the app");
    assert!(
        grandchild_gone,
        "{args:?}: the engine's child {grandchild} outlived the app"
    );
}

#[tokio::test]
async fn a_killed_app_leaves_no_engine_and_no_grandchild() {
    app_killed_leaves_nothing(&[]).await;
}

#[tokio::test]
async fn without_a_parent_death_signal_the_watchdog_alone_cleans_up() {
    app_killed_leaves_nothing(&["--no-pdeathsig"]).await;
}
