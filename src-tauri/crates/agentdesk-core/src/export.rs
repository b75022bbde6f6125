//! Export a session as Markdown (to read) or JSON (to process; everything stored).

use agentdesk_protocol::ids::{ApprovalId, ProfileId, SessionId};
use agentdesk_protocol::ui::{
    Approval, Attachment, ItemBody, ItemStatus, Profile, Run, Session, TimelineItem, TokenUsage,
    Usage, SECRET_MASK,
};
use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{CoreError, Desk, Result};

/// Secret values shorter than this are not searched for in the export: replacing every
/// `1` or `ab` would garble the text, and such values are not secrets worth the name.
const MIN_REDACTED_LEN: usize = 4;

/// Bump when the JSON shape changes incompatibly.
pub const EXPORT_VERSION: u32 = 1;

/// Secret env values of the session's profiles never leave in an export: the profile shows
/// them masked, and wherever one appears in the stored text (an agent that ran `env`) it is
/// replaced by the mask.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionExport {
    pub version: u32,
    pub session: Session,
    /// The session's profile as it is now (secret values masked), if it still exists.
    #[serde(default)]
    pub profile: Option<Profile>,
    pub usage: Usage,
    pub runs: Vec<RunExport>,
    pub approvals: Vec<Approval>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunExport {
    pub run: Run,
    pub usage: Option<Usage>,
    pub attachments: Vec<Attachment>,
    pub items: Vec<TimelineItem>,
}

impl Desk {
    pub async fn export_session(&self, session_id: &SessionId) -> Result<SessionExport> {
        let session = self.store.get_session(session_id).await?;
        let mut items = self.store.session_items(session_id).await?;
        let mut runs = Vec::new();
        for run in self.store.list_runs(session_id).await? {
            let mut mine: Vec<TimelineItem> = Vec::new();
            items.retain(|i| {
                if i.run_id == run.id {
                    mine.push(i.clone());
                    false
                } else {
                    true
                }
            });
            mine.sort_by_key(|i| i.seq);
            runs.push(RunExport {
                usage: self.store.run_usage(&run.id).await?,
                attachments: self.run_attachments(&run.id).await?,
                items: mine,
                run,
            });
        }
        let mut secrets: Vec<String> = Vec::new();
        let mut profile = None;
        let mut profile_ids: Vec<&ProfileId> = session.profile_id.iter().collect();
        profile_ids.extend(runs.iter().filter_map(|r| r.run.profile_id.as_ref()));
        profile_ids.sort_unstable();
        profile_ids.dedup();
        for id in profile_ids {
            let p = match self.store.get_profile(id).await {
                Ok(p) => p,
                // Deleted since: nothing of it is left to leak.
                Err(agentdesk_store::StoreError::NotFound { .. }) => continue,
                Err(e) => return Err(e.into()),
            };
            secrets.extend(p.spec.secret_values().into_iter().map(str::to_string));
            if session.profile_id.as_ref() == Some(&p.id) {
                profile = Some(Profile {
                    spec: p.spec.masked(),
                    ..p
                });
            }
        }
        let mut export = SessionExport {
            version: EXPORT_VERSION,
            usage: self.store.session_usage(session_id).await?,
            approvals: self.store.session_approvals(session_id).await?,
            profile,
            session,
            runs,
        };
        mask_secret_answers(&mut export);
        redact(export, &secrets)
    }

    pub async fn export_session_json(&self, session_id: &SessionId) -> Result<String> {
        let export = self.export_session(session_id).await?;
        serde_json::to_string_pretty(&export).map_err(|e| {
            crate::CoreError::InvalidInput(format!("cannot serialise the export: {e}"))
        })
    }

    pub async fn export_session_markdown(&self, session_id: &SessionId) -> Result<String> {
        Ok(render_markdown(&self.export_session(session_id).await?))
    }
}

/// Answers to secret questions never leave in an export, even one recorded by a build that
/// stored them in clear (or reached the timeline from the engine's echo of the answer).
fn mask_secret_answers(export: &mut SessionExport) {
    for a in &mut export.approvals {
        if let Some(answers) = a.decision.as_mut().and_then(|d| d.answers.as_mut()) {
            *answers = crate::approvals::mask_secret_answers(&a.request.questions, answers);
        }
    }
}

/// The export with every occurrence of a secret value, in any stored text, replaced by the
/// mask. Done on the JSON tree so every string field is covered, present and future.
fn redact(export: SessionExport, secrets: &[String]) -> Result<SessionExport> {
    let mut secrets: Vec<&str> = secrets
        .iter()
        .map(String::as_str)
        .filter(|s| s.chars().count() >= MIN_REDACTED_LEN)
        .collect();
    if secrets.is_empty() {
        return Ok(export);
    }
    // Longest first, so a secret containing another is replaced whole.
    secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
    let fail = |e: serde_json::Error| CoreError::Internal(format!("cannot redact the export: {e}"));
    let mut tree = serde_json::to_value(&export).map_err(fail)?;
    redact_value(&mut tree, &secrets);
    serde_json::from_value(tree).map_err(fail)
}

