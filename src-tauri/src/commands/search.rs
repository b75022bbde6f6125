//! Full-text search across every session (the sidebar's search box and Ctrl/Cmd+K).

use agentdesk_protocol::ids::WorkspaceId;
use agentdesk_protocol::ui::SearchHit;
use tauri::State;

use super::CmdResult;
use crate::state::AppState;

/// Messages matching what the user typed, best first (at most `limit`, 1..=100). The window
/// debounces typing and shows only the answer to its latest query.
#[tauri::command]
pub async fn search_messages(
    state: State<'_, AppState>,
    query: String,
    workspace_id: Option<WorkspaceId>,
    limit: u32,
) -> CmdResult<Vec<SearchHit>> {
    Ok(state
        .desk()?
        .search(&query, workspace_id.as_ref(), limit.clamp(1, 100))
        .await?)
}
