//! Sessions imported from the engines' own histories: what each history file's last read
//! covered (so a re-scan reads only what is new), and the write of a batch of imported turns,
//! in one transaction: the session, its runs from the first turn read again, their items and
//! usage, and the file's new read position go in together or not at all, so a session is
//! never shown with half a turn, nor a turn recorded twice.

use std::collections::HashSet;

use agentdesk_protocol::ids::SessionId;
use agentdesk_protocol::ui::{Engine, Run, Session, SessionOrigin, TimelineItem, TokenUsage};
use sqlx::{Sqlite, Transaction};

use crate::select::Table;
use crate::timeline::upsert_many;
use crate::{stored_name, Result, Store, StoreError};

/// What the last read of one history file covered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoryFileState {
    pub path: String,
    pub origin: SessionOrigin,
    /// The session it was imported into (`None`: nothing importable yet, or no workspace).
    pub session_id: Option<SessionId>,
    /// The file's identity (device and inode, or the platform's equivalent): another file
    /// under the same name (rotated, replaced) is read from the start.
    pub file_id: String,
    pub size: i64,
    pub mtime_ms: i64,
    /// The end of the last complete line read.
    pub read_to: i64,
    /// Where the last turn read began, and its run's position: a grown file is read again
    /// from there (that turn may have gone on) and its run replaced.
    pub turn_at: i64,
    pub turn_seq: i64,
    /// Lines that could not be read, over all reads.
    pub skipped: i64,
    pub updated_at: i64,
}

#[derive(sqlx::FromRow)]
pub(crate) struct StateRow {
    path: String,
    origin: String,
    session_id: Option<SessionId>,
    file_id: String,
    size: i64,
    mtime_ms: i64,
    read_to: i64,
    turn_at: i64,
    turn_seq: i64,
    skipped: i64,
    updated_at: i64,
}

impl TryFrom<StateRow> for HistoryFileState {
    type Error = StoreError;

    fn try_from(r: StateRow) -> Result<Self> {
        Ok(HistoryFileState {
            origin: stored_name("session origin", &r.origin, SessionOrigin::parse)?,
            path: r.path,
            session_id: r.session_id,
            file_id: r.file_id,
            size: r.size,
            mtime_ms: r.mtime_ms,
            read_to: r.read_to,
            turn_at: r.turn_at,
            turn_seq: r.turn_seq,
            skipped: r.skipped,
            updated_at: r.updated_at,
        })
    }
}

const STATE_COLUMNS: &str = "path, origin, session_id, file_id, size, mtime_ms, read_to, \
    turn_at, turn_seq, skipped, updated_at";

/// One imported turn: its run (ended), its items and its usage.
#[derive(Debug, Clone)]
pub struct ImportedTurn {
    pub run: Run,
    pub items: Vec<TimelineItem>,
    pub usage: Option<TokenUsage>,
}

/// A batch of one history file's turns, written as one.
#[derive(Debug, Clone)]
pub struct HistoryImport<'a> {
    /// Inserted when new; otherwise its title and `updated_at` are brought up to date.
    pub session: &'a Session,
    /// Runs of the session from this position on are replaced by `turns`.
    pub replace_from_seq: i64,
    pub turns: &'a [ImportedTurn],
    pub file: &'a HistoryFileState,
}

impl Table for HistoryFileState {
    type Row = StateRow;
    const TABLE: &'static str = "history_files";
    const COLUMNS: &'static str = STATE_COLUMNS;
}

impl Store {
    /// The history file a session was imported from, if it was.
    pub async fn history_file_of_session(
        &self,
        session_id: &SessionId,
    ) -> Result<Option<HistoryFileState>> {
        self.select_one("WHERE session_id = ? LIMIT 1", session_id)
            .await
    }

    /// Every history file read so far, by path.
    pub async fn history_files(&self) -> Result<Vec<HistoryFileState>> {
        self.select_all("ORDER BY path").await
    }

    /// The session of `engine` that goes on with engine session `engine_session_id`, and
    /// where it began (imported, or started here).
    pub async fn session_of_engine_session(
        &self,
        engine: Engine,
        engine_session_id: &str,
    ) -> Result<Option<(SessionId, SessionOrigin)>> {
        let row: Option<(SessionId, String)> = sqlx::query_as(
            "SELECT id, origin FROM sessions WHERE engine = ? AND engine_session_id = ? \
             ORDER BY origin = 'app' DESC LIMIT 1",
        )
        .bind(engine.as_str())
        .bind(engine_session_id)
        .fetch_optional(&self.pool)
        .await?;
        row.map(|(id, origin)| {
            Ok((
                id,
                stored_name("session origin", &origin, SessionOrigin::parse)?,
            ))
        })
        .transpose()
    }

    /// The engine session ids of the sessions started here: their engines' histories hold
    /// them too, and they are not imported.
    pub async fn app_engine_session_ids(&self) -> Result<HashSet<String>> {
        let ids: Vec<String> = sqlx::query_scalar(
            "SELECT engine_session_id FROM sessions \
             WHERE origin = 'app' AND engine_session_id IS NOT NULL",
        )
        .fetch_all(&self.pool)
        .await?;
        Ok(ids.into_iter().collect())
    }

