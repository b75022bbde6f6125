//! The full-text index's queue: completed messages wait in `fts_pending` until drained here
//! (migration 0003 explains why indexing is not done inside the write that completes them).

use crate::{Result, Store};

/// Messages indexed per write transaction: a transaction holds the write lock, and one
/// message can be megabytes of text, so a drain is many short transactions, not one long one.
const BATCH: i64 = 32;

impl Store {
    /// Index every queued message; returns how many were indexed. Search calls this first,
    /// so it never misses a message; the app also calls it after each run, so that search
    /// rarely has anything to wait for. A read-only store has nothing it may write: it
    /// searches what is indexed.
    pub async fn index_pending_messages(&self) -> Result<u64> {
        if self.is_read_only() {
            return Ok(0);
        }
        let mut indexed = 0u64;
        loop {
            // Cheap check without the write lock: most calls find nothing to do.
            let waiting: Option<i64> = sqlx::query_scalar("SELECT pk FROM fts_pending LIMIT 1")
                .fetch_optional(&self.pool)
                .await?;
            if waiting.is_none() {
                return Ok(indexed);
            }
            let mut tx = self.write_tx().await?;
            // The same `BATCH` lowest pks in both statements: nothing else writes inside
            // this transaction. The triggers keep only indexable rows in the queue; the join
            // skips a pk whose row is gone (its delete trigger also dequeues it).
            let n = sqlx::query(
                "INSERT INTO message_fts(rowid, text)
                 SELECT t.pk, t.text FROM timeline_items t
                 JOIN (SELECT pk FROM fts_pending ORDER BY pk LIMIT ?1) p ON p.pk = t.pk",
            )
            .bind(BATCH)
            .execute(&mut *tx)
            .await?
            .rows_affected();
            sqlx::query(
                "DELETE FROM fts_pending
                 WHERE pk IN (SELECT pk FROM fts_pending ORDER BY pk LIMIT ?1)",
            )
            .bind(BATCH)
            .execute(&mut *tx)
            .await?;
            tx.commit().await?;
            indexed += n;
        }
    }

    /// How many completed messages wait to be indexed.
    pub async fn pending_message_index(&self) -> Result<i64> {
        Ok(sqlx::query_scalar("SELECT COUNT(*) FROM fts_pending")
            .fetch_one(&self.pool)
            .await?)
    }
}

#[cfg(test)]
#[path = "message_index_tests.rs"]
mod tests;
