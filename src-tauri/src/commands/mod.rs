//! IPC commands, by resource. Each is a thin call into the core; errors cross as
//! `{ code, message }` (`IpcError`), never bare strings.

pub mod approvals;
pub mod attachments;
pub mod engines;
pub mod profiles;
pub mod search;
pub mod session_admin;
pub mod sessions;
pub mod settings;
pub mod workspaces;

use agentdesk_protocol::ui::{ErrorCode, IpcError};

pub type CmdResult<T> = Result<T, IpcError>;

pub fn invalid(message: impl Into<String>) -> IpcError {
    IpcError {
        code: ErrorCode::InvalidInput,
        message: message.into(),
    }
}

pub fn internal(message: impl Into<String>) -> IpcError {
    IpcError {
        code: ErrorCode::Internal,
        message: message.into(),
    }
}
