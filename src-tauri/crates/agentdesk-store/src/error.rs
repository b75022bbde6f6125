use std::path::{Path, PathBuf};

/// Everything that can go wrong in the store. Variants say what the user can do about it.
///
/// Low-level SQLite failures are classified wherever they happen (not only at open): a busy
/// or locked database, a full disk, a read-only file and a damaged file each get their own
/// variant, so no caller ever shows SQLite's raw "database is locked" to a user.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("cannot create the data directory {path}: {source}")]
    DataDir {
        path: PathBuf,
        source: std::io::Error,
    },

    #[error("the database file{} is damaged ({detail}). To recover: quit Agent Desk, then restore a backup of the file, or move it aside (Agent Desk starts a fresh one) and salvage what you can with `sqlite3 <damaged file> .recover | sqlite3 <new file>`", at(.path))]
    Corrupt { path: PathBuf, detail: String },

    /// `detail` is SQLite's own text ("database is locked"), kept for logs, not shown.
    #[error("another program is using the database{} (another Agent Desk, a sqlite3 shell?); close it and try again", at(.path))]
    Locked { path: PathBuf, detail: String },

    /// `detail` is SQLite's or the OS's own text, kept for logs, not shown.
    #[error("the disk is full: the database{} cannot be written; free some space and try again", at(.path))]
    DiskFull { path: PathBuf, detail: String },

    #[error("the database{} is read-only ({detail}): stored sessions can be viewed, but nothing can be saved", at(.path))]
    ReadOnly { path: PathBuf, detail: String },

    #[error("the database {path} was written by a newer Agent Desk (schema version {found}, this build knows up to {known}); nothing was changed — update Agent Desk")]
    NewerSchema {
        path: PathBuf,
        found: i64,
        known: i64,
    },

    #[error("migration {version} ({description}) failed: {detail}; the database was restored to its previous state")]
    MigrationFailed {
        version: i64,
        description: String,
        detail: String,
    },

    #[error("the database schema is inconsistent: {0}")]
    Schema(String),

    #[error("{what} not found")]
    NotFound { what: String },

    #[error("{0}")]
    Conflict(String),

    #[error("approval {id} is no longer pending (it is {}); the decision was not applied", state.as_str())]
    ApprovalNotPending {
        id: agentdesk_protocol::ids::ApprovalId,
        state: agentdesk_protocol::ui::ApprovalState,
    },

    #[error("stored JSON is malformed: {0}")]
    Json(#[from] serde_json::Error),

    #[error("database error: {0}")]
    Sql(sqlx::Error),

    #[error("file operation on the database failed: {0}")]
    Io(std::io::Error),
}

/// " (path)" when the path is known, nothing otherwise.
fn at(path: &Path) -> String {
    if path.as_os_str().is_empty() {
        String::new()
    } else {
        format!(" ({})", path.display())
    }
}

pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// SQLite primary result codes we classify (`sqlite3.h`).
const SQLITE_BUSY: i64 = 5;
const SQLITE_LOCKED: i64 = 6;
const SQLITE_READONLY: i64 = 8;
const SQLITE_CORRUPT: i64 = 11;
const SQLITE_FULL: i64 = 13;
const SQLITE_NOTADB: i64 = 26;

/// `ENOSPC` on Linux and macOS.
const ENOSPC: i32 = 28;

impl StoreError {
    /// Worth retrying later: another program may release its lock, space may be freed, or
    /// an I/O hiccup may pass. A damaged or read-only file will not get better by waiting.
    pub fn is_transient(&self) -> bool {
        matches!(
            self,
            StoreError::Locked { .. }
                | StoreError::DiskFull { .. }
                | StoreError::Sql(_)
                | StoreError::Io(_)
        )
    }

