//! Full-text search over message text (FTS5, bm25-ranked, with snippets).

use agentdesk_protocol::ids::{RunId, SessionId, WorkspaceId};
use agentdesk_protocol::ui::{SearchHit, SnippetPart};

use crate::{Result, Store};

/// Snippet markers: control characters that cannot occur in the text we index meaningfully,
/// so the snippet can be split into plain-text parts (the UI never gets HTML).
const OPEN: char = '\u{2}';
const CLOSE: char = '\u{3}';

/// Words around a match in a snippet.
const SNIPPET_TOKENS: i64 = 16;

/// Turn what the user typed into an FTS5 query: every word must match (AND), quoted so
/// FTS5 operators and punctuation in the input are plain text; the last word matches as a
/// prefix so results come while typing. `None` when there is nothing to search for.
pub fn fts_query(input: &str) -> Option<String> {
    let words: Vec<String> = input
        .split_whitespace()
        .map(|w| w.replace('"', "\"\""))
        .filter(|w| w.chars().any(char::is_alphanumeric))
        .collect();
    let (last, rest) = words.split_last()?;
    let mut q: Vec<String> = rest.iter().map(|w| format!("\"{w}\"")).collect();
    q.push(format!("\"{last}\"*"));
    Some(q.join(" "))
}

fn snippet_parts(raw: &str) -> Vec<SnippetPart> {
    let mut parts = Vec::new();
    let mut cur = String::new();
    let mut highlight = false;
    for c in raw.chars() {
        let flip = (c == OPEN && !highlight) || (c == CLOSE && highlight);
        if flip {
            if !cur.is_empty() {
                parts.push(SnippetPart {
                    text: std::mem::take(&mut cur),
                    highlight,
                });
            }
            highlight = !highlight;
        } else if c != OPEN && c != CLOSE {
            cur.push(c);
        }
    }
    if !cur.is_empty() {
        parts.push(SnippetPart {
            text: cur,
            highlight,
        });
    }
    parts
}

/// A message with its session, as a hit needs it: the message's `id, session_id, run_id,
/// kind, created_at` and its session's `title, workspace_id` (selected by the index's query
/// and by the scan of queued messages, which add their own columns next to it).
#[derive(sqlx::FromRow)]
pub(crate) struct HitRow {
    id: String,
    session_id: SessionId,
    run_id: RunId,
    kind: String,
    created_at: i64,
    title: String,
    workspace_id: WorkspaceId,
}

impl HitRow {
    pub(crate) fn into_hit(self, snippet: Vec<SnippetPart>, rank: f64) -> SearchHit {
        SearchHit {
            item_id: self.id,
            session_id: self.session_id,
            session_title: self.title,
            workspace_id: self.workspace_id,
            run_id: self.run_id,
            kind: self.kind,
            snippet,
            rank,
            created_at: self.created_at,
        }
    }
}

/// A row of the index's query: the hit, its raw snippet (with markers) and bm25 rank.
#[derive(sqlx::FromRow)]
struct RankedRow {
    #[sqlx(flatten)]
    hit: HitRow,
    snip: String,
    rank: f64,
}

/// How many of the most recent matches are ranked. bm25 has to score every row it orders,
/// so ranking all matches of a word found in a fifth of a million messages took ~360 ms;
/// FTS5 walks its doclists in rowid order, so the newest matches come first and the walk
/// stops here. A term with fewer matches than this (most searches) is ranked over all of
/// them exactly as before; a very common one is ranked over its most recent matches, which
/// is also where a user looking for "that message" usually is.
pub const RANKED_RECENT_MATCHES: u32 = 2_000;

impl Store {
    /// Messages matching `input`, best first; optionally within one workspace. Only the
    /// [`RANKED_RECENT_MATCHES`] most recent matches are ranked (see there).
    pub async fn search_messages(
        &self,
        input: &str,
        workspace_id: Option<&WorkspaceId>,
        limit: u32,
    ) -> Result<Vec<SearchHit>> {
        self.search_messages_within(input, workspace_id, limit, RANKED_RECENT_MATCHES)
            .await
    }

    /// How many messages of a session the index holds (what deleting it loses).
    pub async fn count_session_messages(&self, session_id: &SessionId) -> Result<i64> {
        Ok(sqlx::query_scalar(
            "SELECT COUNT(*) FROM timeline_items
             WHERE session_id = ? AND kind IN ('user_message', 'agent_message')",
        )
        .bind(session_id)
        .fetch_one(&self.pool)
        .await?)
    }

