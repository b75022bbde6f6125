//! The app and its workspaces.

use agentdesk_protocol::ipc::{
    AddWorkspaceArgs, AppInfoArgs, ListRemoteFoldersArgs, ListWorkspacesArgs, PickFolderArgs,
    RemoteEnginesHealthArgs, RemoveWorkspaceArgs,
};
use tauri::{AppHandle, State};
use tauri_plugin_dialog::DialogExt;

use super::{internal, invalid, Reply};
use crate::state::AppState;

#[tauri::command]
pub fn app_info(state: State<'_, AppState>) -> Reply<AppInfoArgs> {
    Ok(state.info().clone())
}

#[tauri::command]
pub async fn list_workspaces(state: State<'_, AppState>) -> Reply<ListWorkspacesArgs> {
    Ok(state.desk()?.list_workspaces().await?)
}

desk_commands! {
    fn add_workspace(desk, args: AddWorkspaceArgs) {
        desk.add_workspace(&args.path, args.name.as_deref()).await?
    }

    fn remove_workspace(desk, args: RemoveWorkspaceArgs) {
        desk.remove_workspace(&args.id).await?
    }

    fn list_remote_folders(desk, args: ListRemoteFoldersArgs) {
        desk.list_remote_folders(&args.host, args.path.as_deref()).await?
    }

    fn remote_engines_health(desk, args: RemoteEnginesHealthArgs) {
        desk.remote_engines_health(&args.host, None, args.check_login).await?
    }
}

/// Open the native folder picker; `None` when the user cancels.
#[tauri::command]
pub async fn pick_folder(app: AppHandle) -> Reply<PickFolderArgs> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    app.dialog()
        .file()
        .set_title("Add a workspace folder")
        .pick_folder(move |picked| {
            let _ = tx.send(picked);
        });
    let picked = rx
        .await
        .map_err(|_| internal("the folder picker closed without an answer"))?;
    match picked {
        None => Ok(None),
        Some(p) => p
            .into_path()
            .map(|p| Some(p.display().to_string()))
            .map_err(|e| invalid(format!("the picked folder is not a local path: {e}"))),
    }
}
