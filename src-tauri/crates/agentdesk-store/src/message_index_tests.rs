#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use sqlx::migrate::Migrator;
use sqlx::SqlitePool;

use crate::open::open_with;
use crate::Store;

async fn seed(p: &SqlitePool) {
    for q in [
        "INSERT INTO workspaces (id, name, path, created_at) VALUES ('w','w','/w',1)",
        "INSERT INTO sessions (id, workspace_id, engine, created_at, updated_at) VALUES ('s','w','codex',1,1)",
        "INSERT INTO runs (id, session_id, seq, status, prompt, created_at) VALUES ('r','s',1,'running','hi',1)",
    ] {
        sqlx::query(q).execute(p).await.unwrap();
    }
}

async fn matches(p: &SqlitePool, q: &str) -> i64 {
    sqlx::query_scalar("SELECT COUNT(*) FROM message_fts WHERE message_fts MATCH ?")
        .bind(q)
        .fetch_one(p)
        .await
        .unwrap()
}

async fn exec(p: &SqlitePool, q: &str) {
    sqlx::query(q).execute(p).await.unwrap();
}

/// FTS5's own check of the index against the external content, for the rows it holds: a
/// 'delete' with the wrong text (the failure this queue must never cause) shows up here.
async fn index_is_consistent(p: &SqlitePool) {
    let r = sqlx::query("INSERT INTO message_fts(message_fts, rank) VALUES ('integrity-check', 1)")
        .execute(p)
        .await;
    assert!(r.is_ok(), "{r:?}");
}

#[tokio::test]
async fn a_streaming_message_is_indexed_once_complete_and_only_when_drained() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_in_dir(dir.path()).await.unwrap();
    let p = &store.pool;
    seed(p).await;
    exec(p, "INSERT INTO timeline_items (id, session_id, run_id, seq, kind, status, text, created_at, updated_at) VALUES ('i','s','r',1,'agent_message','running','kettle str',1,1)").await;
    // Each flush of a streaming answer: no index work at all.
    exec(
        p,
        "UPDATE timeline_items SET text = 'kettle streaming still' WHERE id = 'i'",
    )
    .await;
    assert_eq!(
        matches(p, "kettle").await,
        0,
        "a running message is not indexed"
    );
    assert_eq!(store.pending_message_index().await.unwrap(), 0);

    // The write that completes it only queues it.
    exec(p, "UPDATE timeline_items SET text = 'kettle streaming done', status = 'completed' WHERE id = 'i'").await;
    assert_eq!(
        matches(p, "kettle").await,
        0,
        "indexing is not part of the completing write"
    );
    assert_eq!(store.pending_message_index().await.unwrap(), 1);

    assert_eq!(store.index_pending_messages().await.unwrap(), 1);
    assert_eq!(matches(p, "done").await, 1);
    assert_eq!(
        matches(p, "still").await,
        0,
        "only the final text is indexed"
    );
    assert_eq!(store.pending_message_index().await.unwrap(), 0);
    assert_eq!(store.index_pending_messages().await.unwrap(), 0);

    // The recorder re-upserts every column on a flush: the same values touch nothing.
    exec(p, "UPDATE timeline_items SET text = 'kettle streaming done', status = 'completed', kind = 'agent_message' WHERE id = 'i'").await;
    assert_eq!(store.pending_message_index().await.unwrap(), 0);
    index_is_consistent(p).await;

    // An edit of an indexed message: the old text leaves now, the new one is queued.
    exec(
        p,
        "UPDATE timeline_items SET text = 'kettle boiled' WHERE id = 'i'",
    )
    .await;
    assert_eq!(matches(p, "done").await, 0);
    store.index_pending_messages().await.unwrap();
    assert_eq!(matches(p, "boiled").await, 1);
    index_is_consistent(p).await;

    // Deleting a queued row (never indexed) and an indexed one both leave the index right.
    exec(p, "INSERT INTO timeline_items (id, session_id, run_id, seq, kind, text, created_at, updated_at) VALUES ('j','s','r',2,'user_message','zebra queued',1,1)").await;
    assert_eq!(store.pending_message_index().await.unwrap(), 1);
    exec(p, "DELETE FROM timeline_items WHERE id = 'j'").await;
    assert_eq!(store.pending_message_index().await.unwrap(), 0);
    exec(p, "DELETE FROM sessions WHERE id = 's'").await;
    assert_eq!(
        matches(p, "kettle").await,
        0,
        "cascade delete cleans the index"
    );
    index_is_consistent(p).await;
    assert_eq!(store.integrity_check().await.unwrap(), "ok");
}

