#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use agentdesk_protocol::ui::Workspace;

fn ws(id: &str, path: &str) -> Workspace {
    Workspace {
        id: id.into(),
        name: id.into(),
        path: path.into(),
        host: None,
        created_at: 1,
    }
}

/// A short fingerprint of the main database file once SQLite has let go of it.
///
/// sqlx closes SQLite connections on worker threads, so the final WAL checkpoint (which
/// rewrites the main file) can land after `close().await` returns. Wait, bounded, until the
/// WAL holds no frames: only then is the main file the whole database.
fn digest(path: &Path) -> (usize, u64) {
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    let wal = std::path::PathBuf::from(wal);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let wal_has_frames = || {
        std::fs::metadata(&wal)
            .map(|m| m.len() > 0)
            .unwrap_or(false)
    };
    while wal_has_frames() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let bytes = std::fs::read(path).unwrap();
    // FNV-1a: enough to tell "same bytes" without printing megabytes on failure.
    let hash = bytes.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    });
    (bytes.len(), hash)
}

/// A migrator made of the real migrations plus `extra` (version, name, sql) files.
async fn migrator_with(extra: &[(i64, &str, &str)]) -> (tempfile::TempDir, Migrator) {
    let dir = tempfile::tempdir().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations");
    for entry in std::fs::read_dir(src).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), dir.path().join(entry.file_name())).unwrap();
    }
    for (v, name, sql) in extra {
        std::fs::write(dir.path().join(format!("{v}_{name}.sql")), sql).unwrap();
    }
    let m = Migrator::new(dir.path().to_path_buf()).await.unwrap();
    (dir, m)
}

#[tokio::test]
async fn fresh_database_has_schema_and_pragmas() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_in_dir(&dir.path().join("nested"))
        .await
        .unwrap();
    assert_eq!(
        store.schema_version().await.unwrap(),
        Store::known_schema_version()
    );
    assert_eq!(store.integrity_check().await.unwrap(), "ok");
    let mode: String = sqlx::query_scalar("PRAGMA journal_mode")
        .fetch_one(&store.pool)
        .await
        .unwrap();
    assert_eq!(mode, "wal");
    let fk: i64 = sqlx::query_scalar("PRAGMA foreign_keys")
        .fetch_one(&store.pool)
        .await
        .unwrap();
    assert_eq!(fk, 1);
    // Every connection's page cache is bounded (see PAGE_CACHE_KIB).
    let cache: i64 = sqlx::query_scalar("PRAGMA cache_size")
        .fetch_one(&store.pool)
        .await
        .unwrap();
    assert_eq!(cache, -i64::from(super::PAGE_CACHE_KIB));
    for table in [
        "workspaces",
        "profiles",
        "sessions",
        "runs",
        "timeline_items",
        "approvals",
        "attachments",
        "run_attachments",
        "usage",
        "settings",
        "message_fts",
    ] {
        let n: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM sqlite_master WHERE name = ?")
            .bind(table)
            .fetch_one(&store.pool)
            .await
            .unwrap();
        assert_eq!(n, 1, "missing table {table}");
    }
}

#[tokio::test]
async fn reopening_keeps_data() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_in_dir(dir.path()).await.unwrap();
    store.insert_workspace(&ws("a", "/a")).await.unwrap();
    store.close().await;
    let store = Store::open_in_dir(dir.path()).await.unwrap();
    assert_eq!(store.list_workspaces().await.unwrap(), vec![ws("a", "/a")]);
}

#[tokio::test]
async fn newer_schema_is_refused_and_file_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(DATABASE_FILE_NAME);
    let (_d, newer) =
        migrator_with(&[(99_999, "from_the_future", "CREATE TABLE future (x);")]).await;
    let store = open_with(&path, &newer).await.unwrap();
    store.close().await;
    let before = digest(&path);

    let err = Store::open(&path).await.unwrap_err();
    assert!(
        matches!(err, StoreError::NewerSchema { found: 99_999, .. }),
        "{err}"
    );
    assert!(err.to_string().contains("newer Agent Desk"), "{err}");
    assert_eq!(digest(&path), before);
}