    /// [`Self::search_messages`] with the ranking window given (tests use a small one).
    pub async fn search_messages_within(
        &self,
        input: &str,
        workspace_id: Option<&WorkspaceId>,
        limit: u32,
        window: u32,
    ) -> Result<Vec<SearchHit>> {
        let Some(query) = fts_query(input) else {
            return Ok(Vec::new());
        };
        // Completed messages are indexed lazily (migration 0003): catch up first, so a
        // message completed a moment ago is found. When the index cannot be written now (a
        // read-only data dir, a full disk), the queued messages are scanned instead.
        let drained = !self.is_read_only()
            && match self.index_pending_messages().await {
                Ok(_) => true,
                Err(e) => {
                    tracing::warn!(error = %e, "search: cannot index queued messages now");
                    false
                }
            };
        let limit = limit.clamp(1, 1_000);
        let unindexed = if drained {
            Vec::new()
        } else {
            self.search_unindexed(input, workspace_id, limit).await?
        };
        let window = window.max(limit);
        // Three steps so the expensive parts run on few rows: the newest `window` matches
        // (rowid = timeline pk, which grows with time) with their bm25 score; the best
        // `limit` of those; and only for these, the snippet. The last step scans the FTS
        // table once more, from the oldest of the best onwards, as the outer loop (CROSS
        // JOIN): joined the other way, FTS5 would re-run the MATCH once per hit, and a
        // prefix query (the last word typed) rebuilds its whole doclist each time.
        let rows: Vec<RankedRow> = sqlx::query_as(
            "WITH recent AS (
                 SELECT message_fts.rowid AS pk, bm25(message_fts) AS rank
                 FROM message_fts
                 JOIN timeline_items t ON t.pk = message_fts.rowid
                 JOIN sessions s ON s.id = t.session_id
                 WHERE message_fts MATCH ?1 AND (?2 IS NULL OR s.workspace_id = ?2)
                 ORDER BY message_fts.rowid DESC LIMIT ?3
             ),
             best AS MATERIALIZED (SELECT pk, rank FROM recent ORDER BY rank, pk DESC LIMIT ?4)
             SELECT t.id, t.session_id, t.run_id, t.kind, t.created_at, s.title, s.workspace_id,
                    snippet(message_fts, 0, ?5, ?6, '…', ?7) AS snip, best.rank AS rank
             FROM message_fts
             CROSS JOIN best ON best.pk = message_fts.rowid
             JOIN timeline_items t ON t.pk = best.pk
             JOIN sessions s ON s.id = t.session_id
             WHERE message_fts MATCH ?1 AND message_fts.rowid >= (SELECT min(pk) FROM best)
             ORDER BY best.rank, best.pk DESC",
        )
        .bind(&query)
        .bind(workspace_id)
        .bind(i64::from(window))
        .bind(i64::from(limit))
        .bind(OPEN.to_string())
        .bind(CLOSE.to_string())
        .bind(SNIPPET_TOKENS)
        .fetch_all(&self.pool)
        .await?;
        let indexed: Vec<SearchHit> = rows
            .into_iter()
            .map(|r| r.hit.into_hit(snippet_parts(&r.snip), r.rank))
            .collect();
        // Queued messages are the newest: ahead of the ranked ones, ranked just above them.
        let best = indexed.first().map_or(0.0, |h| h.rank.min(0.0));
        let mut hits: Vec<SearchHit> = unindexed
            .into_iter()
            .map(|h| SearchHit {
                rank: best - 1.0,
                ..h
            })
            .collect();
        hits.extend(indexed);
        hits.truncate(limit as usize);
        Ok(hits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_are_quoted_and_prefix_on_the_last_word() {
        assert_eq!(fts_query("  "), None);
        assert_eq!(fts_query("hello"), Some("\"hello\"*".into()));
        assert_eq!(
            fts_query("say \"hi\" NEAR(x) -"),
            Some("\"say\" \"\"\"hi\"\"\" \"NEAR(x)\"*".into())
        );
    }

    #[test]
    fn snippets_split_into_parts() {
        let parts = snippet_parts("a \u{2}b\u{3} c");
        assert_eq!(
            parts,
            vec![
                SnippetPart {
                    text: "a ".into(),
                    highlight: false
                },
                SnippetPart {
                    text: "b".into(),
                    highlight: true
                },
                SnippetPart {
                    text: " c".into(),
                    highlight: false
                },
            ]
        );
    }
}
