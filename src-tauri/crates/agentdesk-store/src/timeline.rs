//! Timeline items, upserted by id while they stream.
//!
//! An item's body is stored split: its `kind` and, for messages and reasoning, its `text` get
//! their own columns (the FTS index follows `text` through triggers), the rest of the body is
//! the `payload` JSON. So a 400 KB answer is stored once, not twice.

use agentdesk_protocol::ids::{RunId, SessionId};
use agentdesk_protocol::ui::{ItemBody, ItemStatus, TimelineItem, TimelinePage};
use serde_json::{Map, Value};
use sqlx::{Sqlite, Transaction};

use crate::{stored_name, Result, Store, StoreError};

const COLUMNS: &str =
    "pk, id, session_id, run_id, seq, kind, status, text, payload, created_at, updated_at, parent_id";

/// Largest page the UI may ask for at once.
pub const MAX_PAGE: u32 = 5_000;

struct Split {
    kind: String,
    text: Option<String>,
    payload: String,
}

fn split(body: &ItemBody) -> Result<Split> {
    let mut map = match serde_json::to_value(body)? {
        Value::Object(m) => m,
        other => {
            return Err(StoreError::Schema(format!(
                "a timeline body serialised as {other}, not an object"
            )))
        }
    };
    let kind = match map.remove("kind") {
        Some(Value::String(k)) => k,
        _ => body.kind_name().to_string(),
    };
    let text = match map.remove("text") {
        Some(Value::String(t)) => Some(t),
        Some(other) => {
            // Not a string: keep it in the payload untouched.
            map.insert("text".into(), other);
            None
        }
        None => None,
    };
    Ok(Split {
        kind,
        text,
        payload: serde_json::to_string(&Value::Object(map))?,
    })
}

/// A payload as an older build stored it, read as today's: an approval (in a tool card or
/// alone) was a copy of the queue's record, `approval: {approvalId, state, ...}`, and a
/// question carried its questions, answers and state. Today an item names the approval by
/// its id and nothing else (migration 0007 rewrites stored rows the same way; this keeps a
/// row from a copied-in or restored database readable too).
fn upgrade_payload(kind: &str, map: &mut Map<String, Value>) {
    if matches!(kind, "tool" | "approval") {
        if let Some(old) = map.remove("approval") {
            let id = old.get("approvalId").cloned().unwrap_or(Value::Null);
            map.entry("approvalId").or_insert(id);
        }
    }
    if kind == "question" {
        for old in ["requestId", "questions", "answers", "state"] {
            map.remove(old);
        }
    }
}

fn join(kind: String, text: Option<String>, payload: &str) -> Result<ItemBody> {
    let mut map: Map<String, Value> = serde_json::from_str(payload)?;
    upgrade_payload(&kind, &mut map);
    map.insert("kind".into(), Value::String(kind));
    if let Some(t) = text {
        map.insert("text".into(), Value::String(t));
    }
    Ok(serde_json::from_value(Value::Object(map))?)
}

/// The columns [`COLUMNS`] selects.
#[derive(sqlx::FromRow)]
struct ItemRow {
    pk: i64,
    id: String,
    session_id: SessionId,
    run_id: RunId,
    seq: i64,
    kind: String,
    status: String,
    text: Option<String>,
    payload: String,
    created_at: i64,
    updated_at: i64,
    parent_id: Option<String>,
}

impl TryFrom<ItemRow> for TimelineItem {
    type Error = StoreError;

    fn try_from(r: ItemRow) -> Result<Self> {
        Ok(TimelineItem {
            status: stored_name("item status", &r.status, ItemStatus::parse)?,
            body: join(r.kind, r.text, &r.payload)?,
            id: r.id,
            session_id: r.session_id,
            run_id: r.run_id,
            seq: r.seq,
            created_at: r.created_at,
            updated_at: r.updated_at,
            parent_id: r.parent_id,
        })
    }
}

/// Rows to items; the first that does not decode fails the whole answer.
fn to_items(rows: Vec<ItemRow>) -> Result<Vec<TimelineItem>> {
    rows.into_iter().map(TimelineItem::try_from).collect()
}

/// Rows per multi-row statement: 11 values each stays far below SQLite's 32,766 variables,
/// and a statement per item would cost a round trip to the database thread each.
const ROWS_PER_STATEMENT: usize = 200;

