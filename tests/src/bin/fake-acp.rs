//! A scripted stand-in for an ACP agent (JSON-RPC 2.0 over stdio), for the ACP adapter's
//! protocol suite (`tests/acp_fake.rs`): the edge cases the real agents (opencode, Gemini CLI)
//! will not produce on demand. The wire shapes follow the opencode 1.18.33 and Gemini CLI
//! 0.61.0 transcripts. The behaviour is chosen by `FAKE_ACP_SCRIPT`:
//!
//! - `text`: a thought, two message chunks, a `usage_update`, `end_turn`. The answer quotes
//!   our argv, `OPENCODE_PERMISSION`, the length of `OPENCODE_SERVER_PASSWORD` and the prompt's
//!   content block types.
//! - `permission`: an `execute` tool call, `session/request_permission` (options `once`,
//!   `always`, `reject`), the tool completed or failed by the answer; the text quotes it. With
//!   a `reject` answer and `FAKE_ACP_WAIT_CANCEL=1` it then waits for `session/cancel` and
//!   answers `cancelled`.
//! - `cancel_pending`: asks a permission and waits; on `session/cancel` it reports how the
//!   request was answered and ends `cancelled`.
//! - `slow`: a message chunk, then waits for `session/cancel` and ends `cancelled`.
//! - `fs`: writes `sub/dir/new.txt` in the cwd, reads it back from line 2 (limit 1), reads a
//!   missing file, then writes `FAKE_ACP_OUTSIDE` (a path outside the workspace) and reads it;
//!   the text quotes every answer.
//! - `outside_edit`: like opencode, asks `session/request_permission` for an edit of
//!   `FAKE_ACP_OUTSIDE` (a `diff` block), then, when allowed, writes it with
//!   `fs/write_text_file`; the text quotes the decision and the write's answer.
//! - `crash`: a message chunk, a line on stderr, exit 3.
//! - `crash_start_once`: the first start (no `FAKE_ACP_MARKER` file yet) creates the marker
//!   and exits 1 before answering `initialize`, like opencode losing its database migration
//!   race; later starts run `text`. `crash_start`: every start exits so.
//! - `garbage`: a non-JSON line, a JSON array, an unknown `sessionUpdate` kind, an unknown
//!   notification, an unknown request (answered?), then a text turn.
//! - `refusal`: a message chunk, `stopReason: refusal`.
//! - `hang`: answers the set-up, then says nothing.
//! - `no_image`: `promptCapabilities.image` false.
//! - `no_load`: `loadSession` false.
//!
//! Every script: `session/load` of an id starting `missing` fails like Gemini CLI 0.61.0
//! ("Invalid session identifier"); any other id replays `OLD HISTORY` (a user chunk, an agent
//! chunk, a tool call) before answering. `session/new` answers `fake-session-<n>` with a model
//! config option (`fake/a`, `fake/b`); `session/set_config_option` switches it and the text
//! says `model=<current>`. With `FAKE_ACP_MODELS=1` it offers Gemini CLI's model list instead
//! (`models.availableModels`, switched with `session/set_model`).
//!
//! Deliberately synchronous std code: a fake should be simpler than what it tests.

use std::io::{self, Write};
use std::path::PathBuf;
use std::time::Duration;

use serde_json::{json, Value};

struct Fake {
    script: String,
    lines: io::Lines<io::StdinLock<'static>>,
    out: io::Stdout,
    next_id: i64,
    cwd: PathBuf,
    session: String,
    model: String,
    cancelled: bool,
}

