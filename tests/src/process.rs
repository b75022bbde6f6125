//! What the suites read about processes from `/proc`: whether an engine process has ended,
//! and this test process's memory; and the crash they simulate (`kill -9`).

// Test support: an unreadable /proc is a failed test, reported by the panic.
#![allow(clippy::unwrap_used)]

/// Whether process `pid` has ended (gone, or a zombie nobody reaped yet).
pub fn exited(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| {
            s.rsplit(')')
                .next()
                .unwrap_or("")
                .trim_start()
                .starts_with('Z')
        })
        .unwrap_or(true)
}

/// Whether process `pid` exists (a zombie not reaped yet counts): the engine crate's own check.
pub use agentdesk_engine::process::process_alive as alive;

/// `kill -9 pid`, which must succeed (an engine crash, as the suites simulate it).
pub fn kill9(pid: u32) {
    let status = std::process::Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success(), "kill -9 {pid}: {status}");
}

/// A `kB` field (`VmHWM:`, ...) of `/proc/<pid>/status` (`pid` may be `self`), in kB;
/// `None` once the process is gone.
pub fn status_kb(pid: &str, field: &str) -> Option<u64> {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()?
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
}

/// This process's resident set now and its peak since the last reset, in bytes.
pub fn rss() -> (u64, u64) {
    let field = |name: &str| status_kb("self", name).unwrap() * 1024;
    (field("VmRSS:"), field("VmHWM:"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_runs_and_has_memory() {
        assert!(!exited(std::process::id()));
        let (now, peak) = rss();
        assert!(now > 0 && peak >= now, "{now} {peak}");
    }
}