#[tokio::test]
async fn corrupt_file_is_reported_and_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(DATABASE_FILE_NAME);
    let garbage = b"this is definitely not a sqlite database, just some text ".repeat(200);
    std::fs::write(&path, &garbage).unwrap();
    let err = Store::open(&path).await.unwrap_err();
    assert!(matches!(err, StoreError::Corrupt { .. }), "{err:?}");
    assert!(err.to_string().contains("is damaged"), "{err}");
    assert!(
        std::fs::read(&path).unwrap() == garbage,
        "the corrupt file changed"
    );
}

#[tokio::test]
async fn failed_migration_restores_previous_database() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(DATABASE_FILE_NAME);
    let store = Store::open(&path).await.unwrap();
    store.insert_workspace(&ws("keep", "/keep")).await.unwrap();
    store.close().await;

    // Two pending migrations: the first succeeds, the second fails. Neither may remain.
    let (_d, broken) = migrator_with(&[
        (
            9_998,
            "fine",
            "CREATE TABLE added_by_fine (x); DELETE FROM workspaces;",
        ),
        (9_999, "broken", "CREATE TABLE workspaces (duplicate);"),
    ])
    .await;
    let err = open_with(&path, &broken).await.unwrap_err();
    match &err {
        StoreError::MigrationFailed {
            version,
            description,
            detail,
        } => {
            assert_eq!(*version, 9_999);
            assert_eq!(description, "broken");
            assert!(detail.contains("already exists"), "{detail}");
        }
        other => panic!("unexpected {other:?}"),
    }

    let store = Store::open(&path).await.unwrap();
    assert_eq!(
        store.list_workspaces().await.unwrap(),
        vec![ws("keep", "/keep")]
    );
    let n: i64 =
        sqlx::query_scalar("SELECT COUNT(*) FROM sqlite_master WHERE name = 'added_by_fine'")
            .fetch_one(&store.pool)
            .await
            .unwrap();
    assert_eq!(n, 0);
    assert_eq!(store.integrity_check().await.unwrap(), "ok");
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains(".bak"))
        .collect();
    assert!(leftovers.is_empty(), "backup left behind: {leftovers:?}");
}

#[tokio::test]
async fn duplicate_workspace_path_is_a_conflict() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_in_dir(dir.path()).await.unwrap();
    store.insert_workspace(&ws("a", "/same")).await.unwrap();
    let err = store.insert_workspace(&ws("b", "/same")).await.unwrap_err();
    assert!(matches!(err, StoreError::Conflict(_)), "{err:?}");
    assert!(matches!(
        store.delete_workspace(&"nope".into()).await,
        Err(StoreError::NotFound { .. })
    ));
    store.delete_workspace(&"a".into()).await.unwrap();
    assert!(store.list_workspaces().await.unwrap().is_empty());
}

#[tokio::test]
async fn message_text_is_indexed_and_follows_updates() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_in_dir(dir.path()).await.unwrap();
    let p = &store.pool;
    store.insert_workspace(&ws("w", "/w")).await.unwrap();
    sqlx::query("INSERT INTO sessions (id, workspace_id, engine, created_at, updated_at) VALUES ('s','w','codex',1,1)")
        .execute(p).await.unwrap();
    sqlx::query("INSERT INTO runs (id, session_id, seq, status, prompt, created_at) VALUES ('r','s',1,'running','hi',1)")
        .execute(p).await.unwrap();
    sqlx::query("INSERT INTO timeline_items (id, session_id, run_id, seq, kind, text, created_at, updated_at) VALUES ('i','s','r',1,'agent_message','hello wor',1,1)")
        .execute(p).await.unwrap();
    sqlx::query("INSERT INTO timeline_items (id, session_id, run_id, seq, kind, text, created_at, updated_at) VALUES ('t','s','r',2,'tool','zebra',1,1)")
        .execute(p).await.unwrap();
    sqlx::query("UPDATE timeline_items SET text = 'hello world' WHERE id = 'i'")
        .execute(p)
        .await
        .unwrap();
    // Completed messages are indexed when the queue is drained (migration 0003).
    store.index_pending_messages().await.unwrap();
    let count = |q: &'static str| async move {
        sqlx::query_scalar::<_, i64>("SELECT COUNT(*) FROM message_fts WHERE message_fts MATCH ?")
            .bind(q)
            .fetch_one(p)
            .await
            .unwrap()
    };
    assert_eq!(count("world").await, 1);
    assert_eq!(count("wor").await, 0, "the old text must leave the index");
    assert_eq!(count("zebra").await, 0, "tool output is not message text");
    sqlx::query("DELETE FROM sessions WHERE id = 's'")
        .execute(p)
        .await
        .unwrap();
    assert_eq!(
        count("world").await,
        0,
        "cascade delete must clean the index"
    );
    assert_eq!(store.integrity_check().await.unwrap(), "ok");
    let fts_ok = sqlx::query("INSERT INTO message_fts(message_fts) VALUES ('integrity-check')")
        .execute(p)
        .await;
    assert!(fts_ok.is_ok(), "{fts_ok:?}");
}

