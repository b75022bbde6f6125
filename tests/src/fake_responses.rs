//! A scripted fake of the OpenAI Responses API (`POST /v1/responses`, SSE), for driving the
//! real codex binary offline. Each test queues replies; each model request takes the next one
//! (an empty queue answers a short text, like the research fake). Every request body is
//! recorded for assertions (e.g. that an image arrived as `input_image`).
//!
//! Point codex at it with the provider block from [`FakeResponses::provider_config`].

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};

use crate::http::{wait_until, Handler, HttpRequest, HttpResponse, HttpServer, SseSender};
use crate::script::Scripted;

/// One step of a streamed reply.
#[derive(Debug, Clone)]
pub enum Step {
    /// A reasoning item whose summary streams in these pieces.
    Reasoning(Vec<String>),
    /// An assistant message streaming in these pieces.
    Text(Vec<String>),
    /// One assistant message whose pieces go out this far apart (a paced stream).
    PacedText(Vec<String>, Duration),
    /// `function_call` (e.g. `exec_command` with `{"cmd": ...}`).
    FunctionCall {
        call_id: String,
        name: String,
        arguments: String,
    },
    /// `custom_tool_call` (freeform tools such as `apply_patch`).
    CustomToolCall {
        call_id: String,
        name: String,
        input: String,
    },
    Sleep(Duration),
    /// Stop here without `response.completed`, keeping the stream open until the client hangs up.
    Hang,
}

#[derive(Debug, Clone)]
pub enum Reply {
    /// 200 + SSE: `response.created`, the steps, `response.completed` (unless a step hangs).
    Stream(Vec<Step>),
    /// A plain HTTP error with a JSON error body.
    Status(u16, String),
}

impl Reply {
    pub fn text(pieces: &[&str]) -> Self {
        Self::Stream(vec![Step::Text(
            pieces.iter().map(|s| s.to_string()).collect(),
        )])
    }

    pub fn reasoning_then_text(summary: &[&str], text: &[&str]) -> Self {
        Self::Stream(vec![
            Step::Reasoning(summary.iter().map(|s| s.to_string()).collect()),
            Step::Text(text.iter().map(|s| s.to_string()).collect()),
        ])
    }

    /// The model asks to run `cmd` through codex's `exec_command` tool.
    pub fn exec_command(call_id: &str, cmd: &str) -> Self {
        Self::Stream(vec![Step::FunctionCall {
            call_id: call_id.into(),
            name: "exec_command".into(),
            arguments: json!({ "cmd": cmd }).to_string(),
        }])
    }

    /// The model edits files with the freeform `apply_patch` tool (catalog models only).
    pub fn apply_patch(call_id: &str, patch: &str) -> Self {
        Self::Stream(vec![Step::CustomToolCall {
            call_id: call_id.into(),
            name: "apply_patch".into(),
            input: patch.into(),
        }])
    }

    /// `n` text pieces, `every` apart, then hang: for interrupt tests.
    pub fn slow_text(n: usize, every: Duration) -> Self {
        let mut steps = Vec::new();
        for i in 0..n {
            steps.push(Step::Text(vec![format!("chunk{i} ")]));
            steps.push(Step::Sleep(every));
        }
        steps.push(Step::Hang);
        Self::Stream(steps)
    }

    /// One message of `n` pieces (`chunk0 chunk1 …`), `every` apart, then a normal end.
    pub fn paced_message(n: usize, every: Duration) -> Self {
        let pieces = (0..n).map(|i| format!("chunk{i} ")).collect();
        Self::Stream(vec![Step::PacedText(pieces, every)])
    }

    /// `n` text pieces (each its own message), `every` apart, then a normal end: for
    /// overlapping turns.
    pub fn slow_text_then_end(n: usize, every: Duration) -> Self {
        let mut steps = Vec::new();
        for i in 0..n {
            steps.push(Step::Text(vec![format!("chunk{i} ")]));
            steps.push(Step::Sleep(every));
        }
        Self::Stream(steps)
    }

    pub fn status(code: u16, message: &str) -> Self {
        Self::Status(code, message.into())
    }
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
    /// All `content` parts of every `input` message, in order.
    pub fn input_content(&self) -> Vec<Value> {
        self.body["input"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|m| m["content"].as_array())
            .flatten()
            .cloned()
            .collect()
    }