fn redact_value(v: &mut Value, secrets: &[&str]) {
    match v {
        Value::String(s) => {
            for secret in secrets {
                if s.contains(secret) {
                    *s = s.replace(secret, SECRET_MASK);
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|v| redact_value(v, secrets)),
        Value::Object(o) => o.values_mut().for_each(|v| redact_value(v, secrets)),
        _ => {}
    }
}

/// A fence longer than any backtick run in `text`, so the content cannot close it.
fn fenced(lang: &str, text: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    let fence = "`".repeat((longest + 1).max(3));
    let nl = if text.ends_with('\n') { "" } else { "\n" };
    format!("{fence}{lang}\n{text}{nl}{fence}\n\n")
}

fn usage_line(u: &TokenUsage) -> String {
    let cost = u.cost_usd.map(|c| format!(", ${c:.4}")).unwrap_or_default();
    format!(
        "{} in ({} cached), {} out ({} reasoning){cost}",
        u.input, u.cached, u.output, u.reasoning
    )
}

/// A tool call: what ran, its approval (as the record says), files, output, exit code.
fn render_tool(
    md: &mut String,
    item: &TimelineItem,
    interrupted: &str,
    approval: Option<&Approval>,
) {
    let ItemBody::Tool {
        name,
        input,
        output,
        exit_code,
        files,
        ..
    } = &item.body
    else {
        return;
    };
    md.push_str(&format!(
        "**Tool `{name}`** — {}{interrupted}\n\n",
        item.status.as_str()
    ));
    match input.get("command").and_then(|c| c.as_str()) {
        Some(c) => md.push_str(&fenced("sh", c)),
        None if !input.is_null() => md.push_str(&fenced(
            "json",
            &serde_json::to_string_pretty(input).unwrap_or_default(),
        )),
        None => {}
    }
    if let Some(a) = approval {
        let by = a
            .decided_by
            .map(|d| format!(" by {}", d.as_str()))
            .unwrap_or_default();
        md.push_str(&format!("Approval: {}{by}\n\n", a.state.as_str()));
    }
    for f in files {
        md.push_str(&format!("`{}` ({:?})\n\n", f.path, f.kind));
        md.push_str(&fenced("diff", &f.diff));
    }
    if !output.is_empty() {
        md.push_str(&fenced("", output));
    }
    if let Some(code) = exit_code {
        md.push_str(&format!("Exit code: {code}\n\n"));
    }
}

/// An approval with no tool call: what was asked and how it ended.
fn render_approval(md: &mut String, a: &Approval) {
    let what = a.request.command.clone().or(a.request.reason.clone());
    md.push_str(&format!(
        "**Approval** ({}): {} — {}\n\n",
        a.kind.as_str(),
        what.unwrap_or_default(),
        a.state.as_str()
    ));
}

/// A question and its answers (masked when secret: see `mask_secret_answers`).
fn render_question(md: &mut String, a: &Approval) {
    let answers = a.decision.as_ref().and_then(|d| d.answers.as_ref());
    for q in &a.request.questions {
        md.push_str(&format!("**Question:** {}\n\n", q.question));
        if let Some(given) = answers.and_then(|x| x.get(&q.id)) {
            md.push_str(&format!("**Answer:** {}\n\n", given.join(", ")));
        }
    }
    if answers.is_none() {
        md.push_str(&format!("*({})*\n\n", a.state.as_str()));
    }
}

pub fn render_markdown(e: &SessionExport) -> String {
    let mut md = String::new();
    let title = if e.session.title.is_empty() {
        "Untitled session"
    } else {
        &e.session.title
    };
    md.push_str(&format!("# {title}\n\n"));
    md.push_str(&format!(
        "Engine: {} · runs: {} · tokens: {}\n\n",
        e.session.engine.as_str(),
        e.runs.len(),
        usage_line(&e.usage.tokens)
    ));
    // Items name their approval; the record says what was asked and how it ended.
    let approvals: HashMap<&ApprovalId, &Approval> =
        e.approvals.iter().map(|a| (&a.id, a)).collect();
    for r in &e.runs {
        md.push_str(&format!(
            "## Run {} — {}\n\n",
            r.run.seq,
            r.run.status.as_str()
        ));
        for item in &r.items {
            if item.parent_id.is_some() {
                // A subagent's work: quoted under the call that started it.
                let mut nested = String::new();
                render_item(&mut nested, item, &r.attachments, &approvals);
                for line in nested.trim_end().lines() {
                    md.push_str(if line.is_empty() { ">" } else { "> " });
                    md.push_str(line);
                    md.push('\n');
                }
                md.push('\n');
            } else {
                render_item(&mut md, item, &r.attachments, &approvals);
            }
        }
        if let Some(err) = &r.run.error {
            md.push_str(&format!("> **Error:** {}\n\n", err.replace('\n', "\n> ")));
        }
    }
    md
}

fn render_item(
    md: &mut String,
    item: &TimelineItem,
    attachments: &[Attachment],
    approvals: &HashMap<&ApprovalId, &Approval>,
) {
    let approval = |id: &Option<ApprovalId>| id.as_ref().and_then(|id| approvals.get(id).copied());
    let interrupted = if item.status == ItemStatus::Interrupted {
        " *(interrupted)*"
    } else {
        ""
    };
    match &item.body {
        ItemBody::UserMessage { text, .. } => {
            md.push_str(&format!("### You\n\n{text}\n\n"));
            for a in attachments {
                md.push_str(&format!(
                    "- Attachment: `{}` ({}, {} bytes)\n",
                    a.name, a.mime, a.size
                ));
            }
            if !attachments.is_empty() {
                md.push('\n');
            }
        }
        ItemBody::AgentMessage { text } => {
            let who = if item.parent_id.is_some() {
                "Subagent"
            } else {
                "Agent"
            };
            md.push_str(&format!("### {who}{interrupted}\n\n{text}\n\n"))
        }
        ItemBody::Reasoning { text } => {
            let quoted = text
                .lines()
                .map(|l| format!("> {l}"))
                .collect::<Vec<_>>()
                .join("\n");
            md.push_str(&format!("> *Reasoning*\n>\n{quoted}\n\n"));
        }
        ItemBody::Tool { approval_id, .. } => {
            render_tool(md, item, interrupted, approval(approval_id))
        }
        ItemBody::FileChange {
            path,
            change_kind,
            diff,
        } => {
            md.push_str(&format!("**File `{path}`** ({change_kind:?})\n\n"));
            md.push_str(&fenced("diff", diff));
        }
        ItemBody::Approval { approval_id } => {
            if let Some(a) = approval(approval_id) {
                render_approval(md, a);
            }
        }
        ItemBody::Question { approval_id } => {
            if let Some(a) = approval(approval_id) {
                render_question(md, a);
            }
        }
        ItemBody::Notice { text, .. } => md.push_str(&format!("*{text}*\n\n")),
        // Diagnostics are for the diagnostics view, not the conversation.
        ItemBody::Diagnostic { .. } => {}
        ItemBody::Usage(tokens) => {
            let line = usage_line(tokens);
            md.push_str(&format!("*Usage: {line}*\n\n"));
        }
        ItemBody::Plan(plan) => render_plan(md, plan),
    }
}

/// A task list (GitHub's `- [x]`); markdown has no "in progress" box, so it is said.
fn render_plan(md: &mut String, plan: &agentdesk_protocol::plan::Plan) {
    use agentdesk_protocol::plan::PlanStatus;
    let (done, all) = plan.progress();
    md.push_str(&format!("**Plan** ({done} of {all} done)\n\n"));
    if let Some(why) = plan.explanation.as_deref().filter(|w| !w.is_empty()) {
        md.push_str(&format!("{why}\n\n"));
    }
    for e in &plan.entries {
        let (mark, note) = match e.status {
            PlanStatus::Completed => ("x", ""),
            PlanStatus::InProgress => (" ", " *(in progress)*"),
            PlanStatus::Pending => (" ", ""),
        };
        md.push_str(&format!("- [{mark}] {}{note}\n", e.step));
    }
    md.push('\n');
}

/// Write `bytes` to `path`, replacing it, so a failed write never leaves half an export
/// under the user's name: a sibling temporary file first, renamed over the target. The
/// temporary file has a name nobody can guess, is created new (a file or a symbolic link
/// planted there is never opened, let alone followed to overwrite what it points at) and is
/// private (0600) from its first byte: an export holds the whole conversation. The error
/// says which step failed ("write" or "replace").
pub(crate) async fn write_replacing(
    path: &Path,
    bytes: Vec<u8>,
) -> std::result::Result<(), (&'static str, std::io::Error)> {
    let path = path.to_path_buf();
    tokio::task::spawn_blocking(move || write_replacing_blocking(&path, &bytes))
        .await
        .map_err(|e| ("write", std::io::Error::other(e.to_string())))?
}

fn write_replacing_blocking(
    path: &Path,
    bytes: &[u8],
) -> std::result::Result<(), (&'static str, std::io::Error)> {
    let name = path.file_name().ok_or((
        "write",
        std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a file path"),
    ))?;
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(name);
    tmp_name.push(format!(
        ".{}.agentdesk-export",
        uuid::Uuid::new_v4().simple()
    ));
    let tmp = path.with_file_name(tmp_name);
    // `create_new` (O_CREAT | O_EXCL) refuses any existing name, a symbolic link included,
    // whatever it points at: nothing is written through a link planted there.
    let written = agentdesk_store::private::create_new_file(&tmp).and_then(|mut f| {
        f.write_all(bytes)?;
        f.sync_all()
    });
    if let Err(e) = written {
        // Only a file this call created is removed: `create_new` failed on anything else.
        if e.kind() != std::io::ErrorKind::AlreadyExists {
            let _ = std::fs::remove_file(&tmp);
        }
        return Err(("write", e));
    }
    if let Err(e) = std::fs::rename(&tmp, path) {
        let _ = std::fs::remove_file(&tmp);
        return Err(("replace", e));
    }
    Ok(())
}

#[cfg(test)]
#[path = "export_tests.rs"]
mod tests;