#[tokio::test]
async fn settings_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_in_dir(dir.path()).await.unwrap();
    assert_eq!(store.get_setting::<String>("k").await.unwrap(), None);
    store.set_setting("k", &"v1").await.unwrap();
    store.set_setting("k", &"v2").await.unwrap();
    assert_eq!(
        store.get_setting::<String>("k").await.unwrap().as_deref(),
        Some("v2")
    );
}

#[cfg(unix)]
fn mode(p: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

#[cfg(unix)]
#[tokio::test]
async fn the_database_is_private_to_its_owner() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("data");
    let store = Store::open_in_dir(&dir).await.unwrap();
    store.insert_workspace(&ws("w1", "/tmp/w1")).await.unwrap();
    let db = dir.join(DATABASE_FILE_NAME);
    assert_eq!(mode(&dir), 0o700, "data dir");
    assert_eq!(mode(&db), 0o600, "database");
    for side in ["-wal", "-shm"] {
        let p = side_file(&db, side);
        assert!(p.exists(), "{side} exists while open");
        assert_eq!(mode(&p), 0o600, "{side}");
    }
    store.close().await;
}

#[cfg(unix)]
#[tokio::test]
async fn files_an_older_build_left_readable_are_tightened_on_open() {
    use std::os::unix::fs::PermissionsExt;
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("data");
    let store = Store::open_in_dir(&dir).await.unwrap();
    store.insert_workspace(&ws("w1", "/tmp/w1")).await.unwrap();
    let db = dir.join(DATABASE_FILE_NAME);
    // Hold a second store open so the -wal/-shm files stay while the modes are loosened.
    let open = [db.clone(), side_file(&db, "-wal"), side_file(&db, "-shm")];
    for p in &open {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o644)).unwrap();
    }
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    let again = Store::open_in_dir(&dir).await.unwrap();
    assert_eq!(mode(&dir), 0o700);
    for p in &open {
        assert_eq!(mode(p), 0o600, "{}", p.display());
    }
    again.close().await;
    store.close().await;
}

/// A reader must not wait for (or fail on) another program's write lock: opening takes no
/// lock, and reads work while the lock is held.
#[tokio::test]
async fn opening_and_reading_work_while_another_program_holds_the_write_lock() {
    use sqlx::{ConnectOptions, Connection};
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_in_dir(dir.path()).await.unwrap();
    store.insert_workspace(&ws("w1", "/tmp/w1")).await.unwrap();
    let db = dir.path().join(DATABASE_FILE_NAME);
    let mut other = SqliteConnectOptions::new()
        .filename(&db)
        .connect()
        .await
        .unwrap();
    sqlx::query("BEGIN IMMEDIATE")
        .execute(&mut other)
        .await
        .unwrap();
    let began = std::time::Instant::now();
    let reader = Store::open_in_dir(dir.path()).await.unwrap();
    assert!(!reader.is_read_only());
    assert_eq!(reader.list_workspaces().await.unwrap().len(), 1);
    assert!(
        began.elapsed() < std::time::Duration::from_secs(2),
        "waited {:?} for the lock",
        began.elapsed()
    );
    sqlx::query("ROLLBACK").execute(&mut other).await.unwrap();
    other.close().await.unwrap();
    reader.close().await;
    store.close().await;
}

/// A migrator of the real migrations up to `version` (a database an older build left).
async fn migrator_until(version: i64) -> (tempfile::TempDir, Migrator) {
    let dir = tempfile::tempdir().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations");
    for entry in std::fs::read_dir(src).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().to_string_lossy().into_owned();
        let v: i64 = name.split('_').next().unwrap().parse().unwrap();
        if v <= version {
            std::fs::copy(entry.path(), dir.path().join(&name)).unwrap();
        }
    }
    let m = Migrator::new(dir.path().to_path_buf()).await.unwrap();
    (dir, m)
}

