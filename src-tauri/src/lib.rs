//! The Tauri shell: commands, dialogs, notifications, logging. No domain logic lives here;
//! every command is a thin call into [`agentdesk_core::Desk`].

mod cli_path;
mod commands;
mod feeds;
mod logging;
mod navigation;
mod notifications;
mod startup;
mod state;
mod tray;
mod webkit;
mod window_state;

use std::sync::Arc;

use tauri::ipc::Invoke;
use tauri::{AppHandle, Manager, Wry};

type Gate = startup::Gate<Invoke<Wry>>;

pub fn run() {
    // Before any thread starts: a thread that has an arena keeps it.
    let arenas = agentdesk_core::heap::limit_arenas();
    // Before any thread or the heap grows: the forked watchdog keeps a copy of what is here.
    agentdesk_core::engines::start_orphan_watchdog();
    let started = startup::process_start();
    let egl_kept_out = webkit::prepare_env();
    let data_dir = agentdesk_core::paths::data_dir();
    // Held for the whole process: dropping it would stop the log file writer.
    let _log_guard = logging::init(
        data_dir
            .as_ref()
            .ok()
            .map(|d| agentdesk_core::paths::log_dir(d)),
    );
    tracing::info!(version = env!("CARGO_PKG_VERSION"), "Agent Desk starting");
    tracing::debug!(?arenas, "malloc arenas");
    tracing::debug!(egl_kept_out, "EGL drivers kept out of the app's process");
    // Started from the Dock or a desktop launcher, the app has a bare PATH: the login shell's
    // is read now, on a thread of its own, so it is there when the first engine is located.
    agentdesk_core::engines::warm_up_login_path();

    let saver = window_state::WindowStateSaver::default();
    let gate = Arc::new(Gate::default());
    let admit = Arc::clone(&gate);
    let app = with_single_instance(tauri::Builder::default())
        .plugin(tauri_plugin_window_state::Builder::default().build())
        .plugin(tauri_plugin_dialog::init())
        .plugin(tauri_plugin_notification::init())
        .manage(startup::Started(started))
        .manage(tray::Tray::default())
        .manage(notifications::Clicks::default())
        .manage(feeds::Feeds::default())
        .manage(agentdesk_core::attachments::AttachmentGrants::default())
        .setup(move |app| {
            let limited = webkit::limit_web_process_memory();
            let window = main_window(app)?;
            tracing::debug!("start-up: window created, setup");
            webkit::tune(&window);
            tracing::info!(
                hooked = limited,
                applied = webkit::web_process_memory_limited(),
                "web process memory-pressure settings"
            );
            navigation::disable_context_menu(&window);
            // Nothing here may wait for the store: the page loads only once setup returns.
            tauri::async_runtime::spawn(open_store(app.handle().clone(), data_dir, gate));
            Ok(())
        })
        .on_window_event(move |window, event| {
            saver.on_event(window.app_handle(), event);
            tray::on_window_event(window, event);
            commands::attachments::on_window_event(window, event);
        })
        // A command the page sends before the store is open waits for it (see `startup`).
        .invoke_handler(move |invoke| match admit.admit(invoke) {
            Some(invoke) => commands()(invoke),
            None => true,
        })
        .build(tauri::generate_context!());

    match app {
        Ok(app) => app.run(on_run_event),
        Err(e) => {
            tracing::error!(error = %e, "cannot start the window");
            eprintln!("Agent Desk cannot start: {e}");
            std::process::exit(1);
        }
    }
}

/// The single-instance plugin, first of all plugins (a second start must hand over before
/// anything else is set up), when this process takes part (see [`single_instance`]).
fn with_single_instance(builder: tauri::Builder<Wry>) -> tauri::Builder<Wry> {
    if single_instance(std::env::var_os(agentdesk_core::paths::DATA_DIR_ENV).as_deref()) {
        return builder.plugin(tauri_plugin_single_instance::init(|app, args, _cwd| {
            // What the second start was given is not acted on beyond this: any local
            // program can start the app with any arguments (SECURITY.md), so a forwarded
            // start never decides a request — it only brings the window up. Presses reach
            // this process from the OS notification service only (`notifications`).
            tracing::info!(
                args = args.len(),
                "a second start handed over; window shown"
            );
            tray::show_window(app);
        }));
    }
    builder
}

