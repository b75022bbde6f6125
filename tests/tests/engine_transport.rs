//! Transport, RPC peer and supervisor against the scripted `fake-app-server` child.
//! Every wait is bounded so a regression fails instead of hanging CI.

#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::future::Future;
use std::time::{Duration, Instant};

use agentdesk_engine::diagnostic::DiagnosticKind;
use agentdesk_engine::rpc::METHOD_NOT_FOUND;
use agentdesk_engine::{
    ChildProcess, EngineError, ForwardAll, ForwardMethods, PeerEvent, PeerEvents, ProcessSpec,
    RequestHandler, RpcConfig, RpcPeer, StopConfig, TransportConfig,
};
use serde_json::{json, Value};

const FAKE: &str = env!("CARGO_BIN_EXE_fake-app-server");

async fn bounded<T>(what: &str, secs: u64, fut: impl Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(secs), fut)
        .await
        .unwrap_or_else(|_| panic!("timed out: {what}"))
}

fn fast_stop() -> StopConfig {
    StopConfig {
        // Generous first rung: on a loaded 2-core CI box a polite exit can take a while, and
        // the normal-session test asserts that this rung sufficed.
        stdin_grace: Duration::from_millis(1500),
        term_grace: Duration::from_millis(1000),
        kill_wait: Duration::from_secs(2),
    }
}

struct Session {
    child: ChildProcess,
    peer: RpcPeer,
    events: PeerEvents,
}

async fn start(
    script: &str,
    extra_env: &[(&str, &str)],
    transport: TransportConfig,
    handler: impl RequestHandler,
) -> Session {
    let mut spec = ProcessSpec::new(FAKE)
        .env("FAKE_SCRIPT", script)
        .stop_config(fast_stop());
    for (k, v) in extra_env {
        spec = spec.env(*k, *v);
    }
    let mut child = ChildProcess::spawn(spec).unwrap();
    let transport = child.transport(&transport).unwrap();
    let (peer, events) = RpcPeer::start(
        transport,
        RpcConfig::codex(),
        handler,
        Some(child.exit_watch()),
    );
    let init = bounded(
        "initialize",
        10,
        peer.request(
            "initialize",
            json!({"clientInfo": {"name": "agentdesk-tests", "title": null, "version": "0"}, "capabilities": null}),
        ),
    )
    .await
    .unwrap();
    assert_eq!(init["userAgent"], "fake/0.0.0");
    peer.notify("initialized", Value::Null).unwrap();
    Session {
        child,
        peer,
        events,
    }
}

async fn next_event(events: &mut PeerEvents) -> PeerEvent {
    bounded("peer event", 10, events.recv())
        .await
        .expect("event stream ended")
}

/// Skip ahead to the first notification with `method`.
async fn notification(events: &mut PeerEvents, method: &str) -> Value {
    loop {
        if let PeerEvent::Notification(n) = next_event(events).await {
            if n.method == method {
                return n.params;
            }
        }
    }
}

fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // A zombie is dead: a container's PID 1 may never reap re-parented children.
        Ok(stat) => !matches!(
            stat.rsplit(')')
                .next()
                .and_then(|s| s.split_whitespace().next()),
            Some("Z" | "X")
        ),
        Err(_) => std::process::Command::new("kill")
            .args(["-0", &pid.to_string()])
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success()),
    }
}

