//! Opening the database: pragmas, the schema-version guard, and backup-protected migrations.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agentdesk_protocol::sync::lock;

use sqlx::migrate::{Migration, Migrator};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::SqlitePool;

use crate::error::{classify_open_error, Result, StoreError};
use crate::private;

/// The file name inside the data directory.
pub const DATABASE_FILE_NAME: &str = "agentdesk.db";

/// How long a writer waits for another connection's lock before failing with `Locked`.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

static MIGRATOR: Migrator = sqlx::migrate!("./migrations");

/// The databases this process has open (one entry per open [`Store`]). A SQLite error
/// does not say which file it came from; when only one database is open — the app and the
/// CLI — errors can still name it.
static OPEN_PATHS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// The one database file open in this process, if there is exactly one.
pub(crate) fn sole_open_path() -> Option<PathBuf> {
    let open = lock(&OPEN_PATHS);
    let first = open.first()?;
    open.iter().all(|p| p == first).then(|| first.clone())
}

/// Keeps a path in [`OPEN_PATHS`] while any clone of its store lives.
#[derive(Debug)]
struct Registration(PathBuf);

impl Registration {
    fn new(path: &Path) -> Arc<Registration> {
        lock(&OPEN_PATHS).push(path.to_path_buf());
        Arc::new(Registration(path.to_path_buf()))
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        let mut open = lock(&OPEN_PATHS);
        if let Some(i) = open.iter().position(|p| p == &self.0) {
            open.swap_remove(i);
        }
    }
}

/// A handle on the database. Cheap to clone (the pool is shared).
#[derive(Clone, Debug)]
pub struct Store {
    pub(crate) pool: SqlitePool,
    path: PathBuf,
    pub(crate) read_only: bool,
    _registration: Arc<Registration>,
}

impl Store {
    /// Open (creating if needed) the database file at `path` and bring its schema up to date.
    /// The file (and its `-wal`/`-shm` companions) are made private to the user (0600).
    /// When the file or its folder cannot be written (a read-only mount, a folder the user
    /// may only read), the database is opened read-only: everything can be read, and every
    /// write fails with [`StoreError::ReadOnly`].
    pub async fn open(path: &Path) -> Result<Store> {
        open_with(path, &MIGRATOR).await
    }

    /// Open `<data_dir>/agentdesk.db`, creating the directory (private to the user: 0700).
    pub async fn open_in_dir(data_dir: &Path) -> Result<Store> {
        match private::create_dir(data_dir) {
            Ok(()) => {}
            // It exists but its mode cannot change (a read-only mount): still readable.
            Err(e) if data_dir.is_dir() => {
                tracing::warn!(dir = %data_dir.display(), error = %e, "cannot make the data folder private (0700)");
            }
            Err(source) => {
                return Err(StoreError::DataDir {
                    path: data_dir.to_path_buf(),
                    source,
                })
            }
        }
        Store::open(&data_dir.join(DATABASE_FILE_NAME)).await
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Opened read-only because the file or its folder cannot be written.
    pub fn is_read_only(&self) -> bool {
        self.read_only
    }

    /// This store as one opened on a read-only file (tests of the read-only paths; as root,
    /// file modes do not make a file read-only).
    #[cfg(test)]
    pub(crate) fn as_read_only(&self) -> Store {
        Store {
            read_only: true,
            ..self.clone()
        }
    }

    /// `PRAGMA quick_check`: "ok" when healthy, otherwise SQLite's findings. Reads every
    /// page (O(size)) but skips the index cross-checks of [`Store::integrity_check`].
    pub async fn quick_check(&self) -> Result<String> {
        let rows: Vec<String> = sqlx::query_scalar("PRAGMA quick_check")
            .fetch_all(&self.pool)
            .await
            .map_err(|e| classify_open_error(&self.path, e))?;
        Ok(rows.join("\n"))
    }

    /// `PRAGMA integrity_check` of the file at `path` on a connection of its own: read-only,
    /// no migrations, nothing created. For reporting on a file too damaged to open as a
    /// [`Store`]. `None` when there is no such file.
    pub async fn integrity_report(path: &Path) -> Result<Option<String>> {
        if !path.exists() {
            return Ok(None);
        }
        let options = SqliteConnectOptions::new()
            .filename(path)
            .read_only(true)
            .busy_timeout(BUSY_TIMEOUT);
        let mut conn = sqlx::ConnectOptions::connect(&options)
            .await
            .map_err(|e| classify_open_error(path, e))?;
        let rows: std::result::Result<Vec<String>, sqlx::Error> =
            sqlx::query_scalar("PRAGMA integrity_check")
                .fetch_all(&mut conn)
                .await;
        let _ = sqlx::Connection::close(conn).await;
        match rows {
            Ok(rows) => Ok(Some(rows.join("\n"))),
            // Not even the check can read it (not a database at all): that is the finding.
            Err(sqlx::Error::Database(db)) => Ok(Some(db.message().to_string())),
            Err(e) => Err(classify_open_error(path, e)),
        }
    }

    /// Fail with [`StoreError::Corrupt`] unless `PRAGMA quick_check` finds the file healthy.
    pub async fn ensure_healthy(&self) -> Result<()> {
        let report = self.quick_check().await?;
        if report == "ok" {
            return Ok(());
        }
        let first = report.lines().next().unwrap_or("").to_string();
        Err(StoreError::Corrupt {
            path: self.path.clone(),
            detail: format!("integrity check: {first}"),
        })
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
            .await
            .map_err(|e| classify_open_error(&self.path, e))?;
        Ok(rows.join("\n"))
    }

    /// A write transaction. `BEGIN IMMEDIATE` takes the write lock up front, so concurrent
    /// writers queue behind the busy timeout; a plain (deferred) `BEGIN` that reads first fails
    /// at once with "database is locked" when its read lock cannot be upgraded.
    pub(crate) async fn write_tx(&self) -> Result<sqlx::Transaction<'static, sqlx::Sqlite>> {
        if self.read_only {
            return Err(self.read_only_error());
        }
        Ok(self.pool.begin_with("BEGIN IMMEDIATE").await?)
    }

