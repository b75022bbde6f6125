//! A scripted fake of an OpenAI-compatible Chat Completions API (`POST /v1/chat/completions`,
//! `stream: true`, SSE `data: {chunk}` frames then `data: [DONE]`), for driving ACP agents
//! offline — opencode through its `@ai-sdk/openai-compatible` provider
//! ([`FakeChat::opencode_config`]). Built on [`crate::http`]; 127.0.0.1 only.
//!
//! Each test queues replies; each *model* request (one that offers tools) takes the next one
//! (an empty queue answers a short text). opencode also makes one extra call per new session
//! with no tools — its title generator — which is answered with a fixed title and never
//! consumes the script (its order against the model call is not fixed). Every request is
//! recorded (method, path, headers, JSON body) for "what did the model see" checks.
//!
//! The chunk shapes are the ones opencode 1.18.33 was seen reading (see the ACP facts):
//! text in `delta.content`, reasoning in `delta.reasoning_content`, tool calls in
//! `delta.tool_calls` (the first piece carries `id`, `type` and `function.name`; the
//! arguments follow split across chunks), a `finish_reason` chunk, then a last chunk with
//! `choices: []` and `usage`.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};

use crate::http::{wait_until, Handler, HttpRequest, HttpResponse, HttpServer, SseSender};
use crate::script::Scripted;

/// The model id the fake serves (the provider's model key in [`FakeChat::opencode_config`]).
pub const FAKE_MODEL: &str = "fake-model";
/// The provider id in [`FakeChat::opencode_config`]; the agent's model is `fake/fake-model`.
pub const FAKE_PROVIDER: &str = "fake";
/// What the title generator's call is answered with.
pub const FAKE_TITLE: &str = "Fake title";
/// Token counts every completed stream reports.
pub const USAGE_PROMPT: u64 = 10;
pub const USAGE_COMPLETION: u64 = 5;

/// One step of a streamed reply.
#[derive(Debug, Clone)]
pub enum Step {
    /// Reasoning streaming in these pieces (`delta.reasoning_content`).
    Reasoning(Vec<String>),
    /// Assistant text streaming in these pieces (`delta.content`).
    Text(Vec<String>),
    /// A function call; `arguments` (JSON text) streams in three pieces.
    ToolCall {
        id: String,
        name: String,
        arguments: String,
    },
    Sleep(Duration),
    /// Stop here without `finish_reason`/`[DONE]`, keeping the stream open until the client
    /// hangs up (bounded at 120 s so a forgotten stream cannot keep a test alive).
    Hang,
}

#[derive(Debug, Clone)]
pub enum Reply {
    /// 200 + SSE: the steps, a `finish_reason` chunk, a usage chunk, `[DONE]`.
    Stream(Vec<Step>),
    /// An HTTP error with an OpenAI error body.
    Status(u16, String),
}

impl Reply {
    pub fn text(pieces: &[&str]) -> Self {
        Self::Stream(vec![Step::Text(owned(pieces))])
    }

    pub fn reasoning_then_text(reasoning: &[&str], text: &[&str]) -> Self {
        Self::Stream(vec![
            Step::Reasoning(owned(reasoning)),
            Step::Text(owned(text)),
        ])
    }

    /// A sentence, then one call of the tool `name` with `arguments`.
    pub fn tool(id: &str, name: &str, arguments: Value) -> Self {
        Self::Stream(vec![
            Step::Text(owned(&["I will ", "use a tool."])),
            Step::ToolCall {
                id: id.into(),
                name: name.into(),
                arguments: arguments.to_string(),
            },
        ])
    }

    /// The model asks to run `command` with opencode's `bash` tool.
    pub fn bash(id: &str, command: &str) -> Self {
        Self::tool(
            id,
            "bash",
            json!({"command": command, "description": "Run a command"}),
        )
    }

    /// The model asks to write `content` to `path` (absolute) with opencode's `write` tool.
    pub fn write(id: &str, path: &str, content: &str) -> Self {
        Self::tool(id, "write", json!({"filePath": path, "content": content}))
    }