async fn assert_gone(pid: u32, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(8);
    while alive(pid) {
        assert!(
            Instant::now() < deadline,
            "{what} (pid {pid}) is still alive"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn normal_session_streams_and_stops_on_stdin_close() {
    let mut s = start("normal", &[], TransportConfig::default(), ForwardAll).await;
    let thread = s
        .peer
        .request("thread/start", json!({"cwd": "/tmp"}))
        .await
        .unwrap();
    assert_eq!(thread["thread"]["id"], "thr_fake");
    let turn = s
        .peer
        .request("turn/start", json!({"threadId": "thr_fake", "input": []}))
        .await
        .unwrap();
    assert_eq!(turn["turn"]["status"], "inProgress");
    let delta = notification(&mut s.events, "item/agentMessage/delta").await;
    assert_eq!(delta["delta"], "hello");
    let done = notification(&mut s.events, "turn/completed").await;
    assert_eq!(done["turn"]["status"], "completed");

    let started = Instant::now();
    let exit = bounded("stop", 10, s.child.stop()).await.unwrap();
    assert_eq!(exit.status.code, Some(0), "the fake exits 0 on stdin EOF");
    assert!(
        started.elapsed() < Duration::from_millis(1500),
        "first rung sufficed"
    );
    assert!(exit.stderr_tail.contains("script=normal"));
}

#[tokio::test]
async fn child_exit_mid_request_fails_pending_with_status_and_stderr() {
    let mut s = start("exit_mid_turn", &[], TransportConfig::default(), ForwardAll).await;
    let err = bounded(
        "turn/start",
        10,
        s.peer
            .request_with_timeout("turn/start", json!({"threadId": "t"}), None),
    )
    .await
    .unwrap_err();
    match &err {
        EngineError::ChildExited {
            status: Some(status),
            stderr_tail,
        } => {
            assert_eq!(status.code, Some(3));
            assert!(stderr_tail.contains("simulated crash"), "{stderr_tail}");
        }
        other => panic!("expected ChildExited, got {other:?}"),
    }
    assert!(err.to_string().contains("exit code 3"), "{err}");
    loop {
        if let PeerEvent::Closed { exit } = next_event(&mut s.events).await {
            assert_eq!(exit.unwrap().status.code, Some(3));
            break;
        }
    }
    assert!(bounded("events end", 5, s.events.recv()).await.is_none());
    assert!(s.peer.request("thread/start", json!({})).await.is_err());
}

#[tokio::test]
async fn hang_times_out_then_stop_ladder_kills_the_whole_group() {
    let mut s = start("hang", &[], TransportConfig::default(), ForwardAll).await;
    let grandchild = notification(&mut s.events, "fake/grandchild").await["pid"]
        .as_u64()
        .unwrap() as u32;
    let pid = s.child.pid().unwrap();
    assert!(alive(pid) && alive(grandchild));

    let err = s
        .peer
        .request_with_timeout("turn/start", json!({}), Some(Duration::from_millis(300)))
        .await
        .unwrap_err();
    assert!(matches!(err, EngineError::Timeout { .. }), "{err}");

    let exit = bounded("stop ladder", 10, s.child.stop()).await.unwrap();
    assert_eq!(
        exit.status.signal,
        Some(15),
        "stdin EOF ignored, SIGTERM ended it"
    );
    assert_gone(pid, "fake app-server").await;
    assert_gone(grandchild, "grandchild ignoring SIGTERM").await;
    // The peer notices the exit even though nothing closed stdout in time.
    assert!(bounded("peer closed", 5, s.peer.closed()).await.is_some());
}

#[tokio::test]
async fn garbage_lines_become_diagnostics_and_session_continues() {
    let mut s = start("garbage", &[], TransportConfig::default(), ForwardAll).await;
    let thread = s.peer.request("thread/start", json!({})).await.unwrap();
    assert_eq!(thread["thread"]["id"], "thr_fake");
    let mut kinds = Vec::new();
    while kinds.len() < 4 {
        if let PeerEvent::Diagnostic(d) = next_event(&mut s.events).await {
            if d.kind != DiagnosticKind::StderrLine {
                kinds.push(d.kind);
            }
        }
    }
    assert_eq!(
        kinds,
        [
            DiagnosticKind::InvalidJson,
            DiagnosticKind::InvalidUtf8,
            DiagnosticKind::UnknownMessage,
            DiagnosticKind::UnknownMessage,
        ]
    );
    let again = s.peer.request("model/list", json!({})).await.unwrap();
    assert_eq!(again["echo"], "model/list");
}

#[tokio::test]
async fn ten_megabyte_line_is_delivered_under_the_default_cap() {
    let mut s = start("huge_line", &[], TransportConfig::default(), ForwardAll).await;
    let result = bounded(
        "thread/start",
        20,
        s.peer.request("thread/start", json!({})),
    )
    .await
    .unwrap();
    assert_eq!(result["thread"]["id"], "thr_fake");
    let delta = notification(&mut s.events, "item/agentMessage/delta").await;
    assert_eq!(delta["delta"].as_str().unwrap().len(), 10 * 1024 * 1024);
}

#[tokio::test]
async fn ten_megabyte_line_over_a_small_cap_is_a_diagnostic() {
    let cap = TransportConfig {
        max_line_bytes: 1024 * 1024,
        ..TransportConfig::default()
    };
    let mut s = start("huge_line", &[], cap, ForwardAll).await;
    let result = bounded(
        "thread/start",
        20,
        s.peer.request("thread/start", json!({})),
    )
    .await
    .unwrap();
    assert_eq!(result["thread"]["id"], "thr_fake");
    loop {
        match next_event(&mut s.events).await {
            PeerEvent::Diagnostic(d) if matches!(d.kind, DiagnosticKind::OversizedLine { .. }) => {
                let DiagnosticKind::OversizedLine { len, max } = d.kind else {
                    unreachable!()
                };
                assert!(len > 10 * 1024 * 1024 && max == 1024 * 1024);
                break;
            }
            PeerEvent::Notification(n) => assert_ne!(n.method, "item/agentMessage/delta"),
            _ => {}
        }
    }
    // Still usable afterwards.
    assert_eq!(
        s.peer.request("x/y", json!({})).await.unwrap()["echo"],
        "x/y"
    );
}

#[tokio::test]
async fn unknown_server_request_is_answered_method_not_found() {
    let handler = ForwardMethods::new(["item/commandExecution/requestApproval"]);
    let s = start(
        "unknown_server_request",
        &[],
        TransportConfig::default(),
        handler,
    )
    .await;
    let result = bounded("turn/start", 10, s.peer.request("turn/start", json!({})))
        .await
        .unwrap();
    let answer = &result["clientAnswer"];
    assert_eq!(answer["id"], 0);
    assert_eq!(answer["error"]["code"], METHOD_NOT_FOUND);
    assert!(answer.get("jsonrpc").is_none());
}

#[tokio::test]
async fn forwarded_request_dropped_unanswered_still_gets_an_error() {
    let mut s = start(
        "unknown_server_request",
        &[],
        TransportConfig::default(),
        ForwardAll,
    )
    .await;
    let peer = s.peer.clone();
    let call = tokio::spawn(async move { peer.request("turn/start", json!({})).await });
    loop {
        if let PeerEvent::Request(req) = next_event(&mut s.events).await {
            assert_eq!(req.method, "item/unknown/request");
            drop(req);
            break;
        }
    }
    let result = bounded("turn/start", 10, call).await.unwrap().unwrap();
    assert_eq!(result["clientAnswer"]["error"]["code"], -32603);
}

#[tokio::test]
async fn slow_answer_completes_within_the_timeout() {
    let s = start(
        "slow_answer",
        &[("FAKE_DELAY_MS", "700")],
        TransportConfig::default(),
        ForwardAll,
    )
    .await;
    let started = Instant::now();
    let result = s
        .peer
        .request_with_timeout("thread/start", json!({}), Some(Duration::from_secs(5)))
        .await
        .unwrap();
    assert_eq!(result["thread"]["id"], "thr_fake");
    assert!(started.elapsed() >= Duration::from_millis(700));
}

#[tokio::test]
async fn dropping_the_owner_leaves_no_orphan() {
    let mut s = start("hang", &[], TransportConfig::default(), ForwardAll).await;
    let grandchild = notification(&mut s.events, "fake/grandchild").await["pid"]
        .as_u64()
        .unwrap() as u32;
    let pid = s.child.pid().unwrap();
    drop(s);
    assert_gone(pid, "fake app-server after drop").await;
    assert_gone(grandchild, "grandchild after drop").await;
}

#[tokio::test]
async fn request_before_initialize_is_a_server_error() {
    let mut child = ChildProcess::spawn(ProcessSpec::new(FAKE).stop_config(fast_stop())).unwrap();
    let transport = child.transport(&TransportConfig::default()).unwrap();
    let (peer, _events) = RpcPeer::start(
        transport,
        RpcConfig::codex(),
        ForwardAll,
        Some(child.exit_watch()),
    );
    match bounded("thread/list", 10, peer.request("thread/list", json!({}))).await {
        Err(EngineError::Server { code, message, .. }) => {
            assert_eq!((code, message.as_str()), (-32600, "Not initialized"));
        }
        other => panic!("{other:?}"),
    }
}