    pub(crate) fn read_only_error(&self) -> StoreError {
        StoreError::ReadOnly {
            path: self.path.clone(),
            detail: "the file or its folder cannot be written".into(),
        }
    }

    /// Close every connection. The WAL is checkpointed and truncated first, so a clean exit
    /// leaves the whole database in the main file.
    pub async fn close(&self) {
        if self.read_only {
            self.pool.close().await;
            return;
        }
        if let Err(e) = sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)")
            .execute(&self.pool)
            .await
        {
            tracing::warn!(error = %e, "WAL checkpoint at close failed");
        }
        self.pool.close().await;
    }
}

/// Each connection's page cache, in KiB (SQLite's `cache_size` as a negative number). SQLite's
/// default, 2 MiB, fills as the file grows: with four connections that was the largest growing
/// allocator in a heap profile of the app during the soak bench (issue 26). Pages it no longer
/// keeps are read again from the OS's page cache, which holds the file anyway.
const PAGE_CACHE_KIB: u32 = 512;

fn connect_options(path: &Path) -> SqliteConnectOptions {
    SqliteConnectOptions::new()
        .filename(path)
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        .synchronous(SqliteSynchronous::Normal)
        .foreign_keys(true)
        .busy_timeout(BUSY_TIMEOUT)
        .pragma("cache_size", format!("-{PAGE_CACHE_KIB}"))
}

/// Read-only access to a file we may not write. In WAL mode SQLite needs the `-shm` file
/// even to read; when the folder is read-only and no `-shm` exists it cannot be created, so
/// a file without pending WAL content is opened `immutable` (nobody can be writing to a file
/// in a folder that cannot be written, so no change can be missed).
fn read_only_options(path: &Path) -> SqliteConnectOptions {
    let base = SqliteConnectOptions::new()
        .filename(path)
        .read_only(true)
        .foreign_keys(true)
        .busy_timeout(BUSY_TIMEOUT)
        .pragma("cache_size", format!("-{PAGE_CACHE_KIB}"));
    let wal_has_content = std::fs::metadata(side_file(path, "-wal"))
        .map(|m| m.len() > 0)
        .unwrap_or(false);
    if wal_has_content && side_file(path, "-shm").exists() {
        base
    } else {
        base.immutable(true)
    }
}

fn side_file(path: &Path, suffix: &str) -> PathBuf {
    let mut side = path.as_os_str().to_owned();
    side.push(suffix);
    PathBuf::from(side)
}

/// The database file and its companions, made private to the user (0600).
fn make_private(path: &Path) -> std::io::Result<()> {
    private::create_file(path)?;
    for suffix in ["-wal", "-shm"] {
        private::tighten_file(&side_file(path, suffix))?;
    }
    Ok(())
}

async fn pool(options: SqliteConnectOptions) -> std::result::Result<SqlitePool, sqlx::Error> {
    SqlitePoolOptions::new()
        .max_connections(4)
        // After a failed COMMIT on a full disk SQLite may roll the transaction back on its
        // own; sqlx's own ROLLBACK then fails and the connection stays marked "in a
        // transaction" for good, so every later write on it failed with "begin_with at
        // non-zero transaction depth". Such a connection is dropped (closing it rolls back
        // whatever is left) and a fresh one takes its place.
        .before_acquire(|conn, _meta| {
            Box::pin(async move { Ok(!sqlx::Connection::is_in_transaction(conn)) })
        })
        .connect_with(options)
        .await
}

