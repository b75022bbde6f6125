#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use serde_json::json;
use tokio::io::{
    AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines, ReadHalf, WriteHalf,
};

use super::*;
use crate::process::ExitStatusInfo;
use crate::transport::TransportConfig;

/// The engine's side of the pipe, driven by the test.
struct FarEnd {
    lines: Lines<BufReader<ReadHalf<DuplexStream>>>,
    write: WriteHalf<DuplexStream>,
}

impl FarEnd {
    async fn read(&mut self) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(5), self.lines.next_line())
            .await
            .expect("timed out reading from peer")
            .unwrap()
            .expect("peer closed");
        serde_json::from_str(&line).unwrap()
    }

    async fn send(&mut self, line: &str) {
        self.write.write_all(line.as_bytes()).await.unwrap();
        self.write.write_all(b"\n").await.unwrap();
    }
}

fn pair(
    config: RpcConfig,
    handler: impl RequestHandler,
    exit: Option<ExitWatch>,
) -> (RpcPeer, PeerEvents, FarEnd) {
    let (near, far) = tokio::io::duplex(1 << 16);
    let (r, w) = tokio::io::split(near);
    let transport = Transport::new(r, w, &TransportConfig::default());
    let (peer, events) = RpcPeer::start(transport, config, handler, exit);
    let (fr, fw) = tokio::io::split(far);
    (
        peer,
        events,
        FarEnd {
            lines: BufReader::new(fr).lines(),
            write: fw,
        },
    )
}

async fn next_event(events: &mut PeerEvents) -> PeerEvent {
    tokio::time::timeout(Duration::from_secs(5), events.recv())
        .await
        .expect("timed out waiting for event")
        .expect("event stream ended")
}

