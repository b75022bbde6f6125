//! A scripted fake of the Anthropic Messages API (`POST /v1/messages?beta=true`, SSE), for
//! driving the real `claude` CLI offline (`ANTHROPIC_BASE_URL=<base_url>`). Built on the
//! skeleton in [`crate::script`]: HTTP/1.1 keep-alive, chunked SSE, a `request-id` header on
//! every answer.
//!
//! Each test queues replies; each streamed model request takes the next one (an empty queue
//! answers a short text). Every request is recorded (method, path, headers, JSON body) so a
//! test can check what reached the model (an image block, a tool result, the history).

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};

use crate::http::HttpResponse;
use crate::script::{self, pieces, play, Api, BashTool, FakeServer, Outbox, State};

/// A content block each (`Reasoning` is a thinking block).
pub use crate::script::Step;

/// The model id the fake reports (a known id, so the CLI prices it).
pub const FAKE_MODEL: &str = "claude-sonnet-4-5";

/// 200 + SSE (message_start, the blocks, message_delta{stop_reason}, message_stop), or an
/// HTTP error with an Anthropic error body. The constructors shared with the other fakes are
/// in [`script::Reply`]; [`Reply::bash`] uses Claude Code's `Bash` tool.
pub type Reply = script::Reply<MessagesApi>;

/// Claude Code's shell tool.
impl BashTool for MessagesApi {
    const BASH: &'static str = "Bash";
}

impl Reply {
    /// Anthropic's name for [`Reply::reasoning_then_text`].
    pub fn thinking_then_text(thinking: &[&str], text: &[&str]) -> Self {
        Self::reasoning_then_text(thinking, text)
    }
}

/// The script of a subagent run, its replies routed by what each agent last sent: the
/// model (asked with a message containing `MAIN-PROMPT`) calls Claude Code's `Agent` tool
/// (call `toolu_agent1`: a `general-purpose` subagent, "Count files", prompted
/// "SUBAGENT-PROMPT count the files"); the subagent asks to run `touch sub-made.txt` (call
/// `toolu_sub_touch`) and then answers `sub_answer`; the main agent answers the launch with
/// `main_answer`. The CLI's report turn takes the next queued reply.
pub fn push_subagent_script(fake: &FakeMessages, sub_answer: &str, main_answer: &str) {
    let agent = json!({"description": "Count files", "prompt": "SUBAGENT-PROMPT count the files",
        "subagent_type": "general-purpose"});
    fake.push_routed("MAIN-PROMPT", Reply::tool("toolu_agent1", "Agent", agent));
    fake.push_routed(
        "SUBAGENT-PROMPT",
        Reply::bash("toolu_sub_touch", "touch sub-made.txt"),
    );
    fake.push_routed("toolu_sub_touch", Reply::text(&[sub_answer]));
    fake.push_routed("toolu_agent1", Reply::text(&[main_answer]));
}

/// The Anthropic Messages API, as [`FakeMessages`] speaks it.
#[derive(Debug, Clone)]
pub struct MessagesApi;

pub type RecordedRequest = script::Recorded<MessagesApi>;

impl RecordedRequest {
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

    /// The last message of the conversation as JSON text: what a routed reply answers (a
    /// subagent's prompt, a tool's result).
    pub fn newest_message(&self) -> String {
        self.body["messages"]
            .as_array()
            .and_then(|m| m.last())
            .map(Value::to_string)
            .unwrap_or_default()
    }

    /// The whole conversation (`messages`; the system prompt is a field of its own) as one
    /// string, for "did the model see X" checks.
    pub fn transcript(&self) -> String {
        self.body["messages"].to_string()
    }
}

/// Its `base_url` is `http://127.0.0.1:PORT` (the CLI appends `/v1/messages`); its model
/// requests are the streamed model calls.
pub type FakeMessages = FakeServer<MessagesApi>;

impl Api for MessagesApi {
    type Step = Step;
    const BASE_PATH: &'static str = "";

    /// A streamed call: the CLI's side calls (titles, summaries) are not streamed.
    fn is_model_call(req: &RecordedRequest) -> bool {
        req.method == "POST"
            && req.path.starts_with("/v1/messages")
            && !req.path.contains("count_tokens")
            && req.body["stream"] == true
    }

    fn answer(state: &Arc<State<Self>>, req: &RecordedRequest) -> HttpResponse {
        let n = state.next_seq();
        let mut resp = answer(state, req, n);
        resp.headers
            .push(("request-id".into(), format!("req_fake_{n:06}")));
        resp
    }

    fn error_body(code: u16, message: &str) -> Value {
        let kind = match code {
            401 => "authentication_error",
            429 => "rate_limit_error",
            529 => "overloaded_error",
            400 => "invalid_request_error",
            _ => "api_error",
        };
        json!({"type": "error", "error": {"type": kind, "message": message}})
    }

    fn stream(out: &mut Outbox, n: usize, steps: Vec<Step>) {
        stream(out, n, steps);
    }
}