/// Open read-write; fall back to read-only when the file or its folder cannot be written.
async fn connect(path: &Path) -> Result<(SqlitePool, bool)> {
    // Best effort: on a read-only mount the modes cannot change, and the file may still be
    // readable.
    if let Err(e) = make_private(path) {
        tracing::warn!(path = %path.display(), error = %e, "cannot make the database private (0600)");
    }
    let rw_error = match pool(connect_options(path)).await {
        Ok(p) => match probe_writable(&p).await {
            Ok(()) => return Ok((p, false)),
            Err(e) => {
                p.close().await;
                classify_open_error(path, e)
            }
        },
        Err(e) => classify_open_error(path, e),
    };
    if !path.exists() || !cannot_write(&rw_error) {
        return Err(rw_error);
    }
    tracing::warn!(path = %path.display(), error = %rw_error, "opening the database read-only");
    let p = pool(read_only_options(path))
        .await
        .map_err(|e| classify_open_error(path, e))?;
    Ok((p, true))
}

/// A write the file system refuses shows only when something is written: a no-op write
/// transaction finds out at open instead of at the first save.
/// Busy (another program is writing, or holds the write lock) means writable: the probe
/// does not wait for the lock, so reading commands work next to a long writer.
async fn probe_writable(pool: &SqlitePool) -> std::result::Result<(), sqlx::Error> {
    let mut conn = pool.acquire().await?;
    let busy_ms = BUSY_TIMEOUT.as_millis().to_string();
    sqlx::query("PRAGMA busy_timeout = 0")
        .execute(&mut *conn)
        .await?;
    let probe = match sqlx::query("BEGIN IMMEDIATE").execute(&mut *conn).await {
        Ok(_) => sqlx::query("ROLLBACK")
            .execute(&mut *conn)
            .await
            .map(|_| ()),
        Err(e) if crate::error::is_busy(&e) => Ok(()),
        Err(e) => Err(e),
    };
    sqlx::query(&format!("PRAGMA busy_timeout = {busy_ms}"))
        .execute(&mut *conn)
        .await?;
    probe
}

/// Errors that say "this file cannot be written", as opposed to damaged or busy.
fn cannot_write(e: &StoreError) -> bool {
    match e {
        StoreError::ReadOnly { .. } => true,
        StoreError::Io(io) => matches!(
            io.kind(),
            std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::ReadOnlyFilesystem
        ),
        // SQLITE_CANTOPEN (14): the `-wal`/`-shm` files cannot be created next to the file.
        StoreError::Sql(sqlx::Error::Database(db)) => {
            db.code()
                .and_then(|c| c.parse::<i64>().ok())
                .map(|c| c & 0xff)
                == Some(14)
        }
        _ => false,
    }
}

/// Pauses between tries at putting the previous database back after a failed migration.
/// On Windows a file another process holds open (another Agent Desk, agentdesk-cli, a
/// sqlite3 shell, an antivirus scan) can be neither replaced nor deleted: a sharing violation
/// that usually ends within a moment. About 1.5 s in all.
const RESTORE_RETRY_DELAYS: [Duration; 5] = [
    Duration::from_millis(50),
    Duration::from_millis(100),
    Duration::from_millis(200),
    Duration::from_millis(400),
    Duration::from_millis(800),
];

pub(crate) async fn open_with(path: &Path, migrator: &Migrator) -> Result<Store> {
    open_with_restore(path, migrator, &RESTORE_RETRY_DELAYS, &restore_once).await
}

/// One try at putting the previous database back: `(database, backup)`. A seam, so a test can
/// make it fail as Windows does while another process holds the file.
pub(crate) type RestoreStep<'a> = dyn Fn(&Path, Option<&Path>) -> std::io::Result<()> + Sync + 'a;

