//! What the shell keeps between commands: the core, or why it could not start.

use std::path::PathBuf;

use agentdesk_core::history::HistoryWatch;
use agentdesk_core::owner::OwnerLock;
use agentdesk_core::{paths, CoreError, Desk};
use agentdesk_protocol::ui::{AppInfo, IpcError};

pub struct AppState {
    desk: Result<Desk, IpcError>,
    info: AppInfo,
    /// The engines' histories, imported and watched from the window's first ask on (after
    /// its first paint: a first import must not slow the start).
    histories: std::sync::OnceLock<HistoryWatch>,
    /// Held for the app's lifetime: tells `agentdesk-cli` processes sharing the data dir that
    /// this process owns runs (see `agentdesk_core::owner`).
    _owner: Option<OwnerLock>,
}

impl AppState {
    pub async fn open(data_dir: Result<PathBuf, CoreError>) -> AppState {
        let (dir, desk, owner) = match data_dir {
            Ok(dir) => {
                let (desk, owner) = open_and_recover(&dir).await;
                (dir, desk, owner)
            }
            Err(e) => (PathBuf::new(), Err(e), None),
        };
        if let Err(e) = &desk {
            tracing::error!(error = %e, "cannot open the store");
        }
        let desk = desk.map_err(|e| e.to_ipc());
        let info = AppInfo {
            version: env!("CARGO_PKG_VERSION").to_string(),
            data_dir: dir.display().to_string(),
            database_path: match &desk {
                Ok(d) => d.database_path().display().to_string(),
                Err(_) => dir.join(agentdesk_store_file()).display().to_string(),
            },
            log_dir: paths::log_dir(&dir).display().to_string(),
            startup_error: desk.as_ref().err().cloned(),
        };
        AppState {
            desk,
            info,
            histories: std::sync::OnceLock::new(),
            _owner: owner,
        }
    }

    pub fn desk(&self) -> Result<&Desk, IpcError> {
        self.desk.as_ref().map_err(Clone::clone)
    }

    pub fn info(&self) -> &AppInfo {
        &self.info
    }

    /// The histories' watch, started on the first call.
    pub fn histories(&self) -> Result<&HistoryWatch, IpcError> {
        let desk = self.desk()?;
        Ok(self.histories.get_or_init(|| desk.watch_histories()))
    }

    /// Interrupt active runs (their engines stop, pending approvals are cancelled), then close
    /// the store: nothing is left "running" by a clean exit.
    pub async fn close(&self) {
        if let Some(watch) = self.histories.get() {
            watch.stop();
        }
        if let Ok(desk) = &self.desk {
            desk.shutdown().await;
            desk.close().await;
        }
    }
}

fn agentdesk_store_file() -> &'static str {
    agentdesk_core::DATABASE_FILE_NAME
}

/// Open the core and, when no other process (an `agentdesk-cli run`) is driving runs in this
/// data dir, turn what a previous process left running or pending into interrupted / expired:
/// nothing may look "running" after a crash, and no stale approval may be answered.
async fn open_and_recover(dir: &std::path::Path) -> (Result<Desk, CoreError>, Option<OwnerLock>) {
    let desk = match Desk::open(dir).await {
        Ok(d) => d,
        Err(e) => return (Err(e), None),
    };
    // `quick_check` reads the whole file (about a second per million messages), so it runs
    // in the background instead of delaying the window; damage met later is reported by
    // each failing command anyway (SQLITE_CORRUPT is `StorageCorrupt` everywhere).
    let checked = desk.clone();
    tauri::async_runtime::spawn(async move {
        if let Err(e) = checked.check_integrity().await {
            tracing::error!(error = %e, "the database failed its integrity check");
        }
    });
    let (owner, alone) = match OwnerLock::take(dir).await {
        Ok(pair) => pair,
        Err(e) => {
            // Without the lock we cannot tell whether another process owns the runs: leave
            // them alone rather than interrupt live work.
            tracing::warn!(error = %e, "cannot take the owner lock; skipping start-up recovery");
            return (Ok(desk), None);
        }
    };
    if alone {
        match desk.recover().await {
            Ok(r) => tracing::info!(
                interrupted_runs = r.interrupted_runs.len(),
                expired_approvals = r.expired_approvals.len(),
                "start-up recovery"
            ),
            Err(e) => tracing::error!(error = %e, "start-up recovery failed"),
        }
    }
    (Ok(desk), Some(owner))
}
