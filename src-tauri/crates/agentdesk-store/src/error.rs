use std::path::PathBuf;

/// Everything that can go wrong in the store. Variants say what the user can do about it.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("cannot create the data directory {path}: {source}")]
    DataDir {
        path: PathBuf,
        source: std::io::Error,
    },

    #[error("the database {path} is not a valid Agent Desk database (corrupt or not SQLite): {detail}. Move it aside to start fresh; nothing was changed")]
    Corrupt { path: PathBuf, detail: String },

    #[error("the database {path} is locked by another process (is another Agent Desk running?): {detail}")]
    Locked { path: PathBuf, detail: String },

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
        id: String,
        state: agentdesk_protocol::ui::ApprovalState,
    },

    #[error("stored JSON is malformed: {0}")]
    Json(#[from] serde_json::Error),

    #[error("database error: {0}")]
    Sql(#[from] sqlx::Error),

    #[error("file operation on the database failed: {0}")]
    Io(#[from] std::io::Error),
}

pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// SQLite primary result codes we classify (`sqlite3.h`).
const SQLITE_BUSY: &str = "5";
const SQLITE_LOCKED: &str = "6";
const SQLITE_CORRUPT: &str = "11";
const SQLITE_NOTADB: &str = "26";

/// Turn a low-level error seen while opening into the variant a user can act on.
pub(crate) fn classify_open_error(path: &std::path::Path, err: sqlx::Error) -> StoreError {
    if let sqlx::Error::Database(db) = &err {
        let code = db.code().map(|c| c.into_owned()).unwrap_or_default();
        // Extended codes carry the primary code in their low byte.
        let primary = code
            .parse::<i64>()
            .map(|c| (c & 0xff).to_string())
            .unwrap_or(code);
        let detail = db.message().to_string();
        match primary.as_str() {
            SQLITE_BUSY | SQLITE_LOCKED => {
                return StoreError::Locked {
                    path: path.to_path_buf(),
                    detail,
                }
            }
            SQLITE_CORRUPT | SQLITE_NOTADB => {
                return StoreError::Corrupt {
                    path: path.to_path_buf(),
                    detail,
                }
            }
            _ => {}
        }
    }
    StoreError::Sql(err)
}
