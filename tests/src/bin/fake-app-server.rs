//! A scripted stand-in for `codex app-server`, for the engine transport/RPC/supervisor suites.
//!
//! Speaks the Codex wire shape (newline-delimited JSON-RPC without `"jsonrpc"`, integer
//! server→client ids from 0, `-32600 "Not initialized"` before `initialize`, exit 0 on stdin
//! EOF). The behaviour after `initialize` is chosen by `FAKE_SCRIPT` (or argv[1]):
//!
//! - `normal`: answers `thread/start`, `turn/start` (then streams a tiny turn), echoes others.
//! - `exit_mid_turn`: on `turn/start` writes to stderr and exits with code 3 without answering.
//! - `hang`: starts a grandchild in its process group that ignores SIGTERM (announced as the
//!   notification `fake/grandchild {pid}`), never answers, and ignores stdin EOF.
//! - `garbage`: before answering each request, writes a non-JSON line, a non-UTF-8 line, a
//!   JSON array and an object of unknown shape.
//! - `huge_line`: before answering each request, sends an `item/agentMessage/delta` notification
//!   whose line is `FAKE_HUGE_BYTES` long (default 10 MB).
//! - `unknown_server_request`: on `turn/start`, sends the server request `item/unknown/request`
//!   and answers `turn/start` with `{"clientAnswer": <what the client replied>}`.
//! - `slow_answer`: answers every request after `FAKE_DELAY_MS` (default 500).
//! - `permissions`: on `turn/start`, asks `item/permissions/requestApproval` (network access)
//!   and, once answered, streams the client's answer back as the agent message text (so a
//!   test can see exactly what went over the wire), then completes the turn.
//! - `silent_turn`: on `turn/start`, answers and streams one delta, then says nothing more
//!   (other requests, e.g. `turn/interrupt`, are still answered).
//! - `heartbeat`: on `turn/start`, sends `thread/status/changed` every 200 ms for
//!   `FAKE_HEARTBEAT_MS` (default 3000) and nothing else, then completes the turn.
//!
//! - `garbage_flood`: on `turn/start`, answers, then writes `FAKE_GARBAGE_LINES` (default 2000)
//!   non-JSON lines, then completes the turn.
//!
//! - `stream`: on `turn/start`, one agent message streamed as `FAKE_DELTAS` (default 200,000)
//!   `item/agentMessage/delta` notifications of 20 characters (item started before, completed
//!   with the whole text after), then the turn completes (lossless fan-out tests).
//!
//! With `FAKE_LOG=<file>`, the method of every request and notification received is appended
//! to that file, one per line (how a test sees e.g. that `turn/interrupt` arrived), and every
//! response to our own requests as `response:result` or `response:error`.
//!
//! Deliberately synchronous std code: a fake should be simpler than what it tests.

#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]

