//! Claude Code's own sessions: finding its transcripts (`<config dir>/projects/<folder>/
//! <session id>.jsonl`, the config dir being `$CLAUDE_CONFIG_DIR` or `~/.claude`, as the CLI
//! resolves it) and reading them into turns of canonical events.
//!
//! What a transcript holds is in `agentdesk_protocol::claude::transcript`. Here: a `user`
//! record with text starts a turn (unless the CLI wrote it: `isMeta`, or an interrupt
//! marker), `assistant` records add their block (text, thinking, tool use), a `user` record
//! of tool results completes those tools. Subagent records (`isSidechain`) are left out of
//! the conversation. File tools show their diff from the result the CLI recorded (the file as
//! it was then), never from the file as it is now.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use agentdesk_protocol::claude::{
    AssistantRecord, ContentBlock, RecordHead, TranscriptRecord, UserContent, UserRecord,
};
use agentdesk_protocol::events::{AgentEvent, ToolKind, ToolStatus};
use agentdesk_protocol::ui::{SessionOrigin, TokenUsage};
use serde_json::Value;

use super::diff::{planned_change_from, target_path};
use super::translate::tool_kind;
use crate::history::lines::{read_lines, MAX_LINE};
use crate::history::{
    blocking, rfc3339_ms, HistoryFile, HistoryFuture, HistoryRead, HistoryTurn, Stamp,
    BYTES_PER_READ, TURNS_PER_READ,
};

/// The config dir the CLI uses: `$CLAUDE_CONFIG_DIR`, else `~/.claude`.
pub fn config_dir(env_dir: Option<PathBuf>, home: Option<PathBuf>) -> Option<PathBuf> {
    crate::history::engine_dir(env_dir, home, ".claude")
}