fn main() {
    let script = std::env::var("FAKE_ACP_SCRIPT").unwrap_or_else(|_| "text".to_owned());
    eprintln!("fake-acp: starting, script={script}");
    let marker = std::env::var("FAKE_ACP_MARKER").map(PathBuf::from);
    let first = marker.as_ref().is_ok_and(|m| !m.exists());
    if script == "crash_start" || (script == "crash_start_once" && first) {
        if let Ok(m) = &marker {
            let _ = std::fs::write(m, "started");
        }
        eprintln!("Failed query: CREATE TABLE `workspace`");
        std::process::exit(1);
    }
    let mut fake = Fake {
        script,
        lines: io::stdin().lines(),
        out: io::stdout(),
        next_id: 0,
        cwd: std::env::current_dir().unwrap_or_default(),
        session: String::new(),
        model: "fake/a".to_owned(),
        cancelled: false,
    };
    while let Some(msg) = fake.read() {
        let id = msg["id"].clone();
        match msg["method"].as_str() {
            Some("initialize") => {
                let caps = json!({
                    "loadSession": fake.script != "no_load",
                    "promptCapabilities": {"image": fake.script != "no_image", "embeddedContext": true},
                });
                // A preset's version is checked: FAKE_ACP_VERSION plays a given release.
                let version =
                    std::env::var("FAKE_ACP_VERSION").unwrap_or_else(|_| "0.0.1".to_owned());
                fake.respond(
                    &id,
                    json!({"protocolVersion": 1, "agentCapabilities": caps,
                    "authMethods": [], "agentInfo": {"name": "fake-acp", "version": version}}),
                );
            }
            Some("session/new") => {
                fake.session = format!("fake-session-{}", std::process::id());
                let setup = fake.setup();
                let mut result = json!({"sessionId": fake.session});
                if std::env::var("FAKE_ACP_MODELS").is_ok_and(|v| v == "1") {
                    result["models"] = json!({"currentModelId": fake.model, "availableModels": [
                        {"modelId": "fake/a", "name": "A"}, {"modelId": "fake/b", "name": "B"}]});
                } else {
                    result["configOptions"] = setup["configOptions"].clone();
                }
                fake.respond(&id, result);
            }
            Some("session/load") => fake.load(&msg),
            Some("session/set_config_option") => {
                fake.model = msg["params"]["value"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned();
                fake.respond(&id, json!({}));
            }
            Some("session/set_model") => {
                fake.model = msg["params"]["modelId"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned();
                fake.respond(&id, json!({}));
            }
            Some("session/prompt") => fake.prompt(&msg),
            Some("session/cancel") => fake.cancelled = true,
            _ => {}
        }
    }
}

impl Fake {
    fn read(&mut self) -> Option<Value> {
        loop {
            let line = self.lines.next()?.ok()?;
            if let Ok(v) = serde_json::from_str::<Value>(&line) {
                return Some(v);
            }
        }
    }

    fn send(&mut self, v: Value) {
        let _ = writeln!(self.out, "{v}");
        let _ = self.out.flush();
    }

    fn respond(&mut self, id: &Value, result: Value) {
        self.send(json!({"jsonrpc": "2.0", "id": id, "result": result}));
    }

    fn update(&mut self, update: Value) {
        let session = self.session.clone();
        self.send(json!({"jsonrpc": "2.0", "method": "session/update",
            "params": {"sessionId": session, "update": update}}));
    }

    fn say(&mut self, text: &str) {
        self.update(json!({"sessionUpdate": "agent_message_chunk",
            "content": {"type": "text", "text": text}}));
    }

    /// Send a request and wait for its answer (`Err` = the error object); notes a
    /// `session/cancel` seen meanwhile.
    fn call(&mut self, method: &str, params: Value) -> Result<Value, Value> {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        while let Some(msg) = self.read() {
            if msg["method"] == "session/cancel" {
                self.cancelled = true;
                continue;
            }
            if msg["id"] == id && msg.get("method").is_none() {
                return match msg.get("error") {
                    Some(e) => Err(e.clone()),
                    None => Ok(msg["result"].clone()),
                };
            }
        }
        std::process::exit(0)
    }

    /// Wait (reading) until `session/cancel` arrives.
    fn wait_cancel(&mut self) {
        while !self.cancelled {
            match self.read() {
                Some(msg) if msg["method"] == "session/cancel" => self.cancelled = true,
                Some(_) => {}
                None => std::process::exit(0),
            }
        }
    }

    fn setup(&self) -> Value {
        json!({"configOptions": [{"id": "model", "name": "Model", "category": "model",
            "type": "select", "currentValue": self.model,
            "options": [{"value": "fake/a", "name": "A"}, {"value": "fake/b", "name": "B"}]}]})
    }

    fn load(&mut self, msg: &Value) {
        let id = msg["id"].clone();
        let session = msg["params"]["sessionId"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        if session.starts_with("missing") {
            self.send(json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32603,
                "message": "Internal error", "data": {"details":
                format!("Invalid session identifier \"{session}\".")}}}));
            return;
        }
        self.session = session;
        self.update(json!({"sessionUpdate": "user_message_chunk",
            "content": {"type": "text", "text": "OLD HISTORY question"}}));
        self.say("OLD HISTORY answer");
        self.update(
            json!({"sessionUpdate": "tool_call", "toolCallId": "old_call",
            "title": "OLD HISTORY tool", "kind": "execute", "status": "completed"}),
        );
        let setup = self.setup();
        self.respond(&id, setup);
        // opencode sends this right after its answer.
        self.update(json!({"sessionUpdate": "available_commands_update", "availableCommands": []}));
    }

    fn prompt(&mut self, msg: &Value) {
        let id = msg["id"].clone();
        let blocks: Vec<String> = msg["params"]["prompt"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|b| b["type"].as_str().unwrap_or("?").to_owned())
            .collect();
        let reason = match self.script.as_str() {
            "permission" => self.permission(),
            "cancel_pending" => {
                let outcome = self.ask_permission("call_p");
                self.wait_cancel();
                self.say(&format!("permission answered: {outcome}"));
                "cancelled"
            }
            "slow" => {
                self.say("starting… ");
                self.wait_cancel();
                "cancelled"
            }
            "fs" => self.fs(),
            "outside_edit" => self.outside_edit(),
            "crash" => {
                self.say("about to fail");
                eprintln!("fake-acp: something broke");
                std::thread::sleep(Duration::from_millis(50));
                std::process::exit(3);
            }
            "garbage" => {
                let _ = writeln!(self.out, "this is not json");
                self.send(json!([1, 2, 3]));
                self.update(json!({"sessionUpdate": "brand_new_kind", "x": 1}));
                self.send(json!({"jsonrpc": "2.0", "method": "fake/unknown", "params": {}}));
                let r = self.call("terminal/create", json!({"command": "ls"}));
                self.say(&format!("terminal/create answered error: {}. ", r.is_err()));
                self.text(&blocks);
                "end_turn"
            }
            "refusal" => {
                self.say("I would rather not.");
                "refusal"
            }
            "hang" => {
                std::thread::sleep(Duration::from_secs(600));
                "end_turn"
            }
            _ => {
                self.text(&blocks);
                "end_turn"
            }
        };
        self.respond(
            &id,
            json!({"stopReason": reason,
            "usage": {"inputTokens": 10, "outputTokens": 5, "totalTokens": 15}}),
        );
    }

    fn text(&mut self, blocks: &[String]) {
        self.update(json!({"sessionUpdate": "agent_thought_chunk",
            "content": {"type": "text", "text": "thinking"}}));
        let args: Vec<String> = std::env::args().skip(1).collect();
        let permission = std::env::var("OPENCODE_PERMISSION").unwrap_or_default();
        let password = std::env::var("OPENCODE_SERVER_PASSWORD").unwrap_or_default();
        self.say("Hello ");
        let model = self.model.clone();
        self.say(&format!(
            "from fake. args={args:?} permission={permission} password_len={} blocks={} model={model}",
            password.len(),
            blocks.join(",")
        ));
        self.update(
            json!({"sessionUpdate": "usage_update", "used": 10, "size": 1000,
            "cost": {"amount": 0.25, "currency": "USD"}}),
        );
    }

    /// Asks about `call_id`; returns the chosen option id or `cancelled`.
    fn ask_permission(&mut self, call_id: &str) -> String {
        self.update(
            json!({"sessionUpdate": "tool_call", "toolCallId": call_id, "title": "bash",
            "kind": "execute", "status": "pending", "rawInput": {}}),
        );
        let session = self.session.clone();
        let answer = self.call(
            "session/request_permission",
            json!({"sessionId": session,
            "toolCall": {"toolCallId": call_id, "title": "touch x.txt", "kind": "execute",
                "status": "pending", "rawInput": {"command": "touch x.txt"}},
            "options": [{"optionId": "once", "kind": "allow_once", "name": "Allow once"},
                {"optionId": "always", "kind": "allow_always", "name": "Always allow"},
                {"optionId": "reject", "kind": "reject_once", "name": "Reject"}]}),
        );
        match answer {
            Ok(r) if r["outcome"]["outcome"] == "selected" => {
                r["outcome"]["optionId"].as_str().unwrap_or("?").to_owned()
            }
            Ok(r) => r["outcome"]["outcome"].as_str().unwrap_or("?").to_owned(),
            Err(e) => format!("error {e}"),
        }
    }

    fn permission(&mut self) -> &'static str {
        let chosen = self.ask_permission("call_p");
        let allowed = chosen == "once" || chosen == "always";
        let status = if allowed { "completed" } else { "failed" };
        self.update(
            json!({"sessionUpdate": "tool_call_update", "toolCallId": "call_p",
            "status": status, "rawOutput": {"output": "", "metadata": {"exit": 0}}}),
        );
        self.say(&format!("decision: {chosen}"));
        if chosen == "reject" && std::env::var("FAKE_ACP_WAIT_CANCEL").is_ok_and(|v| v == "1") {
            self.wait_cancel();
            return "cancelled";
        }
        "end_turn"
    }

    fn outside_edit(&mut self) -> &'static str {
        let session = self.session.clone();
        let path = std::env::var("FAKE_ACP_OUTSIDE").unwrap_or_default();
        self.update(json!({"sessionUpdate": "tool_call", "toolCallId": "call_w", "title": "write",
            "kind": "edit", "status": "pending", "rawInput": {"filePath": path, "content": "edited\n"}}));
        let answer = self.call(
            "session/request_permission",
            json!({"sessionId": session,
            "toolCall": {"toolCallId": "call_w", "title": path, "kind": "edit", "status": "pending",
                "locations": [{"path": path}], "rawInput": {"filepath": path},
                "content": [{"type": "diff", "path": path, "oldText": "", "newText": "edited\n"}]},
            "options": [{"optionId": "once", "kind": "allow_once", "name": "Allow once"},
                {"optionId": "reject", "kind": "reject_once", "name": "Reject"}]}),
        );
        let chosen = match &answer {
            Ok(r) => r["outcome"]["optionId"]
                .as_str()
                .unwrap_or("cancelled")
                .to_owned(),
            Err(e) => format!("error {e}"),
        };
        let mut report = format!("decision: {chosen}");
        if chosen == "once" {
            let w = self.call(
                "fs/write_text_file",
                json!({"sessionId": session, "path": path, "content": "edited\n"}),
            );
            report.push_str(&format!("; write outside: {}", short(&w)));
        }
        let status = if chosen == "once" {
            "completed"
        } else {
            "failed"
        };
        self.update(
            json!({"sessionUpdate": "tool_call_update", "toolCallId": "call_w", "status": status}),
        );
        self.say(&report);
        "end_turn"
    }

    fn fs(&mut self) -> &'static str {
        let session = self.session.clone();
        let inside = self.cwd.join("sub/dir/new.txt").display().to_string();
        let mut report = Vec::new();
        let w = self.call(
            "fs/write_text_file",
            json!({"sessionId": session, "path": inside, "content": "one\ntwo\nthree\n"}),
        );
        report.push(format!("write inside: {}", short(&w)));
        let r = self.call(
            "fs/read_text_file",
            json!({"sessionId": session, "path": inside, "line": 2, "limit": 1}),
        );
        report.push(format!("read inside: {}", short(&r)));
        let missing = self.cwd.join("missing.txt").display().to_string();
        let r = self.call(
            "fs/read_text_file",
            json!({"sessionId": session, "path": missing}),
        );
        report.push(format!("read missing: {}", short(&r)));
        if let Ok(outside) = std::env::var("FAKE_ACP_OUTSIDE") {
            let w = self.call(
                "fs/write_text_file",
                json!({"sessionId": session, "path": outside, "content": "outside\n"}),
            );
            report.push(format!("write outside: {}", short(&w)));
        }
        self.say(&report.join("; "));
        "end_turn"
    }
}

/// An answer in a few words: the result, or `error: <message>`.
fn short(r: &Result<Value, Value>) -> String {
    match r {
        Ok(v) => v.to_string(),
        Err(e) => format!("error: {}", e["message"].as_str().unwrap_or("?")),
    }
}
