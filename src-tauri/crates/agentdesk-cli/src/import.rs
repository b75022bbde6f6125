//! `import`: the engines' own histories (the sessions a terminal ran) into the workspaces
//! they ran in, incrementally (see `agentdesk_core::history`).

use std::io::Write;

use agentdesk_core::history::ImportOptions;
use agentdesk_core::Desk;
use agentdesk_protocol::ui::{Engine, ImportProgress, ImportReport};
use clap::Args;

use crate::error::{CliError, CliResult};
use crate::escape::visible_line;
use crate::views::print_json;

#[derive(Args, Debug)]
pub struct ImportArgs {
    /// Only this engine's history (codex, claude).
    #[arg(long, value_name = "ENGINE")]
    engine: Option<String>,
    /// Say what would be imported; write nothing.
    #[arg(long)]
    dry_run: bool,
    /// The report as JSON.
    #[arg(long)]
    json: bool,
    /// Files done of files found, on stderr, as the import goes.
    #[arg(long)]
    progress: bool,
}

pub async fn import(desk: &Desk, a: ImportArgs) -> CliResult<()> {
    let mut sources = desk.history_sources().await;
    if let Some(name) = &a.engine {
        let engine = Engine::parse(name)
            .ok_or_else(|| CliError::invalid(format!("unknown engine {name:?} (codex, claude)")))?;
        sources.retain(|s| s.engine() == engine);
        if sources.is_empty() {
            return Err(CliError::invalid(format!(
                "no {} history to read: its executable was not found (see `agentdesk-cli doctor`)",
                agentdesk_engine::registry::descriptor(engine).display_name()
            )));
        }
    }
    let opts = ImportOptions {
        sources,
        dry_run: a.dry_run,
    };
    let show_progress = a.progress;
    let progress = move |p: ImportProgress| {
        if show_progress {
            let mut err = std::io::stderr().lock();
            let _ = writeln!(err, "import: {}/{} files", p.done, p.total);
        }
    };
    let report = desk.import_histories(&opts, &progress).await?;
    if a.json {
        return print_json(&report);
    }
    print_report(&report);
    Ok(())
}

fn print_report(r: &ImportReport) {
    let verb = if r.dry_run { "would add" } else { "added" };
    for s in &r.sources {
        println!(
            "{}: {} ({} files, {} unchanged)",
            s.origin.display_name(),
            visible_line(&s.folder),
            s.files,
            s.unchanged
        );
        println!(
            "  {verb} {} sessions, updated {}, {} turns",
            s.sessions_added, s.sessions_updated, s.turns
        );
        if s.skipped > 0 || s.unreadable > 0 {
            println!(
                "  skipped {} unreadable lines, {} unreadable files or folders",
                s.skipped, s.unreadable
            );
        }
        for f in &s.without_workspace {
            println!(
                "  {} sessions in {} (not a workspace: add it with `agentdesk-cli profile add --workspace {} NAME --engine ENGINE`, then import again)",
                f.sessions,
                visible_line(&f.folder),
                visible_line(&f.folder)
            );
        }
    }
}
