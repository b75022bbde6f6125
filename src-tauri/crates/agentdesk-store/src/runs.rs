//! Runs: one user turn each. Status moves `queued → running → completed | failed |
//! interrupted`; every transition is a compare-and-set so a late writer cannot revive or
//! rewrite a run that has ended.

use agentdesk_protocol::ids::{ProfileId, RunId, SessionId};
use agentdesk_protocol::ui::{Run, RunStatus};

use crate::select::Table;
use crate::{stored_name, Result, Store, StoreError};

const COLUMNS: &str = "id, session_id, seq, status, prompt, profile_id, model, stop_reason, error,
    created_at, started_at, ended_at";

/// What a new run starts with.
#[derive(Debug, Clone)]
pub struct NewRun<'a> {
    pub id: &'a RunId,
    pub session_id: &'a SessionId,
    /// `Queued` or `Running`.
    pub status: RunStatus,
    pub prompt: &'a str,
    pub profile_id: Option<&'a ProfileId>,
    pub model: Option<&'a str>,
    pub at: i64,
}

impl<'a> NewRun<'a> {
    /// A run that starts at once, under no profile and the engine's default model. Set the
    /// rest with `NewRun { status, profile_id, ..NewRun::running(..) }`.
    pub fn running(id: &'a RunId, session_id: &'a SessionId, prompt: &'a str, at: i64) -> Self {
        NewRun {
            id,
            session_id,
            status: RunStatus::Running,
            prompt,
            profile_id: None,
            model: None,
            at,
        }
    }
}

/// How a run ended.
#[derive(Debug, Clone)]
pub struct RunEnd<'a> {
    /// `Completed`, `Failed` or `Interrupted`.
    pub status: RunStatus,
    pub stop_reason: Option<&'a str>,
    pub error: Option<&'a str>,
    pub at: i64,
}

/// A `runs` row ([`COLUMNS`]); the status is checked when it becomes a [`Run`].
#[derive(sqlx::FromRow)]
pub(crate) struct RunRow {
    id: RunId,
    session_id: SessionId,
    seq: i64,
    status: String,
    prompt: String,
    profile_id: Option<ProfileId>,
    model: Option<String>,
    stop_reason: Option<String>,
    error: Option<String>,
    created_at: i64,
    started_at: Option<i64>,
    ended_at: Option<i64>,
}

impl TryFrom<RunRow> for Run {
    type Error = StoreError;

    fn try_from(r: RunRow) -> Result<Self> {
        Ok(Run {
            status: stored_name("run status", &r.status, RunStatus::parse)?,
            id: r.id,
            session_id: r.session_id,
            seq: r.seq,
            prompt: r.prompt,
            profile_id: r.profile_id,
            model: r.model,
            stop_reason: r.stop_reason,
            error: r.error,
            created_at: r.created_at,
            started_at: r.started_at,
            ended_at: r.ended_at,
        })
    }
}

fn not_found(id: &RunId) -> StoreError {
    StoreError::NotFound {
        what: format!("run {id}"),
    }
}

impl Table for Run {
    type Row = RunRow;
    const TABLE: &'static str = "runs";
    const COLUMNS: &'static str = COLUMNS;
}

