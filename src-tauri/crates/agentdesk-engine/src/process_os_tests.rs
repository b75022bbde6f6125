//! Windows containment: the engine's whole tree is in its Job Object. These run only on
//! Windows; on Linux `.ci/windows-check.sh` type-checks them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use tokio::io::{AsyncBufReadExt, BufReader};

use super::super::{BaseEnv, ChildProcess, ProcessSpec, StopConfig};
use super::process_alive;

/// PowerShell that starts a grandchild (a five-minute `ping`), prints its pid, then runs
/// `then`.
fn with_grandchild(then: &str) -> ProcessSpec {
    let script = format!(
        "$p = Start-Process -PassThru -WindowStyle Hidden -FilePath ping.exe \
         -ArgumentList '-n','300','127.0.0.1'; [Console]::Out.WriteLine($p.Id); \
         [Console]::Out.Flush(); {then}"
    );
    let mut spec = ProcessSpec::new("powershell.exe")
        .args(["-NoProfile", "-NonInteractive", "-Command", &script])
        .stop_config(StopConfig {
            stdin_grace: Duration::from_millis(300),
            term_grace: Duration::from_millis(300),
            kill_wait: Duration::from_secs(2),
        });
    // A helper, not an engine: PowerShell wants more of the environment than the allow-list.
    spec.base_env = BaseEnv::Inherit;
    spec
}

/// Spawn and read the grandchild's pid from the first stdout line.
async fn spawn_with_grandchild(
    spec: ProcessSpec,
) -> (ChildProcess, u32, tokio::process::ChildStdin) {
    let mut child = ChildProcess::spawn(spec).unwrap();
    let (stdin, stdout) = child.take_stdio().unwrap();
    let mut lines = BufReader::new(stdout).lines();
    let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    let grandchild = line.trim().parse().unwrap();
    assert!(process_alive(grandchild), "the grandchild runs");
    (child, grandchild, stdin)
}

#[tokio::test]
async fn the_leftovers_of_an_exited_engine_die_with_the_job() {
    // `taskkill /T /PID <leader>` (the code before the Job Object) cannot find a tree whose
    // leader is gone: this grandchild outlived it.
    let (mut child, grandchild, _stdin) = spawn_with_grandchild(with_grandchild("exit 3")).await;
    let exit = tokio::time::timeout(Duration::from_secs(30), child.exit_watch().wait())
        .await
        .expect("the exit is reported when the leader exits, not when the job is empty")
        .unwrap();
    assert_eq!(exit.status.code, Some(3));
    assert!(
        process_alive(grandchild),
        "the job lives until its owner stops it, as a Unix group does"
    );
    child.stop().await;
    assert!(wait_gone(grandchild).await, "grandchild outlived the stop");
}

#[tokio::test]
async fn drop_ends_the_whole_tree() {
    let (child, grandchild, _stdin) =
        spawn_with_grandchild(with_grandchild("Start-Sleep -Seconds 300")).await;
    let leader = child.pid().unwrap();
    drop(child);
    assert!(wait_gone(leader).await, "leader still alive");
    assert!(wait_gone(grandchild).await, "grandchild still alive");
}

#[tokio::test]
async fn stop_does_not_wait_for_a_sigterm_windows_lacks() {
    let mut spec = with_grandchild("Start-Sleep -Seconds 300");
    spec.stop.term_grace = Duration::from_secs(60);
    let (mut child, grandchild, _stdin) = spawn_with_grandchild(spec).await;
    let exit = tokio::time::timeout(Duration::from_secs(20), child.stop())
        .await
        .expect("the ladder waited out term_grace")
        .unwrap();
    // TerminateJobObject's exit code.
    assert_eq!(exit.status.code, Some(1));
    assert!(wait_gone(grandchild).await, "grandchild still alive");
}

/// True once `pid` has exited (polls for up to 10 s).
async fn wait_gone(pid: u32) -> bool {
    for _ in 0..200 {
        if !process_alive(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}
