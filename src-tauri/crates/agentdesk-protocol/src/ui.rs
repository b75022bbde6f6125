//! UI-facing DTOs. Every type here derives `TS` and is exported to `ui/src/generated/`.
//!
//! Field names are camelCase on the wire because the consumer is TypeScript.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

mod approvals;
mod library;
mod profiles;
mod sessions;

pub use approvals::*;
pub use library::*;
pub use profiles::*;
pub use sessions::*;

/// A workspace: one folder the user works in with the agents.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Workspace {
    /// Stable id (uuid v7, so ids sort by creation time).
    pub id: String,
    /// Display name; defaults to the folder's last component.
    pub name: String,
    /// Absolute, canonical path of the folder.
    pub path: String,
    /// Unix milliseconds.
    #[ts(type = "number")]
    pub created_at: i64,
}

/// Every error that crosses IPC has this shape: a stable machine-readable `code` and a
/// human-readable `message`. Never a bare string.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct IpcError {
    pub code: ErrorCode,
    pub message: String,
}

/// Stable error codes; the UI may branch on them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The input was rejected (e.g. a path that does not exist).
    InvalidInput,
    /// The thing asked for does not exist.
    NotFound,
    /// It exists already (e.g. the same folder added twice).
    Conflict,
    /// The database could not be opened, migrated or written.
    Storage,
    /// Anything else; the message says what.
    Internal,
}

/// What the app shows at start-up when the store cannot be opened, instead of a blank window.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct AppInfo {
    pub version: String,
    pub data_dir: String,
    pub database_path: String,
    pub log_dir: String,
    /// Set when the store failed to open; every other command then fails with it.
    pub startup_error: Option<IpcError>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ipc_error_serialises_as_code_and_message() {
        let e = IpcError {
            code: ErrorCode::NotFound,
            message: "no such workspace".into(),
        };
        let v = serde_json::to_value(&e).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"code": "not_found", "message": "no such workspace"})
        );
    }

    #[test]
    fn workspace_is_camel_case() {
        let w = Workspace {
            id: "1".into(),
            name: "n".into(),
            path: "/p".into(),
            created_at: 5,
        };
        let v = serde_json::to_value(&w).unwrap();
        assert_eq!(v["createdAt"], 5);
    }
}
