//! Throughput of the Claude path: recorded CLI stdout bytes → transport (framing) → wire types
//! (`SdkMessage`) → translator → canonical `AgentEvent`s, versus the raw `serde_json` parse rate
//! of the same bytes. Dependency-free harness (`harness = false`):
//! `cargo bench -p agentdesk-engine --bench claude_events`.
//!
//! The turn is `text.jsonl` from the real claude 2.1.328 transcripts, with its answer stretched
//! to `DELTAS` `stream_event` text deltas (each one a full CLI line with session id and uuid),
//! like a long real answer.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::time::{Duration, Instant};

use agentdesk_engine::claude::ClaudeTranslator;
use agentdesk_engine::{Inbound, Transport, TransportConfig};
use agentdesk_protocol::claude::SdkMessage;
use serde_json::Value;
use tokio::io::AsyncWriteExt;

const DELTAS: usize = 200_000;
const ROUNDS: usize = 5;

/// The CLI's stdout for the turn (after the user message), answer stretched.
fn recorded_turn() -> Vec<u8> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../tests/fixtures/claude/text.jsonl"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let mut out = Vec::new();
    let mut in_turn = false;
    let mut stretched = false;
    for line in text.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        if v["dir"] == "in" && v["msg"]["type"] == "user" {
            in_turn = true;
        }
        if !in_turn || v["dir"] != "out" {
            continue;
        }
        let msg = &v["msg"];
        if msg["event"]["delta"]["type"] == "text_delta" {
            if stretched {
                continue;
            }
            stretched = true;
            for i in 0..DELTAS {
                let mut m = msg.clone();
                m["event"]["delta"]["text"] = Value::String(format!("word{:03} ", i % 1000));
                m["uuid"] = Value::String(format!("{:08x}-0000-4000-8000-{i:012x}", i));
                out.extend_from_slice(m.to_string().as_bytes());
                out.push(b'\n');
            }
            continue;
        }
        out.extend_from_slice(msg.to_string().as_bytes());
        out.push(b'\n');
    }
    out
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

async fn through_adapter(bytes: Vec<u8>) -> (usize, usize, Duration) {
    let (mut engine_side, our_side) = tokio::io::duplex(1 << 16);
    let transport = Transport::new(our_side, tokio::io::sink(), &TransportConfig::default());
    let (_writer, mut inbound, _reader) = transport.into_parts();
    let start = Instant::now();
    let feeder = tokio::spawn(async move {
        engine_side.write_all(&bytes).await.unwrap();
        engine_side.shutdown().await.unwrap();
    });
    let mut translator = ClaudeTranslator::new(PathBuf::from("/nonexistent"), None);
    let (mut messages, mut canonical) = (0usize, 0usize);
    let mut out = Vec::with_capacity(16);
    while let Some(item) = inbound.recv().await {
        if let Inbound::Message(v) = item {
            messages += 1;
            translator.on_message(SdkMessage::from_value(v), &mut out);
            canonical += out.len();
            out.clear();
        }
    }
    let elapsed = start.elapsed();
    feeder.await.unwrap();
    assert!(translator.outcome().is_some(), "the turn did not end");
    (messages, canonical, elapsed)
}

fn main() {
    let bytes = recorded_turn();
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
        let (m, e, d) = rt.block_on(through_adapter(bytes.clone()));
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
        "transport+SdkMessage+translator: {msgs} messages → {events} canonical events in {best_adapter:?} → {:.0} events/s, {:.0} MB/s",
        rate(events, best_adapter),
        mb / best_adapter.as_secs_f64()
    );
    assert!(events > DELTAS, "expected at least one event per delta");
}
