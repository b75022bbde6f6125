//! What a notification says: the title and body of a request, a burst, a run's end, and the
//! buttons a request's notification may carry (only while its body shows the whole request).

use std::time::Duration;

use agentdesk_protocol::approval_detail::ApprovalDetail;
use agentdesk_protocol::events::Question;
use agentdesk_protocol::ui::{Approval, ApprovalKindName, Engine, Run, RunStatus};
use serde_json::Value;

use super::{
    single_question, NotificationPrefs, ACTION_APPROVE, ACTION_DENY, NONCE_SEPARATOR, OPTION_PREFIX,
};

/// Where a request comes from, for its notification.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    /// `None` when the session is gone (its name is then "The agent").
    pub engine: Option<Engine>,
    pub workspace: String,
    pub session: String,
}

/// One notification, platform-neutral. `actions` are `(id, label)`; the body click
/// ([`ACTION_OPEN`]) is added by the platform layer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Content {
    pub title: String,
    pub body: String,
    pub actions: Vec<(String, String)>,
}

impl Content {
    /// The same notification with every button's key bound to `nonce` (`approve` →
    /// `approve.<nonce>`), as it goes to the platform; [`Press::parse`] with the same nonce
    /// reads a press on it back.
    pub fn sealed(mut self, nonce: &str) -> Content {
        for (id, _) in &mut self.actions {
            *id = format!("{id}{NONCE_SEPARATOR}{nonce}");
        }
        self
    }
}

/// Longest line in a body, and longest body: notification bubbles show a few lines; the
/// card has the rest.
const LINE_CHARS: usize = 160;
const BODY_LINES: usize = 6;
const LISTED_FILES: usize = 3;
/// Longest option label on a button, and tool name in a title.
const OPTION_CHARS: usize = 40;
const TOOL_NAME_CHARS: usize = 60;

fn engine_name(e: Option<Engine>) -> &'static str {
    e.map_or("The agent", |e| {
        crate::engines::descriptor(e).display_name()
    })
}

/// Control characters and escape sequences an agent wrote are shown, never obeyed (as on
/// the CLI), and a line is cut to what fits.
pub fn clean_line(s: &str, max: usize) -> String {
    cut(&visible(s), max)
}

/// `s` with every control and invisible character written out as an escape, tabs as spaces.
fn visible(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if c == '\t' {
            out.push(' ');
        } else if c.is_control() || is_invisible(c) {
            out.push_str(&c.escape_unicode().to_string());
        } else {
            out.push(c);
        }
    }
    out
}

/// `s` on one line as [`clean_line`] shows it, and whether that is all of it: nothing cut,
/// no whitespace a bubble would not show as written, no tab drawn as a space.
fn shown_line(s: &str, max: usize) -> (String, bool) {
    let all = visible(s);
    let line = cut(&all, max);
    let whole = line == all && !hides_text(&line) && !s.contains('\t');
    (line, whole)
}

/// Characters that reorder, break or hide text without being seen themselves: bidi controls,
/// zero-width characters, line and paragraph separators (a bubble would start a new line at
/// one), the soft hyphen. Shown as escapes, like control characters.
fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200b}'..='\u{200f}'
        | '\u{2028}' | '\u{2029}' | '\u{2060}'..='\u{2064}' | '\u{feff}' | '\u{00ad}'
        | '\u{180e}' | '\u{061c}')
}

