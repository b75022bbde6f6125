//! Round-trip tests over the real claude 2.1.328 transcripts (`tests/fixtures/claude/`), both
//! directions: every line parses into a known variant (nothing in `Unknown` except what is
//! unknown on purpose) and re-serialises to the same JSON.

use std::path::PathBuf;

use serde_json::{json, Value};

use super::*;

fn fixtures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../tests/fixtures/claude")
}

/// `(dir, msg)` of every line of every transcript.
fn all_lines() -> Vec<(String, String, Value)> {
    let mut names: Vec<PathBuf> = std::fs::read_dir(fixtures_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    names.sort();
    assert!(names.len() >= 25, "transcripts missing: {names:?}");
    let mut out = Vec::new();
    for path in names {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        for line in std::fs::read_to_string(&path).unwrap().lines() {
            let v: Value = serde_json::from_str(line).unwrap();
            let dir = v["dir"].as_str().unwrap().to_owned();
            out.push((name.clone(), dir, v["msg"].clone()));
        }
    }
    out
}

/// null and absent are the same to us; integers and floats of equal value too.
fn normalize(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k.clone(), normalize(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(normalize).collect()),
        Value::Number(n) => json!(n.as_f64().unwrap()),
        other => other.clone(),
    }
}

fn assert_known(name: &str, msg: &SdkMessage, raw: &Value) {
    let unknown = |what: &str| panic!("{name}: {what} parsed as Unknown: {raw}");
    match msg {
        SdkMessage::Unknown(_) => unknown("message"),
        SdkMessage::System(SystemMessage::Unknown(_)) => unknown("system"),
        SdkMessage::StreamEvent(e) => match &e.event {
            RawStreamEvent::Unknown(_) => unknown("stream event"),
            RawStreamEvent::ContentBlockDelta(d) if matches!(d.delta, ContentDelta::Unknown(_)) => {
                unknown("delta")
            }
            RawStreamEvent::ContentBlockStart(s)
                if matches!(s.content_block, ContentBlock::Unknown(_)) =>
            {
                unknown("block")
            }
            _ => {}
        },
        SdkMessage::Assistant(a) => {
            let blocks = &a.message.content;
            assert!(
                !blocks.iter().any(|b| matches!(b, ContentBlock::Unknown(_))),
                "{name}: {raw}"
            );
        }
        SdkMessage::User(u) => {
            let blocks = u.blocks();
            assert!(
                !blocks.iter().any(|b| matches!(b, ContentBlock::Unknown(_))),
                "{name}: {raw}"
            );
        }
        SdkMessage::ControlRequest(r) => {
            // The probe sent one bogus subtype on purpose, and a few host→CLI subtypes we do
            // not model (get_context_usage, get_settings).
            let tag = r.request.tag().unwrap_or("");
            let modelled = !matches!(r.request, ControlRequestBody::Unknown(_));
            let expected_unknown = matches!(
                tag,
                "no_such_subtype" | "get_context_usage" | "get_settings"
            );
            assert_eq!(modelled, !expected_unknown, "{name}: {raw}");
        }
        SdkMessage::ControlResponse(r) if matches!(r.response, ControlResponseBody::Unknown(_)) => {
            unknown("control response")
        }
        _ => {}
    }
}

#[test]
fn every_transcript_line_round_trips_both_directions() {
    let mut counts = std::collections::BTreeMap::<String, usize>::new();
    for (name, dir, raw) in all_lines() {
        if dir != "in" && dir != "out" {
            continue;
        }
        let msg: SdkMessage = serde_json::from_value(raw.clone()).unwrap();
        assert_known(&name, &msg, &raw);
        let back = serde_json::to_value(&msg).unwrap();
        assert_eq!(
            normalize(&back),
            normalize(&raw),
            "{name}: {dir} line does not round-trip"
        );
        // from_value (the adapter's path) agrees with Deserialize.
        assert_eq!(SdkMessage::from_value(raw.clone()), msg);
        *counts
            .entry(format!("{dir}:{}", msg.tag().unwrap_or("?")))
            .or_default() += 1;
    }
    for key in [
        "in:user",
        "in:control_request",
        "in:control_response",
        "out:system",
        "out:stream_event",
        "out:assistant",
        "out:user",
        "out:result",
        "out:control_request",
        "out:control_response",
        "out:control_cancel_request",
    ] {
        assert!(
            counts.get(key).copied().unwrap_or(0) > 0,
            "no {key} in {counts:?}"
        );
    }
}

