//! Getting the window up fast: the page's commands wait for the store instead of the window
//! waiting for it, and the start-up timeline goes to the log.
//!
//! `setup` runs on the main thread inside the event loop's first iteration, after the window
//! and its webview exist but before WebKit has loaded anything: whatever it does there delays
//! the page (measured in BENCHMARKS.md, "Cold start"). So the store opens on a background
//! task, and every command the page sends before it is open waits in a [`Gate`], in arrival
//! order, instead of failing: no command ever sees a store that is not there yet.

use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use agentdesk_protocol::sync::lock;

/// Holds items (the page's commands) until it is opened, then lets everything through.
pub struct Gate<T> {
    /// `Some` while closed: what arrived so far, oldest first.
    waiting: Mutex<Option<Vec<T>>>,
}

impl<T> Default for Gate<T> {
    fn default() -> Self {
        Gate {
            waiting: Mutex::new(Some(Vec::new())),
        }
    }
}

impl<T> Gate<T> {
    /// `Some(item)` when the gate is open (run it now); `None` when it was kept for [`open`].
    ///
    /// [`open`]: Gate::open
    pub fn admit(&self, item: T) -> Option<T> {
        // Each critical section is a push or a take: a poisoned lock is still consistent.
        let mut waiting = lock(&self.waiting);
        match waiting.as_mut() {
            Some(queue) => {
                queue.push(item);
                None
            }
            None => Some(item),
        }
    }

    /// Opens the gate and returns what waited, in arrival order (empty the second time).
    pub fn open(&self) -> Vec<T> {
        lock(&self.waiting).take().unwrap_or_default()
    }
}

/// When this process started, on the wall clock. On Linux from `/proc/self/stat`, so the time
/// the loader spends mapping WebKit and GTK before `main` counts too (0.1–0.4 s measured).
pub fn process_start() -> SystemTime {
    let now = SystemTime::now();
    match process_age() {
        Some(age) => now.checked_sub(age).unwrap_or(now),
        None => now,
    }
}

#[cfg(target_os = "linux")]
fn process_age() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let uptime = std::fs::read_to_string("/proc/uptime").ok()?;
    age_from_proc(&stat, &uptime)
}

#[cfg(not(target_os = "linux"))]
fn process_age() -> Option<Duration> {
    None
}

/// The process's age from `/proc/self/stat` (start time, field 22, in clock ticks after boot)
/// and `/proc/uptime` (seconds after boot). Clock ticks are `USER_HZ`, which the kernel fixes
/// at 100 for user space on every architecture Tauri runs on. Linux only (its tests run
/// everywhere).
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn age_from_proc(stat: &str, uptime: &str) -> Option<Duration> {
    const USER_HZ: f64 = 100.0;
    // The command name (field 2) may hold spaces and parentheses: count after its last ')'.
    let after_name = &stat[stat.rfind(')')? + 1..];
    let ticks: f64 = after_name.split_whitespace().nth(19)?.parse().ok()?;
    let up: f64 = uptime.split_whitespace().next()?.parse().ok()?;
    let age = up - ticks / USER_HZ;
    (age >= 0.0).then(|| Duration::from_secs_f64(age))
}

/// Milliseconds from `start` to `epoch_ms` (a time on the page's clock, `performance.timeOrigin
/// + …`, which is the wall clock).
fn since(start: SystemTime, epoch_ms: f64) -> f64 {
    let start_ms = start
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64() * 1000.0)
        .unwrap_or(0.0);
    epoch_ms - start_ms
}

/// The process's start, kept for the page's report.
pub struct Started(pub SystemTime);

/// The page reports when it was painted (`performance.timeOrigin` and the first contentful
/// paint, both on the wall clock in ms): logged against the process's start, so every start
/// leaves its cold-start figure in the log.
pub fn window_painted(
    started: tauri::State<'_, Started>,
    navigation_start: f64,
    script_start: f64,
    first_paint: Option<f64>,
) {
    let at = started.0;
    tracing::info!(
        navigation_ms = since(at, navigation_start).round(),
        script_ms = since(at, script_start).round(),
        first_paint_ms = first_paint.map(|p| since(at, p).round()),
        "window painted (ms after the process started)"
    );
    // Start-up is over: the store is open (this command waited for it) and the page has its
    // first screen. What start-up allocated and freed on the way (the store's checks, the
    // page's first answers) goes back to the system instead of idling in the allocator's heaps
    // (0.8 MB when done by hand in an app idle for 10 s; at this earlier point the startup
    // bench cannot tell it from its noise: BENCHMARKS.md, issue 26). Off the main thread.
    tauri::async_runtime::spawn_blocking(|| {
        let gave_back = agentdesk_core::heap::give_back();
        tracing::debug!(gave_back, "start-up: heap trimmed");
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn what_arrives_before_open_waits_and_comes_out_in_order() {
        let gate = Gate::default();
        assert_eq!(gate.admit(1), None);
        assert_eq!(gate.admit(2), None);
        assert_eq!(gate.admit(3), None);
        assert_eq!(gate.open(), vec![1, 2, 3]);
        // Open: straight through, nothing kept.
        assert_eq!(gate.admit(4), Some(4));
        assert_eq!(gate.open(), Vec::<i32>::new());
    }

    #[test]
    fn nothing_is_lost_or_run_twice_when_commands_race_the_opening() {
        let gate = Arc::new(Gate::default());
        let senders: Vec<_> = (0..4)
            .map(|t| {
                let gate = Arc::clone(&gate);
                std::thread::spawn(move || {
                    (0..1000)
                        .filter_map(|i| gate.admit(t * 1000 + i))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        std::thread::sleep(Duration::from_millis(1));
        let mut seen = gate.open();
        for s in senders {
            seen.extend(s.join().unwrap());
        }
        seen.sort_unstable();
        assert_eq!(seen, (0..4000).collect::<Vec<_>>());
    }

    #[test]
    fn the_age_comes_from_the_start_field_after_the_command_name() {
        // A name with a space and a ')' (field 2), start time 250 ticks = 2.5 s after boot.
        let stat = "4242 (my (app) x) S 1 4242 4242 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 9 0 250 \
                    123456 789 18446744073709551615";
        let age = age_from_proc(stat, "12.75 40.00\n");
        assert_eq!(age, Some(Duration::from_secs_f64(10.25)));
        assert_eq!(age_from_proc("garbage", "1.0 1.0"), None);
        // A start after "now" (clock skew) is no age at all rather than a negative one.
        assert_eq!(age_from_proc(stat, "1.00 1.00"), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn this_process_has_an_age() {
        let age = process_age().unwrap();
        assert!(age < Duration::from_secs(24 * 3600), "{age:?}");
    }

    #[test]
    fn page_times_are_placed_after_the_start() {
        let start = UNIX_EPOCH + Duration::from_millis(1_000_000);
        assert_eq!(since(start, 1_000_250.0), 250.0);
    }
}
