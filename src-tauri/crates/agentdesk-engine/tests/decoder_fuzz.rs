//! Malformed engine output never panics a decoder or a translator.
//!
//! Property test over the real transcripts of both pinned engines: every line is mutated at
//! random (fields dropped, values swapped for other JSON types, strings emptied or made huge,
//! numbers made negative or enormous) and fed through the wire decoders and the translators
//! that build the timeline. Whatever comes in, the result is events or `Unknown`, never a
//! panic: a bad line from an engine must not take a session down.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::sync::LazyLock;

use agentdesk_engine::claude::ClaudeTranslator;
use agentdesk_engine::codex::TurnTranslator;
use agentdesk_protocol::claude::SdkMessage;
use agentdesk_protocol::codex::{ServerNotification, ServerRequest};
use proptest::prelude::*;
use serde_json::{json, Value};

fn fixtures(dir: &str, direction: &str) -> Vec<Value> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../tests/fixtures")
        .join(dir);
    let mut out = Vec::new();
    for entry in std::fs::read_dir(root).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "jsonl") {
            continue;
        }
        for line in std::fs::read_to_string(&path).unwrap().lines() {
            let Ok(v) = serde_json::from_str::<Value>(line) else {
                continue;
            };
            if v["dir"] == direction {
                out.push(v["msg"].clone());
            }
        }
    }
    assert!(!out.is_empty(), "no {direction} lines in fixtures/{dir}");
    out
}

static CODEX: LazyLock<Vec<Value>> = LazyLock::new(|| fixtures("codex", "s2c"));
static CLAUDE: LazyLock<Vec<Value>> = LazyLock::new(|| fixtures("claude", "out"));

/// A tiny deterministic generator, so a failing seed replays exactly.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() as usize) % n.max(1)
    }
}

fn odd_value(rng: &mut Rng) -> Value {
    match rng.below(9) {
        0 => Value::Null,
        1 => json!(true),
        2 => json!(-1),
        3 => json!(u64::MAX),
        4 => json!(1.5e300),
        5 => json!(""),
        6 => json!("x".repeat(10_000)),
        7 => json!([]),
        _ => json!({}),
    }
}

/// Replace or remove one node somewhere in `v` (walks a random path).
fn mutate(v: &mut Value, rng: &mut Rng, depth: usize) {
    let descend = depth < 6 && rng.below(3) != 0;
    match v {
        Value::Object(map) if !map.is_empty() => {
            let key = map
                .keys()
                .nth(rng.below(map.len()))
                .cloned()
                .unwrap_or_default();
            if descend {
                if let Some(child) = map.get_mut(&key) {
                    return mutate(child, rng, depth + 1);
                }
            }
            if rng.below(2) == 0 {
                map.remove(&key);
            } else {
                map.insert(key, odd_value(rng));
            }
        }
        Value::Array(items) if !items.is_empty() => {
            let i = rng.below(items.len());
            if descend {
                return mutate(&mut items[i], rng, depth + 1);
            }
            items[i] = odd_value(rng);
        }
        other => *other = odd_value(rng),
    }
}

fn mutated(corpus: &[Value], seed: u64, mutations: usize) -> Vec<Value> {
    let mut rng = Rng(seed);
    corpus
        .iter()
        .map(|line| {
            let mut v = line.clone();
            for _ in 0..=rng.below(mutations) {
                mutate(&mut v, &mut rng, 0);
            }
            v
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn codex_lines_never_panic(seed in any::<u64>(), mutations in 1usize..4) {
        let mut translator = TurnTranslator::new(None);
        translator.set_turn_id("turn".into());
        let mut out = Vec::new();
        for msg in mutated(&CODEX, seed, mutations) {
            let method = msg["method"].as_str().unwrap_or("").to_owned();
            if msg.get("id").is_some() && !method.is_empty() {
                let _ = ServerRequest::from_parts(&method, &msg["params"]);
            } else {
                translator.on_notification(ServerNotification::from_parts(&method, &msg["params"]), &mut out);
            }
        }
        translator.interrupted(&mut out);
    }

    #[test]
    fn claude_lines_never_panic(seed in any::<u64>(), mutations in 1usize..4) {
        let dir = tempfile::tempdir().unwrap();
        let mut translator = ClaudeTranslator::new(dir.path().to_path_buf(), None);
        let mut out = Vec::new();
        for msg in mutated(&CLAUDE, seed, mutations) {
            translator.on_message(SdkMessage::from_value(msg), &mut out);
        }
        translator.interrupted(&mut out);
    }
}
