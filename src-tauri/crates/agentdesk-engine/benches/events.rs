//! Events per second through each engine adapter, against the raw `serde_json` parse rate of
//! the same bytes (divan): `cargo bench -p agentdesk-engine --bench events`.
//!
//! Inputs are real turns from the pinned engines' transcripts (`tests/fixtures/`), with the
//! answer stretched to `DELTAS` text deltas (each one a full wire line, ids and all), like a
//! long real answer:
//! - Codex: app-server stdout → transport with the Codex decoder (`CodexLines`: deltas straight
//!   into their typed `ServerNotification`, everything else JSON) → RPC peer →
//!   `TurnTranslator` → canonical `AgentEvent`s.
//! - Claude: CLI stdout → transport with the Claude decoder (`ClaudeLines`: deltas straight
//!   into borrowed structs, everything else → `SdkMessage`) → `ClaudeTranslator` → `AgentEvent`s.
//!
//! Each benchmark reports bytes/s and items/s (lines for the raw parse, canonical events for
//! the adapters); the ratio of the two is the adapter's overhead over parsing alone.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::sync::LazyLock;

use agentdesk_engine::claude::{ClaudeLines, ClaudeTranslator};
use agentdesk_engine::codex::{CodexLines, TurnTranslator};
use agentdesk_engine::{
    ForwardAll, Inbound, PeerEvent, RpcConfig, RpcPeer, Transport, TransportConfig,
};
use agentdesk_protocol::codex::ServerNotification;
use divan::counter::{BytesCount, ItemsCount};
use divan::Bencher;
use serde_json::Value;
use tokio::io::AsyncWriteExt;

const DELTAS: usize = 200_000;

fn main() {
    divan::main();
}

fn fixture(rel: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../tests/fixtures")
        .join(rel);
    std::fs::read_to_string(path).unwrap()
}

/// Codex: the s2c lines of s1_text after the turn/start response, and the turn id.
static CODEX_TURN: LazyLock<(Vec<u8>, String)> = LazyLock::new(|| {
    let mut out = Vec::new();
    let mut turn_id = String::new();
    let mut in_turn = false;
    for line in fixture("codex/s1_text.jsonl").lines() {
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
});

/// Claude: the CLI's stdout of text.jsonl after the user message.
static CLAUDE_TURN: LazyLock<Vec<u8>> = LazyLock::new(|| {
    let mut out = Vec::new();
    let (mut in_turn, mut stretched) = (false, false);
    for line in fixture("claude/text.jsonl").lines() {
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
                m["uuid"] = Value::String(format!("{i:08x}-0000-4000-8000-{i:012x}"));
                out.extend_from_slice(m.to_string().as_bytes());
                out.push(b'\n');
            }
            continue;
        }
        out.extend_from_slice(msg.to_string().as_bytes());
        out.push(b'\n');
    }
    out
});

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

fn raw_parse(bytes: &[u8]) -> usize {
    let mut n = 0;
    for line in bytes.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
        let v: Value = serde_json::from_slice(line).unwrap();
        n += usize::from(v.is_object());
    }
    n
}

/// Feeds `bytes` as the app-server's stdout; returns the number of canonical events.
async fn codex_adapter(bytes: Vec<u8>, turn_id: String) -> usize {
    let (mut engine_side, our_side) = tokio::io::duplex(1 << 16);
    let transport = Transport::with_decoder(
        our_side,
        tokio::io::sink(),
        &TransportConfig::default(),
        CodexLines,
    );
    let (_peer, mut events) = RpcPeer::start(transport, RpcConfig::codex(), ForwardAll, None);
    let feeder = tokio::spawn(async move {
        engine_side.write_all(&bytes).await.unwrap();
        engine_side.shutdown().await.unwrap();
    });
    let mut translator = TurnTranslator::new(None);
    translator.set_turn_id(turn_id);
    let (mut canonical, mut out) = (0, Vec::with_capacity(16));
    while let Some(ev) = events.recv().await {
        match ev {
            PeerEvent::Notification(n) => {
                translator.on_notification(
                    ServerNotification::from_parts(&n.method, &n.params),
                    &mut out,
                );
                canonical += out.len();
                out.clear();
            }
            PeerEvent::Typed(n) => {
                translator.on_notification(n, &mut out);
                canonical += out.len();
                out.clear();
            }
            PeerEvent::Closed { .. } => break,
            _ => {}
        }
    }
    feeder.await.unwrap();
    canonical
}

/// Feeds `bytes` as the CLI's stdout; returns the number of canonical events.
async fn claude_adapter(bytes: Vec<u8>) -> usize {
    let (mut engine_side, our_side) = tokio::io::duplex(1 << 16);
    let transport = Transport::with_decoder(
        our_side,
        tokio::io::sink(),
        &TransportConfig::default(),
        ClaudeLines,
    );
    let (_writer, mut inbound, _reader) = transport.into_parts();
    let feeder = tokio::spawn(async move {
        engine_side.write_all(&bytes).await.unwrap();
        engine_side.shutdown().await.unwrap();
    });
    let mut translator = ClaudeTranslator::new(PathBuf::from("/nonexistent"), None);
    let (mut canonical, mut out) = (0, Vec::with_capacity(16));
    while let Some(item) = inbound.recv().await {
        if let Inbound::Message(line) = item {
            translator.on_line(line, &mut out);
            canonical += out.len();
            out.clear();
        }
    }
    feeder.await.unwrap();
    assert!(translator.outcome().is_some(), "the turn did not end");
    canonical
}

fn lines(bytes: &[u8]) -> usize {
    bytes.iter().filter(|b| **b == b'\n').count()
}

#[divan::bench(sample_count = 8, sample_size = 1)]
fn codex_raw_parse(b: Bencher) {
    let (bytes, _) = &*CODEX_TURN;
    b.counter(BytesCount::of_slice(bytes))
        .counter(ItemsCount::new(lines(bytes)))
        .bench(|| raw_parse(bytes));
}

#[divan::bench(sample_count = 8, sample_size = 1)]
fn codex_adapter_events(b: Bencher) {
    let (bytes, turn_id) = &*CODEX_TURN;
    let rt = runtime();
    let events = rt.block_on(codex_adapter(bytes.clone(), turn_id.clone()));
    assert!(events > DELTAS, "expected at least one event per delta");
    b.counter(BytesCount::of_slice(bytes))
        .counter(ItemsCount::new(events))
        .with_inputs(|| (bytes.clone(), turn_id.clone()))
        .bench_values(|(bytes, turn_id)| rt.block_on(codex_adapter(bytes, turn_id)));
}

#[divan::bench(sample_count = 8, sample_size = 1)]
fn claude_raw_parse(b: Bencher) {
    let bytes = &*CLAUDE_TURN;
    b.counter(BytesCount::of_slice(bytes))
        .counter(ItemsCount::new(lines(bytes)))
        .bench(|| raw_parse(bytes));
}

#[divan::bench(sample_count = 8, sample_size = 1)]
fn claude_adapter_events(b: Bencher) {
    let bytes = &*CLAUDE_TURN;
    let rt = runtime();
    let events = rt.block_on(claude_adapter(bytes.clone()));
    assert!(events > DELTAS, "expected at least one event per delta");
    b.counter(BytesCount::of_slice(bytes))
        .counter(ItemsCount::new(events))
        .with_inputs(|| bytes.clone())
        .bench_values(|bytes| rt.block_on(claude_adapter(bytes)));
}