fn find(name: &str, pred: impl Fn(&SdkMessage) -> bool) -> SdkMessage {
    all_lines()
        .into_iter()
        .filter(|(n, d, _)| n == name && (d == "in" || d == "out"))
        .map(|(_, _, raw)| SdkMessage::from_value(raw))
        .find(|m| pred(m))
        .unwrap_or_else(|| panic!("not found in {name}"))
}

#[test]
fn typed_fields_of_the_interesting_messages() {
    let init = find("text.jsonl", |m| {
        matches!(m, SdkMessage::System(SystemMessage::Init(_)))
    });
    let SdkMessage::System(SystemMessage::Init(init)) = init else {
        unreachable!()
    };
    assert_eq!(init.model.as_deref(), Some("claude-sonnet-4-5"));
    assert!(init.tools.unwrap().iter().any(|t| t == "Bash"));

    let reply = find("text.jsonl", |m| {
        matches!(m, SdkMessage::ControlResponse(_))
    });
    let SdkMessage::ControlResponse(ControlResponse {
        response: ControlResponseBody::Success(ok),
        ..
    }) = reply
    else {
        panic!("{reply:?}")
    };
    let init: InitializeResponse = serde_json::from_value(ok.response.unwrap()).unwrap();
    assert_eq!(
        init.claude_code_version.as_deref(),
        Some(PINNED_CLAUDE_VERSION)
    );
    assert!(init.account.unwrap().is_logged_in());

    let nokey = find("nokey.jsonl", |m| {
        matches!(m, SdkMessage::ControlResponse(_))
    });
    let SdkMessage::ControlResponse(ControlResponse {
        response: ControlResponseBody::Success(ok),
        ..
    }) = nokey
    else {
        unreachable!()
    };
    let init: InitializeResponse = serde_json::from_value(ok.response.unwrap()).unwrap();
    assert!(!init.account.unwrap().is_logged_in());

    let ask = find("ask.jsonl", |m| {
        matches!(
            m,
            SdkMessage::ControlRequest(ControlRequest {
                request: ControlRequestBody::CanUseTool(_),
                ..
            })
        )
    });
    let SdkMessage::ControlRequest(ControlRequest {
        request: ControlRequestBody::CanUseTool(c),
        ..
    }) = ask
    else {
        panic!("{ask:?}")
    };
    assert_eq!(c.tool_name, "AskUserQuestion");
    assert_eq!(c.requires_user_interaction, Some(true));

    let err = find("err500_noretry.jsonl", |m| {
        matches!(m, SdkMessage::Result(_))
    });
    let SdkMessage::Result(r) = err else {
        unreachable!()
    };
    assert_eq!(r.subtype, ResultSubtype::Success);
    assert!(r.is_error);
    assert_eq!(r.api_error_status, Some(500));
    assert_eq!(r.terminal_reason, Some(TerminalReason::ApiError));
    assert!(
        r.error_text().contains("API Error: 500"),
        "{}",
        r.error_text()
    );

    let resumed = find("resume.jsonl", |m| matches!(m, SdkMessage::Result(_)));
    let SdkMessage::Result(r) = resumed else {
        unreachable!()
    };
    // total_cost_usd is cumulative over the resumed session; the turn cost is half of it.
    assert_eq!(r.total_cost_usd, Some(0.00021));
    assert_eq!(r.turn_cost_usd(), Some(0.000105));

    let cancel = find("perm_interrupt.jsonl", |m| {
        matches!(m, SdkMessage::ControlCancelRequest(_))
    });
    assert!(matches!(cancel, SdkMessage::ControlCancelRequest(c) if !c.request_id.is_empty()));

    let hook = find("hooks.jsonl", |m| {
        matches!(
            m,
            SdkMessage::ControlRequest(ControlRequest {
                request: ControlRequestBody::HookCallback(_),
                ..
            })
        )
    });
    assert_eq!(hook.tag(), Some("control_request"));
}

