#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use agentdesk_protocol::claude::SdkMessage;
use serde_json::{json, Value};

use super::*;
use crate::claude::ClaudeTranslator;

fn decode(line: &str) -> ClaudeLine {
    ClaudeLines.decode(line).unwrap()
}

fn fixture_lines(name: &str) -> Vec<String> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../tests/fixtures/claude")
        .join(name);
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter_map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            (v["dir"] == "out").then(|| v["msg"].to_string())
        })
        .collect()
}

#[test]
fn text_and_thinking_deltas_take_the_fast_path() {
    let line = r#"{"type":"stream_event","event":{"type":"content_block_delta","index":2,"delta":{"type":"text_delta","text":"a \"quoted\" é\n"}},"session_id":"s","parent_tool_use_id":null,"uuid":"u"}"#;
    assert_eq!(
        decode(line),
        ClaudeLine::Delta {
            index: 2,
            thinking: false,
            text: "a \"quoted\" é\n".into()
        }
    );
    let line = r#"{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hmm"}}}"#;
    assert_eq!(
        decode(line),
        ClaudeLine::Delta {
            index: 0,
            thinking: true,
            text: "hmm".into()
        }
    );
}

#[test]
fn everything_else_takes_the_full_path_and_unknown_shapes_are_kept() {
    for v in [
        // Other deltas, a delta without its text, a field of the wrong type.
        json!({"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{"}}}),
        json!({"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta"}}}),
        json!({"type":"stream_event","event":{"type":"content_block_delta","index":"0","delta":{"type":"text_delta","text":"x"}}}),
        json!({"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"future_delta","text":"x"}}}),
        // Not a stream event, though it quotes the tag.
        json!({"type":"assistant","message":{"content":[{"type":"text","text":"\"content_block_delta\""}]}}),
        json!({"type":"brand_new","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}}}),
    ] {
        let line = v.to_string();
        assert_eq!(
            decode(&line),
            ClaudeLine::Message(Box::new(SdkMessage::from_value(v.clone()))),
            "{line}"
        );
    }
    assert!(ClaudeLines.decode("not json").is_err());
}

/// The fast path must never change what a run shows: every real transcript, translated from
/// the decoder's lines and from the full typed parse of every line, gives the same events.
#[test]
fn the_fast_path_translates_exactly_like_the_full_parse() {
    let mut fixtures = 0;
    for entry in std::fs::read_dir(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../tests/fixtures/claude"),
    )
    .unwrap()
    {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if !name.ends_with(".jsonl") {
            continue;
        }
        let lines = fixture_lines(&name);
        let (mut fast, mut full) = (Vec::new(), Vec::new());
        let mut a = ClaudeTranslator::new(PathBuf::from("/nonexistent"), None);
        let mut b = ClaudeTranslator::new(PathBuf::from("/nonexistent"), None);
        let mut deltas = 0;
        for line in &lines {
            let decoded = decode(line);
            deltas += usize::from(matches!(decoded, ClaudeLine::Delta { .. }));
            a.on_line(decoded, &mut fast);
            b.on_message(
                SdkMessage::from_value(serde_json::from_str(line).unwrap()),
                &mut full,
            );
        }
        assert_eq!(fast, full, "{name}");
        fixtures += usize::from(deltas > 0);
    }
    assert!(fixtures >= 3, "only {fixtures} transcripts had deltas");
}
