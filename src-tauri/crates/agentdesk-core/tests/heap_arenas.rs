//! `heap::limit_arenas` really bounds glibc's arenas: counted with `malloc_info` in a fresh
//! process (this test binary run again), once with the limit and once without, so the count
//! is shown to see the arenas threads create.
#![cfg(all(target_os = "linux", target_env = "gnu"))]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;
use std::sync::{Arc, Barrier};

use agentdesk_core::heap::{self, ArenaLimit};

/// Set in the child run: "limit", "default" or "user" (the user set their own limit).
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

/// The child's work; a no-op in a normal run.
#[test]
fn child() {
    let Ok(mode) = std::env::var(MODE) else {
        return;
    };
    match mode.as_str() {
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

fn count_in_child(mode: &str) -> usize {
    let stdout = run_child(mode, &[]);
    // libtest prints the test's name on the same line, before the output.
    stdout
        .split_once("ARENAS=")
        .and_then(|(_, rest)| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count in the child's output: {stdout}"))
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
