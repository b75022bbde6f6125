//! Issue 25's figures for remote workspaces (BENCHMARKS.md), measured against a real `sshd`
//! on 127.0.0.1 (`agentdesk_tests::sshd`). Not a timed test: `#[ignore]`d, it prints what it
//! measured.
//!
//! ```sh
//! cargo build --release -p agentdesk-tests --tests   # or run in debug, as noted
//! CODEX_BIN=$PWD/target/engines/codex/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex \
//!   cargo test --release -p agentdesk-tests --test remote_bench -- --ignored --nocapture --test-threads 1
//! # REMOTE_BENCH_ROUNDS=5 (default 3)
//! ```
//!
//! - **Added latency per event**: a line written to a child and echoed back (`cat`), one at a
//!   time, through the engine crate's own process path: local, and as a channel over the
//!   host's `ControlMaster` connection (what a remote engine is). The SSH hop is in both
//!   directions of a round trip; an engine event crosses it once, so the added latency per
//!   event is half the difference of the round trips (the full difference is printed too).
//! - **The 20,000-delta answer**: the real codex streaming a 20,000-piece answer from the
//!   fake Responses API, driven through the core (`Desk::send_message` → run completed, every
//!   delta stored), in a local workspace and in the same folder as a remote one.
// The suite's sshd and its process checks are Unix's.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use agentdesk_engine::process::{ChildProcess, ProcessSpec};
use agentdesk_engine::ssh::{RemoteHost, SshLink};
use agentdesk_protocol::remote::SshLocation;
use agentdesk_protocol::ui::Engine;
use agentdesk_tests::real::engine_bin;
use agentdesk_tests::sshd::{self, Sshd};
use agentdesk_tests::world::{fresh_root, World};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

const SUITE: &str = "remote bench";
const ECHOES: usize = 2_000;
const DELTAS: usize = 20_000;

fn rounds() -> usize {
    std::env::var("REMOTE_BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3)
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// Round trips (ms) of `ECHOES` lines through `cat` started from `spec`.
async fn echo_round_trips(spec: ProcessSpec) -> Vec<f64> {
    let mut child = ChildProcess::spawn(spec).unwrap();
    let (mut stdin, stdout) = child.take_stdio().unwrap();
    let mut lines = BufReader::new(stdout).lines();
    let mut out = Vec::with_capacity(ECHOES);
    // Warm-up: the channel is open and `cat` runs.
    stdin.write_all(b"warm\n").await.unwrap();
    lines.next_line().await.unwrap();
    for i in 0..ECHOES {
        let line =
            format!("{{\"type\":\"delta\",\"n\":{i},\"text\":\"some words of an answer\"}}\n");
        let t = Instant::now();
        stdin.write_all(line.as_bytes()).await.unwrap();
        lines.next_line().await.unwrap().unwrap();
        out.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    drop(stdin);
    child.stop().await;
    out.sort_by(f64::total_cmp);
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "benchmark: run with --ignored --nocapture"]
async fn added_latency_per_event() {
    assert!(sshd::unavailable().is_none(), "{:?}", sshd::unavailable());
    let root = fresh_root(env!("CARGO_TARGET_TMPDIR"), "remote_bench", "latency");
    let server = Sshd::start(env!("CARGO_TARGET_TMPDIR"), &root, "bench-echo", &[]);
    let loc = SshLocation::parse_url(&server.url(&root)).unwrap();
    let link = SshLink::open(RemoteHost::new(&loc, &root.join("ssh")))
        .await
        .unwrap();
    for round in 0..rounds() {
        let local = echo_round_trips(ProcessSpec::new("cat").cwd(&root)).await;
        let mut remote_spec = ProcessSpec::new("cat").cwd(&root);
        remote_spec.remote = Some(link.host.clone());
        let remote = echo_round_trips(remote_spec).await;
        let (l50, r50) = (percentile(&local, 0.5), percentile(&remote, 0.5));
        let (l95, r95) = (percentile(&local, 0.95), percentile(&remote, 0.95));
        println!(
            "round {round}: round trip local p50 {l50:.3} ms p95 {l95:.3} ms; over ssh p50 {r50:.3} ms p95 {r95:.3} ms; added per event (one way) p50 {:.3} ms p95 {:.3} ms (whole round-trip difference p50 {:.3} ms)",
            (r50 - l50) / 2.0,
            (r95 - l95) / 2.0,
            r50 - l50
        );
    }
    link.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "benchmark: run with --ignored --nocapture"]
async fn twenty_thousand_deltas_over_ssh() {
    assert!(sshd::unavailable().is_none(), "{:?}", sshd::unavailable());
    let bin = engine_bin("CODEX_BIN", SUITE).expect("CODEX_BIN");
    let pieces: Vec<String> = (0..DELTAS).map(|i| format!("word{} ", i % 97)).collect();
    let refs: Vec<&str> = pieces.iter().map(String::as_str).collect();
    let mut local_s = Vec::new();
    let mut remote_s = Vec::new();
    for round in 0..rounds() {
        for remote in [false, true] {
            let name = format!("{}-{round}", if remote { "ssh" } else { "local" });
            let root = fresh_root(env!("CARGO_TARGET_TMPDIR"), "remote_bench", &name);
            let server = remote.then(|| {
                Sshd::start(
                    env!("CARGO_TARGET_TMPDIR"),
                    &root,
                    &format!("bench-{name}"),
                    &[("codex", &bin)],
                )
            });
            let w = match &server {
                Some(s) => World::new_remote(root, Engine::Codex, &bin, s, |_| {}).await,
                None => World::new(root, Engine::Codex, &bin, None, |_| {}).await,
            };
            // The engine (and the connection) up first, as in a session already in use.
            w.push_text(&["ready"]);
            let warm = w.send("warm up").await;
            w.completed(&warm).await;
            w.push_text(&refs);
            let t = Instant::now();
            let run = w.send("Answer at length").await;
            w.completed(&run).await;
            let took = t.elapsed();
            let text = w.agent_messages().await.join("");
            assert!(
                text.ends_with(pieces.last().unwrap().as_str()),
                "the whole answer stored"
            );
            println!(
                "round {round} {name}: send → completed {:.3} s",
                took.as_secs_f64()
            );
            if remote {
                remote_s.push(took);
            } else {
                local_s.push(took);
            }
            tokio::time::timeout(Duration::from_secs(60), w.finish(&[]))
                .await
                .unwrap();
            drop(server);
        }
    }
    let med = |v: &mut Vec<Duration>| {
        v.sort();
        v[v.len() / 2].as_secs_f64()
    };
    let (l, r) = (med(&mut local_s), med(&mut remote_s));
    println!("median: local {l:.3} s, over ssh {r:.3} s = {:.2}×", r / l);
}
