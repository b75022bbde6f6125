//! The full-text index's queue: completed messages wait in `fts_pending` until drained here
//! (migration 0003 explains why indexing is not done inside the write that completes them).

use agentdesk_protocol::ids::WorkspaceId;
use agentdesk_protocol::ui::{SearchHit, SnippetPart};

use crate::search::HitRow;
use crate::{Result, Store};

/// How many queued messages a search scans when the queue cannot be drained (newest first).
const SCAN_LIMIT: i64 = 2_000;
/// Bytes of context on each side of a match in a scanned message's snippet.
const SCAN_CONTEXT: usize = 80;

/// A queued message as the scan reads it: the hit and the text it searches.
#[derive(sqlx::FromRow)]
struct PendingRow {
    #[sqlx(flatten)]
    hit: HitRow,
    text: String,
}

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

    /// Queued messages matching `input`, for a search that could not drain the queue first
    /// (a read-only data dir, a full disk): they are scanned instead, newest first, so a
    /// search still never misses a completed message. Every word must occur in the text
    /// (ASCII case-insensitive substring, a little looser than the index's tokens); the
    /// snippet is the text around the first word.
    pub(crate) async fn search_unindexed(
        &self,
        input: &str,
        workspace_id: Option<&WorkspaceId>,
        limit: u32,
    ) -> Result<Vec<SearchHit>> {
        let words: Vec<String> = input
            .split_whitespace()
            .map(|w| {
                w.trim_matches(|c: char| !c.is_alphanumeric())
                    .to_ascii_lowercase()
            })
            .filter(|w| !w.is_empty())
            .collect();
        let Some(first) = words.first() else {
            return Ok(Vec::new());
        };
        let rows: Vec<PendingRow> = sqlx::query_as(
            "SELECT t.id, t.session_id, t.run_id, t.kind, t.created_at, t.text, s.title,
                    s.workspace_id
             FROM fts_pending p
             JOIN timeline_items t ON t.pk = p.pk
             JOIN sessions s ON s.id = t.session_id
             WHERE (?1 IS NULL OR s.workspace_id = ?1)
             ORDER BY p.pk DESC LIMIT ?2",
        )
        .bind(workspace_id)
        .bind(SCAN_LIMIT)
        .fetch_all(&self.pool)
        .await?;
        let mut hits = Vec::new();
        for PendingRow { hit, text } in rows {
            let lower = text.to_ascii_lowercase();
            if !words.iter().all(|w| lower.contains(w.as_str())) {
                continue;
            }
            let Some(at) = lower.find(first.as_str()) else {
                continue;
            };
            // Unranked (0.0); the caller puts these ahead of the index's hits.
            hits.push(hit.into_hit(snippet_around(&text, at, first.len()), 0.0));
            if hits.len() >= limit as usize {
                break;
            }
        }
        Ok(hits)
    }

    /// How many completed messages wait to be indexed.
    pub async fn pending_message_index(&self) -> Result<i64> {
        Ok(sqlx::query_scalar("SELECT COUNT(*) FROM fts_pending")
            .fetch_one(&self.pool)
            .await?)
    }
}

/// The text around `text[at..at + len]` (byte offsets on an ASCII-lowercased copy, so the
/// same in `text`), with that match highlighted; cut on char boundaries, "…" where cut.
fn snippet_around(text: &str, at: usize, len: usize) -> Vec<SnippetPart> {
    let floor = |mut i: usize| {
        while !text.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let end = floor((at + len).min(text.len()));
    let from = floor(at.saturating_sub(SCAN_CONTEXT));
    let to = floor((end + SCAN_CONTEXT).min(text.len()));
    let mut before = String::new();
    if from > 0 {
        before.push('…');
    }
    before.push_str(&text[from..at]);
    let mut after = text[end..to].to_string();
    if to < text.len() {
        after.push('…');
    }
    [
        (before, false),
        (text[at..end].to_string(), true),
        (after, false),
    ]
    .into_iter()
    .filter(|(t, _)| !t.is_empty())
    .map(|(text, highlight)| SnippetPart { text, highlight })
    .collect()
}

#[cfg(test)]
#[path = "message_index_tests.rs"]
mod tests;
