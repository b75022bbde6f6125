//! Token usage and cost per run, summed per session and per workspace.

use agentdesk_protocol::ids::{RunId, SessionId, WorkspaceId};
use agentdesk_protocol::ui::{TokenUsage, Usage};

use crate::{Result, Store};

/// The columns [`SUMS`] selects.
#[derive(sqlx::FromRow)]
struct SumRow {
    input: i64,
    cached: i64,
    output: i64,
    reasoning: i64,
    cost: Option<f64>,
    runs: i64,
}

impl From<SumRow> for Usage {
    fn from(r: SumRow) -> Self {
        Usage {
            tokens: TokenUsage {
                input: r.input,
                cached: r.cached,
                output: r.output,
                reasoning: r.reasoning,
                cost_usd: r.cost,
            },
            runs: r.runs,
        }
    }
}

const SUMS: &str = "COALESCE(SUM(u.input_tokens), 0) AS input,
    COALESCE(SUM(u.cached_input_tokens), 0) AS cached, COALESCE(SUM(u.output_tokens), 0) AS output,
    COALESCE(SUM(u.reasoning_tokens), 0) AS reasoning, SUM(u.cost_usd) AS cost, COUNT(u.run_id) AS runs";

impl Store {
    /// Set a run's usage (engines report running totals for the run, so this replaces).
    pub async fn upsert_usage(&self, run_id: &RunId, u: &TokenUsage, at: i64) -> Result<()> {
        sqlx::query(
            "INSERT INTO usage (run_id, input_tokens, cached_input_tokens, output_tokens,
                reasoning_tokens, cost_usd, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
             ON CONFLICT(run_id) DO UPDATE SET input_tokens = excluded.input_tokens,
                cached_input_tokens = excluded.cached_input_tokens,
                output_tokens = excluded.output_tokens, reasoning_tokens = excluded.reasoning_tokens,
                cost_usd = COALESCE(excluded.cost_usd, usage.cost_usd), updated_at = excluded.updated_at",
        )
        .bind(run_id)
        .bind(u.input)
        .bind(u.cached)
        .bind(u.output)
        .bind(u.reasoning)
        .bind(u.cost_usd)
        .bind(at)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    pub async fn run_usage(&self, run_id: &RunId) -> Result<Option<Usage>> {
        let row: Option<SumRow> = sqlx::query_as(&format!(
            "SELECT {SUMS} FROM usage u WHERE u.run_id = ? HAVING COUNT(u.run_id) > 0"
        ))
        .bind(run_id)
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.map(Usage::from))
    }

    pub async fn session_usage(&self, session_id: &SessionId) -> Result<Usage> {
        let row: SumRow = sqlx::query_as(&format!(
            "SELECT {SUMS} FROM usage u JOIN runs r ON r.id = u.run_id WHERE r.session_id = ?"
        ))
        .bind(session_id)
        .fetch_one(&self.pool)
        .await?;
        Ok(row.into())
    }

    pub async fn workspace_usage(&self, workspace_id: &WorkspaceId) -> Result<Usage> {
        let row: SumRow = sqlx::query_as(&format!(
            "SELECT {SUMS} FROM usage u JOIN runs r ON r.id = u.run_id
             JOIN sessions s ON s.id = r.session_id WHERE s.workspace_id = ?"
        ))
        .bind(workspace_id)
        .fetch_one(&self.pool)
        .await?;
        Ok(row.into())
    }
}
