//! `heap::limit_arenas` really bounds glibc's arenas: counted with `malloc_info` in a fresh
//! process (this test binary run again), once with the limit and once without, so the count
//! is shown to see the arenas threads create. `heap::give_back` really returns free memory
//! that glibc keeps: the process's resident anonymous memory, before and after, in a fresh
//! process too.
#![cfg(all(target_os = "linux", target_env = "gnu"))]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;
use std::sync::{Arc, Barrier};

use agentdesk_core::heap::{self, ArenaLimit};

/// Set in the child run: "limit", "default", "user" (the user set their own limit) or "trim".
const MODE: &str = "AGENTDESK_HEAP_TEST_MODE";
const THREADS: usize = 8;

/// The heaps `malloc_info` reports (one `<heap nr="…">` per arena).
fn arenas() -> usize {
    let mut buf: *mut libc::c_char = std::ptr::null_mut();
    let mut len: libc::size_t = 0;
    // SAFETY: open_memstream writes the buffer's address and length at fclose; the buffer is
    // read once, then freed with free as its manual says.
    unsafe {
        let stream = libc::open_memstream(&mut buf, &mut len);
        assert!(!stream.is_null(), "open_memstream");
        assert_eq!(libc::malloc_info(0, stream), 0, "malloc_info");
        libc::fclose(stream);
        let xml = std::slice::from_raw_parts(buf as *const u8, len);
        let count = String::from_utf8_lossy(xml).matches("<heap nr=").count();
        libc::free(buf.cast());
        count
    }
}

/// Threads that all allocate while all are alive: glibc gives each new thread an arena of
/// its own while it is under the limit.
fn allocate_on_threads() {
    let barrier = Arc::new(Barrier::new(THREADS));
    let threads: Vec<_> = (0..THREADS)
        .map(|i| {
            let barrier = Arc::clone(&barrier);
            std::thread::spawn(move || {
                let held = vec![i as u8; 4096 + i];
                barrier.wait();
                std::hint::black_box(&held);
                barrier.wait();
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
}

/// The process's resident anonymous memory, in kB (`RssAnon` of /proc/self/status).
fn rss_anon_kb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("RssAnon:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap()
}

/// 32 MB in blocks below the mmap threshold (so from the heap), written, then freed while a
/// block allocated after them stays: `free` cannot shrink the heap from its top, so glibc
/// keeps the 32 MB until something trims it.
fn trim_what_runs_freed() {
    let blocks: Vec<Vec<u8>> = (0..4096).map(|i| vec![i as u8; 8192]).collect();
    let pinned = vec![1u8; 8192];
    drop(blocks);
    let before = rss_anon_kb();
    let started = std::time::Instant::now();
    let gave_back = heap::give_back();
    let took = started.elapsed();
    let after = rss_anon_kb();
    std::hint::black_box(&pinned);
    println!("TRIM={gave_back} BEFORE={before} AFTER={after} TOOK={took:?}");
}

/// The child's work; a no-op in a normal run.
#[test]
fn child() {
    let Ok(mode) = std::env::var(MODE) else {
        return;
    };
    match mode.as_str() {
        "trim" => {
            trim_what_runs_freed();
            return;
        }
        "user" => {
            println!("LIMIT={:?}", heap::limit_arenas());
            return;
        }
        "limit" => assert_eq!(heap::limit_arenas(), ArenaLimit::Set),
        _ => {}
    }
    allocate_on_threads();
    println!("ARENAS={}", arenas());
}

/// Runs [`child`] again in a fresh process, with `MODE` set to `mode` and the given
/// variables; its standard output.
fn run_child(mode: &str, env: &[(&str, &str)]) -> String {
    let exe = std::env::current_exe().unwrap();
    let out = Command::new(exe)
        .args(["--exact", "child", "--nocapture", "--test-threads", "1"])
        .env_remove("MALLOC_ARENA_MAX")
        .env_remove("GLIBC_TUNABLES")
        .env(MODE, mode)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "child ({mode}) failed: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// The number the child printed as `NAME=<n>`.
fn field(stdout: &str, name: &str) -> u64 {
    // libtest prints the test's name on the same line, before the output.
    stdout
        .split_once(&format!("{name}="))
        .and_then(|(_, rest)| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no {name} in the child's output: {stdout}"))
}

fn count_in_child(mode: &str) -> usize {
    field(&run_child(mode, &[]), "ARENAS") as usize
}

#[test]
fn threads_share_two_arenas_once_limited() {
    let default = count_in_child("default");
    let limited = count_in_child("limit");
    assert!(
        default > heap::ARENAS as usize,
        "without the limit {THREADS} threads should have arenas of their own: {default}"
    );
    assert!(
        limited <= heap::ARENAS as usize,
        "with the limit: {limited} arenas, at most {} expected",
        heap::ARENAS
    );
}

/// A limit the user set is theirs (`MALLOC_ARENA_MAX` in the environment).
#[test]
fn the_users_setting_stands() {
    let stdout = run_child("user", &[("MALLOC_ARENA_MAX", "6")]);
    assert!(stdout.contains("LIMIT=UserChose"), "{stdout}");
}

/// Freed memory the heap kept goes back to the system.
#[test]
fn what_runs_freed_goes_back() {
    let stdout = run_child("trim", &[]);
    let (before, after) = (field(&stdout, "BEFORE"), field(&stdout, "AFTER"));
    assert!(stdout.contains("TRIM=true"), "{stdout}");
    assert!(
        after + 24_000 < before,
        "32 MB freed but kept: {before} kB resident before the trim, {after} kB after"
    );
}
