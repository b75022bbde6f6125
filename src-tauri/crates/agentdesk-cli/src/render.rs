//! Human-readable text for stored timeline items and for live events. Plain text, no colours:
//! the output is meant for pipes and logs as much as for terminals.
//!
//! These functions build text from what the agent sent, unescaped; the callers print it
//! through [`crate::escape::visible`] (one place, so nothing printed can skip it).

use agentdesk_protocol::events::{AgentEvent, ApprovalFile};
use agentdesk_protocol::ids::ApprovalId;
use agentdesk_protocol::ui::{Approval, ApprovalKindName, ItemBody, Run, TimelineItem, TokenUsage};
use serde_json::Value;

/// `YYYY-MM-DD HH:MM` in the user's local time zone (TZ, else the system's) from Unix
/// milliseconds, as the window shows times.
pub fn time(ms: i64) -> String {
    time_in(ms, &jiff::tz::TimeZone::system())
}

/// `YYYY-MM-DD HH:MM` in `tz`; the raw milliseconds when they are out of jiff's range.
fn time_in(ms: i64, tz: &jiff::tz::TimeZone) -> String {
    match jiff::Timestamp::from_millisecond(ms) {
        Ok(ts) => ts
            .to_zoned_datetime(tz.clone())
            .strftime("%Y-%m-%d %H:%M")
            .to_string(),
        Err(_) => ms.to_string(),
    }
}