#[tokio::test]
async fn request_response_with_and_without_jsonrpc_field() {
    let (peer, _events, mut far) = pair(RpcConfig::codex(), ForwardAll, None);
    let call = tokio::spawn({
        let peer = peer.clone();
        async move {
            peer.request("initialize", json!({"clientInfo": {"name": "t"}}))
                .await
        }
    });
    let req = far.read().await;
    assert!(
        req.get("jsonrpc").is_none(),
        "codex config sends no jsonrpc field"
    );
    assert_eq!(req["method"], "initialize");
    assert_eq!(req["id"], 0);
    far.send(r#"{"id":0,"result":{"userAgent":"x"}}"#).await;
    assert_eq!(call.await.unwrap().unwrap(), json!({"userAgent": "x"}));

    let (peer, _events, mut far) = pair(RpcConfig::default(), ForwardAll, None);
    let call = tokio::spawn(async move { peer.request("m", Value::Null).await });
    let req = far.read().await;
    assert_eq!(req["jsonrpc"], "2.0");
    assert!(req.get("params").is_none());
    far.send(r#"{"jsonrpc":"2.0","id":0,"result":null}"#).await;
    assert_eq!(call.await.unwrap().unwrap(), Value::Null);
}

#[tokio::test]
async fn server_error_is_distinct_from_decode_error() {
    let (peer, _events, mut far) = pair(RpcConfig::codex(), ForwardAll, None);
    let p = peer.clone();
    let call = tokio::spawn(async move { p.request("thread/list", json!({})).await });
    far.read().await;
    far.send(r#"{"id":0,"error":{"code":-32600,"message":"Not initialized"}}"#)
        .await;
    match call.await.unwrap() {
        Err(EngineError::Server {
            code,
            message,
            method,
            ..
        }) => {
            assert_eq!(
                (code, message.as_str(), method.as_str()),
                (-32600, "Not initialized", "thread/list")
            );
        }
        other => panic!("{other:?}"),
    }
    let p = peer.clone();
    let call = tokio::spawn(async move { p.request_typed::<_, Vec<u32>>("x", &json!({})).await });
    far.read().await;
    far.send(r#"{"id":1,"result":{"not":"a list"}}"#).await;
    assert!(matches!(
        call.await.unwrap(),
        Err(EngineError::Decode { .. })
    ));
}

#[tokio::test]
async fn timeout_removes_pending_and_late_reply_is_a_diagnostic() {
    let (peer, mut events, mut far) = pair(RpcConfig::codex(), ForwardAll, None);
    let err = peer
        .request_with_timeout("slow", json!({}), Some(Duration::from_millis(50)))
        .await
        .unwrap_err();
    assert!(matches!(err, EngineError::Timeout { .. }), "{err}");
    far.read().await;
    far.send(r#"{"id":0,"result":{}}"#).await;
    match next_event(&mut events).await {
        PeerEvent::Diagnostic(d) => assert_eq!(d.kind, DiagnosticKind::UnmatchedResponse),
        other => panic!("{other:?}"),
    }
    assert!(lock(&peer.inner.shared.state).pending.is_empty());
}

#[tokio::test]
async fn notifications_requests_and_diagnostics_keep_order() {
    let (_peer, mut events, mut far) = pair(RpcConfig::codex(), ForwardAll, None);
    far.send(r#"{"method":"item/started","params":{"item":{"id":"i1"}},"emittedAtMs":5}"#)
        .await;
    far.send("garbage").await;
    far.send(r#"{"id":0,"method":"item/fileChange/requestApproval","params":{"itemId":"i1"}}"#)
        .await;
    far.send(r#"[1,2]"#).await;
    match next_event(&mut events).await {
        PeerEvent::Notification(n) => {
            assert_eq!(n.method, "item/started");
            assert_eq!(n.extra.get("emittedAtMs"), Some(&json!(5)));
            assert_eq!(n.params["item"]["id"], "i1");
        }
        other => panic!("{other:?}"),
    }
    assert!(
        matches!(next_event(&mut events).await, PeerEvent::Diagnostic(d) if d.kind == DiagnosticKind::InvalidJson)
    );
    let req = match next_event(&mut events).await {
        PeerEvent::Request(r) => r,
        other => panic!("{other:?}"),
    };
    assert_eq!(req.id, RequestId::Int(0));
    assert!(
        matches!(next_event(&mut events).await, PeerEvent::Diagnostic(d) if d.kind == DiagnosticKind::UnknownMessage)
    );
    // Answered "minutes later": the request is held, then answered by the owner.
    tokio::time::sleep(Duration::from_millis(20)).await;
    req.respond(json!({"decision": "accept"})).unwrap();
    assert_eq!(
        far.read().await,
        json!({"id": 0, "result": {"decision": "accept"}})
    );
}

#[tokio::test]
async fn declined_and_dropped_requests_are_answered() {
    let (_peer, mut events, mut far) =
        pair(RpcConfig::codex(), ForwardMethods::new(["known"]), None);
    far.send(r#"{"id":7,"method":"no/such","params":{}}"#).await;
    let reply = far.read().await;
    assert_eq!(reply["id"], 7);
    assert_eq!(reply["error"]["code"], METHOD_NOT_FOUND);

    far.send(r#"{"id":"s-1","method":"known"}"#).await;
    let req = match next_event(&mut events).await {
        PeerEvent::Request(r) => r,
        other => panic!("{other:?}"),
    };
    assert_eq!(req.id, RequestId::Str("s-1".into()));
    drop(req);
    let reply = far.read().await;
    assert_eq!(reply["id"], "s-1");
    assert_eq!(reply["error"]["code"], INTERNAL_ERROR);
}

#[tokio::test]
async fn closure_handler_can_answer_inline() {
    let handler = |req: InboundRequest| {
        if req.method == "ping" {
            let _ = req.respond(json!("pong"));
            Dispatch::Handled
        } else {
            Dispatch::Decline(req)
        }
    };
    let (_peer, _events, mut far) = pair(RpcConfig::default(), handler, None);
    far.send(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#)
        .await;
    assert_eq!(
        far.read().await,
        json!({"jsonrpc": "2.0", "id": 1, "result": "pong"})
    );
}

#[tokio::test]
async fn eof_fails_pending_requests_with_child_exited_and_status() {
    let (exit_tx, exit) = ExitWatch::channel();
    let (peer, mut events, mut far) = pair(RpcConfig::codex(), ForwardAll, Some(exit));
    let p = peer.clone();
    let call =
        tokio::spawn(async move { p.request_with_timeout("turn/start", json!({}), None).await });
    far.read().await;
    let status = ExitStatusInfo {
        code: Some(3),
        signal: None,
    };
    exit_tx
        .send(Some(ChildExit {
            status,
            stderr_tail: "panic: boom".into(),
            remote: None,
            over_memory: None,
        }))
        .unwrap();
    drop(far);
    match call.await.unwrap() {
        Err(EngineError::ChildExited {
            status: Some(s),
            stderr_tail,
        }) => {
            assert_eq!(s.code, Some(3));
            assert_eq!(stderr_tail, "panic: boom");
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        next_event(&mut events).await,
        PeerEvent::Closed { exit: Some(_) }
    ));
    assert!(peer.is_closed());
    assert!(matches!(
        peer.request("after", json!({})).await,
        Err(EngineError::ChildExited { .. })
    ));
    assert!(peer.closed().await.is_some());
}

#[tokio::test]
async fn exit_while_stdout_held_open_still_fails_pending() {
    // A grandchild keeps stdout open: no EOF, but the exit watch fires.
    let (exit_tx, exit) = ExitWatch::channel();
    let (peer, _events, mut far) = pair(RpcConfig::codex(), ForwardAll, Some(exit));
    let p = peer.clone();
    let call = tokio::spawn(async move { p.request_with_timeout("x", json!({}), None).await });
    far.read().await;
    let status = ExitStatusInfo {
        code: None,
        signal: Some(9),
    };
    exit_tx
        .send(Some(ChildExit {
            status,
            stderr_tail: String::new(),
            remote: None,
            over_memory: None,
        }))
        .unwrap();
    let res = tokio::time::timeout(Duration::from_secs(5), call)
        .await
        .unwrap()
        .unwrap();
    assert!(matches!(
        res,
        Err(EngineError::ChildExited {
            status: Some(ExitStatusInfo {
                signal: Some(9),
                ..
            }),
            ..
        })
    ));
    drop(far);
}

#[tokio::test]
async fn cancelled_request_future_leaves_no_pending_entry() {
    let (peer, _events, _far) = pair(RpcConfig::codex(), ForwardAll, None);
    let fut = peer.request_with_timeout("x", json!({}), None);
    let _ = tokio::time::timeout(Duration::from_millis(20), fut).await;
    assert!(lock(&peer.inner.shared.state).pending.is_empty());
}

/// One read of stdout full of notifications is one hand-over: after the first event the rest
/// are there without another wake-up (a hop per delta cost more than decoding it).
#[tokio::test]
async fn a_read_of_many_notifications_is_handed_over_at_once() {
    let (_peer, mut events, mut far) = pair(RpcConfig::codex(), ForwardAll, None);
    let mut burst = String::new();
    for i in 0..100 {
        burst.push_str(&format!(
            "{{\"method\":\"item/agentMessage/delta\",\"params\":{{\"delta\":\"d{i}\"}}}}\n"
        ));
    }
    far.write.write_all(burst.as_bytes()).await.unwrap();
    let mut got = Vec::new();
    match next_event(&mut events).await {
        PeerEvent::Notification(n) => got.push(n.params["delta"].clone()),
        other => panic!("{other:?}"),
    }
    // The burst fits one read of the 64 KiB pipe; the rest arrive in that same batch.
    while events.has_buffered() {
        match next_event(&mut events).await {
            PeerEvent::Notification(n) => got.push(n.params["delta"].clone()),
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(got.len(), 100, "one read, one batch");
    let expected: Vec<Value> = (0..100).map(|i| json!(format!("d{i}"))).collect();
    assert_eq!(got, expected, "in arrival order");
}
