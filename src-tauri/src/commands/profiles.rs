//! Profiles: list (secrets masked; the session's switcher and the editor both read it), create, update, duplicate, set default,
//! delete. A rejected spec comes back with the core's field errors (`ProfileError.fields`),
//! so the window shows each message next to its input without validating on its own.
//!
//! A new endpoint (base URL, API-key variable, a proxy...) is saved only after the user
//! confirms it in a native dialog shown from here: the window runs next to agent output, so
//! it is not trusted to send the user's key somewhere new on its own (issue 19 item 7).

use agentdesk_core::profiles::EndpointChange;
use agentdesk_core::{CoreError, Desk};
use agentdesk_protocol::ipc::{
    CreateProfileArgs, DeleteProfileArgs, DuplicateProfileArgs, ListModelsArgs, ListProfilesArgs,
    McpStatusArgs, SetDefaultProfileArgs, UpdateProfileArgs,
};
use agentdesk_protocol::ui::{ErrorCode, IpcError, ProfileError, ProfileFieldError};
use tauri::{AppHandle, State};

use super::{Args, Reply};
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

/// A workspace's profiles: secret values are `••••`, never sent (the window never receives a
/// secret env value in clear).
#[tauri::command]
pub async fn list_profiles(
    state: State<'_, AppState>,
    args: Args<ListProfilesArgs>,
) -> Reply<ListProfilesArgs> {
    let desk = state.desk().map_err(from_ipc)?;
    desk.list_profiles_masked(&args.workspace_id)
        .await
        .map_err(from_core)
}

desk_commands! {
    /// The models an engine offers (a saved profile's options, else the engine's defaults).
    fn list_models(desk, args: ListModelsArgs) {
        desk.list_models_for(&args.workspace_id, args.engine, args.profile_id.as_ref()).await?
    }

    /// A saved profile's MCP servers as its engine reports them.
    fn mcp_status(desk, args: McpStatusArgs) {
        desk.mcp_status(&args.workspace_id, &args.profile_id).await?
    }
}

/// Title of the native confirmation (the E2E tests find the dialog by it).
pub const CONFIRM_ENDPOINT_TITLE: &str = "Confirm the profile's endpoint";

/// Ask the user, in a native dialog the window cannot answer, to confirm `change`.
async fn user_confirms(app: &AppHandle, change: &EndpointChange) -> bool {
    super::confirm_natively(
        app,
        CONFIRM_ENDPOINT_TITLE,
        change.describe(),
        "Use this endpoint",
    )
    .await
}

/// Nothing new to confirm, or the user confirmed it (remembered); otherwise the save is
/// refused with the changed fields, so the editor shows why next to them.
async fn confirm_endpoint(
    app: &AppHandle,
    desk: &Desk,
    change: Option<EndpointChange>,
) -> ProfileResult<()> {
    let Some(change) = change else {
        return Ok(());
    };
    if !user_confirms(app, &change).await {
        tracing::warn!(fields = ?change.fields, "profile endpoint change not confirmed");
        let message = "not saved: the new endpoint was not confirmed in the dialog".to_string();
        return Err(ProfileError {
            code: ErrorCode::InvalidInput,
            fields: change
                .fields
                .iter()
                .map(|f| ProfileFieldError {
                    field: f.clone(),
                    message: message.clone(),
                })
                .collect(),
            message,
        });
    }
    desk.confirm_endpoint(&change).await.map_err(from_core)
}

/// Answers with the profile masked, like the list: the editor never holds a secret value.
#[tauri::command]
pub async fn create_profile(
    app: AppHandle,
    state: State<'_, AppState>,
    args: Args<CreateProfileArgs>,
) -> Reply<CreateProfileArgs> {
    let CreateProfileArgs { workspace_id, spec } = args.args;
    let desk = state.desk().map_err(from_ipc)?;
    let change = desk
        .new_profile_endpoint_check(&workspace_id, &spec)
        .await
        .map_err(from_core)?;
    confirm_endpoint(&app, desk, change).await?;
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
    app: AppHandle,
    state: State<'_, AppState>,
    args: Args<UpdateProfileArgs>,
) -> Reply<UpdateProfileArgs> {
    let UpdateProfileArgs { id, spec } = args.args;
    let desk = state.desk().map_err(from_ipc)?;
    let change = desk
        .profile_endpoint_check(&id, &spec)
        .await
        .map_err(from_core)?;
    confirm_endpoint(&app, desk, change).await?;
    let mut p = desk.update_profile(&id, &spec).await.map_err(from_core)?;
    p.spec = p.spec.masked();
    Ok(p)
}

#[tauri::command]
pub async fn duplicate_profile(
    state: State<'_, AppState>,
    args: Args<DuplicateProfileArgs>,
) -> Reply<DuplicateProfileArgs> {
    let desk = state.desk().map_err(from_ipc)?;
    let mut p = desk.duplicate_profile(&args.id).await.map_err(from_core)?;
    p.spec = p.spec.masked();
    Ok(p)
}

#[tauri::command]
pub async fn set_default_profile(
    state: State<'_, AppState>,
    args: Args<SetDefaultProfileArgs>,
) -> Reply<SetDefaultProfileArgs> {
    let desk = state.desk().map_err(from_ipc)?;
    desk.set_default_profile(&args.id).await.map_err(from_core)
}

/// Sessions that used it keep their history and run with the engine's defaults.
#[tauri::command]
pub async fn delete_profile(
    state: State<'_, AppState>,
    args: Args<DeleteProfileArgs>,
) -> Reply<DeleteProfileArgs> {
    let desk = state.desk().map_err(from_ipc)?;
    desk.delete_profile(&args.id).await.map_err(from_core)
}
