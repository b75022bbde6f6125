//! The Tauri shell: commands, dialogs, notifications, logging. No domain logic lives here;
//! every command is a thin call into [`agentdesk_core::Desk`].

mod commands;
mod logging;
mod state;
mod window_state;

use tauri::Manager;

pub fn run() {
    let data_dir = agentdesk_core::paths::data_dir();
    // Held for the whole process: dropping it would stop the log file writer.
    let _log_guard = logging::init(
        data_dir
            .as_ref()
            .ok()
            .map(|d| agentdesk_core::paths::log_dir(d)),
    );
    tracing::info!(version = env!("CARGO_PKG_VERSION"), "Agent Desk starting");

    let saver = window_state::WindowStateSaver::default();
    let app = tauri::Builder::default()
        .plugin(tauri_plugin_window_state::Builder::default().build())
        .plugin(tauri_plugin_dialog::init())
        .plugin(tauri_plugin_notification::init())
        .setup(move |app| {
            // A store that cannot open is not fatal: the window still opens and shows why.
            let state = tauri::async_runtime::block_on(state::AppState::open(data_dir));
            app.manage(state);
            Ok(())
        })
        .on_window_event(move |window, event| saver.on_event(window.app_handle(), event))
        .invoke_handler(tauri::generate_handler![
            commands::app_info,
            commands::list_workspaces,
            commands::add_workspace,
            commands::remove_workspace,
            commands::pick_folder,
        ])
        .build(tauri::generate_context!());

    match app {
        Ok(app) => app.run(|handle, event| {
            if let tauri::RunEvent::Exit = event {
                if let Some(state) = handle.try_state::<state::AppState>() {
                    tauri::async_runtime::block_on(state.close());
                }
                tracing::info!("Agent Desk stopped");
            }
        }),
        Err(e) => {
            tracing::error!(error = %e, "cannot start the window");
            eprintln!("Agent Desk cannot start: {e}");
            std::process::exit(1);
        }
    }
}
