//! Read-only views: `sessions`, `show`, `search`, `export`, `approvals`.

use std::io::Write;
use std::path::{Path, PathBuf};

use agentdesk_core::Desk;
use agentdesk_protocol::ui::{Session, Workspace};
use clap::{Args, ValueEnum};
use serde::Serialize;

use crate::error::{CliError, CliResult};
use crate::escape::{json_safe, visible, visible_line};
use crate::render;

#[derive(Args, Debug)]
pub struct SessionsArgs {
    /// Only this workspace's sessions.
    #[arg(long, value_name = "DIR")]
    workspace: Option<PathBuf>,
    /// Include archived sessions.
    #[arg(long)]
    all: bool,
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
pub struct ShowArgs {
    /// A session id (or an unambiguous prefix of one).
    session: String,
    /// The stored timeline items as JSON lines.
    #[arg(long)]
    json: bool,
    /// Include engine diagnostics (stderr, unknown messages).
    #[arg(long)]
    diagnostics: bool,
}

#[derive(Args, Debug)]
pub struct SearchArgs {
    /// Words to find (all of them); "quoted phrases" work.
    text: String,
    /// Only this workspace's sessions.
    #[arg(long, value_name = "DIR")]
    workspace: Option<PathBuf>,
    #[arg(long, default_value_t = 20)]
    limit: u32,
    #[arg(long)]
    json: bool,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ExportFormat {
    Md,
    Json,
}

#[derive(Args, Debug)]
pub struct ExportArgs {
    /// A session id (or an unambiguous prefix of one).
    session: String,
    #[arg(long, value_enum)]
    format: ExportFormat,
}

#[derive(Args, Debug)]
pub struct ApprovalsArgs {
    #[arg(long)]
    json: bool,
}

pub fn print_json<T: Serialize>(v: &T) -> CliResult<()> {
    let s = serde_json::to_string_pretty(v)
        .map_err(|e| CliError::internal(format!("cannot serialise: {e}")))?;
    println!("{}", json_safe(&s));
    Ok(())
}

/// The workspace for a folder, added when `create` (run, profile add) and refused otherwise,
/// so a typo in a read-only command does not create anything.
pub async fn workspace_for(desk: &Desk, dir: &Path, create: bool) -> CliResult<Workspace> {
    if let Some(loc) = dir
        .to_str()
        .and_then(agentdesk_protocol::remote::SshLocation::parse_any)
    {
        return remote_workspace_for(desk, loc.map_err(CliError::invalid)?, create).await;
    }
    let canonical = agentdesk_store::canonical::canonicalize(dir)
        .map_err(|e| CliError::invalid(format!("the workspace folder {}: {e}", dir.display())))?;
    let path = canonical.to_string_lossy().into_owned();
    if let Some(w) = desk
        .store()
        .find_workspace_by_path(&path)
        .await
        .map_err(agentdesk_core::CoreError::from)?
    {
        return Ok(w);
    }
    if !create {
        return Err(CliError::not_found(format!(
            "{path} is not a workspace yet (add a profile with `agentdesk-cli profile add --workspace {path} ...` or run a prompt there)"
        )));
    }
    Ok(desk.add_workspace(&path, None).await?)
}

/// [`workspace_for`] a folder on an SSH host: found by its URL as written, else as the
/// host resolves it (one round trip), else added when `create`.
async fn remote_workspace_for(
    desk: &Desk,
    loc: agentdesk_protocol::remote::SshLocation,
    create: bool,
) -> CliResult<Workspace> {
    let store = desk.store();
    let find = |url: String| async move {
        store
            .find_workspace_by_path(&url)
            .await
            .map_err(agentdesk_core::CoreError::from)
    };
    if let Some(w) = find(loc.url()).await? {
        return Ok(w);
    }
    let resolved = desk.resolve_remote_folder(&loc).await?;
    if let Some(w) = find(resolved.url()).await? {
        return Ok(w);
    }
    if !create {
        return Err(CliError::not_found(format!(
            "{} is not a workspace yet (add a profile with `agentdesk-cli profile add --workspace {} ...` or run a prompt there)",
            resolved.url(),
            resolved.url()
        )));
    }
    Ok(desk.add_workspace(&resolved.url(), None).await?)
}

/// A session by id or by a unique id prefix (ids are long uuids).
pub async fn find_session(desk: &Desk, id: &str) -> CliResult<Session> {
    let id = id.trim();
    if id.is_empty() {
        return Err(CliError::invalid("give a session id"));
    }
    let all = desk
        .store()
        .list_all_sessions(true)
        .await
        .map_err(agentdesk_core::CoreError::from)?;
    let matches: Vec<Session> = all
        .into_iter()
        .filter(|s| s.id.as_str().starts_with(id))
        .collect();
    match matches.len() {
        1 => Ok(matches
            .into_iter()
            .next()
            .ok_or_else(|| CliError::internal("lost a match"))?),
        0 => Err(CliError::not_found(format!(
            "no session {id:?} (see `agentdesk-cli sessions`)"
        ))),
        n => Err(CliError::invalid(format!(
            "{id:?} matches {n} sessions; give more of the id"
        ))),
    }
}

pub async fn sessions(desk: &Desk, a: SessionsArgs) -> CliResult<()> {
    let list = match &a.workspace {
        Some(dir) => {
            let ws = workspace_for(desk, dir, false).await?;
            desk.list_sessions(&ws.id, a.all).await?
        }
        None => desk
            .store()
            .list_all_sessions(a.all)
            .await
            .map_err(agentdesk_core::CoreError::from)?,
    };
    if a.json {
        return print_json(&list);
    }
    let workspaces = desk.list_workspaces().await?;
    for s in &list {
        let ws = workspaces
            .iter()
            .find(|w| w.id == s.workspace_id)
            .map_or("?", |w| w.path.as_str());
        let runs = desk.list_runs(&s.id).await?;
        let last = runs.last().map_or("-", |r| r.status.as_str());
        println!(
            "{}  {:<6} {:<11} {}  {}{}",
            s.id,
            s.engine.as_str(),
            last,
            render::time(s.updated_at),
            if s.title.is_empty() {
                "(untitled)".to_string()
            } else {
                visible_line(&s.title)
            },
            format_args!(
                "  [{}]{}{}",
                visible_line(ws),
                origin_note(s),
                s.branch
                    .as_deref()
                    .map(|b| format!("  (worktree, branch {b})"))
                    .unwrap_or_default()
            )
        );
    }
    Ok(())
}

/// "  (from Claude Code)" for a session imported from an engine's own history.
fn origin_note(s: &Session) -> String {
    match s.origin {
        agentdesk_protocol::ui::SessionOrigin::App => String::new(),
        o => format!("  (from {})", o.display_name()),
    }
}

pub async fn show(desk: &Desk, a: ShowArgs) -> CliResult<()> {
    let s = find_session(desk, &a.session).await?;
    let items = desk
        .store()
        .session_items(&s.id)
        .await
        .map_err(agentdesk_core::CoreError::from)?;
    let mut out = std::io::stdout().lock();
    if a.json {
        for it in &items {
            let line = serde_json::to_string(it)
                .map_err(|e| CliError::internal(format!("cannot serialise: {e}")))?;
            writeln!(out, "{}", json_safe(&line)).map_err(|e| CliError::io("stdout", e))?;
        }
        return Ok(());
    }
    writeln!(
        out,
        "# {}  ({} · {})",
        if s.title.is_empty() {
            "(untitled)".to_string()
        } else {
            visible_line(&s.title)
        },
        s.engine.as_str(),
        s.id
    )
    .map_err(|e| CliError::io("stdout", e))?;
    let runs = desk.list_runs(&s.id).await?;
    let approvals: render::Approvals = desk
        .store()
        .session_approvals(&s.id)
        .await
        .map_err(agentdesk_core::CoreError::from)?
        .into_iter()
        .map(|ap| (ap.id.clone(), ap))
        .collect();
    for run in &runs {
        for it in items.iter().filter(|i| i.run_id == run.id) {
            if let Some(text) = render::item(it, &approvals, a.diagnostics) {
                writeln!(out, "{}", visible(&text)).map_err(|e| CliError::io("stdout", e))?;
            }
        }
        writeln!(out, "{}", visible(&render::run_end(run)))
            .map_err(|e| CliError::io("stdout", e))?;
    }
    let usage = desk.session_usage(&s.id).await?;
    if usage.runs > 0 {
        writeln!(out, "{}", render::usage(&usage.tokens)).map_err(|e| CliError::io("stdout", e))?;
    }
    Ok(())
}

pub async fn search(desk: &Desk, a: SearchArgs) -> CliResult<()> {
    let ws = match &a.workspace {
        Some(dir) => Some(workspace_for(desk, dir, false).await?),
        None => None,
    };
    let hits = desk
        .search(&a.text, ws.as_ref().map(|w| &w.id), a.limit)
        .await?;
    if a.json {
        return print_json(&hits);
    }
    if hits.is_empty() {
        eprintln!("no matches");
    }
    for h in &hits {
        let snippet: String = h
            .snippet
            .iter()
            .map(|p| {
                if p.highlight {
                    format!("[{}]", p.text)
                } else {
                    p.text.clone()
                }
            })
            .collect();
        println!(
            "{}  {}  {}: {}",
            h.session_id,
            visible_line(&h.session_title),
            h.kind,
            visible_line(&snippet.replace('\n', " "))
        );
    }
    Ok(())
}

pub async fn export(desk: &Desk, a: ExportArgs) -> CliResult<()> {
    let s = find_session(desk, &a.session).await?;
    // The same document, with what could drive a terminal made visible (JSON: as \u
    // escapes, so it parses to the same value).
    let text = match a.format {
        ExportFormat::Md => visible(&desk.export_session_markdown(&s.id).await?),
        ExportFormat::Json => json_safe(&desk.export_session_json(&s.id).await?),
    };
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| {
            if text.ends_with('\n') {
                Ok(())
            } else {
                out.write_all(b"\n")
            }
        })
        .map_err(|e| CliError::io("stdout", e))
}

pub async fn approvals(desk: &Desk, a: ApprovalsArgs) -> CliResult<()> {
    // From the database, not the in-memory queue: the requests may belong to the app or to
    // another `agentdesk-cli run`.
    let pending = desk
        .store()
        .pending_approvals()
        .await
        .map_err(agentdesk_core::CoreError::from)?;
    if a.json {
        return print_json(&pending);
    }
    if pending.is_empty() {
        println!("no pending approvals");
    }
    for ap in &pending {
        println!(
            "{}  session {}  {}",
            ap.id,
            ap.session_id,
            visible_line(&render::approval_summary(ap))
        );
    }
    Ok(())
}
