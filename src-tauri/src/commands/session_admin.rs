//! Session management: rename, archive, delete (after a confirm naming what goes), export
//! through the native save dialog.

use agentdesk_protocol::ipc::{
    ArchiveSessionArgs, DeleteSessionArgs, ExportSessionArgs, RenameSessionArgs,
    SessionFootprintArgs,
};
use agentdesk_protocol::ui::ExportFormat;
use tauri::{AppHandle, State};
use tauri_plugin_dialog::DialogExt;

use super::{internal, invalid, Args, Reply};
use crate::state::AppState;

desk_commands! {
    fn rename_session(desk, args: RenameSessionArgs) {
        let RenameSessionArgs { session_id, title } = args;
        if title.trim().is_empty() {
            return Err(invalid("a session needs a name"));
        }
        desk.rename_session(&session_id, &title).await?;
        desk.get_session(&session_id).await?
    }

    /// Archive (hidden from the list unless "Show archived" is on) or unarchive.
    fn archive_session(desk, args: ArchiveSessionArgs) {
        desk.archive_session(&args.session_id, args.archived).await?;
        desk.get_session(&args.session_id).await?
    }

    /// What deleting the session would remove, for the confirm.
    fn session_footprint(desk, args: SessionFootprintArgs) {
        desk.session_footprint(&args.session_id).await?
    }

    fn delete_session(desk, args: DeleteSessionArgs) {
        desk.delete_session(&args.session_id).await?
    }
}

/// A file name from the session's title: what the save dialog proposes.
fn suggested_name(title: &str, format: ExportFormat) -> String {
    let base: String = title
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' || c == ' ' {
                c
            } else {
                '-'
            }
        })
        .take(60)
        .collect();
    let base = base.trim().trim_matches('-');
    let base = if base.is_empty() { "session" } else { base };
    format!("{base}.{}", format.extension())
}

/// Ask where to save (the native dialog), then write the export there. `None`: the user
/// cancelled the dialog.
#[tauri::command]
pub async fn export_session(
    app: AppHandle,
    state: State<'_, AppState>,
    args: Args<ExportSessionArgs>,
) -> Reply<ExportSessionArgs> {
    let ExportSessionArgs { session_id, format } = args.args;
    let desk = state.desk()?;
    let session = desk.get_session(&session_id).await?;
    let (filter, ext) = match format {
        ExportFormat::Markdown => ("Markdown", format.extension()),
        ExportFormat::Json => ("JSON", format.extension()),
    };
    let (tx, rx) = tokio::sync::oneshot::channel();
    app.dialog()
        .file()
        .set_title("Export session")
        .set_file_name(suggested_name(&session.title, format))
        .add_filter(filter, &[ext])
        .save_file(move |picked| {
            let _ = tx.send(picked);
        });
    let picked = rx
        .await
        .map_err(|_| internal("the save dialog closed without an answer"))?;
    let Some(picked) = picked else {
        return Ok(None);
    };
    let path = picked
        .into_path()
        .map_err(|e| invalid(format!("the chosen file is not a local path: {e}")))?;
    desk.export_session_to(&session_id, format, &path).await?;
    Ok(Some(path.display().to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn export_names_come_from_the_title() {
        assert_eq!(
            suggested_name("Fix the build: CI/linux", ExportFormat::Markdown),
            "Fix the build- CI-linux.md"
        );
        assert_eq!(suggested_name("///", ExportFormat::Json), "session.json");
    }
}