pub(crate) async fn open_with_restore(
    path: &Path,
    migrator: &Migrator,
    retry_delays: &[Duration],
    restore_step: &RestoreStep<'_>,
) -> Result<Store> {
    let (pool, read_only) = connect(path).await?;
    let registration = Registration::new(path);
    // A file that is not a database only shows itself on the first read.
    let applied = match applied_versions(&pool).await {
        Ok(v) => v,
        Err(e) => {
            pool.close().await;
            return Err(classify_open_error(path, e));
        }
    };

    if let Some(newer) = newer_schema(path, migrator, &applied) {
        pool.close().await;
        return Err(newer);
    }

    let pending: Vec<_> = migrator
        .iter()
        .filter(|m| !applied.contains(&m.version))
        .collect();
    if pending.is_empty() {
        return Ok(Store {
            pool,
            path: path.to_path_buf(),
            read_only,
            _registration: registration,
        });
    }
    if read_only {
        pool.close().await;
        return Err(StoreError::ReadOnly {
            path: path.to_path_buf(),
            detail: "its schema needs an upgrade, which cannot be written".into(),
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
        let restored = restore(path, backup.as_deref(), retry_delays, restore_step).await;
        return Err(migration_failed(
            path,
            &e,
            &pending,
            backup.as_deref(),
            restored,
        ));
    }
    if let Some(b) = backup {
        // The migrated file is now the truth; the copy has done its job.
        let _ = std::fs::remove_file(b);
    }
    // Connections opened before a migration may keep the schema they parsed (migration 6
    // rewrites a table's text in place, which SQLite only re-reads on a new connection):
    // the store starts with fresh ones.
    pool.close().await;
    let (pool, read_only) = connect(path).await?;
    Ok(Store {
        pool,
        path: path.to_path_buf(),
        read_only,
        _registration: registration,
    })
}

/// A database some newer build migrated past what `migrator` knows: never touched.
fn newer_schema(path: &Path, migrator: &Migrator, applied: &HashSet<i64>) -> Option<StoreError> {
    let known: HashSet<i64> = migrator.iter().map(|m| m.version).collect();
    let found = *applied.iter().filter(|v| !known.contains(v)).max()?;
    Some(StoreError::NewerSchema {
        path: path.to_path_buf(),
        found,
        known: known.iter().copied().max().unwrap_or(0),
    })
}

/// The error for a failed migration run: which migration failed and why, or, when the
/// previous file could not be put back (`restored`), where the user finds it.
fn migration_failed(
    path: &Path,
    e: &sqlx::migrate::MigrateError,
    pending: &[&Migration],
    backup: Option<&Path>,
    restored: std::io::Result<()>,
) -> StoreError {
    let failed = match e {
        sqlx::migrate::MigrateError::ExecuteMigration(_, v) => {
            pending.iter().find(|m| m.version == *v).copied()
        }
        _ => None,
    }
    .or_else(|| pending.first().copied());
    let version = failed.map(|m| m.version).unwrap_or(0);
    if let Err(io) = restored {
        return not_restored(path, backup, version, &migrate_error_detail(e), io);
    }
    StoreError::MigrationFailed {
        version,
        description: failed
            .map(|m| m.description.to_string())
            .unwrap_or_default(),
        detail: migrate_error_detail(e),
    }
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

/// Put the previous database back, trying again (after each of `delays`) while it fails.
/// The backup is only ever renamed into place, never deleted, so a failure leaves it whole.
async fn restore(
    path: &Path,
    backup: Option<&Path>,
    delays: &[Duration],
    step: &RestoreStep<'_>,
) -> std::io::Result<()> {
    let mut delays = delays.iter();
    loop {
        match step(path, backup) {
            Ok(()) => return Ok(()),
            Err(e) => match delays.next() {
                Some(pause) => {
                    tracing::warn!(path = %path.display(), error = %e, "cannot restore the database yet; trying again");
                    tokio::time::sleep(*pause).await;
                }
                None => return Err(e),
            },
        }
    }
}

/// One try: the failed migration's `-wal`/`-shm` go first (replayed onto the restored file
/// they would damage it, so the backup is not moved while they remain), then the backup
/// replaces the file. Each part can be done again after a failure.
fn restore_once(path: &Path, backup: Option<&Path>) -> std::io::Result<()> {
    for suffix in ["-wal", "-shm"] {
        remove_if_present(&side_file(path, suffix))?;
    }
    match backup {
        Some(b) => std::fs::rename(b, path),
        // A brand-new file that failed its first migration holds nothing worth keeping.
        None => remove_if_present(path),
    }
}

fn remove_if_present(path: &Path) -> std::io::Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// A migration failed and the previous database could not be put back: say where it is
/// kept and how to put it back by hand.
fn not_restored(
    path: &Path,
    backup: Option<&Path>,
    version: i64,
    detail: &str,
    io: std::io::Error,
) -> StoreError {
    let db = path.display();
    let message = match backup {
        Some(b) => format!(
            "migration {version} failed ({detail}), and the previous database could not be put back in place ({io}; another program may hold {db}: another Agent Desk window, agentdesk-cli, a sqlite3 shell). It is kept, untouched, at {}. To restore it: quit every Agent Desk window and agentdesk-cli, delete {db}-wal and {db}-shm if present, then replace {db} with that file",
            b.display()
        ),
        None => format!(
            "migration {version} failed ({detail}) on a new database, which could not be removed ({io}; another program may hold {db}). Quit every Agent Desk window and agentdesk-cli, then delete {db}"
        ),
    };
    StoreError::Io(std::io::Error::new(io.kind(), message))
}

#[cfg(test)]
#[path = "open_tests.rs"]
mod tests;