    /// The same error naming `path` as the database when it did not know which one it was.
    pub fn at_path(self, path: &Path) -> StoreError {
        let fill = |p: PathBuf| {
            if p.as_os_str().is_empty() {
                path.to_path_buf()
            } else {
                p
            }
        };
        match self {
            StoreError::Corrupt { path: p, detail } => StoreError::Corrupt {
                path: fill(p),
                detail,
            },
            StoreError::Locked { path: p, detail } => StoreError::Locked {
                path: fill(p),
                detail,
            },
            StoreError::DiskFull { path: p, detail } => StoreError::DiskFull {
                path: fill(p),
                detail,
            },
            StoreError::ReadOnly { path: p, detail } => StoreError::ReadOnly {
                path: fill(p),
                detail,
            },
            other => other,
        }
    }
}

impl From<sqlx::Error> for StoreError {
    fn from(err: sqlx::Error) -> Self {
        classify(crate::open::sole_open_path().unwrap_or_default(), err)
    }
}

impl From<std::io::Error> for StoreError {
    fn from(err: std::io::Error) -> Self {
        if err.raw_os_error() == Some(ENOSPC) {
            return StoreError::DiskFull {
                path: crate::open::sole_open_path().unwrap_or_default(),
                detail: err.to_string(),
            };
        }
        StoreError::Io(err)
    }
}

/// The primary SQLite result code of a database error (extended codes carry it in their low
/// byte).
fn primary_code(db: &dyn sqlx::error::DatabaseError) -> Option<i64> {
    db.code()?.parse::<i64>().ok().map(|c| c & 0xff)
}

/// Another connection holds the lock (SQLITE_BUSY / SQLITE_LOCKED).
pub(crate) fn is_busy(err: &sqlx::Error) -> bool {
    match err {
        sqlx::Error::Database(db) => {
            matches!(primary_code(db.as_ref()), Some(SQLITE_BUSY | SQLITE_LOCKED))
        }
        _ => false,
    }
}

/// Turn a low-level error into the variant a user can act on.
pub(crate) fn classify(path: PathBuf, err: sqlx::Error) -> StoreError {
    if let sqlx::Error::Database(db) = &err {
        let detail = db.message().to_string();
        match primary_code(db.as_ref()) {
            Some(SQLITE_BUSY | SQLITE_LOCKED) => return StoreError::Locked { path, detail },
            Some(SQLITE_CORRUPT | SQLITE_NOTADB) => return StoreError::Corrupt { path, detail },
            Some(SQLITE_FULL) => return StoreError::DiskFull { path, detail },
            Some(SQLITE_READONLY) => return StoreError::ReadOnly { path, detail },
            _ => {}
        }
    }
    if let sqlx::Error::Io(io) = &err {
        if io.raw_os_error() == Some(ENOSPC) {
            return StoreError::DiskFull {
                path,
                detail: io.to_string(),
            };
        }
    }
    StoreError::Sql(err)
}

/// Classify an error seen while opening `path`.
pub(crate) fn classify_open_error(path: &Path, err: sqlx::Error) -> StoreError {
    classify(path.to_path_buf(), err)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn messages_name_the_problem_not_sqlite() {
        let p = PathBuf::from("/d/agentdesk.db");
        let locked = StoreError::Locked {
            path: p.clone(),
            detail: "database is locked".into(),
        };
        assert!(locked
            .to_string()
            .starts_with("another program is using the database (/d/agentdesk.db)"));
        let full = StoreError::DiskFull {
            path: PathBuf::new(),
            detail: "x".into(),
        };
        assert!(full.to_string().starts_with("the disk is full"), "{full}");
        assert!(!full.to_string().contains("()"), "{full}");
        let filled = full.at_path(&p);
        assert!(filled.to_string().contains("(/d/agentdesk.db)"), "{filled}");
        let corrupt = StoreError::Corrupt {
            path: p,
            detail: "malformed".into(),
        };
        assert!(corrupt.to_string().contains("is damaged"));
        assert!(corrupt.to_string().contains(".recover"));
    }

    #[test]
    fn enospc_is_a_full_disk() {
        let e = StoreError::from(std::io::Error::from_raw_os_error(ENOSPC));
        assert!(matches!(e, StoreError::DiskFull { .. }), "{e:?}");
    }
}
