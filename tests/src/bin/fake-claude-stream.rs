//! A stand-in for the `claude` CLI that answers one turn with one very long streamed answer, for
//! the whole-pipeline benchmark (`tests/bench/pipeline.sh`, BENCHMARKS.md "Whole pipeline vs
//! the official SDK"): `agentdesk-cli run` and the official TypeScript Agent SDK both drive it
//! as their `claude` executable, so both consume exactly the same bytes.
//!
//! The turn (wire shapes of the real 2.1.328 transcripts, `tests/fixtures/claude/text.jsonl`):
//! the `initialize` reply → `system/init` → `message_start`, `content_block_start`,
//! `FAKE_STREAM_DELTAS` (default 200,000) `text_delta` stream events of 20 characters,
//! the `assistant` message with the whole text, `content_block_stop`, `message_delta`,
//! `message_stop`, `result`. Stream events carry the fields of the SDK's
//! `SDKPartialAssistantMessage` (`event`, `session_id`, `parent_tool_use_id`, `uuid`): about
//! 56 MB for 200,000 deltas (259 bytes a delta line, a 4 MB `assistant` line).
//!
//! `--emit` prints the turn's stdout once without any handshake (for the raw-parse rate of the
//! same bytes); `--version` prints a supported version.
//!
//! Fast on purpose, so that the benchmark measures the consumer: lines are formatted into one
//! reused 1 MiB buffer and written in big pieces; memory stays a few MB.

use std::io::{self, BufRead, Write};

use serde_json::{json, Value};

/// What one `text_delta` carries (20 ASCII characters, JSON-safe).
const DELTA_CHARS: usize = 20;
const MSG_ID: &str = "msg_fake_47c8cfb9da684495";
const CHUNK: usize = 1 << 20;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--version") {
        println!("2.1.328 (Claude Code)");
        return;
    }
    let deltas = std::env::var("FAKE_STREAM_DELTAS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200_000usize);
    let session = args
        .iter()
        .find_map(|a| {
            a.strip_prefix("--session-id=")
                .or_else(|| a.strip_prefix("--resume="))
        })
        .unwrap_or("05719b18-289e-4a8c-a702-0e4472b910f8")
        .to_owned();
    let mut out = io::stdout().lock();
    if args.iter().any(|a| a == "--emit") {
        let _ = emit_turn(&mut out, &session, deltas);
        return;
    }
    let stdin = io::stdin().lock();
    for line in stdin.lines() {
        let Ok(line) = line else { break };
        let Ok(msg) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        let result = match msg["type"].as_str() {
            Some("control_request") => respond(&mut out, &msg),
            Some("user") => emit_turn(&mut out, &session, deltas),
            _ => Ok(()),
        };
        if result.is_err() {
            // The host went away (broken pipe): nothing left to do.
            return;
        }
    }
}

/// Answers every control request with success; `initialize` gets the account the hosts check.
fn respond(out: &mut impl Write, req: &Value) -> io::Result<()> {
    let response = if req["request"]["subtype"] == "initialize" {
        json!({"commands": [], "models": [], "pid": std::process::id(),
            "account": {"tokenSource": "none", "apiKeySource": "ANTHROPIC_API_KEY", "apiProvider": "firstParty"},
            "claude_code_version": "2.1.328", "current_permission_mode": "default"})
    } else {
        json!({})
    };
    let reply = json!({"type": "control_response", "response": {"subtype": "success",
        "request_id": req["request_id"], "response": response}});
    writeln!(out, "{reply}")?;
    out.flush()
}

/// The 20 characters of delta `i` (distinct per delta, so a lost or doubled one shows).
fn delta_text(i: usize, buf: &mut String) {
    use std::fmt::Write as _;
    buf.clear();
    // "w" + 9 digits + " lorem ip " = 20 characters.
    let _ = write!(buf, "w{i:09} lorem ip ");
    debug_assert_eq!(buf.len(), DELTA_CHARS);
}

fn stream_line(buf: &mut Vec<u8>, session: &str, n: usize, event: &str) {
    // The uuid differs per line like the real CLI's (version-4 layout, deterministic digits).
    let _ = writeln!(
        buf,
        r#"{{"type":"stream_event","event":{event},"session_id":"{session}","parent_tool_use_id":null,"uuid":"{:08x}-1f2e-4d3c-8b4a-{:012x}"}}"#,
        n, n
    );
}

fn emit_turn(out: &mut impl Write, session: &str, deltas: usize) -> io::Result<()> {
    let mut buf: Vec<u8> = Vec::with_capacity(CHUNK + 4096);
    let _ = writeln!(
        buf,
        r#"{{"type":"system","subtype":"init","cwd":".","session_id":"{session}","tools":["Bash","Read","Write","Edit"],"mcp_servers":[],"model":"claude-sonnet-4-5","permissionMode":"default","apiKeySource":"ANTHROPIC_API_KEY","claude_code_version":"2.1.328","output_style":"default","uuid":"d4d9221d-16e4-48ce-b047-1b27aea818a8"}}"#
    );
    stream_line(
        &mut buf,
        session,
        0,
        &format!(
            r#"{{"type":"message_start","message":{{"id":"{MSG_ID}","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"stop_sequence":null,"usage":{{"input_tokens":10,"output_tokens":1,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}}}}}}"#
        ),
    );
    stream_line(
        &mut buf,
        session,
        1,
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
    );
    let mut text = String::with_capacity(DELTA_CHARS);
    let mut event = String::with_capacity(128);
    for i in 0..deltas {
        delta_text(i, &mut text);
        event.clear();
        event.push_str(
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":""#,
        );
        event.push_str(&text);
        event.push_str(r#""}}"#);
        stream_line(&mut buf, session, i + 2, &event);
        if buf.len() >= CHUNK {
            out.write_all(&buf)?;
            buf.clear();
        }
    }
    // The whole answer, as the `assistant` message carries it.
    let mut whole = String::with_capacity(deltas * DELTA_CHARS);
    for i in 0..deltas {
        delta_text(i, &mut text);
        whole.push_str(&text);
    }
    out.write_all(&buf)?;
    buf.clear();
    let _ = writeln!(
        buf,
        r#"{{"type":"assistant","message":{{"id":"{MSG_ID}","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{{"type":"text","text":"{whole}"}}],"stop_reason":null,"stop_sequence":null,"usage":{{"input_tokens":10,"output_tokens":1,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}},"context_management":null}},"parent_tool_use_id":null,"session_id":"{session}","uuid":"3a92c9c5-7efb-4e64-a868-4f2c5ad5d890","request_id":"req_fake_b55ca5527b13"}}"#
    );
    let n = deltas + 2;
    stream_line(
        &mut buf,
        session,
        n,
        r#"{"type":"content_block_stop","index":0}"#,
    );
    stream_line(
        &mut buf,
        session,
        n + 1,
        r#"{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":5}}"#,
    );
    stream_line(&mut buf, session, n + 2, r#"{"type":"message_stop"}"#);
    let _ = writeln!(
        buf,
        r#"{{"type":"result","subtype":"success","is_error":false,"duration_ms":850,"duration_api_ms":840,"num_turns":1,"result":"(the answer above)","stop_reason":"end_turn","session_id":"{session}","total_cost_usd":0.000105,"usage":{{"input_tokens":10,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":5}},"permission_denials":[],"terminal_reason":"completed","uuid":"cd844cda-1db3-4702-86f5-aab510682aa0"}}"#
    );
    out.write_all(&buf)?;
    out.flush()
}