/// Insert or update `items` by id, many rows a statement (a recorder's flush writes a batch,
/// an import thousands).
pub(crate) async fn upsert_many(
    tx: &mut Transaction<'_, Sqlite>,
    items: &[&TimelineItem],
) -> Result<()> {
    let splits: Vec<Split> = items
        .iter()
        .map(|i| split(&i.body))
        .collect::<Result<_>>()?;
    let rows: Vec<(&&TimelineItem, &Split)> = items.iter().zip(&splits).collect();
    for chunk in rows.chunks(ROWS_PER_STATEMENT) {
        let mut q = sqlx::QueryBuilder::<Sqlite>::new(
            "INSERT INTO timeline_items
                (id, session_id, run_id, seq, kind, status, text, payload, created_at, updated_at,
                 parent_id) ",
        );
        q.push_values(chunk, |mut b, (item, s)| {
            b.push_bind(&item.id)
                .push_bind(&item.session_id)
                .push_bind(&item.run_id)
                .push_bind(item.seq)
                .push_bind(&s.kind)
                .push_bind(item.status.as_str())
                .push_bind(&s.text)
                .push_bind(&s.payload)
                .push_bind(item.created_at)
                .push_bind(item.updated_at)
                .push_bind(&item.parent_id);
        });
        q.push(
            " ON CONFLICT(id) DO UPDATE SET
                kind = excluded.kind, status = excluded.status, text = excluded.text,
                payload = excluded.payload, seq = excluded.seq, updated_at = excluded.updated_at,
                parent_id = excluded.parent_id",
        );
        q.build().execute(&mut **tx).await?;
    }
    Ok(())
}

impl Store {
    /// Insert or update items by id, all in one transaction (one fsync for the batch).
    pub async fn upsert_timeline_items(&self, items: &[TimelineItem]) -> Result<()> {
        if items.is_empty() {
            return Ok(());
        }
        let mut tx = self.write_tx().await?;
        let items: Vec<&TimelineItem> = items.iter().collect();
        upsert_many(&mut tx, &items).await?;
        tx.commit().await?;
        Ok(())
    }

    /// The last `limit` items of a session before the cursor `before` (a value from an
    /// earlier page; `None` = the end), oldest first. The first screenful of a session of any
    /// size is one index range scan.
    pub async fn load_timeline(
        &self,
        session_id: &SessionId,
        before: Option<i64>,
        limit: u32,
    ) -> Result<TimelinePage> {
        let limit = limit.clamp(1, MAX_PAGE);
        let rows: Vec<ItemRow> = sqlx::query_as(&format!(
            "SELECT {COLUMNS} FROM timeline_items
             WHERE session_id = ? AND pk < ? ORDER BY pk DESC LIMIT ?"
        ))
        .bind(session_id)
        .bind(before.unwrap_or(i64::MAX))
        .bind(i64::from(limit) + 1)
        .fetch_all(&self.pool)
        .await?;
        let more = rows.len() > limit as usize;
        let mut items = Vec::with_capacity(rows.len().min(limit as usize));
        let mut oldest = None;
        for row in rows.into_iter().take(limit as usize) {
            oldest = Some(row.pk);
            items.push(TimelineItem::try_from(row)?);
        }
        items.reverse();
        Ok(TimelinePage {
            items,
            before: if more { oldest } else { None },
            after: None,
        })
    }

    /// The first `limit` items of a session from the cursor `after` on (a page's `after`),
    /// oldest first; the page's `after` is set when newer items remain. One index range scan,
    /// like `load_timeline` backwards.
    pub async fn load_timeline_newer(
        &self,
        session_id: &SessionId,
        after: i64,
        limit: u32,
    ) -> Result<TimelinePage> {
        let limit = limit.clamp(1, MAX_PAGE);
        let rows: Vec<ItemRow> = sqlx::query_as(&format!(
            "SELECT {COLUMNS} FROM timeline_items
             WHERE session_id = ? AND pk >= ? ORDER BY pk LIMIT ?"
        ))
        .bind(session_id)
        .bind(after)
        .bind(i64::from(limit) + 1)
        .fetch_all(&self.pool)
        .await?;
        let next = rows.get(limit as usize).map(|row| row.pk);
        let oldest = rows.first().map(|row| row.pk);
        let items = to_items(rows.into_iter().take(limit as usize).collect())?;
        Ok(TimelinePage {
            items,
            before: oldest,
            after: next,
        })
    }