    /// `input` items of the given `type` (e.g. `function_call_output`).
    pub fn input_items(&self, ty: &str) -> Vec<Value> {
        self.body["input"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|i| i["type"] == ty)
            .cloned()
            .collect()
    }
}

type State = Scripted<Reply, RecordedRequest>;

pub struct FakeResponses {
    server: HttpServer,
    state: Arc<State>,
}

impl FakeResponses {
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

    /// The `base_url` for a provider: `http://127.0.0.1:PORT/v1`.
    pub fn base_url(&self) -> String {
        format!("{}/v1", self.server.base_url())
    }

    pub fn push(&self, reply: Reply) {
        self.state.push(reply);
    }

    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.state.requests()
    }

    /// Streams the client abandoned before the end (interrupts, crashes).
    pub fn disconnects(&self) -> usize {
        self.state.disconnects()
    }

    pub async fn wait_for_requests(&self, n: usize, timeout: Duration) -> bool {
        wait_until(timeout, || self.state.count_requests(|_| true) >= n).await
    }
}

async fn handle(state: Arc<State>, req: HttpRequest) -> HttpResponse {
    let body = serde_json::from_slice(&req.body).unwrap_or(Value::Null);
    state.record(RecordedRequest {
        method: req.method.clone(),
        path: req.path.clone(),
        headers: req.headers.clone(),
        body,
    });
    if req.method != "POST" || !req.path.ends_with("/responses") {
        return HttpResponse::json(
            404,
            &json!({"error": {"message": format!("no route {} {}", req.method, req.path)}}),
        );
    }
    let reply = state
        .pop()
        .unwrap_or_else(|| Reply::text(&["(fake) no script left"]));
    match reply {
        Reply::Status(code, message) => HttpResponse::json(
            code,
            &json!({"error": {"message": message, "type": "fake_error", "code": code.to_string()}}),
        ),
        Reply::Stream(steps) => {
            let (resp, tx) = HttpResponse::sse();
            let n = state.next_seq();
            tokio::spawn(async move {
                if !stream(&tx, n, steps).await {
                    state.note_disconnect();
                }
            });
            resp
        }
    }
}