fn indent(text: &str, prefix: &str) -> String {
    text.lines()
        .map(|l| format!("{prefix}{l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn files(files: &[ApprovalFile]) -> String {
    files
        .iter()
        .map(|f| format!("{:?} {}", f.kind, f.path).to_lowercase())
        .collect::<Vec<_>>()
        .join(", ")
}

/// An item's approval as its record says (items name it by id only).
pub type Approvals = std::collections::HashMap<ApprovalId, Approval>;

/// One stored item as text; `None` for what is not shown (diagnostics unless asked).
pub fn item(it: &TimelineItem, approvals: &Approvals, diagnostics: bool) -> Option<String> {
    let text = item_text(it, approvals, diagnostics)?;
    // A subagent's work, under the call that started it.
    Some(match &it.parent_id {
        Some(_) => indent(text.trim_start_matches('\n'), "    ↳ "),
        None => text,
    })
}

fn item_text(it: &TimelineItem, approvals: &Approvals, diagnostics: bool) -> Option<String> {
    let status = it.status.as_str();
    let record = |id: &Option<ApprovalId>| id.as_ref().and_then(|id| approvals.get(id));
    Some(match &it.body {
        ItemBody::UserMessage { text, attachments } => {
            let mut s = format!("\n> {}", text.replace('\n', "\n> "));
            for a in attachments {
                s.push_str(&format!("\n> [attached {} ({})]", a.name, a.mime));
            }
            s
        }
        ItemBody::AgentMessage { text } => format!("\n{text}"),
        ItemBody::Reasoning { text } => format!("(thinking) {}", text.replace('\n', " ")),
        ItemBody::Tool {
            name,
            input,
            output,
            exit_code,
            approval_id,
            ..
        } => {
            let what = input
                .get("command")
                .and_then(|c| c.as_str().map(str::to_string))
                .unwrap_or_else(|| compact(input));
            let mut s = format!("[{name}] {what} ({status}");
            if let Some(c) = exit_code {
                s.push_str(&format!(", exit {c}"));
            }
            s.push(')');
            if let Some(a) = record(approval_id) {
                s.push_str(&format!(" · approval {}", a.state.as_str()));
            }
            if !output.trim().is_empty() {
                s.push('\n');
                s.push_str(&indent(output.trim_end(), "  | "));
            }
            s
        }
        ItemBody::FileChange {
            path, change_kind, ..
        } => format!("[file] {change_kind:?} {path}").to_lowercase(),
        ItemBody::Approval { approval_id } => {
            let a = record(approval_id)?;
            format!(
                "[approval] {} {} → {}",
                a.kind.as_str(),
                a.request
                    .command
                    .clone()
                    .unwrap_or_else(|| files(&a.request.files)),
                a.state.as_str()
            )
        }
        ItemBody::Question { approval_id } => {
            let a = record(approval_id)?;
            format!(
                "[question] {} → {}",
                a.request
                    .questions
                    .iter()
                    .map(|q| q.question.as_str())
                    .collect::<Vec<_>>()
                    .join(" / "),
                a.state.as_str()
            )
        }
        ItemBody::Notice { text, .. } => format!("note: {text}"),
        ItemBody::Diagnostic { message, .. } if diagnostics => format!("[diagnostic] {message}"),
        ItemBody::Diagnostic { .. } => return None,
        ItemBody::Usage(_) => return None,
        ItemBody::Plan(plan) => plan_lines(plan),
    })
}

/// `5-hour 85 % (resets 2026-12-03 14:05) · weekly 20 %`, and the engine's words when reached.
pub fn rate_limits(l: &agentdesk_protocol::rate_limits::RateLimits) -> String {
    let mut parts: Vec<String> = l
        .windows
        .iter()
        .map(|w| {
            let resets = w
                .resets_at
                .map(|at| format!(" (resets {})", time(at)))
                .unwrap_or_default();
            format!("{} {:.0} %{resets}", w.name, w.used_percent)
        })
        .collect();
    if let Some(why) = &l.reached {
        parts.push(why.replace('_', " "));
    }
    parts.join(" · ")
}

/// `[plan] 1 of 3 done`, then a line per step: ✓ done, → in progress, · pending.
fn plan_lines(plan: &agentdesk_protocol::plan::Plan) -> String {
    use agentdesk_protocol::plan::PlanStatus;
    let (done, all) = plan.progress();
    let mut out = format!("[plan] {done} of {all} done");
    for e in &plan.entries {
        let mark = match e.status {
            PlanStatus::Completed => "✓",
            PlanStatus::InProgress => "→",
            PlanStatus::Pending => "·",
        };
        out.push_str(&format!("\n  {mark} {}", e.step));
    }
    out
}

fn compact(v: &serde_json::Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 200 {
        format!("{}…", s.chars().take(200).collect::<String>())
    } else {
        s
    }
}

pub fn run_end(run: &Run) -> String {
    let mut s = format!("-- run {}", run.status.as_str());
    if let Some(r) = run.stop_reason.as_deref().filter(|r| !r.is_empty()) {
        s.push_str(&format!(" ({r})"));
    }
    if let Some(e) = &run.error {
        s.push_str(&format!(": {e}"));
    }
    s
}

pub fn usage(u: &TokenUsage) -> String {
    let mut s = format!(
        "-- tokens: {} in ({} cached), {} out ({} reasoning)",
        u.input, u.cached, u.output, u.reasoning
    );
    if let Some(c) = u.cost_usd {
        s.push_str(&format!(", ${c:.4}"));
    }
    s
}

pub fn approval_summary(a: &Approval) -> String {
    let r = &a.request;
    let what = r
        .command
        .clone()
        .or_else(|| (!r.files.is_empty()).then(|| files(&r.files)))
        .or_else(|| r.tool.clone())
        .unwrap_or_default();
    let mut s = format!("{}: {what}", a.kind.as_str());
    if let Some(cwd) = &r.cwd {
        s.push_str(&format!(" (in {cwd})"));
    }
    if let Some(reason) = &r.reason {
        s.push_str(&format!(" — {reason}"));
    }
    if let Some(agent) = &r.subagent {
        s.push_str(&format!(" [asked by the subagent {agent}]"));
    }
    s
}

/// What a tool asks to do, in full, for tools that are neither a command nor a file change
/// (a web fetch, an MCP call, a permission): the whole input as pretty JSON, never cut, so a
/// URL's `?data=…` tail cannot hide. `None` when the request carries no input.
fn full_input(a: &Approval) -> Option<String> {
    let detail = a.request.detail.as_deref()?;
    let input = match detail.tool_input() {
        Some(i) => i.clone(),
        // The engine's other details are shown whole, without the tag naming the variant.
        None => {
            let mut whole = serde_json::to_value(detail).ok()?;
            if let Some(o) = whole.as_object_mut() {
                o.remove("source");
            }
            whole
        }
    };
    let empty = match &input {
        Value::Null => true,
        Value::Object(o) => o.values().all(Value::is_null),
        _ => false,
    };
    if empty {
        return None;
    }
    serde_json::to_string_pretty(&input).ok()
}

/// Everything the user decides on: the summary line, then the command, the diffs of the
/// files, or the tool's full input.
pub fn approval_prompt(a: &Approval) -> String {
    let mut s = format!("[approval] {}", approval_summary(a));
    let mut shown = false;
    match a.kind {
        ApprovalKindName::Command => shown = a.request.command.is_some(),
        ApprovalKindName::FileChange => {
            for f in a.request.files.iter().filter(|f| !f.diff.is_empty()) {
                s.push('\n');
                s.push_str(f.diff.trim_end());
                shown = true;
            }
        }
        _ => {}
    }
    // Anything else, or a command / file change whose request did not carry it: the input.
    if !shown {
        if let Some(input) = full_input(a) {
            s.push_str("\ninput:\n");
            s.push_str(&indent(&input, "  "));
        }
    }
    s
}

/// The live text of a run: [`event`], with a subagent's work indented under the call that
/// started it (its streamed pieces are not printed: its items print whole when complete).
#[derive(Debug, Default)]
pub struct LiveText {
    streamed: std::collections::HashSet<String>,
    nested: std::collections::HashSet<String>,
}

impl LiveText {
    pub fn event(&mut self, ev: &AgentEvent) -> Option<String> {
        let item = match ev {
            AgentEvent::ItemParent { item_id, .. } => {
                self.nested.insert(item_id.clone());
                return None;
            }
            AgentEvent::MessageDelta { item_id, .. }
            | AgentEvent::MessageCompleted { item_id, .. }
            | AgentEvent::ToolStarted { item_id, .. }
            | AgentEvent::ToolUpdated { item_id, .. }
            | AgentEvent::ToolCompleted { item_id, .. }
            | AgentEvent::FileChanged { item_id, .. } => Some(item_id),
            _ => None,
        };
        match item.filter(|i| self.nested.contains(*i)) {
            None => event(ev, &mut self.streamed),
            Some(_)
                if matches!(
                    ev,
                    AgentEvent::MessageDelta { .. } | AgentEvent::ToolUpdated { .. }
                ) =>
            {
                None
            }
            Some(_) => {
                let text = event(ev, &mut self.streamed)?;
                Some(indent(text.trim_end_matches('\n'), "    ↳ ") + "\n")
            }
        }
    }
}

/// Streaming text for one live event, or `None` for events that print nothing by
/// themselves. Deltas print as they come; a completed message prints only what its deltas
/// did not (`streamed` holds the item ids whose deltas were printed).
pub fn event(ev: &AgentEvent, streamed: &mut std::collections::HashSet<String>) -> Option<String> {
    match ev {
        AgentEvent::RunStarted { model, .. } => Some(format!(
            "-- run started{}\n",
            model
                .as_deref()
                .map(|m| format!(" (model {m})"))
                .unwrap_or_default()
        )),
        AgentEvent::MessageDelta { item_id, text } => {
            streamed.insert(item_id.clone());
            Some(text.clone())
        }
        AgentEvent::MessageCompleted { item_id, text } => Some(if streamed.remove(item_id) {
            "\n".to_string()
        } else {
            format!("{text}\n")
        }),
        AgentEvent::ToolStarted { name, input, .. } => Some(format!(
            "[{name}] {}\n",
            input
                .get("command")
                .and_then(|c| c.as_str().map(str::to_string))
                .unwrap_or_else(|| compact(input))
        )),
        AgentEvent::ToolCompleted {
            name,
            status,
            exit_code,
            output,
            ..
        } => {
            let mut s = format!("[{name}] {status:?}").to_lowercase();
            if let Some(c) = exit_code {
                s.push_str(&format!(" (exit {c})"));
            }
            if let Some(o) = output.as_deref().filter(|o| !o.trim().is_empty()) {
                s.push('\n');
                s.push_str(&indent(o.trim_end(), "  | "));
            }
            s.push('\n');
            Some(s)
        }
        AgentEvent::FileChanged { path, kind, .. } => {
            Some(format!("[file] {kind:?} {path}\n").to_lowercase())
        }
        AgentEvent::ApprovalResolved { outcome, .. } => {
            Some(format!("[approval] {outcome:?}\n").to_lowercase())
        }
        AgentEvent::Usage(tokens) => Some(usage(tokens) + "\n"),
        AgentEvent::PlanUpdated { plan, .. } => Some(plan_lines(plan) + "\n"),
        // Said only when it matters: near a limit (80 %) or at it.
        AgentEvent::RateLimits(l)
            if l.reached.is_some() || l.windows.iter().any(|w| w.used_percent >= 80.0) =>
        {
            Some(format!("-- limits: {}\n", rate_limits(l)))
        }
        AgentEvent::RunCompleted { stop_reason } => {
            Some(format!("-- run completed ({stop_reason})\n"))
        }
        AgentEvent::RunFailed { error, .. } => Some(format!("-- run failed: {error}\n")),
        AgentEvent::RunInterrupted {} => Some("-- run interrupted\n".to_string()),
        AgentEvent::EngineDiagnostic {
            source: agentdesk_protocol::events::DiagnosticSource::Notice,
            message,
            ..
        } => Some(format!("note: {message}\n")),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn approval(kind: &str, request: serde_json::Value) -> Approval {
        serde_json::from_value(serde_json::json!({
            "id": "a1", "sessionId": "s", "runId": "r", "itemId": null, "engineRequestId": "e",
            "kind": kind, "request": request, "suggestions": null, "state": "pending",
            "decidedBy": null, "decision": null, "createdAt": 0, "deadlineAt": null,
            "decidedAt": null
        }))
        .unwrap()
    }

    #[test]
    fn a_tool_prompt_shows_its_whole_input() {
        let long = format!("https://example.com/{}?data=SECRET", "p/".repeat(150));
        let ap = approval(
            "tool",
            serde_json::json!({"tool": "WebFetch", "detail": {"toolName": "WebFetch",
                "input": {"url": long, "prompt": "summarise"}}}),
        );
        let p = approval_prompt(&ap);
        assert!(p.starts_with("[approval] tool: WebFetch"), "{p}");
        assert!(p.contains(&long), "the URL is cut or missing:\n{p}");
        assert!(p.contains("\"prompt\": \"summarise\""), "{p}");
    }

    #[test]
    fn a_command_prompt_shows_the_command_and_a_file_prompt_its_diff() {
        let ap = approval(
            "command",
            serde_json::json!({"tool": "Bash", "command": "ls -la", "detail": {"input": {"command": "ls -la"}}}),
        );
        assert_eq!(approval_prompt(&ap), "[approval] command: ls -la");
        let ap = approval(
            "file_change",
            serde_json::json!({"files": [{"path": "a.txt", "kind": "add", "diff": "+hello\n"}]}),
        );
        let p = approval_prompt(&ap);
        assert!(p.ends_with("\n+hello"), "{p}");
    }

    #[test]
    fn formats_times_in_the_given_zone() {
        let utc = jiff::tz::TimeZone::UTC;
        assert_eq!(time_in(0, &utc), "1970-01-01 00:00");
        assert_eq!(time_in(1_700_000_000_000, &utc), "2023-11-14 22:13");
        assert_eq!(time_in(951_782_400_000, &utc), "2000-02-29 00:00");
        let plus5 = jiff::tz::TimeZone::fixed(jiff::tz::offset(5));
        assert_eq!(time_in(1_700_000_000_000, &plus5), "2023-11-15 03:13");
        assert_eq!(time_in(i64::MAX, &utc), i64::MAX.to_string());
    }

    /// `time` renders in the system zone (TZ), not UTC.
    #[test]
    fn formats_in_the_local_zone() {
        if std::env::var_os("AGENTDESK_TZ_CHILD").is_some() {
            println!("AT={}", time(1_700_000_000_000));
            return;
        }
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "render::tests::formats_in_the_local_zone",
                "--nocapture",
            ])
            .env("AGENTDESK_TZ_CHILD", "1")
            .env("TZ", "XST-3")
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("AT=2023-11-15 01:13"), "{text}");
    }
}
