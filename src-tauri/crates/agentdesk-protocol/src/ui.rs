//! UI-facing DTOs. Every type here derives `TS` and is exported to `ui/src/generated/`.
//!
//! Field names are camelCase on the wire because the consumer is TypeScript.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::ids::WorkspaceId;

mod account;
mod approvals;
mod history;
mod library;
mod live;
mod mcp;
mod profiles;
mod remote;
mod sessions;
mod settings;
mod worktrees;

pub use account::*;
pub use approvals::*;
pub use history::*;
pub use library::*;
pub use live::*;
pub use mcp::*;
pub use profiles::*;
pub use remote::*;
pub use sessions::*;
pub use settings::*;
pub use worktrees::*;

/// A workspace: one folder the user works in with the agents.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Workspace {
    /// Stable id (uuid v7, so ids sort by creation time).
    pub id: WorkspaceId,
    /// Display name; defaults to the folder's last component.
    pub name: String,
    /// Absolute, canonical path of the folder (on `host` when it is remote).
    pub path: String,
    /// The SSH host of a remote workspace, as `[user@]host[:port]` (the engines run there);
    /// `None` for a folder on this machine.
    #[serde(default)]
    #[ts(optional = nullable)]
    pub host: Option<String>,
    /// Unix milliseconds.
    #[ts(type = "number")]
    pub created_at: i64,
}

impl Workspace {
    /// Where a remote workspace is (`None` for a local folder).
    pub fn remote(&self) -> Option<crate::remote::SshLocation> {
        let host = self.host.as_deref()?;
        crate::remote::SshLocation::parse_url(&format!(
            "{}{host}{}",
            crate::remote::SCHEME,
            self.path
        ))
        .ok()
    }

    /// The location as stored (the `path` column): the folder, or the `ssh://` URL of a
    /// remote one.
    pub fn location(&self) -> String {
        match self.remote() {
            Some(r) => r.url(),
            None => self.path.clone(),
        }
    }
}

/// Every error that crosses IPC has this shape: a stable machine-readable `code` and a
/// human-readable `message`. Never a bare string.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct IpcError {
    pub code: ErrorCode,
    pub message: String,
}

stored_enum! {
    /// Stable error codes; the UI may branch on them. Each names something the user can act on
    /// differently (install an engine, log in, close the other program, free disk space...).
    pub enum ErrorCode {
        /// The input was rejected (e.g. a path that does not exist).
        InvalidInput,
        /// The thing asked for does not exist.
        NotFound,
        /// It exists already (e.g. the same folder added twice), or it changed meanwhile.
        Conflict,
        /// The engine's executable was not found: install it or set its path in Settings.
        EngineMissing,
        /// The engine is installed but not logged in (and no API key is configured).
        EngineNotLoggedIn,
        /// The installed engine's version is outside the supported range.
        EngineVersionUnsupported,
        /// The engine could not be started or stopped answering (crashed, refused a request).
        EngineFailed,
        /// A bounded wait expired.
        TimedOut,
        /// The app is shutting down and takes no new work.
        ShuttingDown,
        /// Another program holds the database (or the data directory's lock): try again after
        /// closing it.
        Busy,
        /// The database file is damaged: restore a backup or move it aside.
        StorageCorrupt,
        /// The disk holding the data directory is full.
        StorageFull,
        /// The data directory or the database is read-only.
        StorageReadOnly,
        /// The database could not be opened, migrated or written for another reason.
        Storage,
        /// Git refused or failed (a hook, a missing identity, a ref that moved); the message
        /// has git's words.
        GitFailed,
        /// A remote workspace's host could not be used: unreachable, the login or its host
        /// key refused, the connection lost, the folder or the engine missing there. The
        /// message says which, and what to do.
        Remote,
        /// A merge stopped on conflicting changes; the message names the files. Nothing was
        /// changed: the branch and the base are as they were.
        MergeConflict,
        /// Anything else; the message says what.
        Internal,
    }
}

impl ErrorCode {
    /// Every code, for exhaustive tables and tests.
    pub const ALL: &'static [ErrorCode] = <Self as strum::VariantArray>::VARIANTS;

    /// The wire name (`engine_missing`...), as the CLI prints it.
    pub fn as_str(self) -> &'static str {
        self.into()
    }
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
    fn error_code_names_match_the_wire() {
        for &code in ErrorCode::ALL {
            let v = serde_json::to_value(code).unwrap();
            assert_eq!(v, serde_json::json!(code.as_str()));
        }
    }

    #[test]
    fn workspace_is_camel_case() {
        let w = Workspace {
            id: "1".into(),
            name: "n".into(),
            path: "/p".into(),
            host: None,
            created_at: 5,
        };
        let v = serde_json::to_value(&w).unwrap();
        assert_eq!(v["createdAt"], 5);
    }
}
