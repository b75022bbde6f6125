//! A real MCP server over stdio (newline-delimited JSON-RPC 2.0, the transport both engines'
//! MCP clients speak) with one tool, `note`: it appends its `text` argument to the file named
//! by `FAKE_MCP_LOG` (so a suite sees the engine really called it) and answers
//! `noted: <text>`. Its server name comes from `FAKE_MCP_NAME` (default `notes`).
//!
//! Used by the MCP suites (issue 24) to check that a profile's servers reach Codex and Claude
//! Code, are listed with their tools, and that their tool calls come back through the app.

use std::io::{BufRead, Write};

use serde_json::{json, Value};

fn main() {
    let name = std::env::var("FAKE_MCP_NAME").unwrap_or_else(|_| "notes".into());
    let log = std::env::var("FAKE_MCP_LOG").ok();
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let Ok(msg) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        // Notifications (no id) need no answer.
        let Some(id) = msg.get("id").cloned() else {
            continue;
        };
        let method = msg.get("method").and_then(Value::as_str).unwrap_or("");
        let reply = match method {
            "initialize" => {
                let version = msg["params"]["protocolVersion"]
                    .as_str()
                    .unwrap_or("2025-06-18")
                    .to_owned();
                json!({"jsonrpc": "2.0", "id": id, "result": {
                    "protocolVersion": version,
                    "capabilities": {"tools": {"listChanged": false}},
                    "serverInfo": {"name": name, "version": "1.0.0"}
                }})
            }
            "ping" => json!({"jsonrpc": "2.0", "id": id, "result": {}}),
            "tools/list" => json!({"jsonrpc": "2.0", "id": id, "result": {"tools": [{
                "name": "note",
                "description": "Write a note down.",
                "inputSchema": {
                    "type": "object",
                    "properties": {"text": {"type": "string", "description": "What to note."}},
                    "required": ["text"]
                }
            }]}}),
            "tools/call" => {
                let text = msg["params"]["arguments"]["text"]
                    .as_str()
                    .unwrap_or("")
                    .to_owned();
                if let Some(path) = &log {
                    if let Ok(mut f) = std::fs::OpenOptions::new()
                        .create(true)
                        .append(true)
                        .open(path)
                    {
                        let _ = writeln!(f, "{text}");
                    }
                }
                json!({"jsonrpc": "2.0", "id": id, "result": {
                    "content": [{"type": "text", "text": format!("noted: {text}")}],
                    "isError": false
                }})
            }
            "resources/list" => json!({"jsonrpc": "2.0", "id": id, "result": {"resources": []}}),
            "prompts/list" => json!({"jsonrpc": "2.0", "id": id, "result": {"prompts": []}}),
            _ => json!({"jsonrpc": "2.0", "id": id, "error": {
                "code": -32601, "message": format!("no method {method}")
            }}),
        };
        if writeln!(out, "{reply}").and_then(|()| out.flush()).is_err() {
            break;
        }
    }
}
