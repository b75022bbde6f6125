//! Everything Agent Desk does, without a window: the Tauri shell and the CLI are two thin
//! faces on [`Desk`].

mod error;
pub mod paths;
mod workspaces;

use std::path::{Path, PathBuf};

use agentdesk_store::Store;

pub use agentdesk_store::DATABASE_FILE_NAME;
pub use error::{CoreError, Result};

/// The application core: one per process, over one data directory.
#[derive(Clone, Debug)]
pub struct Desk {
    store: Store,
    data_dir: PathBuf,
}

impl Desk {
    /// Open the core over `data_dir` (created if missing), migrating the database.
    pub async fn open(data_dir: &Path) -> Result<Desk> {
        let store = Store::open_in_dir(data_dir).await?;
        Ok(Desk {
            store,
            data_dir: data_dir.to_path_buf(),
        })
    }

    pub fn data_dir(&self) -> &Path {
        &self.data_dir
    }

    pub fn database_path(&self) -> &Path {
        self.store.path()
    }

    pub async fn close(&self) {
        self.store.close().await;
    }
}
