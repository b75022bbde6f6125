//! The `FromRow` row structs against values this build cannot read: a stored name it does
//! not know (a newer build wrote it, or the file was edited) or malformed JSON is a clear
//! error naming the column's meaning, never a panic, and a good row next to it still loads.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use agentdesk_protocol::ids::{ProfileId, RunId, SessionId, WorkspaceId};

use crate::{Store, StoreError};

async fn store_with(rows: &[&str]) -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_in_dir(dir.path()).await.unwrap();
    // The schema's CHECKs refuse these values, as they should; a file edited by hand or
    // written by a newer build may still hold them, which is what these tests stand for.
    let mut conn = store.pool.acquire().await.unwrap();
    sqlx::query("PRAGMA ignore_check_constraints = ON")
        .execute(&mut *conn)
        .await
        .unwrap();
    for sql in [
        "INSERT INTO workspaces (id, name, path, created_at) VALUES ('w', 'w', '/w', 1)",
        "INSERT INTO sessions (id, workspace_id, engine, created_at, updated_at)
         VALUES ('s', 'w', 'codex', 1, 1)",
    ]
    .iter()
    .chain(rows)
    {
        sqlx::query(sql).execute(&mut *conn).await.unwrap();
    }
    sqlx::query("PRAGMA ignore_check_constraints = OFF")
        .execute(&mut *conn)
        .await
        .unwrap();
    drop(conn);
    (dir, store)
}

fn schema_message(e: StoreError) -> String {
    match e {
        StoreError::Schema(m) => m,
        other => panic!("expected a schema error, got {other:?}"),
    }
}

#[tokio::test]
async fn unknown_stored_names_are_schema_errors() {
    let (_dir, store) = store_with(&[
        "INSERT INTO sessions (id, workspace_id, engine, created_at, updated_at)
         VALUES ('s2', 'w', 'gemini', 1, 1)",
        "INSERT INTO runs (id, session_id, seq, status, prompt, created_at)
         VALUES ('r', 's', 1, 'paused', 'hi', 1)",
        "INSERT INTO attachments (sha256, mime, kind, size, created_at)
         VALUES ('ab', 'text/plain', 'video', 1, 1)",
        "INSERT INTO profiles (id, workspace_id, name, is_default, engine, permission_mode,
            created_at, updated_at)
         VALUES ('p', 'w', 'p', 0, 'codex', 'yolo', 1, 1)",
    ])
    .await;
    let e = store.get_session(&SessionId::from("s2")).await.unwrap_err();
    assert_eq!(schema_message(e), "unknown engine \"gemini\"");
    let e = store.get_run(&RunId::from("r")).await.unwrap_err();
    assert_eq!(schema_message(e), "unknown run status \"paused\"");
    let e = store.get_blob("ab").await.unwrap_err();
    assert_eq!(schema_message(e), "unknown attachment kind \"video\"");
    let e = store.get_profile(&ProfileId::from("p")).await.unwrap_err();
    assert_eq!(schema_message(e), "unknown permission mode \"yolo\"");
    // The good row still loads.
    let s = store.get_session(&SessionId::from("s")).await.unwrap();
    assert_eq!(s.workspace_id, WorkspaceId::from("w"));
}

#[tokio::test]
async fn malformed_profile_json_is_a_json_error() {
    let (_dir, store) = store_with(&[
        "INSERT INTO profiles (id, workspace_id, name, is_default, engine, allowed_tools,
            created_at, updated_at)
         VALUES ('p', 'w', 'p', 1, 'codex', '{\"Read\": true}', 1, 1)",
    ])
    .await;
    let e = store.get_profile(&ProfileId::from("p")).await.unwrap_err();
    assert!(matches!(e, StoreError::Json(_)), "{e:?}");
    let e = store
        .default_profile(&WorkspaceId::from("w"))
        .await
        .unwrap_err();
    assert!(matches!(e, StoreError::Json(_)), "{e:?}");
}