impl Store {
    /// Create a run at the end of its session (seq = last + 1) and touch the session.
    pub async fn create_run(&self, r: &NewRun<'_>) -> Result<Run> {
        if r.status.is_terminal() {
            return Err(StoreError::Conflict(format!(
                "a new run cannot start as {}",
                r.status.as_str()
            )));
        }
        let started_at = (r.status == RunStatus::Running).then_some(r.at);
        let mut tx = self.write_tx().await?;
        let res = sqlx::query(&format!(
            "INSERT INTO runs ({COLUMNS})
             SELECT ?, ?, COALESCE(MAX(seq), 0) + 1, ?, ?, ?, ?, NULL, NULL, ?, ?, NULL
             FROM runs WHERE session_id = ?"
        ))
        .bind(r.id)
        .bind(r.session_id)
        .bind(r.status.as_str())
        .bind(r.prompt)
        .bind(r.profile_id)
        .bind(r.model)
        .bind(r.at)
        .bind(started_at)
        .bind(r.session_id)
        .execute(&mut *tx)
        .await;
        match res {
            Ok(_) => {}
            Err(sqlx::Error::Database(db)) if db.is_foreign_key_violation() => {
                return Err(StoreError::NotFound {
                    what: format!("session {}", r.session_id),
                })
            }
            Err(e) => return Err(e.into()),
        }
        sqlx::query("UPDATE sessions SET updated_at = MAX(updated_at, ?) WHERE id = ?")
            .bind(r.at)
            .bind(r.session_id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        self.get_run(r.id).await
    }

    pub async fn get_run(&self, id: &RunId) -> Result<Run> {
        self.select_one("WHERE id = ?", id)
            .await?
            .ok_or_else(|| not_found(id))
    }

    /// A session's runs in order.
    pub async fn list_runs(&self, session_id: &SessionId) -> Result<Vec<Run>> {
        self.select("WHERE session_id = ? ORDER BY seq", session_id)
            .await
    }

    /// `queued → running`. Refused for any other current status.
    pub async fn start_run(&self, id: &RunId, model: Option<&str>, at: i64) -> Result<Run> {
        let row: Option<RunRow> = sqlx::query_as(&format!(
            "UPDATE runs SET status = 'running', started_at = ?, model = COALESCE(?, model)
             WHERE id = ? AND status = 'queued' RETURNING {COLUMNS}"
        ))
        .bind(at)
        .bind(model)
        .bind(id)
        // All rows, not the first: a write with RETURNING commits when its statement
        // finishes, and a failed commit (a full disk) only shows on that last step.
        .fetch_all(&self.pool)
        .await?
        .into_iter()
        .next();
        match row {
            Some(row) => row.try_into(),
            None => Err(self.refused(id, "start").await),
        }
    }

    /// The model the engine reports once the run has started.
    pub async fn set_run_model(&self, id: &RunId, model: &str) -> Result<()> {
        let res = sqlx::query("UPDATE runs SET model = ? WHERE id = ?")
            .bind(model)
            .bind(id)
            .execute(&self.pool)
            .await?;
        if res.rows_affected() == 0 {
            return Err(not_found(id));
        }
        Ok(())
    }

    /// `queued | running → completed | failed | interrupted`, once. Refused when the run has
    /// already ended, so the first terminal state wins.
    pub async fn finish_run(&self, id: &RunId, end: &RunEnd<'_>) -> Result<Run> {
        if !end.status.is_terminal() {
            return Err(StoreError::Conflict(format!(
                "{} is not an end state for a run",
                end.status.as_str()
            )));
        }
        let row: Option<RunRow> = sqlx::query_as(&format!(
            "UPDATE runs SET status = ?, stop_reason = ?, error = ?, ended_at = ?
             WHERE id = ? AND status IN ('queued', 'running') RETURNING {COLUMNS}"
        ))
        .bind(end.status.as_str())
        .bind(end.stop_reason)
        .bind(end.error)
        .bind(end.at)
        .bind(id)
        // All rows, not the first: a write with RETURNING commits when its statement
        // finishes, and a failed commit (a full disk) only shows on that last step.
        .fetch_all(&self.pool)
        .await?
        .into_iter()
        .next();
        match row {
            Some(row) => row.try_into(),
            None => Err(self.refused(id, "end").await),
        }
    }

    /// Runs a previous process left queued or running end as interrupted (at start-up: no
    /// engine is attached to them any more). Returns the runs changed.
    pub async fn interrupt_leftover_runs(&self, at: i64) -> Result<Vec<Run>> {
        let rows: Vec<RunRow> = sqlx::query_as(&format!(
            "UPDATE runs SET status = 'interrupted', ended_at = ?,
                error = COALESCE(error, 'Agent Desk stopped while this run was active')
             WHERE status IN ('queued', 'running') RETURNING {COLUMNS}"
        ))
        .bind(at)
        .fetch_all(&self.pool)
        .await?;
        rows.into_iter().map(Run::try_from).collect()
    }

    /// Runs that are queued or running, oldest first.
    pub async fn active_runs(&self) -> Result<Vec<Run>> {
        let rows: Vec<RunRow> = sqlx::query_as(&format!(
            "SELECT {COLUMNS} FROM runs WHERE status IN ('queued', 'running') ORDER BY created_at, seq"
        ))
        .fetch_all(&self.pool)
        .await?;
        rows.into_iter().map(Run::try_from).collect()
    }

    async fn refused(&self, id: &RunId, what: &str) -> StoreError {
        match self.get_run(id).await {
            Ok(run) => StoreError::Conflict(format!(
                "cannot {what} run {id}: it is {}",
                run.status.as_str()
            )),
            Err(e) => e,
        }
    }
}
