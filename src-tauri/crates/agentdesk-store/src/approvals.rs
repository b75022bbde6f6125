//! Durable approval records. Every state change is a compare-and-set on `state = 'pending'`:
//! the database is the one arbiter of which decision wins, so an approval is never decided
//! twice and a decision for one that is no longer pending is refused, not replayed.

use agentdesk_protocol::ids::{ApprovalId, RunId, SessionId};
use agentdesk_protocol::ui::{
    Approval, ApprovalDecisionDetail, ApprovalKindName, ApprovalState, DecidedBy,
};
use sqlx::sqlite::SqliteRow;
use sqlx::Row;

use crate::{Result, Store, StoreError};

const COLUMNS: &str = "id, session_id, run_id, item_id, engine_request_id, kind, request,
    suggestions, state, decided_by, decision, created_at, deadline_at, decided_at";

/// The end of a pending approval.
#[derive(Debug, Clone)]
pub struct ApprovalEnd<'a> {
    pub state: ApprovalState,
    /// `None` for states nobody decided (expired, cancelled).
    pub decided_by: Option<DecidedBy>,
    pub decision: Option<&'a ApprovalDecisionDetail>,
    pub at: i64,
}

fn from_row(row: &SqliteRow) -> Result<Approval> {
    let kind: String = row.try_get("kind")?;
    let state: String = row.try_get("state")?;
    let decided_by: Option<String> = row.try_get("decided_by")?;
    let request: String = row.try_get("request")?;
    let suggestions: String = row.try_get("suggestions")?;
    let decision: Option<String> = row.try_get("decision")?;
    Ok(Approval {
        id: row.try_get("id")?,
        session_id: row.try_get("session_id")?,
        run_id: row.try_get("run_id")?,
        item_id: row.try_get("item_id")?,
        engine_request_id: row.try_get("engine_request_id")?,
        kind: ApprovalKindName::parse(&kind)
            .ok_or_else(|| StoreError::Schema(format!("unknown approval kind {kind:?}")))?,
        request: serde_json::from_str(&request)?,
        suggestions: serde_json::from_str(&suggestions)?,
        state: ApprovalState::parse(&state)
            .ok_or_else(|| StoreError::Schema(format!("unknown approval state {state:?}")))?,
        decided_by: decided_by
            .map(|d| {
                DecidedBy::parse(&d)
                    .ok_or_else(|| StoreError::Schema(format!("unknown decider {d:?}")))
            })
            .transpose()?,
        decision: decision.map(|d| serde_json::from_str(&d)).transpose()?,
        created_at: row.try_get("created_at")?,
        deadline_at: row.try_get("deadline_at")?,
        decided_at: row.try_get("decided_at")?,
    })
}

fn not_found(id: &ApprovalId) -> StoreError {
    StoreError::NotFound {
        what: format!("approval {id}"),
    }
}

impl Store {
    /// Record an approval as it is (pending, or already decided by a rule).
    pub async fn insert_approval(&self, a: &Approval) -> Result<()> {
        sqlx::query(&format!(
            "INSERT INTO approvals ({COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
        ))
        .bind(&a.id)
        .bind(&a.session_id)
        .bind(&a.run_id)
        .bind(&a.item_id)
        .bind(&a.engine_request_id)
        .bind(a.kind.as_str())
        .bind(serde_json::to_string(&a.request)?)
        .bind(serde_json::to_string(&a.suggestions)?)
        .bind(a.state.as_str())
        .bind(a.decided_by.map(DecidedBy::as_str))
        .bind(a.decision.as_ref().map(serde_json::to_string).transpose()?)
        .bind(a.created_at)
        .bind(a.deadline_at)
        .bind(a.decided_at)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    pub async fn get_approval(&self, id: &ApprovalId) -> Result<Approval> {
        let row = sqlx::query(&format!("SELECT {COLUMNS} FROM approvals WHERE id = ?"))
            .bind(id)
            .fetch_optional(&self.pool)
            .await?
            .ok_or_else(|| not_found(id))?;
        from_row(&row)
    }

    /// `pending → end.state`, only if still pending. Otherwise `ApprovalNotPending` (with the
    /// state it is in) or `NotFound`.
    pub async fn end_approval(&self, id: &ApprovalId, end: &ApprovalEnd<'_>) -> Result<Approval> {
        if end.state.is_pending() {
            return Err(StoreError::Conflict(
                "an approval cannot be ended as pending".into(),
            ));
        }
        let row = sqlx::query(&format!(
            "UPDATE approvals SET state = ?, decided_by = ?, decision = ?, decided_at = ?
             WHERE id = ? AND state = 'pending' RETURNING {COLUMNS}"
        ))
        .bind(end.state.as_str())
        .bind(end.decided_by.map(DecidedBy::as_str))
        .bind(end.decision.map(serde_json::to_string).transpose()?)
        .bind(end.at)
        .bind(id)
        // All rows, not the first: a write with RETURNING commits when its statement
        // finishes, and a failed commit (a full disk) only shows on that last step.
        .fetch_all(&self.pool)
        .await?
        .into_iter()
        .next();
        match row {
            Some(row) => from_row(&row),
            None => {
                let current = self.get_approval(id).await?;
                Err(StoreError::ApprovalNotPending {
                    id: id.clone(),
                    state: current.state,
                })
            }
        }
    }

    /// All pending approvals, oldest first.
    pub async fn pending_approvals(&self) -> Result<Vec<Approval>> {
        let rows = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM approvals WHERE state = 'pending' ORDER BY created_at, id"
        ))
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(from_row).collect()
    }

    /// A session's approvals (any state), oldest first.
    pub async fn session_approvals(&self, session_id: &SessionId) -> Result<Vec<Approval>> {
        let rows = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM approvals WHERE session_id = ? ORDER BY created_at, id"
        ))
        .bind(session_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(from_row).collect()
    }

    /// Every pending approval becomes expired (start-up: the engines that asked are gone).
    /// Nobody decided, so `decided_by` stays NULL. Returns the approvals changed.
    pub async fn expire_all_pending_approvals(&self, at: i64) -> Result<Vec<Approval>> {
        let rows = sqlx::query(&format!(
            "UPDATE approvals SET state = 'expired', decided_at = ?
             WHERE state = 'pending' RETURNING {COLUMNS}"
        ))
        .bind(at)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(from_row).collect()
    }

    /// A run's pending approvals end as `state` (expired when its engine died, cancelled
    /// when it was interrupted). Returns the approvals changed.
    pub async fn end_run_approvals(
        &self,
        run_id: &RunId,
        state: ApprovalState,
        at: i64,
    ) -> Result<Vec<Approval>> {
        if !matches!(state, ApprovalState::Expired | ApprovalState::Cancelled) {
            return Err(StoreError::Conflict(format!(
                "a run's approvals end as expired or cancelled, not {}",
                state.as_str()
            )));
        }
        let rows = sqlx::query(&format!(
            "UPDATE approvals SET state = ?, decided_at = ?
             WHERE run_id = ? AND state = 'pending' RETURNING {COLUMNS}"
        ))
        .bind(state.as_str())
        .bind(at)
        .bind(run_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(from_row).collect()
    }
}
