#![allow(clippy::unwrap_used, clippy::expect_used)]
#![cfg(unix)]

use std::time::{Duration, Instant};

use tokio::io::AsyncReadExt;

use super::*;

fn sh(script: &str) -> ProcessSpec {
    ProcessSpec::new("/bin/sh").arg("-c").arg(script)
}

fn fast_stop() -> StopConfig {
    StopConfig {
        stdin_grace: Duration::from_millis(300),
        term_grace: Duration::from_millis(300),
        kill_wait: Duration::from_secs(2),
    }
}

async fn env_of(spec: ProcessSpec) -> String {
    let mut child = ChildProcess::spawn(spec).unwrap();
    let (_stdin, mut stdout) = child.take_stdio().unwrap();
    let mut out = String::new();
    stdout.read_to_string(&mut out).await.unwrap();
    let exit = tokio::time::timeout(Duration::from_secs(5), child.exit_watch().wait())
        .await
        .unwrap()
        .unwrap();
    assert!(exit.status.success());
    out.trim().to_owned()
}

#[tokio::test]
async fn env_is_built_from_the_allow_list_plus_the_profile() {
    std::env::set_var("AGENTDESK_TEST_SECRET", "s3cret");
    std::env::set_var("AGENTDESK_TEST_KEEP", "kept");
    std::env::set_var("GITHUB_TOKEN", "ghp_test");
    std::env::set_var("CLAUDECODE", "1");
    std::env::set_var("LC_AGENTDESK_TEST", "c");
    let script = "echo \"${CLAUDECODE-unset} ${AGENTDESK_TEST_SECRET-unset} ${AGENTDESK_TEST_KEEP-unset} ${GITHUB_TOKEN-unset} ${LC_AGENTDESK_TEST-unset} ${PATH:+path} $PROFILE_VAR\"";
    let built = sh(script)
        .env_remove("AGENTDESK_TEST_SECRET")
        .env("PROFILE_VAR", "p")
        .env("CLAUDECODE", "sneaky");
    assert_eq!(env_of(built).await, "unset unset unset unset c path p");
    // Inheriting everything is possible for non-engine helpers; removals still apply.
    let mut inherit = sh(script)
        .env_remove("AGENTDESK_TEST_SECRET")
        .env("PROFILE_VAR", "p")
        .env("CLAUDECODE", "sneaky");
    inherit.base_env = BaseEnv::Inherit;
    assert_eq!(env_of(inherit).await, "unset unset kept ghp_test c path p");
}

#[tokio::test]
async fn stderr_is_redacted_before_tail_and_diagnostics() {
    let (tx, mut rx) = mpsc::unbounded_channel();
    // The profile's secret has no recognisable shape: it is redacted as a literal because the
    // variable's name says secret; the other two by their shapes.
    let spec = sh("echo \"using $DB_PASSWORD and sk-ant-api03-AAAAAAAAAAAAAAAAAAAA; GITHUB_TOKEN=abc\" >&2; exit 2")
        .env("DB_PASSWORD", "plain-words-here")
        .diagnostics(tx);
    let child = ChildProcess::spawn(spec).unwrap();
    let exit = tokio::time::timeout(Duration::from_secs(5), child.exit_watch().wait())
        .await
        .unwrap()
        .unwrap();
    let want = "using [REDACTED] and [REDACTED]; GITHUB_TOKEN=[REDACTED]";
    assert_eq!(exit.stderr_tail, want);
    assert_eq!(rx.recv().await.unwrap().detail, want);
}

#[tokio::test]
async fn stderr_goes_to_tail_and_diagnostics() {
    let (tx, mut rx) = mpsc::unbounded_channel();
    let mut spec = sh("for i in 1 2 3 4 5; do echo line$i >&2; done; exit 4").diagnostics(tx);
    spec.stderr_tail_lines = 3;
    let child = ChildProcess::spawn(spec).unwrap();
    let exit = tokio::time::timeout(Duration::from_secs(5), child.exit_watch().wait())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(exit.status.code, Some(4));
    assert_eq!(exit.stderr_tail, "line3\nline4\nline5");
    assert_eq!(
        exit.to_error().to_string(),
        "engine process exited (exit code 4); stderr:\nline3\nline4\nline5"
    );
    let first = rx.recv().await.unwrap();
    assert_eq!(
        (first.source, first.detail.as_str()),
        (DiagnosticSource::Stderr, "line1")
    );
}