/// The app's end (close the feeds and the store) and, on macOS, a Dock click.
fn on_run_event(handle: &AppHandle, event: tauri::RunEvent) {
    match event {
        tauri::RunEvent::Exit => {
            if let Some(feeds) = handle.try_state::<feeds::Feeds>() {
                feeds.close_all();
            }
            if let Some(state) = handle.try_state::<state::AppState>() {
                tauri::async_runtime::block_on(state.close());
            }
            tracing::info!("Agent Desk stopped");
        }
        // A Dock click. Once "keep running in the tray" hid the window nothing is
        // visible, and without this the click would do nothing.
        #[cfg(target_os = "macos")]
        tauri::RunEvent::Reopen {
            has_visible_windows,
            ..
        } => {
            if reopen_shows_window(has_visible_windows) {
                tray::show_window(handle);
            }
        }
        _ => {}
    }
}

/// Whether this process takes part in "one Agent Desk at a time" (tauri-plugin-single-instance:
/// a D-Bus name on Linux, a named mutex on Windows, a socket in /tmp on macOS, all named
/// after the app's identifier). Only with the default data dir: the plugin's lock is one per
/// user, not one per database, and a process given its own `AGENTDESK_DATA_DIR` (the tests'
/// parallel instances, a second profile) shares nothing with the default one. Two
/// processes on one data dir are still kept apart by the store's owner lock.
fn single_instance(data_dir_override: Option<&std::ffi::OsStr>) -> bool {
    data_dir_override.is_none_or(|d| d.is_empty())
}

/// macOS `Reopen` (a Dock click): bring the window up unless one is already on screen.
#[cfg_attr(not(target_os = "macos"), allow(dead_code))]
fn reopen_shows_window(has_visible_windows: bool) -> bool {
    !has_visible_windows
}

/// The main window, as `tauri.conf.json` describes it (`"create": false` there, so it is
/// made here), kept on the app's own page (see `navigation`).
fn main_window(app: &tauri::App<Wry>) -> tauri::Result<tauri::WebviewWindow<Wry>> {
    let config = app
        .config()
        .app
        .windows
        .iter()
        .find(|w| w.label == "main")
        .cloned()
        .unwrap_or_default();
    // Only a dev build (no embedded UI) loads the dev server.
    let dev_url = if cfg!(feature = "custom-protocol") {
        None
    } else {
        app.config().build.dev_url.clone()
    };
    tauri::WebviewWindowBuilder::from_config(app.handle(), &config)?
        .on_navigation(navigation::guard(dev_url))
        .build()
}

/// Open the store (a store that cannot open is not fatal: the window still opens and shows
/// why), then let the page's waiting commands through, then put up the tray.
async fn open_store(
    app: AppHandle<Wry>,
    data_dir: Result<std::path::PathBuf, agentdesk_core::CoreError>,
    gate: Arc<Gate>,
) {
    let state = state::AppState::open(data_dir).await;
    let desk = state.desk().ok().cloned();
    let keep_running = match &desk {
        Some(desk) => match desk.tray_settings().await {
            Ok(s) => s.keep_running_in_tray,
            Err(e) => {
                tracing::warn!(error = %e, "cannot read the tray settings");
                None
            }
        },
        None => None,
    };
    if let Some(desk) = &desk {
        notifications::start(app.clone(), desk.clone());
    }
    app.manage(state);
    tracing::debug!("start-up: store open");
    let main = app.clone();
    // On the main thread, where commands run when they arrive, in the order they arrived.
    let opened = app.run_on_main_thread(move || {
        let waiting = gate.open();
        let count = waiting.len();
        for invoke in waiting {
            let resolver = invoke.resolver.clone();
            let command = invoke.message.command().to_string();
            if !commands()(invoke) {
                resolver.reject(format!("Command {command} not found"));
            }
        }
        tracing::debug!(waiting = count, "start-up: commands let through");
        tray::start(&main, desk, keep_running);
        tracing::debug!("start-up: tray up");
    });
    if let Err(e) = opened {
        // Only when the event loop is already gone: the app is quitting.
        tracing::warn!(error = %e, "cannot let the window's commands through");
    }
}

