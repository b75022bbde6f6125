//! The app and its workspaces.

use agentdesk_protocol::ids::WorkspaceId;
use agentdesk_protocol::ui::{AppInfo, ErrorCode, IpcError, Workspace};
use tauri::{AppHandle, State};
use tauri_plugin_dialog::DialogExt;

use super::CmdResult;
use crate::state::AppState;

#[tauri::command]
pub fn app_info(state: State<'_, AppState>) -> AppInfo {
    state.info().clone()
}

#[tauri::command]
pub async fn list_workspaces(state: State<'_, AppState>) -> CmdResult<Vec<Workspace>> {
    Ok(state.desk()?.list_workspaces().await?)
}

#[tauri::command]
pub async fn add_workspace(
    state: State<'_, AppState>,
    path: String,
    name: Option<String>,
) -> CmdResult<Workspace> {
    Ok(state.desk()?.add_workspace(&path, name.as_deref()).await?)
}

#[tauri::command]
pub async fn remove_workspace(state: State<'_, AppState>, id: WorkspaceId) -> CmdResult<()> {
    Ok(state.desk()?.remove_workspace(&id).await?)
}

/// Open the native folder picker; `None` when the user cancels.
#[tauri::command]
pub async fn pick_folder(app: AppHandle) -> CmdResult<Option<String>> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    app.dialog()
        .file()
        .set_title("Add a workspace folder")
        .pick_folder(move |picked| {
            let _ = tx.send(picked);
        });
    let picked = rx.await.map_err(|_| IpcError {
        code: ErrorCode::Internal,
        message: "the folder picker closed without an answer".into(),
    })?;
    match picked {
        None => Ok(None),
        Some(p) => p
            .into_path()
            .map(|p| Some(p.display().to_string()))
            .map_err(|e| IpcError {
                code: ErrorCode::InvalidInput,
                message: format!("the picked folder is not a local path: {e}"),
            }),
    }
}