    /// `n` text pieces (`chunk00 `, `chunk01 `, …), `every` apart, then hang: for interrupts.
    pub fn slow_text(n: usize, every: Duration) -> Self {
        let mut steps = Vec::new();
        for i in 0..n {
            steps.push(Step::Text(vec![format!("chunk{i:02} ")]));
            steps.push(Step::Sleep(every));
        }
        steps.push(Step::Hang);
        Self::Stream(steps)
    }

    /// `n` text pieces, `every` apart, then a normal end: for runs that overlap in time.
    pub fn slow_text_then_end(n: usize, every: Duration) -> Self {
        let mut steps = Vec::new();
        for i in 0..n {
            steps.push(Step::Text(vec![format!("chunk{i:02} ")]));
            steps.push(Step::Sleep(every));
        }
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

    pub fn is_completion(&self) -> bool {
        self.method == "POST" && self.path.ends_with("/chat/completions")
    }

    /// A side call offering no tools (opencode's title generator): answered without
    /// consuming the script.
    pub fn is_side_call(&self) -> bool {
        self.is_completion()
            && self.body["tools"]
                .as_array()
                .is_none_or(|tools| tools.is_empty())
    }

    /// A completion call offering tools: the agent's turn.
    pub fn is_model_call(&self) -> bool {
        self.is_completion() && !self.is_side_call()
    }

    /// The names of the tools offered.
    pub fn tool_names(&self) -> Vec<String> {
        self.body["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| t["function"]["name"].as_str().map(str::to_owned))
            .collect()
    }

    /// The `messages` of the given `role` (`user`, `assistant`, `tool`, `system`).
    pub fn messages_of(&self, role: &str) -> Vec<Value> {
        self.body["messages"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|m| m["role"] == role)
            .cloned()
            .collect()
    }

    /// The whole conversation as one string, for "did the model see X" checks.
    pub fn transcript(&self) -> String {
        self.body["messages"].to_string()
    }

    /// The base64 data of every `image_url` part with a `data:` URL, in order.
    pub fn images(&self) -> Vec<String> {
        self.body["messages"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|m| m["content"].as_array())
            .flatten()
            .filter(|part| part["type"] == "image_url")
            .filter_map(|part| {
                let url = part["image_url"]["url"]
                    .as_str()
                    .or(part["image_url"].as_str())?;
                url.split_once(";base64,").map(|(_, d)| d.to_owned())
            })
            .collect()
    }
}

type State = Scripted<Reply, RecordedRequest>;

pub struct FakeChat {
    server: HttpServer,
    state: Arc<State>,
}

impl FakeChat {
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

    /// `http://127.0.0.1:PORT/v1` (a provider's `baseURL`; the client appends
    /// `/chat/completions`).
    pub fn base_url(&self) -> String {
        format!("{}/v1", self.server.base_url())
    }

    pub fn addr(&self) -> std::net::SocketAddr {
        self.server.addr()
    }

    /// An opencode config (`OPENCODE_CONFIG`) whose only provider and model are this server:
    /// no auto-update, no sharing, no LSP, no formatter.
    pub fn opencode_config(&self) -> Value {
        json!({
            "autoupdate": false,
            "share": "disabled",
            "enabled_providers": [FAKE_PROVIDER],
            "model": format!("{FAKE_PROVIDER}/{FAKE_MODEL}"),
            "small_model": format!("{FAKE_PROVIDER}/{FAKE_MODEL}"),
            "lsp": false,
            "formatter": false,
            "provider": {FAKE_PROVIDER: {
                "npm": "@ai-sdk/openai-compatible",
                "name": "Fake",
                "options": {"baseURL": self.base_url(), "apiKey": "dummy-key"},
                "models": {FAKE_MODEL: {"name": "Fake Model", "tool_call": true,
                    // Without these opencode replaces an image with "this model does not
                    // support image input".
                    "attachment": true, "modalities": {"input": ["text", "image"], "output": ["text"]},
                    "limit": {"context": 128000, "output": 4096}}}
            }}
        })
    }

    pub fn push(&self, reply: Reply) {
        self.state.push(reply);
    }

    /// Every request received, in order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.state.requests()
    }

    /// Only the agent's model calls (those offering tools), in order.
    pub fn model_requests(&self) -> Vec<RecordedRequest> {
        self.requests()
            .into_iter()
            .filter(RecordedRequest::is_model_call)
            .collect()
    }

    /// The last model call (`None` before the first).
    pub fn last_request(&self) -> Option<RecordedRequest> {
        self.model_requests().pop()
    }

    /// The base64 data of the first image any model call carried.
    pub fn image_sent(&self) -> Option<String> {
        self.model_requests()
            .iter()
            .find_map(|r| r.images().into_iter().next())
    }

    /// Streams the client abandoned before the end (interrupts, crashes).
    pub fn disconnects(&self) -> usize {
        self.state.disconnects()
    }

    pub async fn wait_for_model_requests(&self, n: usize, timeout: Duration) -> bool {
        wait_until(timeout, || {
            self.state.count_requests(RecordedRequest::is_model_call) >= n
        })
        .await
    }
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
    let (is_completion, is_side) = (rec.is_completion(), rec.is_side_call());
    let streamed = rec.body["stream"] == true;
    state.record(rec);
    if !is_completion {
        return HttpResponse::json(
            404,
            &json!({"error": {"message": format!("no route {} {}", req.method, req.path),
                "type": "invalid_request_error", "code": "not_found"}}),
        );
    }
    let reply = if is_side {
        Reply::text(&[FAKE_TITLE])
    } else {
        state
            .pop()
            .unwrap_or_else(|| Reply::text(&["(fake) no script left"]))
    };
    match reply {
        Reply::Status(code, message) => HttpResponse::json(
            code,
            &json!({"error": {"message": message, "type": "fake_error", "code": code.to_string()}}),
        ),
        Reply::Stream(steps) if !streamed => HttpResponse::json(200, &whole_completion(n, &steps)),
        Reply::Stream(steps) => {
            let (resp, tx) = HttpResponse::sse();
            tokio::spawn(async move {
                if !stream(&tx, n, steps).await {
                    state.note_disconnect();
                }
            });
            resp
        }
    }
}

fn usage() -> Value {
    json!({"prompt_tokens": USAGE_PROMPT, "completion_tokens": USAGE_COMPLETION,
        "total_tokens": USAGE_PROMPT + USAGE_COMPLETION})
}

/// A non-streamed answer (a side call without `stream: true`): the text of the steps, no tools.
fn whole_completion(n: usize, steps: &[Step]) -> Value {
    let text: String = steps
        .iter()
        .filter_map(|s| match s {
            Step::Text(p) => Some(p.concat()),
            _ => None,
        })
        .collect();
    json!({"id": format!("chatcmpl-fake-{n}"), "object": "chat.completion", "created": 0,
        "model": FAKE_MODEL, "choices": [{"index": 0, "finish_reason": "stop",
            "message": {"role": "assistant", "content": text}}], "usage": usage()})
}

/// Split a string into about `n` pieces on char boundaries (tool arguments stream in parts).
fn pieces(s: &str, n: usize) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    let size = chars.len().div_ceil(n.max(1)).max(1);
    chars.chunks(size).map(|c| c.iter().collect()).collect()
}