fn cut(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// Servers that render markup (capability `body-markup`) would read `<`, `>` and `&` as
/// tags: escape them so a command shows as written.
pub fn escape_markup(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// A notification body being written, and whether it still shows the whole request.
struct Body {
    lines: Vec<String>,
    whole: bool,
}

impl Body {
    /// A line that is part of what is asked: cut, or holding a run of whitespace (a bubble
    /// collapses it, or wraps what follows out of sight), it no longer shows the request.
    fn request(&mut self, text: &str) {
        let (line, whole) = shown_line(text, LINE_CHARS);
        self.whole &= whole;
        self.lines.push(line);
    }

    /// A line about the request (where it comes from, the agent's reason): cut to fit, and
    /// never what is decided.
    fn context(&mut self, text: &str) {
        self.lines.push(clean_line(text, LINE_CHARS));
    }

    /// Part of the request this body cannot show: the card has it, the notification only
    /// opens the card.
    fn unshown(&mut self) {
        self.whole = false;
    }
}

/// Whitespace a bubble would not show as written: a run of two or more (collapsed, or
/// wrapping the rest off the bubble), or any space other than U+0020.
fn hides_text(line: &str) -> bool {
    let mut previous_space = false;
    for c in line.chars() {
        let space = c.is_whitespace();
        if space && (previous_space || c != ' ') {
            return true;
        }
        previous_space = space;
    }
    false
}

/// A JSON value on one line: a string as itself, anything else as compact JSON.
fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The input keys of an ACP agent's tool (opencode's `bash`, `write`, `edit`; Gemini CLI's
/// shell and file tools) shown elsewhere for a request of `kind`, as for Claude: the command
/// as the `$` line, the path as the file, the content or diff as the card's diff, the agent's
/// description of its command. opencode 1.18.33 asks an edit's permission with
/// `{filepath, diff}`.
fn acp_input_shown_elsewhere(kind: ApprovalKindName, key: &str) -> bool {
    match kind {
        ApprovalKindName::Command => matches!(key, "command" | "description"),
        ApprovalKindName::FileChange => matches!(
            key,
            "filePath"
                | "filepath"
                | "file_path"
                | "path"
                | "diff"
                | "absolute_path"
                | "content"
                | "oldString"
                | "newString"
                | "old_string"
                | "new_string"
                | "replaceAll"
        ),
        _ => false,
    }
}

/// The input keys of a Claude tool the body shows in lines of their own, for a request of
/// `kind`: the rest is shown elsewhere (`command` as the `$` line, a file tool's path as the
/// file) or is the file change's content (the card's diff, which no notification shows for
/// either engine), or is the agent's description of its command (its words, not what runs).
fn claude_input_shown_elsewhere(kind: ApprovalKindName, key: &str) -> bool {
    match kind {
        ApprovalKindName::Command => matches!(key, "command" | "description"),
        ApprovalKindName::FileChange => matches!(
            key,
            "file_path"
                | "notebook_path"
                | "content"
                | "old_string"
                | "new_string"
                | "replace_all"
                | "edits"
                | "new_source"
                | "cell_id"
                | "cell_type"
                | "edit_mode"
        ),
        _ => false,
    }
}

/// The engine's detail of a request, in the body: every part of it that is decided, or the
/// mark that the body cannot show it.
fn render_detail(body: &mut Body, a: &Approval) {
    let Some(detail) = a.request.detail.as_deref() else {
        // Engine-neutral fields only: enough for a command or files, not for a tool.
        if a.kind == ApprovalKindName::Tool || a.kind == ApprovalKindName::Permission {
            body.unshown();
        }
        return;
    };
    match detail {
        ApprovalDetail::ClaudeTool(t) => match &t.input {
            Value::Object(fields) => {
                for (key, value) in fields {
                    if !claude_input_shown_elsewhere(a.kind, key) {
                        body.request(&format!("{key}: {}", value_text(value)));
                    }
                }
            }
            Value::Null => {}
            other => body.request(&value_text(other)),
        },
        // A notification approves once: the proposed rule (a session grant) is not applied,
        // and the parsed actions are the command itself.
        ApprovalDetail::CodexCommand(_) => {}
        ApprovalDetail::CodexFileChange(f) => {
            if let Some(root) = &f.grant_root {
                body.request(&format!("and writes under {root}"));
            }
        }
        // A grant of permissions, a form or a page of an MCP server: the card shows them.
        ApprovalDetail::CodexPermissions(p) => {
            body.context(&format!("asks for {}", value_text(&p.permissions)));
            body.unshown();
        }
        ApprovalDetail::CodexElicitation(e) => {
            body.context(&format!("from the MCP server {}", e.server_name));
            body.unshown();
        }
        // An ACP agent's tool input, like a Claude tool's: every key that decides something is
        // a line (a tool without a command or files, e.g. a fetch, shows its input).
        ApprovalDetail::AcpToolCall(t) => match &t.raw_input {
            Value::Object(fields) => {
                for (key, value) in fields {
                    if !acp_input_shown_elsewhere(a.kind, key) {
                        body.request(&format!("{key}: {}", value_text(value)));
                    }
                }
            }
            Value::Null if a.kind == ApprovalKindName::Tool => body.unshown(),
            Value::Null => {}
            other => body.request(&value_text(other)),
        },
        // What this build cannot read may hold more than the command and files shown.
        ApprovalDetail::Unknown(_) => body.unshown(),
    }
}

/// The notification for one pending request: who asks, where, and exactly what (the
/// command and its folder, or the files, or the question) — nothing the card would not show.
/// It carries the buttons that decide (Approve / Deny, a question's options) only while the
/// body shows the whole request; otherwise only "Open" (the platform's body click), and the
/// card decides.
pub fn approval_content(a: &Approval, origin: &Origin) -> Content {
    let engine = engine_name(origin.engine);
    let r = &a.request;
    let mut body = Body {
        lines: Vec::new(),
        whole: true,
    };
    let title = approval_title(a, engine, &mut body);
    body.context(&format!("{} · {}", origin.workspace, origin.session));
    if let Some(agent) = &r.subagent {
        // Which of the run's agents asks: the user approves a subagent's doing, not the
        // main agent's.
        body.context(&format!("Asked by the subagent {agent}"));
    }
    match &r.command {
        Some(c) => body.request(&format!("$ {c}")),
        // A command request that does not say what runs cannot be approved from here.
        None if a.kind == ApprovalKindName::Command => body.unshown(),
        None => {}
    }
    if let Some(cwd) = &r.cwd {
        body.request(&format!("in {cwd}"));
    }
    for f in r.files.iter().take(LISTED_FILES) {
        body.request(&f.path);
    }
    if r.files.len() > LISTED_FILES {
        body.context(&format!("and {} more files", r.files.len() - LISTED_FILES));
        body.unshown();
    }
    if a.kind == ApprovalKindName::FileChange && r.files.is_empty() {
        body.unshown();
    }
    let options = single_question(a);
    for q in &r.questions {
        body.request(&q.question);
    }
    if let Some(q) = options {
        // The label is what the button sends; its description is part of what is chosen.
        for o in &q.options {
            body.whole &= shown_line(&o.label, OPTION_CHARS).1;
            if let Some(d) = &o.description {
                body.request(&format!("{}: {d}", o.label));
            }
        }
    }
    render_detail(&mut body, a);
    if r.command.is_none() && r.files.is_empty() && r.questions.is_empty() {
        if let Some(reason) = &r.reason {
            body.context(reason);
        }
    }
    if body.lines.len() > BODY_LINES {
        body.lines.truncate(BODY_LINES);
        body.unshown();
    }
    let actions = if body.whole {
        approval_actions(a.kind, options)
    } else {
        Vec::new()
    };
    Content {
        title,
        body: body.lines.join("\n"),
        actions,
    }
}

/// "Codex asks to run a command"; a tool's name that does not fit keeps the buttons off.
fn approval_title(a: &Approval, engine: &str, body: &mut Body) -> String {
    match a.kind {
        ApprovalKindName::Command => format!("{engine} asks to run a command"),
        ApprovalKindName::FileChange => format!("{engine} asks to change files"),
        ApprovalKindName::Permission => format!("{engine} asks for permission"),
        ApprovalKindName::Tool => match &a.request.tool {
            Some(t) => {
                let (name, whole) = shown_line(t, TOOL_NAME_CHARS);
                body.whole &= whole;
                format!("{engine} asks to use {name}")
            }
            None => format!("{engine} asks to use a tool"),
        },
        ApprovalKindName::Question => format!("{engine} asks a question"),
    }
}

/// The buttons of a request the body shows whole: a single question's options, or
/// Approve / Deny.
fn approval_actions(kind: ApprovalKindName, question: Option<&Question>) -> Vec<(String, String)> {
    match kind {
        ApprovalKindName::Question => question
            .map(|q| {
                q.options
                    .iter()
                    .enumerate()
                    .map(|(i, o)| {
                        (
                            format!("{OPTION_PREFIX}{i}"),
                            clean_line(&o.label, OPTION_CHARS),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default(),
        _ => vec![
            (ACTION_APPROVE.to_string(), "Approve".to_string()),
            (ACTION_DENY.to_string(), "Deny".to_string()),
        ],
    }
}

/// The notification standing for several requests: a burst, or (`held_elsewhere`) what the
/// app found waiting at start, which only another process (an `agentdesk-cli run`) can still
/// hold: that process asks for the answer, so the body says where to give it.
pub fn summary_content(count: usize, held_elsewhere: bool) -> Content {
    let title = if count == 1 {
        "1 approval waiting".to_string()
    } else {
        format!("{count} approvals waiting")
    };
    Content {
        title,
        body: if held_elsewhere {
            "Asked in another Agent Desk process (an agentdesk-cli run): answer it there.".into()
        } else {
            "Agent Desk: open the Approvals view to decide.".into()
        },
        actions: Vec::new(),
    }
}

/// The notification for a run that ended, when it gets one: finished or failed (an
/// interrupted run was stopped by the user, who knows), lasting at least the preference's
/// minimum, while the preference allows it (`window_focused` as now).
pub fn run_end_content(
    run: &Run,
    origin: &Origin,
    settings: &NotificationPrefs,
    window_focused: bool,
) -> Option<Content> {
    let took = match (run.started_at, run.ended_at) {
        (Some(start), Some(end)) => Duration::from_millis(u64::try_from(end - start).ok()?),
        _ => return None,
    };
    if !settings.shows_run_end(took, window_focused) {
        return None;
    }
    let engine = engine_name(origin.engine);
    let (title, detail) = match run.status {
        RunStatus::Completed => (format!("{engine} finished"), None),
        RunStatus::Failed => (format!("{engine} failed"), run.error.clone()),
        _ => return None,
    };
    let mut lines = vec![clean_line(
        &format!("{} · {}", origin.workspace, origin.session),
        LINE_CHARS,
    )];
    lines.push(format!("after {}", human_duration(took)));
    if let Some(d) = detail {
        lines.push(clean_line(&d, LINE_CHARS));
    }
    Some(Content {
        title,
        body: lines.join("\n"),
        actions: Vec::new(),
    })
}

fn human_duration(d: Duration) -> String {
    let s = d.as_secs();
    if s < 60 {
        format!("{s} s")
    } else if s < 3600 {
        format!("{} min {} s", s / 60, s % 60)
    } else {
        format!("{} h {} min", s / 3600, (s % 3600) / 60)
    }
}