/// Every transcript under `config_dir/projects` (one folder level, `*.jsonl`; links are not
/// followed, so a link loop cannot trap the scan). Unreadable folders are skipped, counted.
pub fn discover(config_dir: &Path) -> (Vec<HistoryFile>, u64) {
    let mut files = Vec::new();
    let mut unreadable = 0;
    let Ok(projects) = std::fs::read_dir(config_dir.join("projects")) else {
        return (files, 0);
    };
    for project in projects.flatten() {
        if !project.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        let Ok(entries) = std::fs::read_dir(project.path()) else {
            unreadable += 1;
            continue;
        };
        for e in entries.flatten() {
            let path = e.path();
            if !(e.file_type().is_ok_and(|t| t.is_file())
                && path.extension().is_some_and(|x| x == "jsonl"))
            {
                continue;
            }
            match Stamp::of_file(&path) {
                Ok(stamp) => files.push(HistoryFile {
                    origin: SessionOrigin::ClaudeCode,
                    session_id: path.file_stem().map(|s| s.to_string_lossy().into_owned()),
                    cwd: None,
                    title: None,
                    path,
                    stamp,
                }),
                // Gone since it was listed, or not ours to read.
                Err(_) => unreadable += 1,
            }
        }
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    (files, unreadable)
}

/// A running CLI's record of itself (`<config dir>/sessions/<pid>.json`, removed when it
/// exits; a crashed one leaves it behind, so the process is checked too).
#[derive(serde::Deserialize)]
struct OpenSession {
    pid: u32,
    #[serde(rename = "sessionId")]
    session_id: String,
    /// Who started it (`CLAUDE_CODE_ENTRYPOINT`): a run of this app's says so.
    entrypoint: Option<String>,
}

/// The running CLI, not one of this app's runs, that has `session_id` open, from its record
/// in `folder`.
fn open_session_pid(folder: &Path, session_id: &str) -> Option<u32> {
    /// Such a record is a few hundred bytes; anything much larger is not one.
    const MAX_RECORD: u64 = 64 * 1024;
    let entries = std::fs::read_dir(folder).ok()?;
    entries.flatten().find_map(|e| {
        let path = e.path();
        let small = e
            .metadata()
            .is_ok_and(|m| m.is_file() && m.len() <= MAX_RECORD);
        if !small || path.extension().is_none_or(|x| x != "json") {
            return None;
        }
        let record: OpenSession = serde_json::from_slice(&std::fs::read(&path).ok()?).ok()?;
        let ours = record.entrypoint.as_deref() == Some(super::ENTRYPOINT);
        (record.session_id == session_id && !ours && crate::process::process_alive(record.pid))
            .then_some(record.pid)
    })
}

/// Read a transcript from byte `from` (0, or where a previous read's last turn began).
pub fn read_transcript(path: &Path, from: u64) -> std::io::Result<HistoryRead> {
    let mut reader = TranscriptReader {
        from,
        ..TranscriptReader::default()
    };
    let lines = read_lines(path, from, MAX_LINE, |at, line| reader.line(at, line))?;
    let mut read = reader.finish();
    read.read_to = lines.read_to;
    read.skipped += lines.too_long;
    if read.session_id.is_none() {
        // The file is named after the session.
        read.session_id = path.file_stem().and_then(|s| s.to_str()).map(str::to_owned);
    }
    Ok(read)
}

#[derive(Debug, Clone)]
struct OpenTool {
    kind: ToolKind,
    name: String,
    input: Value,
}

#[derive(Default)]
struct TranscriptReader {
    read: HistoryRead,
    /// Where this read began; it stops at the first turn past its bounds, at that turn's
    /// record (`stop_at`).
    from: u64,
    stop_at: Option<u64>,
    tools: HashMap<String, OpenTool>,
    /// Message ids whose usage is counted in the current turn (one message spans lines).
    usage_seen: HashSet<String>,
    usage: Option<TokenUsage>,
}

/// The CLI's own markers in the user's voice, not prompts.
fn is_marker(text: &str) -> bool {
    text.starts_with("[Request interrupted by user")
}

impl TranscriptReader {
    /// Take one line; `false` once the read is full (the line begins the next read).
    fn line(&mut self, at: u64, line: &[u8]) -> bool {
        self.record(at, line);
        self.stop_at.is_none()
    }

    fn record(&mut self, at: u64, line: &[u8]) {
        if line.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        let Ok(head) = serde_json::from_slice::<RecordHead>(line) else {
            self.read.skipped += 1;
            return;
        };
        if !head.is_conversation() || head.is_sidechain {
            return;
        }
        let record = match serde_json::from_slice::<Value>(line) {
            Ok(v) => TranscriptRecord::from_value(v),
            Err(_) => {
                self.read.skipped += 1;
                return;
            }
        };
        match record {
            TranscriptRecord::User(u) => self.user(at, u),
            TranscriptRecord::Assistant(a) => self.assistant(a),
            TranscriptRecord::Summary(s) => self.read.title = Some(s.summary),
            TranscriptRecord::CustomTitle(t) | TranscriptRecord::AiTitle(t) => {
                if let Some(title) = t.title.filter(|t| !t.trim().is_empty()) {
                    self.read.title = Some(title);
                }
            }
            TranscriptRecord::Unknown(_) => self.read.skipped += 1,
        }
    }

    fn note_meta(&mut self, meta: &agentdesk_protocol::claude::RecordMeta) {
        if let Some(id) = &meta.session_id {
            self.read.session_id.get_or_insert_with(|| id.clone());
        }
        if let Some(cwd) = &meta.cwd {
            self.read.cwd.get_or_insert_with(|| PathBuf::from(cwd));
        }
        if meta.version.is_some() {
            self.read.version.clone_from(&meta.version);
        }
    }

    /// The record belongs to the last turn: that turn went on until its time.
    fn note_time(&mut self, meta: &agentdesk_protocol::claude::RecordMeta) {
        if let (Some(turn), Some(t)) = (
            self.read.turns.last_mut(),
            meta.timestamp.as_deref().and_then(rfc3339_ms),
        ) {
            turn.ended_at = Some(t);
        }
    }

    fn user(&mut self, at: u64, u: UserRecord) {
        self.note_meta(&u.meta);
        let blocks = match u.message.content {
            UserContent::Text(t) => vec![ContentBlock::text(t)],
            UserContent::Blocks(b) => b,
        };
        let mut prompt = Vec::new();
        for block in blocks {
            match block {
                ContentBlock::ToolResult(r) => {
                    let Some(tool) = self.tools.remove(&r.tool_use_id) else {
                        continue;
                    };
                    let interrupted = u
                        .tool_use_result
                        .as_ref()
                        .and_then(|x| x.get("interrupted"))
                        .and_then(Value::as_bool)
                        == Some(true);
                    let status = if interrupted {
                        ToolStatus::Interrupted
                    } else if r.is_error == Some(true) {
                        ToolStatus::Failed
                    } else {
                        ToolStatus::Completed
                    };
                    self.tool_done(
                        r.tool_use_id.clone(),
                        tool,
                        r.text(),
                        status,
                        u.tool_use_result.as_ref(),
                    );
                }
                ContentBlock::Text(t) => prompt.push(t.text),
                ContentBlock::Image(_) => prompt.push("[image]".to_owned()),
                _ => {}
            }
        }
        let text = prompt.join("\n");
        if u.meta.is_meta || text.trim().is_empty() || is_marker(&text) {
            self.note_time(&u.meta);
            return;
        }
        let full = self.read.turns.len() >= TURNS_PER_READ
            || at.saturating_sub(self.from) >= BYTES_PER_READ;
        if full && !self.read.turns.is_empty() {
            // This prompt begins the next read.
            self.stop_at = Some(at);
            return;
        }
        // A new prompt: the last turn ended with its own last record, not at this one.
        self.end_turn(true);
        self.close_open_tools();
        self.usage_seen.clear();
        let started_at = u.meta.timestamp.as_deref().and_then(rfc3339_ms);
        self.read.turns.push(HistoryTurn {
            at,
            prompt: text,
            started_at,
            ended_at: started_at,
            complete: false,
            events: Vec::new(),
        });
    }

    fn tool_done(
        &mut self,
        item_id: String,
        tool: OpenTool,
        output: String,
        status: ToolStatus,
        result: Option<&Value>,
    ) {
        let Some(turn) = self.read.turns.last_mut() else {
            return;
        };
        if status == ToolStatus::Completed {
            // The file as it was before the change, as the CLI recorded it with the result.
            let before = result
                .and_then(|r| r.get("originalFile"))
                .and_then(Value::as_str)
                .map(str::to_owned);
            let cwd = self.read.cwd.clone().unwrap_or_default();
            if let Some(c) = target_path(&tool.name, &tool.input, &cwd)
                .and_then(|p| planned_change_from(&tool.name, &tool.input, &p, before))
            {
                turn.events.push(AgentEvent::FileChanged {
                    item_id: item_id.clone(),
                    path: c.path,
                    kind: c.kind,
                    diff: c.diff,
                });
            }
        }
        turn.events.push(AgentEvent::ToolCompleted {
            item_id,
            kind: tool.kind,
            name: tool.name,
            input: tool.input,
            output: Some(output),
            status,
            exit_code: None,
        });
    }

    fn assistant(&mut self, a: AssistantRecord) {
        self.note_meta(&a.meta);
        self.note_time(&a.meta);
        if a.message.model.as_deref() == Some("<synthetic>") {
            return;
        }
        let Some(turn) = self.read.turns.last_mut() else {
            // Output before any prompt (a file that starts mid-session): nothing to hang it on.
            return;
        };
        let base = a.meta.uuid.clone().unwrap_or_else(|| a.message.id.clone());
        for (i, block) in a.message.content.into_iter().enumerate() {
            let item_id = format!("{base}:{i}");
            match block {
                ContentBlock::Text(t) => turn.events.push(AgentEvent::MessageCompleted {
                    item_id,
                    text: t.text,
                }),
                ContentBlock::Thinking(t) if !t.thinking.is_empty() => {
                    turn.events.push(AgentEvent::ReasoningCompleted {
                        item_id,
                        text: t.thinking,
                    })
                }
                ContentBlock::ToolUse(t) => {
                    let kind = tool_kind(&t.name);
                    let name = super::translate::shown_name(&t.name);
                    turn.events.push(AgentEvent::ToolStarted {
                        item_id: t.id.clone(),
                        kind,
                        name: name.clone(),
                        input: t.input.clone(),
                    });
                    self.tools.insert(
                        t.id,
                        OpenTool {
                            kind,
                            name,
                            input: t.input,
                        },
                    );
                }
                _ => {}
            }
        }
        if let Some(u) = &a.message.usage {
            if self.usage_seen.insert(a.message.id.clone()) {
                let sum = self.usage.get_or_insert_with(TokenUsage::default);
                let cached = u.cache_read_input_tokens.unwrap_or(0);
                let input = u.input_tokens.unwrap_or(0)
                    + u.cache_creation_input_tokens.unwrap_or(0)
                    + cached;
                sum.input += i64::try_from(input).unwrap_or(i64::MAX);
                sum.cached += i64::try_from(cached).unwrap_or(i64::MAX);
                sum.output += i64::try_from(u.output_tokens.unwrap_or(0)).unwrap_or(i64::MAX);
            }
        }
        let ended = matches!(
            a.message.stop_reason.as_deref(),
            Some("end_turn" | "stop_sequence" | "max_tokens" | "refusal")
        );
        if ended {
            self.end_turn(true);
        }
    }

    /// Close the current turn: its usage out, its tools left open ended as interrupted when
    /// a next prompt came (the CLI never recorded their results).
    fn end_turn(&mut self, complete: bool) {
        let Some(turn) = self.read.turns.last_mut() else {
            return;
        };
        if turn.complete {
            return;
        }
        if let Some(u) = self.usage.take() {
            turn.events.push(AgentEvent::Usage(u));
        }
        turn.complete = complete;
    }

    /// Tools without a result in an ended turn were cut off (an interrupt, a crash): they end
    /// as interrupted, in the order they started.
    fn close_open_tools(&mut self) {
        let Some(turn) = self.read.turns.last_mut() else {
            self.tools.clear();
            return;
        };
        let mut open: Vec<(String, OpenTool)> = self.tools.drain().collect();
        let started = |id: &str| {
            turn.events
                .iter()
                .position(|e| matches!(e, AgentEvent::ToolStarted { item_id, .. } if item_id == id))
        };
        open.sort_by_key(|(id, _)| started(id));
        for (id, t) in open {
            turn.events.push(AgentEvent::ToolCompleted {
                item_id: id,
                kind: t.kind,
                name: t.name,
                input: t.input,
                output: None,
                status: ToolStatus::Interrupted,
                exit_code: None,
            });
        }
    }

    fn finish(mut self) -> HistoryRead {
        if self.stop_at.is_some() {
            // Stopped at the next prompt: the last turn read is over.
            self.end_turn(true);
            self.read.more = true;
        }
        if self.read.turns.last().is_some_and(|t| t.complete) {
            self.close_open_tools();
        }
        self.read.origin = SessionOrigin::ClaudeCode;
        self.read
    }
}

/// Claude Code's transcripts under one config dir.
#[derive(Debug, Clone)]
pub struct ClaudeHistory {
    config_dir: PathBuf,
}

impl ClaudeHistory {
    pub fn new(config_dir: PathBuf) -> Self {
        Self { config_dir }
    }
}

impl crate::history::HistorySource for ClaudeHistory {
    fn origin(&self) -> SessionOrigin {
        SessionOrigin::ClaudeCode
    }

    fn engine(&self) -> agentdesk_protocol::ui::Engine {
        agentdesk_protocol::ui::Engine::Claude
    }

    fn folder(&self) -> &Path {
        &self.config_dir
    }

    fn watched(&self) -> PathBuf {
        self.config_dir.join("projects")
    }

    fn opened_by<'a>(&'a self, session_id: &'a str) -> HistoryFuture<'a, Option<u32>> {
        let folder = self.config_dir.join("sessions");
        let id = session_id.to_owned();
        Box::pin(async move {
            blocking(move || Ok(open_session_pid(&folder, &id)))
                .await
                .ok()
                .flatten()
        })
    }

    fn discover(&self) -> HistoryFuture<'_, std::io::Result<(Vec<HistoryFile>, u64)>> {
        let dir = self.config_dir.clone();
        Box::pin(blocking(move || Ok(discover(&dir))))
    }

    fn read<'a>(
        &'a self,
        entry: &'a HistoryFile,
        from: u64,
    ) -> HistoryFuture<'a, std::io::Result<HistoryRead>> {
        let path = entry.path.clone();
        Box::pin(blocking(move || read_transcript(&path, from)))
    }

    fn end_of<'a>(&'a self, path: &'a Path) -> HistoryFuture<'a, std::io::Result<(Stamp, u64)>> {
        let path = path.to_path_buf();
        Box::pin(blocking(move || {
            let stamp = Stamp::of_file(&path)?;
            let end = u64::try_from(stamp.size).unwrap_or(0);
            Ok((stamp, end))
        }))
    }
}

#[cfg(test)]
#[path = "history_tests.rs"]
mod tests;
