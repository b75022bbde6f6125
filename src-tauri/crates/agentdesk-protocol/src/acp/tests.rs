//! Wire shapes as opencode 1.18.33 and Gemini CLI 0.61.0 send them (from their transcripts).

use super::*;
use serde_json::json;

fn update(v: Value) -> SessionUpdate {
    serde_json::from_value::<SessionNotification>(json!({"sessionId": "s", "update": v}))
        .unwrap()
        .update
}

#[test]
fn updates_read_by_their_tag() {
    let u = update(
        json!({"sessionUpdate": "agent_message_chunk", "messageId": "m1",
        "content": {"type": "text", "text": "Hello "}}),
    );
    let SessionUpdate::AgentMessageChunk(c) = u else {
        panic!("{u:?}")
    };
    assert_eq!(c.content.as_text(), Some("Hello "));
    assert_eq!(c.message_id.as_deref(), Some("m1"));
    let u = update(
        json!({"sessionUpdate": "tool_call", "toolCallId": "call_1", "title": "write",
        "kind": "edit", "status": "pending", "locations": [], "rawInput": {}}),
    );
    let SessionUpdate::ToolCall(t) = u else {
        panic!("{u:?}")
    };
    assert_eq!(t.kind, Some(ToolKind::Edit));
    assert_eq!(t.status, Some(ToolCallStatus::Pending));
    let u = update(
        json!({"sessionUpdate": "usage_update", "used": 10, "size": 128000,
        "cost": {"amount": 0, "currency": "USD"}}),
    );
    assert!(matches!(
        u,
        SessionUpdate::UsageUpdate(UsageUpdate { used: Some(10), .. })
    ));
}

#[test]
fn unknown_kinds_and_shapes_are_kept_whole() {
    let v = json!({"sessionUpdate": "brand_new", "x": 1});
    assert_eq!(update(v.clone()), SessionUpdate::Unknown(v.clone()));
    assert_eq!(
        serde_json::to_value(SessionUpdate::Unknown(v.clone())).unwrap(),
        v
    );
    // A known kind with a field of the wrong type is not lost either.
    let odd = json!({"sessionUpdate": "tool_call", "toolCallId": 5});
    assert_eq!(update(odd.clone()), SessionUpdate::Unknown(odd));
    let c: ContentBlock = serde_json::from_value(json!({"type": "audio", "data": "x"})).unwrap();
    assert!(matches!(c, ContentBlock::Unknown(_)));
    let t: ToolCallContent =
        serde_json::from_value(json!({"type": "terminal", "terminalId": "t"})).unwrap();
    assert!(matches!(t, ToolCallContent::Unknown(_)));
    let k: ToolKind = serde_json::from_value(json!("teleport")).unwrap();
    assert_eq!(k, ToolKind::Unknown("teleport".into()));
    let r: PromptResponse = serde_json::from_value(json!({"stopReason": "overheated"})).unwrap();
    assert_eq!(r.stop_reason.as_str(), "overheated");
}

#[test]
fn permission_request_and_answers() {
    let r: RequestPermissionRequest = serde_json::from_value(json!({"sessionId": "s",
        "options": [{"optionId": "proceed_always", "name": "Allow for this session", "kind": "allow_always"},
                    {"optionId": "proceed_once", "name": "Allow", "kind": "allow_once"},
                    {"optionId": "cancel", "name": "Reject", "kind": "reject_once"}],
        "toolCall": {"toolCallId": "w", "status": "pending", "title": "Writing to hello.txt",
            "content": [{"type": "diff", "path": "/tmp/ws/hello.txt", "oldText": "", "newText": "hi\n",
                "_meta": {"kind": "add"}}],
            "locations": [{"path": "/tmp/ws/hello.txt"}], "kind": "edit"}}))
    .unwrap();
    assert_eq!(r.options[0].kind, PermissionOptionKind::AllowAlways);
    let content = r.tool_call.content.unwrap();
    assert!(
        matches!(&content[0], ToolCallContent::Diff { path, .. } if path == "/tmp/ws/hello.txt")
    );
    let selected = RequestPermissionResponse {
        outcome: RequestPermissionOutcome::Selected {
            option_id: "once".into(),
        },
    };
    assert_eq!(
        serde_json::to_value(selected).unwrap(),
        json!({"outcome": {"outcome": "selected", "optionId": "once"}})
    );
    let cancelled = RequestPermissionResponse {
        outcome: RequestPermissionOutcome::Cancelled,
    };
    assert_eq!(
        serde_json::to_value(cancelled).unwrap(),
        json!({"outcome": {"outcome": "cancelled"}})
    );
}

#[test]
fn requests_we_send_are_camel_case() {
    let init = InitializeRequest {
        protocol_version: PROTOCOL_VERSION,
        client_capabilities: ClientCapabilities {
            fs: FileSystemCapability {
                read_text_file: true,
                write_text_file: true,
            },
            terminal: false,
        },
        client_info: None,
    };
    assert_eq!(
        serde_json::to_value(init).unwrap(),
        json!({"protocolVersion": 1, "clientCapabilities": {"fs": {"readTextFile": true,
            "writeTextFile": true}, "terminal": false}})
    );
    let p = PromptRequest {
        session_id: "s".into(),
        prompt: vec![
            ContentBlock::text("hi"),
            ContentBlock::Image {
                data: "AA==".into(),
                mime_type: "image/png".into(),
                uri: None,
            },
        ],
    };
    assert_eq!(
        serde_json::to_value(p).unwrap(),
        json!({"sessionId": "s", "prompt": [{"type": "text", "text": "hi"},
            {"type": "image", "data": "AA==", "mimeType": "image/png"}]})
    );
    let n: NewSessionResponse = serde_json::from_value(json!({"sessionId": "ses_1",
        "configOptions": [{"id": "model", "name": "Model", "category": "model", "type": "select",
            "currentValue": "fake/fake-model", "options": [{"value": "fake/fake-model", "name": "Fake"}]}]}))
    .unwrap();
    assert_eq!(
        n.setup.config_options.unwrap()[0].category.as_deref(),
        Some("model")
    );
}