/// The answer before its `request-id`.
fn answer(state: &Arc<State<MessagesApi>>, req: &RecordedRequest, n: usize) -> HttpResponse {
    if req.path.starts_with("/v1/messages/count_tokens") {
        return HttpResponse::json(200, &json!({"input_tokens": 10}));
    }
    if req.method != "POST" || !req.path.starts_with("/v1/messages") {
        return HttpResponse::json(
            404,
            &json!({"type": "error", "error": {"type": "not_found_error",
                "message": format!("no route {} {}", req.method, req.path)}}),
        );
    }
    if !req.is_model_call() {
        // Side calls (non-streamed) never consume the script.
        return HttpResponse::json(
            200,
            &json!({"id": format!("msg_fake_{n}"), "type": "message", "role": "assistant",
                "model": FAKE_MODEL, "content": [{"type": "text", "text": "ok"}],
                "stop_reason": "end_turn", "stop_sequence": null,
                "usage": {"input_tokens": 1, "output_tokens": 1}}),
        );
    }
    play(state, state.reply_for(&req.newest_message()), n)
}

fn stream(out: &mut Outbox, n: usize, steps: Vec<Step>) {
    let msg_id = format!("msg_fake_{n:06}");
    out.event(
        "message_start",
        json!({"message": {"id": msg_id, "type": "message", "role": "assistant", "model": FAKE_MODEL,
            "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": 10, "output_tokens": 1, "cache_creation_input_tokens": 0,
                      "cache_read_input_tokens": 0}}}),
    );
    out.event("ping", json!({}));
    let mut index = 0u32;
    let mut stop_reason = "end_turn";
    // One block: its start, its deltas (`every` apart, if not zero), its stop.
    let mut block = |out: &mut Outbox, start: Value, deltas: Vec<Value>, every: Duration| {
        out.event(
            "content_block_start",
            json!({"index": index, "content_block": start}),
        );
        for delta in deltas {
            out.event(
                "content_block_delta",
                json!({"index": index, "delta": delta}),
            );
            if !every.is_zero() {
                out.sleep(every);
            }
        }
        out.event("content_block_stop", json!({"index": index}));
        index += 1;
    };
    for step in steps {
        // Text is paced text without the pauses: one block.
        let every = match &step {
            Step::PacedText(_, every) => *every,
            _ => Duration::ZERO,
        };
        match step {
            Step::Text(parts) | Step::PacedText(parts, _) => block(
                out,
                json!({"type": "text", "text": ""}),
                parts
                    .into_iter()
                    .map(|p| json!({"type": "text_delta", "text": p}))
                    .collect(),
                every,
            ),
            Step::Reasoning(parts) => block(
                out,
                json!({"type": "thinking", "thinking": "", "signature": ""}),
                parts
                    .into_iter()
                    .map(|p| json!({"type": "thinking_delta", "thinking": p}))
                    .chain([json!({"type": "signature_delta", "signature": "fakesig=="})])
                    .collect(),
                Duration::ZERO,
            ),
            Step::ToolUse { id, name, input } => {
                stop_reason = "tool_use";
                block(
                    out,
                    json!({"type": "tool_use", "id": id, "name": name, "input": {}}),
                    pieces(&input.to_string(), 3)
                        .into_iter()
                        .map(|p| json!({"type": "input_json_delta", "partial_json": p}))
                        .collect(),
                    Duration::ZERO,
                );
            }
            Step::Sleep(d) => out.sleep(d),
            Step::Hang => out.hang(),
        }
    }
    out.event(
        "message_delta",
        json!({"delta": {"stop_reason": stop_reason, "stop_sequence": null}, "usage": {"output_tokens": 5}}),
    );
    out.event("message_stop", json!({}));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::{post, read_until};
    use crate::script::common_script;
    use tokio::io::AsyncWriteExt;

    const STREAMED: &str =
        r#"{"stream":true,"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]}"#;

    #[tokio::test]
    async fn streams_scripted_sse_with_request_ids_and_records_bodies() {
        let (fake, out) = common_script::<MessagesApi>("/v1/messages?beta=true", STREAMED).await;
        assert!(
            out.iter().all(|o| o.contains("request-id: req_fake_")),
            "{out:?}"
        );
        assert!(out[0].contains("event: content_block_delta\ndata: "));
        assert!(out[0].contains(r#""thinking_delta""#) && out[0].contains(r#""text":"Hel""#));
        assert!(out[0].contains(r#""stop_reason":"end_turn""#));
        assert!(
            out[1].contains(r#""input_json_delta""#)
                && out[1].contains(r#""stop_reason":"tool_use""#)
        );
        assert_eq!(fake.model_requests()[0].content_blocks()[0]["text"], "hi");
    }

    #[tokio::test]
    async fn a_side_call_does_not_consume_the_script() {
        let fake = FakeMessages::start().await.unwrap();
        fake.push(Reply::status(500, "boom"));
        // Not streamed: a side call (titles, summaries), answered without the script.
        let out = post(fake.addr(), "/v1/messages", r#"{"messages":[]}"#).await;
        assert!(out.starts_with("HTTP/1.1 200"), "{out}");
        let out = post(fake.addr(), "/v1/messages?beta=true", STREAMED).await;
        assert!(
            out.starts_with("HTTP/1.1 500") && out.contains("boom"),
            "{out}"
        );
        assert_eq!(fake.model_requests().len(), 1);
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
            assert!(read_until(&mut s, "0\r\n\r\n")
                .await
                .contains("message_stop"));
        }
    }
}