use std::io::{self, BufRead, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{json, Value};

fn main() {
    // FAKE_SCRIPT wins; else the first argument — unless it is `app-server`, which is what
    // the Codex adapter passes when it runs this fake in place of codex.
    let script = std::env::var("FAKE_SCRIPT")
        .ok()
        .or_else(|| std::env::args().nth(1).filter(|a| a != "app-server"))
        .unwrap_or_else(|| "normal".to_owned());
    eprintln!("fake-app-server: starting, script={script}");
    let mut server = Server {
        script,
        out: io::stdout().lock(),
        initialized: false,
        next_server_id: 0,
    };
    let stdin = io::stdin();
    let mut lines = stdin.lock().lines();
    while let Some(Ok(line)) = lines.next() {
        let Ok(msg) = serde_json::from_str::<Value>(&line) else {
            continue; // codex ignores non-JSON lines
        };
        log_received(&msg);
        server.on_message(&msg, &mut lines);
    }
    if server.script == "hang" {
        // Ignore EOF: only a signal ends us.
        loop {
            std::thread::sleep(Duration::from_secs(3600));
        }
    }
}

struct Server {
    script: String,
    out: io::StdoutLock<'static>,
    initialized: bool,
    next_server_id: i64,
}

type Lines<'a> = io::Lines<io::StdinLock<'a>>;

impl Server {
    fn send(&mut self, msg: &Value) {
        self.send_raw(msg.to_string().as_bytes());
    }

    fn send_raw(&mut self, bytes: &[u8]) {
        // A write error means the client is gone: exit like codex would.
        if self.out.write_all(bytes).is_err()
            || self.out.write_all(b"\n").is_err()
            || self.out.flush().is_err()
        {
            std::process::exit(0);
        }
    }

    fn notify(&mut self, method: &str, params: Value) {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis());
        self.send(&json!({"method": method, "params": params, "emittedAtMs": now as u64}));
    }

    fn reply(&mut self, id: &Value, result: Value) {
        self.send(&json!({"id": id, "result": result}));
    }

    fn reply_error(&mut self, id: &Value, code: i64, message: &str) {
        self.send(&json!({"id": id, "error": {"code": code, "message": message}}));
    }

    fn on_message(&mut self, msg: &Value, lines: &mut Lines<'_>) {
        let Some(method) = msg.get("method").and_then(Value::as_str) else {
            return; // a response to us outside a scripted exchange: ignore
        };
        let Some(id) = msg.get("id").cloned() else {
            return; // notification (`initialized`)
        };
        if method == "initialize" {
            if self.initialized {
                return self.reply_error(&id, -32600, "Already initialized");
            }
            self.initialized = true;
            self.reply(
                &id,
                json!({"userAgent": "fake/0.0.0", "codexHome": "/fake", "platformFamily": "unix", "platformOs": "linux"}),
            );
            self.notify(
                "remoteControl/status/changed",
                json!({"status": "disabled"}),
            );
            if self.script == "hang" {
                self.spawn_grandchild();
            }
            return;
        }
        if !self.initialized {
            return self.reply_error(&id, -32600, "Not initialized");
        }
        match self.script.as_str() {
            "hang" => {}
            "exit_mid_turn" if method == "turn/start" => {
                eprintln!("thread 'main' panicked: simulated crash in turn");
                eprintln!("fatal: simulated crash, exiting with 3");
                std::process::exit(3);
            }
            "garbage" => {
                self.send_raw(b"this is not json");
                self.send_raw(b"{\"bad\":\"\xff\xfe\"}");
                self.send_raw(b"[1,2,3]");
                self.send_raw(b"{\"neither\":\"request nor response\"}");
                self.answer(&id, method);
            }
            "huge_line" => {
                let size = env_num("FAKE_HUGE_BYTES", 10 * 1024 * 1024);
                let delta = "x".repeat(size as usize);
                self.notify(
                    "item/agentMessage/delta",
                    json!({"itemId": "big", "delta": delta}),
                );
                self.answer(&id, method);
            }
            "unknown_server_request" if method == "turn/start" => {
                let server_id = self.next_server_id;
                self.next_server_id += 1;
                self.send(&json!({"id": server_id, "method": "item/unknown/request", "params": {"threadId": "t1"}}));
                let answer = wait_for_response(lines, server_id);
                self.reply(&id, json!({"clientAnswer": answer}));
            }
            "permissions" if method == "turn/start" => {
                self.reply(
                    &id,
                    json!({"turn": {"id": "turn_fake", "status": "inProgress"}}),
                );
                self.notify(
                    "turn/started",
                    json!({"threadId": "thr_fake", "turnId": "turn_fake"}),
                );
                let server_id = self.next_server_id;
                self.next_server_id += 1;
                self.send(&json!({"id": server_id, "method": "item/permissions/requestApproval", "params": {
                    "threadId": "thr_fake", "turnId": "turn_fake", "itemId": "perm1",
                    "cwd": "/work/repo", "reason": "fetch the docs",
                    "permissions": {"network": {"enabled": true}}
                }}));
                let answer = wait_for_response(lines, server_id);
                self.notify(
                    "item/agentMessage/delta",
                    json!({"threadId": "thr_fake", "turnId": "turn_fake", "itemId": "m1", "delta": answer["result"].to_string()}),
                );
                self.notify(
                    "turn/completed",
                    json!({"threadId": "thr_fake", "turn": {"id": "turn_fake", "status": "completed", "error": null}}),
                );
            }
            "silent_turn" if method == "turn/start" => {
                self.reply(
                    &id,
                    json!({"turn": {"id": "turn_fake", "status": "inProgress"}}),
                );
                self.notify(
                    "turn/started",
                    json!({"threadId": "thr_fake", "turnId": "turn_fake"}),
                );
                self.notify(
                    "item/agentMessage/delta",
                    json!({"threadId": "thr_fake", "turnId": "turn_fake", "itemId": "m1", "delta": "thinking"}),
                );
            }
            "garbage_flood" if method == "turn/start" => {
                self.reply(
                    &id,
                    json!({"turn": {"id": "turn_fake", "status": "inProgress"}}),
                );
                self.notify(
                    "turn/started",
                    json!({"threadId": "thr_fake", "turnId": "turn_fake"}),
                );
                for i in 0..env_num("FAKE_GARBAGE_LINES", 2000) {
                    self.send_raw(format!("garbage line {i} {{").as_bytes());
                }
                self.notify(
                    "item/agentMessage/delta",
                    json!({"threadId": "thr_fake", "turnId": "turn_fake", "itemId": "m1", "delta": "survived"}),
                );
                self.notify(
                    "turn/completed",
                    json!({"threadId": "thr_fake", "turn": {"id": "turn_fake", "status": "completed", "error": null}}),
                );
            }
            "heartbeat" if method == "turn/start" => {
                self.reply(
                    &id,
                    json!({"turn": {"id": "turn_fake", "status": "inProgress"}}),
                );
                self.notify(
                    "turn/started",
                    json!({"threadId": "thr_fake", "turnId": "turn_fake"}),
                );
                let until = std::time::Instant::now()
                    + Duration::from_millis(env_num("FAKE_HEARTBEAT_MS", 3000));
                while std::time::Instant::now() < until {
                    self.notify(
                        "thread/status/changed",
                        json!({"threadId": "thr_fake", "status": {"type": "active", "activeFlags": []}}),
                    );
                    std::thread::sleep(Duration::from_millis(200));
                }
                self.notify(
                    "item/agentMessage/delta",
                    json!({"threadId": "thr_fake", "turnId": "turn_fake", "itemId": "m1", "delta": "alive"}),
                );
                self.notify(
                    "turn/completed",
                    json!({"threadId": "thr_fake", "turn": {"id": "turn_fake", "status": "completed", "error": null}}),
                );
            }
            "stream" if method == "turn/start" => self.stream_turn(&id),
            "slow_answer" => {
                std::thread::sleep(Duration::from_millis(env_num("FAKE_DELAY_MS", 500)));
                self.answer(&id, method);
            }
            _ => self.answer(&id, method),
        }
    }

    fn answer(&mut self, id: &Value, method: &str) {
        match method {
            "thread/start" => {
                self.reply(id, json!({"thread": {"id": "thr_fake"}, "model": "fake"}))
            }
            "turn/start" => {
                self.reply(
                    id,
                    json!({"turn": {"id": "turn_fake", "status": "inProgress"}}),
                );
                let ids = json!({"threadId": "thr_fake", "turnId": "turn_fake"});
                self.notify("turn/started", ids.clone());
                self.notify(
                    "item/agentMessage/delta",
                    json!({"itemId": "m1", "delta": "hello"}),
                );
                self.notify(
                    "turn/completed",
                    json!({"threadId": "thr_fake", "turn": {"id": "turn_fake", "status": "completed", "error": null}}),
                );
            }
            other => self.reply(id, json!({"echo": other})),
        }
    }

    /// The `stream` script's turn: one long agent message in 20-character deltas.
    fn stream_turn(&mut self, id: &Value) {
        self.reply(
            id,
            json!({"turn": {"id": "turn_fake", "status": "inProgress"}}),
        );
        let ids = json!({"threadId": "thr_fake", "turnId": "turn_fake"});
        self.notify("turn/started", ids);
        let item = |text: &str| json!({"type": "agentMessage", "id": "msg_stream", "text": text, "phase": null});
        self.notify(
            "item/started",
            json!({"item": item(""), "threadId": "thr_fake", "turnId": "turn_fake"}),
        );
        let mut all = String::new();
        for i in 0..env_num("FAKE_DELTAS", 200_000) {
            // 20 characters, each delta distinct, so a lost or repeated one shows.
            let piece = format!("{:>19} ", i);
            all.push_str(&piece);
            self.notify(
                "item/agentMessage/delta",
                json!({"threadId": "thr_fake", "turnId": "turn_fake", "itemId": "msg_stream", "delta": piece}),
            );
        }
        self.notify(
            "item/completed",
            json!({"item": item(&all), "threadId": "thr_fake", "turnId": "turn_fake"}),
        );
        self.notify(
            "turn/completed",
            json!({"threadId": "thr_fake", "turn": {"id": "turn_fake", "status": "completed", "error": null}}),
        );
    }

    fn spawn_grandchild(&mut self) {
        // Same process group as us (no setsid); ignores SIGTERM so only the group SIGKILL
        // after our death can end it.
        match Command::new("sh")
            .args(["-c", "trap '' TERM; exec sleep 300"])
            .stdin(Stdio::null())
            .spawn()
        {
            Ok(child) => self.notify("fake/grandchild", json!({"pid": child.id()})),
            Err(err) => eprintln!("fake-app-server: could not spawn grandchild: {err}"),
        }
    }
}

/// Read client lines until the response to our request `id` (other lines are dropped).
fn wait_for_response(lines: &mut Lines<'_>, id: i64) -> Value {
    for line in lines.by_ref().map_while(Result::ok) {
        if let Ok(msg) = serde_json::from_str::<Value>(&line) {
            log_received(&msg);
            if msg.get("id") == Some(&json!(id)) && msg.get("method").is_none() {
                return msg;
            }
        }
    }
    Value::Null
}

/// Append the method of a received request/notification (or the kind of a response) to
/// `FAKE_LOG`, if set.
fn log_received(msg: &Value) {
    let Ok(path) = std::env::var("FAKE_LOG") else {
        return;
    };
    let method = match msg.get("method").and_then(Value::as_str) {
        Some(m) => m,
        None if msg.get("error").is_some() => "response:error",
        None => "response:result",
    };
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
    {
        let _ = writeln!(f, "{method}");
    }
}

fn env_num(key: &str, default: u64) -> u64 {
    std::env::var(key)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}
