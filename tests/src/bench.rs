//! What the window benches (`chat_bench`, `startup_bench`) share: finding the app process and
//! when it started, and the text of the items they seed.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

/// The app process of one environment: the app binary with this data dir in its environment.
pub fn find_app(app: &Path, data_dir: &Path) -> Option<u32> {
    let app = std::fs::canonicalize(app).ok()?;
    let needle = format!("AGENTDESK_DATA_DIR={}", data_dir.display());
    std::fs::read_dir("/proc")
        .ok()?
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .find(|pid| {
            std::fs::read_link(format!("/proc/{pid}/exe"))
                .ok()
                .as_deref()
                == Some(app.as_path())
                && std::fs::read(format!("/proc/{pid}/environ"))
                    .map(|env| env.split(|b| *b == 0).any(|kv| kv == needle.as_bytes()))
                    .unwrap_or(false)
        })
}

/// Milliseconds since the epoch at which `pid` started: its start time in clock ticks after
/// boot (`/proc/<pid>/stat`), placed on the wall clock through `/proc/uptime` (`btime` in
/// `/proc/stat` is whole seconds, too coarse for a start-up measured in milliseconds).
pub fn start_epoch_ms(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let after = &stat[stat.rfind(')').unwrap() + 1..];
    let ticks: f64 = after.split_whitespace().nth(19).unwrap().parse().unwrap();
    let up: f64 = std::fs::read_to_string("/proc/uptime")
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64();
    (now - up + ticks / 100.0) * 1000.0
}

/// The text of seeded item `i` (the benches look for the last one to know a session is shown).
pub fn seeded_text(i: usize) -> String {
    format!("seeded item {i}: the build ran, a test failed, the fix is in module {i}")
}
