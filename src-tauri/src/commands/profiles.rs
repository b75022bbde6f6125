//! The profiles editor: list (secrets masked), create, update, duplicate, set default,
//! delete. A rejected spec comes back with the core's field errors (`ProfileError.fields`),
//! so the window shows each message next to its input without validating on its own.

use agentdesk_core::CoreError;
use agentdesk_protocol::ids::{ProfileId, WorkspaceId};
use agentdesk_protocol::ui::{IpcError, Profile, ProfileError, ProfileSpec};
use tauri::State;

use crate::state::AppState;

type ProfileResult<T> = Result<T, ProfileError>;

fn from_core(e: CoreError) -> ProfileError {
    let ipc = e.to_ipc();
    let fields = match e {
        CoreError::InvalidProfile(fields) => fields,
        _ => Vec::new(),
    };
    ProfileError {
        code: ipc.code,
        message: ipc.message,
        fields,
    }
}

fn from_ipc(e: IpcError) -> ProfileError {
    ProfileError {
        code: e.code,
        message: e.message,
        fields: Vec::new(),
    }
}

/// A workspace's profiles as the editor shows them: secret values are `••••`, never sent.
#[tauri::command]
pub async fn list_workspace_profiles(
    state: State<'_, AppState>,
    workspace_id: WorkspaceId,
) -> ProfileResult<Vec<Profile>> {
    let desk = state.desk().map_err(from_ipc)?;
    desk.list_profiles_masked(&workspace_id)
        .await
        .map_err(from_core)
}

/// Answers with the profile masked, like the list: the editor never holds a secret value.
#[tauri::command]
pub async fn create_profile(
    state: State<'_, AppState>,
    workspace_id: WorkspaceId,
    spec: ProfileSpec,
) -> ProfileResult<Profile> {
    let desk = state.desk().map_err(from_ipc)?;
    let mut p = desk
        .create_profile(&workspace_id, &spec)
        .await
        .map_err(from_core)?;
    p.spec = p.spec.masked();
    Ok(p)
}

/// A secret sent back as `••••` keeps its stored value (the core merges it).
#[tauri::command]
pub async fn update_profile(
    state: State<'_, AppState>,
    id: ProfileId,
    spec: ProfileSpec,
) -> ProfileResult<Profile> {
    let desk = state.desk().map_err(from_ipc)?;
    let mut p = desk.update_profile(&id, &spec).await.map_err(from_core)?;
    p.spec = p.spec.masked();
    Ok(p)
}

#[tauri::command]
pub async fn duplicate_profile(
    state: State<'_, AppState>,
    id: ProfileId,
) -> ProfileResult<Profile> {
    let desk = state.desk().map_err(from_ipc)?;
    let mut p = desk.duplicate_profile(&id).await.map_err(from_core)?;
    p.spec = p.spec.masked();
    Ok(p)
}

#[tauri::command]
pub async fn set_default_profile(state: State<'_, AppState>, id: ProfileId) -> ProfileResult<()> {
    let desk = state.desk().map_err(from_ipc)?;
    desk.set_default_profile(&id).await.map_err(from_core)
}

/// Sessions that used it keep their history and run with the engine's defaults.
#[tauri::command]
pub async fn delete_profile(state: State<'_, AppState>, id: ProfileId) -> ProfileResult<()> {
    let desk = state.desk().map_err(from_ipc)?;
    desk.delete_profile(&id).await.map_err(from_core)
}
