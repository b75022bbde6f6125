//! Throughput of the Codex path: recorded app-server bytes → transport (framing) → RPC peer
//! (dispatch) → wire types → translator → canonical `AgentEvent`s, versus the raw
//! `serde_json` parse rate of the same bytes. Dependency-free harness (`harness = false`):
//! `cargo bench -p agentdesk-engine --bench codex_events`.
//!
//! The turn is s1_text from the real transcripts, with its answer stretched to `DELTAS`
//! `item/agentMessage/delta` notifications (a ~1.6 MB answer), like a long real answer.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use agentdesk_engine::codex::TurnTranslator;
use agentdesk_engine::{ForwardAll, PeerEvent, RpcConfig, RpcPeer, Transport, TransportConfig};
use agentdesk_protocol::codex::ServerNotification;
use serde_json::Value;
use tokio::io::AsyncWriteExt;

const DELTAS: usize = 200_000;
const ROUNDS: usize = 5;

/// s2c lines of the turn (after the turn/start response), answer stretched; and the turn id.
fn recorded_turn() -> (Vec<u8>, String) {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../tests/fixtures/codex/s1_text.jsonl"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let mut out = Vec::new();
    let mut turn_id = String::new();
    let mut in_turn = false;
    for line in text.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        if v["dir"] != "s2c" {
            continue;
        }
        let msg = &v["msg"];
        if msg["result"]["turn"]["id"].is_string() {
            turn_id = msg["result"]["turn"]["id"].as_str().unwrap().to_owned();
            in_turn = true;
            continue;
        }
        if !in_turn || msg.get("id").is_some() {
            continue;
        }
        if msg["method"] == "item/agentMessage/delta" {
            if msg["params"]["delta"] != "Hello " {
                continue;
            }
            for i in 0..DELTAS {
                let mut m = msg.clone();
                m["params"]["delta"] = Value::String(format!("word{:03} ", i % 1000));
                out.extend_from_slice(m.to_string().as_bytes());
                out.push(b'\n');
            }
            continue;
        }
        out.extend_from_slice(msg.to_string().as_bytes());
        out.push(b'\n');
    }
    (out, turn_id)
}

fn raw_parse(bytes: &[u8]) -> (usize, Duration) {
    let start = Instant::now();
    let mut n = 0;
    for line in bytes.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
        let v: Value = serde_json::from_slice(line).unwrap();
        n += usize::from(v.is_object());
    }
    (n, start.elapsed())
}

async fn through_adapter(bytes: Vec<u8>, turn_id: &str) -> (usize, usize, Duration) {
    let (mut engine_side, our_side) = tokio::io::duplex(1 << 16);
    let transport = Transport::new(our_side, tokio::io::sink(), &TransportConfig::default());
    let (_peer, mut events) = RpcPeer::start(transport, RpcConfig::codex(), ForwardAll, None);
    let start = Instant::now();
    let feeder = tokio::spawn(async move {
        engine_side.write_all(&bytes).await.unwrap();
        engine_side.shutdown().await.unwrap();
    });
    let mut translator = TurnTranslator::new(None);
    translator.set_turn_id(turn_id.to_owned());
    let (mut messages, mut canonical) = (0usize, 0usize);
    let mut out = Vec::with_capacity(16);
    while let Some(ev) = events.recv().await {
        match ev {
            PeerEvent::Notification(n) => {
                messages += 1;
                translator.on_notification(
                    ServerNotification::from_parts(&n.method, &n.params),
                    &mut out,
                );
                canonical += out.len();
                out.clear();
            }
            PeerEvent::Closed { .. } => break,
            _ => {}
        }
    }
    let elapsed = start.elapsed();
    feeder.await.unwrap();
    (messages, canonical, elapsed)
}

fn main() {
    let (bytes, turn_id) = recorded_turn();
    let mb = bytes.len() as f64 / 1e6;
    println!(
        "recorded turn: {} lines, {:.1} MB",
        bytes.iter().filter(|b| **b == b'\n').count(),
        mb
    );
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let mut best_raw = Duration::MAX;
    let mut best_adapter = Duration::MAX;
    let (mut msgs, mut events, mut lines) = (0, 0, 0);
    for _ in 0..ROUNDS {
        let (n, d) = raw_parse(&bytes);
        lines = n;
        best_raw = best_raw.min(d);
        let (m, e, d) = rt.block_on(through_adapter(bytes.clone(), &turn_id));
        (msgs, events) = (m, e);
        best_adapter = best_adapter.min(d);
    }
    let rate = |n: usize, d: Duration| n as f64 / d.as_secs_f64();
    println!(
        "raw serde_json::Value parse: {lines} lines in {best_raw:?} → {:.0} lines/s, {:.0} MB/s",
        rate(lines, best_raw),
        mb / best_raw.as_secs_f64()
    );
    println!(
        "transport+rpc+adapter: {msgs} notifications → {events} canonical events in {best_adapter:?} → {:.0} events/s, {:.0} MB/s",
        rate(events, best_adapter),
        mb / best_adapter.as_secs_f64()
    );
    assert!(events > DELTAS, "expected at least one event per delta");
}
