//! Opening the database: pragmas, the schema-version guard, and backup-protected migrations.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use sqlx::migrate::Migrator;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::SqlitePool;

use crate::error::{classify_open_error, Result, StoreError};

/// The file name inside the data directory.
pub const DATABASE_FILE_NAME: &str = "agentdesk.db";

/// How long a writer waits for another connection's lock before failing with `Locked`.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

static MIGRATOR: Migrator = sqlx::migrate!("./migrations");

/// A handle on the database. Cheap to clone (the pool is shared).
#[derive(Clone, Debug)]
pub struct Store {
    pub(crate) pool: SqlitePool,
    path: PathBuf,
}

impl Store {
    /// Open (creating if needed) the database file at `path` and bring its schema up to date.
    pub async fn open(path: &Path) -> Result<Store> {
        open_with(path, &MIGRATOR).await
    }

    /// Open `<data_dir>/agentdesk.db`, creating the directory.
    pub async fn open_in_dir(data_dir: &Path) -> Result<Store> {
        std::fs::create_dir_all(data_dir).map_err(|source| StoreError::DataDir {
            path: data_dir.to_path_buf(),
            source,
        })?;
        Store::open(&data_dir.join(DATABASE_FILE_NAME)).await
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The latest schema version this build knows.
    pub fn known_schema_version() -> i64 {
        MIGRATOR.iter().map(|m| m.version).max().unwrap_or(0)
    }

    /// The schema version recorded in the file.
    pub async fn schema_version(&self) -> Result<i64> {
        let v: Option<i64> =
            sqlx::query_scalar("SELECT MAX(version) FROM _sqlx_migrations WHERE success = 1")
                .fetch_one(&self.pool)
                .await?;
        Ok(v.unwrap_or(0))
    }

    /// `PRAGMA integrity_check`: "ok" when healthy, otherwise SQLite's findings.
    pub async fn integrity_check(&self) -> Result<String> {
        let rows: Vec<String> = sqlx::query_scalar("PRAGMA integrity_check")
            .fetch_all(&self.pool)
            .await?;
        Ok(rows.join("\n"))
    }

    /// A write transaction. `BEGIN IMMEDIATE` takes the write lock up front, so concurrent
    /// writers queue behind the busy timeout; a plain (deferred) `BEGIN` that reads first fails
    /// at once with "database is locked" when its read lock cannot be upgraded.
    pub(crate) async fn write_tx(&self) -> Result<sqlx::Transaction<'static, sqlx::Sqlite>> {
        Ok(self.pool.begin_with("BEGIN IMMEDIATE").await?)
    }

    /// Close every connection. The WAL is checkpointed and truncated first, so a clean exit
    /// leaves the whole database in the main file.
    pub async fn close(&self) {
        if let Err(e) = sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)")
            .execute(&self.pool)
            .await
        {
            tracing::warn!(error = %e, "WAL checkpoint at close failed");
        }
        self.pool.close().await;
    }
}

fn connect_options(path: &Path) -> SqliteConnectOptions {
    SqliteConnectOptions::new()
        .filename(path)
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        .synchronous(SqliteSynchronous::Normal)
        .foreign_keys(true)
        .busy_timeout(BUSY_TIMEOUT)
}

async fn connect(path: &Path) -> Result<SqlitePool> {
    SqlitePoolOptions::new()
        .max_connections(4)
        .connect_with(connect_options(path))
        .await
        .map_err(|e| classify_open_error(path, e))
}

pub(crate) async fn open_with(path: &Path, migrator: &Migrator) -> Result<Store> {
    let pool = connect(path).await?;
    // A file that is not a database only shows itself on the first read.
    let applied = match applied_versions(&pool).await {
        Ok(v) => v,
        Err(e) => {
            pool.close().await;
            return Err(classify_open_error(path, e));
        }
    };

    let known: HashSet<i64> = migrator.iter().map(|m| m.version).collect();
    if let Some(&found) = applied.iter().filter(|v| !known.contains(v)).max() {
        pool.close().await;
        let known = known.iter().copied().max().unwrap_or(0);
        return Err(StoreError::NewerSchema {
            path: path.to_path_buf(),
            found,
            known,
        });
    }

    let pending: Vec<_> = migrator
        .iter()
        .filter(|m| !applied.contains(&m.version))
        .collect();
    if pending.is_empty() {
        return Ok(Store {
            pool,
            path: path.to_path_buf(),
        });
    }

    // Protect the existing data: sqlx runs each migration in its own transaction, so a
    // failure in the second of two pending migrations would leave the first applied.
    // A consistent copy (VACUUM INTO) is restored if anything fails.
    let backup = if applied.is_empty() {
        None
    } else {
        Some(backup(&pool, path).await?)
    };

    if let Err(e) = migrator.run(&pool).await {
        pool.close().await;
        restore(path, backup.as_deref())?;
        let failed = match &e {
            sqlx::migrate::MigrateError::ExecuteMigration(_, v) => {
                pending.iter().find(|m| m.version == *v).copied()
            }
            _ => None,
        }
        .or_else(|| pending.first().copied());
        return Err(StoreError::MigrationFailed {
            version: failed.map(|m| m.version).unwrap_or(0),
            description: failed
                .map(|m| m.description.to_string())
                .unwrap_or_default(),
            detail: migrate_error_detail(&e),
        });
    }
    if let Some(b) = backup {
        // The migrated file is now the truth; the copy has done its job.
        let _ = std::fs::remove_file(b);
    }
    Ok(Store {
        pool,
        path: path.to_path_buf(),
    })
}

fn migrate_error_detail(e: &sqlx::migrate::MigrateError) -> String {
    match e {
        sqlx::migrate::MigrateError::Execute(inner)
        | sqlx::migrate::MigrateError::ExecuteMigration(inner, _) => inner.to_string(),
        other => other.to_string(),
    }
}

async fn applied_versions(pool: &SqlitePool) -> Result<HashSet<i64>, sqlx::Error> {
    let exists: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = '_sqlx_migrations'",
    )
    .fetch_one(pool)
    .await?;
    if exists == 0 {
        return Ok(HashSet::new());
    }
    let versions: Vec<i64> = sqlx::query_scalar("SELECT version FROM _sqlx_migrations")
        .fetch_all(pool)
        .await?;
    Ok(versions.into_iter().collect())
}

async fn backup(pool: &SqlitePool, path: &Path) -> Result<PathBuf> {
    let mut name = path.as_os_str().to_owned();
    name.push(format!(".pre-migration-{}.bak", crate::now_ms()));
    let backup = PathBuf::from(name);
    sqlx::query("VACUUM INTO ?")
        .bind(backup.to_string_lossy().into_owned())
        .execute(pool)
        .await?;
    Ok(backup)
}

fn restore(path: &Path, backup: Option<&Path>) -> Result<()> {
    for suffix in ["-wal", "-shm"] {
        let mut side = path.as_os_str().to_owned();
        side.push(suffix);
        match std::fs::remove_file(PathBuf::from(side)) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e.into()),
        }
    }
    match backup {
        Some(b) => std::fs::rename(b, path)?,
        // A brand-new file that failed its first migration holds nothing worth keeping.
        None => match std::fs::remove_file(path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e.into()),
        },
    }
    Ok(())
}

#[cfg(test)]
#[path = "open_tests.rs"]
mod tests;