/// One SSE frame as the OpenAI API writes it: no `event:` line.
pub fn data_frame(data: &str) -> Vec<u8> {
    format!("data: {data}\n\n").into_bytes()
}

/// `false` if the client went away before the end.
async fn stream(tx: &SseSender, n: usize, steps: Vec<Step>) -> bool {
    let id = format!("chatcmpl-fake-{n}");
    let chunk = |delta: Value, finish: Value| {
        json!({"id": id, "object": "chat.completion.chunk", "created": 0, "model": FAKE_MODEL,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    };
    let mut frames: Vec<Value> = vec![chunk(
        json!({"role": "assistant", "content": ""}),
        Value::Null,
    )];
    macro_rules! flush {
        () => {
            for data in frames.drain(..) {
                if !tx.raw(data_frame(&data.to_string())).await {
                    return false;
                }
            }
        };
    }
    let mut tool_index = 0u32;
    for step in steps {
        match step {
            Step::Reasoning(parts) => frames.extend(
                parts
                    .into_iter()
                    .map(|p| chunk(json!({"reasoning_content": p}), Value::Null)),
            ),
            Step::Text(parts) => frames.extend(
                parts
                    .into_iter()
                    .map(|p| chunk(json!({"content": p}), Value::Null)),
            ),
            Step::ToolCall {
                id,
                name,
                arguments,
            } => {
                frames.push(chunk(
                    json!({"tool_calls": [{"index": tool_index, "id": id, "type": "function",
                        "function": {"name": name, "arguments": ""}}]}),
                    Value::Null,
                ));
                for p in pieces(&arguments, 3) {
                    frames.push(chunk(
                        json!({"tool_calls": [{"index": tool_index, "function": {"arguments": p}}]}),
                        Value::Null,
                    ));
                }
                tool_index += 1;
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
    let finish = if tool_index > 0 { "tool_calls" } else { "stop" };
    frames.push(chunk(json!({}), json!(finish)));
    frames.push(
        json!({"id": id, "object": "chat.completion.chunk", "created": 0,
        "model": FAKE_MODEL, "choices": [], "usage": usage()}),
    );
    flush!();
    tx.raw(data_frame("[DONE]")).await
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

    /// The `data:` payloads of a raw chunked HTTP answer, as JSON (`[DONE]` as a string).
    fn data_of(raw: &str) -> Vec<Value> {
        raw.lines()
            .filter_map(|l| l.strip_prefix("data: "))
            .map(|d| serde_json::from_str(d).unwrap_or_else(|_| json!(d)))
            .collect()
    }

    const MODEL_CALL: &str = r#"{"model":"fake-model","stream":true,"tools":[{"type":"function","function":{"name":"bash"}}],"messages":[{"role":"user","content":[{"type":"text","text":"hi"},{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}}]}]}"#;

    #[tokio::test]
    async fn streams_text_reasoning_tool_calls_usage_and_done() {
        let fake = FakeChat::start().await.unwrap();
        fake.push(Reply::reasoning_then_text(&["hmm"], &["Hel", "lo"]));
        fake.push(Reply::bash("call_1", "ls -la"));
        fake.push(Reply::status(500, "boom"));
        let out = post(fake.addr(), "/v1/chat/completions", MODEL_CALL).await;
        assert!(out.starts_with("HTTP/1.1 200"), "{out}");
        assert!(out.contains("content-type: text/event-stream"), "{out}");
        assert!(
            !out.contains("event:"),
            "OpenAI frames carry no event name: {out}"
        );
        let data = data_of(&out);
        assert_eq!(data.last().unwrap(), "[DONE]");
        let deltas: Vec<&Value> = data.iter().map(|d| &d["choices"][0]["delta"]).collect();
        assert!(deltas.iter().any(|d| d["reasoning_content"] == "hmm"));
        let text: String = deltas
            .iter()
            .filter_map(|d| d["content"].as_str())
            .collect();
        assert_eq!(text, "Hello");
        assert!(data
            .iter()
            .any(|d| d["choices"][0]["finish_reason"] == "stop"));
        let usage = &data[data.len() - 2];
        assert_eq!(usage["choices"], json!([]));
        assert_eq!(usage["usage"]["prompt_tokens"], USAGE_PROMPT);

        let out = post(fake.addr(), "/v1/chat/completions", MODEL_CALL).await;
        let data = data_of(&out);
        let calls: Vec<&Value> = data
            .iter()
            .filter_map(|d| d["choices"][0]["delta"]["tool_calls"].get(0))
            .collect();
        assert_eq!(calls[0]["id"], "call_1");
        assert_eq!(calls[0]["function"]["name"], "bash");
        assert!(calls.len() > 2, "arguments split across chunks: {calls:?}");
        let args: String = calls
            .iter()
            .filter_map(|c| c["function"]["arguments"].as_str())
            .collect();
        let args: Value = serde_json::from_str(&args).unwrap();
        assert_eq!(args["command"], "ls -la");
        assert!(data
            .iter()
            .any(|d| d["choices"][0]["finish_reason"] == "tool_calls"));

        let out = post(fake.addr(), "/v1/chat/completions", MODEL_CALL).await;
        assert!(
            out.starts_with("HTTP/1.1 500") && out.contains("boom"),
            "{out}"
        );
        // An empty script still answers.
        let out = post(fake.addr(), "/v1/chat/completions", MODEL_CALL).await;
        assert!(out.contains("no script left"), "{out}");
        let reqs = fake.model_requests();
        assert_eq!(reqs.len(), 4);
        assert_eq!(reqs[0].tool_names(), vec!["bash"]);
        assert_eq!(reqs[0].messages_of("user").len(), 1);
        assert!(fake.last_request().unwrap().transcript().contains("hi"));
        assert_eq!(fake.image_sent().as_deref(), Some("AAAA"));
    }

    #[tokio::test]
    async fn a_call_without_tools_gets_a_title_and_keeps_the_script() {
        let fake = FakeChat::start().await.unwrap();
        fake.push(Reply::text(&["scripted"]));
        let title = r#"{"model":"fake-model","stream":true,"messages":[{"role":"system","content":"You are a title generator."}]}"#;
        let out = post(fake.addr(), "/v1/chat/completions", title).await;
        assert!(out.contains(FAKE_TITLE), "{out}");
        // Not streamed: one JSON completion.
        let out = post(fake.addr(), "/v1/chat/completions", r#"{"tools":[]}"#).await;
        assert!(out.contains(r#""object":"chat.completion""#), "{out}");
        assert!(out.contains(FAKE_TITLE), "{out}");
        let out = post(fake.addr(), "/v1/chat/completions", MODEL_CALL).await;
        assert!(out.contains("scripted"), "{out}");
        assert_eq!(fake.requests().len(), 3);
        assert_eq!(fake.model_requests().len(), 1);
        let out = post(fake.addr(), "/v1/models", "{}").await;
        assert!(out.starts_with("HTTP/1.1 404"), "{out}");
    }

    #[tokio::test]
    async fn notices_a_client_hanging_up_mid_stream() {
        let fake = FakeChat::start().await.unwrap();
        fake.push(Reply::slow_text(100, Duration::from_millis(50)));
        let mut s = tokio::net::TcpStream::connect(fake.addr()).await.unwrap();
        let req = format!(
            "POST /v1/chat/completions HTTP/1.1\r\ncontent-length: {}\r\n\r\n{MODEL_CALL}",
            MODEL_CALL.len()
        );
        s.write_all(req.as_bytes()).await.unwrap();
        let mut got = Vec::new();
        let mut buf = [0u8; 1024];
        while !String::from_utf8_lossy(&got).contains("chunk00") {
            let n = s.read(&mut buf).await.unwrap();
            assert!(n > 0, "closed before the first piece");
            got.extend_from_slice(&buf[..n]);
        }
        drop(s);
        assert!(wait_until(Duration::from_secs(5), || fake.disconnects() == 1).await);
        assert!(
            fake.wait_for_model_requests(1, Duration::from_secs(1))
                .await
        );
    }

    #[test]
    fn the_opencode_config_points_at_this_server() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            let fake = FakeChat::start().await.unwrap();
            let cfg = fake.opencode_config();
            assert_eq!(cfg["model"], "fake/fake-model");
            assert_eq!(
                cfg["provider"]["fake"]["options"]["baseURL"],
                format!("http://{}/v1", fake.addr())
            );
            assert_eq!(cfg["enabled_providers"], json!(["fake"]));
        });
    }
}