/// `false` if the client went away before the end.
async fn stream(tx: &SseSender, n: usize, steps: Vec<Step>) -> bool {
    let resp_id = format!("resp_fake_{n}");
    let ev = |ty: &str, mut data: Value| {
        data["type"] = json!(ty);
        (ty.to_owned(), data)
    };
    let mut frames: Vec<(String, Value)> = Vec::new();
    macro_rules! flush {
        () => {
            for (ty, data) in frames.drain(..) {
                if !tx.event(&ty, &data).await {
                    return false;
                }
            }
        };
    }
    frames.push(ev("response.created", json!({"response": {"id": resp_id}})));
    for (idx, step) in steps.into_iter().enumerate() {
        // Text is paced text without the pauses: one message, its deltas in this read.
        let every = match &step {
            Step::PacedText(_, every) => *every,
            _ => Duration::ZERO,
        };
        match step {
            Step::Reasoning(pieces) => {
                let id = format!("rs_fake_{n}_{idx}");
                frames.push(ev("response.output_item.added", json!({"output_index": idx, "item": {"type": "reasoning", "id": id, "summary": []}})));
                frames.push(ev(
                    "response.reasoning_summary_part.added",
                    json!({"item_id": id, "output_index": idx, "summary_index": 0, "part": {"type": "summary_text", "text": ""}}),
                ));
                for p in &pieces {
                    frames.push(ev(
                        "response.reasoning_summary_text.delta",
                        json!({"item_id": id, "output_index": idx, "summary_index": 0, "delta": p}),
                    ));
                }
                let full: String = pieces.concat();
                frames.push(ev(
                    "response.output_item.done",
                    json!({"output_index": idx, "item": {"type": "reasoning", "id": id, "summary": [{"type": "summary_text", "text": full}]}}),
                ));
            }
            Step::Text(pieces) | Step::PacedText(pieces, _) => {
                let id = format!("msg_fake_{n}_{idx}");
                frames.push(ev(
                    "response.output_item.added",
                    json!({"output_index": idx, "item": {"type": "message", "role": "assistant", "id": id, "content": []}}),
                ));
                for p in &pieces {
                    frames.push(ev(
                        "response.output_text.delta",
                        json!({"item_id": id, "output_index": idx, "content_index": 0, "delta": p}),
                    ));
                    if !every.is_zero() {
                        flush!();
                        tokio::select! {
                            _ = tokio::time::sleep(every) => {}
                            _ = tx.closed() => return false,
                        }
                    }
                }
                let full: String = pieces.concat();
                frames.push(ev(
                    "response.output_item.done",
                    json!({"output_index": idx, "item": {"type": "message", "role": "assistant", "id": id,
                        "content": [{"type": "output_text", "text": full, "annotations": []}]}}),
                ));
            }
            Step::FunctionCall { call_id, name, arguments } => frames.push(ev(
                "response.output_item.done",
                json!({"output_index": idx, "item": {"type": "function_call", "id": format!("fc_{call_id}"),
                    "call_id": call_id, "name": name, "arguments": arguments}}),
            )),
            Step::CustomToolCall { call_id, name, input } => frames.push(ev(
                "response.output_item.done",
                json!({"output_index": idx, "item": {"type": "custom_tool_call", "id": format!("ctc_{call_id}"),
                    "call_id": call_id, "name": name, "input": input}}),
            )),
            Step::Sleep(d) => {
                flush!();
                tokio::select! {
                    _ = tokio::time::sleep(d) => {}
                    _ = tx.closed() => return false,
                }
            }
            Step::Hang => {
                flush!();
                // Bounded so a forgotten stream cannot keep a test process alive forever.
                tokio::select! {
                    _ = tokio::time::sleep(Duration::from_secs(120)) => {}
                    _ = tx.closed() => {}
                }
                return false;
            }
        }
    }
    frames.push(ev(
        "response.completed",
        json!({"response": {"id": resp_id, "usage": {
            "input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 15}}}),
    ));
    flush!();
    true
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    async fn post(
        addr: std::net::SocketAddr,
        body: &str,
        keep: Option<&mut tokio::net::TcpStream>,
    ) -> String {
        let req = format!(
            "POST /v1/responses HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
        let mut owned;
        let s = match keep {
            Some(s) => s,
            None => {
                owned = tokio::net::TcpStream::connect(addr).await.unwrap();
                &mut owned
            }
        };
        s.write_all(req.as_bytes()).await.unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).await.unwrap();
        out
    }

    #[tokio::test]
    async fn streams_scripted_sse_and_records_bodies() {
        let fake = FakeResponses::start().await.unwrap();
        fake.push(Reply::reasoning_then_text(&["think"], &["Hel", "lo"]));
        fake.push(Reply::status(401, "bad key"));
        let addr = fake.server.addr();
        let out = post(
            addr,
            r#"{"input":[{"role":"user","content":[{"type":"input_text","text":"hi"}]}]}"#,
            None,
        )
        .await;
        assert!(out.starts_with("HTTP/1.1 200"), "{out}");
        assert!(out.contains("transfer-encoding: chunked"));
        assert!(out.contains("event: response.reasoning_summary_text.delta\ndata: "));
        assert!(out.contains("\"delta\":\"Hel\""));
        assert!(out.contains("event: response.completed"));
        let out = post(addr, "{}", None).await;
        assert!(out.starts_with("HTTP/1.1 401"), "{out}");
        let reqs = fake.requests();
        assert_eq!(reqs.len(), 2);
        assert_eq!(reqs[0].input_content()[0]["text"], "hi");
    }

    #[tokio::test]
    async fn notices_a_client_hanging_up_mid_stream() {
        let fake = FakeResponses::start().await.unwrap();
        fake.push(Reply::slow_text(100, Duration::from_millis(50)));
        let mut s = tokio::net::TcpStream::connect(fake.server.addr())
            .await
            .unwrap();
        s.write_all(b"POST /v1/responses HTTP/1.1\r\ncontent-length: 2\r\n\r\n{}")
            .await
            .unwrap();
        let mut buf = [0u8; 256];
        let n = s.read(&mut buf).await.unwrap();
        assert!(n > 0);
        drop(s);
        assert!(wait_until(Duration::from_secs(5), || fake.disconnects() == 1).await);
    }
}