    /// Remember a read that imported nothing (no workspace for its folder, no turn yet).
    pub async fn set_history_file(&self, file: &HistoryFileState) -> Result<()> {
        let mut tx = self.write_tx().await?;
        put_state(&mut tx, file).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Write a batch of imported turns (see [`HistoryImport`]) in one transaction.
    pub async fn import_history(&self, batch: &HistoryImport<'_>) -> Result<()> {
        let s = batch.session;
        let mut tx = self.write_tx().await?;
        sqlx::query(
            "INSERT INTO sessions (id, workspace_id, profile_id, title, engine,
                engine_session_id, origin, created_at, updated_at, archived_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)
             ON CONFLICT(id) DO UPDATE SET title = excluded.title,
                updated_at = MAX(sessions.updated_at, excluded.updated_at)",
        )
        .bind(&s.id)
        .bind(&s.workspace_id)
        .bind(&s.profile_id)
        .bind(&s.title)
        .bind(s.engine.as_str())
        .bind(&s.engine_session_id)
        .bind(s.origin.as_str())
        .bind(s.created_at)
        .bind(s.updated_at)
        .execute(&mut *tx)
        .await?;
        sqlx::query("DELETE FROM runs WHERE session_id = ? AND seq >= ?")
            .bind(&s.id)
            .bind(batch.replace_from_seq)
            .execute(&mut *tx)
            .await?;
        insert_turns(&mut tx, batch.turns).await?;
        put_state(&mut tx, batch.file).await?;
        tx.commit().await?;
        Ok(())
    }
}

/// Rows per multi-row statement (see `timeline::upsert_many`).
const ROWS_PER_STATEMENT: usize = 200;

/// The turns' runs, items and usage, many rows a statement: an import writes hundreds of
/// turns a session, and a statement per row costs a round trip to the database thread.
async fn insert_turns(tx: &mut Transaction<'_, Sqlite>, turns: &[ImportedTurn]) -> Result<()> {
    if let Some(t) = turns.iter().find(|t| !t.run.status.is_terminal()) {
        return Err(StoreError::Conflict(format!(
            "an imported run is over, not {}",
            t.run.status.as_str()
        )));
    }
    for chunk in turns.chunks(ROWS_PER_STATEMENT) {
        let mut q = sqlx::QueryBuilder::<Sqlite>::new(
            "INSERT INTO runs (id, session_id, seq, status, prompt, profile_id, model, stop_reason,
                error, created_at, started_at, ended_at) ",
        );
        q.push_values(chunk, |mut b, t| {
            let r = &t.run;
            b.push_bind(&r.id)
                .push_bind(&r.session_id)
                .push_bind(r.seq)
                .push_bind(r.status.as_str())
                .push_bind(&r.prompt)
                .push_bind(&r.profile_id)
                .push_bind(&r.model)
                .push_bind(&r.stop_reason)
                .push_bind(&r.error)
                .push_bind(r.created_at)
                .push_bind(r.started_at)
                .push_bind(r.ended_at);
        });
        q.build().execute(&mut **tx).await?;
    }
    let items: Vec<&TimelineItem> = turns.iter().flat_map(|t| &t.items).collect();
    upsert_many(tx, &items).await?;
    let usage: Vec<(&Run, &TokenUsage)> = turns
        .iter()
        .filter_map(|t| t.usage.as_ref().map(|u| (&t.run, u)))
        .collect();
    for chunk in usage.chunks(ROWS_PER_STATEMENT) {
        let mut q = sqlx::QueryBuilder::<Sqlite>::new(
            "INSERT INTO usage (run_id, input_tokens, cached_input_tokens, output_tokens,
                reasoning_tokens, cost_usd, updated_at) ",
        );
        q.push_values(chunk, |mut b, (r, u)| {
            b.push_bind(&r.id)
                .push_bind(u.input)
                .push_bind(u.cached)
                .push_bind(u.output)
                .push_bind(u.reasoning)
                .push_bind(u.cost_usd)
                .push_bind(r.ended_at.unwrap_or(r.created_at));
        });
        q.build().execute(&mut **tx).await?;
    }
    Ok(())
}

async fn put_state(tx: &mut Transaction<'_, Sqlite>, f: &HistoryFileState) -> Result<()> {
    sqlx::query(&format!(
        "INSERT OR REPLACE INTO history_files ({STATE_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?,?)"
    ))
    .bind(&f.path)
    .bind(f.origin.as_str())
    .bind(&f.session_id)
    .bind(&f.file_id)
    .bind(f.size)
    .bind(f.mtime_ms)
    .bind(f.read_to)
    .bind(f.turn_at)
    .bind(f.turn_seq)
    .bind(f.skipped)
    .bind(f.updated_at)
    .execute(&mut **tx)
    .await?;
    Ok(())
}