/// Answers to secret questions an older build stored in clear (the approval's decision and
/// the question's timeline row) are masked when the database is opened by this build; other
/// answers stay as they were, and the clear value is gone from the file (issue 19, item 8).
#[tokio::test]
async fn secret_answers_stored_in_clear_by_an_older_build_are_masked_on_open() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(DATABASE_FILE_NAME);
    let (_m, old) = migrator_until(3).await;
    let store = open_with(&path, &old).await.unwrap();
    let questions = r#"[{"id":"token","question":"Token?","options":[],"allowOther":true,"secret":true},
        {"id":"name","question":"Name?","options":[],"allowOther":true,"secret":false}]"#;
    let answers = r#"{"token":["sk-live-0123456789"],"name":["deploy"]}"#;
    for sql in [
        "INSERT INTO workspaces VALUES ('w', 'w', '/w', 1, NULL)".to_string(),
        "INSERT INTO sessions (id, workspace_id, engine, created_at, updated_at)
         VALUES ('s', 'w', 'claude', 1, 1)"
            .to_string(),
        "INSERT INTO runs (id, session_id, seq, status, prompt, created_at)
         VALUES ('r', 's', 1, 'completed', 'p', 1)"
            .to_string(),
        format!(
            "INSERT INTO approvals (id, session_id, run_id, engine_request_id, kind, request,
             state, decision, created_at)
             VALUES ('a', 's', 'r', '1', 'question', '{{\"questions\":{questions}}}', 'answered',
             '{{\"answers\":{answers}}}', 1)"
        ),
        format!(
            "INSERT INTO timeline_items (id, session_id, run_id, seq, kind, payload, created_at,
             updated_at)
             VALUES ('i', 's', 'r', 1, 'question',
             '{{\"requestId\":\"1\",\"questions\":{questions},\"answers\":{answers},\"state\":\"answered\"}}',
             1, 1)"
        ),
        // A tool card with the approval copied in, its id never filled in (found by request id).
        "INSERT INTO timeline_items (id, session_id, run_id, seq, kind, payload, created_at,
         updated_at)
         VALUES ('t', 's', 'r', 2, 'tool',
         '{\"toolKind\":\"command\",\"name\":\"Bash\",\"input\":null,\"output\":\"\",
           \"exitCode\":null,\"files\":[],\"approval\":{\"approvalId\":null,\"requestId\":\"1\",
           \"kind\":\"command\",\"command\":\"ls\",\"cwd\":null,\"files\":[],\"reason\":null,
           \"state\":\"pending\",\"decidedBy\":null}}', 1, 1)"
            .to_string(),
    ] {
        sqlx::query(&sql).execute(&store.pool).await.unwrap();
    }
    store.close().await;

    let store = Store::open(&path).await.unwrap();
    let decision: String = sqlx::query_scalar("SELECT decision FROM approvals WHERE id = 'a'")
        .fetch_one(&store.pool)
        .await
        .unwrap();
    let payload: String = sqlx::query_scalar("SELECT payload FROM timeline_items WHERE id = 'i'")
        .fetch_one(&store.pool)
        .await
        .unwrap();
    // The item names the record and keeps no copy of it (migration 0007): nothing to mask.
    let item: serde_json::Value = serde_json::from_str(&payload).unwrap();
    assert_eq!(item, serde_json::json!({"approvalId": "a"}), "{payload}");
    let tool: String = sqlx::query_scalar("SELECT payload FROM timeline_items WHERE id = 't'")
        .fetch_one(&store.pool)
        .await
        .unwrap();
    let tool: serde_json::Value = serde_json::from_str(&tool).unwrap();
    assert_eq!(tool["approvalId"], "a", "{tool}");
    assert!(tool.get("approval").is_none(), "{tool}");
    let v: serde_json::Value = serde_json::from_str(&decision).unwrap();
    assert_eq!(
        v["answers"]["token"],
        serde_json::json!(["••••••"]),
        "{decision}"
    );
    assert_eq!(
        v["answers"]["name"],
        serde_json::json!(["deploy"]),
        "{decision}"
    );
    store.close().await;
    let _ = digest(&path);
    let bytes = std::fs::read(&path).unwrap();
    let needle = b"sk-live-0123456789";
    assert!(
        !bytes.windows(needle.len()).any(|w| w == needle),
        "the clear answer is still in the database file"
    );
}

