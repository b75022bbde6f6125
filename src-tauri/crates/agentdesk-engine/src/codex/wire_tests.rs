#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use serde_json::{json, Value};

use super::*;

fn decode(line: &str) -> RpcLine {
    CodexLines.decode(line).unwrap()
}

/// The fast path must give exactly what the generic path gives: for every server → client
/// line of every real transcript, a typed delta equals `from_parts` of its JSON, and
/// everything else stays JSON, unchanged.
#[test]
fn the_fast_path_equals_the_generic_parse_on_every_transcript_line() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../tests/fixtures/codex");
    let (mut typed, mut lines) = (0, 0);
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("jsonl") {
            continue;
        }
        for l in std::fs::read_to_string(&path).unwrap().lines() {
            let v: Value = serde_json::from_str(l).unwrap();
            if v["dir"] != "s2c" {
                continue;
            }
            lines += 1;
            let msg = &v["msg"];
            match decode(&msg.to_string()) {
                RpcLine::Notification(n) => {
                    typed += 1;
                    let method = msg["method"].as_str().unwrap();
                    assert_eq!(
                        n,
                        ServerNotification::from_parts(method, &msg["params"]),
                        "{l}"
                    );
                    assert!(msg.get("id").is_none());
                }
                RpcLine::Json(j) => assert_eq!(&j, msg, "{}", path.display()),
            }
        }
    }
    assert!(lines > 100 && typed > 10, "{typed} typed of {lines} lines");
}

#[test]
fn each_delta_method_is_typed_and_odd_shapes_stay_json() {
    let params = json!({"threadId": "t", "turnId": "u", "itemId": "i", "delta": "a\\n\"b\""});
    for method in [
        "item/agentMessage/delta",
        "item/commandExecution/outputDelta",
        "item/reasoning/textDelta",
        "item/reasoning/summaryTextDelta",
    ] {
        let line = json!({"method": method, "params": params, "emittedAtMs": 1}).to_string();
        match decode(&line) {
            RpcLine::Notification(n) => {
                assert_eq!(n, ServerNotification::from_parts(method, &params))
            }
            other => panic!("{method}: {other:?}"),
        }
    }
    for v in [
        // A request (has an id), a missing field, a field of the wrong type, another method.
        json!({"id": 3, "method": "item/agentMessage/delta", "params": params}),
        json!({"method": "item/agentMessage/delta", "params": {"threadId": "t", "turnId": "u", "itemId": "i"}}),
        json!({"method": "item/agentMessage/delta", "params": {"threadId": "t", "turnId": "u", "itemId": 5, "delta": "x"}}),
        json!({"method": "item/plan/delta", "params": params}),
        json!({"method": "item/fileChange/outputDelta", "params": params}),
    ] {
        assert_eq!(decode(&v.to_string()), RpcLine::Json(v.clone()), "{v}");
    }
    assert!(CodexLines.decode("not json").is_err());
}
