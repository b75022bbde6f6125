//! Durable approval records. Every state change is a compare-and-set on `state = 'pending'`:
//! the database is the one arbiter of which decision wins, so an approval is never decided
//! twice and a decision for one that is no longer pending is refused, not replayed.

use crate::select::Table;
use crate::{stored_name, Result, Store, StoreError};
use agentdesk_protocol::ids::{ApprovalId, RunId, SessionId};
use agentdesk_protocol::ui::{
    Approval, ApprovalDecisionDetail, ApprovalKindName, ApprovalState, DecidedBy,
};

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

/// The columns [`COLUMNS`] selects.
#[derive(sqlx::FromRow)]
pub(crate) struct ApprovalRow {
    id: ApprovalId,
    session_id: SessionId,
    run_id: RunId,
    item_id: Option<String>,
    engine_request_id: String,
    kind: String,
    request: String,
    suggestions: String,
    state: String,
    decided_by: Option<String>,
    decision: Option<String>,
    created_at: i64,
    deadline_at: Option<i64>,
    decided_at: Option<i64>,
}

impl TryFrom<ApprovalRow> for Approval {
    type Error = StoreError;

    fn try_from(r: ApprovalRow) -> Result<Self> {
        Ok(Approval {
            kind: stored_name("approval kind", &r.kind, ApprovalKindName::parse)?,
            request: serde_json::from_str(&r.request)?,
            suggestions: serde_json::from_str(&r.suggestions)?,
            state: stored_name("approval state", &r.state, ApprovalState::parse)?,
            decided_by: r
                .decided_by
                .map(|d| stored_name("decider", &d, DecidedBy::parse))
                .transpose()?,
            decision: r.decision.map(|d| serde_json::from_str(&d)).transpose()?,
            id: r.id,
            session_id: r.session_id,
            run_id: r.run_id,
            item_id: r.item_id,
            engine_request_id: r.engine_request_id,
            created_at: r.created_at,
            deadline_at: r.deadline_at,
            decided_at: r.decided_at,
        })
    }
}

/// Rows to approvals; the first that does not decode fails the whole answer.
fn to_approvals(rows: Vec<ApprovalRow>) -> Result<Vec<Approval>> {
    rows.into_iter().map(Approval::try_from).collect()
}

fn not_found(id: &ApprovalId) -> StoreError {
    StoreError::NotFound {
        what: format!("approval {id}"),
    }
}

impl Table for Approval {
    type Row = ApprovalRow;
    const TABLE: &'static str = "approvals";
    const COLUMNS: &'static str = COLUMNS;
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
        self.select_one("WHERE id = ?", id)
            .await?
            .ok_or_else(|| not_found(id))
    }

    /// `pending → end.state`, only if still pending. Otherwise `ApprovalNotPending` (with the
    /// state it is in) or `NotFound`.
    pub async fn end_approval(&self, id: &ApprovalId, end: &ApprovalEnd<'_>) -> Result<Approval> {
        if end.state.is_pending() {
            return Err(StoreError::Conflict(
                "an approval cannot be ended as pending".into(),
            ));
        }
        let row: Option<ApprovalRow> = sqlx::query_as(&format!(
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
            Some(row) => row.try_into(),
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
        self.select_all("WHERE state = 'pending' ORDER BY created_at, id")
            .await
    }

    /// A session's approvals (any state), oldest first.
    pub async fn session_approvals(&self, session_id: &SessionId) -> Result<Vec<Approval>> {
        self.select("WHERE session_id = ? ORDER BY created_at, id", session_id)
            .await
    }

    /// Every pending approval becomes expired (start-up: the engines that asked are gone).
    /// Nobody decided, so `decided_by` stays NULL. Returns the approvals changed.
    pub async fn expire_all_pending_approvals(&self, at: i64) -> Result<Vec<Approval>> {
        let rows: Vec<ApprovalRow> = sqlx::query_as(&format!(
            "UPDATE approvals SET state = 'expired', decided_at = ?
             WHERE state = 'pending' RETURNING {COLUMNS}"
        ))
        .bind(at)
        .fetch_all(&self.pool)
        .await?;
        to_approvals(rows)
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
        let rows: Vec<ApprovalRow> = sqlx::query_as(&format!(
            "UPDATE approvals SET state = ?, decided_at = ?
             WHERE run_id = ? AND state = 'pending' RETURNING {COLUMNS}"
        ))
        .bind(state.as_str())
        .bind(at)
        .bind(run_id)
        .fetch_all(&self.pool)
        .await?;
        to_approvals(rows)
    }
}
