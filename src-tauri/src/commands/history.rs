//! The engines' own histories: importing the sessions a terminal ran (the core does the work;
//! this carries the progress to the window).

use agentdesk_core::history::ImportOptions;
use agentdesk_protocol::ipc::ImportHistoriesArgs;
use tauri::State;

use super::{Args, Reply};
use crate::state::AppState;

/// Scan every source the engines' environment names and import what is new.
#[tauri::command]
pub async fn import_histories(
    state: State<'_, AppState>,
    args: Args<ImportHistoriesArgs>,
) -> Reply<ImportHistoriesArgs> {
    let on_progress = args.channel(&args.on_progress)?;
    let desk = state.desk()?;
    let opts = ImportOptions {
        sources: desk.history_sources().await,
        dry_run: false,
    };
    let progress = move |p| {
        // The window may have gone; the import goes on.
        let _ = on_progress.send(p);
    };
    Ok(desk.import_histories(&opts, &progress).await?)
}