/// A migrator whose last migration fails after an earlier one succeeded (the failed-migration
/// tests below).
async fn broken_migrator() -> (tempfile::TempDir, Migrator) {
    migrator_with(&[
        (9_998, "fine", "DELETE FROM workspaces;"),
        (9_999, "broken", "CREATE TABLE workspaces (duplicate);"),
    ])
    .await
}

/// A database holding one workspace, "keep".
async fn database_with_one_workspace(dir: &Path) -> PathBuf {
    let path = dir.join(DATABASE_FILE_NAME);
    let store = Store::open(&path).await.unwrap();
    store.insert_workspace(&ws("keep", "/keep")).await.unwrap();
    store.close().await;
    path
}

/// On Windows the previous database cannot be put back while another process holds the file
/// (a sharing violation): the restore is tried again, and succeeds once the file is let go.
#[tokio::test]
async fn a_restore_blocked_for_a_moment_is_tried_again() {
    let dir = tempfile::tempdir().unwrap();
    let path = database_with_one_workspace(dir.path()).await;
    let (_d, broken) = broken_migrator().await;
    let tries = std::sync::atomic::AtomicUsize::new(0);
    let held_twice = |p: &Path, b: Option<&Path>| {
        if tries.fetch_add(1, std::sync::atomic::Ordering::SeqCst) < 2 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::PermissionDenied,
                "The process cannot access the file because it is being used by another process. (os error 32)",
            ));
        }
        restore_once(p, b)
    };
    let delays = [Duration::from_millis(1); 5];
    let err = open_with_restore(&path, &broken, &delays, &held_twice)
        .await
        .unwrap_err();
    assert!(
        matches!(err, StoreError::MigrationFailed { version: 9_999, .. }),
        "{err:?}"
    );
    assert_eq!(tries.load(std::sync::atomic::Ordering::SeqCst), 3);
    let store = Store::open(&path).await.unwrap();
    assert_eq!(
        store.list_workspaces().await.unwrap(),
        vec![ws("keep", "/keep")]
    );
    let leftovers = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains(".bak"))
        .count();
    assert_eq!(leftovers, 0);
}

/// When the file stays held, the error says where the previous database is kept and how to
/// put it back; the backup is whole, and doing what the message says brings the data back.
#[tokio::test]
async fn a_restore_that_keeps_failing_says_where_the_previous_database_is() {
    let dir = tempfile::tempdir().unwrap();
    let path = database_with_one_workspace(dir.path()).await;
    let (_d, broken) = broken_migrator().await;
    let tries = std::sync::atomic::AtomicUsize::new(0);
    let always_held = |_: &Path, _: Option<&Path>| {
        tries.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Err(std::io::Error::new(
            std::io::ErrorKind::PermissionDenied,
            "being used by another process (os error 32)",
        ))
    };
    let delays = [Duration::from_millis(1); 3];
    let err = open_with_restore(&path, &broken, &delays, &always_held)
        .await
        .unwrap_err();
    assert_eq!(tries.load(std::sync::atomic::Ordering::SeqCst), 4);
    let StoreError::Io(io) = &err else {
        panic!("unexpected {err:?}")
    };
    assert_eq!(io.kind(), std::io::ErrorKind::PermissionDenied);
    let message = err.to_string();
    let backups: Vec<PathBuf> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().contains(".pre-migration-"))
        .collect();
    assert_eq!(backups.len(), 1, "{backups:?}");
    let backup = &backups[0];
    for needed in [
        "migration 9999 failed",
        "already exists",
        "could not be put back",
        "being used by another process",
        &format!("kept, untouched, at {}", backup.display()),
        &format!("replace {}", path.display()),
    ] {
        assert!(
            message.contains(needed),
            "{needed:?} missing from: {message}"
        );
    }

    // What the message says to do (tried a while: on Windows the closed pool's connections
    // may hold the file a moment longer).
    let mut tries = 0;
    while restore_once(&path, Some(backup)).is_err() && tries < 100 {
        tries += 1;
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!backup.exists(), "the backup was not put back");
    let store = Store::open(&path).await.unwrap();
    assert_eq!(
        store.list_workspaces().await.unwrap(),
        vec![ws("keep", "/keep")]
    );
    assert_eq!(store.integrity_check().await.unwrap(), "ok");
}

