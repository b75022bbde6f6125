//! Full-text search across every session (the sidebar's search box and Ctrl/Cmd+K).

use agentdesk_protocol::ipc::SearchMessagesArgs;
use tauri::State;

use super::{Args, Reply};
use crate::state::AppState;

/// Messages matching what the user typed, best first (at most `limit`, 1..=100). The window
/// debounces typing and shows only the answer to its latest query.
#[tauri::command]
pub async fn search_messages(
    state: State<'_, AppState>,
    args: Args<SearchMessagesArgs>,
) -> Reply<SearchMessagesArgs> {
    Ok(state
        .desk()?
        .search(
            &args.query,
            args.workspace_id.as_ref(),
            args.limit.clamp(1, 100),
        )
        .await?)
}
