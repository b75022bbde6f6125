//! A scripted fake of the Anthropic Messages API (`POST /v1/messages?beta=true`, SSE), for
//! driving the real `claude` CLI offline (`ANTHROPIC_BASE_URL=<base_url>`). Built on
//! [`crate::http`]: HTTP/1.1 keep-alive, chunked SSE, a `request-id` header on every answer.
//!
//! Each test queues replies; each streamed model request takes the next one (an empty queue
//! answers a short text). Every request is recorded (method, path, headers, JSON body) so a
//! test can check what reached the model (an image block, a tool result, the history).

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};

use crate::http::{wait_until, Handler, HttpRequest, HttpResponse, HttpServer, SseSender};
use crate::script::Scripted;

/// The model id the fake reports (a known id, so the CLI prices it).
pub const FAKE_MODEL: &str = "claude-sonnet-4-5";

/// One content block of a streamed reply.
#[derive(Debug, Clone)]
pub enum Step {
    /// A text block streaming in these pieces.
    Text(Vec<String>),
    /// A thinking block streaming in these pieces (then a signature).
    Thinking(Vec<String>),
    /// A tool_use block; the input streams as `input_json_delta` pieces.
    ToolUse {
        id: String,
        name: String,
        input: Value,
    },
    Sleep(Duration),
    /// Stop here without `message_stop`, keeping the stream open until the client hangs up
    /// (bounded at 120 s so a forgotten stream cannot keep a test alive).
    Hang,
}

#[derive(Debug, Clone)]
pub enum Reply {
    /// 200 + SSE: message_start, the blocks, message_delta{stop_reason}, message_stop.
    Stream(Vec<Step>),
    /// An HTTP error with an Anthropic error body.
    Status(u16, String),
}

impl Reply {
    pub fn text(pieces: &[&str]) -> Self {
        Self::Stream(vec![Step::Text(owned(pieces))])
    }

    pub fn thinking_then_text(thinking: &[&str], text: &[&str]) -> Self {
        Self::Stream(vec![
            Step::Thinking(owned(thinking)),
            Step::Text(owned(text)),
        ])
    }

    /// A sentence, then one tool call.
    pub fn tool(id: &str, name: &str, input: Value) -> Self {
        Self::Stream(vec![
            Step::Text(owned(&["I will ", "use a tool."])),
            Step::ToolUse {
                id: id.into(),
                name: name.into(),
                input,
            },
        ])
    }

    /// The model asks to run `command` with the Bash tool.
    pub fn bash(id: &str, command: &str) -> Self {
        Self::tool(
            id,
            "Bash",
            json!({"command": command, "description": "Run a command"}),
        )
    }

    /// `n` text pieces, `every` apart, then hang: for interrupt tests.
    pub fn slow_text(n: usize, every: Duration) -> Self {
        let mut steps = Vec::new();
        for i in 0..n {
            steps.push(Step::Text(vec![format!("chunk{i:02} ")]));
            steps.push(Step::Sleep(every));
        }
        steps.push(Step::Hang);
        Self::Stream(steps)
    }

    pub fn status(code: u16, message: &str) -> Self {
        Self::Status(code, message.into())
    }
}

fn owned(pieces: &[&str]) -> Vec<String> {
    pieces.iter().map(|s| s.to_string()).collect()
}

#[derive(Debug, Clone)]
pub struct RecordedRequest {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    /// The JSON body (`Value::Null` if it was not JSON).
    pub body: Value,
}

impl RecordedRequest {
    /// A header's value (names are lower-cased).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.as_str())
    }

    /// Every content block of every message, in order (string contents as text blocks).
    pub fn content_blocks(&self) -> Vec<Value> {
        let mut out = Vec::new();
        for m in self.body["messages"].as_array().into_iter().flatten() {
            match &m["content"] {
                Value::String(s) => out.push(json!({"type": "text", "text": s})),
                Value::Array(blocks) => out.extend(blocks.iter().cloned()),
                _ => {}
            }
        }
        out
    }

    /// Blocks of the given `type` (`image`, `tool_result`, ...), nested tool results included.
    pub fn blocks_of(&self, ty: &str) -> Vec<Value> {
        self.content_blocks()
            .into_iter()
            .filter(|b| b["type"] == ty)
            .collect()
    }

    /// The whole conversation as one string, for "did the model see X" checks.
    pub fn transcript(&self) -> String {
        self.body["messages"].to_string()
    }

    pub fn is_model_stream(&self) -> bool {
        self.method == "POST"
            && self.path.starts_with("/v1/messages")
            && !self.path.contains("count_tokens")
            && self.body["stream"] == true
    }
}

type State = Scripted<Reply, RecordedRequest>;

pub struct FakeMessages {
    server: HttpServer,
    state: Arc<State>,
}

impl FakeMessages {
    pub async fn start() -> std::io::Result<Self> {
        let state = Arc::new(State::default());
        let s = state.clone();
        let handler: Handler = Arc::new(move |req| {
            let s = s.clone();
            Box::pin(async move { handle(s, req).await })
        });
        let server = HttpServer::start(handler).await?;
        Ok(Self { server, state })
    }