#[tokio::test]
async fn stop_closes_stdin_first_for_a_polite_child() {
    // `cat` exits on EOF: the first rung is enough.
    let stop = StopConfig {
        stdin_grace: Duration::from_secs(3),
        ..fast_stop()
    };
    let mut child = ChildProcess::spawn(ProcessSpec::new("cat").stop_config(stop)).unwrap();
    let _transport = child.transport(&TransportConfig::default()).unwrap();
    let exit = child.stop().await.unwrap();
    assert_eq!(exit.status.code, Some(0));
    assert_eq!(exit.status.signal, None, "no signal was needed");
}

#[tokio::test]
async fn stop_ladder_escalates_to_sigkill_and_kills_the_group() {
    // Ignores SIGTERM and stdin EOF; starts a grandchild in its group.
    let spec = sh("trap '' TERM; sleep 300 & echo $! ; while :; do sleep 1; done")
        .stop_config(fast_stop());
    let mut child = ChildProcess::spawn(spec).unwrap();
    let pid = child.pid().unwrap();
    let (stdin, stdout) = child.take_stdio().unwrap();
    let mut lines = tokio::io::AsyncBufReadExt::lines(tokio::io::BufReader::new(stdout));
    let grandchild: i32 = lines
        .next_line()
        .await
        .unwrap()
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    drop(stdin);
    let started = Instant::now();
    let exit = tokio::time::timeout(Duration::from_secs(6), child.stop())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(exit.status.signal, Some(libc::SIGKILL));
    assert!(
        started.elapsed() >= Duration::from_millis(500),
        "went through the grace periods"
    );
    assert!(wait_gone(pid as i32).await, "leader still alive");
    assert!(wait_gone(grandchild).await, "grandchild still alive");
}

#[tokio::test]
async fn drop_runs_the_ladder_in_the_background() {
    let spec = sh("sleep 300 & echo $!; wait").stop_config(fast_stop());
    let mut child = ChildProcess::spawn(spec).unwrap();
    let pid = child.pid().unwrap() as i32;
    let (_stdin, stdout) = child.take_stdio().unwrap();
    let mut lines = tokio::io::AsyncBufReadExt::lines(tokio::io::BufReader::new(stdout));
    let grandchild: i32 = lines
        .next_line()
        .await
        .unwrap()
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    drop(child);
    assert!(wait_gone(pid).await);
    assert!(wait_gone(grandchild).await);
}

#[test]
fn drop_outside_a_runtime_kills_synchronously() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let child = rt.block_on(async { ChildProcess::spawn(sh("exec sleep 300")).unwrap() });
    let pid = child.pid().unwrap() as i32;
    drop(child); // no runtime entered here
    assert!(rt.block_on(wait_gone(pid)));
}

#[test]
fn ladder_cancelled_by_runtime_shutdown_still_kills() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let pid = rt.block_on(async {
        let child = ChildProcess::spawn(sh("trap '' TERM; exec sleep 300")).unwrap();
        let pid = child.pid().unwrap() as i32;
        drop(child); // spawns the ladder, which never gets polled
        pid
    });
    drop(rt);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    assert!(rt.block_on(wait_gone(pid)));
}

#[tokio::test]
async fn missing_program_is_not_found() {
    let err = ChildProcess::spawn(ProcessSpec::new("/nonexistent/agentdesk-nope")).unwrap_err();
    assert!(matches!(err, EngineError::NotFound { .. }), "{err}");
}

