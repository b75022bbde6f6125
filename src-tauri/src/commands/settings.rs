//! Settings: engine health (what `agentdesk-cli doctor` shows), the engines' override paths
//! (chosen with the native picker only), the window's and the notifications' preferences, and the
//! data folders.

use agentdesk_protocol::ipc::{
    CompactDatabaseArgs, DataInfoArgs, EngineLimitsArgs, EnginesHealthArgs,
    GetNotificationPrefsArgs, GetUiSettingsArgs, OpenDataFolderArgs, OpenToolOutputArgs,
    PickEngineBinaryArgs, SetEngineMemoryLimitArgs, SetEnginePathArgs, SetNotificationPrefsArgs,
    SetUiSettingsArgs,
};
use tauri::{AppHandle, State};
use tauri_plugin_dialog::DialogExt;

use super::{internal, invalid, Args, Reply};
use crate::state::AppState;

desk_commands! {
    /// Every engine program: found where, version, logged in (`checkLogin` starts each once).
    fn engines_health(desk, args: EnginesHealthArgs) {
        let checks = desk.engines_health(args.check_login).await;
        checks.into_iter().map(|c| c.health).collect()
    }

    /// Forget the executable chosen for an engine (find it on PATH again). The window cannot
    /// name a path here (issue 19 item 7): an executable is only ever the one the user picked in
    /// the native dialog ([`pick_engine_binary`]), since a compromised window (agent output is
    /// hostile) could otherwise point the app at a program of its choosing to run with the
    /// user's keys. `path` is accepted for the old call shape and must be empty.
    fn set_engine_path(desk, args: SetEnginePathArgs) {
        let SetEnginePathArgs { program, path } = args;
        if path.as_deref().is_some_and(|p| !p.trim().is_empty()) {
            return Err(invalid(
                "an engine's executable can only be chosen with “Choose…” (the system's file picker)",
            ));
        }
        desk.set_engine_path(&program, None).await?
    }

    fn set_ui_settings(desk, args: SetUiSettingsArgs) {
        desk.set_ui_settings(&args.settings).await?
    }

    fn set_notification_prefs(desk, args: SetNotificationPrefsArgs) {
        desk.set_notification_prefs(&args.prefs).await?
    }
}

/// The native file picker for an engine's executable; the picked file is checked (an
/// executable regular file, symlinks followed) and stored, and its path returned. `None`
/// when the user cancels (nothing changes). Only what the user picks in the dialog is
/// stored: the window never supplies the path.
#[tauri::command]
pub async fn pick_engine_binary(
    app: AppHandle,
    state: State<'_, AppState>,
    args: Args<PickEngineBinaryArgs>,
) -> Reply<PickEngineBinaryArgs> {
    let program = args.args.program;
    let desk = state.desk()?;
    let (tx, rx) = tokio::sync::oneshot::channel();
    if !agentdesk_core::engines::is_program(&program) {
        return Err(invalid(format!(
            "no engine has a program named {program:?}"
        )));
    }
    let title = format!("Choose the {program} executable");
    app.dialog()
        .file()
        .set_title(&title)
        .pick_file(move |picked| {
            let _ = tx.send(picked);
        });
    let picked = rx
        .await
        .map_err(|_| internal("the file picker closed without an answer"))?;
    let Some(picked) = picked else {
        return Ok(None);
    };
    let path = picked
        .into_path()
        .map_err(|e| invalid(format!("the picked file is not a local path: {e}")))?;
    let shown = path.display().to_string();
    // Refused with the message a run would fail with when it is not an executable file.
    desk.set_engine_path(&program, Some(&shown)).await?;
    Ok(Some(shown))
}

#[tauri::command]
pub async fn get_ui_settings(state: State<'_, AppState>) -> Reply<GetUiSettingsArgs> {
    Ok(state.desk()?.ui_settings().await?)
}

#[tauri::command]
pub async fn get_notification_prefs(state: State<'_, AppState>) -> Reply<GetNotificationPrefsArgs> {
    Ok(state.desk()?.notification_prefs().await?)
}

#[tauri::command]
pub async fn data_info(state: State<'_, AppState>) -> Reply<DataInfoArgs> {
    Ok(state.desk()?.data_info().await)
}

#[tauri::command]
pub async fn open_tool_output(
    state: State<'_, AppState>,
    args: Args<OpenToolOutputArgs>,
) -> Reply<OpenToolOutputArgs> {
    let path = state
        .desk()?
        .tool_output_file(&args.session_id, &args.item_id)
        .await?;
    folder_opener(&path)
        .spawn()
        .map(drop)
        .map_err(|e| internal(format!("cannot open {}: {e}", path.display())))
}

#[tauri::command]
pub async fn engine_limits(state: State<'_, AppState>) -> Reply<EngineLimitsArgs> {
    Ok(state.desk()?.engine_limits().await?)
}

#[tauri::command]
pub async fn set_engine_memory_limit(
    state: State<'_, AppState>,
    args: Args<SetEngineMemoryLimitArgs>,
) -> Reply<SetEngineMemoryLimitArgs> {
    Ok(state.desk()?.set_engine_memory_limit(args.mb).await?)
}

#[tauri::command]
pub async fn compact_database(state: State<'_, AppState>) -> Reply<CompactDatabaseArgs> {
    Ok(state.desk()?.compact_database().await?)
}

/// Open the data or the log folder in the file manager. Only these two folders: the UI
/// names which, never a path, so no page content can make the app open anything else.
#[tauri::command]
pub async fn open_data_folder(
    state: State<'_, AppState>,
    args: Args<OpenDataFolderArgs>,
) -> Reply<OpenDataFolderArgs> {
    let info = state.info();
    let dir = match args.which.as_str() {
        "data" => std::path::PathBuf::from(&info.data_dir),
        "logs" => std::path::PathBuf::from(&info.log_dir),
        other => return Err(invalid(format!("unknown folder {other:?}"))),
    };
    if dir.as_os_str().is_empty() {
        return Err(invalid(
            "the data folder is not known (the store did not open)",
        ));
    }
    // The log folder appears with the first log file; open an empty one rather than fail.
    tokio::fs::create_dir_all(&dir)
        .await
        .map_err(|e| internal(format!("cannot create {}: {e}", dir.display())))?;
    folder_opener(&dir)
        .spawn()
        .map(drop)
        .map_err(|e| internal(format!("cannot open the file manager: {e}")))
}

pub(crate) fn folder_opener(dir: &std::path::Path) -> std::process::Command {
    #[cfg(target_os = "macos")]
    let program = "open";
    #[cfg(target_os = "windows")]
    let program = "explorer";
    #[cfg(not(any(target_os = "macos", target_os = "windows")))]
    let program = "xdg-open";
    let mut c = std::process::Command::new(program);
    crate::webkit::for_the_user(&mut c)
        .arg(dir)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    c
}