/// Workspace folders an older build stored in Windows' verbatim form (`\\?\C:\work`) are
/// rewritten to the plain form by migration 5 with the rule new builds store them by
/// (`canonical::plain_form`, same corpus), and other paths are left alone (issue 20, item 2).
#[tokio::test]
async fn verbatim_workspace_paths_stored_by_an_older_build_are_made_plain_on_open() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(DATABASE_FILE_NAME);
    let (_m, old) = migrator_until(4).await;
    let store = open_with(&path, &old).await.unwrap();
    let mut rows: Vec<(String, String)> = crate::canonical::CORPUS
        .iter()
        .enumerate()
        .map(|(i, (p, _))| (format!("c{i}"), (*p).to_string()))
        .collect();
    // A folder stored in both spellings (UNIQUE allows it): the plain row stays, and so does
    // the verbatim one, rather than failing the migration.
    rows.push(("dup".into(), r"\\?\C:\dup".into()));
    rows.push(("dup-plain".into(), r"C:\dup".into()));
    for (id, p) in &rows {
        store.insert_workspace(&ws(id, p)).await.unwrap();
    }
    store.close().await;

    let store = Store::open(&path).await.unwrap();
    assert!(store.schema_version().await.unwrap() >= 5);
    let stored: std::collections::HashMap<String, String> = store
        .list_workspaces()
        .await
        .unwrap()
        .into_iter()
        .map(|w| (w.id.to_string(), w.path))
        .collect();
    for (i, (verbatim, plain)) in crate::canonical::CORPUS.iter().enumerate() {
        assert_eq!(
            stored[&format!("c{i}")],
            plain.unwrap_or(verbatim),
            "{verbatim}"
        );
    }
    assert_eq!(stored["dup"], r"\\?\C:\dup");
    assert_eq!(stored["dup-plain"], r"C:\dup");
    // A temporary table of the migration's does not outlive it.
    let temp: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM sqlite_temp_master")
        .fetch_one(&store.pool)
        .await
        .unwrap();
    assert_eq!(temp, 0);
}

/// Migration 6 (issue 21): the engine list left the schema. A database an older build left
/// keeps its sessions, runs and profiles, and every connection of the reopened pool takes a
/// session of an engine the old CHECK refused (`acp`).
#[tokio::test]
async fn engines_are_not_listed_in_the_schema_after_migration_6() {
    use agentdesk_protocol::ids::SessionId;
    use agentdesk_protocol::ui::{Engine, Session};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(DATABASE_FILE_NAME);
    let (_m, old) = migrator_until(5).await;
    let store = open_with(&path, &old).await.unwrap();
    store.insert_workspace(&ws("w", "/w")).await.unwrap();
    let session = |engine| Session::begun(SessionId::new(), "w".into(), engine, "", 1);
    // The old schema's columns (no `origin` yet), as that build wrote them.
    let old_insert = |s: &Session| {
        sqlx::query(
            "INSERT INTO sessions (id, workspace_id, title, engine, created_at, updated_at)
             VALUES (?, ?, '', ?, 1, 1)",
        )
        .bind(s.id.clone())
        .bind(s.workspace_id.clone())
        .bind(s.engine.as_str())
    };
    let kept = session(Engine::Codex);
    old_insert(&kept).execute(&store.pool).await.unwrap();
    assert!(
        old_insert(&session(Engine::Acp))
            .execute(&store.pool)
            .await
            .is_err(),
        "the old schema refuses acp"
    );
    store.close().await;

    let store = Store::open(&path).await.unwrap();
    assert_eq!(
        store.schema_version().await.unwrap(),
        Store::known_schema_version()
    );
    assert_eq!(
        store.get_session(&kept.id).await.unwrap().engine,
        Engine::Codex
    );
    // More inserts than the pool has connections, at once: none may hold the old schema.
    let new: Vec<Session> = (0..8).map(|_| session(Engine::Acp)).collect();
    let inserts = new.iter().map(|s| store.insert_session(s));
    for r in futures_util::future::join_all(inserts).await {
        r.unwrap();
    }
    for s in &new {
        assert_eq!(store.get_session(&s.id).await.unwrap().engine, Engine::Acp);
    }
    let (schema,): (String,) = sqlx::query_as(
        "SELECT group_concat(sql, ' ') FROM sqlite_schema WHERE name IN ('sessions', 'profiles')",
    )
    .fetch_one(&store.pool)
    .await
    .unwrap();
    assert!(!schema.contains("'claude'"), "{schema}");
    assert_eq!(store.integrity_check().await.unwrap(), "ok");
    store.close().await;
}
