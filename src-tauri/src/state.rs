//! What the shell keeps between commands: the core, or why it could not start.

use std::path::PathBuf;

use agentdesk_core::{paths, CoreError, Desk};
use agentdesk_protocol::ui::{AppInfo, IpcError};

pub struct AppState {
    desk: Result<Desk, IpcError>,
    info: AppInfo,
}

impl AppState {
    pub async fn open(data_dir: Result<PathBuf, CoreError>) -> AppState {
        let opened = match data_dir {
            Ok(dir) => {
                let desk = Desk::open(&dir).await;
                (dir, desk)
            }
            Err(e) => (PathBuf::new(), Err(e)),
        };
        let (dir, desk) = opened;
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
        AppState { desk, info }
    }

    pub fn desk(&self) -> Result<&Desk, IpcError> {
        self.desk.as_ref().map_err(Clone::clone)
    }

    pub fn info(&self) -> &AppInfo {
        &self.info
    }

    pub async fn close(&self) {
        if let Ok(desk) = &self.desk {
            desk.close().await;
        }
    }
}

fn agentdesk_store_file() -> &'static str {
    agentdesk_core::DATABASE_FILE_NAME
}
