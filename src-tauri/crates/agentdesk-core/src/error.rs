use agentdesk_protocol::ui::{ErrorCode, IpcError};
use agentdesk_store::StoreError;

/// Errors of the core API. Each maps to a stable [`ErrorCode`] for the UI.
#[derive(Debug, thiserror::Error)]
pub enum CoreError {
    #[error("{0}")]
    InvalidInput(String),

    #[error(transparent)]
    Store(#[from] StoreError),

    #[error("cannot determine the data directory: {0}")]
    DataDir(String),

    /// An attachment that cannot be taken (too big, unreadable, ...): the user can act on it.
    #[error("{0}")]
    Attachment(String),

    /// An engine could not be found, started or spoken to.
    #[error(transparent)]
    Engine(#[from] agentdesk_engine::EngineError),

    /// A bug or a task that stopped unexpectedly; the message says what.
    #[error("{0}")]
    Internal(String),

    #[error("{what}: {source}")]
    Io {
        what: String,
        source: std::io::Error,
    },
}

impl CoreError {
    pub fn code(&self) -> ErrorCode {
        match self {
            CoreError::InvalidInput(_) => ErrorCode::InvalidInput,
            CoreError::Store(StoreError::NotFound { .. }) => ErrorCode::NotFound,
            CoreError::Store(StoreError::Conflict(_)) => ErrorCode::Conflict,
            CoreError::Store(StoreError::ApprovalNotPending { .. }) => ErrorCode::Conflict,
            CoreError::Attachment(_) => ErrorCode::InvalidInput,
            CoreError::Io { .. } => ErrorCode::Internal,
            CoreError::Engine(agentdesk_engine::EngineError::NotFound { .. }) => {
                ErrorCode::NotFound
            }
            CoreError::Engine(_) | CoreError::Internal(_) => ErrorCode::Internal,
            CoreError::Store(_) => ErrorCode::Storage,
            CoreError::DataDir(_) => ErrorCode::Internal,
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
