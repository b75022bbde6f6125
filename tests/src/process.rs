//! What the suites read about processes from `/proc`: whether an engine process has ended,
//! and this test process's memory.

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

/// This process's resident set now and its peak since the last reset, in bytes.
pub fn rss() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .unwrap()
            * 1024
    };
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