/// True once `pid` no longer exists or is a zombie (a container's PID 1 may never reap).
async fn wait_gone(pid: i32) -> bool {
    for _ in 0..100 {
        if !alive(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}

fn alive(pid: i32) -> bool {
    if let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        let state = stat
            .rsplit(')')
            .next()
            .and_then(|s| s.split_whitespace().next());
        return state != Some("Z") && state != Some("X");
    }
    // SAFETY: signal 0 only checks for existence.
    unsafe { libc::kill(pid, 0) == 0 }
}

#[tokio::test]
async fn the_engines_folder_goes_first_on_the_childs_path() {
    let mut spec = sh("echo \"$PATH\"");
    spec.path_first = vec![PathBuf::from("/engine/bin")];
    let path = env_of(spec.clone()).await;
    let entries: Vec<&str> = path.split(':').collect();
    assert_eq!(entries[0], "/engine/bin", "{path}");
    // The rest is the app's PATH (merged with the login shell's): it still holds /bin.
    assert!(
        entries.contains(&"/bin") || entries.contains(&"/usr/bin"),
        "{path}"
    );
    // A profile's own PATH replaces the inherited one; the engine's folder still leads, once.
    let profile = spec.env("PATH", "/engine/bin:/custom/bin:/usr/bin:/bin");
    assert_eq!(
        env_of(profile).await,
        "/engine/bin:/custom/bin:/usr/bin:/bin"
    );
    // Nothing inherited: nothing added.
    let mut empty = ProcessSpec::new("/usr/bin/env");
    empty.base_env = BaseEnv::Empty;
    empty.path_first = vec![PathBuf::from("/engine/bin")];
    assert_eq!(env_of(empty).await, "");
}

#[test]
fn windows_command_lines_are_measured_with_their_quoting() {
    use super::os::{check_command_line, windows_command_line_len, WINDOWS_MAX_COMMAND_LINE};
    let program = std::path::Path::new(r"C:\Program Files\nodejs\node.exe");
    let base = windows_command_line_len(program, &[]);
    let len = |arg: &str| windows_command_line_len(program, &[OsString::from(arg)]) - base;
    assert_eq!(len("-p"), 2 + 3);
    // Quotes and backslashes are escaped; UTF-16 units, not bytes.
    assert_eq!(len("a\"b\\"), 4 + 2 + 3);
    assert_eq!(len("ü"), 1 + 3);
    let prompt = OsString::from("x".repeat(WINDOWS_MAX_COMMAND_LINE));
    let args = [OsString::from("--append-system-prompt"), prompt];
    let err = check_command_line(program, &args).unwrap_err();
    assert!(err.to_string().contains("Windows allows 32767"), "{err}");
    assert!(check_command_line(program, &[OsString::from("-p")]).is_ok());
}

/// A child over its memory limit is stopped (its whole group) and its exit says why; one
/// under it is left alone.
#[cfg(any(target_os = "linux", target_os = "macos"))]
#[tokio::test]
async fn a_child_over_its_memory_limit_is_stopped_with_that_reason() {
    let mut spec = sh("sleep 30 & wait");
    spec.memory_limit = Some(1);
    let child = ChildProcess::spawn(spec).unwrap();
    let exit = tokio::time::timeout(Duration::from_secs(10), child.exit_watch().wait())
        .await
        .expect("the child was not stopped")
        .unwrap();
    let over = exit.over_memory.expect("no memory reason");
    assert_eq!(over.limit_bytes, 1);
    assert!(over.resident_bytes > 1, "{over:?}");
    let error = exit.to_error().to_string();
    assert!(
        error.starts_with("the engine was stopped: it used ")
            && error.contains("of memory, over its limit of 1 MB"),
        "{error}"
    );

    let mut spec = sh("exit 3");
    spec.memory_limit = Some(64 * 1024 * 1024 * 1024);
    let child = ChildProcess::spawn(spec).unwrap();
    let exit = child.exit_watch().wait().await.unwrap();
    assert_eq!(exit.over_memory, None);
    assert_eq!(exit.status.code, Some(3));
}