#[tokio::test]
async fn search_finds_a_message_completed_a_moment_ago() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_in_dir(dir.path()).await.unwrap();
    let p = &store.pool;
    seed(p).await;
    exec(p, "INSERT INTO timeline_items (id, session_id, run_id, seq, kind, status, text, created_at, updated_at) VALUES ('i','s','r',1,'agent_message','completed','quartz answer',1,1)").await;
    let hits = store.search_messages("quartz", None, 10).await.unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].item_id, "i");
    assert_eq!(store.pending_message_index().await.unwrap(), 0);
}

#[tokio::test]
async fn a_drain_of_many_messages_takes_several_batches() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_in_dir(dir.path()).await.unwrap();
    let p = &store.pool;
    seed(p).await;
    for i in 0..100 {
        exec(p, &format!("INSERT INTO timeline_items (id, session_id, run_id, seq, kind, text, created_at, updated_at) VALUES ('i{i}','s','r',{i},'agent_message','orbit number{i}',1,1)")).await;
    }
    assert_eq!(store.index_pending_messages().await.unwrap(), 100);
    assert_eq!(matches(p, "orbit").await, 100);
    index_is_consistent(p).await;
}

/// A database written before migration 0003 has its running messages in the index; after
/// the migration they must be out, or completing them would corrupt the index.
#[tokio::test]
async fn the_migration_takes_running_messages_out_of_the_old_index() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("agentdesk.db");
    let old = tempfile::tempdir().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations");
    for entry in std::fs::read_dir(src).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        if name.to_string_lossy().starts_with("0003") {
            continue;
        }
        std::fs::copy(entry.path(), old.path().join(name)).unwrap();
    }
    let before_0003 = Migrator::new(old.path().to_path_buf()).await.unwrap();
    {
        let store = open_with(&path, &before_0003).await.unwrap();
        let p = &store.pool;
        seed(p).await;
        exec(p, "INSERT INTO timeline_items (id, session_id, run_id, seq, kind, status, text, created_at, updated_at) VALUES ('i','s','r',1,'agent_message','running','kettle partial',1,1)").await;
        exec(p, "INSERT INTO timeline_items (id, session_id, run_id, seq, kind, text, created_at, updated_at) VALUES ('k','s','r',2,'agent_message','orbit kept',1,1)").await;
        assert_eq!(
            matches(p, "partial").await,
            1,
            "the old triggers indexed it"
        );
        store.close().await;
    }
    let store = Store::open(&path).await.unwrap();
    let p = &store.pool;
    assert_eq!(matches(p, "partial").await, 0);
    assert_eq!(
        matches(p, "orbit").await,
        1,
        "completed messages stay indexed"
    );
    exec(
        p,
        "UPDATE timeline_items SET text = 'kettle whole', status = 'completed' WHERE id = 'i'",
    )
    .await;
    store.index_pending_messages().await.unwrap();
    assert_eq!(matches(p, "whole").await, 1);
    assert_eq!(matches(p, "partial").await, 0);
    index_is_consistent(p).await;
}

/// A read-only data dir (a backup, a read-only mount) cannot drain the queue: search scans
/// the queued messages instead, so it still finds a message the CLI completed last.
#[tokio::test]
async fn a_read_only_store_still_finds_queued_messages() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_in_dir(dir.path()).await.unwrap();
    let p = &store.pool;
    seed(p).await;
    exec(p, "INSERT INTO timeline_items (id, session_id, run_id, seq, kind, text, created_at, updated_at) VALUES ('old','s','r',1,'agent_message','quartz indexed earlier',1,1)").await;
    store.index_pending_messages().await.unwrap();
    exec(p, "INSERT INTO timeline_items (id, session_id, run_id, seq, kind, text, created_at, updated_at) VALUES ('new','s','r',2,'agent_message','The Quartz1234 answer, queued and not indexed',1,1)").await;
    let ro = store.as_read_only();
    let hits = ro
        .search_messages("quartz1234 answer", None, 10)
        .await
        .unwrap();
    assert_eq!(
        hits.iter().map(|h| h.item_id.as_str()).collect::<Vec<_>>(),
        ["new"]
    );
    let marked: Vec<_> = hits[0].snippet.iter().filter(|p| p.highlight).collect();
    assert_eq!(marked.len(), 1);
    assert_eq!(marked[0].text, "Quartz1234");
    // Both kinds together, the queued (newest) first; nothing was written.
    let hits = ro.search_messages("quartz", None, 10).await.unwrap();
    assert_eq!(
        hits.iter().map(|h| h.item_id.as_str()).collect::<Vec<_>>(),
        ["new", "old"]
    );
    assert!(hits[0].rank < hits[1].rank, "lower is better");
    assert_eq!(store.pending_message_index().await.unwrap(), 1);
    assert!(ro
        .search_messages("quartz absent", None, 10)
        .await
        .unwrap()
        .is_empty());
}
