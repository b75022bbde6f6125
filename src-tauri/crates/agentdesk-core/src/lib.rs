//! Everything Agent Desk does, without a window: the Tauri shell and the CLI are two thin
//! faces on [`Desk`].
//!
//! Runs (send a message, queue, interrupt, decide approvals, live updates, shutdown): see
//! the API summary at the top of [`runs`]; engines and profile → engine options: [`engines`];
//! how a run's events become its timeline, stored and live: [`pipeline`].

mod accounts;
pub mod activity;
pub mod approval_rules;
pub mod approvals;
pub mod attachments;
pub mod engines;
mod error;
pub mod export;
pub mod fanout;
pub mod files;
pub mod health;
pub mod heap;
pub mod history;
pub mod integrity;
pub mod live;
pub mod logs;
mod mcp;
mod message_index;
mod models;
pub mod notify;
pub mod owner;
mod pasted;
pub mod paths;
pub mod pipeline;
pub mod profiles;
mod rate_limits;
pub mod recorder;
mod remote;
mod remote_paths;
mod run_ends;
mod run_faults;
pub mod runs;
mod session_admin;
pub mod sessions;
pub mod settings;
#[cfg(test)]
mod test_desk;
pub mod timeline;
pub mod tool_output;
mod workspaces;
pub mod worktrees;

use std::path::{Path, PathBuf};

use agentdesk_store::Store;

pub use activity::ActivityWatch;
pub use agentdesk_engine::{ApprovalDecision, EngineVersion, Executable};
pub use agentdesk_store::DATABASE_FILE_NAME;
pub use approval_rules::{ApprovalPolicy, GrantKey, Verdict};
pub use approvals::{ApprovalAnswer, ApprovalAsk, ApprovalQueue, Requested, Responder};
pub use engines::EngineSettings;
pub use error::{CoreError, Result};
pub use live::{FeedAcks, SessionFeed, ACK_WAIT};
pub use pipeline::{RunTimeline, RunUpdate, RunUpdates};
pub use recorder::{FlushReport, RunInput, RunRecorder};
pub use sessions::{NewSession, Recovery};
pub use timeline::{RunOutcome, RunReducer};

/// The application core: one per process, over one data directory.
#[derive(Clone, Debug)]
pub struct Desk {
    store: Store,
    data_dir: PathBuf,
    approvals: ApprovalQueue,
    /// Serialises importing blobs and collecting unreferenced ones, so a blob being
    /// imported is never deleted under the import.
    attachments_lock: std::sync::Arc<tokio::sync::Mutex<()>>,
    /// Engines and the runs this process drives (see `runs`).
    runs: std::sync::Arc<runs::Runs>,
    /// Run updates and each recorded run's one reducer (see `pipeline`).
    pipeline: std::sync::Arc<pipeline::Pipeline>,
    /// The engines' histories: the sources chosen, one import at a time (see `history`).
    history: std::sync::Arc<history::Histories>,
    /// Each engine's latest rate limits (see `rate_limits`).
    rate_limits: rate_limits::RateLimitBoard,
    /// Recent file lists of the sessions' folders (`@`-mentions, see `files`).
    files: std::sync::Arc<files::FileLists>,
    /// Browser and device logins waiting for the user (see `accounts`).
    logins: accounts::Logins,
    /// The commands agents announced in their runs, by workspace and profile (see
    /// `models::list_commands`).
    announced_commands: models::AnnouncedCommands,
    /// SSH connections and engines of remote workspaces (see `remote`).
    hosts: std::sync::Arc<remote::Hosts>,
}

impl Desk {
    /// Open the core over `data_dir` (created if missing), migrating the database.
    pub async fn open(data_dir: &Path) -> Result<Desk> {
        let store = Store::open_in_dir(data_dir).await?;
        if !store.is_read_only() {
            paths::secure_data_dir(data_dir).await;
        }
        let desk = Desk {
            approvals: ApprovalQueue::new(store.clone()),
            store,
            data_dir: data_dir.to_path_buf(),
            attachments_lock: Default::default(),
            runs: Default::default(),
            pipeline: Default::default(),
            history: Default::default(),
            rate_limits: Default::default(),
            files: Default::default(),
            logins: Default::default(),
            announced_commands: Default::default(),
            hosts: Default::default(),
        };
        // Failed ends a process could only keep outside the database (see `run_ends`).
        if !desk.store.is_read_only() {
            run_ends::settle(&desk.data_dir, &desk.store, &desk.approvals).await;
        }
        Ok(desk)
    }

    /// The approval queue (subscribe to it for notifications, badges and cards).
    pub fn approvals(&self) -> &ApprovalQueue {
        &self.approvals
    }

    /// The store, for the run orchestration and the CLI's read-only views.
    pub fn store(&self) -> &Store {
        &self.store
    }

    pub fn data_dir(&self) -> &Path {
        &self.data_dir
    }

    pub fn database_path(&self) -> &Path {
        self.store.path()
    }

    /// Whether completed messages are indexed for search right after each run (the
    /// default), or left for the next search to index (the CLI: one run, then an exit).
    pub fn index_messages_after_runs(&self, on: bool) {
        self.runs.indexer.set_enabled(on);
    }

    pub async fn close(&self) {
        self.store.close().await;
    }
}
