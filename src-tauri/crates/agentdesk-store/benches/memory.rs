//! Resident memory with 20 sessions of 10,000 items each:
//! `cargo bench -p agentdesk-store --bench memory`.
//!
//! RSS cannot be sampled by divan, so this is a plain bench target that reads
//! `/proc/self/status`. The database is seeded by a child process (so the seeding's SQLite
//! caches do not count) and kept under `target/bench-data/rss-20x10k`. Then, in this process:
//! 1. open the store and load the first screenful (100 items) of every session — what the app
//!    does when it starts and the user goes through the sidebar;
//! 2. load every session's whole timeline into memory and keep it — the worst case of all 20
//!    sessions open at once with every item materialised.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support.rs"]
mod support;

use agentdesk_store::Store;

const SESSIONS: usize = 20;
const ITEMS: usize = 10_000;

fn status_kib(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

fn main() {
    let dir = support::bench_data_dir().join("rss-20x10k");
    let rt = support::runtime();
    if std::env::args().any(|a| a == "--seed") {
        rt.block_on(support::seed(Some(dir), SESSIONS, ITEMS));
        return;
    }
    if !cfg!(target_os = "linux") {
        eprintln!("memory bench: needs /proc (Linux)");
        return;
    }
    let exe = std::env::current_exe().unwrap();
    let status = std::process::Command::new(exe)
        .arg("--seed")
        .status()
        .unwrap();
    assert!(status.success(), "seeding failed");

    let base = status_kib("VmRSS:");
    let (after_screens, after_all, items) = rt.block_on(async {
        let store = Store::open_in_dir(&dir).await.unwrap();
        let mut screens = Vec::new();
        for s in 0..SESSIONS {
            screens.push(
                store
                    .load_timeline(&format!("s{s}").into(), None, 100)
                    .await
                    .unwrap(),
            );
        }
        let after_screens = status_kib("VmRSS:");
        let mut all = Vec::new();
        for s in 0..SESSIONS {
            all.push(store.session_items(&format!("s{s}").into()).await.unwrap());
        }
        let after_all = status_kib("VmRSS:");
        let items: usize = all.iter().map(Vec::len).sum();
        drop(screens);
        store.close().await;
        (after_screens, after_all, items)
    });
    assert_eq!(items, SESSIONS * ITEMS);
    println!("{SESSIONS} sessions × {ITEMS} items ({items} items, ~130 bytes of text each)");
    println!(
        "RSS before opening the store:                 {:7.1} MiB",
        mib(base)
    );
    println!(
        "RSS after first screenful of every session:   {:7.1} MiB",
        mib(after_screens)
    );
    println!(
        "RSS with all {items} items in memory:       {:7.1} MiB",
        mib(after_all)
    );
    println!(
        "peak RSS (VmHWM):                             {:7.1} MiB",
        mib(status_kib("VmHWM:"))
    );
}
