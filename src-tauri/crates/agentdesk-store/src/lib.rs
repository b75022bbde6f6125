//! The one local SQLite file: schema migrations, typed queries, nothing else.
//!
//! No other crate writes SQL. Opening is careful: a database written by a newer build, a
//! corrupt file or a failing migration returns a clear [`StoreError`] and leaves the file
//! as it was (pending migrations run against a backup-protected file, see [`open`]).

pub mod approvals;
pub mod attachments;
pub mod canonical;
mod error;
pub mod history;
mod message_index;
mod open;
pub mod private;
pub mod profiles;
pub mod runs;
pub mod search;
mod select;
pub mod sessions;
pub mod settings;
pub mod timeline;
pub mod usage;
pub mod workspaces;

pub use approvals::ApprovalEnd;
pub use attachments::{Blob, RunAttachment};
pub use error::{Result, StoreError};
pub use history::{HistoryFileState, HistoryImport, ImportedTurn};
pub use open::{Store, DATABASE_FILE_NAME};
pub use runs::{NewRun, RunEnd};

/// Current time as Unix milliseconds: the only clock the schema uses.
pub fn now_ms() -> i64 {
    use std::time::{SystemTime, UNIX_EPOCH};
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

/// A stored enum name read back: one this build does not know (a newer build wrote it, or
/// the file was edited) is a clear `Schema` error naming `what`, never a panic.
pub(crate) fn stored_name<T>(
    what: &str,
    name: &str,
    parse: impl FnOnce(&str) -> Option<T>,
) -> Result<T> {
    parse(name).ok_or_else(|| StoreError::Schema(format!("unknown {what} {name:?}")))
}

#[cfg(test)]
mod ids_tests;
#[cfg(test)]
mod rows_tests;
