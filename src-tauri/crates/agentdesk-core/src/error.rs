use agentdesk_engine::EngineError;
use agentdesk_protocol::ui::{ErrorCode, IpcError};
use agentdesk_store::StoreError;

/// Errors of the core API. Each maps to a stable [`ErrorCode`] for the UI (and, through that
/// code, to the CLI's exit code), so what the user can do about an error decides its variant.
#[derive(Debug, thiserror::Error)]
pub enum CoreError {
    #[error("{0}")]
    InvalidInput(String),

    /// A profile the core refuses, with every field error (the window shows each next to its
    /// input; the message joins them for the CLI).
    #[error("{}", field_messages(.0))]
    InvalidProfile(Vec<agentdesk_protocol::ui::ProfileFieldError>),

    #[error(transparent)]
    Store(#[from] StoreError),

    #[error("cannot determine the data directory: {0}")]
    DataDir(String),

    /// An attachment that cannot be taken (too big, unreadable, ...): the user can act on it.
    #[error("{0}")]
    Attachment(String),

    /// An engine could not be found, started or spoken to.
    #[error(transparent)]
    Engine(#[from] EngineError),

    /// The process is shutting down and takes no new work.
    #[error("Agent Desk is shutting down")]
    ShuttingDown,

    /// A bounded wait expired; the message says for what.
    #[error("{0}")]
    TimedOut(String),

    /// Another process holds what this one needs (the data directory's lock...); trying
    /// again once it is gone works.
    #[error("{0}")]
    Busy(String),

    /// A git command refused or failed; `message` is git's (hints left out).
    #[error("{command} failed: {message}")]
    Git { command: String, message: String },

    /// Merging a worktree's branch would conflict: nothing was changed.
    #[error("merging {branch} into {base} would conflict in {}: nothing was changed (the worktree, its branch and {base} are as they were); resolve it in the worktree (merge {base} there), then merge again", .files.join(", "))]
    MergeConflict {
        branch: String,
        base: String,
        files: Vec<String>,
    },

    /// A bug or a task that stopped unexpectedly; the message says what.
    #[error("{0}")]
    Internal(String),

    #[error("{what}: {source}")]
    Io {
        what: String,
        source: std::io::Error,
    },
}

fn field_messages(fields: &[agentdesk_protocol::ui::ProfileFieldError]) -> String {
    let messages: Vec<&str> = fields.iter().map(|f| f.message.as_str()).collect();
    messages.join("; ")
}

/// `ENOSPC` and `EROFS` on Linux and macOS: the two I/O failures of the data directory that
/// the user fixes outside the app.
const ENOSPC: i32 = 28;
const EROFS: i32 = 30;

fn store_code(e: &StoreError) -> ErrorCode {
    match e {
        StoreError::NotFound { .. } => ErrorCode::NotFound,
        StoreError::Conflict(_) | StoreError::ApprovalNotPending { .. } => ErrorCode::Conflict,
        StoreError::Locked { .. } => ErrorCode::Busy,
        StoreError::Corrupt { .. } => ErrorCode::StorageCorrupt,
        StoreError::DiskFull { .. } => ErrorCode::StorageFull,
        StoreError::ReadOnly { .. } => ErrorCode::StorageReadOnly,
        StoreError::Io(io) | StoreError::DataDir { source: io, .. } => {
            io_code(io).unwrap_or(ErrorCode::Storage)
        }
        _ => ErrorCode::Storage,
    }
}

fn engine_code(e: &EngineError) -> ErrorCode {
    match e {
        EngineError::NotFound { .. } => ErrorCode::EngineMissing,
        EngineError::Remote { .. } => ErrorCode::Remote,
        EngineError::NotLoggedIn(_) => ErrorCode::EngineNotLoggedIn,
        EngineError::UnsupportedVersion { .. } => ErrorCode::EngineVersionUnsupported,
        EngineError::Timeout { .. } => ErrorCode::TimedOut,
        EngineError::NotPending { .. } => ErrorCode::Conflict,
        EngineError::Unsupported(_) => ErrorCode::InvalidInput,
        // Could not start, crashed, refused or garbled a request: the engine side failed.
        _ => ErrorCode::EngineFailed,
    }
}

/// A full or read-only disk under the data directory.
fn io_code(e: &std::io::Error) -> Option<ErrorCode> {
    match e.raw_os_error() {
        Some(ENOSPC) => Some(ErrorCode::StorageFull),
        Some(EROFS) => Some(ErrorCode::StorageReadOnly),
        _ => match e.kind() {
            std::io::ErrorKind::StorageFull => Some(ErrorCode::StorageFull),
            std::io::ErrorKind::ReadOnlyFilesystem => Some(ErrorCode::StorageReadOnly),
            _ => None,
        },
    }
}

impl CoreError {
    pub fn code(&self) -> ErrorCode {
        match self {
            CoreError::InvalidInput(_)
            | CoreError::InvalidProfile(_)
            | CoreError::Attachment(_) => ErrorCode::InvalidInput,
            CoreError::Store(e) => store_code(e),
            CoreError::Engine(e) => engine_code(e),
            CoreError::ShuttingDown => ErrorCode::ShuttingDown,
            CoreError::TimedOut(_) => ErrorCode::TimedOut,
            CoreError::Busy(_) => ErrorCode::Busy,
            CoreError::Git { .. } => ErrorCode::GitFailed,
            CoreError::MergeConflict { .. } => ErrorCode::MergeConflict,
            CoreError::Io { source, .. } => io_code(source).unwrap_or(ErrorCode::Internal),
            CoreError::DataDir(_) | CoreError::Internal(_) => ErrorCode::Internal,
        }
    }

    /// The shape every error takes on its way to the UI.
    pub fn to_ipc(&self) -> IpcError {
        IpcError {
            code: self.code(),
            message: self.to_string(),
        }
    }
}

impl From<CoreError> for IpcError {
    fn from(e: CoreError) -> Self {
        e.to_ipc()
    }
}

pub type Result<T, E = CoreError> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use std::path::PathBuf;
    use std::time::Duration;

    use super::*;

    fn code(e: CoreError) -> ErrorCode {
        e.code()
    }

    #[test]
    fn engine_errors_say_what_to_fix() {
        let missing = EngineError::NotFound {
            program: "claude".into(),
            hint: "install it".into(),
            searched: vec![],
        };
        assert_eq!(code(missing.into()), ErrorCode::EngineMissing);
        let timeout = EngineError::Timeout {
            what: "initialize".into(),
            after: Duration::from_secs(1),
        };
        assert_eq!(code(timeout.into()), ErrorCode::TimedOut);
        let spawn = EngineError::Spawn {
            program: PathBuf::from("/x"),
            source: std::io::Error::from(std::io::ErrorKind::PermissionDenied),
        };
        assert_eq!(code(spawn.into()), ErrorCode::EngineFailed);
        let login = EngineError::NotLoggedIn("run `codex login`".into());
        assert_eq!(code(login.into()), ErrorCode::EngineNotLoggedIn);
        let old = EngineError::UnsupportedVersion {
            engine: "codex",
            program: PathBuf::from("/x/codex"),
            found: "0.1.0".into(),
            supported: ">= 0.169.0".into(),
            install: "npm install -g @openai/codex@0.169.0",
        };
        assert_eq!(code(old.into()), ErrorCode::EngineVersionUnsupported);
        let gone = EngineError::ChildExited {
            status: None,
            stderr_tail: String::new(),
        };
        assert_eq!(code(gone.into()), ErrorCode::EngineFailed);
    }

    #[test]
    fn storage_faults_are_told_apart() {
        let p = PathBuf::from("/d/agentdesk.db");
        let d = || "x".to_string();
        let locked = StoreError::Locked {
            path: p.clone(),
            detail: d(),
        };
        assert_eq!(code(locked.into()), ErrorCode::Busy);
        let corrupt = StoreError::Corrupt {
            path: p.clone(),
            detail: d(),
        };
        assert_eq!(code(corrupt.into()), ErrorCode::StorageCorrupt);
        let full = StoreError::DiskFull {
            path: p.clone(),
            detail: d(),
        };
        assert_eq!(code(full.into()), ErrorCode::StorageFull);
        let ro = StoreError::ReadOnly {
            path: p,
            detail: d(),
        };
        assert_eq!(code(ro.into()), ErrorCode::StorageReadOnly);
        let nf = StoreError::NotFound { what: "x".into() };
        assert_eq!(code(nf.into()), ErrorCode::NotFound);
        let io = CoreError::Io {
            what: "write".into(),
            source: std::io::Error::from_raw_os_error(ENOSPC),
        };
        assert_eq!(code(io), ErrorCode::StorageFull);
    }

    #[test]
    fn waits_shutdown_and_locks_are_not_invalid_input() {
        assert_eq!(code(CoreError::ShuttingDown), ErrorCode::ShuttingDown);
        assert_eq!(code(CoreError::TimedOut("t".into())), ErrorCode::TimedOut);
        assert_eq!(code(CoreError::Busy("b".into())), ErrorCode::Busy);
        let ipc = CoreError::ShuttingDown.to_ipc();
        assert_eq!(ipc.message, "Agent Desk is shutting down");
    }
}
