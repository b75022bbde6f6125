//! A scripted fake of the OpenAI Responses API (`POST /v1/responses`, SSE), for driving the
//! real codex binary offline. Each test queues replies; each model request takes the next one
//! (an empty queue answers a short text, like the research fake). Every request body is
//! recorded for assertions (e.g. that an image arrived as `input_image`).
//!
//! Built on the skeleton in [`crate::script`]. Point codex at it with its
//! [`base_url`](FakeServer::base_url) (an engine spec's `base_url`).

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};

use crate::http::HttpResponse;
use crate::script::{self, play, Api, FakeServer, Outbox, State};

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

/// The shared script's steps as Responses API items.
impl From<script::Step> for Step {
    fn from(step: script::Step) -> Self {
        match step {
            script::Step::Text(pieces) => Self::Text(pieces),
            script::Step::PacedText(pieces, every) => Self::PacedText(pieces, every),
            script::Step::Reasoning(pieces) => Self::Reasoning(pieces),
            script::Step::ToolUse { id, name, input } => Self::FunctionCall {
                call_id: id,
                name,
                arguments: input.to_string(),
            },
            script::Step::Sleep(every) => Self::Sleep(every),
            script::Step::Hang => Self::Hang,
        }
    }
}

/// 200 + SSE (`response.created`, the steps, `response.completed` unless a step hangs), or a
/// plain HTTP error with a JSON error body. The constructors shared with the other fakes are
/// in [`script::Reply`].
pub type Reply = script::Reply<ResponsesApi>;

impl Reply {
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
}

/// The OpenAI Responses API, as [`FakeResponses`] speaks it.
#[derive(Debug, Clone)]
pub struct ResponsesApi;

pub type RecordedRequest = script::Recorded<ResponsesApi>;

impl RecordedRequest {
    /// The last `input` item as JSON text: what a routed reply answers (a sub-agent's task,
    /// a tool's output).
    pub fn newest_input(&self) -> String {
        self.body["input"]
            .as_array()
            .and_then(|i| i.last())
            .map(Value::to_string)
            .unwrap_or_default()
    }

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

/// Its `base_url` is `http://127.0.0.1:PORT/v1` (a provider's `base_url`); every
/// `POST …/responses` takes the next scripted reply.
pub type FakeResponses = FakeServer<ResponsesApi>;

impl Api for ResponsesApi {
    type Step = Step;
    const BASE_PATH: &'static str = "/v1";

    /// Every call of the endpoint: each one takes the next scripted reply.
    fn is_model_call(req: &RecordedRequest) -> bool {
        req.method == "POST" && req.path.ends_with("/responses")
    }

    fn answer(state: &Arc<State<Self>>, req: &RecordedRequest) -> HttpResponse {
        if !req.is_model_call() {
            return HttpResponse::json(
                404,
                &json!({"error": {"message": format!("no route {} {}", req.method, req.path)}}),
            );
        }
        let reply = state.reply_for(&req.newest_input());
        // Ids count the streams only (not errors), so the first stream is `resp_fake_0`.
        let n = match reply {
            Reply::Stream(_) => state.next_seq(),
            Reply::Status(..) => 0,
        };
        play(state, reply, n)
    }

    fn stream(out: &mut Outbox, n: usize, steps: Vec<Step>) {
        stream(out, n, steps);
    }

    /// Unpadded (`chunk0 chunk1 …`): the Codex tests read them back in that form.
    fn slow_piece(i: usize) -> String {
        format!("chunk{i} ")
    }
}

fn stream(out: &mut Outbox, n: usize, steps: Vec<Step>) {
    let resp_id = format!("resp_fake_{n}");
    out.event("response.created", json!({"response": {"id": resp_id}}));
    for (idx, step) in steps.into_iter().enumerate() {
        // Text is paced text without the pauses: one message, its deltas in this read.
        let every = match &step {
            Step::PacedText(_, every) => *every,
            _ => Duration::ZERO,
        };
        match step {
            Step::Reasoning(pieces) => {
                let id = format!("rs_fake_{n}_{idx}");
                out.event("response.output_item.added", json!({"output_index": idx, "item": {"type": "reasoning", "id": id, "summary": []}}));
                out.event(
                    "response.reasoning_summary_part.added",
                    json!({"item_id": id, "output_index": idx, "summary_index": 0, "part": {"type": "summary_text", "text": ""}}),
                );
                for p in &pieces {
                    out.event(
                        "response.reasoning_summary_text.delta",
                        json!({"item_id": id, "output_index": idx, "summary_index": 0, "delta": p}),
                    );
                }
                let full: String = pieces.concat();
                out.event(
                    "response.output_item.done",
                    json!({"output_index": idx, "item": {"type": "reasoning", "id": id, "summary": [{"type": "summary_text", "text": full}]}}),
                );
            }
            Step::Text(pieces) | Step::PacedText(pieces, _) => {
                let id = format!("msg_fake_{n}_{idx}");
                out.event(
                    "response.output_item.added",
                    json!({"output_index": idx, "item": {"type": "message", "role": "assistant", "id": id, "content": []}}),
                );
                for p in &pieces {
                    out.event(
                        "response.output_text.delta",
                        json!({"item_id": id, "output_index": idx, "content_index": 0, "delta": p}),
                    );
                    if !every.is_zero() {
                        out.sleep(every);
                    }
                }
                let full: String = pieces.concat();
                out.event(
                    "response.output_item.done",
                    json!({"output_index": idx, "item": {"type": "message", "role": "assistant", "id": id,
                        "content": [{"type": "output_text", "text": full, "annotations": []}]}}),
                );
            }
            Step::FunctionCall { call_id, name, arguments } => {
                let mut item = json!({"type": "function_call", "id": format!("fc_{call_id}"),
                    "call_id": call_id, "name": name, "arguments": arguments});
                // `namespace::tool`: a tool of a `namespace` tool (codex's MCP servers).
                if let Some((ns, tool)) = name.split_once("::") {
                    item["namespace"] = json!(ns);
                    item["name"] = json!(tool);
                }
                out.event("response.output_item.done", json!({"output_index": idx, "item": item}))
            }
            Step::CustomToolCall { call_id, name, input } => out.event(
                "response.output_item.done",
                json!({"output_index": idx, "item": {"type": "custom_tool_call", "id": format!("ctc_{call_id}"),
                    "call_id": call_id, "name": name, "input": input}}),
            ),
            Step::Sleep(d) => out.sleep(d),
            Step::Hang => out.hang(),
        }
    }
    out.event(
        "response.completed",
        json!({"response": {"id": resp_id, "usage": {
            "input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 15}}}),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::wait_until;
    use crate::script::common_script;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    #[tokio::test]
    async fn streams_scripted_sse_and_records_bodies() {
        let body = r#"{"input":[{"role":"user","content":[{"type":"input_text","text":"hi"}]}]}"#;
        let (fake, out) = common_script::<ResponsesApi>("/v1/responses", body).await;
        assert!(out[0].contains("event: response.reasoning_summary_text.delta\ndata: "));
        assert!(out[0].contains("\"delta\":\"Hel\""));
        assert!(out[0].contains("event: response.completed"));
        assert!(out[1].contains(r#""type":"function_call""#), "{}", out[1]);
        assert_eq!(fake.requests()[0].input_content()[0]["text"], "hi");
    }

    #[tokio::test]
    async fn notices_a_client_hanging_up_mid_stream() {
        let fake = FakeResponses::start().await.unwrap();
        fake.push(Reply::slow_text(100, Duration::from_millis(50)));
        let mut s = tokio::net::TcpStream::connect(fake.addr()).await.unwrap();
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