/// Registers the commands and checks, at compile time, that they are exactly the commands of
/// the table in `agentdesk_protocol::ipc` (each one once, none more): the window's generated
/// client calls every one of them by that name.
macro_rules! table_handler {
    ($($command:path),* $(,)?) => {{
        const _: () = assert!(
            commands::handlers_match_table(
                &[$(stringify!($command)),*],
                agentdesk_protocol::ipc::COMMAND_NAMES,
            ),
            "the registered commands differ from agentdesk_protocol::ipc's table"
        );
        tauri::generate_handler![$($command),*]
    }};
}

/// Every command the window may call.
fn commands() -> impl Fn(Invoke<Wry>) -> bool + Send + Sync + 'static {
    table_handler![
        commands::workspaces::app_info,
        commands::workspaces::list_workspaces,
        commands::workspaces::add_workspace,
        commands::workspaces::remove_workspace,
        commands::workspaces::list_remote_folders,
        commands::workspaces::remote_engines_health,
        commands::workspaces::pick_folder,
        commands::sessions::list_sessions,
        commands::sessions::create_session,
        commands::sessions::open_session,
        commands::sessions::close_session,
        commands::sessions::live_ack,
        commands::sessions::watch_activity,
        commands::sessions::load_timeline,
        commands::sessions::load_timeline_newer,
        commands::sessions::session_plan,
        commands::sessions::find_files,
        commands::sessions::list_commands,
        commands::sessions::session_usage,
        commands::sessions::set_session_model,
        commands::sessions::watch_rate_limits,
        commands::sessions::send_message,
        commands::sessions::interrupt_run,
        commands::sessions::set_session_profile,
        commands::profiles::list_profiles,
        commands::profiles::list_models,
        commands::profiles::mcp_status,
        commands::accounts::engine_account,
        commands::accounts::engine_login,
        commands::accounts::engine_login_wait,
        commands::accounts::engine_login_cancel,
        commands::accounts::engine_logout,
        commands::profiles::create_profile,
        commands::profiles::update_profile,
        commands::profiles::duplicate_profile,
        commands::profiles::set_default_profile,
        commands::profiles::delete_profile,
        commands::search::search_messages,
        commands::session_admin::rename_session,
        commands::session_admin::archive_session,
        commands::session_admin::session_footprint,
        commands::session_admin::delete_session,
        commands::session_admin::export_session,
        commands::approvals::decide_approval,
        commands::approvals::answer_question,
        commands::approvals::list_pending_approvals,
        commands::engines::engine_capabilities,
        commands::engines::list_engines,
        commands::attachments::import_attachment_token,
        commands::attachments::import_attachment_bytes,
        commands::attachments::import_clipboard_image,
        commands::attachments::read_attachment,
        commands::attachments::pick_files,
        commands::attachments::open_external,
        commands::window::watch_notification_clicks,
        commands::window::watch_close_requests,
        commands::window::keep_running_in_tray,
        commands::settings::engines_health,
        commands::settings::set_engine_path,
        commands::settings::pick_engine_binary,
        commands::settings::get_ui_settings,
        commands::settings::set_ui_settings,
        commands::settings::get_notification_prefs,
        commands::settings::set_notification_prefs,
        commands::settings::data_info,
        commands::settings::compact_database,
        commands::settings::engine_limits,
        commands::settings::open_tool_output,
        commands::settings::set_engine_memory_limit,
        commands::history::watch_histories,
        commands::history::rescan_histories,
        commands::history::set_history_settings,
        commands::settings::open_data_folder,
        commands::worktrees::workspace_git,
        commands::worktrees::set_isolate_sessions,
        commands::worktrees::worktree_status,
        commands::worktrees::worktree_diff,
        commands::worktrees::worktree_commit,
        commands::worktrees::worktree_discard,
        commands::worktrees::worktree_merge,
        commands::worktrees::remove_worktree,
        commands::worktrees::recreate_worktree,
        commands::worktrees::forget_worktree,
        commands::worktrees::open_worktree_folder,
        commands::window::window_painted,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_default_data_dir_is_single_instance() {
        assert!(single_instance(None));
        assert!(single_instance(Some(std::ffi::OsStr::new(""))));
        assert!(!single_instance(Some(std::ffi::OsStr::new("/tmp/e2e-1"))));
    }

    #[test]
    fn a_dock_click_shows_the_hidden_window() {
        assert!(reopen_shows_window(false));
        assert!(!reopen_shows_window(true));
    }
}
