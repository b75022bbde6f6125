//! A scripted fake of an OpenAI-compatible Chat Completions API (`POST /v1/chat/completions`,
//! `stream: true`, SSE `data: {chunk}` frames then `data: [DONE]`), for driving ACP agents
//! offline — opencode through its `@ai-sdk/openai-compatible` provider
//! ([`FakeChat::opencode_config`]). Built on the skeleton in [`crate::script`]; 127.0.0.1 only.
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

use crate::http::HttpResponse;
use crate::script::{self, pieces, play, Api, BashTool, FakeServer, Outbox, State};

/// Text in `delta.content`, reasoning in `delta.reasoning_content`, tool calls in
/// `delta.tool_calls`.
pub use crate::script::Step;

/// The model id the fake serves (the provider's model key in [`FakeChat::opencode_config`]).
pub const FAKE_MODEL: &str = "fake-model";
/// The provider id in [`FakeChat::opencode_config`]; the agent's model is `fake/fake-model`.
pub const FAKE_PROVIDER: &str = "fake";
/// What the title generator's call is answered with.
pub const FAKE_TITLE: &str = "Fake title";
/// Token counts every completed stream reports.
pub const USAGE_PROMPT: u64 = 10;
pub const USAGE_COMPLETION: u64 = 5;

/// 200 + SSE (the steps, a `finish_reason` chunk, a usage chunk, `[DONE]`), or an HTTP error
/// with an OpenAI error body. The constructors shared with the other fakes are in
/// [`script::Reply`]; [`Reply::bash`] uses opencode's `bash` tool.
pub type Reply = script::Reply<ChatApi>;

/// opencode's shell tool.
impl BashTool for ChatApi {
    const BASH: &'static str = "bash";
}

impl Reply {
    /// The model asks to write `content` to `path` (absolute) with opencode's `write` tool.
    pub fn write(id: &str, path: &str, content: &str) -> Self {
        Self::tool(id, "write", json!({"filePath": path, "content": content}))
    }
}

/// The OpenAI Chat Completions API, as [`FakeChat`] speaks it.
#[derive(Debug, Clone)]
pub struct ChatApi;

pub type RecordedRequest = script::Recorded<ChatApi>;

impl RecordedRequest {
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

    /// The whole conversation (`messages`, system prompt included) as one string, for "did
    /// the model see X" checks.
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

/// Its `base_url` is `http://127.0.0.1:PORT/v1` (a provider's `baseURL`; the client appends
/// `/chat/completions`); its model requests are the calls offering tools.
pub type FakeChat = FakeServer<ChatApi>;

impl FakeChat {
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
}

impl Api for ChatApi {
    type Step = Step;
    const BASE_PATH: &'static str = "/v1";

    /// A completion call offering tools: the agent's turn.
    fn is_model_call(req: &RecordedRequest) -> bool {
        req.is_completion() && !req.is_side_call()
    }

    fn answer(state: &Arc<State<Self>>, req: &RecordedRequest) -> HttpResponse {
        let n = state.next_seq();
        if !req.is_completion() {
            return HttpResponse::json(
                404,
                &json!({"error": {"message": format!("no route {} {}", req.method, req.path),
                    "type": "invalid_request_error", "code": "not_found"}}),
            );
        }
        let reply = if req.is_side_call() {
            Reply::text(&[FAKE_TITLE])
        } else {
            state.next_reply()
        };
        match reply {
            Reply::Stream(steps) if req.body["stream"] != true => {
                HttpResponse::json(200, &whole_completion(n, &steps))
            }
            reply => play(state, reply, n),
        }
    }

    fn stream(out: &mut Outbox, n: usize, steps: Vec<Step>) {
        stream(out, n, steps);
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
            Step::Text(p) | Step::PacedText(p, _) => Some(p.concat()),
            _ => None,
        })
        .collect();
    json!({"id": format!("chatcmpl-fake-{n}"), "object": "chat.completion", "created": 0,
        "model": FAKE_MODEL, "choices": [{"index": 0, "finish_reason": "stop",
            "message": {"role": "assistant", "content": text}}], "usage": usage()})
}

fn stream(out: &mut Outbox, n: usize, steps: Vec<Step>) {
    let id = format!("chatcmpl-fake-{n}");
    let chunk = |delta: Value, finish: Value| {
        json!({"id": id, "object": "chat.completion.chunk", "created": 0, "model": FAKE_MODEL,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
        .to_string()
    };
    out.data(&chunk(
        json!({"role": "assistant", "content": ""}),
        Value::Null,
    ));
    let mut tool_index = 0u32;
    for step in steps {
        let every = match &step {
            Step::PacedText(_, every) => *every,
            _ => Duration::ZERO,
        };
        match step {
            Step::Reasoning(parts) => {
                for p in parts {
                    out.data(&chunk(json!({"reasoning_content": p}), Value::Null));
                }
            }
            // Text is paced text without the pauses.
            Step::Text(parts) | Step::PacedText(parts, _) => {
                for p in parts {
                    out.data(&chunk(json!({"content": p}), Value::Null));
                    if !every.is_zero() {
                        out.sleep(every);
                    }
                }
            }
            Step::ToolUse { id, name, input } => {
                out.data(&chunk(
                    json!({"tool_calls": [{"index": tool_index, "id": id, "type": "function",
                        "function": {"name": name, "arguments": ""}}]}),
                    Value::Null,
                ));
                for p in pieces(&input.to_string(), 3) {
                    out.data(&chunk(
                        json!({"tool_calls": [{"index": tool_index, "function": {"arguments": p}}]}),
                        Value::Null,
                    ));
                }
                tool_index += 1;
            }
            Step::Sleep(d) => out.sleep(d),
            Step::Hang => out.hang(),
        }
    }
    let finish = if tool_index > 0 { "tool_calls" } else { "stop" };
    out.data(&chunk(json!({}), json!(finish)));
    out.data(
        &json!({"id": id, "object": "chat.completion.chunk", "created": 0,
        "model": FAKE_MODEL, "choices": [], "usage": usage()})
        .to_string(),
    );
    out.data("[DONE]");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::{post, read_until, wait_until};
    use crate::script::common_script;
    use std::time::Duration;
    use tokio::io::AsyncWriteExt;

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
        let (fake, out) = common_script::<ChatApi>("/v1/chat/completions", MODEL_CALL).await;
        assert!(
            !out[0].contains("event:"),
            "OpenAI frames carry no event name: {}",
            out[0]
        );
        let data = data_of(&out[0]);
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

        let data = data_of(&out[1]);
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

        let reqs = fake.model_requests();
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
        read_until(&mut s, "chunk00").await;
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