    /// Every item of a session in order (export).
    pub async fn session_items(&self, session_id: &SessionId) -> Result<Vec<TimelineItem>> {
        let rows: Vec<ItemRow> = sqlx::query_as(&format!(
            "SELECT {COLUMNS} FROM timeline_items WHERE session_id = ? ORDER BY pk"
        ))
        .bind(session_id)
        .fetch_all(&self.pool)
        .await?;
        to_items(rows)
    }

    /// A run's items in order.
    pub async fn run_items(&self, run_id: &RunId) -> Result<Vec<TimelineItem>> {
        let rows: Vec<ItemRow> = sqlx::query_as(&format!(
            "SELECT {COLUMNS} FROM timeline_items WHERE run_id = ? ORDER BY seq, pk"
        ))
        .bind(run_id)
        .fetch_all(&self.pool)
        .await?;
        to_items(rows)
    }

    /// A run's items still streaming or running end as `status` (the run ended under them:
    /// interrupt, crash, or a previous process that stopped). Uses the by-run index.
    pub async fn close_open_items(
        &self,
        run_id: &RunId,
        status: ItemStatus,
        at: i64,
    ) -> Result<u64> {
        let res = sqlx::query(
            "UPDATE timeline_items SET status = ?, updated_at = ?
             WHERE run_id = ? AND status = 'running'",
        )
        .bind(status.as_str())
        .bind(at)
        .bind(run_id)
        .execute(&self.pool)
        .await?;
        Ok(res.rows_affected())
    }

    /// The plan the session's agent last reported, if any (its latest `plan` item).
    pub async fn latest_plan(
        &self,
        session_id: &SessionId,
    ) -> Result<Option<agentdesk_protocol::plan::Plan>> {
        let row: Option<ItemRow> = sqlx::query_as(&format!(
            "SELECT {COLUMNS} FROM timeline_items INDEXED BY timeline_items_plans
             WHERE session_id = ? AND kind = 'plan' ORDER BY pk DESC LIMIT 1"
        ))
        .bind(session_id)
        .fetch_optional(&self.pool)
        .await?;
        Ok(match row.map(TimelineItem::try_from).transpose()? {
            Some(TimelineItem {
                body: ItemBody::Plan(plan),
                ..
            }) => Some(plan),
            _ => None,
        })
    }

    pub async fn count_session_items(&self, session_id: &SessionId) -> Result<i64> {
        Ok(
            sqlx::query_scalar("SELECT COUNT(*) FROM timeline_items WHERE session_id = ?")
                .bind(session_id)
                .fetch_one(&self.pool)
                .await?,
        )
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// A payload an older build wrote (the approval copied into the item) still loads, as the
    /// id it names.
    #[test]
    fn an_old_payload_with_the_approval_copied_in_still_loads() {
        let tool = r#"{"toolKind":"command","name":"Bash","input":{"command":"ls"},"output":"",
            "exitCode":0,"files":[],"approval":{"approvalId":"a1","requestId":"7","kind":"command",
            "command":"ls","cwd":null,"files":[],"reason":null,"state":"denied","decidedBy":"user"}}"#;
        match join("tool".into(), None, tool).unwrap() {
            ItemBody::Tool { approval_id, .. } => assert_eq!(approval_id, Some("a1".into())),
            other => panic!("{other:?}"),
        }
        let alone = r#"{"approval":{"approvalId":null,"requestId":"7","kind":"permission",
            "command":null,"cwd":null,"files":[],"reason":null,"state":"pending","decidedBy":null}}"#;
        assert_eq!(
            join("approval".into(), None, alone).unwrap(),
            ItemBody::Approval { approval_id: None }
        );
        let question = r#"{"requestId":"9","approvalId":"a9","questions":[],"answers":null,
            "state":"pending"}"#;
        assert_eq!(
            join("question".into(), None, question).unwrap(),
            ItemBody::Question {
                approval_id: Some("a9".into())
            }
        );
        // Today's payloads round-trip.
        let body = ItemBody::Tool {
            tool_kind: agentdesk_protocol::events::ToolKind::Command,
            name: "Bash".into(),
            input: Value::Null,
            output: String::new(),
            output_bytes: None,
            exit_code: None,
            files: Vec::new(),
            approval_id: Some("a2".into()),
        };
        let s = split(&body).unwrap();
        assert_eq!(join(s.kind, s.text, &s.payload).unwrap(), body);
    }
}