    /// `http://127.0.0.1:PORT` (the CLI appends `/v1/messages`).
    pub fn base_url(&self) -> String {
        self.server.base_url()
    }

    pub fn addr(&self) -> std::net::SocketAddr {
        self.server.addr()
    }

    pub fn push(&self, reply: Reply) {
        self.state.push(reply);
    }

    /// Every request received, in order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.state.requests()
    }

    /// Only the streamed model calls.
    pub fn model_requests(&self) -> Vec<RecordedRequest> {
        self.requests()
            .into_iter()
            .filter(RecordedRequest::is_model_stream)
            .collect()
    }

    /// Streams the client abandoned before the end (interrupts, crashes).
    pub fn disconnects(&self) -> usize {
        self.state.disconnects()
    }

    pub async fn wait_for_model_requests(&self, n: usize, timeout: Duration) -> bool {
        wait_until(timeout, || {
            self.state.count_requests(RecordedRequest::is_model_stream) >= n
        })
        .await
    }
}

fn with_request_id(mut resp: HttpResponse, n: usize) -> HttpResponse {
    resp.headers
        .push(("request-id".into(), format!("req_fake_{n:06}")));
    resp
}

async fn handle(state: Arc<State>, req: HttpRequest) -> HttpResponse {
    let body = serde_json::from_slice(&req.body).unwrap_or(Value::Null);
    let rec = RecordedRequest {
        method: req.method.clone(),
        path: req.path.clone(),
        headers: req.headers.clone(),
        body,
    };
    let n = state.next_seq();
    let is_stream = rec.is_model_stream();
    let is_count = req.path.starts_with("/v1/messages/count_tokens");
    let is_messages = req.method == "POST" && req.path.starts_with("/v1/messages");
    state.record(rec);
    if is_count {
        return with_request_id(HttpResponse::json(200, &json!({"input_tokens": 10})), n);
    }
    if !is_messages {
        return with_request_id(
            HttpResponse::json(
                404,
                &json!({"type": "error", "error": {"type": "not_found_error",
                    "message": format!("no route {} {}", req.method, req.path)}}),
            ),
            n,
        );
    }
    if !is_stream {
        // Side calls (non-streamed) never consume the script.
        return with_request_id(
            HttpResponse::json(
                200,
                &json!({"id": format!("msg_fake_{n}"), "type": "message", "role": "assistant",
                    "model": FAKE_MODEL, "content": [{"type": "text", "text": "ok"}],
                    "stop_reason": "end_turn", "stop_sequence": null,
                    "usage": {"input_tokens": 1, "output_tokens": 1}}),
            ),
            n,
        );
    }
    let reply = state
        .pop()
        .unwrap_or_else(|| Reply::text(&["(fake) no script left"]));
    match reply {
        Reply::Status(code, message) => {
            let kind = match code {
                401 => "authentication_error",
                429 => "rate_limit_error",
                529 => "overloaded_error",
                400 => "invalid_request_error",
                _ => "api_error",
            };
            with_request_id(
                HttpResponse::json(
                    code,
                    &json!({"type": "error", "error": {"type": kind, "message": message}}),
                ),
                n,
            )
        }
        Reply::Stream(steps) => {
            let (resp, tx) = HttpResponse::sse();
            tokio::spawn(async move {
                if !stream(&tx, n, steps).await {
                    state.note_disconnect();
                }
            });
            with_request_id(resp, n)
        }
    }
}

/// Split a string into about `n` pieces on char boundaries (tool input streams in parts).
fn pieces(s: &str, n: usize) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    let size = chars.len().div_ceil(n.max(1)).max(1);
    chars.chunks(size).map(|c| c.iter().collect()).collect()
}