#[test]
fn unknown_messages_and_subtypes_are_kept_verbatim() {
    for raw in [
        json!({"type": "brand_new", "x": 1}),
        json!({"type": "system", "subtype": "compact_boundary", "compact_metadata": {"pre_tokens": 5}}),
        json!({"type": "control_request", "request_id": "r1", "request": {"subtype": "elicit", "q": 1}}),
        json!({"type": "stream_event", "event": {"type": "content_block_delta", "index": 0, "delta": {"type": "citations_delta", "citation": {}}}}),
        json!({"type": "result", "subtype": "error_new_kind", "is_error": true, "session_id": "s", "terminal_reason": "novel"}),
        json!([1, 2, 3]),
    ] {
        let msg = SdkMessage::from_value(raw.clone());
        assert_eq!(serde_json::to_value(&msg).unwrap(), raw);
    }
    let r = SdkMessage::from_value(
        json!({"type": "result", "subtype": "error_new_kind", "is_error": true, "session_id": "s", "terminal_reason": "novel"}),
    );
    let SdkMessage::Result(r) = r else {
        panic!("{r:?}")
    };
    assert_eq!(r.subtype, ResultSubtype::Other("error_new_kind".into()));
    assert_eq!(
        r.terminal_reason,
        Some(TerminalReason::Other("novel".into()))
    );
    // A known type whose body does not fit is Unknown, not an error.
    let bad = SdkMessage::from_value(json!({"type": "result", "subtype": 5}));
    assert!(matches!(bad, SdkMessage::Unknown(_)));
}

#[test]
fn host_messages_serialise_as_the_sdk_sends_them() {
    let prompt = SdkMessage::User(UserMessage::prompt(vec![
        ContentBlock::text("what is this?"),
        ContentBlock::base64_image("image/png", "iVBOR"),
    ]));
    assert_eq!(
        serde_json::to_value(&prompt).unwrap(),
        json!({"type": "user", "session_id": "", "message": {"role": "user", "content": [
            {"type": "text", "text": "what is this?"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBOR"}}]}})
    );
    let init = SdkMessage::ControlRequest(ControlRequest::new(
        "req_1_abc",
        ControlRequestBody::Initialize(InitializeRequest::default()),
    ));
    assert_eq!(
        serde_json::to_value(&init).unwrap(),
        json!({"type": "control_request", "request_id": "req_1_abc", "request": {"subtype": "initialize", "hooks": null}})
    );
    let allow = PermissionResult::Allow(PermissionAllow {
        updated_input: json!({"command": "ls"}),
        updated_permissions: None,
        extra: Extra::new(),
    });
    assert_eq!(
        serde_json::to_value(&allow).unwrap(),
        json!({"behavior": "allow", "updatedInput": {"command": "ls"}})
    );
    let err = SdkMessage::ControlResponse(ControlResponse::error("x", "Unsupported"));
    assert_eq!(
        serde_json::to_value(&err).unwrap(),
        json!({"type": "control_response", "response": {"subtype": "error", "request_id": "x", "error": "Unsupported"}})
    );
}

/// The host's answers to the CLI's control requests, pinned to the JSON the adapter sent
/// when it built them with `json!`.
#[test]
fn answers_to_cli_requests_keep_their_wire_json() {
    assert_eq!(wire(&HookJsonOutput::CONTINUE), json!({"continue": true}));
    let request = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/list"});
    assert_eq!(
        wire(&McpMessageResponse::no_such_server("files", &request)),
        json!({"mcp_response": {"jsonrpc": "2.0", "id": 7, "error": {"code": -32601,
            "message": "Agent Desk has no in-process MCP server `files`"}}})
    );
    let notification = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(
        wire(&McpMessageResponse::no_such_server("files", &notification)),
        json!({"mcp_response": {"jsonrpc": "2.0", "result": {}}})
    );
    let deny = PermissionResult::Deny(PermissionDeny {
        message: "no".to_owned(),
        interrupt: Some(true),
        extra: Extra::new(),
    });
    assert_eq!(
        wire(&deny),
        json!({"behavior": "deny", "message": "no", "interrupt": true})
    );
    let ok = SdkMessage::ControlResponse(ControlResponse::success("r1", json!({"continue": true})));
    assert_eq!(
        wire(&ok),
        json!({"type": "control_response", "response": {"subtype": "success", "request_id": "r1",
            "response": {"continue": true}}})
    );
}

fn wire<T: serde::Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap()
}
