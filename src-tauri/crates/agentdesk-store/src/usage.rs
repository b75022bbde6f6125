//! Token usage and cost per run, summed per session and per workspace.

use agentdesk_protocol::ids::{RunId, SessionId, WorkspaceId};
use agentdesk_protocol::ui::Usage;
use sqlx::sqlite::SqliteRow;
use sqlx::Row;

use crate::{Result, Store};

fn sum_from_row(row: &SqliteRow) -> Result<Usage> {
    Ok(Usage {
        input: row.try_get("input")?,
        cached: row.try_get("cached")?,
        output: row.try_get("output")?,
        reasoning: row.try_get("reasoning")?,
        cost_usd: row.try_get("cost")?,
        runs: row.try_get("runs")?,
    })
}

const SUMS: &str = "COALESCE(SUM(u.input_tokens), 0) AS input,
    COALESCE(SUM(u.cached_input_tokens), 0) AS cached, COALESCE(SUM(u.output_tokens), 0) AS output,
    COALESCE(SUM(u.reasoning_tokens), 0) AS reasoning, SUM(u.cost_usd) AS cost, COUNT(u.run_id) AS runs";

impl Store {
    /// Set a run's usage (engines report running totals for the run, so this replaces).
    pub async fn upsert_usage(&self, run_id: &RunId, u: &Usage, at: i64) -> Result<()> {
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
        let row = sqlx::query(&format!(
            "SELECT {SUMS} FROM usage u WHERE u.run_id = ? HAVING COUNT(u.run_id) > 0"
        ))
        .bind(run_id)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(sum_from_row).transpose()
    }

    pub async fn session_usage(&self, session_id: &SessionId) -> Result<Usage> {
        let row = sqlx::query(&format!(
            "SELECT {SUMS} FROM usage u JOIN runs r ON r.id = u.run_id WHERE r.session_id = ?"
        ))
        .bind(session_id)
        .fetch_one(&self.pool)
        .await?;
        sum_from_row(&row)
    }

    pub async fn workspace_usage(&self, workspace_id: &WorkspaceId) -> Result<Usage> {
        let row = sqlx::query(&format!(
            "SELECT {SUMS} FROM usage u JOIN runs r ON r.id = u.run_id
             JOIN sessions s ON s.id = r.session_id WHERE s.workspace_id = ?"
        ))
        .bind(workspace_id)
        .fetch_one(&self.pool)
        .await?;
        sum_from_row(&row)
    }
}