/// `false` if the client went away before the end.
async fn stream(tx: &SseSender, n: usize, steps: Vec<Step>) -> bool {
    let msg_id = format!("msg_fake_{n:06}");
    let mut frames: Vec<(String, Value)> = Vec::new();
    let ev = |ty: &str, mut data: Value| {
        data["type"] = json!(ty);
        (ty.to_owned(), data)
    };
    macro_rules! flush {
        () => {
            for (ty, data) in frames.drain(..) {
                if !tx.event(&ty, &data).await {
                    return false;
                }
            }
        };
    }
    frames.push(ev(
        "message_start",
        json!({"message": {"id": msg_id, "type": "message", "role": "assistant", "model": FAKE_MODEL,
            "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": 10, "output_tokens": 1, "cache_creation_input_tokens": 0,
                      "cache_read_input_tokens": 0}}}),
    ));
    frames.push(ev("ping", json!({})));
    let mut index = 0u32;
    let mut stop_reason = "end_turn";
    for step in steps {
        match step {
            Step::Text(parts) => {
                frames.push(ev(
                    "content_block_start",
                    json!({"index": index, "content_block": {"type": "text", "text": ""}}),
                ));
                for p in parts {
                    // Flush per piece so deltas really stream (interrupt tests need that).
                    frames.push(ev(
                        "content_block_delta",
                        json!({"index": index, "delta": {"type": "text_delta", "text": p}}),
                    ));
                }
                frames.push(ev("content_block_stop", json!({"index": index})));
                index += 1;
            }
            Step::Thinking(parts) => {
                frames.push(ev(
                    "content_block_start",
                    json!({"index": index, "content_block": {"type": "thinking", "thinking": "", "signature": ""}}),
                ));
                for p in parts {
                    frames.push(ev(
                        "content_block_delta",
                        json!({"index": index, "delta": {"type": "thinking_delta", "thinking": p}}),
                    ));
                }
                frames.push(ev(
                    "content_block_delta",
                    json!({"index": index, "delta": {"type": "signature_delta", "signature": "fakesig=="}}),
                ));
                frames.push(ev("content_block_stop", json!({"index": index})));
                index += 1;
            }
            Step::ToolUse { id, name, input } => {
                stop_reason = "tool_use";
                frames.push(ev(
                    "content_block_start",
                    json!({"index": index, "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}}),
                ));
                for p in pieces(&input.to_string(), 3) {
                    frames.push(ev(
                        "content_block_delta",
                        json!({"index": index, "delta": {"type": "input_json_delta", "partial_json": p}}),
                    ));
                }
                frames.push(ev("content_block_stop", json!({"index": index})));
                index += 1;
            }
            Step::Sleep(d) => {
                flush!();
                tokio::select! {
                    _ = tokio::time::sleep(d) => {}
                    _ = tx.closed() => return false,
                }
            }
            Step::Hang => {
                flush!();
                tokio::select! {
                    _ = tokio::time::sleep(Duration::from_secs(120)) => {}
                    _ = tx.closed() => {}
                }
                return false;
            }
        }
    }
    frames.push(ev(
        "message_delta",
        json!({"delta": {"stop_reason": stop_reason, "stop_sequence": null}, "usage": {"output_tokens": 5}}),
    ));
    frames.push(ev("message_stop", json!({})));
    flush!();
    true
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    async fn post(addr: std::net::SocketAddr, path: &str, body: &str) -> String {
        let req = format!(
            "POST {path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
        let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
        s.write_all(req.as_bytes()).await.unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).await.unwrap();
        out
    }

    #[tokio::test]
    async fn streams_scripted_sse_with_request_ids_and_records_bodies() {
        let fake = FakeMessages::start().await.unwrap();
        fake.push(Reply::thinking_then_text(&["hmm"], &["Hel", "lo"]));
        fake.push(Reply::bash("toolu_1", "ls"));
        fake.push(Reply::status(500, "boom"));
        let body = r#"{"stream":true,"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]}"#;
        let out = post(fake.addr(), "/v1/messages?beta=true", body).await;
        assert!(out.starts_with("HTTP/1.1 200"), "{out}");
        assert!(out.contains("request-id: req_fake_"), "{out}");
        assert!(out.contains("event: content_block_delta\ndata: "));
        assert!(out.contains(r#""thinking_delta""#) && out.contains(r#""text":"Hel""#));
        assert!(out.contains(r#""stop_reason":"end_turn""#));
        let out = post(fake.addr(), "/v1/messages?beta=true", body).await;
        assert!(
            out.contains(r#""input_json_delta""#) && out.contains(r#""stop_reason":"tool_use""#)
        );
        // A non-streamed side call does not consume the script.
        let out = post(fake.addr(), "/v1/messages", r#"{"messages":[]}"#).await;
        assert!(out.starts_with("HTTP/1.1 200"), "{out}");
        let out = post(fake.addr(), "/v1/messages?beta=true", body).await;
        assert!(out.starts_with("HTTP/1.1 500"), "{out}");
        assert!(out.contains("boom"));
        assert_eq!(fake.model_requests().len(), 3);
        assert_eq!(fake.model_requests()[0].content_blocks()[0]["text"], "hi");
    }

    #[tokio::test]
    async fn keep_alive_serves_several_requests_on_one_connection() {
        let fake = FakeMessages::start().await.unwrap();
        let mut s = tokio::net::TcpStream::connect(fake.addr()).await.unwrap();
        for _ in 0..2 {
            let body = r#"{"stream":true,"messages":[]}"#;
            let req = format!(
                "POST /v1/messages HTTP/1.1\r\ncontent-length: {}\r\n\r\n{body}",
                body.len()
            );
            s.write_all(req.as_bytes()).await.unwrap();
            let mut got = Vec::new();
            let mut buf = [0u8; 4096];
            while !String::from_utf8_lossy(&got).contains("0\r\n\r\n") {
                let n = s.read(&mut buf).await.unwrap();
                assert!(n > 0, "connection closed");
                got.extend_from_slice(&buf[..n]);
            }
            assert!(String::from_utf8_lossy(&got).contains("message_stop"));
        }
    }
}
